"""Which remote-tracking branches hold a cited commit, and which of them are main lines.

A citation's permalink names a commit. On no remote-tracking branch, it was (as far as
this clone knows) never pushed; on a pull request's branch only, a squash or rebase merge
lands the object in another commit and the branch's, deleted after the merge, may leave
the server (fresh01 F2). Both are judged here from local refs and configuration only: no
network call (``git ls-remote --symref`` would ask the server; ``cite`` does not).

A remote's main line is found as git users expect (fresh02 G5):

1. the branch ``refs/remotes/R/HEAD`` names (``git clone`` and ``git remote set-head``
   write it; ``git remote add`` + ``git fetch`` never do);
2. else the remote's only branch fetched here;
3. else the first of ``R/<init.defaultBranch>``, ``R/main``, ``R/master`` fetched here;
4. else it is not known (:attr:`MainLines.unknown`): the caller says so, with how to set
   it (``git remote set-head R --auto``), rather than warn of every commit.

``branch.<current>.merge`` is not read: the branch checked out when citing is as often
the pull request's own (``feat`` tracking ``origin/feat``), the very case to warn of.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from ..git.remotes import remote_names

if TYPE_CHECKING:  # pragma: no cover - typing only
    import pygit2

    from ..store import Store

_REMOTES = "refs/remotes/"
CONVENTIONAL = ("main", "master")
"""Branch names taken as a remote's main line, after ``init.defaultBranch``, when it has no
``HEAD`` fetched and several branches."""


class MainLines(NamedTuple):
    """The remotes' main lines as this clone knows them (:func:`remote_main_lines`).

    Attributes:
        known: remote name -> its main line's short name (``origin/trunk``).
        unknown: remote name -> its branches' short names, sorted (no ``HEAD`` fetched,
            several branches, none named as in step 3 of the module's rule).
    """

    known: dict[str, str]
    unknown: dict[str, list[str]]


def remote_branches_holding(store: Store, commit: str) -> list[str]:
    """Return the remote-tracking branches (``origin/main`` ...) whose history holds ``commit``.

    Args:
        store: a :class:`kistore.store.Store`.
        commit: a commit id (40 hex).

    Returns:
        The short names (``REMOTE/BRANCH``) of ``refs/remotes/*`` holding it, sorted; empty
        when none does (a clone with no remote, or a commit not pushed yet).
    """
    # Lazy: pygit2 loads only when a command touches git (`kistore --help` must not).
    import pygit2

    repo, found = store.repo, []
    for name in sorted(repo.references):
        if not name.startswith(_REMOTES) or name.endswith("/HEAD"):
            continue
        try:
            tip = str(repo.references[name].peel(pygit2.Commit).id)
        except (pygit2.GitError, ValueError, KeyError):
            continue
        if tip == commit or repo.descendant_of(tip, commit):
            found.append(name.removeprefix(_REMOTES))
    return found


def remote_of(short: str, remotes: list[str]) -> str:
    """Return the remote a remote-tracking branch's short name (``R/BRANCH``) belongs to.

    Args:
        short: ``R/BRANCH`` (``refs/remotes/`` removed).
        remotes: the configured remote names (a name may hold ``/``: the longest that
            prefixes ``short`` wins).

    Returns:
        That remote's name; for a remote no longer configured, the first ``/`` part.
    """
    named = [r for r in remotes if short.startswith(r + "/")]
    return max(named, key=len) if named else short.split("/", 1)[0]


def _configured_remotes(store: Store) -> list[str]:
    """Return the repository's remote names (none when libgit2 cannot read them)."""
    # Lazy: pygit2 loads only when a command touches git (`kistore --help` must not).
    import pygit2

    try:
        return remote_names(store.repo)
    except (pygit2.GitError, ValueError):
        return []


def _default_branch_name(store: Store) -> str | None:
    """Return ``init.defaultBranch`` (any level of git's configuration), or None."""
    # Lazy: pygit2 loads only when a command touches git (`kistore --help` must not).
    import pygit2

    try:
        value = store.repo.config["init.defaultBranch"]
    except (KeyError, pygit2.GitError, ValueError):
        return None
    return str(value) or None


def remote_main_lines(store: Store) -> MainLines:
    """Return each remote's main line, by the module's rule, from local refs and config.

    Args:
        store: a :class:`kistore.store.Store`.

    Returns:
        :class:`MainLines` over every remote with a remote-tracking ref here (a remote
        with none is in neither mapping: it holds no commit).
    """
    refs, remotes = store.repo.references, _configured_remotes(store)
    branches: dict[str, list[str]] = {}
    heads: dict[str, str] = {}
    for name in sorted(refs):
        if not name.startswith(_REMOTES):
            continue
        short = name.removeprefix(_REMOTES)
        remote = remote_of(short, remotes)
        if short != remote + "/HEAD":
            branches.setdefault(remote, []).append(short)
            continue
        try:
            target = refs[name].target
        except (KeyError, ValueError):
            continue
        if isinstance(target, str) and target.startswith(_REMOTES) and target in refs:
            heads[remote] = target.removeprefix(_REMOTES)
    default = _default_branch_name(store)
    preferred = ([default] if default else []) + [n for n in CONVENTIONAL if n != default]
    known, unknown = {}, {}
    for remote, names in branches.items():
        if remote in heads:
            known[remote] = heads[remote]
        elif len(names) == 1:
            known[remote] = names[0]
        else:
            named = [f"{remote}/{n}" for n in preferred if f"{remote}/{n}" in names]
            if named:
                known[remote] = named[0]
            else:
                unknown[remote] = names
    return MainLines(known, unknown)


def chosen_remote_branch(store: Store, at: str | None) -> str | None:
    """Return the remote-tracking branch ``--at`` names (``origin/trunk``), or None.

    Read as git reads a ref name (``origin/trunk``, ``remotes/origin/trunk``,
    ``refs/remotes/origin/trunk``; a local branch or tag of the same name comes first);
    None for a commit id, an expression (``origin/trunk~1``) or another kind of ref.
    """
    if not at:
        return None
    # Lazy: pygit2 loads only when a command touches git (`kistore --help` must not).
    import pygit2

    try:
        name = store.repo.lookup_reference_dwim(at).name
    except (KeyError, ValueError, pygit2.GitError):
        return None
    if not name.startswith(_REMOTES) or name.endswith("/HEAD"):
        return None
    return str(name).removeprefix(_REMOTES)


class OffMain(NamedTuple):
    """Why a cited commit on remote-tracking branches may not be final (:func:`off_main`).

    Attributes:
        held: the remote-tracking branches holding it (short names, sorted).
        mains: the known main lines (short names, sorted); advice names ``advice``.
        advice: the main line to cite from (``--at``), or None when not known.
        unknown: remote name -> its branches, for each remote holding the commit whose
            main line is not known (then ``advice`` is None and the caller says how to
            set it, not that the commit is off the main line).
    """

    held: list[str]
    mains: list[str]
    advice: str | None
    unknown: dict[str, list[str]]


def off_main(store: Store, held: list[str], at: str | None) -> OffMain | None:
    """Judge whether a cited commit held by ``held`` is on a remote's main line.

    Args:
        store: the store cited from.
        held: :func:`remote_branches_holding`'s answer (not empty).
        at: ``--at`` as typed (None: HEAD). A remote-tracking branch it names that holds
            the commit counts as a main line when its remote's is not known (the person
            chose it); a known main line is not overridden by it.

    Returns:
        None when a main line holds the commit (nothing to say); else :class:`OffMain`.
    """
    lines = remote_main_lines(store)
    if set(held) & set(lines.known.values()):
        return None
    remotes = _configured_remotes(store)
    chosen = chosen_remote_branch(store, at)
    if chosen in held and remote_of(chosen, remotes) in lines.unknown:
        return None
    holding = sorted({remote_of(h, remotes) for h in held})
    unknown = {r: lines.unknown[r] for r in holding if r in lines.unknown}
    mains = sorted(lines.known.values())
    advice = None
    if not unknown:  # every remote holding it has a known main line: origin's first
        advice = lines.known.get("origin") or lines.known[holding[0]]
    return OffMain(held, mains, advice, unknown)


class Unpushed(NamedTuple):
    """Cited commits no remote's main line holds (:func:`unpushed`), as ``cite`` warns.

    Attributes:
        nowhere: commits on no remote-tracking branch (as far as this clone knows, never
            pushed): their permalinks lead nowhere.
        off_main: commits on remote-tracking branches, but on no remote's main line
            (a pull request's branch): a squash or rebase merge lands their objects in
            other commits. A commit a remote whose main line is not known here holds is
            in neither set (``cite`` only notes it).
        mains: the known main lines (short names, sorted).
    """

    nowhere: set[str]
    off_main: set[str]
    mains: list[str]


def unpushed(store: Store, commits: set[str], at: str | None = None) -> Unpushed:
    """Judge many cited commits at once, as ``cite`` judges one (fresh05 LOW 9).

    ``cite`` asks :func:`remote_branches_holding` of one commit (a merge-base query per
    remote-tracking branch); a site build cites a commit per run, so each set of tips is
    walked once, stopping when every commit asked is found.

    Args:
        store: the store cited from.
        commits: commit ids (40 hex) the citations name.
        at: the revision cited from (``site build --at``): a remote-tracking branch it
            names counts as its remote's main line when that is not known, as for ``cite``.

    Returns:
        :class:`Unpushed`; empty sets when every commit is on a main line.
    """
    # Lazy: pygit2 loads only when a command touches git (`kistore --help` must not).
    import pygit2

    repo, remotes = store.repo, _configured_remotes(store)
    tips: dict[str, str] = {}
    for name in sorted(repo.references):
        if name.startswith(_REMOTES) and not name.endswith("/HEAD"):
            try:
                tips[name.removeprefix(_REMOTES)] = str(
                    repo.references[name].peel(pygit2.Commit).id)
            except (pygit2.GitError, ValueError, KeyError):
                continue
    lines = remote_main_lines(store)
    chosen = chosen_remote_branch(store, at)
    main = set(lines.known.values())
    if chosen in tips and remote_of(chosen, remotes) in lines.unknown:
        main.add(chosen)
    unknown = {b for r in lines.unknown for b in lines.unknown[r]} - main
    held_main = _reachable(repo, [tips[b] for b in sorted(main) if b in tips], commits)
    rest = commits - held_main
    held_unknown = _reachable(repo, [tips[b] for b in sorted(unknown) if b in tips], rest)
    rest -= held_unknown
    held = _reachable(repo, [t for b, t in tips.items() if b not in main | unknown], rest)
    return Unpushed(rest - held, held, sorted(lines.known.values()))


def _reachable(repo: pygit2.Repository, tips: list[str], wanted: set[str]) -> set[str]:
    """Return the commits of ``wanted`` in the history of any of ``tips`` (one walk)."""
    # Lazy: pygit2 loads only when a command touches git (`kistore --help` must not).
    import pygit2

    found: set[str] = set()
    if not tips or not wanted:
        return found
    walker = repo.walk(tips[0], pygit2.enums.SortMode.NONE)
    for tip in tips[1:]:
        walker.push(tip)
    for commit in walker:
        if (cid := str(commit.id)) in wanted:
            found.add(cid)
            if len(found) == len(wanted):
                break
    return found
