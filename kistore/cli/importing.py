"""``kistore import SOURCE FILE...``: real public data into the store (docs/importers.md)."""

from __future__ import annotations

import sys

import click

from . import refuse_empty
from ._adding import Landing, interrupt_says, metadata_option_hint, undone_add
from ._context import StoreContext
from ._machine import emit_json, writes

pass_ctx = click.make_pass_decorator(StoreContext)

SOURCE_NAMES = ("sol-execbench", "flashinfer-trace", "kernelbench")
"""Kept here (not imported from kistore.importers) so ``kistore --help`` stays fast."""


@writes(True)
@click.command("import")
@click.argument("source", type=click.Choice(SOURCE_NAMES))
@click.argument("files", nargs=-1, required=True, callback=refuse_empty)
@click.option("--commit", "do_commit", is_flag=True,
              help="Also commit what was added on the current branch (git status stays clean).")
@click.option("-m", "--message", help="Commit message for --commit.")
@click.option("--skip-invalid", is_flag=True,
              help="Leave out bad records (one warning line each) instead of importing nothing.")
@click.option("--update-metadata", is_flag=True,
              help="Replace the stored metadata of objects imported before with other "
                   "metadata (e.g. from a copy without SOURCE.md); a committed name never moves.")
@click.option("--json", "as_json", is_flag=True, help="Print the summary and manifests as JSON.")
@pass_ctx
def import_(ctx: StoreContext, source: str, files: tuple[str, ...], do_commit: bool,
            message: str | None, skip_invalid: bool, update_metadata: bool,
            as_json: bool) -> None:
    """Import a source's files or directories: runs and what they reference.

    SOURCE is sol-execbench, flashinfer-trace or kernelbench; FILE is a file or a folder of
    that source (folders are walked; files of other formats are listed as ignored; when no
    file is of the source's formats, nothing is imported and the exit code is 1). All or
    nothing: a bad record is reported with FILE[:LINE]:/json/pointer and nothing is
    imported, unless --skip-invalid. Importing again adds nothing; an object stored
    before with other metadata (imported from another folder) is refused unless
    --update-metadata. Prints how many manifests of each kind were added or already
    stored (and, with --update-metadata, updated).

    \b
    Example:
      kistore import --commit sol-execbench ../shared/data/sol-execbench
      kistore import kernelbench ../shared/data/kernelbench/H100_Modal --json
    """
    # Lazy: `kistore CMD --help` loads no store code (tests/cli/test_cli_startup.py).
    from ..attest.evidence import withdrawn_runs
    from ..importers import plan_import, run_import
    from ..query.above_zero import above_zero_admitted
    from ..query.outlier_rules import outliers_check, ranked_kept
    from ..query.ranked_values import values_check
    from ..query.units import units_admitted

    if message and not do_commit:
        raise click.UsageError("-m/--message needs --commit")
    store = ctx.store()
    store.require_checkout_to_write("kistore import")  # run_import too: before reading
    landing = Landing()
    with interrupt_says(undone_add("import", commit=do_commit,
                                             update_metadata=update_metadata)), \
            metadata_option_hint("pass --update-metadata to replace it"), \
            ranked_kept(store):  # each run's share of KI221 and KI234 kept with its facts
        plan = plan_import(source, files, store.limits())
        if not plan.records:
            _nothing_recognised(source, files, plan.ignored)
        with click.progressbar(length=len(plan.records), label=f"importing {source}",
                               file=sys.stderr) as bar:
            report = run_import(store, source, plan, commit=do_commit, message=message,
                                skip_invalid=skip_invalid, update_metadata=update_metadata,
                                progress=bar.update, on_landed=landing.landed,
                                # a run whose unit disagrees with its group's (KI210),
                                # a run 100x ahead of its group's reference (KI234),
                                # a ranked value that is no number (KI221),
                                # a ranked time of 0 or below (KI237)
                                checks=(units_admitted, values_check, above_zero_admitted,
                                        outliers_check(withdrawn_runs(store))))
        landing.landed(landing.commit)  # nothing was written, or it landed: print it all
    landing.say("import", len(report.results))
    for problem in report.skipped:
        click.echo(f"warning: {problem.format()} (record skipped)", err=True)
    # Lazy: `kistore CMD --help` loads no store code (tests/cli/test_cli_startup.py).
    from ..core.errors import printable

    for line in report.warnings:  # provenance of files outside their source's folder
        click.echo(printable(f"warning: {line}"), err=True)
    for name in report.ignored:  # a file name: its controls and bytes escaped
        click.echo(printable(f"note: {name}: not an import format of {source} (ignored)"),
                   err=True)
    counts = report.counts()
    if as_json:
        emit_json({
            "source": source, "records": report.records, "runs": report.runs,
            "counts": counts, "skipped": [p.format() for p in report.skipped],
            "ignored": report.ignored, "warnings": list(report.warnings),
            "manifests": [{"digest": str(r.digest), "kind": r.kind, "name": r.name,
                           "status": r.status, "warnings": list(r.warnings)}
                          for r in report.results],
        })
        return
    updated = "" if not update_metadata else f"{'updated':>9}"
    click.echo(f"{'kind':<22}{'added':>7}{'unchanged':>11}{updated}")
    for kind, by_status in counts.items():
        updated = "" if not update_metadata else f"{by_status['metadata-updated']:>9}"
        click.echo(f"{kind:<22}{by_status['added']:>7}{by_status['unchanged']:>11}{updated}")
    click.echo(f"{report.runs} runs from {report.records} records; "
               f"{len(report.skipped)} skipped, {len(report.ignored)} files ignored")


def _nothing_recognised(source: str, files: tuple[str, ...], ignored: list[str]) -> None:
    """Refuse an import that found no file of ``source``'s formats (exit 1, nothing added)."""
    # Lazy: `kistore CMD --help` loads no store code (tests/cli/test_cli_startup.py).
    from ..core.errors import InputError, printable

    for name in ignored:
        click.echo(printable(f"note: {name}: not an import format of {source} (ignored)"),
                   err=True)
    raise InputError(f"nothing to import: no file of {' '.join(files)} is a {source} file "
                     f"({len(ignored)} file(s) ignored); name the source's folder or files "
                     "(docs/importers.md lists each source's formats)")


COMMANDS = [import_]
