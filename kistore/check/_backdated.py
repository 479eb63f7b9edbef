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
from datetime import datetime
from typing import TYPE_CHECKING

from ..attest.evidence import DISAGREES, VERIFIES, WITHDRAWS, judge_all
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
        ``entered``, ``effect``: the judgement at ``start``); empty when the trust file is
        the same at both tips (one tree lookup each), or NEW's does not parse (KI309 and
        KI410 are the gate's).

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
    if not starts:  # every key counts from a validFrom or from a start OLD already had
        return []
    attested = by_key(store, head, starts)
    seen = [s for found in attested.values() for s in found]
    if not seen:
        return []
    from_now = Trust({k: replace(v, valid_from=now, added_in="") if k in starts else v
                      for k, v in trust.keys.items()}, follows=trust.follows)
    view = store.view(head)
    places = {k: f"/keys/{i}" for i, k in enumerate(trust.keys)}  # the file's order
    clock = now.replace(microsecond=0)
    findings = []
    for s, then, later in zip(seen, judge_all(seen, trust, view),
                              judge_all(seen, from_now, view), strict=True):
        if s.source != "note" or then.effect not in TRUSTED or later.effect in TRUSTED:
            continue
        keyid = then.keyid or ""
        when, commit = starts[keyid]
        findings.append(Finding(
            TRUST_ENTRY_BACKDATED, f"{where}: commit {commit[:12]} trusts key {keyid} "
            f"(no validFrom) from the commit's time, {format_time(when)} (its committer date, "
            f"held to its ancestors'), {duration_text(int((clock - when).total_seconds()))} "
            f"before this push ({format_time(clock)}): the "
            f"{then.type or 'attestation'} that key signed on {s.subject} ({s.location}), "
            f"which entered the repository at {format_time(s.entered_at)}, before the key "
            "was trusted, would stop being a community attestation and count "
            f"({then.effect})", file=layout.TRUST_FILE, pointer=places.get(keyid),
            expected=f"key {keyid} counting from this push ({format_time(clock)}) or later",
            found=f"counting from {format_time(when)}",
            extra={"keyid": keyid, "commit": commit, "start": format_time(when),
                   "location": s.location, "subject": str(s.subject),
                   "entered": format_time(s.entered_at), "effect": then.effect}))
    return findings


def _after(repo: pygit2.Repository, commit: str, old: pygit2.Commit) -> bool:
    """Whether ``commit`` is not ``old`` nor one of its ancestors: one the move brings."""
    return commit != str(old.id) and not repo.descendant_of(old.id, commit)
