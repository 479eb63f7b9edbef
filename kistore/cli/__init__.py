"""The ``kistore`` command line: one click group, thin subcommands (DESIGN §8).

Every subcommand parses options, calls the library, prints, and sets the exit code:
0 success, 1 invalid input or failed verification, 2 usage error. Errors go to stderr,
one problem a line (``FILE[:LINE:COL]:/json/pointer: message``); a traceback only with
``--debug``. Heavy libraries (pygit2, jsonschema, cryptography) are imported inside the
commands that need them, so ``kistore --help`` stays fast.
"""

from __future__ import annotations

import sys
from typing import Any

import click

from ..errors import KistoreError


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
            from ..store import Store

            self._store = Store(self.path)
        return self._store


class KistoreGroup(click.Group):
    """Click group that turns errors into one stderr line per problem and exit code 1.

    :class:`KistoreError` prints each of its problems; an ``OSError`` (a file that could not
    be read or written) prints the file and the reason. ``--debug`` shows the traceback.
    """

    def invoke(self, ctx: click.Context) -> Any:  # noqa: D102 - click API
        try:
            return super().invoke(ctx)
        except KistoreError as e:
            if ctx.params.get("debug"):
                raise
            for problem in e.problems:
                click.echo(f"error: {problem.format()}", err=True)
            ctx.exit(1)
        except BrokenPipeError:  # `kistore rank ... | head`: the reader has what it wants
            import os

            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            ctx.exit(0)
        except OSError as e:  # a file we could not read or write: say which, no traceback
            if ctx.params.get("debug"):
                raise
            where = f"{e.filename}: " if e.filename else ""
            click.echo(f"error: {where}{e.strerror or e}; nothing was left half-written",
                       err=True)
            ctx.exit(1)


@click.group(cls=KistoreGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--store", "store_path", metavar="PATH", envvar="KISTORE_STORE",
              help="Store to use (default: the git work tree around the current directory).")
@click.option("--debug", is_flag=True, help="Show a traceback on errors.")
@click.version_option(package_name="kistore")
@click.pass_context
def main(ctx: click.Context, store_path: str | None, debug: bool) -> None:
    """Kistore: content-addressed, git-backed GPU kernel benchmark manifests.

    \b
    Example:
      kistore init my-index && cd my-index
      kistore add --commit ../shared/examples/*.bundle.json --allow-dangling
      kistore show BenchmarkRun/sol-submission-20464
    """
    ctx.obj = StoreContext(store_path)


def emit_json(value: Any) -> None:
    """Print ``value`` as indented JSON on stdout (UTF-8, keys in stable order)."""
    import json

    click.echo(json.dumps(value, indent=2, ensure_ascii=False))


def register() -> None:
    """Attach every subcommand module's commands to :func:`main`."""
    from . import attest, cite, core, importing, query, verify

    for module in (core, importing, query, verify, attest, cite):
        for command in module.COMMANDS:
            main.add_command(command)


register()


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
