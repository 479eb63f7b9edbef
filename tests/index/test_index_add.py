"""`add --commit` keeps the index's query rows in step: the next query reads no manifest.

The add indexes what it wrote from the bytes it holds (:meth:`kistore.index.index.Index.
advance`), in one transaction after its commit landed. What it leaves must be exactly
what a fresh derivation (`kistore reindex`) gives; a failed or interrupted add leaves the
index describing the parent (never ahead of the branch), and the next query catches up.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kistore.core.model import Manifest
from kistore.index import _database as database
from kistore.index import index as index_module
from kistore.index.index import Index, IndexCatalog
from kistore.query.answers import list_manifests, rank
from kistore.store import AddInterrupted, Store

from ..conftest import ManifestKit, add_docs


@pytest.fixture
def world(kit):
    return {"protocol": kit.protocol(), "env": kit.environment(), "workload": kit.workload()}


def new_run(kit, world, name, latency, **kwargs):
    impl = kit.implementation(f"proj-{name}", name=f"impl-{name}")
    return [impl, kit.run(world["protocol"], world["env"], impl, world["workload"],
                          latency=latency, name=name, **kwargs)]


def head_tree(store) -> str:
    return str(Store(store.root).commit("HEAD").tree.id)


def rows(store) -> tuple:
    """The index's query rows as data: the tree they describe, every record (all its
    fields, its spec and its document's bytes), the skipped list and the listing."""
    conn = database.connection(database.index_path(store.git_dir))
    tree = database.get_meta(conn, "tree")
    catalog = IndexCatalog(conn, tree or "")
    records = catalog.records()
    return (tree, [(r, r.spec, catalog.document(r.digest)) for r in records],
            catalog.skipped(), catalog.listing())


def reindexed(store) -> tuple:
    """:func:`rows` after ``kistore reindex`` (a rebuild from nothing, as the command does)."""
    fresh = Store(store.root)
    Index(fresh).rebuild(fresh.commit("HEAD").tree, keep_work_tree_cache=True)
    return rows(fresh)


def no_reads(monkeypatch):
    """Make reading a manifest for the query rows fail the test (the index must be in step)."""
    monkeypatch.setattr(index_module, "read_manifests",
                        lambda *a, **k: pytest.fail("the query read manifests again"))


def ranked(store, ref="BenchmarkRun/a"):
    _, ranking = rank(Store(store.root), ref)
    return [(row.record.name, row.rank) for row in ranking.ranked]


def test_add_commit_leaves_the_rows_a_reindex_gives(store, kit, world, monkeypatch):
    add_docs(store, [*world.values(), *new_run(kit, world, "a", 30)])
    assert ranked(store) == [("a", 1)]  # the index is in step with HEAD
    # a new protocol and environment with runs on them, a run of the old group, a
    # dangling run: the add's own rows, and a run it re-describes
    protocol, env = kit.protocol(family="other"), kit.environment("NVIDIA B200")
    impl = kit.implementation("proj-x", name="impl-x")
    docs = [protocol, env, impl,
            kit.run(protocol, env, impl, world["workload"], latency=5, name="x"),
            *new_run(kit, world, "b", 10)]
    add_docs(store, docs)
    after = rows(store)
    assert after[0] == head_tree(store)
    assert after == reindexed(store)
    with monkeypatch.context() as m:
        no_reads(m)
        assert ranked(store) == [("b", 1), ("a", 2)]
        assert ranked(store, "BenchmarkRun/x") == [("x", 1)]


def test_a_bulk_add_into_an_empty_index_is_indexed_as_a_rebuild(store, kit, world,
                                                                 monkeypatch):
    monkeypatch.setattr(index_module, "BULK", 3)  # the path that drops the SQL indexes
    docs = [*world.values()]
    for i in range(6):
        docs += new_run(kit, world, f"r{i}", 10 + i)
    add_docs(store, docs)
    after = rows(store)
    assert after[0] == head_tree(store) and len(after[1]) == len(docs)
    conn = database.connection(database.index_path(store.git_dir))
    found = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type='index'")}
    assert set(database.INDEXES) <= found
    assert after == reindexed(store)
    with monkeypatch.context() as m:
        no_reads(m)
        assert ranked(store, "BenchmarkRun/r0")[0] == ("r0", 1)


def behind_by_one(store, kit, world):
    """Commit run b without the index being told (as a `git pull` would, with no query
    since): the index describes HEAD~1. Returns its rows then."""
    add_docs(store, [*world.values(), *new_run(kit, world, "a", 30)])
    ranked(store)
    with pytest.MonkeyPatch.context() as m:
        m.setattr(index_module.Index, "advance", lambda *args, **kwargs: False)
        add_docs(store, new_run(kit, world, "b", 10))
    found = rows(store)
    assert found[0] == str(Store(store.root).commit("HEAD~1").tree.id)
    return found


def test_an_index_a_few_manifests_behind_catches_up_first(store, kit, world, monkeypatch):
    behind_by_one(store, kit, world)
    add_docs(store, new_run(kit, world, "c", 20))
    after = rows(store)
    assert after[0] == head_tree(store)
    assert after == reindexed(store)
    with monkeypatch.context() as m:
        no_reads(m)
        assert ranked(store) == [("b", 1), ("c", 2), ("a", 3)]


def test_an_index_far_behind_is_left_for_the_next_query(store, kit, world, monkeypatch):
    monkeypatch.setattr(index_module, "CATCH_UP", 0)
    behind = behind_by_one(store, kit, world)
    add_docs(store, new_run(kit, world, "c", 20))
    assert rows(store) == behind  # untouched: neither ahead nor half-moved
    assert ranked(store) == [("b", 1), ("c", 2), ("a", 3)]  # the query's own update
    assert rows(store) == reindexed(store)


def test_a_failed_add_leaves_the_index_at_the_parent(store, kit, world, disk_full_on_write):
    add_docs(store, [*world.values(), *new_run(kit, world, "a", 30)])
    ranked(store)
    before = rows(store)
    disk_full_on_write(2)
    with pytest.raises(Exception):  # noqa: B017, PT011 - the disk's error, as add reports it
        add_docs(store, new_run(kit, world, "b", 10))
    assert rows(store) == before
    assert before[0] == head_tree(store)


def test_an_add_interrupted_while_indexing_leaves_the_index_at_the_parent(
        store, kit, world, monkeypatch):
    add_docs(store, [*world.values(), *new_run(kit, world, "a", 30)])
    ranked(store)
    before = rows(store)
    real = index_module.Index._apply

    def interrupted(self, conn, *args, **kwargs):
        real(self, conn, *args, **kwargs)  # rows written, inside the transaction
        raise KeyboardInterrupt

    monkeypatch.setattr(index_module.Index, "_apply", interrupted)
    with pytest.raises(AddInterrupted):
        add_docs(store, new_run(kit, world, "b", 10))
    monkeypatch.undo()
    assert rows(store) == before  # rolled back: describes the parent, not the new HEAD
    assert before[0] != head_tree(store)
    assert ranked(store) == [("b", 1), ("a", 2)]  # the commit landed; the query catches up
    assert rows(store) == reindexed(store)


def test_an_index_that_cannot_be_written_does_not_fail_the_add(store, kit, world,
                                                               monkeypatch):
    add_docs(store, [*world.values(), *new_run(kit, world, "a", 30)])
    ranked(store)

    def locked(*args, **kwargs):
        raise database.sqlite3.OperationalError("database is locked")

    monkeypatch.setattr(index_module.Index, "advance", locked)
    add_docs(store, new_run(kit, world, "b", 10))
    monkeypatch.undo()
    assert ranked(store) == [("b", 1), ("a", 2)]
    assert rows(store) == reindexed(store)


@settings(max_examples=8, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=st.lists(st.tuples(st.sampled_from(["commit", "work", "metadata", "query"]),
                                st.integers(1, 3)), min_size=1, max_size=5))
def test_after_any_adds_the_rows_are_what_a_reindex_gives(tmp_path_factory, steps):
    """Random sequences of committed and work-tree adds, metadata updates and queries:
    after each committed add the rows describe HEAD exactly as `kistore reindex` does."""
    root = tmp_path_factory.mktemp("store") / "store"
    store = Store.init(root)
    kit = ManifestKit()
    world = {"protocol": kit.protocol(), "env": kit.environment(), "workload": kit.workload()}
    add_docs(store, list(world.values()))
    runs: list[dict] = []  # committed ones: `add --commit` refuses a run whose
    # references are only in the work tree (KI213), so metadata updates take these
    for number, (what, count) in enumerate(steps):
        if what == "query":  # the index brought to HEAD by a query, not by the add
            list_manifests(Store(root))
            continue
        if what == "metadata" and runs:
            doc = runs[0]
            doc["metadata"] = {**doc["metadata"], "title": f"title {number}"}
            Store(root).add([Manifest.from_document(doc)], update_metadata=True, commit=True)
        else:
            docs = []
            for i in range(count):
                docs += new_run(kit, world, f"s{number}-{i}", 10 + i)
            if what != "work":
                runs += docs[1::2]
            add_docs(Store(root), docs, commit=what != "work")
        if what != "work":
            assert rows(Store(root))[0] == head_tree(store)
            assert rows(Store(root)) == reindexed(Store(root))


def test_a_bulk_add_parses_while_its_files_are_written(store, kit, world, monkeypatch):
    """Past PACK_THRESHOLD, child processes write the work-tree files; the add parses its
    manifests for the index meanwhile, and only writes the rows once the commit landed."""
    from kistore.store import _store

    monkeypatch.setattr(_store, "PACK_THRESHOLD", 4)
    monkeypatch.setattr(_store, "WRITERS", 2)
    given = []
    real = index_module.Index.advance

    def advance(self, parent, tree, files, prepared=None):
        given.append(prepared)
        return real(self, parent, tree, files, prepared)

    monkeypatch.setattr(index_module.Index, "advance", advance)
    monkeypatch.setattr(index_module, "read_manifests",
                        lambda repo, tree, todo, *a, **k: iter(()) if not todo else
                        pytest.fail(f"read again: {todo}"))
    docs = [*world.values(), *new_run(kit, world, "a", 30), *new_run(kit, world, "b", 10)]
    add_docs(store, docs)
    assert len(given) == 1 and len(given[0].parsed) == len(docs)
    assert len(given[0].records) == len(docs) and len(given[0].compressed[1]) == len(docs)
    monkeypatch.undo()
    assert rows(store)[0] == head_tree(store)
    assert rows(store) == reindexed(store)


def test_what_was_prepared_against_other_rows_is_not_used(store, kit, world, monkeypatch):
    """Records described from rows of another tree, or documents deflated with another
    dictionary, are made again when the rows are written: only what still holds is used."""
    from kistore.index.index import Prepared
    from kistore.index.records import Record
    from kistore.store import _store

    add_docs(store, [*world.values(), *new_run(kit, world, "a", 30)])
    ranked(store)
    monkeypatch.setattr(_store, "PACK_THRESHOLD", 2)
    real = _store.Store._index_prepare

    calls: list[int] = []

    def stale(self, files, manifests=()):
        [prepared] = real(self, files, manifests)
        assert prepared.tree == rows(self)[0] and prepared.records and prepared.compressed
        assert prepared.slim  # its runs' specs let go: what advance() needs is parsed again
        calls.append(1)
        if len(calls) == 1:  # described from another tree's rows
            lies = {d: Record(d, r.kind, "a lie", r.spec) for d, r in prepared.records.items()}
            return [Prepared(prepared.parsed, "0" * 40, lies, prepared.compressed,
                             slim=prepared.slim)]
        dictionary, deflated = prepared.compressed  # deflated with another dictionary
        return [Prepared(prepared.parsed, prepared.tree, prepared.records,
                         (dictionary + b"x", {d: b"\x00garbage" for d in deflated}),
                         slim=prepared.slim)]

    monkeypatch.setattr(_store.Store, "_index_prepare", stale)
    add_docs(store, new_run(kit, world, "b", 10))  # records described from another tree
    add_docs(store, new_run(kit, world, "c", 20))  # documents deflated with another dictionary
    assert len(calls) == 2
    monkeypatch.undo()
    after = rows(store)
    assert after[0] == head_tree(store)
    assert "a lie" not in [e.name for e in after[3]]
    assert after == reindexed(store)


def test_a_bulk_add_indexes_its_validated_manifests_without_checking_them_again(
        store, kit, world, monkeypatch):
    """The add's `Manifest`s are validated already: their rows are made from them (no hash,
    canonical check or schema validation again), and are still what a reindex gives."""
    from kistore.index import _build
    from kistore.store import _store

    monkeypatch.setattr(_store, "PACK_THRESHOLD", 4)
    monkeypatch.setattr(_store, "WRITERS", 2)
    monkeypatch.setattr(_build, "parse_document",
                        lambda *a, **k: pytest.fail("an add's manifest was parsed again"))
    add_docs(store, [*world.values(), *new_run(kit, world, "a", 30),
                     *new_run(kit, world, "b", 10)])
    monkeypatch.undo()
    assert rows(store)[0] == head_tree(store)
    assert rows(store) == reindexed(store)
    assert ranked(store) == [("b", 1), ("a", 2)]
