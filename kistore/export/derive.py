"""What comparison groups say of each run: ranks by both comparisons, evidence, group rows.

The query layer decides every value here, as ``kistore rank`` does: the catalog of the
exported commit (the derived index of its tree: :mod:`kistore.index`) gives each run's
comparison key and group, :mod:`kistore.query.policy` the comparison a family is ranked by,
:func:`kistore.query.ranking.rank_group` the ranks, and :mod:`kistore.attest.evidence` the
evidence. One group is in memory at a time (:meth:`kistore.index.catalog.Catalog.
run_groups`); what each run gets is kept in the scratch database (:mod:`.scratch`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ..attest.evidence import SOURCE_NATIVE, Evidence
from ..core.errors import InputError
from ..index.records import Record
from ..query.outliers import finite_ratio, ranking_outliers
from ..query.policy import MEASURED, Comparison, RankingPolicy
from ..query.ranking import Ranking, Row, rank_group
from .columns import GROUPS
from .scratch import Scratch


class Context:
    """What every group needs: the policy, evidence, and the names of referenced manifests.

    Args:
        policy: the ranking policy of the exported commit.
        evidence: evidence of every attested run (digest string -> Evidence); any other run
            has none (``source-native``, not withdrawn).
        workloads: workload digest -> ``metadata.name``.
        implementations: implementation digest -> ``metadata.name``.
        architectures: environment digest -> ``hardware.architecture`` (or None).
        no_group: says why a run is in no comparison group, as ``rank`` says it
            (:func:`kistore.query.answers.no_group_reason`: ``its protocol D is not in the
            store; add it``); None: that its protocol or environment is not in the store.
    """

    def __init__(self, policy: RankingPolicy, evidence: Mapping[str, Evidence],
                 workloads: Mapping[str, str], implementations: Mapping[str, str],
                 architectures: Mapping[str, str | None],
                 no_group: Callable[[Record], str] | None = None) -> None:
        self.policy = policy
        self.no_group = no_group
        self.evidence = evidence
        self.workloads = workloads
        self.implementations = implementations
        self.architectures = architectures
        self.group_errors = 0
        """Groups that could not be ranked (their runs disagree in unit)."""


def derive_all(groups: Any, context: Context, scratch: Scratch,
               progress: Callable[[int], None] | None = None) -> int:
    """Rank every group and keep, per run, what its group says; stage the ``groups`` rows.

    Args:
        groups: ``(key, runs)`` pairs as :meth:`kistore.index.catalog.Catalog.run_groups`
            yields them.
        context: the policy, evidence and names.
        scratch: where each run's derived values (``derived``) and each group row go.
        progress: called with the number of runs done since the last call.

    Returns:
        The number of runs seen.
    """
    seen = 0
    for key, runs in groups:
        scratch.put_derived(derive_group(key, runs, context, scratch))
        seen += len(runs)
        if progress is not None:
            progress(len(runs))
    return seen


def derive_group(key: str | None, runs: list[Record], context: Context, scratch: Scratch
                 ) -> list[tuple[str, dict[str, Any]]]:
    """Rank one group by each comparison it has, stage its group rows, return per-run values.

    Args:
        key: the group's comparison key, or None for runs in no group.
        runs: the group's runs.
        context: the policy, evidence and names.
        scratch: where the group's rows are staged.

    Returns:
        ``(digest, values)`` per run; values are named as the ``runs`` columns.
    """
    rankings: dict[str, Ranking] = {}
    errors: dict[str, str] = {}
    chosen: Comparison | None = None
    unplaced = None  # why no comparison ranks the group's runs (fresh05 LOW 8: it was null)
    if key is not None:
        family, statistic = runs[0].family or "", runs[0].statistic or "mean"
        evidence = {r.digest: context.evidence[r.digest] for r in runs
                    if r.digest in context.evidence}
        for comparison in _comparisons(context.policy, family, statistic):
            try:
                rankings[comparison.name] = rank_group(key, runs, comparison, evidence)
            except InputError as e:  # units disagree: the group cannot be ranked so
                errors[comparison.name] = e.message
                context.group_errors += 1
            _stage_group(scratch, key, runs[0], comparison, rankings.get(comparison.name),
                         errors.get(comparison.name), len(runs), context)
        try:
            chosen = context.policy.comparison(family, statistic)
        except InputError as e:
            chosen, unplaced = None, e.message
    placed = {name: {row.record.digest: row for row in ranking.rows(include_excluded=True)}
              for name, ranking in rankings.items()}
    outliers = (ranking_outliers(rankings[chosen.name])  # KI234, as `rank` marks them
                if chosen is not None and chosen.name in rankings else {})
    return [(r.digest, {"unrankedReason": unplaced if key is not None
                        else _no_group(r, context),
                        **_values(r, rankings, placed, errors, chosen, context),
                        "outlierRatio": finite_ratio(outliers[r.digest].ratio)
                        if r.digest in outliers else None}) for r in runs]


def _no_group(record: Record, context: Context) -> str:
    """Say why a run is in no comparison group (``unrankedReason``), as ``rank`` does."""
    return "in no comparison group: " + (
        context.no_group(record) if context.no_group is not None
        else f"its protocol {record.protocol} or environment {record.environment} is not "
             "in the store")


def _comparisons(policy: RankingPolicy, family: str, statistic: str) -> list[Comparison]:
    """Return the measured comparison, and the source-native one where the policy has it."""
    found = [policy.comparison(family, statistic, MEASURED)]
    try:
        found.append(policy.comparison(family, statistic, SOURCE_NATIVE))
    except InputError:  # no source-native metric declared for this family
        pass
    return found


def _values(record: Record, rankings: dict[str, Ranking], placed: dict[str, dict[str, Row]],
            errors: dict[str, str], chosen: Comparison | None, context: Context
            ) -> dict[str, Any]:
    """Return the ``runs`` columns a group decides for one run.

    ``placed``: per comparison, each run's :class:`~kistore.query.ranking.Row` by digest.
    """
    evidence = context.evidence.get(record.digest, Evidence())
    values: dict[str, Any] = {
        "comparisonKey": record.comparison_key,
        "comparison": chosen.name if chosen is not None else None,
        "evidenceLevel": evidence.level, "withdrawn": evidence.withdrawn,
        "communityAttestations": evidence.community,
        "hardware": record.hardware, "family": record.family, "project": record.project,
        "hardwareArchitecture": context.architectures.get(record.environment or ""),
        "workload": context.workloads.get(record.workload or ""),
        "implementation": context.implementations.get(record.implementation or ""),
    }
    for name, prefix in ((MEASURED, "measured"), (SOURCE_NATIVE, "sourceNative")):
        ranking = rankings.get(name)
        row = placed[name].get(record.digest) if ranking is not None else None
        values[f"{prefix}Rank"] = row.rank if row is not None else None
        values[f"{prefix}GroupSize"] = ranking.group_size if ranking is not None else None
        values[f"{prefix}Value"] = row.value if row is not None else None
        if name == SOURCE_NATIVE:
            values["sourceNativeUnit"] = row.unit if row is not None else None
        if chosen is not None and chosen.name == name:
            values.update(rank=values[f"{prefix}Rank"], groupSize=values[f"{prefix}GroupSize"],
                          value=values[f"{prefix}Value"],
                          unit=row.unit if row is not None else None,
                          unrankedReason=errors.get(name) or (row.reason if row else None))
    return values


def _stage_group(scratch: Scratch, key: str, run: Record, comparison: Comparison,
                 ranking: Ranking | None, error: str | None, size: int,
                 context: Context) -> None:
    """Stage one ``groups`` row: a group as ranked by one comparison."""
    obj = run.key_object or {}
    first = ranking.first if ranking is not None else None
    try:
        chosen = context.policy.comparison(comparison.family, run.statistic or "mean").name
    except InputError:
        chosen = None
    workload = obj.get("workloadDigest")
    values = {
        "comparisonKey": key, "comparison": comparison.name,
        "policyComparison": chosen == comparison.name, "family": comparison.family,
        "workloadDigest": workload, "workload": context.workloads.get(workload or ""),
        "hardware": obj.get("hardwareProduct"), "protocolDigest": obj.get("protocolDigest"),
        "primaryStatistic": obj.get("primaryStatistic"), "metric": comparison.metric,
        "order": comparison.order, "unit": comparison.unit,
        "size": ranking.group_size if ranking is not None else None, "runs": size,
        "firstDigest": first.record.digest if first is not None else None,
        "firstValue": first.value if first is not None else None, "error": error,
        "generation": 0,
    }
    scratch.stage(GROUPS.name, "", f"{key} {comparison.name}", f"{key} {comparison.name}",
                  [values[name] for name in GROUPS.names])
