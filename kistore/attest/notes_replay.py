"""The notes history replayed without the lines dropped (``kistore notes rebase``, fresh10 HIGH 1).

A note line enters the repository at the trusted time (:class:`kistore.attest.notes.Clock`)
of the first notes commit holding it, and readers judge it against the trust held then
(KI437, KI438). ``kistore notes rebase`` with no REMOTE wrote the tip's notes into ONE new
notes commit made at the rebase, so every line kept that the history after the mistake
brought re-entered at now: a withdrawal signed by a key revoked since stopped counting (the
withdrawn run ranked first again, ``verify`` KI302), and a withdrawal signed while its key
was untrusted counted after a later ``trust add`` (what the server's KI434 refuses).

Here the history is replayed instead: each notes commit holding a dropped line, or built on
one that is written again, is written again without the dropped lines, with its original
author, committer, dates, time zones and message; a commit older than the mistake is kept
as it is. A replayed commit left holding exactly what its (replayed) parent holds (the
mistake's own commit, the ``git notes remove`` that took it back) is left out, but only when
no other commit's trusted time changes for it; else every commit is replayed. Should a
trusted time still differ, :func:`plan` says which commits and nothing is written (the
caller refuses). ``--dry-run`` and the real run read the same :func:`plan`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import partial
from typing import TYPE_CHECKING, NamedTuple, cast

from ..core.layout import NOTES_REF
from ..git.lazy import pygit2
from ..git.notes import note_tree

if TYPE_CHECKING:  # pragma: no cover - typing only
    import pygit2

__all__ = ["Plan", "plan", "write"]


@dataclass(frozen=True, slots=True)
class _Dated:
    """A commit as :class:`kistore.attest.notes.Clock` reads it: id, parents, date."""

    id: str
    parent_ids: tuple[str, ...]
    commit_time: int


@dataclass(slots=True)
class _Step:
    """One notes commit of the history as the replay writes it.

    ``commit``: the original; ``notes``: ``{annotated: new note bytes or None (removed)}``
    for each note changed; ``parents``: the new parents (original ids, mapped later).
    """

    commit: pygit2.Commit
    notes: dict[str, bytes | None]
    parents: list[str]
    held: dict[str, str] = field(default_factory=dict)


class Plan(NamedTuple):
    """What the replay writes (or would write): the same for ``--dry-run`` and the real run.

    Attributes:
        old: the notes tip replayed (40 hex).
        replayed: the original notes commits written again, parents first (40 hex each).
        left_out: the original notes commits not written again: each held, once the lines
            were dropped, exactly what its parent holds (40 hex each).
        kept: ``{original id: the id it becomes}`` for every commit of the history: itself
            (older than the mistake, kept as is), its replayed commit's key
            (``replay:ID``, an id once written), or, left out, what its parent becomes.
        base: the newest commit of the tip's first-parent line kept as it is (40 hex; None:
            every commit of that line is replayed or left out).
        moved: the original commits whose trusted time would differ once replayed (40
            hex each; empty: every line keeps the time it entered). Non-empty: refuse.
        steps: each original commit's notes changed and parents (what :func:`write` reads).
    """

    old: str
    replayed: list[str]
    left_out: list[str]
    kept: dict[str, str]
    base: str | None
    moved: list[str]
    steps: dict[str, _Step]


def plan(repo: pygit2.Repository, tip: pygit2.Commit, dropped: dict[str, list[bytes]],
         now: datetime | None = None) -> Plan:
    """Plan the replay of ``tip``'s notes history without ``dropped``; write nothing.

    Args:
        repo: the repository.
        tip: the notes tip (a commit of :data:`NOTES_REF`).
        dropped: ``{annotated object id: [lines]}`` to leave out of every notes commit.
        now: the clock the trusted times are read at (None: this machine's, UTC).

    Returns:
        :class:`Plan`. Commits left out only when no trusted time changes for it; else
        every commit touched is replayed and left out is empty; ``moved`` names the commits
        whose time would still differ (none, a replay keeping every commit's dates and
        parents).

    Raises nothing of its own: a note blob that cannot be read (past the size limit) is
    kept as it is (the lines dropped are those read).
    """
    # Lazy: notes.py loads the write path; only this command needs it.
    from .notes import Clock, parents_first

    moment = now or datetime.now(UTC)
    history = list(repo.walk(tip.id, parents_first()))
    steps = _steps(repo, history, dropped)
    original = Clock(moment)
    times = {str(c.id): original.time_of(c) for c in history}
    for prune in (True, False):
        kept, replayed, left_out = _mapped(history, steps, prune)
        clock = Clock(moment)
        new_times: dict[str, datetime] = {}
        for commit in history:  # parents first, as the readers walk the new history
            if str(commit.id) in left_out:
                continue
            at = kept[str(commit.id)]
            parents = _unique([kept[p] for p in steps[str(commit.id)].parents])
            new_times[at] = clock.time_of(cast("pygit2.Commit", _Dated(
                at, tuple(parents), commit.commit_time)))
        moved = [str(c.id) for c in history if str(c.id) not in left_out
                 and new_times.get(kept[str(c.id)]) != times[str(c.id)]]
        if not moved or not prune:
            base: pygit2.Commit | None = tip
            while base is not None and kept[str(base.id)] != str(base.id):
                base = base.parents[0] if base.parents else None
            return Plan(str(tip.id), replayed, left_out, kept,
                        None if base is None else str(base.id), moved, steps)
    raise AssertionError("unreachable")  # pragma: no cover - the second pass returns


def _steps(repo: pygit2.Repository, history: list[pygit2.Commit],
           dropped: dict[str, list[bytes]]) -> dict[str, _Step]:
    """Return each commit's :class:`_Step`: its notes changed, parents, and what it holds.

    ``held`` is the commit's notes once the lines are dropped, ``{annotated: blob id}``
    (a changed note's id hashed, not written): compared with a parent's to find a commit
    left holding what its parent holds.
    """
    # Lazy: as plan.
    from ..git.blobs import ObjectUnreadable
    from ..git.note_blobs import read_note

    trees: dict[str, dict[str, str]] = {}
    edited: dict[str, bytes | None] = {}  # original blob -> bytes without the lines
    steps: dict[str, _Step] = {}
    for commit in history:
        notes = note_tree(repo, commit.tree, "", trees)
        changes: dict[str, bytes | None] = {}
        for obj, blob in notes.items():
            if obj not in dropped:
                continue
            key = f"{obj}:{blob}"
            if key not in edited:
                try:
                    read = read_note(repo, blob, f"{NOTES_REF}:{obj}")
                except ObjectUnreadable:  # past the size limit: no line of it is known
                    read = b""  # (none dropped: the lines dropped were read elsewhere)
                edited[key] = _without(read, set(dropped[obj]))
            if edited[key] != b"":  # b"": nothing dropped from it
                changes[obj] = edited[key]
        held = dict(notes)
        for obj, data in changes.items():
            if data is None:
                del held[obj]
            else:
                held[obj] = str(pygit2.hash(data))
        steps[str(commit.id)] = _Step(commit, changes, [str(p) for p in commit.parent_ids],
                                      held)
    return steps


def _without(note: bytes, lines: set[bytes]) -> bytes | None:
    """Return ``note``'s bytes without ``lines``.

    b"" when it holds none of them (unchanged), None when no line is left (the note removed).
    """
    parts = note.split(b"\n")
    kept = [part for part in parts if not (part.strip() and part in lines)]
    if len(kept) == len(parts):
        return b""
    if not any(part.strip() for part in kept):
        return None
    return b"\n".join(kept)


def _mapped(history: list[pygit2.Commit], steps: dict[str, _Step], prune: bool
            ) -> tuple[dict[str, str], list[str], list[str]]:
    """Return ``(kept, replayed, left out)`` of :class:`Plan` (``prune``: leave out empties)."""
    kept: dict[str, str] = {}
    held: dict[str, dict[str, str]] = {}  # new id -> its notes
    replayed: list[str] = []
    left_out: list[str] = []
    for commit in history:
        cid = str(commit.id)
        step = steps[cid]
        parents = _unique([kept[p] for p in step.parents])
        if not step.notes and parents == step.parents:
            kept[cid] = cid  # older than the mistake: as it is
            held[cid] = step.held
            continue
        empty = (held[parents[0]] == step.held) if len(parents) == 1 else (
            not parents and not step.held)
        if prune and empty:
            kept[cid] = parents[0] if parents else ""
            left_out.append(cid)
            continue
        kept[cid] = f"replay:{cid}"
        held[kept[cid]] = step.held
        replayed.append(cid)
    return kept, replayed, left_out


def _unique(ids: list[str]) -> list[str]:
    """Return ``ids`` in order, each once, without "" (a root left out: no parent)."""
    return [p for i, p in enumerate(ids) if p and p not in ids[:i]]


def write(repo: pygit2.Repository, planned: Plan) -> str | None:
    """Write the commits ``planned`` replays; return what the old tip becomes.

    Each replayed commit gets its original's tree with the changed notes written again
    (every other entry, and the fan-out, as they were), its parents as mapped, and its
    original author, committer (names, e-mails, dates, time-zone offsets) and message.
    No ref is moved.

    Args:
        repo: the repository.
        planned: :func:`plan`'s answer, ``moved`` empty.

    Returns:
        The new tip's id (40 hex): the old tip itself when nothing is replayed or left out;
        None when every commit was left out (no notes remain).

    Raises:
        StoreStateError: a commit could not be written (:func:`kistore.git.note_writes.
            notes_commit`'s words).
    """
    # Lazy: the write path only.
    from ..core.errors import StoreStateError
    from ..git import _loose

    written: dict[str, str] = {}
    trees: dict[tuple[str, str], pygit2.Oid | None] = {}

    def resolved(key: str) -> str:
        """Return the commit written for ``key`` (``replay:<40 hex>``), else ``key`` itself.

        ``key``: a commit id (40 hex) kept as it is, or a replayed one's key; the answer
        is 40 hex either way. Raises nothing.
        """
        return written.get(key, key)

    for cid in planned.replayed:
        step = planned.steps[cid]
        commit = step.commit
        tree = _tree_without(repo, commit.tree, "", step.notes, trees)
        if tree is None:
            tree = repo.TreeBuilder().write()
        parents = [pygit2.Oid(hex=resolved(p))
                   for p in _unique([planned.kept[p] for p in step.parents])]
        try:
            oid = _loose.commit(repo, commit.committer, commit.message, tree, parents,
                                author=commit.author)
        except (pygit2.GitError, OSError) as e:
            raise StoreStateError(f"a notes commit could not be written ({e}); nothing was "
                                  "changed: run it again") from e
        written[f"replay:{cid}"] = str(oid)
    tip = planned.kept[planned.old]
    return resolved(tip) if tip else None


def _tree_without(repo: pygit2.Repository, tree: pygit2.Tree, prefix: str,
                  notes: dict[str, bytes | None],
                  cache: dict[tuple[str, str], pygit2.Oid | None]) -> pygit2.Oid | None:
    """Write ``tree`` (a notes tree, or a fan-out subtree at ``prefix``) with ``notes`` changed.

    Returns the tree's id (itself when nothing under it changes), None when it is left empty.
    """
    # Lazy: the write path only.
    from ..git import _loose

    if not any(obj.startswith(prefix) for obj in notes):
        return tree.id
    key = (str(tree.id), prefix)
    if key in cache:
        return cache[key]
    builder = repo.TreeBuilder(tree)
    for entry in tree:
        name = str(entry.name)
        if entry.type == pygit2.GIT_OBJECT_TREE:
            sub = _tree_without(repo, repo[entry.id].peel(pygit2.Tree), prefix + name, notes,
                                cache)
            if sub is None:
                builder.remove(name)
            elif sub != entry.id:
                builder.insert(name, sub, entry.filemode)
        elif prefix + name in notes:
            data = notes[prefix + name]
            if data is None:
                builder.remove(name)
            else:
                builder.insert(name, _loose.written(partial(repo.create_blob, data)),
                               entry.filemode)
    cache[key] = None if len(builder) == 0 else builder.write()
    return cache[key]
