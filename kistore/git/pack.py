"""Write many git blobs (and trees) at once as packfiles (git pack format v2 and index v2).

``add --commit`` of a large batch would otherwise write one loose object (a zlib file, a
temporary name and a rename) per blob, which is what bounds it on an ordinary disk. A pack
is two files however many blobs it holds, the same thing ``git fast-import`` writes. Git,
libgit2 and pygit2 read it like any pack; ``git gc`` later repacks it with deltas (a large
batch is spread over a few packs so that it does: :func:`write_kept_objects`).

Formats followed: gitformat-pack(5), "pack-*.pack files" (version 2, undeltified objects
only) and "Version 2 pack-*.idx files". Object ids are SHA-1 (the repository's object
format; kistore's own digests are SHA-256 and unrelated). No pygit2 here: bytes and files.
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
import itertools
import marshal
import os
import struct
import zlib
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from ..core.workers import forking, start_worker
from .ids import BLOB as BLOB  # re-exported: written here first
from .ids import TREE as TREE
from .ids import blob_id as blob_id
from .ids import object_id as object_id

_LARGE_OFFSET = 0x80000000
_JOINED = 8192
"""Pack entries joined into one write (a few MB of small manifests)."""


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


GC_SPREAD = 8
"""Most packs one batch's objects are dealt across (:func:`write_kept_objects`)."""
_PER_PACK = 512
"""Fewest objects a pack of a spread batch holds: a small batch stays one pack."""

PACK_WINDOW = 50
"""git's ``pack.window`` that ``kistore init`` sets in a new store's ``.git/config``.

How many neighbours ``git gc`` (``git pack-objects``) tries each object against for a
delta; git's default is 10. Its delta window sorts objects by a hash of the file name's
last 16 characters, which for a store's digest-named files is in effect random, so the
similar manifests of one kind seldom meet in ten. A 100,000-manifest store added in ten
chunks packed to 907 bytes a manifest after a plain ``git gc`` with 10 and 787 with 50, at
1.8x the gc's CPU time (docs/speed.md, "Packing settings"). It is git's own setting: a
``git gc`` or ``git repack`` in the store reads it; a clone does not copy it (set it on the
canonical server's repository too, README).
"""


def write_kept_objects(pack_dir: Path, objects: Iterable[tuple[bytes, int, bytes]], keep: str,
                       *, level: int = 1, entries: Mapping[bytes, bytes] | None = None,
                       trees: Iterable[tuple[bytes, bytes, str]] = ()) -> list[Path]:
    """Write blobs and trees into new packs, each pack's ``.keep`` file first.

    The ``.keep`` file is git's marker (gitrepository-layout(5)): ``git repack -a -d`` and
    ``git gc`` leave a pack alone while nothing references its objects yet, as ``git
    receive-pack`` keeps an incoming pack until its refs are updated.

    A batch of more than ``2 * _PER_PACK`` objects is dealt across up to :data:`GC_SPREAD`
    packs by the first byte of each id. Why: ``git gc`` never tries a delta between two
    whole (undeltified) objects of one pack, taking them as already tried by whoever wrote
    the pack (builtin/pack-objects.c, ``try_delta``); these packs hold whole objects only,
    so in one pack ``git gc`` would keep every manifest whole. Dealt across eight, seven
    of each object's eight neighbours in gc's delta window are in another pack and tried:
    a 20,000-manifest store packed to 799 bytes a manifest after ``git gc`` instead of 987
    (789 after ``git repack -a -d -f``; docs/speed.md). The objects are the same either
    way; readers look each id up in a few more ``.idx`` files until ``git gc`` joins them.

    ``trees`` are dealt by their names instead: git's delta window sorts by a hash of the
    name, so the trees ``gc`` deltifies against each other are those of one name in
    different directories (the object and metadata shards ``ab``, each kind's names shard
    ``ab``); the n-th tree of a name goes to the pack after the (n-1)-th one's, so up to
    :data:`GC_SPREAD` trees of a name are in as many packs and ``git gc`` tries each pair,
    as it tries loose trees (a commit's trees were written loose before: one file each,
    ~16,500 at 100,000 manifests, most of them group directories; docs/speed.md, bulk98).

    Args:
        pack_dir: the repository's ``objects/pack`` directory.
        objects: ``(id, kind, data)`` each: the object's id (20 raw bytes, as
            :func:`object_id` gives: it is trusted, not computed again), :data:`BLOB` or
            :data:`TREE`, and its contents; an id met twice is written once.
        keep: the ``.keep`` files' text (who holds the packs).
        level: zlib level, as :func:`write_blobs`.
        entries: object id -> that object's pack entry made already (:func:`pack_entry` at
            ``level``, e.g. by :class:`PackAhead`): written as given (trusted), not
            compressed again. Default: none; every object is compressed here.
        trees: ``(id, contents, name)`` of each :data:`TREE` to write besides ``objects``:
            its id (trusted, as ``objects``'), its raw body, and its name (the last
            component of its path: the dealing above).

    Returns:
        The ``.keep`` files' paths; the caller deletes them once a ref reaches the objects.

    Raises:
        OSError: as :func:`write_blobs`; nothing is left behind (packs written before the
            failure are removed with their ``.keep`` files).
    """
    objects, trees = list(objects), list(trees)
    spread = max(1, min(GC_SPREAD, (len(objects) + len(trees)) // _PER_PACK))
    dealt: list[list[tuple[bytes, int, bytes]]] = [[] for _ in range(spread)]
    for entry in objects:
        dealt[entry[0][0] % spread].append(entry)
    named: dict[str, int] = {}  # a tree name -> the pack its last tree went to
    for oid, body, tree_name in trees:
        at = named[tree_name] = ((named[tree_name] + 1) % spread if tree_name in named
                                 else oid[0] % spread)
        dealt[at].append((oid, TREE, body))
    written: list[Path] = []
    try:
        for part in dealt:
            written.append(_write(pack_dir, part, level, keep, entries or {}))
    except BaseException:
        for name in written:  # no ref reaches these objects: nothing else needs them
            for suffix in (".keep", ".idx", ".pack"):
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(f"{name}{suffix}")
        raise
    return [Path(f"{name}.keep") for name in written]


def write_blobs(pack_dir: Path, blobs: Iterable[bytes], *, level: int = 1) -> list[bytes]:
    """Write ``blobs`` into a new pack (``.pack`` + ``.idx``) under ``pack_dir``.

    Args:
        pack_dir: the repository's ``objects/pack`` directory.
        blobs: blob contents; duplicates are written once.
        level: zlib level (1: fast). ``git gc`` deltifies many objects later, which
            compresses them again, but keeps the others as they are: level 0 (stored)
            left a 20,000-manifest store 35% larger after ``git gc`` (docs/speed.md).

    Returns:
        The object id (20 raw bytes) of each blob, in input order.

    Side effects:
        Creates ``pack-<sha1>.pack`` then ``pack-<sha1>.idx`` (the index last, so a reader
        never sees an index without its pack); both are written to temporary names and
        renamed. Nothing is left behind on failure.

    Raises:
        OSError: when the files cannot be written.
    """
    blobs = list(blobs)
    ids = [blob_id(data) for data in blobs]
    _write(pack_dir, zip(ids, itertools.repeat(BLOB), blobs), level, None, {})
    return ids


def pack_entry(kind: int, data: bytes, level: int = 1) -> bytes:
    """Return an undeltified object's pack entry: its type-and-size header, then its zlib data.

    Args:
        kind: :data:`BLOB` or :data:`TREE`.
        data: the object's contents.
        level: zlib level (:func:`write_blobs`).

    Returns:
        The bytes a pack holds for the object (gitformat-pack(5), "Object entries").
    """
    size = len(data)  # the header: one byte below 16, two below 2,048
    return (bytes(((kind << 4) | size,)) if size < 16 else
            bytes(((kind << 4) | 0x80 | (size & 0x0F), size >> 4))
            if size < 2048 else _object_header(kind, size)) + zlib.compress(data, level)


def _write(pack_dir: Path, objects: Iterable[tuple[bytes, int, bytes]], level: int,
           keep: str | None, made: Mapping[bytes, bytes]) -> Path:
    """Write ``(id, kind, data)`` objects as a pack, the ``.keep`` file first when given.

    ``made`` maps an object id to its pack entry made already (:func:`pack_entry`).

    Returns:
        The pack's path without its suffix.
    """
    # tempfile loads random (~9 ms of the start-up of `kistore show`, docs/speed.md).
    # Lazy: only writing a pack needs it; a citation imports this module for blob_id.
    import tempfile

    entries: dict[bytes, tuple[int, int]] = {}  # id -> (offset, crc32)
    pack_dir.mkdir(parents=True, exist_ok=True)
    fd, tmp_pack = tempfile.mkstemp(prefix="tmp_pack_", dir=pack_dir)
    tmp_idx = None
    kept: Path | None = None
    try:
        with os.fdopen(fd, "wb") as out:
            chunks = [b""]  # the pack's header goes first, once the count is known
            offset = 12
            crc32, ready = zlib.crc32, made.get
            for oid, kind, data in objects:
                if oid in entries:
                    continue
                packed = ready(oid) or pack_entry(kind, data, level)
                entries[oid] = (offset, crc32(packed))
                chunks.append(packed)
                offset += len(packed)
            chunks[0] = b"PACK" + struct.pack(">II", 2, len(entries))
            digest = hashlib.sha1(usedforsecurity=False)
            for at in range(0, len(chunks), _JOINED):  # a write and a hash a few MB, not
                part = b"".join(chunks[at:at + _JOINED])  # one per object
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
    return name


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


class PackAhead:
    """Blob ids and pack entries made in a forked child process while this one works on.

    A bulk ``add --commit`` knows its manifests' bytes (every object and metadata file)
    before it has decided which files it writes (its checks read the work tree, one CPU);
    the child hashes and compresses them meanwhile on another, and the pack writer takes
    the entries made (:func:`write_kept_objects`'s ``entries``) instead of making them:
    the same bytes, off this process's path (docs/speed.md, "issue 22 pass ... bulk75").

    Args:
        blobs: the blobs' contents. The child reads them after the fork: build the
            sequence first and do not change it.
        level: zlib level of the entries (:func:`write_blobs`).

    Nothing is written anywhere: a child that cannot start, dies or is stopped costs only
    the work, which the pack writer then does itself.
    """

    def __init__(self, blobs: Sequence[bytes], *, level: int = 1) -> None:
        self.blobs = blobs
        self.level = level
        self._child: Any = None
        self._reply: Any = None

    def start(self) -> None:
        """Fork the child that makes the entries; without fork (or processes), do nothing."""
        # Lazy: the process machinery loads only for a bulk add (start-up).
        import multiprocessing

        try:
            context = multiprocessing.get_context("fork")
            reply, send = context.Pipe(duplex=False)
            child = context.Process(target=_pack_ahead, daemon=True,
                                    args=(send, reply, self.blobs, self.level, os.getpid()))
            with forking():  # an interrupt lands after the fork, not in its hooks
                child.start()
            send.close()
        except (ValueError, OSError):  # no fork here, or no processes allowed
            return
        self._child, self._reply = child, reply

    def result(self) -> dict[bytes, tuple[bytes, bytes]]:
        """Wait for the child; return blob contents -> ``(id, pack entry)``, then stop it.

        Returns:
            Each blob's git id (20 raw bytes, :func:`blob_id`) and :func:`pack_entry` of
            it as a :data:`BLOB` at ``level``; empty when no child ran or it failed.
        """
        if self._reply is None:
            return {}
        try:
            ids, entries = marshal.loads(self._reply.recv_bytes())
        except (EOFError, OSError, ValueError, TypeError):  # died, killed: made here instead
            return {}
        finally:
            self.close()
        if len(entries) != len(self.blobs) or len(ids) != 20 * len(entries):
            return {}
        return {data: (ids[20 * i:20 * i + 20], entry)
                for i, (data, entry) in enumerate(zip(self.blobs, entries, strict=True))}

    def close(self) -> None:
        """Stop the child if it still runs and reap it (idempotent)."""
        child, reply, self._child, self._reply = self._child, self._reply, None, None
        if child is None:
            return
        if child.is_alive():
            child.terminate()  # it only computes: nothing to undo
        child.join()
        reply.close()


def _pack_ahead(send: Any, reply: Any, blobs: Sequence[bytes], level: int,
                parent_pid: int) -> None:
    """Child of :class:`PackAhead`: send the blobs' ids (joined) and pack entries, marshalled.

    It closes its copy of the read end first, so that with the parent gone its send fails
    instead of blocking; it dies with the parent (:func:`kistore.core.workers.start_worker`).
    """
    start_worker(parent_pid)
    reply.close()
    # a collection would walk (and so copy) every page shared with the parent
    gc.disable()
    ids = b"".join([blob_id(data) for data in blobs])
    entries = [pack_entry(BLOB, data, level) for data in blobs]
    with contextlib.suppress(OSError):  # the parent is gone: nobody to tell
        send.send_bytes(marshal.dumps((ids, entries)))
    send.close()
