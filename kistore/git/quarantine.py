"""Objects a push is still bringing in, made readable inside a ``pre-receive`` hook."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover - typing only
    import pygit2


def admit_quarantine(repo: pygit2.Repository) -> None:
    """Make objects a push is still bringing in readable (inside a ``pre-receive`` hook).

    git keeps pushed objects in a quarantine directory until ``pre-receive`` accepts them
    and tells the hook where through ``GIT_OBJECT_DIRECTORY``/``GIT_QUARANTINE_PATH``;
    libgit2 ignores those variables, so they are added as alternates of ``repo``'s object
    database. Outside a hook (no such variables) nothing happens. Idempotent per ``repo``.

    Args:
        repo: the ``pygit2.Repository`` to read pushed objects from.
    """
    admitted = repo.__dict__.setdefault("_kistore_admitted", set())
    for var in ("GIT_QUARANTINE_PATH", "GIT_OBJECT_DIRECTORY"):
        path = os.environ.get(var)
        if path and os.path.isdir(path) and os.path.abspath(path) not in admitted:
            repo.odb.add_disk_alternate(os.path.abspath(path))
            admitted.add(os.path.abspath(path))
