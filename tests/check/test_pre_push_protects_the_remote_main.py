"""pre-push protects the remote's default branch, not the branch checked out in the clone.

fresh00 H1: ``protected_refs`` took the pushing clone's ``HEAD`` as the default branch, as
it is in the bare server; in a work clone it names the branch checked out. So the routine
step of every gate fix that rewrites a pull request's branch (KI425's ``git rebase BASE``,
KI402/KI410's ``git rebase -i BASE``), ``git push -f origin pr`` with ``pr`` checked out,
was refused as KI407 "protected-ref-rewritten" of the main branch, and passed when another
branch was checked out. The server's pre-receive never refused it.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pygit2
import pytest

from kistore.check._refs import protected_refs
from kistore.core.layout import NOTES_REF
from kistore.store import Store

from ..conftest import ROOT, commit_all, git

KISTORE = str(Path(sys.executable).with_name("kistore"))


@pytest.fixture(autouse=True)
def kistore_env(monkeypatch):
    monkeypatch.setenv("KISTORE", KISTORE)


def commit(path: Path, name: str) -> str:
    """Commit one new file outside the store on the checked-out branch; return its id."""
    (path / name).write_text(f"{name}\n")
    return commit_all(path, name)


@pytest.fixture
def clone(published, tmp_path) -> Path:
    """A clone of the published store with kistore's hooks, ``pr`` pushed then rebased."""
    server = tmp_path / "server.git"
    git(tmp_path, "clone", "-q", "--bare", str(published), str(server))
    path = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(server), str(path))
    git(path, "config", "core.hooksPath", str(ROOT / "hooks"))
    git(path, "checkout", "-q", "-b", "pr")
    commit(path, "pr.txt")
    git(path, "push", "-q", "--no-verify", "origin", "pr")
    git(path, "checkout", "-q", "main")
    commit(path, "main.txt")
    git(path, "push", "-q", "--no-verify", "origin", "main")
    git(path, "checkout", "-q", "pr")
    git(path, "-c", "user.name=t", "-c", "user.email=t@t", "rebase", "-q", "main")
    return path


def push(path: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", "push", *args], cwd=path, capture_output=True, text=True)


def test_a_rebased_pull_request_branch_checked_out_is_force_pushed(clone):
    pushed = push(clone, "-f", "origin", "pr")
    assert pushed.returncode == 0, pushed.stdout + pushed.stderr
    assert "KI407" not in pushed.stdout
    assert "ok: 1 ref update(s): 0 errors" in pushed.stdout + pushed.stderr


def test_the_remote_main_stays_protected_whatever_is_checked_out(clone):
    main = git(clone, "rev-parse", "origin/main").strip()
    git(clone, "branch", "-f", "main", "main~1")  # main rewritten behind the remote's tip
    for checked_out in ("pr", "main"):
        git(clone, "checkout", "-q", checked_out)
        pushed = push(clone, "-f", "origin", "main")
        assert pushed.returncode != 0, checked_out
        assert "error KI407 protected-ref-rewritten" in pushed.stdout
        assert git(clone, "ls-remote", "origin", "refs/heads/main").split()[0] == main


def test_the_remote_default_branch_is_what_its_tracking_head_names(clone):
    repo_refs = protected_refs(Store(clone), "origin")
    assert repo_refs == {"refs/heads/main", NOTES_REF}  # not refs/heads/pr, checked out
    git(clone, "symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/pr")
    assert protected_refs(Store(clone), "origin") == {"refs/heads/main", "refs/heads/pr",
                                                      NOTES_REF}
    # a URL, or a remote whose HEAD this clone never recorded: main and the notes
    assert protected_refs(Store(clone), str(clone.parent / "server.git")) == {
        "refs/heads/main", NOTES_REF}
    # the receiving repository (no remote): its own HEAD, as before
    assert protected_refs(Store(clone)) == {"refs/heads/main", "refs/heads/pr", NOTES_REF}
    assert pygit2.Repository(str(clone)).head.shorthand == "pr"
