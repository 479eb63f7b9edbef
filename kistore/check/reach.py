"""What a remote holds, as this clone last saw it, and the first commit a push would send.

Both push hooks run in the pushing clone, where the local branches are what is pushed, not
what the remote has: the remote's commits are those its remote-tracking refs
(``refs/remotes/REMOTE/*``) reach. A URL, or a remote never fetched, has no such refs, and
every pushed history is then new to it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..git.blobs import read_loose_history, ref_commit

if TYPE_CHECKING:  # pragma: no cover - typing only
    import pygit2


def remote_tips(repo: pygit2.Repository, remote: str) -> list[str]:
    """Return the commit ids of ``remote``'s remote-tracking refs in ``repo`` (a pygit2 Repository).

    ``remote`` is a remote's name; any other string (a URL) names no refs and gives ``[]``.
    Symbolic refs (``refs/remotes/REMOTE/HEAD``) and refs naming no commit are left out.

    Raises:
        ObjectUnreadable: a ref's commit is damaged or missing (:func:`ref_tips`).
    """
    return [tip for _, tip in ref_tips(repo, f"refs/remotes/{remote}/")]


def ref_tips(repo: pygit2.Repository, *prefixes: str) -> list[tuple[str, str]]:
    """Return ``(ref name, commit id)`` of each ref under ``prefixes`` that names a commit.

    In :func:`refs_under` order, prefix by prefix; a tag of a tree or a blob is left out.
    Each tip is read through the guard (:func:`kistore.git.blobs.ref_commit`): a commit
    cut short or gone is the repository's damage, said, never skipped (it would make a
    push hook check the wrong range) nor a hang or an "internal error".

    Raises:
        ObjectUnreadable: a ref's commit (or a tag on the way) is damaged or missing.
    """
    tips = []
    for prefix in prefixes:
        for ref in refs_under(repo, prefix):
            commit = ref_commit(repo, ref.name)
            if commit is not None:
                tips.append((ref.name, str(commit.id)))
    return tips


def first_unsent(repo: pygit2.Repository, tip: str, held: list[str]) -> Any | None:
    """Return the oldest commit of ``tip``'s history that no ``held`` commit reaches.

    Args:
        repo: a pygit2 Repository.
        tip: a commit id.
        held: commit ids the receiving side has (unknown ids are ignored).

    Returns:
        The first such commit in topological order (its parents are all held, or it is a
        root commit), or None when every commit of ``tip`` is held.

    Raises:
        ObjectUnreadable: a commit of ``tip``'s or a held commit's history (or its root
            tree) is damaged, or a parent is missing
            (:func:`kistore.git.blobs.read_loose_history`: libgit2's walk loops for ever
            on a loose commit cut short, review F3; a push to a remote with no
            remote-tracking refs walked the whole history unguarded).
    """
    # Lazy: pygit2 loads only when a command touches git (`kistore --help` must not).
    import pygit2

    read_loose_history(repo, tip)
    walker = repo.walk(tip, pygit2.enums.SortMode.TOPOLOGICAL | pygit2.enums.SortMode.REVERSE)
    for oid in held:
        if oid in repo:  # hidden: its history is walked as far as the walk needs
            read_loose_history(repo, oid)
            walker.hide(oid)
    return next(iter(walker), None)


def refs_under(repo: pygit2.Repository, prefix: str) -> list[Any]:
    """Return ``repo``'s references whose names start with ``prefix``, by name, no ``*/HEAD``."""
    return [repo.references[name] for name in sorted(repo.references)
            if name.startswith(prefix) and not name.endswith("/HEAD")]
