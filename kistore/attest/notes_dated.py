"""The notes commits a ``kistore notes push`` sends, dated at the push (KI437, fresh06 H2/H3/M1).

A note line enters the repository at its notes commit's committer date, so a server refuses
a pushed notes commit dated more than minutes off its clock (KI437,
:mod:`kistore.check._notes_clock`). ``kistore attest`` writes its notes commit when it
signs, and the push may come hours later (offline, a review first): :func:`dated_at_push`
makes the notes commits the remote lacks again as one, dated now, with the same notes tree,
its parent the remote's notes tip, so an honest clone is never refused for the wait. The
lines are the same bytes (signatures are over the bundles, not the commits); their entry
time becomes the push's, which is what the server's readers give them anyway.
"""

from __future__ import annotations

import time
from datetime import datetime
from typing import TYPE_CHECKING

from ..core.errors import printable
from ..git.lazy import pygit2
from ..git.note_writes import notes_commit

if TYPE_CHECKING:  # pragma: no cover - typing only
    import pygit2 as _pygit2

RECENT = 60
"""Seconds a notes commit the remote lacks may be off this machine's clock and still be sent
as it is (the server allows minutes, :data:`kistore.core.times.NOTES_AHEAD` and
``NOTES_BEHIND``: a minute leaves room for the push and a server's clock a little off)."""


def dated_at_push(repo: _pygit2.Repository, pushed: _pygit2.Oid | str, theirs: str | None,
                  remote: str) -> _pygit2.Oid | str:
    """Return the notes commit to push: ``pushed``, or its tree made again now on ``theirs``.

    Args:
        repo: the pushing clone.
        pushed: the notes commit the push would send (this clone's notes tip, or the
            commit made for a remote that is not the canonical one), a descendant of
            ``theirs`` whose tree holds every line of it.
        theirs: the remote's notes tip as just fetched (None: it holds no notes).
        remote: as given to ``notes push`` (named in the commit's message).

    Returns:
        ``pushed`` when every notes commit it brings that ``theirs`` lacks is dated within
        :data:`RECENT` seconds of this machine's clock, or when it is not a descendant of
        ``theirs`` (the server refuses that push as a rewrite, KI407, whatever its
        dates); else a new notes commit (no ref moved) of ``pushed``'s tree, its one
        parent ``theirs`` (none: a root), author and committer dated now.

    Raises:
        StoreStateError: the commit could not be written (:func:`kistore.git.note_writes.
            notes_commit`).
    """
    if theirs is not None and (str(pushed) == theirs
                               or not repo.descendant_of(pushed, theirs)):
        return pushed
    now = int(time.time())
    walker = repo.walk(pushed, pygit2.enums.SortMode.NONE)
    if theirs is not None:
        walker.hide(theirs)
    if all(abs(commit.commit_time - now) <= RECENT for commit in walker):
        return pushed
    # Lazy: the write path only (as kistore.attest.notes' commits).
    from ..git.commit import commit_signature

    who = commit_signature(repo)
    signature = pygit2.Signature(who.name, who.email, now, 0)
    tree = repo[pushed].peel(pygit2.Commit).tree_id
    return notes_commit(
        repo, signature, f"kistore: the notes {printable(remote)} lacks, made again at the "
        "push (a note line enters at its notes commit's date, KI437)\n", tree,
        [] if theirs is None else [pygit2.Oid(hex=theirs)])


def entry_floor(repo: _pygit2.Repository, tip: str) -> datetime | None:
    """Return the earliest entry time a commit made on ``tip`` can get (fresh06 M1).

    A commit's trusted time is its date held up to its ancestors' (:class:`kistore.attest.
    notes.Clock`), so what ``kistore attest`` writes on a notes tip (or a branch) dated
    ahead enters then, not at the clock: a withdrawal judged at the clock was written, exit
    0, and counted never (the key's planned ``validUntil`` fell between).

    Read by :func:`kistore.attest.trust_history.commit_times`, the walk every reader of
    entry times makes: each loose commit of the history is read whole first
    (:func:`kistore.git.blobs.read_loose_history`; libgit2's walk alone looped for ever on
    one cut short, review F3), and that read is kept for the process (a ``--file``
    attestation's readers walk ``HEAD`` again). One walk of the whole history, commits only
    (no trees): uncached, as no reader walks this tip before ``attest`` writes on it.

    Args:
        repo: the repository.
        tip: a reference naming a commit (``refs/notes/kistore``, ``HEAD``).

    Returns:
        ``tip``'s trusted time (UTC) over its whole history; None when ``tip`` names no
        commit (no notes yet, an unborn branch).

    Raises:
        ObjectUnreadable: a commit of the history is damaged or missing (named by its id).
        CommitUnparsable: a commit of the history is one libgit2 cannot parse.
    """
    # Lazy: notes (which trust_history imports) imports this module, for its push.
    from .trust_history import commit_times

    try:  # the ref's target, no object read (libgit2 loops on a loose one cut short)
        head = str(repo.references[tip].resolve().target)
    except (KeyError, ValueError, pygit2.GitError):  # no such ref, an unborn branch
        return None
    return commit_times(repo, head)[head]
