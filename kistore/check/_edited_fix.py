"""The fix of an object edited in a committed commit: restore from the commit before the edit.

``verify`` said ``git checkout HEAD -- PATH`` for KI101 and KI401 of an object whose edit a
commit holds (reviewer fresh95 F4): ``HEAD`` holds the edited bytes, so the checkout changes
nothing. The history walk (KI401, :mod:`kistore.check._history`) names the edit's commit and
the original blob (``expected``); the edit's parent holding that blob is the last commit
holding the original bytes, which the fix names, as the edited-then-deleted case does
(:mod:`kistore.check._edited_deleted`, which owns that case: a file the tree lacks).
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

from ..git import treediff
from ._fixes import REBASE_BASE

if TYPE_CHECKING:  # pragma: no cover - typing only
    from ..core.findings import Finding
    from ..store import Store


def edited_fixes(store: Store, at: str | None, contents: list[Finding], later: list[Finding]
                 ) -> tuple[list[Finding], list[Finding]]:
    """Give KI101 and KI401 of an object whose edit HEAD (or ``at``) holds the working fix.

    Args:
        store: the store verified.
        at: the revision verified; None: the work tree (judged against ``HEAD``).
        contents: ``verify``'s contents findings (KI101 among them).
        later: its history findings (KI401 among them).

    Returns:
        ``(contents, later)`` in their order; a KI401 naming the edit's commit, on a file
        the revision holds with other bytes than the original, and the KI101 on that file,
        with the fix ``git checkout PARENT -- PATH`` (PARENT: the edit's parent holding the
        original blob, in 12 digits); each else as it was. One tree lookup per such KI401.
    """
    repo = store.repo
    restore: dict[str, str] = {}
    restored: dict[str, str] = {}  # file -> the edit's commit, HEAD holding the bytes again
    head: Any = None
    for f in later:
        if not (f.rule.id == "KI401" and f.file and "commit" in f.extra
                and "deleted" not in f.extra and f.expected):
            continue
        head = head or store.commit(at or "HEAD")
        now = treediff.entry_at(repo, head.tree, f.file)
        if now is None:
            continue  # gone: ``_edited_deleted``'s
        if str(now.id) == f.expected:  # restored by a later commit: only the branch's way
            restored.setdefault(f.file, str(f.extra["commit"])[:12])
            continue
        edit: Any = repo.get(str(f.extra["commit"]))
        parents = [p for p in getattr(edit, "parents", ())
                   if (e := treediff.entry_at(repo, p.tree, f.file)) is not None
                   and str(e.id) == f.expected]
        if parents:
            restore.setdefault(f.file, f"{str(parents[0].id)[:12]}\0{str(edit.id)[:12]}")
    if not restore and not restored:
        return contents, later

    def fixed(f: Finding) -> Finding:
        if f.rule.id == "KI401" and f.file in restored and f.file not in restore:
            return dataclasses.replace(f, fix=restored_fix(restored[f.file], at or "HEAD"))
        if f.file not in restore or f.rule.id not in ("KI101", "KI401") or (
                f.rule.id == "KI101" and "holds" in f.extra):  # a rename: its own fix
            return f
        before, edit = restore[f.file].split("\0")
        return dataclasses.replace(f, fix=edited_fix(f.file, before, edit, at or "HEAD"))

    return [fixed(f) for f in contents], [fixed(f) for f in later]


def edited_fix(path: str, before: str, edit: str, where: str = "HEAD") -> str:
    """Return the fix of an object edited in commit ``edit``: restore it from ``before``.

    Args:
        path: the object file.
        before: the commit before the edit, the last holding the original bytes (12 digits).
        edit: the commit that edited it (12 digits).
        where: the revision verified, which holds the edit (``HEAD``, or ``--at``'s).
    """
    return (f"{where} holds the edited bytes, so `git checkout {where}` restores nothing: restore "
            f"the object's original bytes from {before}, the commit before the edit (the last "
            f"holding them): `git checkout {before} -- {path}`, and commit it. In a branch not "
            f"yet merged, drop the edit's commit instead ({edit}: `git rebase -i BASE`, BASE "
            "being `git merge-base origin/main HEAD`): a restoring commit leaves the edit in "
            "the history, read commit by commit (KI401). Objects are never edited: add a new "
            "manifest instead")


def restored_fix(edit: str, where: str = "HEAD") -> str:
    """Return the fix of an object edited in commit ``edit`` whose bytes ``where`` holds again.

    Following the edit's fix ("restore ... and commit it") left ``verify`` red with the
    generic fix, a ``git checkout HEAD`` that changes nothing (reviewer break95 M1): the
    edit stays in the history, read commit by commit, and only dropping it clears it.

    Args:
        edit: the commit that edited the object (12 digits).
        where: the revision verified (``HEAD``, or ``--at``'s).
    """
    return (f"{where} holds the object's original bytes again, but the edit's commit "
            f"({edit}) stays in the history, which is read commit by commit: in a branch not "
            f"yet merged, drop it and the commit restoring the bytes ({REBASE_BASE}); on a "
            "branch already merged the history cannot change, and this error says so for good")


def gate_edited_fixes(findings: list[Finding]) -> list[Finding]:
    """Give the gate's KI401 of an edit the fix its KI101 has (the branch's way).

    :func:`kistore.check.audit.gate_fixes` gives the KI101 of an edit a commit of the range
    holds the rebase without that commit; the KI401 beside it said "in the work tree, `git
    checkout HEAD -- PATH`", which restores nothing there (reviewer fresh95 F4).

    Args:
        findings: the gate's findings, after ``gate_fixes``.

    Returns:
        ``findings`` in their order, each KI401 naming a commit on a file whose KI101 has
        a fix of its own with that fix.
    """
    fixes = {f.file: f.fix for f in findings
             if f.rule.id == "KI101" and f.file and f.fix is not None and "holds" not in f.extra}
    return [dataclasses.replace(f, fix=fixes[f.file])
            if f.rule.id == "KI401" and f.file in fixes and "commit" in f.extra
            and "deleted" not in f.extra else f for f in findings]
