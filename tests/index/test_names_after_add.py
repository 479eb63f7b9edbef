"""After an add, the names list no shard the add wrote, and answer what a rebuild answers.

Issue 22: ``Store._record_names`` kept each written shard's key as ``MTIME:recent``, which
never matches the settled key that follows, so the first names sync past the racy window
listed every shard the add wrote again (``stat`` of each of its files). Now the add keeps
the key of a shard that was in step before its write (:mod:`kistore.index._names_added`),
by its listing within the racy window (``MTIME#LISTING``), and a sync trusts a racy key
only by its listing: a write in the same clock tick (here: the directory's mtime put back)
is found, where ``MTIME:recent`` equal to the row was trusted.
"""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path
from unittest import mock

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from kistore.core import layout
from kistore.core.model import Manifest
from kistore.core.schema import KINDS
from kistore.index import _names_added, freshness
from kistore.index.names import NameIndex
from kistore.store import Store

from .test_names_summary import index_of, workload


@pytest.fixture(params=["settled", "racy"])
def racy(monkeypatch, request):
    """``settled``: nothing written counts as racy; ``racy``: everything written does."""
    monkeypatch.setattr(freshness, "RACY_NS", 0 if request.param == "settled" else 10**12)
    return request.param == "racy"


def files_of(root: Path, m: Manifest) -> tuple[Path, Path]:
    return root / layout.object_path(m.digest), root / layout.metadata_path(m.digest)


def shard_dirs_of(m: Manifest) -> set[str]:
    return {f"objects/{m.digest.hex[:2]}", f"metadata/{m.digest.hex[:2]}"}


def rebuilt(root: Path, where: Path) -> dict:
    """The names a new index file built from every file of the work tree holds."""
    fresh = NameIndex(where / "rebuilt.sqlite")
    fresh.rebuild(Store(root).view())
    return fresh.names("work", KINDS)


def write_by_hand(root: Path, m: Manifest) -> None:
    """Write a manifest's object and metadata files as another writer would (renames)."""
    for path, data in zip(files_of(root, m), (m.object_bytes, m.metadata_bytes), strict=True):
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_name("hand.tmp")
        temporary.write_bytes(data)
        os.replace(temporary, path)


def mtimes_put_back(dirs: list[Path]):
    """Restore each directory's mtime after the block: a write in the same clock tick."""
    before = {d: os.stat(d) for d in dirs}

    class _Back:
        def __enter__(self):
            return self

        def __exit__(self, *exc):
            for d, st_ in before.items():
                os.utime(d, ns=(st_.st_atime_ns, st_.st_mtime_ns))

    return _Back()


@pytest.mark.parametrize("commit", [False, True])
def test_the_first_sync_after_an_add_lists_no_shard_it_wrote(store, store_path, racy, commit):
    store.add([workload(f"w{i}", f"d{i}") for i in range(12)], commit=True)
    index = index_of(store_path)
    index.sync(Store(store_path).view())
    added = [workload(f"n{i}", f"e{i}") for i in range(6)]
    Store(store_path).add(added, commit=commit)
    view = Store(store_path).view()
    keys = index.shard_rows("work", set().union(*map(shard_dirs_of, added)))
    current = view.shard_keys()
    for shard_dir, key in keys.items():  # the key after the write, by listing when racy
        mtime = current[shard_dir].replace(freshness.RECENT, "")
        assert key.startswith(mtime + freshness.LISTED) if racy else key == mtime, key
    assert index.sync(view) == 0  # before: every shard the add wrote (`MTIME:recent`)
    assert index.names("work", KINDS) == rebuilt(store_path, store_path.parent)


def test_a_write_between_the_adds_write_and_its_record_lists_the_shard_again(
        store, store_path, racy, monkeypatch):
    """A file another writer put in a shard the add wrote, after the add's write: its
    listing is not the add's, so its row goes and the next sync lists the shard."""
    store.add([workload("a")], commit=True)
    index = index_of(store_path)
    index.sync(Store(store_path).view())
    added = workload("n", "e")
    beside = next(m for i in range(5000) if (m := workload(f"h{i}", f"h{i}")).digest.hex[:2]
                  == added.digest.hex[:2])  # 5,000 draws of 1/256

    def racing(*args, **kwargs):
        write_by_hand(store_path, beside)
        return real(*args, **kwargs)

    real = _names_added.keys_after_add
    monkeypatch.setattr(_names_added, "keys_after_add", racing)
    Store(store_path).add([added])
    assert index.shard_rows("work", shard_dirs_of(added)) == {}  # dropped: not the add's
    assert index.sync(Store(store_path).view()) == 1
    assert index.names("work", ["Workload"])[("Workload", beside.name)] == beside.digest


def test_a_write_hidden_behind_the_adds_racy_mtime_is_found(store, store_path, monkeypatch):
    """A manifest written by hand into the shard the add wrote, its mtimes put back."""
    monkeypatch.setattr(freshness, "RACY_NS", 10**12)
    store.add([workload("a")], commit=True)
    index = index_of(store_path)
    added = workload("n", "e")
    Store(store_path).add([added])
    index.sync(Store(store_path).view())  # trusted by its listing: nothing listed
    beside = next(m for i in range(5000) if (m := workload(f"h{i}", f"h{i}")).digest.hex[:2]
                  == added.digest.hex[:2])
    with mtimes_put_back([p.parent for p in files_of(store_path, added)]):
        write_by_hand(store_path, beside)
    assert index.sync(Store(store_path).view()) == 1
    assert index.names("work", ["Workload"])[("Workload", beside.name)] == beside.digest


def test_a_write_hidden_behind_a_racy_shard_a_sync_listed_is_found(
        store, store_path, monkeypatch):
    """Not only the add's: a shard a sync listed within the racy window was kept as
    ``MTIME:recent`` and trusted while the key stayed equal, a same-tick write unseen."""
    monkeypatch.setattr(freshness, "RACY_NS", 10**12)
    first = workload("a")
    store.add([first], commit=True)
    index = index_of(store_path)
    index.clear()
    index.sync(Store(store_path).view())  # lists the racy shard: kept by its listing
    beside = next(m for i in range(5000) if (m := workload(f"h{i}", f"h{i}")).digest.hex[:2]
                  == first.digest.hex[:2])
    with mtimes_put_back([p.parent for p in files_of(store_path, first)]):
        write_by_hand(store_path, beside)
    index.sync(Store(store_path).view())
    assert index.names("work", ["Workload"])[("Workload", beside.name)] == beside.digest


# -- the property: the names after any sequence of adds and foreign writes ---------------

FOREIGN = ("rename", "remove", "write", "touch")
OPS = st.one_of(
    st.tuples(st.just("add"), st.integers(1, 3), st.booleans()),  # count, --commit
    st.tuples(st.sampled_from(FOREIGN), st.integers(0, 50), st.booleans()),  # which, put back
    st.tuples(st.just("query"), st.just(0), st.just(False)),
)


def _stored(root: Path) -> list[Path]:
    """The metadata files of the work tree, sorted."""
    return sorted((root / layout.METADATA_DIR).glob("*/*.json"))


def _foreign(root: Path, op: str, which: int, serial: int) -> list[Path]:
    """Change the store as another writer would; return the directories it changed."""
    stored = _stored(root)
    if op == "write" or not stored:
        m = workload(f"h{serial}", f"h{serial}")
        write_by_hand(root, m)
        return [p.parent for p in files_of(root, m)]
    path = stored[which % len(stored)]
    if op == "rename":  # a metadata file renamed over with another name (sed -i)
        data = path.read_bytes()
        start = data.index(b'"name":"') + 8
        temporary = path.with_name("edit.tmp")
        temporary.write_bytes(data[:start] + f"r{serial}-".encode() + data[start:])
        os.replace(temporary, path)
    elif op == "remove":
        path.unlink()
    else:
        os.utime(path)  # its own key moves; its directory's does not
    return [path.parent]


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(racy=st.booleans(), ops=st.lists(OPS, min_size=1, max_size=8))
@example(racy=True, ops=[("rename", 0, True)])  # a sync's racy shard (main: missed)
@example(racy=True, ops=[("add", 1, False), ("remove", 1, True)])  # the add's racy shard
@example(racy=True, ops=[("add", 2, True), ("write", 0, True), ("query", 0, False)])
@example(racy=False, ops=[("add", 1, False), ("rename", 1, False), ("add", 1, True)])
@example(racy=True, ops=[("rename", 0, True), ("rename", 0, True)])  # A-B-A of an inode
def test_the_names_after_adds_and_foreign_writes_are_a_rebuilds(racy, ops):
    """Incremental names (add records, syncs) equal a rebuild from every file, always.

    Racy: every write is within the window, and a foreign write may put its directory's
    mtime back (the same clock tick as the last look). Settled: nothing is racy, and a
    foreign write comes a clock tick later (a write hidden behind a settled mtime is the
    stat-data trust git's index makes too; ``reindex`` is its remedy).
    """
    with tempfile.TemporaryDirectory() as tmp, \
            mock.patch.object(freshness, "RACY_NS", 10**12 if racy else 0):
        root = Path(tmp) / "store"
        Store.init(root)
        Store(root).add([workload("seed")], commit=True)
        index = index_of(root)
        serial = 0
        for op, value, flag in ops:
            serial += 1
            if op == "add":
                Store(root).add([workload(f"a{serial}-{i}", f"a{serial}-{i}")
                                 for i in range(value)], commit=flag)
            elif op == "query":
                assert Store(root).view().names(KINDS) == rebuilt(root, Path(tmp))
            elif racy and flag:
                changed = [root / layout.METADATA_DIR / d for d in os.listdir(
                    root / layout.METADATA_DIR)] + [root / layout.OBJECTS_DIR / d
                                                     for d in os.listdir(root / layout.OBJECTS_DIR)]
                with mtimes_put_back(changed):
                    _foreign(root, op, value, serial)
            else:
                time.sleep(0.02)  # past the file system's clock tick
                _foreign(root, op, value, serial)
        assert Store(root).view().names(KINDS) == rebuilt(root, Path(tmp))
        assert index.sync(Store(root).view()) == 0  # and the rows are then in step


def test_a_shard_in_step_by_its_mtime_is_not_stated_entry_by_entry(store, store_path,
                                                                    monkeypatch):
    """issue 22 (perf88): an add took the listing key (one ``lstat`` a file) of every shard
    it wrote, also of one whose row is a plain mtime: 400,000 ``lstat`` calls, 12 of 39 s
    of CPU, for 2,000 runs into 200,000. Only a row kept at a racy mtime needs it."""
    monkeypatch.setattr(freshness, "RACY_NS", 0)  # every row a plain mtime
    first = workload("w", "d")
    store.add([first], commit=True)
    index = index_of(store_path)
    index.sync(Store(store_path).view())
    added = next(m for i in range(5000) if (m := workload(f"n{i}", f"e{i}")).digest.hex[:2]
                 == first.digest.hex[:2])  # into the shards the first add wrote
    taken = mock.Mock(wraps=_names_added.listing_key)
    monkeypatch.setattr(_names_added, "listing_key", taken)
    dirs = shard_dirs_of(added)
    assert set(index.shard_rows("work", dirs).values()) == {
        str(os.lstat(store_path / _names_added._rel(d)).st_mtime_ns) for d in dirs}
    assert set(_names_added.names_before_add(index, store_path, dirs)) == dirs
    assert taken.call_args_list == []
    Store(store_path).add([added], commit=True)
    assert taken.call_args_list == []
    assert index.sync(Store(store_path).view()) == 0  # its rows were kept in step
    assert index.names("work", KINDS) == rebuilt(store_path, store_path.parent)


def test_a_shard_kept_by_its_listing_is_in_step_only_while_it_lists_the_same(
        store, store_path, monkeypatch):
    """The racy row (``MTIME#LISTING``) still takes the listing key, and a changed entry
    (same names and inode numbers, another size) fails it."""
    monkeypatch.setattr(freshness, "RACY_NS", 10**12)
    store.add([workload("a")], commit=True)
    index = index_of(store_path)
    added = workload("n", "e")
    Store(store_path).add([added])
    dirs = shard_dirs_of(added)
    rows = index.shard_rows("work", dirs)
    assert rows and all(freshness.LISTED in key for key in rows.values()), rows
    assert set(_names_added.names_before_add(index, store_path, dirs)) == set(rows)
    obj = files_of(store_path, added)[0]
    with mtimes_put_back([obj.parent]):
        with obj.open("ab") as f:  # same name, same inode: only its size and ctime differ
            f.write(b" ")
    assert f"objects/{added.digest.hex[:2]}" not in _names_added.names_before_add(
        index, store_path, dirs)
