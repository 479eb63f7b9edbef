"""The commits that changed a manifest's ``metadata.name``, and how each is undone (KI208).

A name never moves once committed (KI208). Two commands tell a user which commit moved one
and how to put it back: ``show``/``cat`` of the old ``KIND/NAME`` (KI212's advice,
:mod:`kistore.store.name_back`) and ``kistore migrate``, which refuses to write a names
file for the new name (:mod:`kistore.store._renames`). This module owns the answer for
both: given the first-parent versions of one metadata file (git's path-limited log), the
renames (:class:`Rename`) and the fix that works for each.

A rename merged from a side branch shows on the first-parent line at the merge, which
did not make it: ``git rebase --onto M~ M`` of the merge drops the whole side branch, and
"merge M renamed it" names the wrong commit. Such a change is followed into the merge's
parent that brought the new name (that parent's first-parent versions not in the merge's
first parent: ``git rev-list --first-parent P ^M~``) to the side commit that made it, and
its fix is a revert of that commit, a new commit on top, since dropping it rewrites the
merge and everything after it. A merge whose own resolution changed the name (no parent
held the new name) is said as such: the name set back in a new commit.

Error paths only: a side walk is one ``git rev-list`` of one file, for a change already
found at a merge, never one per file of a store.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

from ..git.blobs import lookup, read_blob
from ..git.pathlog import blob_at, first_parent_versions
from ..git.treediff import subtree
from .landed import measure

if TYPE_CHECKING:  # pragma: no cover - typing only
    import pygit2


@dataclass(frozen=True, slots=True)
class Rename:
    """One commit's change of a metadata file's ``name``.

    Attributes:
        commit: the commit that made it (40 hex digits): on the first-parent line, on the
            side branch a merge brought in, or the merge itself (:attr:`resolved`).
        parent: the commit before it on its own line (its first parent), whose version of
            the file still said :attr:`was`; None for a root commit.
        was: the name before.
        now: the name after.
        merge: the first-parent merge that brought a side branch's change in (40 hex
            digits); None when :attr:`commit` is on the first-parent line.
        resolved: :attr:`commit` is a merge that made the change in its own resolution
            (no parent held the new name): nothing but a new commit undoes it.
    """

    commit: str
    parent: str | None
    was: str
    now: str
    merge: str | None = None
    resolved: bool = False

    @property
    def droppable(self) -> bool:
        """Whether ``git rebase --onto C~ C`` drops just this change.

        True for a plain commit on the first-parent line; a merge's rebase drops its whole
        side branch.
        """
        return self.merge is None and not self.resolved

    def said(self) -> str:
        """Return ``commit X`` with where it is (a side branch, a merge's resolution)."""
        if self.resolved:
            return f"merge {self.commit[:12]} (in its own resolution)"
        if self.merge is not None:
            return f"commit {self.commit[:12]} (on a side branch merged by {self.merge[:12]})"
        return f"commit {self.commit[:12]}"


def renames(repo: pygit2.Repository, path: str, versions: list[tuple[str, str | None]], *,
            arrived: bool = False) -> list[Rename]:
    """Return each change of ``name`` along the first-parent ``versions`` of ``path``.

    Versions that do not parse (:func:`kistore.store.landed.measure`), and deletions, are
    passed over: the change is between the versions that say a name. A change shown at a
    merge is followed into the side branch that brought it (see the module's docstring).

    Args:
        repo: the ``pygit2.Repository``.
        path: the metadata file's repository path.
        versions: ``(commit id, blob id or None)``, OLDEST first, each a first-parent
            commit that changed the file (:func:`kistore.git.pathlog.first_parent_changes`,
            or :func:`kistore.git.pathlog.first_parent_versions` reversed).
        arrived: when the oldest version came in by a merge (the file added on a side
            branch), read the side branch's versions before it too: a rename made on the
            branch that added the file shows on no first-parent version. One more
            ``git rev-list`` of the file: for one file asked about (``show``), not each
            file of a store (with pull requests merged, nearly every file arrives so).

    Returns:
        The renames, oldest first; empty when the name never changed.

    Raises:
        ObjectUnreadable: a blob, commit or tree read is damaged or missing (KI117's words).
        InputError: git could not list a side branch's history (its words).
    """
    found: list[Rename] = []
    last: str | None = None
    for commit, blob, merge in _arrival(repo, path, versions) if arrived else [
            (c, b, None) for c, b in versions]:
        name = _name(repo, path, blob)
        if name is None:
            continue
        if last is not None and name != last:
            found += _made(repo, path, commit, last, name, merge)
        last = name
    return found


def _arrival(repo: pygit2.Repository, path: str, versions: list[tuple[str, str | None]]
             ) -> list[tuple[str, str | None, str | None]]:
    """Return ``versions`` (oldest first) with the side branch's before a merge that added it.

    Each as ``(commit, blob, merge)``: ``merge`` the merge that brought a side branch's
    version in, None for the first-parent line's own.
    """
    line: list[tuple[str, str | None, str | None]] = [(c, b, None) for c, b in versions]
    if not versions or versions[0][1] is None:
        return line
    merge, blob = versions[0]
    parents = [str(p) for p in _commit(repo, merge).parent_ids]
    if len(parents) < 2 or _blob(repo, parents[0], path) is not None:
        return line  # not a merge, or the first-parent line held the file already
    for parent in parents[1:]:
        if _blob(repo, parent, path) == blob:
            side = first_parent_versions(repo, parent, path, since=parents[0])
            return [(c, b, merge) for c, b in reversed(side)] + line
    return line


def _blob(repo: pygit2.Repository, commit: str, path: str) -> str | None:
    """Return the blob id of the regular file at ``path`` in ``commit``, or None."""
    return blob_at(repo, subtree(repo, _commit(repo, commit).tree_id), path)


def _name(repo: pygit2.Repository, path: str, blob: str | None) -> str | None:
    """Return the ``name`` the version ``blob`` of ``path`` says, or None (none, unparsed)."""
    doc = measure(read_blob(repo, blob, path) if blob is not None else None)
    return doc["name"] if doc is not None else None


def _commit(repo: pygit2.Repository, commit: str) -> pygit2.Commit:
    """Return the commit ``commit`` (40 hex digits) names, read through the guard."""
    return cast("pygit2.Commit", lookup(repo, commit))


def _made(repo: pygit2.Repository, path: str, commit: str, was: str, now: str,
          merge: str | None) -> list[Rename]:
    """Return the rename(s) that made ``commit``'s version of ``path`` say ``now``, not ``was``.

    A plain commit made it; a merge took it from the parent that says ``now`` (followed
    there, :func:`_side`), or made it itself. ``merge``: the first-parent merge this is
    below, None on the first-parent line.
    """
    parents = [str(p) for p in _commit(repo, commit).parent_ids]
    if len(parents) < 2:
        return [Rename(commit, parents[0] if parents else None, was, now, merge)]
    outer = merge or commit
    for parent in parents[1:]:
        if _name(repo, path, _blob(repo, parent, path)) == now:
            side = _side(repo, path, parent, parents[0], was, outer)
            if side:
                return side
    return [Rename(commit, parents[0], was, now, merge, resolved=True)]


def _side(repo: pygit2.Repository, path: str, tip: str, base: str, was: str, merge: str
          ) -> list[Rename]:
    """Return the renames of ``path`` the side branch ``tip`` made since ``base`` (oldest first).

    The side's first-parent versions not in ``base``'s history, read from ``was`` on (the
    name the file had where the branch left, as far as the merge's first parent tells).
    """
    found: list[Rename] = []
    last = was
    for commit, blob in reversed(first_parent_versions(repo, tip, path, since=base)):
        name = _name(repo, path, blob)
        if name is not None and name != last:
            found += _made(repo, path, commit, last, name, merge)
            last = name
    return found


def undo(moved: list[Rename] | tuple[Rename, ...], path: str, first: str) -> str:
    """Return how to undo the committed renames ``moved`` of the metadata file ``path``.

    Each a plain commit of the first-parent line: drop them (``git rebase --onto C~ C``, or
    ``git rebase -i OLDEST~`` for several), the name never having moved. One came in from
    a side branch: revert the commits (newest first), since dropping one rewrites the merge
    and all after it (``git rebase --onto M~ M`` drops the whole side branch); the history
    keeps the change. A merge's own resolution: set the name back in a new commit.

    Args:
        moved: the renames, oldest first (:func:`renames`); not empty.
        path: the metadata file's repository path.
        first: the name to set back.

    Returns:
        A clause (lower case, no final period) to follow "then migrate" advice; raises
        nothing.
    """
    many = len(moved) > 1
    them, it = ("them", "they") if many else ("it", "it")
    back = (f"setting metadata.name back to {first!r} in a new commit lets the migration go "
            "on, but the history keeps the change (`kistore verify` says KI208)")
    if all(r.droppable for r in moved):
        drop = (f"`git rebase -i {moved[0].commit}~`, dropping them" if many
                else f"`git rebase --onto {moved[0].commit}~ {moved[0].commit}`")
        return (f"drop {them} before anyone cites the manifest ({drop}; it drops all else "
                f"{it} changed too), then migrate; {back}")
    merges = ", ".join(dict.fromkeys(str(r.merge or r.commit)[:12] for r in moved
                                     if not r.droppable))
    if any(r.resolved for r in moved):
        return (f"set metadata.name back to {first!r} in {path} and commit, then migrate "
                f"(a merge's resolution made the change: dropping merge {merges} would drop "
                "the branch it merged too); the history keeps the change (`kistore verify` "
                "says KI208)")
    commits = " ".join(r.commit for r in reversed(moved))
    return (f"the change came in by merge {merges} from a side branch, where dropping {them} "
            "rewrites the merge and all after it (`git rebase --onto` of the merge drops the "
            f"whole branch): revert {them} in a new commit (`git revert --no-edit {commits}`, "
            f"which undoes all else {it} changed too; where the revert does not apply, set "
            f"metadata.name back to {first!r} by hand and commit), then migrate; the history "
            "keeps the change (`kistore verify` says KI208)")


def put_back(rename: Rename, path: str) -> str:
    """Return how to put back ``rename.was`` in the metadata file ``path`` (``show``, ``cat``).

    A plain commit, or a merge's resolution: the file as of the commit before it, the last
    where it and the names file agreed (``git checkout PARENT -- PATH``), or the name set
    back by hand. A side branch's commit: its revert (the version before it is the side
    branch's, without the first-parent line's later edits), or the name set back by hand.

    Args:
        rename: the newest rename away from the name a names file holds, whose
            :attr:`Rename.parent`'s names file holds the manifest.
        path: the metadata file's repository path.

    Returns:
        A clause (lower case, no final period); raises nothing.
    """
    name, by = rename.was, rename.said()
    head = (f"{by} renamed it in its metadata file (a committed name never moves, KI208); "
            f"{name!r} is the name it was added under: put it back with ")
    if rename.merge is not None and not rename.resolved:
        return head + (f"`git revert --no-edit {rename.commit}` (a new commit undoing all "
                       f"that commit changed) or set \"name\" back to {name!r} in it and "
                       "commit")
    return head + (f"`git checkout {rename.parent} -- {path}` (that file as of commit "
                   f"{str(rename.parent)[:12]}, the last where it and the names file "
                   f"agreed) or set \"name\" back to {name!r} in it, then commit")
