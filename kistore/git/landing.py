"""The commit that brought a file onto the first-parent line: a citation's publication date.

Definition (docs/citation.md, "The publication date"): a file with given bytes *landed* on
a start commit's first-parent line (the start, its first parent, that one's first parent,
... down to a root) at the **oldest** commit of that line whose tree holds the file with
exactly that blob. A citation's permalink still names the commit that first added the file
(:mod:`kistore.git.first_added`: citations never move); its published date is the landing
commit's committer date.

Why (reviews r81 F1, r82 F4): the first-adding commit is the contributor's, and so is its
date. A pull request could bring its new run in a parentless commit dated 2001, or in a
commit dated a day after an old main commit it forked from, and merge main in: the gate
(KI428 (c) bounds a commit only by its parents) said ok and the citation said 2001 or 2025.
The commit that put the file on main's first-parent line is the forge's (the merge,
squash or rebase commit GitHub writes, dated by GitHub), and the pre-receive hook refuses
an update that rewrites main's first-parent line. Objects are never removed or rewritten,
so the oldest holder on the line is where the file landed, and as main moves on its line
only grows at the new end: the landing commit, once there, never changes. In a linear
history the landing commit is the first-adding commit itself and nothing changes.

A shallow clone follows the first-adding commit's rule (:func:`kistore.git.first_added.
shallow_doubt`): when a commit on the cut holds the file, neither commit is known here,
and callers ask that function before they use either answer.

Cost: :func:`landing_commit` one first-parent walk and one path lookup per commit of the
line; :func:`landing_commits` and :func:`object_landing_commits` one first-parent walk and
one comparison per commit of its objects tree with its first parent's (reading only the
shards that differ), for every object file at once. :func:`landing_by_git` answers from
``git`` children without libgit2 (``kistore cite``'s fast path).

This module knows git trees and commits (pygit2, imported on first use) and the store's
layout, nothing of what the files mean.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from ..core import layout
from . import treediff
from .blobs import read_loose_history
from .child import git_environment
from .first_added import holds, object_shards
from .lazy import pygit2 as _pygit2  # imported on first use

if TYPE_CHECKING:  # pragma: no cover - typing only
    import pygit2


def first_parent_line(repo: pygit2.Repository, start: pygit2.Commit) -> list[pygit2.Commit]:
    """Return ``start``'s first-parent line, newest first: ``start``, its first parent, ...

    The line ends at a root commit, or at a shallow clone's cut (its parents are not here).

    Args:
        repo: the pygit2 repository.
        start: the commit cited, exported or built from.

    Returns:
        The commits (pygit2), ``start`` first.

    Raises:
        ObjectUnreadable: a commit of the line, or a tree it reads, is damaged or missing
            (:func:`kistore.git.blobs.read_loose_history`).
        CommitUnparsable: a commit of the line is one libgit2 cannot parse (KI225).
    """
    read_loose_history(repo, start.id)  # libgit2 loops on a cut loose commit (F3)
    walker = repo.walk(start.id, _pygit2.enums.SortMode.TOPOLOGICAL)
    walker.simplify_first_parent()
    return list(walker)


def landing_commit(repo: pygit2.Repository, path: str, blob: str, start: pygit2.Commit
                   ) -> pygit2.Commit | None:
    """Return the oldest commit of ``start``'s first-parent line whose tree holds the file.

    Args:
        repo: the pygit2 repository.
        path: the file's repository path (an object file, say).
        blob: its git blob id (40 hex).
        start: the commit cited from (HEAD or ``--at``).

    Returns:
        The landing commit; None when no commit of the line holds ``path`` with ``blob``
        (the file came in on a side branch whose merge dropped it: callers then use the
        first-adding commit). In a shallow clone the caller asks
        :func:`kistore.git.first_added.shallow_doubt` first.

    Raises:
        ObjectUnreadable: a commit of the line, or a tree it reads, is damaged or missing
            (:func:`kistore.git.blobs.read_loose_history`).
        CommitUnparsable: a commit of the line is one libgit2 cannot parse (KI225).
    """
    for commit in reversed(first_parent_line(repo, start)):  # oldest first: no lookup after
        if holds(repo, commit, path, blob):
            return commit
    return None


def landing_commits(repo: pygit2.Repository, wanted: Mapping[str, str],
                    start: pygit2.Commit) -> dict[str, pygit2.Commit]:
    """Return :func:`landing_commit` of many object files at once, in one first-parent walk.

    The first yield of each wanted ``(path, blob)`` by :func:`object_landing_commits`; the
    walk stops once every file is found.

    Args:
        repo: the pygit2 repository.
        wanted: object file path (``store/objects/sha256/XX/REST.json``) -> its git blob id
            (40 hex).
        start: the commit the line starts from.

    Returns:
        ``{path: commit}`` for each wanted file the line holds; others left out.

    Raises:
        ObjectUnreadable: a commit of the line, or a tree it reads, is damaged or missing
            (:func:`kistore.git.blobs.read_loose_history`).
        CommitUnparsable: a commit of the line is one libgit2 cannot parse (KI225).
    """
    pending = dict(wanted)
    found: dict[str, pygit2.Commit] = {}
    if not pending:
        return found
    for path, blob, commit in object_landing_commits(repo, start):
        if pending.get(path) == blob:
            found[path] = commit
            del pending[path]
            if not pending:
                break  # no more diffs once the last file is found
    return found


def object_landing_commits(repo: pygit2.Repository, start: pygit2.Commit
                           ) -> Iterator[tuple[str, str, pygit2.Commit]]:
    """Yield where every object file landed on ``start``'s first-parent line: one walk.

    :func:`landing_commit` for all objects at once (``kistore export`` needs every one):
    the line oldest first, each commit's ``store/objects/sha256`` tree compared with the
    previous one's shard by shard, reading only the shards whose tree ids differ.

    A ``(path, blob)`` pair may be yielded again later (removed and added back); the
    **first** yield of a pair is its landing commit.

    Args:
        repo: the pygit2 repository.
        start: the commit exported.

    Yields:
        ``(path, blob, commit)``: an object file's repository path, its git blob id (40
        hex), and the commit of the line whose tree holds it while the previous one's does
        not.

    Raises:
        ObjectUnreadable: a commit of the line, or a tree it reads, is damaged or missing
            (:func:`kistore.git.blobs.read_loose_history`).
        CommitUnparsable: a commit of the line is one libgit2 cannot parse (KI225).
    """
    shards: dict[str, dict[str, Any]] = {}
    line = first_parent_line(repo, start)
    for at in range(len(line) - 1, -1, -1):
        now = object_shards(repo, line[at].tree, shards)
        before = object_shards(repo, line[at + 1].tree, shards) if at + 1 < len(line) else {}
        for name, shard in sorted(now.items()):
            if before.get(name) == shard:
                continue
            prefix = f"{layout.OBJECTS_DIR}/{name}/"
            changed = treediff.changed_leaves(repo, before.get(name), shard, prefix)
            for path, (_, entry) in sorted(changed.items()):
                if entry is not None:
                    yield path, entry[0], line[at]


def landing_by_git(git: list[str], start: str, candidates: Mapping[str, int]
                   ) -> tuple[str, int] | None:
    """:func:`landing_commit` from ``git`` children, given where the file could have landed.

    The landing commit holds the file and its first parent does not (or it is a root):
    ``candidates`` are the commits known to be so (from ``git rev-list --full-history --
    PATH``, which lists every commit that differs from a parent at ``path``). One ``git
    rev-list --first-parent`` child lists the line; the oldest candidate on it is the answer.

    Args:
        git: the ``git -C ROOT ...`` command prefix.
        start: the commit the line starts from (a commit id or ``HEAD``).
        candidates: commit id (40 hex) -> committer time (s) of each commit that holds the
            file while its first parent does not.

    Returns:
        ``(commit id, committer time)``; None when this cannot say (no candidate on the
        line, ``git`` failed): the caller asks libgit2.
    """
    # Lazy: subprocess (+ selectors, select: ~2 ms of start-up) only when git is asked.
    import subprocess

    try:
        listed = subprocess.run([*git, "rev-list", "--first-parent", start],
                                capture_output=True, text=True, check=False, timeout=60,
                                env=git_environment())
    except (OSError, subprocess.SubprocessError):
        return None
    if listed.returncode != 0:
        return None
    oldest = None
    for line in listed.stdout.splitlines():
        if line.strip() in candidates:
            oldest = line.strip()
    return (oldest, candidates[oldest]) if oldest is not None else None
