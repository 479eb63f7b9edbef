"""The derived index's one SQLite file: where it lives, its format, its lock, its connection.

Everything kistore derives from a store and keeps between commands is one file,
``<git dir>/kistore/index.sqlite`` (with SQLite's ``-wal`` and ``-shm`` files and the
lock file ``index.sqlite.lock`` beside it), never committed: deleting it loses nothing.
It holds the name tables (``KIND/NAME -> digest`` for the work tree and the last commit
read, :mod:`.names`), the query rows (:mod:`._rows`, :mod:`.index`) and the caches of a
work-tree query (:mod:`._worktree`, :mod:`._fresh`, :mod:`.warm`). This module owns what
they share:

* :data:`FORMAT`, one version for the whole file, and :data:`TABLES`, its layout: a file
  of another format, one that is not SQLite, or one missing a table is deleted and
  created again (:func:`reset`);
* the lock (:func:`exclusive`, :func:`hold_shared`): a ``flock`` on
  ``index.sqlite.lock``. Every process that opens the file holds it shared until it exits;
  only a reset or rebuild takes it exclusively, so it waits for them (a rebuild that
  deleted a file another process still wrote, or whose ``-wal`` it wrote by name, broke
  the new one: breaker9). Writes are serialised by SQLite itself (``BEGIN IMMEDIATE``,
  one writer at a time; :mod:`._transaction`);
* one connection per process and file (:func:`connection`), reopened after a reset.

An older kistore kept names in a second file, ``catalog.sqlite``; it is deleted when this
file is created.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import sqlite3
import stat
import uuid
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, TextIO

from ..core.hashes import blake2b as _blake2b
from ._transaction import transaction

FILE = "index.sqlite"
"""The file's name under ``<git dir>/kistore/``."""

LEGACY_FILES = ("catalog.sqlite",)
"""Files earlier kistore versions kept beside it (the name catalog), deleted on creation."""

FORMAT = "kistore-index-10"
"""The file's format, in ``meta``; any other value (or none) makes the file start again
(as does a missing table: the ``head_attested`` cache, fresh14 F15, came so).
10: rows held to ``[limits] object-members`` too (review r85 F18; an index of 9 kept a
manifest with an object past it, and its tree and settings key were unchanged); 9: a
``skipped`` row's problem past a limit worded as every other message past a limit
(:func:`kistore.core.limits.past_limit`), which :func:`.catalog.limit_key` reads;
8: a ``records`` row's listing seal (``lseal``) and own digest's bytes, and the covering
SQL index ``records_list`` (``ls`` reads neither a stored document nor a table row); 7:
every row sealed, names looked up by a name key; 6: one file (the name tables joined
the query rows); 5: compact rows, the ``skipped`` list, packed shard listings, hashed stat
rows."""

EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
"""Git's empty tree: what a new file (or an unborn branch) has indexed."""

TABLES: dict[str, str] = {
    "meta": "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL, seal BLOB NOT NULL)",
    # the query rows (.rows)
    "digests": "CREATE TABLE digests (id INTEGER PRIMARY KEY, digest BLOB NOT NULL UNIQUE, "
               "seal BLOB NOT NULL)",
    "keys": "CREATE TABLE keys (id INTEGER PRIMARY KEY, key INTEGER, object TEXT, "
            "family TEXT, statistic TEXT, seal BLOB NOT NULL)",
    "records": "CREATE TABLE records (id INTEGER PRIMARY KEY, kind INTEGER NOT NULL, "
               "name TEXT NOT NULL, document BLOB NOT NULL, workload INTEGER, hardware TEXT, "
               "protocol INTEGER, environment INTEGER, implementation INTEGER, key INTEGER, "
               "role TEXT, project TEXT, seal BLOB NOT NULL, lseal BLOB NOT NULL, "
               "digest BLOB NOT NULL)",
    "skipped": "CREATE TABLE skipped (digest TEXT PRIMARY KEY, path TEXT NOT NULL, "
               "problem TEXT NOT NULL, seal BLOB NOT NULL)",
    "dictionary": "CREATE TABLE dictionary (id INTEGER PRIMARY KEY CHECK (id = 1), "
                  "bytes BLOB NOT NULL, seal BLOB NOT NULL)",
    # the caches of a work-tree query (.worktree, .fresh, .warm)
    "worktree": "CREATE TABLE worktree (dir TEXT PRIMARY KEY, mtime_ns INTEGER, tree TEXT, "
                "changed TEXT, seal BLOB NOT NULL)",
    "manifest_stat": "CREATE TABLE manifest_stat (digest BLOB PRIMARY KEY, "
                     "seen BLOB NOT NULL) WITHOUT ROWID",
    "head_shards": "CREATE TABLE head_shards (dir TEXT PRIMARY KEY, id TEXT NOT NULL, "
                   "seal BLOB NOT NULL)",
    "shard_listings": "CREATE TABLE shard_listings (shard TEXT PRIMARY KEY, "
                      "listing TEXT NOT NULL, seal BLOB NOT NULL)",
    "head_attested": "CREATE TABLE head_attested (digest BLOB PRIMARY KEY, "
                     "seal BLOB NOT NULL) WITHOUT ROWID",
    # the names (.names)
    "name_shards": "CREATE TABLE name_shards (scope TEXT, dir TEXT, key TEXT NOT NULL, "
                   "seal BLOB NOT NULL, PRIMARY KEY (scope, dir))",
    "names": "CREATE TABLE names (scope TEXT, digest TEXT, object_key TEXT, "
             "metadata_key TEXT, kind TEXT, name TEXT, name_key INTEGER NOT NULL, "
             "seal BLOB NOT NULL, PRIMARY KEY (scope, digest))",
}
"""Every table of the file, by name; each module's docstring says what its tables hold:
``meta`` (``format``; ``file``, a random id per file; ``tree``, the git tree the query rows
describe; and the keys of :mod:`.warm`), the query rows (:mod:`._rows`), the work-tree
caches (:mod:`._worktree`: ``worktree``; :mod:`._fresh`: ``manifest_stat``; :mod:`.warm`:
``head_shards``, ``shard_listings``, ``head_attested``) and the names (:mod:`.names`).

Every row but ``manifest_stat``'s (whose one value is itself a hash of what it was derived
from, :func:`.fresh.seen_key`) ends with a ``seal``: :func:`seal` of the row's other values,
checked on every read (:func:`unsealed`). A row edited from outside kistore (``sqlite3
.git/kistore/index.sqlite "UPDATE records SET role = ..."``) or damaged no longer matches
its seal, and is never trusted: the query rows are rebuilt, a cache row is read as a miss,
a name row is read again from the store. A seal is no signature: someone who recomputes it
can forge a row, as someone who can write ``.git`` can rewrite anything there; ``kistore
reindex --check`` compares the whole file with a fresh derivation from the store, and
``kistore verify`` never reads the index."""

QUERY_TABLES = ("digests", "keys", "records", "skipped", "dictionary")
"""The tables a rebuild of the query rows starts again (:meth:`.index.Index.rebuild`)."""

CACHE_TABLES = ("worktree", "manifest_stat", "head_shards", "shard_listings",
                "head_attested")
"""Caches keyed by git and file-system state alone (a ``reindex`` keeps them)."""

INDEXES: dict[str, str] = {
    "records_key": "records (key)",
    # covering for a listing (``ls``: :data:`kistore.index._rows.LIST`): read in (kind,
    # name) order from this index alone, no table row; also serves kind and name lookups
    "records_list": "records (kind, name, digest, workload, hardware, key, lseal)",
    "records_workload": "records (workload)", "records_hardware": "records (hardware)",
    "records_protocol": "records (protocol)", "records_environment": "records (environment)",
    "records_implementation": "records (implementation)", "keys_key": "keys (key)",
    "names_by_key": "names (scope, name_key)",
}
"""SQLite indexes (name -> table and columns). A bulk fill drops and creates them again
around it: filling a table, then indexing it, is faster."""

LARGE_READ = 50_000
"""An update that is going to read at least this many manifests without a progress bar
(the first query or add after the format changed, or after a large pull) says so first,
through :data:`log`."""

class _IndexLog:
    """The ``kistore.index`` logger, looked up on first use.

    ``logging`` costs ~10 ms of a fresh process (``kistore show``, docs/speed.md) and is
    needed only to say a note.
    """

    def warning(self, message: str, *args: object) -> None:
        """Log ``message % args`` as a WARNING on the ``kistore.index`` logger."""
        # Lazy: see the class docstring (start-up of every query).
        import logging

        logging.getLogger("kistore.index").warning(message, *args)


log = _IndexLog()
"""Where a long update is announced (a WARNING: without logging configured, Python prints
it on stderr, so a command line user sees why the command is slow)."""

Progress = Callable[[int], None]
"""Called with the number of manifests just processed (drives a progress bar)."""


class Untrusted(sqlite3.DatabaseError):
    """The file is SQLite but not an index of :data:`FORMAT` (or lacks one of its tables)."""


class Damaged(ValueError):
    """A row that does not match its seal (edited from outside kistore, or damaged)."""


def seal(values: tuple[object, ...]) -> bytes:
    """Return the seal of a row's values: the 16-byte BLAKE2b of their ``repr``.

    Args:
        values: the row's other columns in table order, as SQLite returns them (``str``,
            ``int``, ``float``, ``bytes`` or None: ``repr`` tells each type and value apart).
    """
    return _blake2b(repr(values).encode(), digest_size=16).digest()


def unsealed(row: tuple[Any, ...]) -> tuple[Any, ...]:
    """Return a row read with its seal last, without the seal, after checking it.

    Raises:
        Damaged: the seal is not :func:`seal` of the other values.
    """
    values = row[:-1]
    if row[-1] != seal(values):
        raise Damaged(f"a row that does not match its seal: {values!r:.120}")
    return values


def get_meta(conn: sqlite3.Connection, key: str) -> str | None:
    """Return the ``meta`` value of ``key`` (None when absent).

    Raises:
        Damaged: its row does not match its seal.
    """
    row = conn.execute("SELECT key, value, seal FROM meta WHERE key = ?", (key,)).fetchone()
    return None if row is None else str(unsealed(row)[1])


def set_meta(conn: sqlite3.Connection, **values: str) -> None:
    """Set ``meta`` values, each row sealed (inside the caller's transaction)."""
    conn.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?, ?)",
                     [(k, v, seal((k, v))) for k, v in values.items()])


def index_path(git_dir: str | os.PathLike[str]) -> Path:
    """Return where a repository's index lives: ``<git dir>/kistore/index.sqlite``."""
    return Path(git_dir) / "kistore" / FILE


class OddIndexPath(OSError):
    """A link, a directory or a file where the index keeps another kind of entry.

    Raised by :func:`refuse_odd_path`, before anything is opened or created: ``filename``
    is the path at fault, ``strerror`` says what is there and what to do.
    """


_SIDE_FILES = (("-wal", "the index's write-ahead log"), ("-shm", "the index's shared-memory "
               "file"), (".lock", "the index's lock file"))
"""The files SQLite (``-wal``, ``-shm``) and :func:`hold_shared` (``.lock``) keep beside the
index file: suffix, and how an error names it."""


_DIRECTORY_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
"""How :func:`refuse_odd_path` opens the index directory: a directory only, no link followed."""


def refuse_odd_path(path: Path) -> None:
    """Refuse an index path that is not a regular file, before anything opens or creates it.

    A directory at ``index.sqlite`` made ``kistore reindex`` fail with "internal error"
    (SQLite's "unable to open database file"); review 2026-12-02, F11. A symbolic link
    there, or at the ``kistore`` directory, was followed: a query created or rewrote an
    index (and its ``-wal``/``-shm``) at the link's target, outside ``.git``; F24. The
    files beside it (``-wal``, ``-shm``, ``.lock``) are checked as the file is: SQLite and
    the lock write through a link there too. A file at ``.git/kistore`` is said as well
    (it made every query read the store, unsaid). Checked with one listing of the
    directory (opened with ``O_NOFOLLOW``; the entries' types come with the listing), half
    the time of an ``lstat`` a path (docs/speed.md); a directory this user may not list
    is looked at an ``lstat`` a path. Nothing followed.

    Args:
        path: the index file (:func:`index_path`); absent is fine (it is created), as are
            its directory and the files beside it.

    Raises:
        OddIndexPath: a symbolic link is at ``path``, at its directory or at a file beside
            it; anything but a directory is at its directory; anything but a regular file
            is at ``path`` or beside it. ``filename`` is the path at fault, ``strerror``
            says what to do.
    """
    directory = path.parent
    try:  # a link or anything but a directory there fails (ENOTDIR), never listed through
        fd = os.open(directory, _DIRECTORY_FLAGS)
    except FileNotFoundError:  # created, or SQLite says it
        return
    except NotADirectoryError:
        try:
            mode = os.lstat(directory).st_mode
        except (FileNotFoundError, NotADirectoryError):  # gone meanwhile, or no .git dir
            return
        if stat.S_ISLNK(mode):
            raise _odd_link("the index directory", directory) from None
        raise OddIndexPath(errno.ENOTDIR, (
            "the index directory is a file, not a directory, which kistore does not replace; "
            f"the index is derived (deleting it loses nothing): remove it (`rm {directory}`) "
            "and run `kistore reindex`"), str(directory)) from None
    except OSError:  # a directory this user may not list (no read permission)
        fd = -1
    names = ((path.name, "the index file"),
             *((path.name + suffix, named) for suffix, named in _SIDE_FILES))
    modes = _modes_listed(fd, path.name) if fd >= 0 else _modes_looked_up(directory, names)
    for name, what in names:
        mode = modes.get(name, stat.S_IFREG)  # absent: created
        if stat.S_ISREG(mode):
            continue
        where = directory / name
        if stat.S_ISLNK(mode):
            raise _odd_link(what, where)
        kind = "a directory" if stat.S_ISDIR(mode) else "not a regular file"
        raise OddIndexPath(errno.EISDIR, (
            f"{what} is {kind}, which kistore does not open or replace; the index "
            f"is derived (deleting it loses nothing): remove it (`rm -r {where}`) and run "
            "`kistore reindex`"), str(where))


def _modes_listed(fd: int, prefix: str) -> dict[str, int]:
    """Return ``{name: file type}`` of the entries named ``prefix...`` of an open directory.

    One listing (``os.scandir``; the types come with it, ``d_type``, no ``stat`` a name);
    ``fd`` is closed. The type is ``stat.S_IFLNK``, ``S_IFREG``, ``S_IFDIR`` or, for any
    other kind (a FIFO, a socket), ``S_IFIFO``.
    """
    try:
        with os.scandir(fd) as listing:
            return {entry.name: stat.S_IFLNK if entry.is_symlink()
                    else stat.S_IFREG if entry.is_file(follow_symlinks=False)
                    else stat.S_IFDIR if entry.is_dir(follow_symlinks=False)
                    else stat.S_IFIFO
                    for entry in listing if entry.name.startswith(prefix)}
    finally:
        os.close(fd)


def _modes_looked_up(directory: Path, names: Iterable[tuple[str, str]]) -> dict[str, int]:
    """Return ``{name: st_mode}`` of those of ``names`` that exist in ``directory`` (``lstat``)."""
    modes = {}
    for name, _ in names:
        with contextlib.suppress(FileNotFoundError):
            modes[name] = os.lstat(directory / name).st_mode
    return modes


def _odd_link(what: str, where: Path) -> OddIndexPath:
    """Return :func:`refuse_odd_path`'s error for a symbolic link at ``where`` (``what`` it is)."""
    return OddIndexPath(errno.ELOOP, (
        f"{what} is a symbolic link, which kistore does not write through; the index is "
        f"derived (deleting it loses nothing): remove the link (`rm {where}`) and run "
        "`kistore reindex`"), str(where))


_SAID_ODD: set[str] = set()
"""The odd index paths :func:`say_fallback` has said this process (until :func:`disconnect`)."""


def say_fallback(error: BaseException) -> None:
    """Say, once a process a path, that a query reads the store because the index path is odd.

    A query that cannot open the index answers by reading the store: slower, same answers.
    A read-only ``.git`` is no one's fault and is not said; a link or a directory where
    the index belongs (:class:`OddIndexPath`) is the user's to remove, so the query says
    so on :data:`log` (stderr): ``warning: PATH: what is there and what to do; ...``.

    Args:
        error: what opening the index raised; anything but :class:`OddIndexPath` is not said.
    """
    if isinstance(error, OddIndexPath) and error.filename not in _SAID_ODD:
        _SAID_ODD.add(error.filename)
        log.warning("warning: %s: %s; until then queries read the store (slower, same answers)",
                    error.filename, error.strerror)


# -- the lock ---------------------------------------------------------------------------

_LOCKS: dict[str, TextIO] = {}
"""Index path -> this process's open lock file (flock locks belong to the open file)."""
_EXCLUSIVE: set[str] = set()
"""Index paths this process holds exclusively right now."""
_SHARED: set[str] = set()
"""Index paths this process holds shared (until it exits, or takes them exclusively)."""


def _lock_file(path: Path) -> TextIO | None:
    """Return this process's lock file of ``path`` (None when it cannot be created).

    Raises:
        OddIndexPath: a link or a directory where the index belongs (:func:`refuse_odd_path`).
    """
    key = str(path)
    lock = _LOCKS.get(key)
    if lock is None:
        refuse_odd_path(path)  # no lock file made through a link (F24)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            lock = _LOCKS[key] = open(f"{path}.lock", "a")  # noqa: SIM115 - kept open
        except OSError:
            return None
    return lock


def hold_shared(path: Path) -> None:
    """Hold the lock of ``path`` shared from now until this process exits (no-op when held).

    Waits while another process resets or rebuilds the file. Without a writable ``.git``
    there is no lock file, and nothing to hold.

    Raises:
        OddIndexPath: a link or a directory where the index belongs (:func:`refuse_odd_path`).
    """
    key = str(path)
    if key in _SHARED or key in _EXCLUSIVE:
        return
    lock = _lock_file(path)
    if lock is not None:
        fcntl.flock(lock, fcntl.LOCK_SH)
        _SHARED.add(key)


@contextlib.contextmanager
def exclusive(path: Path) -> Iterator[None]:
    """Hold the lock of ``path`` exclusively (to reset or rebuild the file); then shared again.

    Waits until every other process that opened the file has exited. Re-entrant. A
    conversion from shared releases the shared lock first (flock(2)), so two processes
    converting at once do not deadlock: one goes first, the other waits for it to exit.

    Raises:
        OddIndexPath: a link or a directory where the index belongs (:func:`refuse_odd_path`).
    """
    key = str(path)
    if key in _EXCLUSIVE:
        yield
        return
    lock = _lock_file(path)
    if lock is None:
        yield
        return
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:  # another process has the file open: say why this waits
        log.warning("note: %s", waiting_note(Path(f"{path}.lock")))
        fcntl.flock(lock, fcntl.LOCK_EX)
    _EXCLUSIVE.add(key)
    _SHARED.discard(key)
    try:
        yield
    finally:
        _EXCLUSIVE.discard(key)
        fcntl.flock(lock, fcntl.LOCK_SH)  # still reading what was written
        _SHARED.add(key)


def waiting_note(lock_path: Path) -> str:
    """Say why a reset or rebuild of the index waits: which processes hold its lock.

    Every process that opened the index holds ``lock_path`` shared until it exits
    (:func:`hold_shared`): another ``kistore`` command, or a long-lived Python process
    that made a :class:`kistore.store.Store` and queried it (a notebook, a server, a test
    run). A rebuild waits for all of them, silently until robust75 (``kistore reindex``
    seemed to hang). On Linux their process ids are read from ``/proc/locks`` (the
    ``FLOCK`` lines of the lock file's device and inode).

    Args:
        lock_path: the lock file (``index.sqlite.lock``).

    Returns:
        One line (no ``note:`` prefix): the lock file, the process ids when known, and what
        to do.
    """
    pids = _flock_holders(lock_path)
    if len(pids) > 1:
        who, they, hold, exit_ = f"processes {', '.join(map(str, pids))}", "they", "hold", \
            "they exit"
    else:
        who = f"process {pids[0]}" if pids else "another process"
        they, hold, exit_ = "it", "holds", "it exits"
    return (f"waiting for {who} to exit: {they} opened the index and {hold} {lock_path} "
            f"until {exit_} (another kistore command, or a Python process holding a "
            "kistore Store); a rebuild of the index waits for every process that reads it. "
            f"End {'them' if len(pids) > 1 else 'it'}, or press Ctrl-C here (nothing is "
            "written yet)")


def _flock_holders(lock_path: Path) -> list[int]:
    """Return the ids of the other processes holding a ``flock`` on ``lock_path`` (Linux).

    ``/proc/locks`` lines are ``N: FLOCK ADVISORY READ|WRITE PID MAJ:MIN:INODE 0 EOF``
    (the device numbers in hex); a waiting lock's line has ``->`` and is not a holder.
    Empty when there is no ``/proc/locks`` or nothing can be read.
    """
    try:
        st = os.stat(lock_path)
        with open("/proc/locks", encoding="ascii", errors="replace") as f:
            lines = f.read().splitlines()
    except OSError:
        return []
    pids: set[int] = set()
    for line in lines:
        fields = line.split()
        if len(fields) < 6 or "->" in fields or fields[1] != "FLOCK":
            continue
        where = fields[5].split(":")
        try:
            major, minor, inode = int(where[0], 16), int(where[1], 16), int(where[2])
            pid = int(fields[4])
        except (ValueError, IndexError):
            continue
        if (inode == st.st_ino and major == os.major(st.st_dev)
                and minor == os.minor(st.st_dev) and pid != os.getpid()):
            pids.add(pid)
    return sorted(pids)


# -- the connection ---------------------------------------------------------------------

_CONNECTIONS: dict[str, tuple[sqlite3.Connection, tuple[int, int]]] = {}
"""Index path -> this process's connection (every part of the index shares it), and the
``(st_dev, st_ino)`` of the file it opened."""

_RESET_WHY: dict[str, str] = {}
"""Index path -> why this process last started the file again (for announcements)."""


def connection(path: Path) -> sqlite3.Connection:
    """Return this process's connection to the index at ``path``, opening it on first use.

    Opening takes the shared lock (:func:`hold_shared`), creates the file when absent and
    checks its format; a file that is not an index of :data:`FORMAT` is started again
    (:func:`reset`). The connection is in autocommit mode (``isolation_level=None``): writes
    go through :func:`kistore.index._transaction.transaction`.

    A file deleted or replaced since (another inode at ``path``) is opened again; the old
    connection is left to whoever still holds it: SQLite refuses its writes
    (``SQLITE_READONLY_DBMOVED``) and, closing it, does not checkpoint into the new file.

    Raises:
        OSError, sqlite3.OperationalError: the file cannot be created or opened (e.g. a
            read-only ``.git``, or a directory at ``path``: :class:`OddIndexPath`);
            callers answer by reading the store instead (:func:`say_fallback`).
    """
    key = str(path)
    known = _CONNECTIONS.get(key)
    if known is not None:
        if known[1] == _identity(path):
            return known[0]
        del _CONNECTIONS[key]
    if key in _LOCKS:  # else hold_shared's first look checks it: one lstat a path an open
        refuse_odd_path(path)
    hold_shared(path)
    try:
        conn = _open(path)
    except sqlite3.OperationalError:
        raise
    except sqlite3.DatabaseError as e:  # not SQLite, another format, a table missing
        reset(path, "its format changed" if isinstance(e, Untrusted) else f"it is damaged: {e}")
        conn = _open(path)
    identity = _identity(path)
    if identity is not None:
        _CONNECTIONS[key] = (conn, identity)
    return conn


def _identity(path: Path) -> tuple[int, int] | None:
    """Return ``(st_dev, st_ino)`` of the file at ``path`` (None when there is none)."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino


def disconnect() -> None:
    """Close this process's connections: the next use of each index opens its file again.

    For a long-lived caller done with the index, and for tests that change the file as if
    between two processes (e.g. garbage written over it in place, which keeps its inode).
    Any catalog still holding a closed connection fails on its next use; an odd index path
    is said again (:func:`say_fallback`). The shared locks
    this process holds are let go too (not one held exclusively): another process may now
    reset the file without waiting for this one to exit.
    """
    for conn, _ in _CONNECTIONS.values():
        with contextlib.suppress(sqlite3.Error):
            conn.close()
    _CONNECTIONS.clear()
    _SAID_ODD.clear()
    for key in list(_SHARED):
        lock = _LOCKS.pop(key, None)
        if lock is not None:
            lock.close()  # closing the open file lets its flock go
        _SHARED.discard(key)


def discard(path: Path) -> None:
    """Close this process's connection to the file at ``path`` and let its lock go.

    For a file of this process's own that it is about to delete (``reindex --check``'s
    fresh build, :mod:`.agree`); the files themselves are the caller's to delete.
    """
    key = str(path)
    known = _CONNECTIONS.pop(key, None)
    if known is not None:
        with contextlib.suppress(sqlite3.Error):
            known[0].close()
    lock = _LOCKS.pop(key, None)
    if lock is not None:
        lock.close()  # closing the open file lets its flock go
    _SHARED.discard(key)
    _EXCLUSIVE.discard(key)


def reset_reason(path: Path) -> str | None:
    """Return why this process started the file at ``path`` again (None: it did not)."""
    return _RESET_WHY.get(str(path))


def _open(path: Path) -> sqlite3.Connection:
    """Open the file (creating its tables when it has none) and check its format.

    Raises:
        Untrusted: SQLite, but not an index of :data:`FORMAT`.
        sqlite3.DatabaseError: not an SQLite database.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path, timeout=30, isolation_level=None)
    try:
        conn.execute("PRAGMA journal_mode=WAL")  # readers never wait for a writer
        conn.execute("PRAGMA synchronous=NORMAL")  # derived data: a power cut may lose it
        # a full name read writes ~400 B a manifest in random key order: with SQLite's
        # default 2 MB page cache, B-tree pages were evicted and written again and again
        conn.execute("PRAGMA cache_size=-65536")
        found = _tables(conn)
        if not found:
            with transaction(conn):  # one creator; a second one finds the tables made
                if not _tables(conn):
                    _create(conn)
            found = _tables(conn)
            drop_legacy(path)
        try:
            ok = set(TABLES) <= found and get_meta(conn, "format") == FORMAT
        except (Damaged, sqlite3.OperationalError):  # no seal column: an older format
            ok = False
        if not ok:
            raise Untrusted(f"not a {FORMAT} index")
        missing = set(INDEXES) - found
        if missing:  # e.g. a rebuild cut short by an older kistore
            with transaction(conn):
                for name in sorted(missing):
                    conn.execute(f"CREATE INDEX IF NOT EXISTS {name} ON {INDEXES[name]}")
    except BaseException:
        conn.close()
        raise
    return conn


def _tables(conn: sqlite3.Connection) -> set[str]:
    """Return the names of the tables and indexes in a database."""
    return {row[0] for row in conn.execute("SELECT name FROM sqlite_master")}


def _create(conn: sqlite3.Connection) -> None:
    """Create every table and index and the ``meta`` rows (inside the caller's transaction)."""
    for statement in TABLES.values():
        conn.execute(statement)
    for name, columns in INDEXES.items():
        conn.execute(f"CREATE INDEX {name} ON {columns}")
    set_meta(conn, format=FORMAT, tree=EMPTY_TREE, file=uuid.uuid4().hex)


def reset(path: Path, why: str = "it was reset") -> None:
    """Delete the file (and its WAL, shared-memory and journal files) and create it empty.

    Under the exclusive lock: waits for every other process that has the file open. This
    process's own connection is forgotten (left to whoever holds it, as in
    :func:`connection`); the next :func:`connection` opens the new file.

    Args:
        path: the index file.
        why: said when the names are read again (:func:`reset_reason`).
    """
    key = str(path)
    with exclusive(path):
        _CONNECTIONS.pop(key, None)
        _RESET_WHY[key] = why
        for suffix in ("", "-journal", "-wal", "-shm", ".counted"):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(f"{path}{suffix}")
        _open(path).close()


def new_file_id(conn: sqlite3.Connection) -> None:
    """Give the file a new ``meta.file`` id (ids of its rows may now name other digests).

    Row codecs cache what an id names per file id (:meth:`kistore.index._rows.Codec.of`);
    a rebuild in place assigns ids afresh, so it calls this inside its transaction.
    """
    set_meta(conn, file=uuid.uuid4().hex)


def drop_legacy(path: Path) -> None:
    """Delete the older name catalog's files beside ``path`` (see :data:`LEGACY_FILES`)."""
    for name in LEGACY_FILES:
        for suffix in ("", "-journal", "-wal", "-shm"):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(path.parent / f"{name}{suffix}")
