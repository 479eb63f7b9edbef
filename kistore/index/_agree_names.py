"""``reindex --check`` of the names: a scope's ``KIND/NAME -> digest`` rows against git's.

The scope ``reindex`` rebuilds is compared with the fresh build's (:func:`names`,
:func:`names_differ`, a name stale where its shard moved: :func:`moved_shards`); the kept
``commit`` scope is checked against the git trees its own ``name_shards`` rows name
(:func:`commit_scope`, through :class:`_RecordedTrees`). :mod:`.agree` calls both.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..git.treediff import subtree
from . import _database as database
from ._agree_difference import Difference, text
from ._database import seal
from .names import _COLUMNS, SUMMARY, NameIndex, name_key, summary_key

if TYPE_CHECKING:  # pragma: no cover - typing only
    import pygit2

    from .interfaces import IndexedStore


def names(conn: sqlite3.Connection, scope: str
          ) -> tuple[dict[str, tuple[str, str]], list[Difference]]:
    """Return a scope's names (digest hex -> kind, name) and the rows that cannot be trusted."""
    found, bad = {}, []
    for row in conn.execute(f"SELECT {_COLUMNS} FROM names WHERE scope = ?", (scope,)):
        if row[7] != seal(row[:7]) or row[6] != name_key(row[4], row[5]):
            bad.append(Difference(f"names ({scope})", f"sha256:{row[1]}",
                                  f"{row[4]}/{row[5]}", "seal",
                                  text("does not match its seal"), None, False))
        else:
            found[str(row[1])] = (str(row[4]), str(row[5]))
    return found, bad


def shard_keys(conn: sqlite3.Connection, scope: str) -> dict[str, str]:
    """Return a scope's shard keys (``objects/XX`` -> key), each row's seal checked."""
    return {row[1]: row[2] for row in conn.execute(
        "SELECT scope, dir, key, seal FROM name_shards WHERE scope = ? AND dir != ?",
        (scope, SUMMARY)) if row[3] == seal(row[:3])}


def summary_answers(conn: sqlite3.Connection, scope: str, fresh: dict[str, str]) -> bool:
    """Return True when a scope's kept summary row answers the next sync by itself.

    Its seal matches and it holds :func:`.names.summary_key` of the fresh build's shard
    keys (``fresh``): the next sync reads no other row (:meth:`.names.NameIndex.sync`).
    """
    row = conn.execute("SELECT scope, dir, key, seal FROM name_shards WHERE scope = ? AND "
                       "dir = ?", (scope, SUMMARY)).fetchone()
    return row is not None and row[3] == seal(row[:3]) and row[2] == summary_key(fresh)


def moved_shards(kept: dict[str, str], fresh: dict[str, str],
                 rows: Iterable[str] = ()) -> set[str]:
    """Return the shards (two hex digits) the next sync reads again.

    Those whose key moved, and those holding rows (``rows``: digests, hex) that no key of
    either covers: a sync the summary does not answer lists them too
    (:func:`.names._unkeyed_shards`; an add's rows whose directories a ``git stash -u``
    took away, fresh15 F6). The caller passes ``rows`` only when it does not
    (:func:`summary_answers`).
    """
    covered = {d.rpartition("/")[2] for d in kept.keys() | fresh.keys()}
    return {d.rpartition("/")[2] for d in kept.keys() | fresh.keys()
            if kept.get(d) != fresh.get(d)} | {h[:2] for h in rows} - covered


def names_differ(scope: str, kept: dict[str, tuple[str, str]],
                 fresh: dict[str, tuple[str, str]], moved: set[str]) -> list[Difference]:
    """Return the differences between two scopes' names (digest -> KIND/NAME)."""
    found = []
    for hex_ in sorted(kept.keys() | fresh.keys()):
        a, b = kept.get(hex_), fresh.get(hex_)
        if a == b:
            continue
        label = "/".join(b or a or ())
        found.append(Difference(f"names ({scope})", f"sha256:{hex_}", label,
                                "row" if a is None or b is None else "name",
                                None if a is None else text("/".join(a)),
                                None if b is None else text("/".join(b)),
                                hex_[:2] in moved))
    return found


class _RecordedTrees:
    """The commit scope's names source: the shard trees its rows say they were read from.

    A :class:`.names.Source` whose shard keys are the kept ``name_shards`` rows of the
    ``commit`` scope (git tree ids), less any git no longer has; a fresh sync of it reads
    the names those trees give, which the kept rows must equal (keys are exact there).
    """

    scope = "commit"

    def __init__(self, repo: pygit2.Repository, keys: dict[str, str]) -> None:
        self.repo = repo
        self.keys = {}
        for directory, key in keys.items():
            with contextlib.suppress(KeyError, ValueError):
                subtree(self.repo, key)
                self.keys[directory] = key
        self._blobs: dict[str, dict[str, str]] = {}

    def shard_keys(self) -> dict[str, str]:
        """Return the recorded shard tree ids git still has."""
        return dict(self.keys)

    def file_keys(self, shard_dir: str) -> dict[str, str]:
        """Map each blob of a recorded shard tree to its id."""
        if shard_dir not in self._blobs:
            key = self.keys.get(shard_dir)
            self._blobs[shard_dir] = {} if key is None else {
                str(e.name): str(e.id) for e in subtree(self.repo, key)
                if e.type_str == "blob"}
        return self._blobs[shard_dir]

    def read_file(self, shard_dir: str, leaf: str) -> bytes | None:
        """Return a blob of a recorded shard tree (None: absent)."""
        blob = self.file_keys(shard_dir).get(leaf)
        return None if blob is None else bytes(self.repo[blob].read_raw())

    def prefetch(self, paths: Any) -> int:
        """Fetch nothing (a partial clone's missing blob reads as absent: no name)."""
        return 0

    def listing_key(self, shard_dir: str) -> str | None:
        """None: git tree ids are never racy, nothing is trusted by a listing."""
        return None


def commit_scope(store: IndexedStore, kept: sqlite3.Connection,
                 fresh: Callable[[Path], AbstractContextManager[Path]]
                 ) -> tuple[list[Difference], int]:
    """Check the kept ``commit`` scope's names against the git trees its rows name.

    Args:
        store: the store (its repository, and where its index lives).
        kept: the kept file (read only).
        fresh: gives the path of a new index file in a new directory under the one it is
            given, deleted when the block ends (:func:`.agree._fresh`); used only when
            the scope has rows to check.

    Returns:
        The differences, and how many of its names were checked.
    """
    recorded = shard_keys(kept, "commit")
    kept_names, bad = names(kept, "commit")
    if not recorded and not kept_names:
        return bad, 0
    source = _RecordedTrees(store.repo, recorded)
    with fresh(database.index_path(store.git_dir).parent) as path:
        NameIndex(path).sync(source)
        fresh_names, _ = names(database.connection(path), "commit")
    # a shard without a recorded key (or one git lost) is read again by the next sync
    gone = {d.rpartition("/")[2] for d in recorded.keys() - source.keys.keys()}
    unrecorded = {h[:2] for h in kept_names} - {d.rpartition("/")[2] for d in recorded}
    return bad + names_differ("commit", kept_names, fresh_names, gone | unrecorded), \
        len(kept_names)
