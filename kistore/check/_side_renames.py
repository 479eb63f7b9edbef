"""KI208 of a rename a merge brought from a side branch: the side commit that made it.

The history walk (:func:`kistore.check.lineage.names_kept`, ``verify``'s
:func:`kistore.check.lineage.check_names`) compares each commit with each parent, so a
merge that takes a side branch's rename differs from its first parent: "commit M renames
'p' to 'q'", with the rebase of the merge (``git rebase --onto M~ M``), which drops the
whole side branch (rename99's leftover). The side commit's own comparison said the same
under the same key and was dropped as said. A merge's difference from its first parent is
now followed into the side branch by :func:`kistore.store.name_changes.renames` (the one
owner of "the commit that renamed a name"), and said of the commit that made it, the
merge named beside it, with the fix for a commit below a merge; a difference from another
parent that the first parent already has is that line's own commit's, said there.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ..core.findings import Finding
from ..store.name_changes import Rename, renames
from ._lineage_fixes import blob_entry

if TYPE_CHECKING:  # pragma: no cover - typing only
    import pygit2

    from ._fixes import Base


def merged_rename(repo: pygit2.Repository, commit: Any, parent: Any, path: str,
                  blobs: tuple[str, str], finding: Finding, base: Base | None
                  ) -> list[Finding]:
    """Return a merge's KI208 ``finding`` against ``parent`` as the commit that renamed says it.

    Args:
        repo: the repository.
        commit: the merge (``pygit2.Commit``).
        parent: the parent the walk compared it with.
        path: the metadata file's repository path.
        blobs: the file's blob ids in ``parent`` and in the merge.
        finding: the walk's KI208 at ``/name`` of the merge against ``parent``.
        base: the gate's BASE (the fix rebuilds the branch from it); None: ``verify``.

    Returns:
        Against the first parent: one KI208 per side commit that renamed (message, and
        ``extra["commit"]``, of that commit, ``extra["merge"]`` the merge), or
        ``[finding]`` when the merge's own resolution renamed (said so). Against another
        parent whose version the first parent holds: ``[]`` (the first-parent line's own
        commit says it). Otherwise ``[finding]``.

    Raises:
        ObjectUnreadable: a blob, commit or tree read is damaged or missing.
        InputError: git could not list the side branch's history.
    """
    first = commit.parents[0]
    if parent.id != first.id:
        held = blob_entry(first.tree, path)
        return [] if held is not None and held[0] == blobs[1] else [finding]
    moved = renames(repo, path, [(str(parent.id), blobs[0]), (str(commit.id), blobs[1])])
    if not moved or any(r.resolved for r in moved) or any(r.merge is None for r in moved):
        if moved and all(r.resolved for r in moved):
            return [replace(finding, message=finding.message.replace(
                f"commit {str(commit.id)[:12]} ", f"{moved[0].said()} ", 1))]
        return [finding]
    return [_said(finding, r, path, base) for r in moved]


def _said(finding: Finding, rename: Rename, path: str, base: Base | None) -> Finding:
    """Return ``finding`` of the side commit ``rename`` names, with the fix for it."""
    merge = str(rename.merge)
    rebase = (f"`git rebase -i --rebase-merges {base.rebase_id}`" if base is not None
              else "`git rebase -i --rebase-merges BASE` (BASE: the commit the branch starts "
                   "from, `git merge-base origin/main HEAD`)")
    return replace(
        finding, message=f"{rename.said()} renames {rename.was!r} to {rename.now!r}: a name "
        "never moves", expected=rename.was, found=rename.now,
        extra={**finding.extra, "commit": rename.commit, "merge": merge},
        fix=(f"commit {rename.commit[:12]} renamed it on a side branch that merge "
             f"{merge[:12]} brought in (dropping the merge, `git rebase --onto {merge[:12]}~ "
             f"{merge[:12]}`, would drop the whole branch): in a branch not yet merged, "
             f"rebuild it without that commit, {rebase}, and drop commit "
             f"{rename.commit[:12]} (the merge is made again without it); on a branch "
             f"already merged, set metadata.name back to {rename.was!r} in {path} with "
             f"`git revert --no-edit {rename.commit}` (a new commit, undoing all else that "
             "commit changed too) or by hand, and commit: the history keeps the change, and "
             "this error says so for good"))

