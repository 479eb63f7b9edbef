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
bytes are not the object its path names. A metadata or names file brought that HEAD
does not hold as brought is judged as the commit bringing it holds the store (hist01): a
checkout of that commit, ``verify --at`` it, and a citation's permalink to it (the commit
that first added a manifest) read that tree, so KI203 (no object for the metadata file)
and KI212 (a names record its commit's manifests disagree with) hold at every commit. The
cost follows the change: one path test per file brought, one set lookup per object,
metadata or names file, and a blob read and hash (an object), one tree lookup (a metadata
file) or a record read and two lookups and reads (a names file) only of a file HEAD no
longer holds as brought (rare: a stored file is added and kept).
"""

from __future__ import annotations

import json
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
from ._names import NAME_PATH_DISAGREES, Named, name_disagreement
from ._rules import (
    EXECUTABLE_FILE,
    METADATA_WITHOUT_OBJECT,
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
         OBJECT_DIGEST_MISMATCH.id: "a file whose bytes are not the object its path names",
         METADATA_WITHOUT_OBJECT.id: "a metadata file whose object that commit lacks",
         NAME_PATH_DISAGREES.id: "a names file that commit's manifests disagree with"}
"""What each rule's file is, as the branch's fix names it (:func:`._fixes.brought_fix`)."""


def stays_in_history(message: str, where: str, base: str, done: str = "removes",
                     meets: str = "the path") -> str:
    """Return ``message`` saying that ``where`` brings the path and a later commit ``done`` it.

    Args:
        message: the finding's message.
        where: the commit bringing it, as messages name it (``commit 0123456789ab``).
        base: the range's BASE (full commit id: the rebase runs as written).
        done: what a later commit of the range does to it (``removes``, ``replaces``).
        meets: what a checkout of that commit meets (``the path``; a metadata file's
            version: ``these bytes``, hist02).
    """
    return (f"{message} ({where} brings it; a later commit of the range {done} it, but that "
            f"commit stays in the history, where a checkout of it meets {meets}: rebuild the "
            f"range without it, e.g. {rebase_command(base)})")


def every_commit(repo: pygit2.Repository, walked: list[Finding],
                 objects: list[tuple[str, str, str]], head: dict[str, Any],
                 trees: tuple[Any, Any], base: Base, commits: list[Any]) -> list[Finding]:
    """KI110, KI111, KI114, KI101, KI203, KI212 of files a commit brings that ``HEAD`` lacks.

    Args:
        repo: the repository.
        walked: the walk's findings (:func:`kistore.check.new_tree_findings` with
            :func:`kistore.check._paths.walk_judge`); those of :data:`LAYOUT_RULES` are read.
        objects: the walk's ``(commit, path, blob id)`` of each regular file brought at an
            object's, a metadata file's or a names file's path (``walk_judge``'s
            ``objects``).
        head: the range's net change under ``store/`` (path -> ``(before, after)``, each
            ``(blob id, mode)`` or None: ``gate._store_changes``), HEAD's side read.
        trees: ``BASE``'s and ``HEAD``'s root trees (a lookup per finding, not per file).
        base: the range's BASE, whose rebase a finding's fix names
            (:attr:`._fixes.Base.rebase_args`, read only when there is one: mend02;
            after ``--rebase-merges`` where the rebase makes a merge again).
        commits: the range's commits (``pygit2.Commit``), whose trees a metadata or names
            file brought is judged in.

    Returns:
        Each finding of a path ``HEAD`` lacks (KI110), or holds with another mode (KI111,
        KI114), but none in a name the walk's KI112 is on (a case pair's copy, a
        ``store/Objects`` directory: one cause); KI101 per object file brought at a path
        ``BASE`` lacks (a change to ``BASE``'s is KI401's) whose bytes hash to another
        digest, unless ``HEAD`` holds those bytes there (the contents check says it). Of a
        metadata or names file brought at a path ``BASE`` lacks (a change to ``BASE``'s is
        KI405's, KI208's) and ``HEAD`` does not hold as brought, as the commit bringing it
        holds the store (a ``git checkout`` of it, a citation's permalink to it, ``show
        --at`` it read that tree, hist01): KI203 when that commit has no object for the
        metadata file; KI212 when the names file is not one digest's record, or that
        digest has no metadata file there, or its manifest is of another kind or name
        (:func:`._names.name_disagreement`). Each names the commit bringing it and has the
        branch's fix: take it out of that commit.

    Raises:
        ObjectUnreadable: a tree of ``HEAD`` is damaged on the way.
    """
    base_tree, head_tree = trees
    pairs = tuple(f.file + "/" for f in walked if f.rule is PATH_CASE_COLLISION and f.file)
    found = [f for f in walked if f.rule in LAYOUT_RULES and f.file
             and not (f.file + "/").startswith(pairs)  # KI112 of the name says it (case99)
             and not _held(repo, head, head_tree, f)]
    at = {f"commit {str(c.id)[:12]}": c for c in commits}  # the walk's `where`
    for where, path, blob in objects:
        before, after = head.get(path, (None, None))
        if after is not None and after[0] == blob:
            continue  # HEAD holds it: the contents check judges it
        if before is not None or (path not in head and treediff.entry_at(
                repo, base_tree, path) is not None):
            continue  # BASE's file: a change to it is KI401's, KI405's, KI208's
        if not path.startswith(_OBJECTS):
            commit = at.get(where)
            said = None if commit is None else _as_held(repo, commit.tree, path, blob)
            if said is not None:
                found.append(replace(said, extra={**said.extra, "commit": where}))
            continue
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


_OBJECTS = layout.OBJECTS_DIR + "/"
_METADATA = layout.METADATA_DIR + "/"


def _as_held(repo: pygit2.Repository, tree: pygit2.Tree, path: str, blob: str) -> Finding | None:
    """KI203 or KI212 of a metadata or names file ``blob`` at ``path`` in a commit's ``tree``.

    A metadata file: one lookup of its object's path. A names file: its bytes read, then
    its digest's metadata file and object (each up to the checking limit; one past it, or
    not JSON, is judged as the contents check judges an unread file: not at all). Returns
    None when the commit's tree agrees. Raises ObjectUnreadable for a damaged tree or blob
    on the way (a damaged or unfetched blob is skipped, as the history rules skip it).
    """
    if path.startswith(_METADATA):
        digest = layout.digest_from_path(path)
        if digest is None or treediff.entry_at(repo, tree, layout.object_path(digest)):
            return None
        return Finding(METADATA_WITHOUT_OBJECT,
                       f"no object file {layout.object_path(digest)}", file=path)
    data = _read(repo, blob)
    if data is None:
        return None
    owner = layout.digest_from_record(data)
    if owner is None:
        return name_disagreement(path, data, None, {})
    obj, meta = layout.object_path(owner), layout.metadata_path(owner)
    named = Named(owner.hex, _field(repo, tree, obj, "kind"), _field(repo, tree, meta, "name"),
                  treediff.entry_at(repo, tree, obj) is not None,
                  treediff.entry_at(repo, tree, meta) is not None)
    return name_disagreement(path, data, owner, {owner.hex: named})


def _read(repo: pygit2.Repository, blob: str) -> bytes | None:
    """Return a blob's bytes up to the checking limit, or None (past it, damaged, unfetched)."""
    try:
        data = read_blob_within(repo, blob, DEFAULT.manifest_bytes)
    except KistoreError:
        return None
    return None if isinstance(data, int) else data


def _field(repo: pygit2.Repository, tree: pygit2.Tree, path: str, key: str) -> str | None:
    """Return the string ``key`` of the JSON object at ``path`` in ``tree``, or None.

    An object's ``kind``, a metadata file's ``name``; None: absent, unread, not JSON, no
    string there.
    """
    entry = treediff.entry_at(repo, tree, path)
    data = None if entry is None or entry.type_str != "blob" else _read(repo, str(entry.id))
    if data is None:
        return None
    try:
        value: Any = json.loads(data)
    except ValueError:
        return None
    value = value.get(key) if isinstance(value, dict) else None
    return value if isinstance(value, str) else None


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
    path, start = f.file or "", base.rebase_args
    done = "removes" if treediff.entry_at(repo, head_tree, path) is None else "replaces"
    return replace(f, message=stays_in_history(f.message, f.extra["commit"], start, done),
                   fix=brought_fix(_WHAT[f.rule.id], path, start,
                                   "nothing else is to be written or removed for it"))
