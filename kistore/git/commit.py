"""Committing written files onto the checked-out branch: the ``--commit`` path (docs/design.md §3).

A commit is built whole before anything a user sees changes: blobs (packfiles from
:data:`PACK_THRESHOLD` files on), trees on top of the branch tip, the commit object. Then,
in one block that SIGINT and SIGTERM wait for, the paths are staged in git's index (under
git's own ``index.lock``) and the branch is moved by compare-and-swap. A branch that another
writer moved meanwhile is refused, not built on (this add checked its names against a work
tree that holds none of that writer's manifests); a ref lock held by another git command
is waited for. If the branch never moves, the staged entries are taken back. Each packfile
of new blobs carries a ``.keep`` file until the branch reaches it, and every object is
checked to exist just before the move, so a ``git repack -a -d`` or ``git gc
--prune=now`` run meanwhile cannot leave the branch on missing objects.

The new index is written (to git's lock file, ``.git/index.lock``) *before* the move and
renamed onto ``.git/index`` after it, as ``git commit`` does. A process killed with SIGKILL
leaves that lock file, as a killed git command does, and git and kistore refuse to change
the index until it is deleted:

* before the move: HEAD has not moved, the written files are untracked; delete the lock
  and run the add again (tests/test_commit_killed.py);
* between the move and the rename: HEAD holds the commit and the files, git's index is the
  old one (``kistore verify`` says the index is behind HEAD); delete the lock, then
  ``git reset -q``. The next ``add --commit`` also stages them again: the commit is
  recorded as pending before the move (:mod:`kistore.git._pending_index`).

A caller that writes the work-tree files first holds git's index lock over that too
(:meth:`BranchCommit.index_held`), as ``git checkout`` holds it while it writes files:
until staged, the new files are untracked, and a ``git add -A`` or ``git stash -u`` run
meanwhile would take them.

This module knows git (pygit2, the index) but not manifests: it is given paths and bytes.
"""

from __future__ import annotations

import bisect
import contextlib
import functools
import itertools
import logging
import os
import random
import re
import signal
import threading
import time
from collections.abc import Callable, Collection, Iterator, Mapping
from pathlib import Path
from typing import Any

from ..core import signals
from ..core.errors import StoreStateError, one_line
from . import _gitindex as gitindex
from . import _loose, pack, watchdog
from ._pending_index import PendingIndex, missing_from_index, stamp
from .idents import Identities, identities, signatures
from .lazy import pygit2  # imported on first use (~0.2 s)
from .locks import index_lock, lock_file
from .names import create_ref, reference
from .refs import common_git_dir
from .writer import FileStat

PACK_THRESHOLD = 64
"""From this many new blobs on, a commit writes packfiles instead of loose objects."""

CAS_ATTEMPTS = 50
"""How often a branch move lost to a concurrent writer is retried on the new tip."""

log = logging.getLogger(__name__)
"""Where a repaired index is said (a WARNING: without logging configured, Python prints it
on stderr)."""

INDEX_WAIT_S = 5.0
"""How long a held ``.git/index.lock`` is waited for (git holds it for milliseconds)."""

_UNFINISHED = (("MERGE_HEAD", "merge"), ("CHERRY_PICK_HEAD", "cherry-pick"),
               ("REVERT_HEAD", "revert"), ("rebase-merge", "rebase"),
               ("rebase-apply", "rebase or am"))


def check_ready(repo: pygit2.Repository) -> Identities:
    """Refuse a commit up front, before any file is written, when it could not finish.

    Args:
        repo: the repository (with a work tree).

    Returns:
        The commit's author and committer as git names them (for :class:`BranchCommit`'s
        ``known``: git is asked once).

    Raises:
        StoreStateError: HEAD is detached; a merge, cherry-pick, revert or rebase is
            unfinished (``git commit`` would finish it, a kistore commit would drop its
            state); ``.git/index.lock`` is held for longer than :data:`INDEX_WAIT_S`
            (a running git command, or one that crashed); the index is split or a sparse
            (libgit2 cannot write those). Each message says what to do.
        InputError, StoreStateError: git names no author or committer, or one libgit2
            cannot write; git could not be run (:func:`kistore.git.idents.identities`).
    """
    git_dir = Path(repo.path)
    branch_tip(repo)
    known = identities(repo)  # git refuses to name one: refused before any file
    for marker, operation in _UNFINISHED:
        if (git_dir / marker).exists():
            verb = operation.split()[0]
            raise StoreStateError(
                f"a git {operation} is in progress; finish it (`git commit`, or `git {verb} "
                f"--continue`) or abort it (`git {verb} --abort`), then run the add again",
                file=str(git_dir / marker))
    index_file = git_dir / "index"
    lock = index_lock(git_dir)
    deadline = time.monotonic() + INDEX_WAIT_S
    while lock.exists():
        if time.monotonic() >= deadline:
            raise _index_lock_held(lock, "nothing was written")
        time.sleep(0.05)
    # Split and sparse indexes leave a trace: a shared index file, a sparse-checkout file.
    # Only then is the whole index read here, to fail before any file is written.
    if (any(git_dir.glob("sharedindex.*")) or (git_dir / "info" / "sparse-checkout").exists()) \
            and index_file.exists():
        try:
            gitindex.open_index(index_file)
        except pygit2.GitError as e:
            raise _index_error(index_file, e, "nothing was written") from None
    return known


def branch_tip(repo: pygit2.Repository) -> tuple[str, pygit2.Commit | None]:
    """Return the checked-out branch's full name and its tip (None on an unborn branch).

    Raises:
        StoreStateError: HEAD is detached.
    """
    head = repo.references.get("HEAD")
    if head is None or head.type != pygit2.enums.ReferenceType.SYMBOLIC:
        raise StoreStateError("HEAD is detached; check out a branch before --commit")
    branch = str(head.target)
    ref = reference(repo, branch)  # an unborn branch not UTF-8: None (upd98)
    return branch, (repo[ref.target].peel(pygit2.Commit) if ref is not None else None)


class BranchCommit:
    """One commit of files onto the checked-out branch, with the git index kept in step.

    Args:
        repo: the repository.
        root: its work tree (the index is staged there), or None for a bare repository.
        on_landed: called with the commit once the branch holds it, while the interrupts
            held over the move are still held (:func:`interrupts_deferred`): a signal
            handler it installs is the one they are delivered to. For a command line that
            must not be stopped by a Ctrl-C once there is nothing left to undo.
        known: the author and committer :func:`check_ready` returned; None: :meth:`run`
            asks git (:func:`kistore.git.idents.identities`).

    Attributes:
        landed: True once the branch holds the commit. Set before any interrupt held
            during the move is delivered, so a caller that catches the interrupt knows
            whether the work-tree files now belong to a commit (keep them) or not (undo).
        oid: the commit the branch holds after :meth:`run` (None before it lands).
        blobs: path -> git blob id of each file :meth:`run` committed (empty before it
            ran): the ids it hashed, for a caller that records them (the index's file
            check) without hashing the bytes again.
        restaged: the paths an earlier commit, killed after its branch moved, had left
            out of git's index, staged again by :meth:`run` or :meth:`repair_index`
            (:mod:`kistore.git._pending_index`); also said on the ``kistore.git.commit`` logger.
    """

    def __init__(self, repo: pygit2.Repository, root: str | Path | None,
                 on_landed: Callable[[pygit2.Oid], None] | None = None,
                 known: Identities | None = None) -> None:
        self.repo = repo
        self.root = root
        self.on_landed = on_landed
        self.known = known
        self.landed = False
        self.oid: pygit2.Oid | None = None
        self.blobs: dict[str, pygit2.Oid] = {}
        self._held: gitindex.IndexUpdate | None = None
        self._branch: str | None = None  # the branch checked out when the lock was taken
        self._tip: pygit2.Oid | None = None  # and its tip then
        self.restaged: list[str] = []

    @contextlib.contextmanager
    def index_held(self, staging: Collection[str] = ()) -> Iterator[None]:
        """Hold git's ``.git/index.lock`` from now until :meth:`run` has landed or the block ends.

        For writing the work-tree files before :meth:`run`: no git command that changes
        the index (``git add``, ``git stash``, ``git commit``, ``git checkout``) runs
        meanwhile; each fails with "index.lock: File exists", as while any git command
        writes. :meth:`run` stages into this update and puts the index in place when the
        branch has moved; a block left before that gives the lock up with the index as it
        was. Reads the index on entering (about 4 s for 2,000,000 entries).

        The branch checked out now is the one :meth:`run` commits to: a ``git switch -c``
        that needs no index change succeeds meanwhile, and the commit is then refused
        instead of landing on the new branch.

        Also stages again what a commit killed after its branch move left out of the index
        (:mod:`kistore.git._pending_index`), and refuses an index that lacks store files HEAD
        holds, other than the ``staging`` paths :meth:`run` will stage: the add's name
        checks read the work tree, which lacks them too.

        Args:
            staging: the paths (``/``-separated, relative) the add is about to write and
                stage.

        Raises:
            StoreStateError: the lock stayed held for :data:`INDEX_WAIT_S`, or the index
                cannot be read, or it is behind HEAD; HEAD is detached; nothing was written.
        """
        self._branch, tip = branch_tip(self.repo)
        self._tip = tip.id if tip is not None else None
        if self.root is None:  # a bare repository has no index
            yield
            return
        index_file = Path(self.repo.path) / "index"
        with _IndexErrorsExplained(index_file) as update:
            self._restage(PendingIndex(self.repo.path), update.index)
            missing = [path for path in missing_from_index(self.repo, update.index,
                                                           index_file, tip)
                       if path not in staging]  # what this add stages is in step after it
            if missing:
                raise _index_behind(index_file, missing)
            self._held = update
            try:
                yield
            finally:
                self._held = None

    def run(self, files: Mapping[str, bytes], message: str, *,
            before_move: Callable[[], None] | None = None,
            stats: Mapping[str, FileStat] | None = None,
            ahead: pack.PackAhead | None = None, skip: Collection[str] = ()) -> pygit2.Oid:
        """Commit ``files`` on top of the checked-out branch; move it with compare-and-swap.

        Args:
            files: path (``/``-separated, relative to the work tree) -> exact bytes.
            message: the commit message.
            before_move: called once, after the first commit object is written and before
                anything is staged or moved; an exception from it stops the commit with
                the branch and index untouched (the objects written are unreachable, and
                ``git gc`` drops them).
            stats: path -> stat data of the work-tree file written with those bytes (filled
                by the time ``before_move`` returns), staged without reading the file again
                (:mod:`kistore.git._gitindex`).
            ahead: ids and pack entries of (some of) the files' bytes, made in a child
                process meanwhile (:class:`kistore.git.pack.PackAhead`, started by the
                caller): a packed commit takes them instead of hashing and compressing
                those blobs again. The caller stops it (``close``) when this returns.
            skip: paths of ``files`` outside a sparse checkout that have no work-tree file:
                staged with git's skip-worktree bit (:func:`kistore.git._gitindex.stage`),
                so ``git status`` stays clean and the checkout sparse.

        Returns:
            The commit the branch now holds. When HEAD's tree already has every file (a
            re-run), that is HEAD itself: no empty commit is made.

        Raises:
            StoreStateError: HEAD is detached, or was switched to another branch during
                the commit; the branch moved to another commit or was deleted since
                :meth:`index_held` (or since this call began); its lock file stayed held
                for :data:`CAS_ATTEMPTS` attempts; the git objects could not be written,
                or were pruned before the move; the index could not be updated. Nothing was
                committed and the index is as it was.
        """
        repo = self.repo
        keeps: list[Path] = []
        try:
            branch, parent = branch_tip(repo)
            if self._branch is not None and branch != self._branch:
                raise _switched(self._branch, branch)
            if self._branch is not None and (parent.id if parent else None) != self._tip:
                raise _tip_moved(branch, self._tip, parent)
            try:
                author, signature = signatures(repo, self.known)  # as git names them
                if len(files) >= PACK_THRESHOLD:  # the blobs in packs: a few files, not one each
                    blobs, keeps, oid, tree, written = self._commit_packed(
                        parent, files, (author, signature), message,
                        ahead.result() if ahead is not None else {})
                else:
                    blobs = {path: _loose.written(functools.partial(repo.create_blob, data))
                             for path, data in files.items()}
                    written = list(blobs.values())
                    oid, tree = self._commit_on(parent, blobs, (author, signature), message,
                                                written)
            except (OSError, pygit2.GitError) as e:
                raise _objects_error(e) from e
            self.blobs = blobs
            if before_move is not None:
                before_move()
            return self._stage_and_land(blobs, branch, parent, oid, tree, written, message,
                                        stats, keeps, skip)
        finally:
            for keep in keeps:  # the branch holds the objects now, or they are given up
                keep.unlink(missing_ok=True)

    def _stage_and_land(self, blobs: dict[str, pygit2.Oid], branch: str,
                        parent: pygit2.Commit | None, oid: pygit2.Oid, tree: pygit2.Oid,
                        written: list[pygit2.Oid], message: str,
                        stats: Mapping[str, FileStat] | None, keeps: list[Path],
                        skip: Collection[str] = ()) -> pygit2.Oid:
        """Stage the files, move the branch and put the index in place: :meth:`run`'s end."""
        repo = self.repo
        # Staging, the move and the bookkeeping are one step for interrupts (Ctrl-C and
        # SIGTERM arrive after it: the caller must know which side of the move it stopped
        # on) and for git: the index lock is held from staging until the index is in place
        # after the move, as `git commit` holds it, so no git command commits, resets or
        # stashes the staged entries meanwhile. The branch moves only after the new index
        # is written to the lock file; a failure before the move leaves the index as it was.
        with interrupts_deferred(), self._index_update() as update:
            pending = None
            if update is not None and self.root is not None:
                pending = PendingIndex(repo.path)
                if self._held is None:  # else restaged when the lock was taken
                    self._restage(pending, update.index)
                trees = None  # an index with no extended flags may take the new tree whole
                if update.version == gitindex.INDEX_VERSION_PLAIN and parent is not None:
                    trees = (parent.tree, repo[tree].peel(pygit2.Tree))
                gitindex.stage(update.index, blobs, stats or {}, self.root, trees=trees,
                               skip=skip)
                update.write()
            try:
                return self._land(branch, parent, oid, tree, written, message, update,
                                  pending, keeps)
            except BaseException:
                if pending is not None and not self.landed:
                    with contextlib.suppress(OSError):  # a stale record is skipped anyway
                        pending.take_back()
                raise

    def _land(self, branch: str, parent: pygit2.Commit | None, oid: pygit2.Oid,
              tree: pygit2.Oid, written: list[pygit2.Oid], message: str,
              update: gitindex.IndexUpdate | None, pending: PendingIndex | None,
              keeps: list[Path]) -> pygit2.Oid:
        """Move the branch (retrying while its lock is busy), then put the index in place.

        ``keeps`` are the ``.keep`` files of the commit's packs, recorded with it as
        pending: a SIGKILL after the move skips :meth:`run`'s ``finally`` that deletes them,
        and the next ``add --commit`` deletes them instead (r70 F15).

        A branch that moved to another commit meanwhile is not built on again: the names
        this add checked were checked against the work tree, which holds none of that
        commit's manifests (breaker9: two worktrees of one branch, `git update-ref`).
        """
        repo = self.repo
        for attempt in range(CAS_ATTEMPTS):
            if attempt:
                _stop_if_interrupted()
                time.sleep(random.uniform(0.001, 0.02) * attempt)
            self._check_head(branch)
            now = _tip_id(repo, branch)
            if now != (parent.id if parent is not None else None):
                raise _tip_moved(branch, parent.id if parent is not None else None, now)
            if parent is not None and tree == parent.tree_id:
                oid = parent.id  # HEAD holds all of it (a re-run): no empty commit
            else:
                _check_objects(repo, [oid, tree, *written])
                if pending is not None:  # a SIGKILL after the move leaves it behind
                    _record(pending, oid, keeps)
                if not self._move(branch, parent, oid, message):
                    continue  # its lock is held (another git command): again shortly
                if not all(repo.odb.exists(o) for o in (oid, tree)):
                    # A `git gc --prune=now` that walked the refs before the move pruned the
                    # commit after the check above (break97 H3: the branch named a missing
                    # commit, "bad object HEAD"): move the branch back, then refuse.
                    self._move_back(branch, parent, oid)
                    if pending is not None:
                        pending.clear()
                    _check_objects(repo, [oid, tree], moved_back=branch)
            self.landed, self.oid = True, oid
            if self.on_landed is not None:
                self.on_landed(oid)
            if update is not None:
                update.finish()  # in place before an interrupt held here is delivered
                stamp(repo.path, str(oid), update.index_file)
            if pending is not None:
                pending.clear()
            return oid
        raise self._lost_race(branch)

    def repair_index(self) -> list[str]:
        """Stage again the files a commit killed after its branch move left out of the index.

        For an add with nothing to commit (a re-run after such a kill): :meth:`run` does
        the same before it stages its own files. See :mod:`kistore.git._pending_index`.

        Returns:
            The paths staged again (also in :attr:`restaged`); empty in a bare repository
            and when no commit was cut off (then the index is not even read).

        Raises:
            StoreStateError: git's index lock stayed held, or the index could not be read
                or written; the index is then as it was.
        """
        pending = PendingIndex(self.repo.path)
        if self.root is None or not pending.exists():
            return []
        with interrupts_deferred(), self._index_update() as update:
            assert update is not None
            self._restage(pending, update.index)
            update.finish()
        pending.clear()
        if not self.repo.head_is_unborn:
            stamp(self.repo.path, str(self.repo.head.target), update.index_file)
        return self.restaged

    def _restage(self, pending: PendingIndex, index: pygit2.Index) -> None:
        """Stage the files of commits cut off before their index landed; say so."""
        assert self.root is not None
        self.restaged = pending.restage(self.repo, index, self.root,
                                        objects_dir(self.repo) / "pack")
        if self.restaged:
            log.warning(
                "note: git's index lacked %d store file(s) of commit(s) %s (an earlier "
                "`add --commit` was stopped after its commit, before it updated the index); "
                "they are staged again", len(self.restaged),
                ", ".join(c[:12] for c in pending.carried))

    def _commit_on(self, parent: pygit2.Commit | None, blobs: dict[str, pygit2.Oid],
                   who: tuple[pygit2.Signature, pygit2.Signature], message: str,
                   written: list[pygit2.Oid]) -> tuple[pygit2.Oid, pygit2.Oid]:
        """Write the tree of ``parent`` with ``blobs`` inserted, and a commit of it.

        ``who``: the commit's author and committer. Every tree written is appended to
        ``written``.

        Returns:
            The commit's id and the tree's id.
        """
        base = parent.tree if parent is not None else None
        tree = _build_tree(self.repo, base, _nest(blobs), written)
        parents = [parent.id] if parent is not None else []
        return _loose.commit(self.repo, who[1], message, tree, parents, author=who[0]), tree

    def _commit_packed(self, parent: pygit2.Commit | None, files: Mapping[str, bytes],
                       who: tuple[pygit2.Signature, pygit2.Signature], message: str,
                       ahead: Mapping[bytes, tuple[bytes, bytes]]
                       ) -> tuple[dict[str, pygit2.Oid], list[Path], pygit2.Oid, pygit2.Oid,
                                  list[pygit2.Oid]]:
        """Write ``files``' blobs and the trees holding them as packs, then the commit.

        The trees are made here from raw entries (:func:`_raw_tree`), not by libgit2's
        tree builder, which took each of a bulk add's 60,000 entries through Python. They
        go into the packs with the blobs, dealt so that ``git gc`` still tries the deltas
        it tried when they were loose objects (:func:`kistore.git.pack.write_kept_objects`):
        one loose file a tree cost ~16,500 file writes at 100,000 manifests, on the
        parent's serial path (docs/speed.md, bulk98). The commit is still written loose.

        ``ahead`` maps blob contents to the ``(id, pack entry)`` made of them already
        (:class:`kistore.git.pack.PackAhead`); the other blobs are hashed and compressed here.
        ``who``: the commit's author and committer.

        Returns:
            Path -> blob id, the packs' ``.keep`` files (the caller deletes them once the
            branch reaches the objects, or gives them up: until then ``git repack -a -d``
            leaves the packs alone, as git keeps an incoming push's pack; breaker9), the
            commit, its tree, and the trees written.
        """
        raw: dict[str, bytes] = {}
        entries: dict[bytes, bytes] = {}  # blob id -> pack entry, from `ahead`
        blob_id, ready = pack.blob_id, ahead.get
        for path, data in files.items():
            hit = ready(data)
            if hit is None:
                raw[path] = blob_id(data)
            else:
                raw[path] = hit[0]
                entries[hit[0]] = hit[1]
        trees: list[tuple[bytes, bytes, str]] = []
        base = parent.tree_id.raw if parent is not None else None
        tree = _raw_tree(self.repo.odb, base, _nest(raw), trees)
        keeps = pack.write_kept_objects(
            objects_dir(self.repo) / "pack",
            zip(raw.values(), itertools.repeat(pack.BLOB), files.values()),
            f"kistore add --commit (pid {os.getpid()})", entries=entries, trees=trees)
        try:
            written = [pygit2.Oid(raw=oid) for oid, _, _ in trees]
            tree_id = pygit2.Oid(raw=tree)
            parents = [parent.id] if parent is not None else []
            commit = _loose.commit(self.repo, who[1], message, tree_id, parents, author=who[0])
        except BaseException:
            for keep in keeps:
                keep.unlink(missing_ok=True)
            raise
        return ({p: pygit2.Oid(raw=oid) for p, oid in raw.items()}, keeps, commit, tree_id,
                written)

    def _index_update(self) -> contextlib.AbstractContextManager[gitindex.IndexUpdate | None]:
        """Return the index update under git's lock (None in a bare repository: no index).

        Raises:
            StoreStateError: as :meth:`run` says, when the index cannot be read or written.
        """
        if self.root is None:
            return contextlib.nullcontext()
        if self._held is not None:  # taken by index_held(): that block gives it up
            return contextlib.nullcontext(self._held)
        return _IndexErrorsExplained(Path(self.repo.path) / "index")

    def _check_head(self, branch: str) -> None:
        """Refuse to move ``branch`` when HEAD names another one now (a checkout meanwhile)."""
        head = self.repo.references.get("HEAD")
        now = str(head.target) if head is not None else None
        if now != branch:
            raise _switched(branch, now)

    def _move(self, branch: str, parent: pygit2.Commit | None, oid: pygit2.Oid,
              message: str) -> bool:
        """Move ``branch`` from ``parent`` to ``oid`` (compare-and-swap); False: it moved."""
        try:
            if parent is None:
                return create_ref(self.repo, branch, oid, "commit (initial): "
                                  f"{message.splitlines()[0]}")
            ref = self.repo.references[branch]
            if ref.target != parent.id:
                return False
            ref.set_target(oid, f"commit: {message.splitlines()[0]}")
            return True
        except (pygit2.GitError, pygit2.AlreadyExistsError, ValueError, OSError):
            return False  # another writer moved the branch or holds its lock: retry on its tip

    def _move_back(self, branch: str, parent: pygit2.Commit | None, oid: pygit2.Oid) -> None:
        """Move ``branch`` from ``oid`` back to ``parent`` (None: delete it), if it holds ``oid``.

        Raises nothing: a branch another writer moved meanwhile is left as it is (the
        refusal names the commit to restore).
        """
        with contextlib.suppress(pygit2.GitError, KeyError, ValueError, OSError):
            ref = self.repo.references[branch]
            if ref.target != oid:
                return
            if parent is None:
                ref.delete()
            else:
                ref.set_target(parent.id, "kistore: an add whose objects git pruned, undone")

    def _lost_race(self, branch: str) -> StoreStateError:
        """Return the error after too many lost swaps: a lock file left, or a busy branch."""
        git_dir = Path(self.repo.path)
        for lock in (lock_file(git_dir / branch), lock_file(git_dir / "packed-refs")):
            if lock.exists():
                return StoreStateError(
                    f"this lock file exists: another git command is updating {branch}, or one "
                    "crashed and left it. Wait for it, or delete the file if no git command is "
                    "running, then run the add again; nothing was committed", file=str(lock))
        return StoreStateError(
            f"the branch kept moving under concurrent writers ({CAS_ATTEMPTS} attempts); "
            "nothing was committed: run the command again")


class _IndexErrorsExplained(gitindex.IndexUpdate):
    """:class:`kistore.git._gitindex.IndexUpdate` whose failures say what to do.

    Its errors are :class:`kistore.core.errors.StoreStateError`.
    """

    def __init__(self, index_file: Path) -> None:
        super().__init__(index_file, INDEX_WAIT_S)

    def __enter__(self) -> gitindex.IndexUpdate:
        try:
            return super().__enter__()
        except (OSError, pygit2.GitError) as e:
            raise _index_error(self.index_file, e, "nothing was committed") from e

    def write(self) -> None:
        try:
            super().write()
        except (OSError, pygit2.GitError) as e:
            raise _index_error(self.index_file, e, "nothing was committed") from e

    def finish(self) -> None:
        try:
            super().finish()
        except (OSError, pygit2.GitError) as e:
            raise _index_error(self.index_file, e, "the branch moved but the index was not "
                               "updated: run `git reset -q` to bring it in step") from e


def _record(pending: PendingIndex, oid: pygit2.Oid, keeps: list[Path]) -> None:
    """Record ``oid`` as pending (before the move); a failure stops the commit, said plainly."""
    try:
        pending.record(str(oid), [keep.name for keep in keeps])
    except OSError as e:
        raise StoreStateError(f"could not write {pending.path.name} ({e.strerror or e}); "
                              "nothing was committed", file=str(pending.path)) from e


def _index_behind(index_file: Path, missing: list[str]) -> StoreStateError:
    """Return the refusal for an index that lacks store files HEAD holds."""
    return StoreStateError(
        f"git's index lacks {len(missing):,} store file(s) that HEAD holds, or holds other "
        f"bytes (e.g. {missing[0]}): it is behind HEAD, as after a commit from another "
        "worktree of this branch, a `git update-ref` or a deleted .git/index, or it holds a "
        "change staged against HEAD. Nothing was written. Run `git reset -q` (it keeps the "
        "work tree), `git status` and `git checkout -- store` to restore the files HEAD has, "
        "then the add again", file=str(index_file))


def _tip_id(repo: pygit2.Repository, branch: str) -> pygit2.Oid | None:
    """Return the commit ``branch`` points at now (None when it does not exist)."""
    ref = reference(repo, branch)
    return ref.peel(pygit2.Commit).id if ref is not None else None


def _tip_moved(branch: str, was: pygit2.Oid | None, now: Any) -> StoreStateError:
    """Return the error for a branch moved (or deleted) by someone else during the add."""
    now_id = now.id if isinstance(now, pygit2.Commit) else now
    where = (f"was deleted (it was at {str(was)[:12]})" if now_id is None else
             f"moved from {str(was)[:12] if was else 'nothing'} to {str(now_id)[:12]}")
    return StoreStateError(
        f"{branch} {where} during the add: a commit from another worktree of this branch, "
        "`git update-ref`, or a push into this repository? Nothing was committed: this work "
        "tree does not hold that commit's manifests, so their names were not checked. Run "
        "`git status`, bring the work tree in step with the branch, and run the add again")


def _check_objects(repo: pygit2.Repository, ids: list[pygit2.Oid],
                   moved_back: str | None = None) -> None:
    """Refuse to move the branch onto objects git no longer has (a prune meanwhile).

    Args:
        repo: the repository.
        ids: the objects the add wrote (its commit, root tree, ...).
        moved_back: the branch the add had moved and moved back (the objects were pruned
            after the move's check), named in the refusal; None: it never moved.

    Raises:
        StoreStateError: an object is missing: nothing was committed, run the add again.
    """
    odb = repo.odb
    for oid in ids:
        if not odb.exists(oid):
            back = "" if moved_back is None else (
                f" ({moved_back} had moved onto it and was moved back; `git gc --prune=now` "
                "is unsafe beside any writer, as git's documentation says)")
            raise StoreStateError(
                f"git no longer has object {oid} that this add wrote (a `git gc "
                f"--prune=now` or `git prune` ran meanwhile?){back}; nothing was committed: "
                "run the add again once it is done")


_ENTRY_GONE = re.compile(r"failed to insert entry: invalid object specified - (.+)")
"""libgit2's words when a tree is built with an entry whose object is not in the object
database: a blob the add had just written, pruned before its tree was made."""


def _objects_error(e: BaseException) -> StoreStateError:
    """Say that the git objects of the add could not be written or read.

    libgit2's "failed to insert entry: invalid object specified - NAME" is said for people
    (last97 3: it was printed raw): git no longer has the blob this add wrote for the file
    NAME when the tree holding it was built.
    """
    said = str(e) or type(e).__name__
    gone = _ENTRY_GONE.fullmatch(said)
    if gone is not None:
        return StoreStateError(
            f"the add's git objects could not be written: git no longer had the blob this "
            f"add had just written for the file '{one_line(gone.group(1))}' when it built "
            "the directory tree holding it (libgit2: invalid object specified): a `git gc "
            "--prune=now` or `git prune` deleted it meanwhile? Nothing was committed: run "
            "the add again when no such command runs (one `git gc` in a loop or cron job "
            "may prune again)")
    return StoreStateError(
        f"the add's git objects could not be written ({said}): a `git gc`, "
        "`git repack` or `git prune` running meanwhile, or a full disk? Nothing was "
        "committed: run the add again once it is done")


def _switched(branch: str, now: str | None) -> StoreStateError:
    """Return the error for HEAD switched to another branch during a commit."""
    return StoreStateError(
        f"HEAD was switched from {branch} to {now or 'a detached commit'} during the add "
        "(a `git checkout` or `git switch`?); nothing was committed. Check out the branch "
        "to add to and run the add again")


def _stop_if_interrupted() -> None:
    """Raise KeyboardInterrupt when SIGINT or SIGTERM waits (held by :func:`interrupts_deferred`).

    The branch has not moved yet: stopping now loses nothing, and Ctrl-C need not wait
    out every retry of a busy branch.
    """
    waiting = signal.sigpending() & {signal.SIGINT, signal.SIGTERM}
    # (blocked, an ignored one waits too: left ignored by the parent, it is no interrupt)
    if _CAUGHT or {number for number in waiting if not signals.ignored(number)}:
        _CAUGHT.clear()  # answered here: not delivered again when the block ends
        raise KeyboardInterrupt


def _index_lock_held(lock: Path, outcome: str) -> StoreStateError:
    """Say that git's index lock stayed held (:data:`INDEX_WAIT_S`), and what to do."""
    return StoreStateError(
        "this lock file exists: another git command is changing the index, or one crashed "
        "and left it. Wait for it, or, if no git command is running, delete the file "
        "and run `git reset -q` (a `git commit` or `kistore add --commit` killed after "
        "its branch moved leaves the index behind HEAD; this brings it in step and "
        f"keeps the work tree), then run `git status`; {outcome}", file=str(lock))


def _index_error(index_file: Path, e: BaseException, outcome: str) -> StoreStateError:
    """Say why the git index could not be updated, and what to do."""
    if isinstance(e, FileExistsError):
        return _index_lock_held(lock_file(index_file), outcome)
    if "'sdir'" in str(e):  # libgit2: "unsupported mandatory extension: 'sdir'"
        return StoreStateError(
            f"this sparse checkout keeps a sparse index (`--sparse-index`), which libgit2 "
            f"cannot read or write; {outcome}. Either run the same command without --commit "
            "and commit with git (`git add --sparse store && git commit`), or keep one index "
            "entry per file (`git sparse-checkout reapply --no-sparse-index`: the same "
            "checkout) and run it again", file=str(index_file))
    return StoreStateError(
        f"the git index could not be read or written ({e or type(e).__name__}); {outcome}. "
        "A split index is not supported: `git update-index --no-split-index`",
        file=str(index_file))


@contextlib.contextmanager
def interrupts_deferred() -> Iterator[None]:
    """Hold SIGINT and SIGTERM until the block is done; they are delivered on leaving it.

    SIGALRM too: the command line delivers again by it an interrupt that landed in a
    finaliser (``kistore.cli._terminated``), where Python ignores what a handler raises.

    An exception raised by a delivered signal then starts after the block's bookkeeping,
    never inside it (a ``finally`` that unblocks inside the function would let it replace
    the ``return``). A handler installed inside the block (``BranchCommit``'s
    ``on_landed``) stays, and is the one the held signals are delivered to. A signal the
    process was started ignoring stays ignored: neither noted nor delivered
    (:mod:`kistore.core.signals`; fresh03 H7).
    """
    # The watcher of a command stuck in C code kills nothing while a write is held here.
    with watchdog.deferring():
        blocked = {signal.SIGINT, signal.SIGTERM, signal.SIGALRM}
        old = signal.pthread_sigmask(signal.SIG_BLOCK, blocked)
        # The mask holds the signal for this thread only: sent to the process while another
        # thread runs (a process pool's manager thread), it is handled at once, and Python
        # raises it here. So the main thread also swaps in handlers that only note it (not
        # for one the parent left ignored: it stays ignored, kistore.core.signals).
        saved = {}
        if threading.current_thread() is threading.main_thread():
            saved = signals.take(blocked, _note)
        try:
            yield
        finally:
            for number, handler in saved.items():
                if signal.getsignal(number) is _note:  # else the block installed its own
                    signal.signal(number, handler)
            signal.pthread_sigmask(signal.SIG_SETMASK, old)
            if saved and _CAUGHT:
                caught = list(dict.fromkeys(_CAUGHT))
                _CAUGHT.clear()
                for late in caught:  # delivered now, after the block (to an outer block's _note)
                    signal.raise_signal(late)


_CAUGHT: list[int] = []
"""Signals :func:`interrupts_deferred` noted while its block ran, in order."""


def _note(number: int, frame: Any) -> None:
    """Signal handler inside :func:`interrupts_deferred`: remember the signal, raise nothing."""
    watchdog.answered()
    _CAUGHT.append(number)


def objects_dir(repo: pygit2.Repository) -> Path:
    """Return the repository's object directory (linked worktrees share it: ``commondir``)."""
    return common_git_dir(Path(repo.path)) / "objects"


def _nest(blobs: Mapping[str, Any]) -> dict[str, Any]:
    """Turn ``{"a/b/c": oid}`` into ``{"a": {"b": {"c": oid}}}``."""
    root: dict[str, Any] = {}
    for path, oid in blobs.items():
        *dirs, leaf = path.split("/")
        node = root
        for d in dirs:
            node = node.setdefault(d, {})
        node[leaf] = oid
    return root


def _build_tree(repo: pygit2.Repository, base: pygit2.Tree | None, entries: dict[str, Any],
                written: list[pygit2.Oid], prefix: str = "") -> pygit2.Oid:
    """Write the tree ``base`` with ``entries`` inserted (nested dicts are subtrees).

    Appends the id of every tree written to ``written``; ``prefix`` is the tree's path
    (``store/objects/``), for :func:`_replaces`.

    Raises:
        StoreStateError: ``base`` holds something at a path of ``entries`` that the
            insertion would replace by another type (:func:`_replaces`).
    """
    builder = repo.TreeBuilder(base) if base is not None else repo.TreeBuilder()
    for name, value in entries.items():
        old = base[name] if base is not None and name in base else None
        mode = None if old is None else b"%o" % old.filemode
        if isinstance(value, dict):
            _replaces(prefix + name, mode, subtree=True)
            sub = repo[old.id].peel(pygit2.Tree) if old is not None else None
            builder.insert(name, _build_tree(repo, sub, value, written, f"{prefix}{name}/"),
                           pygit2.GIT_FILEMODE_TREE)
        else:
            _replaces(prefix + name, mode, subtree=False)
            builder.insert(name, value, pygit2.GIT_FILEMODE_BLOB)
    tree = _loose.written(builder.write)
    written.append(tree)
    return tree


_FILE_MODES = (b"100644", b"100755")
"""The modes of a regular file in a git tree: what an add may write over."""


def _replaces(path: str, mode: bytes | None, *, subtree: bool) -> None:
    """Refuse to put a tree (``subtree``) or a file at ``path`` over another type.

    A tree builder replaces whatever entry has the name: a symbolic link committed at
    ``store/objects/sha256/b7`` would become a directory, so kistore's own commit would
    delete a committed path (KI402; new-user review 2026-12-02 F20).

    Args:
        path: the entry's path from the root of the tree.
        mode: the octal mode of the entry the base tree holds there, or None (none).
        subtree: a tree is put there (else a regular file).

    Raises:
        StoreStateError: the base holds a file where a tree goes, or a tree, link or
            submodule where a file goes.
    """
    if mode is None or (mode == _TREE_MODE if subtree else mode in _FILE_MODES):
        return
    found = {_TREE_MODE: "a directory", b"120000": "a symbolic link",
             b"160000": "a submodule"}.get(mode, "a file")
    raise StoreStateError(
        f"HEAD holds {found} at {path}, where this add puts "
        f"{'a directory' if subtree else 'a file'}: the commit would replace a committed path, "
        "so nothing was committed. `kistore verify --at HEAD` names it; remove it in its own "
        f"reviewed change (`git rm -r --cached {path}`), then run this again")


_TREE_ENTRY = re.compile(rb"([0-7]+) ([^\0]*)\0(.{20})", re.DOTALL)
"""One entry of a raw tree object: ``<octal mode> <name>\\0<20-byte id>`` (git's format)."""

_TREE_MODE = b"40000"
_BLOB_MODE = b"100644"


_BLOB_ENTRY_EXTRA = 28
"""Bytes of a raw tree entry besides its name, for every mode but a tree's (six octal
digits, a space, the NUL, the 20-byte id)."""


def _blobs_merged(data: bytes, entries: dict[str, Any], prefix: str) -> bytes:
    """Return the raw tree ``data`` (no subtree in it) with the blobs ``entries`` put in.

    :func:`_raw_tree` for a tree of files only (a shard: ``store/objects/sha256/38``), as
    a merge: the base's entries, already in git's order (by name, as no entry is a tree),
    are kept as bytes, and each new entry is put in at its place (found by bisection) or
    over the entry of its name. Its cost follows the entries added and the base's bytes
    copied once, where parsing, sorting and formatting every entry again made each added
    file cost the shard's size in Python (issue 22: 4.8 s of CPU for the 2,977 trees of
    2,000 runs added to 200,000 manifests).

    Args:
        data: the base tree's raw object body (``b""``: none); its entries' modes are all
            six digits (no ``40000``: the caller checks).
        entries: name -> raw blob id (20 bytes), put in with mode 100644.
        prefix: the tree's path, for :func:`_replaces`.

    Returns:
        The new tree's raw body.

    Raises:
        StoreStateError: a name of ``entries`` is a symbolic link or submodule in the base
            (:func:`_replaces`).
    """
    found = _TREE_ENTRY.findall(data)
    names = [name for _, name, _ in found]
    starts = list(itertools.accumulate(map(len, names), initial=0))  # + 28 an entry before

    def offset(i: int) -> int:
        return starts[i] + _BLOB_ENTRY_EXTRA * i

    pieces: list[bytes] = []
    at = 0
    for key, oid in sorted((name.encode(), oid) for name, oid in entries.items()):
        i = bisect.bisect_left(names, key)
        pieces.append(data[at:offset(i)])
        pieces.append(b"%s %s\0%s" % (_BLOB_MODE, key, oid))
        if i < len(names) and names[i] == key:
            _replaces(prefix + key.decode(), found[i][0], subtree=False)
            i += 1
        at = offset(i)
    pieces.append(data[at:])
    return b"".join(pieces)


def _raw_tree(odb: pygit2.Odb, base: bytes | None, entries: dict[str, Any],
              out: list[tuple[bytes, bytes, str]], prefix: str = "") -> bytes:
    """Make the tree ``base`` with ``entries`` put in, as raw git objects (not written).

    What :func:`_build_tree` writes through libgit2, made from bytes: ``base``'s entries
    (its raw object, parsed), each of ``entries`` put in over them -- a nested dict is a
    subtree, made the same way on the base's subtree of that name if it has one (any
    other entry of the name is refused: :func:`_replaces`), anything else a blob's 20-byte
    id, mode 100644
    -- sorted as git sorts a tree (by name, a subtree's name as if it ended in ``/``).

    Args:
        odb: the repository's object database (``base`` and its subtrees are read there).
        base: the raw id of the tree to start from, or None for an empty one.
        entries: name -> nested dict or raw blob id.
        out: each tree made is appended as ``(id, bytes, name)``, subtrees first; the name
            is the last component of the tree's path (``""`` for the root), which
            :func:`kistore.git.pack.write_kept_objects` deals the trees by.
        prefix: the tree's path (``store/objects/``), for :func:`_replaces`.

    Returns:
        The tree's id (20 raw bytes).

    Raises:
        KeyError, pygit2.GitError: ``base`` or a subtree is missing from ``odb``.
        StoreStateError: as :func:`_replaces`.
    """
    current: dict[bytes, tuple[bytes, bytes]] = {}  # name -> (mode, id)
    data = odb.read(base.hex())[1] if base is not None else b""
    if _TREE_MODE + b" " not in data and not any(isinstance(v, dict) for v in entries.values()):
        body = _blobs_merged(data, entries, prefix)  # a shard: no subtree in or out
        tree = pack.object_id(pack.TREE, body)
        out.append((tree, body, _tree_name(prefix)))
        return tree
    if base is not None:
        current = {name: (mode, oid) for mode, name, oid in _TREE_ENTRY.findall(data)}
    for name, value in entries.items():
        key = name.encode()
        old = current.get(key)
        _replaces(prefix + name, old[0] if old is not None else None,
                  subtree=isinstance(value, dict))
        if isinstance(value, dict):
            sub = old[1] if old is not None else None
            current[key] = (_TREE_MODE, _raw_tree(odb, sub, value, out, f"{prefix}{name}/"))
        else:
            current[key] = (_BLOB_MODE, value)
    body = b"".join(b"%s %s\0%s" % (mode, name, oid) for name, (mode, oid) in sorted(
        current.items(), key=lambda item: item[0] + b"/" if item[1][0] == _TREE_MODE
        else item[0]))
    tree = pack.object_id(pack.TREE, body)
    out.append((tree, body, _tree_name(prefix)))
    return tree


def _tree_name(prefix: str) -> str:
    """Return the name of the tree at ``prefix`` (``store/objects/`` -> ``objects``)."""
    return prefix.rstrip("/").rpartition("/")[2]
