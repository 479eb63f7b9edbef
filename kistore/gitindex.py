"""Staging committed files in git's index (``.git/index``) with their stat data.

After ``add --commit`` the index must hold each written path with its blob id *and* the
stat data of its work-tree file (times, device, inode, size); an entry without stat data
makes every later ``git status`` (and ``kistore verify``) read and hash that file again.

libgit2's ``git_index_add_bypath`` gets both by reading, filtering and hashing the file
once more, opening a loose-object stream even for a blob already packed: about 130 us a
file here, 5 s of a 20,000-manifest add. The writer already holds both (the blob id it
packed, the stat it took of the file it wrote), so :func:`stage` builds each entry from them
and adds it with ``git_index_add`` through pygit2's cffi binding: about 14 us a file. The
entry layout is git's (``Documentation/gitformat-index.txt``: 32-bit seconds, nanoseconds,
device, inode, uid, gid and size, as git itself truncates them).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .writer import FileStat

if TYPE_CHECKING:  # pragma: no cover - typing only
    import pygit2

_REGULAR_FILE = 0o100644
_U32 = 0xFFFFFFFF


def stage(index: pygit2.Index, blobs: Mapping[str, pygit2.Oid],
          stats: Mapping[str, FileStat]) -> dict[str, Any]:
    """Add ``blobs`` to ``index`` (in memory; the caller writes it), in path order.

    Args:
        index: the repository's index, read under the caller's lock.
        blobs: work-tree path (``/``-separated, relative) -> committed blob id.
        stats: path -> the :data:`kistore.writer.FileStat` of the file written with
            exactly that blob's bytes. A path without one is added from its file (read
            and hashed by libgit2); if that file no longer holds the committed bytes
            (edited meanwhile), the entry is the committed blob without stat data, so
            ``git status`` shows the edit.

    A file edited after it was written no longer matches its recorded stat data, so git
    hashes it and reports the edit as unstaged. Paths are added in sorted order: libgit2
    inserts each entry at its sorted place, moving every entry after it.

    Returns:
        What :func:`unstage` needs to take it back: path -> the entry it replaced (an
        ``IndexEntry``), or None where the path was not staged before.

    Raises:
        pygit2.GitError: libgit2 refused an entry.
    """
    add_entry = _entry_adder(index)
    previous: dict[str, Any] = {}
    for path in sorted(blobs):
        previous[path] = index[path] if path in index else None
        oid, st = blobs[path], stats.get(path)
        if st is not None and add_entry is not None:
            add_entry(path, oid, st)
            continue
        index.add(path)
        if index[path].id != oid:
            import pygit2

            index.add(pygit2.IndexEntry(path, oid, pygit2.enums.FileMode.BLOB))
    return previous


def unstage(index: pygit2.Index, previous: Mapping[str, Any]) -> None:
    """Take back what :func:`stage` did (in memory; the caller writes the index).

    Args:
        index: the repository's index, read under the caller's lock.
        previous: what :func:`stage` returned. A replaced entry comes back without its
            stat data (git hashes that file once to know it unchanged).
    """
    for path, entry in previous.items():
        if entry is None:
            if path in index:
                index.remove(path)
        else:
            index.add(entry)


def _entry_adder(index: pygit2.Index) -> Any:
    """Return ``add(path, oid, stat)`` calling ``git_index_add`` directly, or None.

    None when this pygit2 does not expose its cffi binding as expected (the caller then
    adds each file by path: slower, same result).
    """
    try:
        from pygit2.ffi import C, ffi

        c_index = index._index
        entry = ffi.new("git_index_entry *")
        id_buffer = ffi.buffer(ffi.addressof(entry, "id"))
    except (ImportError, AttributeError, TypeError):  # pragma: no cover - another pygit2
        return None
    from pygit2.errors import check_error

    def add(path: str, oid: pygit2.Oid, st: FileStat) -> None:
        mtime_ns, size, ino, ctime_ns, dev, uid, gid = st
        entry.ctime.seconds, entry.ctime.nanoseconds = _index_time(ctime_ns)
        entry.mtime.seconds, entry.mtime.nanoseconds = _index_time(mtime_ns)
        entry.dev, entry.ino = dev & _U32, ino & _U32
        entry.uid, entry.gid = uid & _U32, gid & _U32
        entry.mode, entry.file_size = _REGULAR_FILE, size & _U32
        id_buffer[:] = oid.raw
        c_path = ffi.new("char[]", os.fsencode(path))
        entry.path = c_path  # libgit2 copies the entry, path included
        check_error(C.git_index_add(c_index, entry))

    return add


def _index_time(ns: int) -> tuple[int, int]:
    """Split a time in ns into the index's (int32 seconds, nanoseconds), as git truncates."""
    seconds, nanoseconds = divmod(ns, 1_000_000_000)
    seconds &= _U32
    return (seconds - (1 << 32) if seconds >= 1 << 31 else seconds), nanoseconds
