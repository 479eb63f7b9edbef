"""A bulk add (from :data:`kistore.admission.BULK_LOOKUP` digests on) answers as a small one.

A large batch finds stored objects by listing each shard directory once instead of one
stat per digest; these tests hold it to the per-digest answers: references to objects
stored earlier resolve, missing ones are listed, and a directory squatting on an object's
path is no object.
"""

from __future__ import annotations

import os

import pytest

from bench.generate import manifests
from kistore.core import layout
from kistore.core.errors import MultipleErrors
from kistore.core.model import Manifest
from kistore.store import admission

from ..conftest import snapshot

N = 80  # 80 distinct digests: past BULK_LOOKUP


def batch() -> list[Manifest]:
    return [Manifest.from_document(d) for d in manifests(N)]


def split(found: list[Manifest]) -> tuple[list[Manifest], list[Manifest]]:
    runs = [m for m in found if m.kind == "BenchmarkRun"]
    return [m for m in found if m.kind != "BenchmarkRun"], runs


@pytest.fixture(params=["bulk", "per-digest"])
def lookup(request, monkeypatch):
    """Run each test through the shard listing and through one stat per digest."""
    if request.param == "per-digest":
        monkeypatch.setattr(admission, "BULK_LOOKUP", 10**9)
    else:
        assert len({m.digest for m in batch()}) >= admission.BULK_LOOKUP
    return request.param


def test_runs_added_after_their_references_resolve_them_from_the_store(store, lookup):
    referenced, runs = split(batch())
    store.add(referenced)
    results = store.add(runs)
    assert [r.status for r in results] == ["added"] * len(runs)
    again = store.add(referenced + runs)
    assert {r.status for r in again} == {"unchanged"}


def test_missing_references_of_a_bulk_batch_are_listed_and_nothing_written(store, store_path,
                                                                           lookup):
    referenced, runs = split(batch())
    workload = next(m for m in referenced if m.kind == "Workload")
    users = [r for r in runs if r.references()["workloadDigest"] == workload.digest]
    assert users
    before = snapshot(store_path)
    with pytest.raises(MultipleErrors) as caught:
        store.add([m for m in referenced if m is not workload] + runs)
    messages = [str(e) for e in caught.value.errors]
    assert len(messages) == len(users)
    for run, message in zip(users, messages, strict=True):
        assert f"BenchmarkRun {run.name} ({run.digest}) references digests that are not " \
            f"in the store nor in this input: workloadDigest={workload.digest}; " in message
    assert snapshot(store_path) == before


def test_a_directory_at_an_object_path_is_no_object(store, store_path, lookup):
    """An object path that is a directory must not count as the stored referenced object."""
    referenced, runs = split(batch())
    workload = next(m for m in referenced if m.kind == "Workload")
    os.makedirs(store_path / layout.object_path(workload.digest))
    with pytest.raises(MultipleErrors) as caught:
        store.add([m for m in referenced if m is not workload] + runs)
    assert all(f"workloadDigest={workload.digest}" in str(e) for e in caught.value.errors)


def test_a_commit_packs_the_entries_made_ahead_and_the_same_tree(tmp_path, monkeypatch):
    """From PACK_AHEAD manifests on, a child hashes and compresses the object and metadata
    bytes while the add checks them; the commit takes those (and makes the rest itself):
    the same commit tree as an add that makes every entry itself."""
    # Lazy: the commit side of the store is only needed here
    from kistore.git import pack
    from kistore.store import Store, _store

    monkeypatch.setattr(_store, "PACK_THRESHOLD", 4)
    monkeypatch.setattr(_store, "cpus", lambda: 2)
    taken: list[dict[bytes, tuple[bytes, bytes]]] = []
    real = pack.PackAhead.result

    def result(self):
        taken.append(real(self))
        return taken[-1]

    monkeypatch.setattr(pack.PackAhead, "result", result)
    found = batch()
    trees = []
    for ahead in (2, 10**9):  # with the child, then without it
        monkeypatch.setattr(_store, "PACK_AHEAD", ahead)
        store = Store.init(tmp_path / f"s{ahead}")
        store.add(found, commit=True, message="bulk", allow_dangling=True)
        trees.append(store.repo.head.peel().tree_id)
    assert trees[0] == trees[1]
    assert len(taken) == 1  # the add without it asked nothing
    assert taken[0] == {data: (pack.blob_id(data), pack.pack_entry(pack.BLOB, data))
                        for m in found for data in (m.object_bytes, m.metadata_bytes)}
    commit_tree = Store(tmp_path / "s2").repo[trees[0]]
    for m in found[:3]:
        assert commit_tree[layout.object_path(m.digest)].data == m.object_bytes


def test_a_bulk_add_keeps_no_parsed_document_on_its_runs(store, lookup):
    """Issue 22: the add's run checks (KI209, KI222, KI223) parsed each run's document and
    kept it on the manifest (``Manifest.spec``), ~13 KB a run held to the end of the add:
    the 1,000,000-manifest add was OOM-killed. Each run is now parsed for the look only."""
    found = batch()
    _, runs = split(found)
    results = store.add(found, commit=True)
    assert [r.status for r in results].count("added") == len(results)
    assert [m.name for m in runs if m._document is not None] == []


def test_passing_spec_is_the_spec_and_keeps_nothing():
    run = next(m for m in batch() if m.kind == "BenchmarkRun")
    spec = run.passing_spec()
    assert run._document is None
    assert spec == run.spec  # parsed and kept from here on ...
    assert run.passing_spec() is run.spec  # ... and then handed out, not parsed again


def test_a_generated_bulk_add_commits_the_tree_it_always_did(store, store_path, monkeypatch):
    """The commit tree of 300 generated manifests (pack path, and pack-ahead forced): the id
    main (dda59679) wrote before the memory change of issue 22, byte for byte, but for the
    `kistore init` template's new commented `object-members` line in kistore.toml (keys86)."""
    import pygit2

    from kistore.store import _store

    monkeypatch.setattr(_store, "PACK_AHEAD", 100)
    store.add([Manifest.from_document(d) for d in manifests(300)], commit=True, message="m")
    tree = pygit2.Repository(str(store_path)).head.peel(pygit2.Commit).tree_id
    # since 2026-12-04 (fix91) each generated run states its workload's definition as its
    # sourceNative.benchmark (KI238 refuses another board): other bytes, this tree; it was
    # 8ce5d8e9dc41c3824ca0514aaed03b9b752a1fc9
    assert str(tree) == "eb7e9024a799db9be43b68175935f2cb7d1f73b0"
