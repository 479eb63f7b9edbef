"""``python -m bench.jsonl_speed``: the CPU cost of ``--format jsonl`` and ``--json`` output.

Encodes N rows shaped as ``kistore rank --format jsonl`` prints them
(:meth:`kistore.query.ranking.RankedRow.to_json`: rank, digest, name, value, unit,
latencyNs, status, ...; a quarter of the latencies integral floats such as ``372764.0``, a
tenth of the values below 1e-5, which Python writes ``1e-07``) two ways, each the best
of ``--repeat`` rounds of process CPU time (less moved by this shared machine's other jobs
than wall time):

* ``new``: :func:`kistore.query.numbers.json_document` (the standard library's encoders,
  floats canonical);
* ``json.dumps``: the standard library with Python's float ``repr`` (``1e-07``): the floor.

Rows: one line each (``indent=None``, JSON Lines); the document: all rows as one list,
``indent=2`` (``--json``). Prints the seconds and the ratio new/json.dumps.

Until tidy75 a third column, ``old``, timed the hand-written encoder small73 replaced,
imported from the tests (tests/query/test_json_document.py keeps it as the reference the
new encoder's text is held to). That comparison was for small73's one decision, recorded
in docs/speed.md; a bench does not depend on the tests, so it went. To run it again:
``git show bf3aa770:bench/jsonl_speed.py``.

Example::

    PYTHONPATH=. .venv/bin/python -m bench.jsonl_speed -n 100000
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable
from typing import Any

import click

from kistore.query.numbers import json_document


def rows(n: int) -> list[dict[str, Any]]:
    """Return ``n`` rank rows (seeded: the same rows each run)."""
    pick = random.Random(0)
    made = []
    for i in range(n):
        latency = float(pick.randrange(1_000, 10**7)) if i % 4 == 0 else pick.uniform(1e3, 1e7)
        value = pick.uniform(1e-9, 1e-5) if i % 10 == 0 else latency / 1e3
        made.append({"rank": i + 1, "digest": "sha256:" + pick.randbytes(32).hex(),
                     "name": f"sol-submission-{i}", "value": value, "unit": "ns",
                     "latencyNs": latency, "status": "active", "implementation": "cuda-c",
                     "project": "SOL-ExecBench", "role": None, "evidenceLevel": "self-reported",
                     "withdrawn": False, "reason": None})
    return made


def best(repeat: int, work: Callable[[], object]) -> float:
    """Return the least process CPU time (s) of ``repeat`` runs of ``work``."""
    times = []
    for _ in range(repeat):
        start = time.process_time()
        work()
        times.append(time.process_time() - start)
    return min(times)


@click.command()
@click.option("-n", "count", default=100_000, show_default=True, help="Rows.")
@click.option("--repeat", default=3, show_default=True, help="Rounds (the best is kept).")
def main(count: int, repeat: int) -> None:
    """Print the CPU seconds of the two encoders and their ratio, lines and document."""
    data = rows(count)
    compact = {
        "new": lambda: [json_document(r, indent=None) for r in data],
        "json.dumps": lambda: [json.dumps(r, ensure_ascii=False, separators=(",", ":"))
                               for r in data],
    }
    document = {
        "new": lambda: json_document(data),
        "json.dumps": lambda: json.dumps(data, ensure_ascii=False, indent=2),
    }
    for title, ways in ((f"{count:,} rows, one line each (--format jsonl)", compact),
                        (f"{count:,} rows, one document, indent 2 (--json)", document)):
        seconds = {name: best(repeat, work) for name, work in ways.items()}
        click.echo(f"{title}: " + ", ".join(f"{k} {v:.2f} s" for k, v in seconds.items())
                   + f"; new/json.dumps {seconds['new'] / seconds['json.dumps']:.2f}")


if __name__ == "__main__":
    main()
