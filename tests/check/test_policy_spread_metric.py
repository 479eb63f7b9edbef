"""A ranking policy may not rank by a spread (fresh15 F4).

Since fresh14 F11 a protocol or run may not name ``std`` as its primary statistic (KI104,
``common.json#/$defs/locationStatistic``): ranked by it, runs rank by how far their trials
lie apart. A ``source-native`` family of ``store/policy/ranking.json`` with ``metric``
``/timing/latencyNs/std`` reached the same ranking, said to rank "by the source's own
metric", and the gate said KI415 (info) only. Now the policy's schema refuses it (KI206, in
``check``, pre-receive and ``verify``; ``rank`` refuses the policy as it does any invalid
one), and "the source's own metric" is said only of a metric under ``/sourceNative/``.
"""

from __future__ import annotations

import json
import re

import pytest

from kistore.check._policy import check_policy
from kistore.cli import main
from kistore.core.layout import POLICY_FILE
from kistore.core.schema import load_schema
from kistore.core.words import comparison_said

from ..conftest import add_docs, commit_all, git, latency_group
from ..prs import Remote
from .test_history_names import add_group
from .test_policy_metric_rule import spread

SPREAD = ("field 'metric': /timing/latencyNs/std is a spread ('std'), how far a run's trials "
          "lie apart, not where its latencies lie: ranked by it, runs rank by their noise (a "
          "protocol's primaryStatistic may not be std either, KI104); expected "
          "/timing/latencyNs/ and a location statistic (mean, median, min, max, geomean, or p "
          "and a percentile, p0 to p99; min also as p0 or p00, median as p50), or a metric of "
          "the source's own under /sourceNative/ (/sourceNative/metrics/sol_score) whose name "
          "is no spread nor count (docs/queries.md, \"Comparisons and the ranking policy\"): "
          "rank by one, or make the family 'measured' (its protocol's primary statistic)")
"""What KI206 says of a policy metric pointing into ``std`` (the schema's description)."""

KI206_FIX = ("fix KI206 (1 finding): fix store/policy/ranking.json so it is strict JSON valid "
             "against schemas/RankingPolicy.json (every `kistore rank` fails until then)")


def _rank_by(root, metric: str, family: str = "synthetic") -> None:
    """Write fresh15 F4's policy entry: ``family`` ranks ``metric`` source-native, ascending."""
    path = root / POLICY_FILE
    policy = json.loads(path.read_text())
    policy["families"][family] = {"comparison": "source-native", "metric": metric,
                                  "order": "ascending", "unit": "ns", "notes": "x"}
    path.write_text(json.dumps(policy, indent=2) + "\n")


@pytest.mark.parametrize(("metric", "said"), [
    ("/timing/latencyNs/std", SPREAD),
    # fresh16 F4: KernelBench's own std, the same spread in ms (on BASE 6af42bf9: KI415 only)
    ("/sourceNative/metrics/std", spread("/sourceNative/metrics/std", "std"))])
def test_check_refuses_a_policy_ranking_by_std(store, runner, kit, metric, said):
    # on BASE 548a13da: "info KI415 ranking-order-changes ...", "ok: ... 0 errors", exit 0
    add_docs(store, latency_group(kit, {"fast": 1000, "slow": 3000}))
    _rank_by(store.root, metric)
    git(store.root, "commit", "-qam", "pol")
    done = runner.invoke(main, ["--store", str(store.root), "check", "HEAD~1..HEAD"])
    assert (done.exit_code, done.output.splitlines()) == (1, [
        f"{POLICY_FILE}:/families/synthetic/metric: error KI206 policy-invalid: {said}",
        KI206_FIX,
        "FAILED: HEAD~1..HEAD: 1 error, 0 warnings, 0 info"]), done.output


def test_verify_and_rank_refuse_it(store, runner, kit):
    digests = add_docs(store, latency_group(kit, {"fast": 1000, "slow": 3000}))
    _rank_by(store.root, "/timing/latencyNs/std")
    assert [(f.rule.id, f.pointer, f.message) for f in check_policy(store)] == [
        ("KI206", "/families/synthetic/metric", SPREAD)]
    ranked = runner.invoke(main, ["--store", str(store.root), "rank", digests[-1]])
    assert (ranked.exit_code, ranked.stdout) == (1, "")
    assert ranked.stderr == (
        f"error: {POLICY_FILE}:/families/synthetic/metric: {SPREAD}; correct {POLICY_FILE} as "
        "docs/queries.md, \"Comparisons and the ranking policy\", says (a family takes "
        "`comparison` measured, or source-native with `metric`, a JSON Pointer into the "
        "run's spec, and `order`, ascending or descending), or restore the committed one: "
        f"`git checkout HEAD -- {POLICY_FILE}`\n")


def test_pre_receive_refuses_it(published, tmp_path, kit):
    remote = Remote(published, tmp_path)
    assert remote.pr("group", lambda c: add_group(remote, kit, {"fast": 1000, "slow": 3000}))\
        .accepted
    refused = remote.pr("rank by std", lambda clone: _rank_by(clone, "/timing/latencyNs/std"))
    assert not refused.accepted
    assert [line.rstrip() for line in refused.output.splitlines() if " error " in line] == [
        f"remote: {POLICY_FILE}:/families/synthetic/metric: error KI206 policy-invalid: "
        f"{SPREAD}"], refused.output


def _statistics() -> list[str]:
    """Every statistic ``common.json``'s pattern admits, p0 to p99 with and without a 0."""
    return ["mean", "median", "min", "max", "std", "geomean",
            *(f"p{n}" for n in range(100)), *(f"p0{n}" for n in range(10))]


@pytest.mark.parametrize("statistic", _statistics())
def test_the_policy_refuses_exactly_the_statistics_no_primary_statistic_may_be(statistic):
    # one list: what common.json's statistic admits and its locationStatistic does not
    defs = load_schema("common.json")["$defs"]
    assert re.fullmatch(defs["statisticName"]["pattern"], statistic)
    location = re.fullmatch(defs["locationStatistic"]["pattern"], statistic) is not None
    said = check_policy_of({"families": {"f": {
        "comparison": "source-native", "metric": f"/timing/latencyNs/{statistic}",
        "order": "ascending"}}})
    assert said == ([] if location else [SPREAD]), statistic
    # under a statistic is no statistic (since fresh16 F4): refused, a spread as a spread
    under = check_policy_of({"families": {"f": {
        "comparison": "source-native", "metric": f"/timing/latencyNs/{statistic}/x",
        "order": "ascending"}}})
    assert [m.split(" is ")[1].split(",")[0] for m in under] == (
        ["neither a location statistic of the run's latencies nor a metric of the source's own:"
         " ranked by it"] if location else ["a spread ('std')"]), statistic


def check_policy_of(policy: dict) -> list[str]:
    """The messages KI206 says of a parsed ``policy`` (its schema's words)."""
    from kistore.check._policy import policy_problems

    return [p.message for p in policy_problems(json.dumps(policy).encode())[1]]


@pytest.mark.parametrize(("metric", "said"), [
    ("/sourceNative/metrics/sol_score", "by the source's own metric"),
    ("/timing/latencyNs/mean", "by measured latency (mean)"),
    ("/timing/latencyNs/p90", "by measured latency (p90)"),
    ("/correctness/maxAbsoluteError", "by the ranking policy's metric"),
    ("/timing/trials", "by the ranking policy's metric"),
])
def test_the_source_s_own_metric_is_said_only_under_source_native(metric, said):
    assert comparison_said("source-native", metric) == said
    assert comparison_said("measured", "/timing/latencyNs/mean") == "by measured latency"


def test_rank_says_a_source_native_latency_by_its_statistic(store, runner, kit):
    # on BASE 548a13da: "2 ranked by the source's own metric, /timing/latencyNs/mean ..."
    digests = add_docs(store, latency_group(kit, {"fast": 1000, "slow": 3000}))
    _rank_by(store.root, "/timing/latencyNs/mean")
    commit_all(store.root, "policy")
    ranked = runner.invoke(main, ["--store", str(store.root), "rank", digests[-1]])
    assert ranked.exit_code == 0, ranked.output
    assert ranked.stdout.splitlines()[0].endswith(
        ": 2 ranked by measured latency (mean), /timing/latencyNs/mean ascending (ns)")
