"""The derived index: SQLite under ``.git/kistore/``, kept in step with one git tree.

The index is a cache of :class:`~.records.Record` rows (stored compactly: :mod:`.rows`),
never part of the store and never committed: deleting it loses nothing. It remembers the
tree it last indexed; asked about another tree it applies the git tree diff between the
two (pygit2) in one transaction, re-describing the runs that reference a manifest that
came or went. It is rebuilt from scratch by ``kistore reindex``, and whenever it cannot
be trusted: a file that is not an SQLite database, another format version, a tree it
names that git no longer has, or any SQLite error while reading it.

The work tree (the default view) is answered as the index of ``HEAD`` overlaid with the
manifests whose files in the work tree differ from ``HEAD`` (:func:`open_catalog`, found
by :mod:`.worktree` without stating every file).
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import sqlite3
import uuid
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from ..core import layout
from ..core.digest import Digest, is_digest
from ..core.errors import StoreStateError
from ..git import treediff
from . import refs, rows, warm
from .build import read_manifests
from .catalog import (
    Catalog,
    Loaded,
    MemoryCatalog,
    OverlayCatalog,
    chain,
    describe_all,
    in_listing_order,
)
from .fresh import SCHEMA as FRESH_SCHEMA
from .fresh import CheckedCatalog, FileCheck
from .records import Record
from .transaction import transaction
from .worktree import SCHEMA as WORKTREE_SCHEMA
from .worktree import changed_digests

FORMAT = "kistore-index-5"
"""Bumped whenever the table layout or what a record holds changes (forces a rebuild).
5: compact rows (:mod:`.rows`), the ``skipped`` list, packed shard listings
(:func:`.warm.pack_listing`) and hashed stat rows (:func:`.fresh.seen_key`); 3 and 4 were
steps of the branch that made it."""

_SCHEMA = f"""
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
{rows.SCHEMA}
{WORKTREE_SCHEMA}
{FRESH_SCHEMA}
{warm.SCHEMA}"""
_INDEXES = rows.INDEXES
_EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
"""Git's empty tree: what an unborn branch has indexed."""

Progress = Callable[[int], None]

LARGE_READ = 50_000
"""An update that reads at least this many manifests without a progress callback (a first
query after the format changed, or after a large pull) says so first, through :data:`log`."""

log = logging.getLogger(__name__)
"""Where a long index update is announced (a WARNING: without logging configured, Python
prints it on stderr, so a command line user sees why the query is slow)."""


def index_path(store: Any) -> Path:
    """Return where a store's index lives: ``<git dir>/kistore/index.sqlite``."""
    return Path(store.git_dir) / "kistore" / "index.sqlite"


class IndexCatalog(Catalog):
    """A catalog answered by SQL over the index of one tree.

    Args:
        conn: an open connection to an index that is in step with ``tree``.
        tree: the tree id (hex) it answers for.
        codec: the connection's :class:`.rows.Codec` (default: read when first needed).
    """

    def __init__(self, conn: sqlite3.Connection, tree: str,
                 codec: rows.Codec | None = None) -> None:
        self.conn = conn
        self.tree = tree
        self._skipped: dict[str, tuple[str, str]] | None = None
        self._codec = codec

    @property
    def codec(self) -> rows.Codec:
        """The index's row codec (its compression dictionary), read once."""
        if self._codec is None:
            self._codec = rows.Codec.of(self.conn)
        return self._codec

    def _select(self, where: str, args: tuple[Any, ...]) -> list[Record]:
        """Return the records of ``SELECT ... WHERE where`` (:data:`.rows.SELECT`)."""
        try:
            found = self.conn.execute(f"{rows.SELECT} WHERE {where}", args).fetchall()
            return self.codec.decode_all(found)
        except (sqlite3.Error, ValueError, TypeError, KeyError, zlib.error) as e:
            # damaged rows: never trusted
            raise StoreStateError(
                f"the derived index is damaged ({e}); run `kistore reindex` (deleting it loses "
                "nothing)", file=str(index_path_hint(self.conn))) from None

    def record(self, digest: str) -> Record | None:  # noqa: D102 - documented on Catalog
        if not is_digest(digest):
            return None
        found = self._select(f"r.id = {rows.DIGEST_ID}", (rows.raw(digest),))
        return found[0] if found else None

    def group(self, key: str) -> list[Record]:  # noqa: D102
        if not is_digest(key):
            return []
        return self._select(f"r.key IN (SELECT id FROM keys WHERE key = {rows.DIGEST_ID}) "
                            "ORDER BY d.digest", (rows.raw(key),))

    def records(self, *, kind: str | None = None, workload: str | None = None,  # noqa: D102
                hardware: str | None = None) -> list[Record]:
        if workload is not None and not is_digest(workload):
            return []
        filters = {"r.kind = ?": None if kind is None else rows.kind_code(kind),
                   f"r.workload = {rows.DIGEST_ID}": None if workload is None
                   else rows.raw(workload),
                   "r.hardware = ?": hardware}
        clauses = [c for c, v in filters.items() if v is not None] or ["1"]
        args = tuple(v for v in filters.values() if v is not None)
        # sorted here: an ORDER BY made SQLite walk the (kind, name) index of every row of
        # a kind instead of looking the workload or hardware up (same order: UTF-8 bytes)
        return in_listing_order(self._select(" AND ".join(clauses), args))

    def named(self, kind: str, name: str) -> Record | None:  # noqa: D102
        found = self._select("r.kind = ? AND r.name = ?", (rows.kind_code(kind), name))
        return found[0] if found else None

    def referencing(self, digests: set[str]) -> list[Record]:  # noqa: D102
        wanted = [rows.raw(d) for d in digests if is_digest(d)]
        if not wanted:
            return []
        # one join through a temporary table, however many digests (a rebuild asks ~all)
        self.conn.execute("CREATE TEMP TABLE IF NOT EXISTS wanted (id INTEGER PRIMARY KEY)")
        self.conn.execute("DELETE FROM wanted")
        self.conn.executemany("INSERT OR IGNORE INTO wanted SELECT id FROM digests "
                              "WHERE digest = ?", ((d,) for d in wanted))
        # one indexed lookup per reference column: an OR of the four made SQLite read
        # every row (100,000 runs: ~0.35 s for each query overlaying work-tree files)
        found = self._select("r.id IN (" + " UNION ".join(
            f"SELECT id FROM records WHERE {c} IN (SELECT id FROM wanted)"
            for c in ("workload", "protocol", "environment", "implementation"))
            + f") AND +r.kind = {rows.RUN}", ())
        self.conn.execute("DELETE FROM wanted")
        return found

    def run_groups(self, chunk: int = 1000) -> Iterator[tuple[str | None, list[Record]]]:
        """As :meth:`Catalog.run_groups`, streamed: one group (or chunk) in memory at a time.

        One query ordered by the group's interned key id (groups then come in the order
        their keys were first indexed), read ``chunk`` rows at a time, decoded by a
        private codec that forgets the ids it resolved after each chunk: memory stays one
        chunk and one group, whatever the number of groups.
        """
        try:
            cursor = self.conn.execute(
                f"{rows.SELECT} LEFT JOIN keys k ON k.id = r.key WHERE r.kind = {rows.RUN} "
                "ORDER BY k.key IS NULL, k.key, d.digest")
            group: list[Record] = []
            codec = self.codec.private()
            while batch := cursor.fetchmany(chunk):
                decoded = codec.decode_all(batch)
                codec.forget()
                for record in decoded:
                    key = record.comparison_key
                    if group and (key != group[0].comparison_key or
                                  (key is None and len(group) >= chunk)):
                        yield group[0].comparison_key, group
                        group = []
                    group.append(record)
            if group:
                yield group[0].comparison_key, group
        except (sqlite3.Error, ValueError, TypeError, KeyError, zlib.error) as e:
            raise StoreStateError(
                f"the derived index is damaged ({e}); run `kistore reindex` (deleting it loses "
                "nothing)", file=str(index_path_hint(self.conn))) from None

    def names(self, kind: str) -> dict[str, str]:  # noqa: D102 - documented on Catalog
        return {rows.text(d) or "": name for d, name in self.conn.execute(
            "SELECT d.digest, r.name FROM records r JOIN digests d ON d.id = r.id "
            "WHERE r.kind = ?", (rows.kind_code(kind),))}

    def skipped(self) -> dict[str, tuple[str, str]]:  # noqa: D102 - documented on Catalog
        if self._skipped is None:
            try:
                self._skipped = {d: (path, why) for d, path, why in self.conn.execute(
                    "SELECT digest, path, problem FROM skipped ORDER BY digest")}
            except sqlite3.Error:
                self._skipped = {}
        return self._skipped

    def document(self, digest: str) -> bytes | None:
        """Return the canonical object bytes the record of ``digest`` was made from.

        Rebuilt from the compact row (:meth:`.rows.Codec.document_bytes`): equal, byte for byte,
        to the object file the index read. None when the index holds no such record.
        """
        if not is_digest(digest):
            return None
        row = self.conn.execute(f"{rows.SELECT} WHERE r.id = {rows.DIGEST_ID}",
                                (rows.raw(digest),)).fetchone()
        return self.codec.document_bytes(row) if row is not None else None


_LOCKS: dict[str, Any] = {}
"""Index path -> this process's open lock file (see :meth:`Index.writing`)."""
_WRITING: set[str] = set()
"""Index paths this process holds exclusively right now."""


def _probe(conn: sqlite3.Connection) -> rows.Codec:
    """Read one record through the normal path, so a damaged index raises here.

    A dropped table, renamed column or undecodable row then rebuilds the index.

    Returns:
        The connection's codec (the catalog answers with it: its dictionary is read once).
    """
    codec = rows.Codec.of(conn)
    row = conn.execute(f"{rows.SELECT} LIMIT 1").fetchone()
    if row is not None:
        codec.decode_all([row])  # ids resolved too: the tables they name
    return codec


def index_path_hint(conn: sqlite3.Connection) -> str:
    """Return the file behind a connection, for messages."""
    rows = conn.execute("PRAGMA database_list").fetchall()
    return str(rows[0][2]) if rows else "index"


class Index:
    """The SQLite index of a store.

    Args:
        store: a :class:`kistore.store.Store`.
        path: where the database lives (default: :func:`index_path`).
    """

    def __init__(self, store: Any, path: Path | None = None) -> None:
        self.store = store
        self.path = path or index_path(store)

    @property
    def repo(self) -> Any:
        """The store's pygit2 repository (opened only when the index must change)."""
        return self.store.repo

    def catalog(self, tree_id: str, load: Callable[[], Any], progress: Progress | None = None,
                *, conn: sqlite3.Connection | None = None) -> IndexCatalog:
        """Return a catalog of a tree, updating (or rebuilding) the index to it first.

        Args:
            tree_id: the tree's id (hex).
            load: returns the pygit2 Tree; called only when the index is not already in
                step with ``tree_id`` (a warm query never loads it).
            progress: called with the number of manifests processed, for progress bars.
            conn: a connection :meth:`open` returned, to use instead of opening one.

        Raises:
            OSError: the index file cannot be created (e.g. a read-only ``.git``).
        """
        codec = None
        with self.writing():
            try:
                conn = conn or self.open()
                self._sync(conn, tree_id, load, progress)
                codec = _probe(conn)
            except (sqlite3.DatabaseError, ValueError, TypeError, KeyError, zlib.error):
                conn = self.rebuild(load(), progress)  # never trusted when it fails to read
        return IndexCatalog(conn, tree_id, codec)

    @contextlib.contextmanager
    def writing(self) -> Iterator[None]:
        """Hold the index's lock exclusively for an update or rebuild; then keep it shared.

        The lock is a ``flock`` on ``index.sqlite.lock``. A rebuild deletes the database
        file, and a process still reading the old one (or one whose SQLite writes its
        ``-wal`` and ``-shm`` files by name) then broke the new one: two ``kistore reindex``
        at once, or a reindex during a first ``rank``, ended in "attempt to write a
        readonly database" or "disk I/O error" (breaker9). So every process that updated
        or rebuilt the index keeps reading it under a shared lock until it exits, and a
        rebuild waits for them. One lock file descriptor per process and index (flock
        locks belong to it), so the process's own later updates convert the same lock.
        Re-entrant. Without a writable ``.git`` there is no lock (nor any update).
        """
        key = str(self.path)
        if key in _WRITING:
            yield
            return

        lock = _LOCKS.get(key)
        if lock is None:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                lock = _LOCKS[key] = open(f"{self.path}.lock", "a")  # noqa: SIM115 - kept
            except OSError:
                yield
                return
        fcntl.flock(lock, fcntl.LOCK_EX)
        _WRITING.add(key)
        try:
            yield
        finally:
            _WRITING.discard(key)
            fcntl.flock(lock, fcntl.LOCK_SH)  # still reading what was written

    def rebuild(self, tree: Any, progress: Progress | None = None, *,
                keep_work_tree_cache: bool = False) -> sqlite3.Connection:
        """Delete the index and build it again from ``tree``; return the open connection.

        Args:
            tree: the pygit2 Tree to index.
            progress: called with the number of manifests processed.
            keep_work_tree_cache: carry over, from a readable index of this format, the
                caches keyed by git and file-system state alone (clean work-tree
                directories, ``HEAD``'s shards and their listings): without them the next
                work-tree query re-reads every file (100,000 runs: ~20 s of CPU). Only for
                a rebuild on request (``kistore reindex``), never for a damaged index.
        """
        with self.writing():
            kept = self._work_tree_cache() if keep_work_tree_cache else {}
            self.path.parent.mkdir(parents=True, exist_ok=True)
            for suffix in ("", "-journal", "-wal", "-shm"):
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(f"{self.path}{suffix}")
            conn = self.open(indexes=False)  # filling a table, then indexing it, is faster
            self._sync(conn, str(tree.id), lambda: tree, progress)
            _create_indexes(conn)
            with transaction(conn):
                for table, rows in kept.items():
                    if rows:
                        conn.executemany(f"INSERT OR REPLACE INTO {table} VALUES "
                                         f"({', '.join('?' * len(rows[0]))})", rows)
        return conn

    def _work_tree_cache(self) -> dict[str, list[tuple[Any, ...]]]:
        """Return the rows :meth:`rebuild` may carry over (empty when the index is unreadable)."""
        try:
            conn = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True)
        except sqlite3.Error:
            return {}
        try:
            meta = dict(conn.execute("SELECT key, value FROM meta"))
            if meta.get("format") != FORMAT:
                return {}
            kept = {table: conn.execute(f"SELECT * FROM {table}").fetchall()
                    for table in ("worktree", "head_shards", "shard_listings", "manifest_stat")}
            kept["meta"] = [(k, meta[k]) for k in ("shards_tree", "head_commit", "head_tree")
                            if k in meta]
            return kept
        except sqlite3.Error:
            return {}
        finally:
            conn.close()

    def open(self, *, indexes: bool = True) -> sqlite3.Connection:
        """Open (creating when absent) and check the format; DatabaseError when untrusted.

        Args:
            indexes: create the records table's SQLite indexes when they are missing
                (False only for a rebuild, which creates them after filling the table).
        """
        self.path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(self.path, isolation_level=None, timeout=30)
        try:
            tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
            if not tables:
                conn.executescript("BEGIN IMMEDIATE;" + _SCHEMA + "COMMIT;")
                conn.execute("INSERT OR IGNORE INTO meta VALUES ('format', ?), ('tree', ?), "
                             "('file', ?)", (FORMAT, _EMPTY_TREE, uuid.uuid4().hex))
            if indexes and not set(_INDEXES) <= tables:  # e.g. a rebuild that was cut short
                _create_indexes(conn)
            meta = dict(conn.execute("SELECT key, value FROM meta"))
            if meta.get("format") != FORMAT or "tree" not in meta:
                raise sqlite3.DatabaseError(f"not a {FORMAT} index")
        except BaseException:
            conn.close()
            raise
        return conn

    def _sync(self, conn: sqlite3.Connection, target: str, load: Callable[[], Any],
              progress: Progress | None) -> None:
        """Move the index to tree ``target`` by applying the tree diff, in one transaction."""
        if conn.execute("SELECT value FROM meta WHERE key = 'tree'").fetchone()[0] == target:
            return
        conn.execute("BEGIN IMMEDIATE")  # one writer; re-read the tree under the lock
        try:
            old = conn.execute("SELECT value FROM meta WHERE key = 'tree'").fetchone()[0]
            if old != target:
                self._apply(conn, old, load(), progress)
                conn.execute("UPDATE meta SET value = ? WHERE key = 'tree'", (target,))
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:  # a Ctrl-C just after COMMIT finds none (breaker10)
                conn.execute("ROLLBACK")
            raise

    def _apply(self, conn: sqlite3.Connection, old: str, tree: Any,
               progress: Progress | None) -> None:
        digests = self._changed(old, tree)
        if digests is None:  # the old tree is gone from git: start over
            # interned digests and keys stay: ids are never reused within the file
            conn.executescript("DELETE FROM records; DELETE FROM skipped;")
            digests = set(tree_digests(self.repo, tree))
        if progress is None and len(digests) >= LARGE_READ:
            log.warning("note: updating the query index %s: reading %s manifests once; at "
                        "1,000,000 this takes minutes", self.path, f"{len(digests):,}")
        loaded: dict[str, Loaded | None] = {}
        documents: dict[str, bytes] = {}  # each row's stored document (.rows)
        skipped: list[tuple[str, str, str]] = []
        for digest, manifest, document, why in read_manifests(
                self.repo, tree, sorted(digests, key=str), progress):
            loaded[digest] = manifest
            if document is not None:
                documents[digest] = document
            if why is not None:
                skipped.append((digest, *why))
        catalog = IndexCatalog(conn, str(tree.id))

        def fallback(digest: str) -> tuple[str, dict[str, Any]] | None:
            if digest in loaded:
                return None
            r = catalog.record(digest)
            return (r.kind, r.spec) if r is not None else None

        writer = rows.Writer(conn)
        # a build from nothing has nothing to describe again, nor to delete
        affected = [] if writer.empty else \
            [r for r in catalog.referencing(set(loaded)) if r.digest not in loaded]
        if not writer.empty:
            writer.delete(loaded)
            conn.executemany("DELETE FROM skipped WHERE digest = ?", ((d,) for d in loaded))
        conn.executemany("INSERT OR REPLACE INTO skipped VALUES (?, ?, ?)", skipped)
        present = {d: m for d, m in loaded.items() if m is not None}
        writer.write(describe_all(present, fallback).values(), documents)
        # runs whose referenced manifests came or went get their key computed again
        again = {r.digest: (r.kind, r.name, r.spec) for r in affected}
        writer.rederive(describe_all(again, chain(present, fallback)).values())

    def _changed(self, old: str, tree: Any) -> set[Digest] | None:
        """Digests whose object or metadata differ between tree ``old`` and ``tree``."""
        if old == _EMPTY_TREE:
            return set(tree_digests(self.repo, tree))
        try:
            old_tree = self.repo[old]
        except (KeyError, ValueError):
            return None
        return shard_diff(self.repo, old_tree, tree)


def shard_diff(repo: Any, old: Any, new: Any) -> set[Digest]:
    """Digests whose object or metadata file differs (bytes or mode) between two git trees.

    :func:`kistore.treediff.changed_files`, which reads only the subtrees whose ids differ
    (libgit2's ``diff_to_tree`` loaded every shard of both trees: 6 s at 1,000,000
    manifests to find the one a commit added); paths outside the layout are left out.

    Args:
        repo: the pygit2 repository.
        old: the pygit2 Tree indexed last.
        new: the pygit2 Tree to index.
    """
    changed: set[Digest] = set()
    for path in treediff.changed_files(repo, old, new):
        digest = layout.digest_from_path(path)
        if digest is not None:
            changed.add(digest)
    return changed


def _create_indexes(conn: sqlite3.Connection) -> None:
    conn.executescript("BEGIN IMMEDIATE;" + "".join(
        f"CREATE INDEX IF NOT EXISTS {name} ON {columns};"
        for name, columns in _INDEXES.items()) + "COMMIT;")


def open_catalog(store: Any, at: str | None = None, *, use_index: bool = True,
                 progress: Progress | None = None) -> Catalog:
    """Return the catalog queries read: of commit ``at``, or of the work tree.

    Args:
        store: a :class:`kistore.store.Store`.
        at: a revision, or None for the work tree (HEAD's index overlaid with the
            uncommitted files under ``store/``).
        use_index: False to scan the store instead (O(store); no file written).
        progress: passed to :meth:`Index.catalog`.

    When the index cannot be written (a read-only ``.git``), the store is scanned instead:
    slower, same answers. A work-tree query whose ``HEAD`` and notes tip are those the
    index last saw reads git through no pygit2 at all (:mod:`.warm`).

    Raises:
        InputError: ``at`` names no commit.
    """
    if not use_index:
        return MemoryCatalog.from_view(store.view(at))
    if at is None and store.root is None:
        at = "HEAD"
    try:
        if at is None:
            return _work_tree_catalog(store, progress)
        tree = store.commit(at).tree
        return Index(store).catalog(str(tree.id), lambda: tree, progress)
    except (OSError, sqlite3.Error):  # e.g. a read-only .git: answer by scanning
        return MemoryCatalog.from_view(store.view(at))


def _work_tree_catalog(store: Any, progress: Progress | None) -> Catalog:
    """Return the index of ``HEAD`` overlaid with the work tree's changes (:func:`open_catalog`)."""
    try:
        commit = warm.head_commit(store.git_dir)
    except refs.RefsUnreadable:
        commit = None if store.repo.head_is_unborn else str(store.commit("HEAD").id)
    if commit is None:  # unborn branch: no tree to compare with, and a small store
        changed = {d for path in store.repo.status()
                   if (d := layout.digest_from_path(path)) is not None}
        return OverlayCatalog.over(MemoryCatalog({}), store.view(None), changed)
    tree: list[Any] = []

    def load() -> Any:  # the pygit2 tree, read once and only when something changed
        if not tree:
            tree.append(store.commit(commit).tree)
        return tree[0]

    index = Index(store)
    conn: sqlite3.Connection | None = None
    with index.writing():  # opened under the lock: no rebuild deletes the file meanwhile
        try:
            conn = index.open()
            tree_id = warm.tree_of(store, conn, commit)
        except sqlite3.DatabaseError:  # not an index we trust: catalog() rebuilds it
            if conn is not None:
                conn.close()
            conn, tree_id = None, str(load().id)
        base = index.catalog(tree_id, load, progress, conn=conn)
    head = warm.HeadTree(store, base.conn, tree_id, load)
    changed = changed_digests(store.root, head, base.conn)
    check = FileCheck(store.root, base.conn, head)
    # what HEAD's index skipped as damaged is read again where the work tree changed it
    changed |= {Digest.from_str(d) for d in check.stale(base.skipped())}
    # every answer's files are checked by stat data: an in-place rewrite shows (.fresh)
    catalog: Catalog = CheckedCatalog(base, store.view(None), changed, check)
    catalog.annotated = warm.annotated_blobs(store, base.conn)
    return catalog


def tree_digests(repo: Any, tree: Any) -> Iterator[Digest]:
    """Yield the digest named by every object file of a git tree (bytes unchecked)."""
    try:
        objects = repo[tree[layout.OBJECTS_DIR].id]
    except KeyError:
        return
    for shard in objects:
        if shard.type_str != "tree":
            continue
        for leaf in repo[shard.id]:
            digest = layout.digest_from_path(f"{layout.OBJECTS_DIR}/{shard.name}/{leaf.name}")
            if digest is not None:
                yield digest


def count_objects(repo: Any, tree: Any) -> int:
    """Return how many entries the object shards of a git tree hold (for progress bars)."""
    try:
        objects = repo[tree[layout.OBJECTS_DIR].id]
    except KeyError:
        return 0
    return sum(len(repo[shard.id]) for shard in objects if shard.type_str == "tree")
