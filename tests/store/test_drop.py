"""``kistore drop``'s store operation (kistore/store/drop.py; reviewer r85 F3).

A plain add's files are removed, every kind and nothing else; committed objects and
referenced manifests are refused with nothing removed; a dry run removes nothing; the
removal happens under the store's write lock; a removal that fails says what remains.
"""

from __future__ import annotations

import os
import subprocess

import pytest

from kistore.core import layout
from kistore.core.digest import Digest
from kistore.core.errors import MultipleErrors, ResolutionError, StoreStateError
from kistore.core.model import Manifest
from kistore.store import Store
from kistore.store import drop as drop_module
from kistore.store.drop import drop

from ..conftest import add_docs, group_files, snapshot


def status(root) -> str:
    return subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"], cwd=root,
                          check=True, capture_output=True, text=True).stdout


@pytest.fixture
def base(store, kit):
    """A store whose HEAD holds a protocol, an environment, a workload and an implementation."""
    docs = {"p": kit.protocol(), "e": kit.environment(), "w": kit.workload(),
            "i": kit.implementation()}
    add_docs(store, list(docs.values()))
    return docs


def test_drop_removes_exactly_the_files_of_a_plain_add(store, kit, base):
    before = snapshot(store.root)
    doc = kit.run(base["p"], base["e"], base["i"], base["w"], latency=10, name="r")
    run = Manifest.from_document(doc)
    add_docs(store, [doc], commit=False)
    stored = [Manifest.from_document(d) for d in base.values()]
    (group_path,) = group_files([run], stored)
    expected = {layout.object_path(run.digest), layout.metadata_path(run.digest),
                layout.name_path("BenchmarkRun", "r"), group_path}
    assert set(snapshot(store.root)) - set(before) == expected  # what the add wrote

    (dropped,) = drop(store, ["BenchmarkRun/r"])

    assert dropped.digest == run.digest and (dropped.kind, dropped.name) == ("BenchmarkRun", "r")
    assert set(dropped.paths) == expected
    assert dropped.paths[-1] == layout.object_path(run.digest)  # the object last
    assert snapshot(store.root) == before
    assert status(store.root) == ""  # no empty directory left either (git shows none)
    assert not (store.root / group_path).parent.exists()


def test_the_files_of_a_run_are_read_once_each(store, kit, base, monkeypatch):
    # manifest_files read the object, metadata and names file, then read them all again
    # to see that they were there (tidy88): each is read once; the forward record and
    # group file it computes, once to see them
    missing = kit.workload("absent")
    doc = kit.run(base["p"], base["e"], base["i"], missing, latency=10, name="counted")
    run = Manifest.from_document(doc)
    add_docs(store, [doc], commit=False, allow_dangling=True)
    view = store.view(None)
    reads: list[str] = []
    real = type(view).read

    def counted(self, path, *args, **kwargs):
        reads.append(path)
        return real(self, path, *args, **kwargs)

    monkeypatch.setattr(type(view), "read", counted)
    kind, name, paths = drop_module.manifest_files(view, run.digest)
    (group_path,) = group_files([run], [Manifest.from_document(d) for d in base.values()])
    own = [layout.forward_path(Manifest.from_document(missing).digest, run.digest),
           group_path, layout.name_path("BenchmarkRun", "counted"),
           layout.metadata_path(run.digest), layout.object_path(run.digest)]
    assert (kind, name, paths) == ("BenchmarkRun", "counted", own)
    assert {p: reads.count(p) for p in own} == dict.fromkeys(own, 1)


def test_drop_removes_a_dangling_runs_forward_records(store, kit, base):
    missing = kit.workload("absent")
    doc = kit.run(base["p"], base["e"], base["i"], missing, latency=10, name="dangling")
    run = Manifest.from_document(doc)
    before = snapshot(store.root)
    add_docs(store, [doc], commit=False, allow_dangling=True)
    record = layout.forward_path(Manifest.from_document(missing).digest, run.digest)
    assert (store.root / record).read_bytes() == b"workloadDigest\n"

    (dropped,) = drop(store, [str(run.digest)])

    assert record in dropped.paths
    assert snapshot(store.root) == before


def test_a_committed_object_is_refused_and_nothing_removed(store, kit, base):
    doc = kit.run(base["p"], base["e"], base["i"], base["w"], latency=10, name="kept")
    (digest,) = add_docs(store, [doc])
    before = snapshot(store.root)

    with pytest.raises(MultipleErrors) as caught:
        drop(store, [digest])

    (error,) = caught.value.problems
    assert error.file == layout.object_path(Digest.from_str(digest))
    assert "KI402" in error.message and "committed object stays" in error.message
    assert "new one, with another metadata.name" in error.message
    assert snapshot(store.root) == before


def test_a_referenced_manifest_is_refused_unless_dropped_with_its_referrer(store, kit, base):
    workload = kit.workload("other", name="w2")
    doc = kit.run(base["p"], base["e"], base["i"], workload, latency=5, name="r3")
    w2, r3 = add_docs(store, [workload, doc], commit=False)
    before = snapshot(store.root)

    with pytest.raises(MultipleErrors) as caught:
        drop(store, ["Workload/w2"])

    (error,) = caught.value.problems
    assert error.message == (
        f"{w2} is referenced by BenchmarkRun/r3 ({r3}, workloadDigest): dropping it would "
        "leave them dangling; drop them in the same command, or keep it")
    assert snapshot(store.root) == before

    dropped = drop(store, ["Workload/w2", "BenchmarkRun/r3"])
    assert [str(d.digest) for d in dropped] == [w2, r3]
    assert status(store.root) == ""


def test_dry_run_lists_and_removes_nothing(store, kit, base):
    doc = kit.run(base["p"], base["e"], base["i"], base["w"], latency=10, name="r")
    (digest,) = add_docs(store, [doc], commit=False)
    before = snapshot(store.root)

    (dropped,) = drop(store, [digest[7:15], digest], dry_run=True)  # one manifest, twice

    assert len(dropped.paths) == 4
    assert snapshot(store.root) == before


def test_files_are_removed_under_the_write_lock(store, kit, base, monkeypatch):
    doc = kit.run(base["p"], base["e"], base["i"], base["w"], latency=10, name="r")
    add_docs(store, [doc], commit=False)
    held = []
    unlink = os.unlink

    def watched(path):
        held.append(Store(store.root).write_lock_held() is not None)
        unlink(path)

    monkeypatch.setattr(drop_module.os, "unlink", watched)
    taken = []
    public = Store.write_lock

    def lock(self):
        taken.append(self.root)
        return public(self)

    monkeypatch.setattr(Store, "write_lock", lock)  # main had none: drop took _write_lock
    drop(store, ["BenchmarkRun/r"])
    assert held == [True] * 4
    assert taken == [store.root]  # the store's public method (drop85 leftover)


def test_a_failed_removal_names_what_remains_and_a_second_drop_finishes(store, kit, base,
                                                                        monkeypatch):
    doc = kit.run(base["p"], base["e"], base["i"], base["w"], latency=10, name="r")
    run = Manifest.from_document(doc)
    before = snapshot(store.root)
    add_docs(store, [doc], commit=False)
    metadata = layout.metadata_path(run.digest)
    unlink = os.unlink

    def refuse_metadata(path):
        if str(path).endswith(metadata):
            raise PermissionError(13, "Permission denied")
        unlink(path)

    monkeypatch.setattr(drop_module.os, "unlink", refuse_metadata)
    with pytest.raises(StoreStateError) as caught:
        drop(store, [str(run.digest)])
    assert caught.value.file == metadata
    assert "could not remove it (Permission denied); removed: " in caught.value.message
    assert f"still there: {metadata}, {layout.object_path(run.digest)}" in caught.value.message

    monkeypatch.setattr(drop_module.os, "unlink", unlink)
    (dropped,) = drop(store, [str(run.digest)])
    assert dropped.paths == (metadata, layout.object_path(run.digest))
    assert snapshot(store.root) == before


def test_a_name_held_by_an_uncommitted_add_points_at_drop_not_git_clean(store, kit, base):
    doc = kit.run(base["p"], base["e"], base["i"], base["w"], latency=10, name="r")
    (digest,) = add_docs(store, [doc], commit=False)
    corrected = kit.run(base["p"], base["e"], base["i"], base["w"], latency=12, name="r")

    with pytest.raises(MultipleErrors) as caught:
        add_docs(store, [corrected], commit=False)

    message = caught.value.problems[0].message
    assert f"`kistore drop {digest}` removes its files (and only them" in message
    assert "git clean" not in message


ORPHAN = "sha256:" + "ab" * 32
"""The digest a leftover names file holds: no object, no metadata file (drop85 leftover)."""


def _names_file_only(store, kind="Workload", name="orphan") -> str:
    """Write the names file a killed add leaves when it dies before the object; its path."""
    path = layout.name_path(kind, name)
    (store.root / path).parent.mkdir(parents=True, exist_ok=True)
    (store.root / path).write_bytes(f"{ORPHAN}\n".encode())
    return path


def test_a_names_file_left_alone_is_dropped_by_kind_and_name(store, kit, base):
    # drop85 leftover: `drop Workload/orphan` said "its names file names ..., whose metadata
    # file is missing or unreadable; run `kistore verify`", and verify's KI212 said to remove it
    before = snapshot(store.root)
    path = _names_file_only(store)

    (seen,) = drop(store, ["Workload/orphan"], dry_run=True)
    assert (str(seen.digest), seen.kind, seen.name, seen.paths) == (
        ORPHAN, "Workload", "orphan", (path,))
    assert (store.root / path).exists()

    (dropped,) = drop(store, ["Workload/orphan"])
    assert dropped == seen
    assert snapshot(store.root) == before


def test_a_committed_names_file_left_alone_is_refused(store, kit, base):
    path = _names_file_only(store)
    subprocess.run(["git", "add", "-A"], cwd=store.root, check=True)
    subprocess.run(["git", "commit", "-qm", "a name without its manifest"], cwd=store.root,
                   check=True)
    with pytest.raises(MultipleErrors) as caught:
        drop(store, ["Workload/orphan"])
    [problem] = caught.value.problems
    assert problem.file == path
    assert problem.message == (
        f"Workload/orphan is committed (HEAD holds its names file, which names {ORPHAN}, a "
        "manifest the store does not hold): a committed name never moves (KI208), and drop "
        "removes only what was never committed; add the manifest it names, or restore its "
        "files from git")
    assert (store.root / path).exists()


def test_a_names_file_whose_digest_has_metadata_is_no_leftover_of_that_kind(store, kit, base):
    path = _names_file_only(store)
    metadata = store.root / layout.metadata_path(Digest(ORPHAN[7:]))
    metadata.parent.mkdir(parents=True, exist_ok=True)
    metadata.write_bytes(b'{"name":"orphan"}')
    with pytest.raises(ResolutionError):
        drop(store, ["Workload/orphan"])
    assert (store.root / path).exists()


def test_a_manifest_only_a_committed_run_references_is_dropped(store, kit, base):
    """Reviewer r86 F15: a committed run dangling at HEAD, then a plain add of what it names:
    drop refused it ("drop them in the same command"), and dropping the run was refused."""
    environment = kit.environment("later")
    doc = kit.run(base["p"], environment, base["i"], base["w"], latency=7, name="dg")
    add_docs(store, [doc], allow_dangling=True)  # committed, dangling
    before = snapshot(store.root)
    (env,) = add_docs(store, [environment], commit=False)
    stored = [Manifest.from_document(d) for d in (*base.values(), environment)]
    (group_path,) = group_files([Manifest.from_document(doc)], stored)
    assert group_path not in before  # the environment's add wrote the run's group file

    (dropped,) = drop(store, [env])

    assert str(dropped.digest) == env and group_path in dropped.paths
    assert snapshot(store.root) == before  # HEAD's state: the run dangling, as committed
    assert status(store.root) == ""
