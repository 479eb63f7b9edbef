"""One SQLite write transaction on the index's autocommit connection.

The index is opened with ``isolation_level=None`` (autocommit), so that its own
``BEGIN IMMEDIATE`` decides when a write starts. On such a connection ``with conn:`` opens
no transaction: each statement commits by itself, and ``executemany`` commits once per row
(a synced commit each, ~17 ms on this disk: writing the 512 shard rows of a new ``HEAD``
took 9.8 s at 1,000,000 manifests). Writes go through :func:`transaction` instead.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager

from .disk_errors import sqlite_os_error

INDEX_SAID = ("kistore's derived index (rebuilt from the store whenever needed: nothing of "
              "the store was lost)")
"""What a full disk stopped, said after the index file's name (fresh05 MED 1: ``reindex``
said "internal error: this is a bug" at its ``COMMIT``)."""


@contextmanager
def transaction(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """Run the block in one ``BEGIN IMMEDIATE`` ... ``COMMIT`` (``ROLLBACK`` on any error).

    Inside a transaction the caller already began (e.g. an index update), the block simply
    joins it: that transaction commits or rolls back as a whole.

    Args:
        conn: a connection opened with ``isolation_level=None``.

    Yields:
        ``conn``.

    Raises:
        sqlite3.OperationalError: the database stayed locked past the connection's timeout.
        kistore.index.disk_errors.DiskError: the disk is full (or failed, or is read-only):
            an ``OSError`` naming the database file, still a ``sqlite3.OperationalError``;
            the transaction was rolled back (SQLite's journal: nothing half-written).
    """
    if conn.in_transaction:
        yield conn
        return
    try:
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield conn
        except BaseException:
            if conn.in_transaction:  # a Ctrl-C just after a COMMIT inside finds none
                conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")
    except sqlite3.OperationalError as e:
        said = sqlite_os_error(e, _file(conn), INDEX_SAID)
        if said is None:
            raise
        if conn.in_transaction:  # a failed COMMIT leaves it open
            with contextlib.suppress(sqlite3.Error):
                conn.execute("ROLLBACK")
        raise said from e


def _file(conn: sqlite3.Connection) -> str:
    """Return the file of ``conn``'s main database (``""`` for one in memory)."""
    try:
        return next((row[2] for row in conn.execute("PRAGMA database_list")
                     if row[1] == "main"), "") or ""
    except sqlite3.Error:
        return ""
