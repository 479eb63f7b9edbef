"""``python -m bench.rank_speed``: ``kistore rank`` before/after on one store, same run.

Measures, for each kistore source tree given (e.g. ``main`` exported with
``git archive main kistore | tar -x -C /tmp/base``, and this checkout):

* ``kistore rank REF`` as fresh processes (``python -m kistore``, the tree on PYTHONPATH),
  p50/p95, beside ``python -c "import click"`` in the same run;
* ``kistore.query.answers.rank`` in-process, after one warm-up call;
* the evidence of the first K runs in-process: ``evidence_for`` per run, and
  ``evidence_for_many`` once where the tree has it (the answers are asserted equal).

Example::

    python -m bench.rank_speed --store /tmp/a/store --store /tmp/b/store \\
        --src /tmp/base --src . -n 21
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
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
    start = time.perf_counter()
    subprocess.run(args, env=env, cwd=cwd, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


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
def main(stores: tuple[Path, ...], ref: str, sources: tuple[Path, ...], repeat: int,
         runs: int) -> None:
    """Time `kistore rank REF` per source tree, alternating, with the index warm.

    \b
    Example:
      python -m bench.rank_speed --store /tmp/a/store --store /tmp/b/store \\
          --src /tmp/base --src . -n 21
    """
    if len(stores) not in (1, len(sources)):
        raise click.UsageError("give one --store, or one per --src")
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
    floor = []
    for _ in range(repeat):  # alternate, so load on a shared machine hits every tree alike
        for i, (command, env, src) in enumerate(commands):
            fresh[i].append(_timed(command, env, src))
        floor.append(_timed([py, "-c", "import click"], os.environ, pairs[0][0]))
    f50, _ = _percentiles(floor)
    for (src, store), times, (_, env, _) in zip(pairs, fresh, commands, strict=True):
        p50, p95 = _percentiles(times)
        click.echo(f"{src} on {store}:\n  fresh process: p50 {p50:.0f} ms, p95 {p95:.0f} ms "
                   f"({repeat} runs); python -c 'import click' p50 {f50:.0f} ms "
                   f"(ratio {p50 / f50:.2f}x)")
        subprocess.run([py, "-c", _IN_PROCESS, str(store), ref, "20", str(runs)],
                       env=env, cwd=src, check=True)


if __name__ == "__main__":
    main()
