"""KI245: a ranking-policy change that ranks a family by a metric none of its runs holds.

A typo in ``store/policy/ranking.json`` (``/sourceNative/metrics/latency`` where the runs
state ``latency_ms``) leaves every group of the family with nothing ranked: ``rank`` says
"no value at ..." for each run, and until 2026-12-05 the gate said only KI415, info, once a
group (reviewer fresh95 F1: 500 info lines and "ok"). :func:`unheld_metrics` turns that into
one error per family, naming the pointer and the pointers the family's runs do hold. Where
other groups of the family the change touches do rank by the pointer, the change is no typo:
the groups it leaves unranked are a warning (KI246), which a reviewer passes when meant (a
family moved to a source's own metric that some groups' runs do not state). It is judged
from the rankings :func:`kistore.query.impact.trust_and_policy_effects` already makes of
each group a policy change touches (both ends), so it costs no read of its own.
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

    Raises nothing.
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

    Raises nothing.
    """
    findings = []
    for family, (metric, keys, records) in sorted(lost.items()):
        held = held_pointers((r.spec for r in records), metric)
        listed = ", ".join(held[:HELD_SHOWN]) + (
            f", ... ({len(held) - HELD_SHOWN} more)" if len(held) > HELD_SHOWN else "")
        some = family in ranked  # other groups rank by it: no typo, these groups lose out
        said = _held_elsewhere(family, metric, keys) if some else \
            _held_nowhere(family, metric, keys, held)
        findings.append(Finding(
            METRIC_HELD_BY_SOME_GROUPS if some else METRIC_HELD_BY_NO_RUN,
            f"{said} Their runs hold {listed or 'no number near it'}",
            file=POLICY_FILE, pointer=f"/families/{escape_pointer(family)}/metric",
            expected="a pointer the family's runs hold", found=metric,
            extra={"family": family, "metric": metric, "groups": keys, "held": held}))
    return findings


def _held_nowhere(family: str, metric: str, keys: list[str], held: list[str]) -> str:
    """KI245's message but the pointers held: no group holds ``metric`` (a typo?), with a guess."""
    guess = difflib.get_close_matches(metric, held, n=1, cutoff=0.5)
    return (f"family {family} ranks {metric}, which no run of {_groups(keys)} holds: "
            f"{_unranked(metric, keys)}" + (f"; did you mean {guess[0]}?" if guess else "."))


def _held_elsewhere(family: str, metric: str, keys: list[str]) -> str:
    """KI246's message but the pointers held: other groups of the family hold ``metric``."""
    return (f"family {family} ranks {metric}, which no run of {_groups(keys)} holds (the "
            f"runs of its other groups hold it): {_unranked(metric, keys)}.")


def _groups(keys: list[str]) -> str:
    """Name the groups a change unranks: ``N of its comparison groups`` or one."""
    return f"{len(keys)} of its comparison groups" if len(keys) > 1 else "its comparison group"


def _unranked(metric: str, keys: list[str]) -> str:
    """Say what the change does to the groups ``keys``: ranked before, none after."""
    return (f"ranked before this change, {'they' if len(keys) > 1 else 'it'} would rank none "
            f"(e.g. group {keys[0]}; `rank` says \"no value at {metric}\" for every run)")


def held_pointers(specs: Iterable[Any], metric: str) -> list[str]:
    """Return the pointers to numbers the specs hold near ``metric``, sorted.

    Near: under the deepest ancestor of ``metric`` some spec holds as an object
    (``/sourceNative/metrics`` for ``/sourceNative/metrics/latency``), at any depth.

    Args:
        specs: run specs (parsed JSON).
        metric: a JSON Pointer (RFC 6901) none of them holds.

    Returns:
        The pointers (RFC 6901), sorted; empty when no spec holds an object on the way.
        Raises nothing.
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
