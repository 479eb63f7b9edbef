"""What a change to trust or to the ranking policy does to the store (``check``'s listing).

A pull request that changes ``store/trust/keys.json`` or ``store/policy/`` changes no
object, yet it can verify runs, withdraw them and re-order leaderboards: trusting a key
with a ``validFrom`` in the past makes every attestation it signed before count. The diff
of the file does not show that; :func:`trust_and_policy_effects` does, as info findings
``kistore check`` prints for reviewers:

* KI413 per attestation that starts or stops counting (its judgement under the trust file
  at ``BASE`` and at ``HEAD``, the same attestations judged at the same entry times);
* KI414 per run whose evidence level or withdrawal changes;
* KI415 per comparison group whose ranking order changes (old and new order).

It reads the whole store at ``HEAD`` (its catalog, scanned without writing an index, and
its attestations), so it costs what ``rank`` does, and only for a range that changes trust
or policy. It is a :data:`kistore.check.gate.RangeChecker`: ``kistore check`` passes it
to the gate (``checkers=``), which cannot import the query layer.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..attest.evidence import Evidence, Judgement, judge_all, summarise
from ..attest.notes import collect
from ..attest.trust import Trust, load_trust
from ..attest.trust_history import dated, held
from ..core import layout
from ..core.digest import Digest
from ..core.errors import KistoreError
from ..core.findings import INFO, Finding, rule
from ..index.index import open_catalog
from .policy import load_policy
from .ranking import rank_group

if TYPE_CHECKING:  # pragma: no cover - typing only
    from ..store import Store

ATTESTATION_EFFECT = rule(
    "KI413", "attestation-starts-or-stops-counting", INFO,
    "review it: the range's trust change makes this attestation count, or stop counting")
EVIDENCE_EFFECT = rule(
    "KI414", "evidence-level-changes", INFO,
    "review it: the range's trust change changes this run's evidence level or withdrawal")
RANKING_EFFECT = rule(
    "KI415", "ranking-order-changes", INFO,
    "review it: the range's trust or policy change re-orders this comparison group")

SHOWN = 8
"""Rows of a group's order shown in a KI415 message (the rest are counted)."""


def trust_and_policy_effects(store: Store, base: str, head: str, changed: set[str]
                             ) -> list[Finding]:
    """List what a range's change to trust or policy changes (KI413-KI415, info).

    Args:
        store: a :class:`kistore.store.Store`.
        base: the range's base commit id.
        head: its head commit id.
        changed: the paths the range changes (the gate's net diff).

    Returns:
        Nothing when the range changes neither ``store/trust/keys.json`` nor a file under
        ``store/policy/``; else the findings above, attestations first, then runs, then
        groups. An unreadable trust file or policy at either end is the gate's to report
        (KI309, KI206): it is compared as trusting no key / as the shipped default.
    """
    trust_changed = layout.TRUST_FILE in changed
    policy_changed = any(p.startswith(layout.POLICY_DIR + "/") for p in changed)
    if not (trust_changed or policy_changed):
        return []

    findings: list[Finding] = []
    before: dict[str, Evidence] = {}
    after: dict[str, Evidence] = {}
    if trust_changed:
        seen = collect(store, at=head)
        view = store.view(head)
        judged = [judge_all(seen, _trust(store, rev), view) for rev in (base, head)]
        by_run: dict[str, tuple[list[Any], list[Any]]] = {}
        for s, old, new in zip(seen, *judged, strict=True):
            by_run.setdefault(str(s.subject), ([], []))
            by_run[str(s.subject)][0].append(old)
            by_run[str(s.subject)][1].append(new)
            if old.effect != new.effect:
                findings.append(Finding(
                    ATTESTATION_EFFECT, f"{new.type or 'attestation'} by {new.keyid} on "
                    f"{s.subject}: {_effect(old)} -> {_effect(new)}", file=s.location,
                    extra={"subject": str(s.subject), "before": old.effect,
                           "after": new.effect}))
        for run, (old_j, new_j) in sorted(by_run.items()):
            before[run], after[run] = summarise(old_j), summarise(new_j)
            was, now = _state(before[run]), _state(after[run])
            if was != now:
                findings.append(Finding(EVIDENCE_EFFECT, f"run {run}: {was} -> {now}",
                                        file=_object_path(run),
                                        extra={"before": was, "after": now}))
    return findings + _rankings(store, base, head, before, after, policy_changed)


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
              after: dict[str, Evidence], policy_changed: bool) -> list[Finding]:
    """KI415 per group whose ranked order differs between BASE's and HEAD's trust and policy."""
    moved = {d for d in set(before) | set(after)
             if _state(before.get(d, Evidence())) != _state(after.get(d, Evidence()))}
    if not moved and not policy_changed:
        return []
    catalog = open_catalog(store, head, use_index=False)
    policies = []
    for rev in (base, head):
        try:
            policies.append(load_policy(store.view(rev)))
        except KistoreError:  # KI206 reports it; rank would fail alike at that end
            return []
    groups: dict[str, list[Any]] = {}
    for record in catalog.records(kind="BenchmarkRun"):
        if record.comparison_key is not None and record.family is not None:
            groups.setdefault(record.comparison_key, []).append(record)
    findings = []
    for key, records in sorted(groups.items()):
        first = records[0]
        statistic = first.statistic or "mean"
        try:
            comparisons = [p.comparison(first.family, statistic) for p in policies]
        except KistoreError:
            continue
        if not (policy_changed and comparisons[0] != comparisons[1]) and not any(
                r.digest in moved for r in records):
            continue
        orders = []
        for comparison, evidence in zip(comparisons, (before, after), strict=True):
            try:
                ranking = rank_group(key, records, comparison, evidence)
            except KistoreError as e:
                orders.append(f"cannot rank ({e.message})")
                continue
            orders.append(_order(ranking))
        if orders[0] != orders[1]:
            findings.append(Finding(
                RANKING_EFFECT, f"group {key} ({first.family}, {first.hardware}): before: "
                f"{orders[0]}; after: {orders[1]}", extra={"group": key}))
    return findings


def _order(ranking: Any) -> str:
    rows = [f"{r.rank} {r.record.name}" for r in ranking.ranked]
    shown = ", ".join(rows[:SHOWN]) or "nothing ranked"
    return shown + (f", ... ({len(rows) - SHOWN} more)" if len(rows) > SHOWN else "")
