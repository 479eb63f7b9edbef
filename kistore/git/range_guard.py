"""The guard before a libgit2 walk of a range (``BASE..HEAD``): it costs the range, not the history.

libgit2 1.9 loops for ever inflating a loose object file cut short (libgit2/libgit2#7342,
review F3), and a walk reads every commit it passes whole. :func:`.blobs.read_loose_history`
guards a walk by reading first every commit of the tip's history: right for a walk of the
whole history (``verify``, the site), but the gate's walks read only the range, and at
10,001 commits the guard was 0.40 of the gate's 0.77 s (2026-12-05, the ``--million``
bench). Here the guard's two jobs are split (gate96):

* **no loop**: only a *loose* file can make libgit2 loop, so every loose object file of
  the repository and its alternates is listed (a fresh clone has none; a fetched pull
  request a few; git's auto-gc packs them past ~6,700) and each is held to its header
  (:func:`loose_commits_read`): every loose commit is read whole and parsed, and a commit
  naming a loose object that is no commit as a parent is a fault. Any fault, or a file
  whose header cannot be read, and the tips' whole histories are read as before
  (:func:`.blobs.read_loose_history`), which names it when a walk from them could meet
  it (one elsewhere is left alone: no walk from these tips reads it);
* **the damage named**: a walk that fails (a damaged packed commit, a missing parent, a
  commit libgit2's walk cannot parse) reads the tips' whole histories then, to name it
  as before (:func:`damage_named`); the root trees of the range's commits and their
  parents, which the gate reads, are read first by id (:func:`read_range_trees`: a
  damaged packed one named, a ``tree:0`` clone's fetched in one).

So a commit deep in the history that no walk of the range reads is no longer read by the
gate (``verify`` reads it). libgit2's walk itself reads what its commit dates make it read
(git's "everybody uninteresting", with slop): all of a history whose commits share one
date. A range that is one line of commits on BASE is followed here instead
(:func:`line_to`), so the gate of such a pull request does not walk the history at all.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

from .blobs import (
    _TYPES,
    ObjectUnreadable,
    _object_dirs,
    fetch_trees,
    loose_object,
    object_by_id,
    object_type,
    read_loose_history,
    tree_read,
    unparsable,
)
from .commit_header import header
from .lazy import pygit2 as _pygit2  # imported on first use

if TYPE_CHECKING:  # pragma: no cover - typing only
    import pygit2

_HEX = frozenset("0123456789abcdef")

_held: dict[str, tuple[tuple[int, int, int], int, tuple[str, ...]]] = {}
"""Each loose file held to its header: (inode, size, mtime ns), type, a commit's parents."""

LOOSE_MAX = 13_400
"""Most loose files the guard holds to their headers (~19 us each the first time): twice
git's ``gc.auto`` (6,700), so a clone git itself keeps is always under it. A store written
by ``kistore add --commit`` and never packed may hold hundreds of thousands (no ``git gc
--auto`` runs after a kistore commit); past this, the tips' whole histories are read as
before gate96 (:func:`.blobs.read_loose_history`, ~40 us a commit), which costs less there
than reading every loose file's header would."""

_HELD_MAX = 500_000
"""Most files :data:`_held` remembers; past it, it starts afresh."""


def loose_files(repo: pygit2.Repository) -> Iterator[tuple[str, str]]:
    """Yield ``(file, 40 hex id)`` of every loose object file of the repository and its alternates.

    Listed, not read: one ``scandir`` of each object directory and of each of its two-hex
    fan-out directories there is (a packed clone has none). Names that are no object id
    (git's temporary files) are left out, as git leaves them.
    """
    for objects in _object_dirs(repo):
        try:
            fanout = [e.name for e in os.scandir(objects)
                      if len(e.name) == 2 and set(e.name) <= _HEX and e.is_dir()]
        except OSError:  # an alternate that is gone: git reads nothing there either
            continue
        for prefix in sorted(fanout):
            folder = f"{objects}/{prefix}"
            with contextlib.suppress(OSError), os.scandir(folder) as entries:
                for entry in entries:
                    if len(entry.name) == 38 and set(entry.name) <= _HEX:
                        yield f"{folder}/{entry.name}", prefix + entry.name


class LooseVerdict:
    """The guard's verdict on the loose object files, found once and held for a gate run.

    One scan (:func:`loose_files`, each file held to its header) says whether a libgit2
    walk could meet a fault in a loose file: a damaged or unparsable one, a commit naming
    a loose non-commit as a parent, or more than :data:`LOOSE_MAX` files to hold. The gate
    makes one verdict a run (``check BASE..HEAD``, ``check --updates``) and passes it to
    each walk it guards (:func:`walk_range`; until upd97 the range check, its ancestry and
    KI227's first-adding walk each scanned again: later scans were stat calls of every
    file, 5.6 us each, gate96). The scan runs when first asked (a run that walks nothing
    scans nothing); a fault's whole-history read runs per tip asked to be guarded.

    Args:
        repo: the repository (its object directory and alternates).
    """

    def __init__(self, repo: pygit2.Repository) -> None:
        self.repo = repo
        self._faulty: bool | None = None

    @property
    def faulty(self) -> bool:
        """Whether a walk must be guarded by reading the tips' histories whole (scans once)."""
        if self._faulty is None:
            self._faulty = _scan(self.repo)
        return self._faulty

    def guard(self, tips: Iterable[str | pygit2.Oid]) -> None:
        """Make sure no libgit2 walk from ``tips`` loops on a loose file (F3).

        Args:
            tips: the commits the walks start from or hide (HEAD and BASE).

        Raises:
            ObjectUnreadable, CommitUnparsable: as :func:`.blobs.read_loose_history` of a
                tip, when a loose file is at fault (or past :data:`LOOSE_MAX`) and a walk
                from that tip reaches it (that read runs once per tip and process).
            StoreStateError: as :func:`.blobs.read_loose_history` (a ``tree:0`` clone's
                trees).
        """
        if self.faulty:
            for tip in tips:
                read_loose_history(self.repo, tip)


def loose_commits_read(repo: pygit2.Repository, tips: Iterable[str | pygit2.Oid],
                       verdict: LooseVerdict | None = None) -> None:
    """Make sure no libgit2 walk from ``tips`` loops on a loose file (F3): O(loose files).

    Past :data:`LOOSE_MAX` loose files, the tips' whole histories are read instead
    (O(history), as before gate96).

    Every loose object file (:func:`loose_files`) is held to its header once per process
    while it is the same file (inode, size, modification time); a commit is read whole
    (:func:`.blobs.loose_object`: cut short, not inflating, another object's bytes) and
    parsed (:func:`.blobs.unparsable`). A walk reads a commit's parents whole: one naming
    a loose object that is no commit is a fault too.

    Args:
        repo: the repository.
        tips: the commits the walks start from or hide (HEAD and BASE).
        verdict: the gate run's :class:`LooseVerdict` (scanned at most once for all its
            walks); None: a scan of its own.

    Raises:
        ObjectUnreadable, CommitUnparsable: as :func:`.blobs.read_loose_history` of a tip,
            when a loose file is at fault and a walk from that tip reaches it (that read
            runs only then: once per tip and process).
        StoreStateError: as :func:`.blobs.read_loose_history` (a ``tree:0`` clone's trees).
    """
    (LooseVerdict(repo) if verdict is None else verdict).guard(tips)


def _scan(repo: pygit2.Repository) -> bool:
    """Whether any loose file is at fault, or there are past :data:`LOOSE_MAX` (one scan).

    Raises nothing: a file whose header cannot be read is a fault.
    """
    listed = list(loose_files(repo))  # names only: ~1 us a file, no open
    if len(listed) > LOOSE_MAX:  # a store kistore wrote, never packed: the history's read
        return True
    kinds: dict[str, int] = {}
    parents: list[str] = []
    for file, oid in listed:
        try:
            held = _hold(repo, file, oid)
        except ObjectUnreadable:  # damaged, unparsable: the whole read names it, if ours
            return True
        if held is None:
            continue
        kinds[oid] = held[0]
        parents += held[1]
    return any(kinds.get(p, _TYPES[b"commit"]) != _TYPES[b"commit"] for p in parents)


def _hold(repo: pygit2.Repository, file: str, oid: str) -> tuple[int, tuple[str, ...]] | None:
    """(type, a commit's parents) of one loose file, read through the guard; None: gone.

    Raises:
        ObjectUnreadable: the file is damaged, or holds a commit libgit2 cannot parse.
    """
    try:
        status = os.stat(file)
    except OSError:  # gone since the listing (packed meanwhile): libgit2 reads the pack
        return None
    if not stat.S_ISREG(status.st_mode):
        raise ObjectUnreadable(oid, f"no regular file stands where its loose object file "
                                    f"should be ({file})")
    key = (status.st_ino, status.st_size, status.st_mtime_ns)
    known = _held.get(file)
    if known is not None and known[0] == key:
        return known[1], known[2]
    kind = object_type(repo, oid)  # its header only; a file with none is read whole
    split: tuple[str, ...] = ()
    if kind == _TYPES[b"commit"]:
        read = loose_object(repo, oid)
        if read is None:
            return None
        parsed = header(read[1])
        refused = unparsable(oid, parsed)
        if refused is not None:
            raise refused
        split = tuple(parsed.parents)
    if kind is None:
        return None
    if len(_held) >= _HELD_MAX:
        _held.clear()
    _held[file] = (key, kind, split)
    return kind, split


@contextlib.contextmanager
def damage_named(repo: pygit2.Repository, *tips: str | pygit2.Oid) -> Iterator[None]:
    """Name the damage a libgit2 walk from ``tips`` fails on, as the whole read names it.

    A walk meets a damaged packed commit, a missing parent or a commit it cannot parse
    with a ``GitError`` (or pygit2's ``KeyError``, ``ValueError``) that names no object;
    :func:`.blobs.read_loose_history` of each tip, run then (not before: it costs the
    history), raises the error naming it. When it finds nothing, the walk's own error is
    raised.
    """
    try:
        yield
    except (_pygit2.GitError, KeyError, ValueError):
        for tip in tips:
            read_loose_history(repo, tip)
        raise


def read_range_trees(repo: pygit2.Repository, commits: Iterable[Any]) -> None:
    """Read the root trees of ``commits`` and of their parents by id, before libgit2 reads them.

    The gate reads each of these trees (the range's files, KI401's parent comparison,
    BASE's); a damaged packed one is named here by its id, not met in ``commit.tree`` (a
    ``GitError`` naming no object), and in a ``tree:0`` clone they are fetched in one
    ``git fetch`` (:func:`.blobs.fetch_trees`). A parent this clone lacks (a shallow
    clone's edge) is left out: who reads it says so.

    Raises:
        ObjectUnreadable: a parent commit or a tree is damaged (named by its id).
        CommitUnparsable: a parent commit libgit2 cannot parse.
        StoreStateError: a ``tree:0`` clone's trees could not be fetched.
    """
    trees: set[str] = set()
    seen: set[str] = set()
    for commit in commits:
        trees.add(str(commit.tree_id))
        for parent in commit.parent_ids:
            if str(parent) in seen:
                continue
            seen.add(str(parent))
            found = object_by_id(repo, str(parent))  # loose ones held already
            if isinstance(found, _pygit2.Commit):
                trees.add(str(found.tree_id))
    fetch_trees(repo, trees)
    for tree in sorted(trees):
        tree_read(repo, tree)


def walk_range(repo: pygit2.Repository, tip: str | pygit2.Oid, hide: str | pygit2.Oid,
               sort: Any, verdict: LooseVerdict | None = None) -> list[pygit2.Commit]:
    """Return libgit2's walk of the commits reachable from ``tip`` and not from ``hide``, guarded.

    As ``repo.walk(tip, sort)`` with ``hide`` hidden yields them, after
    :func:`loose_commits_read`, a failure named by :func:`damage_named`, then their root
    trees and their parents' read by :func:`read_range_trees`.

    Args:
        repo: the repository.
        tip: the walk's start (HEAD).
        hide: the commit whose history is left out (BASE).
        sort: a ``pygit2.enums.SortMode``.
        verdict: the gate run's :class:`LooseVerdict`; None: a scan of its own.

    Raises:
        ObjectUnreadable, CommitUnparsable: damage a walk from ``tip`` or ``hide`` meets.
        StoreStateError: a ``tree:0`` clone's trees could not be fetched.
    """
    loose_commits_read(repo, (tip, hide), verdict)
    commits = line_to(repo, tip, hide)
    if commits is None:
        with damage_named(repo, tip, hide):
            walker = repo.walk(tip, sort)
            walker.hide(hide)
            commits = list(walker)
    read_range_trees(repo, commits)
    return commits


LINE_MOST = 1_000
"""Most commits :func:`line_to` follows before it leaves the range to libgit2's walk."""


def line_to(repo: pygit2.Repository, tip: str | pygit2.Oid, base: str | pygit2.Oid
            ) -> list[pygit2.Commit] | None:
    """Return the commits of ``base..tip`` when they are one line of one-parent commits, or None.

    libgit2's walk with ``base`` hidden, and its ``descendant_of``, stop by commit dates
    (git's "everybody uninteresting", with slop): in a history whose commits share one date
    (``git fast-import`` with a fixed date, ``SOURCE_DATE_EPOCH``, the bench's) they read
    all of it, ~5 us a commit in C (50 ms at 10,001 commits, 2026-12-05, gate96). A pull
    request of one line of commits on ``base``, the usual case, is answered here by
    following parent lines: those commits are exactly the range (each has ``base`` as an
    ancestor, so none is ``base``'s), newest first, as libgit2's walks yield a line.
    Call it after :func:`loose_commits_read` (the commits are read through libgit2).

    Args:
        repo: the repository.
        tip: the range's newest commit (HEAD).
        base: the commit the line must reach (BASE).

    Returns:
        The commits from ``tip`` down to ``base``'s child (empty when they are one); None
        when a merge, a root, a commit this clone lacks or more than :data:`LINE_MOST`
        commits come first: then libgit2's walk answers (and says what it meets).

    Raises:
        ObjectUnreadable, CommitUnparsable: a commit of the line is damaged.
    """
    line: list[pygit2.Commit] = []
    commit = object_by_id(repo, str(tip))
    while isinstance(commit, _pygit2.Commit) and str(commit.id) != str(base):
        if len(commit.parent_ids) != 1 or len(line) >= LINE_MOST:
            return None
        line.append(commit)
        commit = object_by_id(repo, str(commit.parent_ids[0]))
    return line if isinstance(commit, _pygit2.Commit) else None
