"""What a work-tree query needs from git, cached in the index so a warm query skips libgit2.

A query of the work tree asks git four things: ``HEAD``'s tree, the shard directories of
that tree (to compare the work tree with), which object blobs carry a note under
``refs/notes/kistore``, and -- only for runs that have attestations -- the notes and files
themselves. The first three are cached in the index's ``meta`` and ``head_shards`` tables
under keys read from the files under ``.git`` (:mod:`kistore.git.refs`):
``HEAD``'s commit id and the notes tip. When both match, nothing changed in git since the
index last looked, and the answer needs no pygit2 (importing it costs ~0.1-0.2 s a
process). When a key differs, or the refs cannot be read as files, the value is read
through pygit2 and cached again. Work-tree edits are found by :mod:`._worktree` (shard
directory mtimes), as before.

The tables are a cache like the rest of the index: deleting them loses nothing. Every row
is sealed (:func:`.database.seal`); a row that does not match its seal is a miss, read again
from git. A ``head_shards`` row's seal covers the tree it was read from (meta
``shards_tree``), and the annotated blobs are one sealed value with the tip they were read at,
so no row can be deleted or carried from another state without the cache being read again.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import sqlite3
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from ..core import layout
from ..core.digest import Digest
from ..core.layout import NOTES_REF
from ..git import refs
from ..git.sparse import SkipWorktree
from ..git.treediff import subtree
from ._database import Damaged, get_meta, seal, set_meta
from ._transaction import transaction
from ._worktree import blob_id_of_file

if TYPE_CHECKING:  # pragma: no cover - typing only
    import pygit2

    from .interfaces import IndexedStore

TABLES = ("head_shards", "shard_listings", "head_attested")
"""The tables of :data:`kistore.index._database.TABLES` this module fills.
``head_shards``: shard directory -> git tree id in ``HEAD``'s tree (meta ``shards_tree``);
``shard_listings``: a shard tree id -> its ``{file name: blob id}`` (:func:`pack_listing`),
for the shards of ``HEAD``, so comparing a freshly written work-tree directory needs no
pygit2; ``head_attested``: the runs ``HEAD``'s tree holds an attestation folder for (meta
``attested_tree``; :class:`HeadAttested`). The object blob ids with a note are meta
``annotated`` (JSON: the notes tip and the sorted ids)."""

_LEAF = re.compile(r"[0-9a-f]{62}\.json")
"""A stored file's name in its shard directory: the digest's hex after the first two."""
_ENTRY = 31 + 20
"""Bytes of one packed listing entry: the name's 62 hex digits, then a SHA-1 blob id."""

SHARD_BASES = (layout.OBJECTS_DIR, layout.METADATA_DIR)


def _meta(conn: sqlite3.Connection, key: str) -> str | None:
    """Return a cached ``meta`` value; None when absent or not matching its seal (a miss)."""
    try:
        return get_meta(conn, key)
    except Damaged:
        return None


def head_commit(git_dir: Path) -> str | None:
    """Return ``HEAD``'s commit id read from the files under ``git_dir`` (None: unborn).

    Raises:
        RefsUnreadable: the refs are not plain files here (ask pygit2).
    """
    return refs.resolve(git_dir, "HEAD")


def tree_of(store: IndexedStore, conn: sqlite3.Connection, commit: str) -> str:
    """Return the tree id of ``commit``: cached under meta ``head_commit``, else via pygit2.

    Args:
        store: a :class:`kistore.store.Store`.
        conn: the index connection (meta ``head_commit``/``head_tree`` are read and set).
        commit: a commit id (hex), e.g. from :func:`head_commit`.
    """
    if _meta(conn, "head_commit") == commit:
        tree = _meta(conn, "head_tree")
        if tree is not None:
            return tree
    tree = str(store.commit(commit).tree.id)
    with transaction(conn):
        set_meta(conn, head_commit=commit, head_tree=tree)
    return tree


class HeadTree:
    """``HEAD``'s tree as :func:`.worktree.changed_digests` reads it; pygit2 only on a miss.

    Args:
        store: a :class:`kistore.store.Store` (its pygit2 repository is opened on a miss).
        conn: the index connection holding the ``head_shards`` cache.
        tree_id: the tree's id (hex).
        load: returns the pygit2 Tree (called at most once, when a value is not cached).
    """

    def __init__(self, store: IndexedStore, conn: sqlite3.Connection, tree_id: str,
                 load: Callable[[], pygit2.Tree]) -> None:
        self.store = store
        self.conn = conn
        self.id = tree_id
        self._load = load
        self._shards: dict[str, str] | None = None
        self._asked: dict[str, str | None] = {}
        self._cached: bool | None = None
        self._listings: dict[str, dict[str, str]] = {}

    def shards(self) -> dict[str, str]:
        """Return ``{"store/objects/sha256/XX": git tree id, ...}`` for both shard bases."""
        if self._shards is not None:  # asked by the work-tree comparison and the file check
            return self._shards
        self._shards = self._read_shards()
        return self._shards

    def shard(self, directory: str) -> str | None:
        """Return the git tree id of one shard directory in this tree (None: not in it).

        What :meth:`shards` gives for it, reading one cached row (a query that checks a
        few records' files reads two or four instead of 512); a row that does not match its
        seal, or no cache for this tree, reads them all as :meth:`shards` does.

        Args:
            directory: ``store/objects/sha256/XX`` or ``store/metadata/sha256/XX``.
        """
        if self._shards is not None:
            return self._shards.get(directory)
        if directory in self._asked:
            return self._asked[directory]
        if self._cached is None:
            self._cached = _meta(self.conn, "shards_tree") == self.id
        if not self._cached:
            return self.shards().get(directory)
        row = self.conn.execute("SELECT dir, id, seal FROM head_shards WHERE dir = ?",
                                (directory,)).fetchone()
        if row is not None and row[2] != seal((*row[:2], self.id)):
            return self.shards().get(directory)  # checks every row, re-reads the tree
        # no row: the cache holds every shard of the tree, so this one is not in it (a row
        # deleted from outside reads as a changed file: checked against the work tree)
        self._asked[directory] = None if row is None else str(row[1])
        return self._asked[directory]

    def _read_shards(self) -> dict[str, str]:
        """:meth:`shards`, from the cache in the index or else from the tree."""
        if _meta(self.conn, "shards_tree") == self.id:
            cached = self.conn.execute("SELECT dir, id, seal FROM head_shards").fetchall()
            if all(row[2] == seal((*row[:2], self.id)) for row in cached):
                return {row[0]: row[1] for row in cached}
        tree, repo = self._load(), self.store.repo
        found = {}
        for base in SHARD_BASES:
            try:
                entry = tree[base]
            except KeyError:
                continue
            if entry.type_str == "tree":
                found.update({f"{base}/{e.name}": str(e.id) for e in subtree(repo, entry.id)
                              if e.type_str == "tree"})
        with transaction(self.conn):
            self.conn.execute("DELETE FROM head_shards")
            self.conn.executemany("INSERT INTO head_shards VALUES (?, ?, ?)",
                                  [(d, i, seal((d, i, self.id))) for d, i in found.items()])
            self.conn.execute("DELETE FROM shard_listings WHERE shard NOT IN "
                              "(SELECT id FROM head_shards)")  # shards of older trees
            set_meta(self.conn, shards_tree=self.id)
        return found

    def has_tree(self, path: str) -> bool:
        """Return True when this tree holds a directory at repository ``path`` (via pygit2)."""
        return self.tree_at(path) is not None

    def tree_at(self, path: str) -> pygit2.Oid | None:
        """Return the id of the directory at repository ``path`` in this tree (via pygit2).

        Returns:
            None when the tree holds none there (nothing, or a file).
        """
        try:
            entry = self._load()[path]
        except KeyError:
            return None
        return entry.id if entry.type_str == "tree" else None

    def listing(self, shard_id: str | None) -> dict[str, str]:
        """Return ``{file name: blob id}`` of a shard tree (empty for None); cached by id.

        Read once per shard and object (the callers only read it: do not change it): the
        first query after a bulk add checks both files of every manifest by hash
        (:meth:`._fresh.FileCheck.stale`), and read, sealed and unpacked again for each
        file the listing of its shard cost 8-9 s of that query's 12-13 s of CPU at 20,000
        manifests (docs/speed.md, branch ``limits78``). Then from the ``shard_listings``
        cache in the index, or else from the tree (and cached there).
        """
        if shard_id is None:
            return {}
        if (known := self._listings.get(shard_id)) is not None:
            return known
        found = self._read_listing(shard_id)
        self._listings[shard_id] = found
        return found

    def _read_listing(self, shard_id: str) -> dict[str, str]:
        """:meth:`listing`, from the index's ``shard_listings`` row or else from the tree."""
        row = self.conn.execute("SELECT shard, listing, seal FROM shard_listings WHERE shard = ?",
                                (shard_id,)).fetchone()
        if row is not None and row[2] == seal(row[:2]):
            with contextlib.suppress(ValueError):  # a damaged listing is a miss
                return unpack_listing(row[1])
        found = {str(e.name): str(e.id) for e in subtree(self.store.repo, shard_id)
                 if e.type_str == "blob"}
        packed = pack_listing(found)
        with transaction(self.conn):
            self.conn.execute("INSERT OR REPLACE INTO shard_listings VALUES (?, ?, ?)",
                              (shard_id, packed, seal((shard_id, packed))))
        return found


def pack_listing(listing: dict[str, str]) -> bytes | str:
    """Return a shard's ``{file name: blob id}`` as stored in ``shard_listings``.

    When every name is a stored file's (62 hex + ``.json``) and every id a SHA-1: 51 bytes
    an entry (the 31 bytes of the name's hex, the id's 20), in order -- ~110 as JSON text,
    which made the table 230 B a manifest. Anything else (a stray file, a SHA-256
    repository's 32-byte ids): the JSON text.
    """
    if all(len(blob) == 40 and _LEAF.fullmatch(name) for name, blob in listing.items()):
        return b"".join(bytes.fromhex(name[:62]) + bytes.fromhex(blob)
                        for name, blob in listing.items())
    return json.dumps(listing)


def unpack_listing(stored: bytes | str) -> dict[str, str]:
    """Return the ``{file name: blob id}`` :func:`pack_listing` stored.

    Raises:
        ValueError: a stored value that is neither form (the index is damaged).
    """
    if isinstance(stored, str):
        try:
            return dict(json.loads(stored))
        except (RecursionError, TypeError):  # nested 3,000 deep, or no pairs: damaged
            raise ValueError("a shard listing that is not a JSON object of names") from None
    if len(stored) % _ENTRY:
        raise ValueError("a packed shard listing of a length no entries make")
    return {f"{stored[i:i + 31].hex()}.json": stored[i + 31:i + _ENTRY].hex()
            for i in range(0, len(stored), _ENTRY)}


def annotated_blobs(store: IndexedStore, conn: sqlite3.Connection) -> frozenset[str] | None:
    """Return the object blob ids that carry a note under :data:`NOTES_REF` now.

    Cached under the notes tip read from the files under ``.git``; on a new tip the notes
    are listed once through :func:`kistore.git.notes.annotated_blobs`.

    Returns:
        The blob ids (hex); None when the notes tip cannot be read from files (unknown).
    """
    try:
        tip = refs.resolve(store.git_dir, NOTES_REF)
    except refs.RefsUnreadable:
        return None
    if tip is None:
        return frozenset()
    cached = _meta(conn, "annotated")
    if cached is not None:
        # damaged (even nested 3,000 deep: RecursionError, as the site's and export's
        # readers of their own files refuse it): a miss, listed again
        with contextlib.suppress(ValueError, TypeError, KeyError, RecursionError):
            value = json.loads(cached)
            if value["tip"] == tip:
                return frozenset(str(b) for b in value["blobs"])
    # Lazy: listed again only when the notes moved (a fresh `rank` loads no notes code)
    from ..git import notes as git_notes

    blobs = git_notes.annotated_blobs(store.repo, NOTES_REF)
    with transaction(conn):
        set_meta(conn, annotated=json.dumps({"tip": tip, "blobs": sorted(blobs)}))
    return blobs


class HeadAttested:
    """The runs ``HEAD``'s tree holds an attestation folder for, cached in the index.

    :func:`maybe_attested` asks it of a run whose folder the work tree lacks: a committed
    attestation file, once committed, is never removed (KI410), so a work-tree answer reads
    it as ``HEAD`` holds it (:func:`kistore.attest.committed_here.files_as_committed`;
    fresh14 F15: a folder removed from the work tree made a withdrawn run rank again, without
    a word). Table ``head_attested``: one row per run (its 32-byte digest), each sealed with
    the tree it was read from (meta ``attested_tree``: that tree's id and the rows' count);
    read from ``HEAD``'s tree (two tree reads a shard of ``store/attestations/sha256/``)
    when that tree is not the one cached, which happens once after ``HEAD``'s tree changed,
    when the index reads it through pygit2 anyway. A warm query reads its runs' rows (or
    the whole table, when no larger than its group: :meth:`among`): no file read, no child
    process, no pygit2 (docs/speed.md, 2026-12-07, branch ``wt02``).

    Args:
        head: ``HEAD``'s tree as the work-tree comparison reads it (:class:`HeadTree`: its
            store, index connection, tree id, and pygit2 tree loaded only on a miss).
    """

    def __init__(self, head: HeadTree) -> None:
        self.head = head
        self.conn = head.conn
        self.id = head.id

    def among(self, digests: Iterable[Digest]) -> set[Digest]:
        """Return those of ``digests`` whose attestation folder ``HEAD``'s tree holds.

        Meta ``attested_tree`` holds the tree id and how many rows were cached: none, and
        nothing more is read; no more than ``digests``, and every row is read (a row
        missing is a miss); more, and only the rows of ``digests`` are looked up. A row
        that does not match its seal, or a cache of another tree, is a miss: the tree is
        read again and cached.
        """
        wanted = {bytes.fromhex(d.hex): d for d in digests}
        if not wanted:
            return set()
        tree, _, count = (_meta(self.conn, "attested_tree") or "").partition(" ")
        if tree == self.id and count.isdigit():
            found = self._rows(list(wanted), int(count))
            if found is not None:
                return {d for raw, d in wanted.items() if raw in found}
        held = self._fill()
        return {d for raw, d in wanted.items() if raw in held}

    def _rows(self, raws: list[bytes], count: int) -> set[bytes] | None:
        """Return the cached rows (all, or those of ``raws``); None when one was tampered with."""
        if count == 0:
            return set()
        if count <= len(raws):  # one read of the whole table is cheaper than the look-ups
            rows = self.conn.execute("SELECT digest, seal FROM head_attested").fetchall()
            if len(rows) != count:
                return None
        else:
            rows = []
            for start in range(0, len(raws), _BATCH):
                batch = raws[start:start + _BATCH]
                rows += self.conn.execute(
                    "SELECT digest, seal FROM head_attested WHERE digest IN "
                    f"({', '.join('?' * len(batch))})", batch).fetchall()
        found: set[bytes] = set()
        for raw, sealed in rows:
            if sealed != seal((raw, self.id)):
                return None
            found.add(bytes(raw))
        return found

    def _fill(self) -> set[bytes]:
        """Read the runs with a folder from ``HEAD``'s tree and cache them (sealed)."""
        repo = self.head.store.repo
        held: set[bytes] = set()
        top = self.head.tree_at(f"{layout.ATTESTATIONS_DIR}/sha256")
        if top is not None:
            for shard in subtree(repo, top):
                if shard.type_str != "tree" or not _lower_hex(str(shard.name), 2):
                    continue
                held.update(bytes.fromhex(f"{shard.name}{rest.name}")
                            for rest in subtree(repo, shard.id)
                            if rest.type_str == "tree" and _lower_hex(str(rest.name), 62))
        with transaction(self.conn):
            self.conn.execute("DELETE FROM head_attested")
            self.conn.executemany("INSERT INTO head_attested VALUES (?, ?)",
                                  [(raw, seal((raw, self.id))) for raw in sorted(held)])
            set_meta(self.conn, attested_tree=f"{self.id} {len(held)}")
        return held


_BATCH = 500
"""Digests asked of ``head_attested`` in one statement (SQLite allows 999 parameters)."""


def _lower_hex(name: str, size: int) -> bool:
    """Whether ``name`` is ``size`` lowercase hex digits (a folder of the layout's digests)."""
    return len(name) == size and not name.strip("0123456789abcdef")


class OutsideCheckout:
    """The files a sparse checkout leaves out of the work tree, as git's index holds them.

    git treats a skip-worktree path as holding its index entry's bytes
    (:mod:`kistore.git.sparse`): ``HEAD``'s, unless a change there is staged
    (:attr:`~kistore.git.sparse.SkipWorktree.staged`). :func:`maybe_attested` asks this about
    a run whose object file or attestation folder is absent from the work tree, so a note
    or file outside the checkout is not missed.

    Args:
        skipped: the store paths outside the checkout
            (:func:`kistore.git.sparse.skip_worktree`).
        head: ``HEAD``'s tree (object blob ids come from its cached shard listings).
    """

    def __init__(self, skipped: SkipWorktree, head: HeadTree) -> None:
        self.skipped = skipped
        self.head = head

    def object_blob(self, digest: Digest) -> str | None:
        """Return the index's blob id (hex) of ``digest``'s object file when it is skipped.

        The staged blob where a change is staged there, else ``HEAD``'s. None when the
        path is inside the checkout (absent there: deleted) or the index holds no such
        file.
        """
        path = layout.object_path(digest)
        if path not in self.skipped:
            return None
        if path in self.skipped.staged:
            entry = self.skipped.staged[path]
            return None if entry is None else entry[1]
        directory, _, name = path.rpartition("/")
        return self.head.listing(self.head.shard(directory)).get(name)

    def has_folder(self, folder: str) -> bool:
        """Return True when the index may hold the directory ``folder`` outside the checkout.

        From git's listing of a full index (a skipped file below ``folder``); in a sparse
        directory entry (a sparse index lists no path below it) from ``HEAD``'s tree, or a
        file staged below ``folder``. (A folder whose files' removal is staged still
        answers True: the answer is "may", and reading it finds nothing.)

        Args:
            folder: a repository path (``store/attestations/sha256/XX/REST``).
        """
        if self.skipped.dir_skipped(folder):
            return self.head.has_tree(folder) or any(
                entry is not None for entry in self.skipped.staged_below(folder).values())
        parent, _, name = folder.rpartition("/")
        return name in self.skipped.names_in(parent)


def maybe_attested(root: Path, digests: Iterable[Digest], annotated: frozenset[str],
                   outside: OutsideCheckout | None = None,
                   committed: HeadAttested | None = None) -> list[Digest]:
    """Return the runs of the work tree that may have an attestation; the rest have none.

    A run may have one when its object file's git blob id carries a note, or when
    ``store/attestations/sha256/XX/REST/`` exists for it in the work tree or in ``HEAD``'s
    tree (what :func:`kistore.attest.notes.collect_many` reads: ``HEAD``'s committed files
    where the work tree lost them). Every other run's evidence is ``source-native`` with no
    attestations, without reading notes or files.

    Args:
        root: the work tree.
        digests: the runs.
        annotated: :func:`annotated_blobs`.
        outside: in a sparse checkout, the files outside it (:class:`OutsideCheckout`): an
            object file or attestation folder absent from the work tree is ``HEAD``'s
            when skipped. None: not a sparse checkout (only the work tree is looked at).
        committed: the runs ``HEAD``'s tree holds a folder for (:class:`HeadAttested`: one
            indexed look-up); None: not asked (the work tree's folders alone).

    Returns:
        The runs of ``digests`` (in their order) that may have an attestation.
    """
    top = os.fspath(root)
    digests = list(digests)
    at_head = committed.among(digests) if committed is not None else set()
    found = []
    for digest in digests:
        rel = layout.attestation_dir(digest)
        if digest in at_head or os.path.lexists(os.path.join(top, rel)) or (annotated and _blob_of(
                top, digest, outside) in annotated) or (
                outside is not None and outside.has_folder(rel)):
            found.append(digest)
    return found


def _blob_of(top: str, digest: Digest, outside: OutsideCheckout | None) -> str | None:
    """Return the blob id (hex) of ``digest``'s object: the work tree's, else the index's."""
    found = blob_id_of_file(Path(top, layout.object_path(digest)))
    if found is None and outside is not None:
        return outside.object_blob(digest)
    return found
