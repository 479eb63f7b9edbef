"""KI218: a run stating another primary statistic than its protocol measures.

A BenchmarkRun states ``spec.timing.primaryStatistic`` (the statistic its value is, e.g.
``median``); its protocol states ``spec.measurement.primaryStatistic``. Ranking reads the
protocol's: a run's comparison key holds the protocol's statistic
(:mod:`kistore.core.comparison`), and a family ranked by measured latency reads the run's
``timing.latencyNs[<the protocol's statistic>]`` (:mod:`kistore.query.ranking`). A run
whose own statistic differs was stored and ranked by the protocol's, silently (new-user
review 2026-12-02). Not refused: the run's numbers may hold the protocol's statistic too,
and a protocol arriving after its runs (``add --allow-dangling``) must not make them
unstorable; it is a warning wherever it is seen.

Pure: the rule and its words. ``verify`` and ``check`` apply it across files
(:func:`kistore.check._rules.check_entries`), ``add`` before it writes
(:func:`kistore.store.statistics.statistics_admitted`).
"""

from __future__ import annotations

from typing import Any

from .findings import WARNING, rule

STATISTIC_DISAGREES = rule(
    "KI218", "statistic-disagrees-with-protocol", WARNING,
    "nothing to change in a stored run (objects are never edited); in a run you add, state "
    "the protocol's measurement.primaryStatistic as timing.primaryStatistic, with that "
    "statistic's value in timing.latencyNs, or point protocolDigest at a protocol measuring "
    "the statistic the run reports")

RUN_POINTER = "/spec/timing/primaryStatistic"
"""Where a run states its statistic (the finding's JSON Pointer, on the run's object)."""


def run_statistic(spec: Any) -> str | None:
    """Return a BenchmarkRun spec's ``timing.primaryStatistic`` when it is a string, else None."""
    timing = spec.get("timing") if isinstance(spec, dict) else None
    value = timing.get("primaryStatistic") if isinstance(timing, dict) else None
    return value if isinstance(value, str) else None


def protocol_statistic(spec: Any) -> str | None:
    """Return a BenchmarkProtocol spec's ``measurement.primaryStatistic`` (a string), else None."""
    measurement = spec.get("measurement") if isinstance(spec, dict) else None
    value = measurement.get("primaryStatistic") if isinstance(measurement, dict) else None
    return value if isinstance(value, str) else None


def statistic_of(kind: Any, spec: Any) -> str | None:
    """Return the primary statistic a manifest states: a run's or a protocol's, else None."""
    if kind == "BenchmarkRun":
        return run_statistic(spec)
    if kind == "BenchmarkProtocol":
        return protocol_statistic(spec)
    return None


def disagreement(run: str, run_statistic: str, protocol: str, protocol_statistic: str
                 ) -> str | None:
    """Say how a run's statistic disagrees with its protocol's, or None when they agree.

    Args:
        run: the run as the message names it (``BenchmarkRun/NAME (sha256:...)``).
        run_statistic: its ``timing.primaryStatistic``.
        protocol: its protocol as the message names it.
        protocol_statistic: the protocol's ``measurement.primaryStatistic``.

    Returns:
        One sentence naming the run, the protocol, both statistics and the one ranking
        uses; None when the two are equal.
    """
    if run_statistic == protocol_statistic:
        return None
    return (f"{run} states timing.primaryStatistic {run_statistic!r} but its protocol "
            f"{protocol} measures {protocol_statistic!r} (measurement.primaryStatistic); "
            f"ranking uses the protocol's {protocol_statistic!r}, not the run's: the run is "
            f"in the protocol's {protocol_statistic!r} comparison group, and a family "
            f"ranked by measured latency reads its timing.latencyNs.{protocol_statistic}")


def named(kind: str, name: str | None, digest: str) -> str:
    """Return ``KIND/NAME (digest)``, or ``KIND digest`` when the name is unknown."""
    return f"{kind}/{name} ({digest})" if name else f"{kind} {digest}"
