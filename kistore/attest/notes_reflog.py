"""The tips ``refs/notes/kistore`` held here before, as its reflog records them (fresh07 M6).

Notes only grow, and the notes history a tip reaches shows a line a later notes commit
removed (KI315, :func:`kistore.attest.notes.notes_lost`). Two ways of losing a line leave no
trace in that history: the ref moved back (``git update-ref refs/notes/kistore
refs/notes/kistore~1``, in a store with no remote to compare with) and a forced fetch over
it (``git fetch origin +refs/notes/kistore:refs/notes/kistore``, dropping lines never
pushed). git keeps the tips the ref held in its reflog (``core.logAllRefUpdates``, on in
every clone with a work tree, logs ``refs/notes/``), and ``kistore notes restore`` and KI315
read the lines of those tips too.

A rebuild that leaves lines out on purpose is recorded there as such: ``kistore notes
rebase R`` (reflog message :data:`REBASE_MESSAGE` ``R``, the way out for a line of this
clone's own, never pushed, taken back) ends what is read: the tips before it are not.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..core.layout import NOTES_REF
from ..git.lazy import pygit2

if TYPE_CHECKING:  # pragma: no cover - typing only
    import pygit2

__all__ = ["REBASE_MESSAGE", "earlier_tips"]

REBASE_MESSAGE = "kistore notes rebase "
"""How ``kistore notes rebase R`` names its move of the notes ref in the reflog (then R)."""


def earlier_tips(repo: pygit2.Repository, history_trees: set[str]) -> list[pygit2.Commit]:
    """Return the notes commits the reflog says the notes ref held, whose lines may be lost.

    Args:
        repo: the repository.
        history_trees: the tree ids of every notes commit the tip reaches
            (:func:`kistore.attest.notes.history_trees`): a tip of the same tree holds no
            line the history does not, and is left out (a ref that only grew reaches all its
            earlier tips: none is read).

    Returns:
        The commits, newest first, one per tree, from the reflog's entries after the last
        ``kistore notes rebase`` (each entry's old and new value); empty without a reflog
        (a bare repository), or when the ref is absent. A tip git no longer holds (pruned)
        is skipped. Raises nothing.
    """
    ref = repo.references.get(NOTES_REF)
    if ref is None:
        return []
    seen = set(history_trees)
    found: list[pygit2.Commit] = []
    try:
        entries = list(ref.log())
    except (pygit2.GitError, KeyError, ValueError):  # no reflog, or unreadable: nothing said
        return []
    for entry in entries:  # newest first
        rebuilt = (entry.message or "").startswith(REBASE_MESSAGE)
        # a rebuild's old tip, and every tip before it, were left on purpose
        for oid in [entry.oid_new] if rebuilt else [entry.oid_new, entry.oid_old]:
            if oid is None or oid == pygit2.Oid(hex="0" * 40):
                continue
            try:
                commit = repo[oid].peel(pygit2.Commit)
            except (KeyError, ValueError, pygit2.GitError):
                continue  # pruned, or no commit: nothing to read
            if str(commit.tree_id) not in seen:
                seen.add(str(commit.tree_id))
                found.append(commit)
        if rebuilt:
            break
    return found
