"""A Ctrl-C that lands where Python swallows exceptions comes back, not lost (ci140, sig03).

Python does not raise what a signal handler raises inside a finaliser (``__del__``, a
generator the collector closes), a weakref callback (``weakref.finalize``, the weakref
containers' ``remove``, importlib's module-lock ``cb``) or a ``gc.callbacks`` entry: it
prints "Exception ignored in ..." and goes on. The start-up Ctrl-C test once saw it in
importlib's ``cb`` (``add -`` read an empty input, exit 1, not 130); ci159/ci160 in
``WeakKeyDictionary``'s ``remove``. The command line named such frames and, there, re-sent
the interrupt 10 ms later; each kind it did not name lost the Ctrl-C. Now the unraisable hook
brings back every KeyboardInterrupt Python swallows (kistore.core.signals.catch_swallowed).

Each child runs the real console script (``kistore._entry.run``) and, inside the command,
makes a real SIGINT be handled *inside* the swallowing code: ``raise(3)`` (through ctypes,
which does not run Python's handlers) then, in the same C call, drops the last reference
that runs the finaliser or callback; Python runs the handler at that code's first
instruction. The command then goes on for a second: a lost Ctrl-C lets it end 0.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from ..conftest import git
from .test_inherited_ignore import one_run

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="POSIX signals, glibc raise")

# argv: KIND STORE COMMAND...  The SIGINT is handled in KIND's code while the root (ls) or
# the add's reading (add) runs; then the command goes on (a second's sleep, as a slow read).
SWALLOWED_IN = r"""
import ctypes, gc, importlib._bootstrap, itertools, operator, os, signal, sys, time, weakref

kind, store, command = sys.argv[1], sys.argv[2], sys.argv[3:]
raise_ = getattr(ctypes.CDLL(None), "raise")


def handled_in_the_drop(holder):
    # raise(3) trips Python's C handler and no Python code runs until the next frame starts:
    # the one holder.clear() runs as the last reference goes
    list(itertools.starmap(operator.call, [(raise_, signal.SIGINT), (holder.clear,)]))


class Object:
    pass


def quietly(*args):
    pass


def swallow():
    if kind == "__del__":
        class Dying:
            def __del__(self):
                pass
        handled_in_the_drop([Dying()])
    elif kind == "a finaliser not named __del__":
        class Closing:
            def close(self):
                pass
            __del__ = close
        handled_in_the_drop([Closing()])
    elif kind == "weakref.finalize":
        holder = [Object()]
        weakref.finalize(holder[0], quietly)
        handled_in_the_drop(holder)
    elif kind == "a weakref callback":
        holder = [Object()]
        ref = weakref.ref(holder[0], quietly)
        handled_in_the_drop(holder)
    elif kind == "a generator closed by the collector":
        def lines():
            try:
                yield 1
            finally:
                quietly()
        holder = [lines()]
        next(holder[0])
        handled_in_the_drop(holder)
    elif kind == "gc.callbacks":
        def collecting(phase, info):
            pass
        gc.callbacks.append(collecting)
        list(itertools.starmap(operator.call, [(raise_, signal.SIGINT), (gc.collect,)]))
        gc.callbacks.remove(collecting)
    elif kind in ("WeakKeyDictionary", "WeakValueDictionary", "WeakSet"):
        holder = [Object()]
        container = getattr(weakref, kind)()
        if kind == "WeakKeyDictionary":
            container[holder[0]] = 1
        elif kind == "WeakValueDictionary":
            container[1] = holder[0]
        else:
            container.add(holder[0])
        handled_in_the_drop(holder)
    elif kind == "importlib's module lock":
        handled_in_the_drop([importlib._bootstrap._get_module_lock("kistore_test_no_module")])
    else:
        raise AssertionError(kind)
    time.sleep(1)  # the command goes on: a lost Ctrl-C lets it end


if command[0] == "ls":
    import kistore.cli

    real_root_end = kistore.cli._escape_unencodable_output

    def root_end():
        swallow()
        real_root_end()

    kistore.cli._escape_unencodable_output = root_end
else:
    from kistore.store import inputs

    real_read = inputs.read_inputs_apart

    def reading(*args, **kwargs):
        swallow()
        return real_read(*args, **kwargs)

    inputs.read_inputs_apart = reading
sys.argv = ["kistore", "--store", store, *command]
from kistore._entry import run

run()
"""

KINDS = ["__del__", "a finaliser not named __del__", "weakref.finalize", "a weakref callback",
         "a generator closed by the collector", "gc.callbacks", "WeakKeyDictionary",
         "WeakValueDictionary", "WeakSet", "importlib's module lock"]
"""Where Python swallows; BASE (6d3d3e30) named the first and the last four, lost the rest."""


def _run(kind: str, store: Path, *command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", SWALLOWED_IN, kind, str(store), *command],
                          capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("kind", KINDS)
def test_a_ctrl_c_python_swallows_interrupts_the_command_all_the_same(kind, store_path):
    # BASE: (0, '', 'Exception ignored in: ...KeyboardInterrupt') for the kinds it did not name
    done = _run(kind, store_path, "ls")
    assert (done.returncode, done.stdout, done.stderr) == (130, "", "interrupted\n")


@pytest.mark.parametrize("kind", ["a finaliser not named __del__", "weakref.finalize",
                                  "gc.callbacks"])
def test_an_add_whose_ctrl_c_python_swallowed_is_undone(kind, store_path, kit, tmp_path):
    manifests, _ = one_run(kit, tmp_path)
    before = git(store_path, "rev-parse", "HEAD").strip()
    done = _run(kind, store_path, "add", "--commit", str(manifests))
    # BASE: exit 0, the add landed, "Exception ignored in ..." on stderr
    assert (done.returncode, done.stdout) == (130, "")
    assert done.stderr == "interrupted while reading the input: nothing was added or written\n"
    assert git(store_path, "rev-parse", "HEAD").strip() == before
    assert git(store_path, "status", "--porcelain", "--ignored") == ""


# Both: a real SIGINT handled in a finaliser (``in_a_finaliser()``) near the command's end;
# argv: STORE; the script then patches its moment, and runs ``ls`` (RUN_LS).
NEAR_THE_END = r"""
import ctypes, itertools, operator, signal, sys, time
import click
raise_ = getattr(ctypes.CDLL(None), "raise")


class Dying:
    def __del__(self):
        pass


def in_a_finaliser():
    list(itertools.starmap(operator.call, [(raise_, signal.SIGINT), ([Dying()].clear,)]))
"""
RUN_LS = r"""
sys.argv = ["kistore", "--store", sys.argv[1], "ls"]
from kistore._entry import run

run()
"""

# As ``ls`` says whether its output was lost (after the command), then click's exit
# preempted for 50 ms: the echo fires in click's code.
AT_THE_COMMANDS_END = NEAR_THE_END + r"""
from kistore.cli import _streams

real_lost = _streams.lost_output


def lost_output():
    in_a_finaliser()
    return real_lost()


_streams.lost_output = lost_output
real_exit = click.Context.exit


def exit(self, code=0):
    time.sleep(0.05)  # the process preempted in click's code, after the command
    real_exit(self, code)


click.Context.exit = exit
""" + RUN_LS


def test_the_echo_of_a_ctrl_c_swallowed_as_the_command_ends_says_no_aborted(store_path):
    # BASE: (1, '', '\nAborted!\n'): the echo raised in click's exit, after the command
    done = subprocess.run([sys.executable, "-c", AT_THE_COMMANDS_END, str(store_path)],
                          capture_output=True, text=True, timeout=120)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


# ``ls`` itself ends so: the echo is still pending (10 ms) as the command returns.
IN_THE_LAST_10_MS = NEAR_THE_END + r"""
real_invoke = click.Command.invoke


def invoke(self, ctx):
    result = real_invoke(self, ctx)
    if self.name == "ls":
        in_a_finaliser()
    return result


click.Command.invoke = invoke
""" + RUN_LS


def test_a_ctrl_c_swallowed_in_the_commands_last_10_ms_interrupts_it(store_path):
    # the echo is raised as the command returns (kistore.core.signals.catch_up), before its
    # status is chosen. BASE: (0, '', '') or (1, '', '\nAborted!\n'): the echo disarmed as
    # run() ended (the Ctrl-C lost), or fired in click's exit
    done = subprocess.run([sys.executable, "-c", IN_THE_LAST_10_MS, str(store_path)],
                          capture_output=True, text=True, timeout=120)
    assert (done.returncode, done.stdout, done.stderr) == (130, "", "interrupted\n")
