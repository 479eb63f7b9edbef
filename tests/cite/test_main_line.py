"""`cite`'s main line of a remote whose branch is not named main (fresh02 G5).

A remote fetched without its ``HEAD`` (``git remote add`` + ``git fetch``: no
``refs/remotes/origin/HEAD``) whose branch is ``trunk`` got "not on a remote's main line
... --at origin/main" for every run, and ``--at origin/trunk`` warned the same. The main
line is now origin/HEAD's branch, else the remote's only branch, else its
``init.defaultBranch``/``main``/``master``; else a note says it is not known and how to
set it. All from local refs and config: no network call.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pygit2
import pytest
from click.testing import CliRunner
from pygit2.enums import ConfigLevel

from kistore.cite.main_lines import MainLines, remote_main_lines
from kistore.cli import main
from kistore.store import Store

from .test_citation import BUNDLE, RUN_PATH, add, commit_all, git, new_store

TEMPLATE = '\n[cite]\npermalink = "https://example.org/r/{commit}/{path}"\n'
REF = "BenchmarkRun/sol-submission-20464"


@pytest.fixture
def runner() -> CliRunner:
    return CliRunner()


@pytest.fixture(autouse=True)
def no_user_git_config(tmp_path_factory):
    """libgit2 reads no global or XDG file of this machine (its init.defaultBranch would
    change the answers); git children already run with GIT_CONFIG_GLOBAL=/dev/null."""
    empty = tmp_path_factory.mktemp("no-user-config")
    levels = (ConfigLevel.GLOBAL, ConfigLevel.XDG)
    saved = [pygit2.settings.search_path[level] for level in levels]
    for level in levels:
        pygit2.settings.search_path[level] = str(empty)
    yield
    for level, path in zip(levels, saved, strict=True):
        pygit2.settings.search_path[level] = path


def cite(runner: CliRunner, path: Path, *args: str) -> tuple[int, str, str]:
    """Run ``kistore cite REF --accessed 2026-11-29 ARGS`` in ``path``: (status, out, err)."""
    result = runner.invoke(main, ["--store", str(path), "cite", REF, "--accessed",
                                  "2026-11-29", *args])
    return result.exit_code, result.stdout, result.stderr


def trunk_server(tmp_path: Path, *, with_run: bool) -> tuple[Path, Path, str]:
    """A bare server whose only branch, and HEAD, is ``trunk``; the store it was pushed from.

    Returns (server, store, the tip of trunk); with ``with_run`` the tip adds the run.
    """
    store = new_store(tmp_path / "store", remote=None, cite_table=TEMPLATE)
    if with_run:
        add(store, BUNDLE)
        commit_all(store, "add the published record", day=1)
    server = tmp_path / "server.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "trunk", str(server))
    git(store, "push", "-q", str(server), "main:trunk")
    return server, store, git(store, "rev-parse", "HEAD")


def added_remote(tmp_path: Path, server: Path, branch: str) -> Path:
    """A repository (``t2``) given ``server`` as origin by ``git remote add`` + ``git fetch``.

    Never cloned, so git wrote no ``refs/remotes/origin/HEAD``; ``branch`` checked out
    (tracking ``origin/branch``).
    """
    t2 = tmp_path / "t2"
    t2.mkdir()
    git(t2, "init", "-q", "-b", "trunk")
    git(t2, "remote", "add", "origin", str(server))
    git(t2, "fetch", "-q", "origin")
    git(t2, "checkout", "-q", branch)
    return t2


def has_origin_head(path: Path) -> bool:
    """Whether ``refs/remotes/origin/HEAD`` exists (git's own answer)."""
    return subprocess.run(["git", "rev-parse", "-q", "--verify", "refs/remotes/origin/HEAD"],
                          cwd=path, capture_output=True).returncode == 0


def note(commit: str, held: str, branches: str) -> str:
    """The note for a main line not known here (origin's, fetched without HEAD)."""
    return (f"note: commit {commit} is on {held}; which branch is origin's main line is not "
            "known here (no `refs/remotes/origin/HEAD`: `git clone` sets it, `git remote add` "
            f"and `git fetch` do not; origin has {branches}, none named main or master), so "
            "whether a squash or rebase merge will land the object in another commit cannot "
            "be told; set it with `git remote set-head origin --auto` (asks the server) or "
            "`git remote set-head origin BRANCH`, or cite with `--at origin/BRANCH`, the main "
            "line\n")


def off_main_line(commit: str) -> str:
    """The warning for a commit on origin/feat only, origin's main line being trunk."""
    return (f"warning: commit {commit} is on origin/feat only, not on a remote's main line "
            "(origin/trunk): a squash or rebase merge lands the object in another commit, "
            "and this one may leave the server, so the permalink may move or lead nowhere; "
            f"cite it after it lands: `git fetch`, then `kistore cite {REF} --at "
            "origin/trunk`\n")


def test_remote_with_head_naming_trunk_its_pull_request_branch_warns_with_trunk(
        runner, tmp_path):
    # a clone: origin/HEAD -> origin/trunk; a commit on origin/feat only is a PR's
    server, _, _ = trunk_server(tmp_path, with_run=False)
    alice = tmp_path / "alice"
    git(tmp_path, "clone", "-q", str(server), str(alice))
    assert git(alice, "symbolic-ref", "refs/remotes/origin/HEAD") == "refs/remotes/origin/trunk"
    git(alice, "checkout", "-q", "-b", "feat", "origin/trunk")
    add(alice, BUNDLE)
    pr = commit_all(alice, "add the published record", day=1)
    git(alice, "push", "-q", "origin", "feat")
    git(alice, "fetch", "-q")
    warning = off_main_line(pr)
    status, out, err = cite(runner, alice)
    assert (status, err) == (0, warning)
    assert f"https://example.org/r/{pr}/{RUN_PATH}" in out
    # --at naming the PR's branch does not make it the main line: origin/HEAD says trunk
    assert cite(runner, alice, "--at", "origin/feat")[::2] == (0, warning)
    # landed on trunk (a fast-forward here): no word, with or without --at
    git(alice, "push", "-q", "origin", "feat:trunk")
    git(alice, "fetch", "-q")
    assert cite(runner, alice)[::2] == (0, "")
    assert cite(runner, alice, "--at", "origin/trunk")[::2] == (0, "")


def test_remote_without_head_one_branch_then_several_then_set_head(runner, tmp_path):
    # fresh02 G5's repro: `git remote add` + `git fetch`, no origin/HEAD, branch trunk
    server, store, tip = trunk_server(tmp_path, with_run=True)
    t2 = added_remote(tmp_path, server, "trunk")
    assert not has_origin_head(t2)
    # origin's only branch is its main line
    status, out, err = cite(runner, t2)
    assert (status, err) == (0, "")
    assert f"https://example.org/r/{tip}/{RUN_PATH}" in out
    assert cite(runner, t2, "--at", "origin/trunk")[::2] == (0, "")
    # a second branch on the server: which is main cannot be told here; one note says so
    (store / "README.md").write_text("more work\n")
    commit_all(store, "more work", day=2)
    git(store, "push", "-q", str(server), "main:feat")
    git(t2, "fetch", "-q", "origin")
    assert (git(t2, "branch", "-r").split(), has_origin_head(t2)) == (
        ["origin/feat", "origin/trunk"], False)
    said = note(tip, "origin/feat, origin/trunk", "origin/feat, origin/trunk")
    assert cite(runner, t2)[::2] == (0, said)
    # the advice given: --at the main line, no word
    status, out, err = cite(runner, t2, "--at", "origin/trunk")
    assert (status, err) == (0, "")
    assert f"https://example.org/r/{tip}/{RUN_PATH}" in out
    assert cite(runner, t2, "--at", "refs/remotes/origin/trunk")[::2] == (0, "")
    assert cite(runner, t2, "--at", "trunk")[::2] == (0, said)  # the local branch: no choice
    # init.defaultBranch names it
    git(t2, "config", "init.defaultBranch", "trunk")
    assert cite(runner, t2)[::2] == (0, "")
    git(t2, "config", "--unset", "init.defaultBranch")
    assert cite(runner, t2)[::2] == (0, said)
    # the note's fix: set-head --auto asks the (local) server, whose HEAD is trunk
    git(t2, "remote", "set-head", "origin", "--auto")
    assert git(t2, "symbolic-ref", "refs/remotes/origin/HEAD") == "refs/remotes/origin/trunk"
    assert cite(runner, t2)[::2] == (0, "")


def test_a_commit_on_a_branch_only_of_a_remote_whose_main_line_is_unknown_is_noted(
        runner, tmp_path):
    # the PR case with no HEAD and several branches: the note, not a warning to cite --at
    # a main line nobody can name; --at the branch itself is the person's choice
    server, store, _ = trunk_server(tmp_path, with_run=False)
    git(store, "checkout", "-q", "-b", "feat")
    add(store, BUNDLE)
    pr = commit_all(store, "add the published record", day=1)
    git(store, "push", "-q", str(server), "feat")
    t2 = added_remote(tmp_path, server, "feat")
    assert cite(runner, t2)[::2] == (0, note(pr, "origin/feat", "origin/feat, origin/trunk"))
    assert cite(runner, t2, "--at", "origin/feat")[::2] == (0, "")
    # once the main line is known, the PR's branch is warned of
    git(t2, "remote", "set-head", "origin", "trunk")
    assert cite(runner, t2)[::2] == (0, off_main_line(pr))


@pytest.mark.parametrize(("branches", "head", "default", "expected"), [
    (["trunk"], None, None, MainLines({"origin": "origin/trunk"}, {})),
    (["feat", "trunk"], "trunk", None, MainLines({"origin": "origin/trunk"}, {})),
    (["feat", "main", "trunk"], "trunk", None, MainLines({"origin": "origin/trunk"}, {})),
    (["feat", "trunk"], None, None, MainLines({}, {"origin": ["origin/feat", "origin/trunk"]})),
    (["feat", "trunk"], None, "trunk", MainLines({"origin": "origin/trunk"}, {})),
    (["feat", "master"], None, None, MainLines({"origin": "origin/master"}, {})),
    (["main", "master"], None, None, MainLines({"origin": "origin/main"}, {})),
    (["main", "master"], None, "master", MainLines({"origin": "origin/master"}, {})),
    (["feat", "trunk"], "gone", None,  # a HEAD naming a pruned branch tells nothing
     MainLines({}, {"origin": ["origin/feat", "origin/trunk"]})),
])
def test_remote_main_lines(tmp_path, branches, head, default, expected):
    path = new_store(tmp_path / "store")
    tip = git(path, "rev-parse", "HEAD")
    for branch in branches:
        git(path, "update-ref", f"refs/remotes/origin/{branch}", tip)
    if head is not None:
        git(path, "symbolic-ref", "refs/remotes/origin/HEAD", f"refs/remotes/origin/{head}")
    if default is not None:
        git(path, "config", "init.defaultBranch", default)
    assert remote_main_lines(Store(path)) == expected


def test_remote_main_lines_of_a_remote_whose_name_holds_a_slash(tmp_path):
    path = new_store(tmp_path / "store")
    git(path, "remote", "add", "up/stream", "https://example.org/up.git")
    tip = git(path, "rev-parse", "HEAD")
    for ref in ("up/stream/trunk", "up/stream/feat/x", "origin/trunk"):
        git(path, "update-ref", f"refs/remotes/{ref}", tip)
    assert remote_main_lines(Store(path)) == MainLines(
        {"origin": "origin/trunk"}, {"up/stream": ["up/stream/feat/x", "up/stream/trunk"]})
