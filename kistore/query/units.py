"""KI210, a run whose unit disagrees with its comparison group's: the rule, and its use by add.

``rank_group`` refuses a group whose runs state different units for the ranked value
(a policy ``unitPointer``), for good, since objects are never deleted. This module owns
the rule (:data:`UNIT_DISAGREES`, :func:`group_units`; and KI217,
:data:`UNITS_ALREADY_MIXED`, the warning for a run joining a group already broken);
:mod:`.group_rules` applies it in the gate and ``verify``, and :func:`units_admitted`
before an add writes anything (a :data:`kistore.store.AdmissionCheck`: ``kistore add``
and ``import`` hand it to :meth:`kistore.store.Store.add` as ``checks=``). It loads no
gate or ``verify`` code, and the index only when a family ranks by a ``unitPointer``, so
``add`` stays light.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..core import layout
from ..core.digest import Digest
from ..core.errors import InputError, KistoreError
from ..core.findings import ERROR, WARNING, Finding, rule
from ..index.records import Record, describe
from ..store import AdmissionWarning
from .policy import RankingPolicy, load_policy
from .ranking import MIXED_GROUP_FIX

if TYPE_CHECKING:  # pragma: no cover - typing only
    from ..core.model import Manifest
    from ..store import Store

UNITS_ALREADY_MIXED = rule(
    "KI217", "group-already-mixes-units", WARNING,
    "nothing in this run to fix: the other runs of its group already state different units "
    f"(committed past a failing gate); {MIXED_GROUP_FIX}")
UNIT_DISAGREES = rule(
    "KI210", "unit-disagrees-with-group", ERROR,
    "in a run you add, state the unit the other runs of its comparison group state (the "
    f"policy's unitPointer), as a string; for a group already mixed, {MIXED_GROUP_FIX}")


def units_admitted(store: Store, manifests: Sequence[Manifest]
                   ) -> list[tuple[Digest, KistoreError]]:
    """KI210 before an add writes: each new run whose unit disagrees with its group's.

    The group is the run's comparison group in the work tree with the runs of the batch
    (the rule :func:`kistore.query.group_rules.units_agree` applies to the same run in
    the gate).

    Args:
        store: the store added to (its work tree).
        manifests: the manifests the add would add (new objects).

    Returns:
        ``(run digest, InputError)`` per such run: JSON Pointer ``/spec`` + the policy's
        ``unitPointer``, the unit the group states, what to do; and ``(run digest,
        AdmissionWarning)`` per run that agrees with some runs of a group already stating
        more than one unit (KI217: added, with a warning). Empty when no family ranks
        with a ``unitPointer`` or the batch holds no run.
    """
    runs = [m for m in manifests if m.kind == "BenchmarkRun"]
    if not runs:
        return []
    policy = policy_of(store, None)
    if policy is None or not any("unitPointer" in e for e in policy.families.values()):
        return []
    # Lazy: the index loads only when a family ranks by a unitPointer (add stays light).
    from ..index.index import open_catalog

    catalog = open_catalog(store, None)
    # no spec parsed ahead: a run's only for its record, and not kept on it (issue 22)
    batch = {str(m.digest): m for m in manifests}

    def lookup(digest: str) -> tuple[str, dict[str, Any]] | None:
        if digest in batch:  # a protocol, workload ... the runs share: parsed once, kept
            return batch[digest].kind, batch[digest].spec
        record = catalog.record(digest)
        return None if record is None else (record.kind, record.spec)

    groups: dict[str, list[Record]] = {}
    for m in runs:
        record = describe(str(m.digest), m.kind, m.name, m.passing_spec(), lookup)
        if record.comparison_key is not None and record.family is not None:
            groups.setdefault(record.comparison_key, []).append(record)
    added = {str(m.digest) for m in runs}
    problems: list[tuple[Digest, KistoreError]] = []
    for key, new in sorted(groups.items()):
        records = [r for r in catalog.group(key) if r.digest not in added] + new
        for finding in group_units(records, policy, added, None):
            digest = layout.digest_from_path(finding.file or "")
            assert digest is not None  # placed on a run's object file (no ``file`` given)
            if finding.rule is UNITS_ALREADY_MIXED:
                problems.append((digest, AdmissionWarning(
                    f"{finding.message}; {UNITS_ALREADY_MIXED.hint} (KI217: `check` warns "
                    "too)", pointer=finding.pointer)))
            else:
                problems.append((digest, InputError(
                    f"{finding.message}; {UNIT_DISAGREES.hint} (KI210: `check` and `verify` "
                    "refuse it)", pointer=finding.pointer, rule_id=UNIT_DISAGREES.id)))
    return problems


def policy_of(store: Store, at: str | None) -> RankingPolicy | None:
    """Return the ranking policy at ``at`` (None: the work tree), or None when unreadable.

    An unreadable policy is KI206's to report; no unit can be judged without it.
    """
    try:
        return load_policy(store.view(at))
    except KistoreError:  # KI206 reports an unreadable policy
        return None


def group_units(records: Sequence[Record], policy: RankingPolicy, added: set[str] | None,
                file: str | None) -> list[Finding]:
    """KI210 for a group whose runs state more than one unit of its ranked value.

    Only the runs that can be compared count (:meth:`~.policy.Comparison.judged_unit`:
    status ``passed``, with a value): a failed run, or one with no value, is never ranked
    and breaks nothing, whatever it states (``rank`` judges the same runs).

    Args:
        records: the group's runs (at least one; each has a ``family``).
        policy: the ranking policy.
        added: the digests of the runs being added, or None to judge the whole group.
        file: where to report a whole group's finding (None: on the first run stating the
            rarest unit, with its JSON Pointer).

    Returns:
        The findings (none when the group agrees, or its family ranks with no
        ``unitPointer``):

        * KI210 per run (an added one, with ``added``) that states a value and, at the
          ``unitPointer``, something other than a string (``1`` for ``"1"``) or nothing
          (no unit, or ``null``): ``rank`` leaves it unranked, "no unit at ...";
        * with ``added``: KI210 per added run whose unit differs from every unit the
          group's other runs state, on its object file; KI217 (a warning) per added run
          that agrees with some of them while they already state more than one unit (the
          group was broken before: ``rank`` fails for it, this run changes nothing);
        * otherwise (or when every unit stated is an added run's): one KI210 naming every
          unit (on ``file``, or on the first run stating the rarest unit).
    """
    first = records[0]
    if first.family is None:  # no protocol, so no group: nothing to judge
        return []
    try:
        comparison = policy.comparison(first.family, first.statistic or "mean")
    except KistoreError:
        return []
    pointer = comparison.unit_pointer
    if pointer is None:
        return []
    units: dict[str, list[str]] = {}
    findings = []
    for r in sorted(records, key=lambda r: r.digest):
        unit = comparison.judged_unit(r.spec)
        if unit is not None:
            units.setdefault(unit, []).append(r.digest)
        stated = comparison.misstated_unit(r.spec)
        if stated is not None and (added is None or r.digest in added):
            found = json.dumps(stated)
            findings.append(Finding(
                UNIT_DISAGREES, f"states {found} at {pointer}, which is no unit: a unit is a "
                "string (\"1\" for a dimensionless value); `rank` leaves this run unranked",
                file=layout.object_path(Digest.from_str(r.digest)), pointer="/spec" + pointer,
                expected="a string", found=found))
        elif comparison.lacks_unit(r.spec) and (added is None or r.digest in added):
            findings.append(Finding(
                UNIT_DISAGREES, f"no unit at {pointer}: a passed run with a value at "
                f"{comparison.metric} states its unit there, a string (\"1\" for a "
                "dimensionless value); `rank` leaves this run unranked",
                file=layout.object_path(Digest.from_str(r.digest)), pointer="/spec" + pointer,
                expected="a string", found="nothing"))
    if len(units) < 2:
        return findings
    listed = "; ".join(f"{u} (e.g. {ds[0]})" for u, ds in sorted(units.items()))
    if added is not None:
        held = {u for u, ds in units.items() if any(d not in added for d in ds)}
        for unit, digests in sorted(units.items()) if held else ():
            for d in digests:
                where = layout.object_path(Digest.from_str(d))
                if d in added and unit not in held:
                    findings.append(Finding(
                        UNIT_DISAGREES, f"states {unit!r} at {pointer}; the other runs of "
                        f"comparison group {first.comparison_key} state "
                        f"{', '.join(map(repr, sorted(held)))}: `rank` would fail for the "
                        "whole group", file=where, pointer="/spec" + pointer,
                        expected=" or ".join(sorted(held)), found=unit))
                elif d in added and len(held) > 1:
                    findings.append(Finding(
                        UNITS_ALREADY_MIXED, f"states {unit!r} at {pointer}, as other runs "
                        f"of comparison group {first.comparison_key} do, but the group "
                        f"already states different units: {listed}; `rank` fails for the "
                        "whole group (with or without this run)", file=where,
                        pointer="/spec" + pointer))
        if held:
            return findings
    rarest = min(units.items(), key=lambda item: (len(item[1]), item[0]))
    where = file or layout.object_path(Digest.from_str(rarest[1][0]))
    return findings + [Finding(
        UNIT_DISAGREES, f"the runs of comparison group {first.comparison_key} state "
        f"different units at {pointer}: {listed}; `rank` fails for the whole group",
        file=where, pointer=None if file else "/spec" + pointer)]
