"""A FIFO among the attributes files git reads: refused, never waited on (fresh11 M3).

libgit2's status (``verify``) and ``git diff`` (``migrate``) open every attributes file
git may read before they hash a work-tree file; a FIFO there made ``kistore verify`` and
``kistore migrate`` wait for ever, deaf to Ctrl-C. Each test runs the command as a child
with a timeout: on the base it hangs (the timeout fails the test), now it refuses with
exit status 1, naming the file, what it is and how to remove it, and writes nothing.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import git, snapshot


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    """This process's environment, with HOME, XDG_CONFIG_HOME and GIT_CONFIG_GLOBAL in
    ``tmp_path`` (the global file empty unless the test writes it)."""
    home, xdg = tmp_path / "home", tmp_path / "xdg"
    home.mkdir(exist_ok=True)
    xdg.mkdir(exist_ok=True)
    (tmp_path / "global").touch()
    return {**os.environ, "HOME": str(home), "XDG_CONFIG_HOME": str(xdg),
            "GIT_CONFIG_GLOBAL": str(tmp_path / "global"), **extra}


def _run(root: Path, env: dict[str, str], *args: str,
         code: str = "import runpy; runpy.run_module('kistore', run_name='__main__')"
         ) -> subprocess.CompletedProcess[str]:
    """Run ``kistore --store ROOT ARGS`` as a child; a hang fails the test after 60 s."""
    return subprocess.run([sys.executable, "-c", code, "--store", str(root), *args],
                          capture_output=True, text=True, timeout=60, env=env, cwd=root)


def _stat_changed(root: Path, below: str = "store") -> None:
    """Touch every file under ``below``: git must read them (through their filters)."""
    for path in (root / below).rglob("*"):
        if path.is_file() and path.name != ".gitattributes":
            os.utime(path, (2_000_000_000, 2_000_000_000))


def _refusal(path: str, full: Path, kind: str = "a FIFO",
             asking: str = "git's status of the work tree", what: str = (
                 "an attributes file git reads"), fix: str = "", writes: bool = True) -> str:
    """The refusal's line as the CLI prints it (``writes``: of a command that may write)."""
    return (f"error: {path}: {what} is {kind}, not a regular file: git opens and reads it "
            "before it compares a work-tree file, and would wait for ever; "
            f"{asking} was not asked{', nothing was written' if writes else ''}. Remove it "
            f"(`rm {full}`){fix}, then run the command again\n")


def _verify_refusal(path: str, full: Path, **given: str) -> str:
    """:func:`_refusal` of ``verify``, which writes nothing: not said (fresh13 9)."""
    return _refusal(path, full, **given, writes=False)


def _status_asked(root: Path) -> None:
    """Make ``verify`` ask git's status: a (regular, empty) ``.gitattributes`` under
    ``store/`` turns its fast path off, and every file's stat data changed."""
    (root / "store" / "policy" / ".gitattributes").write_bytes(b"")
    _stat_changed(root)


def test_verify_refuses_a_fifo_gitattributes_under_store(published, tmp_path):
    fifo = published / "store" / "objects" / ".gitattributes"
    os.mkfifo(fifo)
    _stat_changed(published)
    before = snapshot(published)
    done = _run(published, _env(tmp_path), "verify")
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == _verify_refusal("store/objects/.gitattributes", fifo)
    assert snapshot(published) == before


def test_verify_refuses_a_fifo_gitattributes_outside_store(published, tmp_path):
    (published / "docs").mkdir()
    (published / "docs" / "a.txt").write_text("a\n")
    git(published, "add", "docs")
    git(published, "commit", "-q", "--no-verify", "-m", "docs")
    fifo = published / "docs" / ".gitattributes"
    os.mkfifo(fifo)
    _status_asked(published)
    _stat_changed(published, "docs")
    done = _run(published, _env(tmp_path), "verify")
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == _verify_refusal("docs/.gitattributes", fifo)


def test_verify_refuses_a_directory_gitattributes_under_store(published, tmp_path):
    made = published / "store" / "names" / ".gitattributes"
    made.mkdir()
    _status_asked(published)
    done = _run(published, _env(tmp_path), "verify")
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == _verify_refusal("store/names/.gitattributes", made, kind="a directory")


def test_verify_refuses_a_fifo_attributes_file_named_in_home_gitconfig(published, tmp_path):
    fifo = tmp_path / "attributes"
    os.mkfifo(fifo)
    env = _env(tmp_path)
    del env["GIT_CONFIG_GLOBAL"]  # libgit2 reads ~/.gitconfig (not GIT_CONFIG_GLOBAL)
    config = tmp_path / "home" / ".gitconfig"
    config.write_text(f"[core]\n\tattributesFile = {fifo}\n")
    _status_asked(published)
    done = _run(published, env, "verify")
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == _verify_refusal(
        str(fifo), fifo, what=f"core.attributesFile (set in {config})",
        fix=f" or stop naming it (`git config --file {config} --unset core.attributesFile`)")


def _names_lacking(root: Path) -> None:
    """Make ``migrate`` ask ``git diff``: a committed names file removed, metadata touched."""
    (name,) = (root / "store" / "names" / "BenchmarkRun").rglob("sol-submission-20464")
    name.unlink()
    _stat_changed(root)


@pytest.mark.parametrize("commit", [False, True])
def test_migrate_refuses_a_fifo_info_attributes(published, tmp_path, commit):
    _names_lacking(published)
    fifo = published / ".git" / "info" / "attributes"
    os.mkfifo(fifo)
    before = snapshot(published)
    head = git(published, "rev-parse", "HEAD")
    done = _run(published, _env(tmp_path), "migrate", *(["--commit"] if commit else []))
    assert (done.returncode, done.stdout) == (1, "")
    if commit:  # add --commit and migrate --commit say KI116 of it first, as ever
        assert "error: .git/info/attributes: this repository's .git/info/attributes is " \
            "not a regular file" in done.stderr
    else:
        assert done.stderr == _refusal(".git/info/attributes", fifo,
                                       asking="`git diff HEAD -- store/metadata`")
    assert snapshot(published) == before
    assert git(published, "rev-parse", "HEAD") == head


def test_migrate_refuses_a_fifo_core_attributes_file_of_git_config_global(published,
                                                                           tmp_path):
    _names_lacking(published)
    fifo = tmp_path / "attributes"
    os.mkfifo(fifo)
    env = _env(tmp_path)
    Path(env["GIT_CONFIG_GLOBAL"]).write_text(f"[core]\n\tattributesFile = {fifo}\n")
    before = snapshot(published)
    done = _run(published, env, "migrate", "--commit")
    assert (done.returncode, done.stdout) == (1, "")
    config = env["GIT_CONFIG_GLOBAL"]
    assert done.stderr == _refusal(
        str(fifo), fifo, asking="`git diff HEAD -- store/metadata`",
        what=f"core.attributesFile (set in {config})",
        fix=f" or stop naming it (`git config --file {config} --unset core.attributesFile`)")
    assert snapshot(published) == before


def test_migrate_refuses_a_fifo_attributes_file_set_by_git_config_count(published, tmp_path):
    _names_lacking(published)
    fifo = tmp_path / "attributes"
    os.mkfifo(fifo)
    env = _env(tmp_path, GIT_CONFIG_COUNT="1", GIT_CONFIG_KEY_0="core.attributesFile",
               GIT_CONFIG_VALUE_0=str(fifo))
    done = _run(published, env, "migrate")
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == _refusal(
        str(fifo), fifo, asking="`git diff HEAD -- store/metadata`",
        what="core.attributesFile (set by `git -c` or a GIT_CONFIG_* environment variable)",
        fix=" or stop setting it there")


def test_migrate_refuses_a_fifo_at_the_xdg_default_attributes_file(published, tmp_path):
    _names_lacking(published)
    env = _env(tmp_path)
    fifo = tmp_path / "xdg" / "git" / "attributes"
    fifo.parent.mkdir()
    os.mkfifo(fifo)
    done = _run(published, env, "migrate")
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == _refusal(str(fifo), fifo,
                                   asking="`git diff HEAD -- store/metadata`")


def test_verify_refuses_a_fifo_in_libgit2s_system_directory(published, tmp_path):
    # /etc/gitattributes is the machine's: libgit2's system search path is moved to a
    # directory of the test's, in the child, before kistore runs
    system = tmp_path / "etc"
    system.mkdir()
    fifo = system / "gitattributes"
    os.mkfifo(fifo)
    _status_asked(published)
    code = ("import pygit2, runpy; pygit2.option(pygit2.enums.Option.SET_SEARCH_PATH, "
            f"pygit2.enums.ConfigLevel.SYSTEM, {str(system)!r}); "
            "runpy.run_module('kistore', run_name='__main__')")
    done = _run(published, _env(tmp_path), "verify", code=code)
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == _verify_refusal(str(fifo), fifo)


def test_regular_attributes_files_everywhere_still_verify(published, tmp_path):
    env = _env(tmp_path)
    attributes = tmp_path / "attributes"
    attributes.write_text("*.txt -diff\n")
    Path(env["GIT_CONFIG_GLOBAL"]).write_text(f"[core]\n\tattributesFile = {attributes}\n")
    (published / ".git" / "info" / "attributes").write_text("*.txt -diff\n")
    (tmp_path / "xdg" / "git").mkdir()
    (tmp_path / "xdg" / "git" / "attributes").write_text("*.txt -diff\n")
    _status_asked(published)
    done = _run(published, env, "verify")
    # git's status was asked and answered: the one error is the extra .gitattributes itself
    assert (done.returncode, done.stderr) == (1, "")
    assert [line.split(": ")[0] + ": " + line.split(": ")[1].split(" ")[1]
            for line in done.stdout.splitlines() if ": error " in line] == [
                "store/policy/.gitattributes: KI110"]
    assert done.stdout.endswith("FAILED: store at work tree: 1 error, 2 warnings, 1 info\n")
