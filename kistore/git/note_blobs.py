"""Note blobs read within a bound: a note past :data:`NOTE_BYTES` is refused by its size.

A note (``refs/notes/kistore``) holds one line per attestation bundle on the object it
annotates; ``kistore attest`` writes a bundle of ~1 KB (~55 KB with the longest reason a
predicate takes), and each line is held to ``[limits] manifest-bytes`` (KI409). Yet the
blob holding the lines was read whole before any line was judged: a 300 MB note of one
line (a ~300 KB push, it compresses well) cost the notes gate 22 s and 1.8 GB of memory
before its KI409 (fresh03 H3). Each note blob is read here instead: its size taken from
its object header first (:func:`kistore.git.blobs.read_blob_within`, never inflated
past it), and one past :data:`NOTE_BYTES` is :class:`NoteTooLarge`, unread.

This module knows git's objects, not the store, the gate or the CLI.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..core.errors import StoreStateError
from ..core.limits import CEILING
from .blobs import ObjectUnreadable, header_size, read_blob_within

if TYPE_CHECKING:
    from .lazy import pygit2

NOTE_BYTES = CEILING.manifest_bytes
"""The most bytes one note blob may hold: 16 MiB, the ceiling ``[limits] manifest-bytes``
may be set to (:data:`kistore.core.limits.CEILING`). A note's lines are attestation
bundles of ~1 KB, so this is ~16,000 attestations on one object (~300 of the largest a
predicate's schema takes); more is no index's evidence but an attack on every reader
(the push gate, each clone's ``rank``/``verify``), and is refused unread. Not a
``[limits]`` key: a store cannot raise it (as it cannot raise a ceiling)."""


class NoteTooLarge(ObjectUnreadable):
    """A note blob past :data:`NOTE_BYTES`: its size is known from its header, it is unread.

    An :class:`ObjectUnreadable` (a reader that leaves an unreadable note out leaves this
    one out too: ``verify`` and the attestation walk say it and go on), with its own
    message: the note is whole, only too large to read.

    Args:
        oid: the note blob's id (40 hex).
        size: its size in bytes (its object header's).
        path: ``REF:OBJ``, the note it is read as (named as the error's file).
    """

    def __init__(self, oid: str, size: int, path: str | None = None) -> None:
        self.oid = oid
        self.size = size
        self.reason = f"{size:,} bytes, more than {NOTE_BYTES:,}"
        self.path = path
        ref, _, obj = (path or "").partition(":")
        remove = (f"`git notes --ref {ref.removeprefix('refs/notes/')} remove {obj}`"
                  if obj else "`git notes --ref kistore remove OBJ`")
        StoreStateError.__init__(self, f"{note_too_large(size)}: it is no attestation "
                                 f"`kistore attest` wrote; remove the note ({remove})",
                                 file=path)

    def __reduce__(self) -> tuple[type[NoteTooLarge], tuple[str, int, str | None]]:  # type: ignore[override]
        """Pickle by the fields (a worker process raises it to its parent)."""
        return type(self), (self.oid, self.size, self.path)

    def at(self, path: str) -> ObjectUnreadable:
        """Return this error naming ``path`` (the note it was read as), if it names none."""
        return self if self.path is not None else NoteTooLarge(self.oid, self.size, path)


def note_too_large(size: int) -> str:
    """Return what is said of a note blob past :data:`NOTE_BYTES` (the gate's KI409 too).

    Args:
        size: the note blob's size in bytes.

    Returns:
        ``the note holds 300,000,001 bytes, more than the limit of 16,777,216 bytes a note
        may hold (its lines are attestation bundles: one `kistore attest` writes is ~1
        KB); not read``.
    """
    return (f"the note holds {size:,} bytes, more than the limit of {NOTE_BYTES:,} bytes a "
            "note may hold (its lines are attestation bundles: one `kistore attest` writes "
            "is ~1 KB); not read")


def read_note(repo: pygit2.Repository, blob: str | pygit2.Oid, path: str | None = None
              ) -> bytes:
    """Return the bytes of the note blob ``blob``, never reading one past :data:`NOTE_BYTES`.

    :func:`kistore.git.blobs.read_blob` with the bound: a loose blob's size comes from
    its header, a packed one's from its pack; a blob past the bound is not inflated.

    Args:
        repo: the repository.
        blob: the note blob's id.
        path: ``REF:OBJ``, the note it is read as (named by errors).

    Raises:
        NoteTooLarge: the blob holds more than :data:`NOTE_BYTES` bytes (unread).
        ObjectUnreadable, StoreStateError: as :func:`kistore.git.blobs.read_blob`.
    """
    data = read_blob_within(repo, blob, NOTE_BYTES, path)
    if isinstance(data, int):
        raise NoteTooLarge(str(blob), data, path)
    return data


def note_size_past(repo: pygit2.Repository, blob: str | pygit2.Oid, path: str | None = None
                   ) -> int | None:
    """Return a note blob's size when it is past :data:`NOTE_BYTES`, from its header alone.

    What the notes gate asks of every note blob a push brings before reading any
    (:func:`kistore.git.blobs.header_size`: nothing inflated past the header).

    Returns:
        The size in bytes; None when within the bound, or when the blob is not here (a
        partial clone's, read later by :func:`read_note`, which holds it to the bound).

    Raises:
        ObjectUnreadable: as :func:`kistore.git.blobs.header_size`.
    """
    size = header_size(repo, blob, path)
    return size if size is not None and size > NOTE_BYTES else None
