"""``python -m bench.startup_speed``: kistore's start-up cost, variants side by side.

Each variant is a LABEL, a Python interpreter (a venv's ``bin/python``) and a kistore source
tree put first on PYTHONPATH (``-``: the interpreter's installed kistore). Each round runs
every command of every variant once as a fresh process, in an order that rotates each
round, so the load of this shared machine falls on all alike. The table gives medians of
wall time and of the process's own CPU time (user + system, from ``wait4``: less moved by
other jobs on a shared machine than wall time), and each ratio to the floor the command is
judged against:

* ``kistore --help``                     against ``python -c "import click"``
* ``kistore --store STORE add MANIFEST`` against ``python -c "import click, jsonschema"``
  (after the warm-up the add is a no-op that still reads, checks and prints the digest;
  give a manifest the store already holds and the store stays unchanged)
* ``kistore --store STORE rank REF``     against ``python -c "import click"``
* ``kistore --store STORE show REF``     against ``python -c "import click"`` (each ``--show``;
  a run's page ranks its group and ends with its citation: the rank and cite cost too)

Floors run once per interpreter: a venv's ``.pth`` files (setuptools' editable finder)
run at every start of that interpreter, floors included.

Processes run in an empty directory, so the current directory does not shadow PYTHONPATH.
Bytecode: this machine sets PYTHONDONTWRITEBYTECODE=1, so a tree is compiled on every start
unless its ``__pycache__`` was written beforehand (``python -m compileall -q TREE/kistore``).

Example::

    git archive main kistore schemas | tar -x -C /tmp/before
    python -m bench.startup_speed -n 15 --run before .venv/bin/python /tmp/before \\
        --run after .venv/bin/python - --store /tmp/s --manifest w.json \\
        --ref BenchmarkRun/sol-submission-20000 --show BenchmarkRun/sol-submission-20000
"""

from __future__ import annotations

import os
import statistics
import subprocess
import tempfile
import time

import click

_KISTORE = "import sys\nfrom kistore._entry import run\nsys.exit(run())"
"""What the installed ``kistore`` script runs (``kistore._entry:run``)."""


def _timed(args: list[str], env: dict[str, str], cwd: str) -> tuple[float, float]:
    """Run one process: (wall seconds, CPU seconds user + system of that process alone)."""
    start = time.perf_counter()
    process = subprocess.Popen(args, env=env, cwd=cwd, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise click.ClickException(f"{' '.join(args)} exited {process.returncode}")
    return wall, usage.ru_utime + usage.ru_stime


def _p95(values: list[float]) -> float:
    """The 95th percentile (nearest rank) of ``values``."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]


@click.command()
@click.option("--run", "runs", type=(str, str, str), multiple=True, required=True,
              metavar="LABEL PYTHON SRC", help="A variant: label, interpreter, source tree or -.")
@click.option("--store", default=None, help="A store for the add and rank rows.")
@click.option("--manifest", default=None, help="One manifest file for the add row.")
@click.option("--ref", default=None, help="A run for the rank row (needs --store).")
@click.option("--show", "shows", multiple=True, metavar="REF",
              help="A reference for a show row (needs --store; repeatable).")
@click.option("-n", "rounds", default=15, show_default=True, help="Rounds.")
def main(runs: tuple[tuple[str, str, str], ...], store: str | None, manifest: str | None,
         ref: str | None, shows: tuple[str, ...], rounds: int) -> None:
    """Time kistore's start-up for each variant, side by side with the floors."""
    runs = tuple((label, os.path.abspath(python) if os.sep in python else python, src)
                 for label, python, src in runs)  # the processes run in another directory
    floors = ["pass", "import click", "import click, jsonschema"]
    jobs: dict[str, tuple[list[str], dict[str, str]]] = {}
    seen: dict[str, str] = {}  # interpreter -> label of its floors (a venv's .pth files count)
    commands = [("--help", ["--help"], "import click")]
    if store and manifest:
        commands.append(("add", ["--store", store, "add", os.path.abspath(manifest)],
                         "import click, jsonschema"))
    if store and ref:
        commands.append(("rank", ["--store", store, "rank", ref], "import click"))
    for shown in shows if store else ():
        commands.append((f"show {shown}", ["--store", store, "show", shown], "import click"))
    for label, python, src in runs:
        if python not in seen:
            seen[python] = label
            for code in floors:
                jobs[f"{label}: python -c {code!r}"] = ([python, "-c", code], dict(os.environ))
        env = dict(os.environ)
        if src != "-":
            env["PYTHONPATH"] = os.path.abspath(src)
        for name, args, _ in commands:
            jobs[f"{label}: kistore {name}"] = ([python, "-c", _KISTORE, *args], env)
    times: dict[str, list[tuple[float, float]]] = {key: [] for key in jobs}
    with tempfile.TemporaryDirectory() as cwd:
        for args, env in jobs.values():  # warm-up: file cache, first (writing) add
            _timed(args, env, cwd)
        keys = list(jobs)
        for i in range(rounds):
            for key in keys[i % len(keys):] + keys[:i % len(keys)]:
                times[key].append(_timed(*jobs[key], cwd))
    wall = {key: statistics.median(w for w, _ in values) * 1000 for key, values in times.items()}
    cpu = {key: statistics.median(c for _, c in values) * 1000 for key, values in times.items()}
    cpu95 = {key: _p95([c for _, c in values]) * 1000 for key, values in times.items()}
    wall95 = {key: _p95([w for w, _ in values]) * 1000 for key, values in times.items()}
    click.echo(f"{rounds} rounds, medians of wall and of CPU (user+system) time; ratio to its "
               "floor (same interpreter), wall / CPU; then CPU p95 and wall p95, each with "
               "its ratio to the floor's p95 (issue 22: wall p95 within 2x of import click):")
    for key in times:
        floor = next((f"{seen[python]}: python -c {f!r}" for label, python, _ in runs
                      for name, _, f in commands if key == f"{label}: kistore {name}"), None)
        ratio = (f"  {wall[key] / wall[floor]:.2f}x / {cpu[key] / cpu[floor]:.2f}x"
                 if floor else "")
        p95 = (f"  p95 {cpu95[key]:6.1f} ms {cpu95[key] / cpu95[floor]:.2f}x"
               f"  wall p95 {wall95[key]:6.1f} ms {wall95[key] / wall95[floor]:.2f}x" if floor
               else f"  p95 {cpu95[key]:6.1f} ms  wall p95 {wall95[key]:6.1f} ms")
        click.echo(f"  {key:<54} {wall[key]:6.1f} ms / {cpu[key]:6.1f} ms{ratio}{p95}")

if __name__ == "__main__":
    main()
