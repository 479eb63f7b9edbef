"""A ranking policy may not rank by a spread nor a count, wherever it lies (fresh16 F4, F7).

fresh15 F4 made the policy's schema refuse one pointer, ``/timing/latencyNs/std``.
KernelBench's own ``/sourceNative/metrics/std`` (the same spread, in ms, on every KernelBench
run) still ranked, said "by the source's own metric", and ``/timing/trials`` ranked printed
as "100 ns" (fresh16 F4, F7). Now a metric is ``/timing/latencyNs/`` and a location
statistic, or under ``/sourceNative/`` with no spread and no count in its name
(:mod:`kistore.core.policy_metric`), refused (KI206) by the schema, by ``rank`` and ``show``
loading the policy, by ``check`` and pre-receive on every commit, and by ``verify``.
"""

from __future__ import annotations

import json
import os
import re
import subprocess

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kistore.check._policy import check_policy, policy_problems
from kistore.cli import main
from kistore.core.errors import MultipleErrors
from kistore.core.layout import POLICY_FILE
from kistore.core.policy_metric import (
    COUNT_WORDS,
    LOCATION,
    SPREAD_WORDS,
    metric_patterns,
    metric_problem,
)
from kistore.core.schema import _ecma_regex, _fast_validator, load_schema
from kistore.query.policy import parse_policy

from ..conftest import add_docs, commit_all, git, latency_group
from ..prs import KISTORE, Remote
from .test_history_names import add_group

EXPECTED = (
    "expected /timing/latencyNs/ and a location statistic (mean, median, min, max, geomean, "
    "or p and a percentile, p0 to p99; min also as p0 or p00, median as p50), or a metric of "
    "the source's own under /sourceNative/ (/sourceNative/metrics/sol_score) whose name is no "
    "spread nor count (docs/queries.md, \"Comparisons and the ranking policy\"): rank by one, "
    "or make the family 'measured' (its protocol's primary statistic)")


def spread(metric: str, word: str) -> str:
    """KI206's words of a metric naming a spread."""
    return (f"field 'metric': {metric} is a spread ({word!r}), how far a run's trials lie "
            "apart, not where its latencies lie: ranked by it, runs rank by their noise (a "
            "protocol's primaryStatistic may not be std either, KI104); " + EXPECTED)


def count(metric: str, word: str) -> str:
    """KI206's words of a metric naming a count."""
    return (f"field 'metric': {metric} is a count ({word!r}), how many times a run was timed "
            "or of what, not how fast it ran: ranked by it, runs rank by how long they were "
            "measured, each printed in the family's unit; " + EXPECTED)


def elsewhere(metric: str) -> str:
    """KI206's words of a metric neither a latency statistic nor the source's own."""
    return (f"field 'metric': {metric} is neither a location statistic of the run's latencies "
            "nor a metric of the source's own: ranked by it, runs rank by something other "
            "than their speed; " + EXPECTED)


KI206_FIX = ("fix KI206 (1 finding): fix store/policy/ranking.json so it is strict JSON valid "
             "against schemas/RankingPolicy.json (every `kistore rank` fails until then)")


def _rank_by(root, metric: str, family: str = "synthetic", unit: str = "ms") -> None:
    """Write fresh16 F4's policy entry: ``family`` ranks ``metric`` source-native, ascending."""
    path = root / POLICY_FILE
    policy = json.loads(path.read_text())
    policy["families"][family] = {"comparison": "source-native", "metric": metric,
                                  "order": "ascending", "unit": unit}
    path.write_text(json.dumps(policy, indent=2) + "\n")


def _error_lines(output: str) -> list[str]:
    """The lines of ``check``'s or a push's output that say an error."""
    return [line.rstrip() for line in output.splitlines() if " error " in line]


def _said(metric: str) -> list[str]:
    """KI206's messages of a policy whose one family ranks ``metric``."""
    return [p.message for p in policy_problems(json.dumps({"families": {"f": {
        "comparison": "source-native", "metric": metric, "order": "ascending"}}}).encode())[1]]


def _schema_refuses(metric: str) -> bool:
    """Whether ``schemas/RankingPolicy.json``'s patterns alone refuse ``metric``."""
    patterns = metric_patterns()
    return not _ecma_regex(patterns["where"]).search(metric) or any(
        _ecma_regex(patterns[p]).search(metric) for p in ("spread", "count"))


def _fast_valid(metric: str) -> bool:
    """Whether jsonschema-rs (the fast validator, its own regular expressions) takes a
    policy whose one family ranks ``metric``."""
    return _fast_validator("RankingPolicy.json").is_valid({"families": {"f": {
        "comparison": "source-native", "metric": metric, "order": "ascending"}}})


# --- what a metric may be -------------------------------------------------------------

@pytest.mark.parametrize(("metric", "said"), [
    # fresh16 F4: KernelBench's own std (ms), and its trial count
    ("/sourceNative/metrics/std", spread("/sourceNative/metrics/std", "std")),
    ("/sourceNative/metrics/num_trials", count("/sourceNative/metrics/num_trials", "trials")),
    # fresh15 F4, kept
    ("/timing/latencyNs/std", spread("/timing/latencyNs/std", "std")),
    ("/timing/latencyNs/std/x", spread("/timing/latencyNs/std/x", "std")),
    # fresh16 F7: a count under /timing, printed "100 ns"
    ("/timing/trials", count("/timing/trials", "trials")),
    ("/timing/warmup", count("/timing/warmup", "warmup")),
    # anything else under /timing, or outside /timing/latencyNs and /sourceNative
    ("/timing/latencyNs/mean/x", elsewhere("/timing/latencyNs/mean/x")),
    ("/timing/latencyNs", elsewhere("/timing/latencyNs")),
    ("/timing/latencyNs/Mean", elsewhere("/timing/latencyNs/Mean")),
    ("/correctness/maxAbsoluteError", elsewhere("/correctness/maxAbsoluteError")),
    ("/sourceNative", elsewhere("/sourceNative")),
    ("/sourceNative/", elsewhere("/sourceNative/")),
    # spellings: case, words, camel case, separators
    ("/sourceNative/metrics/STD", spread("/sourceNative/metrics/STD", "std")),
    ("/sourceNative/metrics/latencyStdMs", spread("/sourceNative/metrics/latencyStdMs", "std")),
    ("/sourceNative/metrics/Std_Dev", spread("/sourceNative/metrics/Std_Dev", "std")),
    ("/sourceNative/metrics/stddev", spread("/sourceNative/metrics/stddev", "stddev")),
    ("/sourceNative/metrics/standard-deviation",
     spread("/sourceNative/metrics/standard-deviation", "deviation")),
    ("/sourceNative/metrics/coefficient_of_variation",
     spread("/sourceNative/metrics/coefficient_of_variation", "variation")),
    ("/sourceNative/metrics/runtime.VAR", spread("/sourceNative/metrics/runtime.VAR", "var")),
    ("/sourceNative/metrics/latency_iqr_ms",
     spread("/sourceNative/metrics/latency_iqr_ms", "iqr")),
    ("/sourceNative/metrics/CV", spread("/sourceNative/metrics/CV", "cv")),
    ("/sourceNative/std/mean", spread("/sourceNative/std/mean", "std")),
    ("/sourceNative/metrics/nTrials", count("/sourceNative/metrics/nTrials", "trials")),
    ("/sourceNative/metrics/fast_1_count", count("/sourceNative/metrics/fast_1_count", "count")),
    ("/sourceNative/metrics/sample~1count",
     count("/sourceNative/metrics/sample~1count", "count")),
])
def test_a_metric_may_not_point_at_a_spread_a_count_or_elsewhere(metric, said):
    # on BASE 6af42bf9 only /timing/latencyNs/std (and under it) was refused
    assert _said(metric) == [said]
    assert _schema_refuses(metric) and not _fast_valid(metric), metric


@pytest.mark.parametrize("metric", [
    "/sourceNative/metrics/sol_score", "/sourceNative/metrics/latency_ms",
    "/sourceNative/metrics/median_latency_sol_score", "/sourceNative/metrics/speedup_factor",
    "/sourceNative/metrics/mean", "/sourceNative/metrics/min", "/sourceNative/metrics/p50",
    "/sourceNative/metrics/avg_speedup", "/sourceNative/metrics/fast_1_total",
    "/sourceNative/metrics/sdpa_ms", "/sourceNative/metrics/variant_score",
    "/sourceNative/metrics/standardized_score", "/sourceNative/metrics/latency_total",
    "/sourceNative/metrics/edges_s", "/sourceNative/metrics/device",
    # fresh17 F3: a nested token and unsplit words that name no count nor spread
    "/sourceNative/metrics/latency_ms/value", "/sourceNative/metrics/sol_score/0",
    "/sourceNative/metrics/nvidia_score", "/sourceNative/metrics/numeric_score",
    "/sourceNative/metrics/sample_latency_ms", "/sourceNative/metrics/dims",
    # every spelling KI228 reads as one statistic (min as p0, p00; median as p50)
    *(f"/timing/latencyNs/{s}" for s in ("mean", "median", "p50", "min", "p0", "p00", "max",
                                         "geomean", "p90", "p99", "p09")),
])
def test_a_location_statistic_or_the_source_s_own_metric_ranks(metric):
    assert _said(metric) == []
    assert not _schema_refuses(metric) and _fast_valid(metric), metric


FRESH17_F3 = [
    # a count under a nested pointer: only the last token was read
    ("/sourceNative/metrics/num_trials/value",
     count("/sourceNative/metrics/num_trials/value", "trials")),
    ("/sourceNative/metrics/num_trials/0", count("/sourceNative/metrics/num_trials/0", "trials")),
    ("/sourceNative/num_trials/metrics/latency_ms",
     count("/sourceNative/num_trials/metrics/latency_ms", "trials")),
    # unsplit spellings
    ("/sourceNative/metrics/ntrials", count("/sourceNative/metrics/ntrials", "ntrials")),
    ("/sourceNative/metrics/numtrials", count("/sourceNative/metrics/numtrials", "numtrials")),
    ("/sourceNative/metrics/NUMTRIALS", count("/sourceNative/metrics/NUMTRIALS", "numtrials")),
    ("/sourceNative/metrics/numberOfTrials",
     count("/sourceNative/metrics/numberOfTrials", "trials")),
    ("/sourceNative/metrics/latencyNtrials",
     count("/sourceNative/metrics/latencyNtrials", "ntrials")),
    ("/sourceNative/metrics/ntrials/value",
     count("/sourceNative/metrics/ntrials/value", "ntrials")),
    ("/sourceNative/metrics/sample_size", count("/sourceNative/metrics/sample_size", "samplesize")),
    ("/sourceNative/metrics/samplesize", count("/sourceNative/metrics/samplesize", "samplesize")),
    ("/sourceNative/metrics/n_iter", count("/sourceNative/metrics/n_iter", "iter")),
    ("/sourceNative/metrics/niter", count("/sourceNative/metrics/niter", "niter")),
    ("/sourceNative/metrics/nruns", count("/sourceNative/metrics/nruns", "nruns")),
    ("/sourceNative/metrics/stdv", spread("/sourceNative/metrics/stdv", "stdv")),
    ("/sourceNative/metrics/stdevs", spread("/sourceNative/metrics/stdevs", "stdevs")),
    ("/sourceNative/metrics/latencyStds", spread("/sourceNative/metrics/latencyStds", "stds")),
    ("/sourceNative/metrics/VARIANCES", spread("/sourceNative/metrics/VARIANCES", "variances")),
    ("/sourceNative/metrics/\u03c3", spread("/sourceNative/metrics/\u03c3", "\u03c3")),
    ("/sourceNative/metrics/latency_\u03c3_ms",
     spread("/sourceNative/metrics/latency_\u03c3_ms", "\u03c3")),
]


@pytest.mark.parametrize(("metric", "said"), FRESH17_F3)
def test_a_nested_count_and_unsplit_spellings_are_refused(metric, said):
    # on BASE dbfd98fe each of these was allowed: _said == [], rank ranked by it
    assert _said(metric) == [said]
    with pytest.raises(MultipleErrors) as raised:
        parse_policy(json.dumps({"families": {"f": {
            "comparison": "source-native", "metric": metric, "order": "ascending"}}}).encode(),
            file=POLICY_FILE)
    assert [(e.file, e.pointer, e.message) for e in raised.value.errors] == [
        (POLICY_FILE, "/families/f/metric", said)]
    assert _schema_refuses(metric) and not _fast_valid(metric), metric


def _metrics(*names: str) -> list[str]:
    return [f"/sourceNative/metrics/{n}" for n in names]


# fresh17 F3's rest (pol04): an interval's width and its words, uncertainty, noise, a range
# between two location statistics; each allowed on BASE fb53db7b
POL04 = [(m, spread(m, word)) for m, word in [
    *zip(_metrics("ci", "ci95", "ci_99_ms", "latency_CI95", "CIs"), ["ci"] * 4 + ["cis"],
         strict=True),
    ("/sourceNative/metrics/confidence_interval", "confidence"),
    ("/sourceNative/metrics/interquartile", "interquartile"),
    ("/sourceNative/metrics/uncertainty", "uncertainty"),
    ("/sourceNative/metrics/noise", "noise"),
    ("/sourceNative/metrics/margin_of_error", "margin"),
    ("/sourceNative/metrics/error_bar", "errorbar"),
    ("/sourceNative/metrics/errorBars", "errorbars"),
    ("/sourceNative/metrics/half_width", "halfwidth"),
    ("/sourceNative/metrics/halfwidth/value", "halfwidth"),
    ("/sourceNative/metrics/p95_p5", "p95_p5"),
    ("/sourceNative/metrics/P99-P1", "p99-p1"),
    ("/sourceNative/metrics/p90_minus_p10_ms", "p90_minus_p10_ms"),
    ("/sourceNative/metrics/min_max_gap", "min_max_gap"),
    ("/sourceNative/metrics/latencyMinMax", "latencyminmax"),
    ("/sourceNative/p95_p5/latency_ms", "p95_p5"),
]]

# names of a latency, a speed or a score that must rank, whatever the word lists grow to
HONEST = _metrics(
    "latency_ms", "time_us", "median_ms", "runtime", "speedup", "gflops", "tflops",
    "bandwidth_gbps", "throughput", "cycles", "score", "fast_1", "p50_ms", "p99_ms",
    "latency_p95_ms", "min_latency_ms", "max_throughput", "max_error", "sol_gap",
    "sample_interval_ms", "width", "precision", "circle_time", "cinema", "marginal_ms",
    "noisefree_ms", "p95", "p9_ms")


@pytest.mark.parametrize(("metric", "said"), POL04)
def test_an_interval_noise_and_a_range_are_spreads(metric, said):
    assert _said(metric) == [said]
    # the schema's range reads ASCII separators only: camel case is the rule's (as latencyStd)
    schema = metric != "/sourceNative/metrics/latencyMinMax"
    assert (_schema_refuses(metric), _fast_valid(metric)) == (schema, not schema), metric


@pytest.mark.parametrize("metric", HONEST)
def test_an_honest_name_of_a_latency_or_a_score_ranks(metric):
    assert (_said(metric), metric_problem(metric)) == ([], None)
    assert not _schema_refuses(metric) and _fast_valid(metric), metric


def test_the_schema_holds_the_rule_s_patterns():
    metric = load_schema("RankingPolicy.json")["properties"]["families"][
        "additionalProperties"]["properties"]["metric"]
    rules = metric["then"]["allOf"]
    assert [rules[0]["pattern"], rules[1]["not"]["pattern"], rules[2]["not"]["pattern"]] == [
        metric_patterns()["where"], metric_patterns()["spread"], metric_patterns()["count"]]
    assert metric["if"] == {"type": "string", "pattern": metric["pattern"]}
    assert f"^({LOCATION})$" == load_schema("common.json")["$defs"]["locationStatistic"][
        "pattern"]


def test_the_schema_alone_says_it_without_the_rule():
    from kistore.core.schema import check_document

    said = [(f.pointer, f.message) for f in check_document({"families": {"f": {
        "comparison": "source-native", "metric": "/sourceNative/metrics/std",
        "order": "ascending"}}}, "RankingPolicy.json")]
    assert said == [("/families/f/metric", (
        "field 'metric': this metric is a spread, how far a run's trials lie apart, not where "
        "its latencies lie: ranked by it, runs rank by their noise (a protocol's "
        "primaryStatistic may not be std either, KI104); " + EXPECTED))]
    # a value that is no pointer is said once, as no pointer; a number as a number
    assert _said("std") == [
        "field 'metric': 'std' is not a JSON Pointer: '/' and a key, once or more (RFC 6901), "
        "e.g. /sourceNative/metrics/sol_score"]
    assert [p.message for p in policy_problems(json.dumps({"families": {"f": {
        "comparison": "source-native", "metric": 7, "order": "ascending"}}}).encode())[1]] == [
        "field 'metric': expected a string, found an integer"]


def _spelled(word: str, cases: list[bool]) -> str:
    return "".join(c.upper() if up else c for c, up in zip(word, cases, strict=False))


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])  # a shared machine
@given(st.sampled_from(SPREAD_WORDS), st.lists(st.booleans(), min_size=16, max_size=16),
       st.sampled_from(["", "latency_", "runtime-", "kernel.", "x1_", "a~1"]),
       st.sampled_from(["", "_ms", "-ns", ".p50", "2", "_of_runs"]),
       st.sampled_from(["/sourceNative/metrics/", "/sourceNative/", "/timing/latencyNs/",
                        "/timing/", "/sourceNative/by/", "/correctness/"]))
def test_every_spelling_of_a_spread_is_refused(word, cases, before, after, where):
    metric = f"{where}{before}{_spelled(word, cases)}{after}"
    said = _said(metric)
    named = re.match(rf"field 'metric': {re.escape(metric)} is a spread \('([a-z]+)'\), ",
                     said[0]) if len(said) == 1 else None
    assert named and named.group(1) in SPREAD_WORDS, (metric, said)
    assert _schema_refuses(metric), metric


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])  # a shared machine
@given(st.sampled_from(COUNT_WORDS), st.lists(st.booleans(), min_size=12, max_size=12),
       st.sampled_from(["", "num_", "total-", "warm.", "n_", "fast_1_"]))
def test_every_spelling_of_a_count_is_refused(word, cases, before):
    metric = f"/sourceNative/metrics/{before}{_spelled(word, cases)}"
    said = _said(metric)
    assert len(said) == 1 and " is a count (" in said[0], (metric, said)
    assert _schema_refuses(metric), metric


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])  # a shared machine
@given(st.text(alphabet="/~01_-.SsTtDdNnRrIiAaLlMmEeVvCcxXé\n", max_size=30))
def test_the_schema_refuses_nothing_the_rule_lets_rank(text):
    metric = "/" + text
    if _schema_refuses(metric):
        assert metric_problem(metric) is not None, metric


# --- where the policy enters ----------------------------------------------------------

def test_verify_says_it(store, kit):
    add_docs(store, latency_group(kit, {"fast": 1000, "slow": 3000}))
    _rank_by(store.root, "/timing/trials", unit="ns")
    assert [(f.rule.id, f.file, f.pointer, f.message) for f in check_policy(store)] == [
        ("KI206", POLICY_FILE, "/families/synthetic/metric",
         count("/timing/trials", "trials"))]


def _refused_by_query(metric: str, said: str) -> str:
    """What ``rank`` and ``show`` say on stderr of a work-tree policy ranking ``metric``."""
    return (f"error: {POLICY_FILE}:/families/synthetic/metric: {said}; correct {POLICY_FILE} "
            "as docs/queries.md, \"Comparisons and the ranking policy\", says (a family takes "
            "`comparison` measured, or source-native with `metric`, a JSON Pointer into the "
            "run's spec, and `order`, ascending or descending), or restore the committed "
            f"one: `git checkout HEAD -- {POLICY_FILE}`\n")


@pytest.mark.parametrize(("metric", "said"), [
    ("/sourceNative/metrics/std", spread("/sourceNative/metrics/std", "std")),
    ("/timing/trials", count("/timing/trials", "trials")),
    # fresh17 F3
    ("/sourceNative/metrics/num_trials/value",
     count("/sourceNative/metrics/num_trials/value", "trials")),
    ("/sourceNative/metrics/ntrials", count("/sourceNative/metrics/ntrials", "ntrials")),
])
@pytest.mark.parametrize("command", ["rank", "show"])
def test_rank_and_show_refuse_a_work_tree_policy_ranking_by_it(store, runner, kit, metric,
                                                               said, command):
    # on BASE 6af42bf9: "1 ranked by the source's own metric, /sourceNative/metrics/std ..."
    # and "... by the ranking policy's metric, /timing/trials ... 100 ns"
    digests = add_docs(store, latency_group(kit, {"fast": 1000, "slow": 3000}))
    _rank_by(store.root, metric)
    done = runner.invoke(main, ["--store", str(store.root), command, digests[-1]])
    assert (done.exit_code, done.stdout, done.stderr) == (
        1, "", _refused_by_query(metric, said))


def test_pre_receive_refuses_kernelbench_s_own_std(published, tmp_path, kit):
    remote = Remote(published, tmp_path)
    assert remote.pr("group", lambda c: add_group(remote, kit, {"fast": 1000, "slow": 3000},
                                                  ("std", "latency_ms"))).accepted
    refused = remote.pr("policy: rank by its std",
                        lambda clone: _rank_by(clone, "/sourceNative/metrics/std"))
    assert (refused.accepted, _error_lines(refused.output)) == (False, [
        f"remote: {POLICY_FILE}:/families/synthetic/metric: error KI206 policy-invalid: "
        f"{spread('/sourceNative/metrics/std', 'std')}"]), refused.output


def _two_commits(root) -> None:
    """fresh16 F4 in two steps, each passing on BASE: a family ranking its latency, then the
    same family's metric changed to its ``StdDev``."""
    _rank_by(root, "/sourceNative/metrics/latency_ms")
    commit_all(root, "policy: rank by the source's latency")
    path = root / POLICY_FILE
    policy = json.loads(path.read_text())
    policy["families"]["synthetic"]["metric"] = "/sourceNative/metrics/StdDev"
    path.write_text(json.dumps(policy, indent=2) + "\n")
    commit_all(root, "policy: the source's other column")


def _group_holding(kit, metrics: tuple[str, ...]) -> list[dict]:
    """One comparison group, its two runs stating ``metrics`` under ``sourceNative.metrics``."""
    protocol, env, workload = kit.protocol(), kit.environment(), kit.workload()
    docs = [protocol, env, workload]
    for name, latency in (("fast", 1000), ("slow", 3000)):
        impl = kit.implementation(f"proj-{name}", name=f"impl-{name}")
        docs += [impl, kit.run(protocol, env, impl, workload, latency=latency, name=name,
                               native={"metrics": {m: latency / 1000 for m in metrics}})]
    return docs


def test_check_refuses_the_second_of_two_commits(store, runner, kit):
    add_docs(store, _group_holding(kit, ("StdDev", "latency_ms")))
    _two_commits(store.root)
    first = runner.invoke(main, ["--store", str(store.root), "check", "HEAD~2..HEAD~1"])
    assert first.exit_code == 0, first.output
    done = runner.invoke(main, ["--store", str(store.root), "check", "HEAD~2..HEAD"])
    assert (done.exit_code, _error_lines(done.output)) == (1, [
        f"{POLICY_FILE}:/families/synthetic/metric: error KI206 policy-invalid: "
        f"{spread('/sourceNative/metrics/StdDev', 'stddev')}"]), done.output


def test_pre_receive_refuses_two_commits_pushed_together(published, tmp_path, kit):
    remote = Remote(published, tmp_path)
    assert remote.pr("group", lambda c: add_group(remote, kit, {"fast": 1000, "slow": 3000},
                                                  ("StdDev", "latency_ms"))).accepted
    before = remote.main()
    _two_commits(remote.clone)
    pushed = subprocess.run(["git", "push", "origin", "HEAD:main"], cwd=remote.clone,
                            capture_output=True, text=True,
                            env={**os.environ, "KISTORE": KISTORE})
    assert (pushed.returncode != 0, remote.main(), _error_lines(pushed.stderr)) == (
        True, before, [f"remote: {POLICY_FILE}:/families/synthetic/metric: error KI206 "
                       f"policy-invalid: {spread('/sourceNative/metrics/StdDev', 'stddev')}"]), \
        pushed.stderr


def test_two_pull_requests_one_after_the_other(published, tmp_path, kit):
    remote = Remote(published, tmp_path)
    assert remote.pr("group", lambda c: add_group(remote, kit, {"fast": 1000, "slow": 3000},
                                                  ("std", "latency_ms"))).accepted
    assert remote.pr("rank by latency", lambda clone: _rank_by(
        clone, "/sourceNative/metrics/latency_ms")).accepted
    refused = remote.pr("rank by std", lambda clone: _rank_by(
        clone, "/sourceNative/metrics/std"))
    assert not refused.accepted
    assert re.search(r"remote: .*error KI206 policy-invalid: field 'metric': "
                     r"/sourceNative/metrics/std is a spread \('std'\)", refused.output), \
        refused.output


def test_check_names_a_commit_inside_the_range_that_ranked_by_it(store, runner, kit):
    add_docs(store, _group_holding(kit, ("std", "latency_ms")))
    _rank_by(store.root, "/sourceNative/metrics/std")
    commit_all(store.root, "policy: rank by its std")
    _rank_by(store.root, "/sourceNative/metrics/latency_ms")
    commit_all(store.root, "policy: rank by its latency")
    # on BASE 6af42bf9: accepted (the policy valid at every commit)
    done = runner.invoke(main, ["--store", str(store.root), "check", "HEAD~2..HEAD"])
    commit = git(store.root, "rev-parse", "HEAD~1").strip()[:12]
    lines = done.output.splitlines()
    assert (done.exit_code, len(lines), lines[-1]) == (
        1, 3, "FAILED: HEAD~2..HEAD: 1 error, 0 warnings, 0 info"), done.output
    assert lines[0].startswith(
        f"{POLICY_FILE}: error KI410 policy-made-invalid: commit {commit} leaves the ranking "
        f"policy invalid (/families/synthetic/metric: "
        f"{spread('/sourceNative/metrics/std', 'std')}): at that commit every `kistore rank` "
        "fails (KI206 there); "), done.output
