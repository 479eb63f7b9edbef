"""Which manifests the work tree holds that differ from ``HEAD``, found quickly.

``git status`` stats every file: at 100,000 runs (200,000 files) that alone costs about a
second. Manifest files are only ever added, replaced or removed by renames (kistore writes
a temporary file and renames it into place), and each of those changes the mtime of the
shard directory (``store/objects/sha256/XX``). So each shard directory is compared with
``HEAD``'s tree once, and the result cached in the index (table ``worktree``) under the
directory's mtime and the git tree id of that shard in ``HEAD``; it is compared again only
when either changes (a commit that adds to other shards leaves this one cached).

A directory modified within :data:`.freshness.RACY_NS` is never cached (as git treats a
"racily clean" index entry): a change in the same clock tick could hide behind an unchanged
mtime. A file edited in place by hand does not change its directory's mtime: every record
a query answers is checked against its files' stat data by :mod:`._fresh` instead.

A directory is compared by file names alone: a name in one of the work tree and ``HEAD``
but not the other is a manifest added or removed. A file replaced under its own name (a
metadata file renamed over, or edited in place) is not looked for here: every record a
query answers is checked against its files' stat data by :mod:`._fresh`, which finds both.
Hashing every file of a changed directory instead cost ~0.6 s after each one-manifest add
at 1,000,000 manifests (~3,900 files a shard), and stating each ~0.25 s.

``kistore add`` keeps the rows of the directories it writes into (:func:`dirs_before_add`,
:func:`record_added`): it knows every file it put there, so a directory in step before
the add is in step after it, as of its new mtime, unless another writer changed it in
between; the directory is listed (names and inode numbers: one ``getdents`` pass, no
``stat`` a file) before and after the write to rule that out. Without it, the first query
after an ``add --commit`` of 10,000 at 1,000,000 manifests stated every file of every
shard it touched (~2,000,000 ``lstat`` calls, 67 s; issue 22).

When nothing moved, the 512 directories' rows are not read either: one row
(:data:`SUMMARY`) keeps the answer of the last whole pass under the BLAKE2b of ``HEAD``'s
tree id and every work-tree shard directory's name and mtime (its ``tree`` column), the
pass's answer in its ``changed`` column. A query whose own stat of the directories gives the
same key answers from it: the same conjunction of per-directory facts the rows hold, read
as one sealed row instead of 512 (~5 ms of each fresh ``rank`` or ``show``, docs/speed.md,
"Start-up, second pass"). Any directory within the racy window, and any row that does not
match its seal, means the whole pass runs as before.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..core import hashes, layout
from ..core.digest import Digest, is_digest
from ..core.limits import CEILING
from ..git.ids import blob_id
from ..git.realdirs import ABSENT, first_not_dir
from ..git.sparse import SkipWorktree
from ..git.treediff import subtree, subtree_id
from ._database import seal
from ._transaction import transaction
from .freshness import (
    LISTED,
    is_racy,
    listing,
    listing_key,
    look_after,
    look_before,
    shard_dirs,
)

if TYPE_CHECKING:  # pragma: no cover - typing only
    import pygit2

    from .warm import HeadTree

TABLE = "worktree"
"""The table of :data:`kistore.index._database.TABLES` this module fills: one row per clean
shard directory: its mtime, its git tree id in ``HEAD`` ("" when ``HEAD`` lacks it) and
the digests that differ (JSON list)."""

SUMMARY = "*"
"""The ``dir`` of the row that answers for every directory at once (no shard is named so)."""


def _listed(changed: object) -> set[Digest] | None:
    """Return the digests a row's ``changed`` column lists; None when it does not parse.

    A sealed row of another form (resealed by hand, or written by another kistore) is a
    stale row: None makes the caller compare the directories again and write it anew.
    """
    if changed == "[]":
        return set()  # the common case: a clean directory
    try:
        items = json.loads(changed) if isinstance(changed, str) else None
    except ValueError:
        return None
    if not isinstance(items, list) or not all(is_digest(d) for d in items):
        return None
    return {Digest.from_str(d) for d in items}


def changed_digests(root: Path, head: HeadTree, conn: sqlite3.Connection,
                    skipped: SkipWorktree | None = None,
                    stale: Callable[[list[str]], set[str]] | None = None) -> set[Digest]:
    """Return the digests whose object or metadata file differs between work tree and ``head``.

    Args:
        root: the work tree's root directory.
        head: ``HEAD``'s tree as a :class:`kistore.query.warm.HeadTree` (its shard tree ids
            come from the index; a shard's files are listed through pygit2 only when the
            directory is not cached).
        conn: the index connection, whose ``worktree`` table caches clean directories.
        skipped: in a sparse checkout, the paths outside it (:mod:`kistore.git.sparse`): a
            ``HEAD`` file absent from the work tree there is ``HEAD``'s, not removed, and a
            whole shard outside it is not listed at all. A shard's row is then keyed by
            which of its files are skipped too, and one absent from the work tree is kept
            (as ``mtime_ns`` -1).
        stale: ``stale(digest strings)``: those whose files no longer hold ``HEAD``'s
            blobs (:meth:`kistore.index._fresh.FileCheck.stale`: stat data, a hash only
            when it changed). Asked of the files a shard directory keeps under ``HEAD``'s
            names, only when that directory's mtime changed since it was last listed: a
            file replaced under its own name by a rename (``sed -i``, an editor's save, a
            ``git checkout``) changes its directory's mtime, so ``ls`` finds it and names it
            damaged without a ``stat`` per file of the store (review r75 F12). None: names
            only.

    Returns:
        Digests with a file added or removed under ``store/objects`` or ``store/metadata``
        relative to ``head``, and with ``stale``, those of a changed directory whose file
        does not hold ``HEAD``'s blob. A file rewritten in place (its directory's mtime
        unchanged) is :mod:`._fresh`'s to find, per answer.
    """
    top = os.fspath(root)
    now, mtimes = _shard_mtimes(top)
    whole = None if any(is_racy(m, now) for m in mtimes.values()) else \
        _summary_key(top, head.id, mtimes, skipped)
    if whole is not None:
        row = conn.execute("SELECT dir, mtime_ns, tree, changed, seal FROM worktree "
                           "WHERE dir = ?", (SUMMARY,)).fetchone()
        if row is not None and row[4] == seal(row[:4]) and row[2] == whole \
                and (listed := _listed(row[3])) is not None:
            return listed
    cached = {row[0]: row[1:4] for row in conn.execute(
        "SELECT dir, mtime_ns, tree, changed, seal FROM worktree")
        if row[4] == seal(row[:4])}  # a row that does not match its seal is a miss
    head_shards = head.shards()
    found: set[Digest] = set()
    updates = []
    for base in (layout.OBJECTS_DIR, layout.METADATA_DIR):
        shards = {rel for rel in mtimes if rel.startswith(base + "/")}
        for rel in sorted(shards | {d for d in head_shards if d.startswith(base + "/")}):
            mtime = mtimes.get(rel)
            # keyed by the shard's own tree id: a commit elsewhere leaves this shard cached
            shard_id = head_shards.get(rel)
            key = shard_id or ""
            if skipped is not None:
                if mtime is None and skipped.dir_skipped(rel):
                    continue  # a sparse directory outside the checkout: HEAD's, unlisted
                key = f"{key}|{skipped.stamp(rel)}"
                if mtime is None:
                    mtime = -1  # absent: its row is kept by tree id and skipped files
            hit = cached.get(rel)
            if hit is not None and mtime is not None and hit[0] == mtime \
                    and _row_holds(top, rel, hit[1], key) \
                    and (listed := _listed(hit[2])) is not None:
                found |= listed
                if hit[1] != key and not is_racy(mtime, now):  # listed as the add left it
                    updates.append((rel, mtime, key, hit[2]))  # past the racy window now
                continue
            want = head.listing(shard_id)
            changed = _compare(root, rel, want, skipped)
            if stale is not None and want:  # the names kept: replaced under the same name?
                gone = {d.hex for d in changed}
                kept = [f"sha256:{hex_}" for name in want if layout.is_leaf_name(name)
                        and (hex_ := rel[-2:] + name[:62]) not in gone]
                changed |= {Digest.from_str(d) for d in stale(kept)}
            found |= changed
            if mtime is not None and not is_racy(mtime, now):
                updates.append((rel, mtime, key, json.dumps(sorted(map(str, changed)))))
    if whole is not None:  # no directory racy: this pass answers for all of them
        updates.append((SUMMARY, 0, whole, json.dumps(sorted(map(str, found)))))
    if updates:
        with transaction(conn):
            conn.executemany("INSERT OR REPLACE INTO worktree VALUES (?, ?, ?, ?, ?)",
                             [(*row, seal(row)) for row in updates])
    return found


def _row_holds(top: str, rel: str, kept: object, key: str) -> bool:
    """Return True when a row of ``rel`` kept under ``kept`` answers for shard key ``key``.

    A row of a racy mtime (``KEY#LISTING``, :func:`record_added`) answers only while the
    directory lists as it did then (names, inode numbers, ctimes): a write in the same clock
    tick as the add's last one, which left the mtime as it was, shows in the listing.
    """
    if kept == key:
        return True
    if not isinstance(kept, str) or not kept.startswith(key + LISTED):
        return False
    entries = listing(top, rel)
    return entries is not None and kept == f"{key}{LISTED}{listing_key(top, rel, entries)}"


def _shard_mtimes(top: str) -> tuple[int, dict[str, int]]:
    """Return the look's time and ``{"store/objects/sha256/XX": st_mtime_ns, ...}``.

    Both bases, every entry named as a shard (anything else holds no manifest: verify's
    KI110); an entry gone between the listing and its stat is left out, as a missing one
    (:func:`kistore.index.freshness.shard_dirs`: inside ``one_scan``, the names' look).
    """
    now, entries = shard_dirs(top)
    return now, {rel: mtime for rel, _, mtime in entries}


def _summary_key(top: str, tree_id: str, mtimes: dict[str, int],
                 skipped: SkipWorktree | None = None) -> str:
    """Return the :data:`SUMMARY` key of a pass: ``HEAD``'s tree and every shard's mtime.

    In a sparse checkout also which store paths are outside it.
    """
    text = repr((top, tree_id, sorted(mtimes.items()),
                 None if skipped is None else skipped.key))
    return hashes.blake2b(text.encode(), digest_size=16).hexdigest()


def _compare(root: Path, rel: str, want: dict[str, str],
             skipped: SkipWorktree | None = None) -> set[Digest]:
    """Digests of files in work-tree dir ``rel`` whose name is not in ``want`` or the reverse.

    A ``rel`` that is (or lies under) a symbolic link holds nothing: every name of ``want``
    differs (the store's reads never go through one either).

    Args:
        root: the work tree.
        rel: the shard directory (repository path).
        want: ``HEAD``'s ``{file name: blob id}`` of the directory.
        skipped: paths outside a sparse checkout: a name of ``want`` absent from the work
            tree there is not a difference.
    """
    have: set[str] = set()
    if first_not_dir(root, rel) is None:  # never list through a symlink: not the store's
        with contextlib.suppress(FileNotFoundError, NotADirectoryError):
            have = set(os.listdir(os.path.join(root, rel)))
    differ = have.symmetric_difference(want)
    if skipped is not None and differ:
        differ -= {name for name in differ - have if f"{rel}/{name}" in skipped}
    return {digest for name in differ
            if (digest := layout.digest_from_path(f"{rel}/{name}")) is not None}


def blob_id_of_file(path: Path) -> str | None:
    """Return the git blob id (SHA-1 of ``blob <size>\\0`` + bytes) of a file, as git hashes it.

    No conversion applies under ``store/`` (``.gitattributes``), so the bytes are the blob.
    A file past the ceiling of ``manifest-bytes`` (16 MiB, no stored file's size) is not
    read: None, as for no file, which no blob id equals (a stray 1 GB file at a tracked
    path was read and hashed whole, twice, by a ``rank``'s freshness check: 100 s and
    2 GB, fresh03 H3).
    """
    try:
        with path.open("rb") as file:
            if os.fstat(file.fileno()).st_size > CEILING.manifest_bytes:
                return None
            data = file.read()
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        return None
    return blob_id(data).hex()


@dataclass(frozen=True)
class AddedDirs:
    """The shard directories an add is about to write into whose rows are in step now.

    What :func:`record_added` needs to leave them in step after the write
    (:func:`dirs_before_add` makes it).

    Attributes:
        tree: the id (hex) of ``HEAD``'s tree the rows were compared with.
        dirs: ``{"store/objects/sha256/XX": (held, changed)}``: the directory's entries as
            listed before the write (name -> inode number, ``d_ino``: a file renamed over
            another under its name has another inode) and its row's differing digests
            (strings; ``[]`` when the directory is ``HEAD``'s).
    """

    tree: str
    dirs: dict[str, tuple[dict[str, int], frozenset[str]]]


def shard_keys(repo: pygit2.Repository, tree: pygit2.Tree, dirs: Iterable[str]
               ) -> dict[str, str]:
    """Return each shard directory's row key in ``tree``: its git tree id (hex), "" if absent.

    Args:
        repo: the repository.
        tree: a commit's tree.
        dirs: shard directories (``store/objects/sha256/XX``, ``store/metadata/sha256/XX``).

    Raises:
        kistore.git.blobs.ObjectUnreadable: a tree on the way is damaged.
    """
    wanted = set(dirs)
    keys = dict.fromkeys(wanted, "")
    for base in {rel.rpartition("/")[0] for rel in wanted}:
        base_id = subtree_id(repo, tree, base)
        if base_id is None:
            continue
        for entry in subtree(repo, base_id):  # one read of the base, not one per shard
            rel = f"{base}/{entry.name}"
            if rel in wanted and entry.type_str == "tree":
                keys[rel] = str(entry.id)
    return keys


def rows_of_dirs(conn: sqlite3.Connection, dirs: Iterable[str]) -> dict[str, tuple[object, ...]]:
    """Return the sealed ``worktree`` rows of ``dirs``: dir -> (dir, mtime_ns, tree, changed, seal).

    One query per 500 directories (SQLite's limit on bound parameters); a row whose seal
    does not match its values is left out (a torn or hand-edited row).

    Args:
        conn: the index connection.
        dirs: work-tree directories (POSIX, relative to the root).

    Returns:
        ``{dir: row}`` for each directory with a sealed row.

    Raises:
        sqlite3.Error: the index cannot be read.
    """
    rows: dict[str, tuple[object, ...]] = {}
    names = sorted(dirs)
    for i in range(0, len(names), 500):
        chunk = names[i:i + 500]
        rows.update((row[0], row) for row in conn.execute(
            "SELECT dir, mtime_ns, tree, changed, seal FROM worktree WHERE dir IN "
            f"({', '.join('?' * len(chunk))})", chunk) if row[4] == seal(row[:4]))
    return rows


def dirs_before_add(root: Path, tree: str, keys: dict[str, str],
                    rows: dict[str, tuple[object, ...]]) -> AddedDirs:
    """Return the directories of ``keys`` whose ``worktree`` row is in step, before an add writes.

    Under the add's write lock, before its first write. A directory is in step when its
    row matches its seal, was made against the same shard tree of ``HEAD`` (``keys``), and
    holds the directory's mtime as ``lstat`` gives it now, after the listing: no write
    since the row's look (which recorded a racy mtime only with the key of its listing,
    then compared with this listing) so the listing is what the row describes. A
    directory absent from the work tree and from ``HEAD`` is in step too (the add creates
    it). Others are left out: their rows stay stale, and the next query compares them as
    before (correctness first).

    Args:
        root: the work tree.
        tree: ``HEAD``'s tree id (hex).
        keys: directory -> its :func:`shard_keys` in that tree.
        rows: the directories' sealed rows (:func:`rows_of_dirs`, read once by the caller).

    Returns:
        The in-step directories, with their listings.
    """
    top = os.fspath(root)
    found: dict[str, tuple[dict[str, int], frozenset[str]]] = {}
    for rel, key in keys.items():
        not_dir = first_not_dir(top, rel)
        if not_dir is not None:
            # new here (it or a directory above it absent) and in HEAD: nothing differs
            if not_dir[1] == ABSENT and key == "":
                found[rel] = ({}, frozenset())
            continue
        look, row = look_before(top, rel), rows.get(rel)
        if look is None or row is None:
            continue
        held, mtime = look
        if row[1] != mtime or (row[2] != key
                               and row[2] != f"{key}{LISTED}{listing_key(top, rel, held)}"):
            continue
        listed = _listed(row[3])
        if listed is not None:
            found[rel] = (held, frozenset(map(str, listed)))
    return AddedDirs(tree, found)


def record_added(root: Path, conn: sqlite3.Connection, before: AddedDirs, base: str,
                 keys: dict[str, str], written: dict[str, tuple[int, bool]]) -> int:
    """Record the ``worktree`` rows of the directories an add wrote into, as of after its write.

    So the first query after an add trusts them by their mtime instead of comparing each
    again and stating every file it keeps (issue 22: 67 s of the first ``rank`` after an
    ``add --commit`` of 10,000 at 1,000,000 manifests). For each directory
    :func:`dirs_before_add` found in step, its mtime is taken, then it is listed again: the
    row is recorded only when the listing is the one before plus exactly the files the
    add wrote there, each with the inode its write reported, and every name kept holds
    the inode it held: a file another writer added, removed or renamed over meanwhile
    (between the listing before and the one after) leaves the row stale. And, as
    :func:`changed_digests` records a directory, never by its mtime alone when that is
    within :data:`.freshness.RACY_NS` of the look: a write in the same clock tick after the
    listing would leave it unchanged ("racy git"). Such a row (the common case for a small
    add, recorded right after its write) also keeps the :func:`.freshness.listing_key` of the
    listing after, and a query trusts it only while the directory lists the same (one
    ``getdents`` pass, no ``stat`` a file; :func:`_row_holds`), as git compares a racily
    clean entry's content instead of trusting its stat data; once past the window, the
    query records the row by its mtime alone.

    Args:
        root: the work tree.
        conn: the index connection.
        before: :func:`dirs_before_add` of the add.
        base: the tree id (hex) the add's result was made from (its commit's parent's, or
            ``HEAD``'s now for an add without a commit); another than ``before.tree``
            (``HEAD`` moved meanwhile) records nothing.
        keys: each directory's :func:`shard_keys` in ``HEAD``'s tree after the add.
        written: path of each file the add wrote -> (its inode number as written, True when
            ``HEAD``'s tree after the add holds exactly those bytes there).

    Returns:
        How many rows were recorded.

    Raises:
        sqlite3.Error: the index cannot be written (derived data: the caller goes on).
    """
    if base != before.tree:
        return 0
    top = os.fspath(root)
    ours: dict[str, dict[str, tuple[int, bool]]] = {}
    for path, value in written.items():
        rel, _, name = path.rpartition("/")
        if rel in before.dirs:
            ours.setdefault(rel, {})[name] = value
    rows = []
    for rel, (held, changed) in before.dirs.items():
        mine, key = ours.get(rel, {}), keys.get(rel)
        if key is None or first_not_dir(top, rel) is not None:
            continue
        look = look_after(top, rel, held, {name: value[0] for name, value in mine.items()})
        if look is None:
            continue  # another writer's change: the next query compares the directory
        mtime, racy = look
        if racy is not None:  # trusted while it lists as now (a same-tick write shows)
            key = f"{key}{LISTED}{racy}"
        digests = {name: str(d) for name in mine
                   if (d := layout.digest_from_path(f"{rel}/{name}")) is not None}
        differ = (changed - set(digests.values())) | {
            d for name, d in digests.items() if not mine[name][1]}
        rows.append((rel, mtime, key, json.dumps(sorted(differ))))
    if rows:
        with transaction(conn):
            conn.executemany("INSERT OR REPLACE INTO worktree VALUES (?, ?, ?, ?, ?)",
                             [(*row, seal(row)) for row in rows])
    return len(rows)
