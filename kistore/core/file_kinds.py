"""What a path that is not a regular file is, in the words every finding and warning uses.

Looked at with ``lstat`` (or, where git itself follows a link, ``stat``) only: a FIFO is
never opened (opening one waits for a writer for ever) and a symbolic link never read
through. The words are this module's constants; a caller that says more of one kind (what
to do about it, which rule reports it) keys its own sentence on them, never on the mode.
"""

from __future__ import annotations

import os
import stat

FIFO = "a FIFO"
SOCKET = "a socket"
SYMLINK = "a symbolic link"
DIRECTORY = "a directory"
CHARACTER_DEVICE = "a character device"
BLOCK_DEVICE = "a block device"
SUBMODULE = "a submodule"
"""A git tree entry of mode ``160000`` (a gitlink): a commit of another repository."""
OTHER = "not a regular file"
"""A mode of no type named here."""

SPECIAL = frozenset({FIFO, SOCKET, CHARACTER_DEVICE, BLOCK_DEVICE})
"""The kinds no reader may open: a FIFO waits for a writer for ever, a device such as
``/dev/zero`` reads without end, a socket cannot be opened at all."""

_GITLINK = 0o160000
"""git's mode of a submodule's entry (its ``S_IFMT`` bits name no file type ``lstat`` gives)."""

_KINDS = ((stat.S_ISFIFO, FIFO), (stat.S_ISSOCK, SOCKET), (stat.S_ISLNK, SYMLINK),
          (stat.S_ISDIR, DIRECTORY), (stat.S_ISCHR, CHARACTER_DEVICE),
          (stat.S_ISBLK, BLOCK_DEVICE))
"""Each file type's test of a mode, and its words."""


def file_kind(mode: int) -> str:
    """Return what a file of ``mode`` that is not regular is.

    Args:
        mode: ``os.stat``'s or ``os.lstat``'s ``st_mode``, or a git tree entry's mode
            (``120000`` a symbolic link, ``40000`` a directory, ``160000`` a submodule:
            git's modes carry the same file-type bits).

    Returns:
        :data:`FIFO`, :data:`SOCKET`, :data:`SYMLINK`, :data:`DIRECTORY`,
        :data:`CHARACTER_DEVICE`, :data:`BLOCK_DEVICE`, :data:`SUBMODULE`, else
        :data:`OTHER`. Raises nothing.
    """
    for test, name in _KINDS:
        if test(mode):
            return name
    return SUBMODULE if stat.S_IFMT(mode) == _GITLINK else OTHER


def kind_at(path: str | os.PathLike[str], *, follow: bool = False) -> str | None:
    """Return what is at ``path`` in the work tree: ``""`` a regular file, else its kind.

    Args:
        path: a file's path. Looked at, never opened.
        follow: False (``lstat``): a symbolic link is :data:`SYMLINK`, never followed.
            True (``stat``), where git itself follows a link: the kind of what the link
            names (a link to a FIFO is :data:`FIFO`; to a regular file, ``""``).

    Returns:
        ``""`` for a regular file; :func:`file_kind`'s words for anything else; None when
        nothing is there (a broken link followed, or a folder on its way is no
        directory) or it cannot be looked at. Raises nothing.
    """
    try:
        mode = (os.stat if follow else os.lstat)(path).st_mode
    except OSError:
        return None
    return "" if stat.S_ISREG(mode) else file_kind(mode)
