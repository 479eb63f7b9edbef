"""KI439: a new note line is judged at the entry time readers will give it (fresh07 M7).

The gate judges a new note line's key at the push's clock (KI411: the server's in
``pre-receive``), but every reader judges it at its entry time, its notes commit's date
held up to its ancestors' (:class:`kistore.attest.notes.Clock`), which KI437 lets be five
minutes after the server's clock or ten minutes before it. A maintainer whose clock was
eight minutes slow, withdrawing within eight minutes of the key's trust landing, pushed a
line the server judged valid (a trusted maintainer's: it withdraws) and readers dated before
the key's start (a community attestation): accepted, and never counted, with no word.

**KI439** (error), judged where a push of ``refs/notes/kistore`` is (``check --updates``),
for each new line KI411 accepts: its verdict under the protected branch's trust as pushed
(dated: a key without ``validFrom`` counts from its trust commit) at its readers' entry time
and at the push's clock; when the effects differ (it would withdraw at the clock, and is a
community attestation at its entry; or the reverse, a key whose ``validFrom`` falls between
the two), the line is named with both verdicts and the two times. Its fix: set this
machine's clock right, then ``kistore notes push REMOTE`` (which makes notes commits dated
more than a minute off the clock again at the push); within a minute of a key's start, wait
that minute first. In a clone (``pre-push``, ``kistore notes push``'s own judgement) the
clock is the one the commits were dated by, so the two agree and nothing is said: only the
server, whose clock is another, sees it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING

from ..attest.evidence import NOT_COUNTED, judge
from ..attest.trust import format_time, load_trust
from ..attest.trust_history import dated, held
from ..core.errors import KistoreError
from ..core.findings import ERROR, Finding, rule
from ..core.layout import NOTES_REF
from ..core.times import commit_datetime, duration_text
from ._notes_history import BroughtNotes, entered_in

if TYPE_CHECKING:  # pragma: no cover - typing only
    import pygit2

    from ..attest.notes import Seen
    from ..store import Store

ENTRY_VERDICT_DIFFERS = rule(
    "KI439", "notes-line-judged-otherwise-at-entry", ERROR,
    "set this machine's clock right (NTP: `timedatectl set-ntp true`) and push the notes "
    "with `kistore notes push REMOTE`: it makes notes commits dated more than a minute "
    "off the clock again, dated at the push, so the line enters then; a line within a "
    "minute of a key's start: wait that minute, then `kistore notes push REMOTE`")


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
                    walked: list[BroughtNotes], times: dict[str, datetime]) -> list[Finding]:
    """KI439 for each new note line judged otherwise at its entry time than at ``now``.

    Args:
        store: the receiving (or pushing) store.
        fresh: the new lines KI409 lets in (``location`` ``refs/notes/kistore:OBJ``).
        trust_rev: the protected branch's tip as pushed (its trust judges readers').
        now: the push's clock (aware).
        walked: :func:`._notes_history.brought_notes` of the commits the push brings.
        times: :func:`entry_times` of them.

    Returns:
        One KI439 per line whose effect differs (``extra``: ``keyid``, ``enteredAt``,
        ``clock``, ``effect``: at the entry, ``now``: at the clock); none where the trust
        file does not parse (KI309) or the line is refused at the clock (KI411's).

    Raises:
        ObjectUnreadable: a note blob on the way is damaged or missing.
    """
    try:
        trust = held(store, trust_rev, dated(store, trust_rev, load_trust(
            store.view(trust_rev))))
    except KistoreError:
        return []
    view = store.view(trust_rev)
    clock = now.replace(microsecond=0)
    findings = []
    for item in fresh:
        obj = item.location[len(NOTES_REF) + 1:]
        entered = times.get(entered_in(store.repo, walked, obj, item.data, NOTES_REF))
        if entered is None or entered == clock:
            continue
        at_now = judge(replace(item, entered_at=now), trust, view)
        if at_now.effect == NOT_COUNTED:
            continue
        then = judge(replace(item, entered_at=entered), trust, view)
        if then.effect == at_now.effect:
            continue
        seconds = int((entered - clock).total_seconds())
        side = "after" if seconds > 0 else "before"
        findings.append(Finding(
            ENTRY_VERDICT_DIFFERS,
            f"the {then.type or 'attestation'} by {then.keyid} on {item.subject} enters the "
            f"repository at its notes commit's date, {format_time(entered)}, "
            f"{duration_text(abs(seconds))} {side} this push's clock ({format_time(clock)}), and "
            f"every reader judges it there: {then.effect} ({then.reason}), not "
            f"{at_now.effect} as at this push's clock",
            file=item.location,
            extra={"keyid": then.keyid, "enteredAt": format_time(entered),
                   "clock": format_time(clock), "effect": then.effect,
                   "now": at_now.effect}))
    return findings

