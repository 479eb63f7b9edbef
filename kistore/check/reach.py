"""What a remote holds, as this clone last saw it, and the first commit a push would send.

Both push hooks run in the pushing clone, where the local branches are what is pushed, not
what the remote has: the remote's commits are those its remote-tracking refs
(``refs/remotes/REMOTE/*``) reach. A URL, or a remote never fetched, has no such refs, and
every pushed history is then new to it.

A push is judged by the receiving ``pre-receive`` (:func:`kistore.check.gate.check_updates`)
from the ref's old tip when it fast-forwards, else from where the pushed tip leaves the old
tip or the remote's main. :func:`push_base` takes that same base in the pushing clone, the
remote's main read from its remote-tracking ref (:func:`landing_tips`): a range that starts
at the oldest commit the remote lacks holds commits the remote has (fresh99 H1: main
merging pull request B, pushed, then A, which adds the same object earlier: B's landing
was inside that range, and the citation move, KI425, judged against BASE, was not seen).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..git.blobs import ObjectUnreadable, read_loose_history, ref_commit
from ..git.remotes import remote_names

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


def landing_tips(repo: pygit2.Repository, remote: str) -> list[str]:
    """Return the commit ids of ``remote``'s main as this clone last saw it.

    The remote's ``pre-receive`` measures a new or force-pushed ref from where it leaves a
    protected branch (``refs/heads/main`` and the branch its ``HEAD`` names,
    :func:`kistore.check._refs.protected_refs`); here those are
    ``refs/remotes/REMOTE/main`` and ``refs/remotes/REMOTE/HEAD`` (followed), in that
    order, each once. A URL or a remote never fetched has neither: ``[]``.

    Raises:
        ObjectUnreadable: a ref's commit is damaged or missing (:func:`ref_commit`).
    """
    tips: list[str] = []
    for name in (f"refs/remotes/{remote}/main", f"refs/remotes/{remote}/HEAD"):
        commit = ref_commit(repo, name)
        if commit is not None and str(commit.id) not in tips:
            tips.append(str(commit.id))
    return tips


def rebase_start(repo: pygit2.Repository, base: str, head: str,
                 skipped: list[tuple[str, str]] | None = None) -> str:
    """Return the commit a fix's ``git rebase -i`` starts from for the range ``base..head``.

    A push to a fork is judged from the fork's main, which is often behind upstream's: the
    range then holds upstream's commits since, and ``git rebase -i BASE`` rewrote them
    (flattening its merges) with the branch's own, so that the pull request's gate against
    upstream's main refused the result (KI404, fresh00b MED U1). The rebase starts instead
    from the newest commit of ``head``'s history that the main of any remote, as this clone
    last fetched it (:func:`landing_tips`), holds: a commit a remote's main holds has landed
    and is no commit of the branch to drop. Only such a commit after ``base`` counts; where
    two remotes' mains give commits neither of which is an ancestor of the other, the first
    (by remote name) is kept.

    Args:
        repo: the checking repository (a pygit2 Repository).
        base: the range's BASE (full commit id).
        head: the range's HEAD (full commit id).
        skipped: where a remote whose main (or ``HEAD``) names a commit that is damaged or
            missing is left out, as ``(remote, ref name)``, in remote name order: a
            remote-tracking ref is this clone's note of what a remote held, and a bad one
            must not stop the gate of a range that does not involve it (mend02); None:
            such a ref raises.

    Returns:
        The commit's full id: ``base`` itself in a bare repository (a server's
        ``pre-receive``, whose BASE is its own main) or where no remote's main holds a
        commit of the range.

    Raises:
        ObjectUnreadable: ``skipped`` is None and a remote's main is damaged or missing
            (:func:`ref_commit`).
    """
    if repo.is_bare:
        return base
    start = base
    for remote in remote_names(repo):
        try:
            tips = landing_tips(repo, remote)
        except ObjectUnreadable as e:
            if skipped is None:
                raise
            skipped.append((remote, e.path or f"refs/remotes/{remote}/main"))
            continue
        for tip in tips:
            held = repo.merge_base(head, tip)
            if held is not None and str(held) != start and repo.descendant_of(held, start):
                start = str(held)
    return start


def push_destination(repo: pygit2.Repository, branch: str, remote: str) -> str:
    """Return the ref on ``remote`` that a push of the local branch ``branch`` updates.

    As git 2.39's ``git push`` takes it (git-push(1) "<refspec>", git-config(1)
    ``remote.<name>.push``, ``push.default``, ``branch.<name>.pushRemote``,
    ``remote.pushDefault``), for the two ways a branch is pushed:

    * ``git push REMOTE BRANCH`` (git's ``map_refspec``): the first of ``remote``'s
      ``remote.REMOTE.push`` refspecs whose source is ``refs/heads/BRANCH`` (written
      whole, or a glob ``refs/heads/*:refs/heads/review/*``; a negative refspec ``^SRC``
      excludes nothing from a push in git 2.39, and nothing here) maps it; else, under
      ``push.default=upstream`` (or its old name ``tracking``), its configured upstream
      ``branch.BRANCH.merge``, whichever remote that branch tracks; else the branch of
      its own name.
    * a bare ``git push``, when it goes to ``remote`` (the checked-out branch's
      ``branch.B.pushRemote``, else ``remote.pushDefault``, else ``branch.B.remote``,
      else ``origin``): the same, but it pushes what the refspecs name, a short source
      (``work:wip``) too, and ``HEAD:DST`` (Gerrit's ``HEAD:refs/for/main``) sends the
      checked-out branch to ``DST``, in the refspecs' order; a bare push to another
      remote sends no branch to ``remote``: ``git push REMOTE BRANCH`` does.

    Args:
        repo: the pushing clone (a pygit2 Repository).
        branch: the local branch's short name (``pr-t2``).
        remote: the remote pushed to (a name; a URL has no ``remote.*.push``).

    Returns:
        The full ref name updated (``refs/heads/feature``, ``refs/for/main``): a short
        destination is a branch (git's DWIM for a branch pushed). Raises nothing (an
        unreadable config value is read as unset).
    """
    config = repo.config
    ref = f"refs/heads/{branch}"
    current = _checked_out(repo)
    bare = current is not None and _push_remote(
        config, current.removeprefix("refs/heads/")) == remote
    specs = _multivar(config, f"remote.{remote}.push")
    for spec in specs:
        src, _, dst = spec.removeprefix("+").partition(":")
        if spec.startswith("^") or not src:
            continue  # a negative refspec; a deletion `:DST`; `:` (matching: its own name)
        if src == "HEAD":
            if bare and current == ref:
                return _full(dst or ref)
            continue
        mapped = _mapped(src, dst or src, ref, bare)
        if mapped is not None:
            return mapped
    merge = _config(config, f"branch.{branch}.merge")
    if (_config(config, "push.default") or "simple") in ("upstream", "tracking") and merge:
        return _full(merge)
    return ref


def _push_remote(config: Any, branch: str) -> str:
    """Return the remote a bare ``git push`` on ``branch`` goes to (git-config(1) order)."""
    return (_config(config, f"branch.{branch}.pushRemote") or _config(config, "remote.pushDefault")
            or _config(config, f"branch.{branch}.remote") or "origin")


def _checked_out(repo: pygit2.Repository) -> str | None:
    """Return the full name of the branch ``HEAD`` names (unborn too), or None when detached."""
    head = repo.references.get("HEAD")
    target = None if head is None else head.target
    return target if isinstance(target, str) else None


def _full(name: str) -> str:
    """Return a refspec side as a full ref name: a short one is a branch (``main``, ``heads/x``)."""
    if name.startswith("refs/"):
        return name
    return "refs/" + name if name.startswith(("heads/", "tags/")) else f"refs/heads/{name}"


def _mapped(src: str, dst: str, ref: str, short: bool) -> str | None:
    """Return where the refspec ``src:dst`` sends ``ref`` (a full name), or None: no match.

    ``short``: a source not starting ``refs/`` names a branch (a bare push reads it so;
    ``git push REMOTE BRANCH`` compares the source as written).
    """
    src = _full(src) if short else src
    if "*" not in src:
        return _full(dst) if src == ref else None
    head, _, tail = src.partition("*")
    if not (ref.startswith(head) and ref.endswith(tail) and len(ref) >= len(head) + len(tail)):
        return None
    return _full(dst.replace("*", ref[len(head):len(ref) - len(tail)], 1))


def _multivar(config: Any, key: str) -> list[str]:
    """Return every value of ``key`` in a pygit2 Config, in order ([] when unset)."""
    try:
        return [str(value) for value in config.get_multivar(key)]
    except (KeyError, ValueError):  # unset; a value git itself would refuse
        return []


def _config(config: Any, key: str) -> str | None:
    """Return ``key``'s value in a pygit2 Config (its last one), or None when unset."""
    try:
        return str(config[key])
    except (KeyError, ValueError):  # unset; a value git itself would refuse
        return None


def push_base(repo: pygit2.Repository, new: str, old: str | None, held: list[str],
              landing: list[str]) -> tuple[str | None, str] | None:
    """Return ``(BASE, first)`` of a push of ``new`` over the remote's ``old``, as it judges it.

    What the remote's ``pre-receive`` judges is ``BASE..new``, as far as this clone knows
    the remote (its remote-tracking refs).

    Args:
        repo: the pushing clone (a pygit2 Repository).
        new: the commit id pushed.
        old: the remote's tip of the pushed ref (a pre-push hook's ``remote_sha``, or the
            remote-tracking ref of a branch of the same name); None for a new ref.
        held: the commits the remote holds (:func:`remote_tips`).
        landing: the remote's main (:func:`landing_tips`).

    Returns:
        None when the remote holds every commit of ``new`` (nothing to judge). Else
        ``first``, the oldest commit it lacks (:func:`first_unsent`), and ``BASE`` as the
        receiving gate takes it: ``old`` when ``new`` fast-forwards it, else the merge
        base of ``new`` with ``old``, or with the remote's main (a new or force-pushed
        ref); None (the whole history, as the receiver checks it) when none of those has
        one. Only when this clone knows neither ``old`` nor the remote's main, ``BASE``
        is ``first``'s first parent (None for a root commit).

    Raises:
        ObjectUnreadable: as :func:`first_unsent`.
    """
    first = first_unsent(repo, new, held + ([old] if old else []))
    if first is None:
        return None
    # the receiver's own order (gate._merge_base): the old tip first (a fast-forward's
    # merge base is the old tip itself), then its main; each was walked, guarded, above
    known = [oid for oid in ([old] if old else []) + landing if oid in repo]
    for other in known:
        base = repo.merge_base(new, other)
        if base is not None:
            return str(base), str(first.id)
    if known:
        return None, str(first.id)
    return (str(first.parent_ids[0]) if first.parent_ids else None), str(first.id)


def refs_under(repo: pygit2.Repository, prefix: str) -> list[Any]:
    """Return ``repo``'s references whose names start with ``prefix``, by name, no ``*/HEAD``."""
    return [repo.references[name] for name in sorted(repo.references)
            if name.startswith(prefix) and not name.endswith("/HEAD")]
