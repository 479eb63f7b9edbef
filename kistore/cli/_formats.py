"""``--format`` and ``--json``: the output options of the commands that print tables."""

from __future__ import annotations

from typing import Any

import click


def format_options(command: Any) -> Any:
    """Add ``--format text|json|jsonl`` and ``--json`` (= ``--format json``) to a command.

    The command receives ``fmt`` and ``as_json``; :func:`output_format` reconciles them.
    """
    command = click.option("--format", "fmt", type=click.Choice(["text", "json", "jsonl"]),
                           default=None, help="Output: text (default), json (one document), "
                           "or jsonl (one JSON object a line, for pipelines).")(command)
    return click.option("--json", "as_json", is_flag=True,
                        help="Same as --format json.")(command)


def output_format(fmt: str | None, as_json: bool) -> str:
    """Return the output format chosen by ``--format`` and ``--json``.

    Raises:
        click.UsageError: ``--json`` with another ``--format`` (exit code 2).
    """
    if as_json and fmt not in (None, "json"):
        raise click.UsageError(f"--json means --format json; give --format {fmt} alone")
    return "json" if as_json else (fmt or "text")
