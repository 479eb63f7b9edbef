"""Reading the manifests of a git tree for the index, each shard directory listed once.

An index build reads, re-hashes and strictly parses every object and metadata file of a
tree (:func:`kistore.query.catalog.parse_manifest`). The files are located through each
shard directory's listing, loaded once (:class:`TreeFiles`), and read by blob id.

A pool of worker processes for the parsing was tried (20,000 manifests, 2 CPUs shared with
other jobs): no faster than one process, so it was left out.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from .. import layout
from ..digest import Digest
from .catalog import Loaded, parse_manifest

_CHUNK = 500

Job = tuple[str, "str | None", "str | None"]
"""``(digest string, object blob id, metadata blob id)``; an id is None when the file is absent."""

Read = tuple[str, "Loaded | None", "bytes | None"]
"""``(digest string, parsed manifest or None, object bytes or None)``."""


class TreeFiles:
    """The files of one git tree by path, each directory's listing loaded once.

    libgit2 looks a whole path up from the root, loading every tree on the way, each time:
    reading 40,000 files of a 20,000-manifest tree that way took ~75% of an index build.

    Args:
        repo: the pygit2 repository.
        tree: the pygit2 Tree.
    """

    def __init__(self, repo: Any, tree: Any) -> None:
        self.repo = repo
        self.tree = tree
        self._dirs: dict[str, dict[str, str]] = {}

    def blob_id(self, path: str) -> str | None:
        """Return the git blob id (hex) of the file at ``path``, or None when there is none."""
        parent, _, leaf = path.rpartition("/")
        listing = self._dirs.get(parent)
        if listing is None:
            listing = self._dirs[parent] = self._listing(parent)
        return listing.get(leaf)

    def _listing(self, directory: str) -> dict[str, str]:
        try:
            entry = self.tree[directory]
        except KeyError:
            return {}
        if entry.type_str != "tree":
            return {}
        return {e.name: str(e.id) for e in self.repo[entry.id] if e.type_str == "blob"}


def read_manifests(repo: Any, tree: Any, digests: list[Digest],
                   progress: Callable[[int], None] | None = None) -> Iterator[Read]:
    """Yield every manifest of ``digests`` as ``tree`` holds it, in ``digests`` order.

    Args:
        repo: the pygit2 repository.
        tree: the pygit2 Tree to read from.
        digests: the manifests to read.
        progress: called with the number of manifests read since the last call.

    Yields:
        ``(digest string, (kind, name, spec) or None, object bytes or None)``: None where
        :func:`~.catalog.parse_manifest` refuses the files (absent, or not what the name says).
    """
    files = TreeFiles(repo, tree)
    jobs = [(str(d), files.blob_id(layout.object_path(d)), files.blob_id(layout.metadata_path(d)))
            for d in digests]
    chunks = (jobs[i:i + _CHUNK] for i in range(0, len(jobs), _CHUNK))
    for chunk in chunks:
        yield from _read_chunk(repo, chunk)
        if progress is not None:
            progress(len(chunk))


def _read_chunk(repo: Any, jobs: list[Job]) -> list[Read]:
    odb = repo.odb  # read(id) -> (type, bytes): ~40% less than repo[id].data per blob
    out = []
    for digest, object_id, metadata_id in jobs:
        data = odb.read(object_id)[1] if object_id is not None else None
        meta = odb.read(metadata_id)[1] if metadata_id is not None else None
        out.append((digest, parse_manifest(Digest.from_str(digest), data, meta), data))
    return out
