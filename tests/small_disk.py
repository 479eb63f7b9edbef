"""A real full disk for tests: a small tmpfs mounted under the test's directory.

Mounting needs root (CI runs the tests as root); elsewhere the test is skipped, saying so,
and the tests' deterministic seams (a patched write raising ENOSPC) cover the same code.
"""

from __future__ import annotations

import errno
import os
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest


@contextmanager
def small_disk(where: Path, size: str = "2m") -> Iterator[Path]:
    """Mount a ``size`` tmpfs on the new directory ``where``; unmount it after.

    Skips the test (with the reason) when ``mount`` is not permitted or not installed.
    """
    where.mkdir()
    try:
        done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs",
                               str(where)], capture_output=True, text=True, check=False)
        reason = done.stderr.strip() or f"exit {done.returncode}"
    except FileNotFoundError as e:
        done, reason = None, str(e)
    if done is None or done.returncode != 0:
        pytest.skip(f"cannot mount a {size} tmpfs ({reason}): a real full disk needs root, "
                    "as in CI; the seam tests cover the same path")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], capture_output=True, check=False)


def fill(where: Path) -> None:
    """Fill the file system of ``where`` to its last byte (a file ``where/fill``)."""
    fd = os.open(where / "fill", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        for size in (1 << 16, 1 << 12, 1 << 9, 1):
            while True:
                try:
                    os.write(fd, b"\0" * size)
                except OSError as e:
                    if e.errno != errno.ENOSPC:
                        raise
                    break
    finally:
        os.close(fd)
