"""KI204 at every commit of a range: a stored object's metadata file gone, then back (hist03).

The contents check reads ``HEAD``'s files: an object's metadata file one commit of a pull
request deletes and the next restores is in no tree it reads, yet that commit stays in
main's history (fresh04 H2). There ``verify --at`` fails (KI204), ``show --at`` and ``rank
--at`` say the run "may have come later" (it was there before), and a checkout of it holds
an object no metadata file describes. So each commit of the range at which an object's
metadata file goes missing is judged: one that deletes the metadata file of an object it
holds, or adds an object without one. The gap ``HEAD`` still holds is the contents
check's (its KI204, whose fix :func:`head_gap_fixes` points at the deleting commit when
the range deleted a file ``BASE`` held). The cost follows the change: the object and
metadata trees each commit changes are compared with its parents', the shards either
changed listed (:mod:`._gap_openings`, whose judgement ``verify`` reads too).
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ..core import layout
from ..core.findings import Finding
from ..git import treediff
from ._fixes import Base, brought_fix, rebase_command
from ._gap_openings import commit_openings, deleted_from, gap_said
from ._rules import OBJECT_DIGEST_MISMATCH, OBJECT_WITHOUT_METADATA
from .lineage import changing_commits

if TYPE_CHECKING:  # pragma: no cover - typing only
    import pygit2

_METADATA = layout.METADATA_DIR + "/"


def metadata_gaps(repo: pygit2.Repository, findings: list[Finding], commits: list[Any],
                  trees: tuple[Any, Any], base: Base) -> list[Finding]:
    """KI204 of each commit of the range at which an object's metadata file goes missing.

    Args:
        repo: the repository.
        findings: the gate's findings so far: ``HEAD``'s KI204 of a metadata file the
            range deleted gets the branch's fix (:func:`head_gap_fixes`); a commit's KI101
            on the object's path (a copy, not the object: :mod:`._every_commit`), or its
            KI110/KI112 on the metadata file's name in another case or with a suffix (the
            file moved there: fresh04's m1), says that commit's gap.
        commits: the range's commits (``pygit2.Commit``), newest first.
        trees: ``BASE``'s and ``HEAD``'s root trees.
        base: the range's BASE, whose rebase the fix names.

    Returns:
        ``findings`` (:func:`head_gap_fixes`), then one KI204 per commit that holds an
        object no metadata file describes while none of its parents did so (it deletes
        the metadata file, or adds the object without it), when a later commit of the
        range brings the metadata file back (else ``HEAD`` holds the gap: the contents
        check's KI204, or the object goes too: KI402). Each is on the object's path, with
        ``extra["commit"]`` (the commit) and ``extra["metadata"]`` (the metadata file);
        its fix takes the gap out of that commit (:func:`._fixes.brought_fix`): drop it
        and skip the restore left empty, or ``edit`` it and check the metadata file out of
        the commit that brings it back. Raises ObjectUnreadable
        for a damaged tree on the way.
    """
    found = head_gap_fixes(repo, findings, commits, base)
    copies = {(f.file, f.extra.get("commit")) for f in findings
              if f.rule is OBJECT_DIGEST_MISMATCH}
    # a file the same commit brings under the metadata file's name in another case or
    # with a suffix (`4A96...json`, `...json.bak`: KI110, KI112 of that commit) moved it
    moved = [(str(f.extra.get("commit", "")), (f.file or "").lower()) for f in findings
             if f.extra.get("commit") and (f.file or "").startswith(_METADATA)]
    for commit, digest in _openings(repo, commits):
        where = f"commit {str(commit.id)[:12]}"
        meta = layout.metadata_path(digest).lower()
        if (layout.object_path(digest), where) in copies or any(
                said in (where, str(commit.id)) and path.startswith(meta)
                for said, path in moved):
            continue
        meta = layout.metadata_path(digest)
        changing = list(reversed(changing_commits(repo, commits, meta)))  # oldest first
        later = next((c for c in changing[_after(changing, commit):]
                      if treediff.entry_at(repo, c.tree, meta) is not None), None)
        if later is None:
            continue  # HEAD's gap (the contents check's), or the object goes too (KI402)
        found.append(_said(repo, commit, later, digest, base))
    return found


def _openings(repo: pygit2.Repository, commits: list[Any]) -> list[tuple[Any, Any]]:
    """Return ``(commit, digest)`` per commit holding a gap none of its parents holds.

    :func:`._gap_openings.commit_openings` of each commit: the judgement ``verify`` reads
    too.
    """
    return [(commit, digest) for commit in commits
            for digest in commit_openings(repo, commit)]


def _after(changing: list[Any], commit: Any) -> int:
    """Return the index in ``changing`` (oldest first) just past ``commit`` (0: not in it)."""
    ids = [c.id for c in changing]
    return ids.index(commit.id) + 1 if commit.id in ids else 0


def _said(repo: pygit2.Repository, commit: Any, later: Any, digest: Any, base: Base
          ) -> Finding:
    """Return the KI204 of the gap ``commit`` opens and ``later`` closes, with its fix."""
    meta, obj = layout.metadata_path(digest), layout.object_path(digest)
    where = f"commit {str(commit.id)[:12]}"
    parent = deleted_from(repo, commit, digest)
    start = base.rebase_args
    back = treediff.entry_at(repo, later.tree, meta)
    if parent is not None:  # it deleted the metadata file
        was = treediff.entry_at(repo, parent.tree, meta)
        what = "the deletion of an object's metadata file"
        restored = back is not None and was is not None and back.id == was.id
        undo = f"`git checkout {parent.id if restored else later.id} -- {meta}`"
    else:  # it added the object without one
        what = "an object added without its metadata file"
        restored, undo = False, f"`git checkout {later.id} -- {meta}`"
    message = (gap_said(digest, commit, parent is not None, f"commit {str(later.id)[:12]}")
               + f": rebuild the range without it, e.g. {rebase_command(start)}")
    fix = brought_fix(what, meta, start, "an object's metadata file is there at every "
                      "commit that holds the object", undo=undo, restored=restored,
                      merge=len(commit.parent_ids) > 1)
    return Finding(OBJECT_WITHOUT_METADATA, message, file=obj, fix=fix,
                   extra={"commit": where, "metadata": meta})


def head_gap_fixes(repo: pygit2.Repository, findings: list[Finding], commits: list[Any],
                   base: Base) -> list[Finding]:
    """Give ``HEAD``'s KI204 of a metadata file the range deleted the branch's fix.

    The rule's hint (restore the metadata file from git) in a new commit leaves the
    deleting commit in the history, which the gate reads commit by commit
    (:func:`metadata_gaps`): the fix is to take the deletion out of that commit. One
    lookup per commit of the range for each such finding; others are returned as given.
    """
    told = []
    for f in findings:
        digest = layout.digest_from_path(f.file or "") if f.rule is OBJECT_WITHOUT_METADATA \
            and "commit" not in f.extra else None
        if digest is not None:
            meta = layout.metadata_path(digest)
            deleting = next((c for c in reversed(changing_commits(repo, commits, meta))
                             if treediff.entry_at(repo, c.tree, meta) is None), None)
            if deleting is not None and deleting.parents:
                parent = deleting.parents[0]
                f = replace(f, fix=brought_fix(
                    "the deletion of an object's metadata file (commit "
                    f"{str(deleting.id)[:12]})",
                    meta, base.rebase_args, "an object's metadata file is there at every "
                    "commit that holds the object",
                    undo=f"`git checkout {parent.id} -- {meta}`",
                    merge=len(deleting.parent_ids) > 1))
        told.append(f)
    return told
