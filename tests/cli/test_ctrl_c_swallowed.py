"""A Ctrl-C that lands where Python ignores exceptions comes back, not lost (ci140).

The start-up Ctrl-C test (tests/cli/test_cli.py) once saw the SIGINT handled inside
importlib's weakref callback that drops a module lock: Python printed "Exception ignored in
<function _get_module_lock.<locals>.cb>", the KeyboardInterrupt was lost and ``add -`` read an
empty input (exit 1, not 130). The handler re-sends itself from such frames, as it already
did from a finaliser.
"""

from __future__ import annotations

import importlib._bootstrap as bootstrap
import signal
import weakref
from types import SimpleNamespace

import pytest

from kistore import cli


def _lock_callback_code():
    [code] = [c for c in bootstrap._get_module_lock.__code__.co_consts
              if getattr(c, "co_name", None) == "cb"]
    return code


def test_importlibs_module_lock_callback_is_known_to_swallow():
    code = _lock_callback_code()
    assert code.co_filename == "<frozen importlib._bootstrap>"  # this Python's, as matched
    assert cli.swallows(code)
    assert not cli.swallows(test_importlibs_module_lock_callback_is_known_to_swallow.__code__)


@pytest.mark.parametrize("code", [_lock_callback_code(), (lambda: None).__code__])
def test_the_handler_in_a_swallowing_frame_re_arms_instead_of_raising(code, monkeypatch):
    armed = []
    monkeypatch.setattr(cli.signal, "setitimer", lambda which, delay: armed.append(delay))
    previous = signal.getsignal(signal.SIGALRM)
    inner = SimpleNamespace(f_code=code, f_back=None)
    try:
        if cli.swallows(code):
            cli._terminated(signal.SIGINT, inner)  # no raise: it would be ignored there
            assert armed == [0.01] and signal.getsignal(signal.SIGALRM) is cli._terminated
        else:
            with pytest.raises(KeyboardInterrupt):
                cli._terminated(signal.SIGINT, inner)
            assert armed == []
    finally:
        signal.signal(signal.SIGALRM, previous)


@pytest.mark.parametrize("container", [weakref.WeakKeyDictionary, weakref.WeakValueDictionary,
                                       weakref.WeakSet])
def test_the_standard_librarys_weakref_callbacks_are_known_to_swallow(container):
    # ci159/ci160: a Ctrl-C's echo fired in WeakKeyDictionary's `remove` and was lost
    # ("Exception ignored in ... WeakKeyDictionary.__init__.<locals>.remove")
    code = container()._remove.__code__
    assert cli.swallows(code)
    look_alike = SimpleNamespace(co_name=code.co_name, co_qualname=code.co_qualname,
                                 co_filename="/home/someone/mine.py")
    assert not cli.swallows(look_alike)

