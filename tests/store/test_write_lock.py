"""The write lock's holder line, read in the moment a holder is being taken (tidy77).

A holder writes ``<pid> <work tree>`` after its ``flock``: a reader in between saw an empty
file (no holder named: KI418 said "another worktree may be adding" of an add in this one)
or the line of a holder killed before it (a dead process and another worktree named).
Now the reader waits for the line of a live process while the lock is held, and the line
is written over the old one in one write.
"""

from __future__ import annotations

import fcntl
import os
import subprocess
import threading
import time

import pytest

from kistore.store import _write_lock


def dead_pid() -> int:
    """The id of a process that has exited (and been reaped)."""
    child = subprocess.Popen(["true"])
    child.wait()
    return child.pid


@pytest.fixture
def taken(store):
    """The store's lock file held (``LOCK_EX``) by an open file of this test, still empty:
    a holder between its ``flock`` and its line. Yields ``(store, lock path)``."""
    path = store._write_lock_path()
    fd = os.open(path, os.O_RDWR | os.O_CREAT)
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        yield store, path
    finally:
        os.close(fd)


def write_later(path, text: str, after_s: float = 0.1) -> threading.Timer:
    """Write ``text`` into ``path`` ``after_s`` seconds from now (the holder's line)."""
    timer = threading.Timer(after_s, path.write_text, (text,))
    timer.start()
    return timer


def test_a_holder_whose_line_is_not_there_yet_is_waited_for(taken):
    store, path = taken
    assert path.read_text() == ""
    timer = write_later(path, f"{os.getpid()} /work/other-worktree\n")
    assert store.write_lock_holder() == (os.getpid(), "/work/other-worktree")
    timer.join()


def test_a_killed_holders_line_is_not_taken_for_the_new_holder(taken):
    store, path = taken
    path.write_text(f"{dead_pid()} /work/killed-worktree\n")  # the new one not written yet
    timer = write_later(path, f"{os.getpid()} {store.root}\n")
    assert store.write_lock_holder() == (os.getpid(), str(store.root))
    timer.join()


def test_a_holder_that_never_writes_a_line_is_none_after_the_wait(taken):
    store, _ = taken  # a kistore from before the line holds it
    start = time.monotonic()
    assert store.write_lock_holder() is None
    assert _write_lock.HOLDER_WAIT_S <= time.monotonic() - start < 10


def test_a_killed_holders_line_with_the_lock_let_go_is_no_holder_at_once(store):
    path = store._write_lock_path()
    path.write_text(f"{dead_pid()} /work/killed-worktree\n")
    start = time.monotonic()
    assert store.write_lock_holder() is None
    assert time.monotonic() - start < _write_lock.HOLDER_WAIT_S


def test_the_line_is_written_over_the_old_one_in_one_write(store, monkeypatch):
    path = store._write_lock_path()
    path.write_text(f"{dead_pid()} /{'killed-holder-worktree' * 20}\n")  # longer than ours
    seen = []
    cut = os.ftruncate

    def ftruncate(fd: int, length: int) -> None:
        seen.append(path.read_bytes())  # what a reader finds just before the cut
        cut(fd, length)

    monkeypatch.setattr(_write_lock.os, "ftruncate", ftruncate)
    line = f"{os.getpid()} {store.root}\n"
    with store._write_lock():
        assert path.read_text() == line
        assert store.write_lock_holder() == (os.getpid(), str(store.root))
    assert path.read_text() == ""
    # first line already the new holder's, the killed one's tail after it, then cut
    assert seen[0].decode().partition("\n")[0] + "\n" == line
    assert seen[0].decode() != line


def test_a_writer_waiting_for_the_lock_says_once_whose_it_is(store, caplog):
    """review r85 F21: a second `add` waited for the first (~4 s) without a word."""
    import logging

    path = store._write_lock_path()
    first = os.open(path, os.O_RDWR | os.O_CREAT)
    fcntl.flock(first, fcntl.LOCK_EX)  # the first add holds it
    path.write_text(f"{os.getpid()} /work/first-add\n")
    entered = threading.Event()

    def second_add():
        with _write_lock.hold(path, "/work/second-add", note_after_s=0):
            entered.set()

    with caplog.at_level(logging.WARNING, logger="kistore.store"):
        thread = threading.Thread(target=second_add)
        thread.start()
        try:
            while not caplog.messages and thread.is_alive():
                time.sleep(0.01)
            assert not entered.is_set()  # said while it waits, before it holds the lock
        finally:
            os.close(first)  # the first add ends
        thread.join()
    assert entered.is_set()
    assert caplog.messages == [
        f"note: waiting for the store's write lock ({path}), held by process {os.getpid()}, "
        "writing /work/first-add; this command goes on when it is let go"]


def test_a_free_lock_is_taken_without_a_note(store, caplog):
    import logging

    path = store._write_lock_path()
    with caplog.at_level(logging.WARNING, logger="kistore.store"), \
            _write_lock.hold(path, "/work/only-add", note_after_s=0):
        assert path.read_text() == f"{os.getpid()} /work/only-add\n"
    assert caplog.messages == []
