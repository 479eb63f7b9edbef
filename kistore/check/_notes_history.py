"""The lines a pushed notes history holds that its tip no longer does (the gate, KI409).

The push gate judges a ``refs/notes/kistore`` update by its two tips: every line the old
tip held stays, every line the new tip adds verifies. A notes commit *between* them is
read by nobody, yet every clone that fetches the notes fetches it: a fork's notes history
that adds a garbage line (``git notes append``) and removes it again in a later commit
passed, and the garbage stayed in the index's notes history for good (and in ``kistore
notes restore``'s reach, which reads that history). :func:`history_lines` finds those
lines, so the gate can judge each as it judges a line at the tip. The same holds for a
*path* a brought commit adds that is no note path (a ``junk.txt`` of 400 KB, an uppercase
id) and a later commit removes: :func:`history_paths` finds those (KI424, reviewer
break94 F1), as :func:`kistore.attest.notepaths.path_findings` does at the tip. Both read
one walk of the brought commits, each diffed once against its parent
(:func:`brought_notes`; rev95 item 3: each walked them and diffed each commit itself).

Notes only grow in *every* notes commit, not only from tip to tip (KI408, reviewer fresh01
F8): a push whose first notes commit removes a withdrawal line and whose second adds it
back passed, and ``export --notes-at`` / ``site build --notes-at`` of the first read the
run un-withdrawn. :func:`removals` finds each note a brought commit changes beside any of
its parents (a diff of trees per parent, so the cost follows the pushed commits), and
:func:`lost_lines` the lines of the parent's note it no longer holds.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, NamedTuple

from ..attest.notepaths import NOTES_PATH_NOT_CANONICAL, paths_fix, remote_words
from ..attest.notes import lines_of, numbered_lines
from ..core.findings import Finding
from ..git.note_blobs import read_note
from ..git.notes import BadNotePath, changed_notes, note_blob, note_changes, notes_tree

if TYPE_CHECKING:  # pragma: no cover - typing only
    import pygit2

__all__ = ["BroughtNotes", "HistoryLine", "LostLines", "Removal", "brought_notes", "entered_in",
           "history_blobs", "history_lines", "history_paths", "lost_lines", "rebase_advice",
           "removals", "restore_advice", "said", "stuck_advice"]

_HEX = re.compile(r"[0-9a-f]{40}")
"""An annotated object's id (a note path naming none is KI424's)."""


class BroughtNotes(NamedTuple):
    """What one notes commit a push brings changes beside its first parent.

    Attributes:
        commit: its id (40 hex).
        notes: each note it adds or changes: annotated object id (40 hex) -> blob id.
        bad: each path it adds or changes that git and kistore read apart
            (:func:`kistore.git.notes.bad_note_paths`); none for the pushed tip (whose
            tree the gate judges against the old tip).
    """

    commit: str
    notes: dict[str, str]
    bad: list[BadNotePath]


def brought_notes(repo: pygit2.Repository, brought: Iterable[pygit2.Commit], new: str
                  ) -> list[BroughtNotes]:
    """Diff each brought notes commit once against its first parent (a root: no notes).

    :func:`kistore.git.notes.note_changes` reads only the subtrees that differ, trees only
    (no blob), so the cost follows the change.

    Args:
        repo: the receiving (or pushing) repository.
        brought: the notes commits the push brings (:func:`._history.ancestry` of ``new``,
            hiding the old tip).
        new: the pushed tip (its commit id, 40 hex).

    Returns:
        One record per commit, in ``brought``'s order.

    Raises:
        ObjectUnreadable: a notes tree on the way is damaged or missing.
    """
    walked = []
    for commit in brought:
        parent = commit.parents[0].tree if commit.parents else None
        changes = note_changes(repo, parent, commit.tree)
        walked.append(BroughtNotes(str(commit.id), changes.notes,
                                   [] if str(commit.id) == new else changes.bad))
    return walked


class HistoryLine(NamedTuple):
    """A note line a pushed notes history holds that neither tip of the push holds.

    Attributes:
        commit: the first notes commit (oldest first, as brought) whose note holds it.
        obj: the annotated object's id (40 hex), the note's name.
        number: the line's number in that commit's note (1-based, as ``git notes show OBJ
            | sed -n Np`` counts, blank lines included).
        line: the line's bytes (without its line feed).
    """

    commit: str
    obj: str
    number: int
    line: bytes


def history_lines(repo: pygit2.Repository, walked: Iterable[BroughtNotes], old: str | None,
                  new: str, ref: str) -> list[HistoryLine]:
    """Return each line a brought notes commit holds that neither ``old`` nor ``new`` holds.

    Only the notes each brought commit adds or changes beside its first parent are read
    (:func:`brought_notes`; fan-out paths included: a note git moved to ``ab/cdef...``
    with the same blob is no change). A line is returned once, at the first commit (in
    the walk's order) whose note holds it.

    Args:
        repo: the receiving (or pushing) repository.
        walked: :func:`brought_notes` of the commits the push brings.
        old: the ref's tip before the push (None: it is created).
        new: the pushed tip.
        ref: the notes ref's name (for errors).

    Returns:
        The lines, in the order found.

    Raises:
        ObjectUnreadable: a notes tree or blob on the way is damaged or missing.
    """
    tips = [notes_tree(repo, tip, ref) for tip in (old, new) if tip is not None]
    held: dict[str, set[bytes]] = {}

    def at_tips(obj: str) -> set[bytes]:  # the lines the push's two tips hold on ``obj``
        if obj not in held:
            held[obj] = set()
            for tree in tips:
                blob = note_blob(repo, tree, obj)
                if blob is not None:
                    held[obj].update(read_note(repo, blob, f"{ref}:{obj}").split(b"\n"))
        return held[obj]

    found: list[HistoryLine] = []
    seen: set[tuple[str, bytes]] = set()
    for commit in walked:
        for obj, blob in sorted(commit.notes.items()):
            data = read_note(repo, blob, f"{ref}:{obj}")
            for number, line in numbered_lines(data):  # as the editor shows the note
                if (obj, line) in seen or line in at_tips(obj):
                    continue
                seen.add((obj, line))
                found.append(HistoryLine(commit.commit, obj, number, line))
    return found


def rebase_advice(remote: str | None) -> str:
    """Say how to push a notes history without a commit the push brings (KI409, KI424).

    Args:
        remote: the remote's name or URL the push goes to, as the pushing clone calls it
            (``pre-push``'s ``--remote``, ``kistore notes push REMOTE``); None in the
            receiving repository (``pre-receive``), which knows no clone's name for itself.

    Returns:
        The advice, naming ``kistore notes rebase REMOTE`` with the remote named (break95
        L2: the notes push's finding said ``REMOTE`` literally), or, with None, ``REMOTE``
        said to be the clone's name for this repository.
    """
    typed, name = remote_words(remote)
    which = ", REMOTE being your repository's name for this one" if remote is None else ""
    return (f"push a notes history without that commit (`kistore notes rebase {typed}` "
            f"rebuilds a repository's notes on {name}'s without it{which}; `kistore notes fetch` "
            "of a fork takes its lines, not its history)")


def entered_in(repo: pygit2.Repository, walked: list[BroughtNotes], obj: str, line: bytes,
               ref: str) -> str:
    """Return the brought notes commit in which ``line`` entered the note on ``obj``.

    What decides how a refused line at the pushed tip is left out: the commit holding it
    is one the remote lacks (the push brings it), so deleting the line at the tip (`git
    notes edit`, a new notes commit on top) leaves it in that commit, which the push still
    sends, and the gate refuses it there (KI409, :func:`history_lines`; a valid line of a
    key not trusted for its role, which KI409 lets be there, is a removal there: KI408 in
    that commit, :func:`lost_lines`).

    Args:
        repo: the pushing (or receiving) repository.
        walked: :func:`brought_notes` of the commits the push brings (newest first, as
            :func:`._history.ancestry` walks; the tip among them).
        obj: the annotated object's id (40 hex).
        line: the note line (without its line feed), held by the tip's note on ``obj``.
        ref: the notes ref's name (for errors).

    Returns:
        The oldest brought commit whose change of the note on ``obj`` holds ``line`` (40
        hex); the tip's id when none does (the tip holds it).

    Raises:
        ObjectUnreadable: a note blob on the way is damaged or missing.
    """
    for commit in reversed(walked):  # oldest first
        blob = commit.notes.get(obj)
        if blob is not None and line in lines_of(read_note(repo, blob, f"{ref}:{obj}")):
            return commit.commit
    return walked[0].commit


def stuck_advice(remote: str | None, commit: str) -> str:
    """Return the fix of a refused line at the pushed tip that a notes commit brought holds.

    The fix printed first must be one that works (reviewer fresh98 MED 2): "`git notes
    edit OBJ` and delete it, then push again" was refused again, the line being in the
    history the push brings; only the second refusal named the rebuild.

    Args:
        remote: as :func:`rebase_advice` takes it.
        commit: the notes commit the line entered in (:func:`entered_in`; 40 hex).

    Returns:
        The fix: why no edit at the tip takes the line out, then :func:`rebase_advice`.
        Raises nothing.
    """
    return (f"the line entered in notes commit {commit[:12]}, which the push brings, so "
            "deleting it at the tip (an edit of the note) leaves it in the history the push "
            f"sends, refused again: {rebase_advice(remote)}")


def restore_advice(remote: str | None) -> str:
    """Return KI408's fix: rebuild on the remote's notes, which hold the removed lines.

    ``kistore notes fetch`` (the rule's older fix) merges nothing back when the pushed
    notes descend from the remote's: the removal is then this clone's own change, which a
    merge keeps, and ``notes push``'s own fetch had already run (reviewer fresh98 MED 2).

    Args:
        remote: as :func:`rebase_advice` takes it.

    Returns:
        The fix naming ``kistore notes rebase REMOTE``. Raises nothing.
    """
    typed, name = remote_words(remote)
    which = ", REMOTE being your repository's name for this one" if remote is None else ""
    return (f"notes only grow: `kistore notes rebase {typed}` rebuilds a repository's notes on "
            f"{name}'s, which hold the removed line(s), and adds back the repository's own lines "
            f"that verify{which}; then push again (a line to take back is answered by another "
            "attestation, a dispute)")


def history_paths(walked: Iterable[BroughtNotes], ref: str,
                  remote: str | None = None) -> list[Finding]:
    """KI424 per path a brought notes commit adds or changes that git and kistore read apart.

    Each brought commit but the pushed tip (whose tree the gate judges against the old
    tip), as :func:`brought_notes` diffed it against its first parent (a root commit: the
    empty tree). A path is returned once, at the first commit (in the walk's order) that
    adds it.

    Args:
        walked: :func:`brought_notes` of the commits the push brings.
        ref: the notes ref's name (each finding's file is ``REF:PATH``).
        remote: the remote pushed to, named in the fix (:func:`rebase_advice`).

    Returns:
        One KI424 error per path, in the order found, naming the commit (``extra.commit``)
        and why the path is none git and kistore read alike.

    Raises nothing: the walk read every tree (:func:`brought_notes`).
    """
    found: list[Finding] = []
    seen: set[str] = set()
    for commit in walked:
        for bad in commit.bad:
            if bad.path not in seen:
                seen.add(bad.path)
                found.append(Finding(
                    NOTES_PATH_NOT_CANONICAL,
                    f"notes commit {commit.commit[:12]}, in the history this push brings, "
                    f"adds a path the tips' checks never read: {bad.reason}; every clone "
                    f"fetching these notes would fetch it: {rebase_advice(remote)}",
                    file=f"{ref}:{bad.path}", extra={"commit": commit.commit},
                    fix=None if remote is None else paths_fix(remote)))
    return found


def history_blobs(walked: Iterable[BroughtNotes]) -> list[str]:
    """Return the note blobs the brought commits add or change: what :func:`history_lines` reads.

    For a blob-less clone's one prefetch (a ``pre-push`` hook there).

    Args:
        walked: :func:`brought_notes` of the commits the push brings.

    Returns:
        The blob ids (40 hex), in the walk's order, a blob once per commit adding it.
        Raises nothing.
    """
    return [blob for commit in walked for blob in commit.notes.values()]


class Removal(NamedTuple):
    """A note a brought notes commit changes or removes beside one of its parents.

    Attributes:
        commit: the brought notes commit (40 hex).
        parent: the parent it is compared with (40 hex).
        obj: the annotated object's id (40 hex), the note's name.
        was: the parent's note blob (40 hex).
        now: the commit's note blob (40 hex); None: the commit holds no note on ``obj``.
    """

    commit: str
    parent: str
    obj: str
    was: str
    now: str | None


def removals(repo: pygit2.Repository, brought: Iterable[pygit2.Commit]) -> list[Removal]:
    """Return each note a brought commit changes or removes beside each of its parents.

    One diff of trees per parent (:func:`kistore.git.notes.changed_notes`: only the
    subtrees whose ids differ are read, no blob), so the cost follows what the pushed
    commits change: a notes merge is compared with both sides it merges (a ``git notes
    merge -s ours`` drops the other side's changed lines). A note git moved to another
    fan-out path with the same blob is no change; a path naming no object id is left to
    KI424.

    Args:
        repo: the receiving (or pushing) repository.
        brought: the notes commits the push brings (:func:`._history.ancestry`, newest
            first).

    Returns:
        The removals, oldest commit first, each commit's parents in order, notes sorted.

    Raises:
        ObjectUnreadable: a notes tree on the way is damaged or missing.
    """
    found = []
    for commit in reversed(list(brought)):  # oldest first: the first removal is named
        for parent in commit.parents:
            for obj, (was, now) in changed_notes(repo, parent.tree, commit.tree).items():
                if was is not None and _HEX.fullmatch(obj):
                    found.append(Removal(str(commit.id), str(parent.id), obj, was, now))
    return found


class LostLines(NamedTuple):
    """The lines of a parent's note that a brought notes commit no longer holds (KI408).

    Attributes:
        removal: where (:class:`Removal`).
        lines: ``(number, line)`` per line lost: its number in the parent's note as the
            editor ``git notes edit`` shows it (1-based, blank lines counted), its bytes.
    """

    removal: Removal
    lines: list[tuple[int, bytes]]


def lost_lines(repo: pygit2.Repository, found: Iterable[Removal], ref: str) -> list[LostLines]:
    """Return, per :class:`Removal`, the lines of the parent's note the commit lacks.

    Reads the two note blobs of each removal (what :func:`removal_blobs` names, for a
    blob-less clone's one prefetch); a removal keeping every line (lines added, or sorted
    again) is left out.

    Args:
        repo: the receiving (or pushing) repository.
        found: :func:`removals` of the brought commits.
        ref: the notes ref's name (for errors).

    Returns:
        One record per removal that loses a line, in ``found``'s order.

    Raises:
        ObjectUnreadable: a note blob is damaged or missing.
    """
    lost = []
    for removal in found:
        kept = set() if removal.now is None else set(lines_of(read_note(
            repo, removal.now, f"{ref}:{removal.obj}")))
        gone = [(number, line) for number, line in numbered_lines(read_note(
            repo, removal.was, f"{ref}:{removal.obj}")) if line not in kept]
        if gone:
            lost.append(LostLines(removal, gone))
    return lost


def removal_blobs(found: Iterable[Removal]) -> list[str]:
    """Return the note blobs :func:`lost_lines` reads (a blob-less clone's one prefetch)."""
    return [blob for r in found for blob in (r.was, r.now) if blob is not None]


def said(line: bytes, keep: int = 60) -> str:
    """Return the start of ``line`` as printable text (its first ``keep`` bytes, escaped)."""
    # Lazy: only when a finding is written.
    from ..core.errors import one_line

    text = one_line(line[:keep].decode("utf-8", "replace"))
    return text + ("..." if len(line) > keep else "")
