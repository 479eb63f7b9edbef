"""One listing of each directory for an add's checks and its writer (issue 22, bulk00).

Each new group directory of a bulk add was listed four or five times before it existed:
the plan's group files, KI232's and KI234's groups (each through a new work-tree view),
the sweep of a killed add's temporary files and the writer's note of what it replaces.
Under the add's write lock nothing else writes the store's directories, so the first
listing serves them all; once the add writes, its views list again.
"""

from __future__ import annotations

import os
from collections import Counter

from bench.generate import manifests
from kistore.core import layout
from kistore.core.model import Manifest
from kistore.git import writer
from kistore.query.outlier_rules import outliers_check
from kistore.query.ranked_values import values_check


def _added(n: int) -> list[Manifest]:
    return [Manifest.from_document(d) for d in manifests(n)]


def _group_dirs(root) -> set[str]:
    top = root / layout.STORE_DIR / "groups"
    return {p.relative_to(root).as_posix() for p in top.rglob("*")
            if p.is_dir() and len(p.relative_to(top).parts) == 3}


def test_an_add_lists_each_group_directory_once(store, monkeypatch):
    monkeypatch.setattr(writer, "BULK_LISTING", 1)  # the writer lists its directories too
    listed: Counter[str] = Counter()
    listdir = os.listdir

    def counted(path=".", *args):
        rel = os.path.relpath(os.fspath(path), store.root)
        if rel.startswith("store/groups/sha256/") and rel.count("/") == 4:  # .../XX/KEY
            listed[rel] += 1
        return listdir(path, *args)

    monkeypatch.setattr(os, "listdir", counted)
    store.add(_added(200), commit=True, checks=(values_check, outliers_check()))
    made = _group_dirs(store.root)
    assert len(made) == 20
    # before: 4 (the plan, KI232, KI234, the stale temporaries; and the writer's fifth)
    assert set(listed) == made
    assert set(listed.values()) == {1}


def test_a_killed_adds_temporary_file_in_a_listed_group_directory_is_removed(
        store, tmp_path):
    from kistore.store import Store

    added = _added(60)
    last = [m for m in added if m.kind == "BenchmarkRun"][-1]
    other = Store.init(tmp_path / "other") or Store(tmp_path / "other")
    other.add(added, commit=True)  # where the last run's group file goes
    group = next(d for d in _group_dirs(other.root)
                 if (other.root / d / last.digest.hex).exists())
    store.add([m for m in added if m is not last], commit=True,
              checks=(values_check, outliers_check()))
    assert (store.root / group).is_dir()  # its group holds another run: the checks list it
    temp = store.root / group / f".{last.digest.hex}.{os.getpid()}.3.tmp"
    temp.write_bytes(b"half a file")  # a killed add's, named among the listed names
    store.add(added, commit=True, checks=(values_check, outliers_check()))
    assert not temp.exists()
    assert (store.root / group / last.digest.hex).is_file()


def test_the_views_list_again_once_the_add_has_written(store):
    added = _added(30)
    store.add(added, commit=True, checks=(values_check, outliers_check()))
    assert store._listings is None
    view = store.view(None)
    for directory in _group_dirs(store.root):
        assert sorted(view.list_dir(directory)) == sorted(os.listdir(store.root / directory))
        assert view.list_dir(directory)
