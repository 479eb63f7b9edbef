"""KI433: a push judged from this clone's copy of the remote's main, which may be stale.

A pushed ref the remote does not hold yet (a new branch), or one that does not
fast-forward the remote branch it updates, is judged from where it leaves the remote's
main; in the pushing clone that main is ``refs/remotes/REMOTE/main`` as last fetched
(:func:`kistore.check.reach.landing_tips`). A pull request merged since moved the real
main, and the remote's ``pre-receive`` judges from there: a citation the push moves
(KI425) can pass here and be refused there (fresh99 H1, hist00).

Both push checks say it: ``check --unpushed`` (the pre-commit framework's hook, which
knows no pushed ref) and ``pre-push`` (``check --updates --remote``, hist01). ``pre-push``
is told the remote's real tip of each ref it pushes (the ``remote_sha`` git reads from
the remote's own advertisement): a push that carries the remote's main itself judges
every ref from that tip, with no guess (:func:`kistore.check.gate.check_updates`); any
other push judges a new ref from the tracking copy, and this warning is its guess:
the copy was fetched (``FETCH_HEAD``'s time, the tracking ref's reflog) before the ref's
newest commit, and the commits judged hold a merge (a line of commits on the copy leaves
the real main where the copy is; a merge may have brought in what the real main holds).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, cast

from ..core.findings import WARNING, Finding, rule
from ..git.blobs import ref_commit
from ..git.refs import RefsUnreadable, common_git_dir
from ._history import ancestry

if TYPE_CHECKING:  # pragma: no cover - typing only
    import pygit2

    from ..store import Store

STALE_MAIN = rule(
    "KI433", "remote-main-may-be-stale", WARNING,
    "`git fetch REMOTE`, then run the check again: it then judges the push from the "
    "remote's main as it is now")


def stale_tracking(repo: pygit2.Repository, remote: str, tip: str) -> str | None:
    """Return the tracking ref of ``remote``'s main a base was taken from, when it may be stale.

    Args:
        repo: the pushing clone.
        remote: the remote's name (a URL has no tracking refs: None).
        tip: the pushed commit's id.

    Returns:
        ``refs/remotes/REMOTE/main`` (else ``refs/remotes/REMOTE/HEAD``), the first that
        names a commit, when the last fetch is older than ``tip``'s commit
        (:func:`fetched_before`); None when neither names one or the fetch is newer.
        Raises ObjectUnreadable for a damaged tracking ref's commit.
    """
    for ref in (f"refs/remotes/{remote}/main", f"refs/remotes/{remote}/HEAD"):
        if ref_commit(repo, ref) is not None:
            return ref if fetched_before(repo, remote, tip) else None
    return None


def fetched_before(repo: pygit2.Repository, remote: str, tip: str) -> bool:
    """Whether this clone last fetched ``remote`` before ``tip`` was committed (or unknown).

    The last fetch: ``FETCH_HEAD``'s modification time (every ``git fetch`` and ``git
    pull`` writes it, in the work tree's git directory or the common one), or the newest
    entry of the reflog of ``refs/remotes/REMOTE/main``, the later of the two. A clone
    fetched after the branch's newest commit knows the remote's main of that moment; one
    fetched before (``git checkout -b``, commits, ``git push``) may not.

    Args:
        repo: the pushing clone.
        remote: the remote's name.
        tip: the pushed commit's id (its committer time is compared).

    Returns:
        True when no fetch time is known or the last is before ``tip``'s committer time.
        Raises nothing (an unreadable reflog counts as none).
    """
    # Lazy: pygit2 is loaded by the time a push is judged; the module's import stays cheap.
    import pygit2

    own = Path(repo.path)
    dirs = [own]
    try:  # a linked work tree's git directory names the common one
        common = common_git_dir(own)
    except RefsUnreadable:  # a damaged commondir: this work tree's own FETCH_HEAD only
        common = own
    if common != own:
        dirs.append(common)
    times = []
    for where in dirs:
        try:
            times.append(int((where / "FETCH_HEAD").stat().st_mtime))
        except OSError:
            pass
    try:
        log = repo.references[f"refs/remotes/{remote}/main"].log()
        times += [entry.committer.time for entry in log]
    except (KeyError, ValueError, pygit2.GitError):
        pass
    return not times or max(times) < cast("pygit2.Commit", repo[tip]).commit_time


def merges_between(store: Store, base: str, tip: str) -> bool:
    """Whether ``BASE..tip`` holds a merge (read after the gate walked it, guarded).

    A line of commits on BASE leaves the remote's main where BASE is whatever main became
    since (the merge base stays); a merge may have brought in commits the remote's main
    holds by now (fresh99 H1: a pull request merged on the server and here), which move
    the base the remote judges from.
    """
    return any(len(c.parent_ids) > 1 for c in ancestry(
        store.repo, store.commit(tip), hide=store.commit(base)))


def stale_main(ref: str, tracking: str, base: str | None, remote: str) -> Finding:
    """KI433: ``ref`` is judged from ``tracking``, this clone's copy of ``remote``'s main."""
    at = f"{base[:12]}, where it leaves " if base else ""
    return Finding(STALE_MAIN, f"{ref} is judged from {at}{tracking}, this repository's copy of "
                   f"{remote}'s main as last fetched, before {ref}'s newest commit: {remote}'s "
                   "main may have moved since (a pull request merged meanwhile), and its "
                   "pre-receive judges the push from where it is now; run "
                   f"`git fetch {remote}` first, then check again",
                   file=None, extra={"ref": ref, "tracking": tracking},
                   fix=f"`git fetch {remote}`, then run the check again")
