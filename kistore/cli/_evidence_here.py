"""The warning of evidence a work-tree answer read as ``HEAD`` committed it (fresh14 F15).

No commit may remove or change a committed attestation file (KI410: the gate refuses it),
so a work-tree answer judges one the work tree lacks, or holds as a FIFO, a symbolic link,
a directory or other bytes, as ``HEAD`` holds it
(:func:`kistore.attest.committed_here.files_as_committed`). This says so, in one line,
once the command's answer is given: which files (at most :data:`SHOWN`, then how many
more), how the work tree holds each, and the ``git checkout`` that restores them. A new
entry there (not committed) that is no regular file, a FIFO, a symbolic link, a
directory, is left out of the answer: a second line names it and what it is
(:attr:`kistore.store.Store.unread_files`; fresh16 F7: the queries passed it over unsaid).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from ..core import layout
from ..core.errors import printable

if TYPE_CHECKING:  # pragma: no cover - typing only
    from ..store import Store

SHOWN = 3
"""How many files the one warning names; the rest are counted."""

_HELD = {"missing": "missing from the work tree", "changed": "changed in the work tree"}
"""How the work tree holds a file, as the warning says it; any other is ``X in the work
tree`` (``a FIFO``, ``a symbolic link``, ``a directory``)."""


def held_said(held: str) -> str:
    """Return how the work tree holds a committed file, in the warning's words.

    Args:
        held: :attr:`kistore.attest.committed_here.TakenFromHead.held`.
    """
    return _HELD.get(held, f"{held} in the work tree")


def attestation_files_said(taken: dict[str, str]) -> str | None:
    """Return the warning's text (no ``warning:`` prefix) of files read as ``HEAD`` holds them.

    Args:
        taken: path -> how the work tree holds it (:attr:`kistore.store.Store.heads_files`).

    Returns:
        The text; None when ``taken`` is empty.
    """
    if not taken:
        return None
    paths = sorted(taken)
    why = ("no commit may remove or change a committed attestation file: KI410, the gate "
           "refuses it; `kistore verify` reports it")
    if len(paths) == 1:
        path = paths[0]
        return (f"{path}: committed in HEAD, {held_said(taken[path])}: these answers judge it "
                f"as HEAD holds it ({why}); restore it with `git checkout HEAD -- {path}`")
    named = "; ".join(f"{p}: {held_said(taken[p])}" for p in paths[:SHOWN])
    more = len(paths) - SHOWN
    restore = " ".join(paths) if more <= 0 else layout.ATTESTATIONS_DIR
    return (f"{len(paths)} attestation files committed in HEAD are not in the work tree as "
            f"committed ({named}{f'; and {more} more' if more > 0 else ''}): these answers "
            f"judge them as HEAD holds them ({why}); restore them with "
            f"`git checkout HEAD -- {restore}`")


def unread_files_said(unread: dict[str, str]) -> str | None:
    """Return the warning's text (no ``warning:`` prefix) of new entries left out unread.

    Args:
        unread: path -> what it is (:attr:`kistore.store.Store.unread_files`).

    Returns:
        The text: one entry's own words (:func:`kistore.attest.unread_files.unread_said`);
        several named (at most :data:`SHOWN`, then how many more) with what each is. None
        when ``unread`` is empty.
    """
    if not unread:
        return None
    # Lazy: only when there is something to say (start-up loads no attest code).
    from ..attest.unread_files import WRITE_IT, unread_said

    paths = sorted(unread)
    if len(paths) == 1:
        path = paths[0]
        what, remove = unread_said(path, unread[path])
        return f"{path}: {what}; these answers left it out: {remove}, and {WRITE_IT} to count it"
    named = "; ".join(f"{p}: {unread[p]}" for p in paths[:SHOWN])
    more = len(paths) - SHOWN
    return (f"{len(paths)} entries under {layout.ATTESTATIONS_DIR}/ are no regular files "
            f"({named}{f'; and {more} more' if more > 0 else ''}): these answers left them "
            "out (kistore never opens nor follows one; `kistore verify` reports each); "
            "remove them (a directory: move it out of store/), and write each bundle as a "
            "regular file (`kistore attest --file`) to count it")


def warn_evidence_here(store: Store | None) -> None:
    """Say on stderr, a line each, what a work-tree answer read from ``HEAD`` or left out.

    The committed attestation files it read as ``HEAD`` holds them; the new entries it left
    out, being no regular file.

    The root group calls this once the command has ended, whatever its exit
    (:func:`kistore.cli._links.warn_linked` beside it).

    Args:
        store: the store the command opened (:meth:`kistore.cli.StoreContext.opened`);
            None when it opened none: nothing to say.
    """
    if store is None:
        return
    for said in (attestation_files_said(store.heads_files),
                 unread_files_said(store.unread_files)):
        if said is not None:
            click.echo(printable(f"warning: {said}"), err=True)
