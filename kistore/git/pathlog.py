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
from typing import TYPE_CHECKING, cast

from ..core.errors import InputError
from .blobs import lookup, read_loose_history
from .child import git_environment
from .lazy import pygit2 as _pygit2  # imported on first use
from .treediff import entry_at, subtree

if TYPE_CHECKING:  # pragma: no cover - typing only
    import pygit2


def first_parent_versions(repo: pygit2.Repository, rev: str, path: str
                          ) -> list[tuple[str, str | None]]:
    """Return each version of ``path`` along the first-parent history of ``rev``.

    Args:
        repo: the ``pygit2.Repository``.
        rev: a commit id (40 hex digits) or any revision git understands.
        path: a repository path (POSIX), e.g. ``store/trust/keys.json``.

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
                           "--", path], capture_output=True, text=True,
                          env=git_environment())
    if done.returncode != 0:
        read_loose_history(repo, rev)  # a damaged or missing commit: said as it is
        _read_path_history(repo, rev, path)  # a damaged or missing tree: said as it is
        raise InputError(f"git rev-list {rev} -- {path} failed: {done.stderr.strip()}")
    versions = []
    for commit_id in done.stdout.split():
        commit = cast("pygit2.Commit", lookup(repo, commit_id))  # guarded (a cut loose one)
        versions.append((commit_id, blob_at(repo, subtree(repo, commit.tree_id), path)))
    return versions


def _read_path_history(repo: pygit2.Repository, rev: str, path: str) -> None:
    """Read, through the guard, the trees on the way to ``path`` of each first-parent commit.

    What ``git rev-list --first-parent REV -- PATH`` read when it failed: a tree of the way
    that is missing or damaged is then named (its path and id, KI117's ``git fsck`` advice)
    rather than git's "unable to read tree". Run only after the list failed.

    Raises:
        ObjectUnreadable: a commit, or a tree on the way to ``path``, is damaged or missing.
    """
    try:
        tip = repo.revparse_single(rev).peel(_pygit2.Commit).id
    except (KeyError, ValueError, _pygit2.GitError):
        return  # no commit: rev-list's own words say it
    commit: pygit2.Commit | None = cast("pygit2.Commit", lookup(repo, tip))
    while commit is not None:
        blob_at(repo, subtree(repo, commit.tree_id), path)
        parents = commit.parent_ids  # one not here: a shallow clone's edge (the history
        # read above raised for any other)
        commit = (cast("pygit2.Commit", lookup(repo, parents[0]))
                  if parents and parents[0] in repo else None)


def blob_at(repo: pygit2.Repository, tree: pygit2.Tree, path: str) -> str | None:
    """Return the blob id (40 hex digits) of the regular file at ``path`` in ``tree``, or None."""
    entry = entry_at(repo, tree, path)  # guarded: the trees on the way
    if entry is None:
        return None
    return str(entry.id) if entry.type_str == "blob" and entry.filemode in (
        0o100644, 0o100755) else None


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
        None where the commit deleted it. Paths git would quote (not ASCII) are left out:
        no file of the layout has one.

    Raises:
        InputError: git could not list the history (``rev`` names no commit, a damaged
            commit or tree: its words).
    """
    done = subprocess.run(
        ["git", "--git-dir", repo.path, "log", "--first-parent", "--diff-merges=first-parent",
         "--no-renames", "--raw", "--no-abbrev", "--format=%H", rev, "--", directory + "/"],
        capture_output=True, text=True, env=git_environment())
    if done.returncode != 0:
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
        fields = meta.split()  # :MODE MODE OLD NEW STATUS
        changes.append((path, commit, None if fields[4].startswith("D") else fields[3]))
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
