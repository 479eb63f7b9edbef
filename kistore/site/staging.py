"""A site build's staging directory: made beside (or inside) ``OUT``, locked, and its leftovers.

A build writes every file it changes into a staging directory first (:func:`stage`), so a
build that fails while rendering (a damaged object, a full disk, Ctrl-C) leaves ``OUT`` as
it was; :mod:`kistore.site.install` then puts the staged files in place.

A fresh build beside ``OUT`` (``OUT`` absent or empty, its parent writable, on the same
mount) installs with one rename of the staging directory and needs no journal; into a mount
point (a volume ``OUT`` cannot be renamed onto), the staging directory is inside ``OUT`` and
its entries move one by one, under the journal.

A staging directory is proven a build's own by its name (``OUT.tmp-`` or, inside ``OUT``,
``.kistore-staging-``, then 8 hex digits), a marker file in it, and a lock: the build
holds ``flock`` on it until it is done, so a staging directory whose lock can be taken
belongs to a build that is gone (``kill -9``), and the next build removes it
(:func:`remove_leftovers`). One without the marker (left by a kistore before 2026-12-03)
is removed only when it holds no file at all (F9's 1,941 empty folders).
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import re
import secrets
import shutil
import stat
from collections.abc import Iterator
from dataclasses import dataclass, field

INSIDE = ".kistore-staging-"
"""Prefix of a staging directory inside ``OUT`` (8 hex digits follow)."""
MARKER = ".kistore-staging"
"""The file inside a staging directory that says a build made it."""
_SUFFIX = re.compile(r"[0-9a-f]{8}")


@dataclass
class Staging:
    """A build's staging directory, locked while the build runs.

    Attributes:
        path: the directory (absolute, ``out``'s link resolved).
        inside: True when it is inside ``OUT`` (``OUT`` is a mount point, or its parent is
            not writable or on another mount), False when beside it.
        made: the folders on the way to ``OUT`` this build created (to remove again when
            it fails), outermost first.
        committed: the install has begun (its journal is written, or the directory was
            renamed to ``OUT``): :func:`discard` then only releases the lock.
    """

    path: str
    inside: bool
    made: list[str] = field(default_factory=list)
    committed: bool = False
    _fd: int = -1

    def close(self) -> None:
        """Release the lock (the directory may be gone already)."""
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1


def _locked_dir(prefix: str) -> tuple[str, int]:
    """Make a new directory ``prefix`` + 8 random hex digits, marked and locked.

    Returns:
        ``(its path, a descriptor holding its flock)``.
    """
    while True:
        path = prefix + secrets.token_hex(4)
        try:
            os.mkdir(path)  # the mode a plain mkdir gives (umask), not mkdtemp's 0700
            break
        except FileExistsError:  # pragma: no cover - 32 random bits already taken
            continue
    try:
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
        # A new directory: nobody else holds it. A file system without flock (ENOLCK, some
        # FUSE) leaves it unlocked: a build started meanwhile could take it for a leftover.
        with contextlib.suppress(OSError):
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        with open(os.path.join(path, MARKER), "w") as f:
            f.write("kistore site build staging: removed by the next build if left\n")
    except BaseException:
        shutil.rmtree(path, ignore_errors=True)
        raise
    return path, fd


def _make_parents(directory: str) -> list[str]:
    """Create ``directory`` and its missing parents; return the ones created, outermost first."""
    missing = []
    here = directory
    while not os.path.isdir(here):
        missing.append(here)
        parent = os.path.dirname(here)
        if parent == here:  # pragma: no cover - the root always exists
            break
        here = parent
    made: list[str] = []
    try:
        for path in reversed(missing):
            os.mkdir(path)
            made.append(path)
    except BaseException:
        remove_made(made)
        raise
    return made


def remove_made(made: list[str]) -> None:
    """Remove the folders a failed build created on the way to ``OUT``, if still empty.

    Args:
        made: absolute paths, outermost first (:attr:`Staging.made`); removed innermost
            first, and one that is not empty (or already gone) is left as it is.
    """
    for path in reversed(made):
        with contextlib.suppress(OSError):
            os.rmdir(path)


_NOT_WRITABLE = {errno.EACCES, errno.EPERM, errno.EROFS}


def stage(out: str | os.PathLike[str]) -> Staging:
    """Make and lock the build's staging directory: ``OUT.tmp-XXXXXXXX`` beside ``out``.

    Beside the real directory (``out``'s link resolved), so a move in is a rename on one
    filesystem. Inside an existing ``out`` instead, as ``OUT/.kistore-staging-XXXXXXXX``,
    when ``out`` is a mount point, its parent may not be written (``/var/www/site``
    writable, ``/var/www`` not or read-only: EACCES, EPERM, EROFS; review F11), or a file
    cannot be renamed from beside it into it (a bind mount of the same disk, which
    :func:`os.path.ismount` does not see: EXDEV).

    Raises:
        OSError: neither place can be written (nor the folders to ``out`` created).
    """
    real = os.path.realpath(out)
    if not os.path.ismount(real):
        made: list[str] = []
        try:
            made = _make_parents(os.path.dirname(real))
            path, fd = _locked_dir(f"{real}.tmp-")
        except OSError as e:
            remove_made(made)
            if e.errno not in _NOT_WRITABLE or not os.path.isdir(real):
                raise
        else:
            staging = Staging(path, False, made, _fd=fd)
            try:
                if not os.path.isdir(real) or _renames_into(path, real):
                    return staging
            except BaseException:
                discard(staging)
                raise
            discard(staging)
    path, fd = _locked_dir(os.path.join(real, INSIDE))
    return Staging(path, True, [], _fd=fd)


def _renames_into(staging: str, real: str) -> bool:
    """Return True when an entry renames from ``staging`` into the directory ``real``.

    The probe is an empty folder with a staging directory's name: one a ``kill -9``
    leaves in ``real`` holds no file, so the next build removes it.
    """
    probe = os.path.join(staging, "probe")
    os.mkdir(probe)
    target = os.path.join(real, INSIDE + secrets.token_hex(4))
    try:
        os.rename(probe, target)
    except OSError as e:
        if e.errno in (errno.EXDEV, *_NOT_WRITABLE):
            return False
        raise
    os.rmdir(target)
    return True


def discard(staging: Staging) -> None:
    """Remove a staging directory a build is done with, and release its lock.

    Before the install began: the directory and the folders made on the way to ``OUT``
    go. After it began (``committed``): only the lock is released, so an install cut short
    keeps what its journal needs.
    """
    if not staging.committed:
        shutil.rmtree(staging.path, ignore_errors=True)
        remove_made(staging.made)
    staging.close()


def is_staging_name(name: str, real: str) -> bool:
    """Return True when ``name`` is one a build gives its staging directory for ``real``.

    Args:
        name: a directory's base name (``OUT.tmp-1a2b3c4d``, ``.kistore-staging-1a2b3c4d``).
        real: the site's directory, its link resolved (its base name is ``OUT``).

    Returns:
        True for ``OUT.tmp-`` or :data:`INSIDE` followed by 8 lower-case hex digits.
    """
    for prefix in (os.path.basename(real) + ".tmp-", INSIDE):
        if name.startswith(prefix) and _SUFFIX.fullmatch(name[len(prefix):]):
            return True
    return False


@contextlib.contextmanager
def lock_of(path: str) -> Iterator[bool]:
    """Yield True while holding ``path``'s flock (its build is gone), False if held.

    Args:
        path: a staging directory (a link is not followed).

    Yields:
        True while this process holds the directory's ``flock`` (taken without waiting;
        released on leaving); False when a running build holds it, or it cannot be opened
        (gone, a link, not a directory).
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    except OSError:
        yield False
        return
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False  # a build still running holds it
            return
        yield True
    finally:
        os.close(fd)


def leftovers(out: str | os.PathLike[str]) -> list[str]:
    """Return the staging directories stopped builds left for ``out`` (absolute paths).

    Beside ``out`` (``OUT.tmp-XXXXXXXX``) and inside it (``.kistore-staging-XXXXXXXX``):
    real directories (not links) with a build's name whose lock nobody holds.
    """
    real = os.path.realpath(out)
    found = []
    for base in (os.path.dirname(real), real):
        try:
            names = os.listdir(base)
        except OSError:
            continue
        for name in names:
            path = os.path.join(base, name)
            if (base == real) != name.startswith(INSIDE) or not is_staging_name(name, real):
                continue
            with contextlib.suppress(OSError):
                if stat.S_ISDIR(os.lstat(path).st_mode):
                    with lock_of(path) as free:
                        if free:
                            found.append(path)
    return sorted(found)


def remove_leftovers(out: str | os.PathLike[str]) -> list[str]:
    """Remove what :func:`leftovers` finds that is provably a build's; return those removed.

    Proof: the marker file (:data:`MARKER`), or no file at all under it (only folders: an
    earlier kistore's staging directory, emptied by its install). Anything else with such a
    name is left alone. (A journal's temporary file a stopped build left:
    :func:`kistore.site.install.remove_journal_temps`.)

    Args:
        out: the site's directory (its link resolved).

    Returns:
        The staging directories removed (absolute paths).
    """
    removed = []
    for path in leftovers(out):
        if os.path.isfile(os.path.join(path, MARKER)) or not _holds_a_file(path):
            shutil.rmtree(path, ignore_errors=True)
            removed.append(path)
    return removed


def _holds_a_file(path: str) -> bool:
    return any(files for _, _, files in os.walk(path))


__all__ = ["INSIDE", "MARKER", "Staging", "discard", "is_staging_name", "leftovers",
           "lock_of", "remove_leftovers", "remove_made", "stage"]
