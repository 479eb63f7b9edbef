"""The names' shard keys an add leaves in step: the first query after it lists no shard it wrote.

After an add, every shard directory it wrote has a new mtime, within
:data:`.freshness.RACY_NS` of the write; a query's :meth:`.names.NameIndex.sync` found each
such key changed and listed the shard again, stating every file it holds (~7,800 ``stat``
calls for one manifest at 1,000,000; in a fresh copy 2.03 s of a 2.49 s ``rank``: issue 22).
The add knows every file it wrote, so a shard directory whose names were in step before
its write is in step after it, as of its new mtime, unless another writer changed it
meanwhile. As :mod:`._worktree` does for its own rows (:func:`._worktree.record_added`),
the directory is listed (names and inode numbers: one ``getdents`` pass) before the write
and after it (:func:`.freshness.look_before`, :func:`.freshness.look_after`) to rule that
out, and a key taken within the racy window is kept with its listing (``MTIME#LISTING``):
the names trust it only while the directory lists the same.

A directory whose row was not in step before the write, or whose listing after it is not
the listing before plus the add's files, loses its row: the next sync lists it (correctness
first).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path

from ..core import layout
from ..git.realdirs import ABSENT, first_not_dir
from .freshness import LISTED, listing_key, look_after, look_before
from .names import NameIndex

SCOPE = "work"
"""The names' scope an add writes (the work tree's)."""


def _rel(shard_dir: str) -> str:
    """Return a names shard directory (``objects/XX``) as a repository path."""
    top, _, shard = shard_dir.partition("/")
    return f"{layout.STORE_DIR}/{top}/sha256/{shard}"


def shard_dir_of(path: str) -> str | None:
    """Return the names' shard directory (``objects/XX``) of a manifest file's path.

    Args:
        path: a repository path, e.g. ``store/metadata/sha256/ab/<62 hex>.json``.

    Returns:
        ``objects/ab`` or ``metadata/ab``; None for a path that is no manifest file.
    """
    if layout.digest_from_path(path) is None:
        return None
    return shard_dir_at(path.rpartition("/")[0])


def shard_dir_at(directory: str) -> str:
    """Return the names' shard directory (``objects/XX``) of a manifest directory's path.

    The inverse of :func:`_rel`, for a directory already known to hold manifest files
    (as :func:`shard_dir_of` finds one, or an add's ``_manifest_dirs``).

    Args:
        directory: ``store/objects/sha256/ab`` or ``store/metadata/sha256/ab``.

    Returns:
        ``objects/ab`` or ``metadata/ab``. Raises nothing (not checked: see
        :func:`shard_dir_of`).
    """
    parts = directory.split("/")
    return f"{parts[-3]}/{parts[-1]}"


def names_before_add(index: NameIndex, root: Path, shard_dirs: Iterable[str]
                     ) -> dict[str, dict[str, int]]:
    """Return the shard directories an add is about to write whose name rows are in step.

    Under the add's write lock, after its names were synced and before its first write. A
    directory is in step when its sealed ``name_shards`` row holds the key of the
    directory as it is now: the mtime ``lstat`` gives after listing it (a row a sync
    recorded past the racy window), or that mtime with the directory's listing (a row kept
    by its listing). A directory absent from the work tree with no row is in step too (the
    add creates it), whether or not the directories above it are there.

    Args:
        index: the names of the store's index.
        root: the work tree.
        shard_dirs: the directories the add writes into (``objects/XX``, ``metadata/XX``).

    Returns:
        ``{shard dir: its listing before the write}`` (name -> inode number) of those in
        step.

    Raises:
        sqlite3.Error: the index cannot be read (derived data: the caller goes on).
    """
    wanted = set(shard_dirs)
    known = index.shard_rows(SCOPE, wanted)
    top = os.fspath(root)
    found: dict[str, dict[str, int]] = {}
    for shard_dir in sorted(wanted):
        rel, key = _rel(shard_dir), known.get(shard_dir)
        not_dir = first_not_dir(top, rel)
        if not_dir is not None:
            # new: no manifest to be in step with; it or a directory above it is absent
            # (`git stash -u` of an add removes store/objects too: fresh15 F6)
            if not_dir[1] == ABSENT and key is None:
                found[shard_dir] = {}
            continue
        look = look_before(top, rel)
        if look is None or key is None:
            continue
        held, mtime = look
        if _holds(top, rel, key, mtime, held):
            found[shard_dir] = held
    return found


def _holds(top: str, rel: str, key: str, mtime: int, held: dict[str, int]) -> bool:
    """Return True when a names row's ``key`` answers for directory ``rel`` as it is now.

    A plain key answers by the mtime alone. A key kept at a racy mtime (``MTIME#LISTING``)
    answers while the directory lists the same; its :func:`.freshness.listing_key` (one
    ``lstat`` an entry: 781 a shard at 200,000 manifests, 3,900 at 1,000,000) is taken
    only for such a key of this mtime, never for a plain one (issue 22: taken for every
    shard an add wrote, it was 12.4 of 39 s of CPU of adding 2,000 runs to 200,000).

    Args:
        top: the work tree's root directory.
        rel: the directory, relative to ``top``.
        key: the directory's sealed ``name_shards`` row.
        mtime: its ``st_mtime_ns`` now, taken after ``held`` was listed.
        held: its :func:`.freshness.listing` now.
    """
    if key == str(mtime):
        return True
    racy = f"{mtime}{LISTED}"
    return key.startswith(racy) and key == racy + listing_key(top, rel, held)


def keys_after_add(root: Path, before: Mapping[str, dict[str, int]],
                   written: Mapping[str, int]) -> tuple[dict[str, str], set[str]]:
    """Return the name keys of the shard directories an add wrote, as of after its write.

    Args:
        root: the work tree.
        before: :func:`names_before_add` of the add.
        written: repository path of each manifest file the add wrote -> the inode number
            its write reported.

    Returns:
        ``(keys, stale)``: the key of each directory in step after the write (its mtime,
        or ``MTIME#LISTING`` within the racy window), and the directories written whose
        rows must go (not in step before, or another writer's change shows in the listing).
    """
    top = os.fspath(root)
    mine: dict[str, dict[str, int]] = {}
    for path, inode in written.items():
        shard_dir = shard_dir_of(path)
        if shard_dir is not None:
            mine.setdefault(shard_dir, {})[path.rpartition("/")[2]] = inode
    keys: dict[str, str] = {}
    for shard_dir, files in mine.items():
        held, rel = before.get(shard_dir), _rel(shard_dir)
        if held is None or first_not_dir(top, rel) is not None:
            continue
        look = look_after(top, rel, held, files)
        if look is not None:
            mtime, racy = look
            keys[shard_dir] = str(mtime) if racy is None else f"{mtime}{LISTED}{racy}"
    return keys, set(mine) - set(keys)
