"""A command stuck inside libgit2 still stops on SIGTERM and Ctrl-C (new-user review F3).

A truncated loose git object makes libgit2 1.9 loop for ever at 100% CPU
(libgit2/libgit2#7342), and the command line's Python handlers for SIGINT and SIGTERM never
run while C code loops: only SIGKILL stopped it. The console script's watcher
(:mod:`kistore.core.watchdog`) kills a command whose interrupt goes unanswered. Each run
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

from kistore.core import watchdog

from ..conftest import git

STUCK_IN_LIBGIT2 = (
    "import sys, pygit2\n"
    "from kistore import _entry\n"
    "from kistore.check import audit\n"
    "from kistore.core import watchdog\n"
    "root, oid, mode = sys.argv[1:]\n"
    "if mode == 'no-watcher':\n"
    "    watchdog.start = lambda: None\n"
    "def stuck(*args, **kwargs):\n"
    "    repo = pygit2.Repository(root)\n"
    "    sys.stdout.write('s'); sys.stdout.flush()\n"
    "    repo.odb.read(oid)  # loops in inflate (libgit2#7342)\n"
    "audit.verify = stuck\n"
    "sys.argv = ['kistore', '--store', root, 'verify']\n"
    "_entry.run()\n")
"""``kistore verify`` whose verify reads a truncated loose object with libgit2 itself."""


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


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_command_looping_in_libgit2_is_killed_on_an_unanswered_interrupt(
        truncated_tree, signum):
    root, tree = truncated_tree
    status, err = stopped_by(signum, [sys.executable, "-c", STUCK_IN_LIBGIT2, str(root), tree,
                                      "watcher"])
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
