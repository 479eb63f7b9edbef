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

A commit is written through :func:`commit`, not by ``Repository.create_commit`` alone:
libgit2's ``git_commit_create`` returns the new commit's id when writing it failed
(``git_commit__create_internal`` in its ``commit.c`` jumps to its cleanup with ``error``
still 0 when ``git_odb_write`` fails; libgit2 1.9.7, which pygit2 1.21 bundles), so the
race above left an add holding the id of a commit that was never written, refused later
as "git no longer has object ..." (about 1 add in 600 beside two ``prune-packed`` loops
on a loaded machine; flake97, 2026-12-05).
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


def written(write: Callable[[], T], also: str = _RACE) -> T:
    """Run ``write`` (one loose-object write: ``create_blob``, ``Odb.write``, ...) to success.

    Args:
        write: writes one object and returns what it returns (an ``Oid``); it must be safe
            to call again (a loose write is: the object's name is its content).
        also: another error message (a part of it) that means the write is to be made
            again (:mod:`kistore.git.note_writes`: the only trace libgit2 leaves of a notes
            commit it failed to write); the default adds none.

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
            if (_RACE not in str(e) and also not in str(e)) or attempt == ATTEMPTS - 1:
                raise
    raise AssertionError("unreachable")  # pragma: no cover - the loop returns or raises


def commit(repo: pygit2.Repository, signature: pygit2.Signature, message: str,
           tree: pygit2.Oid, parents: list[pygit2.Oid]) -> pygit2.Oid:
    """Write a commit object (no ref moved) to success, as :func:`written` writes an object.

    ``repo.create_commit`` returns an id whether or not its write succeeded (see the module's
    docstring), so the commit is looked up after each write: one missing was not written,
    and libgit2's last error, the one ``create_commit`` dropped, is raised as the write's own
    (a vanished fan-out directory's "No such file or directory" is written again).

    Args:
        repo: the repository written to.
        signature: the commit's author and committer.
        message: the commit message.
        tree: the commit's tree (written before).
        parents: its parents' ids, first parent first.

    Returns:
        The commit's id, of a commit ``repo`` holds.

    Raises:
        pygit2.GitError, OSError: as :func:`written` (libgit2's message, e.g. "failed to
            rename lockfile to ...: No space left on device").
    """
    def write() -> pygit2.Oid:
        oid = repo.create_commit(None, signature, signature, message, tree, parents)
        dropped = _last_error()  # before another libgit2 call replaces it
        if not repo.odb.exists(oid):
            raise pygit2.GitError(f"commit {oid} is missing after its write (libgit2's "
                                  f"last error: {dropped})")
        return oid

    return written(write)


def _last_error() -> str:
    """Return libgit2's last error message of this thread (``git_error_last``)."""
    error = pygit2.C.git_error_last()
    if error == pygit2.ffi.NULL or error.message == pygit2.ffi.NULL:  # pragma: no cover
        return "libgit2 gave no reason"  # libgit2 before 1.8 returned NULL for "no error"
    return str(pygit2.ffi.string(error.message).decode("utf-8", "replace"))
