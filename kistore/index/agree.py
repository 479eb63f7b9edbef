"""Whether the kept index agrees with the store: ``kistore reindex --check``.

What ``git commit-graph verify`` is to git's derived commit graph, this is to the derived
index (:mod:`._database`): it builds what a fresh ``kistore reindex`` would hold into a
file of its own (a temporary directory under ``.git/kistore/``, deleted after), reads the
kept file read-only under its shared lock (:func:`._database.hold_shared`: no rebuild
replaces it meanwhile) in one read transaction, and compares the two by content, row by
row, never by bytes (ids, the compression dictionary and the order of rows differ between
any two builds of the same rows):

* ``records`` -- the query rows (what ``rank``, ``compare``, ``show`` and ``ls`` read):
  every kept row checked against its seal and its listing columns (``ls``: the row's own
  digest bytes and ``lseal``); a row whose stored values, every id resolved, equal the
  fresh row's under one compression dictionary decodes to the same record; any other is
  decoded as a query decodes it (:meth:`._rows.Codec.decode_all`) and compared field by
  field as a :class:`~.records.Record` (a run's comparison key, key object, hardware,
  role, project; a spec key by key);
* ``skipped`` -- the manifests of the tree left out, and why (past a limit of
  ``kistore.toml``, not canonical, refused by their schema);
* ``names`` -- ``KIND/NAME -> digest`` (:mod:`.names`) of the scope ``reindex`` rebuilds
  (the work tree; ``HEAD`` in a bare repository), and of the ``commit`` scope (the last
  commit a lookup ``--at REV`` read) against the git trees its shard rows name.

A row the kept file holds that does not match its seal (edited from outside kistore) is a
difference of its own ("does not match its seal"); a row whose seal was recomputed shows
as a difference of content. The rows' interned ids (``digests``, ``keys``), the
compression dictionary, the limits and settings keys in ``meta``, and the caches keyed by
git and file-system state (``worktree``, ``manifest_stat``, ``head_shards``,
``shard_listings``, ``head_attested``, which a ``reindex`` keeps) are not compared: only
what the rows decode to.

A difference is *stale* when the kept index is behind git, which it catches up with by
itself at the next query: its query rows describe another tree than the one asked
(``git reset``, ``checkout`` or ``pull`` since the last query) or were made under other
``[limits]`` (``kistore.toml`` changed since), or a name's shard
directory changed since the names last read it. Any other difference means the index
holds what it believes current and is not: a bug, or an edit from outside kistore.

Its parts: :mod:`._agree_records` compares the query rows, :mod:`._agree_names` the names
(both scopes), :mod:`._agree_difference` holds :class:`Difference` and how a value is
shown; this module opens the two files, compares the ``skipped`` list and the ``meta``
keys that make a difference stale, and gathers the rest.
"""

from __future__ import annotations

import contextlib
import re
import shutil
import sqlite3
import tempfile
import urllib.parse
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from ..core.errors import StoreStateError
from . import _agree_names as names_check
from . import _database as database
from ._agree_difference import Difference, plain_differ, text
from ._agree_records import compare_records
from ._database import FORMAT, Progress, seal
from .catalog import limit_key
from .index import Index
from .names import NameIndex

if TYPE_CHECKING:  # pragma: no cover - typing only
    import pygit2

    from .interfaces import IndexedStore
    from .names import Source

__all__ = ["Comparison", "Difference", "NoIndex", "compare", "kept_index"]


class NoIndex(StoreStateError):
    """There is no index to check (none built yet, or not a file): exit code 2."""

    exit_code = 2


class Comparison(NamedTuple):
    """What :func:`compare` found.

    Attributes:
        path: the kept index file.
        tree: the tree (hex) the fresh query rows describe (the one asked).
        kept_tree: the tree the kept query rows say they describe (meta ``tree``).
        scope: the names scope ``reindex`` rebuilds (``work``, or ``commit`` in a bare
            repository).
        counts: rows compared: ``records``, ``skipped``, ``names`` (fresh build's) and
            ``commit names`` (the kept commit scope's rows checked against git).
        differences: every difference, by table then digest.
    """

    path: Path
    tree: str
    kept_tree: str | None
    scope: str
    counts: dict[str, int]
    differences: list[Difference]

    @property
    def agrees(self) -> bool:
        """True when the kept index holds exactly what a fresh build holds."""
        return not self.differences

    @property
    def stale(self) -> bool:
        """True when every difference is one the next query catches up with."""
        return bool(self.differences) and all(d.stale for d in self.differences)


def compare(store: IndexedStore, tree: pygit2.Tree, source: Source, *,
            progress: Progress | None = None, naming: Progress | None = None) -> Comparison:
    """Compare the kept index of ``store`` with what a fresh ``kistore reindex`` would hold.

    Never writes the kept file (read-only connection; its shared lock held, as every
    reader does). The fresh build goes to a temporary directory under ``.git/kistore/``,
    deleted before returning (also on an error or an interrupt).

    Args:
        store: the store (:class:`kistore.store.Store`).
        tree: the pygit2 Tree whose query rows a fresh build makes (``reindex --at REV``).
        source: the view whose names ``reindex`` rebuilds (``store.view()``: the work
            tree, or ``HEAD`` in a bare repository).
        progress: called with the number of manifests indexed (the query rows).
        naming: called with the number of object files named (the names).

    Returns:
        The :class:`Comparison`.

    Raises:
        NoIndex: no kept index file yet (``.git/kistore/index.sqlite`` absent).
        OSError: the temporary directory cannot be made (a read-only ``.git``).
        sqlite3.OperationalError: the kept file stayed locked by a writer.
    """
    path = kept_index(store.git_dir)
    kept = _open_kept(path)
    try:
        with _fresh(path.parent) as fresh_path:
            Index(store, fresh_path).rebuild(tree, progress)
            names = NameIndex(fresh_path)
            names.sync(source, progress=naming)
            fresh = database.connection(fresh_path)
            return _compare(store, path, kept, fresh, str(tree.id), source.scope)
    finally:
        kept.close()


def kept_index(git_dir: Path) -> Path:
    """Return the kept index file of a repository (:func:`._database.index_path`).

    Raises:
        NoIndex: there is none (no query, add or reindex has built it yet), or a
            directory, a link or a file is where it or a file beside it belongs
            (:func:`._database.refuse_odd_path`; ``file`` names that path).
    """
    path = database.index_path(git_dir)
    try:
        database.refuse_odd_path(path)
    except OSError as e:  # a directory there: no query builds it (review 2026-12-02, F11)
        raise NoIndex(e.strerror or str(e), file=str(e.filename or path)) from None
    if not path.is_file():
        raise NoIndex("there is no index to check yet; any query (`kistore ls`) or "
                      "`kistore reindex` builds it", file=str(path))
    return path


def _open_kept(path: Path) -> sqlite3.Connection:
    """Open the kept file read-only, under its shared lock, in one read transaction."""
    database.hold_shared(path)  # a rebuild (which replaces the file) waits for us
    uri = f"file:{urllib.parse.quote(str(path))}?mode=ro"
    conn = sqlite3.connect(uri, uri=True, timeout=30, isolation_level=None)
    conn.execute("BEGIN")  # one snapshot, taken now: a writer meanwhile is not half seen
    with contextlib.suppress(sqlite3.DatabaseError):  # not SQLite: the comparison says so
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
    return conn


@contextlib.contextmanager
def _fresh(parent: Path) -> Iterator[Path]:
    """Yield the path of a fresh index file in a new directory under ``parent``; delete it after."""
    directory = Path(tempfile.mkdtemp(prefix="check-", dir=parent))
    path = directory / database.FILE
    try:
        yield path
    finally:
        database.discard(path)
        shutil.rmtree(directory, ignore_errors=True)


def _compare(store: IndexedStore, path: Path, kept: sqlite3.Connection,
             fresh: sqlite3.Connection, tree: str, scope: str) -> Comparison:
    """Compare the two files (see :func:`compare`)."""
    counts = {"records": 0, "skipped": 0, "names": 0, "commit names": 0}
    try:
        tables = {row[0] for row in kept.execute("SELECT name FROM sqlite_master")}
        version = kept.execute("SELECT key, value, seal FROM meta WHERE key = 'format'"
                               ).fetchone() if "meta" in tables else None
        kept_tree = _meta(kept, "tree") if "meta" in tables else None
    except sqlite3.Error as e:
        return Comparison(path, tree, None, scope, counts, [Difference(
            "index", str(path), "", "file", text(f"not an index: {e}"),
            text(f"a {FORMAT} index"), False)])
    missing = sorted(set(database.TABLES) - tables)
    if missing:
        return Comparison(path, tree, kept_tree, scope, counts, [Difference(
            "index", str(path), "", "tables", text(f"no table {', '.join(missing)}"),
            text(sorted(database.TABLES)), False)])
    if version is None or version[1] != FORMAT or version[2] != seal(version[:2]):
        return Comparison(path, tree, kept_tree, scope, counts, [Difference(
            "index", str(path), "", "format", text(version[1] if version else None),
            text(FORMAT), False)])
    try:
        return _compare_rows(store, path, kept, fresh, Comparison(
            path, tree, kept_tree, scope, counts, []))
    except sqlite3.DatabaseError as e:
        # the kept rows cannot be read whole (a flipped byte: text that is not UTF-8, "database
        # disk image is malformed"): the file is damaged, a difference, never "cannot check"
        if isinstance(e, sqlite3.OperationalError) and _BUSY.search(str(e)):
            raise  # a writer kept it locked: it could not run (exit 2)
        return Comparison(path, tree, kept_tree, scope, counts, [Difference(
            "index", str(path), "", "file", text(f"damaged: its rows cannot be read ({e})"),
            text(f"a {FORMAT} index"), False)])


_BUSY = re.compile(r"locked|busy", re.IGNORECASE)
"""SQLite's errors of a file another connection holds (not damage)."""


def _compare_rows(store: IndexedStore, path: Path, kept: sqlite3.Connection,
                  fresh: sqlite3.Connection, start: Comparison) -> Comparison:
    """Compare the rows of two files whose tables and format agree (see :func:`compare`).

    Raises:
        sqlite3.DatabaseError: a kept row cannot be read (damage), or the file is locked.
    """
    tree, kept_tree, scope, counts = start.tree, start.kept_tree, start.scope, start.counts
    found: list[Difference] = []
    behind = kept_tree != tree  # git moved since the last query: it catches up
    records_found, counts["records"] = compare_records(kept, fresh, behind)
    found += records_found
    fresh_skipped, _ = _skipped(fresh)
    kept_skipped, untrusted = _skipped(kept)
    counts["skipped"] = len(fresh_skipped)
    found += untrusted
    found += plain_differ("skipped", kept_skipped, fresh_skipped, behind, ("path", "problem"))
    # rows made under other [limits] (kistore.toml changed; none recorded: an index an
    # earlier kistore's add built): the next query reads again what either side leaves out
    # past a limit
    if any(_meta(kept, key) != _meta(fresh, key) for key in ("limit", "values")):
        again = {d for d, (_, why) in (*kept_skipped.items(), *fresh_skipped.items())
                 if limit_key(why) is not None}
        found = [d._replace(stale=True) if d.digest in again and d.field != "seal" else d
                 for d in found]
    fresh_names, _ = names_check.names(fresh, scope)
    kept_names, untrusted = names_check.names(kept, scope)
    counts["names"] = len(fresh_names)
    fresh_keys = names_check.shard_keys(fresh, scope)
    moved = names_check.moved_shards(
        names_check.shard_keys(kept, scope), fresh_keys,
        () if names_check.summary_answers(kept, scope, fresh_keys) else kept_names)
    found += untrusted
    found += names_check.names_differ(scope, kept_names, fresh_names, moved)
    if scope != "commit":
        commit_found, counts["commit names"] = names_check.commit_scope(store, kept, _fresh)
        found += commit_found
    # a row that cannot be trusted is said once, not again as missing from the index
    untrusted_rows = {(d.table, d.digest) for d in found if d.field == "seal"}
    found = [d for d in found if not (d.field == "row" and d.in_index is None and
                                      (d.table, d.digest) in untrusted_rows)]
    found.sort(key=lambda d: (d.table, d.digest, d.field))
    return Comparison(path, tree, kept_tree, scope, counts, found)


def _meta(conn: sqlite3.Connection, key: str) -> str | None:
    """Return a ``meta`` value when its row matches its seal (None otherwise)."""
    row = conn.execute("SELECT key, value, seal FROM meta WHERE key = ?", (key,)).fetchone()
    return str(row[1]) if row is not None and row[2] == seal(row[:2]) else None


# -- the skipped list ---------------------------------------------------------------------

def _skipped(conn: sqlite3.Connection
             ) -> tuple[dict[str, tuple[str, str]], list[Difference]]:
    """Return a file's ``skipped`` rows (digest -> path, problem), and its untrusted rows."""
    found, bad = {}, []
    for row in conn.execute("SELECT digest, path, problem, seal FROM skipped ORDER BY digest"):
        if row[3] != seal(row[:3]):
            bad.append(Difference("skipped", str(row[0]), str(row[1]), "seal",
                                  text("does not match its seal"), None, False))
        else:
            found[str(row[0])] = (str(row[1]), str(row[2]))
    return found, bad
