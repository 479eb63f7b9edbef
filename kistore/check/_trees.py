"""KI423: tree objects git itself would refuse.

A name with ``/``, ``.``, ``..``, or empty; two entries of one name; entries out of order;
bytes that are no entry; a symbolic link git reads as ``.gitmodules``, ``.gitattributes``,
``.gitignore`` or ``.mailmap``. And, kistore's own, a submodule or a ``.gitmodules`` of any
kind (a store repository holds none; review r79 F1).

git checks trees only when asked (``git fsck``, ``receive.fsckObjects``, both off on a
push by default), and a checkout or ``git archive`` flattens a tree to paths: an entry of
``store/`` *named* ``objects/sha256/9c/x.json`` is written as that file, over the one the
``objects`` subtree holds, while kistore (libgit2, lookups by path) reads the subtree's
(review r78 F1). Which entries git refuses is :mod:`kistore.core.tree_entries`'; this
module reads the trees and words the findings.

* :func:`new_tree_findings` (the gate, ``check BASE..HEAD`` and ``pre-receive``): each tree
  a commit of the range brings, one that differs from the tree every parent has at its path:
  what the range changes, from the root down, inside and outside ``store/``. Trees
  equal to a parent's are not read (their parent's commit was judged, or is history
  already held): the cost follows the change (issue 22).
  A push of ``refs/notes/kistore`` too: its trees are read the same way before any note
  is judged (review r80 F4: libgit2 reads the last entry of a name, git serves all).
* :func:`tree_findings` (``verify``, through :func:`kistore.check._paths.check_tree_names`):
  one tree already read; :func:`notes_tree_findings`: every tree of the notes ref's tip.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ..core import tree_entries as te
from ..core.errors import one_line
from ..core.findings import ERROR, Finding, rule
from ..core.layout import NOTES_REF
from ..git import treediff
from ..git.blobs import is_partial_clone, missing, object_type
from ..git.notes import notes_tree
from ._fixes import HINT_BASE, Base

if TYPE_CHECKING:  # pragma: no cover - typing only
    import pygit2

_WHAT_GIT_DOES = {
    te.FULL_PATHNAME: "a name holding '/': git checkout and git archive write it as the "
    "file {path}, in place of what the tree's own directories hold there, while kistore "
    "and `git show REV:PATH` read the directories",
    te.EMPTY_NAME: "an empty name: git checkout refuses the path (\"invalid path\")",
    te.HAS_DOT: "the name '.': git checkout refuses the path (\"invalid path\")",
    te.HAS_DOTDOT: "the name '..': git checkout refuses the path (\"invalid path\"); other "
    "tools would write outside the directory",
    te.DUPLICATE_ENTRIES: "a second entry of this name: git checkout writes one of the two, "
    "and kistore may read the other",
    te.TREE_NOT_SORTED: "entries out of git's order: lookups by path (kistore, `git show "
    "REV:PATH`) may miss an entry that git checkout writes",
    te.ZERO_PADDED_FILEMODE: "a mode with a leading zero: git reads it as the mode without "
    "it (040000: a directory, which a walk of the modes git writes would not look into), "
    "git never writes it",
    te.BAD_FILEMODE: "a mode git does not write (it writes 40000, 100644, 100755, 120000 and "
    "160000): git reads it as the nearest of those",
    te.GITMODULES_SYMLINK: "a symbolic link git reads as .gitmodules on some file system: "
    "git checkout refuses the path (\"invalid path\"), so every clone fails its checkout",
    te.GITATTRIBUTES_SYMLINK: "a symbolic link git reads as .gitattributes on some file "
    "system: git checkout refuses the path and git does not follow it, so the attributes "
    "that keep stored bytes unconverted (KI113) would not hold",
    te.GITIGNORE_SYMLINK: "a symbolic link git reads as .gitignore on some file system: git "
    "checkout refuses the path (\"invalid path\")",
    te.MAILMAP_SYMLINK: "a symbolic link git reads as .mailmap on some file system: git "
    "checkout refuses the path (\"invalid path\")",
    te.SUBMODULE: "a submodule (gitlink): a store repository holds none (under store/ it is "
    "KI111 too); with a .gitmodules it makes clones fetch and check out another repository",
    te.GITMODULES: "a .gitmodules file (on some file system): a store repository holds no "
    "submodule, and git fsck refuses only some of what one can say (gitmodulesName, "
    "gitmodulesUrl, gitmodulesPath: a name like ../../.git/hooks, a url starting with '-')",
}
"""What git does with each kind of entry its fsck refuses (the finding's message)."""

_SOURCE = {False: "git fsck", True: "kistore, not git fsck"}
"""Who refuses an entry (the finding's message): git's fsck, or kistore alone."""

def rebuild_fix(base: Base) -> str:
    """Return KI423's fix for a branch's commit, the rebase naming ``base``; raises nothing.

    Args:
        base: the range's BASE (:class:`._fixes.Base`); :data:`._fixes.HINT_BASE` writes
            the rule's hint, with the word BASE (depth96: the gate printed the word too).
    """
    return ("git never writes such a tree: rebuild the commit with git itself (drop it with "
            f"{base.rebase()}, then `git add` the files and commit again); a server should "
            "also set `receive.fsckObjects = true`")


TREE_ENTRY_INVALID = rule("KI423", "tree-entry-invalid", ERROR, rebuild_fix(HINT_BASE))


def tree_findings(where: str, prefix: str, tree_id: str, entries: list[te.TreeEntry],
                  whole: bool) -> list[Finding]:
    """KI423 for each entry of one tree that git's fsck refuses, and for bytes past them.

    Args:
        where: the commit, as the message names it (``"commit 0123456789ab"``).
        prefix: the tree's path, ``""`` for the root tree, else ending in ``/``.
        tree_id: the tree's id (40 hex digits).
        entries: its entries in its order (:func:`kistore.core.tree_entries.parse_tree`).
        whole: False when bytes of the tree are no entry.

    Returns:
        One finding per problem (:func:`kistore.core.tree_entries.entry_problems`), on
        the path a checkout would write (``prefix`` + name), each naming the commit, the
        tree (path and id), the entry (escaped: :func:`kistore.core.errors.one_line`) and
        what git does with it; ``extra``: ``tree``, ``entry``, ``fsck`` (git's message id).
    """
    tree_path = _tree_path(prefix)
    findings = []
    for index, problem in te.entry_problems(entries):
        name = entries[index][1].decode("utf-8", "replace")
        path = prefix + name
        findings.append(Finding(
            TREE_ENTRY_INVALID,
            f"{where}: tree {one_line(tree_path)} ({tree_id[:12]}) has an entry "
            f"{one_line(repr(name), escaped=True)} "
            f"({_SOURCE[problem in te.KISTORE_ONLY]}: {problem}): "
            + _WHAT_GIT_DOES[problem].format(path=one_line(path)),
            file=path or tree_path, expected="a tree git writes", found=problem,
            extra={"tree": tree_id, "entry": name, "fsck": problem}))
    if not whole:
        findings.append(Finding(
            TREE_ENTRY_INVALID,
            f"{where}: tree {one_line(tree_path)} ({tree_id[:12]}) holds bytes that are no "
            f"entry (git fsck: {te.BAD_TREE}): git and kistore may read different entries",
            file=tree_path, expected="a tree git writes", found=te.BAD_TREE,
            extra={"tree": tree_id, "fsck": te.BAD_TREE}))
    return findings


Judge = Callable[[str, str, list[te.TreeEntry], "list[te.TreeEntry] | None"], list[Finding]]
"""More rules over one tree a walk reads (:func:`kistore.check._paths.walk_judge`): given
the commit (as messages name it), the tree's path prefix, its entries and the entries it
brings (no parent's tree there has one of that mode, name and id; None: all of them are
new), it returns its findings."""


def new_tree_findings(repo: pygit2.Repository, commits: Iterable[Any], root: str = "",
                      judge: Judge | None = None, fix: str | None = None) -> list[Finding]:
    """KI423 in every tree the commits bring: trees no parent has at that path.

    From each commit's root tree down, a tree whose id equals the one a parent has at the
    same path is skipped, and so is its whole subtree (judged with that parent, or already
    held); a tree read for one commit is not read again for another. A parent a shallow
    clone lacks counts as none (every tree of the commit is read). Of a tree read, each
    entry no parent's tree there has with the same mode and id is held to the type its mode
    names (:func:`type_findings`: a header read, not the object).

    Args:
        repo: the ``pygit2.Repository``.
        commits: the range's commits (``pygit2.Commit``).
        root: what the findings' paths start with: ``""`` for a branch, ``"REF:"`` for the
            commits of a notes ref (``refs/notes/kistore:8a/483e...``).
        judge: more rules for each tree read, on the same read (KI115, KI118, KI112 on a
            branch's trees: :func:`kistore.check._paths.walk_judge`); None: KI423 only.
        fix: KI423's fix where the caller knows better than the rule's hint (the gate:
            :func:`rebuild_fix` of its BASE; a notes push: its notes rebuild); None: the
            hint.

    Returns:
        :func:`tree_findings` and :func:`type_findings` of each such tree (with duplicate
        entries, each of them is walked), then the judge's findings, each once; KI423's
        with ``fix``.

    Raises:
        ObjectUnreadable: a tree is damaged, or missing in a partial clone that cannot
            fetch it.
    """
    findings: list[Finding] = []
    read: set[str] = set()
    for commit in commits:
        parents: list[Any] = [repo.get(p) for p in commit.parent_ids]  # None: past a shallow cut
        findings += _walk(repo, f"commit {str(commit.id)[:12]}", root, str(commit.tree_id),
                          [str(p.tree_id) for p in parents if p is not None], read, judge)
    once: list[Finding] = []
    said: set[tuple[str, str | None, str]] = set()  # a name added twice: said once
    for finding in findings:
        key = (finding.rule.id, finding.file, finding.message)
        if key not in said:
            said.add(key)
            once.append(finding if fix is None or finding.rule is not TREE_ENTRY_INVALID
                        else replace(finding, fix=fix))
    return once


def _walk(repo: pygit2.Repository, where: str, root: str, tree_id: str, olds: list[str],
          read: set[str], judge: Judge | None = None) -> list[Finding]:
    """:func:`tree_findings` of ``tree_id`` and the trees below it that ``olds`` lack.

    Args:
        repo: the ``pygit2.Repository``.
        where: the commit, as the message names it.
        root: the tree's path (its findings' paths start with it).
        tree_id: the tree (40 hex).
        olds: the trees the parents have at that path (empty: every tree below is read).
        read: the trees read already (not read again; this walk adds to it).
        judge: more rules for each tree read (:data:`Judge`), or None.
    """
    findings: list[Finding] = []
    partial = is_partial_clone(repo)
    pending: list[tuple[str, str, list[str]]] = [(root, tree_id, olds)]
    while pending:
        prefix, tree_id, olds = pending.pop()
        if tree_id in olds or tree_id in read:
            continue
        read.add(tree_id)
        path = prefix.rstrip("/").rstrip(":") or None
        entries, whole = treediff.tree_entries(repo, tree_id, path)
        findings += tree_findings(where, prefix, tree_id, entries, whole)
        old_entries = [treediff.tree_entries(repo, old, path)[0] for old in olds]
        # set operations, not a loop per entry: a shard holds ~3,900 at 1,000,000 (issue 22)
        held = set().union(*old_entries)
        fresh = list(itertools.filterfalse(held.__contains__, entries))
        typed, refused = type_findings(repo, where, prefix, tree_id, fresh, partial)
        findings += typed
        if judge is not None:
            findings += judge(where, prefix, entries, fresh if olds else None)
        directories = [entry for entry in entries if entry[0] == te.DIRECTORY_MODE]
        before = [_directories(listing) for listing in old_entries] if directories else []
        for _, name, child in directories:
            if child not in refused:
                pending.append((f"{prefix}{name.decode('utf-8', 'replace')}/", child.hex(),
                                [b[name] for b in before if name in b]))
    return findings


def type_findings(repo: pygit2.Repository, where: str, prefix: str, tree_id: str,
                  entries: Iterable[te.TreeEntry], partial: bool
                  ) -> tuple[list[Finding], set[bytes]]:
    """KI423 for each entry whose object is not of the type its mode names.

    git's fsck: "object 3ffd76ca... is a tree, not a blob" (an error); a checkout of such
    an entry fails ("unable to read sha1 file of docs"), so every clone's does (reviewer
    r82 F2: ``100644 docs`` naming a tree that holds ``.git/hooks/post-checkout``). Each
    object's type is read from its header (:func:`kistore.git.blobs.object_type`).

    Args:
        repo: the ``pygit2.Repository``.
        where: the commit, as the message names it.
        prefix: the tree's path (``""`` for the root tree, else ending in ``/`` or ``:``).
        tree_id: the tree's id (40 hex digits).
        entries: the entries to hold to their modes (a gitlink's commit is not looked for).
        partial: the repository is a partial clone: a blob it lacks is promised, not
            missing (a tree it lacks is fetched by the walk).

    Returns:
        ``(findings, refused)``: the findings (``extra["fsck"]``:
        :data:`kistore.core.tree_entries.WRONG_OBJECT_TYPE`; ``found``: what the object
        is) and the ids of the directory entries not to walk into (not a tree).

    Raises:
        ObjectUnreadable: an object's header cannot be read (a damaged loose file or
            pack); a blob the entry names is not in the repository (nor an alternate),
            which is not a partial clone (:func:`kistore.git.blobs.missing`: KI117 on the
            entry's path, "missing", as for a tree the walk cannot find).
    """
    findings: list[Finding] = []
    refused: set[bytes] = set()
    tree_path = _tree_path(prefix)
    for mode, name, oid in entries:
        wanted = te.named_type(mode)
        if wanted is None:
            continue
        entry = name.decode("utf-8", "replace")
        number = object_type(repo, oid, prefix + entry)
        if number is None:
            if wanted == "tree" or partial:  # a tree: the walk reads it (fetched, or KI117)
                continue  # a blob a partial clone lacks is promised, not missing
            raise missing(repo, oid, prefix + entry)
        found = _TYPE_NAMES.get(number, str(number))
        if found == wanted:
            continue
        if wanted == "tree":
            refused.add(oid)
        findings.append(Finding(
            TREE_ENTRY_INVALID,
            f"{where}: tree {one_line(tree_path)} ({tree_id[:12]}) has an entry "
            f"{one_line(repr(entry), escaped=True)} of mode {mode.decode()} that names "
            f"{oid.hex()}, which "
            f"is a {found}, not a {wanted} (git fsck: \"is a {found}, not a {wanted}\"): git "
            f"checkout cannot write {one_line(prefix + entry)} (\"unable to read sha1 "
            "file\"), so every clone's checkout fails", file=prefix + entry,
            expected=f"a {wanted}", found=found,
            extra={"tree": tree_id, "entry": entry, "fsck": te.WRONG_OBJECT_TYPE}))
    return findings, refused


_TYPE_NAMES = {1: "commit", 2: "tree", 3: "blob", 4: "tag"}
"""libgit2's object type numbers, by name (:func:`kistore.git.blobs.object_type`)."""


def _tree_path(prefix: str) -> str:
    """How a message names the tree at ``prefix`` (``the root tree``, ``store``)."""
    return (f"the root tree of {prefix[:-1]}" if prefix.endswith(":")
            else prefix.rstrip("/") or "the root tree")


def _directories(entries: list[te.TreeEntry]) -> dict[bytes, str]:
    """Return ``{name: tree id (hex)}`` of a tree's directory entries."""
    return {name: oid.hex() for mode, name, oid in entries if mode == te.DIRECTORY_MODE}


def whole_tree_findings(repo: pygit2.Repository, where: str, tree_id: str, root: str = ""
                        ) -> list[Finding]:
    """KI423 in one tree and every tree under it (``verify`` of a notes ref's tip).

    Args:
        repo: the ``pygit2.Repository``.
        where: the commit, as the message names it (``"commit 0123456789ab"``).
        tree_id: the root tree's id (40 hex digits).
        root: what the findings' paths start with (``"refs/notes/kistore:"``).

    Returns:
        :func:`tree_findings` of each tree (with duplicate entries, each of them is walked).

    Raises:
        ObjectUnreadable: a tree is damaged or missing.
    """
    return _walk(repo, where, root, tree_id, [], set())


def notes_tree_findings(repo: pygit2.Repository) -> list[Finding]:
    """KI423 in every tree of the tip of ``refs/notes/kistore`` (``verify``).

    git serves every entry of a notes tree, libgit2 (and so kistore) the last of a name:
    a note named twice, or two fan-out subtrees of one name, is read apart (review r80 F4).

    Returns:
        :func:`whole_tree_findings` of the tip's tree, paths ``refs/notes/kistore:...``;
        none without notes.

    Raises:
        ObjectUnreadable: a tree is damaged or missing.
    """
    tip = repo.references.get(NOTES_REF)
    if tip is None:
        return []
    tree = notes_tree(repo, tip.target, NOTES_REF)
    return whole_tree_findings(repo, f"notes commit {str(tip.target)[:12]}", str(tree.id),
                               f"{NOTES_REF}:")
