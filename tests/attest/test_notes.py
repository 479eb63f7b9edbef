"""Attestations as git notes and files (kistore.notes), checked against the real git."""

from __future__ import annotations

import hashlib
import subprocess
import tempfile
import threading
from datetime import UTC, datetime
from pathlib import Path

import pygit2
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kistore.attest import attestation, notes
from kistore.attest.sync import sync
from kistore.core import layout
from kistore.core.digest import Digest
from kistore.core.errors import InputError
from kistore.git.pack import blob_id
from kistore.store import Store

from ..conftest import PUBLISHED, fixed_key, git, redate_history

RUN = Digest.from_str(PUBLISHED["run"])
PREDICATE = {"outcome": "reproduced", "observedAt": "2026-07-10T06:41:58Z"}


def bundle_bytes(n: int = 1, subject: Digest = RUN, type_name="reproduction") -> bytes:
    statement = attestation.make_statement(subject, layout.object_path(subject), type_name,
                                           dict(PREDICATE))
    return attestation.sign_statement(statement, fixed_key(n)).to_bytes()


def object_blob(store_path) -> str:
    return git(store_path, "hash-object", layout.object_path(RUN)).strip()


def test_note_is_on_the_object_blob_and_git_reads_it(record_store, store_path):
    where = notes.attach(record_store, RUN, bundle_bytes(1))
    blob = object_blob(store_path)
    assert where == f"refs/notes/kistore:{blob}"
    assert blob_id((store_path / layout.object_path(RUN)).read_bytes()).hex() == blob
    shown = git(store_path, "notes", "--ref=kistore", "show", blob)
    assert shown == bundle_bytes(1).decode() + "\n"


def test_note_lines_are_sorted_and_unique(record_store, store_path):
    lines = [bundle_bytes(n) for n in (3, 1, 2)]
    for line in [*lines, lines[0]]:
        notes.attach(record_store, RUN, line)
    blob = object_blob(store_path)
    shown = git(store_path, "notes", "--ref=kistore", "show", blob).encode()
    assert shown == b"".join(line + b"\n" for line in sorted(lines))
    assert notes.note_lines(record_store.repo, blob) == sorted(lines)
    assert notes.add_lines(record_store.repo, blob, [lines[1]]) == 0


def test_a_line_with_a_newline_is_refused(record_store, store_path):
    with pytest.raises(InputError, match="must not contain a newline"):
        notes.add_lines(record_store.repo, object_blob(store_path), [b'{"a":\n1}'])


def test_concurrent_writers_lose_no_line(record_store, store_path):
    blob = object_blob(store_path)
    wanted = [bundle_bytes(n) for n in range(1, 13)]

    def write(lines):
        repo = pygit2.Repository(str(store_path))  # one repository handle per writer
        for line in lines:
            notes.add_lines(repo, blob, [line])

    threads = [threading.Thread(target=write, args=(wanted[i::4],)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert notes.note_lines(record_store.repo, blob) == sorted(wanted)


def test_entry_time_is_the_notes_commit_that_first_added_the_line(record_store, store_path):
    first, second = bundle_bytes(1), bundle_bytes(2)
    notes.attach(record_store, RUN, first)
    notes.attach(record_store, RUN, second)
    blob = object_blob(store_path)
    log = git(store_path, "log", "--format=%ct", "refs/notes/kistore").split()
    times = notes.notes_entered(record_store.repo)[blob]
    assert times[first] == datetime.fromtimestamp(int(log[-1]), UTC)
    assert times[second] == datetime.fromtimestamp(int(log[0]), UTC)


def test_attestation_file_path_is_deterministic_and_named_by_its_sha256(record_store,
                                                                       store_path):
    data = bundle_bytes(1)
    path = notes.attach(record_store, RUN, data, as_file=True)
    name = hashlib.sha256(data).hexdigest()
    assert path == f"store/attestations/sha256/38/{RUN.hex[2:]}/{name}.json"
    assert (store_path / path).read_bytes() == data
    out = subprocess.run(["sha256sum", path], cwd=store_path, capture_output=True, text=True,
                         check=True).stdout
    assert out.split()[0] == name
    assert notes.parse_attestation_path(path) == (RUN, name)
    assert notes.parse_attestation_path("store/attestations/sha256/38/x/y.json") is None


def test_sync_attaches_files_as_notes_once(record_store, store_path):
    notes.attach(record_store, RUN, bundle_bytes(1), as_file=True)
    notes.attach(record_store, RUN, bundle_bytes(2), as_file=True)
    result = sync(record_store)
    assert (result.added, result.present, result.problems) == (2, 0, [])
    again = sync(record_store)
    assert (again.added, again.present) == (0, 2)
    assert len(notes.note_lines(record_store.repo, object_blob(store_path))) == 2


def test_sync_refuses_a_file_whose_name_is_not_its_sha256(record_store, store_path):
    path = store_path / notes.attestation_path(RUN, bundle_bytes(1))
    path.parent.mkdir(parents=True)
    path.write_bytes(bundle_bytes(2))  # bytes of another bundle under this name
    result = sync(record_store)
    assert result.added == 0
    assert [p.file for p in result.problems] == [str(path.relative_to(store_path))]
    assert "sha256 of the bytes must equal the name" in result.problems[0].message


def test_file_entry_time_is_the_first_commit_adding_it(record_store, store_path):
    redate_history(store_path, "2026-02-01T00:00:00Z")  # entry is never before the parent
    path = notes.attach(record_store, RUN, bundle_bytes(1), as_file=True)
    seen = notes.collect(record_store, RUN)
    assert [(s.source, s.committed) for s in seen] == [("file", False)]
    git(store_path, "add", path)
    subprocess.run(["git", "commit", "-qm", "attest"], cwd=store_path, check=True,
                   env={**__import__("os").environ,
                        "GIT_COMMITTER_DATE": "2026-03-01T12:00:00Z"})
    (seen,) = notes.collect(record_store, RUN)
    assert seen.committed and seen.entered_at == datetime(2026, 3, 1, 12, tzinfo=UTC)


def clone(source, target):
    subprocess.run(["git", "clone", "-q", str(source), str(target)], check=True)
    return Store(target)


def test_two_clones_attest_independently_and_notes_fetch_push_lose_nothing(record_store,
                                                                           store_path, tmp_path):
    origin = tmp_path / "origin.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(store_path), str(origin)], check=True)
    alice, bob = clone(origin, tmp_path / "alice"), clone(origin, tmp_path / "bob")
    notes.attach(alice, RUN, bundle_bytes(1))
    notes.attach(bob, RUN, bundle_bytes(2))
    assert notes.push(alice, "origin").gained == 0
    assert notes.push(bob, "origin").gained == 1  # bob merges alice's line before pushing
    assert notes.fetch(alice, "origin").gained == 1
    both = sorted([bundle_bytes(1), bundle_bytes(2)])
    blob = object_blob(tmp_path / "alice")
    for who in (alice, bob):
        assert notes.note_lines(who.repo, blob) == both
    assert git(origin, "notes", "--ref=kistore", "show", blob).encode() == b"".join(
        line + b"\n" for line in both)
    assert notes.fetch(bob, "origin").gained == 0  # nothing new: idempotent


def test_fetch_from_a_remote_without_notes_gains_nothing(record_store, store_path, tmp_path):
    other = clone(store_path, tmp_path / "other")
    assert notes.fetch(other, "origin").gained == 0
    assert notes.push(other, "origin").gained == 0  # no local notes: nothing to push


def test_our_notes_merge_like_git_cat_sort_uniq(record_store, store_path, tmp_path):
    """Two clones' notes merged by the git binary equal the union our writer keeps."""
    other = clone(store_path, tmp_path / "other")
    notes.attach(record_store, RUN, bundle_bytes(1))
    notes.attach(record_store, RUN, bundle_bytes(3))
    notes.attach(other, RUN, bundle_bytes(2))
    notes.attach(other, RUN, bundle_bytes(3))
    git(store_path, "fetch", "-q", str(tmp_path / "other"),
        "refs/notes/kistore:refs/notes/theirs")
    git(store_path, "notes", "--ref=kistore", "merge", "-q", "-s", "cat_sort_uniq",
        "refs/notes/theirs")
    blob = object_blob(store_path)
    assert notes.note_lines(record_store.repo, blob) == sorted(bundle_bytes(n) for n in (1, 2, 3))


def test_unknown_remote_is_named_with_the_remotes_there_are(record_store, tmp_path):
    from kistore.core.errors import InputError, StoreStateError

    # a name no remote has: said before git (break96 L4: git's "does not appear to be a
    # git repository ... access rights" alone); a path that leads nowhere: git's words
    with pytest.raises(InputError, match=r"^no remote 'nowhere' in this repository \(it has "
                                         r"no remote\): name a remote it has or a URL"):
        notes.fetch(record_store, "nowhere")
    with pytest.raises(StoreStateError, match="git fetch .*/gone.git failed"):
        notes.fetch(record_store, str(tmp_path / "gone.git"))


LINES = [bundle_bytes(n) for n in range(1, 7)]


@settings(max_examples=10, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(where=st.lists(st.sampled_from(["ours", "theirs", "both"]), min_size=6, max_size=6))
def test_fetch_merges_to_the_union_of_both_clones(record_store, store_path, where):
    with tempfile.TemporaryDirectory() as tmp:
        ours = clone(store_path, Path(tmp) / "ours")
        theirs = clone(store_path, Path(tmp) / "theirs")
        for line, side in zip(LINES, where, strict=True):
            for who in ([ours, theirs] if side == "both" else
                        [ours] if side == "ours" else [theirs]):
                notes.attach(who, RUN, line)
        subprocess.run(["git", "remote", "add", "peer", str(Path(tmp) / "theirs")],
                       cwd=Path(tmp) / "ours", check=True)
        gained = notes.fetch(ours, "peer").gained
        blob = object_blob(Path(tmp) / "ours")
        assert notes.note_lines(ours.repo, blob) == sorted(LINES)
        assert gained == where.count("theirs")


def test_file_committed_with_a_date_before_its_parent_is_judged_at_the_parent(record_store,
                                                                             store_path):
    # A commit cannot predate the commit it is built on: backdating it gains nothing.
    redate_history(store_path, "2026-02-01T00:00:00Z")
    path = notes.attach(record_store, RUN, bundle_bytes(1), as_file=True)
    git(store_path, "add", path)
    subprocess.run(["git", "commit", "-qm", "attest"], cwd=store_path, check=True,
                   env={**__import__("os").environ,
                        "GIT_COMMITTER_DATE": "2025-01-01T00:00:00Z"})
    (seen,) = notes.collect(record_store, RUN)
    assert seen.entered_at == datetime(2026, 2, 1, tzinfo=UTC)


_VANISHED = ("failed to rename lockfile to '.git/objects/d3/0520': No such file or directory")


@pytest.mark.parametrize("how", ["attach", "sync"])
def test_a_fan_out_directory_pruned_while_attesting_is_written_again(record_store, store_path,
                                                                      monkeypatch, how):
    # r70 F9 on the attest path: a `git gc` beside `kistore attest` (or `notes sync`)
    # removed the object's empty fan-out directory before libgit2's rename; the write was
    # refused with ENOENT though nothing was wrong (kistore.git.blobs.write_blob)
    if how == "sync":
        notes.attach(record_store, RUN, bundle_bytes(1), as_file=True)
    repo = record_store.repo
    real = repo.create_blob
    calls = []

    def pruned_once(data):
        calls.append(data)
        if len(calls) == 1:
            raise OSError(_VANISHED)
        return real(data)

    monkeypatch.setattr(repo, "create_blob", pruned_once)
    if how == "attach":
        assert notes.attach(record_store, RUN, bundle_bytes(1)) == \
            f"refs/notes/kistore:{object_blob(store_path)}"
    else:
        result = sync(record_store)
        assert (result.added, result.present, result.problems) == (1, 0, [])
    object_bytes = (store_path / layout.object_path(RUN)).read_bytes()
    assert calls == [object_bytes, object_bytes]  # the failed write, then the one that held
    assert notes.note_lines(repo, object_blob(store_path)) == [bundle_bytes(1)]


@pytest.mark.parametrize(("stderr", "raced"), [
    # two `kistore notes push` at once: the remote's ref moved while its hook judged this one
    ("remote: ok: 1 ref update(s): 0 errors, 0 warnings, 0 info\nremote: error: cannot lock "
     "ref 'refs/notes/kistore': is at 90e41523 but expected f12e1688\nTo ../srv.git\n ! "
     "[remote rejected] refs/notes/kistore -> refs/notes/kistore (failed to update ref)\n",
     True),
    (" ! [rejected]        refs/notes/kistore -> refs/notes/kistore (fetch first)\n", True),
    (" ! [rejected]        refs/notes/kistore -> refs/notes/kistore (non-fast-forward)\n", True),
    # the remote's own refusal (its pre-receive hook), and git failing otherwise: not retried
    (" ! [remote rejected] refs/notes/kistore -> refs/notes/kistore (pre-receive hook "
     "declined)\n", False),
    ("fatal: '../gone.git' does not appear to be a git repository\n", False),
])
def test_push_raced_retries_a_lost_race_and_nothing_else(stderr, raced):
    """Reviewer r91 F7: the loser of two simultaneous pushes failed with git's lock error."""
    from kistore.attest.notes import push_raced

    assert push_raced(stderr) is raced
