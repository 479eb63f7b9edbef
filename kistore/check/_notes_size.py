"""The notes gate's first look at a push: a note blob past the bound, refused unread (KI409).

Before any note line is judged, every note blob a push of ``refs/notes/kistore`` brings
(the pushed tip's changed notes, and each note a brought notes commit adds or changes) is
held to :data:`kistore.git.note_blobs.NOTE_BYTES` by its object header alone. A 300 MB
note of one line (a ~300 KB push) cost the gate 22 s and 1.8 GB of memory read whole
before its KI409 said the line was past ``manifest-bytes`` (fresh03 H3); now its size is
said, from the header, in about the time of a push with no such note, and the gate reads
no further (the pusher drops the note, then the rest is judged).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from ..core.findings import Finding, Rule
from ..git.note_blobs import NOTE_BYTES, note_size_past, note_too_large
from ._notes_history import BroughtNotes, rebase_advice

if TYPE_CHECKING:
    from ..git.lazy import pygit2


def oversized_notes(repo: pygit2.Repository, rule: Rule, ref: str,
                    before: Mapping[str, str], after: Mapping[str, str],
                    walked: Sequence[BroughtNotes], remote: str | None) -> list[Finding]:
    """Return a finding per note blob the push brings that holds more than the bound.

    Args:
        repo: the receiving (or pushing) repository.
        rule: the finding's rule (KI409, notes-line-invalid: the gate's).
        ref: the notes ref (``refs/notes/kistore``), for the files named.
        before: the old tip's notes the push changes (annotated object -> blob).
        after: the pushed tip's notes the push changes or adds.
        walked: :func:`._notes_history.brought_notes` of the notes commits the push brings
            (newest first), each with the notes it adds or changes.
        remote: the remote pushed to, named in the fix (:func:`._notes_history.rebase_advice`).

    Returns:
        One error per note: at the pushed tip, ``the note holds N bytes, more than the
        limit of 16,777,216 bytes a note may hold ...`` (``extra``: ``size``, ``limit``,
        ``entered``: the oldest brought notes commit holding that blob); one only a notes
        commit between the tips holds, ``notes commit C, in the history this push brings,
        holds a note on OBJ that ...`` (``extra``: ``commit``, ``size``, ``limit``).
        Empty when every note is within the bound (none was read past its header).

    Raises:
        ObjectUnreadable: a note blob's header cannot be read (a damaged loose file).
    """
    at_tip = [(obj, blob, None) for obj, blob in sorted(after.items())]
    between = [(obj, blob, c) for c in walked for obj, blob in sorted(c.notes.items())]
    findings = []
    named: set[str] = set()  # a blob said once: at the tip, else at its first commit
    for obj, blob, commit in (*at_tip, *between):
        file = f"{ref}:{obj}"
        if blob in named or before.get(obj) == blob:
            continue
        size = note_size_past(repo, blob, file)
        if size is None:
            continue
        named.add(blob)
        if commit is None:
            entered = next((c.commit for c in reversed(walked) if c.notes.get(obj) == blob),
                           walked[0].commit if walked else "")
            findings.append(Finding(
                rule, note_too_large(size), file=file,
                extra={"size": size, "limit": NOTE_BYTES, "entered": entered},
                fix=f"the note entered in notes commit {entered[:12]}, which the push brings, "
                    "so removing it at the tip leaves it in the history the push sends, "
                    f"refused again: {rebase_advice(remote)}"))
        else:
            findings.append(Finding(
                rule, f"notes commit {commit.commit[:12]}, in the history this push brings, "
                f"holds a note on {obj} that the pushed tip no longer holds: "
                f"{note_too_large(size)}; every clone fetching these notes would fetch it",
                file=file, extra={"commit": commit.commit, "size": size, "limit": NOTE_BYTES},
                fix=rebase_advice(remote)))
    return findings
