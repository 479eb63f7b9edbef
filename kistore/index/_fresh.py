"""Work-tree answers checked file by file: an in-place rewrite is never answered from cache.

:mod:`._worktree` finds added, removed and renamed files from shard directory mtimes, but a
file rewritten in place (``dd conv=notrunc``, ``open(path, "r+b")``) leaves its directory's
mtime alone. Stating every file of the store on every query would find it too, but costs
~5 us a file here (200 ms at 20,000 manifests, about a second at 100,000, where git's own
``git status`` pays the same). So the check is lazy: every record a query is about to
answer from the index of ``HEAD`` -- and every manifest that record was derived from (a
run's workload, protocol, environment, implementation) -- has its two files' stat data
(``mtime_ns:ctime_ns:size:inode``) compared with what was stat'ed when their bytes were
last seen (table ``manifest_stat``), and the blob ids they held then with ``HEAD``'s. A file
whose stat data differs is hashed again; when its blob is not ``HEAD``'s, the manifest is
read from the work tree instead (:class:`~.catalog.OverlayCatalog`) and the question asked
again. ``kistore add`` records the files it wrote (:func:`record_written`), and a commit
that changes a shard leaves the rows of its other files valid (their blob ids in the new
tree are the old ones): the first query after a bulk add hashes no file it wrote or kept.

A rank stats the files of its comparison group only. A listing (``ls``,
:meth:`CheckedCatalog.listing`) is checked per shard directory only (:mod:`._worktree`):
stating both files of each of 100,000 manifests cost more than the whole listing. A file
replaced by a rename under its own name changes its directory's mtime, and the files of
such a directory are checked here by stat data (:func:`._worktree.changed_digests`); a
file rewritten in place is listed as ``HEAD``'s index has it; ``list_manifests``, ``rank``
and ``show`` check it.
What the index does not return is not checked here: an in-place edit of a metadata file
that gives a manifest a *new* name is found by that name once ``kistore reindex`` has
rebuilt the index's names (a miss says so: :func:`kistore.query.answers.find`); an object
file edited in place no longer hashes to
its name, so it can only drop out of an answer, and that is checked. ``kistore verify``
reads every file.
"""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from stat import S_ISREG
from typing import TYPE_CHECKING, Any, TypeAlias, TypeVar

from ..core import hashes, layout
from ..core.digest import Digest
from ._database import log
from ._transaction import transaction
from ._worktree import blob_id_of_file
from .catalog import Catalog, OverlayCatalog, _refs
from .freshness import is_racy, stat_key
from .records import Listed, Record

if TYPE_CHECKING:  # pragma: no cover - typing only
    from ..git.sparse import SkipWorktree
    from ..git.writer import FileStat
    from .interfaces import StoreView
    from .warm import HeadTree

TABLE = "manifest_stat"
"""The table of :data:`kistore.index._database.TABLES` this module fills: one row per
manifest whose two work-tree files were last seen holding known blobs: the digest's 32
bytes, and 32 bytes of :func:`seen_key`: of their stat keys and their own blob ids (16),
then of their stat keys and the git tree ids of their shards in ``HEAD`` then (16). The
second half answers a query with no look at ``HEAD``'s listing; when a commit changed a
shard (an ``add --commit`` of other files there), the first half still does, from the
file's own blob id in the new listing (:meth:`FileCheck.stale`). As text (71-character
digest, both stat keys, both tree ids) a row and its primary key took ~330 bytes: after an
``ls`` of 100,000 manifests, 33 MB of the index."""

_T = TypeVar("_T")
StatLike: TypeAlias = "os.stat_result | FileStat"
"""A file's stat data: an ``os.stat_result``, or what a write reported (``FileStat``)."""


def seen_key(stat_keys: str, ids: str) -> bytes:
    """Return 16 bytes of what ``manifest_stat`` keeps of a manifest's last clean check.

    BLAKE2b of ``OBJECT/METADATA`` :func:`.freshness.stat_key` and ``ids``: either the
    ``OBJECT METADATA`` shard tree ids, or ``blobs OBJECT METADATA``, the files' own git
    blob ids (:func:`blob_ids`); compared for equality only. A file rewritten in place
    matches only if its stat data (ctime included, which no user can set) and ids collide
    in 128 bits.
    """
    return hashes.blake2b(f"{stat_keys}|{ids}".encode(), digest_size=16).digest()


def blob_ids(object_blob: str, metadata_blob: str) -> str:
    """Return the ``ids`` of :func:`seen_key` for two files' git blob ids (hex)."""
    return f"blobs {object_blob} {metadata_blob}"


UNKNOWN_SHARDS = bytes(16)
"""The second half of a row :func:`record_written` makes: no shard ids are known (it
matches no :func:`seen_key`; the first check of the row looks the blob ids up instead)."""


def record_written(conn: sqlite3.Connection,
                   files: Iterable[tuple[str, StatLike, StatLike, str, str]]) -> int:
    """Record that files just written hold the blobs written there (table ``manifest_stat``).

    For ``kistore add`` (with or without ``--commit``), which knows the bytes it wrote and
    their stat data after the rename into place: the next query finds those files' rows
    and proves them ``HEAD``'s by their stat data and their blob ids in ``HEAD``'s listing,
    without reading them (issue 22: the first ``rank`` after ten chunked adds of 100,000
    read and hashed every file of each touched shard, 852 s at 1,000,000). A row records
    which bytes a file held, not that they are ``HEAD``'s: a work-tree add's files become
    ``HEAD``'s when committed by ``git commit``, and a file a later commit replaces no
    longer matches. A file changed within :data:`.freshness.RACY_NS` of now is not
    recorded (its stat data could hide a write in the same clock tick: "racy git"); the
    next query hashes it.

    Args:
        conn: the index connection.
        files: ``(digest, object stat, metadata stat, object blob id, metadata blob id)``
            per manifest: the digest string (``sha256:<hex>``), each file's
            :data:`kistore.git.writer.FileStat` (or ``os.stat_result``) as written, and
            the git blob id (hex) of the bytes written there.

    Returns:
        How many rows were recorded (the rest were racy).

    Raises:
        sqlite3.Error: the index cannot be written (derived data: the caller goes on).
    """
    now, rows = time.time_ns(), []
    for digest, obj, meta, object_blob, metadata_blob in files:
        if is_racy(max(_times(obj) + _times(meta)), now):
            continue  # this clock tick: the next look hashes it
        own = seen_key(f"{stat_key(obj)}/{stat_key(meta)}", blob_ids(object_blob, metadata_blob))
        rows.append((bytes.fromhex(digest[7:]), own + UNKNOWN_SHARDS))
    if rows:
        with transaction(conn):
            conn.executemany("INSERT OR REPLACE INTO manifest_stat VALUES (?, ?)", rows)
    return len(rows)


def _times(st: StatLike) -> tuple[int, int]:
    """Return ``(mtime_ns, ctime_ns)`` of a stat result or a written file's ``FileStat``."""
    if isinstance(st, os.stat_result):
        return st.st_mtime_ns, st.st_ctime_ns
    return st[0], st[3]


class FileCheck:
    """Tells whether a manifest's work-tree files are still ``HEAD``'s, by stat data.

    Args:
        root: the work tree.
        conn: the index connection (table ``manifest_stat`` is created, read and written).
        head: a :class:`kistore.query.warm.HeadTree` of ``HEAD``.
        skipped: in a sparse checkout, the paths outside it (:mod:`kistore.git.sparse`): a
            file there absent from the work tree holds its index entry's blob, as git treats
            it: ``HEAD``'s unless a change to it is staged.
    """

    def __init__(self, root: Path, conn: sqlite3.Connection, head: HeadTree,
                 skipped: SkipWorktree | None = None) -> None:
        self.top = os.fspath(root)
        self.conn = conn
        self.head = head
        self.skipped = skipped
        self._known: dict[str, bool] = {}
        self._listings: dict[str, tuple[dict[str, str], dict[str, str]]] = {}

    def stale(self, digests: Iterable[str]) -> set[str]:
        """Return the digests (strings) with a file that no longer holds ``HEAD``'s blob.

        Args:
            digests: digest strings of manifests in ``HEAD``'s index.
        """
        todo = [d for d in dict.fromkeys(digests) if d not in self._known]
        saved = self._saved(todo) if todo else {}
        now, updates = time.time_ns(), []
        # lstat: a symlink or FIFO in place of a stored file is not HEAD's file (a symlink
        # to a copy of the right bytes hashed clean, and one to /dev/zero was read to the
        # end of memory: breaker8).
        shard_id, stat, known, regular = self.head.shard, os.lstat, self._known, S_ISREG
        objects, metadata = f"{layout.OBJECTS_DIR}/", f"{layout.METADATA_DIR}/"
        top_objects, top_metadata = f"{self.top}/{objects}", f"{self.top}/{metadata}"
        for digest in todo:  # `ls` of everything runs this per manifest: kept lean
            shard, leaf = digest[7:9], f"{digest[9:]}{layout.SUFFIX}"  # "sha256:" + hex
            try:
                obj, meta = stat(f"{top_objects}{shard}/{leaf}"), stat(
                    f"{top_metadata}{shard}/{leaf}")
            except (FileNotFoundError, NotADirectoryError):
                known[digest] = self.skipped is not None and self._sparse_clean(digest)
                continue
            if not (regular(obj.st_mode) and regular(meta.st_mode)):
                known[digest] = False
                continue
            keys = f"{stat_key(obj)}/{stat_key(meta)}"
            fast = seen_key(keys, f"{shard_id(objects + shard) or ''} "
                                  f"{shard_id(metadata + shard) or ''}")
            row = saved.get(digest, b"")
            if row[16:] == fast:  # unchanged since seen, in the same shard trees: no listing
                known[digest] = True
                continue
            # a commit changed a shard, or `add` recorded the row: the files' own blob ids
            # in HEAD's listing decide, one listing read a shard (issue 22: not every file
            # of each shard an `add --commit` touched hashed again)
            blobs = self._head_blobs(shard, leaf)
            own = None if blobs is None else seen_key(keys, blob_ids(*blobs))
            clean = own is not None and (
                row[:16] == own or all(self._holds_head_blob(path) for path in _paths(digest)))
            known[digest] = clean
            newest = max(obj.st_mtime_ns, obj.st_ctime_ns, meta.st_mtime_ns, meta.st_ctime_ns)
            if own is not None and clean and not is_racy(newest, now):  # else: check again
                updates.append((bytes.fromhex(digest[7:]), own + fast))
        if updates:
            with transaction(self.conn):
                self.conn.executemany("INSERT OR REPLACE INTO manifest_stat VALUES (?, ?)",
                                      updates)
        return {d for d in digests if not self._known[d]}

    def _sparse_clean(self, digest: str) -> bool:
        """Return True when each file of ``digest`` is HEAD's (outside the checkout, unstaged).

        Each file is outside the checkout with no change staged there, or holds HEAD's blob.

        For a manifest with a file absent from a sparse checkout's work tree; not cached (a
        file outside the checkout costs a set lookup, one inside it a hash).
        """
        assert self.skipped is not None
        for path in _paths(digest):
            try:
                mode = os.lstat(f"{self.top}/{path}").st_mode
            except (FileNotFoundError, NotADirectoryError):
                if path not in self.skipped or path in self.skipped.staged:
                    return False  # inside the checkout and gone (deleted), or not HEAD's
                continue
            if not (S_ISREG(mode) and self._holds_head_blob(path)):
                return False
        return True

    def _head_blobs(self, shard: str, leaf: str) -> tuple[str, str] | None:
        """Return ``HEAD``'s blob ids (hex) of a manifest's object and metadata file.

        Args:
            shard: the two hex digits of its shard directory.
            leaf: the file name in it.

        Returns:
            ``(object blob, metadata blob)``; None when ``HEAD`` lacks either file.
        """
        pair = self._listings.get(shard)
        if pair is None:  # both shards' listings, looked up once a check (20,000 files: 0.8 s)
            head = self.head
            pair = self._listings[shard] = (
                head.listing(head.shard(f"{layout.OBJECTS_DIR}/{shard}")),
                head.listing(head.shard(f"{layout.METADATA_DIR}/{shard}")))
        object_blob, metadata_blob = pair[0].get(leaf), pair[1].get(leaf)
        if object_blob is None or metadata_blob is None:
            return None
        return object_blob, metadata_blob

    def _holds_head_blob(self, path: str) -> bool:
        """Return True when the work-tree file at ``path`` is ``HEAD``'s blob, by hashing it."""
        directory, _, name = path.rpartition("/")
        shard = self.head.shard(directory)
        return shard is not None and \
            blob_id_of_file(Path(self.top, path)) == self.head.listing(shard).get(name)

    def _saved(self, digests: list[str]) -> dict[str, bytes]:
        """Return the saved row (:data:`TABLE`) of those of ``digests`` that have one.

        Looked up 500 keys a statement (~5.5 us a key); a pass over the whole table costs
        ~2.7 us a row, so it is taken only for :data:`SCAN_FROM` digests or more: a shard
        directory's files, which an add into it has checked (~3,900 manifests at 1,000,000),
        once cost a pass over a table of a million rows (2.6 s against 22 ms; issue 22,
        "rank after adding one manifest").
        """
        # a value that is not bytes (edited from outside kistore) is no row: a miss
        if len(digests) >= SCAN_FROM:  # one pass beats 500-key IN lookups
            wanted = set(digests)
            return {d: seen for raw, seen in self.conn.execute(
                "SELECT digest, seen FROM manifest_stat")
                if isinstance(raw, bytes) and isinstance(seen, bytes)
                and (d := f"sha256:{raw.hex()}") in wanted}
        found: dict[str, bytes] = {}
        for i in range(0, len(digests), 500):  # SQLite's limit on bound parameters
            chunk = [bytes.fromhex(d[7:]) for d in digests[i:i + 500]]
            found.update((f"sha256:{raw.hex()}", seen) for raw, seen in self.conn.execute(
                "SELECT digest, seen FROM manifest_stat WHERE digest IN "
                f"({', '.join('?' * len(chunk))})", chunk) if isinstance(seen, bytes))
        return found


SCAN_FROM = 20_000
"""From this many digests on, :meth:`FileCheck.stale` reads the saved rows in one pass over
the table instead of looking each up (it was 2,000: at 1,000,000 manifests, a shard's)."""


def _paths(digest: str) -> tuple[str, str]:
    """Return the object and metadata paths of ``sha256:<hex>`` (an index row's digest).

    Sliced, not parsed: :meth:`Digest.from_str` validates, at ~15 us a call.
    """
    hex_ = digest[len("sha256:"):]
    leaf = f"{hex_[:2]}/{hex_[2:]}{layout.SUFFIX}"
    return f"{layout.OBJECTS_DIR}/{leaf}", f"{layout.METADATA_DIR}/{leaf}"


UNCOMMITTED_NOTE_FROM = 10_000
"""From this many manifests the work tree holds uncommitted, a query says so once (on stderr,
through :data:`._database.log`): each is read, hashed, parsed and schema-checked again by
every query (~0.1 ms of CPU a manifest; a query over 60,000 took 8.5 s), as none is in the
index until it is committed (review r89 F4)."""

_said_uncommitted: list[int] = []
"""The counts :func:`say_uncommitted` said in this process (once is enough)."""


def say_uncommitted(count: int) -> None:
    """Say once a process that a query reads ``count`` uncommitted manifests, and the remedy.

    Args:
        count: how many manifests the work tree holds that ``HEAD`` lacks or holds otherwise;
            nothing is said under :data:`UNCOMMITTED_NOTE_FROM`.
    """
    if count < UNCOMMITTED_NOTE_FROM or _said_uncommitted:
        return
    _said_uncommitted.append(count)
    log.warning("note: this query reads the %s manifests the work tree holds uncommitted, as "
                "every query does until they are committed (only committed manifests are in "
                "the query index): commit them (`git add store && git commit`) to have them "
                "indexed", f"{count:,}")


class CheckedCatalog(Catalog):
    """The work tree's catalog: ``HEAD``'s index, overlaid, with every answer checked.

    Args:
        base: the index catalog of ``HEAD``.
        view: the work-tree view the overlay reads changed manifests from.
        changed: digests already known to differ (from :func:`.worktree.changed_digests`).
        check: the :class:`FileCheck` of the work tree.
        marks: the git directory whose schema verdicts the overlay keeps
            (:meth:`OverlayCatalog.over`); None: every changed manifest is checked.
    """

    def __init__(self, base: Catalog, view: StoreView, changed: set[Digest],
                 check: FileCheck, *, marks: Path | None = None) -> None:
        self.base, self.view, self.check, self.marks = base, view, check, marks
        self.changed = set(changed)
        self._overlay()

    def __getattr__(self, name: str) -> Any:
        """Anything else (e.g. the index's ``conn``) is the base catalog's."""
        if name == "base":  # not set yet: no recursion through a half-built object
            raise AttributeError(name)
        return getattr(self.base, name)

    def _overlay(self) -> None:
        """(Re)build the catalog answers come from, with every changed manifest re-read."""
        if self.changed:
            say_uncommitted(len(self.changed))
            inner = OverlayCatalog.over(self.base, self.view, self.changed, marks=self.marks)
            self.inner: Catalog = inner
            self.unreadable = inner.unreadable
            # Only what was read from the work tree is fresh: runs described again because
            # they reference a changed manifest come from the index's spec and are still
            # stat-checked (review 2026-12-01 F6: an edited run next to a dangling one was
            # ranked by its committed value, unwarned).
            self.overlaid = {str(d) for d in self.changed}
        else:
            self.inner, self.unreadable, self.overlaid = self.base, (), set()

    def _checked(self, ask: Callable[[Catalog], _T]) -> _T:
        """Answer ``ask``; when a base record it returns is stale, overlay it and ask again."""
        while True:
            answer = ask(self.inner)
            records = answer if isinstance(answer, list) else [answer]
            wanted = {d for r in records if isinstance(r, Record)
                      for d in (r.digest, *_refs(r)) if d is not None} - self.overlaid
            stale = self.check.stale(wanted) - self.overlaid
            if not stale:
                return answer
            self.changed |= {Digest.from_str(d) for d in stale}
            self._overlay()

    def record(self, digest: str) -> Record | None:  # noqa: D102 - documented on Catalog
        return self._checked(lambda c: c.record(digest))

    def group(self, key: str) -> list[Record]:  # noqa: D102
        return self._checked(lambda c: c.group(key))

    def records(self, *, kind: str | None = None, workload: str | None = None,  # noqa: D102
                hardware: str | None = None) -> list[Record]:
        return self._checked(lambda c: c.records(kind=kind, workload=workload,
                                                 hardware=hardware))

    def referencing(self, digests: set[str]) -> list[Record]:  # noqa: D102
        return self._checked(lambda c: c.referencing(digests))

    def named(self, kind: str, name: str) -> Record | None:  # noqa: D102
        return self._checked(lambda c: c.named(kind, name))

    def listing(self, *, kind: str | None = None, workload: str | None = None,  # noqa: D102
                hardware: str | None = None, details: bool = True) -> list[Listed]:
        # Checked per shard directory (changed_digests), not per file: stating both files
        # of every manifest cost more than the listing itself (100,000 runs: 200,000
        # lstat calls, 1.1-1.8 s here, where `git ls-tree -r` of the metadata takes ~0.1 s).
        # A directory whose mtime changed has its files checked by stat data there (a file
        # replaced by a rename, `sed -i`: left out and warned of, review r75 F12). A file
        # rewritten in place, in a directory whose mtime did not change, is listed as
        # HEAD's index has it; answers about a manifest (rank, show, records) check it.
        return self.inner.listing(kind=kind, workload=workload, hardware=hardware,
                                  details=details)

    def recheck(self, digest: str) -> Record | None:  # noqa: D102 - documented on Catalog
        return self._checked(lambda c: c.recheck(digest))

    def renamed(self, digests: Iterable[str]) -> list[tuple[str, str, str, str]]:
        """Return those of ``digests`` whose work-tree metadata names them otherwise than HEAD.

        A committed manifest's ``metadata.name`` edited by hand (fresh03 H4): its files
        no longer hold ``HEAD``'s blobs, so the answer read it from the work tree
        (:meth:`_checked`, by stat data as ``git status`` finds it) and shows the new name,
        which no names file backs and ``verify`` refuses (KI211, KI212). Only manifests
        read again so are asked about, each with one lookup of ``HEAD``'s record in the
        index: nothing more is read than the answer read (an uncommitted add has no
        ``HEAD`` record and is never named).

        Args:
            digests: digest strings the answer shows (records already checked).

        Returns:
            ``(digest, kind, HEAD's name, the work tree's name)`` in digest order.
        """
        found = []
        for digest in sorted(self.overlaid.intersection(digests)):
            now, then = self.inner.record(digest), self.base.record(digest)
            if now is not None and then is not None and now.name != then.name:
                found.append((digest, now.kind, then.name, now.name))
        return found

    def uncommitted(self, digests: Iterable[str]) -> list[str]:
        """Return those of ``digests`` ``HEAD`` holds whose work-tree files differ from it.

        The manifests an answer read again from the work tree (:meth:`_checked`: their
        files no longer hold ``HEAD``'s blobs, by stat data) that ``HEAD``'s index holds
        (an uncommitted add is not among them): what :func:`kistore.cli._renamed_here.
        warn_provenance_edited` compares with ``HEAD``'s (KI432). A clean work tree
        overlays nothing: no file is read, no row looked up.

        Args:
            digests: digest strings the answer shows (records already checked).

        Returns:
            Digest strings (``sha256:<hex>``), sorted.

        Raises:
            IndexDamaged: ``HEAD``'s index holds a row it cannot trust and no rebuild
                mends it (its ``record``, :meth:`kistore.index.index.Index.record`).
        """
        if not self.overlaid:
            return []
        return [d for d in sorted(self.overlaid.intersection(digests))
                if self.base.record(d) is not None]

    def lost(self, kind: str, name: str) -> str | None:  # noqa: D102 - after named()
        return self.inner.lost(kind, name)

    def deleted(self) -> list[str]:  # noqa: D102 - documented on Catalog
        return self.inner.deleted()

    def skipped(self) -> dict[str, tuple[str, str]]:  # noqa: D102 - documented on Catalog
        # the work tree's copies that differ from HEAD's were overlaid (read again)
        return {d: why for d, why in self.base.skipped().items() if d not in self.overlaid}
