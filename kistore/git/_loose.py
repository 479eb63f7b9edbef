"""Writing a loose git object or a private ref while a ``git gc`` runs beside it.

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

A ref is a loose file too (``.git/refs/kistore/notes-tmp-...``), and ``git gc`` runs
``git pack-refs --prune``: it copies each loose ref into ``packed-refs`` under
``packed-refs.lock``, deletes the loose file under that ref's own lock (``<ref>.lock``)
and removes the directories it leaves empty (``refs/kistore/``). A libgit2 write of the
ref meanwhile finds a lock taken ("failed to lock file '.../notes-tmp-....lock' for
writing: ", "failed to create locked file '...': File exists") or its directory gone
("failed to make directory '...': No such file or directory"). A review saw 1 ``kistore
attest`` in 15 refused so beside a gc loop (break97 M5). For a ref only kistore's running
command writes (a private scratch ref), such a failure can only be git's housekeeping:
the write is made again after a pause that lets it finish.

:func:`written` owns both: every object and private-ref write kistore makes goes through
it (:func:`deleted` deletes a private ref), and a race that outlasts :data:`ATTEMPTS`
tries is said as what it is (:class:`RaceLost`), never in libgit2's words alone.
"""

from __future__ import annotations

import re
import subprocess
import time
from collections.abc import Callable
from typing import TypeVar

from ..core.errors import StoreStateError
from .child import git_environment
from .lazy import pygit2  # loaded by the write that calls us

T = TypeVar("T")

ATTEMPTS = 8
"""Writes of one object or ref before the error is given up (each race lasts microseconds
to milliseconds: a ``pack-refs`` holds a lock while it rewrites ``packed-refs``)."""

PAUSE_S = 0.002
"""The pause before the second try, in seconds; it doubles at each try after (the last of
:data:`ATTEMPTS` tries starts ~0.25 s after the first: git itself waits up to 0.1 s for a
ref's lock and 1 s for ``packed-refs.lock``, its ``core.filesRefLockTimeout`` and
``core.packedRefsTimeout``)."""

_RACE = "No such file or directory"
"""What libgit2's message says when a directory it made vanished before its file went in."""

_LOCKED = re.compile(r"(?:failed to (?:lock|create locked) file|Unable to create) "
                     r"'(?P<path>[^']*)\.lock'")
"""The messages when a lock file a write creates exists: libgit2's, found before (its
``filebuf.c``, "... for writing: ") or made by another between that look and its own
(``futils.c``, "...: File exists"), both GIT_ELOCKED; git's ("Unable to create '...':
File exists", :func:`deleted`)."""


class RaceLost(StoreStateError):
    """A write lost its race with a concurrent ``git gc`` :data:`ATTEMPTS` times in a row.

    Args:
        ref: the private ref written, or None for a git object.
        said: the error message of the last try (libgit2's, or git's for :func:`deleted`).
    """

    def __init__(self, ref: str | None, said: str) -> None:
        what = f"git's ref {ref}" if ref is not None else "a git object"
        how = ("a concurrent `git gc` or `git pack-refs` kept locking it or removing its "
               "directory" if ref is not None else "a concurrent `git gc` or `git repack -d` "
               "kept removing the directory of .git/objects it goes into (their `git "
               "prune-packed`)")
        super().__init__(f"{what} could not be written: {how}, {ATTEMPTS} tries in a row "
                         f"(the last try said: {said.strip()}). Nothing was lost: running "
                         "the command again is safe, best once the `git gc` has finished")


def written(write: Callable[[], T], also: tuple[str, ...] = (), *, ref: str | None = None) -> T:
    """Run ``write`` (one loose-object or private-ref write) to success.

    A write that lost a race with ``git gc`` (see the module's docstring) is made again,
    after a pause (:data:`PAUSE_S`, doubling), up to :data:`ATTEMPTS` tries.

    Args:
        write: writes one object (``create_blob``, ``Odb.write``, ...) or moves, creates or
            deletes the private ref ``ref`` (``references.create``, ``set_target``, a note
            call), and returns what it returns; it must be safe to call again (a loose
            write is: the object's name is its content; a private ref's is: no one else
            moves it).
        also: other error messages (parts of them) that mean the write is to be made
            again (:mod:`kistore.git.note_writes`: the only trace libgit2 leaves of a notes
            commit it failed to write); the default adds none.
        ref: the full name of the private ref ``write`` writes (``refs/kistore/...``), if
            any: its lock (or ``packed-refs.lock``) found taken is a race too. Never a ref
            another writer moves (a branch, ``refs/notes/kistore``): a lock there may be
            theirs, which their callers' compare-and-swap loops wait out.

    Returns:
        What ``write`` returned.

    Raises:
        RaceLost: the race was lost :data:`ATTEMPTS` times (what happened, and that running
            the command again is safe).
        pygit2.GitError, OSError: the write failed for another reason (a full disk,
            permissions), in libgit2's words, or ``also`` was met :data:`ATTEMPTS` times.
    """
    for attempt in range(ATTEMPTS):
        try:
            return write()
        except (pygit2.GitError, OSError) as e:  # pygit2 raises OSError for libgit2's OS class
            raced = _raced(str(e), ref)
            if not raced and not any(words in str(e) for words in also):
                raise
            if attempt == ATTEMPTS - 1:
                if raced:
                    raise RaceLost(ref, str(e)) from e
                raise
            _pause(attempt)
    raise AssertionError("unreachable")  # pragma: no cover - the loop returns or raises


def deleted(repo: pygit2.Repository, ref: str) -> None:
    """Delete the private ref ``ref`` of ``repo``, to success (:func:`written`), by git's rules.

    ``git update-ref -d`` (a process, ~7 ms), never libgit2's delete (~0.1 ms), which
    writes ``packed-refs`` from what it read *before* taking its lock: when a ``git
    pack-refs`` beside had packed the ref, that rewrite can undo a pack-refs that ended
    in between, and a ref whose loose file it pruned (``refs/notes/kistore``) goes back to
    an older tip (race98: with libgit2 deleting the scratch ref whenever no pack-refs
    seemed to run, one attest's line in 240 was lost beside a pack-refs loop; with git's
    delete, none in 750); a pack-refs that read the loose ref before libgit2 deleted it
    put it back (2 scratch refs left in 30 attests); and after a try that failed on the
    lock, libgit2 has dropped the ref from its cache and says the next delete succeeded
    (libgit2 1.9.7's ``refdb_fs.c``). git reads ``packed-refs`` under its lock and waits
    for a held one itself (``core.packedRefsTimeout``, 1 s); deleting a ref already gone
    succeeds.

    Args:
        repo: the repository.
        ref: the full name of a private ref it holds.

    Raises:
        RaceLost: as :func:`written`.
        pygit2.GitError: git refused for another reason (its words).
    """
    def delete() -> None:
        done = subprocess.run(["git", "--git-dir", repo.path, "update-ref", "-d", ref],
                              capture_output=True, text=True, errors="backslashreplace",
                              env=git_environment())
        if done.returncode != 0:
            raise pygit2.GitError(done.stderr.strip() or f"git update-ref -d {ref} failed")

    written(delete, ref=ref)


def _raced(said: str, ref: str | None) -> bool:
    """Tell whether libgit2's message ``said`` is a write that lost a race with ``git gc``."""
    if _RACE in said:
        return True
    locked = _LOCKED.search(said)
    return locked is not None and ref is not None and \
        locked.group("path").endswith((f"/{ref}", "/packed-refs"))


def _pause(attempt: int) -> None:
    """Wait before try ``attempt + 2``: a ``git pack-refs`` beside may still hold its lock."""
    time.sleep(PAUSE_S * 2 ** attempt)


def commit(repo: pygit2.Repository, signature: pygit2.Signature, message: str,
           tree: pygit2.Oid, parents: list[pygit2.Oid], *,
           author: pygit2.Signature | None = None) -> pygit2.Oid:
    """Write a commit object (no ref moved) to success, as :func:`written` writes an object.

    ``repo.create_commit`` returns an id whether or not its write succeeded (see the module's
    docstring), so the commit is looked up after each write: one missing was not written,
    and libgit2's last error, the one ``create_commit`` dropped, is raised as the write's own
    (a vanished fan-out directory's "No such file or directory" is written again).

    Args:
        repo: the repository written to.
        signature: the commit's committer, and its author unless ``author`` is given.
        message: the commit message.
        tree: the commit's tree (written before).
        parents: its parents' ids, first parent first.
        author: the commit's author, when not the committer (``GIT_AUTHOR_NAME``:
            :func:`kistore.git.idents.signatures`).

    Returns:
        The commit's id, of a commit ``repo`` holds.

    Raises:
        RaceLost: as :func:`written` (the fan-out directory kept vanishing).
        pygit2.GitError, OSError: as :func:`written` (libgit2's message, e.g. "failed to
            rename lockfile to ...: No space left on device").
    """
    def write() -> pygit2.Oid:
        oid = repo.create_commit(None, author or signature, signature, message, tree, parents)
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
