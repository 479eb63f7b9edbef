"""Peak memory of a command and every process it forks, sampled from ``/proc`` (Linux).

``resource.getrusage(RUSAGE_CHILDREN).ru_maxrss`` is the largest single process waited
for, not a sum: a ``kistore add`` whose forked children each hold gigabytes shows only the
biggest. Here every process of the tree is read each :data:`INTERVAL` seconds
(``/proc/PID/smaps_rollup``): ``Pss`` sums without counting a copy-on-write page twice;
``Rss`` of the command's own process is what ``/usr/bin/time`` calls max RSS. A peak
shorter than the interval can be missed.
"""

from __future__ import annotations

import subprocess
import threading
import time
from pathlib import Path
from typing import Any

INTERVAL = 0.2
"""Seconds between two samples of the process tree."""


def _tree(pid: int) -> list[int]:
    """Return ``pid`` and its descendants alive now (empty when it has exited)."""
    found, todo = [], [pid]
    while todo:
        p = todo.pop()
        try:
            children = Path(f"/proc/{p}/task/{p}/children").read_text().split()
        except OSError:
            continue
        found.append(p)
        todo.extend(int(c) for c in children)
    return found


def _rollup(pid: int) -> dict[str, int]:
    """Return ``Rss``, ``Pss`` and ``Anonymous`` of a process in kB (empty: gone)."""
    values = {}
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            key, _, rest = line.partition(":")
            if key in ("Rss", "Pss", "Anonymous"):
                values[key] = int(rest.split()[0])
    except (OSError, ValueError, IndexError):
        return {}
    return values


def run_sampled(args: list[str], *, env: dict[str, str] | None = None
                ) -> tuple[float, subprocess.CompletedProcess[bytes], dict[str, Any]]:
    """Run ``args`` to the end while sampling its process tree's memory.

    Args:
        args: the command.
        env: its environment (None: this process's).

    Returns:
        ``(wall seconds, completed process, peaks)``; ``peaks`` in bytes:
        ``parent_rss`` (the command's own process), ``tree_pss`` (the sum over the command
        and its descendants at one sample), ``child_rss`` (the largest descendant), and
        ``processes`` (the most alive at once). All 0 without ``/proc``.
    """
    peaks = {"parent_rss": 0, "tree_pss": 0, "child_rss": 0, "processes": 0}
    start = time.perf_counter()
    proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env)
    done = threading.Event()

    def sample() -> None:
        while not done.is_set():
            pids = _tree(proc.pid)
            rollups = [_rollup(p) for p in pids]
            if rollups:
                peaks["parent_rss"] = max(peaks["parent_rss"], rollups[0].get("Rss", 0) * 1024)
                peaks["tree_pss"] = max(peaks["tree_pss"],
                                        sum(r.get("Pss", 0) for r in rollups) * 1024)
                peaks["child_rss"] = max([peaks["child_rss"],
                                          *(r.get("Rss", 0) * 1024 for r in rollups[1:])])
                peaks["processes"] = max(peaks["processes"], len(pids))
            done.wait(INTERVAL)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    try:
        out, err = proc.communicate()
    finally:
        done.set()
        sampler.join()
    seconds = time.perf_counter() - start
    return seconds, subprocess.CompletedProcess(args, proc.returncode, out, err), peaks
