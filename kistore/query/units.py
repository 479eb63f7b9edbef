"""KI210, a run whose unit disagrees with its comparison group's: the rule, and its use by add.

``rank_group`` refuses a group whose runs state different units for the ranked value
(a policy ``unitPointer``), for good, since objects are never deleted. This module owns
the rule (:data:`UNIT_DISAGREES`, :func:`group_units`); :mod:`.group_rules` applies it
in the gate and ``verify``, and :func:`units_admitted` before an add writes anything
(a :data:`kistore.store.AdmissionCheck`: ``kistore add`` and ``import`` hand it to
:meth:`kistore.store.Store.add` as ``checks=``). It loads no gate or ``verify`` code,
and the index only when a family ranks by a ``unitPointer``, so ``add`` stays light.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..core import layout
from ..core.digest import Digest
from ..core.errors import InputError, KistoreError
from ..core.findings import ERROR, Finding, rule
from ..index.records import Record, describe
from .policy import RankingPolicy, load_policy

if TYPE_CHECKING:  # pragma: no cover - typing only
    from ..core.model import Manifest
    from ..store import Store

UNIT_DISAGREES = rule(
    "KI210", "unit-disagrees-with-group", ERROR,
    "state the unit the other runs of the comparison group state (the policy's unitPointer), "
    "in a new run object; or change the ranking policy by a reviewed pull request")


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
        ``unitPointer``, the unit the group states, what to do. Empty when no family ranks
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
    batch = {str(m.digest): (m.kind, m.spec) for m in manifests}

    def lookup(digest: str) -> tuple[str, dict[str, Any]] | None:
        if digest in batch:
            return batch[digest]
        record = catalog.record(digest)
        return None if record is None else (record.kind, record.spec)

    groups: dict[str, list[Record]] = {}
    for m in runs:
        record = describe(str(m.digest), m.kind, m.name, m.spec, lookup)
        if record.comparison_key is not None and record.family is not None:
            groups.setdefault(record.comparison_key, []).append(record)
    added = {str(m.digest) for m in runs}
    problems: list[tuple[Digest, KistoreError]] = []
    for key, new in sorted(groups.items()):
        records = [r for r in catalog.group(key) if r.digest not in added] + new
        for finding in group_units(records, policy, added, None):
            digest = layout.digest_from_path(finding.file or "")
            assert digest is not None  # placed on a run's object file (no ``file`` given)
            problems.append((digest, InputError(
                f"{finding.message}; {UNIT_DISAGREES.hint} (KI210: `check` and `verify` "
                "refuse it)", pointer=finding.pointer)))
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

    Args:
        records: the group's runs (at least one; each has a ``family``).
        policy: the ranking policy.
        added: the digests of the runs being added, or None to judge the whole group.
        file: where to report a whole group's finding (None: on a run's object file).

    Returns:
        The findings (none when the group agrees, or its family ranks with no
        ``unitPointer``).

    With ``added``, each added run whose unit differs from the unit the group's other runs
    state is reported on its object file; without, one finding names every unit (on
    ``file``, or on the first run stating the rarest unit).
    """
    first = records[0]
    if first.family is None:  # no protocol, so no group: nothing to judge
        return []
    try:
        comparison = policy.comparison(first.family, first.statistic or "mean")
    except KistoreError:
        return []
    if comparison.unit_pointer is None:
        return []
    units: dict[str, list[str]] = {}
    for r in sorted(records, key=lambda r: r.digest):
        value, unit = comparison.value(r.spec)
        if value is not None and unit is not None:
            units.setdefault(unit, []).append(r.digest)
    if len(units) < 2:
        return []
    pointer = comparison.unit_pointer
    if added is not None:
        held = {u for u, ds in units.items() if any(d not in added for d in ds)}
        findings = []
        for unit, digests in sorted(units.items()):
            for d in digests:
                if d in added and held and unit not in held:
                    findings.append(Finding(
                        UNIT_DISAGREES, f"states {unit!r} at {pointer}; the other runs of "
                        f"comparison group {first.comparison_key} state "
                        f"{', '.join(map(repr, sorted(held)))}: `rank` would fail for the "
                        "whole group", file=layout.object_path(Digest.from_str(d)),
                        pointer="/spec" + pointer, expected=" or ".join(sorted(held)),
                        found=unit))
        if findings or held:
            return findings
    listed = "; ".join(f"{u} (e.g. {ds[0]})" for u, ds in sorted(units.items()))
    rarest = min(units.items(), key=lambda item: (len(item[1]), item[0]))
    where = file or layout.object_path(Digest.from_str(rarest[1][0]))
    return [Finding(UNIT_DISAGREES, f"the runs of comparison group {first.comparison_key} "
                    f"state different units at {pointer}: {listed}; `rank` fails for the "
                    "whole group", file=where, pointer=None if file else "/spec" + pointer)]
