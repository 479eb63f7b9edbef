"""Loose-object writes retried when a concurrent ``prune-packed`` removed their directory."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pygit2
import pytest

from kistore.git import _loose

from .conftest import _blocked, commit_writes_failing, pack_refs_beside

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


def test_a_directory_that_keeps_vanishing_is_given_up_in_words_for_people(monkeypatch):
    pauses = []
    monkeypatch.setattr(_loose, "_pause", pauses.append)
    write, calls = _failing(100, OSError(_VANISHED))
    with pytest.raises(_loose.RaceLost) as raised:
        _loose.written(write)
    assert len(calls) == _loose.ATTEMPTS
    assert pauses == list(range(_loose.ATTEMPTS - 1))
    assert str(raised.value) == (
        "a git object could not be written: a concurrent `git gc` or `git repack -d` kept "
        "removing the directory of .git/objects it goes into (their `git prune-packed`), 8 "
        f"tries in a row (the last try said: {_VANISHED}). Nothing was lost: running the "
        "command again is safe, best once the `git gc` has finished")


def test_the_pauses_between_tries_double_from_2_ms(monkeypatch):
    slept = []
    monkeypatch.setattr(_loose.time, "sleep", slept.append)
    write, _calls = _failing(3, OSError(_VANISHED))
    _loose.written(write)
    assert slept == [0.002, 0.004, 0.008]


def test_another_message_the_caller_names_is_written_again_and_then_raised_as_it_is():
    write, calls = _failing(1, pygit2.GitError("target OID ... doesn't exist"))
    assert _loose.written(write, ("no such", "doesn't exist")) == "oid"
    write, calls = _failing(100, pygit2.GitError("target OID ... doesn't exist"))
    with pytest.raises(pygit2.GitError, match="^target OID"):  # the caller says it
        _loose.written(write, ("doesn't exist",))
    assert len(calls) == _loose.ATTEMPTS


@pytest.fixture
def packed(tmp_path):
    """A repository whose private ref refs/kistore/x `git pack-refs` packed."""
    repo = pygit2.init_repository(str(tmp_path / "r.git"), bare=True)
    tree = repo.TreeBuilder().write()
    signature = pygit2.Signature("a", "a@b", 1700000000, 0)
    repo.create_commit("refs/kistore/x", signature, signature, "m\n", tree, [])
    subprocess.run(["git", "--git-dir", repo.path, "pack-refs", "--all", "--prune"],
                   check=True)
    assert not (tmp_path / "r.git" / "refs" / "kistore" / "x").exists()
    return pygit2.Repository(repo.path)


def test_a_private_refs_delete_while_pack_refs_holds_packed_refs_is_made_again(
        packed, monkeypatch):
    git_dir = Path(packed.path)
    with pack_refs_beside(monkeypatch, git_dir, 1, lock="packed-refs") as pauses:
        _loose.deleted(packed, "refs/kistore/x")
    assert pauses == [0]
    assert "refs/kistore/x" not in (git_dir / "packed-refs").read_text()
    assert pygit2.Repository(packed.path).references.get("refs/kistore/x") is None


def test_a_private_ref_that_a_pack_refs_beside_read_before_its_delete_stays_deleted(
        tmp_path, monkeypatch):
    # race98: a pack-refs that read the loose ref before libgit2 deleted it (holding
    # packed-refs.lock) and wrote packed-refs after put the ref back: a gc loop beside
    # left 2 scratch refs in 30 attests. git waits for the lock and deletes the packed copy.
    repo = pygit2.init_repository(str(tmp_path / "r.git"), bare=True)
    tree = repo.TreeBuilder().write()
    signature = pygit2.Signature("a", "a@b", 1700000000, 0)
    oid = repo.create_commit("refs/kistore/x", signature, signature, "m\n", tree, [])
    git_dir = Path(repo.path)
    lock = git_dir / "packed-refs.lock"
    lock.write_text(f"{oid} refs/kistore/x\n")  # pack-refs read the loose ref
    pauses = []

    def pause(attempt):  # git update-ref -d waited 1 s for the lock; then pack-refs ends
        pauses.append(attempt)
        lock.rename(git_dir / "packed-refs")

    monkeypatch.setattr(_loose, "_pause", pause)
    _loose.deleted(repo, "refs/kistore/x")
    assert pauses == [0]
    assert "refs/kistore/x" not in (git_dir / "packed-refs").read_text()
    assert pygit2.Repository(repo.path).references.get("refs/kistore/x") is None


def test_a_lock_of_a_ref_not_named_is_another_writers_raised_at_once(packed, monkeypatch):
    # a shared ref (a branch, refs/notes/kistore): its lock may be a concurrent writer's,
    # which the caller's compare-and-swap loop waits out
    with pack_refs_beside(monkeypatch, Path(packed.path), 1, lock="packed-refs") as pauses, \
            pytest.raises(OSError, match=r"^failed to lock file '.*/packed-refs\.lock' for"):
        _loose.written(lambda: packed.references.delete("refs/kistore/x"))
    assert pauses == []
    again = pygit2.Repository(packed.path)  # (libgit2 dropped x from its cache of packed)
    with pack_refs_beside(monkeypatch, Path(packed.path), 1, lock="refs/kistore/x") as pauses, \
            pytest.raises(OSError, match=r"refs/kistore/x\.lock' for writing"):
        _loose.written(lambda: again.references.delete("refs/kistore/x"), ref="refs/kistore/y")
    assert pauses == []


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
    with pytest.raises(_loose.RaceLost, match=r"^a git object could not be written: a "
                       r"concurrent `git gc`.*8 tries in a row \(the last try said: commit "
                       r"[0-9a-f]{40} is missing after its write \(libgit2's last error: "
                       r"failed to make directory '.*/objects/99': No such file or "
                       r"directory\)\)\. Nothing was lost: running the command again is safe"):
        _loose.commit(repo, signature, "m\n", tree, [])
    assert len(failed) == _loose.ATTEMPTS


@pytest.mark.parametrize("blocker", ["vanished", "file"])
def test_the_seam_keeps_the_other_objects_of_the_blocked_directory_readable(tmp_path, blocker):
    # ci145, ci152: a note's blob sharing the blocked commit's two hex digits was set aside
    # unpacked, and its write met the blocker; prune-packed removes only packed objects
    repo = pygit2.init_repository(str(tmp_path / "r.git"), bare=True)
    blob = str(repo.create_blob(b"hello"))
    assert blob == "b6fc4c620b67d95f953a5c1c1230aaab5db5a1b0"  # git hash-object of "hello"
    with _blocked(Path(repo.path), "b6" + "0" * 38, blocker):
        assert str(repo.create_blob(b"hello")) == blob  # found packed: nothing to write
        assert repo.odb.exists(blob)
    assert (Path(repo.path) / "objects" / "b6" / blob[2:]).is_file()  # put back as it was
