"""The results table (stdout) and the JSON results file with machine facts."""

from __future__ import annotations

import dataclasses
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from .measure import Row


def machine() -> dict[str, Any]:
    """Facts that make a result comparable: CPUs, Python, pygit2/libgit2, git, validators."""
    import jsonschema
    import pygit2

    try:
        from importlib.metadata import version
        rs = version("jsonschema-rs")
    except Exception:  # noqa: BLE001 - optional fact
        rs = None
    git = subprocess.run(["git", "--version"], capture_output=True, text=True).stdout.strip()
    return {
        "cpu_count": os.cpu_count(),
        "platform": platform.platform(),
        "processor": platform.processor() or platform.machine(),
        "python": sys.version.split()[0],
        "pygit2": pygit2.__version__,
        "libgit2": pygit2.LIBGIT2_VERSION,
        "git": git,
        "jsonschema": jsonschema.__version__ if hasattr(jsonschema, "__version__") else None,
        "jsonschema_rs": rs,
    }


def _fmt(value: float | None) -> str:
    if value is None:
        return "-"
    if value >= 100:
        return f"{value:,.0f}"
    return f"{value:.2f}"


def table(rows: list[Row]) -> str:
    """Format rows as a fixed-width text table."""
    head = ("N", "measure", "kistore", "unit", "baseline", "ratio", "target", "met")
    lines = [head]
    for r in rows:
        met = "-" if r.met is None else ("yes" if r.met else "NO")
        lines.append((f"{r.n:,}", r.what, _fmt(r.value), r.unit,
                      f"{_fmt(r.baseline_value)} ({r.baseline})" if r.baseline else "",
                      "-" if r.ratio is None else f"{r.ratio:.2f}x", r.target, met))
    widths = [max(len(line[i]) for line in lines) for i in range(len(head))]
    out = ["  ".join(c.ljust(w) for c, w in zip(line, widths, strict=True)).rstrip()
           for line in lines]
    out.insert(1, "  ".join("-" * w for w in widths))
    notes = [f"  [{r.n:,} {r.what}] {r.note}" for r in rows if r.note]
    return "\n".join(out + ["", "notes:", *notes])


def write_json(rows: list[Row], facts: dict[str, Any], out_dir: Path,
               command: str, path: Path | None = None, started: str | None = None) -> Path:
    """Write rows, machine facts and the command as JSON; return the file's path.

    ``started`` is the bench's start, UTC as ``YYYYmmddTHHMMSSZ`` (default: now). The file is
    ``out_dir/<started>.json`` (``-2``, ``-3``... when a bench started
    in the same second holds that name), or ``path`` when given: the bench writes it again
    after each step, so a long run that is stopped keeps the steps it finished. Each write
    replaces the file whole (a temp file renamed over it): a crash mid-write keeps the last.
    """
    out_dir.mkdir(parents=True, exist_ok=True)
    started = started or time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    if path is None:
        path = claim_name(out_dir, started)
    temp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    temp.write_text(json.dumps({
        "command": command, "utc": started, "machine": facts,
        "rows": [dataclasses.asdict(r) for r in rows],
    }, indent=2) + "\n")
    os.replace(temp, path)
    return path


def claim_name(out_dir: Path, stamp: str) -> Path:
    """Create and return ``out_dir/STAMP.json``, or the first free ``STAMP-K.json``."""
    for k in range(1, 1000):
        path = out_dir / (f"{stamp}.json" if k == 1 else f"{stamp}-{k}.json")
        try:
            path.open("x").close()
            return path
        except FileExistsError:
            continue
    raise FileExistsError(f"{out_dir}/{stamp}*.json: 999 results files in one second")
