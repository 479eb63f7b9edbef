"""KI222, KI223: a run contradicting itself or its source's scale (review r75 F9).

A run saying ``status: passed`` with ``correctness.passed: false`` and a source status
``INCORRECT_NUMERICAL``, and a made-up sol-execbench submission with ``sol_score`` 7.5 (the
scale is [0, 1]: SOURCE.md), were added, passed ``check`` and ``verify``, and ranked #1.
``add`` now refuses them, ``check`` and ``verify`` report them as errors, and ``rank``
leaves a stored one out with the reason.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kistore.check.audit import verify
from kistore.check.gate import check_range
from kistore.cli import main
from kistore.core import layout
from kistore.core.contradictions import run_contradictions
from kistore.core.errors import KistoreError
from kistore.core.model import Manifest
from kistore.query.answers import rank

from ..conftest import add_docs, git

PASSED_BUT_FAILED = (
    "the run says status 'passed' but its correctness check says it failed "
    "(/spec/correctness/passed is false): a run that fails its correctness check is not "
    "passed, and is never ranked")
NATIVE_INCORRECT = ("the run says status 'passed' but its source's status "
                    "'INCORRECT_NUMERICAL' (/spec/sourceNative/status, sol-execbench) means "
                    "'incorrect'")
SOL_7_5 = ("sol-execbench's sol_score lies in [0, 1] (1 is the speed-of-light bound, 0.5 the "
           "scoring baseline); the run states 7.5, which no run can score")


def _cheat(kit):
    """The repro's two runs in one group with an honest one: (docs, incorrect, fabricated)."""
    protocol, env, workload = kit.protocol(), kit.environment(), kit.workload()
    impls = [kit.implementation(f"proj-{i}", name=f"impl-{i}") for i in range(3)]
    honest = kit.run(protocol, env, impls[0], workload, latency=50, name="honest")
    incorrect = kit.run(protocol, env, impls[1], workload, latency=5, name="incorrect")
    incorrect["spec"]["correctness"] = {"passed": False, "maxAbsoluteError": 1e9}
    incorrect["spec"]["sourceNative"] = {"source": "sol-execbench",
                                         "status": "INCORRECT_NUMERICAL"}
    fabricated = kit.run(protocol, env, impls[2], workload, latency=7, name="fabricated",
                         native={"metrics": {"sol_score": 7.5}})
    fabricated["spec"]["sourceNative"]["source"] = "sol-execbench"
    return [protocol, env, workload, *impls, honest], incorrect, fabricated


def test_the_rules_say_what_is_contradicted(kit):
    _, incorrect, fabricated = _cheat(kit)
    assert [tuple(c) for c in run_contradictions(incorrect["spec"])] == [
        ("KI222", "/spec/status", PASSED_BUT_FAILED,
         "status passed, correctness.passed false"),
        ("KI222", "/spec/status", NATIVE_INCORRECT,
         "status passed, source status INCORRECT_NUMERICAL")]
    assert [tuple(c) for c in run_contradictions(fabricated["spec"])] == [
        ("KI223", "/spec/sourceNative/metrics/sol_score", SOL_7_5,
         "sol_score 7.5 outside [0, 1]")]
    honest = dict(incorrect["spec"], status="incorrect")  # what the source said: fine
    assert run_contradictions(honest) == []
    # another source's status words are its own; a bound is per source
    other = dict(incorrect["spec"], sourceNative={"source": "kernelbench", "status": "INCORRECT",
                                                  "metrics": {"sol_score": 7.5}},
                 correctness={"passed": True})
    assert run_contradictions(other) == []
    assert run_contradictions("not a spec") == []


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_a_sol_score_is_refused_exactly_outside_zero_to_one(score):
    for key in ("sol_score", "median_latency_sol_score"):
        spec = {"status": "passed",
                "sourceNative": {"source": "sol-execbench", "metrics": {key: score}}}
        found = [c.rule for c in run_contradictions(spec)]
        assert found == ([] if 0.0 <= score <= 1.0 else ["KI223"])


def test_add_refuses_each_with_its_pointer(store, kit, runner, tmp_path):
    docs, incorrect, fabricated = _cheat(kit)
    add_docs(store, docs)
    with pytest.raises(KistoreError) as caught:
        store.add([Manifest.from_document(incorrect)], commit=True)
    said = [(p.pointer, p.message) for p in caught.value.problems]
    assert said == [("/spec/status", f"{PASSED_BUT_FAILED} (KI222)"),
                    ("/spec/status", f"{NATIVE_INCORRECT} (KI222)")]
    path = tmp_path / "fabricated.json"
    path.write_text(json.dumps(fabricated))
    done = runner.invoke(main, ["--store", str(store.root), "add", "--commit", str(path)])
    assert done.exit_code == 1, done.output
    assert f"{path}:" in done.stderr and f"/spec/sourceNative/metrics/sol_score: {SOL_7_5}" \
        " (KI223)" in done.stderr
    assert not (store.root / layout.object_path(Manifest.from_document(fabricated).digest)
                ).exists()


@pytest.fixture
def past_the_gate(store, kit, monkeypatch):
    """The two runs committed past add's refusal (by hand, or before these rules): base."""
    docs, incorrect, fabricated = _cheat(kit)
    add_docs(store, docs)
    base = git(store.root, "rev-parse", "HEAD").strip()
    with monkeypatch.context() as m:
        m.setattr("kistore.store.run_facts.run_contradictions", lambda spec: [])
        add_docs(store, [incorrect, fabricated])
    return base, incorrect, fabricated


def _said(findings):
    return [(f.rule.id, f.severity, f.file, f.pointer, f.message) for f in findings
            if f.rule.id in ("KI222", "KI223", "KI224")]


def test_check_and_verify_report_them_as_errors(store, past_the_gate):
    base, incorrect, fabricated = past_the_gate
    wrong = layout.object_path(Manifest.from_document(incorrect).digest)
    made_up = layout.object_path(Manifest.from_document(fabricated).digest)
    expected = sorted([
        ("KI222", "error", wrong, "/spec/status", PASSED_BUT_FAILED),
        ("KI222", "error", wrong, "/spec/status", NATIVE_INCORRECT),
        ("KI223", "error", made_up, "/spec/sourceNative/metrics/sol_score", SOL_7_5)])
    assert sorted(_said(check_range(store, f"{base}..HEAD"))) == expected
    for at in (None, "HEAD"):
        assert sorted(_said(verify(store, at))) == expected


def test_rank_leaves_them_out_saying_why(store, past_the_gate, runner):
    _, ranking = rank(store, "BenchmarkRun/honest")
    assert [(r.record.name, r.rank) for r in ranking.ranked] == [("honest", 1)]
    assert sorted((r.record.name, r.reason) for r in ranking.excluded) == [
        ("fabricated", "contradicts itself: sol_score 7.5 outside [0, 1] (KI223)"),
        ("incorrect", "contradicts itself: status passed, correctness.passed false (KI222); "
                      "status passed, source status INCORRECT_NUMERICAL (KI222)")]
    done = runner.invoke(main, ["--store", str(store.root), "rank", "BenchmarkRun/honest"])
    assert done.exit_code == 0, done.output
    lines = done.stdout.splitlines()
    assert len(lines) == 2 and lines[1].startswith("    1") and " honest " in lines[1]
    done = runner.invoke(main, ["--store", str(store.root), "rank", "--all",
                                "BenchmarkRun/honest"])
    said = [line for line in done.stdout.splitlines() if " fabricated " in line]
    assert said[0].startswith("    -") and said[0].endswith(
        "(contradicts itself: sol_score 7.5 outside [0, 1] (KI223))")


def test_no_imported_run_contradicts_itself(imported_store):
    """The real data (all three sources) keeps every run: none is refused or left out."""
    findings = verify(imported_store)
    assert _said(findings) == []


# Review r88 F3: a ranked metric that is no number is KI223 too (it can never rank).
@pytest.mark.parametrize(("value", "said", "shown"), [
    (True, "a boolean true", "true"), ("0.99", 'a string "0.99"', '"0.99"'),
    ({"v": 1}, 'an object {"v": 1}', '{"v": 1}'), (None, "null", "null"),
    ([0.5], "an array [0.5]", "[0.5]")])
def test_a_sol_score_that_is_no_number_is_refused(value, said, shown):
    for key in ("sol_score", "median_latency_sol_score"):
        spec = {"status": "passed",
                "sourceNative": {"source": "sol-execbench", "metrics": {key: value}}}
        assert [tuple(c) for c in run_contradictions(spec)] == [(
            "KI223", f"/spec/sourceNative/metrics/{key}",
            f"sol-execbench's {key} is a number in [0, 1] (1 is the speed-of-light bound, "
            f"0.5 the scoring baseline); the run states {said}, which can never rank",
            f"{key} {shown} is not a number")]
    # absent, or another source's metric of that key: nothing to say
    assert run_contradictions({"sourceNative": {"source": "sol-execbench", "metrics": {}}}) == []
    assert run_contradictions({"sourceNative": {"source": "mine",
                                                "metrics": {"sol_score": value}}}) == []


# Review r88 F4: latency statistics no set of trials gives (KI228).
MINMAX = {"mean": 13634148, "min": 20000000, "max": 10}


def test_the_reviewers_timing_is_three_contradictions():
    found = run_contradictions({"timing": {"latencyNs": MINMAX, "primaryStatistic": "mean"}})
    assert [(c.rule, c.pointer, c.short) for c in found] == [
        ("KI228", "/spec/timing/latencyNs/mean", "latencyNs mean 13634148 > max 10"),
        ("KI228", "/spec/timing/latencyNs/min", "latencyNs min 20000000 > max 10"),
        ("KI228", "/spec/timing/latencyNs/min", "latencyNs min 20000000 > mean 13634148")]
    assert found[2].message == (
        "the run states min 20000000 ns (/spec/timing/latencyNs/min) above mean 13634148 ns "
        "(/spec/timing/latencyNs/mean): no set of trials has a min above its mean")


def _statistics(trials: list[float]) -> dict[str, float]:
    """What a source computes over ``trials``: every statistic name the schema admits."""
    import statistics
    cuts = statistics.quantiles(trials, n=100, method="inclusive") if len(trials) > 1 \
        else [trials[0]] * 99
    return {"min": min(trials), "max": max(trials), "mean": statistics.fmean(trials),
            "median": statistics.median(trials), "geomean": statistics.geometric_mean(trials),
            "std": statistics.pstdev(trials), "p0": min(trials),
            **{f"p{n}": cuts[n - 1] for n in (1, 5, 10, 25, 50, 75, 90, 95, 99)}}


_TRIALS = st.lists(st.floats(min_value=1, max_value=1e12, allow_nan=False), min_size=1,
                   max_size=30)


@given(_TRIALS, st.data())
def test_statistics_of_real_trials_never_contradict(trials, data):
    stats = _statistics(trials)
    chosen = data.draw(st.lists(st.sampled_from(sorted(stats)), unique=True, min_size=1))
    spec = {"timing": {"latencyNs": {k: stats[k] for k in chosen}}}
    assert run_contradictions(spec) == []


ORDERED = [("min", "mean"), ("mean", "max"), ("min", "max"), ("min", "median"),
           ("median", "max"), ("p10", "p90"), ("p50", "p99"), ("median", "p90"),
           ("p5", "median"), ("min", "p1"), ("geomean", "max"), ("p0", "p5")]


@given(_TRIALS, st.sampled_from(ORDERED), st.floats(min_value=1e-6, max_value=10))
def test_two_statistics_out_of_order_are_named_with_both_pointers(trials, pair, by):
    stats = _statistics(trials)
    low, high = pair
    stated = {low: stats[high] * (1 + by) + 1, high: stats[high]}  # low above high
    found = run_contradictions({"timing": {"latencyNs": stated}})
    assert [(c.rule, c.pointer) for c in found] == [("KI228", f"/spec/timing/latencyNs/{low}")]
    assert f"(/spec/timing/latencyNs/{high})" in found[0].message
    # std is a spread, not a latency of a trial: no order binds it
    assert run_contradictions({"timing": {"latencyNs": {"std": 1e9, "max": 5}}}) == []


def _pairwise(latency):
    """KI228 as judged before the ordered pairs were cached: every pair of names asked.

    Then each pair of names of one quantile whose values differ (fresh13 F6), in order.
    """
    from kistore.core.contradictions import (
        STATISTIC_SLACK,
        _one_quantile_differs,
        _ordered,
        _rank,
        out_of_order,
    )
    values = {k: v for k, v in latency.items() if k != "std"
              and isinstance(v, int | float) and not isinstance(v, bool)}
    names = sorted(values) if len(values) >= 2 else []
    one = [_one_quantile_differs(a, values[a], b, values[b]) for a in names for b in names
           if a < b and _rank(a) is not None and _rank(a) == _rank(b)]
    return [out_of_order(low, values[low], high, values[high])
            for low in names for high in names
            if low != high and _ordered(low, high) and values[low] - values[high]
            > STATISTIC_SLACK * max(abs(values[low]), abs(values[high]))] + \
        [c for c in one if c is not None]


_NAMES = st.sampled_from(["min", "max", "mean", "median", "geomean", "std", "p0", "p1", "p5",
                          "p50", "p90", "p99", "p100", "P50", "mean ", "pp5", "p05", "a/b"])


@given(st.dictionaries(_NAMES | st.text(max_size=4), st.one_of(
    st.floats(allow_nan=False, allow_infinity=False, width=32), st.integers(-10, 10),
    st.booleans(), st.text(max_size=2)), max_size=8))
def test_the_cached_ordered_pairs_find_what_every_pair_asked_finds(latency):
    """KI228 from the cached pairs of names: what the old double loop found, in its order."""
    from kistore.core.contradictions import latency_contradictions

    def ordered(found):  # a std's bound (test_latency_trials) is no pair of the order,
        # nor AM-GM's geomean above mean (stat08; {"mean": 0.0, "geomean": 2.0} failed here)
        return [c for c in found if c.pointer != "/spec/timing/latencyNs/std"
                and "(the AM-GM inequality)" not in c.message]

    assert ordered(latency_contradictions(latency)) == _pairwise(latency)
    assert ordered(latency_contradictions(dict(reversed(latency.items())))) == \
        _pairwise(latency)


def test_the_cached_pairs_still_report_a_reordered_timing():
    """A cached answer for one set of names serves another run with other values."""
    from kistore.core.contradictions import latency_contradictions
    assert latency_contradictions({"min": 1, "median": 2, "max": 3}) == []
    found = latency_contradictions({"min": 1, "median": 4, "max": 3})
    assert [c.short for c in found] == ["latencyNs median 4 > max 3"]


def test_add_refuses_contradicting_timing_and_check_and_verify_report_it(
        store, kit, runner, tmp_path, monkeypatch):
    protocol, env, workload = kit.protocol(), kit.environment(), kit.workload()
    impl = kit.implementation("proj", name="impl")
    run = kit.run(protocol, env, impl, workload, latency=dict(MINMAX), name="minmax")
    add_docs(store, [protocol, env, workload, impl])
    path = tmp_path / "minmax.json"
    path.write_text(json.dumps(run))
    done = runner.invoke(main, ["--store", str(store.root), "add", "--commit", str(path)])
    assert done.exit_code == 1, done.output
    assert (f"{path}:/spec/timing/latencyNs/min: the run states min 20000000 ns "
            "(/spec/timing/latencyNs/min) above max 10 ns (/spec/timing/latencyNs/max): no set "
            "of trials has a min above its max (KI228)") in done.stderr
    base = git(store.root, "rev-parse", "HEAD").strip()
    with monkeypatch.context() as m:  # committed past add's refusal (before the rule)
        m.setattr("kistore.store.run_facts.run_contradictions", lambda spec: [])
        add_docs(store, [run])
    obj = layout.object_path(Manifest.from_document(run).digest)
    expected = [("KI228", "error", obj, "/spec/timing/latencyNs/mean"),
                ("KI228", "error", obj, "/spec/timing/latencyNs/min"),
                ("KI228", "error", obj, "/spec/timing/latencyNs/min")]

    def said(findings):
        return sorted((f.rule.id, f.severity, f.file, f.pointer) for f in findings
                      if f.rule.id == "KI228")

    assert said(check_range(store, f"{base}..HEAD")) == expected
    assert said(verify(store)) == expected
    _, ranking = rank(store, "BenchmarkRun/minmax")
    assert [r.reason for r in ranking.excluded] == [
        "contradicts itself: latencyNs mean 13634148 > max 10 (KI228); latencyNs min 20000000 "
        "> max 10 (KI228); latencyNs min 20000000 > mean 13634148 (KI228)"]
