"""Refs read from the files under .git agree with git's own `git rev-parse`."""

from __future__ import annotations

import pytest

from kistore.index import refs

from ..conftest import git


def rev_parse(root, name):
    return git(root, "rev-parse", "--verify", "--quiet", name).strip()


@pytest.fixture
def repo(tmp_path):
    root = tmp_path / "r"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    for i in range(2):
        (root / "f").write_text(str(i))
        git(root, "add", "f")
        git(root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", str(i))
    return root


def test_head_of_a_loose_branch_and_of_a_packed_one(repo):
    assert refs.resolve(repo / ".git", "HEAD") == rev_parse(repo, "HEAD")
    git(repo, "pack-refs", "--all")
    assert not (repo / ".git/refs/heads/main").exists()
    assert refs.resolve(repo / ".git", "HEAD") == rev_parse(repo, "HEAD")
    assert refs.resolve(repo / ".git", "refs/heads/main") == rev_parse(repo, "HEAD")


def test_loose_ref_wins_over_its_stale_packed_line(repo):
    git(repo, "pack-refs", "--all")
    (repo / "f").write_text("new")
    git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "new")
    assert "refs/heads/main" in (repo / ".git/packed-refs").read_text()
    assert refs.resolve(repo / ".git", "HEAD") == rev_parse(repo, "HEAD")


def test_detached_head_and_a_symbolic_ref_chain(repo):
    first = rev_parse(repo, "HEAD~1")
    git(repo, "checkout", "-q", "--detach", first)
    assert refs.resolve(repo / ".git", "HEAD") == first
    git(repo, "checkout", "-q", "main")
    git(repo, "symbolic-ref", "refs/heads/alias", "refs/heads/main")
    git(repo, "symbolic-ref", "HEAD", "refs/heads/alias")
    assert refs.resolve(repo / ".git", "HEAD") == rev_parse(repo, "main")


def test_absent_ref_and_unborn_branch_are_none(repo, tmp_path):
    assert refs.resolve(repo / ".git", "refs/notes/kistore") is None
    empty = tmp_path / "empty"
    empty.mkdir()
    git(empty, "init", "-q", "-b", "main")
    assert refs.resolve(empty / ".git", "HEAD") is None


@pytest.mark.parametrize("case", ["garbage-ref", "reftable", "linked-worktree", "bad-name",
                                  "symref-loop"])
def test_what_plain_files_cannot_answer_is_left_to_libgit2(repo, case):
    git_dir = repo / ".git"
    name = "HEAD"
    if case == "garbage-ref":
        (git_dir / "refs/heads/main").write_text("not an object id\n")
    elif case == "reftable":
        (git_dir / "reftable").mkdir()
    elif case == "linked-worktree":
        (git_dir / "commondir").write_text("../..\n")
    elif case == "bad-name":
        name = "refs/../../config"
    else:
        (git_dir / "refs/heads/loop").write_text("ref: refs/heads/loop\n")
        name = "refs/heads/loop"
    with pytest.raises(refs.RefsUnreadable):
        refs.resolve(git_dir, name)
