"""Reading the exported commit: every object and metadata file, verified, shard by shard.

Objects are read straight from git (pygit2's object database) as the commit's tree holds
them, one shard directory (``store/objects/sha256/XX``) at a time, and each object file's
bytes are hashed: a file whose SHA-256 is not the digest its path names is never exported.
Also here: which objects carry attestations (notes on their blobs, files under
``store/attestations/``), read without reading any object.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..attest.notes import ATTESTATIONS_SHA256, notes_entered
from ..core import layout
from ..core.digest import Digest, is_digest
from ..core.errors import InputError
from ..git import treediff
from ..git.blobs import read_blob

if TYPE_CHECKING:  # pragma: no cover - typing only
    import pygit2

    from ..store import Store, View


@dataclass(frozen=True, slots=True)
class Stored:
    """One object file of the commit, with its metadata file.

    Attributes:
        digest: the digest its path names.
        blob: the object file's git blob id (40 hex).
        data: the object file's bytes.
        meta: the metadata file's bytes, or None when the commit has none.
    """

    digest: Digest
    blob: str
    data: bytes
    meta: bytes | None

    @property
    def verified(self) -> bool:
        """True when the object bytes hash to the digest their path names."""
        return Digest.of(self.data) == self.digest


def stored_shards(repo: pygit2.Repository, tree: pygit2.Tree, commit: str | None = None
                  ) -> Iterator[list[Stored]]:
    """Yield the object files of a root tree with their metadata, a shard at a time.

    Only paths :func:`kistore.core.layout.digest_from_path` accepts are objects; anything
    else under ``store/objects/`` (which ``kistore verify`` reports) is not read.

    Args:
        repo: the pygit2 repository.
        tree: the commit's root tree (pygit2).
        commit: that commit's id, named by a file past the bound
            (:func:`kistore.git.blobs.too_large_fix`).

    Yields:
        One list of :class:`Stored` per shard directory (``store/objects/sha256/XX``), in
        digest order: one shard's files in memory at a time.

    Raises:
        ObjectUnreadable: a blob is damaged (the repository is: ``git fsck``).
    """
    objects, metadata = _listing(repo, tree, layout.OBJECTS_DIR), \
        _listing(repo, tree, layout.METADATA_DIR)
    for shard in sorted(objects):
        if objects[shard][1] != "tree":
            continue
        files = _listing(repo, None, None, objects[shard][0])
        meta_entry = metadata.get(shard)
        metas = _listing(repo, None, None, meta_entry[0]) \
            if meta_entry is not None and meta_entry[1] == "tree" else {}
        found = []
        for leaf in sorted(files):
            blob, kind = files[leaf]
            digest = _digest(shard, leaf)
            if digest is None or kind != "blob":
                continue
            meta = metas.get(leaf)
            found.append(Stored(digest, str(blob),
                                read_blob(repo, blob, layout.object_path(digest),
                                          commit=commit),
                                read_blob(repo, meta[0], layout.metadata_path(digest),
                                          commit=commit)
                                if meta is not None and meta[1] == "blob" else None))
        yield found


def object_blobs(repo: pygit2.Repository, tree: pygit2.Tree) -> Iterator[tuple[str, Digest]]:
    """Yield ``(blob id, digest)`` of every object file of a root tree, reading no blob."""
    objects = _listing(repo, tree, layout.OBJECTS_DIR)
    for shard, (shard_id, kind) in sorted(objects.items()):
        if kind != "tree":
            continue
        for leaf, (blob, leaf_kind) in sorted(_listing(repo, None, None, shard_id).items()):
            digest = _digest(shard, leaf)
            if digest is not None and leaf_kind == "blob":
                yield str(blob), digest


def attested_subjects(store: Store, repo: pygit2.Repository, tree: pygit2.Tree, view: View,
                      notes_at: str | None = None) -> set[Digest]:
    """Return the digests of the commit's objects that may carry an attestation.

    Those whose object blob has a note under ``refs/notes/kistore`` (at the notes commit
    read: notes are not part of a commit), and the subjects of ``store/attestations/``
    files in the commit. Every other object has none, so its evidence is never looked up.

    Args:
        store: the :class:`kistore.store.Store`.
        repo: its pygit2 repository.
        tree: the commit's root tree.
        view: the commit's :class:`kistore.store.View`.
        notes_at: the notes commit read (a commit id, or ``NO_NOTES``); None: the tip.
    """
    subjects: set[Digest] = set()
    annotated = set(notes_entered(repo, notes_at=notes_at))
    if annotated:
        subjects.update(d for blob, d in object_blobs(repo, tree) if blob in annotated)
    for shard in view.list_dir(ATTESTATIONS_SHA256):
        for rest in view.list_dir(f"{ATTESTATIONS_SHA256}/{shard}"):
            text = f"sha256:{shard}{rest}"
            if len(shard) == 2 and is_digest(text):  # else misplaced (`kistore verify`: KI305)
                subjects.add(Digest.from_str(text))
    return subjects


def object_digest(path: str) -> str:
    """Return the digest string an object path names, without checking its form.

    For paths :func:`kistore.cite.citation.object_first_commits` yields, to key what history says
    of them: a path that is no object's is then a key no object has.
    """
    shard, _, leaf = path[len(layout.OBJECTS_DIR) + 1:].partition("/")
    return f"sha256:{shard}{leaf.removesuffix(layout.SUFFIX)}"


def _digest(shard: str, leaf: str) -> Digest | None:
    """Return the digest of ``store/objects/sha256/SHARD/LEAF``, or None for no object path.

    One regular expression instead of :func:`kistore.core.layout.digest_from_path`'s two
    (15 us a file: 3 s of an export of 100,000 manifests).
    """
    if len(shard) != 2 or not leaf.endswith(layout.SUFFIX):
        return None
    try:
        return Digest.from_str(f"sha256:{shard}{leaf[:-len(layout.SUFFIX)]}")
    except InputError:  # a stray file (`kistore verify` reports it)
        return None


def _listing(repo: pygit2.Repository, tree: pygit2.Tree | None, path: str | None,
             tree_id: Any = None
             ) -> dict[str, tuple[Any, str]]:
    """Return ``{name: (id, "tree" | "blob" | ...)}`` of a directory of the commit.

    Either ``tree`` and ``path`` (a directory under the root tree), or ``tree_id``.
    """
    if tree_id is None:
        assert tree is not None and path is not None  # the other form of the call
        entry = treediff.entry_at(repo, tree, path)  # guarded: a damaged directory named
        if entry is None or entry.type_str != "tree":
            return {}
        tree_id = entry.id
    return {str(e.name): (e.id, e.type_str) for e in treediff.subtree(repo, tree_id)}
