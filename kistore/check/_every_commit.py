"""What every commit of a range holds under ``store/``, not only its HEAD (the gate).

The contents check reads ``HEAD``'s files: a file one commit of a pull request brings and
a later one removes (or replaces) is in no tree it reads, yet stays in main's history,
where ``git checkout``, ``git bisect`` and every clone meet it (hist00: a
``store/objects/ab/<digest>.json.bak``, an object's copy one digit off, added then
``rm``-ed, passed the gate and pre-receive). So the walk of the trees the range brings
(:func:`kistore.check._paths.walk_judge`, the one that reads them for KI423) judges each
file brought against the layout (KI110, KI111, KI114), and this module keeps those HEAD
does not hold as they were brought (HEAD's are the contents check's), and hashes each
file brought at an object's path that HEAD lacks or holds other bytes at: KI101 when its
bytes are not the object its path names. The cost follows the change: one path test per
file brought, one set lookup per object file, and a blob read and hash only of a file
HEAD no longer holds as brought (rare: a stored object is added and kept).
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ..core import layout
from ..core.digest import Digest
from ..core.errors import KistoreError
from ..core.findings import Finding
from ..core.limits import DEFAULT
from ..git import treediff
from ..git.blobs import read_blob_within
from ._fixes import Base, brought_fix, rebase_command
from ._rules import (
    EXECUTABLE_FILE,
    NOT_A_REGULAR_FILE,
    OBJECT_DIGEST_MISMATCH,
    PATH_CASE_COLLISION,
    PATH_OUTSIDE_LAYOUT,
)

if TYPE_CHECKING:  # pragma: no cover - typing only
    import pygit2

LAYOUT_RULES = (PATH_OUTSIDE_LAYOUT, NOT_A_REGULAR_FILE, EXECUTABLE_FILE)
"""The rules the walk judges of each file brought under ``store/`` (a path and a mode)."""

_WHAT = {PATH_OUTSIDE_LAYOUT.id: "a file where the store layout has none",
         NOT_A_REGULAR_FILE.id: "a symlink or submodule under store/",
         EXECUTABLE_FILE.id: "an executable file under store/",
         OBJECT_DIGEST_MISMATCH.id: "a file whose bytes are not the object its path names"}
"""What each rule's file is, as the branch's fix names it (:func:`._fixes.brought_fix`)."""


def stays_in_history(message: str, where: str, base: str, done: str = "removes") -> str:
    """Return ``message`` saying that ``where`` brings the path and a later commit ``done`` it.

    Args:
        message: the finding's message.
        where: the commit bringing it, as messages name it (``commit 0123456789ab``).
        base: the range's BASE (full commit id: the rebase runs as written).
        done: what a later commit of the range does to it (``removes``, ``replaces``).
    """
    return (f"{message} ({where} brings it; a later commit of the range {done} it, but that "
            "commit stays in the history, where a checkout of it meets the path: rebuild the "
            f"range without it, e.g. {rebase_command(base)})")


def every_commit(repo: pygit2.Repository, walked: list[Finding],
                 objects: list[tuple[str, str, str]], head: dict[str, Any],
                 trees: tuple[Any, Any], base: Base) -> list[Finding]:
    """KI110, KI111, KI114 and KI101 of files a commit brings that ``HEAD`` does not hold so.

    Args:
        repo: the repository.
        walked: the walk's findings (:func:`kistore.check.new_tree_findings` with
            :func:`kistore.check._paths.walk_judge`); those of :data:`LAYOUT_RULES` are read.
        objects: the walk's ``(commit, path, blob id)`` of each regular file brought at an
            object's path (``walk_judge``'s ``objects``).
        head: the range's net change under ``store/`` (path -> ``(before, after)``, each
            ``(blob id, mode)`` or None: ``gate._store_changes``), HEAD's side read.
        trees: ``BASE``'s and ``HEAD``'s root trees (a lookup per finding, not per file).
        base: the range's BASE, whose rebase a finding's fix names
            (:attr:`._fixes.Base.rebase_id`, read only when there is one: mend02).

    Returns:
        Each finding of a path ``HEAD`` lacks (KI110), or holds with another mode (KI111,
        KI114), but none in a name the walk's KI112 is on (a case pair's copy, a
        ``store/Objects`` directory: one cause); KI101 per object file brought at a path
        ``BASE`` lacks (a change to ``BASE``'s is KI401's) whose bytes hash to another
        digest, unless ``HEAD`` holds those bytes there (the contents check says it). Each names the
        commit bringing it and has the branch's fix: take it out of that commit.

    Raises:
        ObjectUnreadable: a tree of ``HEAD`` is damaged on the way.
    """
    base_tree, head_tree = trees
    pairs = tuple(f.file + "/" for f in walked if f.rule is PATH_CASE_COLLISION and f.file)
    found = [f for f in walked if f.rule in LAYOUT_RULES and f.file
             and not (f.file + "/").startswith(pairs)  # KI112 of the name says it (case99)
             and not _held(repo, head, head_tree, f)]
    for where, path, blob in objects:
        before, after = head.get(path, (None, None))
        if after is not None and after[0] == blob:
            continue  # HEAD holds it: the contents check hashes it
        if before is not None or (path not in head and treediff.entry_at(
                repo, base_tree, path) is not None):
            continue  # BASE's file: a change to it is KI401's (history_findings)
        digest = layout.digest_from_path(path)
        try:
            data = read_blob_within(repo, blob, DEFAULT.manifest_bytes)
        except KistoreError:  # damaged or not fetched: the history rules read it alike
            continue
        if digest is None or isinstance(data, int) or Digest.of(data) == digest:
            continue  # an object (removed: KI402) or past the limit (KI106 where HEAD holds it)
        found.append(Finding(OBJECT_DIGEST_MISMATCH, "sha256 of the file is not its name",
                             file=path, expected=digest.hex, found=Digest.of(data).hex,
                             extra={"commit": where}))
    return [_said(repo, head_tree, f, base) for f in found]


def _held(repo: pygit2.Repository, head: dict[str, Any], head_tree: Any, f: Finding) -> bool:
    """Whether ``HEAD`` holds the path of a walk's layout finding as the finding judges it.

    A path (KI110): any file there. A mode (KI111, KI114): that mode there. Then the
    contents check reports it on ``HEAD``'s file (once, in its words).
    """
    path = f.file or ""
    change = head.get(path)
    if change is not None:  # the net diff read HEAD's side: no lookup
        mode = None if change[1] is None else change[1][1]
    else:  # HEAD holds what BASE holds there (one lookup: a finding's path only)
        held = treediff.entry_at(repo, head_tree, path)
        mode = None if held is None or held.type_str == "tree" else held.filemode
    if mode is None:
        return False
    return f.rule is PATH_OUTSIDE_LAYOUT or f"{mode:o}" == f.extra.get("mode")


def _said(repo: pygit2.Repository, head_tree: Any, f: Finding, base: Base) -> Finding:
    """Return ``f`` naming the commit bringing it, what a later one did, and the branch's fix."""
    path, start = f.file or "", base.rebase_id
    done = "removes" if treediff.entry_at(repo, head_tree, path) is None else "replaces"
    return replace(f, message=stays_in_history(f.message, f.extra["commit"], start, done),
                   fix=brought_fix(_WHAT[f.rule.id], path, start,
                                   "nothing else is to be written or removed for it"))
