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

from collections.abc import Collection
from typing import Any

from .contradictions import quantile
from .findings import WARNING, rule

STATISTIC_DISAGREES = rule(
    "KI218", "statistic-disagrees-with-protocol", WARNING,
    "nothing to change in a stored run (objects are never edited); in a run you add, state "
    "the protocol's measurement.primaryStatistic as timing.primaryStatistic, with that "
    "statistic's value in timing.latencyNs, or point protocolDigest at a protocol measuring "
    "the statistic the run reports")

STATISTIC_UNSTATED = rule(
    "KI252", "primary-statistic-unstated", WARNING,
    "state the statistic ranking reads (the protocol's measurement.primaryStatistic) in "
    "timing.latencyNs, with its value from the same trials, or point protocolDigest at a "
    "protocol measuring a statistic the run states; a stored run is never edited: add the "
    "corrected run as a new object")

LATENCY_POINTER = "/spec/timing/latencyNs"
"""Where a run states its latency statistics (KI252's JSON Pointer, on the run's object)."""

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
            f"ranked by measured latency reads its timing.latencyNs.{protocol_statistic}"
            f"{_one_statistic(run_statistic, protocol_statistic)}")


def _one_statistic(stated: str, read: str, *, primary: bool = True) -> str:
    """Return ``; 'median' is 'p50' ...`` when ``stated`` and ``read`` name one quantile.

    fresh14 F13: a run stating ``median`` under a ``p50`` protocol was left unranked, the
    warnings not saying they are one statistic. ``primary``: the run's
    ``timing.primaryStatistic`` is not ``read`` either, so the fix names it too. Returns
    ``""`` for two names of two statistics (or one name). Raises nothing.
    """
    if stated == read or quantile(stated) is None or quantile(stated) != quantile(read):
        return ""
    also = f", and timing.primaryStatistic {read!r}" if primary else ""
    return (f"; {stated!r} is {read!r} (the {quantile(read):g} quantile, one statistic), but "
            f"ranking reads timing.latencyNs by the key as spelled: state the value under "
            f"the protocol's key, timing.latencyNs.{read}{also}")


def named(kind: str, name: str | None, digest: str) -> str:
    """Return ``KIND/NAME (digest)``, or ``KIND digest`` when the name is unknown."""
    return f"{kind}/{name} ({digest})" if name else f"{kind} {digest}"


def latency_names(spec: Any) -> tuple[str, ...] | None:
    """Return the statistics a passed run's ``timing.latencyNs`` states (KI252), sorted.

    Args:
        spec: a BenchmarkRun's ``spec`` (anything: another shape yields None).

    Returns:
        The statistic names (``str``, the keys of ``latencyNs``), sorted; None for a run
        whose ``status`` is not ``passed`` (never ranked, whatever it states) or that
        states no ``timing.latencyNs`` or an empty one (a run ranked by its source's own
        metric may state none: KI252 judges only a run that states latencies). Raises
        nothing, whatever ``spec`` is.
    """
    if not isinstance(spec, dict) or spec.get("status") != "passed":
        return None
    timing = spec.get("timing")
    latency = timing.get("latencyNs") if isinstance(timing, dict) else None
    return tuple(sorted(latency)) if isinstance(latency, dict) and latency else None


def _rank_reads(statistic: str, *, known: bool = True) -> str:
    """Return what ``rank`` does with a run lacking ``statistic``, true of every family."""
    reads, lists = ("reads", "lists") if known else ("will read", "will list")
    return (f"in a family ranked by measured latency (the default), `rank` {reads} "
            f"timing.latencyNs.{statistic} and {lists} this run unranked (a family the ranking "
            "policy ranks by its source's own metric does not read timing.latencyNs)")


def unstated(run: str, names: Collection[str], run_statistic: str | None, protocol: str,
             protocol_statistic: str | None) -> str | None:
    """KI252: say how a run's ``timing.latencyNs`` lacks the statistic ranking reads.

    Ranking reads the protocol's ``measurement.primaryStatistic`` (KI218), so that is the
    statistic judged; with the protocol not stored, the run's own
    ``timing.primaryStatistic`` (what ranking will read if the protocol agrees).

    Args:
        run: the run as the message names it (``BenchmarkRun/NAME (sha256:...)``).
        names: the statistics its ``timing.latencyNs`` states (:func:`latency_names`).
        run_statistic: its ``timing.primaryStatistic`` (None: none stated).
        protocol: its protocol as the message names it (``BenchmarkProtocol/NAME
            (sha256:...)``, or the bare digest when not stored).
        protocol_statistic: the protocol's ``measurement.primaryStatistic``; None when the
            protocol is not stored.

    Returns:
        One of three sentences (the protocol agreeing with the run's statistic; disagreeing,
        KI218's case, naming the one ranking reads; not stored), or None when
        ``timing.latencyNs`` states the statistic (or nothing is known to judge). Raises
        nothing.
    """
    stated = ", ".join(sorted(names))
    if protocol_statistic is None:
        if run_statistic is None or run_statistic in names:
            return None
        return (f"{run} states timing.primaryStatistic {run_statistic!r} but no "
                f"{run_statistic!r} in timing.latencyNs (it states {stated}); its protocol "
                f"{protocol} is not stored, and ranking reads the statistic the protocol "
                f"measures (measurement.primaryStatistic, KI218): if that is "
                f"{run_statistic!r}, {_rank_reads(run_statistic, known=False)}")
    if protocol_statistic in names:
        return None
    synonym = next((name for name in sorted(names)
                    if _one_statistic(name, protocol_statistic)), None)
    also = "" if synonym is None else _one_statistic(
        synonym, protocol_statistic, primary=run_statistic != protocol_statistic)
    if run_statistic == protocol_statistic:
        return (f"{run} states timing.primaryStatistic {run_statistic!r}, the statistic its "
                f"protocol {protocol} measures, but no {run_statistic!r} in timing.latencyNs "
                f"(it states {stated}): {_rank_reads(protocol_statistic)}{also}")
    return (f"{run} states no {protocol_statistic!r} in timing.latencyNs (it states {stated}), "
            f"the statistic its protocol {protocol} measures (measurement.primaryStatistic): "
            f"ranking reads the protocol's {protocol_statistic!r}, not the run's own "
            f"{run_statistic!r} (KI218): {_rank_reads(protocol_statistic)}{also}")
