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

from ..core import layout
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
        the range holds are said once per rule and set of commits that changed the files
        (an object's metadata file with it; sets that meet joined: :func:`_one_cause`):
        the first such finding, its message naming the other files too
        (``extra["files"]``: every file, sorted), its fix :func:`both_fix`. Two lookups
        per such finding and one per commit of the range
        per file. Raises ObjectUnreadable for a damaged tree on the way.
    """
    base_tree, head_tree = trees
    same = base_tree.id == head_tree.id
    order = [str(c.id) for c in reversed(commits)]  # oldest first
    groups: dict[tuple[str, str, tuple[str, ...]], list[Finding]] = {}
    told: list[Finding | tuple[str, str, tuple[str, ...]] | None] = []
    brought: list[tuple[int, Finding, set[str], str]] = []  # place, finding, commits, first
    for f in findings:
        if f.rule.id not in _RULES or "commit" not in f.extra or not f.file or \
                (f.rule.id != "KI402" and f.found != "no file") or \
                treediff.entry_at(repo, base_tree, f.file) is not None or \
                treediff.entry_at(repo, head_tree, f.file) is not None:
            told.append(f)
            continue
        changed, oldest = _changing(repo, commits, f.file, trees)
        brought.append((len(told), f, changed, oldest))
        told.append(None)
    bringing = {oldest for _, _, _, oldest in brought}
    causes = _one_cause([changed for _, _, changed, _ in brought])
    for (place, f, _, _), changed in zip(brought, causes, strict=True):
        named = tuple(c for c in order if c in changed)
        key = (f.rule.id, str(f.extra["commit"]), named)
        if key not in groups:
            groups[key] = []
            told[place] = key
        groups[key].append(f)
    out = []
    for item in told:
        if item is None:
            continue  # a finding said in its group's
        if isinstance(item, Finding):
            out.append(item)
            continue
        said = sorted(groups[item], key=lambda f: f.file or "")
        files = [f.file or "" for f in said]
        first = said[0]
        message = first.message if len(said) == 1 else (
            f"{first.message}; and {len(said) - 1} more file{'s' * (len(said) > 2)} the same "
            f"commit removes: {', '.join(files[1:])}")
        removing = tuple(c for c in item[2] if c not in bringing) or item[2][-1:]
        out.append(replace(first, message=message, extra={**first.extra, "files": files},
                           fix=both_fix(item[2], base, same, len(said), removing)))
    return out


def _changing(repo: pygit2.Repository, commits: list[Any], path: str, trees: tuple[Any, Any]
              ) -> tuple[set[str], str]:
    """Return the ids of the range's commits that changed ``path``, and the oldest of them.

    An object's metadata file that neither end holds counts as the object's: a commit
    deleting it between the add and the removal is dropped with them, else the rebase
    stops there, deleting a file no longer there (hist03's M3 edge).
    """
    changing = changing_commits(repo, commits, path)
    digest = layout.digest_from_path(path) if path.startswith(layout.OBJECTS_DIR + "/") \
        else None
    meta = layout.metadata_path(digest) if digest is not None else None
    if meta is not None and all(treediff.entry_at(repo, t, meta) is None for t in trees):
        changing += changing_commits(repo, commits, meta)
    ids = {str(c.id) for c in changing}
    first = next((str(c.id) for c in reversed(commits) if str(c.id) in ids), "")
    return ids, first


def _one_cause(found: list[set[str]]) -> list[set[str]]:
    """Return, for each set of commits, the union of every set that meets it, transitively.

    Dropping a commit that brought a file drops it for every later commit that changes it:
    those are dropped too, so the findings of one cause name one set of commits. A union
    of the commits (few), not a comparison of every two findings (a bulk add reverted
    gives thousands).
    """
    root: dict[str, str] = {}

    def find(commit: str) -> str:
        while root.setdefault(commit, commit) != commit:
            commit = root[commit]
        return commit

    for changed in found:
        if not changed:
            continue
        first, *rest = sorted(changed)
        for other in rest:
            root[find(other)] = find(first)
    members: dict[str, set[str]] = {}
    for commit in list(root):
        members.setdefault(find(commit), set()).add(commit)
    return [members.get(find(min(changed)), set()) if changed else set() for changed in found]


def both_fix(changed: tuple[str, ...], base: Base, same: bool, files: int = 1,
             removing: tuple[str, ...] = ()) -> str:
    """Return the fix of files the commits ``changed`` brought and removed again.

    Args:
        changed: every commit of the range that changed the files, oldest first (full ids).
        base: the range's BASE.
        same: ``HEAD``'s tree is ``BASE``'s: the range changes nothing at all.
        files: how many files the fix is of (its words: "this file", "these files").
        removing: the commits of ``changed`` that brought none of the files, dropped to
            keep them (empty: the last of ``changed``).

    Returns:
        The fix: drop every one of those commits (``git rebase -i BASE``), or ``git reset
        --hard BASE`` when the range changes nothing; drop the removing ones alone to keep
        the files. Raises nothing.
    """
    named = ", ".join(c[:12] for c in changed)
    kept = removing or changed[-1:]
    last = ", ".join(c[:12] for c in kept) + (" alone" if len(kept) == 1 else "")
    these, them = ("these files", "them") if files > 1 else ("this file", "it")
    reset = (f" (the range changes nothing at all, HEAD's tree being BASE's: `git reset "
             f"--hard {base.id}` does the same, and drops uncommitted changes too)"
             if same and not base.checked_out else "")
    return (f"BASE holds none of {these}: the range brought {them} and removed {them} "
            f"again (commits {named}), and both stay in the history, which is read commit by "
            f"commit. Not wanted: drop the commits that brought and removed {them}, {named} "
            f"({base.rebase()}){reset}. Wanted: drop {last}, which removed {them}")
