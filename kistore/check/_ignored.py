"""KI119: no ignore rule over ``store/`` (reviewer r82 F8).

A ``.gitignore`` line matching store paths passed the gate; afterwards ``kistore add`` and
the documented ``git add store`` left the matching object files out of the commit without
a word, ``verify`` said ok, ``git status`` was clean, and the pull request failed on other
files (KI214, KI216). Which lines match is :mod:`kistore.core.gitignore`'s (every path the
layout can hold, under both case rules); this module finds the files and words the
findings:

* :func:`range_gitignores` (the gate): each ``.gitignore`` the range adds or changes at the
  root or under ``store/`` (any name git reads as one on some file system, ``.GITIGNORE``
  on macOS), as ``HEAD`` holds it: the cost follows the change.
* :func:`check_ignored` (``verify``): the root ``.gitignore`` of the verified revision, or
  of the work tree; and in a work tree, every file under ``store/`` git ignores and does
  not track (:func:`kistore.git.ignored.ignored_untracked`: ``.git/info/exclude`` and
  ``core.excludesFile`` too, which no commit carries).
"""

from __future__ import annotations

import os
import stat
from typing import TYPE_CHECKING, Any

from ..core.findings import Finding
from ..core.git_names import special_file
from ..core.gitignore import GITIGNORE, GITIGNORE_STORE, check_gitignore
from ..core.limits import DEFAULT
from ..git import treediff
from ..git.blobs import read_blob_within

if TYPE_CHECKING:  # pragma: no cover - typing only
    import pygit2

    from ..store import Store

IGNORED_FIX = ("remove the rule that matches it (`git check-ignore -v --no-index PATH` names "
               "the file and line: a .gitignore, .git/info/exclude or core.excludesFile), "
               "then `git add store`; `git add -f` adds this file but leaves the rule for "
               "the next")
"""How to fix a store file git ignores in the work tree (KI119 on the file)."""

GITIGNORE_BYTES = DEFAULT.manifest_bytes
"""Most bytes of a ``.gitignore`` read (1 MiB, as ``.gitattributes``): a pull request's
gigabyte ``.gitignore`` is not inflated whole by the gate."""


def gitignore_findings(path: str, data: bytes | int) -> list[Finding]:
    """:func:`check_gitignore` of a ``.gitignore``'s bytes; KI119 when it was too large to read.

    Args:
        path: the file's repository path.
        data: its bytes, or its size (int) when past :data:`GITIGNORE_BYTES`.
    """
    if isinstance(data, bytes):
        if len(data) <= GITIGNORE_BYTES:
            return check_gitignore(path, data)
        data = len(data)  # a partial clone's fetched blob: its bytes, whatever their length
    return [Finding(
        GITIGNORE_STORE, f"the file holds {data:,} bytes, more than the {GITIGNORE_BYTES:,} "
        "kistore reads of a .gitignore: whether a line of it ignores store paths is not "
        "known", file=path, expected=f"at most {GITIGNORE_BYTES:,} bytes",
        found=f"{data:,} bytes", fix="keep each .gitignore under 1 MiB (put rules in the "
        "directories they are for)")]


def range_gitignores(repo: pygit2.Repository, base_tree: pygit2.Tree, head_tree: pygit2.Tree,
                     store_changes: dict[str, Any]) -> list[Finding]:
    """KI119 of each ``.gitignore`` a range adds or changes at the root or under ``store/``.

    Args:
        repo: the ``pygit2.Repository``.
        base_tree: BASE's root tree (``pygit2.Tree``).
        head_tree: HEAD's root tree.
        store_changes: the files under ``store/`` that differ between them
            (``{path: (before, after)}``, :func:`kistore.git.treediff.changed_leaves`).

    Returns:
        :func:`kistore.core.gitignore.check_gitignore` of each such file as HEAD holds it.
    """
    changed = [path for path, (_, now) in store_changes.items() if now is not None
               and special_file(path.rpartition("/")[2]) == GITIGNORE]
    before = _root_ignores(base_tree)
    changed += [name for name, oid in _root_ignores(head_tree).items()
                if before.get(name) != oid]
    findings = []
    for path in sorted(changed):
        entry = treediff.entry_at(repo, head_tree, path)
        if entry is not None and entry.type_str == "blob":
            findings += gitignore_findings(
                path, read_blob_within(repo, entry.id, GITIGNORE_BYTES, path))
    return findings


def _root_ignores(tree: pygit2.Tree) -> dict[str, str]:
    """Return ``{name: blob id}`` of a root tree's files git reads as ``.gitignore``."""
    return {str(e.name): str(e.id) for e in tree
            if e.filemode in (0o100644, 0o100755) and special_file(str(e.name)) == GITIGNORE}


def check_ignored(store: Store, at: str | None = None) -> list[Finding]:
    """KI119 in ``verify``: ignore rules over ``store/``.

    Args:
        store: the repository checked.
        at: the revision verified; None: the work tree (``HEAD`` in a bare repository).

    Returns:
        :func:`kistore.core.gitignore.check_gitignore` of the root ``.gitignore`` (each
        name git reads as one) of ``at``, or of the work tree; and, for a work tree, one
        KI119 per file or directory under ``store/`` git ignores and does not track (its
        next ``git add store`` would leave it out); none of those when the ``git`` program
        cannot be run or refuses the repository (the other checks of ``verify`` need no
        ``git`` program: this one does not fail them).
    """
    if at is not None or store.root is None:
        repo = store.repo
        if repo.head_is_unborn and at is None:
            return []
        tree = store.commit(at or "HEAD").tree
        return [f for name, oid in sorted(_root_ignores(tree).items())
                for f in gitignore_findings(
                    name, read_blob_within(repo, oid, GITIGNORE_BYTES, name))]
    findings = [f for name, data in _work_tree_ignores(store.root)
                for f in gitignore_findings(name, data)]
    # Lazy: a git child process, for a work tree's verify only.
    from ..git.attr_guard import refuse_blocking_attributes
    from ..git.ignored import ignored_untracked

    refuse_blocking_attributes(  # a FIFO .gitignore would make git wait for ever
        store.repo, "`git ls-files --others --ignored --exclude-standard -- store`",
        attributes=False, writes=False)  # verify reads only (fresh13 9)
    found = ignored_untracked(store.repo)
    if isinstance(found, str):  # no git to ask, or it refused (a safe.directory): not told
        return findings
    return findings + [Finding(
        GITIGNORE_STORE, "git ignores this and no commit holds it: `git add store` leaves it "
        "out without a word, and `git status` does not show it", file=path.rstrip("/"),
        expected="no ignore rule over store/", found="ignored by git", fix=IGNORED_FIX)
        for path in found]


def _work_tree_ignores(root: Any) -> list[tuple[str, bytes | int]]:
    """Return (name, bytes) of each file at a work tree's root git reads as ``.gitignore``.

    Regular files only: a FIFO or a directory there is not read. A file past
    :data:`GITIGNORE_BYTES` is (name, its size): not read whole.
    """
    found: list[tuple[str, bytes | int]] = []
    try:
        names = sorted(os.listdir(root))
    except OSError:
        return []
    for name in names:
        if special_file(name) != GITIGNORE:
            continue
        path = os.path.join(root, name)
        try:
            if stat.S_ISREG(os.lstat(path).st_mode):
                with open(path, "rb") as f:
                    data = f.read(GITIGNORE_BYTES + 1)
                    found.append((name, data if len(data) <= GITIGNORE_BYTES
                                  else os.fstat(f.fileno()).st_size))
        except OSError:
            continue
    return found
