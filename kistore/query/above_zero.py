"""KI237, a ranked value of 0 or below: the words ``rank`` says and the gate's rule.

A family ranked by a source's own metric (the policy's ``metric``, a JSON Pointer into the
run spec) reads whatever number a run states there. The schemas bound ``timing.latencyNs``
(KI104: at least 1 ns), not a source's metrics, so under a policy ranking
``/sourceNative/metrics/mean`` in ``ms`` a run stating ``-5``, ``0`` or ``-1e9`` ranked #1
in ``rank``, ``show``, ``compare``, the export and the site, through ``add``, ``check``,
pre-receive and ``verify`` without a word (fresh18 F1), and, being the group's median run,
switched KI234 off for its group.

* Ranking (:func:`kistore.query.ranking.rank_group`, the one place ``rank``, ``show``,
  ``compare``, the export and the site rank a group): a value that is not a finite number
  above 0 is not ranked, whatever the unit; the run is listed unranked with
  :func:`not_above_zero_said` (``states -5 ms at /sourceNative/metrics/mean: a value of 0
  or below cannot rank``), and KI234's median run is taken from the runs that rank.
* ``add`` and ``import`` (:func:`above_zero_admitted`), the gate (:func:`values_above_zero`,
  ``check`` and pre-receive) and ``verify`` (:func:`parsed_not_above_zero`): such a value
  under a family whose unit is a time (as KI236 reads a unit: ``ms``, ``ns``, ``seconds``)
  is an error: on each run an add adds or a range puts in a group, and on the policy,
  once per family, when a change starts ranking stored runs by such a value (its metric
  or unit changed), or as the policy stands (``verify``). A unit that is no time
  (``score``, ``x``) may honestly reach 0: such a run is only left unranked, with the words
  above.

Since 2026-12-07 (neg01).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..core import layout
from ..core.canonical import escape_pointer
from ..core.digest import Digest
from ..core.errors import InputError, KistoreError
from ..core.findings import ERROR, Finding, rule
from ..core.numbers import is_number
from ..core.statistics import named
from ..store.run_facts import ranked_spec
from .numbers import value_text
from .policy import MEASURED, Comparison, RankingPolicy, resolve_pointer

if TYPE_CHECKING:  # pragma: no cover - typing only
    from ..core.model import Manifest
    from ..index.catalog import Loaded
    from ..store import Store

NOT_ABOVE_ZERO = rule(
    "KI237", "ranked-time-not-above-zero", ERROR,
    "state the time in the family's unit, above 0 (a kernel takes some time), in a new run "
    "(objects are never edited); a policy ranking stored runs that state one: rank the "
    "family by a metric they state above 0; `rank` never ranks a value of 0 or below")


def not_above_zero(value: Any) -> bool:
    """Return whether a ranked value is a number that is not a finite number above 0.

    Args:
        value: what a run states at its family's metric (parsed JSON).

    Returns:
        True for a number of 0 or below (``-5``, ``0``, ``-0.0``) or not finite; False for
        a finite number above 0 and for anything that is no number (KI221's, KI249's, or
        no value). Raises nothing.
    """
    return is_number(value) and not (math.isfinite(value) and value > 0)


def not_above_zero_said(value: float, unit: str | None, metric: str) -> str:
    """Return why ``rank`` leaves such a run unranked, one wording everywhere.

    Args:
        value: the run's value at ``metric`` (a number, :func:`not_above_zero`).
        unit: its unit (the family's or the run's), or None.
        metric: the family's metric (RFC 6901).

    Returns:
        ``states -5 ms at /sourceNative/metrics/mean: a value of 0 or below cannot rank``.
    """
    shown = value_text(value, unit) + (f" {unit}" if unit else "")
    return f"states {shown} at {metric}: a value of 0 or below cannot rank"


def time_unit(unit: str | None) -> bool:
    """Return whether a unit reads as a time, as KI236 reads a family's declared ``unit``.

    Args:
        unit: the family's (or the run's) unit, or None.

    Returns:
        True for ``ms``, ``ns``, ``us``, ``seconds`` and the like; False for None, a rate
        (``GB/s``) and a unit that says neither (``score``, ``x``).
    """
    if not unit:
        return False
    # Lazy: the unit words are the policy rules'; a gate judging a time only.
    from ..check._policy import unit_reading

    reading = unit_reading(unit)
    return reading is not None and reading[0] == "time"


def run_finding(comparison: Comparison, family: str, spec: Any, digest: str,
                name: str | None) -> Finding | None:
    """KI237 of one run: its value at the family's metric is 0 or below, in a unit of time.

    Args:
        comparison: the family's comparison (source-native).
        family: the family's name.
        spec: the run's spec (parsed JSON).
        digest: the run's digest (``sha256:<hex>``).
        name: its name, or None.

    Returns:
        An error on the run's object file at ``/spec`` + the metric, or None (a number
        above 0, no number, a status other than ``passed``, a unit that is no time).
    """
    if comparison.name == MEASURED or spec.get("status") != "passed":
        return None
    value, unit = comparison.value(spec)
    if value is None or not not_above_zero(value) or not time_unit(unit):
        return None
    shown = value_text(value, unit) + f" {unit}"
    return Finding(
        NOT_ABOVE_ZERO,
        f"{named('BenchmarkRun', name, digest)} states {shown} at {comparison.metric}, the "
        f"value its family {family!r} is ranked by ({layout.POLICY_FILE}), a time: a value "
        f"of 0 or below cannot rank, and `rank` leaves the run unranked",
        file=layout.object_path(Digest.from_str(digest)),
        pointer="/spec" + comparison.metric,
        expected=f"a time above 0 {unit}", found=shown,
        extra={"family": family, "metric": comparison.metric, "value": value, "unit": unit,
               "digest": digest, "name": name})


Runs = Mapping[tuple[str, Any], Iterable[Any]]
"""(comparison key, its :class:`kistore.query.policy.Comparison`) -> the group's runs,
``(digest, name, spec)`` each."""


def family_findings(groups: Runs, families: set[str] | None = None, *,
                    stored: bool) -> list[Finding]:
    """KI237 once per family some of whose stored runs state a time of 0 or below.

    Args:
        groups: the groups judged (:data:`Runs`).
        families: the families judged (a policy change's changed ones); None: every one.
        stored: whether the policy is judged as it stands (``verify``: "ranks") rather than
            as a change makes it (the gate: "would rank").

    Returns:
        One error per such family, on ``store/policy/ranking.json`` at
        ``/families/F/metric``, naming how many runs state such a value and the first by
        digest (``extra``: ``family``, ``metric``, ``runs``: the digests).
    """
    by_family: dict[str, list[Finding]] = {}
    for (_, comparison), runs in groups.items():
        if families is not None and comparison.family not in families:
            continue
        for digest, name, spec in runs:
            found = run_finding(comparison, comparison.family, spec, str(digest), name)
            if found is not None:
                by_family.setdefault(comparison.family, []).append(found)
    findings = []
    for family, said in sorted(by_family.items()):
        said.sort(key=lambda f: f.extra["digest"])
        first = said[0]
        run = named("BenchmarkRun", first.extra["name"], first.extra["digest"])
        metric = first.extra["metric"]
        runs = f"{len(said)} stored runs of it state" if len(said) > 1 else \
            "a stored run of it states"
        findings.append(Finding(
            NOT_ABOVE_ZERO,
            f"family {family!r} {'ranks' if stored else 'would rank'} {metric}, a time in "
            f"{first.extra['unit']}, where {runs} a value of 0 or below (e.g. "
            f"{run} states {first.found} there): a value of 0 or below cannot rank, "
            "and `rank` leaves such runs unranked",
            file=layout.POLICY_FILE, pointer=f"/families/{escape_pointer(family)}/metric",
            expected="runs whose times are above 0", found=first.found,
            extra={"family": family, "metric": metric,
                   "runs": [f.extra["digest"] for f in said]}))
    return findings


def parsed_not_above_zero(store: Store, at: str | None, loaded: Mapping[str, Loaded]
                          ) -> list[Finding]:
    """KI237 for ``verify``: the policy as it stands, every family (:func:`family_findings`).

    A :attr:`kistore.check.audit.FromParse.judge` (with :func:`kistore.query.outlier_rules.
    ranked_keys`, as KI234's): judged from the runs and protocols the contents check
    parsed, no read of its own but the policy.

    Args:
        store: the store (its ranking policy at ``at`` read).
        at: revision, or None for the work tree.
        loaded: digest string -> ``(kind, name, spec)`` of each run and protocol parsed.

    Returns:
        One error per family ranking a time some of whose runs state 0 or below ("ranks").
    """
    # Lazy: verify's judge only.
    from .units import policy_of

    policy = policy_of(store, at)
    if policy is None or not any(e.get("comparison") != MEASURED
                                 for e in policy.families.values()):
        return []
    groups: dict[tuple[str, Comparison], list[tuple[str, str | None, Any]]] = {}
    for digest, (kind, name, spec) in loaded.items():
        if kind != "BenchmarkRun":
            continue
        protocol = loaded.get(str(spec.get("protocolDigest")))
        comparison = _comparison(policy, protocol[2] if protocol is not None
                                 and protocol[0] == "BenchmarkProtocol" else None)
        if comparison is not None:  # grouped by family: the finding is one a family
            groups.setdefault(("", comparison), []).append((digest, name, spec))
    return family_findings(groups, stored=True)


def values_above_zero(store: Store, base: str, head: str, changed: set[str]
                      ) -> list[Finding]:
    """KI237 of a range (``check``, pre-receive): each run it puts in a group, and the policy.

    O(change) for the runs (one record per run the range puts in a group, as KI221's
    :func:`kistore.query.group_rules.values_are_numbers`); a range changing the policy's
    metric or unit of a source-native family also reads HEAD's catalog (O(store), as KI249
    and KI210 do) to judge the stored runs the change starts ranking.

    Args:
        store: the store; its views at ``base`` and ``head`` are read.
        base: the range's base commit id.
        head: its head commit id.
        changed: the paths the range changes.

    Returns:
        One KI237 error per arriving run (on its object) and per family the policy change
        makes rank stored runs of 0 or below (on the policy), in that order.
    """
    # Lazy: the gate's modules load only for a range to judge.
    from .group_rules import _arriving
    from .ranked_values import _name, spec_of
    from .units import policy_of

    policy = policy_of(store, head) if changed else None
    if policy is None or not any(e.get("comparison") != MEASURED
                                 for e in policy.families.values()):
        return []  # a measured latency is at least 1 ns by the schema (KI104)
    added = _arriving(store, base, head, changed)
    view = store.view(head)
    findings: list[Finding] = []
    for digest in sorted(added):
        run = spec_of(view, digest, "BenchmarkRun")
        if run is None:
            continue
        comparison = _comparison(policy, spec_of(view, run.get("protocolDigest"),
                                                 "BenchmarkProtocol"))
        if comparison is None:
            continue
        family = comparison.family
        found = run_finding(comparison, family, run, digest, None)
        if found is not None:  # named: its metadata read only for a run said
            findings.append(run_finding(comparison, family, run, digest,
                                        _name(view, Digest.from_str(digest))) or found)
    return findings + _policy_change(store, base, head, changed, policy, added)


def _policy_change(store: Store, base: str, head: str, changed: set[str], after: RankingPolicy,
                   arriving: set[str]) -> list[Finding]:
    """KI237 of a policy change: the families whose metric or unit it changes, on HEAD's runs."""
    if layout.POLICY_FILE not in changed:
        return []
    # Lazy: a policy change alone reads the catalog.
    from ..index.index import open_catalog
    from .units import policy_of

    before = policy_of(store, base)
    moved = {family for family, entry in after.families.items()
             if entry.get("comparison") != MEASURED and (
                 before is None or any(before.families.get(family, {}).get(k) != entry.get(k)
                                       for k in ("metric", "unit", "unitPointer")))}
    if not moved:
        return []
    groups: dict[tuple[str, Any], list[tuple[str, str | None, Any]]] = {}
    for record in open_catalog(store, head, use_index=False).records(kind="BenchmarkRun"):
        if (record.comparison_key is None or record.family not in moved
                or record.digest in arriving):
            continue
        try:
            comparison = after.comparison(record.family, record.statistic or "mean")
        except KistoreError:  # a family with no metric: KI206's or rank's
            continue
        groups.setdefault((record.comparison_key, comparison), []).append(
            (record.digest, record.name, record.spec))
    return family_findings(groups, moved, stored=False)


def above_zero_admitted(store: Store, manifests: Sequence[Manifest]
                        ) -> list[tuple[Digest, KistoreError]]:
    """KI237 before an add writes: each run it adds stating a time of 0 or below.

    An :data:`kistore.store.AdmissionCheck` of ``kistore add`` and ``import``: the add's own
    runs, under the work tree's ranking policy, each run's protocol in the batch or stored.

    Args:
        store: the store added to (its work tree's policy and protocols are read).
        manifests: the manifests the add would add.

    Returns:
        ``(digest, InputError)`` per such run, at ``/spec`` + the policy's metric, with
        ``rule_id`` KI237 (the add names the file and line the run came from): the add is
        refused, nothing added. Empty when no family ranks by a source's own metric.
    """
    runs = [m for m in manifests if m.kind == "BenchmarkRun"]
    # Lazy: the policy and protocols are read only for an add of runs.
    from .ranked_values import spec_of
    from .units import policy_of

    policy = policy_of(store, None) if runs else None
    if policy is None or not any(e.get("comparison") != MEASURED
                                 for e in policy.families.values()):
        return []
    view = store.view(None)
    batch = {str(m.digest): m for m in manifests}
    problems: list[tuple[Digest, KistoreError]] = []
    for manifest in runs:
        spec = ranked_spec(manifest)  # the add's one parse of the run (issue 22)
        ref = spec.get("protocolDigest")
        protocol = (batch[ref].spec if ref in batch and batch[ref].kind == "BenchmarkProtocol"
                    else spec_of(view, ref, "BenchmarkProtocol"))
        comparison = _comparison(policy, protocol)
        if comparison is None:
            continue
        found = run_finding(comparison, comparison.family, spec, str(manifest.digest), None)
        if found is not None:
            problems.append((manifest.digest, InputError(
                f"states {found.found} at {comparison.metric}, the value its family "
                f"{comparison.family!r} is ranked by ({layout.POLICY_FILE}), a time: a value "
                f"of 0 or below cannot rank; {NOT_ABOVE_ZERO.hint} (KI237: nothing added; "
                "`check` and pre-receive refuse it too)",
                pointer="/spec" + comparison.metric, rule_id=NOT_ABOVE_ZERO.id)))
    return problems


def _comparison(policy: RankingPolicy, protocol: Any) -> Comparison | None:
    """Return how a run's family ranks, from its protocol; None: no family, no metric."""
    family = resolve_pointer(protocol, "/comparability/family")
    if not isinstance(family, str):
        return None  # no protocol stored (KI201) or not one (KI202): nothing ranks it yet
    statistic = resolve_pointer(protocol, "/measurement/primaryStatistic")
    try:
        return policy.comparison(family, statistic if isinstance(statistic, str) else "mean")
    except KistoreError:  # a family with no metric: KI206's or rank's to say
        return None
