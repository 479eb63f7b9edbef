"""The name catalog: ``(kind, metadata.name) -> digest`` without reading the whole store.

``add`` must check that a name is unused and ``KIND/NAME`` must resolve, at 100,000
manifests and more, in a few milliseconds. Reading every object and metadata file to do it
is O(store). The catalog is a small SQLite file under the git directory
(``.git/kistore/catalog.sqlite``), derived from the store, never committed: deleting it
loses nothing, the next read rebuilds it.

It is kept per *scope*: ``work`` (the work tree) and ``commit`` (the last commit read with
``at=REV``). Each scope remembers, per shard directory (``objects/XX``, ``metadata/XX``), the
key it indexed the shard at, and per manifest the keys of its two files:

* commit scope: keys are git tree and blob ids, so the catalog is exactly right for any
  commit: a shard whose tree id is unchanged is skipped, a changed shard is re-listed and
  only blobs with new ids are read;
* work scope: keys are the directory's ``st_mtime_ns`` and each file's
  ``(st_mtime_ns, st_ctime_ns, st_size, st_ino)``, as git's own index trusts stat data.
  Every add, removal or rename in a shard changes the directory's mtime, so it is seen; an
  in-place edit of a file in a shard whose directory did not change is not seen by a
  plain :meth:`Catalog.sync` (``kistore verify`` and the pull-request gate read every file
  and remain the authority on names). Two lookups make up for it: ``KIND/NAME``
  resolution reads the metadata file it lands on and, when the name is no longer there,
  makes the catalog read that manifest again (:meth:`Catalog.forget`). A name given to a
  manifest by rewriting its metadata file in place is found once ``kistore reindex`` has
  rebuilt the whole catalog (:meth:`Catalog.rebuild`); a miss says so
  (:meth:`kistore.views.View.find_name`). ``sync(every_shard=True)`` compares every file's
  key, O(store) stats, for callers that must see such edits.

The store layer hands in a :class:`Source` (the work tree or a commit); this module does no
git itself. The query layer's ranking index is separate (``kistore/query``).
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Protocol

from ..core.canonical_fast import loads_lenient
from ..core.digest import Digest

SCHEMA_VERSION = "3"  # 3: work-tree file keys hold the ctime
_SCHEMA = """
CREATE TABLE IF NOT EXISTS shards (scope TEXT, dir TEXT, key TEXT NOT NULL,
                                   PRIMARY KEY (scope, dir));
CREATE TABLE IF NOT EXISTS files (scope TEXT, digest TEXT, object_key TEXT, metadata_key TEXT,
                                  kind TEXT, name TEXT, PRIMARY KEY (scope, digest));
CREATE INDEX IF NOT EXISTS files_by_name ON files (scope, kind, name, digest);
"""
_NAME_INDEX = "CREATE INDEX IF NOT EXISTS files_by_name ON files (scope, kind, name, digest)"

LARGE_READ = 50_000
"""A sync that is going to read at least this many manifests (an empty or dropped catalog
of a large store: minutes at 1,000,000) says so first, through :data:`log`."""

log = logging.getLogger(__name__)
"""Where a long catalog read is announced (a WARNING: without logging configured, Python
prints it on stderr, so a command line user sees why the command is slow)."""

_LOOKUP_LIMIT = 2_000
""":meth:`Catalog.shared` looks up to this many names one by one; more, it reads the
shared names of the whole name index in one pass instead."""

Progress = Callable[[int], None]
"""Called with the number of manifests whose shard was just synced (drives a progress bar)."""


class Source(Protocol):
    """What the catalog needs to know about a view of the store (work tree or commit)."""

    scope: str
    """``work`` or ``commit``."""

    def shard_keys(self) -> dict[str, str]:
        """Map every shard directory (``objects/XX``, ``metadata/XX``) to its change key."""
        ...

    def file_keys(self, shard_dir: str) -> dict[str, str]:
        """Map each file name in a shard directory to its change key."""
        ...

    def read_file(self, shard_dir: str, leaf: str) -> bytes | None:
        """Return a file's bytes (None when it vanished)."""
        ...


class Catalog:
    """The SQLite name catalog at ``path`` (created on first use).

    Args:
        path: the database file, e.g. ``.git/kistore/catalog.sqlite``.

    Raises:
        sqlite3.Error: when the file cannot be created or opened (callers fall back to a
            full scan).
    """

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self.db = sqlite3.connect(path, timeout=30, isolation_level=None)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        # a full read writes ~400 B a manifest in random key order: with SQLite's default
        # 2 MB page cache, B-tree pages were evicted and written again and again
        self.db.execute("PRAGMA cache_size=-65536")
        self.db.execute("CREATE TABLE IF NOT EXISTS info (key TEXT PRIMARY KEY, value TEXT)")
        row = self.db.execute("SELECT value FROM info WHERE key='version'").fetchone()
        self.dropped = row is not None and row[0] != SCHEMA_VERSION
        """True when this open found a catalog of another format and started it again."""
        if row is None or row[0] != SCHEMA_VERSION:  # derived data: start again
            self.db.executescript("DROP TABLE IF EXISTS shards; DROP TABLE IF EXISTS files;")
            self.db.execute("INSERT OR REPLACE INTO info VALUES ('version', ?)",
                            (SCHEMA_VERSION,))
        self.db.executescript(_SCHEMA)

    def close(self) -> None:
        """Close the database."""
        self.db.close()

    def sync(self, source: Source, *, every_shard: bool = False,
             progress: Progress | None = None) -> int:
        """Bring ``source.scope`` up to date with ``source``; return how many shards it re-read.

        Only shards whose key changed are listed again, and only files whose key changed are
        read. A file that does not parse, or a manifest missing its object or metadata file,
        has no name in the catalog (``verify`` reports it). Without ``progress``, a sync
        of an empty catalog that is about to read :data:`LARGE_READ` manifests or more logs a
        WARNING on :data:`log` first (estimated from its first 8 shards).

        Args:
            source: the view to follow.
            every_shard: list every shard again, however its key stands, so each file's own
                key is compared: finds a file rewritten in place in a directory that did not
                change (a metadata file edited to rename its manifest). O(store) stats; only
                files whose key changed are read.
            progress: called with the number of object files of each shard as it is synced.
        """
        scope = source.scope
        current = source.shard_keys()
        known = dict(self.db.execute("SELECT dir, key FROM shards WHERE scope=?", (scope,)))
        changed = sorted({d.rpartition("/")[2] for d in current.keys() | known.keys()
                          if every_shard or current.get(d) != known.get(d)})
        if not changed:
            return 0
        empty = self.db.execute("SELECT 1 FROM files WHERE scope=? LIMIT 1",
                                (scope,)).fetchone() is None
        with self.db:
            self.db.execute("BEGIN IMMEDIATE")
            if empty:  # filling a table, then indexing it, is faster
                self.db.execute("DROP INDEX IF EXISTS files_by_name")
            done = 0
            for i, shard in enumerate(changed, 1):
                count = self._sync_shard(source, shard)
                done += count
                if i == 8 and empty and progress is None:  # 8 shards tell a large store
                    self._announce(done * len(changed) // 8)
                if progress is not None:
                    progress(count)
            self.db.execute("DELETE FROM shards WHERE scope=?", (scope,))
            self.db.executemany("INSERT INTO shards VALUES (?, ?, ?)",
                                [(scope, d, k) for d, k in current.items()])
            self.db.execute(_NAME_INDEX)
        return len(changed)

    def _announce(self, estimate: int) -> None:
        """Log that an empty catalog is about to read ~``estimate`` manifests (when large)."""
        if estimate < LARGE_READ:
            return
        why = ("its format changed" if self.dropped else "it is empty")
        log.warning("note: building the name catalog %s (%s): reading ~%s manifests once; "
                    "at 1,000,000 this takes minutes", self.path, why, f"{estimate:,}")

    def _sync_shard(self, source: Source, shard: str) -> int:
        """Sync one shard (``objects/XX`` and ``metadata/XX``); return its object file count."""
        scope = source.scope
        objects = source.file_keys(f"objects/{shard}")
        metadata = source.file_keys(f"metadata/{shard}")
        stored = {row[0]: (row[1], row[2]) for row in self.db.execute(
            "SELECT digest, object_key, metadata_key FROM files "
            "WHERE scope=? AND digest >= ? AND digest < ?",
            (scope, shard, shard + "g"))}
        seen = set()
        named, unnamed = [], []
        for leaf in sorted(objects.keys() & metadata.keys()):  # key order: B-tree appends
            if not leaf.endswith(".json"):
                continue
            hex_ = shard + leaf[:-5]
            keys = (objects[leaf], metadata[leaf])
            seen.add(hex_)
            if stored.get(hex_) == keys:
                continue
            kind_name = _kind_and_name(source.read_file(f"objects/{shard}", leaf),
                                       source.read_file(f"metadata/{shard}", leaf))
            if kind_name is None:
                unnamed.append((scope, hex_))
            else:
                named.append((scope, hex_, *keys, *kind_name))
        self.db.executemany("DELETE FROM files WHERE scope=? AND digest=?", unnamed)
        self.db.executemany("INSERT OR REPLACE INTO files VALUES (?, ?, ?, ?, ?, ?)", named)
        gone = [(scope, d) for d in stored.keys() - seen]
        self.db.executemany("DELETE FROM files WHERE scope=? AND digest=?", gone)
        return len(objects)

    def clear(self) -> None:
        """Forget every scope: the next :meth:`sync` of each reads every file again."""
        with self.db:  # autocommit connection: the BEGIN makes the block one transaction
            self.db.execute("BEGIN IMMEDIATE")
            self.db.execute("DELETE FROM files")
            self.db.execute("DELETE FROM shards")

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
        row = self.db.execute("SELECT count(*) FROM files WHERE scope=?",
                              (source.scope,)).fetchone()
        return int(row[0])

    def forget(self, scope: str, digest: Digest) -> None:
        """Make the next :meth:`sync` read ``digest``'s files and list its shards again.

        For a file found rewritten in place: its directory's key did not change, and a
        same-size rewrite that put the old mtime back keeps the file's key too.
        """
        shard = digest.hex[:2]
        with self.db:
            self.db.execute("BEGIN IMMEDIATE")
            self.db.execute("DELETE FROM files WHERE scope=? AND digest=?", (scope, digest.hex))
            self.db.executemany("DELETE FROM shards WHERE scope=? AND dir=?",
                                [(scope, f"objects/{shard}"), (scope, f"metadata/{shard}")])

    def record(self, scope: str, rows: Iterable[tuple[Digest, str, str, str, str]],
               shard_keys: Mapping[str, str]) -> None:
        """Record manifests the caller just wrote, and the shard keys after its write.

        Args:
            scope: ``work`` or ``commit``.
            rows: ``(digest, object_key, metadata_key, kind, name)`` per written manifest.
            shard_keys: new keys of the shard directories written (only those).
        """
        with self.db:
            self.db.execute("BEGIN IMMEDIATE")
            self.db.executemany("INSERT OR REPLACE INTO files VALUES (?, ?, ?, ?, ?, ?)",
                                [(scope, d.hex, ok, mk, k, n) for d, ok, mk, k, n in rows])
            self.db.executemany("INSERT OR REPLACE INTO shards VALUES (?, ?, ?)",
                                [(scope, d, k) for d, k in shard_keys.items()])

    def owners(self, scope: str, keys: Iterable[tuple[str, str]]) -> dict[tuple[str, str], Digest]:
        """Return the digest holding each ``(kind, name)`` in ``keys`` that is taken.

        When two manifests share a name (``verify`` reports it), the larger digest is given.
        A large batch is answered from one scan of its kinds instead of a query per key.
        """
        wanted = list(keys)
        if len(wanted) > 256:
            names = self.names(scope, sorted({kind for kind, _ in wanted}))
            return {key: names[key] for key in wanted if key in names}
        found: dict[tuple[str, str], Digest] = {}
        for kind, name in wanted:
            # MAX(), not ORDER BY: an ORDER BY digest makes SQLite walk the primary key.
            row = self.db.execute(
                "SELECT MAX(digest) FROM files WHERE scope=? AND kind=? AND name=?",
                (scope, kind, name)).fetchone()
            if row[0] is not None:
                found[(kind, name)] = Digest(row[0])
        return found

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
        """
        wanted = None if keys is None else list(dict.fromkeys(keys))
        rows: list[tuple[str, str, str]] = []
        if wanted is None or len(wanted) > _LOOKUP_LIMIT:
            for kind, name, digests in self.db.execute(
                    "SELECT kind, name, group_concat(digest) FROM files WHERE scope=? "
                    "GROUP BY kind, name HAVING count(*) > 1", (scope,)):
                rows += [(kind, name, digest) for digest in digests.split(",")]
            asked = None if wanted is None else set(wanted)
            rows = [row for row in rows if asked is None or row[:2] in asked]
        else:
            by_kind: dict[str, list[str]] = {}
            for kind, name in wanted:
                by_kind.setdefault(kind, []).append(name)
            for kind, names in by_kind.items():
                for i in range(0, len(names), 500):
                    chunk = names[i:i + 500]
                    rows += self.db.execute(
                        "SELECT kind, name, digest FROM files WHERE scope=? AND kind=? AND "
                        f"name IN ({','.join('?' * len(chunk))})", (scope, kind, *chunk))
        holders: dict[tuple[str, str], list[str]] = {}
        for kind, name, digest in rows:
            holders.setdefault((kind, name), []).append(digest)
        return {key: [Digest(d) for d in sorted(found)] for key, found in holders.items()
                if len(found) > 1}

    def names(self, scope: str, kinds: Iterable[str]) -> dict[tuple[str, str], Digest]:
        """Return every ``(kind, name) -> digest`` of ``kinds`` in ``scope``."""
        wanted = list(kinds)
        marks = ",".join("?" * len(wanted))
        rows = self.db.execute(
            f"SELECT kind, name, digest FROM files WHERE scope=? AND kind IN ({marks}) "
            "ORDER BY digest", (scope, *wanted))
        return {(kind, name): Digest(digest) for kind, name, digest in rows}


def _kind_and_name(object_bytes: bytes | None, metadata_bytes: bytes | None
                   ) -> tuple[str, str] | None:
    """``(kind, metadata.name)`` of a stored manifest, or None when either file is unusable.

    orjson first (compiled: a full read parses 2 files a manifest); the stdlib decides what
    orjson refuses (e.g. an integer beyond 64 bits), so both read the same files.
    """
    try:
        kind = loads_lenient(object_bytes or b"")["kind"]
        name = loads_lenient(metadata_bytes or b"")["name"]
    except (ValueError, KeyError, TypeError):
        return None
    if not isinstance(kind, str) or not isinstance(name, str):
        return None
    return kind, name


def open_catalog(git_dir: Path) -> Catalog | None:
    """Open ``GIT_DIR/kistore/catalog.sqlite``, or None when it cannot be (read-only clone)."""
    try:
        return Catalog(git_dir / "kistore" / "catalog.sqlite")
    except (sqlite3.Error, OSError):
        return None

