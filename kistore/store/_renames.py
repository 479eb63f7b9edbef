"""The names a migration must not move: a committed manifest's name edited by hand.

A name never moves (KI208): a names file ``kistore migrate`` writes for a manifest whose
committed name was changed by hand is a second claim, committed for good. Such a
manifest's first name is found where it is kept:

* in the work tree's edit of a committed metadata file (HEAD names the manifest
  otherwise: ``git checkout HEAD -- PATH`` restores it; last97 MED 2);
* in the history, for a store made before names were paths (no names file keeps the
  name): the first-parent versions of its metadata file, read in one ``git log`` of
  ``store/metadata`` for the whole store (last97 MED 2b).

A manifest some names file names under another name is :func:`kistore.store.migrate.
plan_names`' own case (the names file keeps the name).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..core import layout
from ..core.digest import Digest
from ..core.model import metadata_name
from ..git.blobs import read_blob
from ..git.pathlog import first_parent_changes
from .landed import measure

if TYPE_CHECKING:  # pragma: no cover - typing only
    import pygit2

    from ._views import View


@dataclass(frozen=True, slots=True)
class Moved:
    """A manifest whose name was changed by hand from the one it was committed with.

    Attributes:
        digest: the manifest.
        first: the name it was committed with: the one to set back.
        commits: the commits that changed the name, oldest first (40 hex digits each);
            empty when the change is the work tree's, not committed.
    """

    digest: Digest
    first: str
    commits: tuple[str, ...]


class CommittedNames:
    """The names HEAD and its first-parent history gave the work tree's manifests.

    Args:
        repo: the ``pygit2.Repository``.
        head: HEAD's view; None when there is no commit yet (nothing is committed).
        work: the work tree's view.
    """

    def __init__(self, repo: pygit2.Repository, head: View | None, work: View) -> None:
        self._repo, self._head, self._work = repo, head, work
        self._history: dict[str, list[tuple[str, str | None]]] | None = None

    def moved(self, digests: Iterable[Digest]) -> dict[Digest, Moved]:
        """Return each of ``digests`` whose committed name the work tree's metadata changes.

        HEAD's blob ids of the metadata files are looked up once for all (no blob read);
        HEAD's bytes are read only where the work tree holds others (an uncommitted edit).
        A manifest HEAD holds as the work tree does is looked up in the history: one ``git
        log`` of ``store/metadata`` the first time (:func:`kistore.git.pathlog.
        first_parent_changes`), and a blob read per version only of the files it changed
        more than once (rare: a title edit). A version that does not parse is passed over
        (as :mod:`kistore.store.landed` measures).

        Args:
            digests: manifests of the work tree (their metadata files are read).

        Returns:
            digest -> :class:`Moved` for each whose name now is not the one it was first
            committed with; a manifest HEAD lacks the metadata of is not committed: none.

        Raises:
            InputError: git could not list the history.
            ObjectUnreadable: a blob of the history is damaged (KI117's words).
        """
        if self._head is None:
            return {}
        paths = {d: layout.metadata_path(d) for d in digests}
        self._head.modes_of(paths.values())  # HEAD's blob ids, once: no blob is read
        found: dict[Digest, Moved] = {}
        for digest, path in paths.items():
            data = self._work.read(path)
            now = metadata_name(data)
            if data is None or now is None:
                continue
            if not self._head.holds(path, data):
                was = metadata_name(self._head.read(path))
                if was is not None and was != now:
                    found[digest] = Moved(digest, was, ())
                    continue
                if was is None:
                    continue  # not committed (or HEAD's does not parse): nothing moved
            moved = self._committed(digest, path, now)
            if moved is not None:
                found[digest] = moved
        return found

    def _committed(self, digest: Digest, path: str, now: str) -> Moved | None:
        """Return the rename the history of ``path`` holds, when ``now`` is not its first."""
        if self._history is None:
            self._history = first_parent_changes(self._repo, "HEAD", layout.METADATA_DIR)
        versions = self._history.get(path, [])
        if len(versions) < 2:
            return None  # added once, never changed: the usual case
        first: str | None = None
        last: str | None = None
        commits: list[str] = []
        for commit, blob in versions:
            doc = measure(read_blob(self._repo, blob, path) if blob is not None else None)
            name = doc["name"] if doc is not None else None
            if name is None:
                continue
            if last is not None and name != last:
                commits.append(commit)
            first = first if first is not None else name
            last = name
        if first is None or first == now or not commits:
            return None
        return Moved(digest, first, tuple(commits))
