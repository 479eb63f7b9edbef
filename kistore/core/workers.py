"""How the worker processes kistore forks start (parsing an add, checking a verify).

A worker ignores Ctrl-C (the parent stops the pool and reports once), takes SIGTERM at its
default (a pool's terminate sends it; the CLI's own handler, an interrupt, is not
inherited) unless the parent was started ignoring SIGTERM (then only the parent's own
SIGTERM ends it: :func:`_only_the_parents_sigterm`), and dies with its parent: a parent
killed with SIGKILL must not leave a worker blocked for ever on a pipe it holds, keeping
the caller's stderr open (on Linux through ``PR_SET_PDEATHSIG``, prctl(2); elsewhere only a
parent already gone is noticed).

The parent holds Ctrl-C and SIGTERM while it forks (:func:`forking`): a signal landing
inside a fork ran its handler in an at-fork hook (logging's ``_releaseLock``), where Python
prints the interrupt as "Exception ignored" with a traceback and drops it, so the add went
on and landed (review 2026-12-02, and a flaky ``test_sigterm_mid_write...``).
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from collections.abc import Iterator

from . import signals

_PR_SET_PDEATHSIG = 1

_HELD = frozenset({signal.SIGINT, signal.SIGTERM})
"""The signals held while forking: those the CLI turns into an interrupt."""


def cpus() -> int:
    """Return how many CPUs this process may run on (its affinity, else the machine's)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        return os.cpu_count() or 1


@contextlib.contextmanager
def forking() -> Iterator[None]:
    """Hold Ctrl-C and SIGTERM in this thread while its body forks worker processes.

    A signal sent meanwhile stays pending and is taken when the body ends, in the code
    after it (the interrupt then undoes the work as anywhere else), never inside a fork's
    at-fork hooks. The children start with both held; :func:`start_worker` lets them in
    once their own handlers are set. Where ``pthread_sigmask`` does not exist, nothing is
    held.

    Yields:
        None, with SIGINT and SIGTERM blocked (``pthread_sigmask(2)``) until the body ends.
    """
    try:
        before = signal.pthread_sigmask(signal.SIG_BLOCK, _HELD)
    except (AttributeError, OSError):  # pragma: no cover - no pthread_sigmask here
        yield
        return
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


def start_worker(parent_pid: int, *, ignore_sigterm: bool = False) -> None:
    """Set up a forked worker process; call first thing in it (a pool's initializer).

    Both signals' dispositions are set before they are let in: one sent to the process
    group while the worker forked is pending in it (held since the fork) and is taken
    the moment they are, under the worker's own disposition, never an earlier one. The
    parent's interrupt hook (:func:`kistore.core.signals.catch_swallowed`, inherited by
    the fork) is released: a worker ignores Ctrl-C, so an interrupt swallowed in it is none
    of its own to bring back, and it arms no SIGALRM echo (review01 L9).

    Args:
        parent_pid: the pid of the process that started the pool (``os.getpid()`` there).
        ignore_sigterm: ignore SIGTERM too, leaving it to the parent, which stops the
            worker its own way (the store writer's child: killed between creating a temp
            file and noting it, it would leave the file behind). Default: SIGTERM at its
            default (a pool's terminate sends it).

    Exits the worker at once (status 1) when that process is already gone.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signals.release()  # the parent's interrupt hook: no echo is ever armed here (review01 L9)
    let_in = _HELD
    if not ignore_sigterm and signals.ignored(signal.SIGTERM) and _only_the_parents_sigterm(
            parent_pid):
        let_in = _HELD - {signal.SIGTERM}  # taken by the thread that waits for it
    else:
        signal.signal(signal.SIGTERM, signal.SIG_IGN if ignore_sigterm else signal.SIG_DFL)
    with contextlib.suppress(AttributeError, OSError):  # held by forking() in the parent
        signal.pthread_sigmask(signal.SIG_UNBLOCK, let_in)
    if sys.platform.startswith("linux"):
        try:
            # Lazy: ctypes loads only in a forked worker on Linux, for prctl.
            import ctypes

            ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):  # pragma: no cover - no prctl in this libc
            pass
    if os.getppid() != parent_pid:  # the parent died before the request could take effect
        os._exit(1)


def _only_the_parents_sigterm(parent_pid: int) -> bool:
    """In a worker whose parent was started ignoring SIGTERM: only the parent's ends it.

    The parent leaves such a SIGTERM ignored (:mod:`.signals`, fresh03 H7), but a worker at
    SIGTERM's default died of the one sent to the whole process group (``kill -TERM
    -PGID``, a supervisor stopping the group): the pool lost its task, and a
    ``multiprocessing.Pool`` then waited for it for ever (a ``verify`` hung). Yet the
    parent's pool stops its workers by SIGTERM (``terminate``). So SIGTERM stays held in
    this thread (held since :func:`forking`) and a daemon thread takes each one
    (``sigwaitinfo(2)``): sent by ``parent_pid``, the worker dies of it, at its default;
    sent by anyone else, it is dropped, as the parent drops it.

    The thread runs Python, so it takes the parent's SIGTERM only once it holds the GIL:
    a worker inside one long C call that keeps the GIL dies when that call returns, not at
    once as at SIGTERM's default in the kernel (review01 L8). A worker's calls work on one
    stored file at a time, at most 16 MiB (:data:`kistore.core.limits.FILE_BYTES`;
    ``json.loads`` of 12.7 MiB took 0.2 s on the loaded development machine), so a pool's
    ``terminate``/``join`` waits about that long at most; no SIGKILL fallback is sent
    (the parent's SIGKILL needs none: ``PR_SET_PDEATHSIG`` ends the worker in the
    kernel).

    Must run in the worker's only thread, SIGTERM blocked. Returns False (nothing done)
    where ``sigwaitinfo`` does not exist.
    """
    if not hasattr(signal, "sigwaitinfo"):  # pragma: no cover - not Linux or BSD
        return False
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})  # threads started inherit it

    def wait() -> None:
        while signal.sigwaitinfo({signal.SIGTERM}).si_pid != parent_pid:
            pass
        os.kill(os.getpid(), signal.SIGTERM)  # pending again: let in here, its default ends us
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})

    threading.Thread(target=wait, name="kistore-sigterm", daemon=True).start()
    return True
