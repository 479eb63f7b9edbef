"""``kistore export`` at N: the whole export as a fresh process, beside pyarrow alone.

The baseline is the least any exporter of these tables pays on this machine: the same
rows (read back from the export, not timed), held as an in-memory list of Python dicts,
written with pyarrow (``Table.from_pylist`` + ``parquet.write_table``, the export's own
writer options), one table at a time, in this process, in the same run. What the export
adds on top: reading and re-hashing every object from git, ranking every group, the history
walk, staging and sorting rows on disk, partitioning.

The export's maximum resident memory is measured too (``os.wait4`` of the child), for the
issue's "bounded memory" claim: compare it across N.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

from .measure import Row, env, kistore_bin

TABLES = ("runs", "groups", "attestations", "manifests")


def export(workdir: Path, n: int) -> list[Row]:
    """Time ``kistore export`` of the bench store (index warm) and the pyarrow floor."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from kistore.export.writers import PARQUET_OPTIONS, ROW_GROUP_ROWS

    store, out = workdir / "store", workdir / "export"
    shutil.rmtree(out, ignore_errors=True)
    seconds, code, rss_kb, stderr = _timed([kistore_bin(), "--store", str(store), "export",
                                            str(out)], workdir)
    if code not in (0, 1):
        raise RuntimeError(f"kistore export exited {code}: {stderr[-2000:]}")
    rows_per_table: dict[str, int] = {}
    floor = 0.0
    for table in TABLES:
        files = sorted((out / table).rglob("*.parquet"))
        if not files:
            rows_per_table[table] = 0
            continue
        parts = [pq.ParquetFile(f).read() for f in files]
        schema = parts[0].schema
        rows = [row for part in parts for row in part.to_pylist()]  # the in-memory list
        del parts
        rows_per_table[table] = len(rows)
        target = workdir / f"floor-{table}.parquet"
        start = time.perf_counter()
        pq.write_table(pa.Table.from_pylist(rows, schema=schema), target,
                       row_group_size=ROW_GROUP_ROWS[table], **PARQUET_OPTIONS)
        floor += time.perf_counter() - start
        del rows
        target.unlink()
    runs = rows_per_table["runs"]
    rate, floor_rate = runs / seconds, runs / floor
    size = sum(f.stat().st_size for f in out.rglob("*") if f.is_file())
    shutil.rmtree(out)
    counts = ", ".join(f"{t} {c:,}" for t, c in rows_per_table.items())
    return [
        Row(n, "export (parquet, whole store)", rate, "runs/s",
            "pyarrow writing the same rows from an in-memory list", floor_rate,
            rate / floor_rate, "", None,
            f"exit {code}; kistore {seconds:.1f} s (fresh process, index warm), pyarrow "
            f"{floor:.1f} s (in process, rows already in memory); rows: {counts}; "
            f"{size / 1e6:,.1f} MB written",
            {"kistore_s": seconds, "pyarrow_s": floor, "rows": rows_per_table,
             "bytes": size, "max_rss_kb": rss_kb}),
        Row(n, "export max RSS", rss_kb / 1024, "MB", "", None, None, "", None,
            "maximum resident memory of the export process (os.wait4); the tables are "
            "streamed, so this should not grow with N", {"max_rss_kb": rss_kb}),
    ]


def _timed(args: list[str], cwd: Path) -> tuple[float, int, int, str]:
    """Run a command; return (seconds, exit code, max RSS in KB, stderr text)."""
    err = cwd / "export.stderr"
    with open(err, "wb") as stderr:
        start = time.perf_counter()
        child = subprocess.Popen(args, cwd=cwd, stdin=subprocess.DEVNULL,
                                 stdout=subprocess.DEVNULL, stderr=stderr, env=env())
        _, status, usage = os.wait4(child.pid, 0)
        seconds = time.perf_counter() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    return seconds, child.returncode, usage.ru_maxrss, err.read_text(errors="replace")
