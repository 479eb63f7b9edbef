"""``kistore notes sync``: attach the attestation files of a pull request as git notes.

Kept apart from :mod:`kistore.attest.notes` (the two transports) because it judges each
file with trust before attaching it (:mod:`kistore.attest.evidence`), and evidence reads
the transports: notes -> evidence -> sync, one way.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from ..core import layout
from ..core.errors import InputError, KistoreError
from ..core.file_kinds import kind_at
from ..git.blobs import write_blob
from ..git.ids import blob_id
from .evidence import INVALID, NOT_COUNTED, UNFIT, judge, trust_or_empty
from .notes import (
    Seen,
    add_lines,
    file_attestations,
    file_defect,
    note_lines,
    parse_attestation_path,
)
from .unread_files import WRITE_IT, unread_said

if TYPE_CHECKING:  # pragma: no cover - typing only
    from ..git.idents import Identities
    from ..store import Store

__all__ = ["SyncResult", "sync"]


@dataclass(frozen=True, slots=True)
class SyncResult:
    """What :func:`sync` did.

    Attributes:
        added: bundles newly attached as notes.
        present: bundles that were already in notes.
        problems: files that could not be attached, each an :class:`InputError`.
    """

    added: int
    present: int
    problems: list[KistoreError]


def sync(store: Store) -> SyncResult:
    """Attach every ``store/attestations/`` file of the work tree as a note on its subject.

    A file is attached only when its path fits the layout, its bytes are a canonical
    one-line JSON text whose sha256 equals its name, its subject object is in the store,
    and it passes every check ``verify`` makes of a bundle: a signature that verifies over
    the exact payload, a subject that is the object it is about, a known predicate type
    and a predicate its schema accepts (KI301), one that fits its subject (KI310), and a
    key that counts now: one the trust file has revoked, or whose validity ended, makes a
    note the pull-request gate refuses (KI411). A server refuses a notes push holding any
    such line (KI409, KI411), and every later push with it: a bad bundle is left out, with
    the reason, never written.

    The trust file is judged as every query of the work tree judges it
    (:func:`kistore.attest.evidence.trust_or_empty`, since 2026-12-07, trust05): ``HEAD``'s
    when the work tree's is missing, invalid, or removes or narrows an entry ``HEAD`` holds
    (no commit may, KI410), with the work tree's revocations, its new or widened entries
    counting from their commit; the command line says so once, after the summary, when no
    file was left out (a command that fails says no warning). It read the work tree's file
    as written: an emptied file attached the note of a key ``HEAD`` says expired (which
    the server refuses), and a narrowed one left out a note ``HEAD``'s trust accepts.

    A file whose bytes are already a line of the note on its subject is ``present``, not
    judged again: it was attached before (the note line and the file are one bundle), and
    a key revoked or expired since changes what it counts for, never that it is attached.
    Judged as a note made now, it was refused every run after the revocation, and the
    command exited 1 for good (reviewer fresh03 H5). So a second sync finds nothing to do
    whatever the trust file says since.

    Returns:
        The :class:`SyncResult`: bundles attached now, bundles found already attached,
        and the files left out, each with why.

    Raises:
        StoreStateError: as :func:`add_lines`.
        InputError: git names no author or committer for the notes commit (before anything is
            written: :func:`kistore.git.idents.identities`).
    """
    view = store.view(None)
    # as the queries judge (trust05): HEAD's file where the work tree's removes or narrows
    # it, with every revocation its history made (the server holds them, KI411); an
    # invalid file HEAD cannot stand in for trusts no key (verify reports it, KI309)
    trust = trust_or_empty(store, None)[0]
    added = present = 0
    problems: list[KistoreError] = []
    known: Identities | None = None  # the notes commits' author and committer
    unread: list[str] = []  # listed, no regular file: said after (fresh12 F13)
    for path, data in file_attestations(view, unread=unread):
        parsed = parse_attestation_path(path)
        if parsed is None:
            problems.append(InputError("not an attestation path (expected store/attestations/"
                                       "sha256/XX/REST/<sha256>.json)", file=path))
            continue
        subject, name = parsed
        if file_defect(data, name):
            problems.append(InputError("the file is not the canonical bundle its name says "
                                       "(sha256 of the bytes must equal the name)", file=path))
            continue
        object_bytes = view.read(layout.object_path(subject))
        if object_bytes is None:
            problems.append(InputError(f"subject {subject} is not in the store", file=path))
            continue
        blob = blob_id(object_bytes).hex()
        if data in note_lines(store.repo, blob):  # attached before: trust never unmakes that
            present += 1
            continue
        # a note made now enters now: the server judges it so (KI409, KI411)
        judged = judge(Seen(data, subject, "note", path, datetime.now(UTC)), trust, view)
        if judged.effect in (INVALID, NOT_COUNTED, UNFIT):
            what = {INVALID: "the bundle does not verify", NOT_COUNTED: "a note made now "
                    "would not count", UNFIT: "it does not fit its subject"}[judged.effect]
            problems.append(InputError(
                f"not attached: {what} ({judged.reason}); a server's pre-receive hook "
                "refuses such a note (KI409, KI411), which would block every later "
                "`kistore notes push`; the file attestation stays as it is", file=path))
            continue
        if known is None:  # asked once, before the first write: git may refuse to name one
            # Lazy: only when a note is written.
            from ..git.idents import identities

            known = identities(store.repo)
        written = write_blob(store.repo, object_bytes)  # a note needs its object in git
        count = add_lines(store.repo, str(written), [data], layout.object_path(subject),
                          known)
        added += count
        present += 1 - count
    problems += [said for said in (_not_regular(store, path) for path in unread)
                 if said is not None]
    return SyncResult(added, present, problems)


def _not_regular(store: Store, path: str) -> InputError | None:
    """Say why ``path``, listed under ``store/attestations/`` but read as no file, is not attached.

    The work tree's entry is ``lstat``-ed, never opened (a FIFO's open waits for a writer).
    Until 2026-12-07 ``notes sync`` passed such an entry over unsaid (fresh12 F13: "0
    attestation(s) attached", exit 0, for a FIFO named as a bundle).

    Args:
        store: the store (its work tree; none: a commit's entry, which git holds as a
            symlink or submodule).
        path: the repository path listed.

    Returns:
        The problem (its file ``path``: what it is, that it was not attached, what to do:
        :func:`kistore.attest.unread_files.unread_said`); None when the entry is gone
        (removed meanwhile) or is a regular file now.
    """
    if store.root is None:
        what = "not a regular file (a symlink or submodule: `kistore verify` reports it, KI111)"
        remove = f"remove it (`rm {shlex.quote(path)}`)"
    else:
        kind = kind_at(store.root / path)
        if not kind:
            return None
        what, remove = unread_said(path, kind)
    return InputError(f"not attached: {what}; {remove}, and {WRITE_IT} to attach it", file=path)
