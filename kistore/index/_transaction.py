"""One SQLite write transaction on the index's autocommit connection.

The index is opened with ``isolation_level=None`` (autocommit), so that its own
``BEGIN IMMEDIATE`` decides when a write starts. On such a connection ``with conn:`` opens
no transaction: each statement commits by itself, and ``executemany`` commits once per row
(a synced commit each, ~17 ms on this disk: writing the 512 shard rows of a new ``HEAD``
took 9.8 s at 1,000,000 manifests). Writes go through :func:`transaction` instead.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager


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
    """
    if conn.in_transaction:
        yield conn
        return
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
    except BaseException:
        if conn.in_transaction:  # a Ctrl-C just after a COMMIT inside finds none
            conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
