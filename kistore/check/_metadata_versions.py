"""Each version of a metadata file a range brings, judged as ``HEAD``'s is (hist02).

The contents check reads ``HEAD``'s metadata files: a version one commit of a pull request
brings and a later one replaces (a duplicate key, bytes no longer canonical, ``"title":
42``, restored byte for byte in the next commit) is in no tree it reads, yet stays in
main's history (fresh03 H1). There ``rank --at``, ``export --at``, ``site build --at`` and
a checkout of that commit read it, and each leaves the run out (``export --at`` exits 1).
So each version of a metadata file a commit of the range brings (the walk of
:func:`kistore.check._paths.walk_judge` lists them) that ``HEAD`` does not hold is judged
by the rules of one manifest's files that ``HEAD``'s are judged by
(:func:`kistore.check.audit.check_unit`: KI105, KI102, KI103, KI106, KI107, and the
schema of the manifest's kind, KI104, with the object as that commit holds it), to the
same limits. The cost follows the change: a set lookup per version brought, and each
version ``HEAD`` lacks read once (its object once more), however many commits bring it.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ..core import layout
from ..core.findings import ERROR, Finding
from ..git import treediff
from ._every_commit import stays_in_history
from ._fixes import Base, brought_fix
from ._rules import GIT_OBJECT_UNREADABLE
from .audit import Unit, check_unit
from .lineage import changing_commits

if TYPE_CHECKING:  # pragma: no cover - typing only
    import pygit2

    from ..core.limits import Limits
    from ..store import Store

_METADATA = layout.METADATA_DIR + "/"


def metadata_versions(store: Store, objects: list[tuple[str, str, str]],
                      head: dict[str, Any], trees: tuple[Any, Any], base: Base,
                      commits: list[Any], limits: tuple[int, Limits]) -> list[Finding]:
    """KI102-KI107 of each metadata file's version a commit brings that ``HEAD`` does not hold.

    Args:
        store: the store checked (its views read a commit's files).
        objects: the walk's ``(commit, path, blob id)`` of each regular file brought at an
            object's, metadata file's or names file's path (``walk_judge``'s ``objects``,
            the commit named ``commit 0123456789ab``); its metadata files are read.
        head: the range's net change under ``store/`` (path -> ``(before, after)``, each
            ``(blob id, mode)`` or None: ``gate._store_changes``).
        trees: ``BASE``'s and ``HEAD``'s root trees.
        base: the range's BASE, whose rebase a finding's fix names.
        commits: the range's commits (``pygit2.Commit``), newest first.
        limits: the most bytes a file may hold and the value limits, as the contents
            check holds ``HEAD``'s files to them (``gate._range_files``).

    Returns:
        Each error :func:`kistore.check.audit.check_unit` makes of the version's own
        file (not a warning; not of its object, whose bytes never change: judged where
        ``HEAD`` holds it), once per commit bringing that version, with
        ``extra["commit"]``; its message
        says the later commit replaced or removed it (:func:`._every_commit.
        stays_in_history`), and its fix takes it out of the commit bringing it: the next
        version of the file the branch brings checked out at that commit's ``edit`` stop
        (:func:`._fixes.brought_fix`). A version ``HEAD`` holds (the contents check's) or
        ``BASE`` holds (restored) is not read. A damaged or unfetched blob is skipped, as
        the history rules skip it.

    Raises:
        ObjectUnreadable: a tree on the way is damaged.
    """
    base_tree, head_tree = trees
    order = {f"commit {str(c.id)[:12]}": c for c in commits}
    brought: dict[str, dict[str, Any]] = {}  # path -> blob -> a commit bringing it
    for where, path, blob in objects:
        if path.startswith(_METADATA) and where in order:
            brought.setdefault(path, {}).setdefault(blob, order[where])
    found: list[Finding] = []
    for path, blobs in sorted(brought.items()):
        held = _held(store.repo, head, base_tree, path)
        # each version once (the walk lists a tree once, at the newest commit bringing it)
        judged = {blob: _judged(store, commit, path, limits)
                  for blob, commit in blobs.items() if blob not in held}
        if not any(judged.values()):
            continue
        # the commits bringing a version that fails (every one, not only the one the walk
        # named), and the next changing the file: a lookup per commit, for such a file only
        changing = list(reversed(changing_commits(store.repo, commits, path)))
        for n, commit in enumerate(changing):
            entry = treediff.entry_at(store.repo, commit.tree, path)
            said = judged.get(str(entry.id)) if entry is not None else None
            if said:
                later = changing[n + 1] if n + 1 < len(changing) else None
                found += version_said(store.repo, head_tree, said, commit, later, base)
    return found


def _held(repo: pygit2.Repository, head: dict[str, Any], base_tree: Any, path: str
          ) -> set[str | None]:
    """Return the blob ids ``BASE`` and ``HEAD`` hold at ``path`` (a lookup when unchanged).

    ``HEAD``'s version is the contents check's to judge; ``BASE``'s landed before the
    range (a commit restoring it brings nothing new).
    """
    if path in head:
        return {None if side is None else str(side[0]) for side in head[path]}
    entry = treediff.entry_at(repo, base_tree, path)
    return {None if entry is None else str(entry.id)}


def _judged(store: Store, commit: Any, path: str, limits: tuple[int, Limits]
            ) -> list[Finding]:
    """Return ``check_unit``'s findings of the metadata file at ``path`` as ``commit`` holds it."""
    digest = layout.digest_from_path(path)
    if digest is None:
        return []
    obj = layout.object_path(digest)
    files = store.view(str(commit.id)).files_of([path, obj], limits[0])
    files.value_limits = limits[1]
    unit = Unit(digest.hex, obj if obj in files.modes else None, path, False, True)
    found, _ = check_unit(files, unit)
    # errors only: a warning of a version HEAD no longer holds (KI219 of a title) is not
    # worth rebuilding the branch for; a damaged blob is the history rules' to say
    return [f for f in found if f.file == path and f.severity == ERROR
            and f.rule is not GIT_OBJECT_UNREADABLE]


def version_said(repo: pygit2.Repository, head_tree: Any, findings: list[Finding],
                 commit: Any, later: Any, base: Base, what: str = "a metadata file",
                 path: str | None = None) -> list[Finding]:
    """Return ``findings`` of a file's version ``commit`` brings, naming it and the fix.

    Args:
        repo: the repository.
        head_tree: ``HEAD``'s root tree (whether a later commit removes or replaces it).
        findings: the version's findings (one file, at least one finding).
        commit: the ``pygit2.Commit`` bringing the version.
        later: the next commit of the range bringing a version of the file (another
            version, or its removal); None: none.
        base: the range's BASE, whose rebase the fix names.
        what: what the file is, as the fix names it.
        path: the file the version is of; None: the findings' (a limit ``kistore.toml``
            lowers is said on each stored file past it).

    Returns:
        Each finding with ``extra["commit"]``, its message saying a later commit replaced
        or removed it (:func:`._every_commit.stays_in_history`), and the branch's fix
        (:func:`._fixes.brought_fix`): at the commit's ``edit`` stop, the next version
        checked out (``git rm`` when that is its removal), else the one the commit's first
        parent held, else ``git rm``; dropping the commit is said only when that leaves the
        next one empty (it restores what the commit found), else ``edit`` alone (a drop
        would make it conflict). Raises ObjectUnreadable for a damaged tree on the way.
    """
    path = path or findings[0].file or ""
    where = f"commit {str(commit.id)[:12]}"
    start = base.rebase_args
    parent = treediff.entry_at(repo, commit.parents[0].tree, path) if commit.parents else None
    was = None if parent is None else str(parent.id)
    undo: str | None = None
    if later is not None:
        now = treediff.entry_at(repo, later.tree, path)
        restored = (None if now is None else str(now.id)) == was
        if now is not None:
            undo = f"`git checkout {later.id} -- {path}`"
    else:
        restored = True
        if was is not None:
            undo = f"`git checkout {commit.parents[0].id} -- {path}`"
    done = "removes" if treediff.entry_at(repo, head_tree, path) is None else "replaces"
    rules = ", ".join(dict.fromkeys(f.rule.id for f in findings))
    fix = brought_fix(f"a version of {what} that does not pass ({rules})", path,
                      start, "the version HEAD holds is judged as it is", undo=undo,
                      restored=restored)
    return [replace(f, message=stays_in_history(f.message, where, start, done, "these bytes"),
                    fix=fix, extra={**f.extra, "commit": where}) for f in findings]
