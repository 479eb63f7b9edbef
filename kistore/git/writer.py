"""Writing the store's work-tree files for ``add``: atomic per file, undoable as a batch.

Each file is written to a temporary name in its own directory and renamed into place, so a
reader (or a crash) sees the old bytes or the new ones, never half a file. A batch
(:class:`FileBatch`) remembers what it created and what it replaced, and :meth:`FileBatch.undo`
puts the work tree back as it was.

A bulk ``add --commit`` writes 2N small files; what that costs is the kernel creating and
renaming them, not Python. So a batch uses raw system calls (no buffered file objects, no
read of a file a directory listing says is absent) and can run in a forked child process
(:meth:`FileBatch.start`) while the caller builds the git objects on the other core. No git
here: paths and bytes.
"""

from __future__ import annotations

import contextlib
import gc
import itertools
import os
import re
import stat
from array import array
from collections.abc import Collection, Iterable, Iterator, Mapping
from typing import Any

from ..core.disk_errors import named
from ..core.errors import StoreStateError
from ..core.file_kinds import file_kind
from ..core.workers import forking, start_worker
from .realdirs import ABSENT, first_not_dir

BULK_LISTING = 64
"""From this many files on, a batch lists each target directory once instead of probing
every file for an old version to keep."""

FileStat = tuple[int, int, int, int, int, int, int]
"""A written file's ``(st_mtime_ns, st_size, st_ino, st_ctime_ns, st_dev, st_uid, st_gid)``,
taken after its rename into place (a rename changes the inode's ctime, which git's index
records): what the index's names and the git index need to know the file unchanged later."""


def file_stat(st: os.stat_result) -> FileStat:
    """Return the :data:`FileStat` of a stat result."""
    return (st.st_mtime_ns, st.st_size, st.st_ino, st.st_ctime_ns, st.st_dev, st.st_uid,
            st.st_gid)


_FIELDS = 7
_SIGNED = 1 << 63
_WRAP = 1 << 64


class StatTable(Mapping[str, FileStat]):
    """Path -> :data:`FileStat` of the files a batch wrote, 7 integers a file in one array.

    A ``dict`` of tuples cost ~550 bytes a file (a tuple, seven int objects, a second copy
    of the path unmarshalled from the child): ~2.2 KB a manifest of a bulk add's parent,
    held to its end. Here a file costs its 56 bytes in the array and a slot of the
    path -> position dict, whose keys are the batch's own path strings. A value is made
    into its tuple when asked for. Unsigned fields past 2**63 (a device or inode number)
    are kept wrapped and given back as they were.
    """

    def __init__(self) -> None:
        self._at: dict[str, int] = {}
        self._values = array("q")
        self._negative = False  # a value below 0 is held (read then field by field)

    def extend(self, paths: Iterable[str], values: array[int]) -> None:
        """Add ``paths`` with their stats: ``values`` holds 7 per path, in the same order.

        Raises:
            ValueError: ``values`` does not hold 7 a path.
        """
        at, start = self._at, len(self._values) // _FIELDS
        count = 0
        for count, path in enumerate(paths, 1):
            at[path] = start + count - 1
        if len(values) != _FIELDS * count:
            raise ValueError(f"{len(values)} stat values for {count} paths")
        self._values.extend(values)
        self._negative = self._negative or (len(values) > 0 and min(values) < 0)

    def __getitem__(self, path: str) -> FileStat:
        return self._at_position(self._at[path])

    def get(self, path: str, default: Any = None) -> Any:
        """Return the stat of ``path``, or ``default`` (as ``dict.get``, without a raise)."""
        position = self._at.get(path)
        return default if position is None else self._at_position(position)

    def _at_position(self, position: int) -> FileStat:
        i = position * _FIELDS
        v = self._values[i:i + _FIELDS]
        if not self._negative:  # no time before 1970, no field wrapped: as stored
            return tuple(v)  # type: ignore[return-value]  # 7 values
        # the times signed; the rest unsigned, kept wrapped past 2**63
        return v[0], v[1] % _WRAP, v[2] % _WRAP, v[3], v[4] % _WRAP, v[5] % _WRAP, v[6] % _WRAP

    def __iter__(self) -> Iterator[str]:
        return iter(self._at)

    def __len__(self) -> int:
        return len(self._at)


def _append_stat(values: array[int], st: os.stat_result) -> None:
    """Append a stat result's :data:`FileStat` to ``values``.

    Unsigned fields past 2**63 are wrapped to fit int64 (:class:`StatTable` gives them back).
    """
    found = file_stat(st)
    try:
        values.extend(found)
    except OverflowError:  # a device or inode number past 2**63: rare
        del values[len(values) - len(values) % _FIELDS:]  # what extend appended before it
        values.extend(v - _WRAP if v >= _SIGNED else v for v in found)


STOP_CHECK = 128
"""A child writing the work tree checks every this many files whether it must stop (a
``poll`` each: about 1 us against some 100 us a file)."""

_temp_names = itertools.count()
_MODE = 0o644


def _umask() -> int:
    """Return the process umask without changing it (read from /proc where possible)."""
    with contextlib.suppress(OSError, ValueError):
        with open("/proc/self/status", "rb") as f:
            for line in f:
                if line.startswith(b"Umask:"):
                    return int(line.split()[1], 8)
    mask = os.umask(0o022)  # the portable way briefly sets it; put it straight back
    os.umask(mask)
    return mask


def atomic_write(path: str | os.PathLike[str], data: bytes) -> os.stat_result:
    """Write ``data`` to a temporary name beside ``path`` and rename it into place.

    A reader sees the old bytes or the new ones, never half a file. The file's mode is
    0644 whatever the umask.

    Args:
        path: the file to write (its directory is created when missing).
        data: the exact bytes.

    Returns:
        The file's stat, taken from the open file after the rename.

    Raises:
        OSError: the write failed; the temporary file is removed and ``path`` is unchanged.
            One without a file name (``os.write``'s ENOSPC) is raised naming ``path``
            (:func:`kistore.core.disk_errors.named`).

    The temporary name is unique per process (pid + counter) and created with O_EXCL, so
    writers never share one. The directory is created only when missing (a bulk add
    writes thousands of files into the same 256 shards: no mkdir per file).
    """
    return _write(os.fspath(path), data, fix_mode=True)


def _write(path: str, data: bytes, *, fix_mode: bool) -> os.stat_result:
    """:func:`atomic_write`; ``fix_mode``: chmod 0644 (False when the umask cannot narrow it)."""
    parent, name = os.path.split(path)
    name = _temp_stem(name)
    tmp = os.path.join(parent, f".{name}.{os.getpid()}.{next(_temp_names)}.tmp")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC
    fd, renamed = -1, False
    try:  # one block from the open on: an interrupt right after it removes the file too
        try:
            fd = os.open(tmp, flags, _MODE)
        except FileNotFoundError:
            os.makedirs(parent, exist_ok=True)
            fd = os.open(tmp, flags, _MODE)
        except FileExistsError:  # a leftover of a crashed process with our pid
            # tempfile loads random (~9 ms of start-up, docs/speed.md).
            # Lazy: this rare case only; every read imports this module via the store.
            import tempfile

            fd, tmp = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=parent)
        view = memoryview(data)
        while view:  # os.write may write less than asked (signals, huge buffers)
            view = view[os.write(fd, view):]
        if fix_mode:
            os.fchmod(fd, _MODE)
        os.replace(tmp, path)
        renamed = True
        return os.fstat(fd)  # after the rename, which changed the ctime
    except BaseException as e:
        # Not `fd >= 0`: an interrupt between os.open returning and `fd` being set left
        # the file behind (breaker8). The name is this process's own (pid and counter):
        # at worst it is a crashed process's leftover of that name, which is stale.
        if not renamed:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
        if isinstance(e, OSError) and e.filename is None:  # os.write's ENOSPC: which file
            raise named(e, path) from e  # (fresh05 LOW 2: "No space left on device" alone)
        raise
    finally:
        if fd >= 0:
            os.close(fd)


_STEM_BYTES = 200
"""The longest file name kept whole in a temporary name: ``.NAME.PID.N.tmp`` adds up to 45
bytes (a 20-digit counter), and file systems allow 255 (NAME_MAX). A names file of a
253-character name would otherwise not be written at all (r70 F12)."""


def _temp_stem(name: str) -> str:
    """Return ``name``, cut to :data:`_STEM_BYTES` bytes of its UTF-8 when longer."""
    data = name.encode("utf-8", "surrogateescape")
    if len(data) <= _STEM_BYTES:
        return name
    return data[:_STEM_BYTES].decode("utf-8", "ignore")  # never half a character


TEMP_NAME = re.compile(r"\.[^/]+\.(?:[0-9]+\.[0-9]+|[A-Za-z0-9_]{8})\.tmp")
"""The temporary names :func:`_write` gives: ``.NAME.PID.N.tmp``, or ``.NAME.XXXXXXXX.tmp``
from its :func:`tempfile.mkstemp` fallback."""


def remove_stale_temps(root: str | os.PathLike[str], directories: Iterable[str],
                       listed: Mapping[str, Collection[str]] | None = None) -> list[str]:
    """Remove the temporary files a killed writer left in ``directories``; return their paths.

    Call it only while holding the store's write lock (:meth:`kistore.store.Store.add`):
    every writer of these directories holds that lock while it writes (and a forked
    writer inherits it), so any temporary file found then belongs to no live write. A PID
    test would be weaker: a dead writer's PID is reused by an unrelated process (its file
    would then stay forever), and a PID from another PID namespace (a container sharing
    the clone) names nothing here.

    Args:
        root: the work tree.
        directories: ``/``-separated directories relative to ``root`` (the shards an add is
            about to write: one listing each, no scan of the store).
        listed: directory -> its names, listed under the same lock already (an add's
            checks): such a directory is not listed again (issue 22: each new group
            directory of a bulk add was listed four or five times before it existed).

    Returns:
        The removed files, relative to ``root``.
    """
    top = os.fspath(root)
    removed = []
    for directory in directories:
        known = None if listed is None else listed.get(directory)
        if known is not None and not any(n.startswith(".") for n in known):
            continue  # listed under this lock: no temporary file there
        try:
            names = os.listdir(os.path.join(top, directory))
        except (FileNotFoundError, NotADirectoryError):
            continue
        for name in names:
            if name.startswith(".") and TEMP_NAME.fullmatch(name):
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(os.path.join(top, directory, name))
                    removed.append(f"{directory}/{name}")
    return removed


def refuse_links(root: str | os.PathLike[str], directories: Iterable[str],
                 files: Iterable[str] = ()) -> None:
    """Refuse to write below a symbolic link or a file where a directory belongs.

    A write follows a symbolic link on its path: a link committed at, say,
    ``store/objects/sha256/b7`` (git stores links as blobs of mode 120000) would have an
    add write its files wherever the link points, outside the repository, and ``add
    --commit`` then replace the committed link with a directory (new-user review
    2026-12-02 F20). Checked before anything is written or removed, with one ``lstat``
    per directory level (a bulk add's 1,000 shard directories: about a millisecond;
    :func:`kistore.git.realdirs.first_not_dir`, the look the store's reads take too).

    Args:
        root: the work tree the directories are relative to (its own path may be reached
            through links: only what is below it is checked).
        directories: ``/``-separated directories relative to ``root`` that files will be
            written into.
        files: ``/``-separated files relative to ``root`` that will be read and replaced
            (``store/trust/keys.json``): a link there is refused too, since reading would
            follow it and the rename would replace the committed link by a file (new-user
            review r70 F19). Their directories are checked as ``directories`` are.

    Raises:
        StoreStateError: one of the directories, or a directory above it below ``root``,
            is a symbolic link or anything but a directory, or one of ``files`` is anything
            but a regular file; nothing was written.
    """
    files = list(files)
    directories = [*directories, *(f.rpartition("/")[0] for f in files)]
    base = os.fspath(root) + "/"
    modes: dict[str, int] = {}  # each level looked at once (first_not_dir)
    for directory in directories:
        found = first_not_dir(root, directory, modes)
        if found is not None and found[1] != ABSENT:  # absent: made new by the write
            raise StoreStateError(_not_a_directory(base, *found))
    for rel in files:
        try:
            mode = os.lstat(base + rel).st_mode
        except FileNotFoundError:
            continue  # made new by the write
        if not stat.S_ISREG(mode):
            raise StoreStateError(_not_a_directory(base, rel, mode, kept="file"))


def _not_a_directory(base: str, rel: str, mode: int, kept: str = "directory") -> str:
    """Return :func:`refuse_links`'s message: what is there, what was done, what to do."""
    if stat.S_ISLNK(mode):
        found = f"a symbolic link (to {os.readlink(base + rel)!r})"
    elif stat.S_ISREG(mode):
        found = "a file"
    else:  # a FIFO, a socket, a device in words, not st_mode in octal (fresh16 F7)
        found = file_kind(mode)
    rule = ("writes the store's files only into its own directories" if kept == "directory"
            else "reads and replaces only regular files there, never what a link points at")
    return (f"{rel} is {found}, where the store keeps a {kept}: kistore {rule}, so nothing "
            "was written. "
            f"`kistore verify` names it; if a commit holds it, remove it in its own reviewed "
            f"change (`git rm {rel}`), else delete it, then run this again")


class FileBatch:
    """Write many files atomically, all or nothing, optionally in a child process.

    Args:
        root: the directory the relative paths are under (the work tree).
        files: relative path (``/``-separated) -> exact bytes, written in this order.
        listed: directory -> the names it holds, listed already under the store's write
            lock (an add's checks, :func:`refuse_links` passed): not listed again.

    After :meth:`run` (or :meth:`start` then :meth:`wait`) every file holds its bytes and
    :attr:`stats` holds each file's :data:`FileStat` (for the index's names and the
    git index). :meth:`undo` removes what
    the batch created and restores what it replaced.
    """

    def __init__(self, root: str | os.PathLike[str], files: Mapping[str, bytes],
                 listed: Mapping[str, Collection[str]] | None = None) -> None:
        self.root = os.fspath(root)
        self.files = files
        self._listed = listed or {}
        self.stats = StatTable()
        self._shares: list[list[str]] = []  # the paths each child writes, in its order
        self._created: list[str] = []
        self._replaced: dict[str, bytes] = {}
        self._new_dirs: list[str] = []  # deepest first: what undo removes when left empty
        self._children: list[tuple[Any, Any]] = []  # (process, reply pipe) per child
        self._stop: Any = None  # the parent's end of the pipe that tells children to stop

    def run(self) -> None:
        """Write every file now, in this process.

        Raises:
            OSError: a file could not be written; what the batch wrote is undone first.
        """
        try:
            self._note_old_versions()
            self.stats.extend(self.files, self._write_all(self.files))
        except BaseException:
            self.undo()
            raise

    def start(self, processes: int = 1) -> None:
        """Begin writing in forked child processes; call :meth:`wait` (or :meth:`undo`) after.

        Args:
            processes: how many children share the files (each takes whole directories,
                so no two write into one directory).

        Child processes, not threads: the writes are thousands of short system calls, and
        a thread would wait for the GIL after each one while this process builds git
        objects. Where no child can be started the files are written here and now.
        """
        # Lazy: the process machinery loads only when workers run (start-up).
        import multiprocessing

        self._note_old_versions()  # here, so undo() knows them even if a child dies
        shares: list[dict[str, bytes]] = [{} for _ in range(max(1, processes))]
        owner: dict[str, int] = {}
        for rel, data in self.files.items():
            directory = rel.rpartition("/")[0]  # os.path.dirname of a relative "/" path
            share = owner.get(directory)
            if share is None:
                share = owner[directory] = len(owner) % len(shares)
            shares[share][rel] = data
        self._shares = [list(share_files) for share_files in shares]
        gc.freeze()  # until reaped: a collection would copy every shared page it walks
        try:
            context = multiprocessing.get_context("fork")
            stop, self._stop = context.Pipe(duplex=False)
            try:
                for share_files in shares:
                    reply, send = context.Pipe(duplex=False)
                    child = context.Process(target=self._child_main, daemon=True,
                                            args=(send, reply, share_files, stop, os.getpid()))
                    with forking():  # an interrupt lands after the fork, not in its hooks
                        child.start()
                    send.close()
                    self._children.append((child, reply))
            finally:
                stop.close()  # the children hold their copies
        except (ValueError, OSError):  # no fork here, or no processes allowed: write inline
            self._reap()
            gc.unfreeze()
            try:
                self.stats.extend(self.files, self._write_all(self.files))
            except BaseException:
                self.undo()
                raise

    def wait(self) -> None:
        """Wait for a :meth:`start`-ed batch to finish; fill :attr:`stats`.

        Raises:
            OSError: the child failed (or died); what the batch wrote has been undone.
        """
        replies = []
        for _, reply in self._children:
            try:
                replies.append(reply.recv())
            except EOFError:
                replies.append(("error", OSError("a process writing the work tree died")))
        self._reap()
        for outcome, value in replies:
            if outcome != "ok":
                self.undo()
                raise value
        for paths, (_, value) in zip(self._shares, replies, strict=True):
            values = array("q")
            values.frombytes(value)
            self.stats.extend(paths, values)
        self._shares = []

    def undo(self) -> None:
        """Put back the work tree as it was before the batch (waits for a running child).

        Removes the files the batch created and rewrites (atomically) those it replaced.
        Running it twice is harmless. A running child is told to stop first: it ends after
        the file it is writing (Ctrl-C used to wait until it had written all of them).
        """
        if self._stop is not None:
            with contextlib.suppress(OSError):  # the children are gone already
                self._stop.send_bytes(b"stop")
        self._reap()
        for path in self._created:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(path)
        for path, data in self._replaced.items():
            atomic_write(path, data)
        for directory in self._new_dirs:  # the shards this batch created, when left empty
            with contextlib.suppress(OSError):
                os.rmdir(directory)
        self._created, self._replaced, self._new_dirs = [], {}, []

    def _reap(self) -> None:
        """Wait for every child to exit, reading what each still has to say first.

        A child's one reply is larger than a pipe holds: a child whose reply was not read
        (this process failed before :meth:`wait`) blocks in ``send`` until it is, so it is
        drained here before the join; one already read gives end-of-file at once.
        """
        if self._stop is not None:  # also when no child could start (the inline fallback)
            self._stop.close()
            self._stop = None
        if not self._children:
            return
        for child, reply in self._children:
            with contextlib.suppress(EOFError, OSError):
                reply.recv()
            child.join()
            reply.close()
        self._children = []
        gc.unfreeze()

    def _child_main(self, send: Any, reply: Any, files: Mapping[str, bytes], stop: Any,
                    parent_pid: int) -> None:
        """In a child: write ``files``, send ``("ok", stats)`` or ``("error", exception)``.

        It stops early, between two files, once ``stop`` (a pipe) has something to read:
        :meth:`undo` then removes what it wrote. Ctrl-C and SIGTERM sent to the whole
        process group (a terminal, a CI timeout, ``docker stop``) are left to the parent,
        which stops the child that way: a signal landing in the child between creating a
        temp file and noting it would leave the file behind. The child dies with the
        parent (a parent killed with SIGKILL must not leave it writing).

        The child first closes the read ends it inherited (its own and its elder
        siblings'): with this process the only reader, a parent killed mid-batch leaves
        the child's ``send`` failing (broken pipe) instead of blocking forever while the
        child holds the store's write lock.
        """
        # SIGTERM ignored before it is let in: one sent to the process group during the
        # fork is pending here, and set to ignored only after start_worker it ended the child
        start_worker(parent_pid, ignore_sigterm=True)
        reply.close()
        for _, sibling in self._children:
            sibling.close()
        try:  # the array's bytes: no object a file to pickle or unmarshal
            message: tuple[str, Any] = ("ok", self._write_all(files, stop).tobytes())
        except BaseException as e:  # the parent undoes everything, then raises it
            message = ("error", e if isinstance(e, OSError) else OSError(str(e)))
        with contextlib.suppress(OSError):  # the parent is gone: nobody to tell
            send.send(message)
        send.close()

    def _note_old_versions(self) -> None:
        """Record which files exist (to be restored by undo) and which will be created.

        A large batch lists each target directory once rather than probing every file.
        """
        # rel is "/"-separated and relative: rpartition is os.path.split without its checks
        # (dirname and basename of 60,000 paths cost a bulk add ~0.3 s)
        split = [rel.rpartition("/") for rel in self.files]
        listing = self._listing({d for d, _, _ in split}) \
            if len(self.files) >= BULK_LISTING else None
        root = self.root + "/"
        missing: set[str] = set()
        for directory in {d for d, _, _ in split}:
            while directory and directory not in missing and not os.path.isdir(root + directory):
                missing.add(directory)
                directory = directory.rpartition("/")[0]
        self._new_dirs = [root + d for d in sorted(missing, key=len, reverse=True)]
        created = self._created
        for rel, (directory, _, name) in zip(self.files, split, strict=True):
            path = root + rel  # (os.path.join: 4x slower)
            if listing is not None and name not in listing[directory]:
                created.append(path)
                continue
            try:
                with open(path, "rb") as f:
                    self._replaced[path] = f.read()
            except FileNotFoundError:
                created.append(path)

    def _write_all(self, files: Mapping[str, bytes], stop: Any = None) -> array[int]:
        """Write ``files``; return their stats, 7 values a file in ``files``' order.

        (As :class:`StatTable` holds them.) OSError("stopped") once ``stop`` is readable.
        """
        fix_mode = bool(_umask() & _MODE)
        root = self.root + "/"
        stats = array("q")
        for count, (rel, data) in enumerate(files.items()):
            if stop is not None and count % STOP_CHECK == 0 and stop.poll():
                raise OSError("stopped: the add was interrupted")
            _append_stat(stats, _write(root + rel, data, fix_mode=fix_mode))
        return stats

    def _listing(self, directories: Iterable[str]) -> dict[str, set[str]]:
        """Map each of ``directories`` to the names it holds now (one listing each)."""
        listing: dict[str, set[str]] = {}
        for directory in directories:
            known = self._listed.get(directory)
            if known is not None:  # listed under the same lock (an add's checks)
                listing[directory] = set(known)
                continue
            try:
                listing[directory] = set(os.listdir(os.path.join(self.root, directory)))
            except (FileNotFoundError, NotADirectoryError):
                listing[directory] = set()
        return listing
