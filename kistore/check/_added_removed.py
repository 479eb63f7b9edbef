"""A file the range both brings and removes: drop both commits, one finding per cause (hist03).

``kistore add --commit`` and then ``git revert HEAD`` on a pull request's branch gave 16
errors (KI402 per object, KI208 per names file, KI410 per group file), each fixed by
dropping the deleting commit, which puts the unwanted add back (fresh04 M3). When
``BASE`` holds none of a file and ``HEAD`` holds none either, the range brought it and
took it away: the commits to drop are both, the bringing one and the removing one (or,
when the range changes nothing at all, ``git reset --hard BASE``); dropping the removing
one alone is the way to keep the file. The findings of one such pair of commits are said
once per rule, naming every file (:func:`added_then_removed`).
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ..core.findings import Finding
from ..git import treediff
from ._fixes import Base
from .lineage import changing_commits

if TYPE_CHECKING:  # pragma: no cover - typing only
    import pygit2

_RULES = ("KI402", "KI208", "KI410")
"""The rules of a file removed: an object (KI402), a names file (KI208), a group file, a
forward record or an attestation file (KI410)."""


def added_then_removed(repo: pygit2.Repository, findings: list[Finding], commits: list[Any],
                       trees: tuple[Any, Any], base: Base) -> list[Finding]:
    """Give each removal of a file neither ``BASE`` nor ``HEAD`` holds the fix dropping both.

    Args:
        repo: the repository.
        findings: the gate's findings (a branch's, not the pre-commit hook's).
        commits: the range's commits (``pygit2.Commit``), newest first.
        trees: ``BASE``'s and ``HEAD``'s root trees.
        base: the range's BASE, whose rebase the fix names.

    Returns:
        ``findings`` in their order, except that the KI402, KI208 and KI410 removals
        (``extra["commit"]``; a KI208 or KI410 found ``no file``) of files neither end of
        the range holds are said once per rule and set of commits that changed the files:
        the first such finding, its message naming the other files too
        (``extra["files"]``: every file, sorted), its fix :func:`both_fix`. Two lookups
        per such finding and one per commit of the range
        per file. Raises ObjectUnreadable for a damaged tree on the way.
    """
    base_tree, head_tree = trees
    same = base_tree.id == head_tree.id
    groups: dict[tuple[str, str, tuple[str, ...]], list[Finding]] = {}
    told: list[Finding | tuple[str, str, tuple[str, ...]]] = []
    for f in findings:
        if f.rule.id not in _RULES or "commit" not in f.extra or not f.file or \
                (f.rule.id != "KI402" and f.found != "no file") or \
                treediff.entry_at(repo, base_tree, f.file) is not None or \
                treediff.entry_at(repo, head_tree, f.file) is not None:
            told.append(f)
            continue
        changed = tuple(str(c.id) for c in reversed(changing_commits(repo, commits, f.file)))
        key = (f.rule.id, str(f.extra["commit"]), changed)
        if key not in groups:
            groups[key] = []
            told.append(key)
        groups[key].append(f)
    out = []
    for item in told:
        if isinstance(item, Finding):
            out.append(item)
            continue
        said = sorted(groups[item], key=lambda f: f.file or "")
        files = [f.file or "" for f in said]
        first = said[0]
        message = first.message if len(said) == 1 else (
            f"{first.message}; and {len(said) - 1} more file{'s' * (len(said) > 2)} the same "
            f"commit removes: {', '.join(files[1:])}")
        out.append(replace(first, message=message, fix=both_fix(item[2], base, same, len(said)),
                           extra={**first.extra, "files": files}))
    return out


def both_fix(changed: tuple[str, ...], base: Base, same: bool, files: int = 1) -> str:
    """Return the fix of files the commits ``changed`` brought and removed again.

    Args:
        changed: every commit of the range that changed the files, oldest first (full ids).
        base: the range's BASE.
        same: ``HEAD``'s tree is ``BASE``'s: the range changes nothing at all.
        files: how many files the fix is of (its words: "this file", "these files").

    Returns:
        The fix: drop every one of those commits (``git rebase -i BASE``), or ``git reset
        --hard BASE`` when the range changes nothing; drop the removing one alone to keep
        the files. Raises nothing.
    """
    named = ", ".join(c[:12] for c in changed)
    last = changed[-1][:12] if changed else ""
    these, them = ("these files", "them") if files > 1 else ("this file", "it")
    reset = (f" (the range changes nothing at all, HEAD's tree being BASE's: `git reset "
             f"--hard {base.id}` does the same, and drops uncommitted changes too)"
             if same and not base.checked_out else "")
    return (f"BASE holds none of {these}: the range brought {them} and removed {them} "
            f"again (commits {named}), and both stay in the history, which is read commit by "
            f"commit. Not wanted: drop the commits that brought and removed {them}, {named} "
            f"({base.rebase()}){reset}. Wanted: drop {last} alone, which removed {them}")
