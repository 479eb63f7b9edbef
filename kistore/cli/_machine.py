"""Machine-readable output: JSON documents, and every error in the form ``--json`` asks for.

A command run with ``--json`` (or ``--format json|jsonl|github``) prints one document for
every error that stops it, usage errors included (:func:`machine_report`, called by the
root group), or its own document with the error in it (:func:`machine_errors`); stderr
says the error as usual. Owns :func:`emit_json` and :func:`emit_jsonl`, which every
command's JSON output goes through.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, TypeVar

import click

from ..core.errors import KistoreError, printable, shorten

INTERNAL_ERROR = "internal error: this is a bug in kistore, not a problem with your input"
"""How an exception kistore did not expect is said (exit 1; ``--debug`` shows the traceback)."""


def emit_json(value: Any) -> None:
    """Print ``value`` as indented JSON on stdout (UTF-8, keys in stable order).

    Numbers are written as the stored manifests and the readable output write them
    (:func:`kistore.query.numbers.json_document`: ``1e-7``, ``0.00001``, not Python's
    ``1e-07``, ``1e-05``); keys in the order the command gives them. A string that is not
    Unicode text (a file name that is not UTF-8, held as surrogate escapes) makes the whole
    document ASCII with ``\\u`` escapes, which any JSON reader takes.
    """
    # Lazy: `kistore CMD --help` loads no store code (tests/cli/test_cli_startup.py).
    from ..query.numbers import json_document

    text = json_document(value)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # a file name that is not UTF-8: escaped, as JSON allows
        text = json_document(value, ensure_ascii=True)
    click.echo(text)


def emit_jsonl(items: Iterable[Any]) -> None:
    """Print each item as one line of compact JSON on stdout (JSON Lines, UTF-8).

    Numbers as :func:`emit_json` writes them (:func:`kistore.query.numbers.json_document`).
    """
    # Lazy: `kistore CMD --help` loads no store code (tests/cli/test_cli_startup.py).
    from ..query.numbers import json_document

    for item in items:
        click.echo(json_document(item, indent=None))


@contextlib.contextmanager
def machine_errors(fmt: str | None, document: dict[str, Any] | None = None) -> Iterator[None]:
    """With machine output, print the error that stopped a command before it could answer.

    A script reading ``--json`` (``jq .ok``) or a workflow reading ``--format github`` gets
    output it reads whatever happened (a clone not checked out, ``--at`` or a range naming
    no commit, a malformed range, not a store), not only a message on stderr. The error is
    still raised: said on stderr as usual, with its exit status (2 for a usage error).

    Args:
        fmt: the output format: ``json`` (one JSON document, indented), ``jsonl`` (that
            document as one line), ``github`` (one ``::error::`` workflow command a
            problem); any other value (``text``, None) prints nothing.
        document: what the command's JSON document holds besides the error (``verify``'s
            and ``check``'s ``checked``, ``counts`` of no finding, ``findings``); None for
            nothing else. ``ok`` (false) and ``errors`` are set: ``[{"message", "file",
            "pointer", "line", "column"}]``.

    Raises:
        KistoreError, click.UsageError: the error, after its report.
    """
    try:
        yield
    except (KistoreError, click.UsageError) as e:
        report_error(fmt, e, document)
        raise


COMMAND_ARGS = "kistore.command_args"
"""``ctx.meta`` key: the arguments after the group's options (the subcommand's name first)."""

WRITES = "kistore_writes"
"""The attribute :func:`writes` sets on every command: True when it may write the store, an
export or a site (an ``OSError`` that stops it is said with "nothing was left
half-written", :func:`os_error_said`); False when it writes none of them, which a preview
server's busy port made meaningless to say (review r85 F21). A derived index a command
updates on the way is rebuilt from the store, never half-trusted: it does not count.
tests/cli/test_machine_writes.py holds every command marked."""

_Command = TypeVar("_Command", bound=click.Command)


def writes(flag: bool) -> Callable[[_Command], _Command]:
    """Mark a click command as one that writes (True) or writes nothing (False).

    The outermost decorator of every command (``@writes(False)`` above
    ``@click.command()``): what :func:`writes_nothing` reads, so a new command is
    classified where it is written, not in a list kept apart.

    Args:
        flag: whether the command may write the store, an export or a site.

    Returns:
        The decorator; it returns the command itself, marked (:data:`WRITES`).
    """
    def mark(command: _Command) -> _Command:
        setattr(command, WRITES, flag)
        return command
    return mark


def writes_nothing(args: Sequence[str] | None) -> bool:
    """Whether the command ``args`` name is marked as writing nothing (:func:`writes`).

    Args:
        args: the command's arguments as typed, its name first (``ctx.meta``'s
            :data:`COMMAND_ARGS`: ``["site", "serve", "out"]``); None when unknown.

    Returns:
        True only for a command found and marked ``writes(False)``: an unknown one is
        taken to write (its error then says "nothing was left half-written").
    """
    # Lazy: the root group imports this module; its commands import on first use.
    from . import main

    command: click.Command | None = main
    context = click.Context(main)
    for word in [a for a in args or () if not a.startswith("-")]:
        if not isinstance(command, click.Group):
            break
        command = command.get_command(context, word)
    return getattr(command, WRITES, True) is False


_REPORTED = "_kistore_reported"
"""Attribute set on an exception once :func:`report_error` has printed it."""


def os_error_said(error: OSError, args: Sequence[str] | None) -> str:
    """Return what an ``OSError`` that stopped a command says (without the file's name).

    Its reason, then "; nothing was left half-written" unless the command writes nothing
    (:func:`writes_nothing`): the one rule, for stderr and the machine forms alike.

    Args:
        error: the error.
        args: the command's arguments as typed, its name first (``ctx.meta``'s
            :data:`COMMAND_ARGS`); None when unknown (then it is said).
    """
    quiet = writes_nothing(args)
    return f"{error.strerror or error}" + ("" if quiet else "; nothing was left half-written")


def report_error(fmt: str | None, error: BaseException,
                 document: dict[str, Any] | None = None,
                 args: Sequence[str] | None = None) -> None:
    """Print ``error`` on stdout in the machine form ``fmt`` asks for, once an exception.

    Args:
        fmt: ``json`` (one JSON document, indented), ``jsonl`` (that document as one line),
            ``github`` (one ``::error::`` workflow command a problem); any other value
            (``text``, None) prints nothing.
        error: what stopped the command: a :class:`KistoreError` (one entry a problem), a
            click error (its message), an ``OSError`` (the file and the reason, as stderr
            says it), anything else (kistore's internal error, as stderr says it).
        document: what the JSON document holds besides ``ok`` (false) and ``errors``:
            ``[{"message", "file", "pointer", "line", "column"}]`` (``line`` and ``column``
            1-based, None when unknown: JSON Lines and minified input is all on line 1).
        args: the command's arguments as typed (:func:`os_error_said`).
    """
    if fmt not in ("json", "jsonl", "github") or getattr(error, _REPORTED, False):
        return
    # (message, file, pointer, line, column) of each problem
    said: list[tuple[str, str | None, str | None, int | None, int | None]]
    if isinstance(error, KistoreError):
        said = [(p.message, p.file, p.pointer, p.line, p.column if p.line else None)
                for p in error.problems]
    elif isinstance(error, click.ClickException):
        said = [(error.format_message(), None, None, None, None)]
    elif isinstance(error, OSError):
        said = [(os_error_said(error, args),
                 None if error.filename is None else str(error.filename), None, None, None)]
    else:
        said = [(internal_error(error), None, None, None, None)]
    if fmt in ("json", "jsonl"):
        report = {**(document or {}), "ok": False, "errors": [
            {"message": m, "file": f, "pointer": p, "line": n, "column": c}
            for m, f, p, n, c in said]}
        (emit_json if fmt == "json" else emit_jsonl)(report if fmt == "json" else [report])
    else:
        for message, file, _, line, column in said:
            click.echo(github_error(message, file, line, column))
    with contextlib.suppress(AttributeError):  # an exception type without a __dict__
        setattr(error, _REPORTED, True)


def machine_report(group: click.Group, ctx: click.Context, error: BaseException) -> None:
    """Print the error that stopped a subcommand in the machine form its arguments asked for.

    Every command that takes ``--json`` (or ``--format``) gets it, without code of its own,
    for every error: ``add --json`` of a file that does not exist printed nothing on
    stdout, and a usage error (``ls --kind Bogus --json``, exit 2) only click's usage text.
    The format is read from the arguments as typed (:func:`requested_format`), since a
    usage error stops before any option has a value. An error a command reported itself
    (:func:`machine_errors`, with a document of its own) is not printed again.

    Args:
        group: the root group.
        ctx: the root group's context (its ``meta`` holds the subcommand's arguments).
        error: what stopped the subcommand.
    """
    if getattr(error, _REPORTED, False):
        return
    args = ctx.meta.get(COMMAND_ARGS)
    if args:
        report_error(requested_format(group, ctx, args), error, args=args)


def requested_format(command: click.Command, ctx: click.Context, args: Sequence[str]
                     ) -> str | None:
    """Return the output format ``args`` ask of ``command`` (or of its subcommand), if any.

    The arguments are parsed as the command's parser reads them, unknown options kept and
    nothing converted or checked (so ``--title --json`` is a title, and ``--kind Bogus
    --json`` still asks for JSON); a group's first argument names the subcommand that
    parses the rest.

    Args:
        command: the command (or group) the arguments are for.
        ctx: the context of the group that runs it.
        args: its arguments, as typed.

    Returns:
        ``json`` for ``--json``, else ``--format``'s value (``text``, ``jsonl``,
        ``github``, ...), or None when neither is given or the arguments do not parse.
    """
    if isinstance(command, click.Group):
        sub = command.get_command(ctx, args[0]) if args else None
        if sub is None:
            return None
        sub_ctx = click.Context(sub, parent=ctx, info_name=args[0], resilient_parsing=True)
        parser = sub.make_parser(sub_ctx)
        parser.ignore_unknown_options = True
        try:
            opts, rest, _ = parser.parse_args(list(args[1:]))
        except click.UsageError:  # an option with no value: nothing more to read
            return None
        if isinstance(sub, click.Group):
            return requested_format(sub, sub_ctx, rest)
        fmt = "json" if opts.get("as_json") else opts.get("fmt")
        return fmt if isinstance(fmt, str) else None
    return None


def internal_error(error: BaseException) -> str:
    """Return how an exception kistore did not expect is said (:data:`INTERNAL_ERROR`)."""
    return (f"{INTERNAL_ERROR} ({type(error).__name__}: {shorten(str(error), 200)}); please "
            "report it with the command and what `kistore --debug ...` prints")


def github_error(message: str, file: str | None = None, line: int | None = None,
                 column: int | None = None) -> str:
    """Return a GitHub Actions ``::error`` workflow command for an error that is no finding.

    Args:
        message: what went wrong.
        file: the file it concerns, when one does (a repository path).
        line: its line, when known.
        column: its column on that line (1-based, in characters), when known.

    Returns:
        ``::error file=F,line=L,col=C,title=kistore::message`` (``file``, ``line`` and
        ``col`` left out when None), escaped as :func:`github_escape` says.
    """
    props = [f"file={github_escape(file, True)}"] if file else []
    if file and line is not None:
        props.append(f"line={line}")
        if column is not None:
            props.append(f"col={column}")
    props.append("title=kistore")
    return printable(f"::error {','.join(props)}::{github_escape(message, False)}")


def github_escape(text: str, is_property: bool) -> str:
    """Escape text for a GitHub Actions workflow command, as the runner requires.

    Args:
        text: a message, or a property's value (a file name).
        is_property: escape ``:`` and ``,`` too (they separate properties).

    Returns:
        ``text`` with ``%``, CR and LF written ``%25``, ``%0D``, ``%0A``.
    """
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    if is_property:
        text = text.replace(":", "%3A").replace(",", "%2C")
    return text
