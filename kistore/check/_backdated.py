"""KI434: a key trusted by a commit dated before the push, over notes held meanwhile (fresh02 G8).

A key without ``validFrom`` counts from the trusted time T of the oldest first-parent commit
that lists it (:func:`kistore.attest.trust_history.added`): its committer date, which the
committer writes, held only to its ancestors' (the clock :class:`kistore.attest.notes.
Clock` reads) and, on main, to within a day of the push that lands it (KI431). A note line
is not ordered with main's history: it enters at its notes commit's time. So a key's holder
who pushes a withdrawal as a note while nobody trusts the key (a community attestation: the
gate accepts it, KI411 judges it so) and then pushes straight to main a trust commit dated
just after its parent, before the note entered, had the withdrawal take effect, though
docs/attestations.md promises that "a withdrawal signed by a key nobody trusted yet does not
take effect when the trust pull request lands" (fresh02 G8, with KI413 saying it as info).

**KI434** (error), judged where a move of a protected branch is (``check --updates`` in
``hooks/pre-receive``, beside KI430/KI431, :mod:`._first_parent`), when OLD is on NEW's
first-parent line: for each key the trust file at NEW lists without ``validFrom`` whose
start commit is one of the new segment (OLD excluded .. NEW), the attestations of that key
the repository held before the push are judged twice under NEW's trust (dated and with
every revocation of its history, as every reader judges them): with the key counting from
T, and with it counting from the push's clock, as a trust commit dated now (or a merge
made now) would make it. One finding per attestation that takes part in the evidence as a
trusted key's (it verifies, withdraws or disagrees: :data:`TRUSTED`) at T and not from
now. Only note lines can: ``refs/notes/kistore`` is read as the hook sees it, before this
push's own notes update; an attestation file held before the push is one of OLD's, which
entered at a commit T's commit descends from, so it is ordered before the key's start
(at a tie of the clock too: :meth:`kistore.attest.trust.Trust.judge`), and a file the
push brings was not held before it. Judging both ways (not comparing entry times alone)
leaves out what a backdated start does not change: a note at T's own second (unordered: a
community attestation either way), one whose role the key lacks, one dated in the
future, a bundle whose earlier copy (a file) entered before T.

A line the server held before the push entered before it, whatever its notes commit's date
says: KI437 lets a pushed notes commit be dated a minute ahead of the server's clock (five
until 2026-12-07), so a withdrawal signed by a key nobody trusted, pushed dated four minutes
ahead, counted once the key's trust landed within those minutes (its date was after the
trust commit's: fresh07 H1). So the second judgement takes each held note line at the
earlier of its entry time and the push's clock; and a key the push adds with a ``validFrom``
after the push's clock is weighed too (its held lines are judged at their entry and before
the push): a line readers date after the key's start, which the server held before it, is
named, its fix to set the ``validFrom`` after the line's date or to wait past that date.

Not applied to a pull request's range (``check BASE..HEAD``: the forge's merge button dates
the key's start at the merge, which the range does not know), nor by ``pre-push`` (the
pushing clone's notes are not the server's: a note it holds may not have been pushed yet),
nor by ``check --landed`` (it cannot tell a note pushed after the move from one before).
A ``validFrom`` in the past and a role added to a trusted key are explicit, reviewed
choices (KI427, KI413 list what they make count), not this rule's.

Which attestations of those keys the repository holds, and when each entered, is read by
:func:`kistore.attest.signed_by.by_key` (the note lines of the notes ref as it is, which in
``pre-receive`` is before the push, and the files at a commit, each with its own entry
time; :func:`kistore.attest.evidence.judge_all` judges a bundle found twice at the
earlier).
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from ..attest.evidence import DISAGREES, VERIFIES, WITHDRAWS, Judgement, judge_all
from ..attest.notes import Seen
from ..attest.signed_by import by_key
from ..attest.trust import Trust, format_time, load_trust
from ..attest.trust_history import added, dated, held
from ..core import layout
from ..core.errors import KistoreError
from ..core.findings import ERROR, Finding, rule
from ..core.times import duration_text
from ..git.pathlog import blob_at

if TYPE_CHECKING:  # pragma: no cover - typing only
    import pygit2

    from ..store import Store

_FIX = ("make the trust commit again with the committer dated now (`git commit --amend "
        "--no-edit` when it is the last commit; `git rebase --force-rebase origin/main` for "
        "every commit since the server's main), or land it with a merge commit made now "
        "(`git checkout main && git merge --no-ff BRANCH`, what GitHub's merge button makes: "
        "the merge is then the key's start), and push that; an attestation its key signed "
        "before it was trusted stays a community attestation: to make it count, its signer "
        "attests again once the trust has landed")
TRUST_ENTRY_BACKDATED = rule("KI434", "trust-entry-backdated", ERROR, _FIX)

_SECOND = timedelta(seconds=1)
_INSTANT = timedelta(microseconds=1)

TRUSTED = (VERIFIES, WITHDRAWS, DISAGREES)
"""Effects of an attestation a trusted key's verdict makes take part in the evidence."""


def backdated_trust(store: Store, old: pygit2.Commit, new: pygit2.Commit, where: str,
                    now: datetime) -> list[Finding]:
    """KI434 for a move of a protected branch from ``old`` to ``new`` at the push's clock.

    Args:
        store: the receiving repository's :class:`kistore.store.Store` (``pre-receive``:
            its ``refs/notes/kistore`` not yet moved by this push).
        old: the branch's tip before the move (on ``new``'s first-parent line: the caller
            judges KI430 first and skips this when it fires).
        new: its tip after.
        where: what moves, for the message (``refs/heads/main``, or how the push named it).
        now: the push's clock (aware).

    Returns:
        One KI434 per (key, attestation) as the module says (``extra``: ``keyid``,
        ``commit``: the key's start commit, ``start``: its trusted time, ``location``,
        ``enteredAt``: its entry time, ``effect``: the judgement at ``start``); empty when
        the trust file is the same at both tips (one tree lookup each), or NEW's does not
        parse (KI309 and KI410 are the gate's).

    Raises:
        ObjectUnreadable: a git object the history walks read is damaged or missing.
    """
    repo = store.repo
    if blob_at(repo, old.tree, layout.TRUST_FILE) == blob_at(repo, new.tree, layout.TRUST_FILE):
        return []
    head = str(new.id)
    try:
        trust = held(store, head, dated(store, head, load_trust(store.view(head))))
    except KistoreError:
        return []
    starts = {k: s for k, s in added(repo, head).items()
              if k in trust.keys and not trust.keys[k].uncommitted
              and trust.keys[k].added_in == s[1] and _after(repo, s[1], old)}
    planned = _new_planned(store, old, trust, now)
    if not starts and not planned:  # every key counts from a start OLD already had
        return []
    attested = by_key(store, head, {*starts, *planned})
    seen = [s for found in attested.values() for s in found]
    if not seen:
        return []
    from_now = Trust({k: replace(v, valid_from=now, added_in="") if k in starts else v
                      for k, v in trust.keys.items()}, follows=trust.follows)
    # held before this push: entered before now, whatever its notes commit's date says
    # (KI437 lets it be a minute ahead, five until 2026-12-07: fresh07 H1, fresh08 M1)
    before = now - _INSTANT
    capped = [replace(s, entered_at=min(s.entered_at, before)) if s.source == "note" else s
              for s in seen]
    view = store.view(head)
    places = {k: f"/keys/{i}" for i, k in enumerate(trust.keys)}  # the file's order
    clock = now.replace(microsecond=0)
    findings = []
    for s, then, later in zip(seen, judge_all(seen, trust, view),
                              judge_all(capped, from_now, view), strict=True):
        if s.source != "note" or then.effect not in TRUSTED or later.effect in TRUSTED:
            continue
        keyid = then.keyid or ""
        findings.append(_finding(s, then, keyid, starts.get(keyid), planned.get(keyid),
                                 where, clock, places.get(keyid)))
    return findings


def _new_planned(store: Store, old: pygit2.Commit, trust: Trust, now: datetime
                 ) -> dict[str, datetime]:
    """Return the keys NEW's trust adds with a ``validFrom`` after ``now``: keyid -> it.

    A key OLD's trust file lists already is left out (a ``validFrom`` moved is KI410's or
    KI435's); so is every key when OLD's file does not parse (nothing to compare with).
    """
    try:
        before = load_trust(store.view(str(old.id))).keys
    except KistoreError:
        return {}
    return {k: v.valid_from for k, v in trust.keys.items()
            if k not in before and not v.uncommitted and not v.added_in
            and v.valid_from is not None and v.valid_from > now}


def _finding(s: Seen, then: Judgement, keyid: str, start: tuple[datetime, str] | None,
             planned: datetime | None, where: str, clock: datetime,
             pointer: str | None) -> Finding:
    """KI434 for one held note line ``s`` that ``then`` judges counting (see the module).

    ``start``: the key's start (time, commit) when it has no ``validFrom``; ``planned``:
    its ``validFrom`` otherwise; ``clock``: the push's clock in whole seconds.
    """
    what = (f"the {then.type or 'attestation'} that key signed on {s.subject} "
            f"({s.location})")
    entered = format_time(s.entered_at)
    extra = {"keyid": keyid, "location": s.location, "subject": str(s.subject),
             "enteredAt": entered, "effect": then.effect}
    ahead = s.entered_at > clock
    if start is not None and not ahead:
        when, commit = start
        return Finding(
            TRUST_ENTRY_BACKDATED, f"{where}: commit {commit[:12]} trusts key {keyid} "
            f"(no validFrom) from the commit's time, {format_time(when)} (its committer date, "
            f"held to its ancestors'), "
            f"{_ago(when, clock)} before this push ({format_time(clock)}): {what}, which "
            f"entered the repository at {entered}, before the key was trusted, would stop "
            f"being a community attestation and count ({then.effect})",
            file=layout.TRUST_FILE, pointer=pointer,
            expected=f"key {keyid} counting from this push ({format_time(clock)}) or later",
            found=f"counting from {format_time(when)}",
            extra={**extra, "commit": commit, "start": format_time(when)})
    if start is not None:
        when, commit = start
        how = (f"commit {commit[:12]} trusts key {keyid} (no validFrom) from the commit's "
               f"time, {format_time(when)}")
        extra = {**extra, "commit": commit, "start": format_time(when)}
    else:
        when = planned or clock
        how = (f"{layout.TRUST_FILE} trusts key {keyid} from its validFrom, "
               f"{format_time(when)}, {_ago(clock, when)} after this push")
        extra = {**extra, "start": format_time(when)}
    return Finding(
        TRUST_ENTRY_BACKDATED, f"{where}: {how}: {what} was held by this server before "
        f"this push ({format_time(clock)}), so made before the key was trusted, but its "
        f"notes commit is dated {entered}, {_ago(clock, s.entered_at)} after this push, "
        "and every reader dates it there, after the key's start: it would stop being a "
        f"community attestation and count ({then.effect})", file=layout.TRUST_FILE,
        pointer=pointer, expected=f"key {keyid} counting from after {entered}",
        found=f"counting from {format_time(when)}", extra=extra,
        fix=f"set the key's validFrom in {layout.TRUST_FILE} after {entered} (`kistore "
            f"trust add KEY.pub --role ROLE --valid-from {format_time(s.entered_at + _SECOND)}` "
            "on a clone without the entry)" + (
                # a key without validFrom counts from its commit: a commit dated after the
                # line's date moves it; one with validFrom does not (fresh08 M1: waiting,
                # the validFrom kept, landed the line counting)
                ", or wait until after it and make the trust commit again dated then (`git "
                "commit --amend --no-edit`)" if start is not None else "") + ", and push "
            "that; the attestation stays a community attestation: to make it count, its "
            "signer attests again once the trust has landed")


def _after(repo: pygit2.Repository, commit: str, old: pygit2.Commit) -> bool:
    """Whether ``commit`` is not ``old`` nor one of its ancestors: one the move brings."""
    return commit != str(old.id) and not repo.descendant_of(old.id, commit)


def _ago(when: datetime, now: datetime) -> str:
    """Say how long before ``now`` ``when`` is (``3 minutes``; ``0 seconds`` when after)."""
    return duration_text(int((now - when).total_seconds()))
