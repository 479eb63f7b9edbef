"""Say, after a work-tree answer, that it judged by ``HEAD``'s trust file (fresh14 F15).

:func:`kistore.attest.evidence.trust_or_empty` judges the work tree by ``HEAD``'s
``store/trust/keys.json`` (and the work tree's revocations) when the work tree's file is
not ``HEAD``'s (:mod:`kistore.attest.trust_here`), and keeps that to be said. The command
line says it once a command, on stderr, after the command's answer (a command that fails
says its error alone): :func:`say_after` runs as the root group's result callback, so
every command judging attestations of the work tree (``rank``, ``show``, ``compare``,
``attestations``, ``attest``, ``trust list``, ...) says it, in one place. A command that
judged no attestation never imported :mod:`kistore.attest.trust_here`: nothing is loaded
then (tests/cli/test_cli_startup.py).
"""

from __future__ import annotations

import sys

import click

_MODULE = "kistore.attest.trust_here"
"""The module keeping what to say (looked up, never imported, here)."""

_REPORTING = frozenset({"verify", "check"})
"""Commands whose findings say it already (KI410 of the work tree): no line of their own."""


def forget() -> None:
    """Drop what an earlier command in this process kept and did not say (it failed)."""
    kept = sys.modules.get(_MODULE)
    if kept is not None:
        kept.pending()


def say_after(*_results: object, **_options: object) -> None:
    """Say each work-tree trust file judged otherwise than as written, once, on stderr.

    One ``warning:`` line (:func:`kistore.check._trust_here.said_here`) when the work
    tree's file is missing, no regular file, invalid, or removes or narrows what ``HEAD``
    holds; nothing for one that only adds keys or revocations, or widens an entry.

    Args:
        _results: the command's return value (click's result callback; unused).
        _options: the root group's options (unused).

    Raises nothing but what reading ``HEAD``'s history raises (ObjectUnreadable).
    """
    kept = sys.modules.get(_MODULE)
    if kept is None:
        return
    found = kept.pending()
    if not found or click.get_current_context().invoked_subcommand in _REPORTING:
        return  # verify and check report it as a finding (KI410 of the work tree)
    # Lazy: only after an answer that judged by HEAD's trust file.
    from ..check._trust_here import said_here

    said: list[str] = []
    for store, here in found:
        line = said_here(store, here)
        if line is not None and line not in said:
            said.append(line)
            click.echo(f"warning: {line}", err=True)
