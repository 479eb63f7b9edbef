"""The clone's own attributes: read ``.git/info/attributes`` safely and check it (KI116).

git reads ``$GIT_COMMON_DIR/info/attributes`` before every ``.gitattributes`` and lets it
win; :func:`kistore.core.gitattributes.check_info_attributes` judges its lines. This module
is the part that needs the repository: where the file is and how to read it without
hanging or running out of memory (a FIFO or a symlink to ``/dev/zero`` there: r71 F23).
Both ``kistore verify`` (:func:`kistore.check.audit.check_clone_attributes`) and ``add
--commit`` / ``migrate --commit`` (:mod:`kistore.store`) ask here.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pygit2

from ..core.file_kinds import kind_at
from ..core.findings import Finding
from ..core.gitattributes import INFO_ATTRIBUTES, INFO_ATTRIBUTES_CONVERT, check_info_attributes
from .config_files import xdg_config_home
from .refs import common_git_dir

__all__ = ["MAX_ATTRIBUTES_BYTES", "check_clone_info_attributes", "read_attributes_file"]

MAX_ATTRIBUTES_BYTES = 1 << 20
"""The most bytes of an attributes file read (1 MiB): a larger one is reported, not read."""

_FLAGS = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC


def read_attributes_file(path: Path, limit: int = MAX_ATTRIBUTES_BYTES) -> bytes | str | None:
    """Read an attributes file the way git would, but never hang or read without end.

    A symbolic link is followed, as git follows it; what it names must be a regular file.

    Args:
        path: the file.
        limit: the most bytes read.

    Returns:
        its bytes; None when absent or unreadable (git reads nothing either); else a
        sentence saying why it was not read: not a regular file (a FIFO, on which git's
        own checkout would wait, or a device such as ``/dev/zero``), or more than ``limit``
        bytes.
    """
    kind = kind_at(path, follow=True)  # before opening: a device is not opened
    if kind is None:  # absent, or unreadable: git reads nothing either
        return None
    if kind:
        return _NOT_REGULAR
    try:
        fd = os.open(path, _FLAGS)  # O_NONBLOCK: a FIFO swapped in after the stat won't hang
    except OSError:  # gone meanwhile, unreadable: git reads nothing either
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):  # what was opened, not what was looked at
            return _NOT_REGULAR
        parts, total = [], 0
        while total <= limit:
            part = os.read(fd, limit + 1 - total)
            if not part:
                break
            parts.append(part)
            total += len(part)
        if total > limit:
            return (f"is more than {limit:,} bytes, too large to check; git reads it "
                    "whole, so a line there may convert store/")
        return b"".join(parts)
    except OSError:
        return None
    finally:
        os.close(fd)


_NOT_REGULAR = ("is not a regular file (a FIFO, a device or a directory, or a symbolic link "
                "to one): git's checkout would wait on it or read it without end, and a "
                "line there may convert store/")


def check_clone_info_attributes(repo: pygit2.Repository) -> list[Finding]:
    """Check that the clone's ``.git/info/attributes`` converts nothing under ``store/``.

    Args:
        repo: the repository (its ``$GIT_COMMON_DIR/info/attributes``, which every worktree
            shares).

    Returns:
        :func:`kistore.core.gitattributes.check_info_attributes` of the file, matching
        patterns case-insensitively when the repository's ``core.ignorecase`` is true, as
        git does, and with the macros defined in ``core.attributesFile`` and the work tree's
        top-level ``.gitattributes`` (their other lines the committed guard line overrides,
        or KI113 reports); one KI116
        without a line when it cannot be checked (:func:`read_attributes_file`); empty
        when absent or unreadable.
    """
    info = common_git_dir(Path(repo.path)) / "info" / "attributes"
    data = read_attributes_file(info)
    if isinstance(data, str):  # found: what it is (until 2026-12-07 "found None")
        found = kind_at(info, follow=True) or f"more than {MAX_ATTRIBUTES_BYTES:,} bytes"
        return [Finding(INFO_ATTRIBUTES_CONVERT, data, file=INFO_ATTRIBUTES, found=found,
                        expected=f"a regular file of at most {MAX_ATTRIBUTES_BYTES:,} bytes",
                        fix="remove .git/info/attributes or make it a small regular file "
                        "(this repository's own, never committed), then `git checkout -- store/`")]
    macros = [read_attributes_file(path) for path in (_attributes_file(repo), (
        Path(repo.workdir) / ".gitattributes" if repo.workdir else None)) if path is not None]
    return check_info_attributes(data, ignorecase=_ignorecase(repo),
                                 macros=[m for m in macros if isinstance(m, bytes)])


def _attributes_file(repo: pygit2.Repository) -> Path | None:
    """Return the ``core.attributesFile`` git reads (its default when unset), for macros."""
    try:
        configured = repo.config["core.attributesFile"]
    except (KeyError, pygit2.GitError):
        configured = None
    if isinstance(configured, str) and configured:
        return Path(configured).expanduser()
    return xdg_config_home() / "git" / "attributes"


def _ignorecase(repo: pygit2.Repository) -> bool:
    """Return the repository's ``core.ignorecase`` (False when unset or not a boolean)."""
    try:
        return repo.config.get_bool("core.ignorecase")
    except (KeyError, ValueError, pygit2.GitError):
        return False
