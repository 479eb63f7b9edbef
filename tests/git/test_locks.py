"""git's lock-file names (kistore.git.locks): the ones git itself takes, and a stale one said.

The names are checked against git: a lock file made where :func:`index_lock` says makes
``git add`` refuse with that very path, in the main work tree and in a linked worktree
(whose index, and so its lock, is in its own git directory).
"""

from __future__ import annotations

import subprocess

import pytest

from kistore.core.errors import StoreStateError
from kistore.git import _gitindex as gitindex
from kistore.git import commit as gitcommit
from kistore.git.locks import index_lock, lock_file
from kistore.git.refs import git_dir_of

from ..conftest import git


def test_lock_file_appends_git_s_suffix_beside_the_file(tmp_path):
    assert lock_file(tmp_path / ".git" / "index") == tmp_path / ".git" / "index.lock"
    assert lock_file(f"{tmp_path}/.git/refs/heads/main") == \
        tmp_path / ".git" / "refs" / "heads" / "main.lock"
    assert lock_file(tmp_path / ".git" / "packed-refs") == tmp_path / ".git" / "packed-refs.lock"
    assert index_lock(tmp_path / ".git") == tmp_path / ".git" / "index.lock"
    assert index_lock(str(tmp_path / ".git")) == tmp_path / ".git" / "index.lock"
    assert gitindex.IndexUpdate(tmp_path / ".git" / "index").lock == \
        index_lock(tmp_path / ".git")


def test_the_index_lock_is_the_one_git_add_refuses_on_in_both_worktrees(tmp_path):
    root = tmp_path / "r"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    (root / "f").write_text("x")
    git(root, "add", "f")
    git(root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "x")
    git(root, "worktree", "add", "-q", str(tmp_path / "linked"))
    for work_tree in (root, tmp_path / "linked"):
        lock = index_lock(git_dir_of(work_tree))
        lock.write_bytes(b"")
        (work_tree / "g").write_text("y")
        refused = subprocess.run(["git", "add", "g"], cwd=work_tree, capture_output=True,
                                 text=True)
        assert refused.returncode == 128
        assert f"Unable to create '{lock.resolve()}': File exists." in refused.stderr
        lock.unlink()
    assert index_lock(git_dir_of(tmp_path / "linked")).parent == \
        (root / ".git" / "worktrees" / "linked").resolve()


def test_a_stale_index_lock_met_when_taking_it_names_the_file_and_what_to_do(
        store, store_path, monkeypatch):
    # Free when check_ready looked, taken (then left by a crash) before index_held takes it:
    # the same message as check_ready's, not a shorter one without `git reset -q`.
    monkeypatch.setattr(gitcommit, "INDEX_WAIT_S", 0.05)
    lock = store_path / ".git" / "index.lock"
    lock.write_bytes(b"")
    with pytest.raises(StoreStateError) as refused, \
            gitcommit.BranchCommit(store.repo, store_path).index_held():
        pass
    assert refused.value.file == str(lock)
    message = " ".join(str(refused.value).split())
    assert message.startswith(f"{lock}: this lock file exists: another git command is "
                              "changing the index, or one crashed and left it. Wait for it, "
                              "or, if no git command is running, delete the file and run "
                              "`git reset -q`")
    assert message.endswith("then run `git status`; nothing was committed")
    assert lock.exists() and lock.read_bytes() == b""  # another command's lock is kept
