"""The ``kistore`` command line: one click group, thin subcommands (docs/design.md §8).

Every subcommand parses options, calls the library, prints, and sets the exit code:
0 success, 1 invalid input or failed verification, 2 usage error, 130 interrupted (Ctrl-C,
SIGTERM), 141 its output's reader went away first (:data:`BROKEN_PIPE`). Errors go to stderr,
one problem a line (``FILE[:LINE:COL]:/json/pointer: message``); a traceback only with
``--debug``. Heavy libraries (pygit2, jsonschema, cryptography) are imported inside the
commands that need them, and each subcommand's module is imported only when that
subcommand runs (:data:`SUBCOMMANDS`), so ``kistore --help`` imports no command module.

This module is the root group and its wiring; what the commands share lives beside it:
:mod:`._context` (:class:`StoreContext`, the ``ctx.obj`` of every command, and the
decorators of commands that read), :mod:`._machine` (JSON documents, errors in the form
``--json`` or ``--format`` asks for), :mod:`._formats` (``--format``/``--json``),
:mod:`._answers` (what an answer left out, and why a reference may be missed),
:mod:`._adding` (what an add says when interrupted or refused) and :mod:`._links` (the
warning of symlinked store directories left out).
"""

from __future__ import annotations

import atexit
import codecs
import contextlib
import importlib
import os
import signal
import sys
from typing import TYPE_CHECKING, Any

import click

from .. import _entry
from ..core import signals
from ..core.errors import KistoreError
from ..git import watchdog

if TYPE_CHECKING:  # pragma: no cover - typing only
    from collections.abc import Callable
from . import _streams, _trust_here
from ._adding import INTERRUPTED, _hold_signals_to_the_end
from ._context import StoreContext as StoreContext  # re-exported: ctx.obj of every command
from ._evidence_here import warn_evidence_here
from ._links import warn_linked
from ._machine import (
    COMMAND_ARGS,
    internal_error,
    machine_report,
    os_error_said,
    writes_nothing,
)
from ._machine import INTERNAL_ERROR as INTERNAL_ERROR  # re-exported: what a bug says

BROKEN_PIPE = 128 + signal.SIGPIPE
"""Exit status of every command whose stdout (or stderr) reader went away before it finished.

141, what a shell reports for git and coreutils, which die of SIGPIPE: ``kistore verify |
head -1`` on a damaged store exited 0 (until 2026-12-03 a broken pipe was success for every
command), and a command whose status is its answer cannot give it unfinished. The same for
all commands, with nothing said: ``rank | head -1`` is 141 too when ``head`` leaves first
(the pipeline's status is ``head``'s unless ``set -o pipefail``); what a command had written
(an add that landed) stays written. A reader that took all the output before leaving
changes nothing.
"""

#: Every subcommand: name -> (module under ``kistore.cli``, attribute, summary). The module is
#: imported only when the subcommand runs; ``kistore --help`` lists the summary instead
#: (tests/test_cli_startup.py checks each summary equals the command's own short help).
SUBCOMMANDS: dict[str, tuple[str, str, str]] = {
    "add": ("core", "add",
            "Add manifests: files, bundles, JSON Lines, directories, or - for stdin."),
    "attest": ("attest", "attest", "Sign an attestation about a stored manifest "
               "(REF: digest, prefix or KIND/NAME)."),
    "attestations": ("attest", "attestations", "List every attestation about REF, whether "
                     "it verifies, and where it came from."),
    "cat": ("core", "cat",
            "Print the exact stored bytes of an object (re-hashed before printing)."),
    "check": ("verify", "check",
              "Check what the commits BASE..HEAD add (the pull-request gate)."),
    "cite": ("cite", "cite", "Cite a stored object by the commit that first added it."),
    "compare": ("query", "compare",
                "Compare run A with run B (default: rank 1 of A's comparison group)."),
    "digest": ("core", "digest",
               "Print the digest of each manifest without storing or checking it against a store."),
    "drop": ("drop", "drop", "Remove from the work tree an add that was never committed, to "
             "add it corrected."),
    "export": ("export", "export",
               "Export the store at a commit as tables: runs, groups, attestations, manifests."),
    "import": ("importing", "import_",
               "Import a source's files or directories: runs and what they reference."),
    "init": ("core", "init", "Create a store: a git repository with kistore.toml, "
             ".gitattributes and store/."),
    "key": ("attest", "key", "Create signing keys (Ed25519)."),
    "ls": ("query", "ls", "List stored manifests: DIGEST KIND NAME, by kind then name."),
    "migrate": ("core", "migrate", "Write what a store of an earlier layout lacks: names, "
                "forward records, groups."),
    "notes": ("attest", "notes", "Move attestation notes (refs/notes/kistore) between files "
              "and clones."),
    "rank": ("query", "rank", "Rank the comparison group of run REF (digest, 8+ hex prefix, "
             "or BenchmarkRun/NAME)."),
    "reindex": ("query", "reindex",
                "Rebuild the derived SQLite index under .git/kistore/ from scratch."),
    "show": ("core", "show", "Show a stored manifest."),
    "site": ("site", "site", "Build, verify and preview the static site of a commit (HTML + "
             "JSON)."),
    "trust": ("attest", "trust", "Manage store/trust/keys.json: keys trusted for roles "
              "(commit it by pull request)."),
    "verify": ("verify", "verify", "Verify the whole store offline and report every problem."),
}


class KistoreGroup(click.Group):
    """Click group: lazy subcommands, and errors as one stderr line per problem, exit code 1.

    Subcommands follow click's "lazy group" pattern: :meth:`list_commands` names every entry
    of :data:`SUBCOMMANDS`, :meth:`get_command` imports ``kistore.cli.<module>`` on first
    use, and :meth:`format_commands` writes ``kistore --help`` from the summaries, so the
    help imports no command module. Commands added with ``add_command`` work as in click.

    :class:`KistoreError` prints each of its problems; an ``OSError`` (a file that could not
    be read or written) prints the file and the reason. ``--debug`` shows the traceback.
    """

    def main(self, *args: Any, **kwargs: Any) -> Any:
        """Run click's ``main``; a broken pipe while click says a usage error exits 141.

        Raises:
            SystemExit: as click's, or :data:`BROKEN_PIPE` when stderr's reader had gone.
        """
        try:
            return super().main(*args, **kwargs)
        except BrokenPipeError:
            _reader_gone()
            sys.exit(BROKEN_PIPE)

    def make_context(self, *args: Any, **kwargs: Any) -> click.Context:
        """Parse the root's options; a broken pipe under ``--help`` or ``--version``: 141.

        Raises:
            click.exceptions.Exit: :data:`BROKEN_PIPE` when stdout's reader had gone.
        """
        try:
            return super().make_context(*args, **kwargs)
        except BrokenPipeError:
            _reader_gone()
            raise click.exceptions.Exit(BROKEN_PIPE) from None

    def list_commands(self, ctx: click.Context) -> list[str]:
        """Return every subcommand name, imported or not, sorted."""
        return sorted({*self.commands, *SUBCOMMANDS})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        """Return subcommand ``cmd_name``, importing its module on first use.

        Returns:
            The click command, or None when there is none of that name (click then
            reports a usage error, exit code 2).
        """
        if cmd_name not in self.commands and cmd_name in SUBCOMMANDS:
            module_name, attribute, _ = SUBCOMMANDS[cmd_name]
            module = importlib.import_module(f"{__name__}.{module_name}")
            self.add_command(getattr(module, attribute), cmd_name)
        return self.commands.get(cmd_name)

    def resolve_command(self, ctx: click.Context, args: list[str]
                        ) -> tuple[str | None, click.Command | None, list[str]]:
        """Find the subcommand ``args[0]`` names; a mistyped one gets the nearest names.

        Raises:
            click.UsageError: no such command (exit code 2), with "did you mean add?"
                when some command is close to what was typed, as git does.
        """
        ctx.meta.setdefault(COMMAND_ARGS, list(args))  # the root's: what machine_report reads
        name = args[0] if args else None
        if name and not name.startswith("-") and self.get_command(ctx, name) is None:
            # Lazy: difflib loads only to suggest a name after a miss.
            import difflib

            close = difflib.get_close_matches(name, self.list_commands(ctx), n=3, cutoff=0.6)
            if close:
                ctx.fail(f"No such command {name!r}; did you mean {' or '.join(close)}?")
        return super().resolve_command(ctx, args)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """Write the "Commands" section of the help from the summaries, importing nothing."""
        rows = [(name, self.commands.get(name) or click.Command(name, help=SUBCOMMANDS[name][2]))
                for name in self.list_commands(ctx)]
        rows = [(name, command) for name, command in rows if not command.hidden]
        if not rows:
            return
        limit = formatter.width - 6 - max(len(name) for name, _ in rows)  # click's own rule
        with formatter.section("Commands"):
            formatter.write_dl([(name, command.get_short_help_str(limit))
                                for name, command in rows])

    def invoke(self, ctx: click.Context) -> Any:
        """Run the subcommand; say each error on stderr, and on stdout in its machine form.

        A subcommand run with ``--json`` (or ``--format json|jsonl|github``) prints one
        document for every error that stops it (:func:`._machine.machine_report`), usage errors
        (exit 2) included, before the error is said on stderr as usual. Then the
        symlinked store directories its reads left out are named
        (:func:`kistore.cli._links.warn_linked`), and the committed attestation files a
        work-tree answer read as ``HEAD`` holds them (:mod:`kistore.cli._evidence_here`). A
        command that succeeded but wrote to a closed stdout exits 1 saying so
        (:func:`_said_lost_output`).
        """
        try:
            try:
                result = self._invoke(ctx)
            finally:
                # The command is over, its status chosen: from here the console script's
                # handlers do nothing (an assignment: no handler runs before it). An echo
                # or a Ctrl-C in what follows raised in click's code ("Aborted!", exit 1).
                _entry.ending = _entry.console
                context = ctx.obj
                opened = context.opened() if isinstance(context, StoreContext) else None
                warn_linked(opened)
                warn_evidence_here(opened)  # committed evidence the work tree lost (F15)
        except BrokenPipeError:  # anywhere: the command, its error's report, the warning
            if ctx.params.get("debug"):
                raise
            _reader_gone()
            ctx.exit(BROKEN_PIPE)
        except click.exceptions.Exit as e:
            if e.exit_code == 0:
                _said_lost_output(ctx)
            raise
        _said_lost_output(ctx)
        return result

    def _invoke(self, ctx: click.Context) -> Any:
        try:
            result = super().invoke(ctx)
            signals.catch_up()  # a Ctrl-C swallowed in its last 10 ms interrupts it too
            sys.stdout.flush()  # a closed pipe is met here, not by Python's flush at exit
            return result
        except KistoreError as e:
            self._say(ctx, e)
        except KeyboardInterrupt:  # not one an add reports: nothing of this command's lasts
            if ctx.params.get("debug"):
                raise
            click.echo("interrupted", err=True)
            ctx.exit(INTERRUPTED)
        except BrokenPipeError:
            raise  # not an OSError to report: the reader went away (invoke, BROKEN_PIPE)
        except OSError as e:  # a file we could not read or write: say which, no traceback
            if e.filename != _streams.STDOUT:  # (a machine report to it would fail again)
                machine_report(self, ctx, e)
            if ctx.params.get("debug"):
                raise
            if e.filename == _streams.STDOUT:  # what to do: no file of the user's failed
                quiet = writes_nothing(ctx.meta.get(COMMAND_ARGS))
                click.echo("error: " + _streams.STDOUT_FAILED.format(
                    reason=e.strerror or e,
                    done="" if quiet else "; nothing was left half-written"), err=True)
                ctx.exit(1)
            where = f"{e.filename}: " if e.filename else ""
            click.echo(f"error: {where}{os_error_said(e, ctx.meta.get(COMMAND_ARGS))}",
                       err=True)
            ctx.exit(1)
        except (click.exceptions.Exit, click.Abort):
            raise  # exits and aborts: click says them
        except click.exceptions.ClickException as e:
            machine_report(self, ctx, e)
            raise  # usage errors (exit 2): click says them
        except Exception as e:  # a bug: one line that says so, never a traceback (--debug)
            if _interrupt_within(e) and not ctx.params.get("debug"):
                click.echo("interrupted", err=True)
                ctx.exit(INTERRUPTED)
            damaged = _damaged(e)
            if damaged is not None:  # a damaged git object: the repository's, not a bug
                if ctx.params.get("debug"):
                    raise
                self._say(ctx, damaged)
            machine_report(self, ctx, e)
            if ctx.params.get("debug"):
                raise
            click.echo(f"error: {internal_error(e)}", err=True)
            ctx.exit(1)

    def _say(self, ctx: click.Context, e: KistoreError) -> None:
        """Say a kistore error on stderr (and stdout's machine form) and exit with its code."""
        machine_report(self, ctx, e)
        if ctx.params.get("debug"):
            raise e
        for problem in e.problems:
            click.echo(f"error: {problem.format()}", err=True)
        if len(e.problems) > 1:  # 3,000 lines scroll away: the last one says the whole
            written = ("; nothing was added" if ctx.invoked_subcommand in ("add", "import")
                       else "")
            click.echo(f"error: {len(e.problems):,} problems in all{written}", err=True)
        ctx.exit(max(p.exit_code for p in (e, *e.problems)))


def _said_lost_output(ctx: click.Context) -> None:
    """Exit 1 saying so when a command that succeeded wrote its answer to a closed stdout.

    Raises:
        click.exceptions.Exit: 1, after the error line on stderr, when anything was written
            to a closed stdout (``>&-``, :func:`._streams.lost_output`); else nothing.
    """
    size = _streams.lost_output()
    if size:
        click.echo(f"error: {_streams.STDOUT_CLOSED.format(size=size)}", err=True)
        ctx.exit(1)


def _reader_gone() -> None:
    """Point stdout, and stderr if its reader left too, at /dev/null after a broken pipe.

    What Python still holds for a closed pipe is flushed when it exits; that flush failed
    ("Exception ignored ... BrokenPipeError") and made the exit status 120, not
    :data:`BROKEN_PIPE`. A stream whose flush fails with a broken pipe is the one that
    broke; stdout always goes (the usual pipe, and what it held is the reader's loss).
    """
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
            broken = stream is sys.stdout
        except BrokenPipeError:
            broken = True
        except (OSError, ValueError):  # closed or unwritable otherwise: not ours to mend
            continue
        if broken:
            with contextlib.suppress(OSError, ValueError):
                null = os.open(os.devnull, os.O_WRONLY)
                os.dup2(null, stream.fileno())
                os.close(null)


def _interrupt_within(e: BaseException) -> bool:
    """Whether a Ctrl-C is what ``e`` wraps (its ``__cause__``/``__context__`` chain).

    Python 3.11 wraps an exception raised while a class is made in ``RuntimeError("Error
    calling __set_name__ ...")``: a SIGINT landing in a dataclass's definition (a module
    imported lazily by the command) reached the user as an internal error, exit 1 (caught
    once by the test sending SIGINT at each moment of start-up, 2026-12-04).
    """
    seen: set[int] = set()
    cause: BaseException | None = e
    while cause is not None and id(cause) not in seen:
        if isinstance(cause, KeyboardInterrupt):
            return True
        seen.add(id(cause))
        cause = cause.__cause__ or cause.__context__
    return False


def _damaged(error: BaseException) -> KistoreError | None:
    """Return the error libgit2's ``GitError`` of a damaged git object is said as, or None.

    Also a repository git refuses because another user owns it
    (:func:`kistore.git.opening.not_owned`), wherever a pygit2 call met it.

    A tree, commit or note read that fails (a loose object file overwritten, a flipped bit
    in a pack) raises libgit2's ``GitError`` wherever kistore reads it; it is the
    repository's damage, said with ``git fsck`` (:class:`kistore.git.blobs.ObjectUnreadable`),
    never kistore's "internal error". None when ``error`` is something else (pygit2 not
    even loaded).
    """
    if "pygit2" not in sys.modules:
        return None
    # Lazy: `kistore CMD --help` loads no store code (tests/cli/test_cli_startup.py).
    from ..git.blobs import damage

    # Lazy: as above; a repository another user owns, met by a pygit2 call of its own.
    from ..git.opening import not_owned

    return damage(error) or not_owned(error)


INSIDE_WORK_TREE = click.option(
    "--inside-work-tree", is_flag=True,
    help="Write OUT inside the store's git work tree even though git does not ignore it "
         "(without it, refused: `git add -A` would commit every file written there).")
"""The flag of ``site build`` and ``export`` that writes into the work tree (r85 F8)."""


def refuse_empty(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
    """Click callback: refuse an empty path, which the file system reads as "here".

    ``kistore init ""`` made the current directory a store (it was /tmp), and
    ``add ''`` walked every file under it.

    Args:
        ctx: the command's context.
        param: the path argument or option.
        value: its value, or a tuple of them (``nargs=-1``).

    Returns:
        ``value`` unchanged.

    Raises:
        click.BadParameter: the value, or one of several, is the empty string (exit 2).
    """
    if value == "" or (isinstance(value, tuple) and "" in value):
        raise click.BadParameter("is empty: give a path (`.` for this directory)",
                                 ctx=ctx, param=param)
    return value


def refuse_empty_key(*, keyid: bool = False
                     ) -> Callable[[click.Context, click.Parameter, str], str]:
    """Return a Click callback refusing an empty KEY, naming what a KEY is (not ``.``).

    Args:
        keyid: the command takes a keyid too (``trust revoke``; ``trust add`` does not):
            the message names it among what to give.

    Returns:
        The callback: ``value`` unchanged, or click.BadParameter when it is the empty
        string (exit 2; reviewer r92b F2: the path arguments' "`.` for this directory"
        was said of a key), or blank space alone (r93 F9: ``' '`` said "no key   in
        trust").
    """
    kinds = "a keyid (SHA256:...), " if keyid else ""

    def refuse(ctx: click.Context, param: click.Parameter, value: str) -> str:
        if not value.strip():
            what = "is empty" if value == "" else "is blank space alone"
            raise click.BadParameter(f"{what}: give {kinds}a .pub file, an OpenSSH line "
                                     "('ssh-ed25519 AAAA...') or - for standard input",
                                     ctx=ctx, param=param)
        return value

    return refuse


@click.group(cls=KistoreGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--store", "store_path", metavar="PATH", envvar="KISTORE_STORE",
              callback=refuse_empty,
              help="Store to use (default: the git work tree around the current directory).")
@click.option("--debug", is_flag=True, help="Show a traceback on errors.")
@click.version_option(package_name="kistore")
@click.pass_context
def main(ctx: click.Context, store_path: str | None, debug: bool) -> None:
    """Kistore: content-addressed, git-backed GPU kernel benchmark manifests.

    \b
    Example:
      kistore init ../my-index && cd ../my-index
      kistore add --commit ../kistore/examples/*.bundle.json --allow-dangling
      kistore show BenchmarkRun/sol-submission-20464
    """
    host = {number: signal.getsignal(number) for number in _TAKEN}
    if not _entry.console:  # a program running the command in its own process (CliRunner)
        ctx.call_on_close(lambda: _given_back(host))
    # an interrupt Python swallows (a finaliser, a weakref or gc callback) comes back
    signals.catch_swallowed(_terminated, _counts)
    handler = host[signal.SIGINT]
    if handler is signal.default_int_handler or \
            getattr(handler, "__module__", None) == "kistore._entry":
        # the console script's quiet exit while starting: a Ctrl-C is now the command's
        signal.signal(signal.SIGINT, _terminated)
    signals.take((signal.SIGTERM,), _terminated)  # unless the parent left it ignored (H7)
    _entry.started()  # a start-up Ctrl-C something swallowed ends the start here (exit 130)
    _streams.guard()
    _escape_unencodable_output()
    ctx.obj = StoreContext(store_path)
    _trust_here.forget()  # an earlier command's, in this process, that failed


main.result_callback()(_trust_here.say_after)  # fresh14 F15: after the answer


ESCAPES = "kistore.escapes"
"""The output streams' error handler (:func:`_escaped`)."""


def _escaped(error: UnicodeError) -> tuple[str, int]:
    """Write an unencodable character as :func:`kistore.core.errors.printable` does.

    A byte that is not UTF-8, held as a surrogate escape (byte 0xE9 as U+DCE9), as
    ``\\xe9``, the byte git and ``printable`` name (upd98: a summary line or a notes
    message naming ``refs/heads/caf<0xE9>`` or a remote ``r<0xE9>`` printed ``\\udce9``,
    ``backslashreplace``'s form); any other character as ``backslashreplace`` writes it.
    """
    if not isinstance(error, UnicodeEncodeError):
        raise error
    text = error.object[error.start:error.end]
    return "".join(f"\\x{ord(c) - 0xDC00:02x}" if 0xDC80 <= ord(c) <= 0xDCFF
                   else c.encode("ascii", "backslashreplace").decode("ascii")
                   for c in text), error.end


def _escape_unencodable_output() -> None:
    """Write what the terminal's encoding cannot hold as escapes, never raise on it.

    A file name that is not UTF-8 reaches Python as surrogate escapes; echoing one (``init``
    of such a path, a finding about it) raised UnicodeEncodeError wherever stdout's error
    handler is strict. Messages escape such names themselves (:func:`kistore.core.errors.
    printable`); this is the net under everything else that is echoed.
    """
    codecs.register_error(ESCAPES, _escaped)
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            try:
                reconfigure(errors=ESCAPES)
            except (ValueError, OSError):  # pragma: no cover - a stream that cannot change
                pass


_TAKEN = (signal.SIGINT, signal.SIGTERM, signal.SIGALRM)
"""The signals a command takes while it runs (:func:`main`, :class:`._adding.Landing`)."""


def _given_back(host: dict[signal.Signals, Any]) -> None:
    """Give a program that ran a command in its own process its signal handling back.

    The command takes SIGINT and SIGTERM (an interrupt: an add is undone), a landed add
    takes them and SIGALRM (only noted), and an interrupt that landed in a finaliser arms a
    10 ms SIGALRM (:func:`_terminated`). Left in place they outlived the command: a SIGTERM
    sent to the program later raised KeyboardInterrupt in whatever code it then ran, or,
    after an add, was only noted, so the program could no longer be stopped by it; an echo
    still armed fired in the program's next code. The console script keeps them to its
    exit (:data:`kistore._entry.console`; reviewer r80 F8).

    Args:
        host: each of :data:`_TAKEN`'s handlers as they were before the command
            (``signal.getsignal``; None: not set from Python, left as it is).
    """
    signals.release()  # the program's own unraisablehook; no echo left armed
    if signal.getsignal(signal.SIGALRM) is not host[signal.SIGALRM]:
        signal.setitimer(signal.ITIMER_REAL, 0)  # the echo of an interrupt: the command is over
    for number, handler in host.items():
        if handler is not None:
            signal.signal(number, handler)
    atexit.unregister(_hold_signals_to_the_end)  # the program's exit is its own


def _terminated(signum: int, frame: Any) -> None:
    """Ctrl-C, and SIGTERM (``timeout``, a cancelled CI job, systemd) as Ctrl-C.

    Python's default for SIGTERM ends the process on the spot: an add stopped mid-write
    left its files in the work tree. As KeyboardInterrupt it is undone and ``add`` says so
    (:func:`._adding.interrupt_says`, exit 130; other commands: "interrupted", exit 130).
    Python ignores an exception raised inside a finaliser (``__del__``: it printed
    "Exception ignored in ... Index.__del__" and the add went on), a weakref callback
    (importlib's module-lock ``cb``, run as an import ends: ci140 saw the Ctrl-C swallowed
    there and ``add -`` read an empty input, exit 1) or a ``gc.callbacks`` entry; the
    unraisable hook the root installs (:func:`kistore.core.signals.catch_swallowed`) sees
    each, says nothing, and 10 ms later SIGALRM runs this handler again: whatever swallowed
    it, the interrupt comes back (the frame names once listed here missed some).

    Once the console script ends the process (:data:`kistore._entry.ending`: the command
    is over, its status chosen) it does nothing: raised there, the interrupt escaped
    ``run`` as a traceback, and an echo armed there outlived Python's handlers (flake130).

    Raises:
        KeyboardInterrupt: the interrupt (not inside the unraisable hook, which echoes it).
    """
    watchdog.answered()  # the main thread runs Python: not stuck in C (review F3)
    if _entry.ending:
        return
    signals.interrupt(frame)


def _counts() -> bool:
    """Whether an interrupt still counts (:func:`kistore.core.signals.catch_swallowed`)."""
    return not _entry.ending


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
