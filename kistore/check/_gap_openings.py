"""Where a commit opens a metadata gap: one judgement, for the gate and ``verify`` (hist04).

A commit opens a gap when it holds an object that no metadata file describes while the
parent it is compared with does not: it deletes the metadata file of an object it holds,
or adds an object without one (fresh04 H2). The gate refuses such a commit of a range,
when a later one brings the metadata file back (KI204 of that commit:
:mod:`._metadata_gaps`); ``verify`` reads the same judgement over the whole history, in
the walk it already makes of the metadata files (:func:`.lineage.check_names`), and warns
of a gap that landed: history is never rewritten, but ``verify --at``, ``show --at`` and
``rank --at`` at that commit find the object without its metadata
(:func:`landed_gaps`).

The cost follows the change: per commit and parent, the ids of the object and metadata
trees are compared, and only the shards either changed are listed (the object and
metadata shards of both, from :mod:`kistore.git.treediff`'s kept listings), their file
names compared as sets: no lookup per object added.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ..core import layout
from ..core.digest import Digest
from ..core.findings import WARNING, Finding
from ..git import treediff
from ._fixes import REBASE_BASE
from ._rules import OBJECT_WITHOUT_METADATA

if TYPE_CHECKING:  # pragma: no cover - typing only
    import pygit2

GAP_IN_HISTORY = replace(OBJECT_WITHOUT_METADATA, severity=WARNING)
"""KI204 as ``verify`` reports a gap of the history that a later commit closed: a warning,
since history is never rewritten (:func:`landed_gaps`)."""

_TREE = b"40000"
"""A directory's mode as a tree object spells it."""


def commit_openings(repo: pygit2.Repository, commit: Any) -> list[Digest]:
    """Return the digests of the objects whose metadata gap ``commit`` opens.

    For each parent, the objects the commit adds without their metadata file and those
    whose metadata file it deletes while holding the object (:func:`_brought_gaps`); of a
    merge, a gap another parent already holds is left out: that side's commit opened it
    (two lookups per other parent).

    Args:
        repo: the repository.
        commit: a ``pygit2.Commit`` (a root commit is compared with nothing: none).

    Returns:
        The digests, each once, in the order found. Raises ObjectUnreadable for a damaged
        tree on the way.
    """
    said: list[Digest] = []
    for parent in commit.parents:
        others = [p for p in commit.parents if p.id != parent.id]
        for digest in _brought_gaps(repo, commit, parent):
            if digest not in said and not any(gap_at(repo, p.tree, digest) for p in others):
                said.append(digest)
    return said


def _brought_gaps(repo: pygit2.Repository, commit: Any, parent: Any) -> list[Digest]:
    """Return the digests ``commit`` holds a gap of where ``parent`` holds none.

    An object it adds against ``parent`` whose metadata file it lacks; a metadata file it
    deletes against ``parent`` whose object it holds. Only the shards whose object or
    metadata tree differs are listed (a name there counts whatever its entry: a directory
    where the metadata file belongs is no gap, as a lookup would find it).
    """
    ends = [(treediff.subtree_id(repo, t, layout.OBJECTS_DIR),
             treediff.subtree_id(repo, t, layout.METADATA_DIR)) for t in (parent.tree, commit.tree)]
    if ends[1][0] is None or ends[0] == ends[1]:
        return []  # the commit holds no object, or changes neither tree
    (old_objects, old_meta), (new_objects, new_meta) = (
        (_shards(repo, objects), _shards(repo, meta)) for objects, meta in ends)
    found = []
    for shard, shard_id in sorted(new_objects.items()):
        if old_objects.get(shard) == shard_id and old_meta.get(shard) == new_meta.get(shard):
            continue
        objects, names = _names(repo, shard_id), _names(repo, new_meta.get(shard))
        was = _names(repo, old_objects.get(shard)) if old_objects.get(shard) != shard_id \
            else objects
        had = _names(repo, old_meta.get(shard)) if old_meta.get(shard) != new_meta.get(shard) \
            else names
        for name in sorted((objects[0] - was[0] - names[1]) | ((had[0] - names[0]) & objects[1])):
            digest = layout.digest_from_path(f"{layout.OBJECTS_DIR}/{shard}/{name}")
            if digest is not None:
                found.append(digest)
    return found


def _shards(repo: pygit2.Repository, top: Any | None) -> dict[str, str]:
    """Return ``{shard name: tree id (40 hex digits)}`` of the directories below ``top``."""
    if top is None:
        return {}
    entries, _ = treediff.tree_entries(repo, str(top))
    return {name.decode("utf-8", "replace"): oid.hex() for mode, name, oid in entries
            if mode == _TREE}


def _names(repo: pygit2.Repository, tree: str | None) -> tuple[set[str], set[str]]:
    """Return a shard's (file names, all names), from its kept listing; empty for None."""
    if tree is None:
        return set(), set()
    entries, _ = treediff.tree_entries(repo, tree)
    every = {(name.decode("utf-8", "replace"), mode != _TREE) for mode, name, _ in entries}
    return {name for name, file in every if file}, {name for name, _ in every}


def gap_at(repo: pygit2.Repository, tree: pygit2.Tree, digest: Digest) -> bool:
    """Whether ``tree`` holds ``digest``'s object file and no metadata file for it.

    Args:
        repo: the repository holding ``tree``.
        tree: a commit's tree.
        digest: the object's digest.

    Returns:
        True when the object file is there and its metadata file is not.

    Raises:
        ObjectUnreadable: a directory on the way to either file is damaged or missing
            (:func:`kistore.git.treediff.entry_at`).
    """
    return treediff.entry_at(repo, tree, layout.object_path(digest)) is not None and \
        treediff.entry_at(repo, tree, layout.metadata_path(digest)) is None


def deleted_from(repo: pygit2.Repository, commit: Any, digest: Digest) -> Any | None:
    """Return the parent of ``commit`` holding ``digest``'s metadata file, or None.

    Args:
        repo: the repository.
        commit: a ``pygit2.Commit`` whose tree lacks the metadata file.
        digest: the object's digest.

    Returns:
        The first parent (in ``commit.parents`` order) holding the file: ``commit`` deletes
        it; None: it adds the object without one.

    Raises:
        ObjectUnreadable: a directory of a parent's tree on the way to the file is damaged
            or missing (:func:`kistore.git.treediff.entry_at`).
    """
    meta = layout.metadata_path(digest)
    return next((p for p in commit.parents
                 if treediff.entry_at(repo, p.tree, meta) is not None), None)


def gap_said(digest: Digest, commit: Any, deleted: bool, back: str) -> str:
    """Return what a gap is, as the gate and ``verify`` both say it.

    Args:
        digest: the object's digest.
        commit: the commit opening the gap.
        deleted: whether it deletes the metadata file (else it adds the object without it).
        back: what brings the file back (``commit 0123456789ab``).

    Returns:
        ``no metadata file META at commit C, which deletes it: ... (the run is not there)``.
        Raises nothing.
    """
    where = f"commit {str(commit.id)[:12]}"
    done = "deletes it" if deleted else "adds the object without it"
    return (f"no metadata file {layout.metadata_path(digest)} at {where}, which {done}: "
            f"{back} brings it back, but {where} stays in the history, where `verify --at`, "
            "`show --at`, `rank --at` and a checkout of it find the object without its "
            "metadata (the run is not there)")


def landed_gaps(repo: pygit2.Repository, commits: list[Any],
                openings: list[tuple[Any, Digest]], head: Any) -> list[Finding]:
    """Warn (KI204, ``verify``) of each gap the history of ``head`` opened and closed.

    Args:
        repo: the repository.
        commits: the history of ``head`` (``pygit2.Commit``), newest first, topologically.
        openings: ``(commit, digest)`` per gap a commit opens (:func:`commit_openings`).
        head: the commit verified (``HEAD``, or ``verify --at``'s).

    Returns:
        One :data:`GAP_IN_HISTORY` per opening whose object and metadata file ``head``
        holds both (else the contents check's KI204 says the gap, or KI402 the object
        gone), on the object's path, with ``extra["commit"]`` (``commit`` and 12 digits)
        and ``extra["metadata"]``; its message names the commit that brings the file back
        (the oldest later one, descending from the opening, that holds it where a parent
        does not). Two lookups per opening, and one or two per later commit until that
        one. Raises ObjectUnreadable for a damaged tree on the way.
    """
    order = {c.id: n for n, c in enumerate(commits)}
    found = []
    for commit, digest in openings:
        obj, meta = layout.object_path(digest), layout.metadata_path(digest)
        if treediff.entry_at(repo, head.tree, obj) is None or \
                treediff.entry_at(repo, head.tree, meta) is None:
            continue
        later = _closing(repo, reversed(commits[:order.get(commit.id, 0)]), commit, meta)
        back = f"commit {str(later.id)[:12]}" if later is not None else "a later commit"
        where = f"commit {str(commit.id)[:12]}"
        found.append(Finding(
            GAP_IN_HISTORY, gap_said(digest, commit, deleted_from(repo, commit, digest)
                                     is not None, back) + ": that history has landed",
            file=obj, extra={"commit": where, "metadata": meta},
            fix=f"nothing is to be done but know it: history that landed is never rewritten, "
            f"so at {where} `verify --at` fails (KI204) and `show --at` and `rank --at` do not "
            "find the run, while the later commits hold its metadata again; in a branch not "
            "yet merged, the gate refuses such a commit (KI204 of that commit): take the gap "
            f"out of it, {REBASE_BASE}"))
    return found


def _closing(repo: pygit2.Repository, later: Any, commit: Any, meta: str) -> Any | None:
    """Return the commit of ``later`` that brings ``meta`` back after ``commit``, or None.

    The first of ``later`` (oldest first) descending from ``commit`` that holds ``meta``
    where one of its parents does not.
    """
    for candidate in later:
        if treediff.entry_at(repo, candidate.tree, meta) is not None and any(
                treediff.entry_at(repo, p.tree, meta) is None for p in candidate.parents) \
                and repo.descendant_of(candidate.id, commit.id):
            return candidate
    return None
