"""Putting a built site in place: the install (a commit point), its journal and recovery.

A build stages every file it changes (:mod:`kistore.site.staging`), then :func:`install`
puts the staged files in place. That step is the build's commit point, and it is made
all-or-nothing two ways (review 2026-12-03, F13, F9):

* **Signals are held over it** (:func:`kistore.git.commit.interrupts_deferred`, called by
  :func:`kistore.site.build.build_site`): a Ctrl-C or SIGTERM lands before the install
  (``OUT`` as it was) or after it (``OUT`` the whole new site), never between two renames;
  the build says which. Holding is enough for an interrupt, and costs nothing.
* **A journal rolls it forward** (``OUT/.kistore-install.json``, this module): what no
  handler can hold (``kill -9``, a power cut, a disk error while moving files into
  ``OUT``) leaves the journal, which names the staging directory, the files still to move
  and the pages to remove. The next build finishes that install first (:func:`recover`),
  and ``kistore site verify`` refuses to judge a site whose install was cut short and
  says to build. The journal is written (atomically: a rename) before the first file
  moves, and the build cache is removed before the first file moves and moved in last,
  so a site whose install never finished is also rebuilt whole by any build, even
  without the journal.

Signals alone would leave a half-updated site after ``kill -9``; a journal alone would let
a Ctrl-C end the command saying "interrupted" of a site already replaced. Both, then.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import re
import shutil
import stat
from collections.abc import Iterable
from typing import Any

from ..core.canonical_fast import loads_lenient
from ..core.errors import InputError, StoreStateError
from ..core.processes import alive
from .staging import MARKER, Staging, is_staging_name, lock_of

JOURNAL = ".kistore-install.json"
"""The install journal in ``OUT``: present only while an install is not finished."""
_JOURNAL_FORMAT = 1


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
            or not is_staging_name(data["staging"], os.path.realpath(out)) \
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
    with lock_of(staging) as ours:
        if not ours and os.path.lexists(staging):
            return False
        try:
            _roll_forward(real, staging, journal)
        except OSError as e:
            raise _cut_short(real, e) from None
    return True


def remove_journal_temps(out: str | os.PathLike[str]) -> list[str]:
    """Remove the journal's temporary files (``.kistore-install.json.PID.tmp``) of builds gone.

    A build killed while writing its journal leaves one; a process still alive keeps its own.

    Args:
        out: the site's directory (its link resolved).

    Returns:
        The files removed (absolute paths).
    """
    removed = []
    real = os.path.realpath(out)
    with contextlib.suppress(OSError):
        for name in os.listdir(real):
            match = _JOURNAL_TEMP.fullmatch(name)
            if match and not alive(int(match[1])):
                with contextlib.suppress(OSError):
                    os.remove(os.path.join(real, name))
                    removed.append(os.path.join(real, name))
    return removed


_JOURNAL_TEMP = re.compile(re.escape(JOURNAL) + r"\.([0-9]{1,10})\.tmp")


__all__ = ["JOURNAL", "InstallCutShort", "install", "read_journal", "recover",
           "remove_journal_temps"]
