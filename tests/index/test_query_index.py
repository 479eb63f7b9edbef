"""The derived SQLite index: same answers as a scan, incremental, --at, never trusted."""

from __future__ import annotations

import sqlite3

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from kistore.core.errors import MultipleErrors
from kistore.core.model import Manifest
from kistore.index import _database as database
from kistore.index._database import FORMAT
from kistore.index.catalog import MemoryCatalog
from kistore.index.index import Index, open_catalog
from kistore.query.answers import list_manifests, rank
from kistore.store import Store

from ..conftest import add_docs


@pytest.fixture
def world(kit):
    """A protocol, environment and workload shared by the runs of one group."""
    return {"protocol": kit.protocol(), "env": kit.environment(), "workload": kit.workload()}


def new_run(kit, world, name, latency, **kwargs):
    impl = kit.implementation(f"proj-{name}", name=f"impl-{name}")
    return [impl, kit.run(world["protocol"], world["env"], impl, world["workload"],
                          latency=latency, name=name, **kwargs)]


def answers(store, at=None):
    """Every record of a view as plain data, to compare index answers with a scan."""
    catalog = open_catalog(store, at)
    return sorted((r.digest, r.kind, r.name, r.comparison_key, r.hardware, r.workload, r.role)
                  for r in catalog.records())


def scanned(store, at=None):
    catalog = MemoryCatalog.from_view(store.view(at))
    return sorted((r.digest, r.kind, r.name, r.comparison_key, r.hardware, r.workload, r.role)
                  for r in catalog.records())


def names_by_rank(store, ref, at=None):
    _, ranking = rank(store, ref, at=at)
    return [(row.record.name, row.rank) for row in ranking.ranked]


def test_index_answers_like_a_scan_and_follows_commits(store, kit, world):
    add_docs(store, [*world.values(), *new_run(kit, world, "a", 30)])
    assert answers(store) == scanned(store)
    assert names_by_rank(store, "BenchmarkRun/a") == [("a", 1)]
    add_docs(store, new_run(kit, world, "b", 10))
    assert answers(store) == scanned(store)
    assert names_by_rank(store, "BenchmarkRun/a") == [("b", 1), ("a", 2)]
    conn = sqlite3.connect(database.index_path(store.git_dir))
    tree = conn.execute("SELECT value FROM meta WHERE key='tree'").fetchone()[0]
    assert tree == str(store.commit("HEAD").tree.id)


def test_at_rev_answers_as_of_that_commit(store, kit, world):
    add_docs(store, [*world.values(), *new_run(kit, world, "a", 30)])
    first = str(store.commit("HEAD").id)
    add_docs(store, new_run(kit, world, "b", 10))
    add_docs(store, new_run(kit, world, "c", 20))
    assert names_by_rank(store, "BenchmarkRun/a", at=first) == [("a", 1)]
    assert names_by_rank(store, "BenchmarkRun/a") == [("b", 1), ("c", 2), ("a", 3)]
    assert names_by_rank(store, "BenchmarkRun/a", at=first) == [("a", 1)]  # index moved back
    assert answers(store, at=first) == scanned(store, at=first)


def test_dangling_run_joins_its_group_when_protocol_arrives(store, kit, world):
    add_docs(store, [world["env"], world["workload"], *new_run(kit, world, "early", 5)],
             allow_dangling=True)
    record = open_catalog(store).named("BenchmarkRun", "early")
    assert record.comparison_key is None
    add_docs(store, [world["protocol"]])
    record = open_catalog(store).named("BenchmarkRun", "early")
    assert record.comparison_key is not None
    assert answers(store) == scanned(store)


def test_uncommitted_work_tree_files_are_seen_by_default_not_at_head(store, kit, world):
    add_docs(store, [*world.values(), *new_run(kit, world, "a", 30)])
    add_docs(store, new_run(kit, world, "fresh", 1), commit=False)
    assert names_by_rank(store, "BenchmarkRun/a") == [("fresh", 1), ("a", 2)]
    assert names_by_rank(store, "BenchmarkRun/a", at="HEAD") == [("a", 1)]
    assert answers(store) == scanned(store)


def test_uncommitted_protocol_gives_committed_dangling_run_a_key(store, kit, world):
    add_docs(store, [world["env"], world["workload"], *new_run(kit, world, "early", 5)],
             allow_dangling=True)
    add_docs(store, [world["protocol"]], commit=False)
    assert names_by_rank(store, "BenchmarkRun/early") == [("early", 1)]
    assert answers(store) == scanned(store)


def test_deleted_work_tree_file_is_not_answered(store, kit, world):
    digests = add_docs(store, [*world.values(), *new_run(kit, world, "a", 30),
                               *new_run(kit, world, "b", 40)])
    gone = digests[-1]
    path = store.root / "store/objects/sha256" / gone[7:9] / f"{gone[9:]}.json"
    path.unlink()
    assert names_by_rank(store, "BenchmarkRun/a") == [("a", 1)]
    assert answers(store) == scanned(store)


def test_deleted_index_is_rebuilt_with_same_answers(store, kit, world):
    add_docs(store, [*world.values(), *new_run(kit, world, "a", 30), *new_run(kit, world, "b", 9)])
    before = answers(store), names_by_rank(store, "BenchmarkRun/a")
    database.index_path(store.git_dir).unlink()
    assert (answers(store), names_by_rank(store, "BenchmarkRun/a")) == before


@pytest.mark.parametrize("damage", ["garbage", "other-format", "unknown-tree", "empty-file"])
def test_corrupt_index_is_rebuilt_never_trusted(store, kit, world, damage):
    add_docs(store, [*world.values(), *new_run(kit, world, "a", 30), *new_run(kit, world, "b", 9)])
    before = answers(store)
    path = database.index_path(store.git_dir)
    database.disconnect()  # damaged between two processes
    if damage == "garbage":
        path.write_bytes(b"this is not an sqlite database" * 100)
    elif damage == "empty-file":
        path.write_bytes(b"")
    else:
        conn = sqlite3.connect(path)
        if damage == "other-format":
            conn.execute("UPDATE meta SET value='kistore-index-0' WHERE key='format'")
        else:  # a tree git does not have, and rows that lie
            conn.execute("UPDATE meta SET value=? WHERE key='tree'", ("ab" * 20,))
            conn.execute("UPDATE records SET key = NULL, hardware = 'a lie'")
        conn.commit()
        conn.close()
    database.disconnect()  # as a new process: the file is opened again
    assert answers(store) == before
    conn = sqlite3.connect(path)
    assert conn.execute("SELECT value FROM meta WHERE key='format'").fetchone()[0] == FORMAT


def test_reindex_rebuilds_from_scratch(store, kit, world):
    add_docs(store, [*world.values(), *new_run(kit, world, "a", 30)])
    conn = Index(store).rebuild(store.commit("HEAD").tree)
    assert conn.execute("SELECT count(*) FROM records").fetchone()[0] == 5
    assert answers(store) == scanned(store)


def test_scan_without_index_writes_nothing(store, kit, world):
    add_docs(store, [*world.values(), *new_run(kit, world, "a", 30)])  # writes the names
    database.disconnect()
    path = database.index_path(store.git_dir)
    path.unlink()
    catalog = open_catalog(Store(store.root), use_index=False)
    assert catalog.named("BenchmarkRun", "a") is not None
    assert not path.exists()


def test_ls_filters_by_kind_workload_and_hardware(store, kit, world):
    other_env = kit.environment("NVIDIA B200", name="b200")
    impl = kit.implementation("proj-z", name="impl-z")
    z = kit.run(world["protocol"], other_env, impl, world["workload"], latency=3, name="z")
    add_docs(store, [*world.values(), *new_run(kit, world, "a", 30), other_env, impl, z])
    runs = list_manifests(store, kind="BenchmarkRun")
    assert [r.name for r in runs] == ["a", "z"]
    b200 = list_manifests(store, hardware="NVIDIA B200")
    assert [(r.kind, r.name) for r in b200] == [("BenchmarkRun", "z"),
                                                ("ExecutionEnvironment", "b200")]
    wl = list_manifests(store, workload=f"Workload/{world['workload']['metadata']['name']}")
    assert [r.kind for r in wl] == ["BenchmarkRun", "BenchmarkRun", "Workload"]
    assert str(Manifest.from_document(world["workload"]).digest) in {r.digest for r in wl}


def test_work_tree_scan_is_cached_per_directory_and_invalidated_by_mtime(store, kit, world,
                                                                        monkeypatch):
    import os
    import time

    from kistore.index import freshness

    add_docs(store, [*world.values(), *new_run(kit, world, "a", 30)])
    assert names_by_rank(store, "BenchmarkRun/a") == [("a", 1)]
    conn = sqlite3.connect(database.index_path(store.git_dir))
    # the add --commit created every shard directory: it started their rows, all racy (kept
    # with their listings); a work-tree add starts none (it does not open the repository
    # then: tests/test_bench.py's work-tree add imports no pygit2)
    kept = conn.execute("SELECT dir, tree FROM worktree").fetchall()
    assert len(kept) == 10 and all("#" in tree for _, tree in kept)
    monkeypatch.setattr(freshness, "RACY_NS", 0)
    assert names_by_rank(store, "BenchmarkRun/a") == [("a", 1)]
    cached = conn.execute("SELECT count(*) FROM worktree WHERE dir != '*'").fetchone()[0]
    shards = [p for base in ("objects", "metadata")
              for p in (store.root / "store" / base / "sha256").iterdir()]
    assert cached == len(shards)  # one row per shard directory, now that none is racy
    assert conn.execute("SELECT count(*) FROM worktree WHERE dir = '*'").fetchone()[0] == 1
    digests = add_docs(store, new_run(kit, world, "b", 10), commit=False)
    later = time.time_ns() + 10**10  # a tick the cached mtimes cannot equal
    for d in digests:
        for base in ("objects", "metadata"):
            os.utime(store.root / "store" / base / "sha256" / d[7:9], ns=(later, later))
    assert names_by_rank(store, "BenchmarkRun/a") == [("b", 1), ("a", 2)]
    assert answers(store) == scanned(store)


def test_ls_by_full_digest_of_a_dangling_workload(store, kit, world):
    add_docs(store, [world["protocol"], world["env"], *new_run(kit, world, "a", 30)],
             allow_dangling=True)
    digest = str(Manifest.from_document(world["workload"]).digest)
    assert [r.name for r in list_manifests(store, workload=digest)] == ["a"]


def test_unwritable_index_falls_back_to_a_scan(store, kit, world, monkeypatch):
    add_docs(store, [*world.values(), *new_run(kit, world, "a", 30)])

    def refuse(self, **_):
        raise sqlite3.OperationalError("attempt to write a readonly database")

    monkeypatch.setattr(Index, "open", refuse)
    assert isinstance(open_catalog(store), MemoryCatalog)
    assert names_by_rank(store, "BenchmarkRun/a") == [("a", 1)]


@settings(max_examples=12, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.sampled_from(["run", "late-protocol", "env", "delete"]),
                          st.booleans()), min_size=1, max_size=6))
@example([("run", False), ("run", False), ("run", False), ("late-protocol", False),
          ("late-protocol", True)])  # the late protocol uncommitted: the commit is refused
def test_incremental_index_equals_a_scan_after_any_history(tmp_path_factory, steps):
    """Whatever was added, committed or deleted in whatever order: index == scan."""
    import tempfile

    from kistore.store import Store

    from ..conftest import ManifestKit

    kit = ManifestKit()
    with tempfile.TemporaryDirectory(dir=tmp_path_factory.getbasetemp()) as tmp:
        store = Store.init(f"{tmp}/s")
        late = kit.protocol(family="late")
        envs = [kit.environment("NVIDIA H100"), kit.environment("NVIDIA B200")]
        workload = kit.workload()
        add_docs(store, [kit.protocol(), *envs, workload])
        protocol = kit.protocol()
        commits = [str(store.commit("HEAD").id)]
        for i, (action, commit) in enumerate(steps):
            if action == "run":
                impl = kit.implementation(f"p{i}")
                docs = [impl, kit.run(protocol, envs[i % 2], impl, workload, latency=i + 1,
                                      name=f"r{i}")]
            elif action == "late-protocol":
                impl = kit.implementation(f"p{i}")
                docs = [impl, kit.run(late, envs[0], impl, workload, latency=i + 1, name=f"r{i}")]
                if i % 2:
                    docs.append(late)
            elif action == "env":
                docs = [kit.environment(f"GPU {i}"), late]
            else:
                runs = [p for p in (store.root / "store/objects/sha256").rglob("*.json")]
                if runs:
                    runs[-1].unlink()
                docs = []
            existing = {kit.digest(d) for d in docs if (store.root / "store/objects/sha256" /
                        kit.digest(d)[7:9] / f"{kit.digest(d)[9:]}.json").exists()}
            docs = [d for d in docs if kit.digest(d) not in existing]
            if docs:
                head = str(store.commit("HEAD").id)
                try:
                    add_docs(store, docs, commit=commit and action != "delete",
                             allow_dangling=True)
                except MultipleErrors as e:  # a run naming a manifest only in the work
                    # tree (a late protocol added uncommitted): its commit is refused
                    assert commit and "in the work tree but not committed" in str(e), e
                    assert str(store.commit("HEAD").id) == head  # nothing committed
                else:
                    if commit:
                        commits.append(str(store.commit("HEAD").id))
            assert answers(store) == scanned(store)
        for rev in commits:
            assert answers(store, at=rev) == scanned(store, at=rev)


def test_rebuild_creates_sqlite_indexes_and_a_cut_short_one_gets_them_back(store, kit, world):
    add_docs(store, [*world.values(), *new_run(kit, world, "a", 30)])
    conn = Index(store).rebuild(store.commit("HEAD").tree)
    names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='index'")}
    assert set(database.INDEXES) <= names
    conn.execute("DROP INDEX records_key")  # as if an older rebuild stopped before indexing
    database.disconnect()  # as a new process: the file is opened again
    assert names_by_rank(store, "BenchmarkRun/a") == [("a", 1)]
    conn = sqlite3.connect(database.index_path(store.git_dir))
    names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='index'")}
    assert "records_key" in names


def test_runs_referencing_changed_manifests_are_found_through_indexes_not_a_scan(store, kit,
                                                                                 world):
    """Overlaying work-tree files asks this; a scan of every row cost ~0.35 s at 100,000."""
    add_docs(store, [*world.values(), *new_run(kit, world, "a", 30)])
    catalog = open_catalog(store).base  # the index under the work tree's checked answers
    protocol = kit.digest(world["protocol"])
    assert [r.name for r in catalog.referencing({protocol})] == ["a"]
    plans = []
    real_select = catalog._select

    def explain(where, args):
        plans.extend(row[3] for row in catalog.conn.execute(
            "EXPLAIN QUERY PLAN SELECT r.id FROM records r WHERE " + where, args))
        return real_select(where, args)

    catalog._select = explain
    assert [r.name for r in catalog.referencing({protocol})] == ["a"]
    reads = [p for p in plans if " records" in f"{p} "]
    allowed = ("USING INTEGER PRIMARY KEY (rowid=?)",
               *(f"USING COVERING INDEX records_{c} ({c}=?)"
                 for c in ("workload", "protocol", "environment", "implementation")))
    assert reads and all(p.startswith("SEARCH ") and p.endswith(allowed) for p in reads), plans


def test_query_that_rebuilds_a_large_index_says_so_first(store, kit, world, monkeypatch,
                                                         caplog):
    """A first query after the index format changed read every manifest, silently."""
    import logging

    from kistore.index import index as index_module

    add_docs(store, [*world.values(), *new_run(kit, world, "a", 30)])
    assert names_by_rank(store, "BenchmarkRun/a") == [("a", 1)]
    conn = sqlite3.connect(database.index_path(store.git_dir))
    with conn:
        conn.execute("UPDATE meta SET value = 'kistore-index-0' WHERE key = 'format'")
    database.disconnect()  # as a new process: the file is opened again
    monkeypatch.setattr(index_module, "LARGE_READ", 5)
    with caplog.at_level(logging.WARNING, logger="kistore.index"):
        assert names_by_rank(store, "BenchmarkRun/a") == [("a", 1)]
        assert names_by_rank(store, "BenchmarkRun/a") == [("a", 1)]  # in step: silent
        Index(store).rebuild(store.commit("HEAD").tree, progress=lambda n: None)  # a bar
    path = database.index_path(store.git_dir)
    assert caplog.messages == [f"note: updating the query index {path}: "
                               "reading 5 manifests once; at 1,000,000 this takes minutes"]


def test_shard_diff_finds_what_git_diff_finds(store, kit, world):
    """Adds, a metadata edit, a removal and a mode change, between every pair of commits."""
    import os

    from kistore.core import layout
    from kistore.index.index import shard_diff

    from ..conftest import git

    def commit(message):
        git(store.root, "add", "-A", "store")
        git(store.root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", message)
        return store.commit("HEAD").tree

    add_docs(store, [*world.values(), *new_run(kit, world, "a", 30)])
    trees = [store.commit("HEAD").tree]
    digests = add_docs(store, new_run(kit, world, "b", 10), commit=False)
    trees.append(commit("b"))
    b = digests[-1][len("sha256:"):]
    meta = store.root / layout.METADATA_DIR / b[:2] / f"{b[2:]}.json"
    meta.write_bytes(meta.read_bytes().replace(b'"name":"b"', b'"name":"c"'))
    trees.append(commit("rename b"))
    os.chmod(meta, 0o755)
    trees.append(commit("mode"))
    git(store.root, "rm", "-q", str(store.root / layout.OBJECTS_DIR / b[:2] / f"{b[2:]}.json"))
    trees.append(commit("remove b's object"))

    def by_git(old, new):
        return {d for delta in old.diff_to_tree(new).deltas
                for path in (delta.old_file.path, delta.new_file.path)
                if (d := layout.digest_from_path(path)) is not None}

    for old in trees:
        for new in trees:
            assert shard_diff(store.repo, old, new) == by_git(old, new)
    assert {str(d) for d in shard_diff(store.repo, trees[1], trees[2])} == {digests[-1]}


def test_failed_index_write_leaves_nothing_half_written(store, kit, world):
    """``with conn:`` on the autocommit connection committed each executemany row alone."""
    from kistore.index._transaction import transaction

    add_docs(store, [*world.values(), *new_run(kit, world, "a", 30)])
    conn = Index(store).open()
    with pytest.raises(sqlite3.IntegrityError), transaction(conn):
        assert conn.in_transaction
        conn.executemany("INSERT INTO meta VALUES (?, ?, x'')", [
            ("new-1", "x"), ("new-2", "y"), ("new-1", "again")])
    assert not conn.in_transaction
    assert conn.execute("SELECT count(*) FROM meta WHERE key LIKE 'new-%'").fetchone() == (0,)
    with transaction(conn):
        conn.executemany("INSERT INTO meta VALUES (?, ?, x'')", [("new-1", "x"), ("new-2", "y")])
        with transaction(conn):  # joins the outer one
            conn.execute("INSERT INTO meta VALUES ('new-3', 'z', x'')")
    assert conn.execute("SELECT count(*) FROM meta WHERE key LIKE 'new-%'").fetchone() == (3,)


def test_query_over_many_uncommitted_manifests_says_so_once(store, kit, world, monkeypatch,
                                                            caplog):
    """r89 F4: every query re-read 60,000 uncommitted manifests (50-90 s each), silently."""
    import logging

    from kistore.index import _fresh

    add_docs(store, list(world.values()))
    add_docs(store, [*new_run(kit, world, "a", 30), *new_run(kit, world, "b", 20)],
             commit=False)
    monkeypatch.setattr(_fresh, "UNCOMMITTED_NOTE_FROM", 5)
    monkeypatch.setattr(_fresh, "_said_uncommitted", [])
    with caplog.at_level(logging.WARNING, logger="kistore.index"):
        assert names_by_rank(store, "BenchmarkRun/a") == [("b", 1), ("a", 2)]
        assert caplog.messages == []  # two runs, two implementations: under 5
        add_docs(store, new_run(kit, world, "c", 10), commit=False)
        assert names_by_rank(store, "BenchmarkRun/a") == [("c", 1), ("b", 2), ("a", 3)]
        assert names_by_rank(store, "BenchmarkRun/a") == [("c", 1), ("b", 2), ("a", 3)]
    assert caplog.messages == [
        "note: this query reads the 6 manifests the work tree holds uncommitted, as every "
        "query does until they are committed (only committed manifests are in the query "
        "index): commit them (`git add store && git commit`) to have them indexed"]
