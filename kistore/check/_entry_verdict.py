"""KI439: a new note line is judged at the entry time readers will give it (fresh07 M7).

The gate judges a new note line's key at the push's clock (KI411: the server's in
``pre-receive``), but every reader judges it at its entry time, its notes commit's date held
up to its ancestors' (:class:`kistore.attest.notes.Clock`), which KI437 lets be a minute after the
server's clock (five until 2026-12-07) or ten minutes before it. A maintainer whose clock
was eight minutes slow, withdrawing within eight minutes of the key's trust landing, pushed
a line the server judged valid (a trusted maintainer's: it withdraws) and readers dated
before the key's start (a community attestation): accepted, and never counted, with no word.

**KI439** (error), judged where a push of ``refs/notes/kistore`` is (``check --updates``),
for each new line KI411 accepts: its verdict under the protected branch's trust as pushed
(dated: a key without ``validFrom`` counts from its trust commit) at its readers' entry time
and at the push's clock; when the effects differ (it would withdraw at the clock, and is a
community attestation at its entry; or the reverse, a key whose ``validFrom`` falls between
the two), the line is named with both verdicts and the two times. Its fix: set this
machine's clock right, then ``kistore notes push REMOTE`` (which makes notes commits dated
more than a minute off the clock again at the push). In a clone (``pre-push``, ``kistore
notes push``'s own judgement) the clock is the one the commits were dated by, so the two
agree, and a difference is a line signed on the other side of its key's start (``validFrom``
or the trust commit) within the minute before the push: the clock is not the cause, and the
fix names the ways out (:func:`started_fix`; it said "wait that minute, then push" until
2026-12-07, and that push, making the notes again, made the line count: fresh12 F7).

Unless the line's entry is held by a notes commit it is built on (a parent dated ahead of
the clock that received it, anyone's community note: fresh08 M2, up to KI437's minute):
then the clock judging the push is right, and the message names that notes commit and its
date, and the fix says so (:func:`held_fix`): wait until after that date, or, when the key
may not sign by then, sign with another key; setting the clock or rebuilding the notes
(``kistore notes rebase``, on the same tip) moves nothing. A parent the push brings itself
is made again by ``kistore notes rebase REMOTE`` at the push's time.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING

from ..attest.evidence import NOT_COUNTED, judged_among
from ..attest.notes import bundle_copies
from ..attest.trust import format_time
from ..attest.trust_history import readers_trust
from ..core import layout
from ..core.findings import ERROR, Finding, rule
from ..core.layout import NOTES_REF
from ..core.times import NOTES_AHEAD, commit_datetime, duration_text
from ..git.lazy import pygit2  # imported on first use (as the gate's)
from ._notes_history import BroughtNotes, entered_in

if TYPE_CHECKING:  # pragma: no cover - typing only
    from ..attest.notes import Seen
    from ..store import Store

ENTRY_VERDICT_DIFFERS = rule(
    "KI439", "notes-line-judged-otherwise-at-entry", ERROR,
    "set this machine's clock right (NTP: `timedatectl set-ntp true`) and push the notes "
    "with `kistore notes push REMOTE`: it makes notes commits dated more than a minute "
    "off the clock again, dated at the push, so the line enters then; with the pushing "
    "machine's clock right, the line was signed on the other side of its key's start, and "
    "`kistore notes push REMOTE` refuses it, naming the ways out (`--enter-now`, attesting "
    "again, or leaving the line out)")


def entry_times(repo: pygit2.Repository, brought: Sequence[pygit2.Commit],
                old: pygit2.Commit | None) -> dict[str, datetime]:
    """Return each brought notes commit's time as readers give it: id (40 hex) -> UTC.

    Its committer date held up to its ancestors' (:class:`kistore.attest.notes.Clock`):
    the brought ones and the old tip's own date (the held history before it is taken as
    no later: KI437 held each within minutes of its push). Raises nothing.
    """
    ids = {str(c.id): c for c in brought}
    floor = None if old is None else commit_datetime(old.commit_time)
    times: dict[str, datetime] = {}

    def time_of(cid: str) -> datetime:
        if cid not in times:
            commit = ids[cid]
            when = commit_datetime(commit.commit_time)
            for parent in commit.parent_ids:
                got = time_of(str(parent)) if str(parent) in ids else floor
                if got is not None and got > when:
                    when = got
            times[cid] = when
        return times[cid]

    for cid in reversed(list(ids)):  # oldest first: little recursion
        time_of(cid)
    return times


def judged_at_entry(store: Store, fresh: Iterable[Seen], trust_rev: str, now: datetime,
                    walked: list[BroughtNotes], times: dict[str, datetime],
                    old: pygit2.Commit | None = None, pushing: bool = False
                    ) -> list[Finding]:
    """KI439 for each new note line judged otherwise at its entry time than at ``now``.

    Args:
        store: the receiving (or pushing) store.
        fresh: the new lines KI409 lets in (``location`` ``refs/notes/kistore:OBJ``).
        trust_rev: the protected branch's tip as pushed (its trust judges readers').
        now: the push's clock (aware).
        walked: :func:`._notes_history.brought_notes` of the commits the push brings.
        times: :func:`entry_times` of them.
        old: the receiver's notes tip (:func:`entry_times`' ``old``), named when its date
            holds a line's entry (:func:`held_by`); None: it holds none.
        pushing: judged in the pushing clone (``kistore notes push``, ``pre-push``), whose
            clock dated its own notes commits: a line whose key's start (``validFrom``, or
            the commit that added it) falls between its entry and the clock was signed on
            the other side of that start, and the clock is not the cause: the fix says so
            (:func:`started_fix`) and ``extra.keyStart`` holds the start (fresh12 F7: the
            fix said "wait that minute, then push", and the push made the line count).

    Returns:
        One KI439 per line whose effect differs (``extra``: ``keyid``, ``enteredAt``,
        ``clock``, ``effect``: at the entry, ``now``: at the clock), each judged with its
        bundle's committed file copies at ``trust_rev``, as readers judge it
        (:func:`kistore.attest.notes.bundle_copies`, :func:`kistore.attest.evidence.
        judged_among`: a line whose file copy counts is judged so at both times); none
        where the trust file does not parse (KI309) or the line is refused at the clock
        (KI411's). A line
        whose entry a notes commit it is built on holds (:func:`held_by`) is said with that
        commit and its date, and the fix of its own, :func:`held_fix`.

    Raises:
        ObjectUnreadable: a note blob on the way is damaged or missing.
    """
    trust = readers_trust(store, trust_rev)
    if trust is None:
        return []
    view = store.view(trust_rev)
    clock = now.replace(microsecond=0)
    findings = []
    for item in fresh:
        obj = item.location[len(NOTES_REF) + 1:]
        cid = entered_in(store.repo, walked, obj, item.data, NOTES_REF)
        entered = times.get(cid)
        if entered is None or entered == clock:
            continue
        copies = bundle_copies(store, item, trust_rev)  # judged with them, as readers do
        at_now = judged_among(replace(item, entered_at=now), copies, trust, view)
        if at_now.effect == NOT_COUNTED:
            continue
        then = judged_among(replace(item, entered_at=entered), copies, trust, view)
        if then.effect == at_now.effect:
            continue
        seconds = int((entered - clock).total_seconds())
        side = "after" if seconds > 0 else "before"
        far = duration_text(abs(seconds), precise=True)  # to the second, as KI437's
        said = (f"at its notes commit's date, {format_time(entered)}, "
                f"{far} {side} this push's clock ({format_time(clock)})")
        parent = held_by(store.repo, cid, entered, times, old)
        key = trust.keys.get(then.keyid or "")
        start = None if key is None else key.valid_from
        if parent is not None or not pushing or start is None or not (
                min(entered, clock) <= start <= max(entered, clock)):
            start = None  # the clock (or a parent's date) is the cause
        if parent is not None:  # not the pusher's clock: a notes commit it is built on
            own = commit_datetime(store.repo[cid].peel(pygit2.Commit).commit_time)
            said = (f"at {format_time(entered)}, {far} {side} this "
                    f"push's clock ({format_time(clock)}): its notes commit {cid[:12]} is dated "
                    f"{format_time(own)}, and notes commit {parent[0][:12]}, which it is built "
                    f"on, is dated {format_time(entered)} (an entry is never earlier than its "
                    "history's)")
        findings.append(Finding(
            ENTRY_VERDICT_DIFFERS,
            f"the {then.type or 'attestation'} by {then.keyid} on {item.subject} enters the "
            f"repository {said}, and every reader judges it there: {then.effect} "
            f"({then.reason}), not {at_now.effect} as at this push's clock",
            file=item.location,
            fix=held_fix(parent[0], parent[1], entered, then.effect == NOT_COUNTED)
            if parent is not None else None if start is None
            else started_fix(str(then.keyid), start, obj),
            extra={"keyid": then.keyid, "enteredAt": format_time(entered),
                   "clock": format_time(clock), "effect": then.effect,
                   "now": at_now.effect,
                   **({} if start is None else {"keyStart": format_time(start)})}))
    return findings


def started_fix(keyid: str, start: datetime, obj: str) -> str:
    """Return KI439's fix in the pushing clone for a line its key's start divides (F7).

    Args:
        keyid: the line's key.
        start: when the key starts counting (``validFrom``, or the commit that added it).
        obj: the annotated object (40 hex), the note to edit.

    Returns:
        One sentence: this machine's clock is not the cause (it dated the line's notes
        commit and judges the push), the line was signed on the other side of the key's
        start, and the ways out: ``--enter-now``, attesting again, or leaving the line out
        and the rebuild. Not "wait that minute, then push": a push after the minute makes
        the notes again at the push, which changes the line's effect (fresh12 F7).
        Raises nothing.
    """
    return (f"this machine's clock is not the cause: it dated the line's notes commit, and "
            f"key {keyid} counts from {format_time(start)}, between the line's entry and this "
            "push's clock: the line was signed on the other side of its key's start, and no "
            "wait mends it (a push after a minute makes the notes again at the push, which "
            "changes the line's effect, refused as such): `kistore notes push REMOTE "
            "--enter-now` lets it enter at the push and be judged there; or its signer attests "
            "again and leaves the old line out; or, to keep it from counting, leave it out: "
            f"`git notes --ref kistore edit {obj}` and delete it, then `kistore notes rebase "
            "REMOTE` and `kistore notes push REMOTE`")



def held_by(repo: pygit2.Repository, cid: str, entered: datetime,
            times: dict[str, datetime], old: pygit2.Commit | None) -> tuple[str, bool] | None:
    """Return the notes commit whose own date holds ``cid``'s entry, when not ``cid``'s own.

    Args:
        repo: the receiving (or pushing) repository.
        cid: the brought notes commit a line entered in (40 hex).
        entered: its entry time, :func:`entry_times`' (held up to its ancestors').
        times: :func:`entry_times` of the brought commits.
        old: the receiver's notes tip (None: it holds none), :func:`entry_times`' floor.

    Returns:
        ``(id, brought)``: the commit dated ``entered`` (40 hex) and whether the push brings
        it (False: ``old``, which :func:`entry_times` holds every brought commit up to);
        None when ``cid``'s own date is ``entered`` (the clock that dated it is the cause).
        Raises nothing for the commits :func:`entry_times` read.
    """
    commit = repo[cid].peel(pygit2.Commit)
    if commit_datetime(commit.commit_time) >= entered:
        return None
    while True:
        brought = [str(p) for p in commit.parent_ids if times.get(str(p)) == entered]
        if not brought:  # held by no brought parent: by the receiver's tip
            if old is None or commit_datetime(old.commit_time) < entered:
                return None
            return str(old.id), False
        commit = repo[brought[0]].peel(pygit2.Commit)
        if commit_datetime(commit.commit_time) >= entered:
            return brought[0], True


def held_fix(parent: str, brought: bool, entered: datetime, ended: bool) -> str:
    """Return KI439's fix for a line held to the date of a notes commit it is built on.

    Args:
        parent: that notes commit (40 hex).
        brought: the push brings it (else the receiver holds it already).
        entered: its date, the line's entry time.
        ended: the key may not sign at ``entered`` (its end comes first: waiting cannot
            help); else the verdicts differ otherwise (a ``validFrom`` in between).

    Returns:
        One sentence: that this machine's clock is not the cause, the commit and its date,
        and what to do. Raises nothing.
    """
    when = format_time(entered)
    if brought:
        return (f"notes commit {parent[:12]}, which this push brings and the line's notes "
                f"commit is built on, is dated {when}, ahead of this push's clock: make the "
                "notes this push brings again on REMOTE's notes tip, dated now (`kistore "
                "notes rebase REMOTE`), then `kistore notes push REMOTE`")
    said = (f"this machine's clock is not the cause: notes commit {parent[:12]}, which the "
            f"line's notes commit is built on, is dated {when}, ahead of the clock that "
            f"received it (KI437 lets a notes commit be up to {duration_text(NOTES_AHEAD)} "
            "ahead), and no notes commit made on it enters earlier (nor does `kistore notes "
            "rebase`)")
    if ended:
        return (f"{said}; waiting does not help, as the key may not sign by then: sign the "
                f"line with another key {layout.TRUST_FILE} trusts then, or have this key's "
                "validity changed by a reviewed pull request first")
    return (f"{said}: wait until after {when}, then `kistore notes push REMOTE`: the line "
            "enters then, judged there alike by this push's clock and every reader")
