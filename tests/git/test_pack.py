"""The packfile writer, checked against the real git binary (git verify-pack, cat-file, fsck)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from kistore.git.pack import _object_header, blob_id, write_blobs


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
