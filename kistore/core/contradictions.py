"""Runs that contradict themselves or their source: rules KI222-KI224, KI228 (docs/rules.md).

Pure (no I/O). A BenchmarkRun's ``status`` decides whether it is ranked, and its source's
metrics are ranked as stored, so a run that says ``passed`` while its own correctness
check (``correctness.passed: false``) or its source's status (``INCORRECT_NUMERICAL``)
says it failed, or that states a SOL score of 7.5 on a scale that ends at 1, would rank
first on nothing but its word (review r75 F9). :func:`run_contradictions` says what is
wrong; ``add`` and ``import`` refuse such a run, ``check`` and ``verify`` report it as an
error, and ``rank`` leaves a stored one out, saying why.

* **KI222** (``run-status-contradicts-itself``): ``status`` is ``passed`` and
  ``correctness.passed`` is ``false``; or ``sourceNative.status`` is a trace status
  (:data:`TRACE_STATUSES`, the vocabulary of FlashInfer Trace and SOL-ExecBench, the
  sources of :data:`TRACE_SOURCES`) that means another ``status`` than the run's.
* **KI223** (``metric-out-of-range``): a metric of :data:`METRIC_BOUNDS` lies outside its
  source's scale (a SOL-ExecBench SOL score outside [0, 1]), or is no number at all
  (``true``, ``"0.99"``, an object, ``null``: such a run could never rank; review r88 F3).
* **KI224** (``metric-keys-differ-only-in-case``): two keys of ``sourceNative.metrics``
  are equal after Unicode case folding (``LATENCY_MS`` beside ``latency_ms``). SQL
  engines (DuckDB, Spark, Trino) name columns and struct fields case-insensitively, so
  the two are one export column: DuckDB refused the run's JSON Lines row (review r78 F8).
  Within one run only; across runs ``kistore export`` writes such keys apart
  (:mod:`kistore.export.columns`, :func:`metric_columns`).
* **KI228** (``latency-statistics-contradict``): two statistics of ``timing.latencyNs``
  that no set of trials can give together (:func:`latency_contradictions`): ``min`` above
  another statistic, ``max`` below one, or a lower percentile above a higher one (review
  r88 F4: ``min`` 20,000,000 > ``mean`` 13,634,148 > ``max`` 10 ranked); a ``std`` above
  what ``min``, ``max`` and ``timing.trials`` allow (:func:`std_bound`, each read to no
  fewer than :data:`ROUNDED_DIGITS` significant digits, :func:`resolution`), or above 0 of
  one trial; one trial's statistics that are not one value (:func:`single_trial_differs`;
  new users warn01, stat04); two names of one quantile at two values (``p50`` and
  ``median``: :func:`_one_quantile_differs`; fresh13 F5-F6); a ``mean``, ``geomean``,
  ``median`` or ``std`` no ``trials`` latencies give (:func:`trials_contradictions`,
  fresh14 F1), ``min`` and ``median`` read under either name (``p0``, ``p50``:
  :func:`one_spelling`; fresh16 F1b, F1).

Beside them, not a contradiction and never refused: **KI230** (``latency-below-floor``, a
warning of ``check`` and ``verify``), a latency statistic below :data:`LATENCY_FLOOR_NS`
(:func:`implausible_latencies`), which no GPU kernel launch reaches: the value reads as
milliseconds or microseconds written as nanoseconds (reviewer r86 F14, "ms-as-ns": a run of
``mean`` 13.6 "ns", a 13.6 ms kernel, was accepted silently and ranked first).
"""

from __future__ import annotations

import json
import math
import re
from functools import lru_cache
from typing import Any, NamedTuple

from .canonical import escape_pointer
from .claims import WITHDRAW_FIRST
from .errors import shorten
from .findings import WARNING, rule
from .numbers import is_number

TRACE_STATUSES = {
    "PASSED": "passed",
    "INCORRECT": "incorrect", "INCORRECT_SHAPE": "incorrect",
    "INCORRECT_NUMERICAL": "incorrect", "INCORRECT_DTYPE": "incorrect",
    "RUNTIME_ERROR": "runtime-error",
    "COMPILE_ERROR": "compile-error",
    "TIMEOUT": "timeout",
}
"""A trace's ``evaluation.status`` (FlashInfer Trace and SOL-ExecBench, which derives from it)
-> BenchmarkRun ``spec.status``; the raw value is kept in ``sourceNative.status``."""

TRACE_SOURCES = frozenset({"flashinfer-trace", "sol-execbench"})
"""The ``sourceNative.source`` values whose ``sourceNative.status`` is a trace status."""

SOL_SCORE = (0.0, 1.0, "1 is the speed-of-light bound, 0.5 the scoring baseline")
"""SOL-ExecBench's SOL score ``S = 1 / (1 + (T_k - T_sol) / (T_b - T_sol))`` (per workload,
and its arithmetic mean over workloads): 1.0 is the speed-of-light bound T_sol itself, 0.5
the scoring baseline T_b, and a slower kernel tends to 0 (SOURCE.md of
/work/shared/data/sol-execbench; every published row and local run lies in [0.1, 1.0])."""

METRIC_BOUNDS: dict[tuple[str, str], tuple[float, float, str]] = {
    ("sol-execbench", "sol_score"): SOL_SCORE,
    ("sol-execbench", "median_latency_sol_score"): SOL_SCORE,
}
"""``(sourceNative.source, metric key) -> (lowest, highest, what the scale means)``, both
bounds included (KI223)."""


STATISTIC_SLACK = 1e-9
"""Relative difference two latency statistics may be "out of order" by (KI228): a source
computing a mean of equal trials in floating point may land an ulp below their minimum."""

_PERCENTILE = re.compile(r"p([0-9]{1,2})")
_SPREAD = frozenset({"std"})
"""Statistics that are no latency a trial took (a spread), so no order binds them."""


LATENCY_FLOOR_NS = 100
"""The latency (ns) below which a stated statistic is implausible for a GPU kernel (KI230).

The shortest a GPU timer reports for a kernel is about 1 us: an empty kernel takes ~1-3 us
from launch to end by CUDA events, and ~1 us of GPU time by CUPTI (Nsight Systems'
kernel durations); a launch from the host alone costs microseconds. 100 ns is ten times
below that, so no measured kernel falls under it, and a hundred times below the shortest
latency of the real data (10,160 ns, a SOL-ExecBench mean). Above it, the schema's own floor
is 1 ns. A value in [1, 100) "ns" is a kernel of 1-100 ms or us written in the wrong
unit; one from 100 ms up (100 "ns") passes unseen, as any floor lets a slower one pass."""


class Contradiction(NamedTuple):
    """One thing a run states that its other fields or its source's scale deny.

    Attributes:
        rule: ``KI222``, ``KI223``, ``KI224`` or ``KI228`` (``KI230``, a warning, from
            :func:`implausible_latencies`).
        pointer: JSON Pointer of the value at fault, in the object (``/spec/status``).
        message: one sentence for people: what the run says, what denies it.
        short: a few words for ``rank``'s reason column.
    """

    rule: str
    pointer: str
    message: str
    short: str


def run_contradictions(spec: Any) -> list[Contradiction]:
    """Return what a BenchmarkRun's ``spec`` states against itself or its source's scale.

    Args:
        spec: a BenchmarkRun's ``spec`` (anything: a value that is not a dict, or a field
            of the wrong type, is the schema's to report, and yields nothing here).

    Returns:
        The contradictions, KI222 first, then KI223, then KI224 (one per key that folds to
        an earlier key's case, in code-point order of the keys), then KI228
        (:func:`latency_contradictions`); empty for a run that makes sense.
    """
    if not isinstance(spec, dict):
        return []
    found: list[Contradiction] = []
    status = spec.get("status")
    correctness = spec.get("correctness")
    if status == "passed" and isinstance(correctness, dict) \
            and correctness.get("passed") is False:
        found.append(Contradiction(
            "KI222", "/spec/status",
            "the run says status 'passed' but its correctness check says it failed "
            "(/spec/correctness/passed is false): a run that fails its correctness check "
            "is not passed, and is never ranked",
            "status passed, correctness.passed false"))
    native = spec.get("sourceNative")
    native = native if isinstance(native, dict) else {}
    source, raw = native.get("source"), native.get("status")
    if source in TRACE_SOURCES and isinstance(raw, str) and raw in TRACE_STATUSES \
            and isinstance(status, str) and TRACE_STATUSES[raw] != status:
        found.append(Contradiction(
            "KI222", "/spec/status",
            f"the run says status {status!r} but its source's status {raw!r} "
            f"(/spec/sourceNative/status, {source}) means {TRACE_STATUSES[raw]!r}",
            f"status {status}, source status {raw}"))
    metrics = native.get("metrics")
    if isinstance(source, str) and isinstance(metrics, dict):
        for key, value in metrics.items():
            bounds = METRIC_BOUNDS.get((source, key))
            if bounds is None:
                continue
            low, high, meaning = bounds
            if not is_number(value):
                found.append(Contradiction(
                    "KI223", f"/spec/sourceNative/metrics/{escape_pointer(key)}",
                    f"{source}'s {key} is a number in [{low:g}, {high:g}] ({meaning}); the "
                    f"run states {_json_type(value)}, which can never rank",
                    f"{key} {_shown(value)} is not a number"))
            elif not low <= value <= high:
                found.append(Contradiction(
                    "KI223", f"/spec/sourceNative/metrics/{key}",
                    f"{source}'s {key} lies in [{low:g}, {high:g}] ({meaning}); the run "
                    f"states {value!r}, which no run can score",
                    f"{key} {value!r} outside [{low:g}, {high:g}]"))
    if isinstance(metrics, dict):
        found += _case_collisions(metrics)
    timing = spec.get("timing")
    latency = timing.get("latencyNs") if isinstance(timing, dict) else None
    if isinstance(latency, dict):
        found += latency_contradictions(latency, trials_of(timing))
    return found


def trials_of(timing: Any) -> int | None:
    """Return a run's ``timing.trials`` when it is a count (an integer, 1 or more), else None.

    Args:
        timing: a BenchmarkRun's ``spec.timing`` (anything: another shape yields None).

    Returns:
        The number of trials the run states its statistics over (an ``int``, 1 or more);
        None when it states none (or a value the schema refuses: ``true``, ``0``, ``2.5``).
        Raises nothing, whatever ``timing`` is.
    """
    trials = timing.get("trials") if isinstance(timing, dict) else None
    return trials if isinstance(trials, int) and not isinstance(trials, bool) \
        and trials >= 1 else None


def _json_type(value: Any) -> str:
    """Return ``value`` after JSON's word for its type (``a boolean true``, ``null``)."""
    if value is None:
        return "null"
    word = ("a boolean" if isinstance(value, bool) else "a string" if isinstance(value, str)
            else "an object" if isinstance(value, dict) else "an array"
            if isinstance(value, list) else "a value")
    return f"{word} {_shown(value)}"


def _shown(value: Any) -> str:
    """Return ``value`` as JSON text, cut to 40 characters (a message quotes it)."""
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 40 else text[:37] + "..."


def _rank(name: str) -> float | None:
    """Return where statistic ``name`` lies among a sample's order statistics (a quantile).

    ``min`` 0, ``pNN`` NN/100, ``median`` 0.5, ``max`` 1; None for a statistic that is
    no quantile (``mean``, ``geomean``: only ``min`` and ``max`` bound them) or a spread.
    """
    if name == "min":
        return 0.0
    if name == "max":
        return 1.0
    if name == "median":
        return 0.5
    matched = _PERCENTILE.fullmatch(name)
    return int(matched.group(1)) / 100 if matched else None


def quantile(name: str) -> float | None:
    """Return the quantile statistic ``name`` is, or None (``mean``, ``geomean``, ``std``).

    ``median`` and ``p50`` 0.5, ``min`` and ``p0`` 0, ``p5`` and ``p05`` 0.05, ``max`` 1.
    Two names of one quantile are one statistic to KI228, but ranking reads
    ``timing.latencyNs`` by the key as spelled (fresh14 F13). Raises nothing.
    """
    return _rank(name)


def latency_contradictions(latency: dict[str, Any], trials: int | None = None
                           ) -> list[Contradiction]:
    """KI228: ``timing.latencyNs`` statistics no set of trials gives together.

    Every statistic that is a latency (all but ``std``) lies in [``min``, ``max``], and
    quantiles are ordered: ``pA`` <= ``pB`` for A < B, ``median`` (the 0.5 quantile) among
    them, each with :data:`STATISTIC_SLACK` relative slack; two names of one quantile
    (``p50`` and ``median``, ``p0`` and ``min``, ``p5`` and ``p05``) are one value, within
    :data:`ONE_TRIAL_SLACK_NS` and that relative slack. ``geomean`` is at most ``mean``;
    with ``trials`` n >= 2, ``mean`` and ``geomean`` lie within what n trials from ``min``
    to ``max`` give, of 2 trials ``median`` is ``mean``, and ``std`` is at least
    ``(max - min) / sqrt(2n)`` (:func:`trials_contradictions`, :func:`_std_too_small`;
    fresh14 F1); ``min``, ``median`` and ``max`` together bound ``mean`` and ``geomean``
    of n >= 3 trials, pin them and ``std`` of 3 (:func:`_std_of_three`), and the median of
    2 is ``(min + max) / 2`` (fresh15 F1); these bounds read ``p0`` (``p00``) as ``min``
    and ``p50`` as ``median`` (:func:`one_spelling`; fresh16 F1b, F1). Of one trial
    (``trials`` 1) every latency statistic is that trial's value
    (:func:`single_trial_differs`), and ``std`` is 0; with
    ``min`` and ``max`` stated, ``std`` is bounded by their range (:func:`std_bound`, as
    :func:`_std_contradictions` reads it).
    Values that are not numbers are the schema's.

    Args:
        latency: a run's ``spec.timing.latencyNs`` (statistic name -> nanoseconds).
        trials: the run's ``spec.timing.trials`` (:func:`trials_of`); None: not stated.

    Returns:
        With ``trials`` 1 and latency statistics differing beyond their rounding, the one
        contradiction of :func:`single_trial_differs` (at ``/spec/timing/latencyNs``: it
        names every pair out of order, which is not said again); otherwise one
        contradiction per pair out of order (the lower statistic's name first in the pair
        as a sample orders them), at the pointer of the one that should be lower, its
        message naming both pointers and values; then one per pair of names of one quantile
        whose values differ (:func:`_one_quantile_differs`: ``p50`` beside ``median``,
        ``p0`` beside ``min``; fresh13 F6); then :func:`trials_contradictions` (not of one
        trial). Then, at ``/spec/timing/latencyNs/std``, a ``std`` above 0 of one trial,
        above :func:`std_bound`, or below :func:`_std_too_small`'s bound, or else, of 3
        trials, not the std of ``min``, ``median`` and ``max`` (:func:`_std_of_three`).
    """
    values = {k: v for k, v in latency.items() if k not in _SPREAD
              and is_number(v)}
    found = []
    single = single_trial_differs(values) if trials == 1 else None
    if single is not None:
        found.append(single)
    elif len(values) >= 2:  # most runs state one statistic: nothing to order
        for low, high in _ordered_pairs(tuple(sorted(values))):
            a, b = values[low], values[high]
            if a <= b:  # in order: a - b <= 0 is never above the slack
                continue
            if a - b > STATISTIC_SLACK * max(abs(a), abs(b)):
                found.append(out_of_order(low, a, high, b))
        for first, second in _same_quantile_pairs(tuple(sorted(values))):
            differ = _one_quantile_differs(first, values[first], second, values[second])
            if differ is not None:
                found.append(differ)
    bounded, names = one_spelling(values)
    if single is None:
        found += trials_contradictions(bounded, trials, names)
    spread = latency.get("std")
    if is_number(spread):
        said = _std_contradictions(spread, bounded, trials, names)
        if single is None and trials is not None and trials >= 2:
            said += _std_too_small(spread, bounded, trials, names)
        found += said or (_std_of_three(spread, bounded, names)
                          if single is None and trials == 3 else [])
    return found


SPELLINGS = {"min": ("min", "p0", "p00"), "median": ("median", "p50")}
"""The names of one statistic the bounds of KI228 read as ``min`` and ``median`` (fresh16
F1b, F1: a run stating ``p0`` for ``min`` or ``p50`` for ``median`` escaped every bound),
the first stated read (two stated must be one value: :func:`_one_quantile_differs`).
``max`` has one name (``p100`` is no statistic name the schema admits)."""


def one_spelling(values: dict[str, float]) -> tuple[dict[str, float], dict[str, str]]:
    """Return ``values`` with ``min`` and ``median`` under those names, however stated.

    Each name of :data:`SPELLINGS` takes the value of its first spelling the run states
    (``p0`` 1000 gives ``min`` 1000), so the bounds of n trials, of ``min``, ``median`` and
    ``max`` together and of ``std`` read the statistic whatever its name (fresh16 F1b:
    ``{"p0": 1000, "max": 100000000, "mean": 1000000}`` of 3 trials was added and ranked).

    Args:
        values: a run's latency statistics (``std`` left out), name -> ns, numbers only.

    Returns:
        ``(bounded, names)``: a copy of ``values`` with ``min`` and ``median`` set when any
        of their spellings is stated, and, for each so set, the spelling read (``{"min":
        "p0"}``), which the messages name. Raises nothing.
    """
    bounded, names = dict(values), {}
    for name, spellings in SPELLINGS.items():
        stated = next((spelled for spelled in spellings if spelled in values), None)
        if stated is not None:
            bounded[name], names[name] = values[stated], stated
    return bounded, names


def _stated_range(values: dict[str, float], names: dict[str, str], median: bool = False
                  ) -> tuple[str, str]:
    """Return how a KI228 message names ``min``, ``max`` (and ``median``) as the run spells them.

    Args:
        values: the statistics read (:func:`one_spelling`), holding ``min`` and ``max``
            (and ``median`` when ``median``).
        names: the spelling of each (:func:`one_spelling`); a name absent is its own.
        median: whether the median is named too.

    Returns:
        ``(long, short)``: ``from min 1000 ns to max 4000 ns with median 1000 ns
        (/spec/timing/latencyNs/min, /spec/timing/latencyNs/max,
        /spec/timing/latencyNs/median)`` and ``min 1000, median 1000, max 4000``, with
        ``p0`` for ``min`` where the run wrote ``p0``. Raises ``KeyError`` for a value absent.
    """
    low, middle = names.get("min", "min"), names.get("median", "median")
    shown = [low, "max"] + ([middle] if median else [])
    with_median = f" with {middle} {values['median']!r} ns" if median else ""
    short_median = f", {middle} {values['median']!r}" if median else ""
    pointers = ", ".join(_pointer(name) for name in shown)
    return (f"from {low} {values['min']!r} ns to max {values['max']!r} ns{with_median} "
            f"({pointers})",
            f"{low} {values['min']!r}{short_median}, max {values['max']!r}")


def single_trial_differs(values: dict[str, float]) -> Contradiction | None:
    """KI228 of a run of one trial whose latency statistics are not one value.

    Of one trial, ``min``, ``max``, ``mean``, ``median``, ``geomean`` and every
    percentile are that trial's latency. They contradict when the highest and the lowest
    stated differ by more than :data:`ONE_TRIAL_SLACK_NS` plus :data:`STATISTIC_SLACK`
    relative to the highest.

    Args:
        values: a run's latency statistics (``std`` left out), name -> ns, numbers only.

    Returns:
        The :class:`Contradiction` (KI228) at ``/spec/timing/latencyNs``, naming every
        stated statistic with its value in ns, lowest first (:func:`_lowest_first`: of equal
        values ``min`` first, ``max`` last, the others by name); None when they can be one
        value (or fewer than two are stated). Raises nothing for a dict of numbers (a value
        that is not one raises ``TypeError`` in the comparison; callers pass
        :func:`kistore.core.numbers.is_number` values only).
    """
    if len(values) < 2:
        return None
    low, high = min(values.values()), max(values.values())
    if high - low <= ONE_TRIAL_SLACK_NS + STATISTIC_SLACK * max(abs(low), abs(high)):
        return None
    stated = ", ".join(f"{k} {values[k]!r}" for k in _lowest_first(values))
    return Contradiction(
        "KI228", LATENCY_POINTER,
        f"the run states 1 trial (/spec/timing/trials) and latencyNs {stated} "
        f"({LATENCY_POINTER}): the min, max, mean, median, geomean and percentiles of one "
        f"trial are all its one latency, and these differ by more than rounding gives "
        f"({ONE_TRIAL_SLACK_NS:g} ns, and a relative {STATISTIC_SLACK:g})",
        f"latencyNs {stated} differ with 1 trial")


def _lowest_first(values: dict[str, float]) -> list[str]:
    """Return the names of ``values`` lowest value first, as a sample orders its statistics.

    Of equal values ``min`` comes first and ``max`` last, the others by name between them
    (fresh13 F7: ``mean 1000, min 1000, max 2000`` was printed as "lowest first").
    """
    return sorted(values, key=lambda k: (values[k], k != "min", k == "max", k))


def _one_quantile_differs(first: str, a: float, second: str, b: float
                          ) -> Contradiction | None:
    """KI228 of two names of one quantile stated at two values (fresh13 F6).

    ``median`` and ``p50`` are the 0.5 quantile, ``min`` and ``p0`` (``p00``) the 0
    quantile, ``p5`` and ``p05`` the 0.05 quantile: one value, which a source writes twice
    (rounded two ways at most, as one trial's statistics: :data:`ONE_TRIAL_SLACK_NS` plus
    :data:`STATISTIC_SLACK` relative to the larger).

    Args:
        first: the earlier name in code-point order (``median``).
        a: its value (ns).
        second: the later name (``p50``), where the finding is.
        b: its value (ns).

    Returns:
        The contradiction at ``second``'s pointer, naming both pointers and values (the
        lower value first); None when they can be one value.
    """
    if abs(a - b) <= ONE_TRIAL_SLACK_NS + STATISTIC_SLACK * max(abs(a), abs(b)):
        return None
    pointer = f"/spec/timing/latencyNs/{escape_pointer(second)}"
    low, high = sorted(((a, first), (b, second)))
    stated = " and ".join(f"{k} {v!r} ns (/spec/timing/latencyNs/{escape_pointer(k)})"
                          for v, k in (low, high))
    return Contradiction(
        "KI228", pointer,
        f"the run states {stated}, two names of one quantile (the {_rank(second):g} "
        f"quantile of the trials), which is one value: these differ by more than rounding "
        f"gives ({ONE_TRIAL_SLACK_NS:g} ns, and a relative {STATISTIC_SLACK:g})",
        f"latencyNs {low[1]} {low[0]!r} and {high[1]} {high[0]!r} differ, one quantile")


ONE_TRIAL_SLACK_NS = 1.0
"""Nanoseconds two latency statistics of one trial may differ by (KI228): the one latency
written as whole nanoseconds, rounded one way for one statistic and another way (down, to
nearest) for the next. Beyond it, :data:`STATISTIC_SLACK` relative (floating point)."""


def resolution(value: float) -> float:
    """Return the nanoseconds a written ``min``, ``max`` or ``std`` may have been rounded to.

    A whole number of nanoseconds ending in zeros may be rounded at its last nonzero digit,
    but to no fewer than three significant digits: KernelBench, the coarsest source kistore
    imports, publishes milliseconds to three significant digits (36.8 ms, 36,800,000 ns,
    resolution 100,000 ns; 2.6 ms, 2,600,000 ns, 10,000 ns: "2.60"), and 21 of its 750 rows
    state ``min`` = ``max`` beside a ``std`` above 0, the trials' spread lost in the
    rounding. A value of four digits or more keeps its first three as stated (1,000 ns is
    read as 1.00e3, rounded to 10 ns, not to 1,000: fresh13 F5, ``min`` = ``max`` = 1,000 of
    two trials beside a ``std`` of 700 ns passed). Any other value (13,634,148 ns, 700,
    10.5 ns, 0) is taken as rounded to the nanosecond: 1. Only the bound of ``std``
    (:func:`std_bound`) reads it, so no value is refused for rounding.

    Args:
        value: a statistic in nanoseconds (a JSON number: ``int`` or ``float``).

    Returns:
        The resolution in nanoseconds, a ``float``: 10**k for a whole nonzero ``value`` of d
        digits ending in z zeros, k = min(z, d - 3) (1 when k <= 0); else 1.0 (also for NaN
        and infinities). Raises nothing for a number (``TypeError`` for another type, from
        :func:`math.isfinite`).
    """
    if not math.isfinite(value) or value == 0 or value != int(value):
        return 1.0
    whole, k = abs(int(value)), 0
    coarsest = len(str(whole)) - ROUNDED_DIGITS  # keep ROUNDED_DIGITS significant digits
    while k < coarsest and whole % 10 == 0:
        whole //= 10
        k += 1
    return float(10 ** k)


ROUNDED_DIGITS = 3
"""The fewest significant digits a source writes a latency statistic with (KI228's reading
of ``min``, ``max`` and ``std``, :func:`resolution`): KernelBench's milliseconds to three
significant digits, the coarsest of the sources kistore imports (SOL-ExecBench and
FlashInfer Trace write ``latency_ms`` to the nanosecond, and state no ``min``, ``max`` or
``std``)."""


LATENCY_POINTER = "/spec/timing/latencyNs"
"""Where a run states its latency statistics (a KI228 finding on them all)."""

STD_POINTER = "/spec/timing/latencyNs/std"
"""Where a run states its latency spread (KI228 of a ``std`` too large)."""


def std_bound(low: float, high: float, trials: int | None) -> float:
    """Return the largest std ``trials`` latencies in [``low``, ``high``] can have (ns).

    Popoviciu's inequality bounds the population variance of values in an interval of
    width w = ``high - low`` by w**2 / 4 (half of them at each end); the sample variance is
    n / (n - 1) times the population's, so ``w / 2 * sqrt(n / (n - 1))`` bounds the sample
    std and, being larger, the population std too: a run may state either. With the count
    unknown, its largest value (n = 2), ``w / sqrt(2)``, bounds every count.

    Args:
        low: the lowest latency any trial took (ns, a ``float``).
        high: the highest (ns).
        trials: the number of trials, 2 or more; None: not known.

    Returns:
        The bound in nanoseconds, a ``float`` (0 when ``low`` >= ``high``).

    Raises:
        ZeroDivisionError: ``trials`` is 1 (n - 1 is 0); the one caller,
            :func:`_std_contradictions`, judges a run of one trial before asking.
    """
    width = max(high - low, 0.0)
    if trials is None:
        return width / math.sqrt(2)
    return width / 2 * math.sqrt(trials / (trials - 1))


def _std_contradictions(spread: float, values: dict[str, float], trials: int | None,
                        names: dict[str, str]) -> list[Contradiction]:
    """KI228 of a stated ``std`` no set of trials with the run's other statistics has.

    Of one trial (``trials`` 1), any ``std`` above 0: one value deviates from itself by
    nothing, whatever else the run states. With ``min`` and ``max`` stated, a ``std`` above
    :func:`std_bound` of the range they may stand for (each widened by half its
    :func:`resolution`), less half the ``std``'s own resolution, beyond
    :data:`STATISTIC_SLACK` relative to the larger of ``min`` and ``max``.

    Args:
        spread: the run's ``latencyNs.std`` (ns).
        values: its latency statistics (``std`` left out), as :func:`one_spelling` reads them.
        trials: its ``timing.trials``; None: not stated.
        names: the spellings :func:`one_spelling` read, which the message names.

    Returns:
        The contradiction at ``/spec/timing/latencyNs/std``, or nothing.
    """
    if trials == 1:
        if spread <= 0:
            return []
        return [Contradiction(
            "KI228", STD_POINTER,
            f"the run states std {spread!r} ns ({STD_POINTER}) of 1 trial "
            "(/spec/timing/trials): one value deviates from itself by nothing, so the std "
            "of one trial is 0",
            f"latencyNs std {spread!r} > 0 with 1 trial")]
    low, high = values.get("min"), values.get("max")
    if low is None or high is None:
        return []
    bound = std_bound(low - resolution(low) / 2, high + resolution(high) / 2, trials)
    if spread - resolution(spread) / 2 - bound <= STATISTIC_SLACK * max(abs(low), abs(high)):
        return []
    shown = f"[{low - resolution(low) / 2:,.6g}, {high + resolution(high) / 2:,.6g}] ns"
    over = f"{trials} trials" if trials is not None else "any number of trials"
    stated, short = _stated_range(values, names)
    formula = ("(max - min) / 2 x sqrt(n / (n - 1)), which bounds the sample std and so the "
               "population std too" if trials is not None else
               "(max - min) / sqrt(2), the sample std's bound (max - min) / 2 x "
               "sqrt(n / (n - 1)) at its largest, n = 2, as no /spec/timing/trials is stated")
    return [Contradiction(
        "KI228", STD_POINTER,
        f"the run states std {spread!r} ns ({STD_POINTER}) of trials {stated}: "
        f"{over} in {shown} (min and max each read as rounded to their last nonzero "
        f"digit, but to no fewer than {ROUNDED_DIGITS} significant digits, and at least 1 ns) "
        f"have a std of at most {bound:,.6g} ns ({formula})",
        f"latencyNs std {spread!r} > {bound:.6g} ({short}, {over})")]


def out_of_order(low: str, a: float, high: str, b: float) -> Contradiction:
    """Return KI228 of statistic ``low`` stated at ``a`` ns above ``high`` at ``b`` ns.

    Args:
        low: the statistic that should be the lower (``min``, ``p50``).
        a: its value.
        high: the one it exceeds (``max``, ``p90``).
        b: that one's value.

    Returns:
        The contradiction, at ``low``'s pointer, its message naming both pointers.
    """
    pointer = f"/spec/timing/latencyNs/{escape_pointer(low)}"
    other = f"/spec/timing/latencyNs/{escape_pointer(high)}"
    return Contradiction(
        "KI228", pointer,
        f"the run states {low} {a!r} ns ({pointer}) above {high} {b!r} ns "
        f"({other}): no set of trials has a {low} above its {high}",
        f"latencyNs {low} {a!r} > {high} {b!r}")


@lru_cache(maxsize=1024)
def _ordered_pairs(names: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    """Return every ``(low, high)`` of ``names`` (sorted) that :func:`_ordered` binds.

    In the order :func:`latency_contradictions` reports them (``low``, then ``high``, each
    in the order of ``names``). Cached: runs state a handful of statistic names
    (``min``, ``max``, ``mean``, ``median``, ``pNN``), so ``verify`` of 100,000 runs asked
    :func:`_ordered` (and its regular expression) twelve times a run for the same answer.

    Args:
        names: the statistic names of a ``timing.latencyNs``, sorted.

    Returns:
        The ordered pairs; empty when none are bound (``mean`` beside ``geomean``).
    """
    return tuple((low, high) for low in names for high in names
                 if low != high and _ordered(low, high))


def implausible_latencies(spec: Any) -> list[Contradiction]:
    """KI230: the latency statistics of a run below :data:`LATENCY_FLOOR_NS` (a warning).

    Not among :func:`run_contradictions` (which ``add`` refuses and ``rank`` leaves out): a
    run may be what it says, and its value is ranked as stated; ``check`` and ``verify``
    warn, so a reviewer asks.

    Args:
        spec: a BenchmarkRun's ``spec`` (anything: what is not a number is the schema's).

    Returns:
        One finding for the run (none when every statistic is at or above the floor), at
        ``/spec/timing/latencyNs/S`` of the lowest such statistic ``S``, naming each
        statistic below the floor (``std``, a spread, is none) with its value and what it
        reads as in milliseconds.
    """
    timing = spec.get("timing") if isinstance(spec, dict) else None
    latency = timing.get("latencyNs") if isinstance(timing, dict) else None
    if not isinstance(latency, dict):
        return []
    low = sorted((v, k) for k, v in latency.items() if k not in _SPREAD
                 and is_number(v)
                 and v < LATENCY_FLOOR_NS)
    if not low:
        return []
    stated = ", ".join(f"{k} {v!r}" for v, k in low)
    value, name = low[0]
    return [Contradiction(
        "KI230", f"/spec/timing/latencyNs/{escape_pointer(name)}",
        f"the run states latencyNs {stated} (nanoseconds), below {LATENCY_FLOOR_NS} ns, "
        f"which no GPU kernel launch reaches (the shortest kernel a GPU timer reports takes "
        f"about 1 us): a value in milliseconds or microseconds written as nanoseconds reads "
        f"so ({value!r} ms is {value * 1_000_000:,.0f} ns)",
        f"latencyNs {name} {value!r} < {LATENCY_FLOOR_NS} ns")]


def _ordered(low: str, high: str) -> bool:
    """Whether statistic ``low`` can never exceed ``high`` (``min`` <= ``mean``, p50 <= p90).

    Two names of one quantile (``min`` and ``p0``) are not ordered but one value:
    :func:`_same_quantile_pairs`.
    """
    a, b = _rank(low), _rank(high)
    if a is not None and a == b:
        return False
    if low == "min" or high == "max":
        return True
    return a is not None and b is not None and a < b


@lru_cache(maxsize=1024)
def _same_quantile_pairs(names: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    """Return every ``(first, second)`` of ``names`` (sorted) that name one quantile.

    ``median`` and ``p50``, ``min`` and ``p0``, ``p5`` and ``p05``: equal :func:`_rank`,
    ``first`` before ``second`` in code-point order. Cached as :func:`_ordered_pairs`.

    Args:
        names: the statistic names of a ``timing.latencyNs``, sorted.

    Returns:
        The pairs; empty for most runs, which state each quantile once.
    """
    ranks = [(name, _rank(name)) for name in names]
    return tuple((first, second) for i, (first, a) in enumerate(ranks)
                 for second, b in ranks[i + 1:] if a is not None and a == b)


def _case_collisions(metrics: dict[str, Any]) -> list[Contradiction]:
    """KI224: each metric key equal, after :meth:`str.casefold`, to a key before it.

    Args:
        metrics: a run's ``sourceNative.metrics`` (keys are strings: JSON).

    Returns:
        One contradiction per key after the first of each case-folded class (keys in
        code-point order), at that key's JSON Pointer (RFC 6901).
    """
    first: dict[str, str] = {}
    found = []
    for key in sorted(metrics):
        kept = first.setdefault(key.casefold(), key)
        if kept != key:
            found.append(Contradiction(
                "KI224", f"/spec/sourceNative/metrics/{escape_pointer(key)}",
                f"the run states metrics {kept!r} and {key!r}, keys that differ only in "
                "letter case: DuckDB, Spark and Trino read column and field names without "
                "case, so an export cannot tell them apart (DuckDB reads the wrong CSV "
                "column and refuses the JSON Lines row)",
                f"metrics {kept!r} and {key!r} differ only in case"))
    return found


SAME_NUMBER_SOURCES = ("sol-execbench", "flashinfer-trace")
"""Sources whose importers write ``timing.latencyNs.mean`` and
``sourceNative.metrics.latency_ms`` from one number (docs/importers.md): the mean is
``ms_to_ns(latency_ms)``, scaled by 10**6 in decimal arithmetic, with no rounding."""

UNITS_SLACK = 1e-9
"""Relative difference KI233 allows between ``latencyNs.mean`` and ``latency_ms`` x 10**6,
beyond :data:`UNITS_SLACK_NS`. The importers round nothing (decimal scaling: ``13.634148``
ms is ``13634148`` ns), so the two agree to the last digit; this covers a writer scaling in
binary floating point (a few ulps, ~1e-16 relative each), and is :data:`STATISTIC_SLACK`'s.
A unit slip is a factor of 1,000 or more."""

UNITS_SLACK_NS = 1.0
"""Absolute difference (ns) KI233 allows: the sources publish ``latency_ms`` to six
decimals, one nanosecond (``13.634148``), so a writer deriving one value from the other
and rounding to that resolution (``round(mean / 1e6, 6)``, as ``bench/generate.py`` does)
is off by at most half of it."""


LATENCY_UNITS_DISAGREE = rule(
    "KI233", "latency-units-disagree", WARNING,
    "state the mean latency in nanoseconds and latency_ms in milliseconds, both from one "
    "measurement, as the source's importer does (a run not committed yet: `kistore drop "
    "DIGEST` and add the corrected file; a committed one stays, objects are never edited: "
    f"add the corrected run as a new object{WITHDRAW_FIRST})")


def _finite(value: Any) -> float | None:
    """Return a JSON number that is finite as a float, else None (``true`` is no number)."""
    return float(value) if is_number(value) and math.isfinite(value) else None


_JSON_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
"""A string that spells a JSON number (RFC 8259 §6): ``"0.057"``, ``"1e-3"``; not
``" 1"``, ``"nan"``, ``"1_000"``."""


def _stated_ms(value: Any) -> tuple[float | None, str]:
    """Return a stated ``latency_ms`` as a number, and how it was stated (reviewer r90 F8).

    Returns:
        ``(number, "")`` for a finite JSON number; ``(number, "a string")`` for a string
        spelling one (``"0.057"``); ``(None, what)`` for anything else, ``what`` naming it
        (``"true"``, ``"an array"``, ``"the string 'fast'"``); ``(None, "")`` for null.
    """
    if value is None:
        return None, ""
    if isinstance(value, str):
        if _JSON_NUMBER.fullmatch(value) and math.isfinite(float(value)):
            return float(value), "a string"
        return None, f"the string {shorten(value)!r}"
    number = _finite(value)
    if number is not None:
        return number, ""
    kinds = {bool: "true" if value is True else "false", list: "an array", dict: "an object"}
    return None, kinds.get(type(value), f"{value!r}")


def latency_units_disagree(spec: Any) -> Contradiction | None:
    """KI233 (a warning): a run's two statements of one latency disagree.

    For a run claiming a source of :data:`SAME_NUMBER_SOURCES`, its
    ``timing.latencyNs.mean`` (ns) and its ``sourceNative.metrics.latency_ms`` (ms) come
    from one number; when they differ by more than :data:`UNITS_SLACK` (relative), one of
    them was written in another unit or changed (reviewer r89 F3: 13,634,148 ns beside
    99,999 ms, added and verified without a word).

    Args:
        spec: a BenchmarkRun's ``spec`` (any shape: other shapes yield None).

    Returns:
        The contradiction (rule ``KI233``, at ``/spec/timing/latencyNs/mean``, naming both
        values and their ratio), or None when they agree or either is absent (null).
        ``latency_ms`` stated as a string that spells a number (``"0.057"``) is judged as
        that number; stated as anything else but a number (``true``, ``[1]``, ``"fast"``)
        it is the contradiction, at ``/spec/sourceNative/metrics/latency_ms``, whatever the
        mean (reviewer r90 F8: both were added without a word).
    """
    if not isinstance(spec, dict):
        return None
    native, timing = spec.get("sourceNative"), spec.get("timing")
    if not isinstance(native, dict) or native.get("source") not in SAME_NUMBER_SOURCES \
            or not isinstance(timing, dict):
        return None
    metrics, latency = native.get("metrics"), timing.get("latencyNs")
    if not isinstance(metrics, dict) or not isinstance(latency, dict):
        return None
    stated_ms, stated_mean = metrics.get("latency_ms"), latency.get("mean")
    (ms, stated_as), mean = _stated_ms(stated_ms), _finite(stated_mean)
    if ms is None and stated_as:
        return Contradiction(
            "KI233", "/spec/sourceNative/metrics/latency_ms",
            f"the run states latency_ms as {stated_as} (/spec/sourceNative/metrics/latency_ms), "
            f"not a number: {native['source']}'s importer writes the latency in milliseconds "
            "as a JSON number",
            f"latency_ms {stated_as}, not a number (KI233)")
    if ms is None or mean is None:
        return None
    as_ns = ms * 1e6
    if abs(mean - as_ns) <= UNITS_SLACK_NS + UNITS_SLACK * max(abs(mean), abs(as_ns)):
        return None
    ratio = f"{as_ns / mean:.6g}x" if mean else "a mean of 0"
    shown_ms = f"{stated_ms!r} (as {stated_as})" if stated_as else f"{stated_ms}"
    return Contradiction(
        "KI233", "/spec/timing/latencyNs/mean",
        f"the run states a mean latency of {stated_mean} ns (/spec/timing/latencyNs/mean) and "
        f"latency_ms {shown_ms} (/spec/sourceNative/metrics/latency_ms), "
        f"which is {as_ns:.10g} "
        f"ns ({ratio} the mean): {native['source']}'s importer writes both from one number, "
        "so one was written in another unit or changed",
        f"latencyNs mean {stated_mean} vs latency_ms {stated_ms} (KI233)")


ROUNDED_READING = (f"each value read as rounded to its last nonzero digit, but to no fewer "
                   f"than {ROUNDED_DIGITS} significant digits, and at least 1 ns")
"""How KI228's bounds read a stated value (:func:`resolution`), said in their messages."""


def _half(value: float) -> float:
    """Return half the :func:`resolution` of ``value`` (ns).

    How far a written value may lie from the statistic it rounds. Raises nothing.
    """
    return resolution(value) / 2


def _ns(value: float) -> str:
    """Return a bound in nanoseconds for a message.

    Whole with commas from 10,000 ns (``33,830,000``), else to 6 significant digits
    (``7.07107``). Raises nothing.
    """
    return f"{value:,.0f}" if abs(value) >= 1e4 else f"{value:,.6g}"


def _pointer(name: str) -> str:
    """Return the JSON Pointer of latency statistic ``name`` in a run."""
    return f"/spec/timing/latencyNs/{escape_pointer(name)}"


def trials_contradictions(values: dict[str, float], trials: int | None,
                          names: dict[str, str] | None = None) -> list[Contradiction]:
    """KI228 of a ``mean``, ``geomean`` or ``median`` no ``trials`` latencies give (fresh14 F1).

    Each bound holds for every set of n positive trials, and each stated value is read as
    rounded (:func:`resolution`, as :func:`_std_contradictions` reads ``min`` and ``max``),
    beyond :data:`STATISTIC_SLACK` relative to the larger side, so rounded real data is
    never refused:

    * the arithmetic and geometric means (AM-GM): ``geomean`` <= ``mean``, any count;
    * with n = ``trials`` >= 2 and ``min`` <= ``mean`` <= ``max`` stated (one trial at
      each end, the others anywhere between): ``min + (max - min) / n <= mean <=
      max - (max - min) / n``, and ``min**((n-1)/n) x max**(1/n) <= geomean <=
      min**(1/n) x max**((n-1)/n)`` (a ``mean`` or ``geomean`` outside [``min``, ``max``]
      is the pair out of order, said already);
    * of 2 trials, ``median`` (their midpoint) = ``mean``. ``p50`` is not held to it: a
      source may compute it by nearest rank, the lower trial. With no ``mean`` stated,
      ``median`` = ``(min + max) / 2`` (:func:`_median_of_two`; fresh15 F1);
    * with n >= 3 and ``min``, ``median`` and ``max`` stated, a ``mean`` or ``geomean``
      within the bounds of ``min`` and ``max`` alone is held to the tighter bounds the
      three give together (:func:`_beside_median`, which derives them; of 3 trials, the
      trials are those three; fresh15 F1).

    Args:
        values: a run's latency statistics (``std`` left out), name -> ns, numbers only,
            ``min`` and ``median`` however spelled (:func:`one_spelling`).
        trials: its ``timing.trials`` (:func:`trials_of`); None: not stated. A run of one
            trial is :func:`single_trial_differs`'s, not judged here.
        names: the spellings :func:`one_spelling` read (``{"min": "p0"}``), which the
            messages name; None: each its own. A median spelled ``p50`` is not held to the
            2-trial rules (a source may take the lower trial, by nearest rank).

    Returns:
        The contradictions, in this order: ``mean`` out of its range (of ``min`` and
        ``max``, else of the three with ``median``), ``geomean`` likewise, ``geomean``
        above ``mean``, ``median`` not the ``mean`` of 2 trials (or, with no ``mean``, not
        their midpoint); each at the pointer of the statistic it names first. Raises
        nothing for numbers.
    """
    found: list[Contradiction] = []
    names = names or {}
    low, high = values.get("min"), values.get("max")
    counted = trials is not None and trials >= 2
    if counted and low is not None and high is not None and low < high:
        n = float(trials)  # type: ignore[arg-type]
        least, most = low - _half(low), high - _half(high)  # the lowest they may stand for
        upper_low, upper_high = low + _half(low), high + _half(high)
        mean = values.get("mean")
        if mean is not None and low <= mean <= high:
            floor = least + (most - least) / n
            ceiling = upper_high - (upper_high - upper_low) / n
            said = _out_of_range("mean", mean, floor, ceiling, values, trials, (
                "the mean of n trials lies in [min + (max - min) / n, max - (max - min) / n] "
                "(a trial at each end, the others anywhere between)"), names)
            found += said or _beside_median("mean", mean, values, int(n), names)
        geomean = values.get("geomean")
        if geomean is not None and low <= geomean <= high and least > 0:
            floor = least ** ((n - 1) / n) * most ** (1 / n)
            ceiling = upper_low ** (1 / n) * upper_high ** ((n - 1) / n)
            said = _out_of_range("geomean", geomean, floor, ceiling, values, trials, (
                "the geometric mean of n trials lies in [min^((n - 1) / n) x max^(1 / n), "
                "min^(1 / n) x max^((n - 1) / n)] (a trial at each end, the others anywhere "
                "between)"), names)
            found += said or _beside_median("geomean", geomean, values, int(n), names)
    mean, geomean = values.get("mean"), values.get("geomean")
    if mean is not None and geomean is not None and geomean - _half(geomean) - (
            mean + _half(mean)) > STATISTIC_SLACK * max(abs(mean), abs(geomean)):
        found.append(Contradiction(
            "KI228", _pointer("geomean"),
            f"the run states geomean {geomean!r} ns ({_pointer('geomean')}) above mean "
            f"{mean!r} ns ({_pointer('mean')}): the geometric mean of positive trials is "
            f"never above their arithmetic mean (the AM-GM inequality), and these differ by "
            f"more than rounding gives ({ROUNDED_READING})",
            f"latencyNs geomean {geomean!r} > mean {mean!r}"))
    # of 2 trials a p50 may be the lower trial (nearest rank): only `median` is the midpoint
    median = values.get("median") if names.get("median", "median") == "median" else None
    if trials == 2 and mean is not None and median is not None and abs(median - mean) - (
            _half(median) + _half(mean)) > STATISTIC_SLACK * max(abs(mean), abs(median)):
        found.append(Contradiction(
            "KI228", _pointer("median"),
            f"the run states median {median!r} ns ({_pointer('median')}) and mean {mean!r} "
            f"ns ({_pointer('mean')}) of 2 trials (/spec/timing/trials): the median of two "
            f"trials is their midpoint, which is their mean, and these differ by more than "
            f"rounding gives ({ROUNDED_READING})",
            f"latencyNs median {median!r} != mean {mean!r} of 2 trials"))
    elif trials == 2 and mean is None and median is not None and low is not None \
            and high is not None and low <= median <= high:
        found += _median_of_two(median, values, names)
    return found


def _median_of_two(median: float, values: dict[str, float], names: dict[str, str]
                   ) -> list[Contradiction]:
    """KI228 of a ``median`` of 2 trials not their midpoint, ``(min + max) / 2`` (fresh15 F1).

    Of two trials ``min`` and ``max`` are the trials, and the median their midpoint; with a
    ``mean`` stated, :func:`trials_contradictions` holds the median to it (and the mean to
    the midpoint), so this is asked only when none is (a family ranking by ``median`` would
    rank ``{"min": 1000, "max": 2000, "median": 1100}`` by 1,100 ns). Each value read as
    rounded (:func:`_half`), then :data:`STATISTIC_SLACK` relative to the larger.

    Args:
        median: the run's ``latencyNs.median`` (ns), within [``min``, ``max``] (a value
            outside is the pair out of order, said already).
        values: its latency statistics, holding ``min`` and ``max`` (:func:`one_spelling`).
        names: the spellings read (``{"min": "p0"}``), which the message names.

    Returns:
        The contradiction at ``/spec/timing/latencyNs/median``, or nothing. Raises nothing.
    """
    low, high = values["min"], values["max"]
    floor = (low - _half(low) + high - _half(high)) / 2
    ceiling = (low + _half(low) + high + _half(high)) / 2
    slack = STATISTIC_SLACK * max(abs(low), abs(high), abs(median))
    if floor - (median + _half(median)) <= slack and median - _half(median) - ceiling <= slack:
        return []
    stated, short = _stated_range(values, names)
    return [Contradiction(
        "KI228", _pointer("median"),
        f"the run states median {median!r} ns ({_pointer('median')}) of 2 trials "
        f"(/spec/timing/trials) {stated}: the median of two "
        f"trials is their midpoint, (min + max) / 2, here [{_ns(floor)}, {_ns(ceiling)}] ns "
        f"({ROUNDED_READING})",
        f"latencyNs median {median!r} != {_ns((low + high) / 2)} ({short}, 2 trials)")]


def _beside_median(name: str, value: float, values: dict[str, float], trials: int,
                   names: dict[str, str]) -> list[Contradiction]:
    """KI228 of a ``mean`` or ``geomean`` no n >= 3 trials of that min, median, max give.

    fresh15 F1: 3 trials of min 1000, median 1000 and max 4000 are 1000, 1000 and 4000,
    whose mean is 2000, yet mean 2500 was added.

    Derivation. Sort the n trials, x_1 <= ... <= x_n: x_1 = ``min`` (a), x_n = ``max``
    (b), and m = ``median``. Let h = ceil(n / 2) - 1 and l = floor(n / 2) (h + l = n - 1).

    * n odd, n = 2k + 1 (h = l = k): x_(k+1) = m, whatever the definition. Below it
      x_2..x_k (k - 1 trials) lie in [a, m], above it x_(k+2)..x_(n-1) in [m, b]. The sum
      is least with the first at a and the others at m: k a + k m + b = l a + h m + b;
      greatest with the first at m and the others at b: a + h m + l b.
    * n even, n = 2k >= 4 (h = k - 1, l = k): kistore reads the median as the midpoint
      (x_k + x_(k+1)) / 2, but a source may have taken the lower or the upper middle trial
      (nearest rank): the bounds hold for all three. Upper middle x_(k+1) = m: the sum is
      least with x_2..x_k at a and x_(k+2)..x_(n-1) at m: k a + (k - 1) m + b =
      l a + h m + b. Lower middle x_k = m, symmetrically, greatest a + h m + l b. The
      midpoint's sums lie between: least (k - 1) a + k m + b (x_k = x_(k+1) = m), which is
      the former plus m - a >= 0; greatest a + k m + (k - 1) b, the latter less b - m.
    * n = 3 (h = l = 1): the trials are a, m and b, and both bounds are (a + m + b) / 3.

    So (l a + h m + b) / n <= mean <= (a + h m + l b) / n, and, the same sums of
    logarithms, (a^l m^h b)^(1 / n) <= geomean <= (a m^h b^l)^(1 / n): each bound is
    reached by the trials named (sound and, for odd n, tight). Each of a, m and b is read as
    rounded (:func:`_half`): the floor from the lowest values they may stand for, the
    ceiling from the highest; the stated value too, then :data:`STATISTIC_SLACK`. Of 2
    trials the median is the midpoint (:func:`_median_of_two`), not judged here.

    Args:
        name: ``mean`` or ``geomean``.
        value: its stated value (ns), within the bounds ``min`` and ``max`` alone give (the
            caller asks only then: a value out of those is said by them).
        values: the run's latency statistics (``std`` left out), numbers only, ``min`` and
            ``median`` however spelled (:func:`one_spelling`).
        trials: its ``timing.trials``.
        names: the spellings read (``{"median": "p50"}``), which the message names.

    Returns:
        The contradiction at ``name``'s pointer, or nothing (also with no ``median``, a
        median outside [``min``, ``max``], fewer than 3 trials, or a ``min`` that may stand
        for 0 or less, which no geometric mean reads). Raises nothing for numbers.
    """
    low, high, median = values.get("min"), values.get("max"), values.get("median")
    if trials < 3 or low is None or high is None or median is None \
            or not low <= median <= high:
        return []
    h, lo = (trials + 1) // 2 - 1, trials // 2
    down = [v - _half(v) for v in (low, median, high)]
    up = [v + _half(v) for v in (low, median, high)]
    if name == "mean":
        floor = (lo * down[0] + h * down[1] + down[2]) / trials
        ceiling = (up[0] + h * up[1] + lo * up[2]) / trials
        why = ("the mean of n trials lies in [(l x min + h x median + max) / n, (min + h x "
               "median + l x max) / n]")
    elif down[0] > 0:
        floor = math.exp((lo * math.log(down[0]) + h * math.log(down[1])
                          + math.log(down[2])) / trials)
        ceiling = math.exp((math.log(up[0]) + h * math.log(up[1])
                            + lo * math.log(up[2])) / trials)
        why = ("the geometric mean of n trials lies in [(min^l x median^h x max)^(1 / n), "
               "(min x median^h x max^l)^(1 / n)]")
    else:
        return []
    return _out_of_range(name, value, floor, ceiling, values, trials, (
        f"{why}, l = floor(n / 2) and h = ceil(n / 2) - 1 (a trial at each end, the "
        f"median's, and the others at the median or an end; of 3 trials exactly min, median "
        f"and max)"), names, median=True)


def _out_of_range(name: str, value: float, floor: float, ceiling: float,
                  values: dict[str, float], trials: int | None, why: str,
                  names: dict[str, str], median: bool = False) -> list[Contradiction]:
    """KI228 of ``name`` stated at ``value`` ns outside [``floor``, ``ceiling``] (ns).

    ``floor`` and ``ceiling`` are the bounds of the range ``min`` and ``max`` of ``values``
    (and ``median``, when the bounds read it, ``median`` True: :func:`_beside_median`) may
    stand for, rounded; ``value`` is read as rounded too (:func:`_half`), then
    :data:`STATISTIC_SLACK` relative to ``max``. ``why`` says the bound in words; the
    message names each statistic as the run spells it (``names``, :func:`one_spelling`).
    Returns the contradiction at ``name``'s pointer, or nothing. Raises nothing.
    """
    low, high = values["min"], values["max"]
    slack = STATISTIC_SLACK * max(abs(low), abs(high), abs(value))
    if floor - (value + _half(value)) <= slack and value - _half(value) - ceiling <= slack:
        return []
    side, bound = ("<", floor) if value < floor else (">", ceiling)
    stated, short = _stated_range(values, names, median)
    return [Contradiction(
        "KI228", _pointer(name),
        f"the run states {name} {value!r} ns ({_pointer(name)}) of {trials} trials "
        f"(/spec/timing/trials) {stated}: {why}, here "
        f"[{_ns(floor)}, {_ns(ceiling)}] ns ({ROUNDED_READING})",
        f"latencyNs {name} {value!r} {side} {_ns(bound)} ({short}, {trials} trials)")]


def _std_of_three(spread: float, values: dict[str, float], names: dict[str, str]
                  ) -> list[Contradiction]:
    """KI228 of a ``std`` of 3 trials not that of ``min``, ``median`` and ``max``.

    fresh15 F1: three trials are exactly those three values, so their std is known.

    A run may state the population std or the sample std (sqrt(3 / 2) times it), so either
    is accepted. Each of the three values is read as rounded (:func:`_half`): the std is
    the length of the trials' deviations from their mean (a projection, which shortens no
    difference) over sqrt(n) (population) or sqrt(n - 1) (sample), so values each within d_i
    of the true trials give a std within sqrt(sum d_i^2) / sqrt(3) (sqrt(2), sample) of the
    true one. Accepted: from the population std less that, to the sample std plus that, the
    stated ``std`` read as rounded too, then :data:`STATISTIC_SLACK` relative to ``max``.

    Args:
        spread: the run's ``latencyNs.std`` (ns).
        values: its latency statistics (``std`` left out), numbers only, ``min`` and
            ``median`` however spelled (:func:`one_spelling`).
        names: the spellings read, which the message names.

    Returns:
        The contradiction at ``/spec/timing/latencyNs/std``, or nothing (also with no
        ``min``, ``median`` or ``max``, or a median outside [``min``, ``max``]). Raises
        nothing for numbers.
    """
    low, high, median = values.get("min"), values.get("max"), values.get("median")
    if low is None or high is None or median is None or not low <= median <= high:
        return []
    three = (low, median, high)
    centre = sum(three) / 3
    squares = sum((v - centre) ** 2 for v in three)
    rounding = math.sqrt(sum(_half(v) ** 2 for v in three))
    floor = max(math.sqrt(squares / 3) - rounding / math.sqrt(3), 0.0)
    ceiling = math.sqrt(squares / 2) + rounding / math.sqrt(2)
    slack = STATISTIC_SLACK * max(abs(low), abs(high))
    if floor - (spread + _half(spread)) <= slack and spread - _half(spread) - ceiling <= slack:
        return []
    side, bound = ("<", floor) if spread < floor else (">", ceiling)
    stated, short = _stated_range(values, names, median=True)
    return [Contradiction(
        "KI228", STD_POINTER,
        f"the run states std {spread!r} ns ({STD_POINTER}) of 3 trials (/spec/timing/trials) "
        f"{stated}: 3 trials are exactly min, median and max, whose "
        f"std is {_ns(math.sqrt(squares / 3))} ns (the population std) or "
        f"{_ns(math.sqrt(squares / 2))} ns (the sample std), here [{_ns(floor)}, "
        f"{_ns(ceiling)}] ns ({ROUNDED_READING})",
        f"latencyNs std {spread!r} {side} {_ns(bound)} ({short}, 3 trials)")]


def _std_too_small(spread: float, values: dict[str, float], trials: int,
                   names: dict[str, str]) -> list[Contradiction]:
    """KI228 of a ``std`` below what ``min``, ``max`` and ``trials`` >= 2 force (fresh14 F1).

    n trials from ``min`` to ``max`` deviate by at least ``(max - min) / sqrt(2n)``, one
    at each end and the others at their midpoint: the least population std (the sample
    std's least, ``(max - min) / sqrt(2(n - 1))``, is larger, so a run may state either),
    above 0 whenever ``min`` < ``max``: a ``std`` of 0 says every trial was equal. ``min``
    and ``max`` are read as rounded inward, ``std`` upward (:func:`resolution`).

    Args:
        spread: the run's ``latencyNs.std`` (ns).
        values: its latency statistics (``std`` left out), as :func:`one_spelling` reads them.
        trials: its ``timing.trials``, 2 or more.
        names: the spellings read, which the message names.

    Returns:
        The contradiction at ``/spec/timing/latencyNs/std``, or nothing.
    """
    low, high = values.get("min"), values.get("max")
    if low is None or high is None:
        return []
    width = (high - _half(high)) - (low + _half(low))
    least = max(width, 0.0) / math.sqrt(2 * trials)
    if least - (spread + _half(spread)) <= STATISTIC_SLACK * max(abs(low), abs(high)):
        return []
    return [Contradiction(
        "KI228", STD_POINTER,
        f"the run states std {spread!r} ns ({STD_POINTER}) of {trials} trials "
        f"(/spec/timing/trials) {_stated_range(values, names)[0]}: n trials that far apart "
        f"have a std of at least (max - min) / sqrt(2n), one trial at each end and the "
        f"others at their midpoint (the population std's least; the sample std's, "
        f"(max - min) / sqrt(2(n - 1)), is larger), here {_ns(least)} ns "
        f"({ROUNDED_READING})",
        f"latencyNs std {spread!r} < {_ns(least)} ({_stated_range(values, names)[1]}, "
        f"{trials} trials)")]
