"""A settled work tree: reads answer from ``HEAD`` while an add is writing the work tree.

``kistore add --commit`` holds git's ``.git/index.lock`` from before its first file is
written until its branch has moved (:mod:`kistore.git.commit`), as git commands that write
the work tree do. A read of the work tree meanwhile saw the add's half-written files:
manifests never committed (gone again if the add was interrupted), and files caught between
two writes, called damaged ("do not verify"); new-user review 2026-12-02, F14. So a read
that wants the settled store asks :meth:`kistore.store.Store.settled` first: with the lock
held it waits up to :data:`WORK_TREE_WAIT_S` (a git command holds it for milliseconds) and
then answers from ``HEAD``, with a note that says so. This module owns that rule; the
command line only prints the note.
"""

from __future__ import annotations

import os
from pathlib import Path
from time import monotonic, sleep
from typing import NamedTuple

from ..core.errors import printable
from ..git.locks import index_lock

WORK_TREE_WAIT_S = 1.0
"""How long a read of the work tree waits for a held ``.git/index.lock`` before it answers
from ``HEAD`` (:func:`settled_at`): a git command holds it for milliseconds, an ``add
--commit`` of thousands of manifests for many seconds."""

_POLL_S = 0.05
"""How often a held lock is looked at again while waiting (seconds)."""


class Settled(NamedTuple):
    """The revision a read answers from once no writer is mid-way through the work tree.

    Attributes:
        at: the revision to read (``--at`` as given, ``"HEAD"`` in place of a work tree
            being written), or None for the work tree.
        note: None when ``at`` is what was asked and nothing is writing it; else why the
            answer comes from ``HEAD`` (one sentence naming the lock file and how to remove
            a stale one), or that the work tree read is being written by a plain ``kistore
            add`` (:func:`writing_note`), for the caller to show (the command line prints
            it after ``warning:``).
    """

    at: str | None
    note: str | None = None


def settled_at(git_dir: str | os.PathLike[str] | None, at: str | None, *,
               wait_s: float = WORK_TREE_WAIT_S) -> Settled:
    """Return the revision a read of ``at`` answers from: ``at``, or ``HEAD`` while written.

    ``at`` given (a commit): answered as asked, nothing looked at. The work tree (``at``
    None): one ``lstat`` of the index lock when it is free; while it is held, a look every
    :data:`_POLL_S` until it is released (the work tree is then read) or ``wait_s`` has
    passed (``HEAD`` is then read, and the note says why).

    Args:
        git_dir: the work tree's git directory; None for a repository with no work tree
            (a bare one: its reads answer from ``HEAD`` anyway).
        at: the revision asked for (None: the work tree).
        wait_s: how long a held lock is waited for, in seconds.

    Returns:
        The :class:`Settled` revision and its note.
    """
    if at is not None or git_dir is None:
        return Settled(at)
    lock = index_lock(git_dir)
    if not os.path.lexists(lock):
        return Settled(None)
    deadline = monotonic() + wait_s
    while os.path.lexists(lock):
        if monotonic() >= deadline:
            return Settled("HEAD", held_note(lock))
        sleep(_POLL_S)
    return Settled(None)


def held_note(lock: Path) -> str:
    """Return the note of an answer read from ``HEAD`` because ``lock`` stayed held.

    Args:
        lock: the index lock file (:func:`kistore.git.locks.index_lock`).

    Returns:
        One sentence: who holds the lock, that the answer is ``HEAD``'s, to ask again, and
        how to remove the lock when nothing holds it any more (a crashed command): ``rm``
        it, then ``git reset -q``, the advice ``add --commit`` gives for the same lock
        (:mod:`kistore.git.commit`); ``git status`` says nothing of the lock.
    """
    # Lazy: said only while an add holds the lock (a fresh answer's start: issue 22)
    import shlex

    shown = printable(str(lock))
    return (f"{shown} is held: a `kistore add --commit` (or a git command) is writing the "
            "work tree; answering from HEAD, not from its half-written files. Ask again "
            "when it is done; if nothing is running, a crashed command left the lock: "
            f"remove it with `rm {shlex.quote(shown)}`, then run `git reset -q` (a command "
            "killed after its branch moved leaves the index behind HEAD; this brings it in "
            "step and keeps the work tree)")


def writing_note(lock: Path) -> str:
    """Return the note of a work-tree answer read while a kistore writer holds ``lock``.

    A plain ``kistore add`` (or ``kistore migrate``) writes the work tree under the store's
    write lock and takes no git lock: the answer is read from the work tree as it is, and
    may count manifests the add has half written, or that it undoes if interrupted.

    Args:
        lock: the store's write lock file (``kistore-write.lock`` in the git directory).

    Returns:
        One sentence naming the lock file, what it means for the answer, and what to do.
    """
    return (f"{printable(str(lock))} is held: a `kistore add` (or `kistore migrate`) is "
            "writing the work tree, so this answer may include an add in progress (files it "
            "has half written, or will remove if it is interrupted); ask again when it is "
            "done, or ask HEAD with `--at HEAD`")
