"""Names whose shard directories are gone are not taken (fresh15 F6).

``git stash -u`` of an uncommitted import removes its files and the directories they
leave empty, ``store/objects`` and ``store/metadata`` included. The next add found no
shard directory it wrote "in step" (the first missing name on the way was
``store/objects``, not the shard), so it recorded its names with no shard row; a second
``git stash -u`` removed those directories before any query synced, and the next sync saw
no shard key anywhere, trusted the names as they were, and kept the stashed names for
good: an add of another manifest under one of them was refused "already used by
sha256:X", a digest no command could show.
"""

from __future__ import annotations

import shutil
from hashlib import blake2b
from pathlib import Path

import pytest

from kistore.core import layout
from kistore.index import _names_added, freshness
from kistore.index._database import seal
from kistore.index.names import SUMMARY, _row
from kistore.store import Store

from .test_names_summary import index_of, workload


def stash_untracked(root: Path) -> None:
    """Remove the store's manifest and names directories, as ``git stash -u`` of an
    uncommitted add (on a store whose ``HEAD`` holds no manifest)."""
    for top in ("objects", "metadata", "names"):
        shutil.rmtree(root / layout.STORE_DIR / top, ignore_errors=True)


@pytest.mark.parametrize("in_step", ["as-found", "never"])
def test_the_names_of_an_add_taken_away_with_its_directories_are_free(
        store_path, monkeypatch, in_step):
    if in_step == "never":  # the sync alone must see it, whatever the add recorded
        monkeypatch.setattr(_names_added, "names_before_add", lambda *a: {})
    stash_untracked(store_path)          # the first `git stash -u`: store/objects is gone
    first = workload("taken-once", "gemm")
    Store(store_path).add([first])
    stash_untracked(store_path)          # the second: no query synced the names between
    again = workload("taken-once", "gemm-2")
    assert Store(store_path).view().name_owners([("Workload", "taken-once")]) == {}
    results = Store(store_path).add([again])
    assert [(r.digest, r.status) for r in results] == [(again.digest, "added")]
    names = index_of(store_path).names("work", ["Workload"])
    assert names == {("Workload", "taken-once"): again.digest}


def test_a_names_row_with_no_shard_row_and_no_directory_is_dropped(store, store_path):
    m = workload("orphan")
    store.add([m])
    index, view = index_of(store_path), Store(store_path).view()
    index.sync(view)
    shard = m.digest.hex[:2]
    # the row stays, its shards' rows go (as an add records a shard not in step)
    index.record("work", [], {}, stale=[f"objects/{shard}", f"metadata/{shard}"])
    stash_untracked(store_path)
    assert index.sync(Store(store_path).view()) == 1
    assert index.names("work", ["Workload"]) == {}


def test_an_add_does_not_refuse_a_name_held_by_a_digest_no_file_holds(store_path):
    """The state an older kistore left (the preserved store of fresh15 F6): a sealed names
    row of a manifest whose files are gone, with a summary that answers every sync."""
    stash_untracked(store_path)
    index, view = index_of(store_path), Store(store_path).view()
    gone = workload("left-behind", "gemm")
    index.sync(view)  # the summary of a store with no shard directory
    with index.db:
        index.db.execute("INSERT INTO names VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                         _row("work", gone.digest.hex, "1", "1", "Workload", "left-behind"))
    assert view.name_owners([("Workload", "left-behind")]) == {
        ("Workload", "left-behind"): gone.digest}  # the summary answers: rows unread
    again = workload("left-behind", "gemm-2")
    results = Store(store_path).add([again])
    assert [(r.digest, r.status) for r in results] == [(again.digest, "added")]
    assert index.names("work", ["Workload"]) == {("Workload", "left-behind"): again.digest}


def test_the_first_sync_after_an_add_into_a_store_with_no_manifest_directory_lists_nothing(
        store_path, monkeypatch):
    """A shard directory whose parents are gone too is new: in step before the add, so the
    add records its key (it was left stale: the next sync listed every shard it wrote)."""
    monkeypatch.setattr(freshness, "RACY_NS", 0)
    stash_untracked(store_path)
    added = [workload(f"n{i}", f"e{i}") for i in range(6)]
    Store(store_path).add(added)
    index, view = index_of(store_path), Store(store_path).view()
    wrote = {f"{top}/{m.digest.hex[:2]}" for m in added for top in ("objects", "metadata")}
    assert index.shard_rows("work", wrote).keys() == wrote
    assert index.sync(view) == 0
    assert index.names("work", ["Workload"]) == {("Workload", m.name): m.digest for m in added}


def test_a_summary_an_older_kistore_wrote_over_such_rows_is_not_trusted(store_path):
    """The preserved store's own state: its summary (of the form before the rows no key
    covers were looked for) stood for them; the first sync now lists them once."""
    stash_untracked(store_path)
    index, view = index_of(store_path), Store(store_path).view()
    gone = workload("left-behind", "gemm")
    index.sync(view)
    old = blake2b(repr(sorted(view.shard_keys().items())).encode(), digest_size=16).hexdigest()
    with index.db:
        index.db.execute("INSERT INTO names VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                         _row("work", gone.digest.hex, "1", "1", "Workload", "left-behind"))
        index.db.execute("UPDATE name_shards SET key=?, seal=? WHERE dir=?",
                         (old, seal(("work", SUMMARY, old)), SUMMARY))
    assert index.sync(view) == 1
    assert index.names("work", ["Workload"]) == {}
