"""Putting a built site in place: staging, the install (a commit point) and its recovery.

A build writes every file it changes into a staging directory first (:func:`stage`), so a
build that fails while rendering (a damaged object, a full disk, Ctrl-C) leaves ``OUT`` as
it was. Then :func:`install` puts the staged files in place. That step is the build's
commit point, and it is made all-or-nothing two ways (review 2026-12-03, F13, F9):

* **Signals are held over it** (:func:`kistore.git.commit.interrupts_deferred`, called by
  :func:`kistore.site.build.build_site`): a Ctrl-C or SIGTERM lands before the install
  (``OUT`` as it was) or after it (``OUT`` the whole new site), never between two renames;
  the build says which. Holding is enough for an interrupt, and costs nothing.
* **A journal rolls it forward** (``OUT/.kistore-install.json``): what no handler can hold
  (``kill -9``, a power cut, a disk error while moving files into ``OUT``) leaves the
  journal, which names the staging directory, the files still to move and the pages to
  remove. The next build finishes that install first (:func:`recover`), and ``kistore
  site verify`` refuses to judge a site whose install was cut short and says to build.
  The journal is written (atomically: a rename) before the first file moves, and the
  build cache is removed before the first file moves and moved in last, so a site whose
  install never finished is also rebuilt whole by any build, even without the journal.

Signals alone would leave a half-updated site after ``kill -9``; a journal alone would let
a Ctrl-C end the command saying "interrupted" of a site already replaced. Both, then.

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
import json
import os
import re
import secrets
import shutil
import stat
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from ..core.canonical_fast import loads_lenient
from ..core.errors import InputError, StoreStateError

JOURNAL = ".kistore-install.json"
"""The install journal in ``OUT``: present only while an install is not finished."""
INSIDE = ".kistore-staging-"
"""Prefix of a staging directory inside ``OUT`` (8 hex digits follow)."""
MARKER = ".kistore-staging"
"""The file inside a staging directory that says a build made it."""
_JOURNAL_FORMAT = 1
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


class InstalledMeanwhile(StoreStateError):
    """Another build installed a site into ``OUT`` while this one built it from empty.

    A build into an absent or empty ``OUT`` installs with one rename, which fails once
    ``OUT`` holds files (r75 finding 17: two builds at once into a new directory, one
    said a raw "OUT.tmp-XXXXXXXX: Directory not empty"). ``OUT`` is then the other
    build's whole site; nothing of this one was installed, and its staging directory goes.

    Args:
        real: the site's directory (its link resolved).
    """

    def __init__(self, real: str) -> None:
        super().__init__(
            "another `kistore site build` installed a site here while this one was building "
            "it (the directory was empty when this build began); nothing of this build was "
            "installed, and the directory holds that build's whole site. Run `kistore site "
            f"build {real}` again to bring it to this build's commit", file=real)


class InstallCutShort(StoreStateError):
    """An install stopped between two moves (a disk error): the next build finishes it.

    Its message names the journal, the error, and the command that finishes the install.
    """


def install(staging: Staging, out: str | os.PathLike[str], moves: list[str],
            remove: Iterable[str], *, drop: Iterable[str] = (), fresh: bool) -> list[str]:
    """Put the staged files in place: every one, or (if cut short) the journal to finish.

    Hold SIGINT and SIGTERM around the call (:func:`kistore.git.commit.interrupts_deferred`).

    Args:
        staging: the build's staging directory, holding every file of ``moves``.
        out: the site's directory.
        moves: files (or, for a fresh build inside ``OUT``, top entries) to move from
            staging into ``out``, relative, ``/``-separated, in order (``build.json`` and
            the cache last).
        remove: page paths (``runs/.../``) whose ``index.html`` and ``index.json`` go.
        drop: files of ``out`` removed before anything moves (the build cache: a site
            whose install is never finished has none, so any build renders it whole).
        fresh: ``out`` is absent or empty: a staging directory beside it becomes it (one
            rename, no journal).

    Returns:
        The files removed (relative).

    Raises:
        InstallCutShort: a move failed (a full disk, a file system gone read-only): the
            journal stays, and the next build (or this one again) finishes the install.
        InstalledMeanwhile: ``fresh``, and another build installed a site into ``out``
            meanwhile: nothing of this build was installed.
    """
    real = os.path.realpath(out)
    if fresh and not staging.inside:
        os.remove(os.path.join(staging.path, MARKER))
        with contextlib.suppress(FileNotFoundError):
            os.chmod(staging.path, stat.S_IMODE(os.stat(real).st_mode))
        try:
            os.replace(staging.path, real)  # POSIX rename replaces an empty directory
        except OSError as e:
            if e.errno in (errno.ENOTEMPTY, errno.EEXIST) and os.path.isdir(real) and \
                    os.listdir(real):
                raise InstalledMeanwhile(real) from None
            raise
        staging.committed = True
        return []
    journal = {"kistoreInstall": _JOURNAL_FORMAT, "staging": os.path.basename(staging.path),
               "inside": staging.inside, "drop": sorted(drop), "remove": sorted(remove),
               "moves": moves}
    temp = os.path.join(real, f"{JOURNAL}.{os.getpid()}.tmp")
    try:
        with open(temp, "w") as f:
            json.dump(journal, f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(temp, os.path.join(real, JOURNAL))  # the commit point
    except BaseException:
        with contextlib.suppress(OSError):
            os.remove(temp)
        raise
    staging.committed = True
    try:
        return _roll_forward(real, staging.path, journal)
    except OSError as e:
        raise _cut_short(real, e) from None


def _cut_short(real: str, e: OSError) -> InstallCutShort:
    where = f"{e.filename}: " if e.filename else ""
    return InstallCutShort(
        f"the install of the new site was cut short ({where}{e.strerror or e}): some pages "
        "are new, some old; free the space or fix the cause, then run `kistore site build "
        f"{real}` again: it finishes this install first (the journal {JOURNAL} lists what "
        "is left)", file=os.path.join(real, JOURNAL))


def _roll_forward(real: str, staging: str, journal: dict[str, Any]) -> list[str]:
    """Do what an install journal lists (what is already done is skipped); then remove it.

    Removes the files to drop first (the build cache: a site whose install never finishes
    is rendered whole by the next build), then each listed page, moves each listed file
    still in ``staging``, then removes the journal and the staging directory.

    Returns:
        The page files removed (relative).
    """
    for rel in journal["drop"]:
        with contextlib.suppress(FileNotFoundError):
            os.remove(os.path.join(real, rel))
    removed = []
    for page in journal["remove"]:
        for name in ("index.html", "index.json"):
            with contextlib.suppress(FileNotFoundError):
                os.remove(os.path.join(real, page, name))
                removed.append(page + name)
        _remove_empty_dirs(real, page)
    made: set[str] = set()
    for rel in journal["moves"]:
        source = os.path.join(staging, rel)
        if not os.path.lexists(source):
            continue  # moved before the install was cut short
        path = os.path.join(real, rel)
        parent = os.path.dirname(path)
        if parent not in made:
            os.makedirs(parent, exist_ok=True)
            made.add(parent)
        os.replace(source, path)
    os.remove(os.path.join(real, JOURNAL))
    shutil.rmtree(staging, ignore_errors=True)
    return removed


def _remove_empty_dirs(real: str, path: str) -> None:
    """Remove ``real/path`` and its parents up to ``real`` while they are empty."""
    here = os.path.join(real, path.rstrip("/"))
    while here != real and len(here) > len(real):
        try:
            os.rmdir(here)
        except OSError:
            return
        here = os.path.dirname(here)


def read_journal(out: str | os.PathLike[str]) -> dict[str, Any] | None:
    """Return ``out``'s install journal, or None when there is none (the usual case).

    Raises:
        InputError: the journal is there but not one a build writes (not JSON, a field
            missing, a staging name that is not a build's): say what to do.
    """
    path = os.path.join(os.path.realpath(out), JOURNAL)
    try:
        with open(path, "rb") as f:
            data = loads_lenient(f.read())
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as e:
        raise _bad_journal(path, str(e)) from None
    if not isinstance(data, dict) or data.get("kistoreInstall") != _JOURNAL_FORMAT \
            or not isinstance(data.get("staging"), str) \
            or not _is_staging_name(data["staging"], os.path.realpath(out)) \
            or not all(_strings(data.get(k)) for k in ("drop", "remove", "moves")):
        raise _bad_journal(path, "not the journal a build writes")
    return data


def _strings(value: Any) -> bool:
    return isinstance(value, list) and all(
        isinstance(v, str) and v and not v.startswith("/") and ".." not in v.split("/")
        for v in value)


def _bad_journal(path: str, why: str) -> InputError:
    return InputError(
        f"an install journal that cannot be used ({why}): a build into this site was cut "
        "short, and some pages may be old, some new; remove the journal and build the "
        "site whole (`kistore site build OUT --full`)", file=path)


def _is_staging_name(name: str, real: str) -> bool:
    """Return True when ``name`` is one a build gives its staging directory for ``real``."""
    for prefix in (os.path.basename(real) + ".tmp-", INSIDE):
        if name.startswith(prefix) and _SUFFIX.fullmatch(name[len(prefix):]):
            return True
    return False


@contextlib.contextmanager
def _lock_of(path: str) -> Iterator[bool]:
    """Yield True while holding ``path``'s flock (its build is gone), False if held."""
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


def recover(out: str | os.PathLike[str]) -> bool:
    """Finish an install a stopped build left (its journal), if any; return True if one was.

    Called before a build reads ``out``. A journal whose staging directory is still locked
    belongs to a build that is installing now: left alone.

    Raises:
        InputError: an unusable journal (:func:`read_journal`).
        InstallCutShort: a move failed again.
    """
    journal = read_journal(out)
    if journal is None:
        return False
    real = os.path.realpath(out)
    base = real if journal["inside"] is True else os.path.dirname(real)
    staging = os.path.join(base, journal["staging"])
    with _lock_of(staging) as ours:
        if not ours and os.path.lexists(staging):
            return False
        try:
            _roll_forward(real, staging, journal)
        except OSError as e:
            raise _cut_short(real, e) from None
    return True


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
            if (base == real) != name.startswith(INSIDE) or not _is_staging_name(name, real):
                continue
            with contextlib.suppress(OSError):
                if stat.S_ISDIR(os.lstat(path).st_mode):
                    with _lock_of(path) as free:
                        if free:
                            found.append(path)
    return sorted(found)


def remove_leftovers(out: str | os.PathLike[str]) -> list[str]:
    """Remove what :func:`leftovers` finds that is provably a build's; return those removed.

    Proof: the marker file (:data:`MARKER`), or no file at all under it (only folders: an
    earlier kistore's staging directory, emptied by its install). Anything else with such a
    name is left alone. Also a journal's temporary file (``.kistore-install.json.PID.tmp``)
    whose process is gone.
    """
    removed = []
    for path in leftovers(out):
        if os.path.isfile(os.path.join(path, MARKER)) or not _holds_a_file(path):
            shutil.rmtree(path, ignore_errors=True)
            removed.append(path)
    real = os.path.realpath(out)
    with contextlib.suppress(OSError):
        for name in os.listdir(real):
            match = _JOURNAL_TEMP.fullmatch(name)
            if match and not _alive(int(match[1])):
                with contextlib.suppress(OSError):
                    os.remove(os.path.join(real, name))
                    removed.append(os.path.join(real, name))
    return removed


_JOURNAL_TEMP = re.compile(re.escape(JOURNAL) + r"\.([0-9]{1,10})\.tmp")


def _alive(pid: int) -> bool:
    """Return True when process ``pid`` exists (or cannot be told apart from one that does)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True
    return True


def _holds_a_file(path: str) -> bool:
    return any(files for _, _, files in os.walk(path))


__all__ = ["INSIDE", "JOURNAL", "MARKER", "InstallCutShort", "Staging", "discard", "install",
           "leftovers", "read_journal", "recover", "remove_leftovers", "remove_made", "stage"]
