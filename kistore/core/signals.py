"""Signal handlers kistore installs, never over a signal the process was started ignoring.

A program whose parent left SIGINT or SIGTERM ignored (a non-interactive shell starts
``cmd &`` with SIGINT ignored; ``nohup`` and supervisors ignore others) keeps it ignored
from start to end: that is the Unix convention, and the parent's way of saying the signal
is not meant to stop it. kistore broke it for parts of a run (fresh03 H7): the command line
took SIGTERM whatever it was, a write that held signals noted an ignored SIGINT and undid the
add (exit 130), and a landed add noted it and said "interrupted after the add had landed".

In the process that runs a command kistore itself sets no signal to ignored (it does so only
in the worker processes it forks, and for SIGINT as the console script exits), so an
ignored signal there is the parent's: :func:`take` leaves it so.
"""

from __future__ import annotations

import signal
from collections.abc import Callable, Iterable
from types import FrameType
from typing import Any

Handler = Callable[[int, FrameType | None], Any]
"""A Python signal handler: called with the signal number and the interrupted frame."""


def ignored(number: int) -> bool:
    """Return whether signal ``number`` is ignored here (``SIG_IGN``: left so by the parent)."""
    return signal.getsignal(number) is signal.SIG_IGN


def take(numbers: Iterable[int], handler: Handler) -> dict[int, Any]:
    """Install ``handler`` for each signal of ``numbers`` that is not ignored.

    Must run on the main thread (:func:`signal.signal`'s rule).

    Args:
        numbers: signal numbers (``signal.SIGINT``, ...).
        handler: the Python function to run on each.

    Returns:
        Each signal replaced, with the handler it had (as :func:`signal.signal` returns
        it: a function, ``SIG_DFL``, or None when not set from Python); an ignored signal
        is left out, and left ignored.

    Raises:
        ValueError: called off the main thread.
    """
    return {number: signal.signal(number, handler) for number in numbers
            if not ignored(number)}
