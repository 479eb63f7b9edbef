"""Forked workers (kistore.workers): they die with their parent, and leave signals to it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

# A parent that forks a worker set up as kistore's pools set them up, then waits; the
# worker blocks for ever, as a parse worker blocked writing to a full pipe does.
_PARENT = r"""
import os, sys, time
from kistore.core.workers import start_worker

parent = os.getpid()
child = os.fork()
if child == 0:
    start_worker(parent)
    time.sleep(600)
    os._exit(0)
print(child, flush=True)
time.sleep(600)
"""


def _alive(pid: int) -> bool:
    """True while ``pid`` runs (a zombie nobody reaps counts as gone)."""
    try:
        with open(f"/proc/{pid}/status") as f:
            return "\nState:\tZ" not in f.read()
    except FileNotFoundError:
        return False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")
def test_a_worker_dies_when_its_parent_is_killed():
    # A new-user attack: `kill -9` of an add while it parsed left a worker with PPid 1
    # blocked on a pipe for ever; it held the caller's stderr open, so `$(kistore add ...)`
    # never returned.
    parent = subprocess.Popen([sys.executable, "-c", _PARENT], stdout=subprocess.PIPE,
                              text=True)
    worker = int(parent.stdout.readline())
    assert _alive(worker)
    parent.kill()
    parent.wait()
    deadline = time.monotonic() + 10
    while _alive(worker) and time.monotonic() < deadline:
        time.sleep(0.02)
    alive = _alive(worker)
    if alive:
        os.kill(worker, signal.SIGKILL)
    assert not alive


def _handlers() -> tuple[object, object]:
    return signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)


def test_a_worker_leaves_ctrl_c_to_the_parent_and_takes_sigterm_at_its_default():
    import multiprocessing

    from kistore.core.workers import start_worker

    with multiprocessing.get_context("fork").Pool(1, start_worker, (os.getpid(),)) as pool:
        assert pool.apply(_handlers) == (signal.SIG_IGN, signal.SIG_DFL)
