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

Each such ref is judged as the remote's ``pre-receive`` would judge its push to the same
name (:func:`kistore.check.reach.push_base`): the gate
:func:`kistore.check.gate.check_range` runs from the remote's branch a push of it updates
(:func:`kistore.check.reach.push_destination`: ``remote.REMOTE.push``, ``push.default``)
when the ref fast-forwards it (``refs/remotes/REMOTE/X`` for ``refs/heads/X``), else from where the
ref leaves it or the remote's main; from the first parent of its oldest commit the remote
lacks when the clone knows neither; everything the ref's tree holds and all of its history
when there is no base (as a first push to an empty remote).

Notes and tags as pre-push judges them (att01): the remote is asked once (``git
ls-remote REMOTE refs/notes/kistore 'refs/tags/*'``); ``refs/notes/kistore`` holding notes
commits the remote's tip lacks is judged as that notes update
(:func:`kistore.check.gate.check_updates`: KI408, KI409, KI411, ...), and a local tag the
remote holds at another commit is KI407 (:func:`._refs.tag_rewritten`), as pre-push
refuses its move. A remote that cannot be asked: the notes are judged from the tip last
fetched, and no tag is judged moved.

A repository holding no store, or a remote name the repository does not have (a typo:
no remote-tracking refs, so every history would be checked under a name that measures
nothing), is an error, not "ok, 0 refs" (:func:`require_store`, :func:`require_remote`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, NamedTuple

from ..attest.levels import remote_ref
from ..attest.notes import ask_remote_refs
from ..core import layout
from ..core.errors import InputError, StoreStateError, printable
from ..core.findings import ERROR, INFO, WARNING, Finding, exit_code
from ..core.layout import NOTES_REF
from ..git.blobs import head_commit, ref_commit
from ..git.names import reference
from ..git.remotes import unknown_remote
from ._refs import (
    REF_NOT_FAST_FORWARD,
    TAGS_PREFIX,
    ZERO,
    fast_forward_fix,
    protected_refs,
    tag_rewritten,
)
from ._stale import merges_between, stale_main, stale_tracking
from ._unpushed_clock import as_warnings
from .gate import RangeChecker, check_range, check_updates, whole_history
from .lineage import strict as strict_findings
from .reach import (
    first_unsent,
    landing_tips,
    push_base,
    push_destination,
    ref_tips,
    refs_under,
    remote_tips,
)

if TYPE_CHECKING:  # pragma: no cover - typing only
    import pygit2

    from ..store import Store


class Unpushed(NamedTuple):
    """One local ref with commits the remote lacks, and where a push of it is judged from.

    Attributes:
        ref: the ref's full name (``refs/heads/pr-t2``, ``HEAD``).
        base: what the remote's ``pre-receive`` would judge its push from; None: the
            whole history.
        tip: the commit id the ref names.
        first: the id of its oldest commit the remote lacks.
        stale: the remote-tracking ref of the remote's main that ``base`` was taken from
            (a new ref, or one that does not fast-forward its destination), when the last
            fetch is older than ``tip``'s commit (:func:`._stale.stale_tracking`): the
            remote's main may have moved since, and its ``pre-receive`` judges from the real
            one; else None. :func:`check_unpushed` says it (KI433) when the range holds a merge.
        rewrites: ``(REF, OLD)`` when the push is a non-fast-forward update of a protected
            ref of the remote (:func:`kistore.check._refs.protected_refs` of ``remote``, as
            ``pre-push`` judges it): the branch's destination REF, whose tip as last fetched
            is OLD and not an ancestor of ``tip``; else None. :func:`check_unpushed` says it
            as KI407, as the hook refuses it.
    """

    ref: str
    base: str | None
    tip: str
    first: str
    stale: str | None = None
    rewrites: tuple[str, str] | None = None


def unpushed_refs(store: Store, remote: str) -> list[Unpushed]:
    """Return an :class:`Unpushed` per local ref with commits ``remote`` lacks.

    Args:
        store: a :class:`kistore.store.Store`.
        remote: a remote name: its remote-tracking refs (``refs/remotes/REMOTE/*``) are what
            it holds. A URL, or a remote never fetched, has none: every local history is
            unpushed then.

    Returns:
        One entry per branch, tag and ``HEAD`` (a detached or unborn ``HEAD`` too) with a
        commit no remote-tracking ref of ``remote`` reaches, in ref-name order, ``HEAD``
        last and only when no listed ref has its commit; ``first`` is the ref's oldest
        such commit, ``base`` what the remote's ``pre-receive`` would judge its push from
        (:func:`kistore.check.reach.push_base`; None: the whole history). Refs that name
        no commit (a tag of a tree) are left out.
    """
    repo = store.repo
    held = remote_tips(repo, remote)
    landing = landing_tips(repo, remote)
    protected = protected_refs(store, remote)
    found: list[Unpushed] = []
    tips: set[str] = set()
    for name, tip in ref_tips(repo, "refs/heads/", "refs/tags/"):
        entry = _unpushed(repo, name, tip, held, landing, remote, protected)
        if entry is not None:
            found.append(entry)
            tips.add(entry.tip)
    head = head_commit(repo)  # None: unborn; guarded: libgit2 loops on a cut loose HEAD
    if head is not None and str(head.id) not in tips:
        entry = _unpushed(repo, "HEAD", str(head.id), held, landing, remote, protected)
        if entry is not None:
            found.append(entry)
    return found


@dataclass(frozen=True, slots=True)
class RefVerdict:
    """What the gate found in one local ref's commits that the remote lacks.

    Attributes:
        ref: the ref's full name (``refs/heads/pr-t2``, ``HEAD``).
        first: the id of its oldest commit the remote lacks.
        findings: the gate's findings on its range, shared ones too (each also under the
            other refs that carry it).
        said: those of ``findings`` no earlier ref carries, each with ``extra["refs"]``:
            what is said under this ref (:func:`check_unpushed`'s one pass).
        where: what was judged, when not "the commits REMOTE lacks from FIRST" (a tag
            moved to a commit the remote holds: :func:`_moved_tags`); "" for that.
    """

    ref: str
    first: str
    findings: list[Finding]
    said: list[Finding] = field(default_factory=list)
    where: str = ""


def check_unpushed(store: Store, remote: str, *, checkers: Sequence[RangeChecker] = (),
                   strict: bool = False) -> tuple[list[Finding], list[RefVerdict]]:
    """Run the gate on every local ref holding commits ``remote`` lacks, as pre-push would.

    Also ``refs/notes/kistore`` when it holds notes commits the remote lacks (judged as that
    notes update: :func:`kistore.check.gate.check_updates`), and each local tag the remote
    holds at another commit (KI407, its move: :func:`_moved_tags`); the remote is asked
    once (``git ls-remote``; not asked: offline, the notes as last fetched, no tag moved).

    Args:
        store: a :class:`kistore.store.Store`.
        remote: the remote pushed to (a name; see :func:`unpushed_refs`).
        checkers: handed to each :func:`kistore.check.gate.check_range` (the rules of
            the layers above the check layer, :data:`kistore.check.gate.RangeChecker`).
        strict: ``--strict``: a shallow clone's KI416 is an error
            (:func:`kistore.check.lineage.strict`), in every ref's findings.

    Returns:
        ``(findings, verdicts)``: every finding of every such ref's range once, however
        many refs share the commit, grouped by the first ref (in :func:`unpushed_refs`
        order) carrying it, each with ``extra["refs"]``: the refs whose new commits carry
        it (reviewer r85 F12: a push was refused for "5 local ref(s)" without naming the
        one at fault); and one :class:`RefVerdict` per ref checked, its ``said`` the
        part of ``findings`` grouped under it.

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
    # what the remote holds now of what pre-push is told and --unpushed cannot fetch: its
    # notes tip and tags (one `git ls-remote`; None when it cannot be asked) (att01)
    asked, _why = ask_remote_refs(store.repo, remote, NOTES_REF, f"{TAGS_PREFIX}*")
    moved = _moved_tags(store, asked)
    judged: list[tuple[str, str, list[Finding], str]] = []
    for ref, base, tip, first, stale, rewrites in unpushed_refs(store, remote):
        if ref in moved:  # pre-push refuses a tag's move so, judging no range (r88 F7)
            found = [moved.pop(ref)]
        elif rewrites is not None:  # pre-push refuses it so, judging no range (fresh00b LOW)
            found = [_rewritten(ref, rewrites, tip)]
        else:
            found = (check_range(store, f"{base}..{tip}", checkers=checkers) if base
                     else whole_history(store, tip))
        if stale is not None and base and merges_between(store, base, tip):
            found = [stale_main(ref, stale, base, remote), *found]  # said first
        judged.append((ref, first, found, ""))
    for ref, finding in moved.items():  # moved onto commits the remote holds already
        judged.append((ref, finding.extra["new"], [finding],
                       f"moved from {remote}'s {str(finding.extra['old'])[:12]}"))
    notes = _unpushed_notes(store, remote, asked)
    if notes is not None:  # as pre-push judges a push of them (att01)
        theirs, ours, first = notes
        # KI437 said as KI440, a warning: a branch push does not send them (fresh07 M8)
        judged.append((NOTES_REF, first, as_warnings(check_updates(
            store, [(theirs or ZERO, ours, NOTES_REF)], held=remote_tips(store.repo, remote),
            checkers=checkers, remote=remote), remote), ""))
    verdicts = []
    carriers: dict[str, list[str]] = {}  # a finding's line -> the refs carrying it
    for ref, first, found, where in judged:
        verdicts.append(RefVerdict(ref, first, strict_findings(found) if strict else found,
                                   where=where))
        for finding in verdicts[-1].findings:
            refs = carriers.setdefault(finding.format(), [])
            if ref not in refs:
                refs.append(ref)
    for verdict in verdicts:
        for finding in verdict.findings:
            line = finding.format()
            if line in carriers:  # said once, under the first ref carrying it
                verdict.said.append(replace(finding, extra={**finding.extra,
                                                            "refs": carriers.pop(line)}))
    return [f for verdict in verdicts for f in verdict.said], verdicts


def verdict_lines(verdicts: list[RefVerdict], remote: str) -> list[str]:
    """Return the text output's findings, grouped under the ref whose commits carry them.

    A header a ref (``refs/heads/pr-t2: 2 error(s), 0 warning(s), 0 info in the commits
    origin lacks from da141f1a68b0:``), then the ref's findings not said under an earlier
    ref, indented (its ``said``: nothing is compared again here); a ref with none is
    ``refs/heads/feature1: ok (in the commits ...)``.

    Args:
        verdicts: :func:`check_unpushed`'s, in its order.
        remote: the remote pushed to, as given.

    Returns:
        The lines.
    """
    lines: list[str] = []
    for verdict in verdicts:
        counts = [sum(f.severity == s for f in verdict.findings) for s in (ERROR, WARNING, INFO)]
        where = verdict.where or f"in the commits {remote} lacks from {verdict.first[:12]}"
        if not verdict.findings:
            lines.append(f"{verdict.ref}: ok ({where})")
            continue
        above = len(verdict.findings) - len(verdict.said)
        shown = f" ({above} said above)" if above else ""
        lines.append(f"{verdict.ref}: {counts[0]} error(s), {counts[1]} warning(s), "
                     f"{counts[2]} info {where}{shown}:")
        lines += [f"  {f.format()}" for f in verdict.said]
    return [printable(line) for line in lines]


def push_advice(verdicts: list[RefVerdict], remote: str) -> str | None:
    """Return why a push of a clean ref is refused and the safe way on, or None.

    None when no ref carries an error. Else: the hook judges every local ref holding
    commits ``remote`` lacks (the pre-commit framework hands it only the first pushed ref,
    so what is pushed is unknown): name the refs at fault, the clean ones that a push waits
    for, and the two ways on that lose nothing: fix the refs at fault as their findings'
    fix lines say, or judge exactly the pushed refs with kistore's own ``pre-push`` hook
    (``kistore init --hooks .``). No destructive command is suggested (low00): the ref at
    fault is often ``main`` or other work of the user's, and ``git branch -D`` would drop
    its commits for good.

    Args:
        verdicts: :func:`check_unpushed`'s.
        remote: the remote pushed to, as given.

    Returns:
        One sentence, or None.
    """
    bad = [v.ref for v in verdicts if exit_code(v.findings)]
    if not bad:
        return None
    clean = [v.ref for v in verdicts if not exit_code(v.findings)]
    # the verbs agree with the clean refs, the pronoun with the refs at fault (fresh00b LOW:
    # "carry no error but waits for it")
    carry = "carries no error but waits" if len(clean) == 1 else "carry no error but wait"
    one = len(bad) == 1
    waiting = f"; {', '.join(clean)} {carry} for {'it' if one else 'them'}" if clean else ""
    return (f"errors in {', '.join(bad)}: every local ref with commits {remote} lacks is "
            "judged, not only the refs this push sends (the pre-commit framework hands its "
            f"push hook only the first pushed ref){waiting}; fix "
            f"{'it' if one else 'them'} as the fix lines above say, or use kistore's own "
            "pre-push hook (`kistore init --hooks .`), which judges exactly the refs pushed "
            "and leaves every other ref as it is")


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
    unknown = unknown_remote(store.repo, remote)
    if unknown is None:
        return
    raise InputError(
        f"{unknown}: what a push could send is measured against a remote's remote-tracking "
        "refs; name one of its remotes (`git remote -v` lists them), or add this one (`git "
        f"remote add {remote} URL`, then `git fetch {remote}`)")


def _unpushed(repo: pygit2.Repository, name: str, tip: str, held: list[str],
              landing: list[str], remote: str, protected: set[str]) -> Unpushed | None:
    """Return the :class:`Unpushed` of ``name`` when ``tip`` has a commit no ``held`` reaches.

    A branch is taken as pushed to the ref a push of it updates
    (:func:`kistore.check.reach.push_destination`: a ``remote.REMOTE.push`` refspec's
    destination, its configured upstream under ``push.default=upstream``, or its own
    name), whose tip is that branch's remote-tracking ref (none for a ref outside
    ``refs/heads/``); any other ref as new to the remote. When that destination is in
    ``protected`` and ``tip`` does not descend from its tip, the entry's ``rewrites`` says
    so (KI407 in pre-push).
    """
    old = None
    rewrites = None
    if name.startswith("refs/heads/"):
        to = push_destination(repo, name.removeprefix("refs/heads/"), remote)
        # a branch of the remote is this clone's refs/remotes/REMOTE/X; any other ref
        # (Gerrit's refs/for/main) is new to it each time
        tracked = (ref_commit(repo, f"refs/remotes/{remote}/{to.removeprefix('refs/heads/')}")
                   if to.startswith("refs/heads/") else None)
        old = str(tracked.id) if tracked is not None else None
        if old is not None and to in protected and old != tip \
                and not repo.descendant_of(tip, old):
            rewrites = (to, old)
    sent = push_base(repo, tip, old, held, landing)
    if sent is None:
        return None
    # judged from the remote's main as last fetched (a new ref, a force-push)
    stale = stale_tracking(repo, remote, tip) if landing and sent[0] != old else None
    return Unpushed(name, sent[0], tip, sent[1], stale, rewrites)


def _moved_tags(store: Store, asked: dict[str, str] | None) -> dict[str, Finding]:
    """Return KI407 per local tag a push would move from the remote's value, as pre-push does.

    pre-push is told each pushed tag's value at the remote and refuses a move
    (:func:`kistore.check._refs.tag_rewritten`: a tag is a permalink); ``--unpushed``
    judged a moved tag as a new one (its range "ok"), or, moved onto commits the remote
    holds, not at all (att01). No remote-tracking ref keeps the remote's tags, so they are
    asked (``asked``: :func:`kistore.attest.notes.ask_remote_refs`).

    Args:
        store: the pushing clone.
        asked: the remote's refs as asked; None when it could not be asked (no tag is
            judged moved then).

    Returns:
        ``{tag ref: KI407 finding}`` (``extra``: ``old``, ``new``), in ref order.
    """
    if not asked:
        return {}
    moved = {}
    for ref in refs_under(store.repo, TAGS_PREFIX):
        old = asked.get(ref.name)
        new = str(ref.target)
        if old is None or old == new:
            continue
        finding = tag_rewritten(store, old, new, ref.name)
        if finding is not None:
            moved[ref.name] = finding
    return moved


def _unpushed_notes(store: Store, remote: str, asked: dict[str, str] | None
                    ) -> tuple[str | None, str, str] | None:
    """Return ``(theirs, ours, first)`` when this clone's notes hold commits the remote lacks.

    ``--unpushed`` judged branches and tags only ("git push does not send notes"), but
    ``git push origin main refs/notes/kistore`` does, and pre-push judged the notes it
    sends (KI408, KI409, KI411, ...) where ``--unpushed`` said ok (att01). The remote's
    notes tip is what it holds now (``asked``) when this clone has that commit, else what
    was last fetched (``refs/notes/remotes/REMOTE/kistore``): a remote that moved since
    is git's to refuse (a push that is no fast-forward), as it does before any hook runs.

    Returns:
        None when this clone has no notes, or the remote holds them (its tip is ours or
        descends from it); else the remote's tip (None: no notes known there), ours, and
        the oldest notes commit of ours that theirs does not reach.
    """
    repo = store.repo
    here = repo.references.get(NOTES_REF)
    if here is None:
        return None
    ours = str(here.target)
    theirs = None if asked is None else asked.get(NOTES_REF)
    if theirs is None or theirs not in repo:
        tracked = reference(repo, remote_ref(remote))
        theirs = None if tracked is None else str(tracked.target)
    if theirs is not None and (theirs == ours or _descends(repo, theirs, ours)):
        return None
    first = first_unsent(repo, ours, [theirs] if theirs is not None else [])
    return theirs, ours, ours if first is None else str(first.id)


def _descends(repo: pygit2.Repository, tip: str, of: str) -> bool:
    """Whether commit ``tip`` descends from ``of``; False when git cannot tell (not commits)."""
    # Lazy: pygit2 is loaded by the time a push is judged; the module's import stays cheap.
    import pygit2

    try:
        return bool(repo.descendant_of(tip, of))
    except (pygit2.GitError, ValueError, KeyError):
        return False


def _rewritten(ref: str, rewrites: tuple[str, str], tip: str) -> Finding:
    """KI407 for a push of ``ref`` that rewrites the protected ref ``rewrites`` names.

    Worded as the ``pre-push`` hook's refusal (:func:`kistore.check.gate.check_updates`),
    naming the local branch when the destination has another name (``push.default=upstream``).
    """
    dest, old = rewrites
    via = "" if dest == ref else f", where a push of {ref} goes,"
    return Finding(REF_NOT_FAST_FORWARD, f"non-fast-forward update {old[:12]}..{tip[:12]} of "
                   f"{dest}{via} refused", extra={"ref": dest, "old": old, "new": tip,
                                                  "pushed": ref},
                   fix=fast_forward_fix(dest, tip))
