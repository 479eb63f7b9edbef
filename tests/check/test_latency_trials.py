"""KI228 with the run's trial count: a std no trials give, one trial's statistics that differ.

Found by new users (warn01, stat04): ``std`` was "bound by nothing", so a run of
``trials: 1`` stating a ``std`` of 5 ns was added (one value deviates from itself by
nothing), and a run of one trial stating ``min`` 10 and ``max`` 20 passed too.
"""

from __future__ import annotations

import json
import math
import statistics
from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kistore.cli import main
from kistore.core.contradictions import run_contradictions

from ..conftest import add_docs


def _found(latency: dict, trials: int | None = None) -> list[tuple[str, str, str, str]]:
    timing: dict = {"latencyNs": latency, "primaryStatistic": "mean"}
    if trials is not None:
        timing["trials"] = trials
    return [tuple(c) for c in run_contradictions({"timing": timing})]


ONE_STD = ("the run states std 5 ns (/spec/timing/latencyNs/std) of 1 trial "
           "(/spec/timing/trials): one value deviates from itself by nothing, so the std of "
           "one trial is 0")


def test_a_std_of_one_trial_is_refused_whatever_else_is_stated():
    """The new user's run: trials 1, a mean and a std, no min or max (it passed)."""
    said = ("KI228", "/spec/timing/latencyNs/std", ONE_STD, "latencyNs std 5 > 0 with 1 trial")
    assert _found({"mean": 1000, "std": 5}, 1) == [said]
    assert _found({"std": 5}, 1) == [said]
    assert _found({"mean": 1000, "min": 1000, "max": 1000, "std": 5}, 1) == [said]
    assert _found({"mean": 1000, "std": 0}, 1) == []
    assert _found({"mean": 1000, "std": 5}, 2) == []  # two trials: a std, unbounded alone
    assert _found({"mean": 1000, "std": 5}) == []


ONE_DIFFERS = (
    "the run states 1 trial (/spec/timing/trials) and latencyNs min 1000, mean 1200, max 2000 "
    "(/spec/timing/latencyNs): the min, max, mean, median, geomean and percentiles of one "
    "trial are all its one latency, and these differ by more than rounding gives (1 ns, and a "
    "relative 1e-09)")


def test_one_trials_statistics_that_differ_are_one_finding():
    assert _found({"min": 1000, "mean": 1200, "max": 2000}, 1) == [(
        "KI228", "/spec/timing/latencyNs", ONE_DIFFERS,
        "latencyNs min 1000, mean 1200, max 2000 differ with 1 trial")]
    # out of order too: said once, naming every value (no pair findings beside it)
    assert [c[1:4:2] for c in _found({"min": 2000, "max": 10, "p50": 20}, 1)] == [
        ("/spec/timing/latencyNs", "latencyNs max 10, p50 20, min 2000 differ with 1 trial")]
    # one trial rounded two ways: 1 ns apart is its rounding; 2 ns is not
    assert _found({"min": 1000, "mean": 1000.7, "median": 1001, "geomean": 1000}, 1) == []
    assert [c[3] for c in _found({"min": 1000, "median": 1002}, 1)] == [
        "latencyNs min 1000, median 1002 differ with 1 trial"]
    # relative 1e-9 beyond the nanosecond: a floating point mean of one huge value
    assert _found({"min": 1e12, "mean": 1e12 * (1 + 5e-10) + 1}, 1) == []
    # two trials may differ: their mean is their midpoint (fresh14 F1: 1200 is refused)
    assert _found({"min": 1000, "mean": 1500, "max": 2000}, 2) == []
    assert [c[3] for c in _found({"min": 1000, "mean": 1200, "max": 2000}, 2)] == [
        "latencyNs mean 1200 < 1,495 (min 1000, max 2000, 2 trials)"]
    assert [c[3] for c in _found({"min": 2000, "max": 1000}, 2)] == [
        "latencyNs min 2000 > max 1000"]


STD_40 = ("the run states std 40 ns (/spec/timing/latencyNs/std) of trials from min 11 ns to "
          "max 21 ns (/spec/timing/latencyNs/min, /spec/timing/latencyNs/max): 4 trials in "
          "[10.5, 21.5] ns (min and max each read as rounded to their last nonzero digit, but "
          "to no fewer than 3 significant digits, and at least 1 ns) have a std of at most "
          "6.35085 ns ((max - min) / 2 x sqrt(n / (n - 1)), which bounds the sample std and so "
          "the population std too)")


def test_a_std_above_what_min_and_max_allow_is_refused():
    assert _found({"min": 11, "max": 21, "std": 40}, 4) == [(
        "KI228", "/spec/timing/latencyNs/std", STD_40,
        "latencyNs std 40 > 6.35085 (min 11, max 21, 4 trials)")]
    # with no count, the bound of every count: n = 2, (max - min) / sqrt(2)
    assert [c[3] for c in _found({"min": 11, "max": 21, "std": 40})] == [
        "latencyNs std 40 > 7.77817 (min 11, max 21, any number of trials)"]
    assert _found({"min": 11, "max": 21, "std": 7.7}) == []
    # half at each end: the population std is (max - min) / 2, the sample std more
    assert _found({"min": 1001, "max": 2001, "std": 500}, 4) == []
    assert _found({"min": 1001, "max": 2001, "std": 500 * math.sqrt(4 / 3)}, 4) == []
    assert len(_found({"min": 1001, "max": 2001, "std": 579}, 4)) == 1  # 1,001 ns wide read


def test_kernelbenchs_rounded_rows_pass():
    """21 of KernelBench's rows: ms to three significant digits, min = max, a std above 0."""
    from kistore.core.contradictions import resolution
    row = {"mean": 36800000, "std": 6060, "min": 36800000, "max": 36800000}
    assert _found(row, 100) == []
    assert resolution(36800000) == 100000 and resolution(6060) == 10
    assert resolution(13634148) == resolution(10.5) == resolution(0) == 1
    # but not a std as wide as the rounding cannot explain
    assert [c[3] for c in _found(dict(row, std=60000), 100)] == [
        "latencyNs std 60000 > 50251.9 (min 36800000, max 36800000, 100 trials)"]


def test_std_bound_holds_both_forms():
    from kistore.core.contradictions import std_bound
    assert std_bound(0, 10, 2) == pytest.approx(10 / 2 * math.sqrt(2))
    assert std_bound(0, 10, None) == pytest.approx(std_bound(0, 10, 2))
    assert std_bound(5, 5, 100) == 0 and std_bound(6, 5, 3) == 0


_TRIALS = st.lists(st.floats(min_value=1, max_value=1e12, allow_nan=False), min_size=1,
                   max_size=30)


def _true(trials: list[float], sample: bool) -> dict[str, float]:
    """Every statistic the schema admits, as a source computes them over ``trials``."""
    if len(trials) == 1:  # one value: each statistic is it, its deviation 0
        return {k: trials[0] for k in ("min", "max", "mean", "median", "geomean", "p0",
                                       "p1", "p50", "p99")} | {"std": 0.0}
    cuts = statistics.quantiles(trials, n=100, method="inclusive")
    std = statistics.stdev(trials) if sample else statistics.pstdev(trials)
    return {"min": min(trials), "max": max(trials), "mean": statistics.fmean(trials),
            "median": statistics.median(trials), "geomean": statistics.geometric_mean(trials),
            "std": std, "p0": min(trials),
            **{f"p{n}": cuts[n - 1] for n in (1, 5, 10, 50, 90, 99)}}


@given(_TRIALS, st.booleans(), st.booleans(), st.data())
def test_true_statistics_of_counted_trials_are_never_refused(trials, sample, counted, data):
    stats = _true(trials, sample)
    chosen = data.draw(st.lists(st.sampled_from(sorted(stats)), unique=True, min_size=1))
    assert _found({k: stats[k] for k in chosen}, len(trials) if counted else None) == []


def _three_digits_in_ms(ns: float) -> float:
    """``ns`` as KernelBench publishes it: ms to three significant digits, back in ns."""
    if ns == 0:
        return 0
    ms = Decimal(repr(ns)) / 10**6
    rounded = round(ms, 2 - ms.adjusted())
    value = rounded * 10**6
    return int(value) if value == value.to_integral_value() else float(value)


@given(st.lists(st.floats(min_value=1e3, max_value=1e11, allow_nan=False), min_size=1,
                max_size=30), st.booleans(), st.data())
def test_true_statistics_rounded_as_kernelbench_does_are_never_refused(trials, sample, data):
    stats = {k: _three_digits_in_ms(v) for k, v in _true(trials, sample).items()}
    chosen = data.draw(st.lists(st.sampled_from(sorted(stats)), unique=True, min_size=1))
    assert _found({k: stats[k] for k in chosen}, len(trials)) == []


def test_no_imported_run_is_refused_or_warned_by_the_new_rules(imported_store):
    """The real data (KernelBench's 21 rows of min = max beside a std among them): no KI228
    in ``verify``, and no KI228 or KI252 at the gate over the whole import."""
    from kistore.check.audit import verify
    from kistore.check.gate import check_range

    from ..conftest import git
    first = git(imported_store.root, "rev-list", "--max-parents=0", "HEAD").strip()
    found = [f.rule.id for f in verify(imported_store) + check_range(
        imported_store, f"{first}..HEAD")]
    assert "KI228" not in found and "KI252" not in found


# -- fresh13 F5-F7: round numbers, two names of one quantile, the order of one trial's values

ROUND_700 = (
    "the run states std 700 ns (/spec/timing/latencyNs/std) of trials from min 1000 ns to max "
    "1000 ns (/spec/timing/latencyNs/min, /spec/timing/latencyNs/max): 2 trials in [995, 1,005] "
    "ns (min and max each read as rounded to their last nonzero digit, but to no fewer than 3 "
    "significant digits, and at least 1 ns) have a std of at most 7.07107 ns ((max - min) / 2 x "
    "sqrt(n / (n - 1)), which bounds the sample std and so the population std too)")


def test_a_round_number_is_read_to_three_significant_digits():
    """fresh13 F5: 1000 was read as rounded to its one digit, [500, 1500], so two trials of
    min = max = 1000 beside a std of 700 ns passed; 1234 beside a std of 5 did not."""
    from kistore.core.contradictions import resolution
    assert _found({"mean": 1000, "min": 1000, "max": 1000, "std": 700}, 2) == [(
        "KI228", "/spec/timing/latencyNs/std", ROUND_700,
        "latencyNs std 700 > 7.07107 (min 1000, max 1000, 2 trials)")]
    assert [resolution(v) for v in (1000, 1234, 700, 6060, 36800000, 2600000, 2000000)] == [
        10, 1, 1, 10, 100000, 10000, 10000]
    # 1.00e3 may be 995 to 1005: two trials there deviate by 7.07 ns at most
    assert _found({"mean": 1000, "min": 1000, "max": 1000, "std": 7}, 2) == []
    assert [c[3] for c in _found({"mean": 1000, "min": 1000, "max": 1000, "std": 8}, 2)] == [
        "latencyNs std 8 > 7.07107 (min 1000, max 1000, 2 trials)"]
    # the same with 4 digits shown, as fresh13 found: exact to the nanosecond
    assert [c[3] for c in _found({"mean": 1234, "min": 1234, "max": 1234, "std": 5}, 2)] == [
        "latencyNs std 5 > 0.707107 (min 1234, max 1234, 2 trials)"]


def _significant(ns: float, digits: int, unit: int) -> float:
    """``ns`` as a source writes it: in ``unit`` ns (10**6: ms) to ``digits`` significant
    digits, back in ns (int when whole, as the importers' ``ms_to_ns`` gives it)."""
    if ns == 0:
        return 0
    stated = Decimal(repr(ns)) / unit
    value = round(stated, digits - 1 - stated.adjusted()) * unit
    return int(value) if value == value.to_integral_value() else float(value)


_CLUSTERED = st.builds(lambda base, offsets, spread: [base * (1 + o * spread) for o in offsets],
                       st.floats(min_value=1, max_value=1e11), st.lists(
                           st.sampled_from([0.0, 1.0]) | st.floats(min_value=0, max_value=1),
                           min_size=1, max_size=30),
                       st.sampled_from([1e-7, 1e-4, 1e-3, 4e-3, 1e-2, 1.0]))
"""Trials close together, as a kernel's are, often at the two ends of their range (the
largest std a range allows): rounded, min and max often become one value beside a std
above 0 (KernelBench's 21 rows)."""


@given(st.lists(st.floats(min_value=1, max_value=1e11, allow_nan=False), min_size=1,
                max_size=30) | _CLUSTERED, st.booleans(), st.booleans(), st.integers(3, 7),
       st.sampled_from([10**6, 10**3, 1]), st.data())
def test_true_statistics_rounded_to_three_significant_digits_or_more_are_never_refused(
        trials, sample, counted, digits, unit, data):
    """Every statistic of real trials, rounded as a source writes them (KernelBench: ms to
    3 significant digits; any source keeping 3 or more, in ms, us or ns): never refused."""
    stats = {k: _significant(v, digits, unit) for k, v in _true(trials, sample).items()}
    chosen = data.draw(st.lists(st.sampled_from(sorted(stats)), unique=True, min_size=1))
    assert _found({k: stats[k] for k in chosen}, len(trials) if counted else None) == []


P50_MEDIAN = (
    "the run states p50 900 ns (/spec/timing/latencyNs/p50) and median 1100 ns "
    "(/spec/timing/latencyNs/median), two names of one quantile (the 0.5 quantile of the "
    "trials), which is one value: these differ by more than rounding gives (1 ns, and a "
    "relative 1e-09)")


def test_two_names_of_one_quantile_are_one_value():
    """fresh13 F6: p50 and median (the 0.5 quantile), min and p0, p5 and p05 were never
    compared: {"mean": 1000, "p50": 900, "median": 1100} of 100 trials was added."""
    assert _found({"mean": 1000, "p50": 900, "median": 1100}, 100) == [(
        "KI228", "/spec/timing/latencyNs/p50", P50_MEDIAN,
        "latencyNs p50 900 and median 1100 differ, one quantile")]
    assert [c[1:4:2] for c in _found({"min": 1000, "p0": 1200, "p5": 1300, "p05": 1250,
                                      "max": 2000})] == [
        ("/spec/timing/latencyNs/p0", "latencyNs min 1000 and p0 1200 differ, one quantile"),
        ("/spec/timing/latencyNs/p5", "latencyNs p05 1250 and p5 1300 differ, one quantile")]
    # p0 below min: one finding, the quantile's (no pair "min above p0" beside it)
    assert [c[3] for c in _found({"min": 1000, "p0": 900})] == [
        "latencyNs p0 900 and min 1000 differ, one quantile"]
    # one value written twice, rounded two ways: 1 ns apart, as one trial's statistics
    assert _found({"p50": 1000, "median": 1000.5, "min": 999, "p0": 1000}, 100) == []
    assert _found({"p50": 1e12, "median": 1e12 * (1 + 5e-10) + 1}) == []
    # of one trial, the one finding naming every value says it
    assert [c[3] for c in _found({"p50": 900, "median": 1100}, 1)] == [
        "latencyNs p50 900, median 1100 differ with 1 trial"]


def test_one_trials_values_are_named_lowest_first_min_before_an_equal_value():
    """fresh13 F7: "lowest first" printed "mean 1000, min 1000, max 2000"."""
    assert [c[2] for c in _found({"mean": 1000, "min": 1000, "max": 2000}, 1)] == [
        ONE_DIFFERS.replace("min 1000, mean 1200", "min 1000, mean 1000")]
    assert [c[3] for c in _found({"max": 2000, "p99": 2000, "min": 1000, "mean": 1000,
                                  "geomean": 1000}, 1)] == [
        "latencyNs min 1000, geomean 1000, mean 1000, p99 2000, max 2000 differ with 1 trial"]


@pytest.mark.parametrize("latency, trials, pointer, said", [
    ({"mean": 1000, "std": 5}, 1, "std", ONE_STD),  # the new user's run (warn01)
    ({"mean": 1000, "min": 1000, "max": 1000, "std": 700}, 2, "std", ROUND_700),  # fresh13
    ({"mean": 1000, "p50": 900, "median": 1100}, 100, "p50", P50_MEDIAN)])
def test_add_refuses_the_new_users_runs(store, kit, runner, tmp_path, latency, trials,
                                        pointer, said):
    _add_refused(store, kit, runner, tmp_path, latency, trials, pointer, said)


def _add_refused(store, kit, runner, tmp_path, latency: dict, trials: int, pointer: str,
                 said: str) -> None:
    """``add --commit`` of a run stating ``latency`` over ``trials``: exit 1, KI228 said."""
    protocol, env, workload = kit.protocol(), kit.environment(), kit.workload()
    impl = kit.implementation("proj", name="impl")
    run = kit.run(protocol, env, impl, workload, latency=latency, name="round")
    run["spec"]["timing"]["trials"] = trials
    add_docs(store, [protocol, env, workload, impl])
    path = tmp_path / "round.json"
    path.write_text(json.dumps(run))
    done = runner.invoke(main, ["--store", str(store.root), "add", "--commit", str(path)])
    assert done.exit_code == 1, done.output
    assert f"{path}:/spec/timing/latencyNs/{pointer}: {said} (KI228)" in done.stderr


# -- fresh14 F1: the bounds n >= 2 trials force on mean, geomean, median and std

_ROUNDING = ("each value read as rounded to its last nonzero digit, but to no fewer than 3 "
             "significant digits, and at least 1 ns")
_MIN_MAX = "(/spec/timing/latencyNs/min, /spec/timing/latencyNs/max)"

MEAN_AT_MIN = (
    "the run states mean 1000000 ns (/spec/timing/latencyNs/mean) of 3 trials "
    f"(/spec/timing/trials) from min 1000000 ns to max 100000000 ns {_MIN_MAX}: the mean of n "
    "trials lies in [min + (max - min) / n, max - (max - min) / n] (a trial at each end, the "
    f"others anywhere between), here [33,830,000, 67,335,000] ns ({_ROUNDING})")
GEOMEAN_AT_MIN = (
    "the run states geomean 1000000 ns (/spec/timing/latencyNs/geomean) of 2 trials "
    f"(/spec/timing/trials) from min 1000000 ns to max 11000000 ns {_MIN_MAX}: the geometric "
    "mean of n trials lies in [min^((n - 1) / n) x max^(1 / n), min^(1 / n) x max^((n - 1) / "
    "n)] (a trial at each end, the others anywhere between), here [3,300,795, 3,332,454] ns "
    f"({_ROUNDING})")
MEDIAN_OF_TWO = (
    "the run states median 1000000 ns (/spec/timing/latencyNs/median) and mean 6000000 ns "
    "(/spec/timing/latencyNs/mean) of 2 trials (/spec/timing/trials): the median of two trials "
    "is their midpoint, which is their mean, and these differ by more than rounding gives "
    f"({_ROUNDING})")
GEOMEAN_ABOVE_MEAN = (
    "the run states geomean 3800000 ns (/spec/timing/latencyNs/geomean) above mean 3700000 ns "
    "(/spec/timing/latencyNs/mean): the geometric mean of positive trials is never above their "
    "arithmetic mean (the AM-GM inequality), and these differ by more than rounding gives "
    f"({_ROUNDING})")
STD_ZERO = (
    "the run states std 0 ns (/spec/timing/latencyNs/std) of 100 trials (/spec/timing/trials) "
    f"from min 1000000 ns to max 9000000 ns {_MIN_MAX}: n trials that far apart have a std of "
    "at least (max - min) / sqrt(2n), one trial at each end and the others at their midpoint "
    "(the population std's least; the sample std's, (max - min) / sqrt(2(n - 1)), is larger), "
    f"here 564,978 ns ({_ROUNDING})")


def test_fresh14s_runs_are_refused_with_their_bounds():
    """fresh14 F1: each was added (exit 0) and ranked; n trials bound the mean and geomean
    tighter than [min, max], and the std from below."""
    assert _found({"mean": 1000000, "min": 1000000, "max": 100000000}, 3) == [(
        "KI228", "/spec/timing/latencyNs/mean", MEAN_AT_MIN,
        "latencyNs mean 1000000 < 33,830,000 (min 1000000, max 100000000, 3 trials)")]
    assert _found({"mean": 6000000, "median": 1000000, "min": 1000000, "max": 11000000},
                  2) == [("KI228", "/spec/timing/latencyNs/median", MEDIAN_OF_TWO,
                          "latencyNs median 1000000 != mean 6000000 of 2 trials")]
    assert _found({"mean": 6000000, "geomean": 1000000, "min": 1000000, "max": 11000000},
                  2) == [("KI228", "/spec/timing/latencyNs/geomean", GEOMEAN_AT_MIN,
                          "latencyNs geomean 1000000 < 3,300,795 (min 1000000, max 11000000, "
                          "2 trials)")]
    assert [c[3] for c in _found({"mean": 3700000, "min": 3700000, "max": 9000000}, 2)] == [
        "latencyNs mean 3700000 < 6,345,000 (min 3700000, max 9000000, 2 trials)"]
    assert _found({"mean": 3700000, "geomean": 3800000, "min": 1000000, "max": 9000000},
                  100) == [("KI228", "/spec/timing/latencyNs/geomean", GEOMEAN_ABOVE_MEAN,
                            "latencyNs geomean 3800000 > mean 3700000")]
    assert _found({"mean": 3700000, "std": 0, "min": 1000000, "max": 9000000}, 100) == [(
        "KI228", "/spec/timing/latencyNs/std", STD_ZERO,
        "latencyNs std 0 < 564,978 (min 1000000, max 9000000, 100 trials)")]
    # of 2 trials: the mean (its midpoint) is stated right, the std not
    assert [c[3] for c in _found({"mean": 5000000, "std": 1, "min": 1000000,
                                  "max": 9000000}, 2)] == [
        "latencyNs std 1 < 3,995,000 (min 1000000, max 9000000, 2 trials)"]


def test_the_bounds_reach_exactly_their_extreme_trials():
    """Each bound is reached by a set of trials: one at each end, the others at one end
    (mean, geomean) or at the midpoint (std); a value rounded off it passes."""
    # 3 trials 1000, 1000, 4000: mean 2000 = min + (max - min) / 3; (1000, 4000, 4000): 3000
    assert _found({"min": 1000, "max": 4000, "mean": 2000}, 3) == []
    assert _found({"min": 1000, "max": 4000, "mean": 3000}, 3) == []
    assert [c[3] for c in _found({"min": 1001, "max": 4001, "mean": 1990}, 3)] == [
        "latencyNs mean 1990 < 2,000.5 (min 1001, max 4001, 3 trials)"]
    # 1000, 1000, 8000: geomean 2000 = 1000^(2/3) x 8000^(1/3)
    assert _found({"min": 1001, "max": 8001, "geomean": 2002}, 3) == []
    # 1000, 2000, 3000: population std sqrt(2/3) x 1000 = (max - min) / sqrt(6)
    assert _found({"min": 1001, "max": 3001, "std": statistics.pstdev([1001, 2001, 3001])},
                  3) == []
    # no count stated: neither the range of the mean nor a least std (n may be any)
    assert _found({"min": 1000, "max": 4000, "mean": 1001, "std": 0}) == []
    # geomean above mean within rounding: 1.00e6 may be 995,000 to 1,005,000
    assert _found({"mean": 1000000, "geomean": 1005000}, 100) == []


_LOWEST = st.sampled_from(["min", "p0", "p00"])
_MIDDLE = st.sampled_from(["median", "p50"])
"""The names a run may give its ``min`` and ``median`` (fresh16 F1b: the bounds read only
``min`` and ``median``); ``max`` has one (the schema admits no ``p100``)."""


def _spelled_as(stats: dict[str, float], lowest: str, middle: str) -> dict[str, float]:
    """``stats`` with ``min`` stated as ``lowest`` and ``median`` as ``middle``."""
    names = {"min": lowest, "median": middle}
    return {names.get(k, k): v for k, v in stats.items()}


@given(st.lists(st.floats(min_value=1e3, max_value=1e11, allow_nan=False), min_size=2,
                max_size=30) | _CLUSTERED.filter(lambda t: len(t) >= 2), st.booleans(),
       st.integers(3, 7), st.sampled_from([10**6, 10**3, 1]), _LOWEST, _MIDDLE)
def test_every_statistic_of_counted_trials_rounded_as_a_source_does_is_never_refused(
        trials, sample, digits, unit, lowest, middle):
    """All of min, max, mean, geomean, median and std stated at once with the count (the
    new bounds judge them together), rounded to 3-7 significant digits in ms, us or ns,
    min spelled ``min``, ``p0`` or ``p00`` and median ``median`` or ``p50`` (fresh16)."""
    stats = {k: _significant(v, digits, unit) for k, v in _true(trials, sample).items()
             if k in ("min", "max", "mean", "geomean", "median", "std")}
    assert _found(_spelled_as(stats, lowest, middle), len(trials)) == []


# -- fresh15 F1: min, median and max together pin 2 and 3 trials, and bound the mean of n

_MIN_MAX_MEDIAN = ("(/spec/timing/latencyNs/min, /spec/timing/latencyNs/max, "
                   "/spec/timing/latencyNs/median)")
MEAN_BESIDE_MEDIAN = (
    "the run states mean 2500 ns (/spec/timing/latencyNs/mean) of 3 trials "
    "(/spec/timing/trials) from min 1000 ns to max 4000 ns with median 1000 ns "
    f"{_MIN_MAX_MEDIAN}: the mean of n trials lies in [(l x min + h x median + max) / n, "
    "(min + h x median + l x max) / n], l = floor(n / 2) and h = ceil(n / 2) - 1 (a trial at "
    "each end, the median's, and the others at the median or an end; of 3 trials exactly min, "
    f"median and max), here [1,995, 2,005] ns ({_ROUNDING})")
MEDIAN_MIDPOINT = (
    "the run states median 1100 ns (/spec/timing/latencyNs/median) of 2 trials "
    f"(/spec/timing/trials) from min 1000 ns to max 2000 ns {_MIN_MAX}: the median of two "
    "trials is their midpoint, (min + max) / 2, here [1,495, 1,505] ns "
    f"({_ROUNDING})")
GEOMEAN_BESIDE_MEDIAN = (
    "the run states geomean 2500 ns (/spec/timing/latencyNs/geomean) of 3 trials "
    "(/spec/timing/trials) from min 1000 ns to max 8000 ns with median 1000 ns "
    f"{_MIN_MAX_MEDIAN}: the geometric mean of n trials lies in [(min^l x median^h x "
    "max)^(1 / n), (min x median^h x max^l)^(1 / n)], l = floor(n / 2) and h = ceil(n / 2) - 1 "
    "(a trial at each end, the median's, and the others at the median or an end; of 3 trials "
    "exactly min, median and max), here [1,992.91, 2,007.08] ns "
    f"({_ROUNDING})")
STD_OF_THREE = (
    "the run states std 1300 ns (/spec/timing/latencyNs/std) of 3 trials (/spec/timing/trials) "
    f"from min 1000 ns to max 4000 ns with median 1000 ns {_MIN_MAX_MEDIAN}: 3 trials are "
    "exactly min, median and max, whose std is 1,414.21 ns (the population std) or 1,732.05 ns "
    "(the sample std), here [1,409.21, 1,738.17] ns "
    f"({_ROUNDING})")


def test_fresh15s_runs_are_refused():
    """fresh15 F1: (a) 3 trials of min 1000, median 1000 and max 4000 are 1000, 1000 and
    4000 (mean 2000), yet mean 2500 passed; (b) of 2 trials the median is (min + max) / 2,
    yet median 1100 beside min 1000 and max 2000 passed when no mean was stated."""
    assert _found({"mean": 2500, "min": 1000, "max": 4000, "median": 1000}, 3) == [(
        "KI228", "/spec/timing/latencyNs/mean", MEAN_BESIDE_MEDIAN,
        "latencyNs mean 2500 > 2,005 (min 1000, median 1000, max 4000, 3 trials)")]
    assert _found({"min": 1000, "max": 2000, "median": 1100}, 2) == [(
        "KI228", "/spec/timing/latencyNs/median", MEDIAN_MIDPOINT,
        "latencyNs median 1100 != 1,500 (min 1000, max 2000, 2 trials)")]
    assert _found({"geomean": 2500, "min": 1000, "max": 8000, "median": 1000}, 3) == [(
        "KI228", "/spec/timing/latencyNs/geomean", GEOMEAN_BESIDE_MEDIAN,
        "latencyNs geomean 2500 > 2,007.08 (min 1000, median 1000, max 8000, 3 trials)")]
    assert _found({"std": 1300, "min": 1000, "max": 4000, "median": 1000}, 3) == [(
        "KI228", "/spec/timing/latencyNs/std", STD_OF_THREE,
        "latencyNs std 1300 < 1,409.21 (min 1000, median 1000, max 4000, 3 trials)")]


def test_the_median_bounds_pass_their_true_values_and_say_each_thing_once():
    # the trials themselves: 1000, 1000, 4000 (population std 1,414; sample 1,732)
    true = {"mean": 2000, "geomean": 2000, "min": 1000, "max": 4000, "median": 1000}
    assert _found(dict(true, geomean=round((1000 * 1000 * 4000) ** (1 / 3))), 3) == []
    assert _found(dict(true, geomean=1587, std=1414), 3) == []
    assert _found(dict(true, geomean=1587, std=1732), 3) == []
    assert _found({"min": 1000, "max": 2000, "median": 1500}, 2) == []
    assert _found({"min": 1000, "max": 2000, "median": 1504}, 2) == []  # rounding: 5 ns
    # with a mean stated, the 2-trial finding is stat08's (median != mean), said once
    assert [c[3] for c in _found({"mean": 1500, "min": 1000, "max": 2000, "median": 1100},
                                 2)] == ["latencyNs median 1100 != mean 1500 of 2 trials"]
    # a mean out of min and max's own bounds: their finding alone, not the median's too
    assert [c[3] for c in _found({"mean": 1000, "min": 1000, "max": 4000, "median": 1000},
                                 3)] == ["latencyNs mean 1000 < 1,995 (min 1000, max 4000, "
                                         "3 trials)"]
    # n = 4: l = 2, h = 1; median read as the midpoint or either middle trial
    # (1000, 1000, 1000, 9000) has median 1000, mean 3000; (1000, 1000, 9000, 9000) median
    # 5000 by midpoint, 1000 by the lower middle: mean 5000; both in [3000, 5000]
    assert _found({"mean": 5000, "min": 1000, "max": 9000, "median": 1000}, 4) == []
    assert _found({"mean": 3000, "min": 1000, "max": 9000, "median": 1000}, 4) == []
    assert [c[3] for c in _found({"mean": 5100, "min": 1000, "max": 9000, "median": 1000},
                                 4)] == ["latencyNs mean 5100 > 5,005 (min 1000, median "
                                         "1000, max 9000, 4 trials)"]
    # no count stated, or a median out of order: not these rules'
    assert _found({"mean": 2500, "min": 1000, "max": 4000, "median": 1000}) == []
    assert [c[3] for c in _found({"mean": 2500, "min": 1000, "max": 4000, "median": 900},
                                 3)] == ["latencyNs min 1000 > median 900"]


def _nearest_rank(trials: list[float], p: int) -> float:
    """The p-th percentile by nearest rank (the lower trial of an even count's middle)."""
    ordered = sorted(trials)
    return ordered[max(math.ceil(p / 100 * len(ordered)), 1) - 1]


_FEW_CLUSTERED = st.builds(
    lambda base, offsets, spread: [base * (1 + o * spread) for o in offsets],
    st.floats(min_value=1, max_value=1e11), st.lists(
        st.sampled_from([0.0, 0.5, 1.0]) | st.floats(min_value=0, max_value=1), min_size=2,
        max_size=6), st.sampled_from([1e-7, 1e-4, 1e-3, 4e-3, 1e-2, 1.0]))
"""2 to 6 trials close together, often repeated at the ends or the middle (as
:data:`_CLUSTERED`, few: where ``min``, ``median`` and ``max`` bind the most)."""


@given(st.lists(st.floats(min_value=1, max_value=1e11, allow_nan=False), min_size=2,
                max_size=6) | _FEW_CLUSTERED,
       st.booleans(), st.booleans(), st.integers(3, 7), st.sampled_from([10**6, 10**3, 1]),
       _LOWEST, _MIDDLE)
def test_few_trials_and_their_median_as_any_source_writes_them_are_never_refused(
        trials, sample, nearest, digits, unit, lowest, middle):
    """2 to 6 real trials (where min, median and max bind the most), every statistic stated
    with the count, the median the midpoint or (an even count of 4 or more, or a ``p50`` of
    2) the lower middle trial by nearest rank, rounded to 3-7 significant digits in ms, us
    or ns, min spelled ``min``, ``p0`` or ``p00`` and median ``median`` or ``p50``
    (fresh16): never refused."""
    stats = _true(trials, sample)
    # of 2 trials the median is their midpoint (stat08); a p50 may be the lower trial
    if nearest and (len(trials) != 2 or middle == "p50"):
        stats["median"] = _nearest_rank(trials, 50)
    stats = {k: _significant(v, digits, unit) for k, v in stats.items()
             if k in ("min", "max", "mean", "geomean", "median", "std")}
    assert _found(_spelled_as(stats, lowest, middle), len(trials)) == []


@pytest.mark.parametrize("latency, trials, pointer, said", [
    ({"mean": 2500, "min": 1000, "max": 4000, "median": 1000}, 3, "mean", MEAN_BESIDE_MEDIAN),
    ({"min": 1000, "max": 2000, "median": 1100}, 2, "median", MEDIAN_MIDPOINT)])
def test_add_refuses_fresh15s_runs(store, kit, runner, tmp_path, latency, trials, pointer,
                                   said):
    _add_refused(store, kit, runner, tmp_path, latency, trials, pointer, said)


# -- fresh16 F1b, F1: the bounds read p0 (p00) as min and p50 as median, as KI228 does

FRESH16_P0 = (
    "the run states mean 1000000 ns (/spec/timing/latencyNs/mean) of 3 trials "
    "(/spec/timing/trials) from p0 1000 ns to max 100000000 ns (/spec/timing/latencyNs/p0, "
    "/spec/timing/latencyNs/max): the mean of n trials lies in [min + (max - min) / n, max - "
    "(max - min) / n] (a trial at each end, the others anywhere between), here [33,167,330, "
    f"67,000,335] ns ({_ROUNDING})")
FRESH16_P50 = (
    "the run states mean 2500 ns (/spec/timing/latencyNs/mean) of 3 trials "
    "(/spec/timing/trials) from min 1000 ns to max 4000 ns with p50 1000 ns "
    "(/spec/timing/latencyNs/min, /spec/timing/latencyNs/max, /spec/timing/latencyNs/p50): "
    "the mean of n trials lies in [(l x min + h x median + max) / n, (min + h x median + l x "
    "max) / n], l = floor(n / 2) and h = ceil(n / 2) - 1 (a trial at each end, the median's, "
    "and the others at the median or an end; of 3 trials exactly min, median and max), here "
    f"[1,995, 2,005] ns ({_ROUNDING})")


def test_fresh16s_runs_are_refused_naming_the_spelling_stated():
    """fresh16 F1b: fresh14 F1's run with ``min`` written ``p0`` was added and ranked;
    F1: 3 trials of min 1000, p50 1000 and max 4000 beside a mean of 2500 too."""
    assert _found({"p0": 1000, "max": 100000000, "mean": 1000000}, 3) == [(
        "KI228", "/spec/timing/latencyNs/mean", FRESH16_P0,
        "latencyNs mean 1000000 < 33,167,330 (p0 1000, max 100000000, 3 trials)")]
    assert _found({"min": 1000, "p50": 1000, "max": 4000, "mean": 2500}, 3) == [(
        "KI228", "/spec/timing/latencyNs/mean", FRESH16_P50,
        "latencyNs mean 2500 > 2,005 (min 1000, p50 1000, max 4000, 3 trials)")]
    assert [c[3] for c in _found({"p0": 1000, "median": 1000, "max": 4000, "mean": 2500},
                                 3)] == [
        "latencyNs mean 2500 > 2,005 (p0 1000, median 1000, max 4000, 3 trials)"]
    assert [c[3] for c in _found({"p0": 1000, "p99": 1000, "max": 1000, "std": 700}, 2)] == [
        "latencyNs std 700 > 7.07107 (p0 1000, max 1000, 2 trials)"]


def _respelled(said: tuple[str, str, str, str], lowest: str, middle: str
               ) -> tuple[str, str, str, str]:
    """A finding's words with ``min`` named ``lowest`` and ``median`` ``middle`` where the
    message names the stated value (not in its formulas), each word found first (a median
    of 2 trials beside their mean names no ``min``, and its ``median`` is no ``p50``)."""
    rule, pointer, message, short = said
    for name, spelled, (said_as, pointed, short_as) in (
            ("min", lowest, ("from {} ", "/spec/timing/latencyNs/{},", "({} ")),
            ("median", middle, ("with {} ", "/spec/timing/latencyNs/{})", ", {} "))):
        if said_as.format(name) not in message:
            continue
        for form in (said_as, pointed):
            assert message.count(form.format(name)) == 1
            message = message.replace(form.format(name), form.format(spelled))
        assert short.count(short_as.format(name)) == 1
        short = short.replace(short_as.format(name), short_as.format(spelled))
    return rule, pointer, message, short


_BOUNDED = [  # stat08 (fresh14 F1), the std bound (fresh13 F5), stat09 (fresh15 F1)
    ({"mean": 1000000, "min": 1000000, "max": 100000000}, 3, MEAN_AT_MIN),
    ({"mean": 6000000, "geomean": 1000000, "min": 1000000, "max": 11000000}, 2, GEOMEAN_AT_MIN),
    ({"mean": 3700000, "std": 0, "min": 1000000, "max": 9000000}, 100, STD_ZERO),
    ({"mean": 1000, "min": 1000, "max": 1000, "std": 700}, 2, ROUND_700),
    ({"mean": 6000000, "median": 1000000, "min": 1000000, "max": 11000000}, 2, MEDIAN_OF_TWO),
    ({"min": 1000, "max": 2000, "median": 1100}, 2, MEDIAN_MIDPOINT),
    ({"mean": 2500, "min": 1000, "max": 4000, "median": 1000}, 3, MEAN_BESIDE_MEDIAN),
    ({"geomean": 2500, "min": 1000, "max": 8000, "median": 1000}, 3, GEOMEAN_BESIDE_MEDIAN),
    ({"std": 1300, "min": 1000, "max": 4000, "median": 1000}, 3, STD_OF_THREE),
]
"""Each run of the bounds' finding cases and its message with ``min`` and ``median`` (the
exact finding, short form too, is asserted by the tests of fresh13, fresh14 and fresh15)."""


@pytest.mark.parametrize("lowest", ["min", "p0", "p00"])
@pytest.mark.parametrize("middle", ["median", "p50"])
@pytest.mark.parametrize("latency, trials, message", _BOUNDED)
def test_each_bound_reads_min_and_median_however_spelled(latency, trials, message, lowest,
                                                         middle):
    """fresh16 F1b, F1: each bound of n trials, of min, median and max together and of
    std read ``min`` and ``median`` only; ``p0`` (``p00``) and ``p50``, one quantile each to
    KI228, escaped them all. Of 3 trials ``p50`` is the middle trial by every definition;
    of 2 a ``p50`` may be the lower trial (nearest rank), so only ``median`` is held there."""
    said = _found(latency, trials)
    assert [c[2] for c in said] == [message]
    found = _found(_spelled_as(latency, lowest, middle), trials)
    if trials == 2 and "median" in latency and middle == "p50":
        assert found == []
    else:
        assert found == [_respelled(said[0], lowest, middle)]


def test_a_p50_of_two_trials_is_not_held_to_their_midpoint():
    """Of 2 trials a source may write p50 by nearest rank, the lower trial (docs/rules.md
    KI228): ``median`` is the midpoint, ``p50`` is not held to it, beside a mean or not."""
    assert _found({"min": 1000, "max": 2000, "p50": 1000}, 2) == []
    assert _found({"p0": 1000, "max": 2000, "p50": 1000, "mean": 1500}, 2) == []
    assert _found({"mean": 6000000, "p50": 1000000, "min": 1000000, "max": 11000000}, 2) == []
    # both stated: one value (the pair rule), and the median read as `median`
    assert [c[3] for c in _found({"min": 1000, "max": 2000, "median": 1100, "p50": 1100},
                                 2)] == ["latencyNs median 1100 != 1,500 (min 1000, max 2000, "
                                         "2 trials)"]


@pytest.mark.parametrize("latency, pointer, said", [
    ({"p0": 1000, "max": 100000000, "mean": 1000000}, "mean", FRESH16_P0),
    ({"min": 1000, "p50": 1000, "max": 4000, "mean": 2500}, "mean", FRESH16_P50)])
def test_add_refuses_fresh16s_runs(store, kit, runner, tmp_path, latency, pointer, said):
    _add_refused(store, kit, runner, tmp_path, latency, 3, pointer, said)
