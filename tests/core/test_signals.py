"""kistore.core.signals.catch_swallowed: a KeyboardInterrupt Python swallows comes back.

The end-to-end cases (a real Ctrl-C handled inside each kind of finaliser and callback, in
the console script) are tests/cli/test_ctrl_c_swallowed.py; these hold the hook's own rules:
what it takes, what it hands on, and what it leaves behind.
"""

from __future__ import annotations

import signal
import sys
import time

import pytest

from kistore.core import signals

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")


class _Raising:
    """An object whose finaliser raises ``error`` (Python swallows it: unraisable)."""

    def __init__(self, error: BaseException) -> None:
        self.error = error

    def __del__(self) -> None:
        raise self.error


def _interrupted(number, frame):
    signals.interrupt(frame)


@pytest.fixture
def found(monkeypatch):
    """The hook catch_swallowed finds: it records what reaches it."""
    reached: list[BaseException] = []
    monkeypatch.setattr(sys, "unraisablehook", lambda u: reached.append(u.exc_value))
    yield reached
    signals.release()


def test_a_swallowed_interrupt_is_unsaid_and_raised_again_by_its_echo(found):
    signals.catch_swallowed(_interrupted, lambda: True)
    _Raising(KeyboardInterrupt())  # swallowed by Python
    assert found == []
    assert signal.getsignal(signal.SIGALRM) is signals._echoed
    assert 0 < signal.getitimer(signal.ITIMER_REAL)[0] <= signals.ECHO_S
    with pytest.raises(KeyboardInterrupt):
        time.sleep(1)  # the echo, 10 ms later
    assert signal.getsignal(signal.SIGALRM) is signal.SIG_DFL  # given back as it fired
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


def test_every_other_unraisable_reaches_the_hook_found(found):
    signals.catch_swallowed(_interrupted, lambda: True)
    error = ValueError("a finaliser's own bug")
    _Raising(error)
    assert found == [error]
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


def test_once_the_interrupt_no_longer_counts_it_is_handed_on(found):
    signals.catch_swallowed(_interrupted, lambda: False)
    interrupt = KeyboardInterrupt()
    _Raising(interrupt)
    assert found == [interrupt]
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


def test_a_sigalrm_the_parent_left_ignored_is_ignored_again_once_the_echo_fired(found):
    previous = signal.signal(signal.SIGALRM, signal.SIG_IGN)
    try:
        signals.catch_swallowed(_interrupted, lambda: True)
        _Raising(KeyboardInterrupt())
        with pytest.raises(KeyboardInterrupt):
            time.sleep(1)
        assert signal.getsignal(signal.SIGALRM) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGALRM, previous)


def test_an_interrupt_handled_inside_the_hook_is_echoed_not_raised_there(monkeypatch):
    # a second Ctrl-C while the hook hands an unraisable on: raised there, Python would say
    # "Exception ignored in sys.unraisablehook" and lose it
    def hook_found(unraisable):
        signals.interrupt(sys._getframe())  # the handler, run inside the hook

    monkeypatch.setattr(sys, "unraisablehook", hook_found)
    try:
        signals.catch_swallowed(_interrupted, lambda: True)
        _Raising(ValueError())
        assert signal.getsignal(signal.SIGALRM) is signals._echoed
        with pytest.raises(KeyboardInterrupt):
            time.sleep(1)
    finally:
        signals.release()


def test_an_interrupt_delivered_cancels_a_pending_echo(found):
    signals.catch_swallowed(_interrupted, lambda: True)
    _Raising(KeyboardInterrupt())
    with pytest.raises(KeyboardInterrupt):
        signals.interrupt(sys._getframe())  # a second Ctrl-C, raised in plain code
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)  # no second interrupt later
    assert signal.getsignal(signal.SIGALRM) is signal.SIG_DFL


def test_catch_up_raises_a_pending_echo_now(found):
    signals.catch_swallowed(_interrupted, lambda: True)
    signals.catch_up()  # nothing pending: nothing raised
    _Raising(KeyboardInterrupt())
    with pytest.raises(KeyboardInterrupt):
        signals.catch_up()
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    assert signal.getsignal(signal.SIGALRM) is signal.SIG_DFL


def test_release_gives_the_hook_back_and_disarms(found):
    hook = sys.unraisablehook
    signals.catch_swallowed(_interrupted, lambda: True)
    assert sys.unraisablehook is signals._unraisable
    _Raising(KeyboardInterrupt())
    signals.release()
    assert sys.unraisablehook is hook
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    assert signal.getsignal(signal.SIGALRM) is signal.SIG_DFL
