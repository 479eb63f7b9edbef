"""A full disk under the derived index is said naming its file, not "a bug in kistore".

fresh05 MED 1: ``kistore reindex`` on a full file system said "internal error: this is a
bug in kistore ... (OperationalError: database or disk is full)" at its ``COMMIT``. The
index's transactions say SQLite's full disk (and I/O error, read-only file) as an
``OSError`` naming the database file; the transaction is rolled back.
"""

from __future__ import annotations

import errno
import sqlite3

import pytest

from ..conftest import add_docs
from ..small_disk import fill, small_disk

SAID = ("No space left on device writing kistore's derived index (rebuilt from the store "
        "whenever needed: nothing of the store was lost); free space on its file system "
        "and run the command again")


class _FullAtCommit(sqlite3.Connection):
    """A connection whose ``COMMIT`` meets SQLite's full disk (the seam)."""

    full = "database or disk is full"

    def execute(self, sql, *args):  # type: ignore[override]
        if sql == "COMMIT":
            raise sqlite3.OperationalError(self.full)
        return super().execute(sql, *args)


@pytest.mark.parametrize(("words", "number", "start"), [
    ("database or disk is full", errno.ENOSPC, "No space left on device writing"),
    ("disk I/O error", errno.EIO, "Input/output error writing"),
    ("attempt to write a readonly database", errno.EROFS, "Read-only file system writing"),
])
def test_a_disk_error_at_commit_names_the_file_and_rolls_back(tmp_path, words, number,
                                                              start):
    from kistore.index._transaction import transaction
    from kistore.index.disk_errors import DiskError

    path = tmp_path / "index.sqlite"
    conn = sqlite3.connect(path, isolation_level=None, factory=_FullAtCommit)
    conn.full = words  # type: ignore[attr-defined]
    with pytest.raises(DiskError) as caught:
        with transaction(conn):
            conn.execute("CREATE TABLE t (x)")
    error = caught.value
    assert (error.errno, error.filename) == (number, str(path))
    assert error.strerror.startswith(start)
    assert isinstance(error, OSError) and isinstance(error, sqlite3.OperationalError)
    assert not conn.in_transaction
    assert conn.execute("SELECT name FROM sqlite_master").fetchall() == []  # rolled back
    if number == errno.ENOSPC:
        assert error.strerror == SAID


def test_a_lock_at_commit_is_raised_as_it_is(tmp_path):
    from kistore.index._transaction import transaction
    from kistore.index.disk_errors import DiskError

    conn = sqlite3.connect(tmp_path / "index.sqlite", isolation_level=None,
                           factory=_FullAtCommit)
    conn.full = "database is locked"  # type: ignore[attr-defined]
    with pytest.raises(sqlite3.OperationalError) as caught:
        with transaction(conn):
            conn.execute("CREATE TABLE t (x)")
    assert not isinstance(caught.value, DiskError)
    assert str(caught.value) == "database is locked"


def test_reindex_on_a_real_full_disk_names_the_index(runner, kit, tmp_path):
    from kistore.cli import main
    from kistore.store import Store

    with small_disk(tmp_path / "small") as small:
        Store.init(small / "s")
        store = Store(small / "s")
        add_docs(store, kit.group_docs([None]), allow_dangling=True)
        ls = runner.invoke(main, ["--store", str(store.root), "ls"])
        assert ls.exit_code == 0
        fill(small)
        result = runner.invoke(main, ["--store", str(store.root), "reindex"])
        assert result.exit_code == 1
        index = small / "s" / ".git" / "kistore" / "index.sqlite"
        assert result.output.endswith(
            f"error: {index}: {SAID}; nothing was left half-written\n")
        again = runner.invoke(main, ["--store", str(store.root), "ls"])  # still answers
        assert (again.exit_code, again.output) == (0, ls.output)
