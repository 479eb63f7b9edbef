"""``kistore drop``: remove an uncommitted add's files (:mod:`kistore.store.drop`)."""

from __future__ import annotations

import click

from ._context import StoreContext
from ._machine import emit_json, writes

pass_ctx = click.make_pass_decorator(StoreContext)


@writes(True)
@click.command()
@click.argument("refs", nargs=-1, required=True)
@click.option("--dry-run", is_flag=True, help="Only list the files that would be removed.")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON list instead of lines.")
@pass_ctx
def drop(ctx: StoreContext, refs: tuple[str, ...], dry_run: bool, as_json: bool) -> None:
    """Remove from the work tree an add that was never committed, to add it corrected.

    REF is a digest, a prefix of 8+ hex digits, or KIND/NAME. Removes the files an
    earlier `kistore add` wrote for it (object, metadata, its names file, a run's forward
    records and group file) and nothing else, so its name is free again. An object HEAD
    holds is never removed (KI402): add a corrected manifest with another name. A
    manifest another stored one references (a run naming a workload) is refused unless
    both are dropped in one command. Prints one line per file: PATH DIGEST.

    \b
    Example:
      kistore drop BenchmarkRun/my-run
      kistore drop --dry-run sha256:3f2a9c1e
    """
    # Lazy: `kistore CMD --help` loads no store code (tests/cli/test_cli_startup.py).
    from ..core.errors import printable
    from ..store.drop import drop as drop_files

    dropped = drop_files(ctx.store(), refs, dry_run=dry_run)
    if as_json:
        emit_json([{"digest": str(d.digest), "kind": d.kind, "name": d.name,
                    "paths": list(d.paths), "removed": not dry_run} for d in dropped])
        return
    lines = [f"{path} {d.digest}" for d in dropped for path in d.paths]
    if lines:
        click.echo(printable("\n".join(lines)))
    count = sum(len(d.paths) for d in dropped)
    said = "would be removed (dry run: nothing was)" if dry_run else "removed"
    click.echo(f"{len(dropped)} manifest(s), {count} file(s) {said}", err=True)


COMMANDS = [drop]
