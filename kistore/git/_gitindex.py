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

import contextlib
import os
import shutil
import struct
import time
from collections.abc import Collection, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .locks import lock_file
from .pack import blob_id
from .writer import FileStat, file_stat

if TYPE_CHECKING:  # pragma: no cover - typing only
    import pygit2

_REGULAR_FILE = 0o100644
_U32 = 0xFFFFFFFF


class IndexUpdate:
    """One change of git's index under git's own lock, made as git commands make it.

    A context manager. Entering creates ``index.lock`` beside ``index_file``
    (``.git/index``) with ``O_EXCL`` -- while it exists no git command reads-modifies-writes
    the index -- and reads the index into :attr:`index`, to change in memory. :meth:`write`
    writes the changed index to the lock file: the new index, not yet in place. Leaving the
    block without an error writes it (if not done yet) and renames the lock file onto
    ``index_file``, which also releases the lock; leaving it with an error removes the
    lock and the scratch file, and ``index_file`` is unchanged. git's lock-file protocol:
    a concurrent ``git add`` or ``git commit`` waits or fails, and neither side's update is
    lost.

    Between :meth:`write` and the end of the block the lock is still held, so a step that
    must go with the index change happens while no git command can see or change the
    index: ``git commit`` moves the branch there, and so does :mod:`kistore.git.commit`.
    :meth:`finish` puts the index in place before the block ends, for a caller that holds
    the lock over more than the change (leaving the block then only closes).

    After entering, :attr:`version` is the index file's version (2, 3 or 4; 0 when there
    was no file), as its header says.

    Args:
        index_file: the index (``.git/index``; it may not exist yet).
        wait_s: how long a lock held by another command is waited for, in seconds (git
            holds it for milliseconds; one left by a crash stays).

    Raises:
        FileExistsError: on entering, ``index.lock`` was still held after ``wait_s``.
        OSError, pygit2.GitError: the index could not be read or written (an extension
            libgit2 cannot write: a split index, a sparse index).
    """

    def __init__(self, index_file: Path, wait_s: float = 5.0) -> None:
        self.index_file = index_file
        self.lock = lock_file(index_file)
        self.scratch = index_file.with_name("kistore-index.new")
        self.wait_s = wait_s
        self.index: pygit2.Index
        self.version = 0
        self._fd = -1
        self._written = False
        self._finished = False

    def __enter__(self) -> IndexUpdate:

        self._fd = _take(self.lock, self.wait_s)
        try:
            self.scratch.unlink(missing_ok=True)
            if self.index_file.exists():
                try:  # libgit2 writes a new file and renames it: a link is never written
                    os.link(self.index_file, self.scratch)  # through
                except OSError:  # no hard links here: copy (20 MB at 100,000 manifests)
                    shutil.copyfile(self.index_file, self.scratch)
            self.index = open_index(self.scratch)
            self.version = _version(self.scratch)
        except BaseException:
            self._abandon()
            raise
        return self

    def write(self) -> None:
        """Write the changed index to the lock file (still held; not yet in place).

        Raises:
            OSError, pygit2.GitError: it could not be written (disk full, an extension
                libgit2 cannot write); the caller's block then ends with the index unchanged.
        """
        self.index.write()
        os.replace(self.scratch, self.lock)  # the new index is the lock file, as git writes it
        self._written = True

    def finish(self) -> None:
        """Write the index if not done yet and rename the lock file onto it: in place, unlocked.

        Raises:
            OSError, pygit2.GitError: as :meth:`write`; the lock is then given up and the
                index is as it was.
        """
        try:
            if not self._written:
                self.write()
            os.replace(self.lock, self.index_file)
        except BaseException:
            self._abandon()
            raise
        self._finished = True
        self._close()

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: Any) -> None:
        if self._finished:
            return
        if kind is not None:
            self._abandon()
            return
        self.finish()

    def _abandon(self) -> None:
        """Remove the scratch file and the lock (ours): the index stays as it was."""
        self.scratch.unlink(missing_ok=True)
        self.lock.unlink(missing_ok=True)
        self._close()

    def _close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1


def _version(path: Path) -> int:
    """Return the version of the index file at ``path`` (its header's; 0: no file yet)."""
    try:
        with open(path, "rb") as f:
            header = f.read(8)
    except FileNotFoundError:
        return 0
    return int.from_bytes(header[4:8], "big") if header[:4] == b"DIRC" else 0


def _take(lock: Path, wait_s: float) -> int:
    """Create ``lock`` exclusively, retrying while another process holds it; return its fd."""
    deadline = time.monotonic() + wait_s
    pause = 0.001
    while True:
        try:
            return os.open(lock, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        except FileExistsError:
            if time.monotonic() >= deadline:
                raise
            time.sleep(pause)
            pause = min(pause * 2, 0.05)


def open_index(path: Path) -> pygit2.Index:
    """Open an index file; one libgit2 cannot read raises without a finaliser's noise.

    (pygit2's ``Index.__del__`` fails on an object whose ``__init__`` raised: it had no
    ``_index`` yet. Freeing NULL is a no-op in libgit2.)
    """
    # Lazy: pygit2 loads only when a command touches git (`kistore --help` must not).
    import pygit2

    index = pygit2.Index.__new__(pygit2.Index)
    with contextlib.suppress(ImportError):
        # Lazy: pygit2 loads only when a command touches git (`kistore --help` must not).
        from pygit2.ffi import ffi

        index._index = ffi.NULL
    pygit2.Index.__init__(index, str(path))
    return index


BULK_STAGE = 100_000
"""Staging this many paths or more into an index of :data:`BULK_INDEX` entries or more, in
step with the parent commit, first reads the new commit's tree into it
(:func:`_read_new_tree`) instead of inserting each path: libgit2 inserts an entry at its
sorted place by moving every entry after it, so N paths staged into an index of M entries
move O(N x M) pointers (measured: 100,000 into 1,000,000 entries, 16.6 s of CPU; a chunk
of 100,000 manifests into a store of 900,000 moves ~400,000 x 3,300,000). Reading the tree
costs O(M + N) once, but a few us to ~40 us an entry (a store's trees are loose objects,
read twice): 120,000 paths into 240,000 entries cost ~6 s more read than inserted. With
fewer paths, or into a smaller index (a first bulk add into an empty store appends at the
end: nothing moves), inserting is cheaper."""

BULK_INDEX = 1_000_000
"""The index size (entries; ~300,000 manifests) from which :data:`BULK_STAGE` paths are
staged by reading the new tree: where a move costs ~0.5 ns an entry (cache misses), past
what reading an entry of the tree costs over 100,000 insertions."""

INDEX_VERSION_PLAIN = 2
"""An index file of this version has no entry with extended flags (``skip-worktree``,
``intent-to-add``; git writes version 3 when one has them): reading a tree into it loses
nothing but what the tree replaces."""


def stage(index: pygit2.Index, blobs: Mapping[str, pygit2.Oid],
          stats: Mapping[str, FileStat], root: str | os.PathLike[str], *,
          trees: tuple[pygit2.Tree, pygit2.Tree] | None = None,
          skip: Collection[str] = ()) -> None:
    """Add ``blobs`` to ``index`` (in memory; the caller writes it), in path order.

    Args:
        index: the index, read under git's lock (:class:`IndexUpdate`).
        blobs: work-tree path (``/``-separated, relative) -> committed blob id.
        stats: path -> the :data:`kistore.git.writer.FileStat` of the file written with
            exactly that blob's bytes. A path without one is read from its file under
            ``root``: stat data when the file holds the committed bytes, else the
            committed blob without stat data, so ``git status`` shows the edit.
        root: the work tree.
        trees: ``(parent commit's tree, new commit's tree)``, the new one holding exactly
            the parent's entries and ``blobs``; given only for an index file of version
            :data:`INDEX_VERSION_PLAIN` (:attr:`IndexUpdate.version`). With
            :data:`BULK_STAGE` paths or more, into an index of :data:`BULK_INDEX` entries
            or more holding exactly the parent's tree, the new tree is read into it first
            (:func:`_read_new_tree`): the same entries, stat data and all, in O(index)
            instead of O(paths x index).
        skip: paths of ``blobs`` staged with git's *skip-worktree* bit and no stat data:
            files outside a sparse checkout, written to git only (no work-tree file; git
            neither reads nor writes one there until the checkout takes the path in). Only
            where :func:`skip_settable` is True: the bit needs the entry's C struct.

    A file edited after it was written no longer matches its recorded stat data, so git
    hashes it and reports the edit as unstaged. Paths are added in sorted order: libgit2
    inserts each entry at its sorted place, moving every entry after it. To take it
    back, leave the :class:`IndexUpdate` block with an error: the index file is unchanged.

    Raises:
        pygit2.GitError: libgit2 refused an entry.
        ValueError: ``skip`` is not empty where :func:`skip_settable` is False.
    """
    add_entry = _entry_adder(index)
    if skip and add_entry is None:
        raise ValueError("the skip-worktree bit cannot be set with this pygit2")
    if (trees is not None and add_entry is not None and len(blobs) >= BULK_STAGE
            and len(index) >= BULK_INDEX):
        _read_new_tree(index, *trees)
    for path in sorted(blobs):
        oid, st = blobs[path], stats.get(path)
        if path in skip:
            add_entry(path, oid, _NO_STAT, skip=True)
            continue
        if st is None:
            st = _stat_if_holding(os.path.join(root, path), oid.raw)
        if st is not None and add_entry is not None:
            add_entry(path, oid, st)
        else:
            # Lazy: pygit2 loads only when a command touches git (`kistore --help` must not).
            import pygit2

            index.add(pygit2.IndexEntry(path, oid, pygit2.enums.FileMode.BLOB))


def _read_new_tree(index: pygit2.Index, parent: pygit2.Tree, tree: pygit2.Tree) -> None:
    """Read ``tree`` into ``index`` when the index holds exactly ``parent``.

    libgit2's ``git_index_read_tree`` keeps an entry's stat data when the tree holds its
    path with the same mode and blob id, so every entry of ``parent`` keeps its own; the
    new paths come without stat data, which :func:`stage` then sets by adding each again
    (in place: no entry moves). When the index differs from ``parent`` in any entry (a
    change staged by hand, a conflict), nothing is done: reading the tree would drop it.
    """
    if len(parent.diff_to_index(index)) == 0:
        index.read_tree(tree)


def _stat_if_holding(path: str, oid: bytes) -> FileStat | None:
    """Return the file's stat data when it holds the blob ``oid`` (20 raw bytes), else None."""
    try:
        with open(path, "rb") as f:
            st = os.fstat(f.fileno())
            data = f.read()
    except OSError:
        return None
    return file_stat(st) if blob_id(data) == oid else None


_ENTRY_HEAD = struct.Struct("=iIiIIIIIII20s")
"""``git_index_entry`` up to its flags: ctime and mtime (int32 seconds, uint32 nanoseconds),
dev, ino, mode, uid, gid, file_size (uint32 each), the 20-byte id (libgit2's git_index.h)."""
_ENTRY_OFFSETS = {"ctime": 0, "mtime": 8, "dev": 16, "ino": 20, "mode": 24, "uid": 28,
                  "gid": 32, "file_size": 36, "id": 40, "flags": 60, "flags_extended": 62}
_INT32 = 1 << 31
_NS = 1_000_000_000


_NO_STAT: FileStat = (0, 0, 0, 0, 0, 0, 0)
"""The stat data of an entry with no work-tree file (skip-worktree: git never compares it)."""

_SKIP_WORKTREE = 1 << 14
"""``GIT_INDEX_ENTRY_SKIP_WORKTREE`` of ``git_index_entry.flags_extended`` (libgit2's
git_index.h; git's ``CE_SKIP_WORKTREE`` >> 16, as the index file stores it). libgit2
writes an index of version 3 when an entry has it."""


def skip_settable() -> bool:
    """Return True when :func:`stage` can set the skip-worktree bit (its ``skip``).

    pygit2 exposes its cffi binding and lays ``git_index_entry`` out as :data:`_ENTRY_HEAD`
    says (not a SHA-256 build).
    """
    try:
        # Lazy: pygit2 loads only when a command touches git (`kistore --help` must not).
        from pygit2.ffi import ffi

        return all(ffi.offsetof("git_index_entry", name) == at
                   for name, at in _ENTRY_OFFSETS.items())
    except (ImportError, AttributeError, TypeError):  # pragma: no cover - another pygit2
        return False


def _entry_adder(index: pygit2.Index) -> Any:
    """Return ``add(path, oid, stat, skip=False)`` calling ``git_index_add`` directly, or None.

    Each entry's fixed fields are packed into its C struct in one copy (:data:`_ENTRY_HEAD`)
    rather than set one cffi attribute at a time (about half the Python of a bulk add's
    78,984 entries). None when this pygit2 does not expose its cffi binding, or lays the
    entry out otherwise (a SHA-256 build): the caller then stages entries without stat
    data, which git fills in at its next ``git status`` (slower, same content).
    """
    try:
        # Lazy: pygit2 loads only when a command touches git (`kistore --help` must not).
        from pygit2.ffi import C, ffi

        c_index = index._index
        entry = ffi.new("git_index_entry *")
        head = ffi.buffer(entry, _ENTRY_HEAD.size)
    except (ImportError, AttributeError, TypeError):  # pragma: no cover - another pygit2
        return None
    if not skip_settable():  # pragma: no cover - another libgit2 build
        return None
    # Lazy: pygit2 loads only when a command touches git (`kistore --help` must not).
    from pygit2.errors import check_error

    add_entry, new, pack_head = C.git_index_add, ffi.new, _ENTRY_HEAD.pack_into

    def add(path: str, oid: pygit2.Oid, st: FileStat, skip: bool = False) -> None:
        mtime_ns, size, ino, ctime_ns, dev, uid, gid = st
        c_seconds, c_ns = divmod(ctime_ns, _NS)
        if not 0 <= c_seconds < _INT32:  # past 2038 or before 1970: as git truncates
            c_seconds, c_ns = _index_time(ctime_ns)
        m_seconds, m_ns = divmod(mtime_ns, _NS)
        if not 0 <= m_seconds < _INT32:
            m_seconds, m_ns = _index_time(mtime_ns)
        pack_head(head, 0, c_seconds, c_ns, m_seconds, m_ns, dev & _U32, ino & _U32,
                  _REGULAR_FILE, uid & _U32, gid & _U32, size & _U32, oid.raw)
        entry.flags_extended = _SKIP_WORKTREE if skip else 0
        c_path = new("char[]", path.encode("utf-8", "surrogateescape"))  # os.fsencode's
        entry.path = c_path  # libgit2 copies the entry, path included
        check_error(add_entry(c_index, entry))

    return add


def _index_time(ns: int) -> tuple[int, int]:
    """Split a time in ns into the index's (int32 seconds, nanoseconds), as git truncates."""
    seconds, nanoseconds = divmod(ns, 1_000_000_000)
    seconds &= _U32
    return (seconds - (1 << 32) if seconds >= 1 << 31 else seconds), nanoseconds
