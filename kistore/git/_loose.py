"""Writing a loose git object while a ``git gc`` or ``git repack -d`` runs beside it.

libgit2 writes a loose object to a temporary file in ``.git/objects/``, creates the
object's fan-out directory (``.git/objects/d3/``) and then renames the file into it. git's
``prune-packed``, which every ``git gc`` and ``git repack -d`` runs, removes each fan-out
directory it leaves empty. When it removes ours between libgit2's ``mkdir`` and its
``rename``, the write fails with ENOENT ("failed to rename lockfile to
'.git/objects/d3/0520...': No such file or directory") although nothing is wrong: a
review saw 97 of 100 one-manifest ``add --commit`` runs refused under a ``git gc`` loop
(r70 F9). Writing again recreates the directory. (git writes its own temporary file
inside the fan-out directory, which ``prune-packed``'s ``rmdir`` then cannot remove.)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from .lazy import pygit2  # loaded by the write that calls us

T = TypeVar("T")

ATTEMPTS = 8
"""Writes of one object before the error is given up (each race lasts microseconds)."""

_RACE = "No such file or directory"
"""What libgit2's message says when the fan-out directory vanished before the rename."""


def written(write: Callable[[], T]) -> T:
    """Run ``write`` (one loose-object write: ``create_blob``, ``Odb.write``, ...) to success.

    Args:
        write: writes one object and returns what it returns (an ``Oid``); it must be safe
            to call again (a loose write is: the object's name is its content).

    Returns:
        What ``write`` returned.

    Raises:
        pygit2.GitError, OSError: the write failed for another reason (a full disk, permissions),
            or the directory kept vanishing for :data:`ATTEMPTS` attempts.
    """
    for attempt in range(ATTEMPTS):
        try:
            return write()
        except (pygit2.GitError, OSError) as e:  # pygit2 raises OSError for libgit2's OS class
            if _RACE not in str(e) or attempt == ATTEMPTS - 1:
                raise
    raise AssertionError("unreachable")  # pragma: no cover - the loop returns or raises
