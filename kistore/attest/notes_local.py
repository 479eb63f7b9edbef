"""``kistore notes rebase`` with no REMOTE: accept the notes tip of a store with no remote.

Notes only grow (KI408): a line a notes history held is never dropped, since a clone may
have fetched it, and KI315 (:mod:`kistore.attest.tip_lacking`) warns while the tip lacks
one. With a remote, a line of one's own that was never pushed, taken back on purpose, is
dropped by ``kistore notes rebase R``: the notes rebuilt on R's, which never held it. A
store with no remote (``kistore init``, ``make demo``) has no R, and a mistaken line taken
back with ``git notes --ref kistore remove`` blocked ``site build`` and ``export`` for good
(fresh08 M5): the ways out were ``notes restore`` (the mistake back) or ``git update-ref``
and ``git reflog expire`` by hand.

Without a remote configured, no push of these notes is known here, and "notes only grow"
is this repository's own history's rule: :func:`rebase_here` rewrites that history once, on
the user's word, so that it holds exactly the tip's lines. Until 2026-12-07 (fresh10 HIGH 1)
the tip's notes went into one notes commit made at the rebase, and every line kept that the
history after the mistake brought re-entered at now (a withdrawal signed by a key revoked
since stopped counting); the history is now replayed without the lines dropped
(:mod:`kistore.attest.notes_replay`): each commit keeps its author, committer, dates and
message, so every line kept keeps the time it entered, or nothing is written. The reflog
is kept (the old tip stays in git): its entries before the rebuild, logged as
:data:`HERE_MESSAGE`, are no longer read, as after ``notes rebase R``; when the tip stays (a
drop the reflog alone held) a marker notes commit on it is logged instead
(:func:`kistore.attest.notes_reflog.marker`, fresh12 F12). A bare
repository (a server) is refused: its notes move only by a push its pre-receive judges.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from ..core.errors import InputError, StoreStateError, printable
from ..core.layout import NOTES_REF
from ..git.lazy import pygit2
from ..git.notes import note_tree
from ..git.refs import common_git_dir
from ..git.remotes import remote_names
from .notes_reflog import REBASE_MESSAGE, earlier_tips, forget_legacy, marker

if TYPE_CHECKING:  # pragma: no cover - typing only
    import pygit2

    from ..store import Store

__all__ = ["ATTEST_REFUSED", "HERE_MESSAGE", "REBASE_REFUSED", "SYNC_REFUSED", "Dropped",
           "leaves_out", "named_lines", "rebase_here", "refuse_bare"]

HERE_MESSAGE = f"{REBASE_MESSAGE}(no remote)"
"""The reflog message of the move (:data:`kistore.attest.notes_reflog.REBASE_MESSAGE`
begins it: :func:`kistore.attest.notes_reflog.earlier_tips` stops there)."""

_CAS_ATTEMPTS = 5


class Dropped(NamedTuple):
    """What :func:`rebase_here` dropped (or would drop).

    Attributes:
        lines: ``{annotated object id: [lines, sorted]}`` the notes history or the reflog
            held that the tip lacks (every such line, whether it counts or not); empty:
            nothing to drop, nothing changed.
        old: :data:`NOTES_REF`'s tip before (40 hex; None: no notes).
        new: its tip after (40 hex; None: deleted, or nothing written: ``written`` False).
        base: the newest notes commit of the old tip's first-parent line kept as it is
            (40 hex; None: none was, or nothing is dropped).
        entering_now: how many of the tip's lines enter at another time than they did:
            0, the history being replayed with its dates (or nothing written).
        written: False for a dry run (nothing changed).
        replayed: the notes commits of the history written again without the lines
            (their original ids, parents first).
        left_out: the notes commits not written again, each left holding what its parent
            holds (the mistake's commit, the ``git notes remove``).
        marked: ``new`` is a marker notes commit on the old tip, holding its notes (the
            lines were the reflog's alone: git logs no move to the tip the ref holds;
            :func:`kistore.attest.notes_reflog.marker`).
    """

    lines: dict[str, list[bytes]]
    old: str | None
    new: str | None
    base: str | None
    entering_now: int
    written: bool
    replayed: list[str]
    left_out: list[str]
    marked: bool = False


def rebase_here(store: Store, *, dry_run: bool = False) -> Dropped:
    """Drop from the notes history and reflog read every line the tip of the notes lacks.

    Args:
        store: the clone, which must have no remote.
        dry_run: only say what would be dropped.

    Returns:
        :class:`Dropped`. Lines are dropped only when the history or reflog holds some
        the tip lacks; otherwise nothing is written (``lines`` empty).

    Raises:
        InputError: the repository is bare (a server, :func:`refuse_bare`), or has a
            remote: its notes may hold the lines (a line pushed is never dropped); the
            message names ``kistore notes rebase R``.
        StoreStateError: the notes ref kept moving under concurrent writers, or the
            replay would change a notes commit's trusted time (named; nothing written).
        InputError, StoreStateError: the lines were the reflog's alone and the marker notes
            commit cannot be written: git names no committer (its reason), or git failed
            (:func:`kistore.attest.notes_reflog.marker`; nothing written).
    """
    # Lazy: notes.py loads the write path; only this command needs it.
    from .notes import _lacking, _notes_of, _unreadable, history_trees, parents_first

    # Lazy: as above.
    from .notes_replay import plan, write

    repo = store.repo
    refuse_bare(repo)
    _refuse_remotes(repo)
    for _ in range(_CAS_ATTEMPTS):
        ref = repo.references.get(NOTES_REF)
        if ref is None:
            return Dropped({}, None, None, None, 0, False, [], [])
        old = repo[ref.target].peel(pygit2.Commit)
        history = list(repo.walk(old.id, parents_first()))
        trees: dict[str, dict[str, str]] = {}
        commits = [*history, *earlier_tips(repo, history_trees(repo, old.id))]
        held = {pair for commit in commits
                for pair in note_tree(repo, commit.tree, "", trees).items()}
        ours = _notes_of(repo, old.id)
        read = _unreadable(repo, held - set(ours.items()))
        lost = _lacking(repo, ours, sorted(held), read)
        if not lost:
            return Dropped(lost, str(old.id), None, None, 0, False, [], [])
        planned = plan(repo, old, lost)
        if planned.moved:
            raise StoreStateError(printable(_moved_said(planned.moved)))
        if dry_run:
            return Dropped(lost, str(old.id), None, planned.base, 0, False, planned.replayed,
                           planned.left_out)
        new = write(repo, planned) if ours else None  # no note at the tip: no notes
        marked = new == str(old.id)  # the reflog's lines alone: git would log no move
        if marked:
            new = marker(repo, str(old.id), "(no remote)", sum(map(len, lost.values())))
        if _move(repo, new, str(old.id)):  # logged: the tips before are left on purpose
            forget_legacy(repo)
            return Dropped(lost, str(old.id), new, planned.base, 0, True, planned.replayed,
                           planned.left_out, marked)
    raise StoreStateError(f"{NOTES_REF} kept moving under concurrent writers; run it again")


def leaves_out(store: Store, commit: str, now: int) -> bool:
    """Return whether ``kistore notes rebase`` (no REMOTE) would mend a notes tip dated ahead.

    True when it may run here (not bare, no remote), would leave ``commit`` out (a commit
    that took a line back: :attr:`Dropped.left_out`), and every commit it keeps is dated
    no later than ``now`` (a replay keeps their dates). Only said, never written: the
    plan of its ``--dry-run`` (fresh12 F8: ``attest``'s refusal named no way out).

    Args:
        store: the repository.
        commit: a notes commit of :data:`NOTES_REF`'s history (40 hex).
        now: this machine's clock (seconds since the epoch).

    Returns:
        Whether the rebase would leave the notes tip dated no later than ``now``; False
        when it cannot tell (any error of its dry run).
    """
    # Lazy: the refusal path only.
    from ..core.errors import KistoreError
    from .notes import parents_first

    try:
        planned = rebase_here(store, dry_run=True)
    except KistoreError:
        return False
    if commit not in planned.left_out or planned.old is None:
        return False
    repo = store.repo
    return all(c.commit_time <= now for c in repo.walk(pygit2.Oid(hex=planned.old),
                                                       parents_first())
               if str(c.id) not in planned.left_out)


REBASE_REFUSED = " (notes only grow, KI408), so `kistore notes rebase` rewrites no notes here"
"""What :func:`refuse_bare` says of ``kistore notes rebase`` (its default)."""

ATTEST_REFUSED = (", so `kistore attest` writes no note here: attest in a clone of it and send "
                  "the note with `kistore notes push origin` there")
"""What :func:`refuse_bare` says of ``kistore attest`` (a note; fresh12 F15: it wrote the
server's notes directly, no pre-receive judging them)."""

SYNC_REFUSED = (", so `kistore notes sync` attaches no note here: run it in a clone of it and "
                "send the notes with `kistore notes push origin` there")
"""What :func:`refuse_bare` says of ``kistore notes sync`` (as :data:`ATTEST_REFUSED`)."""


def refuse_bare(repo: pygit2.Repository, refused: str = REBASE_REFUSED) -> None:
    """Refuse a notes write in a bare repository (a server), changing nothing.

    One refusal for every command that would move a server's notes itself: ``kistore
    notes rebase`` (since fresh10), ``kistore attest`` and ``kistore notes sync`` (since
    2026-12-07, fresh12 F15: they wrote ``refs/notes/kistore`` directly, while ``notes
    rebase`` refused there saying the notes move only by a push).

    Args:
        repo: the repository.
        refused: what the command does not do here, and the way (after "judges"):
            :data:`REBASE_REFUSED`, :data:`ATTEST_REFUSED`, :data:`SYNC_REFUSED`.

    Raises:
        InputError: ``repo`` is bare, or is a linked work tree (``git worktree add``) of a
            bare repository, whose refs it shares (fresh12 F14): its notes move only by a
            push its pre-receive hook judges (KI408 refuses one that drops a line), never by
            a rewrite in place.
        RefsUnreadable: a linked work tree's ``commondir`` cannot be read
            (:func:`kistore.git.refs.common_git_dir`).
    """
    if repo.is_bare or _shares_a_bare(repo):
        raise InputError("this repository is bare (a server): its refs/notes/kistore moves "
                         f"only by a push that its pre-receive hook judges{refused}; nothing "
                         "was written")


def _shares_a_bare(repo: pygit2.Repository) -> bool:
    """Return whether ``repo`` is a linked work tree of a bare repository (refs shared)."""
    git_dir = Path(repo.path)
    common = common_git_dir(git_dir)
    return common != git_dir.resolve() and pygit2.Repository(str(common)).is_bare


def _moved_said(moved: list[str]) -> str:
    """Say the refusal when a replay would change a notes commit's trusted time."""
    named = ", ".join(c[:12] for c in moved[:5]) + (
        f", and {len(moved) - 5} more" if len(moved) > 5 else "")
    return (f"the notes history replayed without those lines would change the trusted time "
            f"(kistore.attest.notes.Clock) of notes commit(s) {named}, and every line they "
            "brought would be judged at another time; nothing was written: restore the line "
            "instead (`kistore notes restore`)")


def _refuse_remotes(repo: pygit2.Repository) -> None:
    """Refuse a repository with a remote: ``notes rebase R`` is its way (named)."""
    # Lazy: as rebase_here.
    import shlex

    # Lazy: as above.
    from .levels import canonical_remote

    names = remote_names(repo)
    if not names:
        return
    remote = canonical_remote(names) or names[0]
    raise InputError(printable(
        f"no REMOTE given, and this repository has remote(s) {', '.join(names)}: lines of "
        "its notes may be there, and a line pushed cannot be dropped (notes only grow, "
        f"KI408); `kistore notes rebase {shlex.quote(remote)}` rebuilds the notes on "
        f"{remote}'s, leaving out the lines of this repository's own, never pushed, that its "
        "tip lacks"))


def _move(repo: pygit2.Repository, new: str | None, old: str) -> bool:
    """Move (or delete) :data:`NOTES_REF` from ``old`` to ``new``; False: it moved meanwhile."""
    # Lazy: as rebase_here.
    from .notes import _git

    args = ["-m", HERE_MESSAGE, NOTES_REF, new, old] if new is not None else [
        "-m", HERE_MESSAGE, "-d", NOTES_REF, old]
    return _git(repo, "update-ref", *args, check=False).returncode == 0


def named_lines(store: Store, lines: dict[str, list[bytes]]) -> str:
    """Name every line of ``lines``: ``KIND/NAME (TYPE by KEYID)``, joined by ``, ``.

    Args:
        store: the clone (the runs are named by the work tree's metadata).
        lines: ``{annotated object id: [lines]}``.

    Returns:
        Each line named by its run (:func:`kistore.attest.notes_at.on_run`), the type its
        payload claims and its key's fingerprint, as KI315 names them (unverified: a line
        dropped is named, not judged); ``(a line that is no attestation bundle)`` when it
        does not parse. Raises nothing.
    """
    # Lazy: as rebase_here.
    import json

    # Lazy: as above.
    from ..core.errors import KistoreError
    from .attestation import Bundle, bundle_keyid, type_of
    from .notes_at import on_run

    view = store.view(None)
    said = []
    for obj, held in sorted(lines.items()):
        run = on_run(store, view, obj)
        for line in held:
            try:
                bundle = Bundle.from_bytes(line)
                claimed = json.loads(bundle.envelope.payload).get("predicateType")
                kind = type_of(claimed) if isinstance(claimed, str) else None
                said.append(f"{run} ({kind or 'an attestation of unknown type'} by "
                            f"{bundle_keyid(bundle) or 'an unreadable key'})")
            except (KistoreError, ValueError, AttributeError):
                said.append(f"{run} (a line that is no attestation bundle)")
    return printable(", ".join(said))
