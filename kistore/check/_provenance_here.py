"""``verify``'s KI432 of the work tree: a committed annotation edited, not committed.

``verify`` warns of KI432 on every commit of the history (:mod:`.lineage`); a
``kernelindex.dev/*`` annotation of a committed metadata file edited in the work tree was
not said at all, while every query of the work tree answered with the edited value. This
says it, as a warning (nothing is committed yet; the gate refuses the commit), naming the
file, the annotation, ``HEAD``'s value and the work tree's, and the fix ``git checkout HEAD
-- PATH``.

Which metadata files differ from ``HEAD`` is told without asking git about every file:
``verify``'s workers read every metadata file and keep its blob id (``metadata_read`` of
:func:`kistore.check.audit.check_contents`); the tree of each shard those ids make is
compared with ``HEAD``'s shard tree (one hash a shard), and only a shard that differs is
listed, file by file. Only a file whose blob is not ``HEAD``'s is read again (and
``HEAD``'s blob of it): :func:`kistore.store.provenance_here.provenance_edits`.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from ..core import layout
from ..core.canonical import escape_pointer
from ..core.findings import Finding
from ..core.provenance import quoted_annotation
from ..git import treediff
from ..git.blobs import head_commit
from ..git.sparse import git_status
from ..store.provenance_here import edit_said, provenance_edits
from .lineage import PROVENANCE_CHANGED_IN_HISTORY

if TYPE_CHECKING:  # pragma: no cover - typing only
    import pygit2

    from ..store import Store

_BLOB = b"100644"
"""The mode a shard tree made of the files read gives each (a file of another mode in
``HEAD`` makes the shard differ, and its files are compared by blob id alone)."""


def worktree_provenance(store: Store, metadata_read: dict[str, bytes] | None) -> list[Finding]:
    """KI432 (a warning) per ``kernelindex.dev/*`` annotation the work tree edits.

    Args:
        store: the store verified (its work tree; a bare one or one without commits:
            nothing).
        metadata_read: every metadata file ``verify``'s workers read (repository path ->
            the 20-byte blob id of the bytes read); None: ask ``git status`` which
            metadata files differ (one child process).

    Returns:
        One finding per annotation changed, added or removed, on the metadata file at
        ``/annotations/KEY`` (``~1`` for ``/``), ``expected`` ``HEAD``'s value quoted,
        ``found`` the work tree's, ``extra`` ``annotation`` and ``worktree`` True; sorted
        by file and pointer.

    Raises:
        ObjectUnreadable: a tree or blob of ``HEAD`` it reads is damaged.
        StoreStateError: ``git status`` could not be run (``metadata_read`` None).
    """
    repo = store.repo
    if store.root is None or repo.head_is_unborn:
        return []
    if metadata_read is None:
        paths: Iterable[str] = [path for path in git_status(Path(store.root),
                                                            layout.METADATA_DIR)
                                if path.startswith(layout.METADATA_DIR + "/")]
    else:
        paths = _differing(repo, metadata_read)
    found = []
    for edit in provenance_edits(store, paths):
        found.append(Finding(
            PROVENANCE_CHANGED_IN_HISTORY,
            f"{edit_said(edit)}: a committed manifest's kernelindex.dev/* annotations are "
            "its importer's record (where it came from, under which licence) and never "
            "change; the queries of the work tree answer with the edited value, and the gate "
            "refuses the commit",
            file=edit.path, pointer="/annotations/" + escape_pointer(edit.annotation),
            expected=quoted_annotation(edit.committed), found=quoted_annotation(edit.now),
            extra={"annotation": edit.annotation, "worktree": True},
            fix=f"restore the committed metadata file (`git checkout HEAD -- {edit.path}`); a "
            "wrong licence or source is the maintainers' to answer, with a withdrawal signed "
            "by a trusted maintainer key that says why (`kistore attest REF --type withdrawal "
            "-m WHY`), never by editing the metadata"))
    return sorted(found, key=lambda f: (f.file or "", f.pointer or ""))


def _differing(repo: pygit2.Repository, metadata_read: dict[str, bytes]) -> list[str]:
    """Return the paths of ``metadata_read`` whose blob is not ``HEAD``'s file there.

    A shard whose tree (of the files read, each as :data:`_BLOB`) is ``HEAD``'s is passed
    over at one hash; a file ``HEAD`` lacks is none (an uncommitted add). Raises
    ObjectUnreadable for a damaged tree of ``HEAD``.
    """
    commit = head_commit(repo)
    top = None if commit is None else treediff.subtree_id(repo, commit.tree,
                                                          layout.METADATA_DIR)
    if top is None:
        return []
    cut = len(layout.METADATA_DIR) + 1
    shards: dict[str, dict[bytes, tuple[bytes, bytes]]] = {}
    for path, blob in metadata_read.items():
        if len(blob) == 20 and path[cut + 2:cut + 3] == "/":
            shards.setdefault(path[cut:cut + 2], {})[path[cut + 3:].encode()] = (_BLOB, blob)
    head_shards = {entry.name: entry.id for entry in treediff.subtree(repo, top)
                   if entry.type_str == "tree"}
    differing = []
    for shard, files in sorted(shards.items()):
        held = head_shards.get(shard)
        if held is None or treediff.tree_id(files) == held.raw:
            continue  # HEAD holds no such shard (all added), or holds these very files
        committed = {(entry.name or "").encode(): entry.id.raw
                     for entry in treediff.subtree(repo, held)}
        differing += [f"{layout.METADATA_DIR}/{shard}/{name.decode()}"
                      for name, (_, blob) in files.items()
                      if name in committed and committed[name] != blob]
    return differing
