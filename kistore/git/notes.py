"""Git notes as git stores them: which objects a notes ref annotates, and with which blob.

A notes commit's tree maps each annotated object id (hex, possibly split into fan-out
directories ``ab/cdef...``) to the blob holding its note. This module reads that mapping;
what a note *means* (attestation bundles, their entry times) is :mod:`kistore.attest.notes`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .blobs import lookup
from .lazy import pygit2  # imported on first use (~0.2 s)
from .treediff import subtree

if TYPE_CHECKING:  # pragma: no cover - typing only
    from pygit2 import Oid, Repository, Tree

__all__ = ["annotated_blobs", "note_blob", "note_tree", "notes_tree"]


def note_tree(repo: Repository, tree: Tree, prefix: str = "",
              cache: dict[str, dict[str, str]] | None = None) -> dict[str, str]:
    """Map annotated object id -> note blob id in a notes tree, with any fan-out, as git reads it.

    Args:
        repo: the repository holding the tree.
        tree: the tree of one notes commit (or a fan-out subtree of it).
        prefix: the hex digits the fan-out directories above ``tree`` spell.
        cache: subtree id -> its mapping, shared across calls so that a walk of many notes
            commits reads each unchanged subtree once.

    Returns:
        ``{annotated object id (hex): note blob id (hex)}``.
    """
    cache = {} if cache is None else cache
    hit = cache.get(str(tree.id))
    if hit is not None:
        return {prefix + k: v for k, v in hit.items()}
    out: dict[str, str] = {}
    for entry in tree:
        name = str(entry.name)
        if entry.type == pygit2.GIT_OBJECT_TREE:
            out.update(note_tree(repo, subtree(repo, entry.id), name, cache))
        elif entry.type == pygit2.GIT_OBJECT_BLOB:
            out[name] = str(entry.id)
    cache[str(tree.id)] = out
    return {prefix + k: v for k, v in out.items()}


def note_blob(repo: Repository, tree: Tree, annotated: str) -> str | None:
    """Return the id of the blob holding the note on ``annotated`` in a notes tree, or None.

    Looks the one path up, as libgit2's ``git_note_read`` does (what a full clone answers
    with), reading only the trees on the way, never a blob: at each level a two-hex-digit
    directory spelling the next two digits is entered if there is one (a fanned-out tree,
    ``ab/cdef...``, ``ab/cd/ef...``: git fans out as the notes grow); else the entry named
    by the digits left is the note (a flat tree holds ``abcdef...`` at the top).

    Args:
        repo: the repository holding the tree.
        tree: the tree of one notes commit.
        annotated: the annotated object's id (hex).

    Returns:
        The note blob's id (hex), or None when the object has no note there.
    """
    depth = 0
    while True:
        rest = annotated[depth:]
        fan = rest[:2]
        if len(fan) == 2 and fan in tree:
            entry = tree[fan]
            if entry.type == pygit2.GIT_OBJECT_TREE:
                tree = subtree(repo, entry.id)
                depth += 2
                continue
        if rest and rest in tree:
            entry = tree[rest]
            return str(entry.id) if entry.type == pygit2.GIT_OBJECT_BLOB else None
        return None


def annotated_blobs(repo: Repository, ref: str) -> frozenset[str]:
    """Return the ids (hex) of the objects that carry a note under ``ref`` now.

    Args:
        repo: the repository.
        ref: a notes ref, e.g. :data:`kistore.core.layout.NOTES_REF`.

    Returns:
        The annotated object ids; empty when the ref does not exist.
    """
    tip = repo.references.get(ref)
    if tip is None:
        return frozenset()
    return frozenset(note_tree(repo, notes_tree(repo, tip.target, ref)))


def notes_tree(repo: Repository, commit: Oid | str, ref: str) -> Tree:
    """Return the root tree of the notes commit ``commit`` (the tip of ``ref``), guarded.

    Both are read through :func:`~.blobs.lookup` (libgit2 loops on a loose object cut
    short; a missing one is the repository's damage, not a ``KeyError``).

    Args:
        repo: the repository.
        commit: the notes commit's id.
        ref: the notes ref it was read for (named by the error).

    Raises:
        ObjectUnreadable: the commit or its tree is damaged or missing.
    """
    tip = lookup(repo, commit, ref).peel(pygit2.Commit)
    return subtree(repo, tip.tree_id)
