"""The process's standard streams: whole writes to stdout, and closed streams said plainly.

:func:`guard` runs once when a command starts (the root group's callback). It owns three
things the rest of the command line relies on:

* **A broken pipe is met.** Python's buffered writer returns a short count, and raises
  nothing, when the reader of a pipe leaves part-way through one large write (``ls |
  head -1`` printed its 200 KB answer in one ``write(2)``, of which the pipe took 64 KB:
  exit 0, r75 finding 3). stdout's raw file here writes until every byte is taken, so the
  write after a short one fails with EPIPE and the command exits 141 as every other
  broken pipe does (:data:`kistore.cli.BROKEN_PIPE`).
* **A closed stream is not a crash.** With ``>&-`` or ``<&-`` Python sets ``sys.stdout``
  or ``sys.stdin`` to None, and the first print or read said "internal error
  (AttributeError)" (r75 finding 19). File descriptors 0-2 that are closed are opened on
  /dev/null first (as git does), so no file the command opens takes their number and
  gets its output or a child's. A closed stdout then takes the answer and counts it
  (:func:`lost_output`; the command line says it was not written and exits 1); a closed
  stdin refuses to be read with an :class:`~kistore.core.errors.InputError`.
* Nothing else: streams that are not the process's own (click's test runner) are left as
  they are.
"""

from __future__ import annotations

import io
import os
import select
import sys
from typing import Any

from ..core.errors import InputError

STDIN_CLOSED = ("standard input is closed (`<&-`): there is nothing to read; give the "
                "input as a file, or pipe it in")
"""What reading a closed stdin says (file ``-``)."""

STDOUT_CLOSED = ("standard output is closed (`>&-`): the command's answer ({size:,} bytes) "
                 "was not written, though what it did is done; send the output to a file "
                 "or to /dev/null instead")
"""What the command line says after a command wrote to a closed stdout (exit 1)."""


STDOUT_FAILED = ("standard output could not be written ({reason}): the command's answer was "
                 "cut short{done}; send the output to a file on a disk with room, or to a "
                 "pipe")
"""What the command line says when writing stdout failed (``> /dev/full``: ENOSPC)."""

STDOUT = "standard output"
"""The ``filename`` a failed write to stdout carries (:meth:`WholeWrites.write`)."""


class WholeWrites(io.FileIO):
    """A raw file whose ``write`` writes every byte or raises (EPIPE, EBADF, ...).

    ``os.write`` on a pipe may take fewer bytes than given (the reader left, a signal came);
    :class:`io.BufferedWriter` then returns the short count and drops the rest. This
    writes again until all is taken: after a short write to a pipe whose reader has gone,
    the next one raises :class:`BrokenPipeError`.
    """

    def write(self, data: Any) -> int:
        """Write all of ``data`` (bytes-like); return its length in bytes.

        Raises:
            OSError: a write failed (BrokenPipeError once the reader has gone); any other
                carries :data:`STDOUT` as its ``filename`` (a write's error names no file:
                ``ls > /dev/full`` said "error: No space left on device", fresh01 F4).
        """
        view = memoryview(data).cast("B")
        done = 0
        while done < len(view):
            try:
                n = super().write(view[done:])
            except BrokenPipeError:
                raise
            except OSError as e:
                if e.filename is None:
                    e.filename = STDOUT
                raise
            if n is None:  # a non-blocking descriptor that is full: wait until it is not
                select.select([], [self.fileno()], [])
                continue
            done += n
        return done


class _Unwritten(io.RawIOBase):
    """The raw file of a closed stdout: takes every write, keeps none, counts the bytes."""

    def __init__(self) -> None:
        super().__init__()
        self.size = 0

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        n = memoryview(data).nbytes
        self.size += n
        return n


class _Closed(io.RawIOBase):
    """The raw file of a closed stdin: every read raises :class:`InputError` (file ``-``)."""

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        raise InputError(STDIN_CLOSED, file="-")


_unwritten: _Unwritten | None = None


def guard() -> None:
    """Set up the standard streams for a command (see the module docstring).

    Side effects: closed descriptors 0-2 are opened on /dev/null; ``sys.stdin``,
    ``sys.stdout`` and ``sys.stderr`` may be replaced (stdout of a real file descriptor by
    one over :class:`WholeWrites`, a closed one by a counting sink; a closed stderr by a
    sink; a closed stdin by one that refuses to be read).
    """
    global _unwritten
    closed = {name: getattr(sys, name) is None for name in ("stdin", "stdout", "stderr")}
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            null = os.open(os.devnull, os.O_RDWR)
            if null != fd:
                os.dup2(null, fd)
                os.close(null)
    if closed["stdin"]:
        sys.stdin = io.TextIOWrapper(io.BufferedReader(_Closed()), encoding="utf-8")
    if closed["stdout"]:
        _unwritten = _Unwritten()
        sys.stdout = io.TextIOWrapper(io.BufferedWriter(_unwritten), encoding="utf-8",
                                      errors="backslashreplace")
    else:
        _unwritten = None
        sys.stdout = _whole(sys.stdout)
    if closed["stderr"]:
        sys.stderr = io.TextIOWrapper(io.BufferedWriter(_Unwritten()), encoding="utf-8",
                                      errors="backslashreplace", write_through=True)


def _whole(stream: Any) -> Any:
    """Return stdout over :class:`WholeWrites` when it is the process's own file, else as is."""
    buffer = getattr(stream, "buffer", None)
    buffered = isinstance(buffer, io.BufferedWriter)
    raw = buffer.raw if isinstance(buffer, io.BufferedWriter) else buffer
    if not isinstance(stream, io.TextIOWrapper) or type(raw) is not io.FileIO:
        return stream  # already ours, or not a file (click's test runner): leave it
    stream.flush()
    whole = WholeWrites(raw.fileno(), "w", closefd=False)
    # unbuffered (python -u, PYTHONUNBUFFERED) stays so: the text layer over the raw file
    return io.TextIOWrapper(io.BufferedWriter(whole) if buffered else whole,
                            encoding=stream.encoding, errors=stream.errors,
                            line_buffering=stream.line_buffering,
                            write_through=stream.write_through or not buffered)


def lost_output() -> int:
    """Return how many bytes the command wrote to a closed stdout (0 when it is open)."""
    if _unwritten is None:
        return 0
    sys.stdout.flush()
    return _unwritten.size
