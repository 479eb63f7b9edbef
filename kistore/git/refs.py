"""Git refs read from the files under ``.git``, without libgit2.

A warm query only needs to know whether anything changed since the index last looked:
``HEAD``'s commit and the tip of ``refs/notes/kistore``. Importing pygit2 to read two refs
costs ~0.1-0.2 s a process; reading them as git's "files" ref backend stores them costs
microseconds (gitrepository-layout(5)): ``HEAD`` holds ``ref: <name>`` or an object id; a
ref is a loose file ``<git dir>/<name>`` or a line ``<id> <name>`` of ``packed-refs`` (a
``^<id>`` line after it is the peeled id of an annotated tag; the loose file wins over a
packed line, as git reads it). A linked worktree's git directory (``.git/worktrees/NAME``,
named by the work tree's ``.git`` file, ``gitdir: <path>``) holds its own ``HEAD`` and the
per-worktree refs (``refs/bisect``, ``refs/worktree``, ``refs/rewritten``); every other
ref lives in the directory its ``commondir`` file names (git-worktree(1), "Refs").

Anything else -- a reftable repository, a ref file that is not one of those forms, a
symbolic-ref loop, a name git would not write -- raises :class:`RefsUnreadable`, and the
caller asks libgit2 instead: never a wrong answer. Nothing here writes.
"""

from __future__ import annotations

import errno
import os
import re
import stat
from pathlib import Path
from typing import TYPE_CHECKING

from ..core.errors import StoreStateError
from ..core.file_kinds import FIFO, SPECIAL, file_kind, kind_at
from ..core.layout import NOTES_REF

if TYPE_CHECKING:
    from collections.abc import Iterator

_OBJECT_ID = re.compile(r"[0-9a-f]{40}(?:[0-9a-f]{24})?")
"""A SHA-1 (40 hex) or SHA-256 (64 hex) object id, as git writes it."""

_MAX_SYMREF_DEPTH = 5
"""How many ``ref:`` hops are followed (git's own limit is 5)."""

_PER_WORKTREE = ("refs/bisect/", "refs/worktree/", "refs/rewritten/")
"""Refs a linked worktree keeps in its own git directory (besides ``HEAD``)."""


class RefsUnreadable(Exception):
    """The refs of this repository cannot be read from plain files here: ask libgit2."""


class RefFileRefused(StoreStateError):
    """A ref file git, libgit2 and kistore read (``HEAD``, ``packed-refs``) is a FIFO or device.

    Opening a FIFO waits for a writer for ever, inside git's or libgit2's C code (fresh17
    F11: a FIFO ``.git/packed-refs`` hung ``ls``, ``rank``, ``verify --at HEAD`` and ``notes
    fetch`` with no word). Like :class:`kistore.git.config_guard.ConfigRefused`, the
    user's environment, never the store's data: a reader that takes a failure to read a
    file for the file's fault lets it through, and the command fails with it, exit 1.
    """


REF_FILES = ("HEAD", "packed-refs")
"""The ref files every git command opens before it finds a branch: ``HEAD`` in the git
directory (git's ``is_git_directory`` reads it to take a directory for a repository), and
``packed-refs`` in the common one (every ref not in a loose file)."""


def blocking_ref_file(git_dir: Path) -> tuple[Path, str, str] | None:
    """Return the first ref file of ``git_dir`` git opens first that no reader may open.

    :data:`REF_FILES`, then the loose files of the branch ``HEAD`` names and of
    ``refs/notes/kistore``: each stat'ed (a symbolic link judged by what it names, as git
    opens it), never opened; ``HEAD`` is read (its few bytes, a regular file's) for its
    branch.

    Args:
        git_dir: a git directory (a linked worktree's own: its ``HEAD`` is there, its
            ``packed-refs`` and branches in the common directory, :func:`common_git_dir`).

    Returns:
        ``(path, kind, ref)`` for one that is a FIFO, socket or device
        (:data:`kistore.core.file_kinds.SPECIAL`; ``kind`` its words, ``a FIFO``; ``ref``
        the ref's name for a loose ref's file, else ""); None when none is (absent, a
        regular file, or a directory, which git refuses at once with its own message).
        Raises nothing.
    """
    try:
        common = common_git_dir(git_dir)
    except RefsUnreadable:  # said where it is read; HEAD's directory is the one asked
        common = git_dir
    head = git_dir / REF_FILES[0]
    for path in (head, common / REF_FILES[1]):
        kind = kind_at(path, follow=True)
        if kind in SPECIAL:
            return path, kind or "", ""
    names = [NOTES_REF]  # its loose file every notes command's git child opens
    try:
        value = _read_ref_file(head).decode("ascii").strip()
    except (OSError, UnicodeDecodeError, RefFileRefused):
        value = ""
    if value.startswith("ref:") and _is_ref_name(value[4:].strip()):
        names.insert(0, value[4:].strip())
    for name in names:
        kind = kind_at(common / name, follow=True)
        if kind in SPECIAL:
            return common / name, kind or "", name
    return None


def ref_file_refused(path: Path, kind: str, *, shown: str, whose: str, reader: str,
                     undone: str, ref_name: str = "") -> RefFileRefused:
    """Return the refusal of a ref file ``path`` that is ``kind`` (:func:`blocking_ref_file`).

    Args:
        path: the file's absolute path (for the fix).
        kind: what it is (``a FIFO``, ``a character device``...).
        shown: the path the error is located at (``.git/packed-refs``, or absolute).
        whose: whose file it is, in words (``the repository's``; ``remote origin's``).
        reader: who would open it, in words (``libgit2``; ``git-upload-pack, which git
            runs in /srv/x.git for remote origin,``).
        undone: what was not done (``no git command was run``).
        ref_name: for a loose ref's file, the ref's name (``refs/heads/main``), else "".

    Returns:
        The error, its message naming the file, what it is, why that is refused and the
        fix: for ``HEAD``, writing it again; for ``packed-refs``, removing it; for a
        loose ref, removing it and setting the ref again. E.g.
        ``the repository's packed-refs is a FIFO, not a regular file: libgit2 opens and
        reads it to find a branch, and would wait for ever; the repository was not opened.
        Remove it (`rm /x/.git/packed-refs`): ...``, located at ``shown``.
    """
    # Lazy: shlex only when a refusal is said.
    import shlex

    quoted = shlex.quote(os.fspath(path))
    if path.name == REF_FILES[0]:
        fix = (f"Write it again, a file naming the branch to check out: `rm {quoted} && "
               f"echo 'ref: refs/heads/main' > {quoted}` (main, or the branch's name)")
    elif path.name != REF_FILES[1]:  # a loose ref's file
        fix = (f"Remove it (`rm {quoted}`) and set the ref again (`git update-ref "
               f"{shlex.quote(ref_name)} COMMIT`)" if ref_name else f"Remove it (`rm {quoted}`)")
    else:
        fix = (f"Remove it (`rm {quoted}`): git then reads each ref from its own file under "
               "refs/; a ref that was only packed there goes with it: put back a copy of the "
               "file if you kept one, or fetch or push its branches again")
    waits = "would wait for ever" if kind == FIFO else "cannot read it as a file"
    what = f"ref {ref_name}" if ref_name else path.name
    return RefFileRefused(
        f"{whose} {what} is {kind}, not a regular file: {reader} opens and reads it to find "
        f"a branch, and {waits}; {undone}. {fix}, then run the command again", file=shown)


def git_dir_of(work_tree: Path) -> Path:
    """Return the git directory of a work tree: its ``.git`` directory, or where its file points.

    Args:
        work_tree: the top directory of a work tree.

    Returns:
        ``work_tree/.git`` when that is a directory; for a ``.git`` file (a linked worktree,
        a submodule) the directory its ``gitdir: <path>`` line names, relative to
        ``work_tree`` when not absolute.

    Raises:
        RefsUnreadable: no ``.git`` there, or a ``.git`` file in no form git writes.
    """
    dotgit = work_tree / ".git"
    if dotgit.is_dir():
        return dotgit
    try:
        text = dotgit.read_text("utf-8").strip()
    except (OSError, UnicodeDecodeError) as e:
        raise RefsUnreadable(f"cannot read {dotgit}: {e}") from None
    if not text.startswith("gitdir:") or "\n" in text:
        raise RefsUnreadable(f"{dotgit} holds {text[:80]!r}, not one 'gitdir: <path>' line")
    target = Path(text[len("gitdir:"):].strip())
    return target if target.is_absolute() else work_tree / target


DOTGIT_HINT = ("fix its gitdir line, or remove it (`kistore init` then makes a new "
               "repository there)")
"""What to do about a ``.git`` that leads nowhere: what :func:`broken_dotgit` ends with."""


def broken_dotgit(directory: Path) -> str | None:
    """Say what is wrong with ``directory/.git`` when it is there but leads to no git directory.

    git stops at such a ``.git`` ("fatal: not a git repository: /nonexistent", "invalid
    gitfile format"); libgit2 finds no repository or raises "malformed"; kistore said
    "internal error" (``init``) or "not inside a git repository; run `kistore init`", which
    led back to it (review 2026-12-03).

    Args:
        directory: the directory whose ``.git`` is looked at.

    Returns:
        One sentence naming the ``.git`` path, what it holds and what to do
        (:data:`DOTGIT_HINT`); for a ``.git`` directory whose ``HEAD`` is a FIFO, socket or
        device (libgit2 takes it for no repository; git would wait on it: fresh17 F11),
        :func:`ref_file_refused`'s words. None when there is no ``.git`` there, or it is a
        directory with no such ``HEAD``, or a file whose ``gitdir:`` line names a directory
        holding ``HEAD``.
    """
    dotgit = directory / ".git"
    if not os.path.lexists(dotgit):
        return None
    if dotgit.is_dir():  # git takes it for no repository when its HEAD is no file
        kind = kind_at(dotgit / REF_FILES[0], follow=True)
        if kind not in SPECIAL:
            return None
        return ref_file_refused(
            dotgit / REF_FILES[0], kind or "", shown="", whose=f"{dotgit}'s", reader="git",
            undone="libgit2 takes the directory for no repository, and kistore found none "
            "here").message
    if not dotgit.exists():  # a symbolic link to nothing
        return (f"{dotgit} is a symbolic link to {os.readlink(dotgit)}, which does not "
                f"exist; point it at a git directory, or remove it (`kistore init` then "
                f"makes a new repository there)")
    try:
        data = dotgit.read_bytes()[:4096]
    except OSError as e:
        return f"{dotgit} cannot be read ({e.strerror or e}); {DOTGIT_HINT}"
    text = data.decode("utf-8", "replace").strip()
    if not text.startswith("gitdir:") or "\n" in text:
        return (f"{dotgit} is a file holding {data[:40]!r}{'...' if len(data) > 40 else ''}, "
                f"not a 'gitdir: <path>' line naming a git directory; {DOTGIT_HINT}")
    named = text[len("gitdir:"):].strip()
    target = Path(named) if os.path.isabs(named) else directory / named
    if not target.is_dir():
        why = "does not exist" if not os.path.lexists(target) else "is not a directory"
    elif not (target / "HEAD").is_file():
        why = "is not a git directory (it holds no HEAD)"
    else:
        return _broken_commondir(dotgit, named, target)
    return f"{dotgit} says 'gitdir: {named}', which {why}; {DOTGIT_HINT}"


def _broken_commondir(dotgit: Path, named: str, target: Path) -> str | None:
    """Say what is wrong with the ``commondir`` of a linked worktree's git directory, or None.

    ``target`` (``.git/worktrees/NAME``, which ``dotgit``'s ``gitdir: named`` line names)
    holds ``HEAD``; its ``commondir`` file names the git directory every worktree shares
    (objects, branches). Empty, or naming no git directory, git and libgit2 open no
    repository here (git fails in every worktree of it: "failed to read .../commondir").

    Returns:
        One sentence naming ``dotgit``, the ``commondir`` file, what is wrong and what to
        do; None when there is no ``commondir`` (a submodule) or it names a directory
        holding ``objects``.
    """
    file = target / "commondir"
    if not os.path.lexists(file):
        return None
    where = f"{dotgit} names the linked worktree's git directory {named}, but "
    try:
        common = common_git_dir(target)
    except RefsUnreadable as e:
        return where + str(e)
    if (common / "objects").is_dir():
        return None
    why = "does not exist" if not os.path.lexists(common) else "is no git directory (no objects)"
    return (where + f"its commondir file names {common}, which {why}: "
            f"{_COMMONDIR_FIX.format(file=file)}")


_COMMONDIR_FIX = ("write the line `git worktree add` writes there, `echo ../.. > {file}` (the "
                  "git directory two levels up), or delete {file.parent} to drop the "
                  "worktree")
"""What to do about a linked worktree's ``commondir`` that names no git directory."""


def common_git_dir(git_dir: Path) -> Path:
    """Return the git directory every worktree of ``git_dir``'s repository shares.

    A linked worktree's own git directory (``.git/worktrees/NAME``) names it in its
    ``commondir`` file, relative to ``git_dir`` or absolute (gitrepository-layout(5)); for
    the main worktree (no ``commondir``) it is ``git_dir`` itself. Objects, branches,
    ``packed-refs`` and kistore's write lock live there. The one reader of ``commondir``:
    :func:`resolve`, store discovery, the write lock, hooks, ``info/attributes``, the
    object directory and ``shallow`` all ask here.

    Args:
        git_dir: a git directory (:func:`git_dir_of`).

    Returns:
        ``git_dir`` unchanged when it holds no ``commondir``; else the directory that file
        names, resolved (symbolic links and ``..`` taken out: ``.git``, not
        ``.git/worktrees/NAME/../..``).

    Raises:
        RefsUnreadable: a ``commondir`` is there but is not a regular file (a directory, a
            FIFO, a link to nothing), cannot be read, or is empty; the message names it.
    """
    common = git_dir / "commondir"
    try:
        mode = os.lstat(common).st_mode  # one lstat for the main worktree's absent file
        if stat.S_ISLNK(mode):
            mode = os.stat(common).st_mode
    except (FileNotFoundError, NotADirectoryError):
        if not os.path.lexists(common):
            return git_dir
        mode = stat.S_IFLNK  # a symbolic link to nothing
    except OSError as e:
        raise RefsUnreadable(f"cannot read {common}: {e}") from None
    if not stat.S_ISREG(mode):
        raise RefsUnreadable(f"{common} is not a regular file: expected one line naming the "
                             "git directory the worktrees share; remove it and "
                             + _COMMONDIR_FIX.format(file=common))
    text = _loose(common)
    if not text:  # git itself then fails in every worktree ("failed to read ...commondir")
        raise RefsUnreadable(f"{common} is empty: expected one line naming the git directory "
                             "the worktrees share; " + _COMMONDIR_FIX.format(file=common))
    return (git_dir / text).resolve()  # relative to git_dir, or absolute (Path keeps it)


def resolve(git_dir: Path, name: str) -> str | None:
    """Return the object id (hex) a ref names, following ``ref:`` links, or None when absent.

    Args:
        git_dir: the repository's git directory (``.git`` of an ordinary work tree, a
            linked worktree's ``.git/worktrees/NAME``: :func:`git_dir_of`).
        name: ``HEAD`` or a full ref name (``refs/notes/kistore``).

    Returns:
        The lowercase hex object id, or None when the ref does not exist (for ``HEAD``: an
        unborn branch).

    Raises:
        RefsUnreadable: the repository does not keep refs as plain files (reftable), a
            ``commondir`` file cannot be read, or a ref file is in no form git writes.
    """
    common = _refs_dir(git_dir)
    packed: dict[str, str] | None = None
    for _ in range(_MAX_SYMREF_DEPTH):
        if name != "HEAD" and not _is_ref_name(name):
            raise RefsUnreadable(f"not a ref name git writes: {name!r}")
        own = name == "HEAD" or name.startswith(_PER_WORKTREE)
        value = _loose((git_dir if own else common) / name, name)
        if value is None and name != "HEAD" and (not own or common == git_dir):
            if packed is None:
                packed = _packed(common / "packed-refs")
            value = packed.get(name)
        if value is None:
            return None
        if value.startswith("ref:"):
            name = value[4:].strip()
            continue
        if _OBJECT_ID.fullmatch(value):
            return value
        raise RefsUnreadable(f"ref {name} holds {value[:80]!r}")
    raise RefsUnreadable(f"ref {name}: symbolic refs nest deeper than {_MAX_SYMREF_DEPTH}")


def _refs_dir(git_dir: Path) -> Path:
    """Return :func:`common_git_dir`, once ``git_dir`` is known to keep its refs as files.

    Raises:
        RefsUnreadable: no ``HEAD`` file, a ``reftable`` directory (in ``git_dir`` or the
            common one), or a ``commondir`` :func:`common_git_dir` refuses.
    """
    if not os.path.isfile(git_dir / "HEAD"):
        raise RefsUnreadable(f"{git_dir} holds no HEAD file")
    common = common_git_dir(git_dir)
    if os.path.lexists(git_dir / "reftable") or os.path.lexists(common / "reftable"):
        raise RefsUnreadable(f"{git_dir} keeps its refs in a reftable")
    return common


def _is_ref_name(name: str) -> bool:
    """Return True for ``refs/...`` with no empty, ``.``-led or ``..`` component."""
    parts = name.split("/")
    return parts[0] == "refs" and len(parts) > 1 and all(
        p and p not in (".", "..") and not p.startswith(".") for p in parts)


def _loose(path: Path, name: str = "") -> str | None:
    """Return a loose ref file's text (stripped), or None when there is no such file.

    Args:
        path: the file.
        name: the ref's name (``refs/heads/main``; "" for a file that is no ref, such as
            ``commondir``), said in a refusal.

    Raises:
        RefFileRefused: it is a FIFO, socket or device (:func:`_read_ref_file`).
        RefsUnreadable: it cannot be read, or is not ASCII.
    """
    try:
        return _read_ref_file(path, name).decode("ascii").strip()
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        return None
    except (OSError, UnicodeDecodeError) as e:
        raise RefsUnreadable(f"cannot read {path}: {e}") from None


def _read_ref_file(path: Path, name: str = "") -> bytes:
    """Return the bytes of the ref file ``path``, refused unread when it is no regular file.

    Opened without waiting (``O_NONBLOCK``: a FIFO opens at once, with no writer) and
    ``fstat``'ed: a FIFO, socket or device is never read (fresh17 F11: a FIFO
    ``packed-refs`` hung every command in ``read_text``).

    Args:
        path: the file.
        name: as :func:`_loose`.

    Raises:
        RefFileRefused: it is a FIFO, socket or device.
        OSError: it cannot be opened or read (absent: FileNotFoundError; a directory:
            IsADirectoryError).
    """
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    with os.fdopen(fd, "rb") as f:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), os.fspath(path))
        if not stat.S_ISREG(mode):
            raise ref_file_refused(path, file_kind(mode), shown=_shown(path),
                                   whose="the repository's",
                                   reader="kistore (as git and libgit2 do)",
                                   undone="nothing was read", ref_name=name)
        return f.read()


def _shown(path: Path) -> str:
    """Return ``path`` as said: from its last ``.git`` on (``.git/packed-refs``), else whole."""
    parts = path.parts
    for i in range(len(parts) - 1, -1, -1):
        if parts[i] == ".git":
            return "/".join(parts[i:])
    return os.fspath(path)


def _packed(path: Path) -> dict[str, str]:
    """Return ``{ref name: object id}`` of a ``packed-refs`` file (empty when absent).

    Raises:
        RefFileRefused: it is a FIFO, socket or device (:func:`_read_ref_file`).
        RefsUnreadable: the file cannot be read, or holds a line in no form git writes.
    """
    try:
        text = _read_ref_file(path).decode("ascii")
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError) as e:
        raise RefsUnreadable(f"cannot read {path}: {e}") from None
    refs = {}
    for line in text.splitlines():
        if not line or line[0] in "#^":  # header, or the peeled id of the tag above
            continue
        object_id, _, name = line.partition(" ")
        if not _OBJECT_ID.fullmatch(object_id):
            raise RefsUnreadable(f"{path}: unexpected line {line[:80]!r}")
        refs[name] = object_id
    return refs


def refs_under(git_dir: Path, prefix: str) -> dict[str, float | None]:
    """Return each ref whose name starts with ``prefix``, with when its loose file was written.

    Loose refs are the files under ``<common git dir>/<prefix>`` (a ``.lock`` file, which
    git holds while it writes one, is no ref); packed refs the lines of ``packed-refs``.
    git rewrites a loose ref's file on every update of its value (a fetch that brings
    nothing new leaves it alone), and ``git pack-refs`` (``git gc``, ``git clone``) moves
    refs into ``packed-refs``, where no time is kept.

    Args:
        git_dir: the repository's git directory (:func:`git_dir_of`).
        prefix: a ref name prefix ending in ``/`` (``refs/notes/remotes/``), not
            per-worktree (:data:`_PER_WORKTREE`).

    Returns:
        ``{full ref name: mtime of its loose file (seconds since the epoch), or None when
        it is in packed-refs only}``.

    Raises:
        RefsUnreadable: the repository does not keep refs as plain files (reftable), a
            ``commondir`` cannot be read, or ``packed-refs`` is in no form git writes.
    """
    common = _refs_dir(git_dir)
    found: dict[str, float | None] = {
        name: None for name in _packed(common / "packed-refs") if name.startswith(prefix)}
    top = common / prefix
    for directory, _dirs, files in os.walk(top):
        for file in files:
            path = os.path.join(directory, file)
            name = prefix + os.path.relpath(path, top).replace(os.sep, "/")
            if file.endswith(".lock") or not _is_ref_name(name):
                continue
            try:
                found[name] = os.stat(path).st_mtime
            except FileNotFoundError:  # deleted (packed, or the ref removed) meanwhile
                continue
            except OSError as e:
                raise RefsUnreadable(f"cannot read {path}: {e}") from None
    return found


def ref_values_under(git_dir: Path, prefix: str) -> dict[str, str]:
    """Return the object id of each ref whose name starts with ``prefix`` (symbolic ones left out).

    A loose ref's file wins over its ``packed-refs`` line, as git reads them; one holding
    ``ref: ...`` (a remote's ``HEAD``) names no object of its own and is left out.

    Args:
        git_dir: the repository's git directory (:func:`git_dir_of`).
        prefix: a ref name prefix ending in ``/`` (``refs/remotes/origin/``).

    Returns:
        ``{full ref name: lowercase hex object id}``.

    Raises:
        RefsUnreadable: as :func:`refs_under`, or a loose ref file cannot be read.
    """
    common = _refs_dir(git_dir)
    found = {name: value for name, value in _packed(common / "packed-refs").items()
             if name.startswith(prefix)}
    for name, loose in refs_under(git_dir, prefix).items():
        if loose is None:  # packed only: read above
            continue
        value = _loose(common / name, name)
        if value is None:  # deleted meanwhile
            found.pop(name, None)
        elif _OBJECT_ID.fullmatch(value):
            found[name] = value
        else:
            found.pop(name, None)
    return found


_REFLOG_TAIL = 65_536
"""How many bytes from a reflog's end :func:`reflog_last_time` reads (a line is ~200)."""


def reflog_last_time(git_dir: Path, name: str) -> float | None:
    """Return the time git wrote in the last entry of ``name``'s reflog, or None.

    An entry is ``OLD NEW IDENT TIME TZ<TAB>MESSAGE`` (``git reflog``'s file format), its
    TIME in whole seconds since the epoch, written when the ref's value was updated. Unlike
    the file's time it survives ``git gc``, which rewrites every reflog (``git reflog
    expire``) and packs the ref: after it, the file's time says when gc ran.

    Args:
        git_dir: the repository's git directory.
        name: a full ref name that is not per-worktree.

    Returns:
        Seconds since the epoch, or None when the reflog is absent, empty, or its last line
        is not in that form.

    Raises:
        RefsUnreadable: a ``commondir`` or the reflog cannot be read.
    """
    path = common_git_dir(git_dir) / "logs" / name
    try:
        with open(path, "rb") as f:
            start = max(0, f.seek(0, os.SEEK_END) - _REFLOG_TAIL)
            f.seek(start)
            tail = f.read()
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        return None
    except OSError as e:
        raise RefsUnreadable(f"cannot read the reflog of {name}: {e}") from None
    before, newline, last = tail.rstrip(b"\n").rpartition(b"\n")
    if not newline and start:  # a last line longer than the tail: its start is not read
        return None
    entry = _reflog_entry(last)
    return None if entry is None else float(entry[2])


def _reflog_entry(line: bytes) -> tuple[str, str, int, str] | None:
    """Return one reflog line's ``(old, new, time, message)``, or None when not in the form.

    ``OLD NEW IDENT TIME TZ<TAB>MESSAGE`` (``git reflog``'s file format; IDENT holds
    spaces, so the ids are read from the left and TIME from the right); TIME in whole
    seconds since the epoch.
    """
    head, _, message = line.partition(b"\t")
    ids, fields = head.split(b" ", 2), head.rsplit(b" ", 2)
    if len(ids) != 3 or len(fields) != 3 or not fields[1].isdigit():
        return None
    return (ids[0].decode("ascii", "replace"), ids[1].decode("ascii", "replace"),
            int(fields[1]), message.decode("utf-8", "replace"))


def reflog_newest_first(git_dir: Path, name: str) -> Iterator[tuple[str, str, int, str]]:
    """Yield the entries of ``name``'s reflog, newest first: ``(old, new, time, message)``.

    The format :func:`reflog_last_time` reads (``OLD NEW IDENT TIME TZ<TAB>MESSAGE``); a
    line not in it is yielded as ``("", "", 0, "")``, which matches no id nor message.
    Each line is parsed only when reached: the callers walk back to a tip they know and
    stop, and a busy branch's reflog holds thousands of lines (~11 ms per 10,000 parsed
    whole, on every query that judges notes staleness).

    Args:
        git_dir: the repository's git directory.
        name: a full ref name that is not per-worktree.

    Yields:
        The entries (none when the reflog is absent or empty).

    Raises:
        RefsUnreadable: a ``commondir`` or the reflog cannot be read (on the first entry).
    """
    path = common_git_dir(git_dir) / "logs" / name
    try:
        data = path.read_bytes()
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        return
    except OSError as e:
        raise RefsUnreadable(f"cannot read the reflog of {name}: {e}") from None
    for line in reversed(data.splitlines()):
        yield _reflog_entry(line) or ("", "", 0, "")


def reflog_mtime(git_dir: Path, name: str) -> float | None:
    """Return when the reflog of ``name`` (``logs/<name>``) was last written, or None.

    git appends to a ref's reflog on each update of its value (``core.logAllRefUpdates``,
    on in a non-bare repository for ``refs/heads/``, ``refs/remotes/`` and ``refs/notes/``);
    the file stays when ``git pack-refs`` moves the ref into ``packed-refs``.

    Args:
        git_dir: the repository's git directory.
        name: a full ref name that is not per-worktree.

    Raises:
        RefsUnreadable: a ``commondir`` cannot be read.
    """
    try:
        return os.stat(common_git_dir(git_dir) / "logs" / name).st_mtime
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as e:
        raise RefsUnreadable(f"cannot read the reflog of {name}: {e}") from None
