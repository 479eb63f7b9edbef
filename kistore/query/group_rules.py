"""Rules that need comparison groups and the ranking policy: checked before a run lands.

``rank_group`` refuses a group whose runs state different units for the ranked value
(a policy ``unitPointer``: each run says its unit): one such run makes ``rank``, ``show``
and ``compare`` fail for every run of its group, for good, since objects are never
deleted. So the gate refuses it when it arrives (KI210), and ``verify`` reports it:

* :func:`units_agree` (a :data:`kistore.check.gate.RANGE_CHECKERS` entry): each run the
  range adds, against the other runs of its group at HEAD; and, when the range changes
  ``store/policy/``, every group of a family whose comparison changed;
* :func:`check_units` (a :data:`kistore.check.audit.CHECKERS` entry): every group.

Registered by :func:`register` (the command line calls it), since the gate and ``verify``
sit below the query layer.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..check.audit import CHECKERS
from ..check.gate import RANGE_CHECKERS
from ..core import layout
from ..core.digest import Digest
from ..core.errors import KistoreError
from ..core.findings import ERROR, Finding, rule
from ..index.index import open_catalog
from .policy import load_policy

if TYPE_CHECKING:  # pragma: no cover - typing only
    from ..store import Store

UNIT_DISAGREES = rule(
    "KI210", "unit-disagrees-with-group", ERROR,
    "state the unit the other runs of the comparison group state (the policy's unitPointer), "
    "in a new run object; or change the ranking policy by a reviewed pull request")


def units_agree(store: Store, base: str, head: str, changed: set[str]) -> list[Finding]:
    """KI210 for each run the range adds whose unit disagrees with its group's (gate).

    Args:
        store: a :class:`kistore.store.Store`.
        base: the range's base commit id.
        head: its head commit id.
        changed: the paths the range changes.

    Returns:
        KI210 findings on the added runs' object files (or on the policy file, when a
        policy change makes an existing group disagree). None when no family of an added
        run ranks with a ``unitPointer``.
    """
    policy_changed = any(p.startswith(layout.POLICY_DIR + "/") for p in changed)
    base_view, head_view = store.view(base), store.view(head)
    added = set()
    for path in changed:
        found = layout.digest_from_path(path)
        if (found is not None and path == layout.object_path(found)
                and not base_view.has_object(found)):
            added.add(str(found))
            # An earlier run whose dangling reference this manifest answers now has a
            # comparison key (a new protocol or environment completes it): its group is
            # checked as if the run were added (review 2026-12-01 F1). Its forward records
            # name it: one directory listing.
            added.update(f"sha256:{leaf}" for leaf in head_view.list_dir(
                layout.forward_dir(found)) if len(leaf) == 64)
    if not added and not policy_changed:
        return []
    policy = _policy(store, head)
    if policy is None or not any("unitPointer" in e for e in policy.families.values()):
        return []

    catalog = open_catalog(store, head, use_index=False)
    findings = []
    groups_done: set[str] = set()
    for digest in sorted(added):
        record = catalog.record(digest)
        if (record is None or record.kind != "BenchmarkRun" or record.comparison_key is None
                or record.comparison_key in groups_done):
            continue
        groups_done.add(record.comparison_key)
        findings += _group_units(catalog.group(record.comparison_key), policy, added,
                                 layout.object_path(Digest.from_str(digest)))
    if policy_changed:
        for key, records in _groups(catalog).items():
            if key not in groups_done:
                findings += _group_units(records, policy, None, layout.POLICY_FILE)
    return findings


def check_units(store: Store, at: str | None = None) -> list[Finding]:
    """KI210 for ``verify``: every comparison group whose runs disagree in unit."""
    policy = _policy(store, at)
    if policy is None or not any("unitPointer" in e for e in policy.families.values()):
        return []

    catalog = open_catalog(store, at, use_index=False)
    findings = []
    for records in _groups(catalog).values():
        findings += _group_units(records, policy, None, None)
    return findings


def register() -> None:
    """Add :func:`units_agree` to the gate and :func:`check_units` to ``verify`` (once)."""
    if units_agree not in RANGE_CHECKERS:
        RANGE_CHECKERS.append(units_agree)
    if check_units not in CHECKERS:
        CHECKERS.append(check_units)


def _policy(store: Store, at: str | None) -> Any:

    try:
        return load_policy(store.view(at))
    except KistoreError:  # KI206 reports an unreadable policy
        return None


def _groups(catalog: Any) -> dict[str, list[Any]]:
    groups: dict[str, list[Any]] = {}
    for record in catalog.records(kind="BenchmarkRun"):
        if record.comparison_key is not None and record.family is not None:
            groups.setdefault(record.comparison_key, []).append(record)
    return groups


def _group_units(records: list[Any], policy: Any, added: set[str] | None,
                 file: str | None) -> list[Finding]:
    """KI210 for a group whose runs state more than one unit of its ranked value.

    With ``added``, each added run whose unit differs from the unit the group's other runs
    state is reported on its object file; without, one finding names every unit (on
    ``file``, or on the first run stating the rarest unit).
    """
    first = records[0]
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
                    "whole group", file=where)]
