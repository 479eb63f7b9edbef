"""The tips ``refs/notes/kistore`` held here before, as its reflog records them (fresh07 M6).

Notes only grow, and the notes history a tip reaches shows a line a later notes commit
removed (KI315, :func:`kistore.attest.notes.notes_lost`). Two ways of losing a line leave no
trace in that history: the ref moved back (``git update-ref refs/notes/kistore
refs/notes/kistore~1``, in a store with no remote to compare with) and a forced fetch over
it (``git fetch origin +refs/notes/kistore:refs/notes/kistore``, dropping lines never
pushed). git keeps the tips the ref held in its reflog (``core.logAllRefUpdates``, on in
every clone with a work tree, logs ``refs/notes/``), and ``kistore notes restore`` and KI315
read the lines of those tips too.

A rebuild that leaves lines out on purpose ends what is read: ``kistore notes rebase R``
(the way out for a line of this clone's own, never pushed, taken back) logs its move as
:data:`REBASE_MESSAGE` ``R`` and records how many entries the reflog held then in
:data:`REBASED_FILE` (git logs no move to the tip the ref already has: a rebuild equal to
what its fetch made leaves no entry); the tips before it are not read. ``kistore notes
rebase`` with no REMOTE, in a repository with no remote (:mod:`kistore.attest.notes_local`),
records the same boundary.

Without a reflog (``core.logAllRefUpdates=false``, ``git reflog expire``) nothing is read
here: a ref moved back or fetched over is then not seen (fresh08 L2, documented in
docs/rules.md's KI315).
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import TYPE_CHECKING

from ..core.layout import NOTES_REF
from ..git.lazy import pygit2
from ..git.refs import common_git_dir

if TYPE_CHECKING:  # pragma: no cover - typing only
    import pygit2

__all__ = ["REBASED_FILE", "REBASE_MESSAGE", "earlier_tips", "mark_rebased"]

REBASED_FILE = "kistore/notes-rebased"
"""Under the common git directory: the number of reflog entries of the notes ref when
``kistore notes rebase`` last rebuilt it (the older entries are not read)."""

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
    with contextlib.suppress(OSError, ValueError):
        before = int((common_git_dir(Path(repo.path)) / REBASED_FILE).read_text(encoding="ascii"))
        entries = entries[:max(0, len(entries) - before)]
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


def mark_rebased(repo: pygit2.Repository) -> None:
    """Record that ``kistore notes rebase`` rebuilt the notes now (:data:`REBASED_FILE`).

    Raises nothing: a record that cannot be written leaves the older tips read (said).
    """
    ref = repo.references.get(NOTES_REF)
    count = 0
    with contextlib.suppress(pygit2.GitError, KeyError, ValueError):
        count = 0 if ref is None else sum(1 for _ in ref.log())
    with contextlib.suppress(OSError):
        marker = common_git_dir(Path(repo.path)) / REBASED_FILE
        marker.parent.mkdir(parents=True, exist_ok=True)
        marker.write_text(str(count), encoding="ascii")
