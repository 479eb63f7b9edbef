"""Each version of ``.gitattributes``, ``.gitignore``, ``kistore.toml`` a range brings (hist02).

The gate judged the top ``.gitattributes`` (KI113) and each ``.gitignore`` (KI119) as
``HEAD`` holds them: ``store/** text eol=crlf`` in one commit, or a line ignoring
``store/objects/sha256/ff/``, taken out again by the next, passed ``check`` and
pre-receive with 0 findings (fresh03 H1), though a checkout of that commit converts the
stored bytes (or a ``git add store`` there leaves files out) as a single commit's would.
So did a ``kistore.toml`` setting ``manifest-bytes = 300`` (or broken TOML): every query
of a checkout of that commit errors. So the version of each such file (and of
``kistore.toml``) at the top of the tree that a commit of the range
brings (no parent holds it; a removed ``.gitattributes`` too, which KI113 refuses) and
``HEAD`` does not hold is judged by the same rules
(:func:`kistore.core.gitattributes.check_gitattributes`,
:func:`._ignored.gitignore_findings`). The cost follows the change: each commit's root
tree listed (a few entries) against its parents', each version read once (up to 1 MiB).
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ..core.findings import Finding
from ..core.git_names import special_file
from ..core.gitattributes import check_gitattributes
from ..core.gitignore import GITIGNORE
from ..core.layout import SETTINGS_FILE
from ..git.blobs import read_blob_within
from ._fixes import Base
from ._ignored import GITIGNORE_BYTES, gitignore_findings
from ._lowered import lowered_limits
from ._metadata_versions import version_said
from ._rules import FILE_TOO_LARGE
from ._settings import settings_findings

if TYPE_CHECKING:  # pragma: no cover - typing only
    import pygit2

    from ..core.limits import Limits
    from ..store import Store

GITATTRIBUTES = ".gitattributes"


def root_versions(store: Store, commits: list[Any], trees: tuple[Any, Any], base: Base,
                  base_limits: Limits | None) -> list[Finding]:
    """KI113, KI119, KI108, KI106/KI107 of each top file's version ``HEAD`` does not hold.

    Args:
        store: the store checked.
        commits: the range's commits (``pygit2.Commit``), newest first.
        trees: ``BASE``'s and ``HEAD``'s root trees.
        base: the range's BASE, whose rebase a finding's fix names.
        base_limits: the ``[limits]`` BASE's ``kistore.toml`` states
            (:meth:`kistore.store.Settings.stated_limits`), which a version lowering one
            is judged from.

    Returns:
        Per commit bringing a version (its blob, or for ``.gitattributes`` its removal)
        that neither ``BASE`` (landed) nor ``HEAD`` (judged as it is) holds at that
        name: the findings of that version
        (:func:`kistore.core.gitattributes.check_gitattributes`; KI106 for one past 1 MiB;
        :func:`._ignored.gitignore_findings`; of ``kistore.toml``, as the gate judges
        ``HEAD``'s, :func:`._settings.settings_findings` and
        :func:`._lowered.lowered_limits`: a walk of that commit's stored files, paid only
        for a version lowering a limit), each naming the commit, with the fix that takes
        it out of it (:func:`._metadata_versions.version_said`). A version is judged once,
        however many commits bring it.

    Raises:
        ObjectUnreadable: a blob or tree read on the way is damaged.
    """
    repo = store.repo
    base_tree, head_tree = trees
    held = (_root_files(base_tree), _root_files(head_tree))
    versions: dict[str, list[tuple[Any, str | None]]] = {}
    for commit in reversed(commits):  # oldest first
        mine = _root_files(commit.tree)
        theirs = [_root_files(p.tree) for p in commit.parents]
        for name in sorted(set(mine).union(*theirs)):
            blob = mine.get(name)
            if all(t.get(name) != blob for t in theirs) and \
                    (blob is not None or name == GITATTRIBUTES):
                versions.setdefault(name, []).append((commit, blob))
    judged: dict[tuple[str, str | None], list[Finding]] = {}
    found: list[Finding] = []
    for name, brought in sorted(versions.items()):
        for n, (commit, blob) in enumerate(brought):
            if any(blob == files.get(name) for files in held):
                continue  # BASE's landed; HEAD's the contents check and range_gitignores judge
            if (name, blob) not in judged:
                judged[name, blob] = _settings(store, commit, base_limits) \
                    if name == SETTINGS_FILE else _judged(repo, name, blob)
            if judged[name, blob]:
                later = brought[n + 1][0] if n + 1 < len(brought) else None
                found += version_said(repo, head_tree, judged[name, blob], commit, later,
                                      base, name, name)
    return found


def _settings(store: Store, commit: Any, base_limits: Limits | None) -> list[Finding]:
    """KI108 of the commit's ``kistore.toml``; KI106/KI107 of its files past a limit it lowers."""
    settings = store.settings(str(commit.id))
    return settings_findings(settings) + lowered_limits(
        store, str(commit.id), set(), base_limits, settings.valid_limits(), settings.data)


def _root_files(tree: pygit2.Tree) -> dict[str, str]:
    """Return ``{name: blob id}`` of a root tree's ``.gitattributes`` and ``.gitignore`` files.

    ``.gitattributes`` and ``kistore.toml`` as the gate reads them (that name only); each
    name git reads as ``.gitignore`` on some file system (:func:`._ignored.range_gitignores`'
    own).
    """
    files = {str(e.name): str(e.id) for e in tree
             if e.filemode in (0o100644, 0o100755)
             and (str(e.name) in _NAMED or special_file(str(e.name)) == GITIGNORE)}
    entry = tree[SETTINGS_FILE] if SETTINGS_FILE in tree else None
    if entry is not None and entry.filemode not in (0o100644, 0o100755):
        # a symlink or a directory: the settings read of that commit says what it is
        # (fresh04 H4: one in a middle commit, restored after, passed unjudged)
        files[SETTINGS_FILE] = f"{entry.filemode:o}:{entry.id}"
    return files


_NAMED = (GITATTRIBUTES, SETTINGS_FILE)
"""The top files judged by their own name (a ``.gitignore`` in any spelling git reads)."""


def _judged(repo: pygit2.Repository, name: str, blob: str | None) -> list[Finding]:
    """Return the findings of one version of the root file ``name`` (None: removed)."""
    if name != GITATTRIBUTES:
        return [] if blob is None else gitignore_findings(
            name, read_blob_within(repo, blob, GITIGNORE_BYTES, name))
    data = None if blob is None else read_blob_within(repo, blob, GITIGNORE_BYTES, name)
    if isinstance(data, int):
        return [Finding(FILE_TOO_LARGE, f"the file holds {data:,} bytes, more than the limit "
                        f"of {GITIGNORE_BYTES:,}", file=name,
                        expected=f"at most {GITIGNORE_BYTES:,} bytes", found=f"{data:,} bytes")]
    return [f if f.file else replace(f, file=name) for f in check_gitattributes(data)]
