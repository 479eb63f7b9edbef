"""Notes commits written beside a `git gc` (gcnotes97).

libgit2 drops the error of a commit write that ``git prune-packed`` broke (flake97:
``create_commit`` returns the unwritten commit's id). Its notes calls (``create_note``,
``Note.remove``) then fail only at the ref move, "target OID for the reference doesn't
exist on the repository": ``kistore attest`` said that as an internal error, and a fetch
from a fork took a commit that could not be written for a concurrent writer. Each write
path is made to meet that failure deterministically (tests/git/conftest.py's seams: the
commit's fan-out directory a dangling symlink while real libgit2 writes it).
"""

from __future__ import annotations

import subprocess
import uuid

import pygit2
import pytest

from kistore.attest import notes
from kistore.core.errors import StoreStateError
from kistore.core.layout import NOTES_REF
from kistore.git import _loose

from ..conftest import git
from ..git.conftest import (
    commit_writes_failing,
    gc_loop,
    note_commits_failing,
    pack_refs_beside,
    stop,
)
from .test_notes import RUN, bundle_bytes, clone, object_blob


def _fsck(path) -> str:
    result = subprocess.run(["git", "fsck", "--no-dangling"], cwd=path, capture_output=True,
                            text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def test_attest_whose_notes_commit_write_failed_beside_prune_packed_lands(record_store,
                                                                          store_path,
                                                                          monkeypatch):
    failed = note_commits_failing(monkeypatch, 1)
    where = notes.attach(record_store, RUN, bundle_bytes(1))
    blob = object_blob(store_path)
    assert where == f"{NOTES_REF}:{blob}"
    tip = git(store_path, "rev-parse", NOTES_REF).strip()
    assert failed == [("create_note", tip, False)]  # the commit libgit2 dropped, written again
    assert git(store_path, "notes", "--ref=kistore", "show", blob) == \
        bundle_bytes(1).decode() + "\n"
    _fsck(store_path)


def test_attest_whose_notes_commit_cannot_be_written_says_so_and_changes_nothing(
        record_store, store_path, monkeypatch):
    notes.attach(record_store, RUN, bundle_bytes(1))
    before = git(store_path, "rev-parse", NOTES_REF)
    failed = note_commits_failing(monkeypatch, 99, blocker="file")
    with pytest.raises(StoreStateError, match=r"^the notes commit on refs/kistore/notes-tmp-"
                       r"[0-9a-f]{32} could not be written \(libgit2: target OID for the "
                       r"reference doesn't exist on the repository\): a `git gc`.* nothing "
                       r"was changed"):
        notes.attach(record_store, RUN, bundle_bytes(2))
    assert len(failed) == _loose.ATTEMPTS
    assert git(store_path, "rev-parse", NOTES_REF) == before
    assert git(store_path, "for-each-ref", "refs/kistore") == ""  # no scratch ref left


def test_restore_whose_notes_commits_failed_beside_prune_packed_lands(record_store,
                                                                      store_path, monkeypatch):
    # _write_back: libgit2's note commit (create_note), then the one folding them
    # (create_commit, whose unwritten id set_target then refused)
    notes.attach(record_store, RUN, bundle_bytes(1))
    blob = object_blob(store_path)
    git(store_path, "notes", "--ref=kistore", "remove", blob)  # a removal reached the tip
    by_note = note_commits_failing(monkeypatch, 1)
    by_commit = commit_writes_failing(monkeypatch, 1)
    assert notes.restore(record_store) == ({blob: [bundle_bytes(1)]}, {}, None, None, None, None)
    tip = git(store_path, "rev-parse", NOTES_REF).strip()
    assert by_commit == [(tip, False)]
    assert [(what, on_disk) for what, _oid, on_disk in by_note] == [("create_note", False)]
    assert notes.note_lines(record_store.repo, blob) == [bundle_bytes(1)]
    _fsck(store_path)


def test_a_note_removed_beside_prune_packed_is_removed(record_store, store_path, monkeypatch):
    # _write_back removes a note left with no line (a fetch leaving out every line of it)
    notes.attach(record_store, RUN, bundle_bytes(1))
    blob = object_blob(store_path)
    repo = record_store.repo
    scratch = "refs/notes/kistore-test"
    git(store_path, "update-ref", scratch, NOTES_REF)
    failed = note_commits_failing(monkeypatch, 1)
    notes._write_back(repo, scratch, {blob: set()}, "leave out")
    assert [(what, on_disk) for what, _oid, on_disk in failed] == [("remove", False)]
    assert notes.note_lines(repo, blob, scratch) == []
    assert git(store_path, "log", "-1", "--format=%s", scratch) == "kistore: leave out\n"
    _fsck(store_path)


@pytest.fixture
def from_a_fork(record_store, store_path, tmp_path):
    """alice (origin: the canonical server), her line noted, and a fork holding bob's line."""
    origin = tmp_path / "origin.git"
    git(tmp_path, "clone", "-q", "--bare", str(store_path), str(origin))
    fork = tmp_path / "fork.git"
    git(tmp_path, "clone", "-q", "--bare", str(origin), str(fork))
    alice, bob = clone(origin, tmp_path / "alice"), clone(fork, tmp_path / "bob")
    notes.attach(bob, RUN, bundle_bytes(2))
    notes.push(bob, "origin")  # bob's origin is the fork
    notes.attach(alice, RUN, bundle_bytes(1))
    git(tmp_path / "alice", "remote", "add", "fork", str(fork))
    return alice


def test_fetch_from_a_fork_whose_notes_commit_write_failed_lands(from_a_fork, monkeypatch):
    alice = from_a_fork
    failed = commit_writes_failing(monkeypatch, 1)
    assert notes.fetch(alice, "fork").gained == 1
    tip = str(alice.repo.references[NOTES_REF].target)
    assert failed == [(tip, False)]  # _own_commit's commit, written again
    assert notes.note_lines(alice.repo, object_blob(alice.root)) == \
        sorted([bundle_bytes(1), bundle_bytes(2)])
    _fsck(alice.root)


def test_fetch_from_a_fork_whose_notes_commit_cannot_be_written_says_so(from_a_fork,
                                                                        monkeypatch):
    # flake97's tip took the unwritten commit for a concurrent writer: 50 merges, then
    # "kept moving under concurrent writers; run it again"
    alice = from_a_fork
    before = alice.repo.references[NOTES_REF].target
    failed = commit_writes_failing(monkeypatch, 99, blocker="file")
    with pytest.raises(StoreStateError, match=r"^a notes commit could not be written \(commit "
                       r"[0-9a-f]{40} is missing after its write \(libgit2's last error: "
                       r"failed to make directory '.*': directory exists\)\): a `git gc`"):
        notes.fetch(alice, "fork")
    assert len(failed) == 1  # said at once: no other writer to wait for
    assert alice.repo.references[NOTES_REF].target == before


def test_push_to_a_fork_whose_notes_commit_write_failed_lands(from_a_fork, tmp_path,
                                                              monkeypatch):
    # _onto_theirs: the commit made for the push alone (our tip and the fork's as parents)
    alice = from_a_fork
    notes.fetch(alice, "fork")  # the fork's line taken in: the push writes one commit
    failed = commit_writes_failing(monkeypatch, 1)
    notes.push(alice, "fork")
    pushed = git(tmp_path / "fork.git", "rev-parse", NOTES_REF).strip()
    assert failed == [(pushed, False)]
    assert git(tmp_path / "fork.git", "notes", "--ref=kistore", "show",
               object_blob(alice.root)).encode() == b"".join(
        line + b"\n" for line in sorted([bundle_bytes(1), bundle_bytes(2)]))
    _fsck(tmp_path / "fork.git")


# break97 M5: `git gc`'s `pack-refs --prune` deletes each loose ref it packed under its lock
# and removes refs/kistore/ when it left it empty: libgit2's write of the private scratch
# ref meanwhile failed ("failed to lock file '.../refs/kistore/notes-tmp-....lock' for
# writing: ", "failed to make directory '.../refs/kistore': No such file or directory"):
# 3 attests in 48 were refused in libgit2's words. Each private-ref write is made again.

SCRATCH = "refs/kistore/notes-tmp-" + "0" * 31 + "1"


@pytest.mark.parametrize("first", [True, False], ids=["first note", "on a notes tip"])
@pytest.mark.parametrize("tries", [1, 3])
def test_attest_whose_private_refs_directory_a_gc_removed_lands(record_store, store_path,
                                                                 monkeypatch, first, tries):
    # first: the scratch ref is made by libgit2's note call; else by its copy of the tip
    if not first:
        notes.attach(record_store, RUN, bundle_bytes(1))
    with pack_refs_beside(monkeypatch, store_path / ".git", tries) as pauses:
        notes.attach(record_store, RUN, bundle_bytes(2))
    assert pauses == list(range(tries))  # each try after a pause, the gc done at the last
    assert notes.note_lines(record_store.repo, object_blob(store_path)) == \
        ([bundle_bytes(2)] if first else sorted([bundle_bytes(1), bundle_bytes(2)]))
    assert git(store_path, "for-each-ref", "refs/kistore/") == ""  # the scratch ref removed
    _fsck(store_path)


@pytest.mark.parametrize("first", [True, False], ids=["first note", "on a notes tip"])
def test_attest_whose_private_ref_a_gc_held_locked_lands(record_store, store_path,
                                                         monkeypatch, first):
    if not first:
        notes.attach(record_store, RUN, bundle_bytes(1))
    monkeypatch.setattr(uuid, "uuid4", lambda: uuid.UUID(int=1))  # the scratch ref: SCRATCH
    with pack_refs_beside(monkeypatch, store_path / ".git", 2, lock=SCRATCH) as pauses:
        notes.attach(record_store, RUN, bundle_bytes(2))
    assert pauses == [0, 1]
    assert bundle_bytes(2) in notes.note_lines(record_store.repo, object_blob(store_path))
    assert git(store_path, "for-each-ref", "refs/kistore/") == ""
    _fsck(store_path)


@pytest.mark.parametrize("lock", [None, SCRATCH], ids=["directory", "lock"])
def test_attest_beside_a_gc_that_never_lets_go_says_so_and_changes_nothing(
        record_store, store_path, monkeypatch, lock):
    notes.attach(record_store, RUN, bundle_bytes(1))
    before = git(store_path, "rev-parse", NOTES_REF)
    monkeypatch.setattr(uuid, "uuid4", lambda: uuid.UUID(int=1))
    libgit2 = (f"failed to make directory '{store_path}/.git/refs/kistore': No such file or "
               "directory" if lock is None else
               f"failed to lock file '{store_path}/.git/{SCRATCH}.lock' for writing:")
    with pack_refs_beside(monkeypatch, store_path / ".git", 99, lock=lock) as pauses, \
            pytest.raises(StoreStateError) as raised:
        notes.attach(record_store, RUN, bundle_bytes(2))
    assert str(raised.value) == (
        f"git's ref {SCRATCH} could not be written: a concurrent `git gc` or `git pack-refs` "
        "kept locking it or removing its directory, 8 tries in a row (the last try said: "
        f"{libgit2}). Nothing was lost: running the command again is safe, best once the "
        "`git gc` has finished")
    assert len(pauses) == _loose.ATTEMPTS - 1
    assert git(store_path, "rev-parse", NOTES_REF) == before
    assert git(store_path, "for-each-ref", "refs/kistore/") == ""
    notes.attach(record_store, RUN, bundle_bytes(2))  # run again, the gc done: it lands
    assert len(notes.note_lines(record_store.repo, object_blob(store_path))) == 2


def test_write_back_whose_private_ref_a_gc_held_locked_lands(record_store, store_path,
                                                             monkeypatch):
    # _write_back (restore, fetch, push): libgit2's note call on the scratch ref, then the
    # move of it to the commit folding them; pack-refs held its lock for three tries
    notes.attach(record_store, RUN, bundle_bytes(1))
    blob = object_blob(store_path)
    scratch = "refs/notes/kistore-test"
    git(store_path, "update-ref", scratch, NOTES_REF)
    with pack_refs_beside(monkeypatch, store_path / ".git", 3, lock=scratch) as pauses:
        notes._write_back(record_store.repo, scratch, {blob: {bundle_bytes(2)}}, "put back")
    assert pauses == [0, 1, 2]
    assert notes.note_lines(record_store.repo, blob, scratch) == [bundle_bytes(2)]
    assert git(store_path, "log", "-1", "--format=%s", scratch) == "kistore: put back\n"
    _fsck(store_path)


def test_another_refs_lock_or_another_failure_is_not_taken_for_a_gc(record_store,
                                                                    store_path, monkeypatch):
    # NOTES_REF's lock is another writer's (add_lines's compare-and-swap waits it out);
    # refs/kistore/ as a file is no race: said at once, in libgit2's words
    (store_path / ".git" / "refs" / "kistore").write_bytes(b"")
    pauses = []
    monkeypatch.setattr(_loose, "_pause", pauses.append)
    with pytest.raises(OSError, match=r"refs/kistore/notes-tmp-.*Not a directory$"):
        notes.attach(record_store, RUN, bundle_bytes(1))
    assert pauses == []
    assert _loose._raced(f"failed to lock file '/r/.git/{NOTES_REF}.lock' for writing: ",
                         SCRATCH) is False
    assert _loose._raced(f"failed to lock file '/r/.git/{SCRATCH}.lock' for writing: ",
                         None) is False


def test_attests_beside_a_gc_loop_land_every_time(record_store, store_path):
    # break97 M5 as the reviewer met it: real git housekeeping beside, no seam (pack-refs
    # packing and pruning the scratch ref, prune-packed the objects' directories)
    loops = [gc_loop(store_path, "git pack-refs --all --prune; git prune-packed")
             for _ in range(2)]
    try:
        for i in range(30):
            notes.attach(record_store, RUN, bundle_bytes(i + 1))
    finally:
        for loop in loops:
            stop(loop)
    assert len(notes.note_lines(record_store.repo, object_blob(store_path))) == 30
    assert git(store_path, "for-each-ref", "refs/kistore/") == ""
    _fsck(store_path)


def test_a_note_call_that_returned_but_left_its_ref_says_what_reading_it_back_found(
        record_store, store_path, monkeypatch):
    # gcnotes97 said this in libgit2's words for another failure ("target OID for the
    # reference doesn't exist on the repository"): what kistore found is said instead
    notes.attach(record_store, RUN, bundle_bytes(1))
    before = git(store_path, "rev-parse", NOTES_REF).strip()
    monkeypatch.setattr(_loose, "_pause", lambda attempt: None)
    monkeypatch.setattr(pygit2.Repository, "create_note", lambda self, *a, **k: None)
    monkeypatch.setattr(uuid, "uuid4", lambda: uuid.UUID(int=1))
    with pytest.raises(StoreStateError) as raised:
        notes.attach(record_store, RUN, bundle_bytes(2))
    assert str(raised.value) == (
        f"the notes commit on {SCRATCH} could not be written ({SCRATCH} does not hold the "
        f"note just written on {object_blob(store_path)} (read back after libgit2's note "
        "call returned: the ref is where it was)): a `git gc` or `git repack -d` kept "
        "removing the directory it is written into, the disk is full, or .git/objects is "
        "not writable; nothing was changed: run it again once that is mended")
    assert git(store_path, "rev-parse", NOTES_REF).strip() == before
