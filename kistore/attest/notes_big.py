"""The way out of a note past the size limit that only the notes history holds (fresh07 M4).

KI117 says a note past :data:`kistore.git.note_blobs.NOTE_BYTES` and its fix, ``git notes
remove``; once run, the tip no longer holds it and readers skip it
(:func:`kistore.attest.notes.notes_entered`), but the history does: ``verify`` still says
KI117, and a push of that history is refused (KI409). The fix then is a notes history
without it: ``kistore notes rebase R`` (on the canonical remote's notes), or, with no
remote, the ref moved back to the notes commit before it and ``kistore notes restore``
(which reads the later tips from the reflog, skipping the note) putting back the rest.
"""

from __future__ import annotations

import shlex
from typing import TYPE_CHECKING

from ..core.layout import NOTES_REF
from ..git.remotes import remote_names

if TYPE_CHECKING:  # pragma: no cover - typing only
    from ..store import Store

__all__ = ["history_way_out"]


def history_way_out(store: Store, blob: str) -> tuple[str, str] | None:
    """Say where the history holds the note blob ``blob`` the tip no longer does, and the fix.

    Args:
        store: the clone.
        blob: the note blob past the limit (40 hex).

    Returns:
        ``(words added to KI117's message, KI117's fix)``; None when the notes tip holds
        the note (its fix stays ``git notes remove``) or no notes commit does.
    """
    # Lazy: said only of a note past the limit (the notes module is loaded by then).
    from .levels import canonical_remote

    # Lazy: as above.
    from .notes import brought_by

    found = brought_by(store.repo, blob)
    if found is None:
        return None
    commit, parent = found
    said = (f"; the tip of {NOTES_REF} no longer holds it (removed), but its notes history "
            f"does, from notes commit {commit}, and a push of that history is refused (KI409)")
    remote = canonical_remote(remote_names(store.repo))
    if remote is not None:
        return said, (f"`kistore notes rebase {shlex.quote(remote)}` rebuilds the notes on "
                      f"{remote}'s without that history, this repository's lines kept")
    if parent is None:
        return said, (f"the notes commit that brought it is the first: `git update-ref -d "
                      f"{NOTES_REF}` removes the notes, every line with them")
    return said, (f"`git update-ref {NOTES_REF} {parent}` moves the notes back to the commit "
                  "before it, then `kistore notes restore` puts back the lines entered since "
                  "(read from the reflog; the note past the limit is skipped)")
