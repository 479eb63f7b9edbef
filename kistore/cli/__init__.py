"""The ``kistore`` command line: one click group, thin subcommands (docs/design.md §8).

Every subcommand parses options, calls the library, prints, and sets the exit code:
0 success, 1 invalid input or failed verification, 2 usage error. Errors go to stderr,
one problem a line (``FILE[:LINE:COL]:/json/pointer: message``); a traceback only with
``--debug``. Heavy libraries (pygit2, jsonschema, cryptography) are imported inside the
commands that need them, and each subcommand's module is imported only when that
subcommand runs (:data:`SUBCOMMANDS`), so ``kistore --help`` imports no command module.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import importlib
import json
import os
import signal
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar

import click

from ..core import watchdog
from ..core.errors import KistoreError, MetadataConflictError, printable, shorten

INTERNAL_ERROR = "internal error: this is a bug in kistore, not a problem with your input"
"""How an exception kistore did not expect is said (exit 1; ``--debug`` shows the traceback)."""

if TYPE_CHECKING:  # pragma: no cover - typing only
    from ..store import Store

P = ParamSpec("P")
R = TypeVar("R")


class StoreContext:
    """Per-invocation state: where the store is, opened on first use.

    Args:
        path: the ``--store`` option (None: the git work tree around the current directory).
    """

    def __init__(self, path: str | None) -> None:
        self.path = path
        self._store: Any = None

    def store(self) -> Any:
        """Return the :class:`kistore.store.Store` (opened once).

        Raises:
            StoreStateError: when there is no git repository at ``--store`` or above cwd.
        """
        if self._store is None:
            # Lazy: `kistore CMD --help` loads no store code (tests/cli/test_cli_startup.py).
            from ..store import Store

            self._store = Store(self.path)
        return self._store

    def settled_at(self, at: str | None) -> str | None:
        """Return the revision a query answers: ``at``, or ``HEAD`` while the work tree is written.

        ``kistore add --commit`` holds git's ``.git/index.lock`` from before its first file
        is written until its branch has moved (:mod:`kistore.git.commit`), as git commands
        that write the work tree do. A query of the work tree meanwhile answered from the
        add's half-written files: manifests never committed (gone again if it was
        interrupted), and files caught between two writes called damaged ("do not
        verify"). So a work-tree query (``at`` None) with the lock held waits up to
        :data:`WORK_TREE_WAIT_S` for it (a git command holds it for milliseconds) and then
        answers from ``HEAD``, saying so on stderr. No lock: one ``lstat``, nothing else.

        Args:
            at: the ``--at`` given (None: the work tree).

        Returns:
            ``at``, or ``"HEAD"`` in place of the work tree while the lock stays held.
        """
        if at is not None:
            return at
        # Lazy: `kistore CMD --help` loads no store code (tests/cli/test_cli_startup.py).
        from ..core.errors import StoreStateError

        try:
            store = self.store()
        except StoreStateError:  # not a store: the command says so itself
            return None
        if store.root is None:  # a bare repository: its queries answer from HEAD anyway
            return None
        lock = Path(store.git_dir) / "index.lock"
        if not os.path.lexists(lock):
            return None
        deadline = time.monotonic() + WORK_TREE_WAIT_S
        while os.path.lexists(lock):
            if time.monotonic() >= deadline:
                click.echo(f"warning: {printable(str(lock))} is held: a `kistore add --commit` "
                           "(or a git command) is writing the work tree; answering from HEAD, "
                           "not from its half-written files. Ask again when it is done (if "
                           "nothing is running, a crashed command left the lock: `git status` "
                           "says what to do)", err=True)
                return "HEAD"
            time.sleep(0.05)
        return None

    def limits(self) -> Any:
        """Return the size limits of the store, or the defaults outside any store.

        Raises:
            InputError: the store's kistore.toml sets invalid limits.
        """
        # Lazy: `kistore CMD --help` loads no store code (tests/cli/test_cli_startup.py).
        from ..core.errors import StoreStateError
        from ..core.limits import DEFAULT

        try:
            return self.store().limits()
        except StoreStateError:  # `kistore digest` outside a store
            return DEFAULT


WORK_TREE_WAIT_S = 1.0
"""How long a work-tree query waits for a held ``.git/index.lock`` before answering from
``HEAD`` (:meth:`StoreContext.settled_at`): a git command holds it for milliseconds, an
``add --commit`` of thousands of manifests for many seconds."""


def settled_work_tree(command: Callable[P, R]) -> Callable[P, R]:
    """Run a query of the work tree once no add is writing it (:meth:`StoreContext.settled_at`).

    For a command given the :class:`StoreContext` first and an ``at`` keyword argument
    (``--at``); put it below ``pass_ctx``.
    """
    @functools.wraps(command)
    def settled(*args: P.args, **kwargs: P.kwargs) -> R:
        if args and isinstance(args[0], StoreContext) and kwargs.get("at") is None:
            kwargs["at"] = args[0].settled_at(None)
        return command(*args, **kwargs)

    return settled


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
               "Print the digest of each manifest without storing anything."),
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
        ctx.meta.setdefault(_COMMAND_ARGS, list(args))  # the root's: what machine_report reads
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
        document for every error that stops it (:func:`machine_report`), usage errors
        (exit 2) included, before the error is said on stderr as usual. Then the
        symlinked store directories its reads left out are named (:func:`_warn_linked`).
        """
        _warn_linked(say=False)  # a link met before this command (a library call) is not its
        try:
            return self._invoke(ctx)
        finally:
            _warn_linked()

    def _invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except KistoreError as e:
            machine_report(self, ctx, e)
            if ctx.params.get("debug"):
                raise
            for problem in e.problems:
                click.echo(f"error: {problem.format()}", err=True)
            ctx.exit(max(p.exit_code for p in (e, *e.problems)))
        except KeyboardInterrupt:  # not one an add reports: nothing of this command's lasts
            if ctx.params.get("debug"):
                raise
            click.echo("interrupted", err=True)
            ctx.exit(INTERRUPTED)
        except BrokenPipeError:  # `kistore rank ... | head`: the reader has what it wants
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            ctx.exit(0)
        except OSError as e:  # a file we could not read or write: say which, no traceback
            machine_report(self, ctx, e)
            if ctx.params.get("debug"):
                raise
            where = f"{e.filename}: " if e.filename else ""
            click.echo(f"error: {where}{e.strerror or e}; nothing was left half-written",
                       err=True)
            ctx.exit(1)
        except (click.exceptions.Exit, click.Abort):
            raise  # exits and aborts: click says them
        except click.exceptions.ClickException as e:
            machine_report(self, ctx, e)
            raise  # usage errors (exit 2): click says them
        except Exception as e:  # a bug: one line that says so, never a traceback (--debug)
            machine_report(self, ctx, e)
            if ctx.params.get("debug"):
                raise
            click.echo(f"error: {internal_error(e)}", err=True)
            ctx.exit(1)


def _warn_linked(*, say: bool = True) -> None:
    """Say which symlinked directories of the work tree the command's reads left out.

    ``say=False``: forget them unsaid.

    Reads never go through one (:meth:`kistore.store.WorkTreeView.linked_dir`); what lies
    under it was read as absent. Nothing to say, and nothing imported, when no work tree
    was read.
    """
    store = sys.modules.get("kistore.store")
    if store is None:
        return
    linked = store.take_linked()
    for _, path in linked if say else ():
        click.echo(printable(f"warning: {path}: is a symbolic link where the store keeps a "
                             "directory; nothing under it was read (left out as absent); "
                             "`kistore verify` reports it (KI111)"),
                   err=True)


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
      kistore init my-index && cd my-index
      kistore add --commit ../examples/*.bundle.json --allow-dangling
      kistore show BenchmarkRun/sol-submission-20464
    """
    handler = signal.getsignal(signal.SIGINT)
    if handler is signal.default_int_handler or \
            getattr(handler, "__module__", None) == "kistore._entry":
        # the console script's quiet exit while starting: a Ctrl-C is now the command's
        signal.signal(signal.SIGINT, _terminated)
    signal.signal(signal.SIGTERM, _terminated)
    _escape_unencodable_output()
    ctx.obj = StoreContext(store_path)


def _escape_unencodable_output() -> None:
    """Write what the terminal's encoding cannot hold as escapes, never raise on it.

    A file name that is not UTF-8 reaches Python as surrogate escapes; echoing one (``init``
    of such a path, a finding about it) raised UnicodeEncodeError wherever stdout's error
    handler is strict. Messages escape such names themselves (:func:`kistore.core.errors.
    printable`); this is the net under everything else that is echoed.
    """
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            try:
                reconfigure(errors="backslashreplace")
            except (ValueError, OSError):  # pragma: no cover - a stream that cannot change
                pass


def _terminated(signum: int, frame: Any) -> None:
    """Ctrl-C, and SIGTERM (``timeout``, a cancelled CI job, systemd) as Ctrl-C.

    Python's default for SIGTERM ends the process on the spot: an add stopped mid-write
    left its files in the work tree. As KeyboardInterrupt it is undone and ``add`` says so
    (:func:`interrupt_says`, exit 130; other commands: click's "Aborted!", exit 1).
    Python ignores an exception raised inside a finaliser (``__del__``: it printed
    "Exception ignored in ... Index.__del__" and the add went on), so there it comes back
    10 ms later as SIGALRM, to the same handler.
    """
    watchdog.answered()  # the main thread runs Python: not stuck in C (review F3)
    caller = frame
    while caller is not None:
        if caller.f_code.co_name == "__del__":
            signal.signal(signal.SIGALRM, _terminated)
            signal.setitimer(signal.ITIMER_REAL, 0.01)
            return
        caller = caller.f_back
    raise KeyboardInterrupt


def warn_unreadable(store: Store, catalog: object, at: str | None = None) -> None:
    """Say on stderr which manifests an answer left out because their files are damaged.

    Damaged in the work tree: an object or metadata file that does not verify, or a
    committed manifest whose object file was deleted from the work tree (``kistore
    verify``: KI402). Damaged as committed: a manifest the index build skipped (its
    ``skipped`` list: non-canonical bytes, KI103; a spec its schema refuses, KI104; ...),
    as a push that skipped the hooks can leave it. For each, one summary line, then one
    line per damaged file (the first few) naming what is wrong with it and what to do.
    Call after the answer: the work tree's catalog finds damaged files as it reads them.

    Args:
        store: the :class:`kistore.store.Store` answered from.
        catalog: the catalog the answer came from (its ``unreadable`` digests, the
            manifests its overlay of the work tree removed: :func:`deleted_from_work_tree`,
            and its ``skipped()`` ones).
        at: the revision answered, or None for the work tree.
    """
    unreadable = sorted({*getattr(catalog, "unreadable", ()), *deleted_from_work_tree(catalog)})
    skipped = getattr(catalog, "skipped", None)
    committed = {d: why for d, why in (skipped() if callable(skipped) else {}).items()
                 if d not in unreadable}
    instead = store.not_checked_out() if unreadable and at is None else None
    if instead is not None:  # a `git clone --no-checkout`: not damage, no files at all
        click.echo(f"warning: the work tree is not checked out: {len(unreadable)} committed "
                   f"manifest(s) are left out; `--at {instead}` answers from the commit",
                   err=True)
    elif unreadable and at is None and store.root is not None and \
            os.path.lexists(Path(store.git_dir) / "index.lock"):
        # an add --commit began writing while this answer was read: its files, not damage
        click.echo(f"warning: the work tree changed while this answer was read (an add or a "
                   f"git command holds .git/index.lock now): {len(unreadable)} manifest(s) "
                   "being written were left out; ask again when it is done", err=True)
    elif unreadable:
        # Lazy: `kistore CMD --help` loads no store code (tests/cli/test_cli_startup.py).
        from ..core.digest import Digest
        from ..index.catalog import damage

        shown = ", ".join(unreadable[:3]) + (" ..." if len(unreadable) > 3 else "")
        click.echo(f"warning: {len(unreadable)} manifest(s) in the work tree do not verify and "
                   f"are left out: {shown}; run `kistore verify`", err=True)
        view = store.view(at)
        for digest in unreadable[:3]:
            path, problem = damage(view, Digest.from_str(digest))
            if path:
                role = "object" if path.startswith("store/objects/") else "metadata"
                click.echo(f"warning: {path}: the {role} file {problem}; restore it with "
                           f"`git checkout -- {path}`", err=True)
    if committed:
        listed = sorted(committed)
        shown = ", ".join(listed[:3]) + (" ..." if len(listed) > 3 else "")
        verify = f"kistore verify --at {at}" if at else "kistore verify"
        click.echo(f"warning: {len(listed)} manifest(s) committed at {at or 'HEAD'} do not "
                   f"verify and are left out: {shown}; run `{verify}`", err=True)
        # Lazy: `kistore CMD --help` loads no store code (tests/cli/test_cli_startup.py).
        from ..index.catalog import committed_fix

        for digest in listed[:3]:
            path, problem = committed[digest]
            role = "object" if path.startswith("store/objects/") else "metadata"
            click.echo(f"warning: {path}: the {role} file {problem}; "
                       f"{committed_fix(path, problem)}", err=True)


def deleted_from_work_tree(catalog: object) -> list[str]:
    """Return the digests of committed manifests a work-tree answer left out as deleted.

    The work tree's catalog is ``HEAD``'s index overlaid with what changed in the work tree
    (:class:`kistore.query.catalog.OverlayCatalog`, inside a
    :class:`kistore.query.fresh.CheckedCatalog`): a manifest whose object file is gone is
    overlaid as removed, and is not among the catalog's ``unreadable`` digests (those have
    an object file that does not verify). Only manifests ``HEAD``'s index holds count:
    objects are never deleted, so each is damage to restore with ``git checkout``.

    Args:
        catalog: the catalog an answer came from (:meth:`kistore.query.catalog.Catalog.
            deleted`); anything else has nothing deleted.

    Returns:
        Digest strings, sorted; empty when nothing was deleted or the catalog is not the
        work tree's.
    """
    deleted = getattr(catalog, "deleted", None)
    return list(deleted()) if callable(deleted) else []


@contextlib.contextmanager
def explaining_misses(store: Store, refs: Sequence[str | None], at: str | None, *,
                      names_at_commits: bool = False) -> Iterator[None]:
    """Say why a reference the work tree does not resolve may still be meant, and what to do.

    Before the block, ``KIND/`` with no name is refused as incomplete, and a ``KIND/NAME``
    among ``refs`` that two manifests of the work tree (or, with ``names_at_commits``, of
    commit ``at``) answer to is refused, listing both (:mod:`kistore.cli.names`).
    Within the block, a :class:`~kistore.core.errors.ResolutionError` about the work tree
    becomes, for the first of ``refs`` that the work tree does not resolve:

    * a digest or prefix of a committed manifest whose object file was deleted: the
      :func:`kistore.query.answers.unreadable_error` of it (``the object file is missing;
      restore it with `git checkout -- PATH```), as ``KIND/NAME`` already gets;
    * a ``KIND/NAME`` no manifest holds: the same "no KIND named ..." with how to find a
      name written into a metadata file in place, which a lookup does not see
      (:meth:`kistore.store.View.find_name`): ``kistore reindex``.

    Args:
        store: the :class:`kistore.store.Store` asked.
        refs: what the person typed (None entries are skipped).
        at: the revision asked; only the work tree (None) is explained.
        names_at_commits: the command resolves ``KIND/NAME`` through the index's names at
            any revision (:meth:`kistore.store.Store.resolve`), so checking a commit's
            names reads nothing more (``show``, ``cat``, ``cite``, ``attestations``).

    Before the block, when ``refs`` names anything, and for any error about the work tree
    within it, a clone that is not checked out (``git clone --no-checkout``) is refused,
    saying that ``--at`` the branch's upstream gives the same answers
    (:meth:`kistore.store.Store.require_checkout`): first and alone, before any warning
    the block would print.

    Raises:
        InputError: ``KIND/`` with no name.
        StoreStateError: the work tree is not checked out.
        VerificationError: a digest or prefix the work tree lacks and ``HEAD`` holds.
        ResolutionError: a ``KIND/NAME`` two manifests hold, listing them; a ``KIND/NAME``
            not found, with the hint; else the original error.
    """
    # Lazy: `kistore CMD --help` loads no store code (tests/cli/test_cli_startup.py).
    from ..core.errors import KistoreError, ResolutionError
    from .names import refuse_incomplete_names, refuse_shared_names

    refuse_incomplete_names(refs)
    if at is None and any(ref is not None for ref in refs):
        store.require_checkout()  # first and alone: before any warning the block prints
    refuse_shared_names(store, refs, at, commits=names_at_commits)
    try:
        yield
    except KistoreError as e:
        if at is not None or store.root is None:
            raise
        store.require_checkout()  # a `git clone --no-checkout`: every file is "missing"
        if not isinstance(e, ResolutionError):
            raise
        # Lazy: `kistore CMD --help` loads no store code (tests/cli/test_cli_startup.py).
        from ..core.schema import KINDS

        for ref in refs:
            kind, slash, name = (ref or "").partition("/")
            if ref is None or (slash and kind not in KINDS):
                continue
            if slash:
                if store.view().find_name(kind, name) is None:
                    raise ResolutionError(
                        f"no {kind} named {name!r} in the work tree; if a metadata file was "
                        "edited in place to give it this name, run `kistore reindex` to read "
                        "every file again") from None
                continue
            if _work_tree_matches(store, ref):
                continue  # the work tree has it, or several (an ambiguous prefix): as it failed
            try:
                digest = store.resolve(ref, at="HEAD")
            except KistoreError:  # not committed either (or no HEAD): the original stands
                continue
            # Lazy: `kistore CMD --help` loads no store code (tests/cli/test_cli_startup.py).
            from ..query.answers import unreadable_error

            raise unreadable_error(store.view(None), digest, str(digest)) from None
        raise


def _work_tree_matches(store: Store, ref: str) -> bool:
    """Return True when an object file of the work tree matches digest or prefix ``ref``.

    Then a failed resolution was not about a deleted file: the prefix is ambiguous, or
    the object is there. (Resolving again to find out took an ambiguous prefix whose other
    match was not committed for a deleted file: "could not be read; run kistore verify".)
    """
    # Lazy: `kistore CMD --help` loads no store code (tests/cli/test_cli_startup.py).
    from ..core.digest import parse_prefix
    from ..core.layout import OBJECTS_DIR

    prefix = parse_prefix(ref)
    if prefix is None:
        return False
    return any(leaf.startswith(prefix[2:])
               for leaf in store.view().list_dir(f"{OBJECTS_DIR}/{prefix[:2]}"))


INTERRUPTED = 130
"""Exit code of a command stopped by Ctrl-C or SIGTERM before it finished (128 + SIGINT)."""


@contextlib.contextmanager
def interrupt_says(what: str) -> Iterator[None]:
    """Say what a Ctrl-C or SIGTERM left, instead of click's bare "Aborted!"; exit 130.

    For adds: :meth:`kistore.store.Store.add` undoes an add that has not landed before
    the interrupt goes on, so a ``KeyboardInterrupt`` out of it means nothing was added;
    once it has landed, the :class:`Landing` passed as its ``on_landed`` takes the signals
    and nothing is raised. (Without one, an interrupt after the landing is
    :class:`kistore.store.AddInterrupted`: passed on untouched.)

    Args:
        what: what was left, after ``interrupted``: e.g. ``before the add landed: nothing
            was added; ...``.

    Raises:
        click.exceptions.Exit: with :data:`INTERRUPTED` (130), after the message on stderr.
    """
    try:
        yield
    except KeyboardInterrupt as e:
        store = sys.modules.get("kistore.store")  # not imported yet: nothing was written
        if store is not None and isinstance(e, store.AddInterrupted):  # landed
            raise
        click.echo(f"interrupted {what}", err=True)
        raise click.exceptions.Exit(INTERRUPTED) from None


@contextlib.contextmanager
def metadata_option_hint(hint: str) -> Iterator[None]:
    """Add this command's option to each metadata conflict the store refuses with.

    The store says what conflicts (:class:`~kistore.core.errors.MetadataConflictError`)
    and knows no command line; the command that ran says which of its options replaces
    the metadata (``add --update-metadata``, ``import --update-metadata``).

    Args:
        hint: appended to each such problem's message after ``"; "``, e.g. ``pass
            --update-metadata to replace it``.

    Raises:
        KistoreError: the error raised inside, each metadata conflict's message extended.
    """
    try:
        yield
    except KistoreError as e:
        for problem in e.problems:
            if isinstance(problem, MetadataConflictError):
                problem.message += f"; {hint}"
                problem.args = (problem.format(),)
        raise


class Landing:
    """Ctrl-C and SIGTERM once an add has landed: noted, said, never a stop (exit 0).

    Pass :meth:`landed` as the store's ``on_landed``
    (:meth:`kistore.store.Store.add`): the store calls it the moment nothing is left to
    undo, while the signals are still held over the branch move, so from then on each
    is only noted (a stop there said "nothing was added" of a committed add, or ended
    the command with no word). :meth:`say` reports them after the add returns.

    Attributes:
        commit: the commit the add landed as (hex), None before it lands or without one.
        late: the signal numbers noted since, in order.
    """

    def __init__(self) -> None:
        self.commit: str | None = None
        self.late: list[int] = []

    def landed(self, commit: str | None) -> None:
        """Note Ctrl-C and SIGTERM from here to the exit (the store's ``on_landed``).

        SIGALRM too: one that landed in a finaliser comes back as it (:func:`_terminated`).
        """
        self.commit = commit
        for number in (signal.SIGINT, signal.SIGTERM, signal.SIGALRM):
            signal.signal(number, self._note)

    def _note(self, number: int, frame: Any) -> None:
        """Signal handler past the landing: remember, raise nothing."""
        watchdog.answered()
        self.late.append(number)

    def say(self, noun: str, count: int) -> None:
        """Say on stderr, if a signal came after the add (or import) landed, that it is whole.

        Args:
            noun: ``add``, ``import`` or ``migration``.
            count: how many manifests (files, for a migration) the command reports.
        """
        if not self.late:
            return
        where = f"committed as {self.commit}" if self.commit else "in the work tree"
        what = "files are written" if noun == "migration" else "manifests are stored"
        click.echo(f"interrupted after the {noun} had landed: all {count} {what} "
                   f"and {where}; nothing was undone", err=True)


def undone_add(noun: str, *, commit: bool, update_metadata: bool = False) -> str:
    """Return what :func:`interrupt_says` says of an add (or import) that did not land.

    The store undoes such an add: files it created are removed, files it replaced (the
    metadata ``--update-metadata`` rewrites) get their old bytes back.
    """
    branch = ", and the branch did not move" if commit else ""
    undone = ("any files it had written were removed and any metadata it replaced restored"
              if update_metadata else "any files it had written were removed")
    return f"before the {noun} landed: nothing was added; {undone}{branch}"


def emit_json(value: Any) -> None:
    """Print ``value`` as indented JSON on stdout (UTF-8, keys in stable order).

    A string that is not Unicode text (a file name that is not UTF-8, held as surrogate
    escapes) makes the whole document ASCII with ``\\u`` escapes, which any JSON reader takes.
    """
    text = json.dumps(value, indent=2, ensure_ascii=False)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # a file name that is not UTF-8: escaped, as JSON allows
        text = json.dumps(value, indent=2, ensure_ascii=True)
    click.echo(text)


def emit_jsonl(items: Iterable[Any]) -> None:
    """Print each item as one line of compact JSON on stdout (JSON Lines, UTF-8)."""
    for item in items:
        click.echo(json.dumps(item, ensure_ascii=False, separators=(",", ":")))


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
            "pointer", "line"}]``.

    Raises:
        KistoreError, click.UsageError: the error, after its report.
    """
    try:
        yield
    except (KistoreError, click.UsageError) as e:
        report_error(fmt, e, document)
        raise


_COMMAND_ARGS = "kistore.command_args"
"""``ctx.meta`` key: the arguments after the group's options (the subcommand's name first)."""

_REPORTED = "_kistore_reported"
"""Attribute set on an exception once :func:`report_error` has printed it."""


def report_error(fmt: str | None, error: BaseException,
                 document: dict[str, Any] | None = None) -> None:
    """Print ``error`` on stdout in the machine form ``fmt`` asks for, once an exception.

    Args:
        fmt: ``json`` (one JSON document, indented), ``jsonl`` (that document as one line),
            ``github`` (one ``::error::`` workflow command a problem); any other value
            (``text``, None) prints nothing.
        error: what stopped the command: a :class:`KistoreError` (one entry a problem), a
            click error (its message), an ``OSError`` (the file and the reason, as stderr
            says it), anything else (kistore's internal error, as stderr says it).
        document: what the JSON document holds besides ``ok`` (false) and ``errors``:
            ``[{"message", "file", "pointer", "line"}]``.
    """
    if fmt not in ("json", "jsonl", "github") or getattr(error, _REPORTED, False):
        return
    # (message, file, pointer, line) of each problem
    said: list[tuple[str, str | None, str | None, int | None]]
    if isinstance(error, KistoreError):
        said = [(p.message, p.file, p.pointer, p.line) for p in error.problems]
    elif isinstance(error, click.ClickException):
        said = [(error.format_message(), None, None, None)]
    elif isinstance(error, OSError):
        said = [(f"{error.strerror or error}; nothing was left half-written",
                 None if error.filename is None else str(error.filename), None, None)]
    else:
        said = [(internal_error(error), None, None, None)]
    if fmt in ("json", "jsonl"):
        report = {**(document or {}), "ok": False, "errors": [
            {"message": m, "file": f, "pointer": p, "line": n} for m, f, p, n in said]}
        (emit_json if fmt == "json" else emit_jsonl)(report if fmt == "json" else [report])
    else:
        for message, file, _, line in said:
            click.echo(github_error(message, file, line))
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
    args = ctx.meta.get(_COMMAND_ARGS)
    if args:
        report_error(requested_format(group, ctx, args), error)


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


def github_error(message: str, file: str | None = None, line: int | None = None) -> str:
    """Return a GitHub Actions ``::error`` workflow command for an error that is no finding.

    Args:
        message: what went wrong.
        file: the file it concerns, when one does (a repository path).
        line: its line, when known.

    Returns:
        ``::error file=F,line=L,title=kistore::message`` (``file`` and ``line`` left out
        when None), escaped as :func:`github_escape` says.
    """
    props = [f"file={github_escape(file, True)}"] if file else []
    if file and line is not None:
        props.append(f"line={line}")
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


def format_options(command: Any) -> Any:
    """Add ``--format text|json|jsonl`` and ``--json`` (= ``--format json``) to a command.

    The command receives ``fmt`` and ``as_json``; :func:`output_format` reconciles them.
    """
    command = click.option("--format", "fmt", type=click.Choice(["text", "json", "jsonl"]),
                           default=None, help="Output: text (default), json (one document), "
                           "or jsonl (one JSON object a line, for pipelines).")(command)
    return click.option("--json", "as_json", is_flag=True,
                        help="Same as --format json.")(command)


def one_look(command: Callable[P, R]) -> Callable[P, R]:
    """Run a command that writes nothing under ``store/`` with one look at its shards.

    Within it, the names' keys and the work-tree comparison judge one listing of the
    512 shard directories (:func:`kistore.index.freshness.one_scan`), not two. The cycle
    collector is off while it runs (and as it was after): such a command reads one group,
    and what it makes is freed by reference counts; the collector only re-walked the
    modules it imports (~5-10 ms of a run page, docs/speed.md "Start-up, fourth pass").
    """
    @functools.wraps(command)
    def looked_once(*args: P.args, **kwargs: P.kwargs) -> R:
        collecting = gc.isenabled()
        gc.disable()
        try:
            # Lazy: `kistore CMD --help` loads no store code (tests/cli/test_cli_startup.py).
            from ..index.freshness import one_scan

            with one_scan():
                return command(*args, **kwargs)
        finally:
            if collecting:
                gc.enable()

    return looked_once


def output_format(fmt: str | None, as_json: bool) -> str:
    """Return the output format chosen by ``--format`` and ``--json``.

    Raises:
        click.UsageError: ``--json`` with another ``--format`` (exit code 2).
    """
    if as_json and fmt not in (None, "json"):
        raise click.UsageError(f"--json means --format json; give --format {fmt} alone")
    return "json" if as_json else (fmt or "text")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
