"""A names sync with no moved shard key reads one summary row (issue 22, start-up); every
write that changes the shard rows otherwise drops it, and an edited row is not trusted."""

from __future__ import annotations

import shutil
import sqlite3

import pytest

from kistore.core import layout
from kistore.core.model import Manifest
from kistore.index import _database as database
from kistore.index import freshness
from kistore.index.names import SUMMARY, NameIndex, summary_key
from kistore.store import Store


def workload(name: str, definition: str = "gemm") -> Manifest:
    return Manifest.from_document({
        "apiVersion": "kernelindex.dev/v1alpha1", "kind": "Workload",
        "metadata": {"name": name}, "spec": {"suite": {"name": "S"}, "definition": definition}})


@pytest.fixture
def settled(monkeypatch):
    monkeypatch.setattr(freshness, "RACY_NS", 0)  # no directory counts as just changed


def index_of(store_path) -> NameIndex:
    return NameIndex(database.index_path(store_path / ".git"))


def shard_reads(index: NameIndex, view) -> tuple[int, list[str]]:
    """Sync; return (shards re-read, the SQL run)."""
    statements: list[str] = []
    index.db.set_trace_callback(statements.append)
    try:
        return index.sync(view), statements
    finally:
        index.db.set_trace_callback(None)


def test_a_sync_with_no_moved_key_reads_the_summary_alone(store, store_path, settled):
    store.add([workload(f"w{i}", f"d{i}") for i in range(20)])
    view, index = Store(store_path).view(), index_of(store_path)
    index.sync(view)
    count, sql = shard_reads(index, view)
    assert count == 0
    assert not any("dir!=" in s for s in sql)  # the 512 shard rows were not read
    assert not any(s.startswith(("INSERT", "DELETE")) for s in sql)


def test_forget_is_not_hidden_by_the_summary(store, store_path, settled):
    m = workload("kept")
    store.add([m])
    view, index = Store(store_path).view(), index_of(store_path)
    index.sync(view)
    index.forget("work", m.digest)
    count, _ = shard_reads(index, view)
    assert count == 1  # its shard listed again, its files read again
    assert index.owners("work", [("Workload", "kept")]) == {("Workload", "kept"): m.digest}


def test_record_drops_the_summary(store, store_path, settled):
    store.add([workload("a")])
    index = index_of(store_path)
    index.sync(Store(store_path).view())
    m = workload("b", "b")
    Store(store_path).add([m])  # records its names and the new shard keys
    rows = index.db.execute("SELECT dir FROM name_shards WHERE dir=?", (SUMMARY,)).fetchall()
    assert rows == []
    assert Store(store_path).resolve("Workload/b") == m.digest


def test_a_summary_row_edited_with_sqlite3_is_not_trusted(tmp_path, store, store_path, settled):
    store.add([workload("a")])
    view, index = Store(store_path).view(), index_of(store_path)
    index.sync(view)
    other = Store.init(tmp_path / "other")
    m = workload("copied", "x")
    other.add([m])
    for rel in (layout.object_path(m.digest), layout.metadata_path(m.digest)):
        (store_path / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(tmp_path / "other" / rel, store_path / rel)
    # the summary of the keys as they are now, written without its seal
    now = summary_key(view.shard_keys())
    database.disconnect()
    conn = sqlite3.connect(database.index_path(store_path / ".git"))
    with conn:
        conn.execute("UPDATE name_shards SET key=? WHERE dir=?", (now, SUMMARY))
    conn.close()
    index = index_of(store_path)
    count, _ = shard_reads(index, Store(store_path).view())
    assert count >= 1
    assert index.owners("work", [("Workload", "copied")]) == {("Workload", "copied"): m.digest}
