"""Say which file a full or failing disk stopped a write to, and what to do.

``os.write`` and ``close`` raise ``OSError`` without a file name, so a full disk during
``add`` or ``site build`` said only "No space left on device" (fresh05 LOW 2).
:func:`named` gives such an error the path being written and the remedy. (SQLite's own
words for a full disk are turned into an ``OSError`` by :mod:`kistore.index.disk_errors`.)

This module imports nothing of kistore.
"""

from __future__ import annotations

import errno
import os

REMEDIES = {
    errno.ENOSPC: "free space on its file system and run the command again",
    errno.EDQUOT: "free space within your disk quota and run the command again",
    errno.EIO: "check the disk (dmesg) and run the command again",
    errno.EROFS: "make it writable and run the command again",
}
"""What to do, by ``errno``, said after the system's reason."""


def named(error: OSError, path: str | os.PathLike[str], *,
          instead_of: str | None = None) -> OSError:
    """Return ``error`` naming ``path`` when it names no file yet (``os.write``, ``close``).

    Args:
        error: the ``OSError`` a write raised.
        path: the file (or directory) being written, as the user should be told it.
        instead_of: a temporary directory the user never sees (a site's staging): an
            error naming a file under it is named ``path`` instead.

    Returns:
        ``error`` itself when it already names a file (not under ``instead_of``) or has no
        ``errno``; else a new
        ``OSError`` of its ``errno`` (Python picks the subclass) with ``filename`` ``path``
        and a ``strerror`` of the system's reason and, for a full disk, an I/O error or a
        read-only file system, what to do (:data:`REMEDIES`): "No space left on device;
        free space on its file system and run the command again". Raise it ``from error``.
    """
    hidden = instead_of is not None and isinstance(error.filename, str) and (
        error.filename == instead_of or error.filename.startswith(instead_of + os.sep))
    if (error.filename is not None and not hidden) or error.errno is None:
        return error
    reason = error.strerror or os.strerror(error.errno)
    remedy = REMEDIES.get(error.errno)
    return OSError(error.errno, f"{reason}; {remedy}" if remedy else reason, os.fspath(path))
