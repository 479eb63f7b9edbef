"""The packfile writer, checked against the real git binary (git verify-pack, cat-file, fsck)."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kistore.git import pack
from kistore.git.pack import BLOB, _object_header, blob_id, write_blobs, write_kept_objects


def git(cwd: Path, *args: str, data: bytes | None = None) -> bytes:
    return subprocess.run(["git", *args], cwd=cwd, input=data, check=True,
                          capture_output=True).stdout


def test_blob_id_equals_git_hash_object(tmp_path):
    data = b'{"apiVersion":"kernelindex.dev/v1alpha1"}'
    expected = git(tmp_path, "hash-object", "--stdin", data=data).decode().strip()
    assert blob_id(data).hex() == expected
    assert blob_id(b"").hex() == "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"  # git's empty blob


def test_object_header_varint():
    assert _object_header(3, 5) == bytes([0x35])
    assert _object_header(3, 16) == bytes([0xB0, 0x01])       # 16 = 0 + (1 << 4)
    assert _object_header(3, 1000) == bytes([0xB8, 0x3E])     # 1000 = 8 + (62 << 4)


def test_written_pack_is_read_by_git(tmp_path):
    git(tmp_path, "init", "-q")
    # sizes on both sides of each entry-header length (1 byte < 16 <= 2 bytes < 2,048)
    blobs = [b"first", b"second\n", b"first", b"x" * 70_000, b"y" * 15, b"y" * 16,
             b"z" * 2047, b"z" * 2048]
    ids = write_blobs(tmp_path / ".git" / "objects" / "pack", blobs)
    assert ids[0] == ids[2] and len(set(ids)) == 7
    packs = list((tmp_path / ".git" / "objects" / "pack").glob("pack-*.idx"))
    assert len(packs) == 1
    listing = git(tmp_path, "verify-pack", "-v", str(packs[0])).decode()
    assert listing.count(" blob ") == 7
    for data, oid in zip(blobs, ids, strict=True):
        assert git(tmp_path, "cat-file", "blob", oid.hex()) == data
    git(tmp_path, "fsck", "--strict")
    assert not list((tmp_path / ".git" / "objects" / "pack").glob("tmp_*"))


@settings(max_examples=15, deadline=None)
@given(st.lists(st.binary(max_size=300), min_size=1, max_size=20))
def test_any_blobs_round_trip_through_git(tmp_path_factory, blobs):
    repo = tmp_path_factory.mktemp("repo")
    git(repo, "init", "-q")
    ids = write_blobs(repo / ".git" / "objects" / "pack", blobs)
    for data, oid in zip(blobs, ids, strict=True):
        assert git(repo, "cat-file", "blob", oid.hex()) == data
    git(repo, "fsck", "--strict")


def _similar_manifests(count: int) -> list[bytes]:
    """``count`` distinct run-like documents of ~600 bytes that differ in a few values."""
    return [json.dumps({"kind": "BenchmarkRun", "metadata": {"name": f"run-{i}"},
                        "spec": {"latency": {"median_ns": 1000 + i * 7, "p95_ns": 2000 + i},
                                 "environment": "sha256:" + hashlib.sha256(b"%d" % (i % 12)
                                                                           ).hexdigest(),
                                 "notes": "a steady kernel, measured ten times " * 8}},
                       sort_keys=True).encode() for i in range(count)]


def _commit_all(repo: Path, ids: list[bytes]) -> None:
    listing = "".join(f"100644 blob {oid.hex()}\tf{i}\n" for i, oid in enumerate(ids))
    tree = git(repo, "mktree", data=listing.encode()).decode().strip()
    commit = git(repo, "commit-tree", tree, "-m", "all", data=b"").decode().strip()
    git(repo, "update-ref", "refs/heads/main", commit)


def _blob_deltas_after_gc(repo: Path) -> int:
    git(repo, "gc", "-q")
    (idx,) = (repo / ".git" / "objects" / "pack").glob("pack-*.idx")
    lines = git(repo, "verify-pack", "-v", str(idx)).decode().splitlines()
    return sum(1 for line in lines if " blob " in line and len(line.split()) == 7)


def test_a_large_batch_is_dealt_over_packs_by_id(tmp_path):
    git(tmp_path, "init", "-q")
    pack_dir = tmp_path / ".git" / "objects" / "pack"
    blobs = _similar_manifests(2_000)
    objects = [(blob_id(data), BLOB, data) for data in blobs]
    keeps = write_kept_objects(pack_dir, objects + objects[:5], "test")  # 5 met twice
    assert len(keeps) == 3  # 2,000 // 512
    assert all(keep.read_text() == "test\n" for keep in keeps)
    held: dict[bytes, int] = {}
    for keep in keeps:
        listing = git(tmp_path, "verify-pack", "-v", str(keep.with_suffix(".idx"))).decode()
        for line in listing.splitlines():
            if " blob " in line:
                oid = bytes.fromhex(line.split()[0])
                assert oid[0] % 3 == keeps.index(keep)  # dealt by the id's first byte
                held[oid] = held.get(oid, 0) + 1
    assert held == {oid: 1 for oid, _, _ in objects}
    for data, (oid, _, _) in zip(blobs[:20], objects, strict=False):
        assert git(tmp_path, "cat-file", "blob", oid.hex()) == data
    assert write_kept_objects(pack_dir, objects[:1_023], "small").__len__() == 1


def test_git_gc_deltifies_a_spread_batch_and_not_one_whole_pack(tmp_path):
    # The reason for the spread (write_kept_objects): git gc keeps two whole objects of
    # one pack whole. Same documents, one pack against the spread packs.
    blobs = _similar_manifests(2_000)
    one, spread = tmp_path / "one", tmp_path / "spread"
    for repo in (one, spread):
        git(repo.parent, "init", "-q", str(repo))
    ids = write_blobs(one / ".git" / "objects" / "pack", blobs)
    keeps = write_kept_objects(spread / ".git" / "objects" / "pack",
                               [(oid, BLOB, data) for oid, data in zip(ids, blobs, strict=True)],
                               "test")
    for keep in keeps:
        keep.unlink()
    for repo in (one, spread):
        _commit_all(repo, ids)
    assert _blob_deltas_after_gc(one) == 0
    assert _blob_deltas_after_gc(spread) > 1_500


def test_a_failed_spread_leaves_no_pack_behind(tmp_path, monkeypatch):
    git(tmp_path, "init", "-q")
    pack_dir = tmp_path / ".git" / "objects" / "pack"
    real, calls = pack._write, []

    def fail_second(*args, **kwargs):
        calls.append(1)
        if len(calls) == 2:
            raise OSError(28, "No space left on device")
        return real(*args, **kwargs)

    monkeypatch.setattr(pack, "_write", fail_second)
    objects = [(blob_id(data), BLOB, data) for data in _similar_manifests(1_100)]
    with pytest.raises(OSError, match="No space"):
        write_kept_objects(pack_dir, objects, "test")
    assert sorted(p.name for p in pack_dir.iterdir()) == []


def test_pack_ahead_makes_the_ids_and_entries_the_writer_would(tmp_path):
    # A child process hashes and compresses; its entries are exactly the pack writer's own.
    blobs = [b"first", b"y" * 15, b"y" * 16, b"z" * 2048, b"first"]
    ahead = pack.PackAhead(blobs)
    ahead.start()
    made = ahead.result()
    assert made == {data: (blob_id(data), pack.pack_entry(BLOB, data)) for data in blobs}
    assert made[b"first"][0].hex() == "fe4f02ad058b43f6ed467fdf65b935107529564b"  # hash-object
    assert made[b"y" * 15][1][:1] == bytes([0x3F])  # blob, size 15: one header byte
    assert ahead.result() == {}  # reaped: asked again, nothing (the writer makes its own)


def test_entries_made_ahead_are_written_as_given_and_read_by_git(tmp_path):
    git(tmp_path, "init", "-q")
    blobs = [b"made ahead", b"made here"]
    ids = [blob_id(data) for data in blobs]
    level9 = pack.pack_entry(BLOB, blobs[0], level=9)  # other bytes than level 1's
    (keep,) = write_kept_objects(tmp_path / ".git" / "objects" / "pack",
                                 [(oid, BLOB, data) for oid, data in zip(ids, blobs, strict=True)],
                                 "test", entries={ids[0]: level9})
    assert level9 in keep.with_suffix(".pack").read_bytes()  # taken as given
    assert pack.pack_entry(BLOB, blobs[1]) in keep.with_suffix(".pack").read_bytes()
    for data, oid in zip(blobs, ids, strict=True):
        assert git(tmp_path, "cat-file", "blob", oid.hex()) == data
    git(tmp_path, "fsck", "--strict")


def test_pack_ahead_killed_or_never_started_gives_nothing(monkeypatch):
    ahead = pack.PackAhead([b"x" * 1000] * 3)
    assert ahead.result() == {}  # not started
    # the child dies before it answers (killed, out of memory): the writer makes its own
    monkeypatch.setattr(pack, "_pack_ahead", lambda *args: os._exit(9))
    ahead.start()
    assert ahead.result() == {}
    assert ahead._child is None  # noqa: SLF001 - reaped
