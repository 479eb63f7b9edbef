"""The derived index's one freshness rule: when stat data says a file or directory is unchanged.

The index trusts what the file system says about work-tree files, as git's own index does
(git-update-index(1), "racy git"): a file whose stat data equals what was recorded when
its bytes were read holds the same bytes, and a directory whose mtime is unchanged holds
the same names. Two values decide it, defined here once and used by every part of the
index (the name tables, the work-tree comparison, the per-answer file check) and by the
store's work-tree view, which hands the name tables their keys:

* :func:`stat_key`: a file's ``mtime_ns:ctime_ns:size:inode``;
* :data:`RACY_NS`: stat data this recent is never trusted (:func:`is_racy`).

A directory whose mtime is that recent is trusted only by its listing instead (its names
and inode numbers, each entry's ctime and size: :func:`listing_key`), as git
compares a racily clean entry's content: a write in the same clock tick as the look leaves
the mtime as it was, never the listing (an add, a removal, a rename over a name). The
work-tree comparison (:mod:`._worktree`) and the names (:mod:`.names`) keep such a
directory as ``KEY#LISTING`` (:data:`LISTED`); an add records the directories it wrote so
(:func:`look_before`, :func:`look_after`).
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, TypeVar, cast

from ..core import hashes, layout
from ..git.realdirs import first_not_dir

if TYPE_CHECKING:  # pragma: no cover - typing only: git.writer is of the write path
    from ..git.writer import FileStat

_T = TypeVar("_T")

RACY_NS = 2_000_000_000
"""A file or directory changed less than this long ago (ns, 2 s) is never recorded as clean.

A write in the same clock tick as the look that recorded its mtime leaves the mtime
unchanged (git's "racily clean" entries): whatever stat data this recent says is checked
again next time instead of being trusted."""


def stat_key(st: os.stat_result | FileStat) -> str:
    """Return a file's change key: ``mtime_ns:ctime_ns:size:inode``.

    ``ctime_ns`` is in it because an in-place rewrite that puts the old mtime back
    (``touch -d``) and keeps the size (a name of the same length) still moves the ctime,
    which no user can set.

    Args:
        st: the file's ``os.stat_result`` (``lstat`` for a stored file), or the
            :data:`kistore.git.writer.FileStat` a :class:`kistore.git.writer.FileBatch`
            reports for a file it wrote.

    Returns:
        The key, e.g. ``1764490000123456789:1764490000123456789:412:1837465``.
    """
    if isinstance(st, os.stat_result):  # first: a stat_result is a tuple too (mode, ino...)
        return f"{st.st_mtime_ns}:{st.st_ctime_ns}:{st.st_size}:{st.st_ino}"
    return f"{st[0]}:{st[3]}:{st[1]}:{st[2]}"


def is_racy(changed_ns: int, now_ns: int | None = None) -> bool:
    """Return True when a change at ``changed_ns`` is within :data:`RACY_NS` of ``now_ns``.

    Args:
        changed_ns: an mtime or ctime (ns since the epoch).
        now_ns: the time of the look (default: ``time.time_ns()``).
    """
    now = time.time_ns() if now_ns is None else now_ns
    return now - changed_ns <= RACY_NS


RECENT = ":recent"
"""Appended to the mtime of a work-tree shard key within :data:`RACY_NS` of the look
(:meth:`kistore.store.WorkTreeView.shard_keys`): such a key is never trusted by itself."""

LISTED = "#"
"""Between a directory's key and its :func:`listing_key` in a row kept at a racy mtime."""


def listing(top: str, rel: str) -> dict[str, int] | None:
    """Return a directory's entries, name -> inode number (``d_ino``: no ``stat`` a file).

    Args:
        top: the work tree's root directory.
        rel: the directory, relative to ``top`` (POSIX).

    Returns:
        Every entry's name and inode number; None when the directory cannot be listed.
    """
    try:
        with os.scandir(os.path.join(top, rel)) as entries:
            return {entry.name: entry.inode() for entry in entries}
    except OSError:
        return None


def listing_key(top: str, rel: str, entries: dict[str, int]) -> str:
    """Return the hex BLAKE2b (16 bytes) of a :func:`listing` and each entry's ctime and size.

    Names and inode numbers alone were not enough: a file renamed over twice in one clock
    tick (``sed -i`` twice) frees its first inode and may get it back, so the directory
    listed as before while a name in it changed (an A-B-A the names' property test found
    under load). A file's ``st_ctime_ns`` is set by the kernel when its inode is made or
    changed and cannot be put back, so it breaks the tie; one ``lstat`` an entry, paid only
    for a directory kept at a racy mtime.

    Args:
        top: the work tree's root directory.
        rel: the directory, relative to ``top`` (POSIX).
        entries: its :func:`listing`.

    Returns:
        32 hex digits; an entry gone before its ``lstat`` counts as such.
    """
    parts: list[tuple[str, int, tuple[int, int, int] | None]] = []
    for name, inode in sorted(entries.items()):
        try:
            st = os.lstat(os.path.join(top, rel, name))
        except OSError:
            parts.append((name, inode, None))
            continue
        parts.append((name, inode, (st.st_ino, st.st_ctime_ns, st.st_size)))
    return hashes.blake2b(repr(parts).encode(), digest_size=16).hexdigest()


_looks: dict[tuple[str, str, str], Any] | None = None
"""The directories looked at in the :func:`one_write` block running (None: no block)."""


@contextlib.contextmanager
def one_write() -> Iterator[None]:
    """Within the block, :func:`look_before` and :func:`look_after` look at a directory once.

    For one add: its work-tree rows (:mod:`._worktree`) and its names
    (:mod:`._names_added`) judge the same look at each directory it writes, before and
    after the write, instead of listing each four times (~5-12 ms a listing of a shard of
    3,900 files, 1,000,000 manifests). Outside a block every call looks again.
    """
    global _looks
    outer = _looks
    _looks = {} if outer is None else outer
    try:
        yield
    finally:
        _looks = outer


def _once(when: str, top: str, rel: str, look: Callable[[], _T]) -> _T:
    """Return ``look()``, taken once per directory and ``when`` inside :func:`one_write`."""
    if _looks is None:
        return look()
    key = (when, top, rel)
    if key not in _looks:
        _looks[key] = look()
    return cast(_T, _looks[key])


def look_before(top: str, rel: str) -> tuple[dict[str, int], int] | None:
    """Return a directory's :func:`listing` and then its ``st_mtime_ns``, before a write.

    Listed first: a write between the listing and the ``lstat`` moves the mtime, so a
    caller that finds the mtime it recorded knows the listing is what it recorded.

    Returns:
        ``(listing, mtime_ns)``; None when the directory cannot be listed or stat'ed.
    """
    def look() -> tuple[dict[str, int], int] | None:
        held = listing(top, rel)
        try:
            mtime = os.lstat(os.path.join(top, rel)).st_mtime_ns
        except OSError:
            return None
        return None if held is None else (held, mtime)

    return _once("before", top, rel, look)


def look_after(top: str, rel: str, held: dict[str, int], mine: dict[str, int]
               ) -> tuple[int, str | None] | None:
    """Return a directory's mtime after a write, when it lists as ``held`` plus ``mine``.

    The mtime is taken first, then the directory listed: the listing must be ``held`` (the
    :func:`look_before` of the writer) with exactly the writer's files ``mine`` added or
    renamed over, each with the inode its write reported, and every other name on the
    inode it had. A file another writer added, removed or renamed over meanwhile fails it.

    Args:
        top: the work tree's root directory.
        rel: the directory, relative to ``top``.
        held: its listing before the write.
        mine: name -> inode number of each file the writer put there.

    Returns:
        ``(mtime_ns, None)``, or ``(mtime_ns, listing key)`` when the mtime is within
        :data:`RACY_NS` of the look (trust it only while it lists the same); None when the
        listing is not the writer's alone, or the directory cannot be read.
    """
    def look() -> tuple[int, int, dict[str, int] | None] | None:
        now = time.time_ns()
        try:
            mtime = os.lstat(os.path.join(top, rel)).st_mtime_ns
        except OSError:
            return None
        return now, mtime, listing(top, rel)  # listed after its mtime was taken

    seen = _once("after", top, rel, look)
    if seen is None:
        return None
    now, mtime, after = seen
    if after is None or after.keys() != held.keys() | mine.keys() or any(
            inode != (mine[name] if name in mine else held[name])
            for name, inode in after.items()):
        return None
    return mtime, listing_key(top, rel, after) if is_racy(mtime, now) else None


ShardDirs = tuple[int, list[tuple[str, bool, int]]]
"""What :func:`shard_dirs` returns: ``(now_ns, [(rel, is_dir, mtime_ns), ...])``."""

_scans: dict[str, ShardDirs] | None = None
"""The work trees' shard listings of the :func:`one_scan` block running (None: no block)."""


@contextlib.contextmanager
def one_scan() -> Iterator[None]:
    """Within the block, :func:`shard_dirs` lists and stats a work tree's shards once.

    For one answer that writes nothing under ``store/`` (``show``, ``rank``): the names'
    keys and the work-tree comparison then judge the same look at the 512 directories,
    taken once, instead of two looks a few milliseconds apart. Each judges it as of the
    time it was taken (its ``now_ns``). Outside a block every call looks again.
    """
    global _scans
    outer = _scans
    _scans = {} if outer is None else outer
    try:
        yield
    finally:
        _scans = outer


def shard_dirs(top: str) -> ShardDirs:
    """Return every shard-named entry of the work tree's object and metadata bases.

    Args:
        top: the work tree's root directory.

    Returns:
        ``(now_ns, entries)``: ``time.time_ns()`` taken before the look, then one
        ``(rel, is_dir, mtime_ns)`` per entry named as a shard (:func:`kistore.core.layout.
        is_shard_name`): ``rel`` is ``store/objects/sha256/XX`` or ``store/metadata/sha256/
        XX``; ``is_dir`` whether it is a directory itself (not a symlink to one); the mtime
        of the entry itself (``lstat``: a symlink's own, never its target's). A base with a
        symbolic link (or anything but a directory) on its way (``store/metadata`` linked
        elsewhere) is not listed: it holds nothing of the store, as the store's reads
        treat it (:meth:`kistore.store.WorkTreeView.linked_dir`, ``verify``'s KI111). An
        entry gone between the listing and its stat is left out, as a missing base is.
        Inside :func:`one_scan`, the first look's answer for ``top``.
    """
    if _scans is not None and top in _scans:
        return _scans[top]
    now = time.time_ns()
    entries = []
    for base in (layout.OBJECTS_DIR, layout.METADATA_DIR):
        if first_not_dir(top, base) is not None:  # a link or file on the way, or absent
            continue
        try:
            with os.scandir(os.path.join(top, base)) as listing:
                for entry in listing:
                    name = entry.name
                    if not layout.is_shard_name(name):
                        continue
                    try:
                        mtime = entry.stat(follow_symlinks=False).st_mtime_ns
                    except (FileNotFoundError, NotADirectoryError):
                        continue
                    entries.append((f"{base}/{name}", entry.is_dir(follow_symlinks=False),
                                    mtime))
        except (FileNotFoundError, NotADirectoryError):
            continue
    found = (now, entries)
    if _scans is not None:
        _scans[top] = found
    return found


