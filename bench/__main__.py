"""``python -m bench``: generate, measure, print the table, write bench/results/*.json."""

from __future__ import annotations

import shlex
import shutil
import sys
import tempfile
import time
from pathlib import Path

import click

from . import export_speed, history, measure, partial_page, report, site_speed

RESULTS = Path(__file__).resolve().parent / "results"

STEPS = ("bulk add", "single add", "verify", "rank", "export", "history depth",
         "blob-less page", "git gc")
"""The measured steps, in the order they run (``--only`` picks some)."""


@click.command()
@click.option("-n", "sizes", type=int, multiple=True,
              help="Store sizes to measure (repeatable). Default: 10,000 and 100,000.")
@click.option("--million", is_flag=True, help="Also measure N = 1,000,000 (takes long).")
@click.option("--repeat", default=7, show_default=True,
              help="Fresh processes per latency measurement (median/p95 over these).")
@click.option("--workdir", type=click.Path(file_okay=False, path_type=Path),
              help="Where to build the stores (default: a temporary directory).")
@click.option("--keep", is_flag=True, help="Keep the stores after measuring.")
@click.option("--reuse", is_flag=True,
              help="Measure the stores a `--keep` run left in --workdir: no generating, no "
                   "bulk add (its rows are that run's); the other steps as asked.")
@click.option("--only", "only", multiple=True, type=click.Choice(STEPS),
              help="Measure only these steps (repeatable); the bulk add that builds the "
                   "store always runs, and the index is built untimed when `rank` is left out.")
@click.option("--chunk", type=click.IntRange(min=0),
              help="Manifests per `add --commit` of the bulk add, each a fresh process "
                   "(0: one add of all N). Default: 100,000 when N > 500,000 (one add of "
                   "1,000,000 does not fit in 24 GB), else 0.")
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path),
              default=RESULTS, show_default=True, help="Directory for the JSON results.")
def main(sizes: tuple[int, ...], million: bool, repeat: int, workdir: Path | None, keep: bool,
         reuse: bool, only: tuple[str, ...], chunk: int | None, out_dir: Path) -> None:
    """Measure kistore against git's own limits at N manifests (issue 8).

    \b
    Example:
      python -m bench                 # N = 10,000 and 100,000
      python -m bench -n 200 --repeat 2
      python -m bench --million       # its bulk add in chunks of 100,000
      python -m bench -n 200 --chunk 50 --only "bulk add"
      python -m bench -n 10000 -n 100000 --only export
      python -m bench --million --workdir W --keep       # then, on the same stores:
      python -m bench -n 1000000 --workdir W --keep --reuse --only verify --only rank
    """
    if reuse and not (workdir and keep):
        raise click.UsageError("--reuse measures the stores a `--keep` run left: give the same "
                               "--workdir, and --keep (reusing them is not removing them)")
    ns = list(sizes) or [10_000, 100_000]
    if million:
        ns.append(1_000_000)
    base = Path(workdir) if workdir else Path(tempfile.mkdtemp(prefix="kistore-bench-"))
    rows: list[measure.Row] = []
    command = "python -m bench " + " ".join(shlex.quote(a) for a in sys.argv[1:])
    facts = report.machine()
    path: Path | None = None
    started = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    try:
        for n in ns:
            here = base / f"n{n}"
            if reuse:
                prepared = measure.kept(here)
            else:
                if here.exists():
                    shutil.rmtree(here)
                here.mkdir(parents=True)
                click.echo(f"N = {n:,}: generating ...", err=True)
                prepared = measure.prepare(here, n)
            per_add = measure.default_chunk(n) if chunk is None else chunk
            steps = [("bulk add", measure.bulk_add, (prepared, per_add)),
                     ("single add", measure.single_add, (prepared, repeat)),
                     ("verify", measure.verify, ()),
                     ("rank", measure.rank, (repeat * 3, prepared)),
                     ("site", site_speed.site, (prepared, n == ns[0] and n >= 1000)),
                     ("export", export_speed.export, ()),
                     ("history depth", history.deep_history, (prepared, repeat)),
                     ("blob-less page", partial_page.blobless_page, (max(3, repeat // 2),)),
                     ("git gc", measure.repo_size, ())]
            if only:
                steps = [s for s in steps if s[0] == "bulk add" or s[0] in only]
            if reuse:  # the kept store is the bulk add's result; adding again would double it
                steps = [s for s in steps if s[0] != "bulk add"]
            for step, fn, args in steps:
                if step == "export" and only and "rank" not in only and not reuse:
                    click.echo(f"N = {n:,}: index build (untimed) ...", err=True)
                    measure.run([measure.kistore_bin(), "--store", str(here / "store"),
                                 "reindex"], check=False)  # export's row is index warm
                click.echo(f"N = {n:,}: {step} ...", err=True)
                rows.extend(fn(here, n, *args))  # type: ignore[operator]
                # After every step: a long run that is stopped keeps what it measured.
                path = report.write_json(rows, facts, out_dir, command.strip(), path, started)
            click.echo(f"N = {n:,}: done; results so far in {path}", err=True)
            if not keep:
                shutil.rmtree(here)
    except KeyboardInterrupt:
        click.echo(f"interrupted; the steps finished are in {path}" if path else
                   "interrupted before the first step finished: no results written", err=True)
        raise SystemExit(130) from None
    finally:
        if not keep and not workdir:
            shutil.rmtree(base, ignore_errors=True)
    click.echo(report.table(rows))
    click.echo(f"\nresults: {path}")


if __name__ == "__main__":
    main()
