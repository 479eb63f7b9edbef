"""KI245: a ranking-policy change that ranks a family by a metric none of its runs holds.

A typo in ``store/policy/ranking.json`` (``/sourceNative/metrics/latency`` where the runs
state ``latency_ms``) leaves every group of the family with nothing ranked: ``rank`` says
"no value at ..." for each run, and until 2026-12-05 the gate said only KI415, info, once a
group (reviewer fresh95 F1: 500 info lines and "ok"). :func:`unheld_metrics` turns that into
one error per family, naming the pointer and the pointers the family's runs do hold. Where
other groups of the family the change touches do rank by the pointer, the change is no typo:
the groups it leaves unranked are a warning (KI246), which a reviewer passes when meant (a
family moved to a source's own metric that some groups' runs do not state). A run that
ranked and ranks nothing at HEAD, in a group that keeps ranking others, is a warning too
(KI247, :func:`unranked_runs`): a run without the new metric beside two that state it left
the ranking with one KI415 line that listed it no more (reviewer break95 M2). All three are
judged from the rankings :func:`kistore.query.impact.trust_and_policy_effects` already
makes of each group a policy change touches (both ends), so they cost no read of their own.
"""

from __future__ import annotations

import difflib
from collections.abc import Collection, Iterable
from typing import Any

from ..core.canonical import escape_pointer
from ..core.findings import ERROR, WARNING, Finding, rule
from ..core.layout import POLICY_FILE
from .policy import resolve_pointer

METRIC_HELD_BY_NO_RUN = rule(
    "KI245", "policy-metric-held-by-no-run", ERROR,
    "rank the family by a pointer its runs hold (the message lists them: a typo?), or leave "
    "the family out of store/policy/ranking.json; `kistore rank` ranks none of its runs")

METRIC_HELD_BY_SOME_GROUPS = rule(
    "KI246", "policy-metric-unheld-by-some-groups", WARNING,
    "state the metric in those groups' runs (a new run: objects are never edited), or rank "
    "the family by a pointer every group holds; if leaving them unranked is meant, say so in "
    "the pull request")

RUNS_UNRANKED = rule(
    "KI247", "policy-unranks-runs", WARNING,
    "state the metric in those runs (a new run: objects are never edited), or rank the "
    "family by a pointer they hold; if leaving them unranked is meant, say so in the pull "
    "request")

RUNS_SHOWN = 8
"""Runs a KI247 message names (the rest are counted; ``extra.runs`` lists each)."""

HELD_SHOWN = 12
"""Pointers a family's runs hold that a KI245 message lists (the rest are counted)."""


def lost_group(records: list[Any], metric: str, before: Any, after: Any) -> bool:
    """Return whether a group ranked runs at BASE and ranks none at HEAD for want of the metric.

    Args:
        records: the group's run records (each with its ``spec``).
        metric: HEAD's policy's JSON Pointer into a run's spec (the ranked value).
        before: the group's :class:`kistore.query.ranking.Ranking` at BASE.
        after: its ranking at HEAD.

    Returns:
        True when BASE ranked some run, HEAD ranks none, and no run of the group holds
        anything at ``metric`` (a run holding a value that is no number is KI221's, not this).
    """
    return bool(before.ranked) and not after.ranked and all(
        resolve_pointer(r.spec, metric) is None for r in records)


def unheld_metrics(lost: dict[str, tuple[str, list[str], list[Any]]],
                   ranked: Collection[str] = ()) -> list[Finding]:
    """Return one KI245 error (or KI246 warning) per family whose groups a change unranks.

    Args:
        lost: family -> (HEAD's metric pointer, the keys of its groups :func:`lost_group`
            holds for, those groups' run records).
        ranked: the families of which some group the change touches ranks runs at HEAD:
            their metric is held (no typo), and their lost groups are KI246's warning.

    Returns:
        Findings on ``store/policy/ranking.json`` at ``/families/FAMILY/metric``, naming the
        family, the pointer, how many groups lose their ranking, the closest pointer the
        runs hold (did-you-mean) and the pointers they hold beside the one asked (numbers,
        under the deepest part of the pointer any run holds); ``extra``: ``family``,
        ``metric``, ``groups``, ``held``.
    """
    findings = []
    for family, (metric, keys, records) in sorted(lost.items()):
        held = held_pointers((r.spec for r in records), metric)
        guess = difflib.get_close_matches(metric, held, n=1, cutoff=0.5)
        said = f"; did you mean {guess[0]}?" if guess else "."
        groups = (f"{len(keys)} of its comparison groups" if len(keys) > 1
                  else "its comparison group")
        some = family in ranked  # other groups rank by it: no typo, these groups lose out
        others = " (the runs of its other groups hold it)" if some else ""
        findings.append(_at_metric(
            METRIC_HELD_BY_SOME_GROUPS if some else METRIC_HELD_BY_NO_RUN, family, metric,
            f"family {family} ranks {metric}, which no run of {groups} holds"
            f"{others}: ranked before this "
            f"change, {'they' if len(keys) > 1 else 'it'} would rank none (e.g. group "
            f"{keys[0]}; `rank` says \"no value at {metric}\" for every run)"
            f"{'.' if some else said} Their runs hold {_listed(held)}",
            "a pointer the family's runs hold", held, groups=keys))
    return findings


def _listed(held: list[str]) -> str:
    """Say the pointers ``held`` (:func:`held_pointers`): the first :data:`HELD_SHOWN`."""
    more = f", ... ({len(held) - HELD_SHOWN} more)" if len(held) > HELD_SHOWN else ""
    return ", ".join(held[:HELD_SHOWN]) + more if held else "no number near it"


def _at_metric(of: Any, family: str, metric: str, message: str, expected: str,
               held: list[str], **extra: Any) -> Finding:
    """Return a finding of rule ``of`` on the family's ``metric`` in the policy file (KI245-7).

    ``extra``: ``family``, ``metric`` and ``held``, then the keyword arguments given.
    """
    return Finding(of, message, file=POLICY_FILE,
                   pointer=f"/families/{escape_pointer(family)}/metric", expected=expected,
                   found=metric, extra={"family": family, "metric": metric, "held": held,
                                        **extra})


def held_pointers(specs: Iterable[Any], metric: str) -> list[str]:
    """Return the pointers to numbers the specs hold near ``metric``, sorted.

    Near: under the deepest ancestor of ``metric`` some spec holds as an object
    (``/sourceNative/metrics`` for ``/sourceNative/metrics/latency``), at any depth.

    Args:
        specs: run specs (parsed JSON).
        metric: a JSON Pointer (RFC 6901) none of them holds.
    """
    specs = list(specs)
    parts = metric.split("/")[1:]
    for depth in range(len(parts) - 1, -1, -1):
        prefix = "".join("/" + p for p in parts[:depth])
        nodes = [resolve_pointer(s, prefix) for s in specs]
        if any(isinstance(n, dict) and n for n in nodes):
            held: set[str] = set()
            for node in nodes:
                _leaves(node, prefix, held)
            return sorted(held)
    return []


def _leaves(node: Any, at: str, into: set[str]) -> None:
    """Add the pointer of each number under ``node`` (booleans are no numbers)."""
    if isinstance(node, dict):
        for key, value in node.items():
            _leaves(value, f"{at}/{escape_pointer(str(key))}", into)
    elif isinstance(node, (int, float)) and not isinstance(node, bool):
        into.add(at)


def dropped_rows(before: Any, after: Any) -> list[Any]:
    """Return the rows of ``after`` that rank nothing there and ranked in ``before``.

    Args:
        before: a group's :class:`kistore.query.ranking.Ranking` at one end.
        after: the same group's at the other end.

    Returns:
        ``after``'s unranked rows (each with its ``reason``: ``no value at /POINTER``, a
        value that is no number, no unit) whose run is ranked in ``before``, in ``after``'s
        order. A run withdrawn or of too weak evidence is ``excluded``, not listed here.
    """
    was = {row.record.digest for row in before.ranked}
    return [row for row in after.unranked if row.record.digest in was]


def unranked_runs(dropped: dict[str, tuple[str, list[tuple[str, Any, Any]]]]
                  ) -> list[Finding]:
    """Return one KI247 warning per family a policy change unranks runs of, in ranked groups.

    Args:
        dropped: family -> (HEAD's metric pointer, ``(group key, row at BASE, row at HEAD)``
            per run that ranked at BASE and ranks nothing at HEAD, in a group that keeps
            ranking others: :func:`dropped_rows`).

    Returns:
        Findings on ``store/policy/ranking.json`` at ``/families/FAMILY/metric``, naming
        up to :data:`RUNS_SHOWN` runs (``BenchmarkRun/NAME (sha256:..., #1 in group ...
        before; now no value at /POINTER)``), how many, and the numbers they hold near the
        pointer (:func:`held_pointers`); ``extra``: ``family``, ``metric``, ``runs`` (each
        ``digest``, ``name``, ``group``, ``rank`` at BASE, ``reason`` at HEAD), ``held``.
    """
    findings = []
    for family, (metric, rows) in sorted(dropped.items()):
        named = [f"BenchmarkRun/{now.record.name} ({now.record.digest}, #{was.rank} in group "
                 f"{key} before; now {now.reason})" for key, was, now in rows[:RUNS_SHOWN]]
        more = f"; ... ({len(rows) - RUNS_SHOWN} more)" if len(rows) > RUNS_SHOWN else ""
        held = held_pointers((now.record.spec for _, _, now in rows), metric)
        many = len(rows) > 1
        findings.append(_at_metric(
            RUNS_UNRANKED, family, metric,
            f"family {family} ranks {metric}: {len(rows)} run{'s' if many else ''} that "
            f"ranked before this change would rank nothing, "
            f"{'their groups' if many else 'its group'} ranking others (`rank` shows "
            f"{'them' if many else 'it'} as \"-\"): {'; '.join(named)}{more}. "
            f"{'They hold' if many else 'It holds'} {_listed(held)}",
            "a pointer every ranked run holds", held, runs=[
                {"digest": now.record.digest, "name": now.record.name, "group": key,
                 "rank": was.rank, "reason": now.reason} for key, was, now in rows]))
    return findings
