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
``shard_listings``, which a ``reindex`` keeps) are not compared: only what the rows decode
to.

A difference is *stale* when the kept index is behind git, which it catches up with by
itself at the next query: its query rows describe another tree than the one asked
(``git reset``, ``checkout`` or ``pull`` since the last query) or were made under other
``[limits]`` (``kistore.toml`` changed since), or a name's shard
directory changed since the names last read it. Any other difference means the index
holds what it believes current and is not: a bug, or an edit from outside kistore.
"""

from __future__ import annotations

import contextlib
import shutil
import sqlite3
import tempfile
import urllib.parse
import zlib
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import orjson

from ..core.errors import StoreStateError
from ..git.treediff import subtree
from . import _database as database
from . import _rows as rows
from ._database import FORMAT, Damaged, Progress, seal
from .catalog import limit_key
from .index import Index
from .names import _COLUMNS, SUMMARY, NameIndex, name_key
from .records import Record

if TYPE_CHECKING:  # pragma: no cover - typing only
    import pygit2

    from .interfaces import IndexedStore
    from .names import Source

_UNREADABLE = (sqlite3.Error, ValueError, TypeError, KeyError, zlib.error)
"""What decoding a row of the kept file may raise (a damaged or edited row)."""

_CHUNK = 500
"""Rows decoded at a time; a chunk that fails is decoded row by row, to name the row."""


class NoIndex(StoreStateError):
    """There is no index to check (none built yet, or not a file): exit code 2."""

    exit_code = 2


class Difference(NamedTuple):
    """One way the kept index and a fresh build differ.

    Attributes:
        table: ``records``, ``skipped``, ``names (work)``, ``names (commit)`` or ``index``
            (the file as a whole).
        digest: the manifest's ``sha256:<hex>`` (or, for a row whose digest cannot be
            read, ``row N``; for the file, its path).
        name: ``KIND/NAME`` of the manifest as either side names it ("" when neither does).
        field: the column or spec key that differs (``spec.status``, ``role``); ``row``
            when the row is on one side only; ``seal`` when the kept row does not match its
            seal.
        in_index: what the kept index holds (JSON text; None: nothing).
        in_store: what a fresh build from the store holds (JSON text; None: nothing).
        stale: the index is behind git here and catches up at the next query.
    """

    table: str
    digest: str
    name: str
    field: str
    in_index: str | None
    in_store: str | None
    stale: bool


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
        NoIndex: there is none (no query, add or reindex has built it yet).
    """
    path = database.index_path(git_dir)
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
    found: list[Difference] = []
    counts = {"records": 0, "skipped": 0, "names": 0, "commit names": 0}
    try:
        tables = {row[0] for row in kept.execute("SELECT name FROM sqlite_master")}
        version = kept.execute("SELECT key, value, seal FROM meta WHERE key = 'format'"
                               ).fetchone() if "meta" in tables else None
        kept_tree = _meta(kept, "tree") if "meta" in tables else None
    except sqlite3.Error as e:
        return Comparison(path, tree, None, scope, counts, [Difference(
            "index", str(path), "", "file", _text(f"not an index: {e}"),
            _text(f"a {FORMAT} index"), False)])
    missing = sorted(set(database.TABLES) - tables)
    if missing:
        return Comparison(path, tree, kept_tree, scope, counts, [Difference(
            "index", str(path), "", "tables", _text(f"no table {', '.join(missing)}"),
            _text(sorted(database.TABLES)), False)])
    if version is None or version[1] != FORMAT or version[2] != seal(version[:2]):
        return Comparison(path, tree, kept_tree, scope, counts, [Difference(
            "index", str(path), "", "format", _text(version[1] if version else None),
            _text(FORMAT), False)])
    behind = kept_tree != tree  # git moved since the last query: it catches up
    records_found, counts["records"] = _compare_records(kept, fresh, behind)
    found += records_found
    fresh_skipped, _ = _skipped(fresh)
    kept_skipped, untrusted = _skipped(kept)
    counts["skipped"] = len(fresh_skipped)
    found += untrusted
    found += _plain_differ("skipped", kept_skipped, fresh_skipped, behind,
                           ("path", "problem"))
    # rows made under other [limits] (kistore.toml changed; none recorded: an add moved
    # it): the next query reads again what either side leaves out past a limit
    if any(_meta(kept, key) != _meta(fresh, key) for key in ("limit", "values")):
        again = {d for d, (_, why) in (*kept_skipped.items(), *fresh_skipped.items())
                 if limit_key(why) is not None}
        found = [d._replace(stale=True) if d.digest in again and d.field != "seal" else d
                 for d in found]
    fresh_names, _ = _names(fresh, scope)
    kept_names, untrusted = _names(kept, scope)
    counts["names"] = len(fresh_names)
    moved = _moved_shards(_shard_keys(kept, scope), _shard_keys(fresh, scope))
    found += untrusted
    found += _names_differ(scope, kept_names, fresh_names, moved)
    if scope != "commit":
        commit_found, counts["commit names"] = _commit_scope(store, kept)
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


# -- the query rows -----------------------------------------------------------------------

_KEPT_RECORDS = ("SELECT r.id, d.digest, r.kind, r.name, r.document, r.workload, r.hardware, "
                 "r.protocol, r.environment, r.implementation, r.key, r.role, r.project, "
                 "r.seal, r.lseal, r.digest FROM records r LEFT JOIN digests d ON d.id = r.id "
                 "ORDER BY r.id")
"""Every ``records`` row: its id, the :data:`._rows.SELECT` columns, its listing seal and
its own digest's bytes as the listing reads them (a row without a ``digests`` row too)."""


def _compare_records(kept: sqlite3.Connection, fresh: sqlite3.Connection, behind: bool
                     ) -> tuple[list[Difference], int]:
    """Return the differences between two files' query rows, and how many the fresh one has.

    With one compression dictionary on both sides (a kept index built from the same
    manifests sampled it alike), a row whose stored values, with every id resolved to
    what it names, equal the fresh row's decodes to the same record: it is only checked
    against its seals, not decoded (a decode is ~60 us a row: 1.2 s of each side at
    20,000). The rest, and every row when the dictionaries differ, are decoded and
    compared field by field.
    """
    try:
        kept_rows, kept_dictionary = _raw_rows(kept, check=True)
    except _UNREADABLE as e:
        return [Difference("records", "dictionary", "", "seal", _text(str(e)), None,
                           False)], 0
    fresh_rows, fresh_dictionary = _raw_rows(fresh, check=False)
    agreed: set[bytes] = set()
    if kept_dictionary == fresh_dictionary:
        ours = _resolved(fresh, fresh_rows, check=False)
        theirs = _resolved(kept, kept_rows, check=True)
        agreed = {d for d, v in theirs.items() if ours.get(d) == v}
    kept_records, untrusted = _records(kept, kept_dictionary,
                                       [r for r in kept_rows if r[1] not in agreed])
    fresh_records, _ = _records(fresh, fresh_dictionary,
                                [r for r in fresh_rows if r[1] not in agreed])
    return untrusted + _records_differ(kept_records, fresh_records, behind), len(fresh_rows)


def _raw_rows(conn: sqlite3.Connection, *, check: bool
              ) -> tuple[list[tuple[Any, ...]], bytes]:
    """Return a file's ``records`` rows (:data:`_KEPT_RECORDS`) and its dictionary.

    Raises:
        Damaged: ``check``, and the dictionary does not match its seal.
        sqlite3.Error: a table cannot be read.
    """
    found = conn.execute("SELECT id, bytes, seal FROM dictionary WHERE id = 1").fetchone()
    if check and found is not None and found[2] != seal(found[:2]):
        raise Damaged("the compression dictionary does not match its seal")
    return conn.execute(_KEPT_RECORDS).fetchall(), found[1] if found is not None else b""


def _resolved(conn: sqlite3.Connection, listed: list[tuple[Any, ...]], *, check: bool
              ) -> dict[bytes, tuple[Any, ...]]:
    """Return each row's stored values with its ids resolved, by its digest's bytes.

    ``check``: only rows that match both seals, whose ids resolve through ``digests`` and
    ``keys`` rows that match theirs (any other is left to :func:`_records`, which says
    why).
    """
    digests = {n: d for n, d, sealed in conn.execute("SELECT id, digest, seal FROM digests")
               if not check or sealed == seal((n, d))}
    keys = {}
    for n, key, obj, family, statistic, sealed in conn.execute(
            "SELECT id, key, object, family, statistic, seal FROM keys"):
        if (not check or sealed == seal((n, key, obj, family, statistic))) and \
                (key is None or key in digests):
            keys[n] = (None if key is None else digests[key], obj, family, statistic)
    out = {}
    for row in listed:
        ids = (row[5], row[7], row[8], row[9])
        if any(n is not None and n not in digests for n in ids) or \
                (row[10] is not None and row[10] not in keys):
            continue
        if check and (_row_problem(row) is not None or
                      rows.record_seal(row[1:13]) != row[13]):
            continue
        out[row[1]] = (row[2], row[3], row[4], row[6], row[11], row[12],
                       *(None if n is None else digests[n] for n in ids),
                       None if row[10] is None else keys[row[10]])
    return out


def _records(conn: sqlite3.Connection, dictionary: bytes, listed: list[tuple[Any, ...]]
             ) -> tuple[dict[str, Record], list[Difference]]:
    """Return the records rows decode to, and the rows that cannot be trusted.

    Args:
        conn: the file.
        dictionary: its compression dictionary (checked against its seal already).
        listed: :data:`_KEPT_RECORDS` rows.
    """
    bad: list[Difference] = []
    codec = rows.Codec(conn, dictionary)
    records: dict[str, Record] = {}
    for start in range(0, len(listed), _CHUNK):
        chunk = listed[start:start + _CHUNK]
        try:
            decoded = codec.decode_all([row[1:14] for row in chunk])
        except _UNREADABLE:
            decoded = None
        for i, row in enumerate(chunk):
            record = decoded[i] if decoded is not None else None
            problem = _row_problem(row)
            if problem is None and record is None:
                try:
                    record = codec.decode_all([row[1:14]])[0]
                except _UNREADABLE as e:
                    problem = str(e)
            if problem is not None or record is None:
                digest = f"sha256:{row[1].hex()}" if isinstance(row[1], bytes) \
                    else f"row {row[0]}"
                kind = rows._KIND_NAMES.get(row[2], row[2])
                bad.append(Difference("records", digest, f"{kind}/{row[3]}", "seal",
                                      _text(problem), None, False))
            else:
                records[record.digest] = record
    return records, bad


def _row_problem(row: tuple[Any, ...]) -> str | None:
    """Return what is wrong with a kept ``records`` row besides its seal (None: nothing)."""
    digest, lseal, own = row[1], row[14], row[15]
    if not isinstance(digest, bytes):
        return f"records row {row[0]} has no digests row"
    if own != digest:
        return "its listing digest differs from its digest"
    if rows.list_seal(("sha256:" + digest.hex(), row[2], row[3], row[5], row[6], row[10])) \
            != lseal:
        return "it does not match its listing seal"
    return None


_FIELDS = tuple(f for f in Record._fields if f != "digest")


def _records_differ(kept: dict[str, Record], fresh: dict[str, Record], stale: bool
                    ) -> list[Difference]:
    """Return the differences between two sets of records (by digest, field by field)."""
    found = []
    for digest in sorted(kept.keys() | fresh.keys()):
        a, b = kept.get(digest), fresh.get(digest)
        name = f"{(b or a).kind}/{(b or a).name}"  # type: ignore[union-attr]
        if a is None or b is None:
            found.append(Difference("records", digest, name, "row",
                                    None if a is None else _text(_brief(a)),
                                    None if b is None else _text(_brief(b)), stale))
            continue
        for field in _FIELDS:
            x, y = getattr(a, field), getattr(b, field)
            if x == y:
                continue
            if isinstance(x, dict) and isinstance(y, dict):
                found += [Difference("records", digest, name, f"{field}.{key}",
                                     _text(x[key]) if key in x else None,
                                     _text(y[key]) if key in y else None, stale)
                          for key in sorted(x.keys() | y.keys()) if x.get(key) != y.get(key)
                          or (key in x) != (key in y)]
            else:
                found.append(Difference("records", digest, name, field, _text(x), _text(y),
                                        stale))
    return found


def _brief(record: Record) -> dict[str, Any]:
    """Return the columns of a record a person recognises it by (not its spec)."""
    return {k: v for k, v in record._asdict().items()
            if k not in ("spec", "key_object", "digest") and v is not None}


# -- the skipped list ---------------------------------------------------------------------

def _skipped(conn: sqlite3.Connection
             ) -> tuple[dict[str, tuple[str, str]], list[Difference]]:
    """Return a file's ``skipped`` rows (digest -> path, problem), and its untrusted rows."""
    found, bad = {}, []
    for row in conn.execute("SELECT digest, path, problem, seal FROM skipped ORDER BY digest"):
        if row[3] != seal(row[:3]):
            bad.append(Difference("skipped", str(row[0]), str(row[1]), "seal",
                                  _text("does not match its seal"), None, False))
        else:
            found[str(row[0])] = (str(row[1]), str(row[2]))
    return found, bad


def _plain_differ(table: str, kept: Mapping[str, tuple[str, ...]],
                  fresh: Mapping[str, tuple[str, ...]], stale: bool, fields: tuple[str, ...]
                  ) -> list[Difference]:
    """Return the differences between two tables of plain rows (digest -> values)."""
    found = []
    for digest in sorted(kept.keys() | fresh.keys()):
        a, b = kept.get(digest), fresh.get(digest)
        label = (b or a or ("",))[0]
        if a is None or b is None:
            found.append(Difference(table, digest, label, "row",
                                    None if a is None else _text(dict(zip(fields, a, strict=True))),
                                    None if b is None else _text(dict(zip(fields, b, strict=True))),
                                    stale))
            continue
        found += [Difference(table, digest, label, field, _text(x), _text(y), stale)
                  for field, x, y in zip(fields, a, b, strict=True) if x != y]
    return found


# -- the names ----------------------------------------------------------------------------

def _names(conn: sqlite3.Connection, scope: str
           ) -> tuple[dict[str, tuple[str, str]], list[Difference]]:
    """Return a scope's names (digest hex -> kind, name) and the rows that cannot be trusted."""
    found, bad = {}, []
    for row in conn.execute(f"SELECT {_COLUMNS} FROM names WHERE scope = ?", (scope,)):
        if row[7] != seal(row[:7]) or row[6] != name_key(row[4], row[5]):
            bad.append(Difference(f"names ({scope})", f"sha256:{row[1]}",
                                  f"{row[4]}/{row[5]}", "seal",
                                  _text("does not match its seal"), None, False))
        else:
            found[str(row[1])] = (str(row[4]), str(row[5]))
    return found, bad


def _shard_keys(conn: sqlite3.Connection, scope: str) -> dict[str, str]:
    """Return a scope's shard keys (``objects/XX`` -> key), each row's seal checked."""
    return {row[1]: row[2] for row in conn.execute(
        "SELECT scope, dir, key, seal FROM name_shards WHERE scope = ? AND dir != ?",
        (scope, SUMMARY)) if row[3] == seal(row[:3])}


def _moved_shards(kept: dict[str, str], fresh: dict[str, str]) -> set[str]:
    """Return the shards (two hex digits) whose key moved: the next sync reads them again."""
    return {d.rpartition("/")[2] for d in kept.keys() | fresh.keys()
            if kept.get(d) != fresh.get(d)}


def _names_differ(scope: str, kept: dict[str, tuple[str, str]],
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
                                None if a is None else _text("/".join(a)),
                                None if b is None else _text("/".join(b)),
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


def _commit_scope(store: IndexedStore, kept: sqlite3.Connection
                  ) -> tuple[list[Difference], int]:
    """Check the kept ``commit`` scope's names against the git trees its rows name.

    Returns:
        The differences, and how many of its names were checked.
    """
    recorded = _shard_keys(kept, "commit")
    kept_names, bad = _names(kept, "commit")
    if not recorded and not kept_names:
        return bad, 0
    source = _RecordedTrees(store.repo, recorded)
    with _fresh(database.index_path(store.git_dir).parent) as path:
        NameIndex(path).sync(source)
        fresh_names, _ = _names(database.connection(path), "commit")
    # a shard without a recorded key (or one git lost) is read again by the next sync
    gone = {d.rpartition("/")[2] for d in recorded.keys() - source.keys.keys()}
    unrecorded = {h[:2] for h in kept_names} - {d.rpartition("/")[2] for d in recorded}
    return bad + _names_differ("commit", kept_names, fresh_names, gone | unrecorded), \
        len(kept_names)


def _text(value: object) -> str:
    """Return a value as JSON text (keys sorted), as a difference shows it."""
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS).decode()
