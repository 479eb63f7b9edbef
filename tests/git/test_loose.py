"""Loose-object writes retried when a concurrent ``prune-packed`` removed their directory."""

from __future__ import annotations

import pygit2
import pytest

from kistore.git import _loose

from .conftest import commit_writes_failing

_VANISHED = "failed to rename lockfile to '.git/objects/d3/0520': No such file or directory"


def _failing(times: int, error: Exception):
    calls = []

    def write():
        calls.append(1)
        if len(calls) <= times:
            raise error
        return "oid"

    return write, calls


@pytest.mark.parametrize("error", [OSError(_VANISHED), pygit2.GitError(_VANISHED)])
def test_a_vanished_fan_out_directory_is_written_again(error):
    write, calls = _failing(2, error)
    assert _loose.written(write) == "oid"
    assert len(calls) == 3


def test_another_error_is_raised_at_once():
    write, calls = _failing(1, pygit2.GitError("failed to write object: No space left on device"))
    with pytest.raises(pygit2.GitError, match="No space left"):
        _loose.written(write)
    assert len(calls) == 1


def test_a_directory_that_keeps_vanishing_is_given_up():
    write, calls = _failing(100, OSError(_VANISHED))
    with pytest.raises(OSError, match="No such file"):
        _loose.written(write)
    assert len(calls) == _loose.ATTEMPTS


# `printf 'tree 4b82...\nauthor a <a@b> 1700000000 +0000\n...' | git hash-object -t commit --stdin`
_BODY = (b"tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\n"  # the empty tree
         b"author a <a@b> 1700000000 +0000\ncommitter a <a@b> 1700000000 +0000\n\nm\n")
_COMMIT = "9953c41a10c6d1cefbee6d7774bfadc5fddf07f6"


def _empty_commit(tmp_path, monkeypatch, times: int, blocker: str = "vanished"):
    """A bare repository, its empty tree, and ``times`` failing commit writes of _COMMIT."""
    repo = pygit2.init_repository(str(tmp_path / "r.git"), bare=True)
    tree = repo.TreeBuilder().write()
    return repo, tree, commit_writes_failing(monkeypatch, times, blocker)


def test_a_commit_whose_write_failed_unsaid_is_written_again(tmp_path, monkeypatch):
    # flake97: libgit2's create_commit returns the id of a commit it failed to write (its
    # commit.c drops git_odb_write's error); beside prune-packed an add held such an id.
    repo, tree, failed = _empty_commit(tmp_path, monkeypatch, 1)
    signature = pygit2.Signature("a", "a@b", 1700000000, 0)
    oid = _loose.commit(repo, signature, "m\n", tree, [])
    assert failed == [(_COMMIT, False)]  # libgit2 said "written", and nothing was
    assert str(oid) == _COMMIT
    assert repo.odb.read(oid) == (pygit2.enums.ObjectType.COMMIT, _BODY)


def test_another_dropped_write_error_is_raised_at_once_in_libgit2s_words(tmp_path, monkeypatch):
    repo, tree, failed = _empty_commit(tmp_path, monkeypatch, 99, blocker="file")
    signature = pygit2.Signature("a", "a@b", 1700000000, 0)
    with pytest.raises(pygit2.GitError, match=rf"^commit {_COMMIT} is missing after its "
                       rf"write \(libgit2's last error: failed to make directory "
                       rf"'.*/r\.git/objects/99': directory exists\)$"):
        _loose.commit(repo, signature, "m\n", tree, [])
    assert failed == [(_COMMIT, False)]
    assert not repo.odb.exists(_COMMIT)


def test_a_commit_whose_directory_keeps_vanishing_is_given_up(tmp_path, monkeypatch):
    repo, tree, failed = _empty_commit(tmp_path, monkeypatch, 99)
    signature = pygit2.Signature("a", "a@b", 1700000000, 0)
    with pytest.raises(pygit2.GitError, match=r"missing after its write \(libgit2's last "
                       r"error: failed to make directory '.*/objects/99': No such file or "
                       r"directory\)"):
        _loose.commit(repo, signature, "m\n", tree, [])
    assert len(failed) == _loose.ATTEMPTS
