"""The environment of every ``git`` child process kistore runs.

kistore reads objects through libgit2, which ignores ``refs/replace/*``; the ``git``
binary honours them by default in every command (``log``, ``rev-list``, ``cat-file``,
``read-tree``, ``diff``...). A repository holding a replace ref would then have kistore's
two readers disagree: ``kistore cite`` (a ``git log --raw`` child) could name another
commit than ``site build`` (a libgit2 walk) as the one that first added an object (review
r75 F1). Every ``git`` child is run with :func:`git_environment`, so both read the bytes
the repository stores.

It is also where every ``git`` child is refused before it starts when a config file git
would read is a FIFO (:func:`kistore.git.config_guard.refuse_blocking_config`, fresh14 F2):
git would wait on it for ever.
"""

from __future__ import annotations

import os

from .config_guard import refuse_blocking_config

NO_REPLACE_OBJECTS = {"GIT_NO_REPLACE_OBJECTS": "1"}
"""What :func:`git_environment` adds: git's switch that makes it ignore ``refs/replace/*``
(git(1), "GIT_NO_REPLACE_OBJECTS"; the same as ``git --no-replace-objects``)."""


def git_environment(extra: dict[str, str] | None = None) -> dict[str, str]:
    """Return the environment for a ``git`` child: this process's, replace refs off.

    Args:
        extra: further variables to set (they win over this process's), or None.

    Returns:
        A new dict: ``os.environ`` at the time of the call, then ``extra``, then
        ``GIT_NO_REPLACE_OBJECTS=1`` (never overridden: git must read the stored bytes).

    Raises:
        StoreStateError: a config file git would read is a FIFO (exit status 1;
            :func:`kistore.git.config_guard.refuse_blocking_config`): no child is started.
    """
    refuse_blocking_config()
    return {**os.environ, **(extra or {}), **NO_REPLACE_OBJECTS}
