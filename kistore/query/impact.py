"""What a change to trust, the ranking policy or attestation files does (``check``'s listing).

A pull request that changes ``store/trust/keys.json`` or ``store/policy/`` changes no
object, yet it can verify runs, withdraw them and re-order leaderboards: trusting a key
with a ``validFrom`` in the past makes every attestation it signed before count. So can
one that adds an attestation file (an opaque base64 DSSE envelope: a trusted maintainer's
withdrawal of a group's #1, review r78 F11). The diff of the file does not show that;
:func:`trust_and_policy_effects` does, as info findings ``kistore check`` prints for
reviewers:

* KI427 per key the trust file newly trusts, trusts for a new role, or trusts at times it
  did not (a ``validUntil`` later or removed, a ``validFrom`` earlier or removed: who, for
  what, from and until when), even before it has signed anything;
* KI413 per attestation that starts or stops counting (its judgement under the trust file
  at ``BASE`` and at ``HEAD``, the same attestations judged at the same entry times); a
  warning when it counted and a revocation the range sets reaches back to before it
  entered (:mod:`kistore.query.revoked_back`, fresh06 M3);
* KI414 per run whose evidence level or withdrawal changes;
* KI415 per comparison group whose ranking order changes (old and new order).

For a trust or policy change it reads the whole store at ``HEAD`` (its catalog, scanned
without writing an index, and its attestations), so it costs what ``rank`` does, and only
for such a range. For a range adding attestation files alone it reads the groups of the
runs they name, from their listings (O(change)). It is a
:data:`kistore.check.gate.RangeChecker`: ``kistore check`` passes it to the gate
(``checkers=``), which cannot import the query layer.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ..attest.evidence import (
    COMMUNITY,
    INVALID,
    NOT_COUNTED,
    Evidence,
    Judgement,
    evidence_for_many,
    judge_all,
    summarise,
)
from ..attest.notes import collect, parse_attestation_path
from ..attest.trust import Trust, TrustedKey, format_time, load_trust
from ..attest.trust_history import added, dated, first_listed, held, listed_since
from ..core import layout
from ..core.digest import Digest
from ..core.errors import KistoreError, one_line, shorten
from ..core.findings import INFO, WARNING, Finding, rule
from ..core.times import commit_datetime
from ..index.groups import NoListing, group_catalog
from ..index.index import open_catalog
from ..store.arrivals import runs_arriving
from .outlier_rules import policy_marks
from .policy import load_policy
from .policy_families import protocol_families, unknown_families
from .ranking import rank_group
from .revoked_back import FIX as REVOKED_BACK_FIX
from .revoked_back import revoked_back
from .unheld_metric import dropped_rows, lost_group, unheld_metrics, unranked_runs

if TYPE_CHECKING:  # pragma: no cover - typing only
    from datetime import datetime

    from ..index.catalog import Catalog
    from ..store import Store

ATTESTATION_EFFECT = rule(
    "KI413", "attestation-starts-or-stops-counting", INFO,
    "review it: the range's trust change makes this attestation count, or stop counting")
EVIDENCE_EFFECT = rule(
    "KI414", "evidence-level-changes", INFO,
    "review it: the range's trust or attestation change changes this run's evidence level "
    "or withdrawal")
RANKING_EFFECT = rule(
    "KI415", "ranking-order-changes", INFO,
    "review it: the range's trust, policy or attestation change re-orders this comparison "
    "group")
KEY_TRUSTED = rule(
    "KI427", "key-newly-trusted", INFO,
    "review it like code: attestations this key signs (a withdrawal, a rerun) change "
    "evidence and rankings from now on, and, with a validFrom in the past, what it "
    "signed since then")

REVOKED_BACK = replace(ATTESTATION_EFFECT, severity=WARNING, hint=REVOKED_BACK_FIX)
"""KI413 as a warning: the range's revocation reaches back to before an attestation that
counted entered, and un-counts it (:func:`kistore.query.revoked_back.revoked_back`)."""

SHOWN = 8
"""Rows of a group's order shown in a KI415 message (the rest are counted)."""


def trust_and_policy_effects(store: Store, base: str, head: str, changed: set[str]
                             ) -> list[Finding]:
    """List what a range's change to trust, policy or attestation files changes (info).

    Args:
        store: a :class:`kistore.store.Store`.
        base: the range's base commit id.
        head: its head commit id.
        changed: the paths the range changes (the gate's net diff).

    Returns:
        Nothing when the range changes neither ``store/trust/keys.json``, a file under
        ``store/policy/`` nor one under ``store/attestations/``; else KI427 per key the
        trust file newly trusts (:func:`newly_trusted`), KI413 per attestation a trust
        change makes count or stop counting, KI414 per run whose evidence level or
        withdrawal changes, KI415 per group whose order changes: attestations first, then
        runs, then groups. A range that adds attestation files (review r78 F11: a
        withdrawal of a group's #1 got 0 findings) has each run they name judged from
        BASE's attestations under BASE's trust and from HEAD's under HEAD's; with neither
        trust nor policy changed only those runs' groups are ranked, read from their
        listings under ``store/groups/`` (:func:`kistore.index.groups.group_catalog`):
        O(the groups), not O(store). A push of notes is not a range: its new lines are
        judged by the gate alone (KI411), not listed here. An unreadable trust file or
        policy at either end is the gate's to report (KI309, KI206): it is compared as
        trusting no key / as the shipped default.
    """
    trust_changed = layout.TRUST_FILE in changed
    policy_changed = any(p.startswith(layout.POLICY_DIR + "/") for p in changed)
    attested = _attested(changed)
    if not (trust_changed or policy_changed or attested):
        return []

    keys: list[Finding] = newly_trusted(store, base, head) if trust_changed else []
    findings: list[Finding] = []
    before: dict[str, Evidence] = {}
    after: dict[str, Evidence] = {}
    if trust_changed:
        seen = collect(store, at=head)
        view = store.view(head)
        trusts = [_trust(store, rev) for rev in (base, head)]
        judged = [judge_all(seen, trust, view) for trust in trusts]
        by_run: dict[str, tuple[list[Any], list[Any]]] = {}
        landed_at = commit_datetime(store.commit(base).commit_time)
        earlier: dict[str, Counter[str]] = {}  # keyid -> types that entered before and count
        for s, old, new in zip(seen, *judged, strict=True):
            by_run.setdefault(str(s.subject), ([], []))
            by_run[str(s.subject)][0].append(old)
            by_run[str(s.subject)][1].append(new)
            if (old.effect in _UNCOUNTED and new.effect not in _UNCOUNTED + (INVALID,)
                    and new.entered_at <= landed_at and new.keyid is not None):
                earlier.setdefault(new.keyid, Counter())[new.type or "attestation"] += 1
            if old.effect != new.effect:
                back = revoked_back(old, new, *trusts)  # fresh06 M3: a warning
                findings.append(Finding(
                    REVOKED_BACK if back else ATTESTATION_EFFECT,
                    f"{new.type or 'attestation'} by {new.keyid} on "
                    f"{s.subject}: {_effect(old)} -> {_effect(new)}{back}", file=s.location,
                    extra={"subject": str(s.subject), "before": old.effect,
                           "after": new.effect}))
        for run, (old_j, new_j) in by_run.items():
            before[run], after[run] = summarise(old_j), summarise(new_j)
        keys = [_earlier(f, earlier.get(f.extra["keyid"])) for f in keys]
    findings = keys + findings
    catalog: Catalog | None = None
    if attested:
        if not (trust_changed or policy_changed):
            catalog = _groups_of(store, head, attested)
            attested |= {Digest.from_str(r.digest) for key in _keys(catalog, attested)
                         for r in catalog.group(key)}
        for rev, evidence in ((base, before), (head, after)):
            evidence.update((str(d), e) for d, e in evidence_for_many(store, attested,
                                                                       at=rev).items())
    for run in sorted(set(before) | set(after)):
        was, now = _state(before.get(run, Evidence())), _state(after.get(run, Evidence()))
        if was != now:
            findings.append(Finding(EVIDENCE_EFFECT, f"run {run}: {was} -> {now}",
                                    file=_object_path(run),
                                    extra={"before": was, "after": now}))
    return findings + _rankings(store, base, head, before, after, policy_changed, catalog,
                                trust_changed=trust_changed, changed=changed)


def _attested(changed: set[str]) -> set[Digest]:
    """Return the subjects of the attestation files among the range's changed paths."""
    return {found[0] for path in changed
            if (found := parse_attestation_path(path)) is not None}


def _groups_of(store: Store, head: str, runs: set[Digest]) -> Catalog:
    """Return a catalog of ``runs``' comparison groups at ``head``: their listings, else all.

    A commit without group listings (a store from before them, which the gate refuses:
    KI215) is read whole, as a trust change's ranking is.
    """
    try:
        return group_catalog(store.repo, store.commit(head).tree, sorted(runs, key=str),
                             limits=lambda: store.settings(head).limits_per_key()[0],
                             rev=head[:12])
    except NoListing:
        return open_catalog(store, head, use_index=False)


def _keys(catalog: Catalog, runs: set[Digest]) -> set[str]:
    """Return the comparison keys of those of ``runs`` that are ranked runs in ``catalog``."""
    records = (catalog.record(str(d)) for d in runs)
    return {r.comparison_key for r in records
            if r is not None and r.comparison_key is not None and r.family is not None}


def newly_trusted(store: Store, base: str, head: str) -> list[Finding]:
    """KI427 per key HEAD's trust file trusts at a time or for a role BASE's does not.

    Trusting a maintainer key lists nothing else when it has signed nothing yet, and the
    next pull request's withdrawal signed with it counts at once: the reviewer of the
    first is told who is trusted, for what, and from when (review r78 F11). Widening a
    trusted key's window is the same step with a key once trusted (review r80 F3): an
    expired key whose ``validUntil`` is moved later or removed, or a key whose
    ``validFrom`` is moved earlier or removed (what it signed before counts). Two reads of
    the trust file.

    Args:
        store: a :class:`kistore.store.Store`.
        base: the range's base commit id.
        head: its head commit id.

    Returns:
        One info finding on ``store/trust/keys.json`` at ``/keys/N`` (the key's entry at
        HEAD) per key new at HEAD, trusted for a role it was not at BASE, or whose window
        HEAD widens (:func:`widened`), naming its keyid, comment, roles, what widened and
        its validity (``extra``: ``keyid``, ``roles`` (the new ones; a widened window: all
        of them), ``widened`` (a list of ``validFrom``/``validUntil``), ``validity``:
        ``validFrom``, ``validUntil``, ``revokedAt``); empty when the file is unreadable at
        HEAD (KI309 says so), or trusts no key, role or time anew. An unreadable file at
        BASE trusted no key. A ``revokedAt`` lifted is KI412's (:mod:`kistore.check.lineage`).
    """
    old, new = (_raw_trust(store, rev) for rev in (base, head))
    findings = []
    entered: dict[str, datetime] | None = None  # BASE's keys' start times, read when needed
    for index, (keyid, key) in enumerate(new.keys.items()):
        had = old.keys.get(keyid)
        roles = [r for r in key.roles if had is None or r not in had.roles]
        joined = None  # when a key BASE trusts entered its trust file (first-parent line)
        if had is not None and (had.valid_from is None or key.valid_from is None):
            if entered is None:
                entered = listed_since(store.repo, str(store.commit(base).id))
            joined = entered.get(keyid)
        if had is None and key.valid_from is None:  # a key added again keeps its first
            # start (fresh01 F7): when BASE's history listed it, what it signed since counts
            again = first_listed(store.repo, str(store.commit(base).id)).get(keyid)
            joined = again[0] if again is not None else None
        wider = widened(had, key, joined) if had is not None else {}
        if not roles and not wider:
            continue
        # no validFrom at HEAD: readers at HEAD count the key from when HEAD's own first-
        # parent line lists it, which differs where HEAD merged BASE in (fresh07 L6)
        at_head = None
        if had is not None and key.valid_from is None and joined is not None:
            at_head = added(store.repo, str(store.commit(head).id)).get(keyid)
            if at_head is not None and at_head[0] == joined:
                at_head = None
        # one_line: a comment holding U+202E or a line feed (KI441) reversed or forged this
        # line, what a reviewer reads to approve trust (fresh14 F7)
        holder = f" ({one_line(shorten(key.comment))})" if key.comment else ""
        if roles:
            also = f" too (already {', '.join(had.roles)})" if had is not None else ""
            said = f"the range trusts key {keyid}{holder} for {', '.join(roles)}{also}"
            if had is not None:  # roles are not dated: the key's start holds for the new one
                said += (f", from the key's start, not from this change (roles are not "
                         f"dated): what it signed since then counts for {', '.join(roles)}")
        else:
            roles = list(key.roles)
            said = f"the range widens when key {keyid}{holder} counts for {', '.join(roles)}"
        if wider:
            said += " (" + "; ".join(wider.values()) + ")"
        findings.append(Finding(
            KEY_TRUSTED, f"{said}: {_validity(key, joined, again=had is None, at_head=at_head)}",
            file=layout.TRUST_FILE,
            pointer=f"/keys/{index}",
            extra={"keyid": keyid, "roles": roles, "widened": sorted(wider), "validity": {
                "validFrom": _when(key.valid_from), "validUntil": _when(key.valid_until),
                "revokedAt": _when(key.revoked_at)}}))
    return findings


def widened(before: TrustedKey, after: TrustedKey, entered: datetime | None = None
            ) -> dict[str, str]:
    """Say how ``after`` makes a key count at times ``before`` did not (review r80 F3).

    Args:
        before: the key's entry at BASE.
        after: its entry at HEAD (the same keyid).
        entered: when the key counted from at BASE when ``before`` has no ``validFrom``
            (the time it entered the trust file along BASE's first-parent line,
            :func:`kistore.attest.trust_history.listed_since`); None: unknown.

    Returns:
        ``{"validUntil": "validUntil 2026-01-01T00:00:00Z -> 2030-01-01T00:00:00Z"}`` when
        HEAD's expiry is later than BASE's or removed (``-> none``), and ``{"validFrom":
        ...}`` likewise when its start is earlier, or removed (``-> none``) where the key
        entered the trust file before it (or ``entered`` is unknown; after it, removing it
        is a narrowing, KI410), or set where BASE had none earlier than ``entered``
        (``validFrom none (from when it entered the trust file, T) ->
        ...``: reviewers r81 F14, r82 F9); empty when neither widens. A window narrowed, a
        ``validFrom`` set no earlier than ``entered`` (or ``entered`` unknown), or an empty
        window at HEAD (``validUntil`` not after ``validFrom``: valid at no time) counts at
        no new time.
    """
    found: dict[str, str] = {}
    if (after.valid_from is not None and after.valid_until is not None
            and after.valid_until <= after.valid_from):
        return found
    if before.valid_until is not None and (
            after.valid_until is None or after.valid_until > before.valid_until):
        found["validUntil"] = (f"validUntil {format_time(before.valid_until)} -> "
                               f"{_when(after.valid_until) or 'none'}")
    if before.valid_from is not None and (
            after.valid_from < before.valid_from if after.valid_from is not None
            # removed: the key counts from when it entered, which widens only when that is
            # earlier (fresh06 H1: a validFrom before it, removed, is KI410's narrowing)
            else entered is None or entered < before.valid_from):
        found["validFrom"] = (f"validFrom {format_time(before.valid_from)} -> "
                              f"{_when(after.valid_from) or 'none'}")
    elif (before.valid_from is None and after.valid_from is not None and entered is not None
          and after.valid_from < entered):
        found["validFrom"] = (f"validFrom none (from when it entered the trust file, "
                              f"{format_time(entered)}) -> {format_time(after.valid_from)}")
    return found


_UNCOUNTED = (COMMUNITY, NOT_COUNTED)
"""Effects of an attestation that changes nothing (listed, or a role claim that fails)."""


def _earlier(finding: Finding, started: Counter[str] | None) -> Finding:
    """KI427 ``finding`` saying which attestations of its key that entered before now count.

    ``started``: attestation type -> how many of the key's attestations that entered the
    repository no later than BASE's tip count at HEAD and did not at BASE (None: none).
    """
    if not started:
        return finding
    told = ", ".join(f"{n} {kind}{'s' if n > 1 else ''}" for kind, n in sorted(started.items()))
    withdraws = " (a withdrawal that entered earlier takes effect now)" if started.get(
        "withdrawal") else ""
    return replace(finding, message=f"{finding.message}; attestations it signed that entered "
                   f"before this change now count: {told}{withdraws} (KI413 lists each)",
                   extra={**finding.extra, "earlier": dict(sorted(started.items()))})


def _raw_trust(store: Store, rev: str) -> Trust:
    """Return the trust file of ``rev`` as written (an unreadable one: no key)."""
    try:
        return load_trust(store.view(rev))
    except KistoreError:
        return Trust()


def _validity(key: TrustedKey, entered: datetime | None = None, *, again: bool = False,
              at_head: tuple[datetime, str] | None = None) -> str:
    """Return when a key counts, as KI427 says it.

    ``entered``: when a key BASE already trusted without ``validFrom`` entered the trust
    file (it counts from then, not from this change), or, ``again``, when a key BASE's
    trust file no longer lists first entered it (added again, it keeps that start); None:
    a new key. ``at_head``: when and in which commit HEAD's own first-parent line first
    lists the key, where that is not ``entered`` (a branch that merged BASE into a side
    line trusting it): what readers at HEAD (``kistore attestations``) count it from,
    said beside BASE's start, which a merge into BASE keeps (fresh07 L6: KI427 named
    BASE's alone, ``attestations`` at HEAD the side commit's).
    """
    first = (", when it first entered the trust file (a key added again keeps its first "
             "start: what it signed since then counts)" if again else
             ", when it entered the trust file (what it signed since then counts)")
    if at_head is not None:
        first = (", when it entered BASE's trust file (what it signed since then counts once "
                 "the range is merged into BASE, whose first-parent line keeps that start; "
                 f"HEAD's own first-parent line lists it from {format_time(at_head[0])}, "
                 f"commit {at_head[1][:12]}, the start readers at HEAD such as `kistore "
                 "attestations` give it)")
    since = (f"valid from {format_time(key.valid_from)} (what it signed since then counts)"
             if key.valid_from is not None else
             f"valid from {format_time(entered)}{first}" if entered is not None else
             "valid from when it enters the trust file")
    until = f", until {format_time(key.valid_until)}" if key.valid_until else ", no expiry"
    revoked = f", revoked at {format_time(key.revoked_at)}" if key.revoked_at else ""
    return since + until + revoked


def _when(value: datetime | None) -> str | None:
    return format_time(value) if value is not None else None


def _trust(store: Store, rev: str) -> Any:

    try:
        return held(store, rev, dated(store, rev, load_trust(store.view(rev))))
    except KistoreError as e:
        return Trust(unreadable=e.problems[0].format())


def _effect(judgement: Judgement) -> str:
    return judgement.effect + (f" ({judgement.reason})" if judgement.effect in (
        "not-counted", "community") and judgement.reason else "")


def _state(evidence: Evidence) -> str:
    return evidence.level + (", withdrawn" if evidence.withdrawn else "")


def _object_path(digest: str) -> str:

    return layout.object_path(Digest.from_str(digest))


def _rankings(store: Store, base: str, head: str, before: dict[str, Evidence],
              after: dict[str, Evidence], policy_changed: bool,
              catalog: Catalog | None = None, *, trust_changed: bool = False,
              changed: set[str] | None = None) -> list[Finding]:
    """KI415 per group whose ranked order differs between BASE's and HEAD's evidence and policy.

    Each group is ranked once at each end, as ``rank`` ranks it there (a withdrawn run left
    out, docs/attestations.md): BASE's runs under BASE's policy and evidence, HEAD's under
    HEAD's. BASE's runs of a group are HEAD's less those the range brings to it
    (:func:`kistore.store.arrivals.runs_arriving`, O(change): the gate refuses a removed
    group file); until 2026-12-05 both ends ranked HEAD's runs, so a run the range adds was
    "a stored run" whose mark a policy change "would remove" and "ranked before this change"
    (reviewer break96 M2). A group whose comparison the policy change changes is judged for
    KI234 and KI235 (:func:`policy_marks`), KI245/KI246 and KI247 from those two rankings;
    one the range also brings runs to is ranked a third time, BASE's runs under HEAD's
    policy, so that what the arrivals do is left to the arriving runs' rules
    (:func:`kistore.query.outlier_rules.range_outliers`, under HEAD's policy) and said once.
    KI415 lists an arriving run in the "after" order as ``(arriving)``, unranked ones as
    ``- NAME (arriving; WHY)``. A group whose runs ranked at HEAD are all arrivals is handed
    to KI247 as such (``ranking only ..., which this change adds``: reviewer break97 M4).
    A policy change's entries are judged against HEAD's
    protocols' families too (KI250, :func:`kistore.query.policy_families.unknown_families`),
    from the same catalog.

    Args:
        store: the store.
        base: the range's base commit id.
        head: its head commit id.
        before: runs' evidence at BASE the caller judged (a trust change: every attested
            run's; an attestation range: its runs' and their groups').
        after: the same at HEAD.
        policy_changed: the range changes ``store/policy/``.
        catalog: the groups to rank (an attestation range's, :func:`_groups_of`); None:
            every group of HEAD, scanned.
        trust_changed: ``before`` and ``after`` hold every attested run (a run absent has
            no attestation); else the evidence of a ranked run absent from them is read at
            each end (once an end, for all the groups ranked).
        changed: the paths the range changes (for the runs it brings to groups); None:
            none, both ends rank the same runs.
    """
    moved = {d for d in set(before) | set(after)
             if _state(before.get(d, Evidence())) != _state(after.get(d, Evidence()))}
    if not moved and not policy_changed:
        return []
    if catalog is None:
        catalog = open_catalog(store, head, use_index=False)
    policies = []
    for rev in (base, head):
        try:
            policies.append(load_policy(store.view(rev)))
        except KistoreError:  # KI206 reports it; rank would fail alike at that end
            return []
    unknown = unknown_families(policies[0], policies[1], protocol_families(
        r.spec for r in catalog.records(kind="BenchmarkProtocol"))) if policy_changed else []
    groups: dict[str, list[Any]] = {}
    for record in catalog.records(kind="BenchmarkRun"):
        if record.comparison_key is not None and record.family is not None:
            groups.setdefault(record.comparison_key, []).append(record)
    ranked: list[tuple[str, list[Any], list[Any], bool]] = []  # key, runs, comparisons, reranked
    for key, records in sorted(groups.items()):
        first = records[0]
        try:
            comparisons = [p.comparison(first.family, first.statistic or "mean")
                           for p in policies]
        except KistoreError:
            continue
        reranked = policy_changed and comparisons[0] != comparisons[1]
        if reranked or any(r.digest in moved for r in records):
            ranked.append((key, records, comparisons, reranked))
    ends = [dict(before), dict(after)]
    if not trust_changed:  # a withdrawal the range does not touch counts at both ends
        for rev, evidence in zip((base, head), ends, strict=True):
            missing = {Digest.from_str(r.digest) for _, records, _, _ in ranked
                       for r in records if r.digest not in evidence}
            if missing:
                evidence.update((str(d), e) for d, e in evidence_for_many(
                    store, missing, at=rev).items())
    arriving = _arriving(store, base, head, changed) if ranked else {}
    reordered: list[dict[str, Any]] = []  # KI415's groups
    lost: dict[str, tuple[str, list[str], list[Any]]] = {}  # KI245's families
    ranking: Counter[str] = Counter()  # a family's changed groups ranking at HEAD (KI246)
    dropped: dict[str, tuple[str, list[tuple[str, Any, Any]]]] = {}  # KI247's runs
    alone: dict[str, list[Any]] = {}  # KI247's groups ranking only runs the range adds
    marks: list[Finding] = []  # KI234, warnings: after the listing
    for key, records, comparisons, reranked in ranked:
        new = arriving.get(key, set())
        stored = [r for r in records if r.digest not in new]  # BASE's runs (break96 M2)
        at_ends = [_ranked(key, runs, comparison, evidence) for runs, comparison, evidence
                   in zip((stored, records), comparisons, ends, strict=True)]
        rankings = [end for end in at_ends if not isinstance(end, str)]
        # a run one end ranks and the other does not is said at that end, as `-` (M2)
        orders = [end if isinstance(end, str) else _order(
            end, [] if isinstance(other, str) else dropped_rows(other, end), arrived)
            for end, other, arrived in zip(at_ends, at_ends[::-1], (set(), new), strict=True)]
        if reranked and len(rankings) == 2:  # r92 F8; an end that cannot rank is KI210's
            # the policy's own doing: BASE's runs under HEAD's policy, when runs arrive
            middle = _ranked(key, stored, comparisons[1], ends[0]) if new else None
            marks += policy_marks(key, records, rankings,
                                  None if isinstance(middle, str) else middle)
            metric = comparisons[1].metric
            if lost_group(records, metric, *rankings):  # fresh95 F1: a typo'd metric
                entry = lost.setdefault(records[0].family, (metric, [], []))
                entry[1].append(key)
                entry[2].extend(records)
            elif rankings[1].ranked:
                ranking[records[0].family] += 1
                gone = dropped_rows(*rankings)  # break95 M2: runs out of a group kept
                if gone:
                    by_run = {row.record.digest: row for row in rankings[0].ranked}
                    dropped.setdefault(records[0].family, (metric, []))[1].extend(
                        (key, by_run[row.record.digest], row) for row in gone)
                    if all(row.record.digest in new for row in rankings[1].ranked):
                        alone[key] = rankings[1].ranked  # break97 M4: only arrivals rank
        if orders[0] != orders[1]:
            first = records[0]
            reordered.append({"group": key, "family": first.family,
                              "hardware": first.hardware, "before": orders[0],
                              "after": orders[1]})
    return (unknown + unheld_metrics(lost, ranking) + unranked_runs(dropped, alone)
            + _reordered(reordered) + marks)


def _arriving(store: Store, base: str, head: str, changed: set[str] | None
              ) -> dict[str, set[str]]:
    """Return comparison key -> digest strings of the runs the range brings to the group.

    :func:`kistore.store.arrivals.runs_arriving` (kept for the gate's other rules: computed
    once a range); empty when ``changed`` is None.
    """
    if not changed:
        return {}
    found = runs_arriving(store.view(base), store.view(head), changed)
    return {str(key): {str(run) for run in runs} for key, runs in found.items()}


def _ranked(key: str, records: list[Any], comparison: Any, evidence: dict[str, Evidence]
            ) -> Any:
    """Return :func:`rank_group` of a group at one end, or why it cannot rank there."""
    try:
        return rank_group(key, records, comparison, evidence)
    except KistoreError as e:
        return f"cannot rank ({e.message})"


def _reordered(groups: list[dict[str, Any]]) -> list[Finding]:
    """KI415 as one line: the group itself when one, else how many (``--json`` lists each).

    A policy change re-ranks every group of a family: one line a group buried the warnings
    beside it (reviewer fresh95 F1: 244 lines, 130 KB). ``extra.groups`` keeps each group's
    ``group``, ``family``, ``hardware``, ``before`` and ``after``.
    """
    if not groups:
        return []
    if len(groups) == 1:
        one = groups[0]
        return [Finding(RANKING_EFFECT, f"group {one['group']} ({one['family']}, "
                        f"{one['hardware']}): before: {one['before']}; after: {one['after']}",
                        extra={"group": one["group"], "groups": groups})]
    families = ", ".join(sorted({str(g["family"]) for g in groups}))
    return [Finding(RANKING_EFFECT, f"{len(groups)} comparison groups change order (families: "
                    f"{families}); `kistore check --json` lists each group's order before "
                    f"and after (extra.groups), e.g. group {groups[0]['group']}: before: "
                    f"{groups[0]['before']}; after: {groups[0]['after']}",
                    extra={"groups": groups})]


def _order(ranking: Any, dropped: Sequence[Any] = (), arriving: set[str] | frozenset[str]
           = frozenset()) -> str:
    """Return a group's order as KI415 says it: ``1 fast, 2 mid``, then each of ``dropped``.

    ``dropped``: rows of runs that rank nothing here and rank at the other end
    (:func:`.unheld_metric.dropped_rows`), said as ``rank`` shows them, ``- NAME (no value
    at /POINTER)``, after the ranked rows, however many those are (up to :data:`SHOWN`,
    the rest counted): the "after" list of a policy change dropped such a run silently
    (reviewer break95 M2). ``arriving``: digests of the runs the range brings to the group
    (HEAD's end): a ranked one is ``3 NAME (arriving)``, an unranked one is said among the
    dropped, ``- NAME (arriving; no value at /POINTER)`` (reviewer break96 M2: the "before"
    list named such a run, which BASE never held).
    """
    rows = [f"{r.rank} {r.record.name}" + (" (arriving)" if r.record.digest in arriving
                                           else "") for r in ranking.ranked]
    dropped = [*dropped, *(r for r in ranking.unranked if r.record.digest in arriving)]
    shown = ", ".join(rows[:SHOWN]) or "nothing ranked"
    shown += f", ... ({len(rows) - SHOWN} more)" if len(rows) > SHOWN else ""
    shown += "".join(f", - {r.record.name} ("
                     f"{'arriving; ' if r.record.digest in arriving else ''}{r.reason})"
                     for r in dropped[:SHOWN])
    return shown + (f", ... ({len(dropped) - SHOWN} more -)" if len(dropped) > SHOWN else "")
