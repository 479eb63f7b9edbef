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
from types import SimpleNamespace

import pytest

from kistore import _entry, cli

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
    def del_frame():
        return SimpleNamespace(f_code=SimpleNamespace(co_name="__del__", co_filename="x.py"),
                               f_back=None)

    real = cli.StoreContext.store

    def store(self):
        cli._terminated(signal.SIGINT, del_frame())  # swallowed there: the echo is armed
        return real(self)

    monkeypatch.setattr(cli.StoreContext, "store", store)
    before = _handlers()
    runner.invoke(cli.main, ["--store", str(store_path), "ls"])
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    assert _handlers() == before


def test_the_console_script_keeps_them_to_its_exit(store_path, runner, monkeypatch, host):
    monkeypatch.setattr(_entry, "console", True)
    before = _handlers()
    try:
        result = runner.invoke(cli.main, ["--store", str(store_path), "ls"])
        assert result.exit_code == 0, result.output
        assert signal.getsignal(signal.SIGTERM) is cli._terminated
        assert signal.getsignal(signal.SIGINT) is cli._terminated
    finally:
        for number, handler in before.items():  # this process is not the console script
            signal.signal(number, handler)
