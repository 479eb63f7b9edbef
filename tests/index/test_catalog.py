"""The index's names: correct for the work tree and --at REV, incremental, disposable."""

from __future__ import annotations

import shutil
from unittest import mock

import pytest

from kistore.core import layout
from kistore.core.errors import MultipleErrors, ResolutionError
from kistore.core.model import Manifest
from kistore.index import _database as database
from kistore.index import freshness
from kistore.index.names import NameIndex
from kistore.store import Store, WorkTreeView

from ..conftest import git, snapshot


def workload(name: str, definition: str = "gemm") -> Manifest:
    return Manifest.from_document({
        "apiVersion": "kernelindex.dev/v1alpha1", "kind": "Workload",
        "metadata": {"name": name}, "spec": {"suite": {"name": "S"}, "definition": definition}})


def catalog_file(store_path):
    return store_path / ".git" / "kistore" / "index.sqlite"


def test_catalog_lives_under_git_dir_and_leaves_work_tree_clean(store, store_path):
    store.add([workload("a")], commit=True)
    assert catalog_file(store_path).is_file()
    assert git(store_path, "status", "--porcelain") == ""


def test_name_reuse_is_refused_by_a_later_process(store_path):
    Store(store_path).add([workload("a", "gemm")])
    with pytest.raises(MultipleErrors) as caught:
        Store(store_path).add([workload("a", "conv")])  # fresh Store: catalog from disk
    assert "already used by" in str(caught.value.errors[0])


def test_add_does_not_read_the_whole_store(store, store_path):
    store.add([workload(f"w{i}", f"d{i}") for i in range(300)])
    Store(store_path).resolve("Workload/w0")  # catalog warm
    reads = []
    original = WorkTreeView.read

    def counting(self, path):
        reads.append(path)
        return original(self, path)

    with mock.patch.object(WorkTreeView, "read", counting):
        Store(store_path).add([workload("new", "new")])
    # The shard of the new manifest (about 300/256 manifests) is re-read, not 600 files.
    assert len(reads) < 20


def test_files_copied_in_by_hand_are_seen(tmp_path, store, store_path):
    other = Store.init(tmp_path / "other")
    m = workload("copied", "x")
    other.add([m])
    with pytest.raises(ResolutionError):
        store.resolve("Workload/copied")
    for rel in (layout.object_path(m.digest), layout.metadata_path(m.digest)):
        (store_path / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(tmp_path / "other" / rel, store_path / rel)
    assert Store(store_path).resolve("Workload/copied") == m.digest
    with pytest.raises(MultipleErrors):
        Store(store_path).add([workload("copied", "y")])


def test_removed_files_release_the_name(store, store_path):
    m = workload("gone")
    store.add([m])
    assert store.resolve("Workload/gone") == m.digest
    (store_path / layout.object_path(m.digest)).unlink()
    (store_path / layout.metadata_path(m.digest)).unlink()
    (store_path / layout.name_path("Workload", "gone")).unlink()
    with pytest.raises(ResolutionError):
        Store(store_path).resolve("Workload/gone")
    Store(store_path).add([workload("gone", "other")])  # the name is free again


def test_metadata_rename_by_update_is_seen(store, store_path):
    m = workload("before")
    store.add([m])
    renamed = Manifest.from_document({**m.document, "metadata": {"name": "after"}})
    store.add([renamed], update_metadata=True)
    assert Store(store_path).resolve("Workload/after") == m.digest
    with pytest.raises(ResolutionError):
        Store(store_path).resolve("Workload/before")


def test_names_at_rev_follow_the_commit_not_the_work_tree(store, store_path):
    a, b = workload("a", "1"), workload("b", "2")
    store.add([a], commit=True)
    first = git(store_path, "rev-parse", "HEAD").strip()
    store.add([b], commit=True)
    store.add([workload("c", "3")])  # work tree only
    assert store.resolve("Workload/b", at="HEAD") == b.digest
    with pytest.raises(ResolutionError):
        store.resolve("Workload/b", at=first)
    assert store.resolve("Workload/a", at=first) == a.digest
    with pytest.raises(ResolutionError):
        store.resolve("Workload/c", at="HEAD")
    assert set(store.view(at=first).names()) == {("Workload", "a")}
    assert set(store.view().names()) == {("Workload", n) for n in "abc"}


def test_deleting_the_catalog_loses_nothing(store, store_path):
    store.add([workload("a", "1"), workload("b", "2")], commit=True)
    before = store.view().names()
    catalog_file(store_path).unlink()
    assert Store(store_path).view().names() == before


def test_corrupt_catalog_falls_back_to_reading_the_store(store, store_path):
    m = workload("a")
    store.add([m])
    database.disconnect()  # damaged between two processes
    for f in catalog_file(store_path).parent.iterdir():
        f.write_bytes(b"not a database")
    assert Store(store_path).resolve("Workload/a") == m.digest
    with pytest.raises(MultipleErrors):
        Store(store_path).add([workload("a", "other")])


def test_sync_rereads_only_changed_shards(store, store_path, monkeypatch):
    monkeypatch.setattr(freshness, "RACY_NS", 0)  # no directory counts as just changed
    store.add([workload(f"w{i}", f"d{i}") for i in range(40)])
    view = Store(store_path).view()
    view.names()
    assert isinstance(view.name_index, NameIndex)
    assert view.name_index.sync(view) == 0  # nothing changed since
    m = workload("late", "late")
    Store(store_path).add([m])
    fresh = NameIndex(catalog_file(store_path))
    assert fresh.sync(view) == 0  # add recorded what it wrote
    (store_path / layout.metadata_path(m.digest)).unlink()
    assert fresh.sync(view) == 1  # one shard changed, one re-read


def test_catalog_is_not_in_any_snapshot(store, store_path):
    store.add([workload("a")])
    assert not any("catalog" in path for path in snapshot(store_path))


def test_a_directory_changed_in_the_same_clock_tick_is_listed_again(store, store_path,
                                                                    monkeypatch):
    # A write in the same mtime tick as the catalog's look would leave the directory's
    # mtime unchanged: such a directory never gets a key that can match later.
    store.add([workload("a")])
    monkeypatch.setattr(freshness, "RACY_NS", 10**18)
    keys = Store(store_path).view().shard_keys()
    assert keys and all(k.endswith(":recent") for k in keys.values())
    monkeypatch.setattr(freshness, "RACY_NS", 0)
    assert not any(k.endswith(":recent") for k in Store(store_path).view().shard_keys().values())


def test_rebuild_reports_progress_for_every_object_file(store, store_path):
    store.add([workload(f"w{i}", f"d{i}") for i in range(40)])
    catalog = NameIndex(catalog_file(store_path))
    done: list[int] = []
    assert catalog.rebuild(WorkTreeView(store_path, catalog), progress=done.append) == 40
    assert sum(done) == 40
    assert catalog.db.execute(
        "SELECT name FROM sqlite_master WHERE name = 'names_by_key'").fetchone()


def test_catalog_of_an_older_format_announces_its_long_first_read(store, store_path,
                                                                  monkeypatch, caplog):
    """The first add after the format changed read 2,000,000 files for 10 minutes, silently."""
    import logging

    from kistore.index import names as catalog_module

    store.add([workload(f"w{i}", f"d{i}") for i in range(40)])
    path = catalog_file(store_path)
    NameIndex(path).db.execute("UPDATE meta SET value = 'older' WHERE key = 'format'")
    database.disconnect()  # as a new process: the file is opened again
    monkeypatch.setattr(catalog_module, "LARGE_READ", 30)
    with caplog.at_level(logging.WARNING, logger="kistore.index"):
        Store(store_path).add([workload("new", "new")])
    assert len(caplog.messages) == 1
    assert caplog.messages[0].startswith(f"note: building the names of the index {path} "
                                         "(its format changed): reading ~")
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="kistore.index"):
        Store(store_path).add([workload("newer", "newer")])  # in step: nothing to say
    assert caplog.messages == []


def test_small_first_read_says_nothing(store, store_path, caplog):
    import logging

    store.add([workload(f"w{i}", f"d{i}") for i in range(40)])
    catalog_file(store_path).unlink()
    with caplog.at_level(logging.WARNING, logger="kistore.index"):
        assert Store(store_path).resolve("Workload/w3")
    assert caplog.messages == []


@pytest.mark.parametrize(("data", "expected"), [
    (b'{"name":"big","n":18446744073709551616}', ("Workload", "big")),  # orjson refuses
    (b'{"name":"a","name":"b"}', ("Workload", "b")),  # the last duplicate, as json does
    (b'{"name":1}', None),
    (b"not json", None),
])
def test_names_are_read_as_the_stdlib_reads_them(data, expected):
    from kistore.index.names import _kind_and_name

    assert _kind_and_name(b'{"kind":"Workload"}', data) == expected
