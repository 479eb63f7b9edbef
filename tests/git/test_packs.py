"""kistore.git.packs: a pack checked by its checksums, its damaged objects by their CRC-32."""

from __future__ import annotations

import hashlib
import struct
import subprocess
import tempfile
from pathlib import Path

import pygit2
from hypothesis import given, settings
from hypothesis import strategies as st

from kistore.git import packs
from kistore.git.pack import write_blobs


def _repo_with_pack(where: Path, blobs: list[bytes]) -> tuple[pygit2.Repository, Path, Path]:
    """A bare repository holding ``blobs`` in one pack written by kistore: (repo, pack, idx)."""
    repo = pygit2.init_repository(str(where), bare=True)
    write_blobs(where / "objects" / "pack", blobs)
    [idx] = (where / "objects" / "pack").glob("pack-*.idx")
    return repo, idx.with_suffix(".pack"), idx


def _entries(idx: Path) -> list[tuple[int, str]]:
    """(offset, id hex) of each object of a version 2 index, by offset."""
    data = idx.read_bytes()
    count = struct.unpack_from(">I", data, 8 + 255 * 4)[0]
    ids = [data[1032 + 20 * i:1032 + 20 * (i + 1)].hex() for i in range(count)]
    return sorted(zip(struct.unpack_from(f">{count}I", data, 1032 + 24 * count), ids,
                      strict=True))


@settings(max_examples=40, deadline=None)
@given(blobs=st.lists(st.binary(min_size=1, max_size=300), min_size=1, max_size=6, unique=True),
       where=st.floats(min_value=0, max_value=1, exclude_max=True), bit=st.integers(0, 7))
def test_any_flipped_bit_of_a_pack_is_found_and_located(blobs, where, bit):
    with tempfile.TemporaryDirectory() as tmp:
        repo, pack, idx = _repo_with_pack(Path(tmp), blobs)
        assert packs.check_packs(repo) == []
        data = bytearray(pack.read_bytes())
        at = int(where * len(data))
        data[at] ^= 1 << bit
        pack.chmod(0o644)
        pack.write_bytes(bytes(data))
        [damage] = packs.check_packs(repo)
        entries = _entries(idx)
        inside = [oid for (start, oid), end in zip(
            entries, [e[0] for e in entries[1:]] + [len(data) - 20], strict=True)
            if start <= at < end]
        # a bit of an object's packed bytes names that object (CRC-32 finds every one-bit
        # change), a bit of the header or trailer names none
        assert (damage.file, damage.objects) == (str(pack), tuple(inside))
        assert packs.damaged_copy(repo, inside[0] if inside else "0" * 40) == (
            damage if inside else None)


def test_a_sound_pack_is_hashed_once_and_a_sha256_repository_by_sha256(tmp_path):
    repo, pack, _ = _repo_with_pack(tmp_path, [b"one\n", b"two\n"])
    assert packs.object_format(repo) == "sha1"
    assert packs.check_packs(repo) == []
    repo.config["extensions.objectformat"] = "sha256"
    assert packs.object_format(repo) == "sha256"
    # a SHA-1 pack read as SHA-256: its 20-byte trailer is no SHA-256 of the rest
    [damage] = packs.check_packs(repo)
    assert damage.file == str(pack.with_suffix(".idx"))



def test_a_reverse_index_is_checked_by_its_checksums(tmp_path):
    repo, pack, _ = _repo_with_pack(tmp_path, [b"one\n", b"two\n", b"three\n"])
    subprocess.run(["git", "index-pack", "--rev-index", str(pack)], cwd=tmp_path, check=True,
                   capture_output=True)
    rev = pack.with_suffix(".rev")
    assert rev.read_bytes()[:4] == b"RIDX"
    assert packs.check_packs(repo) == []
    data = bytearray(rev.read_bytes())
    data[13] ^= 1  # the first entry: no object read names it
    rev.chmod(0o644)
    rev.write_bytes(bytes(data))
    [damage] = packs.check_packs(repo)
    assert (damage.file, damage.objects) == (str(rev), ())
    assert damage.advice == ("remove it (libgit2 does not read it; git reads the pack "
                             f"without it) or write it again: `git index-pack --rev-index {pack}`")


def test_an_index_whose_tables_run_past_its_end_is_damage_not_a_traceback(tmp_path):
    # its checksum holds (written so), its object count is past its end, its pack damaged
    repo, pack, idx = _repo_with_pack(tmp_path, [b"one\n", b"two\n"])
    index = bytearray(idx.read_bytes()[:-20])
    struct.pack_into(">I", index, 8 + 255 * 4, 10**6)
    idx.chmod(0o644)
    idx.write_bytes(bytes(index) + hashlib.sha1(bytes(index)).digest())
    data = bytearray(pack.read_bytes())
    data[14] ^= 1
    pack.chmod(0o644)
    pack.write_bytes(bytes(data))
    [damage] = packs.check_packs(repo)
    assert (damage.file, damage.reason) == (
        str(idx), "it is no index git can read (its tables run past its end)")
