"""The store's write lock: ``flock`` on ``kistore-write.lock``, and the line naming its holder.

Every ``kistore add`` (a plain one too) and ``migrate`` holds it from its checks until its
last file is written (:func:`hold`), in the git directory all linked worktrees share: adds
from two worktrees of one repository take turns. ``verify`` asks whether it is held
(:func:`held`: a work tree read meanwhile may have caught files half-written, KI418) and
whose it is (:func:`holder`: an add in another worktree writes there, not here).

The holder's line, ``<pid> <work tree>\\n``, is written right after the lock is taken and
the file emptied before it is let go; a holder killed leaves its line. So a reader that
finds the lock held may, for a moment, see no line yet (the new holder is between its
``flock`` and its write) or a line of a holder killed before it. Neither is the holder:
:func:`holder` reads again until the line of a live process is there, the lock is let go,
or :data:`HOLDER_WAIT_S` has passed. The line itself is one ``pwrite`` over whatever the
file held, then cut to its length: a reader sees the old line or the new one whole (only
the first line counts), never an empty file in between.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import time
from collections.abc import Iterator
from pathlib import Path

from ..core.processes import alive

WAIT_NOTE_S = 1.0
"""Seconds :func:`hold` waits for a held lock before it says so on stderr, once (review r85
F21: a second ``add`` waited ~4 s for the first without a word)."""
HOLDER_WAIT_S = 0.5
"""Seconds :func:`holder` waits for a holder's line to appear (a holder between its
``flock`` and its write, or one that never writes: a kistore from before the line)."""
_POLL_S = 0.01


@contextlib.contextmanager
def hold(path: Path, where: str, note_after_s: float = WAIT_NOTE_S) -> Iterator[None]:
    """Hold the write lock at ``path`` (waiting for it), with this process's line in it.

    A lock held by another writer for ``note_after_s`` is said once, as a WARNING on the
    ``kistore.store`` logger (stderr of the command line; :func:`_waiting_note`), naming the
    holder's process when its line says it; then the wait goes on until it is let go.

    Args:
        path: the lock file (``kistore-write.lock`` in the common git directory); created
            when absent.
        where: the work tree (or git directory) this process writes: the line's second part.
        note_after_s: seconds of waiting before the note (0: at once when held).

    Raises:
        OSError: the lock file cannot be opened or created (its directory not writable).
    """
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o666)
    try:
        _take(fd, path, note_after_s)
        try:
            with contextlib.suppress(OSError):  # only a verify's message needs it
                line = f"{os.getpid()} {where}\n".encode()
                os.pwrite(fd, line, 0)  # over a killed holder's line: never empty between
                os.ftruncate(fd, len(line))
            yield
        finally:
            with contextlib.suppress(OSError):
                os.ftruncate(fd, 0)
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def _take(fd: int, path: Path, note_after_s: float) -> None:
    """Take the exclusive ``flock`` on ``fd``; said once when it is held ``note_after_s``."""
    deadline = time.monotonic() + note_after_s
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:  # another writer holds it
            if time.monotonic() >= deadline:
                break
            time.sleep(_POLL_S * 5)
    _waiting_note(path)
    fcntl.flock(fd, fcntl.LOCK_EX)


def _waiting_note(path: Path) -> None:
    """Say on stderr (the ``kistore.store`` logger) that this writer waits for the lock."""
    # Lazy: logging costs ~10 ms of a fresh process and is needed only for this note.
    import logging

    found = holder(path, wait_s=0)
    who = (f"process {found[0]}, writing {found[1]}" if found is not None
           else "another kistore process")
    logging.getLogger("kistore.store").warning(
        "note: waiting for the store's write lock (%s), held by %s; this command goes on "
        "when it is let go", path, who)


def held(path: Path) -> bool:
    """Return True when a writer holds the write lock at ``path`` now.

    One ``open`` of the file (read-only: never created here) and a non-blocking shared
    ``flock`` let go at once; a writer killed holds nothing (the kernel drops its
    ``flock``), so no stale lock is ever reported. A lock this process holds through
    another open file counts as held (flocks of two open files conflict).

    Args:
        path: the lock file.

    Returns:
        False when no writer holds it, the file is absent, or the file system has no
        ``flock`` (nothing can be said).
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:  # absent (no writer ever), or no file to lock
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:  # a writer holds it (LOCK_EX)
        return True
    except OSError:  # a file system without flock: nothing can be said
        return False
    finally:
        os.close(fd)  # and with it the shared lock, if taken
    return False


def holder(path: Path, wait_s: float = HOLDER_WAIT_S) -> tuple[int, str] | None:
    """Return who holds the write lock at ``path``, as its holder wrote it in the file.

    A line of no live process (none yet, or a killed holder's) while the lock is held is
    a holder being taken: read again every 10 ms, up to ``wait_s`` seconds.

    Args:
        path: the lock file.
        wait_s: how long to wait for a holder's line (seconds).

    Returns:
        ``(process id, work tree path)`` of a live process; None when the lock is not
        held and the file says no live holder, or no line came within ``wait_s`` (a
        kistore from before the line holds it), or the file cannot be read.
    """
    deadline = time.monotonic() + wait_s
    while True:
        found = _line(path)
        if found is not None and alive(found[0]):
            return found
        if time.monotonic() >= deadline or not held(path):
            return None
        time.sleep(_POLL_S)


def _line(path: Path) -> tuple[int, str] | None:
    """Return the file's first line as ``(pid, where)``, or None (absent, empty, other)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        text = os.read(fd, 4096).decode("utf-8", "replace")
    except OSError:
        return None
    finally:
        os.close(fd)
    first, newline, _ = text.partition("\n")
    pid, _, where = first.partition(" ")
    return (int(pid), where) if newline and pid.isdigit() and where else None
