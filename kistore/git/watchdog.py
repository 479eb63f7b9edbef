"""A command stuck inside C code still stops on Ctrl-C or SIGTERM (review F3).

The command line turns SIGINT and SIGTERM into a Python exception
(``kistore.cli._terminated``). Python runs that handler only between bytecodes: while the
main thread loops inside C code it never runs, and the process ignored both signals for
ever. libgit2 does loop so on a truncated loose object (libgit2/libgit2#7342: inflate's
``Z_BUF_ERROR`` taken as "no output yet"; every read of the object spins at 100% CPU,
fixed upstream after the libgit2 1.9.x that pygit2 1.21 bundles). No Python thread can
help: the looping thread holds the GIL.

So :func:`start` forks a small watcher process. Python's own C-level signal handler writes
each signal's number to the watcher's pipe (:func:`signal.set_wakeup_fd`), and every
kistore handler that runs says so (:func:`answered`). A SIGINT or SIGTERM left unanswered
for :data:`GRACE` seconds means the main thread is stuck in C: the watcher says so on
stderr and kills the process (SIGKILL, the only signal that needs no handler to run).
Inside a block that defers interrupts (``kistore.git.commit.interrupts_deferred``: a write
in progress, which :func:`deferring` marks) the watcher never kills; the grace starts
again when the block ends. The watcher ends with the process (end of file on its pipe;
on Linux also ``PR_SET_PDEATHSIG``).

Armed only by the console script (``kistore`` and ``python -m kistore``, :func:`arm`),
where every SIGINT and SIGTERM handler is kistore's and answers; a program or test
importing kistore keeps its own signal handling. The fork is made only where libgit2 can
run: when pygit2 is first imported, by any module (a :data:`sys.meta_path` finder), before
its first line runs; at once when it already is. ``kistore --help``, a work-tree ``add``
and a warm ``rank`` or ``show`` load no pygit2 and fork nothing (the fork cost ~6% of
their start-up).
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from importlib.machinery import ModuleSpec
from types import ModuleType

from ..core import workers

GRACE = 3.0
"""Seconds a SIGINT or SIGTERM may wait for its handler before the process is killed."""

STUCK = (
    "kistore: interrupted, but the command was stuck inside git's C code (libgit2) and "
    "could not stop by itself, so it was killed. A damaged "
    "loose git object makes libgit2 loop so: run `git fsck` and restore the objects it "
    "names from another clone or the remote\n")
"""What the watcher says on stderr before it kills a stuck command."""

_ANSWERED = 0xF0
_ENTER = 0xF1
_LEAVE = 0xF2

_fd: int | None = None
"""The write end of the watcher's pipe, in the process that started it; else None."""

_owner = 0
"""The pid of the process that started the watcher (a forked worker inherits ``_fd``)."""

_armed = 0
"""The pid of the process :func:`arm` armed (a forked worker inherits it, and is not)."""

_depth = 0
"""Interrupt-deferring blocks open in this process (told to a watcher started inside one)."""


class _StartOnImport:
    """A :data:`sys.meta_path` finder that starts the watcher when pygit2 is first imported.

    It finds nothing itself (``find_spec`` returns None: the usual finders import pygit2
    after it) and leaves :data:`sys.meta_path` at its first call for pygit2.
    """

    def find_spec(self, fullname: str, path: Sequence[str] | None,
                  target: ModuleType | None = None) -> ModuleSpec | None:
        """Start the watcher when ``fullname`` is ``pygit2``; always return None."""
        if fullname == "pygit2":
            with contextlib.suppress(ValueError):
                sys.meta_path.remove(self)
            if os.getpid() == _armed:
                start()
        return None


def arm() -> None:
    """Start the watcher when pygit2 is first imported in this process (now, if it is).

    Call once from the console script, on the main thread, after the command's handlers
    are chosen (they must call :func:`answered`). A process that never imports pygit2
    forks no watcher: no libgit2 call can be stuck there.
    """
    global _armed
    _armed = os.getpid()
    if "pygit2" in sys.modules:
        start()
    elif not any(isinstance(finder, _StartOnImport) for finder in sys.meta_path):
        sys.meta_path.insert(0, _StartOnImport())


def start() -> None:
    """Fork the watcher and point Python's signal wake-up at it; once per process.

    Call from the main thread, after the command's handlers are chosen (they must call
    :func:`answered`). Does nothing off the main thread, when already started, or where
    ``fork`` does not exist.
    """
    global _fd, _owner
    if _fd is not None or not hasattr(os, "fork") or \
            threading.current_thread() is not threading.main_thread():
        return
    parent = os.getpid()
    read_end, write_end = os.pipe()
    with workers.forking():
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the watcher (tests/cli/test_stuck_in_c.py)
            try:
                workers.start_worker(parent, ignore_sigterm=True)
                os.close(write_end)
                _watch(read_end, parent)
            finally:
                os._exit(0)
    os.close(read_end)
    os.set_blocking(write_end, False)
    signal.set_wakeup_fd(write_end, warn_on_full_buffer=False)
    _fd, _owner = write_end, parent
    for _ in range(_depth):  # started inside interrupt-deferring blocks: the watcher waits
        _send(_ENTER)


def answered() -> None:
    """Tell the watcher a Python signal handler ran (call first in each kistore handler)."""
    _send(_ANSWERED)


@contextlib.contextmanager
def deferring() -> Iterator[None]:
    """Mark a block that defers interrupts: the watcher kills nothing while it runs."""
    global _depth
    _depth += 1
    _send(_ENTER)
    try:
        yield
    finally:
        _depth -= 1
        _send(_LEAVE)


def _send(byte: int) -> None:
    """Write one byte to the watcher, if this process started one; never block or raise."""
    if _fd is None or os.getpid() != _owner:
        return
    with contextlib.suppress(OSError):  # a full pipe (never drained?) or a watcher gone
        os.write(_fd, bytes((byte,)))


def _watch(read_end: int, parent: int) -> None:  # pragma: no cover - runs in the watcher
    """Read the pipe until it closes; kill ``parent`` when a signal goes unanswered."""
    waiting_since: float | None = None  # the first unanswered SIGINT or SIGTERM
    depth = 0  # interrupt-deferring blocks open in the parent
    while True:
        timeout = None
        if waiting_since is not None and depth == 0:
            timeout = max(0.0, waiting_since + GRACE - time.monotonic())
        ready, _, _ = select.select([read_end], [], [], timeout)
        if not ready:
            if os.getppid() == parent:
                with contextlib.suppress(OSError):
                    os.write(2, STUCK.encode())
                with contextlib.suppress(OSError):
                    os.kill(parent, signal.SIGKILL)
            return
        data = os.read(read_end, 4096)
        if not data:
            return
        for byte in data:
            if byte in (signal.SIGINT, signal.SIGTERM):
                if waiting_since is None:
                    waiting_since = time.monotonic()
            elif byte == _ANSWERED:
                waiting_since = None
            elif byte == _ENTER:
                depth += 1
            elif byte == _LEAVE:
                depth = max(0, depth - 1)
                if depth == 0 and waiting_since is not None:
                    waiting_since = time.monotonic()

