"""The query rows of the derived index, kept in step with one git tree.

The index file (:mod:`._database`) holds a cache of :class:`~.records.Record` rows (stored
compactly: :mod:`._rows`), never part of the store and never committed: deleting it loses
nothing. It remembers the tree it last indexed; asked about another tree it applies the
git tree diff between the two (pygit2) in one transaction, re-describing the runs that
reference a manifest that came or went. Its rows are rebuilt from scratch by ``kistore
reindex``, and whenever they cannot be trusted: a tree it names that git no longer has
(the rows are read again), or any SQLite error while reading them; a file that is not
SQLite or of another format is started again when it is opened.

The work tree (the default view) is answered as the index of ``HEAD`` overlaid with the
manifests whose files in the work tree differ from ``HEAD`` (:func:`open_catalog`, found
by :mod:`._worktree` without stating every file).
"""

from __future__ import annotations

import contextlib
import itertools
import sqlite3
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from ..core import hashes, layout
from ..core.digest import Digest, is_digest
from ..core.errors import KistoreError, StoreStateError
from ..core.limits import DEFAULT, Limits, walk_bound
from ..core.once import warn_once
from ..git import refs, treediff
from ..git.sparse import skip_worktree
from ..git.treediff import shard_leaves, subtree, subtree_id
from . import _counted_state as counted_state
from . import _database as database
from . import _rows as rows
from . import warm
from ._build import Read, oversized, parse_known, parse_validated, read_manifests
from ._database import EMPTY_TREE, LARGE_READ, Progress, get_meta, log, seal, set_meta, unsealed
from ._fresh import CheckedCatalog, FileCheck
from ._transaction import transaction
from ._worktree import changed_digests
from .catalog import (
    Catalog,
    Loaded,
    MemoryCatalog,
    OverlayCatalog,
    chain,
    describe_all,
    in_listing_order,
    limit_key,
)
from .records import Listed, Record

if TYPE_CHECKING:  # pragma: no cover - typing only
    import pygit2

    from ..core.model import Manifest
    from .interfaces import IndexedStore

DAMAGE = (sqlite3.Error, ValueError, TypeError, KeyError, zlib.error)
"""What reading rows the index cannot be trusted for raises: an SQLite error, a row that
does not match its seal (:class:`.database.Damaged`, a ValueError) or does not decode."""

_T = TypeVar("_T")


CATCH_UP = 1_000
""":meth:`Index.advance` first reads from git up to this many manifests the index is
behind the add's parent (e.g. a `git pull` since the last query); more are left, with the
add's, to the next query."""

BULK = 10_000
""":meth:`Index.advance` of at least this many manifests into empty rows drops the SQL
indexes of the query rows and creates them after, as a rebuild does."""

_QUERY_INDEXES = tuple(name for name, columns in database.INDEXES.items()
                       if columns.startswith(("records ", "keys ")))


class Prepared:
    """What :meth:`Index.prepare` made of an add's files before its commit landed.

    A plain class, not a dataclass: every process that opens the index imports this
    module, and making a dataclass costs ~1.5 ms of start-up (its methods are compiled).

    Attributes:
        parsed: digest string -> its ``Read`` (:func:`._build.parse_known`).
        tree: the tree the index's rows described when ``records`` were made.
        records: digest string -> :class:`~.records.Record` of each parsed manifest.
        compressed: ``(dictionary, {digest string: stored document deflated with it})``.
        limits: the store's ``[limits]`` ``parsed`` was made under (None: not known; the
            add reads them).
        slim: ``parsed`` and ``records`` were let go of what only a change of the rows or
            of the dictionary would need again (:func:`_slimmed`): each stored document
            ``compressed`` holds, and each run's spec. :meth:`Index.advance` uses them only
            when ``records`` and ``compressed`` hold as they are; else it parses the files.
    """

    __slots__ = ("compressed", "limits", "parsed", "records", "slim", "tree")

    def __init__(self, parsed: dict[str, Read], tree: str | None = None,
                 records: dict[str, Record] | None = None,
                 compressed: tuple[bytes, dict[str, bytes]] | None = None,
                 limits: Limits | None = None, slim: bool = False) -> None:
        self.parsed = parsed
        self.tree = tree
        self.records = records
        self.compressed = compressed
        self.limits = limits
        self.slim = slim


class IndexDamaged(StoreStateError):
    """Rows of the index could not be trusted, and could not be rebuilt where they were read."""


class IndexCatalog(Catalog):
    """A catalog answered by SQL over the index of one tree.

    Every row read is checked against its seal (:mod:`._rows`). When a read finds a row it
    cannot trust, the catalog's ``repair`` rebuilds the index in place and the question is
    asked again: an answer never comes from an edited or damaged row.

    Args:
        conn: an open connection to an index that is in step with ``tree``.
        tree: the tree id (hex) it answers for.
        codec: the connection's :class:`.rows.Codec` (default: read when first needed).
        repair: rebuilds the index from ``tree`` and returns the connection to read
            (:meth:`Index.rebuild`); called at most once. None: a damaged row raises
            :class:`IndexDamaged`.
    """

    def __init__(self, conn: sqlite3.Connection, tree: str,
                 codec: rows.Codec | None = None,
                 repair: Callable[[], sqlite3.Connection] | None = None) -> None:
        self.conn = conn
        self.tree = tree
        self._skipped: dict[str, tuple[str, str]] | None = None
        self._codec = codec
        self._repair = repair

    @property
    def codec(self) -> rows.Codec:
        """The index's row codec (its compression dictionary), read once."""
        if self._codec is None:
            self._codec = rows.Codec.of(self.conn)
        return self._codec

    def _trusted(self, read: Callable[[], _T]) -> _T:
        """Return ``read()``; when it meets a row it cannot trust, repair and read again.

        Raises:
            IndexDamaged: no repair here, or the rows read after it still cannot be trusted.
        """
        try:
            return read()
        except DAMAGE as e:
            error: BaseException = e
            try:
                if self._rebuild(f"it holds a row it cannot trust ({e})"):
                    return read()
            except DAMAGE as again:
                error = again
        raise IndexDamaged(
            f"the derived index is damaged ({error}); run `kistore reindex` (deleting it "
            "loses nothing)", file=str(index_path_hint(self.conn))) from None

    def _rebuild(self, why: str) -> bool:
        """Rebuild the index with the catalog's ``repair`` (once); False when there is none.

        Raises:
            sqlite3.Error: the rebuild failed (callers treat it as damage).
        """
        if self._repair is None:
            return False
        repair, self._repair = self._repair, None
        log.warning("note: rebuilding the index %s: %s", index_path_hint(self.conn), why)
        self.conn = repair()
        self._codec, self._skipped = None, None
        return True

    def recheck(self, digest: str) -> Record | None:
        """Rebuild the index and look ``digest`` up again (see :meth:`.catalog.Catalog.recheck`).

        A readable manifest of the tree that neither has a row nor is listed as skipped
        means rows were deleted or a digest edited from outside kistore: never trusted.
        """
        if not is_digest(digest) or digest in self.skipped():
            return None
        try:
            rebuilt = self._rebuild(f"it has no row for {digest}, which the store holds")
        except DAMAGE:
            return None
        return self.record(digest) if rebuilt else None

    def _select(self, where: str, args: tuple[Any, ...]) -> list[Record]:
        """Return the records of ``SELECT ... WHERE where`` (:data:`.rows.SELECT`), unguarded."""
        found = self.conn.execute(f"{rows.SELECT} WHERE {where}", args).fetchall()
        return self.codec.decode_all(found)

    def record(self, digest: str) -> Record | None:  # noqa: D102 - documented on Catalog
        if not is_digest(digest):
            return None
        found = self._trusted(lambda: self._select(f"r.id = {rows.DIGEST_ID}",
                                                   (rows.raw(digest),)))
        return found[0] if found else None

    def group(self, key: str) -> list[Record]:  # noqa: D102
        if not is_digest(key):
            return []
        return self._trusted(lambda: self._select(
            f"r.key IN (SELECT id FROM keys WHERE key = {rows.DIGEST_ID}) ORDER BY d.digest",
            (rows.raw(key),)))

    def records(self, *, kind: str | None = None, workload: str | None = None,  # noqa: D102
                hardware: str | None = None) -> list[Record]:
        if workload is not None and not is_digest(workload):
            return []
        clauses, args = _where(kind, workload, hardware)
        # sorted here: an ORDER BY made SQLite walk the (kind, name) index of every row of
        # a kind instead of looking the workload or hardware up (same order: UTF-8 bytes)
        return in_listing_order(self._trusted(lambda: self._select(" AND ".join(clauses),
                                                                   args)))

    def named(self, kind: str, name: str) -> Record | None:  # noqa: D102
        found = self._trusted(lambda: self._select("r.kind = ? AND r.name = ?",
                                                   (rows.kind_code(kind), name)))
        return found[0] if found else None

    def referencing(self, digests: set[str]) -> list[Record]:  # noqa: D102
        wanted = [rows.raw(d) for d in digests if is_digest(d)]
        if not wanted:
            return []
        return self._trusted(lambda: self._referencing(wanted))

    def _referencing(self, wanted: list[bytes]) -> list[Record]:
        """:meth:`referencing` of the digests' raw bytes, unguarded (ids read afresh)."""
        # one join through a temporary table, however many digests (a rebuild asks ~all)
        self.conn.execute("CREATE TEMP TABLE IF NOT EXISTS wanted (id INTEGER PRIMARY KEY)")
        self.conn.execute("DELETE FROM wanted")
        self.conn.executemany("INSERT OR IGNORE INTO wanted SELECT id FROM digests "
                              "WHERE digest = ?", ((d,) for d in wanted))
        # one indexed lookup per reference column: an OR of the four made SQLite read
        # every row (100,000 runs: ~0.35 s for each query overlaying work-tree files)
        try:
            return self._select("r.id IN (" + " UNION ".join(
                f"SELECT id FROM records WHERE {c} IN (SELECT id FROM wanted)"
                for c in ("workload", "protocol", "environment", "implementation"))
                + f") AND +r.kind = {rows.RUN}", ())
        finally:
            self.conn.execute("DELETE FROM wanted")

    def run_groups(self, chunk: int = 1000) -> Iterator[tuple[str | None, list[Record]]]:
        """As :meth:`Catalog.run_groups`, streamed: one group (or chunk) in memory at a time.

        One query ordered by the group's interned key id (groups then come in the order
        their keys were first indexed), read ``chunk`` rows at a time, decoded by a
        private codec that forgets the ids it resolved after each chunk: memory stays one
        chunk and one group, whatever the number of groups.

        Raises:
            StoreStateError: a row cannot be read or decoded (the derived index is
                damaged; the message names it and says ``kistore reindex``).
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

    def listing(self, *, kind: str | None = None, workload: str | None = None,  # noqa: D102
                hardware: str | None = None, details: bool = True) -> list[Listed]:
        if workload is not None and not is_digest(workload):
            return []
        clauses, args = _where(kind, workload, hardware)
        # in the order of the covering index records_list: no sort for a listing by kind
        query = f"{rows.LIST} WHERE {' AND '.join(clauses)} ORDER BY r.kind, r.name, r.digest"
        return self._trusted(lambda: self.codec.list_all(
            self.conn.execute(query, args).fetchall(), details=details))

    def names(self, kind: str) -> dict[str, str]:  # noqa: D102 - documented on Catalog
        return {e.digest: e.name for e in self.listing(kind=kind, details=False)}

    def skipped(self) -> dict[str, tuple[str, str]]:  # noqa: D102 - documented on Catalog
        if self._skipped is None:
            self._skipped = self._trusted(self._read_skipped)
        return self._skipped

    def _read_skipped(self) -> dict[str, tuple[str, str]]:
        """Return the ``skipped`` table, each row checked against its seal."""
        return {d: (path, why) for d, path, why in (unsealed(row) for row in self.conn.execute(
            "SELECT digest, path, problem, seal FROM skipped ORDER BY digest"))}

    def document(self, digest: str) -> bytes | None:
        """Return the canonical object bytes the record of ``digest`` was made from.

        Rebuilt from the compact row (:meth:`.rows.Codec.document_bytes`): equal, byte for byte,
        to the object file the index read. None when the index holds no such record.
        """
        if not is_digest(digest):
            return None

        def read() -> bytes | None:
            row = self.conn.execute(f"{rows.SELECT} WHERE r.id = {rows.DIGEST_ID}",
                                    (rows.raw(digest),)).fetchone()
            return self.codec.document_bytes(row) if row is not None else None

        return self._trusted(read)


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
        path: where the database lives (default: :func:`.database.index_path` of its git dir).
        at: the revision whose ``kistore.toml`` sets the ``[limits]`` the rows are made
            under (a query ``--at REV``: REV's, as ``verify --at REV`` reads them); None:
            the work tree's (a bare repository's: ``HEAD``'s).
    """

    def __init__(self, store: IndexedStore, path: Path | None = None, *,
                 at: str | None = None) -> None:
        self.store = store
        self.path = path or database.index_path(store.git_dir)
        self.at = at

    @property
    def repo(self) -> pygit2.Repository:
        """The store's pygit2 repository (opened only when the index must change)."""
        return self.store.repo

    def catalog(self, tree_id: str, load: Callable[[], pygit2.Tree],
                progress: Progress | None = None, *,
                conn: sqlite3.Connection | None = None) -> IndexCatalog:
        """Return a catalog of a tree, updating (or rebuilding) the index to it first.

        Args:
            tree_id: the tree's id (hex).
            load: returns the pygit2 Tree; called only when the index is not already in
                step with ``tree_id`` (a warm query never loads it).
            progress: called with the number of manifests processed, for progress bars.
            conn: the connection :meth:`open` returned, when the caller has it.

        Raises:
            OSError: the index file cannot be created (e.g. a read-only ``.git``).
        """
        conn = conn or self.open()
        codec = None
        try:
            self._sync(conn, tree_id, load, progress)
            codec = _probe(conn)
        except Miscounted as e:  # said: it was no format change or a page SQLite lost
            log.warning("note: rebuilding the index %s: %s", self.path, e)
            conn = self.rebuild(load(), progress)
        except (*DAMAGE, IndexDamaged):
            conn = self.rebuild(load(), progress)  # never trusted when it fails to read
        return IndexCatalog(conn, tree_id, codec,
                            repair=lambda: self.rebuild(load(), in_place=True))

    def rebuild(self, tree: pygit2.Tree, progress: Progress | None = None, *,
                keep_work_tree_cache: bool = False, in_place: bool = False
                ) -> sqlite3.Connection:
        """Build the query rows again from ``tree``, from nothing; return the connection.

        In place, in one transaction, under the exclusive lock (:func:`.database.exclusive`:
        it waits for every other process that has the index open): the query tables are
        dropped, created and filled, so a reader never sees a half-built index and this
        process's other users of the connection keep it. A file SQLite cannot read (a
        damaged page) is started again (:func:`.database.reset`). The name tables are left
        to :class:`~.names.NameIndex`.

        Args:
            tree: the pygit2 Tree to index.
            progress: called with the number of manifests processed.
            keep_work_tree_cache: keep the caches keyed by git and file-system state alone
                (clean work-tree directories, ``HEAD``'s shards and their listings, files
                last seen clean): without them the next work-tree query re-reads every file
                (100,000 runs: ~20 s of CPU). Only for a rebuild on request (``kistore
                reindex``), never for a damaged index.
            in_place: never start the file again (its connection stays the one to read,
                as a catalog repairing itself mid-answer needs): a page SQLite cannot read
                raises instead.

        Raises:
            sqlite3.DatabaseError: ``in_place``, and the file has a page SQLite cannot read.
        """
        with database.exclusive(self.path):
            try:
                conn = self.open()
                self._fill(conn, tree, progress, keep_work_tree_cache)
            except sqlite3.OperationalError:
                raise
            except sqlite3.DatabaseError as e:  # a page SQLite cannot read
                if in_place:
                    raise
                database.reset(self.path, f"it is damaged: {e}")
                conn = self.open()
                self._fill(conn, tree, progress, False)
        return conn

    def _fill(self, conn: sqlite3.Connection, tree: pygit2.Tree, progress: Progress | None,
              keep_caches: bool) -> None:
        """Drop, create and fill the query tables (and the caches unless kept): one transaction."""
        tables = database.QUERY_TABLES + (() if keep_caches else database.CACHE_TABLES)
        with transaction(conn):
            for table in tables:
                conn.execute(f"DROP TABLE IF EXISTS {table}")  # its SQL indexes go with it
                conn.execute(database.TABLES[table])
            if not keep_caches:  # the keys the dropped caches were valid for
                conn.execute("DELETE FROM meta WHERE key NOT IN ('format', 'file', 'tree')")
            set_meta(conn, tree=EMPTY_TREE)
            database.new_file_id(conn)
            self._sync(conn, str(tree.id), lambda: tree, progress)
            for name, columns in database.INDEXES.items():  # filled first, then indexed
                conn.execute(f"CREATE INDEX IF NOT EXISTS {name} ON {columns}")

    def open(self) -> sqlite3.Connection:
        """Return this process's connection to the index (:func:`.database.connection`).

        Raises:
            OSError, sqlite3.OperationalError: the file cannot be created or opened.
        """
        return database.connection(self.path)

    def _sync(self, conn: sqlite3.Connection, target: str, load: Callable[[], pygit2.Tree],
              progress: Progress | None) -> None:
        """Move the index to tree ``target`` under the store's limits, in one transaction.

        What the rows hold is decided by the tree and by ``[limits]``: a file past
        ``manifest-bytes`` is skipped, not read; a manifest with a string, an array or an
        object past ``string-length``, ``array-length`` or ``object-members`` is skipped.
        The index records the tree and the limits (meta ``tree``, ``limit`` and ``values``:
        :func:`held_limits`), and the key of the settings the limits were read from (meta
        ``settings``, :func:`settings_key`: no TOML is parsed while the file is unchanged).
        Another tree applies the tree diff; other limits read again the manifests they
        change (:meth:`_relimit`).
        """
        key = settings_key(self.store, self.at)
        if get_meta(conn, "tree") == target and key is not None:
            held_key, _, held_said = (get_meta(conn, "settings") or "").partition("\n")
            if held_key == key:
                _counted(conn)
                if held_said:  # the file still does not parse: every query says so (r60 F2)
                    _say(held_said)
                return
        limits, said = read_limits(self.store, self.at)
        _say(said)
        wanted = held_limits(limits)
        with transaction(conn):  # one writer; re-read the tree under SQLite's lock
            old = get_meta(conn, "tree") or EMPTY_TREE
            tree = None
            if old == EMPTY_TREE:  # a build from nothing: every row under these limits
                set_meta(conn, **wanted)
            if old != target:
                tree = load()
                self._apply(conn, old, tree, progress, limits=limits)
                set_meta(conn, tree=target)
            held = {name: get_meta(conn, name) for name in wanted}
            if held != wanted:
                self._relimit(conn, tree or load(), limits, held)
            if key is not None:  # and what the file's limits said, repeated while it holds
                set_meta(conn, settings=key if said is None else f"{key}\n{said}")
            set_meta(conn, rows=_row_counts(conn))

    def _relimit(self, conn: sqlite3.Connection, tree: pygit2.Tree, limits: Limits,
                 held: Mapping[str, str | None]) -> None:
        """Bring the rows of ``tree`` under ``limits`` (in the caller's transaction).

        The rows were made under ``held`` (:func:`held_limits`; a value None or not
        understood: not known, an index from before it was recorded). Read again: every
        manifest skipped as past a limit (it may pass now, and its message names the
        limit), and every manifest with a file that may pass a limit now lower (or not
        known): past ``manifest-bytes``, or long enough to hold a string, an array or an
        object past a lowered ``string-length``, ``array-length`` or ``object-members``
        (:func:`~kistore.core.limits.walk_bound` with the limits held).
        Those are found by :func:`._build.oversized` from blob headers (no file read); a
        real manifest (16 KB at most) is below both bounds unless a limit is set below
        it. Runs that reference them are described again (:meth:`_apply`).

        Args:
            conn: the index connection.
            tree: the pygit2 Tree the rows describe.
            limits: the store's ``[limits]`` now.
            held: the limits the rows were made under (meta ``limit`` and ``values``).
        """
        again = {Digest.from_str(d) for d, (_, why) in IndexCatalog(conn, str(tree.id))
                 ._read_skipped().items() if limit_key(why) is not None}
        held_bytes, held_values = _parse_held(held)
        bounds = []
        if held_bytes is None or limits.manifest_bytes < held_bytes:
            bounds.append(limits.manifest_bytes)
        if (bound := walk_bound(limits, held_values)) is not None:
            bounds.append(bound)
        if bounds:
            if (count := count_objects(self.repo, tree)) >= LARGE_READ:
                log.warning("note: [limits] changed for the query index %s: reading the size "
                            "of the files of %s manifests once", self.path, f"{count:,}")
            again |= oversized(self.repo, tree, min(bounds))
        if again:
            self._apply(conn, str(tree.id), tree, None, changed=again, limits=limits)
        set_meta(conn, **held_limits(limits))

    def prepare(self, files: Mapping[str, bytes],
                manifests: Iterable[Manifest] = ()) -> Prepared:
        """Make what :meth:`advance` needs of the manifests an add is about to commit.

        Called while the add's work-tree files are being written by other processes (a
        second CPU), before its commit lands: takes the add's validated manifests as they
        are (:func:`._build.parse_validated`: not hashed, parsed strictly nor validated
        again) and parses the rest of its files (:func:`._build.parse_known`; no git),
        then, reading the index (no write), describes them and compresses their stored
        documents as :meth:`_apply` would. :meth:`advance` uses each part only if what it
        depends on is unchanged when it writes: the parse depends on the bytes and the
        store's ``[limits]`` alone; the records on the rows as they are; the compressed
        documents on the index's dictionary.

        Args:
            files: path -> bytes the add writes.
            manifests: the add's manifests among them (:class:`~kistore.core.model.
                Manifest`, validated by construction).

        Returns:
            The :class:`Prepared` parts (``records`` and ``compressed`` None when the index
            could not be read).
        """
        limits = store_limits(self.store)
        parsed = parse_validated(manifests, files, limits=limits)
        given = {layout.object_path(Digest.from_str(d)) for d in parsed}
        rest: dict[str, bytes] = {}
        for path in files:  # object files of no manifest given: parsed from their bytes
            if path.startswith(layout.OBJECTS_DIR) and path not in given and \
                    (digest := layout.digest_from_path(path)) is not None:
                rest[path] = files[path]
                meta = files.get(layout.metadata_path(digest))
                if meta is not None:
                    rest[layout.metadata_path(digest)] = meta
        parsed.update(parse_known(rest, limits=limits))
        prepared = Prepared(parsed, limits=limits)
        try:
            conn = self.open()
            tree = get_meta(conn, "tree") or EMPTY_TREE
            catalog = IndexCatalog(conn, tree)
            loaded = {d: read[1] for d, read in parsed.items()}
            documents = {d: read[2] for d, read in parsed.items() if read[2] is not None}
            present = {d: m for d, m in loaded.items() if m is not None}
            prepared.records = describe_all(present, _fallback(loaded, catalog))
            prepared.tree = tree
            dictionary = rows.Codec.of(conn).dictionary or rows.sample(documents)
            codec = rows.Codec(None, dictionary)
            prepared.compressed = (dictionary, {d: codec.compress(doc)
                                                for d, doc in documents.items()})
        except (OSError, *DAMAGE):  # derived data: advance() makes them itself
            return prepared
        if all(str(d) in parsed for path in files
               if (d := layout.digest_from_path(path)) is not None):
            # held until the commit lands: ~3 KB a manifest less (1,000,000 in one add);
            # not when advance() reads some from git (a metadata file alone: describing
            # those again would need the specs)
            prepared.parsed, prepared.records = _slimmed(parsed, prepared.records,
                                                         prepared.compressed[1])
            prepared.slim = True
        return prepared

    def advance(self, parent: str | None, tree: pygit2.Tree, files: Mapping[str, bytes],
                prepared: Prepared | None = None) -> bool:
        """Move the index from tree ``parent`` to ``tree``: ``parent`` with ``files`` written.

        For ``add --commit`` (and ``import``), once its commit has landed: the manifests it
        wrote are indexed from the bytes it holds (no blob is read back from git), in one
        transaction, exactly as the next query's update would index them (the same
        parsing, checks, rows and seals; :meth:`_apply`), so that query finds the index
        in step instead of reading every manifest the add wrote. Only an index that
        describes ``parent`` (or a tree with the same manifests, or one a few manifests
        behind it, which are read from git first) is moved; any other is left for the next
        query. Never ahead of the branch: called after it moved, and a failure or an
        interrupt rolls the transaction back. Every row it makes is made under one
        ``[limits]`` (``prepared``'s, else the store's now); an index it builds from
        nothing records them (meta ``limit`` and ``values``, as :meth:`_sync` does), so
        the next query does not take their absence for a change of the limits and read
        the size of every manifest's file again (:meth:`_relimit`; issue 22: 490 s at
        100,000).

        Args:
            parent: the tree id (hex) of the commit's parent; None for a first commit.
            tree: the commit's pygit2 Tree, which holds ``parent``'s files and ``files``.
            files: path -> the exact bytes the commit wrote there.
            prepared: :meth:`prepare` of ``files``, made while the add wrote its files.

        Returns:
            True when the index now describes ``tree``; False when it was left as it was.

        Raises:
            OSError, sqlite3.Error: the index cannot be opened or written (it is left as
                it was: derived data, the next query updates it).
        """
        parent = parent or EMPTY_TREE
        ready = prepared or Prepared({})
        # one set of limits for every row this add makes (what its parse was made under)
        limits = ready.limits if ready.limits is not None else store_limits(self.store)
        conn = self.open()
        changed = {d for path in files if (d := layout.digest_from_path(path)) is not None}
        with transaction(conn):
            old = get_meta(conn, "tree") or EMPTY_TREE
            behind: set[Digest] | None = set()
            if old != parent:
                try:
                    base = subtree(self.repo, parent) if parent != EMPTY_TREE else None
                except (KeyError, ValueError):
                    return False
                behind = self._changed(old, base) if base is not None else (
                    None if old != EMPTY_TREE else set())
                if behind is None or len(behind) > CATCH_UP:
                    return False  # the next query updates it (as before this add)
                if behind and base is not None:
                    self._apply(conn, old, base, None, changed=behind, limits=limits)
            if old == EMPTY_TREE:  # a build from nothing: record its limits, as _sync does,
                set_meta(conn, **held_limits(limits))  # or the next query reads every size
            bulk = len(changed) >= BULK and conn.execute(
                "SELECT 1 FROM records LIMIT 1").fetchone() is None
            if bulk:  # filling a table, then indexing it, is faster (as a rebuild does)
                for name in _QUERY_INDEXES:
                    conn.execute(f"DROP INDEX IF EXISTS {name}")
            # the records hold when the rows are those they were described from: the same
            # tree, and nothing caught up since (a first add: `old` is empty, not `parent`)
            current = old == ready.tree and not behind
            if ready.slim and not (current and _dictionary_holds(conn, ready.compressed)):
                # what the slim parts let go of is needed: parse the add's bytes again
                ready = Prepared({}, limits=limits)
            self._apply(conn, parent, tree, None, changed=changed, known=files, quiet=True,
                        parsed=ready.parsed, described=ready.records if current else None,
                        compressed=ready.compressed, limits=limits)
            if bulk:
                for name in _QUERY_INDEXES:
                    conn.execute(f"CREATE INDEX IF NOT EXISTS {name} ON "
                                 f"{database.INDEXES[name]}")
            set_meta(conn, tree=str(tree.id), rows=_row_counts(conn))
        return True

    def _apply(self, conn: sqlite3.Connection, old: str, tree: pygit2.Tree,
               progress: Progress | None, *, changed: set[Digest] | None = None,
               known: Mapping[str, bytes] | None = None, quiet: bool = False,
               parsed: Mapping[str, Read] | None = None,
               described: Mapping[str, Record] | None = None,
               compressed: tuple[bytes, Mapping[str, bytes]] | None = None,
               limits: Limits | None = None) -> None:
        """Update the rows from tree ``old`` to ``tree`` (in the caller's transaction).

        Args:
            conn: the index connection.
            old: the tree id the rows describe.
            tree: the pygit2 Tree to describe.
            progress: called with the number of manifests read.
            changed: the digests whose files differ between the two trees, when the caller
                knows them (default: the tree diff, :meth:`_changed`).
            known: path -> bytes ``tree`` holds there, not read from git
                (:func:`._build.read_manifests`).
            quiet: no note on a large read (the caller is an add, not a query).
            parsed: what :func:`._build.parse_known` made of ``tree``'s bytes already,
                by digest string (not read again).
            described: the records of the manifests read, described from the rows as
                they are now (:meth:`prepare`); used only when they are exactly those.
            compressed: ``(dictionary, {digest: stored document deflated with it})``,
                used for the documents whose dictionary it is (:meth:`.rows.Writer.write`).
            limits: the limits the files are read under (default: :func:`store_limits`).
        """
        limits = store_limits(self.store, self.at) if limits is None else limits
        digests = changed if changed is not None else self._changed(old, tree)
        if digests is None:  # the old tree is gone from git: start over
            # interned digests and keys stay: ids are never reused within the file
            conn.execute("DELETE FROM records")  # executescript would COMMIT: not here
            conn.execute("DELETE FROM skipped")
            set_meta(conn, **held_limits(limits))  # every row read again, under these
            digests = set(tree_digests(self.repo, tree))
        if progress is None and not quiet and len(digests) >= LARGE_READ:
            log.warning("note: updating the query index %s: reading %s manifests once; at "
                        "1,000,000 this takes minutes", self.path, f"{len(digests):,}")
        loaded: dict[str, Loaded | None] = {}
        documents: dict[str, bytes] = {}  # each row's stored document (.rows)
        skipped: list[tuple[str, str, str]] = []
        listed = sorted(digests, key=str)
        done = [parsed[str(d)] for d in listed if str(d) in parsed] if parsed else []
        todo = [d for d in listed if str(d) not in parsed] if parsed else listed
        for digest, manifest, document, why in itertools.chain(done, read_manifests(
                self.repo, tree, todo, progress, limits=limits, known=known)):
            loaded[digest] = manifest
            if document is not None:
                documents[digest] = document
            if why is not None:
                skipped.append((digest, *why))
        catalog = IndexCatalog(conn, str(tree.id))
        fallback = _fallback(loaded, catalog)
        writer = rows.Writer(conn)
        # a build from nothing has nothing to describe again, nor to delete
        affected = [] if writer.empty else \
            [r for r in catalog.referencing(set(loaded)) if r.digest not in loaded]
        if not writer.empty:
            writer.delete(loaded)
            conn.executemany("DELETE FROM skipped WHERE digest = ?", ((d,) for d in loaded))
        conn.executemany("INSERT OR REPLACE INTO skipped VALUES (?, ?, ?, ?)",
                         [(*row, seal(row)) for row in skipped])
        present = {d: m for d, m in loaded.items() if m is not None}
        records = described if described is not None and described.keys() == present.keys() \
            else describe_all(present, fallback)
        writer.write(records.values(), documents, compressed)
        # runs whose referenced manifests came or went get their key computed again
        again = {r.digest: (r.kind, r.name, r.spec) for r in affected}
        writer.rederive(describe_all(again, chain(present, fallback)).values())

    def _changed(self, old: str, tree: pygit2.Tree) -> set[Digest] | None:
        """Digests whose object or metadata differ between tree ``old`` and ``tree``."""
        if old == EMPTY_TREE:
            return set(tree_digests(self.repo, tree))
        try:
            old_tree = subtree(self.repo, old)
        except (KeyError, ValueError):
            return None
        return shard_diff(self.repo, old_tree, tree)


_LET_GO: dict[str, Any] = {}
"""The spec a slim :class:`Prepared` holds for a run (never changed: shared by all)."""


def _slimmed(parsed: dict[str, Read], records: dict[str, Record],
             compressed: Mapping[str, bytes]) -> tuple[dict[str, Read], dict[str, Record]]:
    """Return ``parsed`` and ``records`` without what writing their rows as made never reads.

    Each stored document ``compressed`` holds deflated is dropped (:meth:`.rows.Writer.write`
    takes the deflated one), and each run's spec is replaced by an empty dict: a row is
    written from a record's derived fields (:func:`._rows._derived`), and a spec is read
    only to describe a manifest, which a run is never as a reference
    (:func:`.records.describe` looks up the four other kinds). The others keep theirs:
    runs already in the rows that reference them are described again with them.
    """
    slim: dict[str, Read] = {}
    for digest, (d, loaded, document, why) in parsed.items():
        if loaded is not None and loaded[0] == "BenchmarkRun":
            loaded = (loaded[0], loaded[1], _LET_GO)
        slim[digest] = (d, loaded, None if digest in compressed else document, why)
    kept = {d: r._replace(spec=_LET_GO) if r.kind == "BenchmarkRun" else r
            for d, r in records.items()}
    return slim, kept


def _dictionary_holds(conn: sqlite3.Connection,
                      compressed: tuple[bytes, Mapping[str, bytes]] | None) -> bool:
    """Return whether rows written now are deflated with ``compressed``'s dictionary.

    An index with no dictionary yet takes it (:meth:`.rows.Writer.write`); one that has
    another (rebuilt since :meth:`Index.prepare`) needs the documents themselves.
    """
    held = rows.Codec.of(conn).dictionary
    return compressed is not None and (not held or held == compressed[0])


class Miscounted(database.Damaged):
    """The index holds more or fewer query rows than it recorded with its tree."""


_COUNTS = "(SELECT count(*) FROM records), (SELECT count(*) FROM skipped)"
"""The two counts of the query rows as SQL result columns: the one statement of both
:func:`_row_counts` and :func:`_counted`."""


def _row_counts(conn: sqlite3.Connection) -> str:
    """Return how many query rows the index holds: ``"RECORDS SKIPPED"`` (meta ``rows``).

    Recorded (sealed) with the tree whenever the rows change; compared by every query
    (:func:`_counted`).
    """
    records, skipped = conn.execute(f"SELECT {_COUNTS}").fetchone()
    return f"{records} {skipped}"


def _counted(conn: sqlite3.Connection) -> None:
    """Check that the index holds as many query rows as it recorded with its tree.

    A row deleted from ``records`` (or one copied in) matches its seal, so nothing else
    noticed it: the run dropped silently out of ``rank``, ``ls`` and the site, through
    later adds, until a ``kistore reindex``; review 2026-12-02, F10. Counting costs a walk
    of the smallest SQL index of each table (docs/speed.md, "the row count of a query").
    An index made before this count (no meta ``rows``) records it now.

    The walk is skipped while the file and its ``-wal`` are as they were when the count
    last agreed (:mod:`._counted_state`: their inode, size and time stamps, remembered
    beside the file; a row deleted or copied through SQLite changes them): an unchanged
    index is checked in O(1), not O(rows). The state is taken before the count and
    remembered only when it is the same after (no write came in between) and settled.

    Raises:
        Miscounted: the counts differ (the caller rebuilds the rows: :meth:`Index.catalog`).
        Damaged: the recorded count does not match its seal (rebuilt as well).
    """
    path = Path(index_path_hint(conn))  # absolute; not a file (in memory): always counted
    before = counted_state.file_state(path) if path.is_absolute() else None
    if before is not None and counted_state.remembered(path) == before:
        return
    # one statement, one snapshot: an add committing meanwhile is seen whole or not at all
    row = conn.execute(f"SELECT key, value, seal, {_COUNTS} FROM meta WHERE key = 'rows'"
                       ).fetchone()
    if row is None:  # counted under the write lock: no add commits in between
        with contextlib.suppress(sqlite3.OperationalError), transaction(conn):
            if get_meta(conn, "rows") is None:  # a read-only .git: counted once it can be
                set_meta(conn, rows=_row_counts(conn))
        return
    held, found = str(unsealed(row[:3])[1]), f"{row[3]} {row[4]}"
    if held != found:
        records, skipped = held.split()
        now_records, now_skipped = found.split()
        raise Miscounted(
            f"it holds {now_records} query rows and {now_skipped} skipped, but recorded "
            f"{records} and {skipped} with its tree (a row deleted or copied from outside "
            "kistore)")
    if before is not None and counted_state.file_state(path) == before:
        counted_state.remember(path, before)


def _fallback(loaded: Mapping[str, Loaded | None], catalog: IndexCatalog
              ) -> Callable[[str], tuple[str, dict[str, Any]] | None]:
    """Return the lookup :meth:`Index._apply` describes with, past the manifests read.

    A manifest read (``loaded``) that did not parse is absent (None); any other is looked
    up in the rows as they are.
    """
    def fallback(digest: str) -> tuple[str, dict[str, Any]] | None:
        if digest in loaded:
            return None
        r = catalog.record(digest)
        return (r.kind, r.spec) if r is not None else None

    return fallback


def shard_diff(repo: pygit2.Repository, old: pygit2.Tree, new: pygit2.Tree) -> set[Digest]:
    """Digests whose object or metadata file differs (bytes or mode) between two git trees.

    :func:`kistore.git.treediff.changed_files`, which reads only the subtrees whose ids differ
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


def open_catalog(store: IndexedStore, at: str | None = None, *, use_index: bool = True,
                 progress: Progress | None = None) -> Catalog:
    """Return the catalog queries read: of commit ``at``, or of the work tree.

    Args:
        store: a :class:`kistore.store.Store`.
        at: a revision, or None for the work tree (HEAD's index overlaid with the
            uncommitted files under ``store/``).
        use_index: False to scan the store instead (O(store); no file written).
        progress: passed to :meth:`Index.catalog`.

    When the index cannot be written (a read-only ``.git``), the store is scanned instead:
    slower, same answers; when a link or a directory is where the index belongs, that is
    said once on stderr too (:func:`._database.say_fallback`). A work-tree query whose
    ``HEAD`` and notes tip are those the index last saw reads git through no pygit2 at all
    (:mod:`.warm`).

    Raises:
        InputError: ``at`` names no commit.
    """
    if not use_index:
        return MemoryCatalog.from_view(store.view(at))
    root = store.root
    if at is None and root is None:
        at = "HEAD"
    try:
        if at is None and root is not None:
            return _work_tree_catalog(store, root, progress)
        if at == "HEAD":
            catalog = _head_catalog(store, progress)
            if catalog is not None:
                return catalog
        tree = store.commit(at or "HEAD").tree  # (at is None only with a work tree)
        # the commit's own [limits] (notesat01 leftover: the work tree's were read)
        return Index(store, at=at).catalog(str(tree.id), lambda: tree, progress)
    except (OSError, sqlite3.Error) as e:  # e.g. a read-only .git: answer by scanning
        database.say_fallback(e)  # a link or a directory there: the user's to remove
        return MemoryCatalog.from_view(store.view(at))


def _head_catalog(store: IndexedStore, progress: Progress | None) -> IndexCatalog | None:
    """Return the index catalog of ``HEAD`` found through the files under ``.git`` (:mod:`.warm`).

    HEAD's commit id read from the ref files and its tree id cached in the index: when
    the index is in step, no pygit2 (~0.2 s to import) is loaded. None when the refs are
    not plain files or the branch is unborn (:func:`open_catalog` asks git then).
    """
    try:
        commit = warm.head_commit(store.git_dir)
    except refs.RefsUnreadable:
        return None
    if commit is None:
        return None
    tree: list[pygit2.Tree] = []

    def load() -> pygit2.Tree:  # read once, and only when the index must change
        if not tree:
            tree.append(store.commit(commit).tree)
        return tree[0]

    index = Index(store, at="HEAD")  # HEAD's [limits], not the work tree's
    conn = index.open()
    try:
        tree_id = warm.tree_of(store, conn, commit)
    except sqlite3.DatabaseError:  # not rows we trust: catalog() rebuilds them
        tree_id = str(load().id)
    return index.catalog(tree_id, load, progress, conn=conn)


def _work_tree_catalog(store: IndexedStore, root: Path, progress: Progress | None) -> Catalog:
    """Return the index of ``HEAD`` overlaid with the work tree's changes (:func:`open_catalog`)."""
    try:
        commit = warm.head_commit(store.git_dir)
    except refs.RefsUnreadable:
        commit = None if store.repo.head_is_unborn else str(store.commit("HEAD").id)
    if commit is None:  # unborn branch: no tree to compare with, and a small store
        # Lazy: the guard only here (a FIFO among the attributes files: status waits for ever).
        from ..git.attr_guard import refuse_blocking_attributes

        refuse_blocking_attributes(store.repo, "git's status of the work tree",
                                   writes=False)  # a query's: it writes nothing (low01)
        changed = {d for path in store.repo.status()
                   if (d := layout.digest_from_path(path)) is not None}
        return OverlayCatalog.over(MemoryCatalog({}), store.view(None), changed,
                                   marks=store.git_dir)
    tree: list[pygit2.Tree] = []

    def load() -> pygit2.Tree:  # the pygit2 tree, read once and only when something changed
        if not tree:
            tree.append(store.commit(commit).tree)
        return tree[0]

    index = Index(store)
    conn = index.open()  # under the shared lock: no rebuild deletes the file meanwhile
    try:
        tree_id = warm.tree_of(store, conn, commit)
    except sqlite3.DatabaseError:  # not rows we trust: catalog() rebuilds them
        tree_id = str(load().id)
    base = index.catalog(tree_id, load, progress, conn=conn)
    head = warm.HeadTree(store, base.conn, tree_id, load)
    skipped = skip_worktree(store.git_dir, root)  # a sparse checkout's paths outside it
    check = FileCheck(root, base.conn, head, skipped)
    # a directory whose mtime changed has its kept names' files checked by stat (ls, F12)
    changed = changed_digests(root, head, base.conn, skipped, check.stale)
    if skipped is not None:  # a change staged outside the checkout: read from the view
        changed |= {d for path in skipped.staged if (d := layout.digest_from_path(path))}
    # what HEAD's index skipped as damaged is read again where the work tree changed it
    changed |= {Digest.from_str(d) for d in check.stale(base.skipped())}
    # every answer's files are checked by stat data: an in-place rewrite shows (.fresh)
    # a changed manifest's schema verdict is kept by its bytes (.checked): an uncommitted
    # `add` is checked once, not by every later answer (docs/speed.md, start-up at 1,000,000)
    catalog: Catalog = CheckedCatalog(base, store.view(None), changed, check,
                                      marks=store.git_dir)
    catalog.annotated = warm.annotated_blobs(store, base.conn)
    # runs HEAD holds attestation files of: read where the work tree lost them (F15)
    catalog.committed = warm.HeadAttested(head)
    if skipped is not None:  # notes and attestation files outside the checkout: the index's
        catalog.outside = warm.OutsideCheckout(skipped, head)
    return catalog


def tree_digests(repo: pygit2.Repository, tree: pygit2.Tree) -> Iterator[Digest]:
    """Yield the digest named by every object file of a git tree (bytes unchecked)."""
    for path, _ in shard_leaves(repo, tree, layout.OBJECTS_DIR):
        digest = layout.digest_from_path(path)
        if digest is not None:
            yield digest


def count_objects(repo: pygit2.Repository, tree: pygit2.Tree) -> int:
    """Return how many entries the object shards of a git tree hold (for progress bars)."""
    objects = subtree_id(repo, tree, layout.OBJECTS_DIR)  # None: absent, or not a folder (KI110)
    if objects is None:
        return 0
    return sum(len(subtree(repo, shard.id)) for shard in subtree(repo, objects)
               if shard.type_str == "tree")


def settings_key(store: IndexedStore, at: str | None = None) -> str | None:
    """Return a key of the settings the store's limits are read from, without parsing them.

    :meth:`kistore.store.Store.limits` reads the work tree's ``kistore.toml`` (in a bare
    repository, or a clone not checked out, ``HEAD``'s): the key is the BLAKE2b of the
    bytes of the file it reads (:meth:`~kistore.store.Store.settings_file`: one small
    file), or in a bare repository ``HEAD``'s commit id read from the ref files (no pygit2).
    While it is what the index recorded, the limits the rows were made under still hold
    (:meth:`Index._sync`); when it is not, :func:`store_limits` parses the file.

    With ``at`` (a query ``--at REV``), the key of REV's file's bytes and of ``REV`` as
    given (the warning of a bad file, kept with the key, names the revision); ``HEAD``'s
    commit id read from the ref files for ``HEAD`` (its file is the commit's: no pygit2).

    Returns:
        The key; None when it cannot be had cheaply (refs that are not plain files, an
        unborn branch): the limit is then parsed every time.
    """
    if at is not None and at != "HEAD":
        try:
            data = store.settings_file(at)[0] or b""
        except (KistoreError, OSError):
            return None
        # the revision too: what a query says of a bad file names it (msg03)
        named = at.encode("utf-8", "surrogateescape") + b"\0" + data
        return "at:" + hashes.blake2b(named, digest_size=16).hexdigest()
    if store.root is not None and at is None:
        try:
            data = store.settings_file()[0] or b""
        except (KistoreError, OSError):
            return None
        return "work:" + hashes.blake2b(data, digest_size=16).hexdigest()
    try:
        commit = warm.head_commit(store.git_dir)
    except refs.RefsUnreadable:
        return None
    return None if commit is None else f"head:{commit}"


def store_limits(store: IndexedStore, at: str | None = None) -> Limits:
    """Return the store's ``[limits]``; each bad key of a bad kistore.toml at its default.

    A query never fails on a bad kistore.toml (``add`` refuses it; ``verify`` and the gate
    report it: KI108): each valid key applies, each bad one keeps its default
    (:meth:`kistore.store.Store.limits_per_key`; a file that does not parse at all: every
    default). It says so once a process (one command), on the ``kistore.index`` logger, in
    one warning naming each bad key (file, JSON Pointer, what is wrong, what applies
    instead) and what to do (:func:`_settings_warning`). Every query says it while the
    file is bad, not only the one that parsed it: :meth:`Index._sync` keeps what was said
    with the settings key and says it again when the key still holds. A manifest past a
    limit is left out of the index and listed as skipped (the next query after the limits
    changed reads it again: :meth:`Index._relimit`). ``at``: a revision, whose
    ``kistore.toml`` is read instead of the work tree's (:func:`read_limits`).
    """
    limits, said = read_limits(store, at)
    _say(said)
    return limits


def read_limits(store: IndexedStore, at: str | None = None) -> tuple[Limits, str | None]:
    """Return the store's ``[limits]`` and the warning a query gives about them, unsaid.

    Args:
        store: the store.
        at: a revision (a query ``--at REV``): its ``kistore.toml``'s limits, as ``verify
            --at REV`` reads them; None: the work tree's (a bare repository's: ``HEAD``'s).

    Returns:
        ``(limits, None)`` when kistore.toml parses (or the store has no settings);
        ``(limits, warning text)`` when some key does not (:func:`_settings_warning`,
        without the ``warning:`` prefix), each bad key at its default, or ``[store]
        version`` is not this kistore's (:meth:`kistore.store.Store.version_problems`, a
        line of its own).
    """
    try:
        limits, problems = store.limits_per_key(at)
    except KistoreError as e:  # the file could not be read at all
        limits, problems = DEFAULT, list(e.problems)
    except AttributeError:  # a store-like object of a test: no settings
        return DEFAULT, None
    limits = limits if isinstance(limits, Limits) else DEFAULT
    said = [_settings_warning(problems, at)] if problems else []
    try:  # a newer kistore's store version: answers may be misread (review 2026-12-02, F29)
        said += [str(p) for p in store.version_problems(at)]  # REV's own (review01 L5)
    except KistoreError:  # not a regular file: the limits' problems said so
        pass
    # one warning a line (the caller says the first's ``warning:``)
    return limits, ("\nwarning: ".join(said) if said else None)


def _say(said: str | None) -> None:
    """Log ``said`` on the ``kistore.index`` logger, once a process (:func:`warn_once`)."""
    if said is not None:
        warn_once("kistore.index", said)


def _settings_warning(problems: Sequence[KistoreError], at: str | None = None) -> str:
    """Return what a query says of a kistore.toml whose ``[limits]`` it reads per key.

    Args:
        problems: :meth:`kistore.store.Store.limits_per_key`'s (at least one).
        at: the revision whose committed file was read (a query's ``--at REV``); None:
            the work tree's file.

    Returns:
        One line: each problem (``FILE:/limits/KEY: what is wrong``) with what applies
        instead (``string-length = 65536, its default``; an unknown key, a table or a key
        of ``[store]``/``[cite]`` kistore does not read: ``ignored``), then
        that queries use the file's other limits until it is fixed, and how. A problem of
        the whole file (not TOML, ``[limits]`` no table): every limit at its default. At
        a revision, the fix fits a commit (msg03: "until kistore.toml is fixed: correct or
        remove each key named" was said of a past commit, whose file no edit changes):
        a new commit corrects it for the commits after it, and how to see it
        (:func:`kistore.core.settings.committed_help`; once only: a parse error at a
        revision says it already), and ``kistore verify --at REV``.
    """
    fields = {name.replace("_", "-"): name for name in Limits._fields}
    parts = []
    whole = False
    for problem in problems:
        key = (problem.pointer or "").removeprefix("/limits/")
        if key in fields:
            parts.append(f"{problem} ({key} = {getattr(DEFAULT, fields[key])} applies, its "
                         "default)")
        elif (problem.pointer or "/limits") != "/limits":  # a key, table kistore does not read
            parts.append(f"{problem} (ignored)")
        else:
            whole = True
            parts.append(str(problem))
    said = "; ".join(parts)
    if at is not None:  # a commit's file: no edit changes what a query at it reads
        # Lazy: said of a bad file only (a warm query loads no settings code)
        import shlex

        # Lazy: as shlex, the words of a bad committed file only
        from ..core.settings import committed_help, revision_said

        rev = revision_said(at)
        used = "the default limits" if whole else "the file's other limits"
        verify = f"`kistore verify --at {shlex.quote(rev)}` reports it, KI108"
        if "as committed at" in said:  # the problem said the commit's fix (parse_settings)
            return f"{said}; queries at {rev} use {used} ({verify})"
        fix = "corrects the file" if whole else "corrects or removes each key named"
        return (f"{said}; queries at {rev} use {used}: this is kistore.toml as committed at "
                f"{rev} ({committed_help(at)}): a commit's files never change, so a new "
                f"commit that {fix} fixes it for the commits after it ({verify})")
    if whole:
        return (f"{said}; queries use the default limits until kistore.toml is fixed "
                "(`kistore verify` reports it; `add` refuses it)")
    return (f"{said}; queries use the file's other limits until kistore.toml is fixed: "
            "correct or remove each key named (`kistore verify` reports it, KI108; `add` "
            "refuses it)")


def held_limits(limits: Limits) -> dict[str, str]:
    """Return how the index records the limits its rows are made under (its meta values).

    Returns:
        ``{"limit": manifest-bytes, "values": "string-length array-length
        object-members"}``, as text.
    """
    return {"limit": str(limits.manifest_bytes),
            "values": f"{limits.string_length} {limits.array_length} {limits.object_members}"}


def _parse_held(held: Mapping[str, str | None]) -> tuple[int | None, Limits | None]:
    """Read :func:`held_limits`' meta values back.

    Returns:
        ``(manifest-bytes, limits holding string-length, array-length and
        object-members)``; what is absent or not understood is None (an index from before
        ``object-members``, 2026-12-04, recorded two values: its rows were not held to it).
    """
    limit = held.get("limit")
    values = (held.get("values") or "").split()
    known = len(values) == 3 and all(v.isdigit() and int(v) > 0 for v in values)
    return (int(limit) if limit is not None and limit.isdigit() else None,
            DEFAULT._replace(string_length=int(values[0]), array_length=int(values[1]),
                             object_members=int(values[2]))
            if known else None)


def _where(kind: str | None, workload: str | None, hardware: str | None
           ) -> tuple[list[str], tuple[object, ...]]:
    """Return the SQL conditions on a ``records`` row ``r`` for the filters given, and args.

    ``records`` and ``listing`` filter alike: by kind, workload digest (a full digest) and
    hardware product; no filter is ``["1"]``.
    """
    filters = {"r.kind = ?": None if kind is None else rows.kind_code(kind),
               f"r.workload = {rows.DIGEST_ID}": None if workload is None
               else rows.raw(workload),
               "r.hardware = ?": hardware}
    clauses = [c for c, v in filters.items() if v is not None] or ["1"]
    return clauses, tuple(v for v in filters.values() if v is not None)
