"""What to say of an entry under ``store/attestations/`` that is no regular file.

A work tree can hold a FIFO, a symbolic link or a directory where an attestation file
belongs: its view reads such an entry as no file (never opened, never followed), so it
is neither attached (``kistore notes sync``) nor counted (``kistore attestations``,
``rank``, ``show``). Both say so in these words (fresh12 F13; fresh16 F7: the queries
passed it over without a word), ``kistore verify`` reports it (KI110, KI111).
"""

from __future__ import annotations

import shlex
from typing import TYPE_CHECKING

from ..core.file_kinds import DIRECTORY, FIFO, SPECIAL, SYMLINK, kind_at

if TYPE_CHECKING:  # pragma: no cover - typing only
    from ..store import Store

WRITE_IT = "write the bundle as a regular file (`kistore attest --file`)"
"""The way to make the entry's bundle count, the last words of each sentence of it."""


def unread_said(path: str, kind: str) -> tuple[str, str]:
    """Return what the work tree's entry ``path`` of ``kind`` is, and how to be rid of it.

    Args:
        path: its repository path (``store/attestations/sha256/XX/REST/NAME.json``).
        kind: :func:`kistore.core.file_kinds.kind_at`'s words for it (``a FIFO``, ...).

    Returns:
        ``(what, remove)``: e.g. ``a FIFO, not a regular file: kistore never opens it (...
        `kistore verify` reports it, KI111)`` and ``remove it (`rm PATH`)``; a directory's
        ``remove`` is ``move it out of store/``. Raises nothing.
    """
    remove = f"remove it (`rm {shlex.quote(path)}`)"
    if kind == SYMLINK:
        return (f"{kind}, not a regular file: kistore never follows one under store/ "
                "(`kistore verify` reports it, KI111)", remove)
    if kind == DIRECTORY:
        return (f"{kind}, not a regular file: an attestation file holds one bundle "
                "(`kistore verify` reports it, KI110)", "move it out of store/")
    waits = "a FIFO waits for a writer for ever; " if kind == FIFO else ""
    never = "kistore never opens it" if kind in SPECIAL else "kistore never reads it"
    return (f"{kind}, not a regular file: {never} ({waits}`kistore verify` reports it, "
            "KI111)", remove)


def record_unread(store: Store, paths: list[str]) -> None:
    """Record in :attr:`kistore.store.Store.unread_files` each of ``paths`` no file is at.

    Of the attestation entries a work-tree answer listed and read as no file, those not
    already read as ``HEAD`` committed them (:attr:`kistore.store.Store.heads_files`): new
    entries, not counted, for the command line to say once the answer is given
    (:mod:`kistore.cli._evidence_here`).

    Args:
        store: a store with a work tree.
        paths: repository paths listed that read as no file.
    """
    root = store.root
    for path in paths:
        if root is None or path in store.heads_files:
            continue
        kind = kind_at(root / path)  # lstat: never opened, never followed
        if kind:  # None: gone meanwhile; "": a regular file now
            store.unread_files[path] = kind
