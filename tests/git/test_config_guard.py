"""A FIFO among the config files git or libgit2 reads: refused, never waited on (fresh14 F2).

git reads its configuration before anything else, libgit2 as it opens a repository: a FIFO
as ``$GIT_CONFIG_GLOBAL``, ``~/.gitconfig``, the system file, the repository's ``config``
or a file an include names made ``add``, ``add --commit``, ``verify`` and ``notes push``
wait until killed. Each test runs the command as a child with a timeout: on the base it
hangs (the timeout fails the test), now it refuses with exit status 1, naming the file,
what names it and the fix, and writes nothing.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.conftest import git, snapshot
from tests.git.test_attr_guard import _env, _run  # the same child, timeout and environment
from tests.git.test_ignore_guard import _manifest, _refused  # nothing written, HEAD kept


def _refusal(path: str, full: Path, what: str, fix: str = "", git_child: bool = True) -> str:
    """The refusal's line as the CLI prints it."""
    reader, undone = (("git", "no git command was run") if git_child else
                      ("libgit2", "the repository was not opened"))
    return (f"error: {path}: {what} is a FIFO, not a regular file: {reader} opens and reads "
            f"it before anything else, and would wait for ever; {undone}. Remove it "
            f"(`rm {full}`){fix}, then run the command again\n")


def _commands(tmp_path: Path) -> list[tuple[str, ...]]:
    """The commands fresh14 F2 saw wait for ever."""
    manifest = str(_manifest(tmp_path))
    return [("add", manifest), ("add", "--commit", manifest), ("verify",),
            ("notes", "push", "origin")]


_GLOBAL = "the global git config ($GIT_CONFIG_GLOBAL)"


@pytest.mark.parametrize("which", range(4))
def test_a_fifo_git_config_global_is_refused(published, tmp_path, which):
    env = _env(tmp_path)
    fifo = Path(env["GIT_CONFIG_GLOBAL"])
    fifo.unlink()
    os.mkfifo(fifo)
    _refused(published, env, _commands(tmp_path)[which],
             _refusal(str(fifo), fifo, _GLOBAL, " or unset GIT_CONFIG_GLOBAL"))


@pytest.mark.parametrize("which", range(4))
def test_a_fifo_home_gitconfig_is_refused(published, tmp_path, which):
    env = _env(tmp_path)
    del env["GIT_CONFIG_GLOBAL"]  # git reads ~/.gitconfig (libgit2 always does)
    fifo = Path(env["HOME"]) / ".gitconfig"
    os.mkfifo(fifo)
    # a plain add opens no libgit2 repository: its first git child is refused
    _refused(published, env, _commands(tmp_path)[which],
             _refusal(str(fifo), fifo, "the global git config", git_child=which == 0))


def test_a_fifo_xdg_git_config_is_refused(published, tmp_path):
    env = _env(tmp_path)
    del env["GIT_CONFIG_GLOBAL"]
    fifo = Path(env["XDG_CONFIG_HOME"]) / "git" / "config"
    fifo.parent.mkdir()
    os.mkfifo(fifo)
    _refused(published, env, ("verify",),
             _refusal(str(fifo), fifo, "the global git config", git_child=False))


def test_a_fifo_git_config_system_is_refused(published, tmp_path):
    fifo = tmp_path / "system"
    os.mkfifo(fifo)
    env = _env(tmp_path, GIT_CONFIG_SYSTEM=str(fifo))
    env.pop("GIT_CONFIG_NOSYSTEM", None)
    _refused(published, env, ("add", str(_manifest(tmp_path))), _refusal(
        str(fifo), fifo, "the system git config ($GIT_CONFIG_SYSTEM)",
        " or unset GIT_CONFIG_SYSTEM"))


def test_a_fifo_the_global_config_includes_is_refused(published, tmp_path):
    env = _env(tmp_path)
    fifo = tmp_path / "included"
    os.mkfifo(fifo)
    config = env["GIT_CONFIG_GLOBAL"]
    Path(config).write_text('[user]\n\tname = A\n[include]\n\tpath = "included" ; a note\n')
    _refused(published, env, ("add", "--commit", str(_manifest(tmp_path))), _refusal(
        str(fifo), fifo, f"a git config included by {config} (include.path)",
        f" or delete its include line from {config}"))


def _included_if(published: Path, tmp_path: Path, condition: str) -> Path:
    """A FIFO named by ``[includeIf CONDITION]`` in the store's ``.git/config``; returned.

    ``CONDITION`` may name ``{git_dir}`` (the git directory's real path), ``{upper}`` (it
    upper-cased), ``{branch}`` (HEAD's branch) and ``{initial}`` (its first letter).
    """
    fifo = tmp_path / "included"
    os.mkfifo(fifo)
    git_dir = os.path.realpath(published / ".git")
    branch = git(published, "symbolic-ref", "--short", "HEAD").strip()
    with (published / ".git" / "config").open("a") as config:
        config.write(f'[includeIf "{condition}"]\n\tpath = {fifo}\n'.format(
            git_dir=git_dir, upper=git_dir.upper(), branch=branch, initial=branch[0]))
    return fifo


@pytest.mark.parametrize("condition", ["gitdir:{git_dir}/", "gitdir/i:{upper}/",
                                       "onbranch:{branch}", "onbranch:{initial}*",
                                       "hasconfig:remote.*.url:/nowhere/**"])
def test_a_fifo_an_include_if_that_holds_names_is_refused(published, tmp_path, condition):
    # (hasconfig: not judged by kistore, so taken as true)
    fifo = _included_if(published, tmp_path, condition)
    done = _run(published, _env(tmp_path), "verify")  # (git here would wait on it: not run)
    assert (done.returncode, done.stdout, done.stderr) == (1, "", _refusal(
        str(fifo), fifo, "a git config included by .git/config (includeIf.path)",
        " or delete its includeIf line from .git/config", git_child=False))


@pytest.mark.parametrize("condition", ["gitdir:/nowhere/", "gitdir:{upper}/", "onbranch:nope",
                                       "onbranch:{branch}/", "gitdir/i:/NOWHERE/"])
def test_a_fifo_an_include_if_that_does_not_hold_names_is_not_read(published, tmp_path,
                                                                   condition):
    # fresh16 F7: neither git nor libgit2 opens it (`git status` works): no false refusal
    _included_if(published, tmp_path, condition)
    env = _env(tmp_path)
    assert subprocess.run(["git", "status", "--short"], cwd=published, env=env, timeout=60,
                          capture_output=True).returncode == 0  # git reads it not either
    done = _run(published, env, "add", "--commit", str(_manifest(tmp_path)))
    assert (done.returncode, done.stderr) == (0, "")
    done = _run(published, env, "verify")
    assert (done.returncode, done.stderr) == (0, "")


def test_a_fifo_git_c_include_is_refused(published, tmp_path):
    fifo = tmp_path / "included"
    os.mkfifo(fifo)
    env = _env(tmp_path, GIT_CONFIG_COUNT="1", GIT_CONFIG_KEY_0="include.path",
               GIT_CONFIG_VALUE_0=str(fifo))
    _refused(published, env, ("add", str(_manifest(tmp_path))), _refusal(
        str(fifo), fifo, "a git config included by `git -c` or GIT_CONFIG_COUNT",
        " or stop including it there"))


@pytest.mark.parametrize("which", range(4))
def test_a_fifo_repository_config_is_refused(published, tmp_path, which):
    fifo = published / ".git" / "config"
    kept = fifo.read_bytes()
    fifo.unlink()
    os.mkfifo(fifo)
    try:
        args = _commands(tmp_path)[which]
        before = snapshot(published)
        done = _run(published, _env(tmp_path), *args)
        assert (done.returncode, done.stdout, done.stderr) == (1, "", _refusal(
            ".git/config", fifo, "the repository's git config",
            " and run `git init` in the work tree, which writes a default one (set its "
            "remotes and settings again)", git_child=False))
        assert snapshot(published) == before
    finally:
        fifo.unlink()
        fifo.write_bytes(kept)


def test_a_fifo_config_worktree_is_refused_only_when_git_reads_it(published, tmp_path):
    fifo = published / ".git" / "config.worktree"
    os.mkfifo(fifo)
    env = _env(tmp_path)
    done = _run(published, env, "add", str(_manifest(tmp_path)))  # no worktreeConfig
    assert (done.returncode, done.stderr) == (0, "")
    git(published, "config", "extensions.worktreeConfig", "true")
    before = snapshot(published)
    done = _run(published, env, "add", "--commit", str(_manifest(tmp_path)))
    assert (done.returncode, done.stdout, done.stderr) == (1, "", _refusal(
        ".git/config.worktree", fifo, "the worktree's git config", git_child=False))
    assert snapshot(published) == before  # (git itself would wait on it: not asked here)


def test_dev_null_as_git_config_global_still_adds(published, tmp_path):
    env = _env(tmp_path, GIT_CONFIG_GLOBAL="/dev/null")  # a device: read as empty
    done = _run(published, env, "add", "--commit", str(_manifest(tmp_path)))
    assert (done.returncode, done.stderr) == (0, "")


def test_rank_runs_no_git_and_still_answers(published, tmp_path):
    env = _env(tmp_path)
    fifo = Path(env["GIT_CONFIG_GLOBAL"])
    fifo.unlink()
    os.mkfifo(fifo)
    done = _run(published, env, "rank", "--all", "BenchmarkRun/x")
    assert "FIFO" not in done.stderr
