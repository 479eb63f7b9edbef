"""kistore.git.packs.packed_blob: a blob of a checked pack read by hand, never other bytes.

``verify --at`` reads each packed blob with one look-up and one inflate once
:func:`~kistore.git.packs.check_packs` found the packs sound (ver99). What it returns must
be what libgit2 reads, or nothing (the caller then reads through libgit2, which says what
is wrong): a delta, a loose copy, a damaged pack, or bytes that inflate whole to another id.
"""

from __future__ import annotations

import hashlib
import struct
import subprocess
import tempfile
import zlib
from pathlib import Path

import pygit2
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kistore.git import packs
from kistore.git.ids import blob_id
from kistore.git.pack import write_blobs


def _repo_with_pack(where: Path, blobs: list[bytes], level: int = 1
                    ) -> tuple[pygit2.Repository, Path, Path]:
    """A bare repository holding ``blobs`` in one pack written by kistore: (repo, pack, idx)."""
    repo = pygit2.init_repository(str(where), bare=True)
    write_blobs(where / "objects" / "pack", blobs, level=level)
    [idx] = (where / "objects" / "pack").glob("pack-*.idx")
    return repo, idx.with_suffix(".pack"), idx


@settings(max_examples=30, deadline=None)
@given(blobs=st.lists(st.binary(max_size=5000), min_size=1, max_size=6, unique=True),
       level=st.sampled_from([0, 1, 9]))
def test_each_blob_reads_as_libgit2_reads_it_and_past_the_limit_as_its_size(blobs, level):
    with tempfile.TemporaryDirectory() as tmp:
        repo, _, _ = _repo_with_pack(Path(tmp), blobs, level)
        assert packs.packed_blob(repo, blob_id(blobs[0]), None) is None  # not mapped yet
        assert packs.map_packs(repo)
        try:
            for data in blobs:
                raw = blob_id(data)
                assert packs.in_mapped_pack(repo, raw)
                assert packs.packed_blob(repo, raw, None) == data == repo.odb.read(raw.hex())[1]
                assert packs.packed_blob(repo, raw, len(data)) == data
                if data:
                    assert packs.packed_blob(repo, raw, len(data) - 1) == len(data)  # no inflate
            assert packs.packed_blob(repo, bytes(20), None) is None  # in no pack
        finally:
            packs.unmap_packs(repo)
        assert packs.packed_blob(repo, blob_id(blobs[0]), None) is None


def test_a_loose_copy_is_left_to_the_loose_guard(tmp_path):
    repo, _, _ = _repo_with_pack(tmp_path, [b"one\n", b"two\n"])
    loose = blob_id(b"two\n").hex()  # the same object, loose too (written as git does)
    (tmp_path / "objects" / loose[:2]).mkdir()
    (tmp_path / "objects" / loose[:2] / loose[2:]).write_bytes(zlib.compress(b"blob 4\0two\n"))
    assert packs.map_packs(repo)
    assert packs.packed_blob(repo, bytes.fromhex(loose), None) is None
    assert not packs.in_mapped_pack(repo, bytes.fromhex(loose))
    assert packs.packed_blob(repo, blob_id(b"one\n"), None) == b"one\n"
    packs.unmap_packs(repo)


def test_a_delta_is_left_to_libgit2(tmp_path):
    base = b"".join(b"line %d of a long enough text to be deltified\n" % i for i in range(200))
    blobs = [base, base + b"one more line\n"]
    subprocess.run(["git", "init", "-q", "--bare", str(tmp_path)], check=True)
    for data in blobs:
        subprocess.run(["git", "hash-object", "-w", "--stdin"], input=data, cwd=tmp_path,
                       check=True, capture_output=True)
    ids = "".join(blob_id(data).hex() + "\n" for data in blobs)
    subprocess.run(["git", "pack-objects", "-q", "--window=10", "objects/pack/pack"],
                   input=ids.encode(), cwd=tmp_path, check=True, capture_output=True)
    subprocess.run(["git", "prune-packed"], cwd=tmp_path, check=True)
    for data in blobs:  # each blob is read from the pack: nothing loose
        assert not (tmp_path / "objects" / blob_id(data).hex()[:2]).exists()
    listed = subprocess.run(["git", "verify-pack", "-v", *map(str, (tmp_path / "objects" /
                            "pack").glob("*.idx"))], capture_output=True, text=True).stdout
    deltas = {line.split()[0] for line in listed.splitlines() if len(line.split()) == 7}
    assert len(deltas) == 1  # one of the two is stored as a delta on the other
    repo = pygit2.Repository(str(tmp_path))
    assert packs.map_packs(repo)
    for data in blobs:
        raw = blob_id(data)
        assert packs.packed_blob(repo, raw, None) == (None if raw.hex() in deltas else data)
    packs.unmap_packs(repo)


def test_a_damaged_pack_maps_nothing(tmp_path):
    repo, pack, _ = _repo_with_pack(tmp_path, [b"one\n", b"two\n"])
    data = bytearray(pack.read_bytes())
    data[-3] ^= 1  # its trailing checksum
    pack.chmod(0o644)
    pack.write_bytes(bytes(data))
    assert packs.check_packs(repo)
    assert not packs.map_packs(repo)
    assert packs.packed_blob(repo, blob_id(b"one\n"), None) is None


def _recheck(pack: Path, idx: Path, crc_at: int, crc: int) -> None:
    """Rewrite an entry's CRC-32 in ``idx`` and every checksum of the pack and its index."""
    data = bytearray(pack.read_bytes())
    data[-20:] = hashlib.sha1(data[:-20]).digest()
    pack.chmod(0o644)
    pack.write_bytes(bytes(data))
    index = bytearray(idx.read_bytes())
    struct.pack_into(">I", index, crc_at, crc)
    index[-40:-20] = data[-20:]
    index[-20:] = hashlib.sha1(index[:-20]).digest()
    idx.chmod(0o644)
    idx.write_bytes(bytes(index))


@pytest.mark.parametrize("level", [0])
def test_an_entry_that_inflates_whole_to_other_bytes_is_not_returned(tmp_path, level):
    # the pack's and index's checksums and the entry's CRC-32 all hold, the stream
    # inflates to its header's length: only the bytes' git id says they are not the blob's
    original, other = b'{"spec":{"value":1}}', b'{"spec":{"value":9}}'
    repo, pack, idx = _repo_with_pack(tmp_path, [original], level)
    data = bytearray(pack.read_bytes())
    at = bytes(data).index(original)  # stored (level 0): the bytes as they are
    data[at:at + len(original)] = other
    adler = at + len(original)  # zlib's trailer: the Adler-32 of the inflated bytes
    data[adler:adler + 4] = struct.pack(">I", zlib.adler32(other))
    pack.chmod(0o644)
    pack.write_bytes(bytes(data))
    _recheck(pack, idx, 8 + 256 * 4 + 20, zlib.crc32(bytes(data[12:-20])))
    assert packs.check_packs(repo) == []  # sound by every checksum
    assert packs.map_packs(repo)
    raw = blob_id(original)
    assert packs.packed_blob(repo, raw, None) is None  # not the blob's bytes: not returned
    with pytest.raises(pygit2.GitError):  # libgit2, which the caller reads next, refuses it
        repo.odb.read(raw.hex())
    packs.unmap_packs(repo)
