"""``python -m bench.rank_speed``: ``kistore rank`` before/after on one store, same run.

Measures, for each kistore source tree given (e.g. ``main`` exported with
``git archive main kistore | tar -x -C /tmp/base``, and this checkout):

* ``kistore rank REF`` as fresh processes (``python -m kistore``, the tree on PYTHONPATH),
  p50/p95, beside ``python -c "import click"`` in the same run;
* ``kistore.query.answers.rank`` in-process, after one warm-up call;
* the evidence of the first K runs in-process: ``evidence_for`` per run, and
  ``evidence_for_many`` once where the tree has it (the answers are asserted equal).

With ``--after-add JSONL`` every timed ``rank`` comes right after a work-tree ``kistore add``
of one new run (:func:`bench.generate.extra_run` of the file's last line; the add is not
timed), optionally ``--settle`` seconds later (past the index's racy window, 2 s): the
first query after an add (issue 22). Give one store per tree then: each tree adds to its
own. The fresh processes' CPU (user + sys, from ``getrusage`` of the children) is printed
beside their wall time.

Example::

    python -m bench.rank_speed --store /tmp/a/store --store /tmp/b/store \\
        --src /tmp/base --src . -n 21
"""

from __future__ import annotations

import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import click

_IN_PROCESS = r"""
import statistics, sys, time
import kistore
print(f"  kistore from {kistore.__file__}")
from kistore.attest import evidence
from kistore.query.answers import rank
from kistore.store import Store
store_path, ref, n, k = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
times = []
for _ in range(n + 1):
    store = Store(store_path)
    start = time.perf_counter()
    rank(store, ref)
    times.append(time.perf_counter() - start)
times = sorted(times[1:])
p95 = times[min(len(times) - 1, int(0.95 * len(times)))]
print(f"  in-process rank: p50 {statistics.median(times) * 1000:.1f} ms, "
      f"p95 {p95 * 1000:.1f} ms ({n} calls after one warm-up)")
store = Store(store_path)
from kistore.index.index import open_catalog
from kistore.core.digest import Digest
digests = [Digest.from_str(r.digest) for r in open_catalog(store).records(kind="BenchmarkRun")][:k]
evidence.evidence_for(store, digests[0])
start = time.perf_counter()
one_by_one = {d: evidence.evidence_for(store, d) for d in digests}
per = time.perf_counter() - start
line = f"  evidence of {len(digests)} runs: evidence_for each {per * 1000:.0f} ms"
if hasattr(evidence, "evidence_for_many"):
    start = time.perf_counter()
    batch = evidence.evidence_for_many(store, digests)
    many = time.perf_counter() - start
    assert batch == one_by_one, "batch and per-run evidence differ"
    line += f", evidence_for_many {many * 1000:.0f} ms ({per / many:.0f}x)"
print(line)
"""


def _percentiles(times: list[float]) -> tuple[float, float]:
    ordered = sorted(times)
    return (statistics.median(ordered) * 1000,
            ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))] * 1000)


def _timed(args: list[str], env: dict[str, str], cwd: Path) -> float:
    return _timed_cpu(args, env, cwd)[0]


def _timed_cpu(args: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float]:
    """Run ``args``; return its wall time and CPU time (user + sys), seconds."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(args, env=env, cwd=cwd, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime


def _add_one(py: str, store: Path, env: dict[str, str], cwd: Path, template: bytes,
             index: int) -> None:
    """``kistore add`` (work tree, no commit) of one new run into ``store``."""
    from .generate import extra_run

    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(extra_run(template, index), f)
    try:
        subprocess.run([py, "-m", "kistore", "--store", str(store), "add", f.name], env=env,
                       cwd=cwd, check=True, stdout=subprocess.DEVNULL)
    finally:
        os.unlink(f.name)


@click.command()
@click.option("--store", "stores", required=True, multiple=True,
              type=click.Path(exists=True, path_type=Path),
              help="A store whose index is built (run `kistore reindex` once). Give one per "
                   "--src when their index formats differ (each tree keeps its own copy).")
@click.option("--ref", default="BenchmarkRun/sol-submission-20000", show_default=True,
              help="The run to rank.")
@click.option("--src", "sources", multiple=True, required=True,
              type=click.Path(exists=True, file_okay=False, path_type=Path),
              help="A directory holding a `kistore` package (repeatable; first = baseline).")
@click.option("-n", "repeat", default=21, show_default=True, help="Fresh processes per tree.")
@click.option("-k", "runs", default=2000, show_default=True,
              help="Runs whose evidence is asked in-process.")
@click.option("--after-add", "after_add", default=None,
              type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="A bench JSONL file: before each timed rank, add one new run made from its "
                   "last line (work tree, untimed) to that tree's store.")
@click.option("--settle", default=0.0, show_default=True,
              help="With --after-add: seconds between the add and the timed rank.")
@click.option("--add-from", "add_from", default=900_000, show_default=True,
              help="With --after-add: the first new run's number (sol-submission-single-N); "
                   "another series on the same stores needs others (a run added again is "
                   "unchanged: nothing is written).")
def main(stores: tuple[Path, ...], ref: str, sources: tuple[Path, ...], repeat: int,
         runs: int, after_add: Path | None, settle: float, add_from: int) -> None:
    """Time `kistore rank REF` per source tree, alternating, with the index warm.

    \b
    Example:
      python -m bench.rank_speed --store /tmp/a/store --store /tmp/b/store \\
          --src /tmp/base --src . -n 21
    """
    if len(stores) not in (1, len(sources)):
        raise click.UsageError("give one --store, or one per --src")
    if after_add is not None and len(stores) != len(sources):
        raise click.UsageError("--after-add: give one --store per --src (each adds to its own)")
    template = after_add.read_bytes().splitlines()[-1] if after_add is not None else b""
    py = sys.executable
    pairs = [(src.resolve(), store.resolve())
             for src, store in zip(sources, stores * len(sources) if len(stores) == 1
                                   else stores, strict=False)]
    commands = []
    for src, store in pairs:  # children run in src: `-m`/`-c` put the cwd first on sys.path
        env = {**os.environ, "PYTHONPATH": str(src)}
        command = [py, "-m", "kistore", "--store", str(store), "rank", ref]
        _timed(command, env, src)  # brings the index up to date; not counted
        commands.append((command, env, src))
    fresh: list[list[float]] = [[] for _ in pairs]
    cpu: list[list[float]] = [[] for _ in pairs]
    floor = []
    for round_ in range(repeat):  # alternate, so load on a shared machine hits every tree alike
        for i, (command, env, src) in enumerate(commands):
            if after_add is not None:
                _add_one(py, pairs[i][1], env, src, template, add_from + round_)
                time.sleep(settle)
            wall, used = _timed_cpu(command, env, src)
            fresh[i].append(wall)
            cpu[i].append(used)
        floor.append(_timed([py, "-c", "import click"], os.environ, pairs[0][0]))
    f50, _ = _percentiles(floor)
    for (src, store), times, used, (_, env, _) in zip(pairs, fresh, cpu, commands, strict=True):
        p50, p95 = _percentiles(times)
        after = "" if after_add is None else f", each right after an add (+{settle} s)"
        click.echo(f"{src} on {store}:\n  fresh process: p50 {p50:.0f} ms, p95 {p95:.0f} ms, "
                   f"CPU p50 {statistics.median(used) * 1000:.0f} ms ({repeat} runs{after}); "
                   f"python -c 'import click' p50 {f50:.0f} ms (ratio {p50 / f50:.2f}x)")
        click.echo("  each run (wall/CPU ms): " + ", ".join(
            f"{w * 1000:.0f}/{c * 1000:.0f}" for w, c in zip(times, used, strict=True)))
        subprocess.run([py, "-c", _IN_PROCESS, str(store), ref, "20", str(runs)],
                       env=env, cwd=src, check=True)


if __name__ == "__main__":
    main()
