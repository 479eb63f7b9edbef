"""Where git's lock files sit: ``<file>.lock`` beside the file a git command is changing.

git changes a file under its lock-file protocol (git's ``lockfile.h``, ``LOCK_SUFFIX``):
it creates ``<file>.lock`` with ``O_EXCL``, writes the new contents there and renames it
onto ``<file>``; while the lock file exists no other git command changes ``<file>``. One
left by a crash stays until someone deletes it. kistore takes and names git's locks by
these names: the index (:class:`kistore.git._gitindex.IndexUpdate`, ``add --commit``'s
checks, a query that waits for a writer), a branch and ``packed-refs`` (the branch move).
No git here, no pygit2: paths only (a warm query imports this).
"""

from __future__ import annotations

import os
from pathlib import Path

LOCK_SUFFIX = ".lock"
"""What git appends to a file's name for its lock file."""


def lock_file(path: str | os.PathLike[str]) -> Path:
    """Return the lock file git takes to change ``path``: ``<path>.lock``, beside it.

    Args:
        path: the file (``.git/index``, ``.git/refs/heads/main``, ``.git/packed-refs``).

    Returns:
        ``path`` with ``.lock`` appended to its name (``.git/index.lock``).
    """
    path = Path(path)
    return path.with_name(path.name + LOCK_SUFFIX)


def index_lock(git_dir: str | os.PathLike[str]) -> Path:
    """Return git's index lock file of a work tree: ``GIT_DIR/index.lock``.

    Args:
        git_dir: the work tree's git directory (a linked worktree's own
            ``.git/worktrees/NAME``, which holds its own index).

    Returns:
        :func:`lock_file` of ``GIT_DIR/index``.
    """
    return lock_file(Path(git_dir) / "index")
