"""The notes commits a ``kistore notes push`` sends, dated at the push (KI437, fresh06 H2/H3/M1).

A note line enters the repository at its notes commit's committer date, so a server refuses
a pushed notes commit dated more than minutes off its clock (KI437,
:mod:`kistore.check._notes_clock`). ``kistore attest`` writes its notes commit when it
signs, and the push may come hours later (offline, a review first): :func:`dated_at_push`
makes the notes commits the remote lacks again as one, dated now, with the same notes tree,
its parent the remote's notes tip, so an honest clone is never refused for the wait. The
lines are the same bytes (signatures are over the bundles, not the commits); their entry
time becomes the push's, which is what the server's readers give them anyway. When a note
gains lines that entered at two times or more, they are made again as one notes commit per
such time, in order, a second apart (:mod:`kistore.attest.notes_in_order`, fresh16 F5): as
one, a rerun key's ``reproduced`` then ``not-reproduced`` entered together, and the earlier
statement, its payload dated later, stood.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from ..core.errors import printable
from ..git.lazy import pygit2
from ..git.note_writes import notes_commit
from .notes_in_order import Step, entry_steps, in_order

if TYPE_CHECKING:  # pragma: no cover - typing only
    import pygit2 as _pygit2

RECENT = 60
"""Seconds a notes commit the remote lacks may be off this machine's clock and still be sent
as it is (the server allows minutes, :data:`kistore.core.times.NOTES_AHEAD` and
``NOTES_BEHIND``: a minute leaves room for the push and a server's clock a little off)."""


@dataclass(frozen=True, slots=True)
class Redated:
    """A notes commit a ``kistore notes push`` made again dated at the push (msg03).

    Attributes:
        old: the commit replaced (40 hex), which no push sends.
        new: the commit sent in its place (40 hex).
        seconds: how far ``old``'s committer date was from the push's clock, in seconds
            (positive: ahead of it; negative: behind it).
        kept: True when ``new`` keeps ``old``'s tree, author and message (only its
            committer date, and parents made again, differ); False when the commits the
            remote lacks were made again as one (``new`` holds the tip's lines).
    """

    old: str
    new: str
    seconds: int
    kept: bool = True


AS_ONE = "made again at the push (a note line enters at its notes commit's date, KI437)"
"""The words of the message of the one notes commit :func:`dated_at_push` makes of many
(:func:`kistore.cli._notes_made_again.made_again` tells it by :attr:`Redated.kept`, not
by them: a commit made again one by one keeps its message, these words too)."""


def dated_at_push(repo: _pygit2.Repository, pushed: _pygit2.Oid | str, theirs: str | None,
                  remote: str, redated: list[Redated] | None = None, *,
                  force: bool = False) -> _pygit2.Oid | str:
    """Return the notes commit to push: ``pushed``, or its history REMOTE lacks dated now.

    A notes commit dated ahead of this machine's clock, by however little, is made again
    (msg03, fresh11 LOW 8): one dated 59 s ahead, within :data:`RECENT`, was sent as it
    was and refused by a server whose clock was 30 s slow (89 s after it, past KI437's
    minute, :data:`kistore.core.times.NOTES_AHEAD`), and no clock was wrong enough to set
    right. Only commits REMOTE lacks are made again: one it holds keeps its date.

    Args:
        repo: the pushing clone.
        pushed: the notes commit the push would send (this clone's notes tip, or the
            commit made for a remote that is not the canonical one), a descendant of
            ``theirs`` whose tree holds every line of it.
        theirs: the remote's notes tip as just fetched (None: it holds no notes).
        remote: as given to ``notes push`` (named in the commit's message).
        redated: when given, each commit made again is appended to it (:class:`Redated`),
            for the push to say.
        force: make the commits REMOTE lacks again as one dated now, however close to
            the clock they are dated (``kistore notes push --enter-now``: a line whose
            entry moves enters at the push, fresh12 F7).

    Returns:
        ``pushed`` when every notes commit it brings that ``theirs`` lacks is dated within
        :data:`RECENT` seconds before this machine's clock and none after it, or when it
        is not a descendant of ``theirs`` (the server refuses that push as a rewrite,
        KI407, whatever its dates). A commit dated more than :data:`RECENT` seconds off
        the clock (any commit, with ``force``): a new notes commit (no ref moved) of
        ``pushed``'s tree, its one parent ``theirs`` (none: a root), author and committer
        dated now; when a note gains lines that entered at two times or more, the last of
        a chain made one per such time, in order, a second apart, from ``theirs``
        (:func:`kistore.attest.notes_in_order.in_order`). Else (some dated
        ahead, within :data:`RECENT`): the commits from the first one dated ahead up to
        ``pushed`` made again (no ref moved), each with its tree, author, committer's
        name and message, its parents as made again, committer dated now.

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
    brought = list(walker)
    if not brought or (not force and all(-RECENT <= commit.commit_time - now <= 0
                                         for commit in brought)):
        return pushed
    if force or any(commit.commit_time - now > RECENT or now - commit.commit_time > RECENT
                    for commit in brought):
        steps = entry_steps(repo, pushed, theirs, str(pushed))
        if steps:  # a note gained lines at two times: their order kept (fresh16 F5)
            return _in_order(repo, pushed, theirs, remote, now, brought, steps, redated)
        return _as_one(repo, pushed, theirs, remote, now, brought, redated)
    return _ahead_again(repo, pushed, theirs, now, redated)


def _as_one(repo: _pygit2.Repository, pushed: _pygit2.Oid | str, theirs: str | None,
            remote: str, now: int, brought: list[_pygit2.Commit],
            redated: list[Redated] | None) -> _pygit2.Oid:
    """Make ``brought`` (the commits REMOTE lacks) again as one notes commit dated ``now``.

    Its tree ``pushed``'s, its one parent ``theirs`` (none: a root); each of ``brought``
    is appended to ``redated`` (when given) as replaced by it. Raises StoreStateError as
    :func:`kistore.git.note_writes.notes_commit`.
    """
    # Lazy: the write path only (as kistore.attest.notes' commits).
    from ..git.idents import signatures

    author, committer = (pygit2.Signature(who.name, who.email, now, 0)
                         for who in signatures(repo))
    tree = repo[pushed].peel(pygit2.Commit).tree_id
    made = notes_commit(
        repo, committer, f"kistore: the notes {printable(remote)} lacks, {AS_ONE}\n", tree,
        [] if theirs is None else [pygit2.Oid(hex=theirs)], author=author)
    if redated is not None:
        redated += [Redated(str(c.id), str(made), c.commit_time - now, False)
                    for c in brought]
    return made


def _in_order(repo: _pygit2.Repository, pushed: _pygit2.Oid | str, theirs: str | None,
              remote: str, now: int, brought: list[_pygit2.Commit],
              steps: list[Step],
              redated: list[Redated] | None) -> _pygit2.Oid:
    """Make ``brought`` again as one notes commit per step of ``steps``, in order (F5).

    :func:`kistore.attest.notes_in_order.in_order`; each of ``brought`` is appended to
    ``redated`` (when given) as replaced by the commit of the step whose new lines first
    entered in it (fresh17 F1: a notes commit and its child of one second are two steps;
    until then, by its date, which they share), else by the last commit (the tip's lines).
    Raises StoreStateError as :func:`kistore.git.note_writes.notes_commit`.
    """
    # Lazy: as _as_one's.
    from ..git.idents import signatures

    made = in_order(repo, pushed, theirs, f"the notes {printable(remote)} lacks, made again "
                    "at the push", now, steps, signatures(repo))
    if redated is not None:
        for c in brought:
            step = next((k for k, (_until, _notes, commits) in enumerate(steps)
                         if str(c.id) in commits), len(steps))
            redated.append(Redated(str(c.id), str(made[step]), c.commit_time - now, False))
    return made[-1]


def _ahead_again(repo: _pygit2.Repository, pushed: _pygit2.Oid | str, theirs: str | None,
                 now: int, redated: list[Redated] | None) -> _pygit2.Oid | str:
    """Make again, dated ``now``, each commit REMOTE lacks from the first dated ahead of it.

    Parents first (a topological walk from ``pushed`` hiding ``theirs``): a commit dated
    after ``now``, or one with a parent made again, is written anew with its tree, author,
    message and committer's name and offset, committer dated ``now``, its parents as made
    again; the others, and every commit ``theirs`` holds, are kept as they are. Each
    commit made again is appended to ``redated`` (when given).

    Returns:
        The commit made again for ``pushed``. Raises StoreStateError as
        :func:`kistore.git.note_writes.notes_commit`.
    """
    walker = repo.walk(pushed, pygit2.enums.SortMode.TOPOLOGICAL | pygit2.enums.SortMode.REVERSE)
    if theirs is not None:
        walker.hide(theirs)
    made: dict[str, pygit2.Oid] = {}
    for commit in walker:
        parents = [made.get(str(p), p) for p in commit.parent_ids]
        if commit.commit_time <= now and not any(str(p) in made for p in commit.parent_ids):
            continue
        who = commit.committer
        signature = pygit2.Signature(who.name, who.email, now, who.offset)
        made[str(commit.id)] = again = notes_commit(
            repo, signature, commit.message, commit.tree_id, parents, author=commit.author)
        if redated is not None:
            redated.append(Redated(str(commit.id), str(again), commit.commit_time - now))
    return made.get(str(pushed), pushed)


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


def dated_latest(repo: _pygit2.Repository, tip: str) -> str | None:
    """Return the commit of ``tip``'s history dated latest: where :func:`entry_floor` comes from.

    Called after :func:`entry_floor` read the same history (its guarded read: a loose
    commit cut short is named there, before this walk), to name the commit a refusal
    blames (fresh12 F8: "the tip is dated ahead" named no commit).

    Args:
        repo: the repository.
        tip: a reference naming a commit (``refs/notes/kistore``, ``HEAD``).

    Returns:
        The id (40 hex) of the commit with the latest committer date, the earliest of
        them (parents first) on a tie; None when ``tip`` names no commit.
    """
    # Lazy: as entry_floor's.
    from .notes import parents_first

    try:
        head = repo.references[tip].resolve().target
    except (KeyError, ValueError, pygit2.GitError):
        return None
    latest: _pygit2.Commit | None = None
    for commit in repo.walk(head, parents_first()):
        if latest is None or commit.commit_time > latest.commit_time:
            latest = commit
    return None if latest is None else str(latest.id)
