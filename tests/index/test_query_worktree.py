"""Comparing a shard directory with ``HEAD`` reads no file; answers are still checked.

:func:`kistore.query.worktree._compare` compares names only (a one-manifest add at
1,000,000 manifests used to hash the ~7,800 files of its two shard directories). A file
replaced under its own name is then found by the stat check of every answer
(:mod:`kistore.query.fresh`), which these tests hold it to.
"""

from __future__ import annotations

import os

import pytest

from kistore.index import _worktree as worktree
from kistore.index import freshness
from kistore.query.answers import list_manifests
from kistore.store import Store

from ..conftest import add_docs
from .test_query_warm import new_run, ranks, warm_ranks

SHARD = "store/objects/sha256/ab"


def leaf(i: int) -> str:
    return f"{i:062x}.json"


def digest_of(i: int) -> str:
    return "sha256:ab" + leaf(i)[:-5]


@pytest.fixture
def shard(tmp_path, monkeypatch):
    """A shard directory of ten files; reading any of them fails the test."""
    top = tmp_path / SHARD
    top.mkdir(parents=True)
    for i in range(10):
        (top / leaf(i)).write_bytes(b'{"n":%d}' % i)
    monkeypatch.setattr(worktree, "blob_id_of_file",
                        lambda path: pytest.fail(f"{path} was read"))
    return tmp_path, {leaf(i): f"{i:040x}" for i in range(10)}


def test_added_and_removed_files_are_found_by_name_without_reading_any(shard):
    root, head = shard
    assert worktree._compare(root, SHARD, head) == set()
    (root / SHARD / leaf(99)).write_bytes(b"{}")
    (root / SHARD / leaf(3)).unlink()
    found = worktree._compare(root, SHARD, head)
    assert sorted(map(str, found)) == sorted([digest_of(3), digest_of(99)])


def test_directory_missing_from_the_work_tree_is_every_file_of_head(shard):
    root, head = shard
    other = "store/objects/sha256/cd"
    found = worktree._compare(root, other, {leaf(1): "0" * 40})
    assert [str(d) for d in found] == ["sha256:cd" + leaf(1)[:-5]]


def test_files_that_are_not_manifests_are_ignored(shard):
    root, head = shard
    (root / SHARD / "notes.txt").write_text("x")
    assert worktree._compare(root, SHARD, head) == set()


@pytest.fixture
def world(kit, monkeypatch):
    monkeypatch.setattr(freshness, "RACY_NS", 0)
    return {"protocol": kit.protocol(), "env": kit.environment(), "workload": kit.workload()}


def test_metadata_replaced_by_rename_is_answered_with_its_new_name(store, kit, world,
                                                                   monkeypatch):
    """kistore rewrites files by renaming a new one over them: the directory's mtime moves,
    its names do not, so the shard compares clean; the answer's stat check finds it."""
    digests = add_docs(store, [*world.values(), *new_run(kit, world, "a", 30),
                               *new_run(kit, world, "b", 10)])
    assert warm_ranks(store.root, monkeypatch) == [("b", 1), ("a", 2)]
    b = digests[-1]
    shard = store.root / "store/metadata/sha256" / b[7:9]
    path = shard / f"{b[9:]}.json"
    before = os.stat(shard).st_mtime_ns
    (shard / "tmp").write_bytes(path.read_bytes().replace(b'"name":"b"', b'"name":"renamed"'))
    os.replace(shard / "tmp", path)
    later = before + 10**10  # a tick the cached mtime cannot equal
    os.utime(shard, ns=(later, later))
    names = [r.name for r in list_manifests(Store(store.root), kind="BenchmarkRun")]
    assert names == ["a", "renamed"]
    assert ranks(store.root) == [("renamed", 1), ("a", 2)]


def test_object_replaced_by_rename_with_other_bytes_is_left_out(store, kit, world,
                                                               monkeypatch):
    digests = add_docs(store, [*world.values(), *new_run(kit, world, "a", 30),
                               *new_run(kit, world, "b", 10)])
    assert warm_ranks(store.root, monkeypatch) == [("b", 1), ("a", 2)]
    b = digests[-1]
    shard = store.root / "store/objects/sha256" / b[7:9]
    path = shard / f"{b[9:]}.json"
    (shard / "tmp").write_bytes(path.read_bytes().replace(b"passed", b"failed"))
    os.replace(shard / "tmp", path)
    later = os.stat(shard).st_mtime_ns + 10**10
    os.utime(shard, ns=(later, later))
    assert ranks(store.root) == [("a", 1)]
