"""``kistore notes rebase`` with no REMOTE: accept the notes tip of a store with no remote.

Notes only grow (KI408): a line a notes history held is never dropped, since a clone may
have fetched it, and KI315 (:mod:`kistore.attest.tip_lacking`) warns while the tip lacks
one. With a remote, a line of one's own that was never pushed, taken back on purpose, is
dropped by ``kistore notes rebase R``: the notes rebuilt on R's, which never held it. A
store with no remote (``kistore init``, ``make demo``) has no R, and a mistaken line taken
back with ``git notes --ref kistore remove`` blocked ``site build`` and ``export`` for good
(fresh08 M5): the ways out were ``notes restore`` (the mistake back) or ``git update-ref``
and ``git reflog expire`` by hand.

Without a remote nothing was pushed, so no other clone holds the lines, and "notes only
grow" is this repository's own history's rule: :func:`rebase_here` rewrites that history
once, on the user's word, so that it holds exactly the tip's lines. The rebuilt notes are
the newest notes commit of the tip's first-parent line whose whole history holds none of
the lines dropped (their entry times kept), with the tip's tree on top in one notes commit
when the tip holds lines that commit lacks (those enter at its time, as in ``notes rebase
R``). The reflog is kept (the old tip stays in git): its entries before the rebuild are no
longer read, as after ``notes rebase R`` (:func:`kistore.attest.notes_reflog.mark_rebased`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from ..core.errors import InputError, StoreStateError, printable
from ..core.layout import NOTES_REF
from ..git.lazy import pygit2
from ..git.notes import note_tree
from .notes_reflog import REBASE_MESSAGE, earlier_tips, mark_rebased

if TYPE_CHECKING:  # pragma: no cover - typing only
    import pygit2

    from ..store import Store

__all__ = ["HERE_MESSAGE", "Dropped", "named_lines", "rebase_here"]

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
        base: the notes commit of the old history kept (40 hex; None: none was: the tip's
            notes in a commit with no parent).
        entering_now: how many of the tip's lines ``base`` lacks: written again in a notes
            commit on it, they enter the repository at its time.
        written: False for a dry run (nothing changed).
    """

    lines: dict[str, list[bytes]]
    old: str | None
    new: str | None
    base: str | None
    entering_now: int
    written: bool


def rebase_here(store: Store, *, dry_run: bool = False) -> Dropped:
    """Drop from the notes history and reflog read every line the tip of the notes lacks.

    Args:
        store: the clone, which must have no remote.
        dry_run: only say what would be dropped.

    Returns:
        :class:`Dropped`. Lines are dropped only when the history or reflog holds some
        the tip lacks; otherwise nothing is written (``lines`` empty).

    Raises:
        InputError: the repository has a remote: its notes may hold the lines (a line
            pushed is never dropped); the message names ``kistore notes rebase R``.
        StoreStateError: the notes ref kept moving under concurrent writers.
    """
    # Lazy: notes.py loads the write path; only this command needs it.
    from .notes import (
        _lacking,
        _notes_of,
        _own_commit,
        _unreadable,
        history_trees,
        parents_first,
    )

    repo = store.repo
    _refuse_remotes(repo)
    for _ in range(_CAS_ATTEMPTS):
        ref = repo.references.get(NOTES_REF)
        if ref is None:
            return Dropped({}, None, None, None, 0, False)
        old = repo[ref.target].peel(pygit2.Commit)
        history = list(repo.walk(old.id, parents_first()))
        trees: dict[str, dict[str, str]] = {}
        commits = [*history, *earlier_tips(repo, history_trees(repo, old.id))]
        held = {pair for commit in commits
                for pair in note_tree(repo, commit.tree, "", trees).items()}
        ours = _notes_of(repo, old.id)
        read = _unreadable(repo, held - set(ours.items()))
        lost = _lacking(repo, ours, sorted(held), read)
        if not lost or dry_run:
            return Dropped(lost, str(old.id), None, None, 0, False)
        base = _base(repo, old, history, lost, read, trees)
        kept = {} if base is None else _notes_of(repo, base.id)
        entering = sum(map(len, _lacking(repo, kept, sorted(ours.items()), read).values()))
        if base is not None and base.tree_id == old.tree_id:
            new: str | None = str(base.id)
        elif not ours:
            new = None  # the tip holds no note, nor does any commit kept: no notes
        else:
            new = str(_own_commit(
                repo, old.tree_id, [] if base is None else [base.id],
                f"the tip's notes, without {sum(map(len, lost.values()))} attestation line(s) "
                "its history held (kistore notes rebase, no remote)"))
        if _move(repo, new, str(old.id)):
            mark_rebased(repo)  # the tips before are left on purpose (KI315's reflog)
            return Dropped(lost, str(old.id), new, None if base is None else str(base.id),
                           entering, True)
    raise StoreStateError(f"{NOTES_REF} kept moving under concurrent writers; run it again")


def _refuse_remotes(repo: pygit2.Repository) -> None:
    """Refuse a repository with a remote: ``notes rebase R`` is its way (named)."""
    # Lazy: as rebase_here.
    import shlex

    # Lazy: as above.
    from .levels import canonical_remote

    names = sorted(r.name or "" for r in repo.remotes)
    if not names:
        return
    remote = canonical_remote(names) or names[0]
    raise InputError(printable(
        f"no REMOTE given, and this repository has remote(s) {', '.join(names)}: lines of "
        "its notes may be there, and a line pushed cannot be dropped (notes only grow, "
        f"KI408); `kistore notes rebase {shlex.quote(remote)}` rebuilds the notes on "
        f"{remote}'s, leaving out the lines of this repository's own, never pushed, that its "
        "tip lacks"))


def _base(repo: pygit2.Repository, tip: pygit2.Commit, history: list[pygit2.Commit],
          lost: dict[str, list[bytes]], read: dict[str, set[bytes]],
          trees: dict[str, dict[str, str]]) -> pygit2.Commit | None:
    """Return the newest commit of ``tip``'s first-parent line whose history holds no lost line.

    ``history`` is ``tip``'s commits, parents first; a commit is tainted when one of its
    notes holds a line of ``lost``, and so is each commit after it (a descendant); None
    when the first-parent line reaches no untainted commit.
    """
    # Lazy: as rebase_here.
    from ..git.note_blobs import read_note
    from .notes import _lines

    def holds_lost(obj: str, blob: str) -> bool:
        if obj not in lost:
            return False
        if blob not in read:
            read[blob] = set(_lines(read_note(repo, blob, f"{NOTES_REF}:{obj}")))
        return bool(read[blob] & set(lost[obj]))

    tainted: set[str] = set()
    for commit in history:  # parents first
        if any(str(p) in tainted for p in commit.parent_ids) or any(
                holds_lost(obj, blob)
                for obj, blob in note_tree(repo, commit.tree, "", trees).items()):
            tainted.add(str(commit.id))
    at: pygit2.Commit | None = tip
    while at is not None and str(at.id) in tainted:
        at = at.parents[0] if at.parents else None
    return at


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
