"""Say a full, failing or read-only disk under a SQLite write as the ``OSError`` it is.

SQLite says a full disk as ``sqlite3.OperationalError("database or disk is full")``, not as
an ``OSError``, so ``kistore export`` (its scratch database) and ``kistore reindex`` (the
derived index's ``COMMIT``) said "internal error: this is a bug in kistore" (fresh05 MED 1).
:func:`sqlite_os_error` turns such an error into a :class:`DiskError`: an ``OSError`` (the
command line names its file and exits 1, as for every ``OSError``) that is still a
``sqlite3.OperationalError`` (code that tolerates a failed optional write of the index keeps
tolerating it). Here, not in :mod:`kistore.core`: the pure core imports no ``sqlite3``.
"""

from __future__ import annotations

import errno
import os
import sqlite3

from ..core.disk_errors import REMEDIES

_SQLITE_READONLY = 8
_SQLITE_IOERR = 10
_SQLITE_FULL = 13

_KINDS = {  # SQLite primary result code -> (errno, its message, matched when no code)
    _SQLITE_FULL: (errno.ENOSPC, "database or disk is full"),
    _SQLITE_IOERR: (errno.EIO, "disk i/o error"),
    _SQLITE_READONLY: (errno.EROFS, "attempt to write a readonly database"),
}


class DiskError(OSError, sqlite3.OperationalError):
    """A SQLite write the disk refused (full, I/O error, read-only), said as an ``OSError``.

    Its ``filename`` is the file the command line names; its ``strerror`` says what was
    being written and what to do. Still a ``sqlite3.OperationalError``, so an
    ``except sqlite3.OperationalError`` around an optional write keeps working.
    """


def _errno_of(error: sqlite3.Error) -> int | None:
    """Return the ``errno`` a SQLite error stands for (full, I/O, read-only), else None."""
    code = getattr(error, "sqlite_errorcode", None)
    if isinstance(code, int) and code & 0xFF in _KINDS:
        return _KINDS[code & 0xFF][0]
    text = str(error).lower()
    for number, words in _KINDS.values():
        if words in text:
            return number
    return None


def sqlite_os_error(error: sqlite3.Error, file: str | os.PathLike[str],
                    what: str) -> DiskError | None:
    """Return ``error`` said as the disk's error on ``file``, or None when it is another.

    Args:
        error: what SQLite raised.
        file: the name the user is told (the database file, or the directory it is for).
        what: what was being written, after "writing" (``"kistore's derived index"``).

    Returns:
        A :class:`DiskError` with ``errno`` ENOSPC (SQLITE_FULL), EIO (SQLITE_IOERR) or
        EROFS (SQLITE_READONLY), ``filename`` ``file`` and a ``strerror`` such as "No space
        left on device writing kistore's derived index; free space on its file system and
        run the command again"; None for any other error (a lock, a bug), to be raised as
        it is.
    """
    if isinstance(error, DiskError):
        return error
    number = _errno_of(error)
    if number is None:
        return None
    remedy = REMEDIES[number]
    return DiskError(number, f"{os.strerror(number)} writing {what}; {remedy}", os.fspath(file))
