"""The fixes of KI208 and KI432 that work where the history walk found them: one builder.

The walk (:func:`kistore.check.lineage.names_kept`) reads each commit against its parent,
so a name moved or a ``kernelindex.dev/*`` annotation changed stays a finding once a later
commit restores it; the rule's hint (keep the name, ``git checkout BASE -- FILE``) then
changes nothing, or throws away other work. The gate and ``verify`` give each finding the
fix of what the revision holds, built here (reviewer break96 M4; last96 items 3, 4, 6):

* the file held as before the first change again (a names file deleted and put back, an
  annotation edited and put back): drop the commits (:func:`._fixes.restored_fix`), the
  restoring one named once;
* a metadata file holding the name or annotation as before again, with another change in
  the same commits (a title fix beside the restore): squash the commits, which keeps the
  other change, since a checkout of the file, or dropping the commits, loses it;
* a names file still deleted: restore it from the commit before the deletion, or drop the
  deleting commit; ``verify``'s KI211 of the manifest it names says the same (``kistore
  migrate`` wrote it again, and the gate still read the deletion):
  :func:`._taken.names_one_cause` gives it, as it gives every KI205, KI211, KI212 fix.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from ..core import layout
from ..core.canonical_fast import loads_lenient
from ..core.findings import Finding
from ..git import treediff
from ..git.blobs import read_blob
from ..git.lazy import pygit2  # imported on first use (~0.2 s)
from ._fixes import restored_fix

_RULES = ("KI208", "KI432")


def lineage_fixes(repo: pygit2.Repository, findings: list[Finding], rebase: str,
                  before: pygit2.Tree | None, after: pygit2.Tree, where: str = "HEAD",
                  changing: Callable[[str], list[str]] | None = None) -> list[Finding]:
    """Give each KI208 and KI432 naming a commit the fix that works at ``after``.

    Args:
        repo: the ``pygit2.Repository``.
        findings: the walk's findings (tip first, as the walk yields commits).
        rebase: the rebase command in backquotes (:meth:`._fixes.Base.rebase` at the gate,
            :data:`._fixes.REBASE_BASE` in ``verify``).
        before: BASE's root tree (the gate); None (``verify``): for each file, the tree
            of the first parent of the oldest commit named on it.
        after: the root tree checked (HEAD's, or ``verify --at``'s).
        where: how the fix names the revision checked (``HEAD``).
        changing: the gate's ``changing(path)``: every commit of the range that changed
            the file, oldest first, named in its fix (a commit that broke or deleted the
            file between is named too, so that running the fix once leaves none: reviewer
            break97 H2); None (``verify``): the commits the findings name.

    Returns:
        ``findings`` in their order, each such finding with its fix; the others as given.
        Raises nothing but what reading the trees raises.
    """
    commits: dict[str, list[str]] = {}
    for f in findings:
        if f.file and "commit" in f.extra and f.rule.id in _RULES:
            commits.setdefault(f.file, []).append(str(f.extra["commit"]))
    fixes: dict[tuple[str, str], str] = {}
    for path, listed in commits.items():
        ordered = list(dict.fromkeys(reversed(listed)))  # oldest first
        if changing is not None:
            ordered = changing(path) or ordered
        was_tree = before if before is not None else _before(repo, ordered[0])
        was = None if was_tree is None else blob_entry(was_tree, path)
        held = blob_entry(after, path)
        names = path.startswith(layout.NAMES_DIR + "/")
        if held is not None and held == was:
            fixes[(path, "")] = restored_fix(
                ordered, where, rebase,
                "this names file as BASE does" if names else "this metadata file as BASE does",
                "the file" if names else "it",
                "the commit that deleted it" if names else "the commit that changed it",
                listed=blob_entry(repo[ordered[-1]].peel(pygit2.Commit).tree, path) == was)
        elif names and held is None:  # deleted (BASE may lack it: added, then deleted)
            fixes[(path, "")] = deleted_names_fix(path, ordered, rebase, where)
        elif not names and held is not None and was is not None:
            for f in findings:
                if f.file == path and f.rule.id in _RULES and _field_held(
                        repo, f, was[0], held[0]):
                    fixes[(path, f.pointer or "")] = squash_fix(ordered, rebase, where,
                                                                _what(f))
    return [dataclasses.replace(f, fix=fixes.get((f.file or "", f.pointer or ""),
                                                 fixes.get((f.file or "", ""), f.fix)))
            if f.rule.id in _RULES and "commit" in f.extra else f for f in findings]


def undo_said_once(findings: list[Finding], commits: list[Any]) -> list[Finding]:
    """Return ``findings`` without each KI208 or KI432 of a commit that only undoes another.

    A name (or annotation, or names file) changed in one commit and put back in a later
    one was said twice, the restore as a second rename (fresh04 L2: "commit C2 renames
    'sol-submission-99999' to 'sol-submission-20464': a name never moves"). The restore is
    the fix, not a second cause: the first change's finding, whose fix names every commit
    that changed the file, the restoring one among them (:func:`lineage_fixes`), says it.

    ``verify`` (:func:`kistore.check.lineage.check_names`) leaves them out after
    :func:`lineage_fixes`, which there builds each fix from the findings' commits: the
    restoring commit stays named in the fix of the finding kept.

    Args:
        findings: the gate's or ``verify``'s KI208 and KI432 (with ``extra["commit"]``,
            full ids) and others.
        commits: the range's commits (``verify``: the history's), newest first (their
            order tells the first change).

    Returns:
        ``findings`` in their order, less each KI208/KI432 on a field (file and pointer)
        that an older commit's finding changed first, whose new value is the value that
        first finding changed (what the field held before the range). Raises nothing.
    """
    order = {str(c.id): n for n, c in enumerate(commits)}  # larger: older

    def age(f: Finding) -> int:
        return order.get(str(f.extra.get("commit", "")), -1) if f.rule.id in _RULES else -1

    def field(f: Finding) -> tuple[str, str, str]:
        return (f.rule.id, f.file or "", f.pointer or "")

    first: dict[tuple[str, str, str], Finding] = {}  # the oldest commit's change of a field
    for f in findings:
        if age(f) >= 0 and (field(f) not in first or age(f) > age(first[field(f)])):
            first[field(f)] = f

    def undoes(f: Finding) -> bool:
        was = first.get(field(f))
        return age(f) >= 0 and was is not None and age(was) > age(f) and \
            f.found == was.expected

    return [f for f in findings if not undoes(f)]


def deleted_names_fix(path: str, commits: list[str], rebase: str, where: str = "HEAD") -> str:
    """Return the fix of a names file deleted in ``commits`` that ``where`` still lacks.

    Args:
        path: the names file's repository path.
        commits: the commits that changed or deleted it, oldest first (40 hex digits).
        rebase: the rebase command in backquotes.
        where: the revision checked.

    Returns:
        The fix: drop the commits in a branch not yet merged; on one already merged,
        restore the file from the commit before the first (``git checkout ID~ -- PATH``) and
        commit. Raises nothing.
    """
    ids = ", ".join(c[:12] for c in commits)
    return (f"{where} lacks this names file, which commit {ids} deleted: a name never moves "
            "nor is freed, and `kistore migrate` writing it again leaves the deletion in the "
            "history, which is read commit by commit; in a branch not yet merged, drop "
            f"{'those commits' if len(commits) > 1 else 'that commit'} ({rebase}); on a "
            f"branch already merged, restore it (`git checkout {commits[0][:12]}~ -- {path}`) "
            "and commit, and this error says so for good")


def squash_fix(commits: list[str], rebase: str, where: str, what: str) -> str:
    """Return the fix of a name or annotation ``where`` holds again beside another change.

    Args:
        commits: the commits that changed it, oldest first (40 hex digits).
        rebase: the rebase command in backquotes.
        where: the revision checked.
        what: what is held again (``the annotation 'kernelindex.dev/license'``).

    Returns:
        The fix: squash the commits into the first (``fixup``), which keeps the other
        change, the name or annotation then never changing in the history. Raises nothing.
    """
    ids = [c[:12] for c in commits]
    later = ", ".join(ids[1:]) or ids[0]
    return (f"{where} holds {what} as it was again, but the commits that changed it "
            f"({', '.join(ids)}) stay in the history, which is read commit by commit, and "
            "the file holds another change too (a `git checkout` of it, or dropping the "
            "commits, would lose that): in a branch not yet merged, squash them into one, "
            f"which keeps only the other change: {rebase}, then mark {later} `fixup` and "
            f"move {'them' if len(ids) > 2 else 'it'} right below {ids[0]}; on a branch "
            "already merged the history cannot change, and this error says so for good")


def _before(repo: pygit2.Repository, commit: str) -> pygit2.Tree | None:
    """Return the tree of ``commit``'s first parent, or None for a root commit."""
    parents = repo[commit].peel(pygit2.Commit).parents
    return parents[0].tree if parents else None


def blob_entry(tree: pygit2.Tree, path: str) -> treediff.Entry | None:
    """Return (blob id, mode) of the file at ``path`` of a root tree, or None."""
    try:
        entry = tree[path]
    except KeyError:
        return None
    return None if entry.type_str == "tree" else (str(entry.id), entry.filemode)


def _field_held(repo: pygit2.Repository, finding: Finding, was: str, held: str) -> bool:
    """Whether the metadata blob ``held`` has ``finding``'s name or annotation as ``was``."""
    key = "name" if finding.rule.id == "KI208" else str(finding.extra.get("annotation", ""))
    old, new = (_field(repo, blob, finding.rule.id == "KI432", key) for blob in (was, held))
    return old is not _UNREAD and old == new


_UNREAD = object()
"""A metadata blob that holds no JSON object: no field of it is known."""


def _field(repo: pygit2.Repository, blob: str, annotation: bool, key: str) -> Any:
    """Return ``key`` of a metadata blob (of its ``annotations`` with ``annotation``).

    ``(False,)`` for no such key (absent is a value: an annotation added, then removed);
    :data:`_UNREAD` for a blob that holds no JSON object.
    """
    try:
        doc = loads_lenient(read_blob(repo, blob))
    except (ValueError, UnicodeDecodeError):
        return _UNREAD
    if annotation:
        doc = doc.get("annotations") if isinstance(doc, dict) else None
    return (True, doc[key]) if isinstance(doc, dict) and key in doc else (False,)


def _what(finding: Finding) -> str:
    """Return what a KI208 or KI432 finding is of, as a fix names it."""
    if finding.rule.id == "KI208":
        return f"the name {finding.expected}"
    return f"the annotation {finding.extra.get('annotation', '')!r}"
