"""Committed attestation files as a work-tree answer reads them: ``HEAD``'s where it lost them.

An attestation file, once committed, is never removed or changed: KI410 refuses, at every
commit, a commit that deletes one or rewrites its bytes. A work tree can still lack one
(``mv``, ``rm -r`` of its folder), or hold a FIFO, a symbolic link, a directory or other
bytes in its place; a query of the work tree then read no such file, and a maintainer's
withdrawal stopped withdrawing without a word (fresh14 F15): an answer no commit of the
branch can give. So a work-tree answer reads each committed file of the folders it asks
about as ``HEAD`` holds it wherever the work tree does not hold those very bytes
(:func:`files_as_committed`); a new file not committed yet counts as before. The files so
taken from ``HEAD`` are recorded on the store (:attr:`kistore.store.Store.heads_files`),
for the command line to say once the answer is given (:mod:`kistore.cli._evidence_here`);
``kistore verify`` reports each as KI410 of the work tree (:func:`kistore.check.
_attestations_here.worktree_attestations_kept`).

Cost: only on the attested path (a run with a note or an attestation folder, here or in
``HEAD``: :func:`kistore.index.warm.maybe_attested`), where pygit2 is loaded already for
the files' entry times: ``HEAD``'s listing of the folders asked about (two tree reads a
shard, one a folder) and a SHA-1 of each work-tree file read; ``HEAD``'s blob is read only
for a file the work tree lost.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import TYPE_CHECKING, NamedTuple

from ..core import layout
from ..core.digest import Digest
from ..core.file_kinds import DIRECTORY, SYMLINK, kind_at
from ..git.ids import blob_id

_SHA256 = f"{layout.ATTESTATIONS_DIR}/sha256"
"""Where the attestation folders' shards are (:data:`kistore.attest.notes.ATTESTATIONS_SHA256`)."""

if TYPE_CHECKING:  # pragma: no cover - typing only
    from ..store import Store, View

MISSING = "missing"
"""How the work tree holds a committed file it lacks (the file, or its folder, is gone)."""
CHANGED = "changed"
"""How the work tree holds a committed file whose bytes it changed."""


class TakenFromHead(NamedTuple):
    """A committed attestation file a work-tree answer read as ``HEAD`` holds it.

    Attributes:
        path: its repository path (``store/attestations/sha256/XX/REST/NAME.json``).
        held: how the work tree holds it: :data:`MISSING`, ``a FIFO``, ``a symbolic
            link``, ``a directory``, ``not a regular file`` or :data:`CHANGED`.
    """

    path: str
    held: str


def folders_holding(view: View, subjects: Iterable[Digest]) -> list[str]:
    """Return the attestation folders ``view`` holds of ``subjects``, in their order.

    Lists the shard directories once and a shard's folders once, so asking about thousands
    of runs costs a few listings, not one each.

    Args:
        view: a :class:`kistore.store.View`.
        subjects: the digests asked about.

    Returns:
        ``store/attestations/sha256/XX/REST`` of each subject whose folder is listed.
    """
    shards = set(view.list_dir(_SHA256))
    rests: dict[str, set[str]] = {}
    folders = []
    for subject in subjects:
        shard = subject.hex[:2]
        if shard not in shards:
            continue
        if shard not in rests:
            rests[shard] = set(view.list_dir(f"{_SHA256}/{shard}"))
        if subject.hex[2:] in rests[shard]:
            folders.append(layout.attestation_dir(subject))
    return folders


def files_as_committed(store: Store, subjects: list[Digest], files: list[tuple[str, bytes]]
                       ) -> list[tuple[str, bytes]]:
    """Return the work tree's attestation files of ``subjects`` with ``HEAD``'s committed ones.

    Each regular file ``HEAD`` holds in a subject's folder that the work tree does not hold
    with the same bytes (lacks it or its folder, holds a FIFO, a symbolic link, a
    directory or other bytes there) is read from ``HEAD`` (a blob-less clone fetches them
    in one ``git fetch``: :meth:`kistore.store.View.prefetch`), in place of what the work
    tree holds there; each is recorded in :attr:`kistore.store.Store.heads_files`. Files
    ``HEAD`` lacks (new, not committed yet) are kept as read.

    Args:
        store: a :class:`kistore.store.Store` with a work tree.
        subjects: the digests asked about, in the answer's order.
        files: what the work tree's view read of their folders
            (:func:`kistore.attest.notes.file_attestations_many`), folder by folder.

    Returns:
        ``(path, bytes)`` folder by folder in ``subjects`` order, names sorted; ``files``
        itself on an unborn branch or when nothing differs.

    Raises:
        ObjectUnreadable: a tree or blob of ``HEAD`` it reads is damaged.
        StoreStateError: a blob-less clone whose remote cannot give the blobs.
    """
    head = store.head_or_none()
    if head is None or store.root is None:
        return files
    held = dict(files)
    taken = differing(store, head, folders_holding(head, subjects), held)
    if not taken:
        return files
    head.prefetch(t.path for t in taken)
    for found in taken:
        data = head.read(found.path)
        if data is not None:
            held[found.path] = data
            store.heads_files[found.path] = found.held
    order = {layout.attestation_dir(s): n for n, s in enumerate(subjects)}
    return sorted(held.items(), key=lambda item: (order.get(item[0].rpartition("/")[0], -1),
                                                  item[0]))


def differing(store: Store, head: View, folders: Iterable[str], held: dict[str, bytes]
              ) -> list[TakenFromHead]:
    """Return the regular files of ``head``'s ``folders`` the work tree does not hold as written.

    Args:
        store: the store (its work tree is looked at for how each is held).
        head: ``HEAD``'s view.
        folders: attestation folders ``head`` holds.
        held: the work tree's bytes of the files read there (path -> bytes).

    Returns:
        One :class:`TakenFromHead` a file whose blob id is not that of ``held``'s bytes, in
        folder then name order. Raises ObjectUnreadable for a damaged tree of ``HEAD``.
    """
    found = []
    for folder in folders:
        for name in sorted(head.list_dir(folder)):
            path = f"{folder}/{name}"
            ids = head.blob_ids([path])
            if not ids:  # no regular file in HEAD (KI110, KI111 of its commit)
                continue
            data = held.get(path)
            if data is not None and blob_id(data).hex() == ids[0]:
                continue
            found.append(TakenFromHead(path, CHANGED if data is not None else
                                       how_held(store, path)))
    return found


def how_held(store: Store, path: str) -> str:
    """Say how the work tree holds ``path``, a file no read took (one ``lstat``).

    Returns:
        :func:`kistore.core.file_kinds.file_kind`'s words (``a FIFO``, ``a symbolic link``,
        ``a directory``, ...); when nothing is there and a folder on its way under
        ``store/attestations`` is no directory, what the nearest is and which
        (``a FIFO in place of its folder store/attestations/sha256/XX/REST``); else
        :data:`MISSING` (nothing there, nor its folder), or when the file could not be read
        (a folder on its way that is a symbolic link: never read through, said by
        :func:`kistore.cli._links.warn_linked`, a line of its own). Raises nothing.
    """
    assert store.root is not None
    # a regular file here was not read: under a symbolic link, or past the size limit
    kind = kind_at(os.path.join(store.root, path))
    if kind is not None:
        return kind or MISSING
    folder = path.rpartition("/")[0]  # nothing there: a folder on its way may be no folder
    while folder.startswith(f"{layout.ATTESTATIONS_DIR}"):
        kind = kind_at(os.path.join(store.root, folder))
        if kind is not None:  # the nearest that is there (fresh17 F9: a FIFO was "missing")
            return MISSING if kind in (DIRECTORY, SYMLINK) else \
                f"{kind or 'a regular file'} in place of its folder {folder}"
        folder = folder.rpartition("/")[0]
    return MISSING
