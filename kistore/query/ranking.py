"""Ranking one comparison group (docs/design.md §6). Pure: records and evidence in, rows out.

Rules:

* ranked: status ``passed``, not withdrawn, implementation role not ``reference``, at least
  the asked evidence level, and a numeric value for the comparison; a run that contradicts
  itself or its source's scale (:func:`kistore.core.contradictions.run_contradictions`,
  KI222-KI224) is excluded, with the reason, and so is one whose object claims KernelBench
  as its source but which KernelBench's importer does not make
  (:func:`kistore.core.provenance.unproven_claim`, KI226);
* order: by value (the comparison's order), ties share a rank -- competition ranking
  (1, 2, 2, 4) -- and rows of equal value are listed by digest;
* a candidate that passed but lacks the value is *unranked* (rank None), never first or last;
  so is one whose value is not a finite number above 0 (``-5``, ``0``: no time nor score
  ranks so; :mod:`.above_zero`, KI237; fresh18 F1: such a run ranked #1);
* reference runs (SOL bound, baselines, reference implementations) are kept apart with
  their values, for "x reference" ratios;
* units are never mixed: runs of one group whose values disagree in unit are an error;
  only the runs that can be compared count (status ``passed``, with a value:
  :meth:`~.policy.Comparison.judged_unit`): a failed run, or one with no value, breaks
  nothing whatever unit it states.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, NamedTuple

from ..attest.levels import SOURCE_NATIVE, VERIFIED, Evidence
from ..core.contradictions import run_contradictions
from ..core.errors import InputError
from ..core.layout import POLICY_FILE
from ..core.numbers import is_number
from ..core.provenance import unproven_claim
from ..index.records import Record
from .above_zero import not_above_zero, not_above_zero_said
from .policy import DESCENDING, Comparison, resolve_pointer

EVIDENCE_LEVELS = (SOURCE_NATIVE, VERIFIED)
"""Evidence levels, weakest first: ``--evidence L`` keeps runs at L or stronger."""


class Row(NamedTuple):
    """One run of a group as the ranking places it.

    A named tuple, not a frozen dataclass: making one costs ~2 ms of start-up (its methods
    are compiled), on every run page and ``rank`` (docs/speed.md). Compared as a tuple,
    evidence included.

    Attributes:
        record: the run's record.
        value: the ranked value (in ``unit``), None when the run lacks it.
        unit: the value's unit (``ns`` for measured).
        rank: competition rank (1-based) among ranked runs; None when not ranked.
        evidence: what the run's attestations amount to.
        reason: why it is not ranked (None when ranked), e.g. ``status incorrect``.
        latency_ns: the run's primary-statistic latency in ns (for ratios), when known.
    """

    record: Record
    value: float | None
    unit: str | None
    rank: int | None
    evidence: Evidence
    reason: str | None = None
    latency_ns: float | None = None

    def to_json(self) -> dict[str, Any]:
        """Return the row as data: rank, digest, name, value, unit, evidenceLevel, ..."""
        r = self.record
        return {"rank": self.rank, "digest": r.digest, "name": r.name, "value": self.value,
                "unit": self.unit, "latencyNs": self.latency_ns, "status": r.status,
                "implementation": r.implementation, "project": r.project,
                "role": r.role, "evidenceLevel": self.evidence.level,
                "withdrawn": self.evidence.withdrawn, "reason": self.reason}


class Ranking(NamedTuple):
    """A ranked comparison group.

    A named tuple, not a frozen dataclass: making one costs ~2 ms of start-up (its methods
    are compiled), on every run page and ``rank`` (docs/speed.md).

    Attributes:
        key: the comparison key (``sha256:...``).
        comparison: how it was ordered.
        ranked: ranked rows, best first.
        unranked: passed candidates without the ranked value (rank None).
        references: reference-implementation rows, by value.
        excluded: rows not ranked for another reason (status, withdrawn, evidence level).
    """

    key: str
    comparison: Comparison
    ranked: list[Row]
    unranked: list[Row]
    references: list[Row]
    excluded: list[Row]

    @property
    def group_size(self) -> int:
        """Return M in "rank N of M": the number of ranked runs."""
        return len(self.ranked)

    @property
    def first(self) -> Row | None:
        """Return the first ranked row (rank 1), or None when nothing is ranked."""
        return self.ranked[0] if self.ranked else None

    def rows(self, *, include_excluded: bool = False) -> list[Row]:
        """Return every row: ranked, unranked, references, then (when asked) excluded."""
        return [*self.ranked, *self.unranked, *self.references,
                *(self.excluded if include_excluded else [])]

    def row(self, digest: str) -> Row | None:
        """Return the row of a run by digest string, or None when it is not in the group."""
        return next((r for r in self.rows(include_excluded=True) if r.record.digest == digest),
                    None)


def rank_group(key: str, records: list[Record], comparison: Comparison,
               evidence: Mapping[str, Evidence], *, min_evidence: str = SOURCE_NATIVE
               ) -> Ranking:
    """Rank the runs of one comparison group.

    Args:
        key: their comparison key.
        records: the group's run records (any order).
        comparison: the comparison to order by (see :mod:`.policy`).
        evidence: evidence per run digest string (missing: source-native).
        min_evidence: weakest evidence level ranked (``source-native`` ranks all).

    Returns:
        The :class:`Ranking`.

    Raises:
        InputError: runs of the group disagree in the unit of the ranked value (each unit
            is listed with a run that uses it), or ``min_evidence`` is not a level.
    """
    if min_evidence not in EVIDENCE_LEVELS:
        raise InputError(f"unknown evidence level {min_evidence!r}; expected one of "
                         f"{', '.join(EVIDENCE_LEVELS)}")
    floor = EVIDENCE_LEVELS.index(min_evidence)
    ranked: list[Row] = []
    unranked, references, excluded = [], [], []
    units: dict[str, str] = {}
    for record in sorted(records, key=lambda r: r.digest):
        ev = evidence.get(record.digest, Evidence())
        value, unit = comparison.value(record.spec)
        latency = _latency(record)
        judged = comparison.judged_unit(record.spec)  # a failed run's unit breaks nothing
        if judged is not None:
            units.setdefault(judged, record.digest)
        # "0.5" where 0.5 was meant (KI221 warns in check), null, or nothing there
        missing = comparison.unranked_said(record.spec) if value is None else ""
        if value is not None and unit is None:
            value = None  # a value without a unit cannot be compared: say which is missing
            missing = (f"no unit at {comparison.unit_pointer}" if comparison.unit_pointer
                       else "no unit: the ranking policy gives none")
            misstated = comparison.misstated_unit(record.spec)
            if misstated is not None:  # e.g. the number 1 where "1" was meant
                missing += f" ({json.dumps(misstated)} is not a string)"
        elif value is not None and not_above_zero(value):
            # -5 ms, 0: no time nor score ranks so (fresh18 F1: #1 through every gate)
            missing = not_above_zero_said(value, unit, comparison.metric)
            value = None
        reason = _excluded(record, ev, floor)
        row = Row(record, value, unit, None, ev, reason, latency)
        if record.is_reference:  # a withdrawn one is listed, said so: no baseline (r83 F2)
            said = "reference, never ranked" + ("; withdrawn" if ev.withdrawn else "")
            references.append(Row(record, value, unit, None, ev, said, latency))
        elif reason is not None:
            excluded.append(row)
        elif value is None:
            unranked.append(Row(record, None, unit, None, ev, missing, latency))
        else:
            ranked.append(row)
    if len(units) > 1:
        listed = "; ".join(f"{u} (e.g. {d})" for u, d in sorted(units.items()))
        raise InputError(f"runs of comparison group {key} disagree in the unit of "
                         f"{comparison.metric}: {listed}; units are never mixed (`kistore "
                         f"verify`: KI210): {MIXED_GROUP_FIX}")
    sign = -1.0 if comparison.order == DESCENDING else 1.0
    ranked.sort(key=lambda r: (sign * (r.value or 0.0), r.record.digest))
    ranks: list[Row] = []
    for i, row in enumerate(ranked):
        tied = i > 0 and row.value == ranked[i - 1].value
        rank = ranks[-1].rank if tied else i + 1
        ranks.append(Row(row.record, row.value, row.unit, rank, row.evidence, None,
                         row.latency_ns))
    references.sort(key=lambda r: (r.value is None, sign * (r.value or 0.0), r.record.digest))
    return Ranking(key, comparison, ranks, unranked, references, excluded)


MIXED_GROUP_FIX = (
    "a stored run never changes nor leaves its group: if the values are in fact in one unit, "
    f"give the family a fixed \"unit\" in place of its \"unitPointer\" in {POLICY_FILE} by "
    "a reviewed pull request; else add the runs again under new names, each stating one "
    "unit, in a new comparison group (e.g. a new protocol version), or rank the family by "
    "another metric")
"""What to do about a comparison group whose runs state more than one unit (``rank``'s
refusal, the hints of KI210 and KI217): no stored run can be corrected in place."""


def _excluded(record: Record, evidence: Evidence, floor: int) -> str | None:
    """Return why a candidate is not ranked, or None when it may be."""
    if record.status != "passed":
        return f"status {record.status}"
    contradictions = run_contradictions(record.spec)  # KI222-KI224, KI228: refused since 2026-12-03
    if contradictions:
        return "contradicts itself: " + "; ".join(
            f"{c.short} ({c.rule})" for c in contradictions)
    # KI226 on the object's claim (rank reads no metadata): refused since 2026-12-04
    unproven = unproven_claim(record.digest.removeprefix("sha256:"), record.spec, None)
    if unproven is not None:
        return f"{unproven.short} ({unproven.rule})"
    if evidence.withdrawn:
        return "withdrawn"
    level = EVIDENCE_LEVELS.index(evidence.level) if evidence.level in EVIDENCE_LEVELS else 0
    if level < floor:
        return f"evidence {evidence.level}"
    return None


def _latency(record: Record) -> float | None:
    """Return the run's latency in ns at its protocol's primary statistic, or None."""
    statistic = record.statistic or record.spec.get("timing", {}).get("primaryStatistic")
    value = resolve_pointer(record.spec, f"/timing/latencyNs/{statistic}")
    return value if is_number(value) else None
