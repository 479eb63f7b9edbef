"""Notes trees git and kistore read alike: one path per annotated object (KI424, review r78 F2).

git reads the note on an object at every fan-out form of its id (``8a483e...`` and
``8a/483e...``, ...) and concatenates them (notes.c, ``load_subtree``); it reads uppercase
hex as the same id and carries any other entry along unread. kistore reads one path per
object. A notes tree holding two paths for one object, or a path git reads otherwise than
kistore, would let a push add lines the gate never checks while git serves them (``git
notes show``, every mirror, and ``git notes merge`` in honest clones, which writes them
into one note). This module owns that rule: the gate refuses such a push, ``verify``
reports such a tree, and every reader shows a doubly annotated object's lines (all of them,
as git serves them) as invalid.

The tree walk is :func:`kistore.git.notes.bad_note_paths` (git layer); here are the rule,
its findings, and the readers' view of the notes ref's tip.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..core.findings import ERROR, Finding, rule
from ..core.layout import NOTES_REF
from ..git.note_blobs import NoteTooLarge, read_note
from ..git.notes import bad_note_paths, notes_read, notes_tree
from ..git.treediff import entry_at

if TYPE_CHECKING:  # pragma: no cover - typing only
    from pygit2 import Repository, Tree

__all__ = ["NOTES_PATH_NOT_CANONICAL", "Doubled", "doubled_notes", "path_findings"]

def remote_words(remote: str | None) -> tuple[str, str]:
    """Return how a fix names a remote: (as typed in a command, shell-quoted; as said).

    Args:
        remote: the remote's name or URL as the pushing clone calls it; None: the word
            ``REMOTE`` both ways (``pre-receive`` knows no clone's name for itself).

    Returns:
        ``("REMOTE", "REMOTE")`` for None, else ``(shlex.quote(remote), remote)``. Raises
        nothing.
    """
    if remote is None:
        return "REMOTE", "REMOTE"
    # Lazy: shlex for this message only.
    import shlex

    return shlex.quote(remote), remote


def paths_fix(remote: str | None = None) -> str:
    """Return KI424's fix, naming the remote a push goes to.

    Args:
        remote: the remote's name or URL as the pushing clone calls it (``notes push``,
            ``pre-push``); None: the word REMOTE (the rule's hint; ``pre-receive``, which
            knows no clone's name for itself).

    Returns:
        The fix: one path per object, and for a clone's own hand-made notes ``kistore notes
        rebase REMOTE`` (it fetches REMOTE's notes first, since fixg96) then ``kistore notes
        push REMOTE``. Raises nothing.
    """
    typed, name = remote_words(remote)
    return ("keep one path per annotated object in refs/notes/kistore, named as git and "
            "kistore write it (lowercase hex, 2-digit fan-out directories, blobs of mode "
            "100644): push notes `kistore attest` and `kistore notes push` wrote, never a "
            f"hand-made tree; a repository's own notes so made: `kistore notes rebase "
            f"{typed}` rewrites them on {name}'s with one path per object and this "
            f"repository's lines (it fetches {name}'s notes first; `git notes remove` would "
            f"drop the note's valid lines too), then `kistore notes push {typed}`")


NOTES_PATH_NOT_CANONICAL = rule("KI424", "notes-path-not-canonical", ERROR, paths_fix())


def path_findings(repo: Repository, old: Tree | None, new: Tree
                  ) -> list[Finding]:
    """KI424 for each path of notes tree ``new`` (beside ``old``) git and kistore read apart.

    Args:
        repo: the repository holding both trees.
        old: the root tree of the notes commit before a push (None: judge all of ``new``).
        new: the root tree of the notes commit after it.

    Returns:
        One KI424 error per :class:`kistore.git.notes.BadNotePath`, its file
        ``refs/notes/kistore:<path in the notes tree>``; ``extra.paths`` lists every path
        of a doubly annotated object. Empty for a canonical tree.

    Raises:
        ObjectUnreadable: a tree on the way is damaged or missing.
    """
    return [Finding(NOTES_PATH_NOT_CANONICAL, bad.reason, file=f"{NOTES_REF}:{bad.path}",
                    extra={"annotated": bad.annotated, "paths": list(bad.paths)}
                    if bad.annotated else {})
            for bad in bad_note_paths(repo, old, new)]


@dataclass(frozen=True, slots=True)
class Doubled:
    """A doubly annotated object as git serves its note.

    Attributes:
        reason: why none of its lines counts (the KI424 message).
        lines: every distinct line of every path's note, sorted (what git concatenates).
    """

    reason: str
    lines: tuple[bytes, ...]


def doubled_notes(repo: Repository, *, notes_at: str | None = None) -> dict[str, Doubled]:
    """Return ``{annotated object id: Doubled}`` for the tip of :data:`NOTES_REF`.

    ``notes_at``: read this notes commit instead of the tip (:func:`kistore.git.notes.
    notes_read`).

    Walks the tip's whole tree once a process and tip (cached): readers of notes call it
    beside :func:`kistore.attest.notes.notes_entered`, which reads that tree too.

    Returns:
        The objects the tip annotates at more than one path; empty without notes.

    Raises:
        ObjectUnreadable: a tree or note blob is damaged or missing.
    """
    tip = notes_read(repo, NOTES_REF, notes_at)
    if tip is None:
        return {}
    key = (repo.path, str(tip))
    hit = _DOUBLED.get(key)
    if hit is not None:
        return hit
    tree = notes_tree(repo, tip, NOTES_REF)
    found: dict[str, Doubled] = {}
    for bad in bad_note_paths(repo, None, tree):
        if bad.annotated is None:
            continue
        lines: set[bytes] = set()
        for path in bad.paths:
            entry = entry_at(repo, tree, path)
            if entry is None:
                continue
            try:
                data = read_note(repo, str(entry.id), f"{NOTES_REF}:{path}")
            except NoteTooLarge:  # unread: the note's own reading says KI117 of it
                continue
            lines.update(line for line in data.split(b"\n") if line.strip())
        found[bad.annotated] = Doubled(f"{bad.reason} (KI424)", tuple(sorted(lines)))
    _DOUBLED.clear()
    _DOUBLED[key] = found
    return found


_DOUBLED: dict[tuple[str, str], dict[str, Doubled]] = {}
