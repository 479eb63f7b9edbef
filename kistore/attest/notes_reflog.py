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
(the way out for a line of this clone's own, never pushed, taken back) and ``kistore notes
rebase`` with no REMOTE, in a repository with no remote (:mod:`kistore.attest.notes_local`),
log their move as :data:`REBASE_MESSAGE` (then R, or ``(no remote)``), and the tips before
that entry are not read. git logs no move to the tip the ref already holds (a drop the
reflog alone held, a rebuild equal to what its fetch made): the rebase then writes a marker
notes commit (:func:`marker`: the tip's tree, the tip its one parent) and moves the ref to
it, so the entry is always logged. The mark lives in the reflog it bounds (fresh12 F12):
until 2026-12-07 it was an entry count in :data:`REBASED_FILE`, under ``.git/kistore/``,
which README calls a cache; deleting it brought KI315 back, whose ``notes restore`` then
restored the line dropped on purpose, and once ``git gc`` expired the unreachable entries
(the tips dropped) the count hid the newest entries, lines lost after the rebase. The
marker's entry is newer than every entry it bounds, so git expires it after them. The file
is still read for a store rebased before, while its reflog holds no rebase entry.

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

__all__ = ["REBASED_FILE", "REBASE_MESSAGE", "earlier_tips", "forget_legacy", "marker"]

REBASED_FILE = "kistore/notes-rebased"
"""Under the common git directory: the number of reflog entries of the notes ref when
``kistore notes rebase`` last rebuilt it, written until 2026-12-07 (fresh12 F12; the older
entries are not read). Read only while the reflog holds no :data:`REBASE_MESSAGE` entry (a
store rebased before); every rebase since removes it (:func:`forget_legacy`)."""

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
        ``kistore notes rebase`` (each entry's old and new value; with no such entry, those
        after the count :data:`REBASED_FILE` keeps, if any); empty without a reflog
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
    if not any((entry.message or "").startswith(REBASE_MESSAGE) for entry in entries):
        entries = _legacy_cut(repo, entries)
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


def _legacy_cut(repo: pygit2.Repository, entries: list[pygit2.RefLogEntry]
                ) -> list[pygit2.RefLogEntry]:
    """Leave out the entries a rebase before 2026-12-07 counted in :data:`REBASED_FILE`."""
    with contextlib.suppress(OSError, ValueError):
        before = int((common_git_dir(Path(repo.path)) / REBASED_FILE).read_text(encoding="ascii"))
        return entries[:max(0, len(entries) - before)]
    return entries


def forget_legacy(repo: pygit2.Repository) -> None:
    """Remove :data:`REBASED_FILE`: a rebase logged its own entry (or deleted the reflog).

    Raises nothing: a file that cannot be removed is read only while the reflog holds no
    rebase entry, and the rebase just logged one (a deleted ref has no reflog to read).
    """
    with contextlib.suppress(OSError):
        (common_git_dir(Path(repo.path)) / REBASED_FILE).unlink(missing_ok=True)


def marker(repo: pygit2.Repository, tip: str, how: str, count: int) -> str:
    """Write the notes commit that marks a rebase moving no ref; return its id (40 hex).

    git logs no move of a ref to the tip it holds (``git update-ref -m M REF H H`` writes
    no entry), and the mark of ``kistore notes rebase`` is its reflog entry: the ref is
    moved to this commit instead. It holds the tip's tree and has the tip as its one parent,
    so it brings no line and no line's entry time changes (a line enters at the first notes
    commit holding it); a notes push sends it, or makes it again, like any notes commit.

    Args:
        repo: the repository.
        tip: the notes tip (40 hex), the marker's parent.
        how: the rebase's words after ``kistore notes rebase``: ``(no remote)``, or the
            remote R (printable: a commit message is UTF-8).
        count: how many lines it dropped (the message says it).

    Returns:
        The marker's id; no ref is moved.

    Raises:
        InputError, StoreStateError: git names no author or no committer (its reason,
            :func:`kistore.git.idents.signatures`), or the commit could not be
            written (:func:`kistore.git.note_writes.notes_commit`). Nothing is written then.
    """
    # Lazy: the write path only.
    from ..git.idents import signatures
    from ..git.note_writes import notes_commit

    message = (f"kistore: notes rebase {how} dropped {count} attestation line(s) only the "
               f"reflog of {NOTES_REF} held\n\nThis commit holds its parent's notes and "
               "brings no line: it marks the rebase in the reflog, whose earlier tips KI315 "
               "and `kistore notes restore` no longer read.\n")
    parent = repo[tip].peel(pygit2.Commit)
    author, committer = signatures(repo)
    return str(notes_commit(repo, committer, message, parent.tree_id, [parent.id],
                            author=author))
