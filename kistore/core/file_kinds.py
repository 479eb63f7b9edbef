"""What a path that is not a regular file is, in the words every finding and warning uses.

Looked at with ``lstat`` only: a FIFO is never opened (opening one waits for a writer for
ever) and a symbolic link never followed.
"""

from __future__ import annotations

import os
import stat


def file_kind(mode: int) -> str:
    """Return what a file of ``mode`` (``os.stat``'s or ``os.lstat``'s) that is not regular is.

    ``a FIFO``, ``a socket``, ``a symbolic link``, ``a directory``, ``a character device``,
    ``a block device``, else ``not a regular file``. Raises nothing.
    """
    for test, name in ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"),
                       (stat.S_ISLNK, "a symbolic link"), (stat.S_ISDIR, "a directory"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device")):
        if test(mode):
            return name
    return "not a regular file"


def kind_at(path: str | os.PathLike[str]) -> str | None:
    """Return what is at ``path`` in the work tree: ``""`` a regular file, else its kind.

    Args:
        path: a file's path (``lstat``: a link is not followed, a FIFO not opened).

    Returns:
        ``""`` for a regular file; :func:`file_kind`'s words for anything else; None when
        nothing is there (or a folder on its way is no directory). Raises nothing.
    """
    try:
        mode = os.lstat(path).st_mode
    except OSError:
        return None
    return "" if stat.S_ISREG(mode) else file_kind(mode)
