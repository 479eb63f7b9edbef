"""The way back for a name its manifest's metadata file no longer says (KI212, KI208).

A names file (``store/names/KIND/XX/NAME``) names a manifest whose metadata file now says
another name: the metadata was renamed by hand. A name never moves once committed (KI208),
so the fix is to put the name back. ``git checkout HEAD -- FILE`` does that only while
HEAD still holds the old name; after a committed rename it restores nothing (break97 M3:
``show KIND/OLDNAME`` said it). The way back is then the last commit where the names
file and the metadata agreed: ``git checkout THAT -- FILE``, or ``"name"`` set back by
hand. Error paths only: git's path-limited log of one file, one blob read a version.
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

if TYPE_CHECKING:  # pragma: no cover - typing only
    import pygit2


def name_back(repo: pygit2.Repository, kind: str, name: str, owner: Digest) -> str | None:
    """Return how to put back ``KIND/NAME`` in ``owner``'s metadata file, renamed by hand.

    Along HEAD's first-parent history of the metadata file, newest first: the first version
    that names ``name`` (parsed as :func:`kistore.store.landed.measure` parses) at a commit
    whose names file of ``KIND/NAME`` holds ``owner``. HEAD's own: the rename is in the work
    tree only, and ``git checkout HEAD -- FILE`` restores it. An older one: the commit
    before the rename (the first parent of the commit that changed the file next) is named,
    with the rename itself.

    Args:
        repo: the ``pygit2.Repository``.
        kind: the kind (``BenchmarkRun``).
        name: the name the names file's path says.
        owner: the digest the names file holds.

    Returns:
        A clause (lower case, no final period) saying the fix that works; None when no
        committed version agreed (the names file, not the metadata, may be what changed),
        there is no commit, or git cannot tell. Raises nothing.
    """
    meta = layout.metadata_path(owner)
    names = layout.name_path(kind, name)
    try:
        newer: str | None = None
        for commit, blob in first_parent_versions(repo, "HEAD", meta):
            doc = measure(read_blob(repo, blob, meta)) if blob is not None else None
            if doc is not None and doc["name"] == name:
                agreed = commit if newer is None else str(_commit(repo, newer).parent_ids[0])
                held = blob_at(repo, subtree(repo, _commit(repo, agreed).tree_id), names)
                if held is not None and layout.digest_from_record(
                        read_blob(repo, held, names)) == owner:
                    return _said(meta, name, agreed, newer)
            newer = commit
    except (KistoreError, OSError, KeyError, IndexError, ValueError, AttributeError):
        return None
    return None


def _commit(repo: pygit2.Repository, commit: str) -> pygit2.Commit:
    """Return the commit ``commit`` (40 hex digits) names, read through the guard."""
    return cast("pygit2.Commit", lookup(repo, commit))


def _said(meta: str, name: str, agreed: str, renamed: str | None) -> str:
    """Return the fix: the checkout of ``agreed``'s version of ``meta``, or the name set back."""
    if renamed is None:
        return (f"HEAD's metadata file still says {name!r}: restore it with "
                f"`git checkout HEAD -- {meta}`")
    return (f"commit {renamed[:12]} renamed it in its metadata file (a committed name never "
            f"moves, KI208); {name!r} is the name it was added under: put it back with "
            f"`git checkout {agreed} -- {meta}` (that file as of commit {agreed[:12]}, the "
            f"last where it and the names file agreed) or set \"name\" back to {name!r} in "
            "it, then commit")
