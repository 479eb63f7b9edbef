"""A Ctrl-C while kistore starts always ends the process: exit 130, one line (low01 item 5).

``kistore._entry.run`` takes SIGINT before it imports the command line. A SIGINT handled
where Python ignores what a handler raises (importlib's module-lock weakref callback ``cb``
run as an import ends, another weakref callback, a finaliser) printed "Exception ignored in
..." with a ``SystemExit: 130`` traceback, and the command went on and finished (mend00's
report: the start-up Ctrl-C could be lost). Each test here runs a fresh interpreter and
sends a real SIGINT; the last sends it at random moments of a whole ``kistore show``.
"""

from __future__ import annotations

import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kistore import _entry
from tests.conftest import python_c

STARTING = "interrupted while starting: nothing was read or written\n"

# Runs `kistore --version` in a fresh interpreter; SIGINT lands inside a weakref callback.
# {setup} runs first; it arranges for the signal to be handled in such a callback.
VERSION = ("import os, signal, sys\n"
           "{setup}\n"
           "sys.argv = ['kistore', '--version']\n"
           "from kistore._entry import run\n"
           "sys.exit(run())\n")

# importlib's own: the lock of module `click` is dropped by `cb` (importlib._bootstrap's
# weakref callback), which deletes it from `_module_locks`: the signal is sent from there,
# and a Python call after it lets the handler run before `cb` returns (ci140's case).
IN_IMPORTLIBS_CB = (
    "import importlib._bootstrap as b\n"
    "def handled_here():\n"
    "    pass\n"
    "class Locks(dict):\n"
    "    def __delitem__(self, name):\n"
    "        super().__delitem__(name)\n"
    "        if name == 'click':\n"
    "            os.kill(os.getpid(), signal.SIGINT)\n"
    "            handled_here()\n"
    "b._module_locks = Locks(b._module_locks)\n")

# Any other weakref callback (no list of names knows it): an object of click's import dies.
IN_ANOTHER_CALLBACK = (
    "import builtins, weakref\n"
    "real = builtins.__import__\n"
    "class Dying:\n"
    "    pass\n"
    "def handled_here():\n"
    "    pass\n"
    "def dropped(ref):\n"
    "    os.kill(os.getpid(), signal.SIGINT)\n"
    "    handled_here()\n"
    "def importing(name, *a, **k):\n"
    "    if name == 'click':\n"
    "        builtins.__import__ = real\n"
    "        dying = Dying()\n"
    "        ref = weakref.ref(dying, dropped)\n"
    "        del dying\n"
    "    return real(name, *a, **k)\n"
    "builtins.__import__ = importing\n")

# A bare `except:` around an import swallows what the handler raised.
IN_A_BARE_EXCEPT = (
    "import builtins\n"
    "real = builtins.__import__\n"
    "def handled_here():\n"
    "    pass\n"
    "def importing(name, *a, **k):\n"
    "    if name == 'click':\n"
    "        builtins.__import__ = real\n"
    "        try:\n"
    "            os.kill(os.getpid(), signal.SIGINT)\n"
    "            handled_here()\n"
    "        except:\n"
    "            pass\n"
    "    return real(name, *a, **k)\n"
    "builtins.__import__ = importing\n")


def test_a_ctrl_c_handled_in_importlibs_module_lock_callback_still_ends_the_start():
    # BASE: "Exception ignored in: <function _get_module_lock.<locals>.cb ...>", a
    # SystemExit: 130 traceback, then the version printed and exit 0.
    done = python_c(VERSION.format(setup=IN_IMPORTLIBS_CB), check=False)
    assert (done.returncode, done.stdout, done.stderr) == (130, "", STARTING)


def test_a_ctrl_c_handled_in_any_weakref_callback_still_ends_the_start():
    # BASE: "Exception ignored in: <function dropped ...>", the traceback, exit 0.
    done = python_c(VERSION.format(setup=IN_ANOTHER_CALLBACK), check=False)
    assert (done.returncode, done.stdout, done.stderr) == (130, "", STARTING)


def test_a_ctrl_c_swallowed_by_a_bare_except_still_ends_the_start():
    # BASE: the line said, then the version printed and exit 0.
    done = python_c(VERSION.format(setup=IN_A_BARE_EXCEPT), check=False)
    assert (done.returncode, done.stdout, done.stderr) == (130, "", STARTING)


# The console script's own lines, announcing (on stderr, one `r`) the instant run() takes
# SIGINT: before that instant the interpreter's start-up (its `site`, a Ctrl-C there is
# Python's "Fatal Python error") and the script's `from kistore._entry import run` are not
# kistore's to guard (kistore/_entry.py says so).
CONSOLE_SCRIPT = ("import signal, sys\n"
                  "from kistore import _entry\n"
                  "taken = signal.signal\n"
                  "def announced(number, handler):\n"
                  "    previous = taken(number, handler)\n"
                  "    if handler is _entry._interrupted_while_starting:\n"
                  "        sys.stderr.write('r'); sys.stderr.flush()\n"
                  "        signal.signal = taken\n"
                  "    return previous\n"
                  "signal.signal = announced\n"
                  "sys.argv = ['kistore', *sys.argv[1:]]\n"
                  "sys.exit(_entry.run())\n")

QUIET_130 = {STARTING, "interrupted\n"}  # kistore._entry.run's, the command line's


def _kistore(*args: str) -> subprocess.Popen[str]:
    child = subprocess.Popen([sys.executable, "-c", CONSOLE_SCRIPT, *args],
                             stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    assert child.stderr is not None and child.stderr.read(1) == "r"
    return child


def test_a_real_ctrl_c_at_random_moments_of_a_whole_show_ends_it_quietly(
        record_store, store_path: Path):
    # 30 fresh `kistore show` processes, each sent a real SIGINT a random time after run()
    # took SIGINT, spread over a whole uninterrupted run (start-up imports, the command,
    # its exit). Each ends with 130 and one of the quiet lines and no output; or, the
    # command having finished first, its whole output: exit 0, or killed by the signal
    # after Python gave SIGINT back at exit (a shell says 130); never a traceback.
    args = ("--store", str(store_path), "show", "BenchmarkRun/sol-submission-20464")
    started = time.monotonic()
    child = _kistore(*args)
    whole, _ = child.communicate(timeout=120)
    assert child.returncode == 0 and whole
    took = time.monotonic() - started
    seed = random.randrange(2**32)
    moments = random.Random(seed).sample(range(30), 30)
    outcomes = []
    for step in moments:
        child = _kistore(*args)
        delay = took * 1.2 * step / 30 + random.Random(seed + step).uniform(0, took / 30)
        time.sleep(delay)
        child.send_signal(signal.SIGINT)
        out, err = child.communicate(timeout=120)
        said = (f"seed {seed}, {delay:.3f} s after run() took SIGINT: exit "
                f"{child.returncode}\n{err}")
        assert "Traceback" not in err and "Exception ignored" not in err, said
        if child.returncode == _entry.INTERRUPTED:  # said last, after what was printed
            assert whole.startswith(out), said
            assert any(err.endswith(line) for line in QUIET_130), said
            assert err.count("interrupted") == 1, said
        else:
            assert child.returncode in (0, -signal.SIGINT) and out == whole, said
        outcomes.append(child.returncode)
    assert _entry.INTERRUPTED in outcomes  # the start-up window was hit, as meant



# Sends SIGINT while `show` imports MODULE (after the command line took SIGINT).
WHILE_IMPORTING = ("import builtins, os, signal, sys\n"
                   "real = builtins.__import__\n"
                   "def handled_here():\n"
                   "    pass\n"
                   "def importing(name, *a, **k):\n"
                   "    if name == {module!r} and signal.getsignal(signal.SIGINT).__module__ "
                   "== 'kistore.cli':\n"
                   "        builtins.__import__ = real\n"
                   "        os.kill(os.getpid(), signal.SIGINT)\n"
                   "        handled_here()\n"
                   "    return real(name, *a, **k)\n"
                   "builtins.__import__ = importing\n"
                   "sys.argv = ['kistore', *sys.argv[1:]]\n"
                   "from kistore._entry import run\n"
                   "sys.exit(run())\n")


@pytest.mark.parametrize("module", ["decimal", "email.utils"])
def test_a_ctrl_c_while_jsonschema_rs_starts_is_an_interrupt_not_a_rust_panic(
        module, record_store, store_path: Path):
    # The random test above found it: jsonschema_rs's Rust start imports decimal and
    # email.utils; a KeyboardInterrupt there panicked ("failed to import the stdlib decimal
    # module", Rust's and Python's tracebacks, exit 1). kistore imports both first.
    done = python_c(WHILE_IMPORTING.format(module=module), "--store", str(store_path), "show",
                    "BenchmarkRun/sol-submission-20464", check=False)
    assert "panicked" not in done.stderr and "Traceback" not in done.stderr, done.stderr
    assert (done.returncode, done.stdout, done.stderr.splitlines()[-1]) == (
        130, "", "interrupted")
