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

import pytest

from kistore.attest import notes
from kistore.core.errors import StoreStateError
from kistore.core.layout import NOTES_REF
from kistore.git import _loose

from ..conftest import git
from ..git.conftest import commit_writes_failing, note_commits_failing
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
    assert notes.restore(record_store) == ({blob: [bundle_bytes(1)]}, {})
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


def test_attest_whose_private_ref_lock_a_gc_removed_lands(record_store, store_path,
                                                           monkeypatch):
    """break97 M5: `git gc`'s `pack-refs --prune` removed the empty refs/kistore/ directory
    between libgit2's mkdir and its lock file ("failed to lock file .../refs/kistore/
    notes-tmp-....lock for writing"): 3 attests in 48 were refused. The private ref's write
    is made again (the race itself cannot be timed here: the first write raises libgit2's
    words, as it did beside the loop)."""
    real = notes.write_note
    raised = []

    def lock_lost_once(repo, ref, *args, **kwargs):
        if not raised:
            raised.append(ref)
            raise _loose.pygit2.GitError(
                f"failed to lock file '{repo.path}{ref}.lock' for writing: ")
        return real(repo, ref, *args, **kwargs)

    monkeypatch.setattr(notes, "write_note", lock_lost_once)
    where = notes.attach(record_store, RUN, bundle_bytes(1))
    blob = object_blob(store_path)
    assert where == f"{NOTES_REF}:{blob}" and raised[0].startswith("refs/kistore/notes-tmp-")
    assert git(store_path, "notes", "--ref=kistore", "show", blob) == \
        bundle_bytes(1).decode() + "\n"
    assert not git(store_path, "for-each-ref", "refs/kistore/").strip()  # scratch removed
    _fsck(store_path)
    # another ref's lock, or another failure, is not taken for it
    monkeypatch.setattr(notes, "write_note", lambda repo, ref, *a, **k: (_ for _ in ()).throw(
        _loose.pygit2.GitError("failed to lock file '/elsewhere.lock' for writing: ")))
    with pytest.raises(_loose.pygit2.GitError, match="elsewhere"):
        notes.attach(record_store, RUN, bundle_bytes(2))
