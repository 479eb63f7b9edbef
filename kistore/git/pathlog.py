"""The versions of one file along a branch's first-parent history (git's path-limited log).

Rules that hold over the whole history of one file (a revocation in ``store/trust/keys.json``
is never undone) need every version that file ever had on the branch, not every tree of
every commit: ``git rev-list --first-parent REV -- PATH`` lists only the commits that
changed the path against their first parent, answered from git's commit-graph (with its
changed-path Bloom filters when ``git commit-graph write --changed-paths`` made them), so
the cost is one tree lookup per such commit, not one per commit of history.

This module knows git (the ``git`` binary, pygit2 objects), nothing of what the file means.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from typing import TYPE_CHECKING, cast

from ..core.errors import InputError
from .blobs import lookup, missing_target, read_loose_history
from .child import git_environment
from .lazy import pygit2 as _pygit2  # imported on first use
from .treediff import changed_leaves, entry_at, subtree, subtree_id

if TYPE_CHECKING:  # pragma: no cover - typing only
    import pygit2


def first_parent_versions(repo: pygit2.Repository, rev: str, path: str, *,
                          since: str | None = None) -> list[tuple[str, str | None]]:
    """Return each version of ``path`` along the first-parent history of ``rev``.

    Args:
        repo: the ``pygit2.Repository``.
        rev: a commit id (40 hex digits) or any revision git understands.
        path: a repository path (POSIX), e.g. ``store/trust/keys.json``.
        since: a commit id whose history is left out (``git rev-list REV ^SINCE``): the
            versions a side branch made before a merge brought it in, with the merge's
            first parent here. None: the whole history.

    Returns:
        ``(commit id, blob id or None)`` for each first-parent commit of ``rev`` (itself
        included) whose ``path`` differs from its first parent's, newest first; None where
        the commit deleted the file (or holds no regular file there). Empty when no commit
        ever held it.

    Raises:
        InputError: git could not list the history (``rev`` names no commit).
        ObjectUnreadable: a commit of the history (or a tree read) is damaged or missing.
    """
    done = subprocess.run(["git", "--git-dir", repo.path, "rev-list", "--first-parent", rev,
                           *([f"^{since}"] if since else []), "--", path],
                          capture_output=True, text=True, env=git_environment())
    if done.returncode != 0:
        _guarded(repo, rev, lambda commit: blob_at(repo, subtree(repo, commit.tree_id), path))
        raise InputError(f"git rev-list {rev} -- {path} failed: {done.stderr.strip()}")
    versions = []
    for commit_id in done.stdout.split():
        commit = cast("pygit2.Commit", lookup(repo, commit_id))  # guarded (a cut loose one)
        versions.append((commit_id, blob_at(repo, subtree(repo, commit.tree_id), path)))
    return versions


def _guarded(repo: pygit2.Repository, rev: str,
             read: Callable[[pygit2.Commit], object]) -> None:
    """Read, through the guard, what a path-limited ``git`` log of ``rev`` read when it failed.

    Each commit of the history first (:func:`~.blobs.read_loose_history`), then ``read(commit)``
    of each first-parent commit, newest first: the trees git read on the way to the path
    or directory. A commit or tree that is missing or damaged is then named (its id, and
    a tree's path, with KI117's ``git fsck`` advice) rather than git's "unable to read
    tree". Run only after the log failed: O(history) reads.

    Raises:
        ObjectUnreadable: a commit, or a tree ``read`` reads, is damaged or missing.
        CommitUnparsable: a commit of the history is one libgit2 cannot parse.
    """
    try:  # a name (`HEAD`) to its id: the guard reads objects by id
        tip = repo.revparse_single(rev).peel(_pygit2.Commit).id
    except (KeyError, ValueError, _pygit2.GitError):
        gone = missing_target(repo, rev)  # a branch pointing at a commit not here
        if gone is not None:
            raise gone from None
        return  # no commit: git's own words say it
    read_loose_history(repo, tip)  # a damaged or missing commit: said as it is
    commit: pygit2.Commit | None = cast("pygit2.Commit", lookup(repo, tip))
    while commit is not None:
        read(commit)
        parents = commit.parent_ids  # one not here: a shallow clone's edge (the history
        # read above raised for any other)
        commit = (cast("pygit2.Commit", lookup(repo, parents[0]))
                  if parents and parents[0] in repo else None)


def blob_at(repo: pygit2.Repository, tree: pygit2.Tree, path: str) -> str | None:
    """Return the blob id (40 hex digits) of the regular file at ``path`` in ``tree``, or None."""
    entry = entry_at(repo, tree, path)  # guarded: the trees on the way
    if entry is None:
        return None
    return str(entry.id) if entry.type_str == "blob" and f"{entry.filemode:o}" in _REGULAR \
        else None


_REGULAR = frozenset({"100644", "100755"})
"""The git modes of a regular file, as ``git log --raw`` spells them: a version of a file
(a symlink's blob, 120000, holds its target's path, not the file's bytes)."""


def _changed_below(repo: pygit2.Repository, commit: pygit2.Commit, directory: str) -> None:
    """Read, through the guard, the trees of ``directory`` ``commit`` changed from its parent.

    What ``git log --raw -- DIRECTORY`` reads of one commit: the directory's trees on both
    sides, down to the files that differ (:func:`~.treediff.changed_leaves`).
    """
    parents = commit.parent_ids
    before = (subtree(repo, cast("pygit2.Commit", lookup(repo, parents[0])).tree_id)
              if parents and parents[0] in repo else None)
    changed_leaves(repo, subtree_id(repo, before, directory),
                   subtree_id(repo, subtree(repo, commit.tree_id), directory), directory + "/")


def first_parent_changes(repo: pygit2.Repository, rev: str, directory: str
                         ) -> dict[str, list[tuple[str, str | None]]]:
    """Return every version of each file under ``directory`` along ``rev``'s first parents.

    One ``git log --first-parent --raw`` of the directory (one pass over the history, the
    commit-graph's Bloom filters answering where they exist): what
    :func:`first_parent_versions` gives of one path, for all of them at once. For a
    question asked of every file of a store (``kistore migrate``: was a committed
    manifest's name ever changed?), where a log per file would be one per manifest.

    Args:
        repo: the ``pygit2.Repository``.
        rev: a commit id (40 hex digits) or any revision git understands.
        directory: a repository directory (POSIX, no trailing slash): ``store/metadata``.

    Returns:
        path -> ``(commit id, blob id or None)`` for each first-parent commit whose file
        at that path differs from its first parent's, OLDEST first (as the file grew);
        None where the commit deleted it or holds no regular file there (a symlink, a
        submodule: as :func:`blob_at`, which :func:`first_parent_versions` reads through).
        Paths git would quote (not ASCII) are left out: no file of the layout has one.

    Raises:
        InputError: git could not list the history (``rev`` names no commit: its words).
        ObjectUnreadable: a commit of the history, or a tree of ``directory`` it read, is
            damaged or missing (KI117's words, as :func:`first_parent_versions` says it).
    """
    done = subprocess.run(
        ["git", "--git-dir", repo.path, "log", "--first-parent", "--diff-merges=first-parent",
         "--no-renames", "--raw", "--no-abbrev", "--format=%H", rev, "--", directory + "/"],
        capture_output=True, text=True, env=git_environment())
    if done.returncode != 0:
        _guarded(repo, rev, lambda commit: _changed_below(repo, commit, directory))
        raise InputError(f"git log {rev} -- {directory} failed: {done.stderr.strip()}")
    changes: list[tuple[str, str, str | None]] = []  # newest first, as git lists them
    commit = ""
    for line in done.stdout.splitlines():
        if not line.startswith(":"):
            commit = line.strip() or commit
            continue
        meta, _, path = line.partition("\t")
        if path.startswith('"'):
            continue  # quoted by git: no layout path
        fields = meta.split()  # :MODE MODE OLD NEW STATUS; a deletion's new mode: 000000
        changes.append((path, commit, fields[3] if fields[1] in _REGULAR else None))
    versions: dict[str, list[tuple[str, str | None]]] = {}
    for path, commit, blob in reversed(changes):
        versions.setdefault(path, []).append((commit, blob))
    return versions


def work_tree_changes(root: str, rev: str, directory: str) -> set[str]:
    """Return the paths under ``directory`` whose work-tree file is not ``rev``'s.

    One ``git diff --name-only REV -- DIR`` (git's index stat data, hashing only a file
    it cannot vouch for by it, as ``git status`` does): modified, deleted, and added to
    the index since ``rev``; a file git does not track is not listed. For a question of
    every file of a store (``kistore migrate``: was a committed manifest's name edited in
    the work tree?), where a comparison per file would read each file or blob.

    Args:
        root: the top of the work tree.
        rev: a commit id or revision git understands (``HEAD``).
        directory: a repository directory (POSIX, no trailing slash).

    Returns:
        The repository paths (POSIX). Raises InputError when git cannot tell (its words).
    """
    done = subprocess.run(
        ["git", "-C", root, "diff", "--name-only", "--no-renames", "--no-ext-diff",
         "--no-textconv", "-z", rev, "--", directory + "/"],
        capture_output=True, env=git_environment())
    if done.returncode != 0:
        raise InputError(f"git diff {rev} -- {directory} failed: "
                         f"{done.stderr.decode(errors='replace').strip()}")
    return {p.decode(errors="surrogateescape") for p in done.stdout.split(b"\0") if p}
