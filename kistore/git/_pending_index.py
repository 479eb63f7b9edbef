"""An index left behind HEAD by a killed commit: recorded before the move, repaired after.

``add --commit`` writes the new index to git's ``index.lock``, moves the branch, then
renames the lock onto ``.git/index`` (:mod:`kistore.git.commit`). A process killed between the
move and the rename leaves HEAD holding the commit and the index without its files:
``git status`` shows them deleted and untracked, and a plain ``git commit`` would delete
them from the store. The lock file it leaves must be deleted by hand (git cannot tell a
crashed writer from a running one); the user is then told to run ``git reset -q``.

For a user who only deletes the lock and runs the add again, the commit records the
commits whose index is not yet in place in ``<git dir>/kistore-index-pending`` (one
commit id a line) before the move, and removes the file once the index is in place. The
next ``add --commit`` in that work tree finds the file and stages again each such
commit's store files that the index lacks (:meth:`PendingIndex.restage`): the cost of a
check is one failed ``open`` when no commit was killed, and one shard-level tree diff
(:func:`kistore.git.treediff.changed_files`) of the killed commit when one was.

This module knows git (pygit2 trees, the index); it is given the git directory.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import _gitindex as gitindex
from . import _loose, treediff
from .blobs import head_commit

if TYPE_CHECKING:  # pragma: no cover - typing only
    import pygit2

STAMP = "kistore-in-step"
"""The file, beside :data:`MARKER`, naming the commit and the index file (its stat data)
that the last ``add --commit`` left in step: while both still match, the index is known
to be in step with HEAD without reading it (:func:`missing_from_index`)."""

_KEEP = re.compile(r"pack-[0-9a-f]{40,64}\.keep")
"""A ``.keep`` file's name as :func:`kistore.git.pack.write_kept_objects` makes it."""

MARKER = "kistore-index-pending"
"""The file, in a work tree's own git directory (``.git/``, or ``.git/worktrees/NAME/`` of
a linked worktree: each has its own index), naming the commits whose index may be missing."""


class PendingIndex:
    """The commits of one work tree whose new index may not have been put in place.

    Args:
        git_dir: the work tree's own git directory (pygit2's ``Repository.path``).

    Attributes:
        carried: the commit ids (40 hex digits) read by :meth:`restage`, kept in the
            file by the next :meth:`record` until :meth:`clear`: the index they were
            restaged into is not in place either until then.
    """

    def __init__(self, git_dir: str | os.PathLike[str]) -> None:
        self.path = Path(git_dir) / MARKER
        self.carried: list[str] = []

    def exists(self) -> bool:
        """Return True when a commit was recorded and not cleared (a commit was cut off)."""
        return self.path.exists()

    def record(self, commit_id: str, keeps: list[str] | None = None) -> None:
        """Record, before the branch moves to ``commit_id``, that its index is not in place.

        Args:
            commit_id: the commit the branch is about to hold (40 hex digits).
            keeps: the names of its packs' ``.keep`` files (``pack-HEX.keep``), on the
                commit's line after its id: :meth:`restage` deletes them once HEAD holds
                the commit (a SIGKILL after the move left them, and with them ``git gc``
                would never repack those packs).

        Raises:
            OSError: the file could not be written (the caller stops before the move).
        """
        line = " ".join([commit_id, *(keeps or [])])
        self._write([*self.carried, line] if commit_id not in self.carried
                    else self.carried)

    def _write(self, lines: list[str]) -> None:
        scratch = self.path.with_name(MARKER + ".new")
        scratch.write_text("".join(f"{line}\n" for line in lines), encoding="ascii")
        os.replace(scratch, self.path)  # never a half-written list

    def take_back(self) -> None:
        """Undo :meth:`record` for a commit that did not land: keep only :attr:`carried`."""
        if self.carried:
            self._write(self.carried)
        else:
            self.path.unlink(missing_ok=True)

    def clear(self) -> None:
        """Forget every recorded commit: the index that holds their files is in place."""
        self.path.unlink(missing_ok=True)
        self.carried = []

    def restage(self, repo: pygit2.Repository, index: Any, root: str | os.PathLike[str],
                pack_dir: Path | None = None) -> list[str]:
        """Stage again the store files of recorded commits that ``index`` lacks.

        The ``.keep`` files recorded with a commit HEAD contains are deleted from
        ``pack_dir``: the branch holds their packs' objects now.

        A recorded commit that HEAD does not contain (killed before its branch moved, or
        reset away since) is skipped: its files were never committed. A path is staged
        only when HEAD still holds the very blob the recorded commit added there and the
        index has no entry at that path (an entry there is the user's or already in step).

        Args:
            repo: the pygit2 Repository.
            index: the pygit2 Index, read under git's lock (changed in memory only).
            root: the work tree, where each path's stat data is read
                (:func:`kistore.git._gitindex.stage`).
            pack_dir: the repository's ``objects/pack`` (None: no ``.keep`` is deleted).

        Returns:
            The paths staged again (``/``-separated, relative to the work tree), sorted;
            empty when there was nothing recorded or nothing missing.
        """
        try:
            text = self.path.read_text(encoding="ascii")
        except (OSError, UnicodeDecodeError):
            return []
        records = [line.split() for line in text.splitlines()]
        keeps = {fields[0]: fields[1:] for fields in records if fields and len(fields[0]) == 40}
        self.carried = list(keeps)
        head = _head(repo)
        if head is None:
            return []
        missing: dict[str, Any] = {}
        for commit_id in self.carried:
            commit = _commit(repo, commit_id)
            if commit is None or not (commit.id == head.id
                                      or repo.descendant_of(head.id, commit.id)):
                continue
            for name in keeps[commit_id]:
                if pack_dir is not None and _KEEP.fullmatch(name):  # a name, never a path
                    (pack_dir / name).unlink(missing_ok=True)
            parent_tree = commit.parents[0].tree if commit.parents else None
            for path, (_, added) in treediff.changed_files(repo, parent_tree,
                                                           commit.tree).items():
                if added is None or path in index or path in missing:
                    continue
                try:
                    held = head.tree[path].id
                except KeyError:
                    continue
                if str(held) == added[0]:
                    missing[path] = held
        gitindex.stage(index, missing, {}, root, skip=_outside_checkout(repo, root, missing))
        return sorted(missing)


def _outside_checkout(repo: pygit2.Repository, root: str | os.PathLike[str],
                      paths: Iterable[str]) -> frozenset[str]:
    """Return ``paths`` a sparse checkout leaves out and the work tree lacks (else empty).

    Staged again with the skip-worktree bit, as the killed ``add --commit`` staged them
    (:func:`kistore.git.sparse.git_only`): without it ``git status`` calls them deleted.
    """
    # Lazy: asked only when a killed commit is restaged (git runs in a sparse checkout).
    from .sparse import git_only, skip_worktree

    git_dir, work_tree = Path(repo.path), Path(root)
    if skip_worktree(git_dir, work_tree) is None:
        return frozenset()
    return git_only(git_dir, work_tree, paths)


def _head(repo: pygit2.Repository) -> Any | None:
    """Return HEAD's commit, or None on an unborn branch."""
    return head_commit(repo)  # guarded: libgit2 loops on a cut loose HEAD (r72-2)


def _commit(repo: pygit2.Repository, commit_id: str) -> Any | None:
    """Return the commit ``commit_id`` names, or None when git has no such commit."""
    try:
        obj = repo.get(commit_id)
    except (ValueError, KeyError):
        return None
    return obj if obj is not None and obj.type_str == "commit" else None


def stamp(git_dir: str | os.PathLike[str], commit_id: str, index_file: Path) -> None:
    """Record that ``index_file`` is in step with ``commit_id`` (after an add put it in place).

    Best effort: without the record the next add reads the index to know (slower only).
    """
    try:
        st = index_file.stat()
        scratch = Path(git_dir) / (STAMP + ".new")
        scratch.write_text(f"{commit_id} {st.st_mtime_ns} {st.st_size} {st.st_ino}\n",
                           encoding="ascii")
        os.replace(scratch, Path(git_dir) / STAMP)
    except OSError:
        pass


def missing_from_index(repo: pygit2.Repository, index: Any, index_file: Path,
                       head: Any | None) -> list[str]:
    """Return the store files HEAD holds that git's index lacks or holds otherwise.

    The index is then behind HEAD (or holds a change staged against it): a metadata file
    renamed by a commit from another worktree of the branch is still the old name in this
    work tree, so an add's name check would miss it (breaker10).

    After an add in another worktree of the same branch, a ``git update-ref``, or a
    deleted ``.git/index``, HEAD holds manifests the index (and the work tree) do not: an
    add would check its names against a work tree without them, and a plain ``git commit``
    would delete them. When :func:`stamp` says the index file and HEAD are as the last add
    left them, nothing is read; else the index is written as a tree (libgit2, about 0.2 s
    at 100,000 manifests) and compared with HEAD by :func:`kistore.git.treediff.changed_files`.

    Args:
        repo: the pygit2 Repository.
        index: the pygit2 Index, as read under git's lock.
        index_file: its file (``.git/index``), whose stat data the stamp holds.
        head: HEAD's pygit2 Commit, or None on an unborn branch.

    Returns:
        The paths, sorted; empty when the index holds every store file of HEAD as HEAD
        does (files only the index has are the user's staged additions), or when it
        cannot be told (an unborn branch; an index with conflicts, which has no tree).
    """
    if head is None:
        return []
    try:
        commit_id, mtime, size, ino = (Path(repo.path) / STAMP).read_text("ascii").split()
        st = index_file.stat()
        if (commit_id, int(mtime), int(size), int(ino)) == (
                str(head.id), st.st_mtime_ns, st.st_size, st.st_ino):
            return []
    except (OSError, ValueError, UnicodeDecodeError):
        pass
    try:
        tree = repo[_loose.written(lambda: index.write_tree(repo))]  # a gc beside: again
    except Exception:  # pygit2.GitError: unmerged entries (conflicts) make no tree
        return []
    return sorted(path for path, (was, now) in
                  treediff.changed_files(repo, head.tree, tree).items()
                  if was is not None)  # HEAD's file absent, or other bytes or mode, in the index
