"""How the worker processes kistore forks start (parsing an add, checking a verify).

A worker ignores Ctrl-C (the parent stops the pool and reports once), takes SIGTERM at its
default (a pool's terminate sends it; the CLI's own handler, an interrupt, is not
inherited), and dies with its parent: a parent killed with SIGKILL must not leave a worker
blocked for ever on a pipe it holds, keeping the caller's stderr open (on Linux through
``PR_SET_PDEATHSIG``, prctl(2); elsewhere only a parent already gone is noticed).
"""

from __future__ import annotations

import os
import signal
import sys

_PR_SET_PDEATHSIG = 1


def start_worker(parent_pid: int) -> None:
    """Set up a forked worker process; call first thing in it (a pool's initializer).

    Args:
        parent_pid: the pid of the process that started the pool (``os.getpid()`` there).

    Exits the worker at once (status 1) when that process is already gone.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if sys.platform.startswith("linux"):
        try:
            # Lazy: ctypes loads only in a forked worker on Linux, for prctl.
            import ctypes

            ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):  # pragma: no cover - no prctl in this libc
            pass
    if os.getppid() != parent_pid:  # the parent died before the request could take effect
        os._exit(1)
