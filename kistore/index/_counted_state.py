"""Whether the index file is unchanged since its query rows last counted right.

Every query compares the count of the query rows with the one sealed with the tree
(:func:`kistore.index.index._counted`, review 2026-12-02 F10); counting walks the smallest
SQL index of each table, 11 ms of a 22 ms answer at 1,000,000 runs. This module lets that
walk be skipped while the file is as it was when the count last agreed.

What is remembered, and why: the ``(st_dev, st_ino, st_size, st_mtime_ns, st_ctime_ns)``
of the database file and the same but ``ctime`` of its ``-wal`` (absent: ``-``), in a file
beside the index, ``index.sqlite.counted`` (:func:`remember`). SQLite writes rows only to
those two files, and every write to a file moves its ``mtime``; the file's ``ctime`` cannot
be set back (``touch -r``, ``cp -p`` and a restored backup set it to the time of
restoring), and another file at the path is another inode. (The ``-wal``'s ``ctime`` is
left out: SQLite run as root gives it its owner again, ``fchown``, at each open, so it
moves with every query.) So a row deleted or copied in with the
``sqlite3`` shell or Python's ``sqlite3`` (appended to the ``-wal``; checkpointed into the
file afterwards or not; the ``-wal`` deleted by the shell's last close), and an older copy
put back, each change the state and the next query counts again. The ``-shm`` is left out:
it is SQLite's index of the ``-wal``, rewritten by readers (each ``rank`` touches it).

Weighed and not chosen: SQLite's file change counter (header bytes 24-27) is not kept in
WAL mode, which the index runs in; ``PRAGMA data_version`` changes only within one
connection's life, and each command is a fresh process; a count kept by triggers on the
tables is deleted (or left stale) with the rows by whoever edits them with the
``sqlite3`` shell, which is the case the count exists for.

Time stamps are coarse (a kernel tick, 1-10 ms on Linux; a second or two on some file
systems): a write in the same tick as the one the state was taken after could leave it
unchanged (git's "racy" index). A state whose newest stamp is less than :data:`SETTLED_NS`
old is therefore never remembered: the query counts, and a later one remembers. A query
itself writes only when the index moves (the first query after an ``add`` records the new
tree; docs/speed.md), so a store queried again and again counts once, then reads a stat of
two files and the small file beside them (~30 us).

What this does not catch (as the seals do not): someone who edits the file and then puts
its time stamps, size and inode back, which needs the clock set back for ``ctime``.
"""

from __future__ import annotations

import contextlib
import os
import time
from pathlib import Path

SUFFIX = ".counted"
"""The remembered state's file: beside the index, named after it."""

SETTLED_NS = 3_000_000_000
"""How old the newest time stamp of the files must be before their state is remembered:
3 s, more than the coarsest common time stamps (FAT's 2 s)."""

_READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
"""A link, FIFO or directory there is never followed or waited on: the rows are counted."""

_WRITE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


def file_state(path: Path) -> str | None:
    """Return the state of the index file ``path`` and its ``-wal`` as one line of text.

    Args:
        path: the index file (:func:`._database.index_path`).

    Returns:
        ``"DEV:INO:SIZE:MTIME_NS:CTIME_NS DEV:INO:SIZE:MTIME_NS:0"`` (the file, then its
        ``-wal``, ``-`` when absent);
        None when the file is absent or either file changed less than :data:`SETTLED_NS`
        ago (a state not to remember, nor to trust). Never raises: a file that cannot be
        looked at is a state unknown (None).
    """
    parts = []
    newest = 0
    for name, changed in ((str(path), True), (f"{path}-wal", False)):
        try:
            st = os.stat(name)
        except FileNotFoundError:
            parts.append("-")
            continue
        except OSError:
            return None
        # the -wal's ctime moves on each open by root (SQLite chowns it): its mtime only
        ctime = st.st_ctime_ns if changed else 0
        parts.append(f"{st.st_dev}:{st.st_ino}:{st.st_size}:{st.st_mtime_ns}:{ctime}")
        newest = max(newest, st.st_mtime_ns, ctime)
    if parts[0] == "-" or time.time_ns() - newest < SETTLED_NS:
        return None
    return " ".join(parts)


def remembered(path: Path) -> str | None:
    """Return the state :func:`remember` last wrote beside ``path`` (None: none, or unreadable).

    Never raises: a missing, linked, odd or unreadable file is no state.
    """
    try:
        fd = os.open(f"{path}{SUFFIX}", _READ_FLAGS)
    except OSError:
        return None
    try:
        text = os.read(fd, 4096)
    except OSError:
        return None
    finally:
        os.close(fd)
    line, newline, rest = text.partition(b"\n")
    return line.decode("ascii", "replace") if newline and not rest else None


def remember(path: Path, state: str) -> None:
    """Record ``state`` (:func:`file_state`) as the one whose rows counted right.

    Written to a file of this process's own and renamed over ``index.sqlite.counted``:
    a reader sees the old line or the new one, whole; a link there is replaced, never
    followed. Never raises: a ``.git`` that cannot be written keeps counting every query.
    """
    target = f"{path}{SUFFIX}"
    temporary = f"{target}.{os.getpid()}"
    with contextlib.suppress(OSError):
        fd = os.open(temporary, _WRITE_FLAGS, 0o644)
        try:
            os.write(fd, f"{state}\n".encode("ascii"))
        finally:
            os.close(fd)
        os.replace(temporary, target)
        return
    with contextlib.suppress(OSError):
        os.unlink(temporary)
