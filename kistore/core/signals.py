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

An interrupt Python swallows comes back (:func:`catch_swallowed`). A handler's exception
raised inside a finaliser (``__del__``, a generator closed by the collector), a weakref
callback (``weakref.finalize``, ``WeakKeyDictionary``'s, importlib's module-lock ``cb``) or a
``gc.callbacks`` entry is not raised: Python hands it to :data:`sys.unraisablehook` ("Exception
ignored in ...") and goes on, so a Ctrl-C handled there was lost (ci140, ci159/ci160: ``add -``
read an empty input, an ``ls`` ran to its end). The command line once named the frames where
that happens (``__del__``, ``cb``, three weakref callbacks); every list missed one. The hook
sees each such interrupt, whatever swallowed it, and raises it again
:data:`ECHO_S` later (SIGALRM), where Python does not swallow it.
"""

from __future__ import annotations

import signal
import sys
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


ECHO_S = 0.01
"""Seconds after which an interrupt Python swallowed is raised again (its echo, SIGALRM)."""

_handler: list[Handler] = []
"""The handler an echo runs (one item) while :func:`catch_swallowed` holds; else empty."""

_previous: list[Any] = []
"""The :data:`sys.unraisablehook` :func:`catch_swallowed` found (one item while it holds)."""

_alarm: list[Any] = []
"""SIGALRM's disposition before an echo took it (one item while an echo is pending)."""


def catch_swallowed(handler: Handler, live: Callable[[], bool]) -> None:
    """Bring back every KeyboardInterrupt Python swallows, through ``handler``, from now on.

    Installs a :data:`sys.unraisablehook` that takes an unraisable KeyboardInterrupt (one
    raised in a finaliser, a weakref callback or a ``gc.callbacks`` entry, whichever) while
    ``live()``: it says nothing, and arms an echo: :data:`ECHO_S` seconds later SIGALRM runs
    ``handler`` (which raises the interrupt again: :func:`interrupt`). SIGALRM is taken only
    while the echo is pending and given back as it fires (one the parent left ignored stays
    ignored the rest of the time; one sent meanwhile is the echo, a few ms early). Every
    other unraisable goes to the hook found. Must run on the main thread. Undone by
    :func:`release`.

    Args:
        handler: the interrupt's signal handler (called with ``signal.SIGALRM`` and the
            frame the echo interrupted).
        live: whether an interrupt still counts (False once the process's end is chosen:
            an echo then would outlive the command).
    """
    release()
    _handler.append(handler)
    _live.append(live)
    if sys.unraisablehook is not _unraisable:
        _previous[:] = [sys.unraisablehook]
        sys.unraisablehook = _unraisable


_live: list[Callable[[], bool]] = []
"""``live`` of :func:`catch_swallowed` (one item while it holds)."""


def release() -> None:
    """Undo :func:`catch_swallowed`: the hook found is back, no echo is left armed.

    SIGALRM gets back the disposition an echo took it from. Does nothing when
    :func:`catch_swallowed` does not hold.
    """
    _cancel_echo()
    _handler.clear()
    _live.clear()
    if _previous and sys.unraisablehook is _unraisable:  # else a later hook chains to it
        sys.unraisablehook = _previous.pop()


def interrupt(frame: FrameType | None) -> None:
    """Raise KeyboardInterrupt here, the interrupt's handler; inside the hook, echo it.

    Call from the signal handler (``frame``: the frame it interrupted). An echo still
    pending is cancelled: this is the interrupt, delivered. Inside the unraisable hook
    (a second Ctrl-C as it runs) the exception would be lost, "Exception ignored in
    sys.unraisablehook": the echo is armed instead.

    Raises:
        KeyboardInterrupt: always, except inside the hook.
    """
    if _in_hook(frame):
        _echo()
        return
    _cancel_echo()
    raise KeyboardInterrupt


def catch_up() -> None:
    """Raise now an interrupt whose echo is pending (a safe point: the command's end).

    An interrupt swallowed in the command's last :data:`ECHO_S` seconds would otherwise
    be raised after it, in click's code (its "Aborted!", exit 1), or not at all. Nothing
    happens when no echo is pending, or when a block holding the signals took SIGALRM
    over it (it notes the echo as it fires).

    Raises:
        KeyboardInterrupt: from the handler, when an echo was pending.
    """
    if _alarm and _handler and signal.getsignal(signal.SIGALRM) is _echoed:
        _cancel_echo()
        _handler[0](signal.SIGALRM, sys._getframe())


def _unraisable(unraisable: Any) -> None:
    """``sys.unraisablehook``: an interrupt swallowed is echoed, unsaid; the rest chained."""
    if isinstance(unraisable.exc_value, KeyboardInterrupt) and _handler and _live[0]():
        try:
            _echo()
            return
        except ValueError:  # not the main thread (signal.signal's rule): said as before
            pass
    previous = _previous[0] if _previous else sys.__unraisablehook__
    previous(unraisable)


def _in_hook(frame: FrameType | None) -> bool:
    """Return whether ``frame`` runs inside :func:`_unraisable` (or what it calls)."""
    while frame is not None:
        if frame.f_code is _unraisable.__code__:
            return True
        frame = frame.f_back
    return False


def _echo() -> None:
    """Arm the echo: SIGALRM runs :func:`_echoed` in :data:`ECHO_S` seconds.

    Raises:
        ValueError: not on the main thread.
    """
    if not _alarm:
        _alarm.append(signal.signal(signal.SIGALRM, _echoed))
    signal.setitimer(signal.ITIMER_REAL, ECHO_S)


def _echoed(number: int, frame: FrameType | None) -> None:
    """SIGALRM of an echo: give SIGALRM back, run the interrupt's handler (it raises)."""
    if _in_hook(frame):  # fired while the hook still runs: raised there it would be lost
        signal.setitimer(signal.ITIMER_REAL, ECHO_S)
        return
    _cancel_echo()
    if _handler:
        _handler[0](number, frame)


def _cancel_echo() -> None:
    """Disarm a pending echo and give SIGALRM its disposition back (nothing if none)."""
    if not _alarm:
        return
    signal.setitimer(signal.ITIMER_REAL, 0)
    before = _alarm.pop()
    if signal.getsignal(signal.SIGALRM) is _echoed:  # else a block took it, and gives it back
        signal.signal(signal.SIGALRM, signal.SIG_DFL if before is None else before)
