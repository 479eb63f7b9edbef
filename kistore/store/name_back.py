"""The way back for a name its manifest's metadata file no longer says (KI212, KI208).

A names file (``store/names/KIND/XX/NAME``) names a manifest whose metadata file now says
another name: the metadata was renamed by hand. A name never moves once committed (KI208),
so the fix is to put the name back. ``git checkout HEAD -- FILE`` does that only while
HEAD still holds the old name; after a committed rename it restores nothing (break97 M3:
``show KIND/OLDNAME`` said it). The way back is then the last commit where the names
file and the metadata agreed: ``git checkout THAT -- FILE``, or ``"name"`` set back by
hand. A rename a merge brought in from a side branch is the side commit's, undone by its
revert (:mod:`kistore.store.name_changes`, which ``kistore migrate`` asks too). Error paths
only: git's path-limited log of one file, one blob read a version.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from ..core import layout
from ..core.digest import Digest
from ..core.errors import KistoreError
from ..git.blobs import lookup, read_blob
from ..git.pathlog import blob_at, first_parent_versions
from ..git.treediff import subtree
from .landed import measure
from .name_changes import Rename, put_back, renames

if TYPE_CHECKING:  # pragma: no cover - typing only
    import pygit2


def name_back(repo: pygit2.Repository, kind: str, name: str, owner: Digest,
              rev: str | None = None) -> str | None:
    """Return how to put back ``KIND/NAME`` in ``owner``'s metadata file, renamed by hand.

    The work tree (``rev`` None): when HEAD's version still names ``name`` and HEAD's
    names file of ``KIND/NAME`` holds ``owner``, the rename is in the work tree only and
    ``git checkout HEAD -- FILE`` restores it. Else, along ``rev``'s (HEAD's) first-parent
    history of the metadata file, the newest rename away from ``name``
    (:func:`kistore.store.name_changes.renames`: one merged from a side branch is the side
    commit's, also on the side branch that added the file) after which the names file held
    ``owner``: that commit is named, with its fix
    (:func:`kistore.store.name_changes.put_back`).

    Args:
        repo: the ``pygit2.Repository``.
        kind: the kind (``BenchmarkRun``).
        name: the name the names file's path says.
        owner: the digest the names file holds.
        rev: the commit a commit view reads (``show --at REV``); None: the work tree,
            whose history is HEAD's.

    Returns:
        A clause (lower case, no final period) saying the fix that works; None when no
        committed version agreed (the names file, not the metadata, may be what changed),
        there is no commit, or git cannot tell. Raises nothing.
    """
    meta = layout.metadata_path(owner)
    names = layout.name_path(kind, name)

    def agreed(commit: str | None) -> bool:
        """Whether ``commit``'s names file of ``KIND/NAME`` holds ``owner``."""
        if commit is None:
            return False
        tree = cast("pygit2.Commit", lookup(repo, commit)).tree_id
        held = blob_at(repo, subtree(repo, tree), names)
        return held is not None and layout.digest_from_record(
            read_blob(repo, held, names)) == owner

    try:
        versions = first_parent_versions(repo, rev or "HEAD", meta)  # newest first
        if rev is None and versions and versions[0][1] is not None:
            doc = measure(read_blob(repo, versions[0][1], meta))
            if doc is not None and doc["name"] == name and agreed(versions[0][0]):
                return (f"HEAD's metadata file still says {name!r}: restore it with "
                        f"`git checkout HEAD -- {meta}`")
        moved: list[Rename] = renames(repo, meta, versions[::-1], arrived=True)
        for rename in reversed(moved):  # the newest first
            if rename.was == name and agreed(rename.parent):
                return put_back(rename, meta)
    except (KistoreError, OSError, KeyError, IndexError, ValueError, AttributeError):
        return None
    return None
