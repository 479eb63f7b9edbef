"""What the site reads of git history: when each source of a page last changed.

Every page states *its* commit: the newest commit, on the first-parent chain of the commit
the site is built from, whose change (against its first parent) touched a file the page is
made from. Those files are named by *source keys* (:func:`source_key`):

* ``m:<digest>`` -- a manifest's object file, its metadata file and its attestation files
  (``store/attestations/sha256/XX/REST/...``);
* ``policy`` -- ``store/policy/`` (how groups rank); ``trust`` -- ``store/trust/`` (which
  attestations count); ``settings`` -- ``kistore.toml`` (the citation's permalink and
  publisher).

No later commit of the chain changed any of a page's files, so building the site at the
page's commit reads the same bytes for it and gives the page byte for byte; and a commit
that changes none of them leaves the page (and its bytes) alone, which is what makes a
rebuild after one added manifest cost the pages that manifest changes.

Reads git through pygit2 and :mod:`kistore.git.treediff` (only the subtrees that differ
between a commit and its parent are read); knows the store's layout, nothing of pages.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..attest.notes import note_blobs
from ..core import layout
from ..core.digest import is_digest
from ..git import treediff
from ..git.blobs import ObjectUnreadable, read_loose_history, ref_commit
from ..git.lazy import pygit2
from ..git.notes import changed_notes

if TYPE_CHECKING:  # pragma: no cover - typing only
    import pygit2

POLICY = "policy"
TRUST = "trust"
SETTINGS = "settings"

_ATTESTATIONS = f"{layout.ATTESTATIONS_DIR}/sha256/"


def source_key(path: str) -> str | None:
    """Return the source key of a repository path, or None for a path no page reads.

    Args:
        path: a ``/``-separated repository path (``store/objects/sha256/38/4a...json``).

    Returns:
        ``m:sha256:<hex>`` for a manifest's object, metadata or attestation file;
        ``policy``, ``trust`` or ``settings``; None otherwise.
    """
    digest = layout.digest_from_path(path)
    if digest is not None:
        return f"m:{digest}"
    if path.startswith(_ATTESTATIONS):
        shard, _, rest = path[len(_ATTESTATIONS):].partition("/")
        text = "sha256:" + shard + rest.partition("/")[0]
        return f"m:{text}" if is_digest(text) else None
    if path.startswith(layout.POLICY_DIR + "/"):
        return POLICY
    if path.startswith(layout.TRUST_DIR + "/"):
        return TRUST
    if path == layout.SETTINGS_FILE:
        return SETTINGS
    return None


def manifest_key(digest: str) -> str:
    """Return the source key of a manifest (``m:`` + its digest string)."""
    return f"m:{digest}"


@dataclass
class Touches:
    """When each source key last changed on the first-parent chain of one commit.

    Attributes:
        head: the commit (40 hex) the chain starts from.
        keys: source key -> ``(position, commit)``: the newest chain commit that changed it;
            position counts first-parent steps from the chain's root (root = 0), so the
            larger position is the newer commit.
        positions: commit (40 hex) -> its position, for every commit walked or kept.
    """

    head: str
    keys: dict[str, tuple[int, str]] = field(default_factory=dict)
    positions: dict[str, int] = field(default_factory=dict)

    def newest(self, keys: Any) -> str | None:
        """Return the newest commit that changed any of ``keys`` (None when none did)."""
        best: tuple[int, str] | None = None
        for key in keys:
            found = self.keys.get(key)
            if found is not None and (best is None or found[0] > best[0]):
                best = found
        return best[1] if best else None

    def to_json(self) -> dict[str, Any]:
        """Return the touches as data (the build cache keeps them)."""
        return {"head": self.head, "position": self.positions.get(self.head, 0),
                "keys": {k: list(v) for k, v in sorted(self.keys.items())}}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Touches:
        """Read :meth:`to_json` output back.

        Raises:
            KeyError, TypeError, ValueError: the data is not what :meth:`to_json` wrote.
        """
        keys = {str(k): (int(v[0]), str(v[1])) for k, v in data["keys"].items()}
        touches = cls(str(data["head"]), keys)
        touches.positions = {c: p for p, c in keys.values()}
        touches.positions[touches.head] = int(data["position"])
        return touches


def last_changed(repo: pygit2.Repository, head: Any, known: Touches | None = None) -> Touches:
    """Return when each source key last changed on ``head``'s first-parent chain.

    Walks the chain newest first, comparing each commit's ``store/`` tree and
    ``kistore.toml`` with its first parent's (a root commit: with nothing), and keeps the
    first (newest) commit seen for each key. With ``known`` -- the answer for an earlier
    commit -- the walk stops when it reaches that commit on the chain and takes the older
    keys from it: a rebuild after a few commits reads only those commits.

    Args:
        repo: the pygit2 repository.
        head: the pygit2 Commit the site is built from.
        known: touches computed earlier for another commit, or None.

    Returns:
        The :class:`Touches` of ``head``.

    Raises:
        ObjectUnreadable: a commit or tree of the chain is damaged or missing (a ``store/``
            tree named with its path).
    """
    return _walk(repo, head, known,
                 lambda old, new: _touched(repo, old.tree if old else None, new.tree))


def notes_changed(repo: pygit2.Repository, tip: Any, known: Touches | None = None) -> Touches:
    """Return when each object's note last changed on the first-parent chain of a notes commit.

    As :func:`last_changed` for the store's commits, over the notes history
    (``refs/notes/kistore``: a ``git notes merge`` commit's first parent is the clone's
    own notes): its keys are :func:`note_key` of each annotated object (a run's object
    blob) whose note a chain commit added, changed or removed. A page states the newest
    notes commit that changed a note of a run it shows; building the site at it reads the
    same notes for those runs, so writes the page byte for byte.

    Args:
        repo: the pygit2 repository.
        tip: the pygit2 Commit of the notes read.
        known: as :func:`last_changed` takes it (an earlier build's, of the notes).

    Raises:
        ObjectUnreadable: a notes commit or tree of the chain is damaged or missing.
    """
    return _walk(repo, tip, known, lambda old, new: dict.fromkeys(
        note_key(obj) for obj in changed_notes(repo, old.tree if old else None, new.tree)))


def note_key(annotated: str) -> str:
    """Return the key of an object's note in :func:`notes_changed` (``n:`` + its blob id)."""
    return f"n:{annotated}"


def _walk(repo: pygit2.Repository, head: Any, known: Touches | None,
          touched: Any) -> Touches:
    """Walk ``head``'s first-parent chain, newest first, down to ``known``'s head or the root.

    ``touched(first parent or None, commit)`` gives the keys a commit changed (an ordered
    set); the newest commit per key is kept (:class:`Touches`).
    """
    chain: list[tuple[str, dict[str, None]]] = []  # newest first: (commit, keys it touched)
    stop: int | None = None
    read_loose_history(repo, head.id)  # libgit2 loops on a cut loose commit (F3)
    commit = head
    while commit is not None:
        cid = str(commit.id)
        if known is not None and cid == known.head:
            stop = known.positions.get(cid)
            break
        parent = commit.parents[0] if commit.parents else None
        chain.append((cid, touched(parent, commit)))
        commit = parent
    base = 0 if stop is None else stop + 1
    touches = Touches(str(head.id))
    if stop is not None and known is not None:
        touches.keys = dict(known.keys)
        touches.positions = dict(known.positions)
    for offset, (cid, keys) in enumerate(reversed(chain)):  # oldest first: newer overwrite
        position = base + offset
        touches.positions[cid] = position
        for key in keys:
            touches.keys[key] = (position, cid)
    return touches


def _touched(repo: pygit2.Repository, old: Any | None, new: Any) -> dict[str, None]:
    """Return the source keys whose files differ between two root trees (an ordered set)."""
    keys: dict[str, None] = {}
    store_old = treediff.subtree_id(repo, old, layout.STORE_DIR)
    store_new = treediff.subtree_id(repo, new, layout.STORE_DIR)
    if store_old != store_new:
        try:
            changed = treediff.changed_leaves(repo, store_old, store_new,
                                              layout.STORE_DIR + "/")
        except ObjectUnreadable as e:  # the store/ tree itself: named as cite and check do
            if e.oid in (str(store_old), str(store_new)):
                raise e.at(layout.STORE_DIR) from e
            raise
        for path in changed:
            key = source_key(path)
            if key is not None:
                keys[key] = None
    if _entry_id(old, layout.SETTINGS_FILE) != _entry_id(new, layout.SETTINGS_FILE):
        keys[SETTINGS] = None
    return keys


def _entry_id(tree: pygit2.Tree | None, path: str) -> str | None:
    if tree is None:
        return None
    try:
        return str(tree[path].id)
    except KeyError:
        return None


def object_blobs(repo: pygit2.Repository, tree: pygit2.Tree) -> dict[str, str]:
    """Return ``{digest string: git blob id}`` of every object file of a root tree.

    One raw read of the object shards (:func:`kistore.git.treediff.changed_leaves` against
    the empty tree), no file contents.
    """
    objects = treediff.subtree_id(repo, tree, layout.OBJECTS_DIR)
    blobs: dict[str, str] = {}
    for path, (_, after) in treediff.changed_leaves(repo, None, objects,
                                                    layout.OBJECTS_DIR + "/").items():
        digest = layout.digest_from_path(path)
        if digest is not None and after is not None:
            blobs[str(digest)] = after[0]
    return blobs


def notes_of(repo: pygit2.Repository, ref: str) -> tuple[str | None, dict[str, str]]:
    """Return the notes tip and ``{annotated blob id: note blob id}`` under ``ref``.

    Notes are not part of a commit: the site states the tip it read (``build.json``) and
    each page's cache key names the note blobs of the runs it shows.

    Returns:
        ``(tip commit id or None, mapping)``; ``(None, {})`` when the ref does not exist.

    Raises:
        ObjectUnreadable: the ref's commit is damaged or missing (named with ``ref``).
    """
    commit = ref_commit(repo, ref)  # guarded: a tip cut short or gone is said, with ref
    if commit is None:
        return None, {}
    return str(commit.id), note_blobs(repo, commit)
