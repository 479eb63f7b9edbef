"""A command stuck inside libgit2 still stops on SIGTERM and Ctrl-C (new-user review F3).

A truncated loose git object makes libgit2 1.9 loop for ever at 100% CPU
(libgit2/libgit2#7342), and the command line's Python handlers for SIGINT and SIGTERM never
run while C code loops: only SIGKILL stopped it. The console script's watcher
(:mod:`kistore.git.watchdog`) kills a command whose interrupt goes unanswered. Each run
here is a real process in its own session, killed whole if it outlives its timeout, so a
regression fails instead of hanging the test run.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import zlib
from pathlib import Path

import pytest

from kistore.git import watchdog

from ..conftest import git

STUCK_IN_LIBGIT2 = (
    "import sys\n"
    "from kistore import _entry\n"
    "from kistore.check import audit\n"
    "from kistore.git import watchdog\n"
    "root, oid, mode = sys.argv[1:]\n"
    "if mode != 'imported-late':\n"
    "    import pygit2\n"
    "if mode == 'no-watcher':\n"
    "    watchdog.start = lambda: None\n"
    "def stuck(*args, **kwargs):\n"
    "    import pygit2  # imported-late: the first import, after the command started\n"
    "    repo = pygit2.Repository(root)\n"
    "    sys.stdout.write('s'); sys.stdout.flush()\n"
    "    repo.odb.read(oid)  # loops in inflate (libgit2#7342)\n"
    "audit.verify = stuck\n"
    "sys.argv = ['kistore', '--store', root, 'verify']\n"
    "_entry.run()\n")
"""``kistore verify`` whose verify reads a truncated loose object with libgit2 itself.

Modes: ``watcher`` (pygit2 imported before the command starts: the watcher forks at once),
``imported-late`` (pygit2's first import is inside the command: the watcher forks then),
``no-watcher`` (the control)."""


def truncate_loose(root: Path, oid: str, keep: int = 20) -> None:
    """Cut ``oid``'s loose object file to its first ``keep`` bytes (a torn write, a bad copy)."""
    path = root / ".git" / "objects" / oid[:2] / oid[2:]
    data = path.read_bytes()
    path.chmod(0o644)
    path.write_bytes(data[:keep])


def stopped_by(signum: int, argv: list[str], *, wait: float = 1.0,
               limit: float = 30.0) -> tuple[int | None, str]:
    """Run ``argv`` in its own session, send ``signum`` once it says ``s``, then wait.

    Returns:
        (exit status, stderr); status None when it was still running ``limit`` seconds
        after the signal (then its whole session was killed).
    """
    child = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             start_new_session=True,
                             preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        assert child.stdout is not None
        assert child.stdout.read(1) == b"s"
        time.sleep(wait)  # inside the loop by now
        child.send_signal(signum)
        _, err = child.communicate(timeout=limit)
        return child.returncode, err.decode()
    except subprocess.TimeoutExpired:
        os.killpg(child.pid, signal.SIGKILL)
        _, err = child.communicate()
        return None, err.decode()


@pytest.fixture
def truncated_tree(store_path: Path) -> tuple[Path, str]:
    """The store with its root tree's loose object cut to 20 bytes: (root, tree id)."""
    tree = git(store_path, "rev-parse", "HEAD^{tree}").strip()
    raw = zlib.decompress((store_path / ".git" / "objects" / tree[:2] / tree[2:]).read_bytes())
    assert raw.startswith(b"tree ")  # a loose object, whole before the cut
    truncate_loose(store_path, tree)
    return store_path, tree


@pytest.mark.parametrize("mode", ["watcher", "imported-late"])
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_command_looping_in_libgit2_is_killed_on_an_unanswered_interrupt(
        truncated_tree, signum, mode):
    root, tree = truncated_tree
    status, err = stopped_by(signum, [sys.executable, "-c", STUCK_IN_LIBGIT2, str(root), tree,
                                      mode])
    assert status == -signal.SIGKILL, err
    assert err == watchdog.STUCK


def test_without_the_watcher_the_same_command_ignores_sigterm(truncated_tree):
    # the control: the loop above is real, in C, and only the watcher ends it
    root, tree = truncated_tree
    status, err = stopped_by(signal.SIGTERM,
                             [sys.executable, "-c", STUCK_IN_LIBGIT2, str(root), tree,
                              "no-watcher"], limit=2 * watchdog.GRACE)
    assert status is None, err


def test_an_answered_interrupt_is_never_killed(store_path):
    # a command running Python when SIGTERM comes says "interrupted" (exit 130), as before:
    # the watcher must not kill it, even when it takes longer than the grace to end
    code = ("import sys, time\n"
            "from kistore import _entry\n"
            "from kistore.check import audit\n"
            "def slow(*args, **kwargs):\n"
            "    sys.stdout.write('s'); sys.stdout.flush()\n"
            "    try:\n"
            "        time.sleep(60)\n"
            "    finally:\n"
            f"        time.sleep({watchdog.GRACE + 1})  # a slow clean-up\n"
            "audit.verify = slow\n"
            "sys.argv = ['kistore', '--store', sys.argv[1], 'verify']\n"
            "_entry.run()\n")
    status, err = stopped_by(signal.SIGTERM, [sys.executable, "-c", code, str(store_path)])
    assert (status, err) == (130, "interrupted\n")


FORKS = (
    "import os, sys\n"
    "forks = []\n"
    "os.register_at_fork(before=lambda: forks.append(1))\n"
    "from kistore import _entry\n"
    "from kistore.git import watchdog\n"
    "sys.argv = ['kistore', *sys.argv[1:]]\n"
    "try:\n"
    "    _entry.run()\n"
    "except SystemExit as e:\n"
    "    code = e.code\n"
    "print('@@', code, len(forks), watchdog._fd is not None, 'pygit2' in sys.modules,\n"
    "      file=sys.stderr)\n")
"""The console script, then: exit code, forks made, watcher started, pygit2 loaded."""


def forks_of(*args: str) -> str:
    done = subprocess.run([sys.executable, "-c", FORKS, *args], capture_output=True,
                          text=True, timeout=120)
    return done.stderr.rpartition("@@ ")[2].strip()


def test_a_command_that_loads_no_pygit2_forks_no_watcher(store_path):
    assert forks_of("--help") == "0 0 False False"
    assert forks_of("--store", str(store_path), "ls") == "0 1 True True"  # cold: libgit2
    assert forks_of("--store", str(store_path), "ls") == "0 0 False False"  # warm: none


def test_a_watcher_started_inside_a_deferring_block_waits_for_its_end(monkeypatch):
    sent = []
    monkeypatch.setattr(watchdog, "_send", sent.append)
    monkeypatch.setattr(watchdog, "_owner", watchdog._owner)  # restored after the test
    with watchdog.deferring(), watchdog.deferring():
        assert watchdog._depth == 2
        monkeypatch.setattr(watchdog, "_fd", None)
        with monkeypatch.context() as m:
            m.setattr(watchdog.os, "fork", lambda: 1)  # the parent's side of start()
            m.setattr(watchdog.os, "set_blocking", lambda fd, flag: None)
            m.setattr(watchdog.signal, "set_wakeup_fd", lambda fd, **kw: -1)
            sent.clear()
            watchdog.start()
        assert sent == [watchdog._ENTER, watchdog._ENTER]  # told of both open blocks
    assert watchdog._depth == 0
    assert sent[-2:] == [watchdog._LEAVE, watchdog._LEAVE]
    assert watchdog._fd is not None
    os.close(watchdog._fd)  # the pipe start() made (no watcher read it)
