"""Whether a remote a command is given is one git can reach: a remote's name, a URL or a path.

git takes ``git fetch NAME`` as the configured remote ``NAME``, and anything else as a
URL or a path; a misspelt name is then a path that is not there, and git says "fatal:
'nosuch' does not appear to be a git repository ... Please make sure you have the correct
access rights", which names neither the mistake nor the remotes (break96 L4, of ``kistore
notes rebase nosuch``). :func:`unknown_remote` says it before git is run.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover - typing only
    import pygit2


def remote_names(repo: pygit2.Repository) -> list[str]:
    """Return the names of ``repo``'s configured remotes, sorted.

    Args:
        repo: the repository.

    Returns:
        The names (``git remote`` lists the same). Raises nothing.
    """
    return sorted(name for name in repo.remotes.names() if name is not None)


def unknown_remote(repo: pygit2.Repository, remote: str) -> str | None:
    """Say that ``remote`` is no remote of ``repo``, nor a URL or path; None when git reaches it.

    A URL (``https://...``, ``git@host:path``) holds ``:`` or ``/``, a path ``/`` or is an
    existing directory or file (``git fetch ../index.git``, a bundle): those are taken as
    given, git says what it finds there.

    Args:
        repo: the repository whose remotes are read (``git remote``).
        remote: the name, URL or path given.

    Returns:
        ``no remote 'NAME' in this repository (its remotes: origin, upstream)`` (``it
        has no remote``), or None. Raises nothing.
    """
    names = remote_names(repo)
    if remote in names or "/" in remote or ":" in remote or os.path.exists(remote):
        return None
    listed = f"its remotes: {', '.join(names)}" if names else "it has no remote"
    return f"no remote {remote!r} in this repository ({listed})"
