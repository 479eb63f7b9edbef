"""An object edited and then deleted: one cause, one advice (r93b G2, break94 #2).

A commit edits an object (KI401) and a later one deletes the file. The deletion is no
KI402 (the bytes it removes are no object's: :func:`._history._was_object`, reviewer r92
F12), so the gate said KI401 naming the edit only, and KI203 on the run's metadata advised
removing it (or a ``kistore add``), which would lose the run for good; ``verify`` said
"modified in commit X" and advised ``git checkout HEAD -- PATH``, which fails (HEAD holds
no such file). The history walk (:func:`._history.history_findings`) sees the deleting
commit as it skips it, and gives the KI401 it made the words here when the walk's tip
lacks the path (rev95 item 2: one walk, no path lookup per later commit):
:func:`said_in_range` (the gate: drop both commits) or :func:`said_in_history`
(``verify``: restore the original bytes from the edit's parent).
:func:`verify_edited_then_deleted` says the one case no commit holds: the file removed
from the work tree. :func:`kistore.check.audit.one_cause` leaves the KI203 out.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from ..core.findings import Finding
from ..git import treediff
from ..git.commit_header import first_line
from ._fixes import MERGE_BASE, rebase_command, rebuild_without

if TYPE_CHECKING:  # pragma: no cover - typing only
    from ..store import Files, Store


def said_in_range(f: Finding, gone: Sequence[Any], base: str) -> Finding:
    """Name the commits deleting an edited object in a range, and fix both: restore it.

    Args:
        f: the history walk's KI401 of the edit (``extra["commit"]``), on a path the
            range's HEAD lacks.
        gone: the range's commits deleting the path (``pygit2.Commit``), in walk order.
        base: BASE's full commit id, named in the fix.

    Returns:
        ``f`` with ``, then deleted in commit ID (SUBJECT): the object is gone, its metadata
        left without it`` ending its message, ``extra["deleted"]`` the deleting commits'
        ids, and the fix: drop the edit and the deletion (``git rebase -i BASE``), which
        restores the object; nothing is to be removed (its metadata is right).

    Raises nothing: ``gone`` was read by the walk.
    """
    edit = str(f.extra["commit"])[:12]
    ids = ", ".join(str(c.id)[:12] for c in gone)
    return _said_gone(
        f, gone, f"then deleted in commit {_named(gone)}: the object is gone, its metadata "
        "left without it",
        (f"restore the object: its bytes were edited in commit {edit} and its file deleted "
         f"in commit {ids} of the branch, and a later commit restoring it leaves both in the "
         f"history, {rebuild_without('KI401', base, f.file or '', plural=True)}keep its "
         "metadata file: nothing else is to be written or removed for it; objects are never "
         "edited: add a new manifest instead"))


def said_in_history(f: Finding, gone: Sequence[Any], at: str) -> Finding:
    """Say in ``verify`` that an object edited, then deleted in a commit, is missing at ``at``.

    Args:
        f: the history walk's KI401 of the edit (``extra["commit"]``; ``extra["parent"]``:
            the parent holding the bytes it changed), on a path ``at`` lacks.
        gone: the commits of ``at``'s history deleting the path (``pygit2.Commit``).
        at: the revision verified, as the message names it (``HEAD``).

    Returns:
        ``f`` with ``, then deleted in commit ID (SUBJECT): the object is missing at AT,
        its metadata (and any run naming it) left without it`` ending its message,
        ``extra["deleted"]`` the deleting commits' ids, and the fix :func:`_restore_fix`.

    Raises nothing: ``gone`` was read by the walk.
    """
    return _said_gone(
        f, gone, f"then deleted in commit {_named(gone)}: the object is missing at {at}, its "
        "metadata (and any run naming it) left without it",
        _restore_fix(f, str(f.extra["parent"]), [str(c.id) for c in gone]))


def verify_edited_then_deleted(store: Store, at: str | None, snap: Files,
                               findings: list[Finding]) -> list[Finding]:
    """Say in ``verify`` that an edited object removed from the work tree is missing there.

    It said only "modified in commit X" (break94 #2). One deleted by a commit the history
    walk says (:func:`said_in_history`); the work tree is no commit, so this says it after
    the walk, with no history read: HEAD's commit once,
    at the first such finding (most verifies have none), and one path lookup in its tree.

    Args:
        store: the store verified.
        at: the revision verified; None: the work tree (the only case changed).
        snap: the snapshot read; ``snap.modes`` holds every path the tree read has.
        findings: ``verify``'s findings; each KI401 naming a commit (``extra["commit"]``,
            ``extra["parent"]``) whose path HEAD holds and the work tree lacks is changed.

    Returns:
        ``findings`` in their order, such a KI401 with ``, then deleted in the work tree:
        the object is missing there, its metadata (and any run naming it) left without
        it`` ending its message, ``extra["deleted"]`` empty, and the fix
        :func:`_restore_fix`.

    Raises:
        ObjectUnreadable: a tree of HEAD's on the finding's path is damaged or missing
            (:func:`kistore.git.treediff.entry_at`).
    """
    if at is not None:
        return findings
    out = []
    head = None
    for f in findings:
        if (f.rule.id == "KI401" and f.file and "commit" in f.extra and "parent" in f.extra
                and "deleted" not in f.extra and f.file not in snap.modes):
            head = head or store.commit("HEAD")
            if treediff.entry_at(store.repo, head.tree, f.file) is not None:
                f = _said_gone(f, [], "then deleted in the work tree: the object is missing "
                               "there, its metadata (and any run naming it) left without it",
                               _restore_fix(f, str(f.extra["parent"]), []))
        out.append(f)
    return out


def _restore_fix(f: Finding, parent: str, gone: list[str]) -> str:
    """Return ``verify``'s fix of an edited, then deleted object: ``git checkout PARENT``.

    ``parent``: the edit's parent holding the original bytes (full id); ``gone``: the
    deleting commits' full ids (none: the work tree). In a branch not yet merged,
    dropping the commits instead (``git rebase -i BASE``).
    """
    before, edit12 = parent[:12], str(f.extra["commit"])[:12]
    dropped = ", ".join([edit12, *(c[:12] for c in gone)])
    return (f"restore the object's original bytes from {before}, the commit before the edit "
            f"(the last holding them): `git checkout {before} -- {f.file}`, and commit it; "
            "keep its metadata file: nothing else is to be written or removed for it. In a "
            f"branch not yet merged, drop the commits instead ({dropped}: "
            f"{rebase_command('BASE')}, BASE being {MERGE_BASE}): a restoring commit leaves "
            "the edit in the history, read commit by commit (KI401). Objects are never "
            "edited: add a new manifest instead")


def _named(commits: Iterable[Any]) -> str:
    """Return ``ID (SUBJECT), ...`` of commits, each id in 12 hex digits."""
    return ", ".join(f"{str(c.id)[:12]} ({first_line(c.raw_message)})" for c in commits)


def _said_gone(f: Finding, gone: Sequence[Any], said: str, fix: str) -> Finding:
    """Return KI401 ``f`` with ``, SAID`` ending its message, the deleting commits, ``fix``."""
    return dataclasses.replace(f, message=f"{f.message}, {said}", fix=fix,
                               extra={**f.extra, "deleted": [str(c.id) for c in gone]})
