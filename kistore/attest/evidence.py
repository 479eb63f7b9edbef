"""Evidence level of a run (docs/design.md §5): ``source-native`` until a trusted rerun agrees.

This module is the seam between attestations and queries: queries ask
:func:`evidence_for` and never read attestations themselves; ``verify`` asks
:func:`check_attestations` for findings (rules KI301-KI314).

How one attestation is judged (:func:`judge`):

1. the bundle parses strictly and its signature verifies under the bundled key over the
   exact payload bytes, for the subject it is attached to (:func:`kistore.attest.attestation.
   verify_bundle`); otherwise it is **invalid** (an error finding);
2. types that need a role (``rerun`` -> ``rerun``, ``withdrawal`` -> ``maintainer``) are
   looked up in ``store/trust/keys.json`` by the bundled key's fingerprint, at the time the
   attestation first entered the repository (:mod:`kistore.attest.notes`; for revocation and
   expiry, at the later of that and the dates the signed payload states, :func:`signed_at`):

   * key not in trust: a **community** attestation (listed and counted, no effect);
   * key in trust but lacking the role, expired, not yet valid or revoked then: **not
     counted**, with the reason (an error finding: a role claim the key lacks; an info
     one, KI314, when a revocation recorded after it entered un-counts it:
     :mod:`kistore.attest.revoked_since`);
   * key trusted for the role then: a ``rerun`` with outcome ``reproduced`` makes the run
     **verified** when its latency agrees with the run's within
     :data:`kistore.attest.subjects.REPRODUCTION_TOLERANCE` (else it is
     ``out-of-tolerance``: listed with the ratio, the level unchanged, a KI311 warning);
     a ``withdrawal`` makes it **withdrawn**;
3. every other valid attestation (reproduction, note, dispute) is a community attestation.

``Evidence.community`` counts distinct signing keys among valid community attestations:
one key counts once however many attestations, signatures or keyids it appears under.
"""

from __future__ import annotations

import hashlib
import re
import shlex
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any, NamedTuple

from ..core import canonical, layout
from ..core.digest import Digest
from ..core.errors import InputError, KistoreError
from ..core.findings import ERROR, INFO, WARNING, Finding, rule
from ..core.layout import NOTES_REF
from ..core.numbers import is_number
from ..core.once import warn_once
from ..git.blobs import ObjectUnreadable, fetch_blobs, fetch_lacking, is_partial_clone
from ..git.config_guard import ConfigRefused
from ..git.lazy import pygit2  # imported on first use
from ..git.notes import notes_tree
from ..git.pack import blob_id
from ..git.refs import RefFileRefused
from .levels import SOURCE_NATIVE as SOURCE_NATIVE  # re-exported: defined in .levels
from .levels import VERIFIED as VERIFIED
from .levels import WITHDRAWS as WITHDRAWS
from .levels import Evidence as Evidence
from .levels import notes_remote
from .notepaths import path_findings
from .notes import (
    Seen,
    collect,
    collect_many,
    file_attestations,
    note_history_blobs,
    note_lines,
    notes_entered,
    notes_not_fetched,
    parse_attestation_path,
)
from .notes_dated import entry_floor
from .rewritten import rewritten_findings

if TYPE_CHECKING:  # pragma: no cover - typing only
    from ..store import Store, View
    from .trust import Trust

INVALID = "invalid"
UNREADABLE_BUNDLE = "unreadable bundle: "
"""How the reason of bytes that are no bundle begins (then the parse error, with its place)."""
NOT_COUNTED = "not-counted"
COMMUNITY = "community"
VERIFIES = "verifies"
DISAGREES = "disagrees"
UNFIT = "does-not-fit"
SUPERSEDED = "superseded"
OUT_OF_TOLERANCE = "out-of-tolerance"

COUNTED = (COMMUNITY, VERIFIES, WITHDRAWS, DISAGREES)
"""Effects that take part in the evidence (:attr:`Judgement.counted`): a community
attestation counts its signer; a trusted rerun or withdrawal that stands sets the level,
withdraws, or (not reproduced) is the key's last word. Every other effect is listed only."""

ATTESTATION_INVALID = rule(
    "KI301", "attestation-invalid", ERROR,
    "Remove the bundle, or have its signer attest again with `kistore attest`.")
ROLE_NOT_TRUSTED = rule(
    "KI302", "attestation-role-not-trusted", ERROR,
    "Sign with a key trusted for the role at that time, or change store/trust/keys.json "
    "by a reviewed pull request.")
FILE_SUBJECT_MISSING = rule(
    "KI303", "attestation-subject-missing", ERROR,
    "Add the attested manifest to the store, or remove the attestation file.")
NOTE_ON_UNKNOWN_OBJECT = rule(
    "KI304", "note-on-unknown-object", WARNING,
    "fetch the branches (`git fetch origin`) and find the commit that added the blob with "
    "`git log --all --find-object=BLOB`: check out a branch holding it to see the note's "
    "manifest; when no branch holds it (a fork's or a deleted branch's object), leave the "
    "note: it counts for nothing here, and notes are never removed")
FILE_MISPLACED = rule(
    "KI305", "attestation-file-misplaced", ERROR,
    "Attestation files live at store/attestations/sha256/XX/REST/<sha256 of the file>.json "
    "and hold the bundle's canonical bytes; write them with `kistore attest --file`.")
COMMUNITY_ATTESTATION = rule(
    "KI306", "attestation-community", INFO,
    "Listed and counted; it does not change the evidence level.")
TRUSTED_ATTESTATION = rule(
    "KI307", "attestation-trusted", INFO,
    "A trusted rerun or withdrawal; it changes the evidence level or ranking.")
ATTESTATIONS_SEEN = rule(
    "KI308", "attestations-seen", INFO,
    "Fetch notes with `kistore notes fetch origin`; attach pull-request files with "
    "`kistore notes sync`.")
ATTESTATION_UNFIT = rule(
    "KI310", "attestation-does-not-fit-subject", ERROR,
    "A withdrawal is about a BenchmarkRun; a rerun names an ExecutionEnvironment in the "
    "store with the run's GPU product and times the run's primary statistic. Attest again "
    "about the right subject, with the right predicate.")
RERUN_OUT_OF_TOLERANCE = rule(
    "KI311", "rerun-outside-tolerance", WARNING,
    "A trusted rerun saying `reproduced` verifies the run only when its latency is within a "
    "factor of 2 of the run's (kistore.attest.subjects.REPRODUCTION_TOLERANCE); check the "
    "rerun's timing (units: ns), and have its signer attest again, with the measurement "
    "or with outcome `not-reproduced`.")
ATTESTATION_TEXT_REFUSED = rule(
    "KI312", "attestation-text-refused", ERROR,
    "An attestation's text (a note's `text`, a dispute's or withdrawal's `reason`) may hold "
    "line feeds but no other control character (ESC) and no bidirectional control, as a "
    "manifest's prose; `kistore attest` refuses such a text. It is shown escaped; have its "
    "signer attest again with plain text.")
TRUST_COMMENT_REFUSED = rule(
    "KI441", "trust-comment-refused", ERROR,
    "A key's `comment` in store/trust/keys.json says who holds it in one line: no control "
    "character (ESC), no bidirectional control (U+202E), no line break; `kistore trust add` "
    "refuses such a comment. Write a plain one in a commit: `kistore trust add KEY.pub "
    "--role ROLE --comment 'NEW'` (the key's roles and window stay as they are).")
TRUST_FILE_INVALID = rule(
    "KI309", "trust-file-invalid", ERROR,
    "Fix store/trust/keys.json (schemas/trust-keys.json), e.g. with `kistore trust add`.")


def comment_findings(trust: Trust) -> list[Finding]:
    """KI441 per key whose ``comment`` :func:`kistore.attest.trust.comment_problem` refuses.

    An error in ``verify`` and in ``check`` of a range changing the trust file (fresh14 F7:
    a comment holding U+202E or a line feed, written by ``trust add``, reversed or forged
    the reviewer's KI427 line). An error, not a warning, for one already landed: the fix
    is one commit replacing the comment (a trust file's history is never rewritten, but
    the comment changes no judgement, so that commit takes nothing from it), as KI312 is
    an error of an attestation text stored.

    Args:
        trust: the trust file read (:class:`kistore.attest.trust.Trust`).

    Returns:
        The findings, in the file's order, at ``/keys/N/comment``; ``extra``: ``keyid``.
        Raises nothing.
    """
    # Lazy: trust imports the store layer.
    from .trust import comment_problem

    findings = []
    for place, key in enumerate(trust.keys.values()):
        problem = comment_problem(key.comment) if key.comment else None
        if problem is not None:
            findings.append(Finding(
                TRUST_COMMENT_REFUSED, f"the comment of key {key.keyid}: {problem}",
                file=layout.TRUST_FILE, pointer=f"/keys/{place}/comment",
                extra={"keyid": key.keyid}))
    return findings


def _written_trust(view: View) -> Trust:
    """Return the trust file of ``view`` as written (no history); an empty one if unreadable."""
    # Lazy: trust imports the store layer.
    from .trust import Trust, load_trust

    try:
        return load_trust(view)
    except KistoreError:  # said as KI309
        return Trust()


@dataclass(frozen=True, slots=True)
class Judgement:
    """How one attestation was judged.

    Attributes:
        type: attestation type (``rerun``, ...); for an invalid bundle the type its payload
            claims (unverified, display only), None when unreadable.
        keyid: OpenSSH fingerprint of the bundled key, None when unreadable.
        valid: True when the bundle verifies: well formed, in its place, its signature
            good for its subject. Whether it counts is apart (:attr:`counted`): a role
            claim the key lacks (``not-counted``) or a rerun that does not fit its run
            (``does-not-fit``) is valid and does not count (until 2026-12-06 both were
            ``valid: false``, listed ``INVALID``, though the signature verified: fresh98).
        effect: ``invalid``, ``not-counted`` (role claim fails), ``community``,
            ``verifies``, ``withdraws`` or ``disagrees`` (a trusted rerun that did not
            reproduce).
        reason: why, in one line (empty for a plain valid attestation).
        source: ``note`` or ``file``.
        location: the note (``refs/notes/kistore:<blob>``) or file path.
        entered_at: when it entered the repository (UTC), the time trust is judged at.
        outcome: the predicate's ``outcome`` for reproduction/rerun, else None.
        measured_ns: for a verified reproduction or rerun, the latency it measured at its
            timing's primary statistic (ns), else None (``show`` sets it beside the run's).
        text: what a verified attestation says in words (a note's ``text``, a dispute's or
            withdrawal's ``reason``: :func:`kistore.attest.attestation.stated_text`), as
            signed; None when it says nothing (or does not verify). Printed escaped.
        text_problem: why that text (or another free text of the predicate) may not be
            stored (:func:`kistore.attest.attestation.text_problems`, KI312), else None.
        bundle: hex SHA-256 of the bundle's bytes (its identity), "" when not known.
        places: every ``(source, location)`` the same bundle was found at, judged alike
            (:func:`summarise`: a file attached as a note by ``kistore notes sync`` is one
            attestation found twice); empty means ``((source, location),)``.
        signed: the latest date its verified payload states (:func:`signed_at`), None
            when it states none or does not verify. Not in :meth:`to_json`.
        entered_in: the commits it was judged as entered in
            (:attr:`kistore.attest.notes.Seen.entered_in`; empty for a note line and a
            work-tree file). Not in :meth:`to_json`.
        noted_in: for a note line, the notes commits it first entered in
            (:attr:`kistore.attest.notes.Seen.noted_in`), when every earliest copy of its
            bundle is a note line; else empty. Orders one key's reruns of one entry time
            (:func:`rerun_order`), never trust. Not in :meth:`to_json`.
        place: for a trusted rerun (``verifies``, ``disagrees``, ``out-of-tolerance`` or
            ``superseded``), its place among its key's trusted reruns of the subject in
            the order they stand (:func:`rerun_order`; 0 the earliest, the highest the
            one standing), else None. Not in :meth:`to_json`.
    """

    type: str | None
    keyid: str | None
    valid: bool
    effect: str
    reason: str
    source: str
    location: str
    entered_at: datetime
    outcome: str | None = None
    measured_ns: float | None = None
    text: str | None = None
    text_problem: str | None = None
    bundle: str = ""
    places: tuple[tuple[str, str], ...] = ()
    signed: datetime | None = field(default=None, compare=False)
    entered_in: tuple[str, ...] = field(default=(), compare=False)
    place: int | None = field(default=None, compare=False)
    noted_in: tuple[str, ...] = field(default=(), compare=False)

    @property
    def counted(self) -> bool:
        """Whether it takes part in the evidence (:data:`COUNTED`).

        A community attestation (the community count), or a trusted rerun or withdrawal
        that stands; a valid one may not count (``not-counted``, ``does-not-fit``).
        """
        return self.effect in COUNTED

    def to_json(self) -> dict[str, Any]:
        """Return the judgement as JSON (the ``attestations --json`` object).

        ``valid``: the bundle verifies; ``counted``: it takes part in the evidence
        (:attr:`counted`). ``text`` is what the attestation says in words (a dispute's
        reason), as signed; ``reason`` is why it was judged so. ``source`` and
        ``location`` are the first place the bundle was found (a note before a file);
        ``places`` lists every one, as ``{"source", "location"}`` objects.
        """
        places = self.places or ((self.source, self.location),)
        return {"type": self.type, "keyid": self.keyid, "valid": self.valid,
                "counted": self.counted, "effect": self.effect, "reason": self.reason,
                "source": self.source, "location": self.location, "enteredAt": _when(self),
                "outcome": self.outcome, "measuredNs": self.measured_ns, "text": self.text,
                "places": [{"source": s, "location": at} for s, at in places]}


def judge(seen: Any, trust: Any, view: View | None = None) -> Judgement:
    """Judge one attestation as found in the repository.

    Args:
        seen: a :class:`kistore.attest.notes.Seen` (bytes, subject, source, entry time).
        trust: the store's :class:`kistore.attest.trust.Trust`.
        view: the store view its subject is read from; when given, a rerun or withdrawal
            that does not fit its subject (:func:`kistore.attest.subjects.subject_problem`)
            is judged ``does-not-fit``, never counted.

    Returns:
        The :class:`Judgement` (never raises for bad bundles: they are judged invalid).
    """
    # Lazy: judging loads keys and signatures (~15 ms); a ranking of unattested runs never does.
    from .attestation import ROLE_FOR_TYPE, Bundle, stated_text, text_problems

    # Lazy: as above; each bundle checked once a process, whoever reads it (KI410's reader).
    from .signed_by import keyid_of, verified

    # Lazy: as above (subjects reads the run only when an attestation is about it).
    from .subjects import rerun_disagreement, subject_problem

    base = {"source": seen.source, "location": seen.location, "entered_at": seen.entered_at,
            "bundle": hashlib.sha256(seen.data).hexdigest()}
    if seen.defect:  # never counted; what it claims is shown, as for a bad signature
        return _defective(seen, base)
    try:
        bundle = Bundle.from_bytes(seen.data, file=seen.location)
    except KistoreError as e:
        reason = e.format()
        if seen.source == "note":  # one line of the note: its parse's "LOCATION:1:COL" named
            # line 1 of a note whose bad line was another (fresh95 F3); the column alone
            reason = re.sub(rf"^{re.escape(seen.location)}:1:(\d+): ", r"at column \1: ", reason)
        return Judgement(None, None, False, INVALID, f"{UNREADABLE_BUNDLE}{reason}", **base)
    keyid = keyid_of(bundle)
    try:
        statement = verified(bundle, seen.data, seen.subject)
    except KistoreError as e:
        return Judgement(_claimed_type(bundle.envelope.payload), keyid, False, INVALID,
                         e.message, **base)
    assert keyid is not None  # verify_bundle read the key
    outcome = statement.predicate.get("outcome")
    signed = base["signed"] = signed_at(statement.predicate)
    base["entered_in"] = seen.entered_in
    base["measured_ns"] = _measured(statement.predicate)
    base["text"] = stated_text(statement.type, statement.predicate)
    refused = text_problems(statement.predicate)
    base["text_problem"] = "; ".join(f"{e.pointer}: {e.message}" for e in refused) or None
    if view is not None:
        problem = subject_problem(view, statement.type, seen.subject, statement.predicate)
        if problem:
            return Judgement(statement.type, keyid, True, UNFIT, problem, outcome=outcome,
                             **base)
    role = ROLE_FOR_TYPE.get(statement.type)
    if role is None:
        return Judgement(statement.type, keyid, True, COMMUNITY, "", outcome=outcome, **base)
    decision, reason = trust.judge(keyid, role, seen.entered_at, signed, seen.entered_in)
    if decision is None:
        return Judgement(statement.type, keyid, True, COMMUNITY, reason, outcome=outcome,
                         **base)
    if decision is False:  # valid: the signature verifies; it does not count
        return Judgement(statement.type, keyid, True, NOT_COUNTED, reason, outcome=outcome,
                         **base)
    since = _ended_since(trust, keyid, seen.entered_at, seen.source)
    if statement.type == "withdrawal":
        return Judgement(statement.type, keyid, True, WITHDRAWS,
                         f"trusted maintainer key{since}", **base)
    if outcome == "reproduced":
        off = rerun_disagreement(view, seen.subject, statement.predicate) if view else None
        if off is not None:  # KI311: "reproduced", by a measurement that does not agree
            return Judgement(statement.type, keyid, True, OUT_OF_TOLERANCE,
                             f"trusted rerun key{since}, but {off}", outcome=outcome, **base)
        return Judgement(statement.type, keyid, True, VERIFIES, f"trusted rerun key{since}",
                         outcome=outcome, **base)
    return Judgement(statement.type, keyid, True, DISAGREES,
                     f"trusted rerun key{since}, outcome {outcome}", outcome=outcome, **base)


def _ended_since(trust: Any, keyid: str, entered: datetime, source: str) -> str:
    """Return the words for a key trusted when an attestation entered, revoked or expired since.

    Such an attestation counts (trust is not retroactive), but "trusted maintainer key"
    alone read as if the key were trusted now (reviewer r86 F17: a key revoked after a note
    it signed entered this clone, the note still unpushed, was shown as trusted by
    ``attestations``, ``verify``'s KI307 and the site).

    Args:
        trust: the trust it was judged with.
        keyid: the signing key.
        entered: when the attestation entered this repository.
        source: ``note`` or ``file``: a note enters a remote only when pushed, then.

    Returns:
        ``" when this entered (T); revoked since, at R: it counts, trust is not
        retroactive"`` (or ``expired``; for a note, that one not yet pushed enters a remote
        then, and ``kistore notes push`` refuses it, KI411), or ``""`` when the key counts
        now too.
    """
    # Lazy: as judge's imports (trust's time words).
    from .trust import format_time

    key = getattr(trust, "keys", {}).get(keyid)
    now = datetime.now(UTC)
    for what, instant in (("revoked", getattr(key, "revoked_at", None)),
                          ("expired", getattr(key, "valid_until", None))):
        if instant is not None and entered < instant <= now:
            return (f" when this entered ({format_time(entered)}); {what} since, at "
                    f"{format_time(instant)}: it counts, trust is not retroactive"
                    + (UNPUSHED_NOTE if source == "note" else ""))
    return ""


UNPUSHED_NOTE = ("; a note not yet pushed enters a remote when pushed, and `kistore notes "
                 "push` refuses it (KI411)")
"""What :func:`_ended_since` adds for a note copy: advice on its transport, not a judgement.

:func:`distinct` reads a note line and a file of the same bytes as one attestation though
only the note's reason carries it (reviewer fresh03 H5: listed twice once the key ended)."""


def _measured(predicate: dict[str, Any]) -> float | None:
    """Return ``timing.latencyNs[timing.primaryStatistic]`` of a predicate (ns), or None."""
    timing = predicate.get("timing")
    if not isinstance(timing, dict) or not isinstance(timing.get("latencyNs"), dict):
        return None
    value = timing["latencyNs"].get(timing.get("primaryStatistic"))
    return value if is_number(value) else None


def signed_at(predicate: dict[str, Any]) -> datetime | None:
    """Return the latest date a verified predicate states (``observedAt``, ``createdAt``).

    The signer wrote these dates, so they are believed only against the signer: a key's
    revocation and expiry are judged at the later of this and the entry time
    (:meth:`kistore.attest.trust.TrustedKey.judge`). An unparseable date is ignored (the
    predicate's schema reports it).

    Args:
        predicate: the statement's predicate, from a bundle whose signature verified.

    Returns:
        The latest stated instant (UTC-aware), or None when it states none.
    """
    # Lazy: judging loads keys and signatures (~15 ms); a ranking of unattested runs never does.
    from .trust import parse_time

    times = []
    for name in ("observedAt", "createdAt"):
        value = predicate.get(name)
        if isinstance(value, str):
            try:
                times.append(parse_time(value))
            except InputError:
                continue
    return max(times, default=None)


def _claimed_type(payload: bytes) -> str | None:
    """Return the type an unverified payload claims, for display only (never acted upon)."""
    try:
        value = canonical.loads(payload)
    except KistoreError:
        return None
    claimed = value.get("predicateType") if isinstance(value, dict) else None
    # Lazy: judging loads keys and signatures (~15 ms); a ranking of unattested runs never does.
    from .attestation import type_of

    return type_of(claimed) if isinstance(claimed, str) else None


def judge_all(seen: list[Any], trust: Any, view: View | None = None) -> list[Judgement]:
    """Judge attestations, each copy of the same bundle at the same (earliest) entry time.

    The same bundle bytes may be seen twice (as a note and as a file); both copies are
    judged at the earlier of their entry times, so they are judged alike (at a tie, in
    every commit either entered in; a note line's copy in none: it is not ordered with the
    branch). But a committed file that entered later, judged at its own entry, counts as a
    trusted key's (it verifies, withdraws, disagrees, is out of tolerance) where the
    earlier copy is community: every copy is then judged at the file's entry (a file
    enters by a reviewed pull request, ordered after the key's trust commit; an unreviewed
    note copy pushed before the trust no longer neutralises it, fresh06 H3; a note copy
    entered later upgrades nothing). ``view``: as
    :func:`judge` takes it. When one key made several trusted reruns of one run, only its
    latest stands (by entry time; of those that entered together, by history, then
    ``not-reproduced``, then the date their payloads state, then bytes: :func:`rerun_order`,
    whatever order ``seen`` is in); the earlier ones whose outcome differs are judged
    ``superseded`` (a key that said ``reproduced`` and later ``not-reproduced`` no longer
    verifies the run), their reason naming the later one and, when both entered together,
    why it is later. Each trusted rerun's :attr:`Judgement.place` is set.
    """
    earliest: dict[bytes, tuple[datetime, tuple[str, ...] | None]] = {}
    for s in seen:
        # a copy without commits (a note line) ties unordered: no copy is ordered then
        where = s.entered_in or None
        known = earliest.get(s.data)
        if known is None or s.entered_at < known[0]:
            earliest[s.data] = (s.entered_at, where)
        elif s.entered_at == known[0]:
            earliest[s.data] = (s.entered_at, None if where is None or known[1] is None
                                else (*known[1], *where))
    noted = _noted_first(seen, {data: when for data, (when, _in) in earliest.items()})
    judged = [replace(judge(replace(s, entered_at=earliest[s.data][0],
                                    entered_in=earliest[s.data][1] or ()), trust, view),
                      noted_in=noted.get(s.data, ())) for s in seen]
    # a file entered later, through a reviewed pull request, counts from its own commit
    # when its earliest copy (a note pushed before the key's trust) was community only
    # (fresh06 H3: a copy of a new maintainer's withdrawal neutralised it for good)
    # Lazy: signed_by imports this module (signed_at); it owns the copy rule (KI410, KI435).
    from .signed_by import judged_copy

    copies: dict[bytes, list[Any]] = {}
    for s, j in zip(seen, judged, strict=True):
        if j.effect == COMMUNITY:
            copies.setdefault(s.data, []).append(s)
    own = {}
    for data, community in copies.items():
        copy = judged_copy(community, earliest[data][0], lambda c: c.entered_at,
                           lambda c: c.source == "file" and c.committed,
                           lambda c: judge(c, trust, view).effect in _ON_ITS_OWN)
        if copy is not None:
            own[data] = (copy.entered_at, copy.entered_in)
    if own:
        judged = [j if s.data not in own else judge(replace(
            s, entered_at=own[s.data][0], entered_in=own[s.data][1]), trust, view)
            for s, j in zip(seen, judged, strict=True)]
    reruns: dict[tuple[str, str | None], list[int]] = {}
    for i, (s, j) in enumerate(zip(seen, judged, strict=True)):
        if j.effect in _STANDING:
            reruns.setdefault((str(s.subject), j.keyid), []).append(i)
    follows = getattr(trust, "follows", None)
    for members in reruns.values():
        order = rerun_order([judged[i] for i in members], follows)
        last = judged[members[order[-1]]]
        for place, k in enumerate(order):
            i = members[k]
            j = replace(judged[i], place=place)
            if j.outcome != last.outcome:  # what the key said last stands
                j = replace(j, effect=SUPERSEDED, reason=(
                    f"superseded by the same key's later rerun ({last.outcome}, entered "
                    f"{_when(last)}{_tie_said(j, last, follows)})"))
            judged[i] = j
    return judged


def _noted_first(seen: Sequence[Any], earliest: dict[bytes, datetime]
                 ) -> dict[bytes, tuple[str, ...]]:
    """Return, per bundle, the notes commits its earliest copies entered in (fresh17 F1).

    Only for a bundle whose copies at its earliest entry time are all note lines with
    their first notes commits known (:attr:`kistore.attest.notes.Seen.noted_in`): a file
    copy's commits are of another history, which orders no notes commit.
    """
    found: dict[bytes, tuple[str, ...] | None] = {}
    for s in seen:
        if s.entered_at != earliest[s.data]:
            continue
        known = found.get(s.data, ())
        if known is None or s.source != "note" or not s.noted_in:
            found[s.data] = None
        else:
            found[s.data] = tuple(dict.fromkeys((*known, *s.noted_in)))
    return {data: commits for data, commits in found.items() if commits}


def rerun_order(reruns: Sequence[Judgement],
                follows: Callable[[str, str], bool] | None = None) -> list[int]:
    """Return the order in which one key's trusted reruns of one subject stand, oldest first.

    What the key said last stands (:func:`judge_all`): the latest by entry time. Entry
    times have whole seconds and are shared (every file of one commit, every line of one
    notes commit, every uncommitted file), so among reruns that entered together, in order
    (fresh14 F12: until 2026-12-07 the file whose name, or the note line whose base64,
    sorted last stood):

    1. history: one whose entering commits all descend from every one of the other's is
       later (``follows``, as :meth:`kistore.attest.trust.Trust.judge` orders a key added
       in that second): a file's branch commits (:attr:`Judgement.entered_in`), a note
       line's first notes commits (:attr:`Judgement.noted_in`; since 2026-12-07, fresh17
       F1: two ``kistore attest`` in one second wrote a notes commit and its child, and the
       parent's line could stand); a work-tree file has none, and the two histories order
       none of each other's commits, so such pairs are not ordered so;
    2. ``not-reproduced`` (any outcome but ``reproduced``) is later, whatever the dates
       their payloads state: a tie history does not order (lines of one notes commit,
       files of one commit, uncommitted files) never upgrades a run to ``verified``, so a
       squash of a key's reruns into one commit, or a payload dated ahead, cannot make its
       earlier ``reproduced`` stand (since 2026-12-07, fresh17 F1's decision: until then
       the payload dated later stood, and a ``reproduced`` dated up to five minutes ahead
       overturned the key's later ``not-reproduced`` once both entered together);
    3. among reruns of that one kind, the date its signed payload states
       (:attr:`Judgement.signed`), counted at most
       :data:`kistore.attest.payload_dates.PAYLOAD_AHEAD` (five minutes) after its entry,
       the most ``kistore attest`` lets a payload be ahead; none stated is earliest (it
       names which one stands, never an effect: their outcomes agree);
    4. the bundle's SHA-256 (:attr:`Judgement.bundle`), so the order is total and the same
       whatever order the statements were read in.

    The payload's date decides no trust: the reruns given here already count (their
    trust was judged at entry); it only orders one key's own statements of one kind.

    Args:
        reruns: judgements of one key's trusted reruns of one subject (``verifies``,
            ``disagrees``, ``out-of-tolerance``), in any order.
        follows: ``follows(commit, ancestor)`` (:attr:`kistore.attest.trust.Trust.follows`):
            whether ``commit`` is a proper descendant of ``ancestor``; None: history is not
            known, and step 1 is skipped.

    Returns:
        Indices into ``reruns``, the earliest first and the standing one last. Raises
        nothing. Costs one sort, and among reruns of one entry time with different commits
        one ``follows`` a pair: no read, no child process.
    """
    by_time: dict[datetime, list[int]] = {}
    for i, j in enumerate(reruns):
        by_time.setdefault(j.entered_at, []).append(i)
    latest_first: list[int] = []
    for when in sorted(by_time, reverse=True):
        latest_first.extend(_tied_latest_first(reruns, by_time[when], follows))
    return latest_first[::-1]


def _tied_latest_first(reruns: Sequence[Judgement], tied: list[int],
                       follows: Callable[[str, str], bool] | None) -> list[int]:
    """Order reruns that entered at one time, the latest first (:func:`rerun_order`).

    The latest is, among those no other follows in history, the one of the highest
    :func:`_tie_key`; then the same among the rest. A history that orders none (one commit,
    one notes commit, work-tree files) is a sort by :func:`_tie_key`.
    """
    if len(tied) == 1:
        return tied
    before: dict[int, list[int]] = {i: [] for i in tied}  # i: those i follows in history
    waiting = dict.fromkeys(tied, 0)  # i: how many follow it
    if follows is not None and len({_commits_of(reruns[i]) for i in tied}) > 1:
        for i in tied:
            for k in tied:
                if i != k and _descends(_commits_of(reruns[i]), _commits_of(reruns[k]),
                                        follows):
                    before[i].append(k)
                    waiting[k] += 1
    keys = {i: _tie_key(reruns[i]) for i in tied}
    ready = [i for i in tied if not waiting[i]]
    out: list[int] = []
    while ready:
        best = max(ready, key=keys.__getitem__)
        ready.remove(best)
        out.append(best)
        for k in before[best]:
            waiting[k] -= 1
            if not waiting[k]:
                ready.append(k)
    if len(out) < len(tied):  # a history that is no order (never in git): by key alone
        out.extend(sorted((i for i in tied if i not in out), key=keys.__getitem__,
                          reverse=True))
    return out


def _commits_of(j: Judgement) -> tuple[str, ...]:
    """Return the commits history orders ``j`` by (none: not ordered so).

    A file's branch commits, a note line's notes commits: the two histories order none of
    each other's.
    """
    return j.entered_in or j.noted_in


def _descends(later: tuple[str, ...], earlier: tuple[str, ...],
              follows: Callable[[str, str], bool]) -> bool:
    """Whether every commit of ``later`` is a proper descendant of every one of ``earlier``."""
    return bool(later) and bool(earlier) and all(
        c != a and follows(c, a) for c in later for a in earlier)


_NO_DATE = datetime.min.replace(tzinfo=UTC)
"""The date a payload stating none is ordered at (:func:`_tie_key`): before any."""


def _counted_date(j: Judgement) -> datetime:
    """Return the payload date of ``j`` as :func:`rerun_order` counts it (at most entry + 5 min)."""
    # Lazy: payload_dates imports trust, which imports the store layer.
    from .payload_dates import PAYLOAD_AHEAD

    if j.signed is None:
        return _NO_DATE
    return min(j.signed, j.entered_at + timedelta(seconds=PAYLOAD_AHEAD))


def _tie_key(j: Judgement) -> tuple[bool, datetime, str]:
    """Return what orders reruns that entered together and that history does not order."""
    return j.outcome != "reproduced", _counted_date(j), j.bundle


def _tie_said(j: Judgement, last: Judgement,
              follows: Callable[[str, str], bool] | None) -> str:
    """Say why ``last`` stands over ``j``, when both entered at one time; else ""."""
    if j.entered_at != last.entered_at:
        return ""
    said = " with this one"
    if follows is not None and _descends(last.entered_in, j.entered_in, follows):
        return (f"{said}, in commit {last.entered_in[0][:12]}, which follows this one's "
                f"({j.entered_in[0][:12]}) in history")
    if follows is not None and _descends(last.noted_in, j.noted_in, follows):
        return (f"{said}, in notes commit {last.noted_in[0][:12]}, which follows this one's "
                f"({j.noted_in[0][:12]}) in the notes history")
    if _tie_key(last) < _tie_key(j):  # j is before another of the key's reruns in history
        return f"{said}; this one is before another rerun of the key in history"
    return NOT_REPRODUCED_STANDS  # their outcomes differ: the only tie left (rerun_order)


NOT_REPRODUCED_STANDS = (
    " with this one, history ordering neither: of one key's reruns of a run that entered "
    "together, not-reproduced stands whatever dates their payloads state, never upgrading "
    "the run to verified")
"""Why a key's ``not-reproduced`` stands over its ``reproduced`` of one entry time that
history does not order (:func:`rerun_order`, step 2): the superseded one's reason ends so."""


def judged_among(seen: Any, copies: Sequence[Any], trust: Any,
                 view: View | None = None) -> Judgement:
    """Judge one attestation as readers do: with its bundle's other copies (:func:`judge_all`).

    A note line pushed after its key's revocation counts, for every reader, when a
    committed file copy of the same bundle entered before it (the bundle is judged at its
    earliest copy's entry, or at a committed file's own); judged alone it was refused
    (KI411) or said to be judged otherwise at its entry (KI439) though it counts. The one
    rule the gate judges a new note line by.

    Args:
        seen: the attestation judged (a :class:`kistore.attest.notes.Seen`), at its own
            entry time.
        copies: the bundle's other copies (:func:`kistore.attest.notes.bundle_copies`);
            empty: ``seen`` is judged alone, as :func:`judge` does.
        trust: the :class:`kistore.attest.trust.Trust` judged by.
        view: as :func:`judge` takes it.

    Returns:
        ``seen``'s :class:`Judgement` among its copies. Raises nothing for bad bundles.
    """
    return judge_all([*copies, seen], trust, view)[-1]


_ON_ITS_OWN = (VERIFIES, WITHDRAWS, DISAGREES, OUT_OF_TOLERANCE)
"""Effects a trusted key's attestation file has, judged at its own entry (:func:`judge_all`)."""

_STANDING = (VERIFIES, DISAGREES, OUT_OF_TOLERANCE)
"""Effects of a trusted rerun: the same key's latest one stands (:func:`judge_all`)."""


def _when(j: Judgement) -> str:
    # Lazy: judging loads keys and signatures (~15 ms); a ranking of unattested runs never does.
    from .trust import format_time

    return format_time(j.entered_at)


def distinct(judgements: list[Judgement]) -> list[Judgement]:
    """Return one judgement per bundle: copies judged alike become one, naming every place.

    After the documented ``kistore notes sync`` each attestation file is also a note: the
    same bundle bytes, found twice, judged alike (:func:`judge_all`). People read one
    attestation (reviewer r85 F9: ``show`` said 7 of 4), found in both places. Copies
    judged apart (a file whose name is not its sha256, a doubled note: KI424) stay apart.

    Judged alike means the same effect, validity and reason, but for the advice a note
    copy's reason adds once its key was revoked or expired since it entered
    (:data:`UNPUSHED_NOTE`): that is about sending the note, not about the bundle, and a
    revocation changes what an attestation counts for, never which one it is (reviewer
    fresh03 H5: from then on the note and the file were listed apart, "from note" and
    "from file"). The first copy (a note before a file) keeps its reason, advice and all.

    Args:
        judgements: about one subject, in :func:`kistore.attest.notes.collect` order.

    Returns:
        The judgements in the same order, each bundle's first copy standing for the others,
        its ``places`` the ``(source, location)`` of each copy.
    """
    out: list[Judgement] = []
    first: dict[tuple[str, str, bool, str], int] = {}
    for j in judgements:
        same = (j.bundle, j.effect, j.valid, j.reason.replace(UNPUSHED_NOTE, ""))
        i = first.get(same) if j.bundle else None
        if i is None:
            first[same] = len(out)
            out.append(replace(j, places=((j.source, j.location),)))
        else:
            out[i] = replace(out[i], places=(*out[i].places, (j.source, j.location)))
    return out


def summarise(judgements: list[Judgement]) -> Evidence:
    """Fold judgements about one run into its :class:`Evidence`, one per bundle.

    Copies of one bundle are one attestation (:func:`distinct`).
    """
    judgements = distinct(judgements)
    level = VERIFIED if any(j.effect == VERIFIES for j in judgements) else SOURCE_NATIVE
    withdrawn = any(j.effect == WITHDRAWS for j in judgements)
    community = len({j.keyid for j in judgements if j.effect == COMMUNITY})
    return Evidence(level, withdrawn, community, tuple(j.to_json() for j in judgements))


def evidence_for(store: Store, digest: Any, *, at: str | None = None) -> Evidence:
    """Return the evidence for the run ``digest`` in ``store`` (work tree, or commit ``at``).

    Reads notes (``refs/notes/kistore`` as it is now) and ``store/attestations/`` files of
    the view, judges each (see the module docstring), and trust from
    ``store/trust/keys.json`` of the same view. An unreadable trust file counts as no
    trust (``verify`` reports it as KI309), so nothing is verified on its strength.

    Args:
        store: a :class:`kistore.store.Store`.
        digest: the run's :class:`kistore.core.digest.Digest`.
        at: revision, or None for the work tree.

    Returns:
        The :class:`Evidence`; ``source-native``, not withdrawn, no attestations when there
        are none.
    """
    return evidence_for_many(store, [digest], at=at)[digest]


def judging_blobs(store: Store, at: str | None = None) -> list[str]:
    """Return the blobs judging any run's evidence at ``at`` reads, whatever the run.

    Every note blob of the notes history (:func:`kistore.attest.notes.note_history_blobs`)
    and every version of the trust file along ``at``'s first-parent history
    (:func:`kistore.attest.trust_history.trust_blobs`): what a caller gathering a partial
    clone's fetches (``verify --at``, a run page, ``rank``, ``attestations``) fetches with
    the first batch it fetches anyway, instead of one ``git fetch`` for the notes and one
    ``git cat-file`` per trust file version as each is read. Empty outside a partial clone
    (nothing is listed: the trust history's ``git rev-list`` is not run).

    Args:
        store: a :class:`kistore.store.Store`.
        at: revision, or None for the work tree (``HEAD``'s history).

    Returns:
        Blob ids (40 hex digits), some perhaps here already (:func:`kistore.git.blobs.
        fetch_blobs` leaves those out).

    Raises:
        InputError: ``at`` names no commit.
    """
    repo = store.repo
    if not is_partial_clone(repo):
        return []
    # Lazy: trust history loads keys and signatures (~15 ms); only a partial clone asks here.
    from .trust_history import trust_blobs

    return [*sorted(note_history_blobs(repo)), *trust_blobs(store, at)]


def prefetch_evidence(store: Store, ref: str, *, at: str | None = None) -> int:
    """Fetch what the evidence about ``ref`` reads into a partial clone, in one or two fetches.

    A blob-less clone (``git clone --filter=blob:none``) lacks the blobs that resolving
    ``ref`` and :func:`evidence_for` read; each reader fetching its own (the names file,
    the owner's files, the note blobs, the attestation files, the trust file's versions)
    made five ``git fetch`` processes for one ``kistore attestations KIND/NAME``. Here,
    before either runs, one fetch of the subject's metadata, object and attestation files
    with what does not depend on the subject (:func:`judging_blobs`), when the subject is
    known without a blob: a digest or prefix (a listing), or a ``KIND/NAME`` whose names
    file this clone holds. A ``KIND/NAME`` whose names file it lacks takes two: the names
    file (its bytes are the subject's digest; no tree says it) with the judging blobs,
    then the subject's files. A name with no names file in the commit fetches nothing
    (resolving says "no such name" from the tree alone). Nothing is done outside a
    partial clone; what is here already is not fetched again.

    Args:
        store: a :class:`kistore.store.Store`.
        ref: what the person typed (:meth:`kistore.store.Store.resolve`'s forms); one it
            does not resolve fetches nothing more than resolving it reads.
        at: revision, or None for the work tree (whose files are on disk).

    Returns:
        How many blobs were fetched.

    Raises:
        StoreStateError: the promisor remote could not give the blobs.
    """
    repo = store.repo
    if not is_partial_clone(repo):
        return 0
    try:
        view = store.view(at)
    except InputError:  # no such commit: resolving says so, as in a full clone
        return 0
    kind, slash, name = ref.partition("/")
    fetched = 0
    first: list[str] | None = None  # the judging blobs, until fetched
    if slash:  # KIND/NAME: its names file names the subject
        try:
            path = layout.name_path(kind, name)
            ids = view.blob_ids([path])  # a commit's names file (the work tree's is on disk)
            if ids and ids[0] not in repo.odb:  # its bytes say the subject: fetched first
                fetched += fetch_blobs(repo, [*ids, *judging_blobs(store, at)])
                first = []
            data = view.read(path, 200)  # a names file holds one digest and a newline
        except (ValueError, KistoreError):  # no such name can be: resolving says why
            return fetched
        if data is None:
            return fetched  # no such name: nothing fetched; resolving says so
        owner = layout.digest_from_record(data)
    else:
        try:
            owner = store.resolve(ref, at=at)  # a digest or prefix: a listing, no blob
        except KistoreError:
            owner = None
    if owner is None:
        return fetched  # resolving says why
    folder = layout.attestation_dir(owner)
    paths = [*([layout.metadata_path(owner)] if slash else []),  # a name's check reads it
             layout.object_path(owner),
             *(f"{folder}/{leaf}" for leaf in sorted(view.list_dir(folder)))]
    if first is None:
        first = judging_blobs(store, at)
    return fetched + fetch_blobs(repo, [*first, *view.blob_ids(paths)])


def judged_entering_now(store: Store, data: bytes, subject: Digest, source: str) -> Judgement:
    """Judge a bundle about to be written as the store will judge it once written.

    For ``kistore attest`` before it writes (reviewer fresh98: a withdrawal by a key trusted
    for rerun alone was written and exit 0, then listed as not counted, failed ``verify``
    with KI302 and blocked every ``notes push`` with KI411). The trust of the work tree
    (keys dated from the commit that added them, revocations of its history kept, as
    :func:`evidence_for` reads it), at this machine's clock, the entry time a note gets
    and the gate judges a new line at.

    Args:
        store: a :class:`kistore.store.Store`.
        data: the signed bundle's bytes.
        subject: the manifest it is about.
        source: ``note`` or ``file``, as it will be written.

    Returns:
        The :class:`Judgement` (``not-counted`` when a key the trust file lists may not
        sign for the type's role now). Raises nothing for a bundle (an invalid one is judged
        ``invalid``); what :meth:`kistore.store.Store.view` raises for an unreadable store.
    """
    trust, _problems = trust_or_empty(store, None)  # invalid: every key community, as read
    # no earlier than the tip it is written on passes on (a notes tip dated ahead: fresh06 M1)
    floor = entry_floor(store.repo, NOTES_REF if source == "note" else "HEAD")
    now = datetime.now(UTC)
    seen = Seen(data, subject, source, "(not written yet)",
                now if floor is None else max(now, floor), committed=False)
    return judge(seen, trust, store.view())


def evidence_for_many(store: Store, digests: Iterable[Any], *, at: str | None = None,
                      notes_at: str | None = None) -> dict[Any, Evidence]:
    """Return :func:`evidence_for` of every run in ``digests``, reading the store once.

    Notes, attestation files (and their git history) and trust are read once for all runs
    (:func:`kistore.attest.notes.collect_many`); each run is then judged from its own attestations
    exactly as :func:`evidence_for` judges it, so the answers are the same.

    Args:
        store: a :class:`kistore.store.Store`.
        digests: the runs' :class:`kistore.core.digest.Digest` values (duplicates answered once).
        at: revision, or None for the work tree.
        notes_at: the notes commit read (:func:`kistore.attest.notes.collect_many`); None:
            the tip of ``refs/notes/kistore``.

    Returns:
        ``{digest: Evidence}`` for every digest asked about.

    Raises:
        InputError: when ``at`` names no commit.
    """
    judged = judged_many(store, digests, at=at, notes_at=notes_at)
    return {d: summarise([j for _, j in pairs]) if pairs else Evidence()
            for d, pairs in judged.items()}


def withdrawn_runs(store: Store, *, at: str | None = None) -> Callable[[Iterable[str]], set[str]]:
    """Return a function telling which of some runs a trusted maintainer withdrew.

    What KI232 leaves out (:func:`kistore.store.claims.claims_admitted` in ``add`` and
    ``import``, :mod:`kistore.check._claims` in the gate and ``verify``): a withdrawn
    claimant of a source record no longer blocks the record's own run (reviewer r90 F6,
    F9). Evidence as :func:`evidence_for_many` reads it (notes as they are now, the view's
    ``store/attestations/`` files and trust), only when asked, and only of the runs asked.

    Args:
        store: a :class:`kistore.store.Store`.
        at: revision, or None for the work tree.

    Returns:
        A function of run digests (64 hex digits each) returning those withdrawn.
    """
    def withdrawn(hexes: Iterable[str]) -> set[str]:
        asked = {h: Digest.from_str(f"sha256:{h}") for h in hexes}
        if not asked:
            return set()
        evidence = evidence_for_many(store, asked.values(), at=at)
        return {h for h, d in asked.items() if evidence[d].withdrawn}

    return withdrawn


def judged_many(store: Store, digests: Iterable[Any], *, at: str | None = None,
                notes_at: str | None = None) -> dict[Any, list[tuple[Any, Judgement]]]:
    """Return every attestation about each digest with how it was judged, reading once.

    What :func:`evidence_for_many` folds into evidence levels, before folding: for the
    attestations table of ``kistore export``, which lists each one (its bundle bytes
    give it an identity: their SHA-256).

    Args:
        store: a :class:`kistore.store.Store`.
        digests: the manifests' :class:`kistore.core.digest.Digest` values (any kind).
        at: revision, or None for the work tree.
        notes_at: as :func:`evidence_for_many` takes it.

    Returns:
        ``{digest: [(Seen, Judgement), ...]}`` for every digest asked about, each list in
        :func:`kistore.attest.notes.collect` order (notes, then files); empty when none.

    An invalid trust file judges every attestation as a community one, and says so on
    stderr once a process (:func:`_warn_trust_invalid`; reviewer r92 F14).

    Raises:
        InputError: when ``at`` names no commit.
    """
    seen = collect_many(store, digests, at=at, notes_at=notes_at)
    if not any(seen.values()):
        return {d: [] for d in seen}
    trust, problems = trust_or_empty(store, at)
    if problems:  # every judgement is community: said, not silent (reviewer r92 F14)
        _warn_trust_invalid(problems[0], at)
    view = store.view(at)
    return {d: list(zip(s, judge_all(s, trust, view), strict=True)) if s else []
            for d, s in seen.items()}


def _warn_trust_invalid(problem: KistoreError, at: str | None) -> None:
    """Warn on stderr, once a process, that the trust file of ``at`` cannot be used.

    As a bad kistore.toml is warned of by every query
    (:func:`kistore.index.index.store_limits`): an invalid ``store/trust/keys.json`` (a
    merge conflict, an edit cut off) trusts no key, so every withdrawal is left
    unapplied and no rerun verifies a run; the answers stay, the warning says why and what
    to do. ``verify`` reports it as an error (KI309).
    """
    said = (f"{layout.TRUST_FILE} {'in the work tree' if at is None else 'at ' + at} is "
            f"invalid ({problem.format()}): no key is trusted until it is fixed, so no "
            "maintainer's withdrawal is applied and no rerun verifies a run in these "
            "answers; fix the file (`kistore verify` reports it, KI309; `git checkout -- "
            f"{layout.TRUST_FILE}` undoes an uncommitted edit)"
            + (", or ask with `--at HEAD`" if at is None else ""))
    warn_once("kistore.attest", said)


def trust_or_empty(store: Store, at: str | None, *, said: bool = True
                   ) -> tuple[Any, list[Any]]:
    """Return the trust every reader judges by at ``at``, or an empty one and why.

    The trust file as :func:`kistore.attest.trust.load_trust` reads it, each key counting
    from when its history added it (:func:`kistore.attest.trust_history.dated`) and every
    revocation its history ever made kept (:func:`~kistore.attest.trust_history.held`).
    For the work tree, since 2026-12-07 (fresh14 F15), :func:`kistore.attest.trust_here.
    trust_here`'s: ``HEAD``'s file and the work tree's pending revocations and new keys
    when the work tree's file is not ``HEAD``'s (missing, no regular file, invalid, other
    bytes).

    Args:
        store: a :class:`kistore.store.Store`.
        at: a revision; None: the work tree's file (``HEAD``'s history).
        said: a work-tree file judged otherwise than as written is kept for the command
            line to say after the answer (:func:`kistore.attest.trust_here.note`); False:
            not (``verify`` reports it, KI410).

    Returns:
        ``(trust, [])``: a :class:`kistore.attest.trust.Trust`; or, when the file (or its
        history) cannot be read or is invalid, ``(Trust(unreadable=...), problems)``: no
        key is trusted (every attestation is judged community), ``problems`` the
        :class:`~kistore.core.errors.KistoreError` items that say why (an
        :class:`~kistore.git.blobs.ObjectUnreadable` among them for a damaged object).

    Raises:
        ConfigRefused: a git config file is a FIFO (the user's environment, not the trust
            file: fresh16 F3); nothing else of kistore's own.
    """
    # Lazy: judging loads keys and signatures (~15 ms); a ranking of unattested runs never does.
    from .trust import Trust, load_trust
    from .trust_history import dated, held

    try:  # keys count from when they were added, and a revocation is never lifted
        if at is None:  # fresh14 F15: HEAD's file where the work tree's is not it
            # Lazy: only judging reads trust.
            from .trust_here import note, refuse_unread, trust_here

            here = trust_here(store)
            if said:
                refuse_unread(here)  # fresh17 F5: a revocation there may be unread
                note(store, here)
            return held(store, at, dated(store, at, here.trust)), []
        return held(store, at, dated(store, at, load_trust(store.view(at)))), []
    except (ConfigRefused, RefFileRefused):  # the environment's fault (fresh16 F3, fresh17 F11)
        raise
    except KistoreError as e:
        if at is None:
            # Lazy: loaded above for the work tree already; a commit's trust never needs it.
            from .trust_here import TrustUnread

            if isinstance(e, TrustUnread):  # fresh17 F5: refused, never judged without it
                raise
        return Trust(unreadable=e.problems[0].format()), e.problems


def _work_tree_invalid(view: View) -> list[Any]:
    """Return why the work tree's trust file is invalid (its problems), or ``[]``.

    Since 2026-12-07 (fresh14 F15) the work tree is judged by ``HEAD``'s file when its own
    is invalid (:func:`trust_or_empty`), yet the file stays invalid: KI309, as before.
    Raises nothing of kistore's own.
    """
    # Lazy: trust imports the store layer.
    from .trust import load_trust

    try:
        load_trust(view)
    except KistoreError as e:
        return list(e.problems)
    return []


def _defective(seen: Any, base: dict[str, Any]) -> Judgement:
    """Judge a bundle with a defect (:attr:`kistore.attest.notes.Seen.defect`): invalid.

    A file renamed off its hash (or changed) still parses, so its type and key are said
    (the type as its payload claims it: display only), and a file's defect says what
    befell it, a rename (with the ``mv`` back) or changed bytes, as KI305 does (reviewer
    fresh98: such a file was listed ``? ? INVALID`` with the layout's rule alone).
    """
    # Lazy: as judge's imports.
    from .attestation import Bundle, bundle_keyid

    try:
        bundle = Bundle.from_bytes(seen.data, file=seen.location)
    except KistoreError:  # nothing to show: the defect alone
        return Judgement(None, None, False, INVALID, seen.defect, **base)
    reason = seen.defect
    if seen.source == "file" and seen.location.endswith(
            f"/{hashlib.sha256(seen.data).hexdigest()}.json"):  # named right, not canonical
        reason = "the bundle is not in canonical form (RFC 8785) (KI305)"
    elif seen.source == "file":
        said, own = misnamed_said(seen.location, seen.subject, seen.data)
        reason = said + (f"; rename it back with `mv {seen.location} {own}`" if own else
                         "; `kistore verify` says how to restore it") + " (KI305)"
    return Judgement(_claimed_type(bundle.envelope.payload), bundle_keyid(bundle), False,
                     INVALID, reason, **base)


def misnamed_said(path: str, subject: Digest, data: bytes) -> tuple[str, str | None]:
    """Say what befell an attestation file whose bytes do not hash to its name (KI305).

    A bundle kistore would write (canonical, verifying about ``subject``) under another
    name was moved: it is put back with ``mv``. Any other bytes changed after they were
    written (an edit, a flipped bit): tampered or corrupt, not misplaced (msg94 F7: both
    were "sha256 of the file is not its name" with the fix "attestation files live at
    ..."), and are restored, never moved.

    Args:
        path: the file's repository path.
        subject: the digest its path names.
        data: its bytes.

    Returns:
        ``(what, own)``: the words, and the path its bytes belong at when it was renamed
        (None when they changed). Raises nothing.
    """
    # Lazy: judging loads keys and signatures (~15 ms); a ranking of unattested runs never does.
    from .attestation import Bundle, verify_bundle
    from .notes import attestation_path

    try:
        verify_bundle(Bundle.from_bytes(data, file=path), subject)
        intact = canonical.is_canonical(data)
    except KistoreError:
        intact = False
    if intact:
        return ("sha256 of the file is not its name: a bundle that verifies, named as "
                "another's (renamed)", attestation_path(subject, data))
    return (f"the file's bytes changed after it was written (tampered or corrupt): their "
            f"sha256 is {hashlib.sha256(data).hexdigest()[:12]}..., not its name", None)


def _misnamed_finding(store: Store, at: str | None, path: str, subject: Digest, name: str,
                      data: bytes) -> Finding:
    """Return KI305 of an attestation file whose bytes do not hash to its name.

    :func:`misnamed_said` says what befell it; a renamed one is fixed by the ``mv`` back,
    a changed one restored (:func:`_changed_file_fix`).
    """
    said, own = misnamed_said(path, subject, data)
    actual = hashlib.sha256(data).hexdigest()
    fix = (f"rename it back with `mv {path} {own}` (from the top of the clone)" if own
           else _changed_file_fix(store, at, path, name))
    return Finding(FILE_MISPLACED, said, file=path, expected=name, found=actual, fix=fix)


def _changed_file_fix(store: Store, at: str | None, path: str, name: str) -> str:
    """Return how to put back an attestation file whose bytes do not hash to its name.

    Its name is the sha256 of the bytes signed and written: the file was changed since
    (an edit, a flipped bit), so it is restored, not moved. In the work tree, from ``HEAD``
    when it holds the file; one never committed has no copy: it is removed and signed
    again. At a commit (``verify --at``), or when ``HEAD`` holds it changed, from a commit
    that holds it as written.

    Args:
        store: the store checked.
        at: the revision checked; None for the work tree.
        path: the file's repository path.
        name: the sha256 (hex) its name says.

    Returns:
        A clause, lower case, no final period.
    """
    if at is None:
        held = _head_bytes(store, path)
        if held is not None and hashlib.sha256(held).hexdigest() == name:
            return f"restore it with `git checkout HEAD -- {path}` (HEAD holds it as written)"
        if held is None:
            return (f"it was never committed, so git has no copy: remove it (`rm {path}`) and "
                    "sign the attestation again with `kistore attest ... --file`")
    return (f"restore its bytes from a commit that holds it as written (`git log --all -- "
            f"{path}` lists them; `git checkout COMMIT -- {path}`) in a new commit, or "
            f"`git rm {path}`")


def _head_bytes(store: Store, path: str) -> bytes | None:
    """Return the bytes ``HEAD`` holds at ``path``; None when it holds none or git cannot tell."""
    try:
        head = store.head_or_none()
        return None if head is None else head.read(path)
    except (KistoreError, OSError):
        return None


def check_attestations(store: Store, at: str | None = None, *,
                       damaged: list[tuple[ObjectUnreadable, Digest | None]] | None = None,
                       trust_damaged: list[ObjectUnreadable] | None = None
                       ) -> list[Finding]:
    """Check every attestation of the store (notes and files) and return findings.

    Reports: invalid bundles (KI301), role claims a key lacks at entry time (KI302; one
    a revocation recorded after it entered un-counts is KI314, info:
    :class:`kistore.attest.revoked_since.RevokedSince`),
    files whose subject is not in the store (KI303), notes on blobs that are no object of
    the view (KI304), a notes tree path git reads otherwise than kistore (KI424,
    :mod:`.notepaths`: a second path for one object, whose lines are then each invalid),
    misplaced or non-canonical files (KI305), community (KI306) and
    trusted (KI307) attestations as info, an invalid trust file (KI309), a rerun or
    withdrawal that does not fit its subject (KI310), a trusted ``reproduced`` rerun whose
    latency is off the run's by more than the tolerance (KI311, a warning), a text holding
    a control or bidirectional character (KI312, an error beside its judgement), a
    remote's notes force-pushed over lines its tip still lacks (KI313, a warning,
    :func:`.rewritten.rewritten_findings`), attestation lines that count which the notes
    tip lacks, held by its own history or a remote's notes as last fetched (KI315, a
    warning, :func:`.tip_lacking.lacking_findings`), and one KI308
    info saying how many attestations were seen from notes and from files (and how many
    files are not yet in notes), so a clone without notes knows what it is missing.

    Args:
        store: a :class:`kistore.store.Store`.
        at: revision, or None for the work tree.
        damaged: None: a note blob that cannot be read (a flipped bit) is raised. A list:
            each such blob is appended to it instead, with the digest of the manifest whose
            object the note is on (None when no object of the view has that blob), and its
            lines are left out; the rest is checked (``verify`` reports them: KI117).
        trust_damaged: None: a git object of the trust file or its history that cannot
            be read (missing, damaged) is a KI309 finding. A list: it is appended to it
            instead (``verify`` says it once, as KI117, which its trust-history check
            meets too). Either way the attestations are judged with no key trusted.

    Returns:
        Findings in a stable order (file problems, then per attestation, then the summary).

    Raises:
        ObjectUnreadable: a note blob is damaged and ``damaged`` is None.
    """
    view = store.view(at)
    findings: list[Finding] = []
    trust, problems = trust_or_empty(store, at, said=False)  # verify: KI410 of the work tree
    if at is None and not problems:  # judged by HEAD's file: the work tree's is still KI309
        problems = _work_tree_invalid(view)
    for p in problems:
        if trust_damaged is not None and isinstance(p, ObjectUnreadable):
            trust_damaged.append(p)
            continue
        findings.append(Finding(TRUST_FILE_INVALID, p.message, file=p.file or layout.TRUST_FILE,
                                pointer=p.pointer, line=p.line, column=p.column))
    if not problems:  # the file as written: its order is /keys/N's
        findings += comment_findings(_written_trust(view))
    for path, data in file_attestations(view):
        parsed = parse_attestation_path(path)
        if parsed is None:
            findings.append(Finding(FILE_MISPLACED, "not an attestation path", file=path))
            continue
        subject, name = parsed
        actual = hashlib.sha256(data).hexdigest()
        if actual != name:
            findings.append(_misnamed_finding(store, at, path, subject, name, data))
        elif not canonical.is_canonical(data):
            findings.append(Finding(FILE_MISPLACED, "the bundle is not in canonical form",
                                    file=path))
        if not view.has_object(subject):
            findings.append(Finding(FILE_SUBJECT_MISSING, f"no object {subject} in the store",
                                    file=path))
    unread: list[ObjectUnreadable] | None = None if damaged is None else []
    annotated = set(notes_entered(store.repo, unread))
    # hashing every object into a blob id is only needed when there are notes to place
    blobs = {blob_id(view.read_within(layout.object_path(d)) or b"").hex(): d
             for d in view.digests()} if annotated or unread else {}
    unfetched = notes_on_unfetched(store, view, at, annotated - blobs.keys())
    edited = notes_on_edited(store, view, annotated - blobs.keys() - unfetched.keys())
    for blob in sorted(annotated - blobs.keys() - edited.keys() - unfetched.keys()):
        findings.append(Finding(
            NOTE_ON_UNKNOWN_OBJECT, f"note on git object {blob}, which is no object file of "
            f"this {'work tree' if at is None else at}: its attestations count for nothing "
            "here", file=f"{NOTES_REF}:{blob}", fix=NOTE_ON_UNKNOWN_OBJECT.hint.replace(
                "BLOB", blob)))
    tip = store.repo.references.get(NOTES_REF)
    if tip is not None:  # KI424: paths git reads otherwise (a second path for an object)
        findings += path_findings(store.repo, None, notes_tree(store.repo, tip.target,
                                                               NOTES_REF))
    if damaged is not None and unread:  # the note's path: refs/notes/kistore:<its blob>
        damaged += [(e, blobs.get((e.path or "").rpartition(":")[2])) for e in unread]
    seen = collect(store, at=at, damaged=None if damaged is None else [])  # said above
    # Lazy: the trust file's history, read only for an attestation a revocation un-counts.
    from .revoked_since import RevokedSince

    revoked_since = RevokedSince(store, at, trust)  # KI314, not KI302 (fresh04 M1)
    for s, j in zip(seen, judge_all(seen, trust, view), strict=True):
        if s.source == "note" and j.effect == INVALID and not s.defect:
            findings.append(_invalid_note_line(s, j))
        elif not s.defect:  # a defective file is already reported above (KI305)
            findings.append(revoked_since.finding(s, j) or _finding(j))
        if j.text_problem:  # KI312: a text `attest` refuses, stored all the same
            findings.append(Finding(
                ATTESTATION_TEXT_REFUSED, f"{j.type} by {j.keyid} ({j.source}): its text "
                f"{j.text_problem}", file=j.location, extra=j.to_json()))
    findings += rewritten_findings(store)  # KI313: a remote's notes force-pushed (G8)
    # Lazy: a module of its own (the queries import it without this one).
    from .tip_lacking import lacking_findings

    findings += lacking_findings(store, at, trust)  # KI315: lines the tip lacks (fresh05)
    noted = {s.data for s in seen if s.source == "note"}
    files = [s for s in seen if s.source == "file"]
    missing = sum(1 for s in files if s.data not in noted)
    message = (f"{len(seen) - len(files)} attestation(s) from notes ({NOTES_REF}), "
               f"{len(files)} from files (store/attestations/)")
    if missing:
        message += f"; {missing} file(s) not yet in notes: run `kistore notes sync`"
    if edited:  # one cause: the edit (KI101), not a note on an unknown object (fresh99b)
        message += "; " + _edited_said(store, edited)
    if unfetched:  # a partial clone cannot tell: said so, with the fetch (att01)
        message += "; " + _unfetched_said(store, unfetched)
    missing_notes = notes_not_fetched(store, short=True)  # an info: the advice, briefly
    if missing_notes:
        message += f"; {missing_notes}"
    elif not annotated and not unread:  # a damaged note is said as KI117, not as no notes
        remote = notes_remote(store)  # none: advice to fetch from origin failed (r86 F11)
        message += (f"; no notes here: `kistore notes fetch {shlex.quote(remote)}` fetches "
                    f"{NOTES_REF}"
                    if remote is not None else "; no notes here and no remote to fetch "
                    "them from: no attestation was made in this store yet")
    findings.append(Finding(ATTESTATIONS_SEEN, message,
                            extra={"notes": len(seen) - len(files), "files": len(files),
                                   "filesNotInNotes": missing,
                                   **({"notesOnEdited": sorted(str(d) for d in edited.values())}
                                      if edited else {}),
                                   **({"notesNotInClone": sorted(unfetched)}
                                      if unfetched else {})}))
    return findings


def notes_on_edited(store: Store, view: View, blobs: Iterable[str]) -> dict[str, Digest]:
    """Return the noted blobs that are a stored object's own bytes its file no longer holds.

    A note is on a git blob: an object's bytes as written. When the object file is edited
    (KI101: a one-byte edit, in the work tree or committed), its blob is another, and the
    note on the original bytes is on no object file of the view. That is the edit's doing,
    said once by KI101 and KI401 (fresh99b: verify added KI304 "note on an unknown object",
    with a fix to hunt branches for the blob, and KI308 "no notes here", both false). The
    blob is such an object's when git holds it (an earlier commit does) and its SHA-256 is
    the digest of an object file of the view.

    Args:
        store: the store (its git objects are read).
        view: the view whose object files the notes were placed on.
        blobs: noted blob ids (40 hex digits) of no object file of the view.

    Returns:
        ``{blob: digest}`` of those whose bytes are that digest's manifest, the view's file
        of it holding other bytes. A blob git lacks (a fork's object, a partial clone's
        blob not fetched) or cannot read is left out: KI304 says it, or KI117.
    """
    found: dict[str, Digest] = {}
    for blob in blobs:
        try:
            obj = store.repo.get(blob)
        except (ValueError, pygit2.GitError, OSError):  # damaged: said by the object walk
            continue
        if not isinstance(obj, pygit2.Blob):
            continue
        digest = Digest.from_str(f"sha256:{hashlib.sha256(obj.data).hexdigest()}")
        if view.has_object(digest):
            found[blob] = digest
    return found


class Unfetched(NamedTuple):
    """A noted blob a partial clone lacks and could not fetch, which an object file held.

    Attributes:
        path: the object file's repository path (``store/objects/...``).
        commit: the newest first-parent commit of the view's history holding the blob at
            ``path`` (40 hex).
        remote: the promisor remote git asked.
        failed: the last line git said.
    """

    path: str
    commit: str
    remote: str
    failed: str


def notes_on_unfetched(store: Store, view: View, at: str | None, blobs: Iterable[str]
                       ) -> dict[str, Unfetched]:
    """Return the noted blobs a partial clone lacks, and could not fetch, of an object file.

    A blob-less clone (``git clone --filter=blob:none``) holds every tree but only the
    blobs it has read. A note on an edited object is on its stored bytes, a blob of an
    earlier commit (:func:`notes_on_edited`), which such a clone may lack: libgit2 cannot
    read it, and KI304 said "note on git object B, which is no object file" with a branch
    hunt, though B may well be the object's own bytes (att01). Here, each noted blob git
    lacks whose note's lines name (unverified, a hint only) a subject the view holds, and
    whose history (:func:`kistore.git.pathlog.first_parent_versions` of ``at``, or HEAD)
    held that very blob at the subject's object path, is fetched, all in one ``git fetch``
    (:func:`kistore.git.blobs.fetch_lacking`): fetched, :func:`notes_on_edited` judges it
    as in a full clone. Those git could not fetch (the remote unreachable) are returned:
    whether they are the object's bytes cannot be told here.

    Args:
        store: the store (its git objects are read).
        view: the view whose object files the notes were placed on.
        at: the view's revision (None: the work tree, whose history is HEAD's).
        blobs: noted blob ids (40 hex digits) of no object file of the view.

    Returns:
        ``{blob: Unfetched}``; empty in a full clone and when every such blob was fetched.
        Raises nothing (a history git cannot list leaves its blob to KI304).
    """
    repo = store.repo
    if not is_partial_clone(repo):
        return {}
    odb = repo.odb
    held: dict[str, tuple[str, str]] = {}
    for blob in sorted(b for b in blobs if b not in odb):
        place = _held_at(store, view, at, blob)
        if place is not None:
            held[blob] = place
    if not held:
        return {}
    wanted, remote, failed = fetch_lacking(repo, held)
    if failed is None or remote is None:
        return {}
    return {b: Unfetched(*held[b], remote, failed) for b in wanted}


def _held_at(store: Store, view: View, at: str | None, blob: str) -> tuple[str, str] | None:
    """Return ``(object path, commit)`` where the history held ``blob``, as its note names.

    The note's lines are read as bundles for their statement's subject (not verified: a
    hint of where to look); the first subject the view holds whose object path held the
    blob along the first-parent history of ``at`` (HEAD for the work tree) is returned,
    with the newest commit holding it there. None when none did, or git cannot tell.
    """
    # Lazy: git's path-limited log, for a partial clone's note on an edited object only.
    from ..git.pathlog import first_parent_versions

    # Lazy: bundles are parsed on first judging (~15 ms, see judge); here only as above.
    from .attestation import Bundle, parse_statement

    for line in note_lines(store.repo, blob):
        try:
            subject = parse_statement(Bundle.from_bytes(line).envelope.payload).subject
        except (KistoreError, ValueError):
            continue
        if not view.has_object(subject):
            continue
        path = layout.object_path(subject)
        try:
            versions = first_parent_versions(store.repo, at or "HEAD", path)
        except KistoreError:
            return None
        for commit, held in versions:
            if held == blob:
                return path, commit
    return None


def _unfetched_said(store: Store, unfetched: dict[str, Unfetched]) -> str:
    """Say the note lines on blobs this partial clone lacks, and the fetch that brings them."""
    said = []
    for blob, u in sorted(unfetched.items()):
        lines = len(note_lines(store.repo, blob))
        said.append(
            f"{lines} more from notes on git object {blob}, the bytes {u.path} held at "
            f"commit {u.commit[:12]}, which this partial clone lacks and could not fetch "
            f"from {u.remote} ({u.failed}): whether they are the object's stored bytes "
            f"cannot be told here, and they are not judged; `git fetch "
            f"--no-write-fetch-head {shlex.quote(u.remote)} {blob}` fetches them (then "
            "`kistore verify` again)")
    return "; ".join(said)


def _edited_said(store: Store, edited: dict[str, Digest]) -> str:
    """Say the note lines on objects whose files are edited, and when they count again."""
    lines = sum(len(note_lines(store.repo, blob)) for blob in edited)
    paths = ", ".join(layout.object_path(d) for d in sorted(set(edited.values()), key=str))
    return (f"{lines} more from notes on the stored bytes of {paths}, which the file no "
            "longer holds (its bytes are edited: KI101): they are judged again once the "
            "bytes are restored")


def _invalid_note_line(seen: Any, j: Judgement) -> Finding:
    """Return KI301 of a note line that does not verify, in :func:`note_line_said`'s words."""
    said = note_line_said(seen, j)
    return replace(_finding(j), line=said.line, message=said.message, fix=said.fix)


class NoteLineSaid(NamedTuple):
    """A note line that does not verify, as people read it (:func:`note_line_said`).

    Attributes:
        line: its 1-based number in the note as git holds it, None when the note cannot be
            read again.
        message: which line of which object's note, and why it is no attestation.
        fix: that it counts for nothing, and the ``git notes ... edit`` that removes it.
    """

    line: int | None
    message: str
    fix: str

    def place(self, location: str) -> str:
        """Return ``refs/notes/kistore:BLOB:LINE`` of the note ``location`` (no line: as is).

        Args:
            location: the note's place, ``refs/notes/kistore:BLOB``.

        Returns:
            ``location:LINE``, or ``location`` when the line's number is not known. Raises
            nothing.
        """
        return location if self.line is None else f"{location}:{self.line}"


def note_line_said(seen: Any, j: Judgement) -> NoteLineSaid:
    """Say a note line that does not verify: its line, what is wrong, how to drop it.

    The one text of it: ``verify``'s KI301 (:func:`check_attestations`) and ``kistore
    attestations`` say it alike (msg95 3: ``attestations`` said the parser's bare
    "unreadable bundle: refs/notes/kistore:BLOB:1:1: ..."). msg94 F12: a garbage line was
    "attestation by an unreadable key (note): ..." with the fix "Remove the bundle", naming
    neither the line nor how a note line is removed.

    Args:
        seen: the line as found (:class:`kistore.attest.notes.Seen`, ``source`` ``note``),
            with its number in the note as the judging read it (``seen.number``: no note
            read again, rev95 item 4).
        j: its judgement (``invalid``).

    Returns:
        The :class:`NoteLineSaid`: the line's number in the note as the editor shows it
        (blank lines counted), the message, and the fix: ``kistore notes rebase REMOTE``
        first, since deleting the line at the tip leaves it in the history a push brings,
        refused again (fresh00 M3: the edit, said first, was refused with KI409 and KI408),
        then ``git notes --ref=refs/notes/kistore edit BLOB`` for notes pushed nowhere.
        Raises nothing: it reads no git object.
    """
    blob = seen.location.rpartition(":")[2]
    line = seen.number
    unreadable = j.reason.startswith(UNREADABLE_BUNDLE)
    what = "is not an attestation bundle" if unreadable else "does not verify"
    reason = j.reason.removeprefix(UNREADABLE_BUNDLE)
    place = "a line" if line is None else f"line {line}"
    # a bundle that parses names its type and signer, as every other KI301 does
    whose = "" if unreadable else f" ({j.type or 'attestation'} by {j.keyid})"
    return NoteLineSaid(line, (
        f"{place} of the note on {layout.object_path(seen.subject)}{whose} {what}: {reason}"),
        (f"it counts for nothing, and a push of notes holding it, at the tip or in their "
         "history, is refused (KI409): rebuild the notes without it on the remote's, "
         "`kistore notes rebase REMOTE` (REMOTE: where the notes are pushed, such as origin; "
         "it keeps this repository's lines that verify), then `kistore notes push REMOTE`; "
         f"where the notes go to no remote, delete {place} in the editor `git notes "
         f"--ref={NOTES_REF} edit {blob}` opens; have its signer attest again with "
         "`kistore attest` if it was meant"))


def said_note_lines(pairs: Iterable[tuple[Any, Judgement]]) -> dict[str, NoteLineSaid]:
    """Return :func:`note_line_said` of each note line among ``pairs`` that does not verify.

    Args:
        pairs: ``(Seen, Judgement)`` of one subject (:func:`judged_many`'s).

    Returns:
        ``{bundle sha256 hex: NoteLineSaid}`` (:attr:`Judgement.bundle`); a defective line
        (KI424's second path) is left out: its defect is its reason.

    Raises nothing: it reads no git object (each line's number came with its ``Seen``).
    """
    return {j.bundle: note_line_said(s, j) for s, j in pairs
            if s.source == "note" and j.effect == INVALID and not s.defect}


def listed_attestations(pairs: Iterable[tuple[Any, Judgement]]
                        ) -> list[tuple[dict[str, Any], NoteLineSaid | None]]:
    """Return the attestations about one subject as ``attestations`` and ``show`` list them.

    One per bundle (:func:`distinct`, the order of :attr:`Evidence.attestations`), each
    its JSON (:meth:`Judgement.to_json`); a note line that does not verify has its
    ``reason`` said as ``verify``'s KI301 says it (``refs/notes/kistore:BLOB:LINE: line N
    of the note on ... is not an attestation bundle: ...``, :func:`note_line_said`; msg95
    3 for ``attestations``, and ``show``, which printed the parser's bare "unreadable
    bundle: refs/notes/kistore:BLOB:1:1: ...": fixg96), paired with that
    :class:`NoteLineSaid` (its ``fix`` to print under it), else None.

    Args:
        pairs: ``(Seen, Judgement)`` of one subject (:func:`judged_many`'s).
    """
    pairs = list(pairs)
    said = said_note_lines(pairs)
    listed = []
    for j in distinct([j for _, j in pairs]):
        a, line = j.to_json(), said.get(j.bundle)
        if line is not None:
            a["reason"] = f"{line.place(j.location)}: {line.message}"
        listed.append((a, line))
    return listed


def _finding(j: Judgement) -> Finding:
    rule_ = {INVALID: ATTESTATION_INVALID, NOT_COUNTED: ROLE_NOT_TRUSTED,
             COMMUNITY: COMMUNITY_ATTESTATION, UNFIT: ATTESTATION_UNFIT,
             OUT_OF_TOLERANCE: RERUN_OUT_OF_TOLERANCE,
             }.get(j.effect, TRUSTED_ATTESTATION)
    what = f"{j.type or 'attestation'} by {j.keyid or 'an unreadable key'} ({j.source})"
    message = f"{what}: {j.reason}" if j.reason else what
    return Finding(rule_, message, file=j.location, extra=j.to_json())
