"""Names in the whole tree that a checkout on some machine would turn against it.

Git stores any name, but file systems do not keep them apart: on a case-insensitive or
normalising file system (macOS, Windows) ``Foo`` and ``foo``, or ``é`` as one code point
(NFC) and as ``e`` plus a combining accent (NFD), are one file, and a ``.git`` directory
in a tree (``.GIT``, ``.git.``, ``git~1``, ``.g\\u200cit``: one on some system) is the
repository's own directory there: a checkout writes its hooks and config (the attack of
CVE-2014-9390). So, anywhere in the tree, not only under ``store/``:

* KI115 ``dotgit-path-component``: a path component that is ``.git`` on some file system;
* KI112 ``path-case-collision``: two entries of one directory whose names are equal under
  case folding and Unicode normalisation (files of one ``store/`` directory are left to
  :func:`kistore.check._rules.check_case_collisions`, which ``verify`` and ``check`` run on
  every file under ``store/``).

:func:`check_tree_names` reads every directory (``verify``); :func:`changed_tree_names`
only the directories on the paths a range changes (the gate: the cost follows the change).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from ..core import layout
from ..core.findings import ERROR, Finding, rule
from ..git import treediff
from ._rules import PATH_CASE_COLLISION, name_key, name_keys

if TYPE_CHECKING:  # pragma: no cover - typing only
    import pygit2

    from ..store import Store

DOTGIT = rule(
    "KI115", "dotgit-path-component", ERROR,
    "rename the file or directory: a checkout on some file system would write it into the "
    "repository's own .git directory")

def is_dotgit(name: str) -> bool:
    """Whether a path component is ``.git`` on some file system.

    ``.git`` under case folding and HFS+'s ignored code points, with trailing dots and
    spaces dropped (Windows drops them), or NTFS's short name ``git~1``.
    """
    key = name_key(name).rstrip(". ")
    return key in _DOTGIT_KEYS


_DOTGIT_KEYS = (".git", "git~1")


def check_tree_names(store: Store, at: str | None = None) -> list[Finding]:
    """KI115 and KI112 over every directory of the tree of ``at`` (or ``HEAD``) (``verify``).

    Returns:
        Findings; none in a repository without commits.
    """
    repo = store.repo
    if at is None and repo.head_is_unborn:
        return []
    tree = store.commit(at or "HEAD").tree
    findings: list[Finding] = []
    pending = [("", tree)]
    store_prefix = layout.STORE_DIR + "/"
    while pending:
        prefix, current = pending.pop()
        if prefix.startswith(store_prefix) and _HEX_FILES.fullmatch(current.read_raw()):
            continue  # a shard of digest-named files: nothing here is .git, no file collides
        findings += _directory(prefix, current, None)
        pending += [(f"{prefix}{e.name}/", treediff.subtree(repo, e.id)) for e in current
                    if e.type_str == "tree"]
    return findings


def changed_tree_names(repo: pygit2.Repository, tree: pygit2.Tree, paths: Iterable[str]
                       ) -> list[Finding]:
    """KI115 and KI112 in the directories of ``tree`` on the way to each of ``paths``.

    Args:
        repo: the ``pygit2.Repository``.
        tree: the root tree of the range's head.
        paths: the paths the range adds or changes (anywhere in the tree).

    Returns:
        Findings about names on those paths, and collisions of such a name with another
        entry of its directory.
    """
    wanted: dict[str, set[str]] = {}
    for path in paths:
        parts = path.split("/")
        for i in range(len(parts)):
            wanted.setdefault("/".join(parts[:i]), set()).add(parts[i])
    findings = []
    for directory, names in sorted(wanted.items()):
        current = tree
        if directory:
            try:
                entry = tree[directory]
            except KeyError:
                continue  # deleted along the way
            if entry.type_str != "tree":
                continue
            current = treediff.subtree(repo, entry.id)
        findings += _directory(directory + "/" if directory else "", current, names)
    return findings


def _directory(prefix: str, tree: pygit2.Tree, names: set[str] | None) -> list[Finding]:
    """Return findings about the entries of one directory (those in ``names``, if given)."""
    in_store = prefix.startswith(layout.STORE_DIR + "/")
    if names is not None and in_store and _TREE_ENTRY not in tree.read_raw():
        # Files only (a shard): their collisions are check_case_collisions' (below), so
        # the gate reads the changed names, not the ~4,000 entries of a shard at 1,000,000.
        return [_dotgit(prefix, name) for name in sorted(names)
                if name in tree and is_dotgit(name)]
    findings = []
    children = list(tree)
    entry_names = [str(entry.name) for entry in children]
    keys = name_keys(entry_names)
    for name, key in zip(entry_names, keys, strict=True):
        if (names is None or name in names) and "git" in key and \
                key.rstrip(". ") in _DOTGIT_KEYS:  # is_dotgit(name), its key at hand
            findings.append(_dotgit(prefix, name))
    if len(set(keys)) == len(keys):
        return findings  # no two entries share a key: no collision here
    by_key: dict[str, list[Any]] = {}
    for entry, key in zip(children, keys, strict=True):
        by_key.setdefault(key, []).append(entry)
    for entries in by_key.values():
        if len(entries) < 2:
            continue
        if in_store and all(e.type_str != "tree" for e in entries):
            continue  # files of one store directory: rules.check_case_collisions
        first, *rest = sorted(entries, key=lambda e: e.name)
        for other in rest:
            if names is not None and not ({first.name, other.name} & names):
                continue
            findings.append(Finding(
                PATH_CASE_COLLISION, f"collides with {prefix + first.name} under case folding "
                "or Unicode normalisation (one file on macOS and Windows)",
                file=prefix + other.name, extra={"collides_with": prefix + first.name}))
    return findings


_HEX_FILES = re.compile(rb"(?:100644 [0-9a-f]{62}\.json\0.{20})*", re.DOTALL)
"""A raw tree of regular files named ``<62 hex>.json`` only (an objects or metadata shard):
no such name is ``.git`` anywhere, and collisions of files under ``store/`` are
:func:`kistore.check._rules.check_case_collisions`'s, so :func:`check_tree_names` skips
it (two thirds of a store's entries, ~0.4 s at 100,000 manifests, read as pygit2 entries)."""

_TREE_ENTRY = b"40000 "
"""How a directory entry of a raw git tree object begins (its mode, then a space). Absent
from the bytes: no entry is a directory. Present: maybe one is (an id or a name may hold
these bytes too), so the entries are read one by one."""


def _dotgit(prefix: str, name: str) -> Finding:
    return Finding(DOTGIT, f"{name!r} is .git on some file system", file=prefix + name)
