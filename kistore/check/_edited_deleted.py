"""An object edited and then deleted in a pull request: one cause, one advice (r93b G2).

A commit of the range edits an object (KI401) and a later one deletes the file. The
deletion is no KI402 (the bytes it removes are no object's: :func:`._history._was_object`,
reviewer r92 F12), so the gate said KI401 naming the edit only, and KI203 on the run's
metadata advised removing it (or a ``kistore add``), which would lose the run for good.
The one advice is to restore the object: rebuild the branch without both commits.
:func:`kistore.check.audit.one_cause` leaves the KI203 out; :func:`edited_then_deleted`
gives the KI401 the deletion's commit and that fix.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from ..core.findings import Finding
from ..git import treediff
from ..git.commit_header import first_line
from ._fixes import MERGE_BASE, rebase_command, rebuild_without
from ._history import ancestry

if TYPE_CHECKING:  # pragma: no cover - typing only
    import pygit2

    from ..store import Files, Store


def edited_then_deleted(repo: pygit2.Repository, commits: Sequence[Any], head: pygit2.Tree,
                        findings: list[Finding], base: str) -> list[Finding]:
    """Name the commit deleting an edited object, and fix both: restore the object.

    Args:
        repo: the repository.
        commits: the range's commits (``pygit2.Commit``).
        head: HEAD's tree.
        findings: the gate's findings; each KI401 naming a commit whose object path HEAD
            lacks is the one changed. One path lookup per commit of the range, for such
            a finding only (rare: every one is an error).
        base: BASE's full commit id, named in the fix.

    Returns:
        ``findings`` in their order, such a KI401 with ``, then deleted in commit ID
        (SUBJECT)`` in its message, ``extra["deleted"]`` the deleting commits' ids, and the
        fix: drop the edit and the deletion (``git rebase -i BASE``), which restores the
        object; nothing is to be removed (its metadata is right).
    """
    out = []
    for f in findings:
        if (f.rule.id == "KI401" and f.file and "commit" in f.extra
                and treediff.entry_at(repo, head, f.file) is None):
            gone = _deleting(repo, commits, f.file)
            if gone:
                edit = str(f.extra["commit"])[:12]
                ids = ", ".join(str(c.id)[:12] for c in gone)
                f = _said_gone(
                    f, gone, f"then deleted in commit {_named(gone)}: the object is gone, its "
                    "metadata left without it",
                    (f"restore the object: its bytes were edited in commit {edit} and its "
                     f"file deleted in commit {ids} of the branch, and a later commit "
                     "restoring it leaves both in the history, "
                     f"{rebuild_without('KI401', base, f.file, plural=True)}keep its metadata "
                     "file: nothing else is to be written or removed for it; objects are "
                     "never edited: add a new manifest instead"))
        out.append(f)
    return out


def _deleting(repo: pygit2.Repository, commits: Iterable[Any], path: str) -> list[Any]:
    """Return the commits of ``commits`` whose tree lacks ``path`` and a parent's holds it."""
    return [c for c in commits
            if treediff.entry_at(repo, c.tree, path) is None
            and any(treediff.entry_at(repo, p.tree, path) is not None for p in c.parents)]


def verify_edited_then_deleted(store: Store, at: str | None, snap: Files,
                               findings: list[Finding]) -> list[Finding]:
    """Say in ``verify`` that an object edited, then deleted, is missing (break94 #2).

    ``verify``'s side of :func:`edited_then_deleted`.

    ``verify`` said only "modified in commit X" of an object edited in commit X and deleted
    later (or removed from the work tree), and advised ``git checkout HEAD -- PATH``, which
    fails: HEAD holds no such file (or the edited bytes). The fix that works restores the
    original bytes from the edit's parent, the last commit holding them.

    Args:
        store: the store verified.
        at: the revision verified; None: the work tree (``HEAD`` in a bare repository).
        snap: the snapshot read; ``snap.modes`` holds every path the tree read has.
        findings: ``verify``'s findings; each KI401 naming a commit whose path the tree
            read lacks is changed. One path lookup per commit after the edit, for such a
            finding only (rare: every one is an error).

    Returns:
        ``findings`` in their order, such a KI401 with ``, then deleted in commit ID
        (SUBJECT)`` (or ``in the work tree``) in its message, ``extra["deleted"]`` the
        deleting commits' ids (empty for the work tree), and the fix ``git checkout PARENT
        -- PATH`` (PARENT: the edit's parent holding the original bytes); in a branch not
        yet merged, dropping both commits instead (``git rebase -i BASE``).
    """
    out = []
    repo = store.repo
    head = None  # read once, at the first such finding (most verifies have none)
    for f in findings:
        if (f.rule.id == "KI401" and f.file and "commit" in f.extra
                and f.file not in snap.modes):
            edit: Any = repo.get(str(f.extra["commit"]))
            head = head or store.commit(at or "HEAD")
            if treediff.entry_at(repo, head.tree, f.file) is not None:
                gone, where = [], "then deleted in the work tree: the object is missing there"
            else:
                gone = _deleting(repo, ancestry(repo, head, edit), f.file)
                where = (f"then deleted in commit {_named(gone)}: the object is missing at "
                         f"{at or 'HEAD'}")
            # the parent holding the bytes the edit changed (``expected``: their blob id)
            parents = [p for p in edit.parents
                       if (e := treediff.entry_at(repo, p.tree, f.file)) is not None
                       and str(e.id) == f.expected] or list(edit.parents)[:1]
            if not parents:
                out.append(f)
                continue
            before, edit12 = str(parents[0].id)[:12], str(edit.id)[:12]
            dropped = ", ".join([edit12, *(str(c.id)[:12] for c in gone)])
            f = _said_gone(
                f, gone, f"{where}, its metadata (and any run naming it) left without it",
                (f"restore the object's original bytes from {before}, the commit before "
                     f"the edit (the last holding them): `git checkout {before} -- {f.file}`, "
                     "and commit it; keep its metadata file: nothing else is to be written or "
                     "removed for it. In a branch not yet merged, drop the commits instead "
                     f"({dropped}: {rebase_command('BASE')}, BASE being {MERGE_BASE}): a "
                     "restoring commit leaves the edit in the history, "
                     "read commit by commit (KI401). Objects are never edited: add a new "
                     "manifest instead"))
        out.append(f)
    return out


def _named(commits: Iterable[Any]) -> str:
    """Return ``ID (SUBJECT), ...`` of commits, each id in 12 hex digits."""
    return ", ".join(f"{str(c.id)[:12]} ({first_line(c.raw_message)})" for c in commits)


def _said_gone(f: Finding, gone: Sequence[Any], said: str, fix: str) -> Finding:
    """Return KI401 ``f`` with ``, SAID`` ending its message, the deleting commits, ``fix``."""
    return dataclasses.replace(f, message=f"{f.message}, {said}", fix=fix,
                               extra={**f.extra, "deleted": [str(c.id) for c in gone]})
