"""A command run inside another program gives it its signal handling back when it ends (ci152).

``kistore.cli.main`` takes SIGINT and SIGTERM while a command runs (an interrupt: an add is
undone, exit 130), a landed add takes them and SIGALRM to note them, and an interrupt that
lands in a finaliser arms a 10 ms SIGALRM. Left in place after the command, a SIGTERM sent
to the program later raised KeyboardInterrupt in whatever it ran, or, after an add, was
only noted: ci152, a test run stopped with SIGTERM, went on for 30 minutes. The console
script keeps them to its exit (reviewer r80 F8: a signal there must not end a landed add).
"""

from __future__ import annotations

import os
import signal
import sys
import time

import pytest

from kistore import _entry, cli
from kistore.core import signals

from ..conftest import BUNDLE


@pytest.fixture
def host():
    """The program's own SIGTERM handler, recording what it is sent (restored after)."""
    heard: list[int] = []
    before = signal.signal(signal.SIGTERM, lambda number, frame: heard.append(number))
    try:
        yield heard
    finally:
        signal.signal(signal.SIGTERM, before)


def _handlers() -> dict[int, object]:
    return {n: signal.getsignal(n) for n in (signal.SIGINT, signal.SIGTERM, signal.SIGALRM)}


def test_a_sigterm_after_the_command_reaches_the_program_s_own_handler(store_path, runner,
                                                                         host):
    before = _handlers()
    result = runner.invoke(cli.main, ["--store", str(store_path), "ls"])
    assert result.exit_code == 0, result.output
    assert _handlers() == before
    os.kill(os.getpid(), signal.SIGTERM)  # was KeyboardInterrupt here, raised by _terminated
    assert host == [signal.SIGTERM]


def test_a_landed_add_leaves_sigint_and_sigterm_to_the_program(store_path, runner, host):
    before = _handlers()
    result = runner.invoke(cli.main, ["--store", str(store_path), "add", "--commit",
                                      "--allow-dangling", str(BUNDLE)])
    assert result.exit_code == 0, result.output
    assert _handlers() == before  # not the landing's note-only handlers
    os.kill(os.getpid(), signal.SIGTERM)
    assert host == [signal.SIGTERM]
    with pytest.raises(KeyboardInterrupt):  # Python's default: the program stops on Ctrl-C
        os.kill(os.getpid(), signal.SIGINT)


def test_the_echo_of_an_interrupt_is_not_left_armed(store_path, runner, monkeypatch):
    # a Ctrl-C that landed in a finaliser near the command's end: its 10 ms echo would fire
    # in the program's next code (a later test's), as KeyboardInterrupt
    class Dying:
        def __del__(self):
            cli._terminated(signal.SIGINT, sys._getframe())  # raised here: swallowed

    real = cli.StoreContext.store

    def store(self):
        Dying()  # the unraisable hook arms the echo
        assert signal.getitimer(signal.ITIMER_REAL) != (0.0, 0.0)
        return real(self)

    monkeypatch.setattr(cli.StoreContext, "store", store)
    before, hook = _handlers(), sys.unraisablehook
    result = runner.invoke(cli.main, ["--store", str(store_path), "ls"])
    # the command's end raised the pending echo (kistore.core.signals.catch_up)
    assert (result.exit_code, result.output) == (130, "interrupted\n")
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    assert _handlers() == before
    assert sys.unraisablehook is hook  # the program's own


def test_an_interrupt_swallowed_inside_the_command_comes_back_in_it(store_path, runner,
                                                                     monkeypatch):
    class Dying:
        def __del__(self):
            cli._terminated(signal.SIGINT, sys._getframe())

    real = cli.StoreContext.store
    came = []

    def store(self):
        Dying()
        try:
            time.sleep(2)  # the command goes on: the echo interrupts it 10 ms later
        except KeyboardInterrupt:
            came.append(time.monotonic())
            raise
        return real(self)

    monkeypatch.setattr(cli.StoreContext, "store", store)
    before, hook = _handlers(), sys.unraisablehook
    result = runner.invoke(cli.main, ["--store", str(store_path), "ls"])
    assert (result.exit_code, result.output, len(came)) == (130, "interrupted\n", 1)
    assert _handlers() == before and sys.unraisablehook is hook


def test_the_console_script_keeps_them_to_its_exit(store_path, runner, monkeypatch, host):
    monkeypatch.setattr(_entry, "console", True)
    monkeypatch.setattr(_entry, "ending", False)  # the console's command end sets it
    before = _handlers()
    try:
        result = runner.invoke(cli.main, ["--store", str(store_path), "ls"])
        assert result.exit_code == 0, result.output
        assert signal.getsignal(signal.SIGTERM) is cli._terminated
        assert signal.getsignal(signal.SIGINT) is cli._terminated
        assert sys.unraisablehook is signals._unraisable  # kept too
    finally:
        signals.release()  # this process is not the console script
        for number, handler in before.items():
            signal.signal(number, handler)
