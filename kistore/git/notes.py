"""Git notes as git stores them: which objects a notes ref annotates, and with which blob.

A notes commit's tree maps each annotated object id (hex, possibly split into fan-out
directories ``ab/cdef...``) to the blob holding its note. This module reads that mapping;
what a note *means* (attestation bundles, their entry times) is :mod:`kistore.attest.notes`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .blobs import lookup
from .lazy import pygit2  # imported on first use (~0.2 s)
from .treediff import changed_leaves, subtree

if TYPE_CHECKING:  # pragma: no cover - typing only
    from collections.abc import Iterator

    from pygit2 import Oid, Repository, Tree

__all__ = ["NO_NOTES", "BadNotePath", "NoteChanges", "annotated_blobs", "bad_note_paths",
           "changed_notes", "note_blob", "note_changes", "note_paths", "note_tree",
           "notes_read", "notes_tree"]

NO_NOTES = "0" * 40
"""The notes commit of "no notes": git's null object id (``site build --notes-at none``)."""

_HEX_DIGITS = 40
"""Hex digits of an annotated object's id (SHA-1 repositories: what kistore writes)."""

_NOTE_MODE = 0o100644
"""The mode of a note blob as git and libgit2 write it."""

_FAN = re.compile(rb"[0-9a-f]{2}")
_NOTE_NAME = re.compile(rb"[0-9a-f]+")


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


def changed_notes(repo: Repository, old: Tree | None, new: Tree
                  ) -> dict[str, tuple[str | None, str | None]]:
    """Return each note that differs between two notes trees, with its blob on each side.

    Reads only the subtrees whose ids differ (:func:`kistore.git.treediff.changed_leaves`,
    ``git diff-tree -r``), so the cost follows the change, not the notes: a fetch that
    gains ten lines on a clone of 2,000 notes reads ten notes' paths, where flattening both
    trees (:func:`note_tree`) read all of them. A note git moved to another fan-out path
    (``abcd...`` to ``ab/cd...``, as notes grow) with the same blob is no change.

    Args:
        repo: the repository holding both trees.
        old: the root tree of the notes commit before (None: no notes).
        new: the root tree of the notes commit after.

    Returns:
        ``{annotated object id: (note blob before or None, note blob after or None)}``, for
        the notes whose blob differs (added, changed or removed). Entries that are no blob
        (a symlink, a submodule) are no note, as for :func:`note_tree`.

    Raises:
        ObjectUnreadable: a tree on the way is damaged or missing.
    """
    before: dict[str, str] = {}
    after: dict[str, str] = {}
    for path, (was, now) in changed_leaves(repo, None if old is None else old.id,
                                           new.id).items():
        annotated = path.replace("/", "")
        if was is not None and was[1] in _BLOB_MODES:
            before[annotated] = was[0]
        if now is not None and now[1] in _BLOB_MODES:
            after[annotated] = now[0]
    return {obj: (before.get(obj), after.get(obj)) for obj in sorted(before.keys() | after.keys())
            if before.get(obj) != after.get(obj)}


_BLOB_MODES = frozenset({0o100644, 0o100755})
"""The modes of a blob entry (what :func:`note_tree` takes for a note)."""


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


def notes_read(repo: Repository, ref: str, at: str | None) -> Oid | str | None:
    """Return the notes commit a reader reads: ``at``, else the tip of ``ref`` now.

    Notes are no part of a commit: a reader reads the notes ref as it is now, unless it is
    pinned to one notes commit (``kistore site build --notes-at``: a page is rebuilt from
    the notes commit it states, docs/site.md).

    Args:
        repo: the repository.
        ref: the notes ref (``refs/notes/kistore``).
        at: None: the ref's tip now; :data:`NO_NOTES`: none; else a notes commit id (hex).

    Returns:
        The commit id, or None when no notes are read (no such ref, or :data:`NO_NOTES`).
    """
    if at is None:
        tip = repo.references.get(ref)
        return None if tip is None else tip.target
    return None if at == NO_NOTES else at


def notes_ref_problem(repo: Repository, oid: str, ref: str) -> str | None:
    """Say what a notes ref's value ``oid`` is when it is not a commit, else None.

    git's notes are a history of commits: a blob, a tree or an annotated tag there (a
    fork's hand-written ref) is refused where it is read (the gate's KI420, ``notes
    fetch``), not read as a notes commit (reviewer r92 F13: "internal error").

    Args:
        repo: the repository holding ``oid``.
        oid: the notes ref's value, 40 hex digits.
        ref: the ref it was read for (named by a read error).

    Returns:
        ``"a blob"``, ``"a tree"``, ``"an annotated tag of a commit"`` (of what the tag
        names), or None when ``oid`` is a commit.

    Raises:
        ObjectUnreadable: ``oid`` (or a tag on the way) is damaged or missing.
    """
    obj = lookup(repo, oid, ref)
    if obj.type_str != "tag":
        return None if obj.type_str == "commit" else f"a {obj.type_str}"
    for _ in range(100):  # a tag of a tag ...: what it ends at
        if obj.type_str != "tag":
            break
        obj = lookup(repo, str(obj.target), ref)  # type: ignore[attr-defined]
    return f"an annotated tag of a {obj.type_str}"


@dataclass(frozen=True, slots=True)
class BadNotePath:
    """One path of a notes tree that git and kistore would not read alike (KI424).

    Attributes:
        path: the entry's path in the notes tree, ``/``-joined (names decoded as UTF-8, an
            undecodable byte escaped).
        annotated: the object the path annotates (40 hex digits) when it is a note path
            annotating an object at more than one path, else None (the path is no note
            path git reads as kistore does).
        paths: for a doubly annotated object, every path annotating it, sorted.
        reason: what is wrong, for people.
    """

    path: str
    annotated: str | None
    paths: tuple[str, ...]
    reason: str


@dataclass(frozen=True, slots=True)
class NoteChanges:
    """What one notes commit changes beside its parent (:func:`note_changes`).

    Attributes:
        bad: :func:`bad_note_paths` of the two trees.
        notes: each note it adds or changes: annotated object id (40 hex) -> blob id.
    """

    bad: list[BadNotePath]
    notes: dict[str, str]


def note_paths(repo: Repository, tree: Tree, annotated: str) -> list[str]:
    """Return every path of a notes tree at which git reads a note on ``annotated``.

    git reads a note at each fan-out form of the id (``abcd...``, ``ab/cd...``,
    ``ab/cd/ef...``: notes.c's ``load_subtree``) and concatenates them all; a canonical
    tree holds one. Each form is a single-path lookup (its directories, then the name),
    so the cost is the depth, not the size of the tree.

    Args:
        repo: the repository holding the tree.
        tree: the root tree of one notes commit.
        annotated: the annotated object's id (40 lowercase hex digits).

    Returns:
        The paths holding a regular file named by the id's remaining digits, shallowest
        first (``["8a483e...", "8a/483e..."]`` for a doubly annotated object).
    """
    return [path for path, _ in _note_forms(repo, tree, annotated)]


def _note_forms(repo: Repository, tree: Tree, annotated: str) -> Iterator[tuple[str, str]]:
    """Yield each fan-out form of ``annotated`` git reads a note at, shallowest first.

    Args:
        repo: the repository holding ``tree``.
        tree: the root tree of a notes commit.
        annotated: the annotated object's id (40 lowercase hex digits).

    Yields:
        ``(path, blob id)`` per form holding a regular file (mode 100644 or 100755): the
        path the id's digits make at that depth (``8a/483e...``), the note's blob id.

    Raises:
        ObjectUnreadable: a fan-out tree on the way is damaged or missing
            (:func:`kistore.git.treediff.subtree`).
    """
    node: Tree | None = tree
    depth = 0
    while node is not None:
        rest = annotated[2 * depth:]
        path = "/".join([*(annotated[2 * i:2 * i + 2] for i in range(depth)), rest])
        if rest in node and node[rest].filemode in (0o100644, 0o100755):
            yield path, str(node[rest].id)
        fan = rest[:2]
        if len(rest) <= 2 or fan not in node or node[fan].type != pygit2.GIT_OBJECT_TREE:
            break
        node = subtree(repo, node[fan].id)
        depth += 1


def bad_note_paths(repo: Repository, old: Tree | None, new: Tree) -> list[BadNotePath]:
    """Return the paths that ``new`` adds or changes beside ``old`` that git and kistore read apart.

    Reads only the subtrees that differ (equal ids are skipped), so the cost follows the
    change: a push judges what it changes; with ``old`` None the whole tree is judged
    (``verify``, ``notes fetch``). A note path git reads as kistore does is a chain of
    fan-out directories of exactly two lowercase hex digits each, ending in a blob of
    mode 100644 named by the rest of the annotated id in lowercase hex (40 digits in
    all). git reads uppercase hex as the same object, ignores (carries along) any other
    entry, and reads *every* fan-out form of one id, concatenated; kistore reads one.

    Args:
        repo: the repository holding the trees.
        old: the root tree of the notes commit before (None: the empty tree).
        new: the root tree of the notes commit after.

    Returns:
        One :class:`BadNotePath` per changed entry that is no such note path, and one per
        object a changed note annotates at more than one path of ``new`` (each fan-out
        form is looked up: the other path may be an unchanged one). In path order.

    Raises:
        ObjectUnreadable: a tree on the way is damaged or missing.
    """
    return _changes(repo, old, new, None)


def note_changes(repo: Repository, old: Tree | None, new: Tree) -> NoteChanges:
    """Return what a notes commit changes beside its parent, from one walk of the two trees.

    :func:`bad_note_paths` and the notes ``new`` adds or changes, on the walk that finds
    the former (what a pushed notes history is judged by: :mod:`kistore.check._notes_history`,
    one diff per commit where two were made, rev95 item 3). A note is a blob (mode 100644
    or 100755, as :func:`changed_notes` reads one) under fan-out directories, named by the
    rest of a 40-digit lowercase hex id; one moved to another fan-out path with the same
    blob is no change (its parent's note on the object is looked up when its name is new
    at its level). Notes at paths naming no object id are left out (KI424 says those).

    Args:
        repo: the repository holding the trees.
        old: the root tree of the notes commit before (None: the empty tree).
        new: the root tree of the notes commit after.

    Raises:
        ObjectUnreadable: a tree on the way is damaged or missing.
    """
    notes: dict[str, str] = {}
    return NoteChanges(_changes(repo, old, new, notes), notes)


def _changes(repo: Repository, old: Tree | None, new: Tree, notes_out: dict[str, str] | None
             ) -> list[BadNotePath]:
    """:func:`bad_note_paths`; with ``notes_out``, also fill it as :func:`note_changes` says."""
    bad: list[BadNotePath] = []
    notes: list[tuple[str, str]] = []  # (annotated, its path), each changed note
    pending: list[tuple[str, int, Tree | None, Tree]] = [("", 0, old, new)]
    while pending:
        where, depth, before, after = pending.pop()
        kept = {} if before is None else {e.raw_name: (e.filemode, e.id) for e in before}
        for entry in after:
            name = entry.raw_name or b""
            if kept.get(name) == (entry.filemode, entry.id):
                continue
            shown = where + name.decode("utf-8", "backslashreplace")
            if entry.type == pygit2.GIT_OBJECT_TREE and _FAN.fullmatch(name) and \
                    2 * depth + 2 < _HEX_DIGITS:
                was = before[name.decode()] if before is not None and name in kept else None
                pending.append((shown + "/", depth + 1,
                                subtree(repo, was.id) if was is not None and
                                was.type == pygit2.GIT_OBJECT_TREE else None,
                                subtree(repo, entry.id)))
            else:
                named = entry.type == pygit2.GIT_OBJECT_BLOB and _NOTE_NAME.fullmatch(name) \
                    and len(name) == _HEX_DIGITS - 2 * depth
                if named and notes_out is not None and entry.filemode in _BLOB_MODES:
                    annotated = shown.replace("/", "")
                    prior = kept.get(name)  # the same path's blob, else the note wherever it was
                    had = {str(prior[1])} if prior is not None and prior[0] in _BLOB_MODES \
                        else set() if old is None else {  # every form git reads: a note
                            blob for _, blob in _note_forms(repo, old, annotated)}  # moved
                    if str(entry.id) not in had:  # from a flat path beside a fan-out is kept
                        notes_out[annotated] = str(entry.id)
                if named and entry.filemode == _NOTE_MODE:
                    notes.append((shown.replace("/", ""), shown))
                else:
                    bad.append(BadNotePath(shown, None, (), _not_a_note(shown, depth)))
    walked: dict[str, list[str]] = {}
    for annotated, path in notes:
        walked.setdefault(annotated, []).append(path)
    for annotated in sorted(walked):
        # the whole tree was walked: its paths are all here; else look each form up
        paths = sorted(walked[annotated], key=lambda p: p.count("/")) if old is None \
            else note_paths(repo, new, annotated)
        if len(paths) > 1:
            bad.append(BadNotePath(paths[0], annotated, tuple(sorted(paths)), (
                f"the notes tree annotates {annotated} at {len(paths)} paths "
                f"({', '.join(sorted(paths))}): git reads all of them, concatenated, "
                "kistore one, so the lines of the others are never checked")))
    return sorted(bad, key=lambda b: b.path)


def _not_a_note(shown: str, depth: int) -> str:
    """Say why a notes-tree entry is no note path git and kistore read alike."""
    left = _HEX_DIGITS - 2 * depth
    return (f"{shown!r} is no note path: a note is a blob (mode 100644) named by the "
            f"annotated object's remaining {left} hex digits in lowercase, under fan-out "
            "directories of exactly 2 lowercase hex digits (git ignores other entries, "
            "reads uppercase hex as the same object; kistore reads them otherwise)")
