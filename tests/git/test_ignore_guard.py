"""A FIFO among the ignore files git reads: refused, never waited on (fresh12 F9).

``add`` reads the ``.gitignore`` files on its paths, ``.git/info/exclude`` and the global
ignore file (its KI119 prefilter) and asks ``git check-ignore``; ``verify`` asks ``git
ls-files --others --ignored --exclude-standard``. A FIFO at any of them made ``add``,
``add --commit``, ``import`` and ``verify`` wait for ever (``export`` and ``site build``
into the work tree too: they ask ``git check-ignore`` of their output). Each test runs the
command as a child with a timeout: on the base it hangs (the timeout fails the test), now
it refuses with exit status 1, naming the file, what it is and how to remove it, and
writes nothing.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from tests.conftest import DATA, ManifestKit, git, requires_data, snapshot
from tests.git.test_attr_guard import _env, _run  # the same child, timeout and environment

_ADD = "`git check-ignore` of the files this add writes"
_LS = "`git ls-files --others --ignored --exclude-standard -- store`"


def _refusal(path: str, full: Path, asking: str, what: str = "an ignore file git reads",
             fix: str = "", kind: str = "a FIFO") -> str:
    """The refusal's line as the CLI prints it (of a command that may write)."""
    # `verify` writes nothing, and no longer says "nothing was written" (fresh13 9)
    written = "" if asking == _LS else ", nothing was written"
    return (f"error: {path}: {what} is {kind}, not a regular file: git opens and reads it "
            "before it lists or adds a work-tree file, and would wait for ever; "
            f"{asking} was not asked{written}. Remove it (`rm {full}`){fix}, then run the "
            "command again\n")


def _manifest(tmp_path: Path) -> Path:
    """A new workload manifest to add, outside the store."""
    manifest = tmp_path / "w.json"
    manifest.write_text(json.dumps(ManifestKit().workload("a", name="wa")))
    return manifest


def _refused(root: Path, env: dict[str, str], args: tuple[str, ...], expected: str) -> None:
    """Run ``args``: refused with ``expected``, exit 1, nothing written, HEAD unchanged."""
    before, head = snapshot(root), git(root, "rev-parse", "HEAD")
    done = _run(root, env, *args)
    assert (done.returncode, done.stdout, done.stderr) == (1, "", expected)
    assert snapshot(root) == before
    assert git(root, "rev-parse", "HEAD") == head


@pytest.mark.parametrize("commit", [False, True])
def test_add_refuses_a_fifo_store_gitignore(published, tmp_path, commit):
    fifo = published / "store" / ".gitignore"
    os.mkfifo(fifo)
    args = ("add", *(["--commit"] if commit else []), str(_manifest(tmp_path)))
    _refused(published, _env(tmp_path), args, _refusal("store/.gitignore", fifo, _ADD))


def test_add_refuses_a_fifo_top_gitignore(published, tmp_path):
    fifo = published / ".gitignore"
    os.mkfifo(fifo)
    _refused(published, _env(tmp_path), ("add", str(_manifest(tmp_path))),
             _refusal(".gitignore", fifo, _ADD))


def test_add_refuses_a_fifo_info_exclude(published, tmp_path):
    fifo = published / ".git" / "info" / "exclude"
    fifo.unlink(missing_ok=True)
    os.mkfifo(fifo)
    _refused(published, _env(tmp_path), ("add", str(_manifest(tmp_path))),
             _refusal(".git/info/exclude", fifo, _ADD))


def test_add_refuses_a_fifo_core_excludes_file_of_git_config_global(published, tmp_path):
    fifo = tmp_path / "exclude"
    os.mkfifo(fifo)
    env = _env(tmp_path)
    config = env["GIT_CONFIG_GLOBAL"]
    Path(config).write_text(f"[core]\n\texcludesFile = {fifo}\n")
    _refused(published, env, ("add", "--commit", str(_manifest(tmp_path))), _refusal(
        str(fifo), fifo, _ADD, what=f"core.excludesFile (set in {config})",
        fix=f" or stop naming it (`git config --file {config} --unset core.excludesFile`)"))


def test_add_refuses_a_fifo_at_the_xdg_default_ignore_file(published, tmp_path):
    env = _env(tmp_path)
    fifo = tmp_path / "xdg" / "git" / "ignore"
    fifo.parent.mkdir()
    os.mkfifo(fifo)
    _refused(published, env, ("add", str(_manifest(tmp_path))), _refusal(str(fifo), fifo, _ADD))


@requires_data
def test_import_refuses_a_fifo_store_gitignore(published, tmp_path):
    folder = tmp_path / "kernelbench"
    shutil.copytree(DATA / "kernelbench/H100_Modal", folder / "H100_Modal")
    fifo = published / "store" / ".gitignore"
    os.mkfifo(fifo)
    _refused(published, _env(tmp_path), ("import", "kernelbench", str(folder)),
             "importing kernelbench\n" + _refusal("store/.gitignore", fifo, _ADD))


@pytest.mark.parametrize("where", ["store/.gitignore", "store/objects/.gitignore",
                                   ".gitignore", ".git/info/exclude"])
def test_verify_refuses_a_fifo_ignore_file(published, tmp_path, where):
    fifo = published / where
    fifo.unlink(missing_ok=True)
    os.mkfifo(fifo)
    _refused(published, _env(tmp_path), ("verify",), _refusal(where, fifo, _LS))


def test_verify_refuses_a_fifo_core_excludes_file_set_by_git_config_count(published,
                                                                          tmp_path):
    fifo = tmp_path / "exclude"
    os.mkfifo(fifo)
    env = _env(tmp_path, GIT_CONFIG_COUNT="1", GIT_CONFIG_KEY_0="core.excludesFile",
               GIT_CONFIG_VALUE_0=str(fifo))
    _refused(published, env, ("verify",), _refusal(
        str(fifo), fifo, _LS,
        what="core.excludesFile (set by `git -c` or a GIT_CONFIG_* environment variable)",
        fix=" or stop setting it there"))


def test_regular_ignore_files_everywhere_still_add_and_verify(published, tmp_path):
    env = _env(tmp_path)
    (tmp_path / "xdg" / "git").mkdir()
    Path(env["GIT_CONFIG_GLOBAL"]).write_text(
        f"[core]\n\texcludesFile = {tmp_path / 'exclude'}\n")
    for each in (tmp_path / "exclude", published / ".git" / "info" / "exclude",
                 tmp_path / "xdg" / "git" / "ignore",
                 published / "store" / "objects" / ".gitignore"):
        each.write_text("*.tmp\n")  # a regular file at each: read, nothing refused
    done = _run(published, env, "add", "--commit", str(_manifest(tmp_path)))
    assert (done.returncode, done.stderr) == (0, ""), done.stderr
    done = _run(published, env, "verify")
    assert "FIFO" not in done.stdout + done.stderr
    assert "not a regular file" not in done.stdout + done.stderr


@pytest.mark.parametrize("command", [("export", "exp/out"), ("site", "build", "exp/site")])
def test_an_output_inside_the_work_tree_refuses_a_fifo_gitignore(published, tmp_path,
                                                                 command):
    (published / "exp").mkdir()
    fifo = published / "exp" / ".gitignore"
    os.mkfifo(fifo)
    _refused(published, _env(tmp_path), command, _refusal(
        "exp/.gitignore", fifo, "`git check-ignore` of the files this command writes"))


@pytest.mark.parametrize("query", [("ls",), ("rank", "BenchmarkRun/x")])
def test_a_query_refusing_a_fifo_gitignore_does_not_say_nothing_was_written(tmp_path, query):
    # an unborn branch's queries ask git's status of the work tree; they write nothing, yet
    # said "nothing was written" as a writer does (low01's leftover of fresh13 9)
    root = tmp_path / "unborn"
    (root / "store").mkdir(parents=True)
    git(root, "init", "-q", ".")
    (root / "kistore.toml").touch()
    fifo = root / ".gitignore"
    os.mkfifo(fifo)
    before = snapshot(root)
    done = _run(root, _env(tmp_path), *query)
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == (
        "error: .gitignore: an ignore file git reads is a FIFO, not a regular file: git opens "
        "and reads it before it lists or adds a work-tree file, and would wait for ever; "
        f"git's status of the work tree was not asked. Remove it (`rm {fifo}`), then run the "
        "command again\n")
    assert snapshot(root) == before
