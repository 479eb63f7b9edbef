"""The export's scratch database: what is known per manifest, and every row, on disk.

An export of 1,000,000 manifests cannot hold its rows in memory. Each phase writes what it
learns here (stdlib :mod:`sqlite3`, one file in the export's temporary directory, deleted
with it) and the writers read the rows back sorted, one partition at a time:

* ``derived``: per run, what its comparison group says (rank, group size, evidence, ...);
* ``firsts`` and ``commits``: the commit that first added each object file;
* ``landings``: the commit that brought each object file onto the exported commit's
  first-parent line (:mod:`kistore.git.landing`: the published date), numbered in
  ``commits`` too;
* ``rows``: every staged row of every table, with its partition, sort key, --since key and
  fingerprint;
* ``previous``: the keys and fingerprints of the export a ``--since`` export continues.

Rows are staged as JSON arrays (orjson), sorted with SQLite's ``ORDER BY`` (which spills to
disk), and fingerprinted as BLAKE2b-128 of their staged bytes.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import orjson

SCHEMA = """
CREATE TABLE derived (digest TEXT NOT NULL, data BLOB NOT NULL);
CREATE TABLE commits (id INTEGER PRIMARY KEY, hex TEXT NOT NULL, time INTEGER NOT NULL);
CREATE TABLE firsts (seq INTEGER PRIMARY KEY, digest TEXT NOT NULL, blob TEXT NOT NULL,
                     commit_id INTEGER NOT NULL);
CREATE TABLE landings (seq INTEGER PRIMARY KEY, digest TEXT NOT NULL, blob TEXT NOT NULL,
                       commit_id INTEGER NOT NULL);
CREATE TABLE rows (tbl TEXT NOT NULL, part TEXT NOT NULL, sort TEXT NOT NULL,
                   key TEXT NOT NULL, fp BLOB NOT NULL, row BLOB NOT NULL);
CREATE TABLE previous (tbl TEXT NOT NULL, key TEXT NOT NULL, fp BLOB NOT NULL,
                       PRIMARY KEY (tbl, key)) WITHOUT ROWID;
"""
"""Tables are filled in arrival order and indexed once filled (:meth:`Scratch.index_lookups`,
:meth:`Scratch.index_rows`): building an index by sorting costs far less than inserting
SHA-256-keyed rows into a B-tree in random order (at 100,000 manifests, most of the
export's time went there)."""

_BATCH = 2000
"""Rows inserted per ``executemany``."""


def fingerprint(row_bytes: bytes) -> bytes:
    """Return the 16-byte BLAKE2b fingerprint of a staged row's bytes (for ``--since``)."""
    return hashlib.blake2b(row_bytes, digest_size=16).digest()


def encode(row: list[Any]) -> bytes:
    """Return a staged row's bytes: a JSON array, object keys sorted (deterministic)."""
    return orjson.dumps(row, option=orjson.OPT_SORT_KEYS)


class Scratch:
    """The scratch database of one export.

    Args:
        path: the database file to create (its directory is removed with the export's
            temporary files).
    """

    def __init__(self, path: Path) -> None:
        self.conn = sqlite3.connect(path, isolation_level=None)
        for pragma in ("journal_mode = OFF", "synchronous = OFF", "temp_store = FILE",
                       "cache_size = -16384"):  # 16 MB of page cache, at most
            self.conn.execute(f"PRAGMA {pragma}")
        self.conn.executescript(SCHEMA)
        self._pending: list[tuple[Any, ...]] = []
        self.conn.execute("BEGIN")

    def close(self) -> None:
        """Close the database (the file stays until its directory is removed)."""
        if self.conn.in_transaction:
            self.conn.execute("COMMIT")
        self.conn.close()

    # -- per manifest -----------------------------------------------------------------

    def put_derived(self, items: Iterable[tuple[str, dict[str, Any]]]) -> None:
        """Keep what the comparison groups say of each run: ``(digest, data)``, once each."""
        self.conn.executemany("INSERT INTO derived VALUES (?, ?)",
                              ((d, orjson.dumps(data)) for d, data in items))

    def derived_many(self, digests: list[str]) -> dict[str, dict[str, Any]]:
        """Return what :meth:`put_derived` kept for each of ``digests`` that has any."""
        return {d: orjson.loads(data) for d, data in self._in(
            "SELECT digest, data FROM derived WHERE digest", digests)}

    def put_commit(self, number: int, hex_: str, time: int) -> None:
        """Keep a commit of history: its number here, id (40 hex) and committer time (s)."""
        self.conn.execute("INSERT INTO commits VALUES (?, ?, ?)", (number, hex_, time))

    def put_firsts(self, items: Iterable[tuple[str, str, int]], table: str = "firsts"
                   ) -> None:
        """Keep ``(digest, blob, commit number)``; the first kept per (digest, blob) counts.

        ``table``: ``firsts`` (the commits that first added them) or ``landings`` (the
        commits that brought them onto the first-parent line).
        """
        self.conn.executemany(
            f"INSERT INTO {_walk_table(table)} (digest, blob, commit_id) VALUES (?, ?, ?)",
            items)

    def index_lookups(self) -> None:
        """Index ``derived`` and ``firsts`` for lookups (after the last put of either)."""
        self.conn.execute("CREATE INDEX derived_digest ON derived (digest)")
        self.conn.execute("CREATE INDEX firsts_digest ON firsts (digest, blob, seq)")
        self.conn.execute("CREATE INDEX landings_digest ON landings (digest, blob, seq)")

    def firsts(self, blobs: dict[str, str], table: str = "firsts"
               ) -> dict[str, tuple[str, int]]:
        """Return, per digest, ``(commit hex, committer time)`` that first added its blob.

        Args:
            blobs: digest -> the git blob id of its object file in the exported commit.
            table: ``firsts``, or ``landings`` for the commit that brought the blob onto
                the first-parent line (:meth:`put_firsts`).

        Returns:
            Only digests whose blob history holds (all, unless history was cut short).
        """
        found: dict[str, tuple[str, int]] = {}
        for digest, blob, hex_, time in self._in(
                f"SELECT f.digest, f.blob, c.hex, c.time FROM {_walk_table(table)} f "
                "JOIN commits c ON c.id = f.commit_id WHERE f.digest", list(blobs), order="f.seq"):
            if blobs[digest] == blob:
                found.setdefault(digest, (hex_, time))  # the first added, in walk order
        return found

    def _in(self, query: str, keys: list[str], order: str = "") -> Iterator[tuple[Any, ...]]:
        """Run ``query`` (ending ``WHERE ... column``) ``IN`` each 500 of ``keys``."""
        by = f" ORDER BY {order}" if order else ""
        for i in range(0, len(keys), 500):
            chunk = keys[i:i + 500]
            yield from self.conn.execute(
                f"{query} IN ({', '.join('?' * len(chunk))}){by}", chunk)

    # -- rows -------------------------------------------------------------------------

    def stage(self, table: str, part: str, sort: str, key: str, row: list[Any]) -> None:
        """Keep one row of ``table`` (written in :meth:`flush` batches).

        Args:
            table: the table name.
            part: the row's partition directory (``source=x/hardware=y``; "" for none).
            sort: its sort key within the partition.
            key: its identity across exports (``--since`` compares rows by it).
            row: the staged row (:mod:`.columns`).
        """
        data = encode(row)
        self._pending.append((table, part, sort, key, fingerprint(data), data))
        if len(self._pending) >= _BATCH:
            self.flush()

    def flush(self) -> None:
        """Write the rows :meth:`stage` holds."""
        if self._pending:
            self.conn.executemany("INSERT INTO rows VALUES (?, ?, ?, ?, ?, ?)", self._pending)
            self._pending = []

    def index_rows(self) -> None:
        """Index the staged rows for reading them back sorted (after the last :meth:`stage`)."""
        self.flush()
        self.conn.execute("CREATE INDEX rows_order ON rows (tbl, part, sort)")
        self.conn.execute("CREATE INDEX rows_key ON rows (tbl, key)")

    def count(self, table: str, *, changed_only: bool = False) -> int:
        """Return how many rows of ``table`` are staged (or, ``changed_only``, would be written)."""
        where = " AND NOT " + _UNCHANGED if changed_only else ""
        return int(self.conn.execute(f"SELECT count(*) FROM rows r WHERE tbl = ?{where}",
                                     (table,)).fetchone()[0])

    def rows(self, table: str, *, changed_only: bool = False
             ) -> Iterator[tuple[str, list[Any], bytes]]:
        """Yield ``(partition, row, fingerprint)`` of ``table`` by partition, then sort key.

        Args:
            table: the table name.
            changed_only: only rows whose key is new or whose fingerprint differs from the
                :meth:`put_previous` one (a ``--since`` export).
        """
        where = " AND NOT " + _UNCHANGED if changed_only else ""
        cursor = self.conn.execute(
            f"SELECT part, row, fp FROM rows r WHERE tbl = ?{where} ORDER BY part, sort",
            (table,))
        while batch := cursor.fetchmany(_BATCH):
            for part, data, fp in batch:
                yield part, orjson.loads(data), fp

    def keys(self, table: str) -> Iterator[tuple[str, bytes]]:
        """Yield ``(key, fingerprint)`` of every staged row of ``table``, by key."""
        cursor = self.conn.execute("SELECT key, fp FROM rows WHERE tbl = ? ORDER BY key",
                                   (table,))
        while batch := cursor.fetchmany(_BATCH):
            yield from batch

    # -- a previous export ------------------------------------------------------------

    def put_previous(self, table: str, items: Iterable[tuple[str, bytes]]) -> None:
        """Keep the ``(key, fingerprint)`` pairs of the export being continued."""
        self.conn.executemany("INSERT OR REPLACE INTO previous VALUES (?, ?, ?)",
                              ((table, k, fp) for k, fp in items))

    def vanished(self, table: str, limit: int = 5) -> tuple[int, list[str]]:
        """Return how many keys of the previous export have no row now, and the first few."""
        query = ("FROM previous p WHERE p.tbl = ? AND NOT EXISTS "
                 "(SELECT 1 FROM rows r WHERE r.tbl = p.tbl AND r.key = p.key)")
        count = self.conn.execute(f"SELECT count(*) {query}", (table,)).fetchone()[0]
        first = [k for (k,) in self.conn.execute(f"SELECT p.key {query} ORDER BY p.key "
                                                 f"LIMIT {int(limit)}", (table,))]
        return int(count), first


    def rewritten(self, table: str) -> Iterator[tuple[str, list[Any]]]:
        """Yield ``(key, row)`` of each row of ``table`` a ``--since`` export writes again.

        Those the previous export has under their key with another fingerprint, by key.
        """
        cursor = self.conn.execute(
            "SELECT r.key, r.row FROM rows r JOIN previous p ON p.tbl = r.tbl AND p.key = r.key "
            "WHERE r.tbl = ? AND p.fp != r.fp ORDER BY r.key", (table,))
        while batch := cursor.fetchmany(_BATCH):
            for key, data in batch:
                yield key, orjson.loads(data)


_UNCHANGED = ("EXISTS (SELECT 1 FROM previous p WHERE p.tbl = r.tbl AND p.key = r.key "
              "AND p.fp = r.fp)")


def _walk_table(name: str) -> str:
    """Return ``name`` when it is a table of history walks (``firsts``, ``landings``).

    Raises:
        ValueError: any other name (a table name is written into the SQL text).
    """
    if name not in ("firsts", "landings"):
        raise ValueError(f"no walk table {name!r}")
    return name
