"""Which notes commit removed a line the notes tip lacks, and whether this clone made it.

KI315 (:mod:`kistore.attest.tip_lacking`) said of every line the notes history held and
the tip lacks "they were removed here (`git notes remove`, ...)". A fresh clone of a
canonical remote with no hook, whose maintainer had removed a line there, was told so
though it removed nothing (fresh08 L1): the removal came with the history it fetched.
:func:`removals` finds the notes commit that removed each line, and whether the notes
ref's reflog shows this clone made that commit (a ``git notes`` command or a kistore
write here, not a fetch). Read only when lines are lacking.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from ..core.layout import NOTES_REF
from ..git.lazy import pygit2

if TYPE_CHECKING:  # pragma: no cover - typing only
    import pygit2

__all__ = ["Removals", "removals"]


class Removals(NamedTuple):
    """Where the lines a notes tip lacks were removed.

    Attributes:
        here: some line was removed by this clone: its reflog shows it made the removing
            notes commit, or only an earlier tip its reflog records held the line (the
            ref moved back, or fetched over).
        elsewhere: the removing notes commits (40 hex, newest first) that this clone's
            reflog does not show it made: they came with the notes history fetched.
    """

    here: bool
    elsewhere: list[str]


def removals(repo: pygit2.Repository, lines: dict[str, set[bytes]],
             in_history: dict[str, list[bytes]]) -> Removals:
    """Say where ``lines`` were removed.

    Args:
        repo: the clone.
        lines: ``{annotated object id: {lines}}`` the tip lacks.
        in_history: :func:`kistore.attest.notes.notes_lost` of the tip: the lines its
            history held (the others only a tip the reflog records held: removed here).

    Returns:
        :class:`Removals`. A line whose removing commit is not found (an unreadable note)
        counts as removed here, as it was said until now. Raises nothing.
    """
    # Lazy: read only when KI315 has lines to say.
    from ..git.blobs import ObjectUnreadable
    from ..git.note_blobs import read_note
    from ..git.notes import changed_notes
    from .notes import lines_of

    wanted = {(obj, line) for obj, held in lines.items() for line in held
              if line in set(in_history.get(obj, ()))}
    here = len(wanted) < sum(map(len, lines.values()))
    ref = repo.references.get(NOTES_REF)
    if not wanted or ref is None:
        return Removals(here or bool(wanted), [])
    read: dict[str, set[bytes]] = {}

    def held(obj: str, blob: str | None) -> set[bytes]:
        if blob is None:
            return set()
        if blob not in read:
            try:
                read[blob] = set(lines_of(read_note(repo, blob, f"{NOTES_REF}:{obj}")))
            except ObjectUnreadable:
                read[blob] = set()
        return read[blob]

    by: dict[tuple[str, bytes], str] = {}
    objects = {obj for obj, _line in wanted}
    for commit in repo.walk(ref.target):  # newest first
        for parent in commit.parents:
            for obj, (was, now) in changed_notes(repo, parent.tree, commit.tree).items():
                if obj in objects and was is not None:
                    for line in held(obj, was) - held(obj, now):
                        if (obj, line) in wanted:
                            by.setdefault((obj, line), str(commit.id))
        if len(by) == len(wanted):
            break
    made = _made_here(ref)
    here = here or len(by) < len(wanted) or any(c in made for c in by.values())
    elsewhere = list(dict.fromkeys(c for c in by.values() if c not in made))
    return Removals(here, elsewhere)


def _made_here(ref: pygit2.Reference) -> set[str]:
    """Return the notes commits the reflog shows this clone made (not a fetch's tip).

    An entry moving the ref to a commit with a message (``notes: ...`` of a ``git notes``
    command, ``kistore: ...`` of a kistore write), other than git's ``fetch: ...``; a
    fetch's fast-forward by kistore (``git update-ref`` with no message) is no making.
    """
    try:
        entries = list(ref.log())
    except (pygit2.GitError, KeyError, ValueError):
        return set()
    return {str(e.oid_new) for e in entries
            if (e.message or "").strip() and not (e.message or "").startswith("fetch")}
