"""The append-only history of objects: KI401 modified, KI402 deleted, KI403 renamed.

Objects are never modified, renamed or deleted once committed (docs/design.md §3, §4). This module
compares commits with their parents, looking only at ``store/objects/``:
:func:`check_history` is what ``kistore verify`` checks of the whole history of a revision
(and, in a work tree, of what the index and work tree would change in the next commit);
:func:`history_findings` over the commits of :func:`ancestry` is the pull-request gate's
check of a range (:mod:`kistore.check.gate`). A merge is held to what it changes itself, as git's
combined diff, except that dropping or changing what one side has is the merge's own doing
unless the two sides' merge base held the path (see :func:`history_findings`); a change
of file mode alone is named as such, not as modified bytes.

It reads git (pygit2, imported inside the functions) but never a file's contents: the checks
of bytes are :mod:`kistore.check._rules`'s, reading a tree's files and running every check is
:mod:`kistore.check.audit`'s.
"""

from __future__ import annotations

import dataclasses
import os
import stat
import subprocess
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from ..core import layout
from ..core.digest import Digest
from ..core.errors import KistoreError, StoreStateError
from ..core.file_kinds import file_kind
from ..core.findings import ERROR, Finding, rule
from ..core.gitattributes import (
    GITATTRIBUTES_LINE,
    check_gitattributes,
    not_regular_gitattributes,
)
from ..core.limits import DEFAULT
from ..git import treediff
from ..git.blobs import head_commit, read_blob_within, read_loose_history
from ..git.child import git_environment
from ..git.commit_header import first_line
from ..git.range_guard import LooseVerdict, walk_range
from ..git.sparse import SkipWorktree, git_status
from ..store import index_lock
from ._edited_deleted import said_in_history, said_in_range
from ._fixes import HINT_BASE, Base, edited_fix, rebase_fix, restored_fix, staged_fix
from ._rules import sort_key

if TYPE_CHECKING:  # pragma: no cover - typing only
    import pygit2

    from ..store import Store

def _modified_hint(base: Base) -> str:
    """Return KI401's hint, its rebase naming ``base`` (:class:`._fixes.Base`); raises nothing."""
    return ("objects never change, and a later commit restoring the bytes leaves the change in "
            "history: in the work tree, `git checkout HEAD -- PATH`; in a branch, drop the "
            f"commit that changed it ({base.rebase()}); then add the corrected manifest as a "
            "new object")


def _deleted_hint(base: Base) -> str:
    """Return KI402's hint, its rebase naming ``base``; raises nothing."""
    return ("objects are never deleted: in the work tree, restore the file; in a branch, drop "
            f"the commit that deleted it ({base.rebase()}) (a withdrawal is an attestation)")


def _renamed_hint(base: Base) -> str:
    """Return KI403's hint, its rebase naming ``base``; raises nothing."""
    return ("objects never move, and a later commit moving it back leaves the rename in "
            "history: in a branch, drop the commit that renamed it, and any later one moving "
            f"it back ({base.rebase()}); in the work tree, move it back to the path its digest "
            "names")


OBJECT_MODIFIED = rule("KI401", "object-modified", ERROR, _modified_hint(HINT_BASE))
OBJECT_DELETED = rule("KI402", "object-deleted", ERROR, _deleted_hint(HINT_BASE))
OBJECT_RENAMED = rule("KI403", "object-renamed", ERROR, _renamed_hint(HINT_BASE))
_HINTS = {OBJECT_MODIFIED.id: _modified_hint, OBJECT_DELETED.id: _deleted_hint,
          OBJECT_RENAMED.id: _renamed_hint}
"""Each history rule's hint, by rule id, as the gate names its BASE in it."""


def _fix(rule_: Any, base: Base, path: str) -> str:
    """Return the gate's fix of a history finding on ``path``: the rule's, BASE named.

    A deletion the pre-commit hook finds staged is restored from ``HEAD``: its commit of
    the index is on no branch, and the rule's ``git rebase -i`` of it is refused on the
    staged changes (fresh00 M1a, as fresh98 MED 3 for an edit). Raises nothing.
    """
    if base.staged and rule_ is OBJECT_DELETED:
        return staged_fix("an object deleted", path,
                          "objects are never deleted (a withdrawal is an attestation)")
    return str(_HINTS[rule_.id](base))


def objects_tree(repo: pygit2.Repository, tree: pygit2.Tree) -> Any:
    """Return the ``store/objects/sha256`` subtree of a root tree, or None when absent.

    Raises:
        ObjectUnreadable: a tree on the way is damaged.
    """
    entry = treediff.subtree_id(repo, tree, layout.OBJECTS_DIR)
    return None if entry is None else treediff.subtree(repo, entry)


def history_findings(repo: pygit2.Repository, commits: Iterable[Any], *,
                     base: Base | None = None, at: str = "HEAD") -> list[Finding]:
    """Check that each commit only adds objects: none modified, deleted or renamed.

    Each commit is compared with every parent (a merge with each side), looking only at
    ``store/objects/`` and skipping identical subtrees, so the cost follows what changed.
    A merge is held to what it changes itself: a difference from one parent P that another
    parent Q already has (the same entry, or the same absence) is left to Q's own history
    only when the merge base of P and Q held the path. Then the path changed (or went)
    between that base and P or Q, and the commit that did it is reported in that side's
    history (in the range, or in history already checked). When the base never held it
    (Q never had the object, or P and Q share no history: an orphan root), the merge
    itself drops or changes what P has and is reported here. This is git's combined-diff
    rule narrowed: ``git merge -s ours`` of a branch that never had an object must not
    delete it unseen.

    A later commit deleting an edited object's file deletes no object (its bytes are no
    object's: :func:`_was_object`), and is no finding; when the walk's tip (the first
    commit of ``commits``: ``HEAD``) lacks the path, the edit's KI401 names the deleting
    commits and the fix that restores the object (:mod:`._edited_deleted`, r93b G2,
    break94 #2): one path lookup per such KI401, none per commit.

    An edit the tip still holds, or holds restored, gets its fix here too, from the same one
    lookup per edited path (:func:`_edit_fixes`; reviewer fresh95 F4, break95 M1:
    ``git checkout HEAD -- PATH`` changes nothing there).

    Args:
        repo: the ``pygit2.Repository``.
        commits: the commits to check (``pygit2.Commit``), tip first (``git rev-list``'s
            order: :func:`ancestry`).
        base: a range's BASE (:class:`._fixes.Base`): each finding's fix names it (the
            rule's hint with its id), an edit the range's HEAD holds gets the branch's fix
            (:func:`._fixes.rebase_fix`: drop the commits), an edited, then deleted object
            is said as the gate says it (:func:`._edited_deleted.said_in_range`); None: as
            ``verify`` says it of the history of ``at`` (the rule's hint;
            :func:`._fixes.edited_fix` of an edit ``at`` holds, :func:`._fixes.restored_fix`
            of one it holds restored, :func:`._edited_deleted.said_in_history`).
        at: the revision whose history ``commits`` is, as a message names it.

    Returns:
        KI401 (modified, including a change of file type), KI402 (deleted), KI403 (renamed),
        each naming the object path and the commit (``extra["commit"]``) and the parent it
        differs from (``extra["parent"]``).

    Raises:
        ObjectUnreadable: a tree of a commit walked (or of the tip, for an edited path) is
            damaged or missing.
    """
    # Lazy: pygit2 loads only when a command touches git (`kistore --help` must not).
    import pygit2

    findings = []
    tip = None
    went: dict[str, list[Any]] = {}  # an object path -> the commits deleting no object there
    blobs: dict[str, str] = {}  # a changed object's path -> the object's blob id
    bases: dict[tuple[str, str], Any] = {}
    deleted = pygit2.enums.DeltaStatus.DELETED
    added = pygit2.enums.DeltaStatus.ADDED
    # Only the same bytes at another path are a move. By similarity (git's default, 50%)
    # any deleted object paired with any added one: two small manifests of one kind are
    # alike, and "renamed to <an unrelated new object>" hid a deletion (KI402).
    exact_renames = pygit2.enums.DiffFind.FIND_RENAMES | pygit2.enums.DiffFind.\
        FIND_EXACT_MATCH_ONLY
    for commit in commits:
        tip = tip or commit
        new = objects_tree(repo, commit.tree)
        where = f"in commit {str(commit.id)[:12]} ({first_line(commit.raw_message)})"
        # what this commit does to each path, against each parent it does it to: a merge
        # that differs from both parents in the same way is one finding naming both
        mine: dict[tuple[Any, ...], list[str]] = {}
        for parent in commit.parents:
            old = objects_tree(repo, parent.tree)
            if old is None or (new is not None and old.id == new.id):
                continue
            deltas = _in_place_changes(repo, old, new)
            if deltas is None:  # something went or changed type: libgit2 pairs renames
                diff = old.diff_to_tree(new) if new is not None else old.diff_to_tree()
                deltas = [d for d in diff.deltas if d.status != added]
                if any(d.status == deleted for d in deltas) and new is not None:
                    diff.find_similar(flags=exact_renames)
                    deltas = [d for d in diff.deltas if d.status != added]
            others = [p for p in commit.parents if p.id != parent.id]
            for d in deltas:
                if others and _from_another_side(repo, d.old_file.path, new, parent, others,
                                                 bases):
                    continue
                if not _was_object(repo, d.old_file):
                    if d.status == deleted:  # an edited object's end, if a KI401 names it
                        went.setdefault(f"{layout.OBJECTS_DIR}/{d.old_file.path}",
                                        []).append(commit)
                    continue  # a copy or misnamed file: never an object (KI101 said so)
                blobs[f"{layout.OBJECTS_DIR}/{d.old_file.path}"] = str(d.old_file.id)
                mine.setdefault(_change(d, where), []).append(str(parent.id))
        for (rule_, path, message, expected, found), parents in mine.items():
            extra: dict[str, Any] = {"commit": str(commit.id), "parent": parents[0]}
            if len(parents) > 1:
                extra["parents"] = parents
                message += (f", against {'both' if len(parents) == 2 else 'all'} parents "
                            f"({' and '.join(p[:12] for p in parents)}) alike")
            findings.append(Finding(rule_, message, file=path, extra=extra,
                                    expected=expected, found=found,
                                    fix=None if base is None else _fix(rule_, base, path)))
    if went and tip is not None:
        findings = [_then_deleted(repo, f, went, tip, base, at) for f in findings]
    if tip is not None and any(f.rule is OBJECT_MODIFIED for f in findings):
        findings = _edit_fixes(repo, findings, tip.tree, blobs, base, at, went)
    return findings


def _edit_fixes(repo: pygit2.Repository, findings: list[Finding], tip: Any,
                blobs: dict[str, str], base: Base | None, at: str,
                went: dict[str, list[Any]] | None = None) -> list[Finding]:
    """Give each KI401 on a path the walk's tip holds the fix of what the tip holds there.

    One lookup of each such path in ``tip`` (the walk's tip: the range's ``HEAD``, or
    ``at``); a path it lacks is :func:`_then_deleted`'s. Until 2026-12-05 (depth96) this
    was decided after the walk, from the findings' texts (reviewer fresh95 F4, break95 M1).

    Args:
        repo: the repository.
        findings: the walk's findings, in its order (tip first).
        tip: the tip's root tree.
        blobs: each changed object's path -> the object's blob id (the bytes its digest names).
        base: the gate's BASE; None: ``verify``'s words.
        at: the revision ``verify`` reads, as the fixes name it.
        went: each object path -> the walk's commits deleting it after an edit (a restored
            object's fix names them too: fresh96 F4).

    Returns:
        ``findings`` in their order; on a path whose KI401 says a byte edit (``expected``:
        the object's blob) each KI401 (a mode change there too) with the fix:

        * the tip holds other bytes (the edit): at the gate the branch's fix naming every
          commit of a KI401 there (:func:`._fixes.rebase_fix`, the words its KI101 gets:
          :func:`.audit.gate_fixes`); in ``verify`` :func:`._fixes.edited_fix` from the
          first such KI401's parent (``extra["parent"]``, holding the original bytes);
        * the tip holds the object's bytes again (a restoring commit):
          :func:`._fixes.restored_fix` naming every commit that edited or deleted it (at
          the gate with BASE's id; until 2026-12-05 the gate gave the rule's hint, "drop the
          commit that changed it", on which the rebase stopped at the emptied restore).

        Raises nothing (a damaged tree on the way was read by the walk already).
    """
    edits: dict[str, list[Finding]] = {}
    for f in findings:
        if f.rule is OBJECT_MODIFIED and f.file and "deleted" not in f.extra:
            edits.setdefault(f.file, []).append(f)
    fixes: dict[str, str] = {}
    for path, said in edits.items():
        blob = blobs[path]
        first = next((f for f in said if f.expected == blob), None)  # bytes, not a mode
        now = treediff.entry_at(repo, tip, path)
        if first is None or now is None:
            continue
        edit, before = str(first.extra["commit"])[:12], str(first.extra["parent"])[:12]
        if str(now.id) == blob:  # oldest first: the walk goes from the tip
            changed = [str(f.extra["commit"]) for f in reversed(said)] + [
                str(c.id) for c in reversed((went or {}).get(path, []))]
            fixes[path] = restored_fix(changed, at) if base is None else restored_fix(
                changed, "HEAD", base.rebase())
        elif base is not None and base.staged:
            fixes[path] = staged_fix("an object's bytes edited", path,
                                     "objects are never edited: add a new manifest instead")
        elif base is not None:
            fixes[path] = rebase_fix(
                "an object's bytes edited", [str(f.extra["commit"]) for f in said],
                "restoring them", "the edit", "KI401", path, base.rebase_args,
                "objects are never edited: add a new manifest instead")
        else:
            fixes[path] = edited_fix(path, before, edit, at)
    return [dataclasses.replace(f, fix=fixes[f.file]) if f.file in fixes
            and f.rule is OBJECT_MODIFIED and "deleted" not in f.extra else f
            for f in findings]


def _then_deleted(repo: pygit2.Repository, f: Finding, went: dict[str, list[Any]], tip: Any,
                  base: Base | None, at: str) -> Finding:
    """Return a KI401 whose path later commits delete and ``tip`` lacks, said so; else ``f``.

    ``went``: each object path -> the walk's commits deleting bytes no object's there.
    """
    gone = went.get(f.file or "")
    if f.rule is not OBJECT_MODIFIED or not gone or \
            treediff.entry_at(repo, tip.tree, f.file or "") is not None:
        return f
    return said_in_range(f, gone, base.rebase_args) if base else said_in_history(f, gone, at)


def _was_object(repo: pygit2.Repository, old: Any) -> bool:
    """Return whether a file a commit changes, moves or deletes was an object in its parent.

    An object is a regular file whose bytes hash to the digest its path names
    (:func:`kistore.core.layout.digest_from_path`). Anything else under ``store/objects/``
    never was one: a copy of a stored object under another digest's name, a file renamed
    by hand (``NAME.json.bak``), tampered bytes. Its arrival was the contents check's
    (KI101, KI110, with ``rm``/``mv`` as the fix), so taking it away again, in the work
    tree or in a later commit of a pull request, deletes, renames or modifies no object
    (reviewer r92 F12: following ``rm`` in a fixing commit gave KI402 "objects are never
    deleted", and ``mv`` back a second KI403 calling the misnamed path a renamed object).
    Only a finding's file is read (one blob, rare: every such change is an error).

    Args:
        repo: the repository.
        old: the parent's side of the change (a ``pygit2.DiffFile`` or :class:`_Side`:
            ``path`` below ``store/objects/sha256``, ``id``, ``mode``).

    Returns:
        False when ``old`` is plainly no object (its path names no digest, it is no regular
        file, or its bytes hash to another digest); True otherwise, also when its blob
        cannot be read or is past the default manifest limit (judged as before: an object).
    """
    digest = layout.digest_from_path(f"{layout.OBJECTS_DIR}/{old.path}")
    if digest is None or old.mode not in _REGULAR:
        return False
    try:
        data = read_blob_within(repo, old.id, DEFAULT.manifest_bytes)
    except KistoreError:  # damaged or not fetched: judged as an object, as before
        return True
    return isinstance(data, int) or Digest.of(data) == digest


def _change(delta: Any, where: str) -> tuple[Any, str, str, str | None, str | None]:
    """``(rule, object path, message, expected, found)`` of what one diff delta does.

    Args:
        delta: a ``pygit2.DiffDelta`` (or :class:`_InPlace`) of the objects tree, not an
            addition.
        where: ``in commit ID (SUBJECT)``, ending the message.
    """
    # Lazy: pygit2 loads only when a command touches git (`kistore --help` must not).
    import pygit2

    path = f"{layout.OBJECTS_DIR}/{delta.old_file.path}"
    old, new = delta.old_file, delta.new_file
    if delta.status == pygit2.enums.DeltaStatus.RENAMED:
        return (OBJECT_RENAMED, path, f"renamed to {layout.OBJECTS_DIR}/{new.path} {where}",
                None, None)
    if delta.status == pygit2.enums.DeltaStatus.DELETED:
        return OBJECT_DELETED, path, f"deleted {where}", None, None
    if old.id == new.id and old.mode != new.mode:
        # same bytes, only the file mode moved (chmod +x): say so, not "modified" with two
        # equal blob ids
        return (OBJECT_MODIFIED, path, f"mode changed {old.mode:o} -> {new.mode:o} {where}",
                f"{old.mode:o}", f"{new.mode:o}")
    return OBJECT_MODIFIED, path, f"modified {where}", str(old.id), str(new.id)


class _Side(NamedTuple):
    """One side of an in-place change, as a libgit2 ``DiffFile`` names it."""

    path: str
    id: Any
    mode: int


class _InPlace(NamedTuple):
    """A regular file changed in place (bytes or executable bit), as a libgit2 ``DiffDelta``."""

    status: int
    old_file: _Side
    new_file: _Side


_REGULAR = (0o100644, 0o100755)


def _in_place_changes(repo: pygit2.Repository, old: Any, new: Any | None) -> list[_InPlace] | None:
    """Return the regular files changed in place between two objects trees, else None.

    Read by :func:`kistore.git.treediff.changed_leaves`, which skips unchanged shards: a
    commit that adds one manifest costs a few tree reads instead of libgit2 reading every
    shard of both trees (262 ms at 100,000 manifests). Added files are left out (adding is
    allowed). None when a file went or changed type: such a difference is left to libgit2's
    diff, whose exact rename detection decides KI402 against KI403.
    """
    if new is None:
        return None
    # Lazy: pygit2 loads only when a command touches git (`kistore --help` must not).
    import pygit2

    modified = pygit2.enums.DeltaStatus.MODIFIED
    deltas = []
    for path, (was, now) in treediff.changed_leaves(repo, old.id, new.id).items():
        if was is None:
            continue  # added
        if now is None or was[1] not in _REGULAR or now[1] not in _REGULAR:
            return None
        deltas.append(_InPlace(modified, _Side(path, *was), _Side(path, *now)))
    return deltas


def _from_another_side(repo: pygit2.Repository, path: str, merged: Any, parent: Any,
                       others: list[Any], bases: dict[tuple[str, str], Any]) -> bool:
    """Return True when a merge's difference from ``parent`` at ``path`` is another side's.

    That is: another parent has what the merge has at ``path`` (the same blob and mode, or
    both lack it), and the merge base of ``parent`` and that other parent held ``path``, so
    the change was made (and is reported) in the history between that base and one of the
    two. Without a merge base, or when the base lacks ``path``, the difference is the
    merge's own.

    Args:
        repo: the ``pygit2.Repository``.
        path: relative to ``store/objects/sha256``.
        merged: the merge's objects tree (None when it has none).
        parent: the parent the difference is from (``pygit2.Commit``).
        others: the merge's other parents (``pygit2.Commit``).
        bases: a cache of objects trees of merge bases, by pair of commit ids.
    """
    mine = _entry(merged, path)
    for other in others:
        if _entry(objects_tree(repo, other.tree), path) != mine:
            continue
        key = (str(parent.id), str(other.id))
        if key not in bases:
            base = repo.merge_base(parent.id, other.id)
            bases[key] = objects_tree(repo, repo[base].tree) if base is not None else None
        if _entry(bases[key], path) is not None:
            return True
    return False


def _entry(tree: pygit2.Tree, path: str) -> tuple[str, int] | None:
    """Return (blob id, file mode) at ``path`` of a tree (None: no tree or no such path)."""
    if tree is None:
        return None
    try:
        found = tree[path]
    except KeyError:
        return None
    return str(found.id), found.filemode


def ancestry(repo: pygit2.Repository, head: Any, hide: Any = None,
             verdict: LooseVerdict | None = None) -> Iterator[Any]:
    """Yield the commits reachable from ``head`` and not from ``hide`` (as ``git rev-list``).

    libgit2's topological walk, guarded (it loops on a loose commit cut short: F3): with no
    ``hide``, every commit of ``head``'s history is read first
    (:func:`kistore.git.blobs.read_loose_history`); with one, what the range needs
    (:func:`kistore.git.range_guard.walk_range`: the loose files, the range's root trees
    and its parents'), so a pull request's gate costs the range, not the history.

    Args:
        repo: the ``pygit2.Repository``.
        head: the tip commit.
        hide: a commit whose ancestors (itself included) are left out, or None.
        verdict: with ``hide``, the gate run's guard verdict
            (:class:`kistore.git.range_guard.LooseVerdict`, the loose files scanned once a
            run); None: a scan of its own.

    Raises:
        ObjectUnreadable, CommitUnparsable: damage the walk meets, named by its id.
    """
    # Lazy: pygit2 loads only when a command touches git (`kistore --help` must not).
    import pygit2

    if hide is None:  # the whole history: every commit of it read first
        read_loose_history(repo, head.id)  # libgit2 loops on a cut loose commit (F3)
        yield from repo.walk(head.id, pygit2.enums.SortMode.TOPOLOGICAL)
        return
    # a range: its cost, not the history's (gate96: :mod:`kistore.git.range_guard`)
    yield from walk_range(repo, head.id, hide.id, pygit2.enums.SortMode.TOPOLOGICAL, verdict)


def check_history(store: Store, at: str | None = None, *, worktree: bool = True
                  ) -> list[Finding]:
    """Check that objects are append-only across the history of ``at`` (or ``HEAD``).

    With ``at=None`` in a work tree, also reports objects deleted or modified in the work
    tree or index relative to ``HEAD`` (what the next commit would do).

    Args:
        store: a :class:`kistore.store.Store`.
        at: revision, or None for the current branch and work tree.
        worktree: False leaves out the work tree and index (``verify`` asks
            :func:`worktree_changes` for them once its workers have read every object).

    Returns:
        KI401/KI402/KI403 findings, sorted by file. An empty repository has none.

    Raises:
        InputError: when ``at`` names no commit.
    """
    repo = store.repo
    if at is None and repo.head_is_unborn:
        return []
    head = store.commit(at or "HEAD")
    findings = history_findings(repo, ancestry(repo, head), at=at or "HEAD")
    if at is None and store.root is not None and worktree:
        findings += _worktree_changes(repo, store.skipped())
    return sorted(findings, key=sort_key)


def worktree_changes(store: Store, objects: dict[str, bytes] | None = None) -> list[Finding]:
    """KI401 and KI402 of what the index or work tree change in ``HEAD``'s objects.

    The work-tree part of :func:`check_history` (``at=None``), with the same findings.
    Asking git for the status of every file stats every file under ``store/`` and loads
    every index entry (~2.4 s at 100,000 manifests); ``objects``, the work tree's objects
    as ``verify``'s workers read them, usually settle it at once: when the tree those blob
    ids and modes make is ``HEAD``'s objects tree and git's index holds ``HEAD``'s objects
    (:func:`_objects_unchanged`), nothing changed. Any doubt asks git, as before.

    Args:
        store: a :class:`kistore.store.Store`.
        objects: every object file of the work tree (a repository path of the layout) ->
            its git tree entry as read: mode (``b"100644"`` or ``b"100755"``) and a space,
            then the blob id of the bytes read (20 raw bytes); None (or a file not read):
            ask git.

    Returns:
        KI401/KI402 findings (KI113 when git could not read the attributes), sorted by file;
        none in a bare repository or one without commits.

    Raises:
        StoreStateError: git's index cannot be read (a split index).
        ObjectUnreadable: a tree of ``HEAD``'s objects is damaged or missing (git's status
            could not read it).
    """
    repo = store.repo
    if store.root is None or repo.head_is_unborn:
        return []
    return sorted(_worktree_changes(repo, store.skipped(), objects), key=sort_key)


def _worktree_changes(repo: pygit2.Repository, skipped: SkipWorktree | None = None,
                      objects: dict[str, bytes] | None = None) -> list[Finding]:
    """Objects the index or work tree deletes or changes relative to ``HEAD``.

    Args:
        repo: the repository (with a work tree).
        skipped: in a sparse checkout, the paths outside it (:mod:`kistore.git.sparse`):
            git treats each as holding its index entry's bytes, and so does this check
            (libgit2's status calls them deleted). A sparse index, which libgit2 cannot read, is
            compared by ``git status`` instead.
        objects: the work tree's objects as ``verify``'s workers read them
            (:func:`worktree_changes`); when they prove nothing changed
            (:func:`_objects_unchanged`), git's status is not asked.
    """
    # Lazy: pygit2 loads only when a command touches git (`kistore --help` must not).
    import pygit2

    flags = pygit2.enums.FileStatus
    deleted = flags.WT_DELETED | flags.INDEX_DELETED
    changed = (flags.WT_MODIFIED | flags.INDEX_MODIFIED | flags.WT_TYPECHANGE
               | flags.INDEX_TYPECHANGE | flags.INDEX_RENAMED | flags.WT_RENAMED)
    findings = []
    blocking = _unreadable_attributes(repo)
    if blocking is not None:  # libgit2 would open it to filter files, and wait for ever
        shown, kind = blocking
        # .git/info/attributes: KI116 says it ("not a regular file"), with its fix
        return [not_regular_gitattributes(kind)] if shown == ".gitattributes" else []
    try:
        if objects is not None and _objects_unchanged(repo, objects, skipped):
            return []
        # git opens every attributes file to filter the files it hashes: a FIFO among them
        # and it waits for ever (fresh11 M3); looked at here, never on the path above
        # Lazy: the guard (and its git child) only when git's status is asked.
        from ..git.attr_guard import refuse_blocking_attributes

        refuse_blocking_attributes(repo, "git's status of the work tree",
                                   writes=False)  # verify and check read only (fresh13 9)
        if skipped is not None and skipped.sparse_index:
            statuses = _git_status(repo, flags)
        else:
            statuses = repo.status(untracked_files="no")
    except pygit2.GitError as e:  # e.g. a split index, which libgit2 cannot read
        _read_objects_trees(repo)  # or a tree of HEAD that is missing: ObjectUnreadable
        raise StoreStateError(
            f"the git index cannot be read ({e}): a split index is not supported; "
            "run `git update-index --no-split-index`, or "
            "verify a commit with --at HEAD", file=str(Path(repo.path) / "index")) from None
    lock = index_lock(repo.path)
    for path, status in sorted(statuses.items()):
        if not path.startswith(layout.OBJECTS_DIR + "/"):
            continue
        if skipped is not None and path in skipped and status & flags.WT_DELETED:
            # outside the sparse checkout: git holds it as its index entry, not deleted (a
            # change staged there is the index's, as in a full checkout)
            status &= ~int(flags.WT_DELETED)
            if not status:
                continue
        if not _head_object(repo, path):
            continue  # HEAD's file there is no object (a copy committed): taking it away is not
        if status & flags.INDEX_DELETED and _worktree_holds_head(repo, path):
            # HEAD and the work tree hold the same bytes; only git's index lacks the file.
            findings.append(Finding(OBJECT_DELETED, _index_behind(lock), file=path))
        elif status & deleted:
            findings.append(Finding(OBJECT_DELETED, "deleted in the work tree or index "
                                    "(present in HEAD)", file=path))
        elif status & changed:
            modes = _mode_change(repo, path)
            if modes is not None:
                findings.append(Finding(
                    OBJECT_MODIFIED, f"mode changed {modes[0]:o} -> {modes[1]:o} in the work "
                    "tree or index (same bytes as HEAD)", file=path,
                    expected=f"{modes[0]:o}", found=f"{modes[1]:o}"))
            else:
                findings.append(Finding(OBJECT_MODIFIED, "modified in the work tree or index "
                                        "(HEAD holds other bytes)", file=path))
    return findings


def _head_object(repo: pygit2.Repository, path: str) -> bool:
    """Return whether ``HEAD``'s file at ``path`` is an object (:func:`_was_object`).

    True when ``HEAD`` has no entry there (git's status named it: judged as before).
    """
    commit = head_commit(repo)
    entry = None if commit is None else treediff.entry_at(repo, commit.tree, path)
    if entry is None:
        return True
    return _was_object(repo, _Side(path[len(layout.OBJECTS_DIR) + 1:], entry.id,
                                   entry.filemode))


def _read_objects_trees(repo: pygit2.Repository) -> None:
    """Read every tree of ``HEAD``'s ``store/objects``, each through the guard.

    Asked when git's status of the work tree failed: a tree of ``HEAD`` that is missing or
    damaged (an objects shard) fails it as a split index does, and is named so, not
    blamed on the index (review73 F1: ``verify --at HEAD`` named it, KI117).

    Raises:
        ObjectUnreadable: a tree on the way or below is damaged or missing (its id and
            repository path).
    """
    head = head_commit(repo)
    top = None if head is None else treediff.subtree_id(repo, head.tree, layout.OBJECTS_DIR)
    if top is not None:
        treediff.files_below(repo, top, layout.OBJECTS_DIR + "/")


def _git_status(repo: pygit2.Repository, flags: Any) -> dict[str, int]:
    """``repo.status()`` of ``store/objects`` as git reports it (a sparse index: libgit2 fails)."""
    index_side = {"D": flags.INDEX_DELETED, "M": flags.INDEX_MODIFIED,
                  "T": flags.INDEX_TYPECHANGE}
    work_side = {"D": flags.WT_DELETED, "M": flags.WT_MODIFIED, "T": flags.WT_TYPECHANGE}
    found = {}
    for path, xy in git_status(Path(repo.workdir), layout.OBJECTS_DIR).items():
        status = int(index_side.get(xy[0], 0)) | int(work_side.get(xy[1:2], 0))
        if status:
            found[path] = status
    return found


def _objects_unchanged(repo: pygit2.Repository, objects: dict[str, bytes],
                       skipped: SkipWorktree | None = None) -> bool:
    """Return True when neither the index nor the work tree changes ``HEAD``'s objects.

    Proven, not guessed, else False (the caller asks git's status):

    - the work tree: the tree made of ``objects`` (:func:`worktree_changes`; each file's
      mode and the blob id of the bytes read, shard by shard) has the id of ``HEAD``'s
      ``store/objects/sha256``. Equal ids are equal trees: the same object paths, each
      with the same bytes and mode (a file modified, deleted, added, made executable or
      not read changes the id). git would hash the same bytes: the store's
      ``.gitattributes`` turns every conversion off (:func:`_no_conversion`);
    - the index: its entries under ``store/objects/`` are ``HEAD``'s, with no conflict
      (:func:`_index_holds_head_objects`: no file read or stat; in a sparse checkout from
      ``skipped``, what git already said).

    Where ``git status`` trusts a file's stat data and this reads its bytes, this is the
    stricter: a file changed behind an unchanged stat fails here, and git is asked.
    """
    commit = head_commit(repo)  # guarded: libgit2 loops on a cut loose HEAD (r72-2)
    head = objects_tree(repo, commit.tree) if commit is not None else None
    if head is None or not _no_conversion(repo):
        return False
    # git ignores the executable bit when core.filemode is false: a file is then 100644
    # here, and HEAD's 100755 (if any) differs, so git is asked
    filemode = repo.config.get_bool("core.filemode") if "core.filemode" in repo.config \
        else True
    shards: dict[bytes, dict[bytes, tuple[bytes, bytes]]] = {}
    cut = len(layout.OBJECTS_DIR) + 1
    for path, entry in objects.items():
        if len(entry) != 27 or path[cut + 2:cut + 3] != "/":
            return False  # not read (too large, gone) or not a shard's file
        shards.setdefault(path[cut:cut + 2].encode(), {})[path[cut + 3:].encode()] = (
            entry[:6] if filemode else b"100644", entry[7:])
    top = {shard: (b"40000", treediff.tree_id(files)) for shard, files in shards.items()}
    if treediff.tree_id(top).hex() != str(head.id):
        return False
    return _index_holds_head_objects(repo, skipped)


def _index_holds_head_objects(repo: pygit2.Repository, skipped: SkipWorktree | None = None
                              ) -> bool:
    """Return True when git's index holds ``HEAD``'s objects exactly (no conflict either).

    In a sparse checkout ``skipped`` (:func:`kistore.git.sparse.skip_worktree`) already
    holds git's answer for every store path (:attr:`SkipWorktree.changed`: the index's
    entries that differ from ``HEAD``'s or are unmerged), read from this index and
    ``HEAD``: no git child is started. Otherwise ``git diff --cached --quiet HEAD --
    store/objects/``: git reads the index and skips every directory its cached tree says
    is unchanged (~0.2 s of CPU at 100,000 manifests; loading the index's 300,000 entries
    through libgit2 took 0.5-1 s). Not ``git diff-index``: git 2.39's expands a sparse
    index to every file (seconds at millions, and a warning on stderr). git runs at the
    top of the work tree (``-C``): from a subdirectory it would read the path as below it.
    False when git says they differ, or cannot be run or cannot read the index (status is
    asked then, and says what).
    """
    if skipped is not None and skipped.changed is not None:
        prefix = layout.OBJECTS_DIR + "/"
        return not any(path.startswith(prefix) for path in skipped.changed)
    try:
        done = subprocess.run(
            ["git", "-C", repo.workdir, "--git-dir", repo.path, "--work-tree", repo.workdir,
             "diff", "--cached", "--quiet", "--no-ext-diff", "--no-textconv", "--no-relative",
             "HEAD", "--", layout.OBJECTS_DIR + "/"],
            capture_output=True, check=False, env=git_environment())
    except OSError:  # no git command
        return False
    return done.returncode == 0


def _no_conversion(repo: pygit2.Repository) -> bool:
    """Return True when git hashes a work-tree object's bytes as they are.

    The work tree's ``.gitattributes`` holds the store's line
    (:data:`kistore.core.layout.GITATTRIBUTES_LINE`: no end-of-line, filter, ident or
    encoding conversion under ``store/``) with no later line setting one again, and no
    ``.git/info/attributes`` (which outranks it) exists. ``.gitattributes`` files below
    the top are the caller's to rule out (``verify`` lists every file under ``store/``).
    """
    if (Path(repo.path) / "info" / "attributes").exists():
        return False
    top = Path(repo.workdir) / ".gitattributes"
    try:
        data = top.read_bytes() if not top.is_symlink() else b""
    except OSError:
        return False
    store_line = GITATTRIBUTES_LINE.split()
    return any(line.split() == store_line
               for line in data.decode("utf-8", "replace").splitlines()) and \
        not check_gitattributes(data)


def _unreadable_attributes(repo: pygit2.Repository) -> tuple[str, str] | None:
    """Return the attributes file git would read that is not a regular file, else None.

    The work tree's top ``.gitattributes`` and ``.git/info/attributes`` (a symlink is
    judged by what it points to), with what it is (``a FIFO``).
    """
    for path, shown in ((Path(repo.workdir) / ".gitattributes", ".gitattributes"),
                        (Path(repo.path) / "info" / "attributes", ".git/info/attributes")):
        try:
            mode = os.stat(path).st_mode
        except OSError:
            continue
        if not stat.S_ISREG(mode):
            return shown, file_kind(mode)
    return None


def _worktree_holds_head(repo: pygit2.Repository, path: str) -> bool:
    """Return True when the work-tree file at ``path`` has exactly HEAD's bytes (as git hashes)."""
    # Lazy: pygit2 loads only when a command touches git (`kistore --help` must not).
    import pygit2

    try:
        return bool(pygit2.hashfile(str(Path(repo.workdir) / path))
                    == repo.revparse_single("HEAD").peel(pygit2.Tree)[path].id)
    except (OSError, KeyError, pygit2.GitError):
        return False


def _index_behind(lock: Path) -> str:
    """Say that git's index, not the object, is missing a file HEAD and the work tree hold."""
    fix = "run `git reset -q` to bring the index in step with HEAD (the work tree is kept)"
    if lock.exists():  # what a command killed between the branch move and the index leaves
        fix = (f"the lock file {lock} is left (a `git commit` or `kistore add --commit` "
               "killed after the branch moved?): if no git command is running, delete it, "
               "then " + fix)
    return ("in HEAD and in the work tree, but missing from git's index: the index is "
            f"behind HEAD; {fix}")


def _mode_change(repo: pygit2.Repository, path: str) -> tuple[int, int] | None:
    """Return (HEAD's mode, the new mode) when only the file mode of ``path`` changed.

    That is: the index and the work tree hold HEAD's bytes and one of them another mode
    (``chmod +x``); None for any other change.

    Called only for paths ``repo.status`` flags as changed, so reading the file is rare.
    """
    # Lazy: pygit2 loads only when a command touches git (`kistore --help` must not).
    import pygit2

    try:
        head = repo.head.peel(pygit2.Commit).tree[path]
    except KeyError:
        return None
    if head.type_str != "blob":
        return None
    try:
        staged = repo.index[path] if path in repo.index else None
    except pygit2.GitError:  # a sparse index (libgit2 cannot read it): HEAD's entry stands
        staged = None
    if staged is not None and staged.id != head.id:
        return None
    full = os.path.join(repo.workdir, path)
    try:
        if os.path.islink(full) or pygit2.hashfile(full) != head.id:
            return None
        executable = os.stat(full).st_mode & 0o100
    except OSError:
        return None
    filemode = repo.config.get_bool("core.filemode") if "core.filemode" in repo.config else True
    index_mode = staged.mode if staged is not None else head.filemode
    work_mode = (0o100755 if executable else 0o100644) if filemode else index_mode
    for mode in (index_mode, work_mode):  # the index's change first: it is the next commit's
        if mode != head.filemode:
            return head.filemode, mode
    return None

