"""Notes made again at a push in the order their lines entered (fresh16 F5).

``kistore notes push`` makes the notes commits a remote lacks again, dated at the push,
once one is more than a minute off this machine's clock (KI437,
:func:`kistore.attest.notes_dated.dated_at_push`): as one notes commit of the tip's tree.
A line enters at its notes commit's date, so every line then entered in one second, and
what told one key's reruns of one run apart was gone: a rerun key's ``reproduced``, then
its ``not-reproduced`` (its last word), became two lines of one notes commit, the tie went
to the payload dated later (:func:`kistore.attest.evidence.rerun_order`), and the run was
``verified`` on the server and in every clone.

Here :func:`entry_steps` finds the notes whose new lines entered at more than one time,
or in one second in notes commits history orders (fresh17 F1: a notes commit and its
child; only there can the order of two lines matter: one key's reruns of one run are
lines of the note on that run), and :func:`in_order` makes the commits again as one notes
commit per such time and history rank, in order, each the child of the one before and
dated a second after it, the last at the push and of the tip's tree, so each line enters
after every line that entered before it here. Lines whose order no note holds (the usual
push) are still made again as one commit.
"""

from __future__ import annotations

import functools
import uuid
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from ..core.layout import NOTES_REF
from ..git.lazy import pygit2
from ..git.note_blobs import read_note
from ..git.note_writes import notes_commit, write_note
from ..git.notes import changed_notes, notes_tree

if TYPE_CHECKING:  # pragma: no cover - typing only
    import pygit2 as _pygit2

Step = tuple[datetime, dict[str, list[bytes]], frozenset[str]]
"""One notes commit :func:`in_order` makes (:func:`entry_steps`): when its lines entered,
``{annotated object: [every line of its note then, sorted]}``, and the notes commits the
lines it adds first entered in (those it makes again)."""

IN_ORDER = ("in the order their lines entered (a note line enters at its notes commit's "
            "date; fresh16 F5)")
"""The words of the message of each notes commit :func:`in_order` makes, after its step."""


def entry_steps(repo: _pygit2.Repository, pushed: _pygit2.Oid | str, theirs: str | None,
                dated: str) -> list[Step] | None:
    """Return the notes ``pushed`` brings, by the time their lines entered, when it matters.

    Each line ``pushed``'s notes hold and ``theirs``'s lack is dated as this repository's
    readers date it at ``dated`` (:func:`kistore.attest.notes.notes_entered`: its first
    notes commit's trusted time), and ranked among the lines of its second by history
    (:func:`_history_ranks`: a line of a notes commit's child after one of the commit's,
    as readers order them; since 2026-12-07, fresh17 F1: both were made again in one
    commit, and the tie went to the payload dated later). The steps that matter are the
    ``(time, rank)`` at which a note gaining lines at two of them or more gained some.

    Args:
        repo: the pushing (or rebuilding) repository.
        pushed: the notes commit to send (or write), holding every line.
        theirs: the remote's notes tip, whose lines are not new (None: it holds no notes).
        dated: the notes commit whose history dates the lines (the tip of this
            repository's notes); a line it lacks is dated as the latest.

    Returns:
        None when no note gains lines at two steps (one commit keeps every order that
        matters). Else ``(time, {annotated object: [every line of its note then, sorted]},
        commits)`` per such step but the last, earliest first (a time repeats for two ranks
        of one second; ``commits``: the notes commits the step's new lines first entered
        in, by :func:`kistore.attest.notes.notes_entered_in`): the notes that changed by then,
        ``theirs``'s lines with the new ones entered by then (the last step is
        ``pushed``'s tree itself).

    Raises:
        ObjectUnreadable: a notes commit, tree or note blob on the way is damaged or missing.
    """
    # Lazy: notes imports notes_dated, which imports this module.
    from .notes import lines_of, notes_entered, notes_entered_in

    before = None if theirs is None else notes_tree(repo, theirs, NOTES_REF)
    held: dict[str, set[bytes]] = {}
    new: dict[str, set[bytes]] = {}
    for obj, (was, now) in changed_notes(repo, before, notes_tree(repo, pushed,
                                                                  NOTES_REF)).items():
        had = set() if was is None else set(lines_of(read_note(repo, was, f"{NOTES_REF}:{obj}")))
        more = set() if now is None else set(lines_of(read_note(
            repo, now, f"{NOTES_REF}:{obj}"))) - had
        if more:
            held[obj], new[obj] = had, more
    if not new:
        return None
    known = notes_entered(repo, notes_at=dated)
    latest = max((when for lines in known.values() for when in lines.values()),
                 default=datetime.max.replace(tzinfo=UTC))
    first = notes_entered_in(repo, notes_at=dated)
    dated_in = {(obj, line): (known.get(obj, {}).get(line, latest),
                              first.get(obj, {}).get(line, ()))
                for obj, lines in new.items() for line in lines}
    ranks = _history_ranks(repo, dated_in)
    entered = {obj: {line: (dated_in[obj, line][0], ranks[obj, line]) for line in lines}
               for obj, lines in new.items()}
    times = sorted({when for obj in new
                    if len(at := set(entered[obj].values())) > 1 for when in at})
    if not times:
        return None
    return [(until[0], {obj: sorted(held[obj] | {line for line in new[obj]
                                                 if entered[obj][line] <= until})
                        for obj in sorted(new)
                        if any(entered[obj][line] <= until for line in new[obj])},
             frozenset(c for obj in new for line in new[obj] if entered[obj][line] == until
                       for c in dated_in[obj, line][1]))
            for until in times[:-1]]


def _history_ranks(repo: _pygit2.Repository,
                   dated_in: dict[tuple[str, bytes], tuple[datetime, tuple[str, ...]]]
                   ) -> dict[tuple[str, bytes], int]:
    """Return each line's rank among the lines that entered in its second, by history.

    A line's rank is how many of the notes commits lines of its second first entered in
    (:func:`kistore.attest.notes.notes_entered_in`) every one of its own commits properly
    descends from: a line whose commits all descend from another's has a higher rank, as
    :func:`kistore.attest.evidence.rerun_order` orders them (fresh17 F1: a notes commit
    and its child of one second, made again as one commit, lost that order). A line with
    no commit known (one the dating history lacks) ranks after every one of its second.
    Costs a ``descendant_of`` per pair of the commits of one second, only where a second
    holds two or more.
    """
    by_time: dict[datetime, set[str]] = {}
    for when, commits in dated_in.values():
        by_time.setdefault(when, set()).update(commits)
    ranks: dict[tuple[str, bytes], int] = {}
    for key, (when, commits) in dated_in.items():
        others = by_time[when]
        if not commits:
            ranks[key] = len(others)
        elif len(others) < 2:
            ranks[key] = 0
        else:
            ranks[key] = sum(all(c != o and repo.descendant_of(c, o) for c in commits)
                             for o in sorted(others))
    return ranks


def in_order(repo: _pygit2.Repository, pushed: _pygit2.Oid | str, theirs: str | None,
             what: str, now: int, steps: list[Step],
             who: tuple[_pygit2.Signature, _pygit2.Signature]) -> list[_pygit2.Oid]:
    """Make the notes ``pushed`` brings again as one notes commit per step, in order.

    Args:
        repo: the pushing repository.
        pushed: the notes commit the push would send; the last commit made has its tree.
        theirs: the remote's notes tip, the first commit's parent (None: a root).
        what: each commit's message, after ``kistore: `` and before the step's number
            (printable: a remote's name escaped).
        now: the push's clock (Unix seconds): the last commit's date; each one before is
            dated a second before the next (none more than a minute before ``now``, the
            window a notes commit is sent in as it is, :data:`kistore.attest.notes_dated.
            RECENT`: earlier steps share its second then).
        steps: :func:`entry_steps`' (not empty).
        who: the author and committer git names (their names and emails are written).

    Returns:
        The commits made, earliest first (``len(steps) + 1``), no ref moved: each a child
        of the one before, the first of ``theirs``.

    Raises:
        StoreStateError: a notes commit could not be written (:mod:`kistore.git.note_writes`).
    """
    # Lazy: as notes_dated's own (notes imports that module).
    from ..git._loose import deleted, written
    from .notes_dated import RECENT

    count = len(steps) + 1
    scratch = f"refs/kistore/notes-in-order-{uuid.uuid4().hex}"  # one per push
    made: list[_pygit2.Oid] = []
    parent = None if theirs is None else pygit2.Oid(hex=theirs)
    try:
        for k in range(count):
            at = now - min(count - 1 - k, RECENT)
            author, committer = (pygit2.Signature(s.name, s.email, at, 0) for s in who)
            if k < count - 1:
                if parent is not None:
                    written(functools.partial(repo.references.create, scratch, parent,
                                              force=True), ref=scratch)
                elif scratch in repo.references:
                    deleted(repo, scratch)
                for obj, lines in steps[k][1].items():
                    write_note(repo, scratch, obj,
                               b"".join(line + b"\n" for line in lines).decode("utf-8"),
                               (author, committer))
                tree = repo.references[scratch].peel(pygit2.Commit).tree_id
            else:
                tree = repo[pushed].peel(pygit2.Commit).tree_id
            parent = notes_commit(
                repo, committer, f"kistore: {what}, {k + 1} of {count}, {IN_ORDER}\n", tree,
                [] if parent is None else [parent], author=author)
            made.append(parent)
    finally:
        if scratch in repo.references:
            deleted(repo, scratch)
    return made
