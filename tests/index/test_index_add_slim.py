"""A bulk ``add --commit`` holds its prepared index rows slim until the commit lands.

:meth:`kistore.index.index.Index.prepare` lets go of each run's spec and of each stored
document it deflated (~3 KB a manifest; with orjson's 4 KB buffers, ~5.6 KB: docs/speed.md,
branch mem86). The rows written from the slim parts must be exactly what a reindex gives;
when the parts no longer hold (the rows or the dictionary changed since), the add's files
are parsed again. The rows are still written in one transaction after the commit landed:
an add killed or interrupted there leaves the index at the parent, and the next query
answers for the new HEAD.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys

import pytest

from kistore.core.model import Manifest
from kistore.index import _rows
from kistore.index import index as index_module
from kistore.store import AddInterrupted, Store

from .test_index_add import head_tree, new_run, ranked, reindexed, rows


@pytest.fixture
def world(kit):
    return {"protocol": kit.protocol(), "env": kit.environment(), "workload": kit.workload()}


@pytest.fixture
def bulk(monkeypatch):
    """Past PACK_THRESHOLD (made 4 here) an add prepares its rows while child processes
    write its files."""
    from kistore.store import _store

    monkeypatch.setattr(_store, "PACK_THRESHOLD", 4)
    monkeypatch.setattr(_store, "WRITERS", 2)


def spied(monkeypatch) -> list:
    """Record the :class:`Prepared` each :meth:`Index.advance` is given."""
    given: list = []
    real = index_module.Index.advance

    def advance(self, parent, tree, files, prepared=None):
        given.append(prepared)
        return real(self, parent, tree, files, prepared)

    monkeypatch.setattr(index_module.Index, "advance", advance)
    return given


def test_the_prepared_rows_hold_no_runs_spec_nor_any_document(store, kit, world, bulk,
                                                              monkeypatch):
    given = spied(monkeypatch)
    monkeypatch.setattr(index_module, "read_manifests",
                        lambda repo, tree, todo, *a, **k: iter(()) if not todo else
                        pytest.fail(f"read again: {todo}"))
    docs = [*world.values(), *new_run(kit, world, "a", 30), *new_run(kit, world, "b", 10)]
    add_docs_bulk(store, docs)
    [prepared] = given
    assert prepared.slim
    kinds = {d: r.kind for d, r in prepared.records.items()}
    assert sorted(kinds.values()).count("BenchmarkRun") == 2
    assert {d: r.spec for d, r in prepared.records.items() if kinds[d] == "BenchmarkRun"} \
        == {d: {} for d in kinds if kinds[d] == "BenchmarkRun"}
    assert all(r.spec for r in prepared.records.values() if r.kind != "BenchmarkRun")
    assert {read[2] for read in prepared.parsed.values()} == {None}  # deflated ones only
    assert set(prepared.compressed[1]) == set(prepared.parsed)
    monkeypatch.undo()
    assert rows(store)[0] == head_tree(store)
    assert rows(store) == reindexed(store)  # specs and documents as a reindex has them
    assert ranked(store) == [("b", 1), ("a", 2)]


def add_docs_bulk(store, docs) -> None:
    Store(store.root).add([Manifest.from_document(d) for d in docs], commit=True)


def test_a_first_add_writes_the_dictionary_its_documents_were_deflated_with(
        store, kit, world, bulk, monkeypatch):
    """Into an index with no dictionary the slim add has no document to sample: the rows
    take the one ``prepare`` sampled (what the add's own documents would have given)."""
    given = spied(monkeypatch)
    docs = [*world.values(), *new_run(kit, world, "a", 30)]
    add_docs_bulk(store, docs)
    [prepared] = given
    assert prepared.slim and prepared.tree == index_module.EMPTY_TREE
    conn = index_module.Index(Store(store.root)).open()
    assert _rows.Codec.of(conn).dictionary == prepared.compressed[0] == _rows.sample(
        {str(m.digest): _rows.stored_document(m.kind, json.loads(m.object_bytes))
         for m in map(Manifest.from_document, docs)})
    monkeypatch.undo()
    assert rows(store) == reindexed(store)


def test_stored_documents_are_bytes_of_their_own_size():
    """orjson returns the buffer it wrote into (4 KB at least): held by the million, that
    was most of the prepared rows (docs/speed.md, mem86)."""
    import tracemalloc

    documents = [{"apiVersion": "x", "kind": "Workload", "spec": {"n": i}} for i in range(200)]
    tracemalloc.start()
    try:
        kept = [_rows.stored_document("Workload", d) for d in documents]
        size = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert kept[7] == b'{"apiVersion":"x","spec":{"n":7}}'
    assert size < 200 * 200  # ~80 bytes each; orjson's own buffers were 4,096 each


def test_an_add_interrupted_while_writing_slim_rows_leaves_the_index_at_the_parent(
        store, kit, world, bulk, monkeypatch):
    add_docs_bulk(store, [*world.values(), *new_run(kit, world, "a", 30)])
    ranked(store)
    before = rows(store)
    real = index_module.Index._apply

    def interrupted(self, conn, *args, **kwargs):
        real(self, conn, *args, **kwargs)  # the slim rows written, inside the transaction
        if kwargs.get("parsed"):
            raise KeyboardInterrupt

    monkeypatch.setattr(index_module.Index, "_apply", interrupted)
    with pytest.raises(AddInterrupted):
        add_docs_bulk(store, [*new_run(kit, world, "b", 10), *new_run(kit, world, "c", 20)])
    monkeypatch.undo()
    assert rows(store) == before and before[0] != head_tree(store)
    assert ranked(store) == [("b", 1), ("c", 2), ("a", 3)]  # the query catches up
    assert rows(store) == reindexed(store)


_KILLED = """
import os, signal, sys
from kistore.index import index
from kistore.store import _store
_store.PACK_THRESHOLD, _store.WRITERS = 4, 2
real = index.Index._apply
def apply(self, conn, *args, **kwargs):
    real(self, conn, *args, **kwargs)
    if kwargs.get("parsed"):  # the add's rows, before their transaction commits
        os.kill(os.getpid(), signal.SIGKILL)
index.Index._apply = apply
from kistore.cli import main
main(["--store", sys.argv[1], "add", "--commit", sys.argv[2]])
"""


def test_an_add_killed_while_writing_its_rows_leaves_a_query_that_answers_right(
        store, kit, world, tmp_path):
    add_docs_bulk(store, [*world.values(), *new_run(kit, world, "a", 30)])
    ranked(store)
    before = rows(store)
    batch = tmp_path / "batch.jsonl"
    batch.write_text("".join(json.dumps(d) + "\n" for d in
                             [*new_run(kit, world, "b", 10), *new_run(kit, world, "c", 20)]))
    done = subprocess.run([sys.executable, "-c", _KILLED, str(store.root), str(batch)],
                          capture_output=True, text=True)
    assert done.returncode == -signal.SIGKILL, done.stderr
    assert rows(store) == before and before[0] != head_tree(store)  # the commit landed
    assert ranked(store) == [("b", 1), ("c", 2), ("a", 3)]
    assert rows(store) == reindexed(store)
