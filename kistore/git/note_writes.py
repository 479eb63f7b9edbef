"""Writing a notes commit, to success, while a ``git gc`` runs beside it.

libgit2 writes a notes commit as it writes any commit, and drops the write's error the
same way (:mod:`kistore.git._loose`: ``create_commit`` returns the id of a commit it failed
to write, e.g. when ``git prune-packed`` removed the commit's fan-out directory mid-write).
``git_note_create`` and ``git_note_remove`` (pygit2's ``create_note``, ``Note.remove``)
then move the notes ref with ``git_reference_create``, whose check of the target is all
that sees the loss: they raise "target OID for the reference doesn't exist on the
repository" and leave the ref where it was (libgit2 1.9.7's ``notes.c``; gcnotes97,
2026-12-05). Until then, a ``kistore attest`` beside a cron ``git gc`` ended in an
"internal error" in those words, and ``notes fetch`` from a fork took such a failure for
a concurrent writer ("kept moving"). Here each such write is made again, the ref is read
after it, and a write that keeps failing is said plainly.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..core.errors import StoreStateError
from . import _loose
from .ids import blob_id
from .lazy import pygit2  # loaded by the write that calls us
from .notes import note_blob, notes_tree

if TYPE_CHECKING:  # pragma: no cover - typing only
    import pygit2

__all__ = ["notes_commit", "write_note"]

_UNWRITTEN = "target OID for the reference doesn't exist on the repository"
"""libgit2's words when a notes call moves its ref to the commit whose write it dropped."""

_NOT_HELD = "does not hold the note just written"
"""kistore's words when a note call returned but its ref, read back, lacks the note."""

_ADVICE = ("a `git gc` or `git repack -d` kept removing the directory it is written into, "
           "the disk is full, or .git/objects is not writable; nothing was changed: run it "
           "again once that is mended")


def write_note(repo: pygit2.Repository, ref: str, annotated: str, text: str | None,
               who: tuple[pygit2.Signature, pygit2.Signature]) -> pygit2.Oid:
    """Set (or remove) the note on ``annotated`` at ``ref``: one notes commit, ``ref`` moved to it.

    A note call whose commit libgit2 failed to write (see the module's docstring) is made
    again, up to :data:`kistore.git._loose.ATTEMPTS` times, as a vanished directory's
    ENOENT is; after each call ``ref`` must name a new commit whose note on ``annotated``
    is ``text``'s blob (or none), else the call counts as failed: never a silent success.

    Args:
        repo: the repository.
        ref: the notes ref written (a private one: no other writer moves it meanwhile).
        annotated: the annotated object's id (hex).
        text: the note's whole text; None removes the note (it must exist).
        who: the notes commit's author and committer, as git names them
            (:func:`kistore.git.idents.signatures`: ``git notes add`` writes the same).

    Returns:
        The new notes commit's id (``ref``'s target).

    Raises:
        RaceLost: a `git gc` beside kept removing the commit's directory or locking
            ``ref`` (:func:`kistore.git._loose.written`: what happened, run it again).
        StoreStateError: the commit was not written :data:`~kistore.git._loose.ATTEMPTS`
            times (a full disk, a `git gc` that kept removing its directory), in
            libgit2's words (or what reading ``ref`` back found) and what to do.
        pygit2.GitError, OSError, KeyError: another failure (as libgit2 raises it).
    """
    blob = None if text is None else blob_id(text.encode("utf-8")).hex()

    def write() -> pygit2.Oid:
        held = repo.references.get(ref)
        before = None if held is None else held.target
        if text is None:
            repo.lookup_note(annotated, ref).remove(*who, ref)
        else:
            repo.create_note(text, *who, annotated, ref, True)
        after = repo.references.get(ref)
        new = None if after is None else after.target
        if not isinstance(new, pygit2.Oid) or new == before or \
                note_blob(repo, notes_tree(repo, new, ref), annotated) != blob:
            raise pygit2.GitError(f"{ref} {_NOT_HELD} on {annotated} (read back after "
                                  f"libgit2's note call returned: {_held(new, before)})")
        return new

    try:
        return _loose.written(write, (_UNWRITTEN, _NOT_HELD), ref=ref)
    except pygit2.GitError as e:
        if _UNWRITTEN not in str(e) and _NOT_HELD not in str(e):
            raise
        said = f"libgit2: {e}" if _UNWRITTEN in str(e) else str(e)
        raise StoreStateError(f"the notes commit on {ref} could not be written ({said}): "
                              f"{_ADVICE}") from e


def _held(new: object, before: object) -> str:
    """Say where a note call left its ref: ``new`` its target after, ``before`` before."""
    if new is None:
        return "the ref is gone"
    if new == before:
        return "the ref is where it was"
    return f"the ref names {new}, whose note is another"


def notes_commit(repo: pygit2.Repository, signature: pygit2.Signature, message: str,
                 tree: pygit2.Oid, parents: list[pygit2.Oid], *,
                 author: pygit2.Signature) -> pygit2.Oid:
    """Write a notes commit of ``tree`` on ``parents`` (no ref moved), to success; return its id.

    :func:`kistore.git._loose.commit`, its failures said plainly.

    Args:
        repo: the repository.
        signature: the commit's committer.
        message: the commit message.
        tree: the notes tree (written before).
        parents: its parents' ids, first parent first.
        author: the commit's author: the one git names (:func:`kistore.git.idents.
            signatures`, as ``git notes add`` writes; fresh12 F2), or a notes commit's own
            where it is made again at a push (:func:`kistore.attest.notes_dated.dated_at_push`).

    Returns:
        The id of a commit ``repo`` holds.

    Raises:
        StoreStateError: the commit could not be written (libgit2's words, what to do).
    """
    try:
        return _loose.commit(repo, signature, message, tree, parents, author=author)
    except (pygit2.GitError, OSError) as e:
        raise StoreStateError(f"a notes commit could not be written ({e}): {_ADVICE}") from e
