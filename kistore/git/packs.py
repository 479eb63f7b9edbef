"""Check a repository's pack files by their own checksums, as ``git verify-pack`` does.

``verify --at`` confirms names and group files by blob id (no read): equal ids are equal
bytes, but only of a whole object, and a packed object is not read to see that it is whole
(~20-40 us a blob, seconds at 100,000 manifests). So the packs are checked instead, each
file once: a pack ends with the SHA-1 (SHA-256 in a ``sha256`` repository) of every byte
before it, and its ``.idx`` ends with that pack checksum, then its own
(gitformat-pack(5)). Hashing a pack runs at ~1 GB/s, a few tens of milliseconds at 20,000
manifests (docs/speed.md). Only when a pack's checksum fails is it read again: each
object's packed bytes against the CRC-32 the ``.idx`` (version 2) keeps of them, which
names the damaged objects (and the deltas built on one), as ``git verify-pack`` does.

Covered: every ``objects/pack/pack-*.pack`` with its ``.idx`` of the repository and of
its alternates (``objects/info/alternates``, as git follows them), ``.keep`` and
``.promisor`` packs alike (a partial clone's packs are packs; the blobs it lacks are in
none), the ``.rev`` reverse index and the ``multi-pack-index`` (each has a trailing
checksum). Not covered: ``.bitmap`` and ``.mtimes`` files (libgit2 reads neither; ``git
fsck`` does not check them either), loose objects (:func:`~kistore.git.blobs.loose_object`
reads those whole).

:func:`check_packs` checks; :func:`damaged_copy` answers from what it found, never
hashing (a pull-request gate does not pay for the packs' check).
"""

from __future__ import annotations

import mmap
import os
import struct
import zlib
from dataclasses import dataclass
from pathlib import Path

from .blobs import _object_dirs
from .ids import BLOB, blob_id
from .lazy import pygit2  # imported on first use (~0.2 s)

FSCK = ("run `git fsck` to list every damaged object, then fetch them again from a good "
        "clone or the remote (clone again and copy your unpushed work over, or copy the "
        "pack from a clone that has it)")
"""What to do about a damaged pack (its objects' bytes are gone from this repository)."""


def replace_pack(pack: Path, idx: Path) -> str:
    """Return what to do about the damaged ``pack`` (with its index ``idx``): its files named.

    Copying a good clone's pack in makes every object readable, yet the damaged pack stays
    in ``objects/pack/``, and its checksum still fails (fresh99 M2); ``git fetch`` brings
    nothing, git believing it holds the objects. So the fix moves the damaged files out,
    by name, after the good pack is in.

    Args:
        pack: the damaged ``.pack`` file.
        idx: its ``.idx`` (its ``.rev`` beside it, when git wrote one, is named too).

    Returns:
        The fix, one sentence. Raises nothing but what ``Path.exists`` raises.
    """
    files = [pack, idx] + [rev for rev in [pack.with_suffix(".rev")] if rev.exists()]
    names = " ".join(str(f) for f in files)
    aside = pack.parents[2] / "damaged-pack"  # the git directory, where git reads it never
    return ("run `git fsck` to list every damaged object, then copy a good pack in from a "
            "clone that has them (there: `git repack -a -d`, then copy its pack-*.pack and "
            f"pack-*.idx into {pack.parent}/), and move this damaged pack out (`mkdir -p "
            f"{aside} && mv {names} {aside}/`): git still reads it "
            "otherwise, and a `git fetch` brings nothing, git believing it has the objects; "
            "then `git fsck` again (an object only this pack held, work you never pushed, "
            "is then missing: copy it over from where you made it), or clone again and copy "
            "your unpushed work over")

_OFS_DELTA, _REF_DELTA = 6, 7
"""Pack entry types of a delta on a base at an offset and on a base named by id."""


@dataclass(frozen=True)
class PackDamage:
    """One damaged pack file (or pack index, reverse index, multi-pack-index).

    Attributes:
        file: the damaged file's absolute path.
        reason: what is wrong with it ("its checksum does not match its bytes").
        objects: the ids (hex) of the objects whose packed bytes are damaged: their
            CRC-32 fails, or they are deltas on such an object; empty when the damage is
            in no object's bytes (a header, a checksum, an index) or cannot be located.
        advice: what to do.
    """

    file: str
    reason: str
    objects: tuple[str, ...] = ()
    advice: str = FSCK


_checked: dict[tuple[object, ...], list[PackDamage]] = {}
"""What each pack file's check found, by (paths, sizes, mtimes): each file hashed once a
process while it is unchanged."""
_damaged: dict[str, dict[str, PackDamage]] = {}
"""Git directory -> damaged object id (hex) -> its pack's damage, from :func:`check_packs`."""


def object_format(repo: pygit2.Repository) -> str:
    """Return the repository's object hash, ``sha1`` or ``sha256`` (``extensions.objectformat``).

    Args:
        repo: the repository.
    """
    try:
        value = str(repo.config["extensions.objectformat"]).lower()
    except KeyError:
        return "sha1"
    return "sha256" if value == "sha256" else "sha1"


def check_packs(repo: pygit2.Repository) -> list[PackDamage]:
    """Check every pack file ``repo`` reads objects from by its checksums.

    Each ``pack-*.pack`` with its ``.idx`` (a pack without one is being written, or left
    by a crash: git reads neither), its ``.rev`` when there is one, and the
    ``multi-pack-index``, in the object directory and each alternate's. A file unchanged
    (path, size, modification time) since this process checked it is not hashed again.
    What is found is kept for :func:`damaged_copy`.

    Args:
        repo: the repository.

    Returns:
        The damaged files, in directory then name order; empty for a sound repository.
    """
    algo = object_format(repo)
    found: list[PackDamage] = []
    for objects in _object_dirs(repo):
        pack_dir = Path(objects) / "pack"
        try:
            names = sorted(os.listdir(pack_dir))
        except OSError:  # no pack directory (all loose), or an alternate that is gone
            continue
        for name in names:
            if name.startswith("pack-") and name.endswith(".idx"):
                stem = pack_dir / name[:-4]
                if os.path.isfile(f"{stem}.pack"):
                    found += _cached(algo, Path(f"{stem}.pack"), Path(f"{stem}.idx"),
                                     Path(f"{stem}.rev"))
        found += _cached(algo, pack_dir / "multi-pack-index")
    damaged = {oid: damage for damage in found for oid in damage.objects}
    if damaged:
        _damaged[repo.path] = damaged
    else:  # none kept: damaged_copy costs one test of an empty dict a blob
        _damaged.pop(repo.path, None)
    return found


def damaged_copy(repo: pygit2.Repository, oid: str | bytes | pygit2.Oid) -> PackDamage | None:
    """Return the damage of the pack holding a damaged copy of ``oid``, as last checked.

    Answers from the last :func:`check_packs` of this repository in this process (or the
    process it was forked from); None when none ran or it found no damaged object: nothing
    is hashed here.

    Args:
        repo: the repository.
        oid: the object's id (``pygit2.Oid``, 40 hex digits, or 20 raw bytes).
    """
    if not _damaged:  # the common case: one test of an empty dict
        return None
    damaged = _damaged.get(repo.path)
    if damaged is None:
        return None
    return damaged.get(oid.hex() if isinstance(oid, bytes) else str(oid))


def _cached(algo: str, *files: Path) -> list[PackDamage]:
    """:func:`_check_pack` (two or three files) or :func:`_check_midx` (one), once each state."""
    key: list[object] = [algo]
    for file in files:
        try:
            st = os.stat(file)
        except OSError:  # no .rev (git writes none by default), no multi-pack-index
            key.append(None)
            continue
        key.append((str(file), st.st_size, st.st_mtime_ns, st.st_ino))
    if key[1] is None:
        return []
    cached = _checked.get(tuple(key))
    if cached is None:
        try:
            if len(files) == 1:
                cached = _check_midx(algo, files[0])
            else:
                cached = _check_pack(algo, files[0], files[1])
                if key[3] is not None:
                    cached += _check_rev(algo, files[2], files[0])
        except OSError as e:  # none to read (permissions), or gone meanwhile (a repack)
            return [PackDamage(str(e.filename or files[0]),
                               f"it cannot be read ({e.strerror or e})")]
        except (struct.error, IndexError, ValueError):  # an index whose checksum holds but
            # whose tables run past its end (no file git wrote)
            return [PackDamage(str(files[-1] if len(files) == 1 else files[1]),
                               "it is no index git can read (its tables run past its end)")]
        _checked[tuple(key)] = cached
    return cached


_DIGEST_SIZE = {"sha1": 20, "sha256": 32}
"""Bytes of a git object format's digest: a pack's trailer, an index's checksums."""


def _digest(algo: str, data: bytes | memoryview) -> bytes:
    """Return the ``algo`` digest of ``data`` (hashlib releases the GIL while it hashes)."""
    # Lazy: hashlib loads OpenSSL; queries import this module, only verify --at hashes.
    import hashlib

    return hashlib.new(algo, data, usedforsecurity=False).digest()


def _trailer_sound(algo: str, data: bytes | memoryview) -> bool:
    """Return True when ``data`` ends with the ``algo`` digest of every byte before it."""
    size = _DIGEST_SIZE[algo]
    return len(data) > size and _digest(algo, data[:-size]) == bytes(data[-size:])


def _check_midx(algo: str, file: Path) -> list[PackDamage]:
    """Return the damage of a ``multi-pack-index`` whose trailing checksum fails (or none)."""
    data = file.read_bytes()
    if data[:4] == b"MIDX" and _trailer_sound(algo, data):
        return []
    return [PackDamage(str(file), "its checksum does not match its bytes", advice=(
        "remove it (git and libgit2 read the packs without it) or write it again: "
        "`git multi-pack-index write`"))]


def _check_rev(algo: str, rev: Path, pack: Path) -> list[PackDamage]:
    """Return the damage of a ``.rev`` reverse index (its checksum, its pack's), or none."""
    size = _DIGEST_SIZE[algo]
    data = rev.read_bytes()
    with open(pack, "rb") as f:
        f.seek(-size, os.SEEK_END)
        pack_sum = f.read(size)
    if data[:4] == b"RIDX" and _trailer_sound(algo, data) and data[-2 * size:-size] == pack_sum:
        return []
    return [PackDamage(str(rev), "its checksum does not match its bytes or its pack's", advice=(
        "remove it (libgit2 does not read it; git reads the pack without it) or write it "
        f"again: `git index-pack --rev-index {pack}`"))]


def _check_pack(algo: str, pack: Path, idx: Path) -> list[PackDamage]:
    """Return the damage of a pack and its ``.idx``: their checksums, then each CRC-32.

    The pack is mapped, not read: hashing it costs no copy.
    """
    size = _DIGEST_SIZE[algo]
    index = idx.read_bytes()
    with open(pack, "rb") as f:
        length = os.fstat(f.fileno()).st_size
        if length <= 12 + size:
            return [PackDamage(str(pack), "it is cut short", advice=replace_pack(pack, idx))]
        with mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
            view = memoryview(mapped)
            try:
                return _judge(algo, size, pack, idx, view, index)
            finally:
                view.release()


def _judge(algo: str, size: int, pack: Path, idx: Path, view: memoryview, index: bytes
           ) -> list[PackDamage]:
    """:func:`_check_pack` of the mapped pack ``view`` and the ``.idx`` bytes ``index``."""
    pack_sum = bytes(view[-size:])
    pack_sound = _digest(algo, view[:-size]) == pack_sum
    if len(index) < 2 * size or not _trailer_sound(algo, index):
        repair = (f"the pack is sound: write its index again with `git index-pack {pack}`"
                  if pack_sound else replace_pack(pack, idx))
        return [PackDamage(str(idx), "its checksum does not match its bytes", advice=repair)]
    if pack_sound and index[-2 * size:-size] == pack_sum:
        return []
    if pack_sound:
        return [PackDamage(str(idx), "it is the index of another pack (the pack checksum it "
                           "names is not this pack's)",
                           advice=f"write the pack's index again: `git index-pack {pack}`")]
    entries = _index_entries(index, size)
    if entries is None:  # a version 1 index keeps no CRC-32: git verify-pack -v reads all
        return [PackDamage(str(pack), "its checksum does not match its bytes; run `git "
                           "verify-pack -v` on it to list the damaged objects",
                           advice=replace_pack(pack, idx))]
    objects = _damaged_objects(view, size, entries)
    if objects:
        return [PackDamage(str(pack), "its checksum does not match its bytes", objects,
                           replace_pack(pack, idx))]
    where = ("its header" if bytes(view[:4]) != b"PACK" or struct.unpack(
        ">I", view[8:12])[0] != len(entries) else "its trailing checksum")
    return [PackDamage(str(pack), f"its checksum does not match its bytes: {where} is "
                       "damaged (every object's bytes match the index's CRC-32)",
                       advice=replace_pack(pack, idx))]


_Entries = list[tuple[int, bytes, int]]
"""A pack's objects as its ``.idx`` lists them: (offset, id, CRC-32), by offset."""


def _index_entries(index: bytes, size: int) -> _Entries | None:
    """Return the objects a version 2 ``.idx`` lists, by offset; None for a version 1 index.

    gitformat-pack(5), "Version 2 pack-*.idx files": magic, version, 256 fan-out counts,
    the sorted ids, their CRC-32s, their 31-bit offsets (the high bit: an index into the
    table of 64-bit offsets that follows).
    """
    if index[:8] != b"\377tOc\0\0\0\2":
        return None
    count = struct.unpack_from(">I", index, 8 + 255 * 4)[0]
    ids_at = 8 + 256 * 4
    crc_at = ids_at + count * size
    small_at = crc_at + count * 4
    large_at = small_at + count * 4
    crcs = struct.unpack_from(f">{count}I", index, crc_at)
    small = struct.unpack_from(f">{count}I", index, small_at)
    entries = []
    for i in range(count):
        offset = small[i]
        if offset & 0x80000000:
            offset = struct.unpack_from(">Q", index, large_at + 8 * (offset & 0x7FFFFFFF))[0]
        entries.append((offset, index[ids_at + i * size:ids_at + (i + 1) * size], crcs[i]))
    entries.sort()
    return entries


def _damaged_objects(view: memoryview, size: int, entries: _Entries) -> tuple[str, ...]:
    """Return the ids (hex, sorted) of the damaged objects of a pack.

    Those whose packed bytes fail their CRC-32, and the deltas on one (at any depth, in
    this pack). Each object's packed bytes run from its offset to the next object's (the
    last: to the trailing checksum).
    """
    end = len(view) - size
    bad: set[int] = set()
    base_of: dict[int, int] = {}
    at_id = {oid: offset for offset, oid, _ in entries}
    for i, (offset, _, crc) in enumerate(entries):
        stop = entries[i + 1][0] if i + 1 < len(entries) else end
        if not 12 <= offset < stop <= end or zlib.crc32(view[offset:stop]) != crc:
            bad.add(offset)
            continue
        base = _delta_base(view, offset, size, at_id)
        if base is not None:
            base_of[offset] = base
    for offset in base_of:  # a delta on a damaged base (at any depth) cannot be read either
        chain: list[int] = []
        here = offset
        while here in base_of and here not in bad and len(chain) <= len(base_of):
            chain.append(here)
            here = base_of[here]
        if here in bad:
            bad.update(chain)
    return tuple(sorted(oid.hex() for offset, oid, _ in entries if offset in bad))


def _delta_base(view: memoryview, offset: int, size: int, at_id: dict[bytes, int]
                ) -> int | None:
    """Return the offset of the base of the delta at ``offset``, or None.

    None: no delta, or a base in no object of this pack. gitformat-pack(5): a
    type-and-size varint, then for ``OFS_DELTA`` the base's negative offset (git's offset
    encoding), for ``REF_DELTA`` the base's id.
    """
    byte = view[offset]
    kind = (byte >> 4) & 7
    at = offset + 1
    while byte & 0x80:
        byte = view[at]
        at += 1
    if kind == _REF_DELTA:
        return at_id.get(bytes(view[at:at + size]))
    if kind != _OFS_DELTA:
        return None
    byte = view[at]
    distance = byte & 0x7F
    while byte & 0x80:
        at += 1
        byte = view[at]
        distance = ((distance + 1) << 7) | (byte & 0x7F)
    return offset - distance


class _Mapped:
    """The packs of one repository :func:`map_packs` found sound, mapped for :func:`packed_blob`.

    Attributes:
        packs: each pack's mapped bytes and its objects (raw id -> offset), from its ``.idx``.
        loose: the raw ids a loose file held when mapped (read as before: the guard of
            :func:`~kistore.git.blobs.loose_object`, which also finds a damaged loose copy).
    """

    def __init__(self, packs: list[tuple[memoryview, dict[bytes, int]]],
                 loose: frozenset[bytes]) -> None:
        self.packs = packs
        self.loose = loose


_mapped: dict[str, _Mapped] = {}
"""Git directory -> its packs as :func:`map_packs` mapped them (kept, and inherited by the
processes forked after: ``verify``'s workers)."""


def map_packs(repo: pygit2.Repository) -> bool:
    """Map ``repo``'s packs for :func:`packed_blob` when :func:`check_packs` finds none damaged.

    Each pack's ``.idx`` (version 2) is read once into a dict (raw id -> offset) and the
    pack mapped (no copy), in the repository's object directory and its alternates', and
    the loose object files are listed (256 directories each): ``verify --at`` then reads a
    packed blob with one dict look-up, its entry's header and one inflate
    (:func:`packed_blob`), where ``CommitView.read`` spent a ``stat`` of the loose path,
    a look-up of the pack header's size and libgit2's read (~19 us a blob against ~6 us,
    docs/speed.md, ver99). Call it after :func:`check_packs` (which hashed every file):
    its checksums hold for what is mapped. Nothing is mapped for a ``sha256`` repository,
    a version 1 index, or when a pack or index was damaged (then every read is
    libgit2's, as before).

    Args:
        repo: the repository.

    Returns:
        True when the packs are mapped (:func:`packed_blob` answers), else False.
    """
    _mapped.pop(repo.path, None)
    if object_format(repo) != "sha1" or check_packs(repo):  # cached: nothing hashed again
        return False
    packs: list[tuple[memoryview, dict[bytes, int]]] = []
    loose: set[bytes] = set()
    for objects in _object_dirs(repo):
        for shard in range(256):  # the loose files: read through the guard, as before
            directory = f"{objects}/{shard:02x}"
            try:
                names = os.listdir(directory)
            except OSError:
                continue
            for n in names:
                if len(n) == 38:  # 2 + 38 hex digits (a temporary file's name is no id)
                    try:
                        loose.add(bytes.fromhex(f"{shard:02x}{n}"))
                    except ValueError:
                        continue
        pack_dir = Path(objects) / "pack"
        try:
            names = sorted(os.listdir(pack_dir))
        except OSError:
            continue
        for name in names:
            if name.startswith("pack-") and name.endswith(".idx") and \
                    os.path.isfile(pack_dir / f"{name[:-4]}.pack"):
                mapped = _map_pack(pack_dir / f"{name[:-4]}.pack", pack_dir / name)
                if mapped is None:
                    return False  # a version 1 index: libgit2 reads every object
                packs.append(mapped)
    _mapped[repo.path] = _Mapped(packs, frozenset(loose))
    return True


def _map_pack(pack: Path, idx: Path) -> tuple[memoryview, dict[bytes, int]] | None:
    """Return a pack mapped and its objects' offsets by raw id; None for a version 1 index.

    gitformat-pack(5), "Version 2 pack-*.idx files" (as :func:`_index_entries` reads them,
    without the CRC-32s and the sort).
    """
    index = idx.read_bytes()
    if index[:8] != b"\377tOc\0\0\0\2":
        return None
    count = struct.unpack_from(">I", index, 8 + 255 * 4)[0]
    ids_at = 8 + 256 * 4
    small_at = ids_at + count * 24  # past the ids (20 bytes each) and CRC-32s (4 each)
    large_at = small_at + count * 4
    offsets = list(struct.unpack_from(f">{count}I", index, small_at))
    for i, offset in enumerate(offsets):
        if offset & 0x80000000:  # an index into the 64-bit offsets
            offsets[i] = struct.unpack_from(">Q", index, large_at + 8 * (offset & 0x7FFFFFFF))[0]
    ids = [index[at:at + 20] for at in range(ids_at, ids_at + count * 20, 20)]
    with open(pack, "rb") as f:
        mapped = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)  # kept open: read below
    return memoryview(mapped), dict(zip(ids, offsets, strict=True))


def unmap_packs(repo: pygit2.Repository) -> None:
    """Forget :func:`map_packs`' mapping of ``repo`` (a pack cut short later must not be read).

    The maps close once no view of them is left (:func:`packed_blob` keeps none).
    """
    _mapped.pop(repo.path, None)


def in_mapped_pack(repo: pygit2.Repository, raw: bytes) -> bool:
    """Whether object ``raw`` (20 raw bytes) is in a pack :func:`map_packs` mapped, not loose.

    Such an object is here and whole as far as the packs' checksums say (libgit2 and git
    read a packed object before a loose one).
    """
    mapped = _mapped.get(repo.path)
    return mapped is not None and raw not in mapped.loose and any(
        raw in offsets for _, offsets in mapped.packs)


def packed_blob(repo: pygit2.Repository, raw: bytes, limit: int | None) -> bytes | int | None:
    """Return a blob's bytes from a pack :func:`map_packs` mapped, or its size past ``limit``.

    One dict look-up, the entry's type-and-size header (gitformat-pack(5)) and one
    inflate; the bytes are returned only when they are whole: the stream ends, its length
    is the header's, and their git blob id is ``raw`` (libgit2's strict hash check, which
    its read makes too). A blob past ``limit`` is not inflated: its size is returned.

    Args:
        repo: the repository.
        raw: the blob's id (20 raw bytes).
        limit: the most bytes wanted (None: any).

    Returns:
        The bytes, or the size (an int) past ``limit``; None when this cannot answer (no
        packs mapped, a loose file of it, in no mapped pack, a delta or not a blob, bytes
        that do not inflate whole to that id): the caller reads it as before (libgit2,
        behind :func:`~kistore.git.blobs.loose_object`'s guard), which says what is wrong.
    """
    mapped = _mapped.get(repo.path)
    if mapped is None or raw in mapped.loose:
        return None
    for view, offsets in mapped.packs:  # noqa: B007 - the pack found is read below
        offset = offsets.get(raw)
        if offset is not None:
            break
    else:
        return None
    try:
        byte = view[offset]
        kind, size, shift, at = (byte >> 4) & 7, byte & 15, 4, offset + 1
        while byte & 0x80:
            byte = view[at]
            size |= (byte & 0x7F) << shift
            shift += 7
            at += 1
    except IndexError:  # an offset past the pack's end: libgit2 says so
        return None
    if kind != BLOB:
        return None  # a delta (git gc writes them): libgit2 resolves it
    if limit is not None and size > limit:
        return size
    # a deflate stream of n bytes is at most n + n/1024 + 64 bytes long (zlib's bound is
    # lower): the slice holds it, and what follows it (copied as unused data) stays small
    inflate = zlib.decompressobj()
    try:
        data = inflate.decompress(view[at:at + size + (size >> 10) + 64], size + 1)
    except zlib.error:
        return None
    if not inflate.eof or len(data) != size or blob_id(data) != raw:
        return None
    return data


def damaged_reason(damage: PackDamage) -> str:
    """Return why an object of ``damage``'s pack cannot be read (an ObjectUnreadable's reason).

    Args:
        damage: the damaged pack holding the object.

    Returns:
        E.g. "its packed bytes in /r/.git/objects/pack/pack-1f.pack fail the pack
        index's CRC-32, or are a delta on such bytes".
    """
    return (f"its packed bytes in {damage.file} fail the pack index's CRC-32, or are a "
            "delta on such bytes")
