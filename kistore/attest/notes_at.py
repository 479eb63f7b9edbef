"""``--notes-at``: which notes commit a command reads (``site build``, ``export``, queries).

Notes are no part of a commit: a site page or an export made at commit X reads the
attestations of ``refs/notes/kistore`` as it is then, and one attestation made since changes
what the same ``--at X`` writes. Each states the notes commit it read (a page's footer,
``build.json``, ``_manifest.json``'s ``notes``); ``--notes-at N`` reads that notes commit
again, so ``--at X --notes-at N`` rebuilds it byte for byte (page99, fresh98 MED 1; low00
for ``export``). One rule for both commands: :func:`notes_commit`. The queries ``rank``,
``show`` and ``compare`` take it too (:func:`notes_asked`; fresh03 H2: a tag fixes the
manifests, names, trust and policy, but ``rank --at v1`` read the notes at their tip, so a
withdrawal made later changed the answer "as of v1", and nothing could read it again):
``--at T --notes-at N`` answers the same bytes whatever is attested later.

A notes commit that lacks a line its history held (pushed before the gate judged every
notes commit a push brings, KI408; reviewer fresh01 F8) is read as asked, with a warning
(:func:`lost_warning`): it is on the server's history, and a page or an export that names
it must still be rebuilt byte for byte; refusing it would break that permalink, and
reading it silently would show a withdrawn run un-withdrawn with no word.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from ..core import layout
from ..core.digest import Digest
from ..core.errors import InputError, KistoreError, one_line
from ..core.layout import NOTES_REF
from ..core.model import lenient_object, metadata_name
from ..git.blobs import ref_commit
from ..git.lazy import pygit2
from ..git.notes import NO_NOTES
from .notes import notes_lost

if TYPE_CHECKING:  # pragma: no cover - typing only
    from ..store import Store, View

NOTES_NONE = "none"
"""``--notes-at none``: read no attestation note."""

_NOTE_NAME = re.compile(r"[0-9a-f]{2,40}")


def notes_commit(store: Store, rev: str | None) -> Any:
    """Return the notes commit a publishing command reads: ``rev``, else the tip now.

    Args:
        store: the store.
        rev: None: the tip of :data:`NOTES_REF` now (None when there is none);
            :data:`NOTES_NONE`: no notes (None); else a revision naming a notes commit
            (an id, ``refs/notes/remotes/origin/kistore``, a page's ``--notes-at``, an
            export's ``_manifest.json`` ``notes``).

    Returns:
        The pygit2 Commit, or None: no notes are read.

    Raises:
        InputError: ``rev`` names no commit (said as ``--notes-at REV``, with where the
            notes commits are listed: until 2026-12-06 it was the ``--at`` words, "give a
            branch, a tag or a commit id", which a notes commit is not), or a commit whose
            tree is no notes tree (a notes tree holds only object ids and their
            two-hex-digit fan-out folders: a branch of the store given by mistake would
            read as no notes at all).
        ObjectUnreadable: the notes tip, or the commit named, is damaged or missing (named
            with the ref).
    """
    if rev is None:
        return ref_commit(store.repo, NOTES_REF)  # guarded: a tip cut short is said
    if rev == NOTES_NONE:
        return None
    try:
        commit = store.commit(rev)
    except InputError:
        raise InputError(
            f"--notes-at {one_line(rev)}: no commit named '{one_line(rev)}' in this "
            f"repository: {_GIVE}") from None
    odd = next((str(e.name) for e in commit.tree if not _NOTE_NAME.fullmatch(str(e.name))),
               None)
    if odd is not None:
        raise InputError(
            f"--notes-at {rev}: commit {str(commit.id)[:12]} is not a notes commit (its tree "
            f"holds {odd!r}; a notes tree holds only object ids, in hex): {_GIVE}")
    return commit


_GIVE = (f"give a commit of {NOTES_REF} (`git log --oneline {NOTES_REF}` lists them), or "
         f"`{NOTES_NONE}`")
"""What to give ``--notes-at`` instead, the end of both of :func:`notes_commit`'s errors."""


def notes_asked(store: Store, rev: str | None, at: str | None) -> tuple[str | None, str | None]:
    """Return what a query reads for ``--notes-at REV``, and the warning to print first.

    The queries' side of the rule ``site build`` and ``export`` follow (their pipelines call
    :func:`notes_commit` and :func:`lost_warning` themselves): the same commit read, the
    same errors, the same warning.

    Args:
        store: the store.
        rev: the ``--notes-at`` given; None: not given (the tip, read as before).
        at: the store revision answered from (``--at``; None: the work tree), whose
            metadata names the runs of :func:`lost_warning`.

    Returns:
        ``(notes_at, warning)``: ``notes_at`` as the readers take it (a notes commit id, or
        :data:`kistore.git.notes.NO_NOTES` for ``none``), None when ``rev`` is None;
        ``warning`` :func:`lost_warning`'s, or None.

    Raises:
        InputError, ObjectUnreadable: as :func:`notes_commit`.
        StoreStateError: as :func:`lost_warning`.
    """
    if rev is None:
        return None, None
    commit = notes_commit(store, rev)
    return notes_read_at(commit), lost_warning(store, rev, commit, at)


def notes_read_at(commit: Any) -> str:
    """Return what the notes readers take for a notes commit: its id, or ``NO_NOTES``.

    Args:
        commit: :func:`notes_commit`'s answer (a pygit2 Commit or None).

    Returns:
        The commit's hex id, or :data:`kistore.git.notes.NO_NOTES` when None (read none).
    """
    return NO_NOTES if commit is None else str(commit.id)


def lost_warning(store: Store, rev: str | None, commit: Any, at: str | None = "HEAD"
                 ) -> str | None:
    """Return the warning for ``--notes-at`` of a notes commit lacking lines its history held.

    Notes only grow (KI408): every notes commit holds each line of its history. One that
    does not (a line removed in it, added back in a later one: pushed before the gate
    judged every notes commit a push brings, reviewer fresh01 F8) reads a state the rules
    refuse: a withdrawal or a rerun gone. It is read as asked (a permalink names it), and
    this says so. The tip read by default is not judged here: the same walk judges it in
    :mod:`kistore.attest.tip_lacking` (KI315, with ``kistore notes restore``).

    Args:
        store: the store.
        rev: the ``--notes-at`` given (None: none, the tip: no warning).
        commit: :func:`notes_commit` of it (None: no notes read: no warning).
        at: the store commit read (``--at``, full id or a revision; None: the work tree, a
            query's): the runs are named by its metadata.

    Returns:
        The warning (the commit, how many lines of how many notes, the first three named
        by the run they are on, ``KIND/NAME (N line(s))`` (:func:`on_run`; until
        2026-12-06 by the note's git object id, ``refs/notes/kistore:OBJ``, which no user
        recognises: notes01's leftover), what to do), or None. Nothing more is read than
        :func:`kistore.attest.notes.notes_entered`'s walk of the history, which the
        reading of the notes makes (:func:`kistore.attest.notes.notes_lost`), and, when
        lines are lacking, the first three annotated objects and their metadata files.

    Raises:
        StoreStateError, ObjectUnreadable: as :func:`kistore.attest.notes.notes_entered`.
    """
    if rev is None or commit is None:
        return None
    lost = notes_lost(store.repo, notes_at=str(commit.id))
    if not lost:
        return None
    count = sum(map(len, lost.values()))
    view = store.view(at)
    named = ", ".join(f"{on_run(store, view, obj)} ({len(lines)} line(s))"
                      for obj, lines in list(lost.items())[:3])
    more = f", and {len(lost) - 3} more note(s)" if len(lost) > 3 else ""
    return (f"--notes-at {rev}: notes commit {str(commit.id)[:12]} lacks {count} attestation "
            f"line(s) an earlier notes commit of its history held: {named}{more}. Notes only "
            "grow (KI408; a push that removed a line in one notes commit and added it back "
            "in the next passed the gate before 2026-12-06): what is read at it (a withdrawal "
            "or a rerun gone) is a state the rules refuse. Read as asked, for a page or "
            f"export that names it; for the attestations as they count, leave out --notes-at "
            f"(the tip of {NOTES_REF}) or give a later notes commit that holds the lines")


def on_run(store: Store, view: View, obj: str) -> str:
    """Name the stored object a note is on as a user knows it: ``KIND/NAME``.

    Args:
        store: the store (the annotated object's bytes are read from its repository).
        view: the store commit read, whose metadata file gives the name.
        obj: the annotated git object id (40 hex): an object file's blob.

    Returns:
        ``KIND/NAME`` (the object's ``kind``, its metadata's ``name``); ``KIND sha256:...``
        when the commit holds no readable metadata name for it; ``refs/notes/kistore:OBJ``
        when the object is no stored manifest here (not in this clone, not a blob, no
        ``kind``). Never raises: a damaged file is another check's (KI117).
    """
    try:
        found = store.repo.get(obj)
    except ValueError:  # not an object id
        found = None
    data = found.data if isinstance(found, pygit2.Blob) else None
    kind = lenient_object(data).get("kind")
    if data is None or not isinstance(kind, str):
        return f"{NOTES_REF}:{obj}"
    digest = Digest.of(data)
    try:
        name = metadata_name(view.read(layout.metadata_path(digest)))
    except KistoreError:  # unreadable: KI117's
        name = None
    return f"{kind}/{name}" if name else f"{kind} {digest}"
