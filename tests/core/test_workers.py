"""Forked workers (kistore.workers): they die with their parent, and leave signals to it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time

import pytest

# A parent that forks a worker set up as kistore's pools set them up, then waits; the
# worker blocks for ever, as a parse worker blocked writing to a full pipe does.
_PARENT = r"""
import os, sys, time
from kistore.core.workers import start_worker

parent = os.getpid()
child = os.fork()
if child == 0:
    start_worker(parent)
    time.sleep(600)
    os._exit(0)
print(child, flush=True)
time.sleep(600)
"""


def _alive(pid: int) -> bool:
    """True while ``pid`` runs (a zombie nobody reaps counts as gone)."""
    try:
        with open(f"/proc/{pid}/status") as f:
            return "\nState:\tZ" not in f.read()
    except FileNotFoundError:
        return False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")
def test_a_worker_dies_when_its_parent_is_killed():
    # A new-user attack: `kill -9` of an add while it parsed left a worker with PPid 1
    # blocked on a pipe for ever; it held the caller's stderr open, so `$(kistore add ...)`
    # never returned.
    parent = subprocess.Popen([sys.executable, "-c", _PARENT], stdout=subprocess.PIPE,
                              text=True)
    worker = int(parent.stdout.readline())
    assert _alive(worker)
    parent.kill()
    parent.wait()
    deadline = time.monotonic() + 10
    while _alive(worker) and time.monotonic() < deadline:
        time.sleep(0.02)
    alive = _alive(worker)
    if alive:
        os.kill(worker, signal.SIGKILL)
    assert not alive


def _handlers() -> tuple[object, object]:
    return signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)


def test_a_worker_leaves_ctrl_c_to_the_parent_and_takes_sigterm_at_its_default():
    import multiprocessing

    from kistore.core.workers import start_worker

    with multiprocessing.get_context("fork").Pool(1, start_worker, (os.getpid(),)) as pool:
        assert pool.apply(_handlers) == (signal.SIG_IGN, signal.SIG_DFL)


def test_a_signal_sent_while_forking_is_taken_after_the_fork_and_workers_let_it_in():
    # review 2026-12-02: a SIGTERM landing inside a fork ran the CLI's handler in logging's
    # at-fork hook, where Python printed "Exception ignored ... Traceback" and dropped the
    # interrupt (the add landed). forking() holds it until the fork is done.
    from kistore.core.workers import forking, start_worker

    taken: list[int] = []
    before = signal.signal(signal.SIGTERM, lambda number, frame: taken.append(number))
    try:
        with forking():
            # to this thread, which forking() holds it in: sent to the process, the kernel
            # gives it to any thread not blocking it, and native threads of libraries an
            # earlier test loaded (pyarrow's pool, after tests/export) took it at once
            # (doc02: 189 of 200 sends in such a process)
            signal.pthread_kill(threading.get_ident(), signal.SIGTERM)
            held_in_body = list(taken)
            read, write = os.pipe()
            child = os.fork()
            if child == 0:  # as a worker starts: held until start_worker lets it in
                held = signal.SIGTERM in signal.pthread_sigmask(signal.SIG_BLOCK, [])
                start_worker(os.getppid())
                let_in = signal.SIGTERM not in signal.pthread_sigmask(signal.SIG_BLOCK, [])
                os.write(write, b"%d%d" % (held, let_in))
                os._exit(0)
            os.close(write)
            said = os.read(read, 2)
            os.close(read)
            os.waitpid(child, 0)
        assert held_in_body == []
        assert taken == [signal.SIGTERM]  # taken once the body ended
        assert said == b"11"  # the child began with it held; start_worker let it in
        assert signal.SIGTERM not in signal.pthread_sigmask(signal.SIG_BLOCK, [])
    finally:
        signal.signal(signal.SIGTERM, before)


@pytest.mark.parametrize("ignore_sigterm", [True, False])
def test_a_sigterm_pending_from_the_fork_meets_the_worker_s_own_disposition(ignore_sigterm):
    """The store writer's child ignores SIGTERM (the parent stops it between two files). It
    set that after start_worker had let the signal in: a SIGTERM sent to the process group
    during the fork, pending in the child, ended it there (a temp file could be left).

    Deterministic: the child sends itself SIGTERM while it is still held, as one landing
    between the fork and start_worker would be, then starts as the writer's child does.
    """
    from kistore.core.workers import forking, start_worker

    before = signal.signal(signal.SIGTERM, lambda number, frame: None)  # the CLI's handler
    try:
        with forking():
            read, write = os.pipe()
            child = os.fork()
            if child == 0:
                os.kill(os.getpid(), signal.SIGTERM)  # pending: held since the fork
                pending = signal.SIGTERM in signal.sigpending()
                start_worker(os.getppid(), ignore_sigterm=ignore_sigterm)
                os.write(write, b"%d" % pending)
                os._exit(0)
            os.close(write)
            said = os.read(read, 1)
            os.close(read)
            _, status = os.waitpid(child, 0)
    finally:
        signal.signal(signal.SIGTERM, before)
    if ignore_sigterm:  # let in and ignored: the child goes on and exits as it chose
        assert (said, os.waitstatus_to_exitcode(status)) == (b"1", 0)
    else:  # a pool worker: SIGTERM at its default ends it the moment it is let in
        assert (said, os.waitstatus_to_exitcode(status)) == (b"", -signal.SIGTERM)


# A parent started with SIGTERM ignored (``nohup``, a supervisor, `trap '' TERM`) runs a
# multiprocessing.Pool set up as check/audit.py's; someone else sends SIGTERM to the whole
# process group while a task runs; then the parent's own pool stops its busy worker
# (terminate: SIGTERM, sent by the parent).
_GROUP_SIGTERM = r"""
import multiprocessing, os, signal, subprocess, sys, time
from kistore.core.workers import forking, start_worker

assert signal.getsignal(signal.SIGTERM) is signal.SIG_IGN  # inherited so


def task(x, seconds=1.0):
    time.sleep(seconds)
    return x * 2


with forking():
    pool = multiprocessing.get_context("fork").Pool(1, start_worker, (os.getpid(),))
[worker] = pool._pool
with pool:
    result = pool.apply_async(task, (21,))
    time.sleep(0.3)
    subprocess.run(["kill", "-TERM", "--", f"-{os.getpgid(0)}"], check=True)
    try:
        print("answer", result.get(timeout=30), flush=True)
    except multiprocessing.TimeoutError:
        print("the task was lost: a Pool waits for it for ever", flush=True)
        os._exit(3)
    pool.apply_async(task, (1, 600))  # busy when the pool is stopped
    time.sleep(0.3)
worker.join(30)  # the pool's terminate (its SIGTERM, sent by this process) ended it
print("worker", worker.exitcode, flush=True)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="sigwaitinfo's si_pid")
def test_a_worker_of_a_parent_started_ignoring_sigterm_outlives_a_group_sigterm():
    # sig03: BASE's worker died of the group's SIGTERM (the parent ignored it, as it should):
    # 'the task was lost', and the Pool's wait never ended (verify hung)
    done = subprocess.run([sys.executable, "-c", _GROUP_SIGTERM], capture_output=True,
                          text=True, timeout=120, start_new_session=True,
                          preexec_fn=lambda: signal.signal(signal.SIGTERM, signal.SIG_IGN))
    assert (done.returncode, done.stdout, done.stderr) == (
        0, f"answer 42\nworker {-signal.SIGTERM}\n", "")


def _interrupt_hooks() -> tuple[bool, int]:
    """In a worker: whether the parent's unraisable hook and echo handler are still here."""
    from kistore.core import signals

    return sys.unraisablehook is signals._unraisable, len(signals._handler)


def test_a_worker_does_not_keep_the_parents_interrupt_hook():
    # review01 L9 (sig03): a forked worker inherited `catch_swallowed`'s unraisable hook and
    # the CLI's handler, so a KeyboardInterrupt swallowed in it would arm a SIGALRM echo
    # there; a worker leaves Ctrl-C to its parent
    import multiprocessing

    from kistore.core import signals
    from kistore.core.workers import start_worker

    found = sys.unraisablehook
    signals.catch_swallowed(lambda number, frame: None, lambda: True)
    try:
        with multiprocessing.get_context("fork").Pool(1, start_worker, (os.getpid(),)) as pool:
            # on BASE 440899c7: (True, 1)
            assert pool.apply(_interrupt_hooks) == (False, 0)
        assert _interrupt_hooks() == (True, 1)  # the parent's own stay
    finally:
        signals.release()
    assert sys.unraisablehook is found
