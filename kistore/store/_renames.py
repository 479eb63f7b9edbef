"""The names a migration must not move: a committed manifest's name edited by hand.

A name never moves (KI208): a names file ``kistore migrate`` writes for a manifest whose
committed name was changed by hand is a second claim, committed for good. Such a
manifest's first name is found where it is kept:

* in the work tree's edit of a committed metadata file (HEAD names the manifest
  otherwise: ``git checkout HEAD -- PATH`` restores it; last97 MED 2);
* in the history, for a store made before names were paths (no names file keeps the
  name): the first-parent versions of its metadata file, read in one ``git log`` of
  ``store/metadata`` for the whole store (last97 MED 2b); the commits that renamed it
  are :func:`kistore.store.name_changes.renames`' (one a merge brought in from a side
  branch: the side commit, followed only for a change found at a merge).

A manifest some names file names under another name is :func:`kistore.store.migrate.
plan_names`' own case (the names file keeps the name).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..core import layout
from ..core.digest import Digest
from ..core.model import metadata_name
from ..git.pathlog import first_parent_changes, work_tree_changes
from .name_changes import Rename, renames

if TYPE_CHECKING:  # pragma: no cover - typing only
    import pygit2

    from ._views import View


@dataclass(frozen=True, slots=True)
class Moved:
    """A manifest whose name was changed by hand from the one it was committed with.

    Attributes:
        digest: the manifest.
        first: the name it was committed with: the one to set back.
        renames: the commits that changed the name, oldest first
            (:class:`kistore.store.name_changes.Rename`: one merged from a side branch is
            the side commit); empty when the change is the work tree's, not committed.
    """

    digest: Digest
    first: str
    renames: tuple[Rename, ...]


class CommittedNames:
    """The names HEAD and its first-parent history gave the work tree's manifests.

    Args:
        repo: the ``pygit2.Repository``.
        root: the top of the work tree.
        head: HEAD's view; None when there is no commit yet (nothing is committed).
    """

    def __init__(self, repo: pygit2.Repository, root: str, head: View | None) -> None:
        self._repo, self._root, self._head = repo, root, head
        self._history: dict[str, list[tuple[str, str | None]]] | None = None
        self._edited: set[str] | None = None

    def moved(self, named: Mapping[Digest, str]) -> dict[Digest, Moved]:
        """Return each manifest of ``named`` whose committed name its name now is not.

        One pass each, whatever the number of manifests (each made once, however often
        this is asked; names97 left: HEAD's metadata was read once per missing names
        file): the metadata files the work tree holds otherwise than HEAD, one ``git
        diff`` (:func:`kistore.git.pathlog.work_tree_changes`), HEAD's bytes read only of
        those (an uncommitted edit); the history, one ``git log`` of ``store/metadata``
        (:func:`kistore.git.pathlog.first_parent_changes`), a blob read per version only
        of the files a commit changed (rare: a title edit). A version that does not parse
        is passed over (as :mod:`kistore.store.landed` measures).

        Args:
            named: each manifest asked of -> its ``metadata.name`` in the work tree.

        Returns:
            digest -> :class:`Moved` for each whose name now is not the one it was first
            committed with; one whose metadata HEAD lacks is not committed: none.

        Raises:
            InputError: git could not tell (its words).
            ObjectUnreadable: a blob of the history is damaged (KI117's words).
        """
        if self._head is None or not named:
            return {}
        if self._edited is None:
            # git diff waits for ever on a FIFO among the attributes files (fresh11 M3)
            # Lazy: the guard only when git compares the work tree.
            from ..git.attr_guard import refuse_blocking_attributes

            refuse_blocking_attributes(self._repo, "`git diff HEAD -- store/metadata`")
            self._edited = work_tree_changes(self._root, "HEAD", layout.METADATA_DIR)
        edited = self._edited
        found: dict[Digest, Moved] = {}
        for digest, now in named.items():
            path = layout.metadata_path(digest)
            if path in edited:
                was = metadata_name(self._head.read(path))
                if was is None:
                    continue  # not committed (or HEAD's does not parse): nothing moved
                if was != now:
                    found[digest] = Moved(digest, was, ())
                    continue
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
        moved = renames(self._repo, path, versions)
        if not moved or moved[0].was == now:
            return None
        return Moved(digest, moved[0].was, tuple(moved))
