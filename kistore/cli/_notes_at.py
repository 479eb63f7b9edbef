"""``--notes-at`` of the queries ``rank``, ``show`` and ``compare`` (fresh03 H2).

A tag fixes the manifests, names, trust and policy of ``--at v1``; attestations live in
``refs/notes/kistore``, no part of a commit, and were read at their tip whatever ``--at``,
so a withdrawal made later changed ``rank --at v1``. ``site build`` and ``export`` took
``--notes-at`` for this; the queries take the same option, with the same words
(:data:`kistore.cli._attestations_here.NOTES_AT_HELP`), the same errors and the same
warning, all of :mod:`kistore.attest.notes_at` (:func:`~kistore.attest.notes_at.notes_asked`).
Nothing of it is imported unless the option is given: a warm ``rank`` loads no notes code
(tests/cli/test_cli_startup.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from ._attestations_here import NOTES_AT_HELP

if TYPE_CHECKING:  # pragma: no cover - typing only
    from ..store import Store

NOTES_AT = click.option(
    "--notes-at", "notes_at", metavar="REV",
    help=f"Answer with {NOTES_AT_HELP}: `--at X --notes-at N` answers alike later, "
         "whatever is attested since.")
"""The option of ``rank``, ``show`` and ``compare`` (``site build`` and ``export`` word
their own verb before :data:`NOTES_AT_HELP`)."""


def notes_read(store: Store, notes_at: str | None, at: str | None) -> str | None:
    """Resolve a query's ``--notes-at``: print its warning, return what the readers take.

    Args:
        store: the store answered from.
        notes_at: the option's value; None: not given.
        at: the revision answered from (None: the work tree).

    Returns:
        The notes commit id the readers take (or ``NO_NOTES`` for ``none``); None when
        ``notes_at`` is None: the tip, as without the option.

    Raises:
        InputError: ``notes_at`` names no commit, or no notes commit (the words of
            ``site build --notes-at``: :func:`kistore.attest.notes_at.notes_commit`).
        ObjectUnreadable, StoreStateError: as :func:`kistore.attest.notes_at.notes_asked`.
    """
    if notes_at is None:
        return None
    # Lazy: only a query given --notes-at reads a notes commit (a warm rank loads no git code).
    from ..attest.notes_at import notes_asked

    read, warning = notes_asked(store, notes_at, at)
    if warning is not None:  # a notes commit lacking a line its history held (KI408)
        click.echo(f"warning: {warning}", err=True)
    return read
