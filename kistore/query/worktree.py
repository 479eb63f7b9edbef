"""Which manifests the work tree holds that differ from ``HEAD``, found quickly.

``git status`` stats every file: at 100,000 runs (200,000 files) that alone costs about a
second. Manifest files are only ever added, replaced or removed by renames (kistore writes
a temporary file and renames it into place), and each of those changes the mtime of the
shard directory (``store/objects/sha256/XX``). So each shard directory is compared with
``HEAD``'s tree once, and the result cached in the index (table ``worktree``) under the
directory's mtime and the ``HEAD`` tree; it is compared again only when either changes.

A directory modified within the last :data:`RACY_NS` is never cached (as git treats a
"racily clean" index entry): a change in the same clock tick could hide behind an unchanged
mtime. A file edited in place by hand does not change its directory's mtime; reads re-hash
objects, and ``kistore verify`` checks every file, so that is found there.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import time
from pathlib import Path
from typing import Any

from .. import layout
from ..digest import Digest

RACY_NS = 2_000_000_000
"""Directories changed this recently (2 s) are compared every time, never cached."""

SCHEMA = ("CREATE TABLE IF NOT EXISTS worktree (dir TEXT PRIMARY KEY, mtime_ns INTEGER, "
          "tree TEXT, changed TEXT)")


def changed_digests(repo: Any, root: Path, head: Any, conn: sqlite3.Connection) -> set[Digest]:
    """Return the digests whose object or metadata file differs between work tree and ``head``.

    Args:
        repo: the pygit2 repository.
        root: the work tree's root directory.
        head: the pygit2 Tree of ``HEAD``.
        conn: the index connection, whose ``worktree`` table caches clean directories.

    Returns:
        Digests with a file added, removed or replaced under ``store/objects`` or
        ``store/metadata`` relative to ``head``.
    """
    conn.execute(SCHEMA)
    cached = {row[0]: row[1:] for row in conn.execute("SELECT dir, mtime_ns, tree, changed "
                                                      "FROM worktree")}
    tree_id, now = str(head.id), time.time_ns()
    found: set[Digest] = set()
    updates = []
    top = os.fspath(root)
    for base in (layout.OBJECTS_DIR, layout.METADATA_DIR):
        head_shards = _tree_names(repo, head, base)
        try:
            shards = set(os.listdir(os.path.join(top, base)))
        except FileNotFoundError:
            shards = set()
        for shard in sorted(shards | set(head_shards)):
            rel = f"{base}/{shard}"
            try:
                mtime: int | None = os.stat(os.path.join(top, rel)).st_mtime_ns
            except (FileNotFoundError, NotADirectoryError):
                mtime = None
            hit = cached.get(rel)
            if hit is not None and mtime is not None and hit[0] == mtime and hit[1] == tree_id:
                if hit[2] != "[]":  # the common case: a clean directory
                    found.update(Digest.from_str(d) for d in json.loads(hit[2]))
                continue
            changed = _compare(repo, root, rel, head_shards.get(shard))
            found |= changed
            if mtime is not None and now - mtime > RACY_NS:
                updates.append((rel, mtime, tree_id, json.dumps(sorted(map(str, changed)))))
    if updates:
        with conn:
            conn.executemany("INSERT OR REPLACE INTO worktree VALUES (?, ?, ?, ?)", updates)
    return found


def _tree_names(repo: Any, tree: Any, path: str) -> dict[str, Any]:
    """Map entry name to entry for the directory ``path`` of a tree (empty when absent)."""
    try:
        entry = tree[path]
    except KeyError:
        return {}
    sub = repo[entry.id]
    return {e.name: e for e in sub} if entry.type_str == "tree" else {}


def _compare(repo: Any, root: Path, rel: str, entry: Any) -> set[Digest]:
    """Digests of files in work-tree dir ``rel`` that differ from the tree ``entry``."""
    want = {e.name: e.id for e in repo[entry.id]} if entry is not None and \
        entry.type_str == "tree" else {}
    try:
        have = set(os.listdir(root / rel))
    except (FileNotFoundError, NotADirectoryError):
        have = set()
    changed: set[Digest] = set()
    for name in have | set(want):
        if name in have and name in want and _blob_id(root / rel / name) == str(want[name]):
            continue
        digest = layout.digest_from_path(f"{rel}/{name}")
        if digest is not None:
            changed.add(digest)
    return changed


def _blob_id(path: Path) -> str | None:
    """Return the git blob id (SHA-1 of ``blob <size>\\0`` + bytes) of a file, as git hashes it.

    No conversion applies under ``store/`` (``.gitattributes``), so the bytes are the blob.
    """
    try:
        data = path.read_bytes()
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        return None
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()
