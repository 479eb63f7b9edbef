"""What a push could send: the gate on every local ref holding commits a remote lacks.

A ``pre-push`` hook of git's own reads every pushed ref on stdin (``hooks/pre-push``); the
pre-commit framework instead hands its hooks only the first pushed ref, as
``PRE_COMMIT_FROM_REF``/``PRE_COMMIT_TO_REF`` (and nothing when that ref is new to the
remote and starts at a root commit). Its ``kistore-check-push`` hook therefore cannot see
what is pushed; :func:`check_unpushed` checks a superset instead: every local branch, tag
and ``HEAD`` holding commits that no remote-tracking ref of the remote has. A tampered
branch is refused whatever is pushed with it; a branch that is not pushed but is tampered
is refused too (push it, fixed, or delete it). Commits no local ref holds (``git push
REMOTE SHA:refs/heads/x``) are not seen.

For each such ref, the first commit the remote lacks (in topological order) has parents
the remote holds; the gate :func:`kistore.check.gate.check_range` runs from its first
parent to the ref, or, for a history that starts at a root commit, everything the ref's
tree holds and all of its history is checked (as a first push to an empty remote).

A repository holding no store, or a remote name the repository does not have (a typo:
no remote-tracking refs, so every history would be checked under a name that measures
nothing), is an error, not "ok, 0 refs" (:func:`require_store`, :func:`require_remote`).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..core import layout
from ..core.errors import InputError, StoreStateError
from ..core.findings import Finding
from ..git.blobs import head_commit
from .gate import RangeChecker, check_range, whole_history
from .reach import first_unsent, ref_tips, remote_tips

if TYPE_CHECKING:  # pragma: no cover - typing only
    import pygit2

    from ..store import Store


def unpushed_refs(store: Store, remote: str) -> list[tuple[str, str | None, str]]:
    """Return ``(ref, base or None, tip)`` for each local ref holding commits ``remote`` lacks.

    Args:
        store: a :class:`kistore.store.Store`.
        remote: a remote name: its remote-tracking refs (``refs/remotes/REMOTE/*``) are what
            it holds. A URL, or a remote never fetched, has none: every local history is
            unpushed then.

    Returns:
        One entry per branch, tag and ``HEAD`` (a detached or unborn ``HEAD`` too) with a
        commit no remote-tracking ref of ``remote`` reaches, in ref-name order, ``HEAD``
        last and only when no listed ref has its commit; ``base`` is the first parent of
        the ref's oldest such commit (None: it is a root commit). Refs that name no commit
        (a tag of a tree) are left out.
    """
    repo = store.repo
    held = remote_tips(repo, remote)
    found: list[tuple[str, str | None, str]] = []
    tips: set[str] = set()
    for name, tip in ref_tips(repo, "refs/heads/", "refs/tags/"):
        entry = _unpushed(repo, name, tip, held)
        if entry is not None:
            found.append(entry)
            tips.add(entry[2])
    head = head_commit(repo)  # None: unborn; guarded: libgit2 loops on a cut loose HEAD
    if head is not None and str(head.id) not in tips:
        entry = _unpushed(repo, "HEAD", str(head.id), held)
        if entry is not None:
            found.append(entry)
    return found


def check_unpushed(store: Store, remote: str, *, checkers: Sequence[RangeChecker] = ()
                   ) -> tuple[list[Finding], int]:
    """Run the gate on every local ref holding commits ``remote`` lacks.

    Args:
        store: a :class:`kistore.store.Store`.
        remote: the remote pushed to (a name; see :func:`unpushed_refs`).
        checkers: handed to each :func:`kistore.check.gate.check_range` (the rules of
            the layers above the check layer, :data:`kistore.check.gate.RangeChecker`).

    Returns:
        ``(findings, refs)``: every finding of every such ref's range (each finding once,
        however many refs share the commit), and how many refs were checked.

    Raises:
        InputError: ``remote`` is empty or starts with ``-``, or names no remote of the
            repository and is no URL or path either (:func:`require_remote`).
        StoreStateError: the repository is no store (:func:`require_store`): "ok, 0 refs"
            would say a push was checked when nothing was.
    """
    if not remote or remote.startswith("-"):
        raise InputError(f"{remote!r} is not a remote name")
    require_store(store)
    require_remote(store, remote)
    findings: list[Finding] = []
    seen: set[str] = set()
    refs = unpushed_refs(store, remote)
    for _, base, tip in refs:
        found = (check_range(store, f"{base}..{tip}", checkers=checkers) if base
                 else whole_history(store, tip))
        for finding in found:
            if finding.format() not in seen:
                seen.add(finding.format())
                findings.append(finding)
    return findings, len(refs)


def require_store(store: Store) -> None:
    """Refuse a repository that holds no store: neither its work tree nor ``HEAD`` has ``store/``.

    Args:
        store: the repository opened as a :class:`kistore.store.Store`.

    Raises:
        StoreStateError: no ``store/`` folder in the work tree (or in the index's
            sparse checkout, or with a ``kistore.toml`` beside it) and none in ``HEAD``'s
            tree: naming where, and what to do.
    """
    root = store.root
    if root is not None and ((root / layout.STORE_DIR).is_dir()
                             or (root / layout.SETTINGS_FILE).is_file()):
        return
    repo = store.repo
    if not repo.head_is_unborn and layout.STORE_DIR in store.commit("HEAD").tree:
        return
    where = root if root is not None else store.git_dir
    raise StoreStateError(
        f"{where} is no kistore store: neither its work tree nor HEAD holds {layout.STORE_DIR}/, "
        "so there is nothing for the gate to check; run `kistore check --unpushed` in a "
        "store's clone (or name it with `--store PATH`), or make this repository a store "
        "with `kistore init`")


def require_remote(store: Store, remote: str) -> None:
    """Refuse a remote name the repository does not have (a URL or path is taken as given).

    What a push could send is measured against the remote's remote-tracking refs: a
    misspelt name has none, so every local history would be checked whole, under another
    remote's name. ``git push URL`` (a pre-push hook's remote is the URL then) and ``git
    push ../path`` name no configured remote: those are taken as given (every local history
    is unpushed, :func:`unpushed_refs`).

    Args:
        store: the repository.
        remote: what ``--unpushed`` was given.

    Raises:
        InputError: ``remote`` is not one of the repository's remotes and holds no ``/`` or
            ``:`` and is no existing path: listing the remotes, and what to do.
    """
    names = sorted(name for name in store.repo.remotes.names() if name is not None)
    if remote in names or "/" in remote or ":" in remote or os.path.exists(remote):
        return
    listed = ", ".join(names) if names else "none"
    raise InputError(
        f"no remote {remote!r} in this repository (its remotes: {listed}): what a push "
        "could send is measured against a remote's remote-tracking refs; name one of its "
        f"remotes (`git remote -v` lists them), or add this one (`git remote add {remote} "
        f"URL`, then `git fetch {remote}`)")


def _unpushed(repo: pygit2.Repository, name: str, tip: str, held: list[str]
              ) -> tuple[str, str | None, str] | None:
    """Return ``(name, base, tip)`` when ``tip`` has a commit no ``held`` commit reaches."""
    first = first_unsent(repo, tip, held)
    if first is None:
        return None
    return name, str(first.parent_ids[0]) if first.parent_ids else None, tip
