"""The index's names: ``(kind, metadata.name) -> digest`` without reading the whole store.

``add`` must check that a name is unused and ``KIND/NAME`` must resolve, at 100,000
manifests and more, in a few milliseconds. Reading every object and metadata file to do it
is O(store). The names are two tables of the derived index (``.git/kistore/index.sqlite``,
:mod:`._database`), derived from the store, never committed: deleting the file loses
nothing, the next read rebuilds them. Every manifest whose kind and metadata name parse has
a row, whether or not it validates (the query rows hold only those that do).

They are kept per *scope*: ``work`` (the work tree) and ``commit`` (the last commit read
with ``at=REV``). Each scope remembers, per shard directory (``objects/XX``, ``metadata/XX``),
the key it indexed the shard at, and per manifest the keys of its two files:

* commit scope: keys are git tree and blob ids, so the names are exactly right for any
  commit: a shard whose tree id is unchanged is skipped, a changed shard is re-listed and
  only blobs with new ids are read;
* work scope: keys are the directory's ``st_mtime_ns`` and each file's
  :func:`.freshness.stat_key`, as git's own index trusts stat data (:mod:`.freshness`).
  A directory changed within :data:`.freshness.RACY_NS` of the look is kept by its listing
  (``MTIME#LISTING``, :func:`.freshness.listing_key`: names, inode numbers, ctimes) and trusted
  only while it lists the same: a write in the same clock tick leaves the mtime as it was,
  never the listing. ``kistore add`` records so the shards it wrote
  (:mod:`._names_added`), when they were in step before its write: the first query after
  an add lists no shard the add wrote (issue 22).
  Every add, removal or rename in a shard changes the directory's mtime, so it is seen; an
  in-place edit of a file in a shard whose directory did not change is not seen by a
  plain :meth:`NameIndex.sync` (``kistore verify`` and the pull-request gate read every
  file and remain the authority on names). Two lookups make up for it: ``KIND/NAME``
  resolution reads the metadata file it lands on and, when the name is no longer there,
  makes the index read that manifest again (:meth:`NameIndex.forget`). A name given to a
  manifest by rewriting its metadata file in place is found once ``kistore reindex`` has
  rebuilt the names (:meth:`NameIndex.rebuild`); a miss says so
  (:meth:`kistore.store.View.find_name`). ``sync(every_shard=True)`` compares every file's
  key, O(store) stats, for callers that must see such edits.

When no shard's key moved and none is racy, the 512 shard rows are not read either: one
row per scope (directory :data:`SUMMARY`) holds the BLAKE2b of every shard's key as of the
last whole sync; a sync whose keys give the same value has nothing to do (one sealed row
read instead of 512: ~3 ms of each fresh ``rank`` or ``show``, docs/speed.md, "Start-up,
second pass"), as the rows equal to those keys would have had. A racy key is trusted by
its listing alone, never by the summary. Every write of the shard rows but a sync
(:meth:`NameIndex.record`, :meth:`NameIndex.forget`, a repair, :meth:`NameIndex.clear`)
deletes it.

A shard is listed by a sync when its key moved, and also when it holds rows that no key
covers (no directory in the source, no ``name_shards`` row): an add records its names
with no shard row for a directory not in step before its write, and a ``git stash -u``
can take that directory away before any sync lists it (fresh15 F6: the stashed names
were kept for good, taken by digests no command could show).

The store layer hands in a :class:`Source` (the work tree or a commit); this module does no
git itself.
"""

from __future__ import annotations

import bisect
import contextlib
import sqlite3
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import NamedTuple, Protocol, TypeVar

from ..core import layout
from ..core.canonical_fast import loads_lenient
from ..core.digest import Digest
from ..core.hashes import blake2b
from ..core.limits import PastLimit
from . import _database as database
from ._database import INDEXES, LARGE_READ, Damaged, Progress, index_path, log, seal
from ._transaction import transaction
from .freshness import LISTED, RECENT

_NAME_INDEX = f"CREATE INDEX IF NOT EXISTS names_by_key ON {INDEXES['names_by_key']}"
_T = TypeVar("_T")

_LOOKUP_LIMIT = 2_000
""":meth:`NameIndex.shared` looks up to this many names one by one; more, it reads the
shared names of the whole name index in one pass instead."""

SUMMARY = "*"
"""The ``name_shards`` directory of a scope's summary row (no shard is named so)."""


class Source(Protocol):
    """What the names need to know about a view of the store (work tree or commit)."""

    scope: str
    """``work`` or ``commit``."""

    def shard_keys(self) -> dict[str, str]:
        """Map every shard directory (``objects/XX``, ``metadata/XX``) to its change key."""
        ...

    def file_keys(self, shard_dir: str) -> dict[str, str]:
        """Map each file name in a shard directory to its change key."""
        ...

    def listing_key(self, shard_dir: str) -> str | None:
        """Return the :func:`.freshness.listing_key` of a shard directory (None: no listing).

        Asked only of a directory whose key is racy (:data:`.freshness.RECENT` in it).
        """
        ...

    def read_file(self, shard_dir: str, leaf: str) -> bytes | None:
        """Return a file's bytes (None when it vanished)."""
        ...

    def prefetch(self, paths: Iterable[str]) -> int:
        """Make the files at ``paths`` (repository paths) cheap to read next.

        Returns how many blobs were fetched (a partial clone fetches the missing ones in
        one ``git fetch``; else 0).
        """
        ...


class _ShardPlan(NamedTuple):
    """What a sync of one shard reads and drops (:meth:`NameIndex._plan_shard`)."""

    shard: str
    """The shard's two hex digits."""
    objects: dict[str, str]
    """The object files' keys (leaf -> key)."""
    metadata: dict[str, str]
    """The metadata files' keys."""
    reads: list[str]
    """The leaves (``<62 hex>.json``) whose two files are read: no row, or one whose keys
    changed."""
    gone: list[str]
    """The digests (hex) of rows whose files are gone."""
    keys: dict[str, str]
    """The keys to keep of its racy directories: ``MTIME#LISTING``, listed before its files."""


class NameIndex:
    """The name tables of the index file at ``path``.

    Args:
        path: the index file, e.g. ``.git/kistore/index.sqlite`` (:func:`.database.index_path`).

    Every call uses this process's connection to the file (:func:`.database.connection`),
    opened on first use. A row is looked up by its :func:`name_key`, and every row read is
    checked against its seal: a row whose name, digest or keys were edited from outside
    kistore is found by a lookup of either name, dropped, and its manifest read again from
    the store (:meth:`_repair`) before the answer is given.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._unusable = False
        self._deferred: list[sqlite3.Error] | None = None

    @property
    def db(self) -> sqlite3.Connection:
        """The process's connection to the index file (a new one after a reset).

        Raises:
            OSError, sqlite3.Error: as :func:`.database.connection`.
        """
        return database.connection(self.path)

    def usable(self) -> bool:
        """Open the file now when it is not open; False when it cannot be (read-only clone).

        Opening starts again a file of another format or one that is not SQLite, under the
        exclusive lock: ``add`` calls this before it takes its write lock, which another
        process holding the index may be waiting for.
        """
        if self._unusable:
            return False
        try:
            database.connection(self.path)
        except (sqlite3.Error, OSError) as e:
            database.say_fallback(e)  # a link or a directory there: the user's to remove
            self._unusable = True
        return not self._unusable

    def damaged(self, error: sqlite3.Error) -> None:
        """Start the file again after ``error`` when SQLite found it damaged (not just busy).

        Inside :meth:`resets_deferred` the reset waits until the block has ended.
        """
        if isinstance(error, sqlite3.OperationalError):  # locked, full, read-only: not damage
            return
        if self._deferred is not None:
            self._deferred.append(error)
            return
        with contextlib.suppress(OSError, sqlite3.Error):
            database.reset(self.path, f"it is damaged: {error}")

    @contextlib.contextmanager
    def resets_deferred(self) -> Iterator[None]:
        """Defer any reset :meth:`damaged` asks for until the block has ended.

        A reset takes the exclusive lock, which waits for every other process that has the
        file open; one of them may be waiting for a lock the block holds (``add``'s write
        lock: an import looks its names up, then adds), so the reset comes after it.
        """
        deferred: list[sqlite3.Error] = []
        self._deferred = deferred
        try:
            yield
        finally:
            self._deferred = None
            if deferred:
                self.damaged(deferred[0])

    def sync(self, source: Source, *, every_shard: bool = False,
             progress: Progress | None = None) -> int:
        """Bring ``source.scope`` up to date with ``source``; return how many shards it re-read.

        Only shards whose key changed are listed again, and only files whose key changed are
        read (or whose row does not match its seal). A file that does not parse, or a
        manifest missing its object or metadata file, has no name here (``verify`` reports
        it). Without ``progress``, a sync of empty names that is about to read
        :data:`LARGE_READ` manifests or more logs a WARNING on :data:`log` first (estimated
        from its first 8 shards).

        Args:
            source: the view to follow.
            every_shard: list every shard again, however its key stands, so each file's own
                key is compared: finds a file rewritten in place in a directory that did not
                change (a metadata file edited to rename its manifest). O(store) stats; only
                files whose key changed are read.
            progress: called with the number of object files of each shard as it is synced.
        """
        db, scope = self.db, source.scope
        current = source.shard_keys()
        # the summary stands for rows equal to `current`; a racy key is trusted only by its
        # listing, so with one the rows are read and the summary is not written
        racy = any(RECENT in key for key in current.values())
        whole = summary_key(current)
        if not every_shard and not racy:
            row = db.execute("SELECT scope, dir, key, seal FROM name_shards WHERE scope=? AND "
                             "dir=?", (scope, SUMMARY)).fetchone()
            if row is not None and row[3] == seal(row[:3]) and row[2] == whole:
                return 0  # every shard's key as the last whole sync left it
        known = {row[1]: row[2] for row in db.execute(
            "SELECT scope, dir, key, seal FROM name_shards WHERE scope=? AND dir!=?",
            (scope, SUMMARY))
            if row[3] == seal(row[:3])}  # a row that does not match its seal: re-listed
        kept = {} if every_shard else _kept_by_listing(source, known, current)
        changed = sorted({d.rpartition("/")[2] for d in current.keys() | known.keys()
                          if every_shard or (d not in kept and (
                              current.get(d) != known.get(d) or RECENT in current[d]))}
                         | _unkeyed_shards(db, scope, current.keys() | known.keys()))
        if not changed:
            # the rows agree: the next sync reads the summary alone (a file kistore cannot
            # write now, read-only or busy, is read as before); a racy row stays as it is
            settled = [(d, key) for d, key in kept.items() if key != known[d]]
            with contextlib.suppress(sqlite3.OperationalError), transaction(db):
                db.executemany("INSERT OR REPLACE INTO name_shards VALUES (?, ?, ?, ?)",
                               [(scope, d, k, seal((scope, d, k))) for d, k in
                                [*settled, *([] if racy else [(SUMMARY, whole)])]])
            return 0
        empty = db.execute("SELECT 1 FROM names WHERE scope=? LIMIT 1",
                           (scope,)).fetchone() is None
        with transaction(db):
            if empty:  # filling a table, then indexing it, is faster
                db.execute("DROP INDEX IF EXISTS names_by_key")
            plans = [self._plan_shard(db, source, shard, current) for shard in changed]
            if empty and progress is None:  # the first 8 shards tell a large store
                self._announce(sum(len(p.objects) for p in plans[:8]) * len(changed)
                               // min(8, len(changed)))
            # every file to read, in one fetch of a partial clone (not one `git cat-file`
            # each: a `git reset --soft` in a blob-less sparse clone stages thousands)
            source.prefetch(f"{layout.STORE_DIR}/{top}/sha256/{plan.shard}/{leaf}"
                            for plan in plans for leaf in plan.reads
                            for top in ("objects", "metadata"))
            for plan in plans:
                count = self._sync_shard(db, source, plan)
                if progress is not None:
                    progress(count)
            db.execute("DELETE FROM name_shards WHERE scope=?", (scope,))
            keys = {**current, **kept, **{d: k for plan in plans for d, k in plan.keys.items()}}
            rows = [*keys.items(), *([] if racy else [(SUMMARY, whole)])]
            db.executemany("INSERT INTO name_shards VALUES (?, ?, ?, ?)",
                           [(scope, d, k, seal((scope, d, k))) for d, k in rows])
            db.execute(_NAME_INDEX)
        return len(changed)

    def _announce(self, estimate: int) -> None:
        """Log that empty names are about to read ~``estimate`` manifests (when large)."""
        if estimate < LARGE_READ:
            return
        why = database.reset_reason(self.path) or "it is empty"
        log.warning("note: building the names of the index %s (%s): reading ~%s manifests "
                    "once; at 1,000,000 this takes minutes", self.path, why, f"{estimate:,}")

    def _plan_shard(self, db: sqlite3.Connection, source: Source, shard: str,
                    current: Mapping[str, str]) -> _ShardPlan:
        """List one shard (``objects/XX`` and ``metadata/XX``): what :meth:`_sync_shard` reads.

        Reads no file: its keys and the shard's rows only. A directory whose key in
        ``current`` is racy is listed (names, inodes) before its files' keys are taken: a
        write after that listing shows in the next one, and is not hidden behind the
        ``MTIME#LISTING`` key kept.
        """
        scope = source.scope
        keys = {}
        for d in (f"objects/{shard}", f"metadata/{shard}"):
            key = current.get(d)
            if key is not None and RECENT in key \
                    and (listed := source.listing_key(d)) is not None:
                keys[d] = f"{key.replace(RECENT, '')}{LISTED}{listed}"
        objects = source.file_keys(f"objects/{shard}")
        metadata = source.file_keys(f"metadata/{shard}")
        rows = db.execute(f"SELECT {_COLUMNS} FROM names WHERE scope=? AND digest >= ? AND "
                          "digest < ?", (scope, shard, shard + "g")).fetchall()
        stored = {row[1]: (row[2], row[3]) for row in rows
                  if row[7] == seal(row[:7])}  # a row not matching its seal is read again
        seen = set()
        reads = []
        for leaf in sorted(objects.keys() & metadata.keys()):  # key order: B-tree appends
            if not leaf.endswith(".json"):
                continue
            hex_ = shard + leaf[:-5]
            seen.add(hex_)
            if stored.get(hex_) != (objects[leaf], metadata[leaf]):
                reads.append(leaf)
        return _ShardPlan(shard, objects, metadata, reads,
                          [d for d in {row[1] for row in rows} - seen], keys)

    def _sync_shard(self, db: sqlite3.Connection, source: Source, plan: _ShardPlan) -> int:
        """Sync one listed shard (:meth:`_plan_shard`); return its object file count."""
        scope, shard = source.scope, plan.shard
        named, unnamed = [], []
        for leaf in plan.reads:
            hex_ = shard + leaf[:-5]
            keys = (plan.objects[leaf], plan.metadata[leaf])
            try:
                kind_name = _kind_and_name(source.read_file(f"objects/{shard}", leaf),
                                           source.read_file(f"metadata/{shard}", leaf))
            except PastLimit:  # past the bound, unread: it names nothing (fresh03 H3)
                kind_name = None
            if kind_name is None:
                unnamed.append((scope, hex_))
            else:
                named.append(_row(scope, hex_, *keys, *kind_name))
        db.executemany("DELETE FROM names WHERE scope=? AND digest=?", unnamed)
        db.executemany("INSERT OR REPLACE INTO names VALUES (?, ?, ?, ?, ?, ?, ?, ?)", named)
        # rows of files that are gone, or whose digest no file of the shard has (edited)
        db.executemany("DELETE FROM names WHERE scope=? AND digest=?",
                       [(scope, d) for d in plan.gone])
        return len(plan.objects)

    def clear(self) -> None:
        """Forget every scope: the next :meth:`sync` of each reads every file again."""
        db = self.db
        with transaction(db):
            db.execute("DELETE FROM names")
            db.execute("DELETE FROM name_shards")

    def rebuild(self, source: Source, progress: Progress | None = None) -> int:
        """Forget every scope, then read every file of ``source`` (O(store) reads).

        Args:
            source: the view to read.
            progress: passed to :meth:`sync` (object files per shard, as each is done).

        Returns:
            How many named manifests ``source.scope`` holds afterwards.
        """
        self.clear()
        self.sync(source, progress=progress)
        row = self.db.execute("SELECT count(*) FROM names WHERE scope=?",
                              (source.scope,)).fetchone()
        return int(row[0])

    def forget(self, scope: str, digest: Digest) -> None:
        """Make the next :meth:`sync` read ``digest``'s files and list its shards again.

        For a file found rewritten in place: its directory's key did not change, and a
        same-size rewrite that put the old mtime back keeps the file's key too.
        """
        db, shard = self.db, digest.hex[:2]
        with transaction(db):
            db.execute("DELETE FROM names WHERE scope=? AND digest=?", (scope, digest.hex))
            db.executemany("DELETE FROM name_shards WHERE scope=? AND dir=?",
                           [(scope, f"objects/{shard}"), (scope, f"metadata/{shard}"),
                            (scope, SUMMARY)])

    def record(self, scope: str, rows: Iterable[tuple[Digest, str, str, str, str]],
               shard_keys: Mapping[str, str], stale: Iterable[str] = ()) -> None:
        """Record manifests the caller just wrote, and the shard keys after its write.

        Args:
            scope: ``work`` or ``commit``.
            rows: ``(digest, object_key, metadata_key, kind, name)`` per written manifest.
            shard_keys: new keys of the shard directories written whose rows are in step
                after the write (:func:`._names_added.keys_after_add`).
            stale: shard directories written whose rows are not: dropped, so the next
                :meth:`sync` lists them again.
        """
        db = self.db
        with transaction(db):
            db.executemany("INSERT OR REPLACE INTO names VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                           [_row(scope, d.hex, ok, mk, k, n) for d, ok, mk, k, n in rows])
            db.executemany("INSERT OR REPLACE INTO name_shards VALUES (?, ?, ?, ?)",
                           [(scope, d, k, seal((scope, d, k))) for d, k in shard_keys.items()])
            db.executemany("DELETE FROM name_shards WHERE scope=? AND dir=?",
                           [(scope, d) for d in (*stale, SUMMARY)])

    def shard_rows(self, scope: str, dirs: Iterable[str]) -> dict[str, str]:
        """Return the keys the sealed ``name_shards`` rows of ``dirs`` hold (dir -> key).

        Args:
            scope: ``work`` or ``commit``.
            dirs: shard directories (``objects/XX``, ``metadata/XX``).

        Raises:
            sqlite3.Error: the index cannot be read.
        """
        found: dict[str, str] = {}
        wanted = sorted(set(dirs))
        for i in range(0, len(wanted), 500):  # SQLite's limit on bound parameters
            chunk = wanted[i:i + 500]
            found.update((row[1], row[2]) for row in self.db.execute(
                "SELECT scope, dir, key, seal FROM name_shards WHERE scope=? AND dir IN "
                f"({','.join('?' * len(chunk))})", (scope, *chunk)) if row[3] == seal(row[:3]))
        return found

    def _rows(self, scope: str, where: str, args: Iterable[object]) -> list[tuple[str, str, str]]:
        """Return ``(kind, name, digest hex)`` of the rows of ``scope`` matching ``where``.

        Raises:
            Damaged: a row does not match its seal (:meth:`_repair` drops it).
        """
        found = []
        bad = []
        for row in self.db.execute(f"SELECT {_COLUMNS} FROM names WHERE scope=? AND {where}",
                                   (scope, *args)):
            if row[7] != seal(row[:7]) or row[6] != name_key(row[4], row[5]):
                bad.append(row[1])
            else:
                found.append((row[4], row[5], row[1]))
        if bad:
            self._repair(scope, bad)
            raise Damaged(f"{len(bad)} name row(s) that do not match their seal")
        return found

    def _repair(self, scope: str, digests: list[str]) -> None:
        """Drop rows that do not match their seal; make the next sync list every shard again.

        The digest of a row may be what was edited, so which shard holds the manifest it
        stood for is unknown: every shard is listed again (O(store) stats), and every file
        without a row is read.
        """
        db = self.db
        log.warning("note: the index %s holds %d name row(s) it cannot trust: reading the "
                    "names again", self.path, len(digests))
        with transaction(db):
            db.executemany("DELETE FROM names WHERE scope=? AND digest=?",
                           [(scope, d) for d in digests])
            db.execute("DELETE FROM name_shards WHERE scope=?", (scope,))

    def trusted(self, source: Source, ask: Callable[[], _T], *, sync: bool = True) -> _T:
        """Return ``ask()`` after a :meth:`sync`; when it meets an untrusted row, once again.

        Args:
            source: the view the names follow (synced first, and again after a repair).
            ask: reads the names (:meth:`owners`, :meth:`names`, :meth:`shared`).
            sync: sync first (False: the caller just did).

        Raises:
            Damaged: rows still untrusted after the repair.
        """
        if sync:
            self.sync(source)
        try:
            return ask()
        except Damaged:
            self.sync(source)
            return ask()

    def owners(self, scope: str, keys: Iterable[tuple[str, str]]) -> dict[tuple[str, str], Digest]:
        """Return the digest holding each ``(kind, name)`` in ``keys`` that is taken.

        When two manifests share a name (``verify`` reports it), the larger digest is given.
        The keys are looked up by ``name_key``, 500 at a time (:meth:`_keyed_rows`): O(keys
        log store), whatever the store's size. (A batch of more than 256 keys once read
        every name of its kinds instead: at 50,000 manifests 1.9 s of an add of 10,000,
        and a dict of the whole store's names in memory, growing with every chunk.)

        Args:
            scope: ``work`` or ``commit``.
            keys: the ``(kind, name)`` pairs asked about.

        Returns:
            ``(kind, name) -> digest`` for each key taken (absent: free).

        Raises:
            Damaged: a row read does not match its seal (:meth:`trusted` repairs and asks
                again).
        """
        holders: dict[tuple[str, str], str] = {}
        for kind, name, digest in self._keyed_rows(scope, keys):
            key = (kind, name)
            if digest > holders.get(key, ""):
                holders[key] = digest
        return {key: Digest(digest) for key, digest in holders.items()}

    def _keyed_rows(self, scope: str, keys: Iterable[tuple[str, str]]
                    ) -> list[tuple[str, str, str]]:
        """Return ``(kind, name, digest hex)`` of the rows of ``scope`` named by ``keys``.

        Looked up by ``name_key`` (the ``names_by_key`` index), 500 keys a query; a row
        whose key collides but whose ``(kind, name)`` was not asked about is left out.

        Raises:
            Damaged: as :meth:`_rows`.
        """
        asked = set(keys)
        codes = sorted({name_key(kind, name) for kind, name in asked})
        rows: list[tuple[str, str, str]] = []
        for i in range(0, len(codes), 500):
            chunk = codes[i:i + 500]
            rows += [row for row in self._rows(
                scope, f"name_key IN ({','.join('?' * len(chunk))})", chunk)
                if row[:2] in asked]
        return rows

    def shared(self, scope: str, keys: Iterable[tuple[str, str]] | None = None
               ) -> dict[tuple[str, str], list[Digest]]:
        """Return the ``(kind, name)`` keys held by two or more manifests, with every holder.

        A name is unique per kind (``verify``: KI205); two holders arrive by a metadata file
        edited in place or files placed by hand. A few keys are looked up in the name index,
        500 at a time (O(keys log store)); many keys (an ``ls`` of every run), or
        ``keys=None``, make one pass over that index, which returns the shared names only:
        looking 19,000 names up one by one took 0.4 s at 20,000 manifests, the pass ~0.02 s.

        Args:
            scope: ``work`` or ``commit``.
            keys: the names asked about; None: every name in ``scope``.

        Returns:
            ``(kind, name) -> digests`` (sorted, two or more) for each shared key.

        Raises:
            Damaged: as :meth:`owners`.
        """
        wanted = None if keys is None else list(dict.fromkeys(keys))
        if wanted is None or len(wanted) > _LOOKUP_LIMIT:
            rows = self._rows(scope, "name_key IN (SELECT name_key FROM names WHERE scope=? "
                              "GROUP BY name_key HAVING count(*) > 1)", (scope,))
            asked = None if wanted is None else set(wanted)
            rows = [row for row in rows if asked is None or row[:2] in asked]
        else:
            rows = self._keyed_rows(scope, wanted)
        holders: dict[tuple[str, str], list[str]] = {}
        for kind, name, digest in rows:
            holders.setdefault((kind, name), []).append(digest)
        return {key: [Digest(d) for d in sorted(found)] for key, found in holders.items()
                if len(found) > 1}

    def names(self, scope: str, kinds: Iterable[str]) -> dict[tuple[str, str], Digest]:
        """Return every ``(kind, name) -> digest`` of ``kinds`` in ``scope``.

        Raises:
            Damaged: as :meth:`owners`.
        """
        wanted = set(kinds)
        rows = sorted((digest, kind, name) for kind, name, digest in self._rows(scope, "1", ())
                      if kind in wanted)
        return {(kind, name): Digest(digest) for digest, kind, name in rows}


SUMMARY_FORM = 2
"""The form of the summary's key (:func:`summary_key`). 2: of a sync that also lists the
shards holding rows no key covers (:func:`_unkeyed_shards`); a summary of form 1 (none)
could stand for such rows, kept for good (fresh15 F6), and matches no key of form 2: the
first sync after the change lists them once."""


def summary_key(current: Mapping[str, str]) -> str:
    """Return the key of a scope's :data:`SUMMARY` row for the shard keys ``current``.

    BLAKE2b (16 bytes, hex) of :data:`SUMMARY_FORM` and every shard directory's key, sorted.

    Args:
        current: ``{shard directory: key}``, as :meth:`Source.shard_keys` gives them.
    """
    text = repr((SUMMARY_FORM, sorted(current.items())))
    return blake2b(text.encode(), digest_size=16).hexdigest()


def _unkeyed_shards(db: sqlite3.Connection, scope: str, keyed: Iterable[str]) -> set[str]:
    """Return the shards (two hex digits) holding name rows of ``scope`` that no key covers.

    A shard is covered when the work tree (or commit) has one of its directories, or the
    scope keeps a ``name_shards`` row of one. An add records its names with no shard row
    for a directory that was not in step before its write (:mod:`._names_added`), to be
    listed by the next sync; when the directory is gone before that sync (``git stash -u``
    of the uncommitted add removes it and its parents), no key names the shard, and its
    rows were kept for good: names taken by a digest no command could show (fresh15 F6).
    Asked only by a sync the summary did not answer: each index seek finds the next row
    from an uncovered shard on, and the next seek starts at the first uncovered shard past
    that row's; at most one seek more than the uncovered shards, or than the shards holding
    rows, whichever are fewer (none when all 256 are covered: ~1.3 ms at 250 seeks).

    Args:
        db: the index connection.
        scope: ``work`` or ``commit``.
        keyed: the shard directories covered (``objects/XX``, ``metadata/XX``).

    Raises:
        sqlite3.Error: the index cannot be read.
    """
    free = _SHARDS - {d.rpartition("/")[2] for d in keyed}
    uncovered = sorted(free)
    found: set[str] = set()
    at = 0
    while at < len(uncovered):  # each seek passes one uncovered shard at least
        row = db.execute("SELECT substr(digest, 1, 2) FROM names WHERE scope=? AND "
                         "digest >= ? ORDER BY digest LIMIT 1", (scope, uncovered[at])).fetchone()
        if row is None:
            break
        shard = str(row[0])
        if shard in free:  # (a digest that is not hex: its seal tells, not this)
            found.add(shard)
        at = bisect.bisect_right(uncovered, shard)
    return found


_SHARDS = frozenset(f"{i:02x}" for i in range(256))
"""The two hex digits of every shard."""


def _kept_by_listing(source: Source, known: Mapping[str, str], current: Mapping[str, str]
                     ) -> dict[str, str]:
    """Return the directories whose ``MTIME#LISTING`` row holds, with the key to keep.

    A row kept by its listing holds while the directory has that mtime (racy or settled
    now) and lists the same names and inode numbers. Past the racy window its key becomes
    the settled one (the mtime alone, as a sync records it); within it, the row's own.
    """
    kept = {}
    for d, key in known.items():
        mtime, listed, listing = key.partition(LISTED)
        now = current.get(d)
        if listed and now is not None and now.replace(RECENT, "") == mtime \
                and source.listing_key(d) == listing:
            kept[d] = key if RECENT in now else now
    return kept


_COLUMNS = "scope, digest, object_key, metadata_key, kind, name, name_key, seal"
"""The columns of a ``names`` row, in table order (the seal last)."""


def name_key(kind: str, name: str) -> int:
    """Return the 64-bit integer a ``(kind, name)`` is looked up by (BLAKE2b, signed).

    Rows are found by this key, not by their ``name`` column, and the key is in their seal:
    a name edited from outside kistore is still found by a lookup of the name it had, and
    its seal then tells.
    """
    digest = blake2b(f"{kind}\0{name}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


def _row(scope: str, digest: str, object_key: str, metadata_key: str, kind: str,
         name: str) -> tuple[object, ...]:
    """Return a ``names`` row, keyed and sealed."""
    values = (scope, digest, object_key, metadata_key, kind, name, name_key(kind, name))
    return (*values, seal(values))


def _kind_and_name(object_bytes: bytes | None, metadata_bytes: bytes | None
                   ) -> tuple[str, str] | None:
    """``(kind, metadata.name)`` of a stored manifest, or None when either file is unusable.

    orjson first (compiled: a full read parses 2 files a manifest); the stdlib decides what
    orjson refuses (e.g. a lone surrogate escape), so both read the same files
    (:func:`kistore.core.canonical_fast.loads_lenient`; only two strings are read here).
    """
    try:
        kind = loads_lenient(object_bytes or b"")["kind"]
        name = loads_lenient(metadata_bytes or b"")["name"]
    except (ValueError, KeyError, TypeError):
        return None
    if not isinstance(kind, str) or not isinstance(name, str):
        return None
    return kind, name


def open_name_index(git_dir: Path) -> NameIndex:
    """Return the names of ``GIT_DIR/kistore/index.sqlite`` (the file is opened on first use).

    When the file cannot be opened (a read-only clone), :meth:`NameIndex.usable` says so and
    reads scan the store instead (:class:`kistore.store.View`).
    """
    return NameIndex(index_path(git_dir))
