"""What a remote holds, as this clone last saw it, and the first commit a push would send.

Both push hooks run in the pushing clone, where the local branches are what is pushed, not
what the remote has: the remote's commits are those its remote-tracking refs
(``refs/remotes/REMOTE/*``) reach. A URL, or a remote never fetched, has no such refs, and
every pushed history is then new to it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover - typing only
    import pygit2


def remote_tips(repo: pygit2.Repository, remote: str) -> list[str]:
    """Return the commit ids of ``remote``'s remote-tracking refs in ``repo`` (a pygit2 Repository).

    ``remote`` is a remote's name; any other string (a URL) names no refs and gives ``[]``.
    Symbolic refs (``refs/remotes/REMOTE/HEAD``) and refs naming no commit are left out.
    """
    prefix = f"refs/remotes/{remote}/"
    return [str(ref.peel(commit_type()).id) for ref in refs_under(repo, prefix)
            if names_commit(ref)]


def first_unsent(repo: pygit2.Repository, tip: str, held: list[str]) -> Any | None:
    """Return the oldest commit of ``tip``'s history that no ``held`` commit reaches.

    Args:
        repo: a pygit2 Repository.
        tip: a commit id.
        held: commit ids the receiving side has (unknown ids are ignored).

    Returns:
        The first such commit in topological order (its parents are all held, or it is a
        root commit), or None when every commit of ``tip`` is held.
    """
    # Lazy: pygit2 loads only when a command touches git (`kistore --help` must not).
    import pygit2

    walker = repo.walk(tip, pygit2.enums.SortMode.TOPOLOGICAL | pygit2.enums.SortMode.REVERSE)
    for oid in held:
        if repo.get(oid) is not None:
            walker.hide(oid)
    return next(iter(walker), None)


def refs_under(repo: pygit2.Repository, prefix: str) -> list[Any]:
    """Return ``repo``'s references whose names start with ``prefix``, by name, no ``*/HEAD``."""
    return [repo.references[name] for name in sorted(repo.references)
            if name.startswith(prefix) and not name.endswith("/HEAD")]


def names_commit(ref: Any) -> bool:
    """Return whether reference ``ref`` peels to a commit (not a tag of a tree or blob)."""
    # Lazy: pygit2 loads only when a command touches git (`kistore --help` must not).
    import pygit2

    try:
        ref.peel(pygit2.Commit)
    except (pygit2.GitError, pygit2.InvalidSpecError, ValueError, KeyError):
        return False
    return True


def commit_type() -> Any:
    """Return ``pygit2.Commit`` (imported late: pygit2 loads slowly)."""
    # Lazy: pygit2 loads only when a command touches git (`kistore --help` must not).
    import pygit2

    return pygit2.Commit
