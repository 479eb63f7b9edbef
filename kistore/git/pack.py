"""Write many git blobs at once as one packfile (git pack format v2 and index v2).

``add --commit`` of a large batch would otherwise write one loose object (a zlib file, a
temporary name and a rename) per blob, which is what bounds it on an ordinary disk. A pack
is two files however many blobs it holds, the same thing ``git fast-import`` writes. Git,
libgit2 and pygit2 read it like any pack; ``git gc`` later repacks it with deltas.

Formats followed: gitformat-pack(5), "pack-*.pack files" (version 2, undeltified objects
only) and "Version 2 pack-*.idx files". Object ids are SHA-1 (the repository's object
format; kistore's own digests are SHA-256 and unrelated). No pygit2 here: bytes and files.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import struct
import zlib
from collections.abc import Iterable
from pathlib import Path

_OBJ_BLOB = 3
_LARGE_OFFSET = 0x80000000


def blob_id(data: bytes) -> bytes:
    """Return the git object id (20 raw bytes, SHA-1) of a blob holding ``data``."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).digest()


def _object_header(kind: int, size: int) -> bytes:
    """Pack entry header: type and size as git's little-endian base-128 varint."""
    out = bytearray()
    byte = (kind << 4) | (size & 0x0F)
    size >>= 4
    while size:
        out.append(byte | 0x80)
        byte = size & 0x7F
        size >>= 7
    out.append(byte)
    return bytes(out)


def write_kept_blobs(pack_dir: Path, blobs: Iterable[bytes], keep: str, *, level: int = 1
                     ) -> tuple[list[bytes], Path]:
    """:func:`write_blobs`, after first writing ``pack-<sha1>.keep`` holding ``keep``.

    The ``.keep`` file is git's marker (gitrepository-layout(5)): ``git repack -a -d`` and
    ``git gc`` leave the pack alone while nothing references its objects yet, as ``git
    receive-pack`` keeps an incoming pack until its refs are updated.

    Args:
        pack_dir: the repository's ``objects/pack`` directory.
        blobs: blob contents; duplicates are written once.
        keep: the ``.keep`` file's text (who holds the pack).
        level: zlib level, as :func:`write_blobs`.

    Returns:
        The object ids (20 raw bytes each, input order) and the ``.keep`` file's path; the
        caller deletes it once a ref reaches the objects, or gives them up.

    Raises:
        OSError: as :func:`write_blobs`; nothing is left behind.
    """
    ids, name = _write(pack_dir, blobs, level, keep)
    return ids, Path(f"{name}.keep")


def write_blobs(pack_dir: Path, blobs: Iterable[bytes], *, level: int = 1) -> list[bytes]:
    """Write ``blobs`` into a new pack (``.pack`` + ``.idx``) under ``pack_dir``.

    Args:
        pack_dir: the repository's ``objects/pack`` directory.
        blobs: blob contents; duplicates are written once.
        level: zlib level (1: fast; ``git gc`` recompresses and deltifies later).

    Returns:
        The object id (20 raw bytes) of each blob, in input order.

    Side effects:
        Creates ``pack-<sha1>.pack`` then ``pack-<sha1>.idx`` (the index last, so a reader
        never sees an index without its pack); both are written to temporary names and
        renamed. Nothing is left behind on failure.

    Raises:
        OSError: when the files cannot be written.
    """
    return _write(pack_dir, blobs, level, None)[0]


def _write(pack_dir: Path, blobs: Iterable[bytes], level: int, keep: str | None
           ) -> tuple[list[bytes], Path]:
    """:func:`write_blobs`, writing the ``.keep`` file first when ``keep`` is given.

    Returns:
        The ids, and the pack's path without its suffix.
    """
    # tempfile loads random (~9 ms of the start-up of `kistore show`, docs/speed.md).
    # Lazy: only writing a pack needs it; a citation imports this module for blob_id.
    import tempfile

    ids: list[bytes] = []
    entries: dict[bytes, tuple[int, int]] = {}  # id -> (offset, crc32)
    pack_dir.mkdir(parents=True, exist_ok=True)
    fd, tmp_pack = tempfile.mkstemp(prefix="tmp_pack_", dir=pack_dir)
    tmp_idx = None
    kept: Path | None = None
    try:
        digest = hashlib.sha1(usedforsecurity=False)
        with os.fdopen(fd, "wb") as out:
            chunks = []
            offset = 12
            for data in blobs:
                oid = blob_id(data)
                ids.append(oid)
                if oid in entries:
                    continue
                packed = _object_header(_OBJ_BLOB, len(data)) + zlib.compress(data, level)
                entries[oid] = (offset, zlib.crc32(packed))
                chunks.append(packed)
                offset += len(packed)
            header = b"PACK" + struct.pack(">II", 2, len(entries))
            for part in (header, *chunks):
                digest.update(part)
                out.write(part)
            pack_sum = digest.digest()
            out.write(pack_sum)
        index = _index_v2(entries, pack_sum)
        fd, tmp_idx = tempfile.mkstemp(prefix="tmp_idx_", dir=pack_dir)
        with os.fdopen(fd, "wb") as out:
            out.write(index)
        name = pack_dir / f"pack-{pack_sum.hex()}"
        for written in (tmp_pack, tmp_idx):
            os.chmod(written, 0o444)
        if keep is not None:
            kept = Path(f"{name}.keep")
            kept.write_text(keep + "\n", encoding="utf-8")
        os.replace(tmp_pack, f"{name}.pack")
        os.replace(tmp_idx, f"{name}.idx")
    except BaseException:
        for tmp in (tmp_pack, tmp_idx, kept):
            if tmp is not None:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(tmp)
        raise
    return ids, name


def _index_v2(entries: dict[bytes, tuple[int, int]], pack_sum: bytes) -> bytes:
    """Build the version 2 ``.idx`` of a pack: fan-out, sorted ids, CRC32s, offsets, checksums."""
    order = sorted(entries)
    fanout = [0] * 256
    for oid in order:
        fanout[oid[0]] += 1
    total = 0
    for i in range(256):
        total += fanout[i]
        fanout[i] = total
    small: list[int] = []
    large: list[int] = []
    for oid in order:
        offset = entries[oid][0]
        if offset < _LARGE_OFFSET:
            small.append(offset)
        else:
            small.append(_LARGE_OFFSET | len(large))
            large.append(offset)
    body = b"".join([
        b"\377tOc", struct.pack(">I", 2), struct.pack(">256I", *fanout), *order,
        struct.pack(f">{len(order)}I", *(entries[o][1] for o in order)),
        struct.pack(f">{len(small)}I", *small),
        struct.pack(f">{len(large)}Q", *large), pack_sum,
    ])
    return body + hashlib.sha1(body, usedforsecurity=False).digest()
