"""The work-tree comparison answered from one sealed row when no shard directory moved
(issue 22, start-up): every change a per-directory pass sees is still seen, and a row
edited from outside kistore is never trusted."""

from __future__ import annotations

import json
import sqlite3

import pytest

from kistore.core import layout
from kistore.core.model import Manifest
from kistore.index import _database as database
from kistore.index import _worktree, freshness, warm

from ..conftest import add_docs, write_raw
from .test_query_warm import new_run, ranks, settle


@pytest.fixture
def world(kit, monkeypatch):
    """A protocol, environment and workload; directories count as settled at once."""
    monkeypatch.setattr(freshness, "RACY_NS", 0)
    return {"protocol": kit.protocol(), "env": kit.environment(), "workload": kit.workload()}


def summary(store):
    """The summary row: (key, changed digests), None when there is none."""
    database.disconnect()
    conn = sqlite3.connect(database.index_path(store.git_dir))
    row = conn.execute("SELECT tree, changed FROM worktree WHERE dir = ?",
                       (_worktree.SUMMARY,)).fetchone()
    conn.close()
    return None if row is None else (row[0], json.loads(row[1]))


def no_pass(monkeypatch):
    """Fail the test if the per-directory pass runs (the summary must answer)."""
    monkeypatch.setattr(_worktree, "_compare", lambda *a: pytest.fail("a directory compared"))
    monkeypatch.setattr(warm.HeadTree, "listing", lambda *a: pytest.fail("a listing read"))


def test_nothing_moved_answers_from_the_summary(store, kit, world, monkeypatch):
    add_docs(store, [*world.values(), *new_run(kit, world, "a", 30),
                     *new_run(kit, world, "b", 10)])
    [c_impl, c_run] = add_docs(store, new_run(kit, world, "c", 20), commit=False)
    assert ranks(store.root) == [("b", 1), ("c", 2), ("a", 3)]
    key, changed = summary(store)
    assert sorted(changed) == sorted([c_impl, c_run])  # the uncommitted run and its impl
    with monkeypatch.context() as m:
        no_pass(m)
        assert ranks(store.root) == [("b", 1), ("c", 2), ("a", 3)]
    assert summary(store) == (key, changed)


def test_files_dropped_in_by_hand_are_seen(store, kit, world, monkeypatch):
    """No kistore write: only the shard directories' mtimes say something changed."""
    add_docs(store, [*world.values(), *new_run(kit, world, "a", 30),
                     *new_run(kit, world, "b", 10)])
    settle(store.root)
    assert ranks(store.root) == [("b", 1), ("a", 2)]
    before = summary(store)
    for doc in new_run(kit, world, "c", 5):  # copied in, as `cp` or an unzip would
        m = Manifest.from_document(doc)
        write_raw(store.root, layout.object_path(m.digest), m.object_bytes)
        write_raw(store.root, layout.metadata_path(m.digest), m.metadata_bytes)
    settle(store.root)  # long enough ago that no directory is racy
    assert ranks(store.root) == [("c", 1), ("b", 2), ("a", 3)]
    assert summary(store)[0] != before[0] and len(summary(store)[1]) == 2


def test_a_racy_directory_gets_no_summary(store, kit, world, monkeypatch):
    add_docs(store, [*world.values(), *new_run(kit, world, "a", 30)])
    monkeypatch.setattr(freshness, "RACY_NS", 10**18)  # every directory just written
    assert ranks(store.root) == [("a", 1)]
    assert summary(store) is None


def test_a_summary_row_edited_with_sqlite3_is_not_trusted(store, kit, world, monkeypatch):
    add_docs(store, [*world.values(), *new_run(kit, world, "a", 30),
                     *new_run(kit, world, "b", 10)])
    add_docs(store, new_run(kit, world, "c", 20), commit=False)
    assert ranks(store.root) == [("b", 1), ("c", 2), ("a", 3)]
    database.disconnect()
    conn = sqlite3.connect(database.index_path(store.git_dir))
    with conn:  # hide the uncommitted run; the seal is left as it was
        conn.execute("UPDATE worktree SET changed = '[]' WHERE dir = ?", (_worktree.SUMMARY,))
    conn.close()
    assert ranks(store.root) == [("b", 1), ("c", 2), ("a", 3)]
    assert len(summary(store)[1]) == 2  # written again by the pass


def test_a_commit_changes_the_key(store, kit, world, monkeypatch):
    add_docs(store, [*world.values(), *new_run(kit, world, "a", 30)])
    assert ranks(store.root) == [("a", 1)]
    key, _ = summary(store)
    add_docs(store, new_run(kit, world, "b", 10))
    assert ranks(store.root) == [("b", 1), ("a", 2)]
    assert summary(store)[0] != key
