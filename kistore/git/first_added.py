"""The commit that first added a file with given bytes: the one rule every citation follows.

Definition (docs/citation.md): a commit *introduces* ``(path, blob)`` when its tree holds
``path`` with exactly that blob and none of its parents' trees does (a root commit: it
holds it). Of the commits reachable from a start commit that introduce it, the first
added it: the one with the earliest committer time, ties going to the smaller commit id
(40 hex, compared as text).

Why this rule (review r78 F3): the set of introducers reachable from a branch tip only
grows as the branch moves on (a fast-forward, a merge in either parent order, a
fast-forward to a merge that took main in as its second parent), and the earliest of a
set can change only when a new member comes before it. So a citation moves only when a
new commit introduces the same bytes with an earlier committer time; the pull-request
gate refuses exactly that (KI425, :mod:`kistore.check.gate`). The libgit2 order used
before (a reversed topological walk) depended on parent order: merging main into a pull
request that re-added an object moved its citation to the pull request's commit.

Commits are visited in that order (:func:`history_order`), so the first introducer met is
the answer and each walk stops there. Cost: one walk of the reachable commits and a sort
by time (O(commits log commits)), then per commit visited one path lookup (or one tree
comparison with the first parent, in :func:`first_commits`), plus one lookup per other
parent of a commit that holds the file.

This module knows git trees and commits (pygit2, imported on first use), nothing of what
the files mean beyond the store's layout.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..core import layout
from ..core.errors import ResolutionError, StoreStateError
from . import treediff
from .blobs import read_loose_history
from .lazy import pygit2 as _pygit2  # imported on first use
from .range_guard import LooseVerdict, walk_range

if TYPE_CHECKING:  # pragma: no cover - typing only
    import pygit2


def history_order(repo: pygit2.Repository, start: pygit2.Commit, hide: str | None = None,
                  verdict: LooseVerdict | None = None) -> list[pygit2.Commit]:
    """Return every commit reachable from ``start`` (not from ``hide``), earliest first.

    Args:
        repo: the pygit2 repository.
        start: the commit the walk starts from.
        hide: a commit (40 hex) whose history (itself included) is left out, or None.
        verdict: with ``hide``, the gate run's guard verdict (:class:`.range_guard.
            LooseVerdict`); None: a scan of its own.

    Returns:
        The commits sorted by (committer time in seconds since the epoch, hex id).
    """
    if hide is None:  # the whole history: every commit of it read first
        read_loose_history(repo, start.id)  # libgit2 loops on a cut loose commit (F3)
        walked = list(repo.walk(start.id, _pygit2.enums.SortMode.NONE))
    else:  # a range: its cost, not the history's (:mod:`.range_guard`, gate96)
        walked = walk_range(repo, start.id, hide, _pygit2.enums.SortMode.NONE, verdict)
    return sorted(walked, key=lambda c: (c.commit_time, str(c.id)))


def holds(repo: pygit2.Repository, commit: pygit2.Commit, path: str, blob: str) -> bool:
    """Whether ``commit``'s tree has ``path`` with exactly the blob ``blob`` (40 hex)."""
    entry = treediff.entry_at(repo, commit.tree, path)  # guarded (a cut older tree)
    return entry is not None and str(entry.id) == blob


def parent_holds(repo: pygit2.Repository, commit: pygit2.Commit, path: str, blob: str,
                 skip_first: bool = False) -> bool:
    """Whether a parent of ``commit`` holds ``path`` with ``blob``.

    A parent this repository lacks (a shallow clone's cut) holds nothing here: the commit
    on the cut is then the first holder this clone can see (:func:`first_commit` says so).

    Args:
        repo: the pygit2 repository.
        commit: the commit whose parents are looked at.
        path: the file's repository path.
        blob: its git blob id (40 hex).
        skip_first: leave out the first parent (the caller compared with it already).
    """
    for parent_id in commit.parent_ids[1 if skip_first else 0:]:
        parent = repo.get(parent_id)
        if isinstance(parent, _pygit2.Commit) and holds(repo, parent, path, blob):
            return True
    return False


def first_commit(repo: pygit2.Repository, path: str, blob: str,
                 start: pygit2.Commit) -> pygit2.Commit:
    """Return the commit that first added ``path`` with blob ``blob``, from ``start``'s history.

    The earliest introducer by (committer time, id) (see the module docstring): whatever
    lands later (more commits, merges in either parent order, a metadata correction) moves
    it only by bringing an earlier introducer, which the gate refuses (KI425).

    Args:
        repo: the pygit2 repository.
        path: repository path of the file (an object file, say).
        blob: its git blob id (40 hex).
        start: the commit the walk starts from (HEAD or ``--at``).

    Returns:
        The first-adding commit.

    Raises:
        ResolutionError: no reachable commit has ``path`` with that blob (not committed).
        StoreStateError: the repository is a shallow clone whose cut holds the file, so an
            older commit may have added it first (:func:`shallow_doubt`).
    """
    order = history_order(repo, start)
    cut = _reached(shallow_boundary(repo), order)
    for commit in order:
        if not holds(repo, commit, path, blob) or parent_holds(repo, commit, path, blob):
            continue
        why = shallow_doubt(repo, cut, path, blob)
        if why is not None:
            raise StoreStateError(f"{why} and cite again", file=path)
        return commit
    raise ResolutionError(
        f"the object file is in no commit reachable from {str(start.id)[:12]} (added to the "
        "work tree but not committed?): commit it (`git commit` or `kistore add --commit`) "
        "before citing it", file=path,
    )


def shallow_cut(repo: pygit2.Repository, start: pygit2.Commit) -> set[str]:
    """Return the commits a shallow clone is cut at that ``start``'s history reaches.

    What :func:`shallow_doubt` is asked with. Empty (and no walk) when the repository is
    not shallow; else one walk of the history the clone has (:func:`history_order`).

    Args:
        repo: the pygit2 repository.
        start: the commit cited, exported or built from.

    Returns:
        Ids (40 hex) of the commits in :func:`shallow_boundary` reachable from ``start``.
    """
    boundary = shallow_boundary(repo)
    return _reached(boundary, history_order(repo, start)) if boundary else set()


def _reached(boundary: set[str], order: list[pygit2.Commit]) -> set[str]:
    """Return the commits of ``boundary`` that are in ``order`` (a walk's commits)."""
    return boundary & {str(c.id) for c in order} if boundary else set()


def shallow_doubt(repo: pygit2.Repository, cut: set[str], path: str, blob: str
                  ) -> str | None:
    """Say why the first-adding commit of ``path`` with ``blob`` is not known here (or None).

    The one shallow-clone rule of every citation -- ``kistore cite`` refuses, ``export``
    leaves ``firstCommit`` null, the site gives no permalink (review r78 F7, r79 F4): when a
    commit the clone's history is cut at holds the file with that blob, a commit beyond the
    cut may have added it first, whichever commit the walk finds first. That is so even
    when the walk finds an introducer inside the history the clone has: a later re-add
    (KI406, from a branch forked before the object landed) is not the first-adding commit
    a full clone names (r79 F4: export and the site published it). Files no commit on the
    cut holds were added inside the history the clone has: the walk's answer is the full
    clone's.

    Args:
        repo: the pygit2 repository.
        cut: :func:`shallow_cut` of the start commit (empty: not shallow, always None).
        path: the file's repository path.
        blob: its git blob id (40 hex).

    Returns:
        The reason, ending with the fix (``run `git fetch --unshallow```; the caller adds
        what to do again), naming the cut commit that holds the file; None when none does.
    """
    for hex_ in sorted(cut):
        commit = repo.get(hex_)
        if isinstance(commit, _pygit2.Commit) and holds(repo, commit, path, blob):
            return beyond_shallow_edge(hex_, {hex_})
    return None


def first_commits(repo: pygit2.Repository, wanted: Mapping[str, str], start: pygit2.Commit,
                  *, hide: str | None = None, verdict: LooseVerdict | None = None
                  ) -> dict[str, pygit2.Commit]:
    """Return :func:`first_commit` of many store files at once, in one history walk.

    The same order as :func:`first_commit`; each commit is compared with its first parent
    (with no parent: the empty tree) by :func:`kistore.git.treediff.changed_files`, which
    reads only the subtrees that differ. A wanted file the comparison shows with its blob
    is the commit's to introduce unless another parent holds it (one lookup per other
    parent), and the first introducer met is kept. The walk stops once every file is
    found.

    Args:
        repo: the pygit2 repository.
        wanted: repository path of an object or metadata file -> its git blob id (40 hex).
        start: the commit the walk starts from.
        hide: a commit (40 hex) whose history is left out of the walk: files known to be
            absent from all of its history (new since an earlier answer) have every
            introducer among the commits since, so their answer is found there.
        verdict: with ``hide``, the gate run's guard verdict (:func:`history_order`).

    Returns:
        ``{path: commit}`` for each wanted file some reachable commit holds with its blob;
        a file no commit holds is left out. In a shallow clone the commit found may not be
        the first: the caller asks :func:`shallow_doubt`.
    """
    pending = dict(wanted)
    found: dict[str, pygit2.Commit] = {}
    for commit in history_order(repo, start, hide, verdict):
        if not pending:
            break
        parent = commit.parents[0].tree if commit.parents else None
        for path, (_, after) in treediff.changed_files(repo, parent, commit.tree).items():
            if (after is not None and pending.get(path) == after[0]
                    and not parent_holds(repo, commit, path, after[0], skip_first=True)):
                found[path] = commit
                del pending[path]
    return found


def object_first_commits(repo: pygit2.Repository, start: pygit2.Commit
                         ) -> Iterator[tuple[str, str, pygit2.Commit]]:
    """Yield every object file's introducers in ``start``'s history: one walk.

    :func:`first_commit` for all objects at once (``kistore export`` needs every one). The
    same order; each commit's ``store/objects/sha256`` tree is compared with its first
    parent's (a root commit's with nothing), shard by shard, reading only the shards whose
    tree ids differ (:func:`kistore.git.treediff.changed_leaves`), so the cost follows what
    history changed, and memory one shard directory. An added file another parent of a
    merge already holds is not the merge's to introduce, and is not yielded.

    A ``(path, blob)`` pair may be yielded again later (two commits introduced the same
    bytes); the **first** yield of a pair is the commit :func:`first_commit` returns for
    it, because the order is the rule's: keep the first.

    Args:
        repo: the pygit2 repository.
        start: the commit the walk starts from (the revision exported or cited).

    Yields:
        ``(path, blob, commit)``: an object file's repository path, its git blob id (40
        hex) in that commit, and the commit (pygit2). In a shallow clone the first may not
        be the first-adding commit: the caller asks :func:`shallow_doubt`.
    """
    shards: dict[str, dict[str, Any]] = {}  # objects tree id -> {shard name: shard tree id}
    for commit in history_order(repo, start):
        now = object_shards(repo, commit.tree, shards)
        parents = commit.parents
        before = object_shards(repo, parents[0].tree, shards) if parents else {}
        others = [object_shards(repo, p.tree, shards) for p in parents[1:]]
        for name, shard in sorted(now.items()):
            if before.get(name) == shard or any(o.get(name) == shard for o in others):
                continue  # nothing new, or all of it the other parent's
            prefix = f"{layout.OBJECTS_DIR}/{name}/"
            changed = treediff.changed_leaves(repo, before.get(name), shard, prefix)
            held = [treediff.changed_leaves(repo, o.get(name), shard, prefix) for o in others]
            for path, (_, entry) in sorted(changed.items()):
                if entry is not None and not any(_same_blob(h, path, entry[0]) for h in held):
                    yield path, entry[0], commit


def _same_blob(differences: Mapping[str, treediff.Change], path: str, blob: str) -> bool:
    """Whether a parent a tree was compared with holds ``path`` with ``blob`` too.

    ``differences``: :func:`kistore.git.treediff.changed_leaves` of that parent's tree
    against the commit's (a path absent from it is the same in both).
    """
    change = differences.get(path)
    return change is None or (change[0] is not None and change[0][0] == blob)


def object_shards(repo: pygit2.Repository, tree: pygit2.Tree, cache: dict[str, dict[str, Any]]
            ) -> dict[str, Any]:
    """Return ``{shard name: tree id}`` of a root tree's ``store/objects/sha256``.

    Remembers the last three listings (a commit's and its parent's), keyed by tree id, in
    ``cache`` (the caller's, one per walk). Used by :func:`object_first_commits` and
    :func:`kistore.git.landing.object_landing_commits`.

    Args:
        repo: the pygit2 repository.
        tree: a commit's root tree.
        cache: the walk's listings, filled here.

    Returns:
        Each shard directory's name and tree id (empty: no objects directory).
    """
    objects = treediff.subtree_id(repo, tree, layout.OBJECTS_DIR)
    if objects is None:
        return {}
    key = str(objects)
    if key not in cache:
        if len(cache) > 2:
            cache.clear()
        listing = treediff.subtree(repo, objects)  # guarded: libgit2 loops on a cut one
        cache[key] = {str(e.name): e.id for e in listing if e.type_str == "tree"}
    return cache[key]


def beyond_shallow_edge(commit: str, boundary: set[str]) -> str | None:
    """Say why ``commit``, which holds an object, shows its first commit is not known here.

    The wording of :func:`shallow_doubt`, the one rule of every citation: a commit on a
    shallow clone's edge (:func:`shallow_boundary`) has its parents cut off, so an older
    commit may have added the object first.

    Args:
        commit: the commit found (40 hex).
        boundary: :func:`shallow_boundary` of the repository.

    Returns:
        The reason, ending with the fix (``git fetch --unshallow``, without "and do it
        again": the caller says what again); None when ``commit`` is not on the edge.
    """
    if commit not in boundary:
        return None
    return (f"this is a shallow clone and its history stops at {commit}, which holds the "
            "object: the commit that first added it may be older; run `git fetch --unshallow`")


def shallow_boundary(repo: pygit2.Repository) -> set[str]:
    """Return the ids of the commits a shallow clone's history is cut at (empty if none)."""
    if not repo.is_shallow:
        return set()
    try:
        text = (Path(repo.path) / "shallow").read_text("ascii")
    except FileNotFoundError:
        return set()
    return {line.strip() for line in text.splitlines() if line.strip()}
