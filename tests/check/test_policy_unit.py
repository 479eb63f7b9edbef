"""KI231: a ranking policy whose declared unit contradicts its metric's (reviewer r88 F10).

A pull request setting a family's metric to ``/sourceNative/metrics/latency_ms`` and
leaving ``unit: "score"`` passed the gate with KI415 (info) only, and ``rank`` then printed
milliseconds as "0.023825 score". Such a policy is now an error of ``check`` and ``verify``.
"""

from __future__ import annotations

import pytest

from kistore.check._policy import check_policy, metric_time_unit, unit_contradictions
from kistore.core.canonical import dumps

from ..prs import Remote
from .test_history_names import add_group


@pytest.mark.parametrize(("metric", "unit"), [
    ("/sourceNative/metrics/latency_ms", "ms"), ("/sourceNative/metrics/latencyMs", "ms"),
    ("/sourceNative/metrics/LATENCY_MS", "ms"), ("/timing/latencyNs/mean", "ns"),
    ("/sourceNative/metrics/time_us", "us"), ("/sourceNative/metrics/runtime_seconds", "s"),
    ("/sourceNative/metrics/sol_score", None), ("/sourceNative/metrics/ops_per_s", None),
    ("/sourceNative/metrics/fast_1_count", None), ("/sourceNative/metrics/runs", None)])
def test_a_metric_name_states_its_unit_of_time_in_its_last_word(metric, unit):
    assert metric_time_unit(metric) == unit


def _policy(metric: str, unit: str) -> dict:
    return {"families": {"sol_execbench_leaderboard": {
        "comparison": "source-native", "metric": metric, "order": "ascending", "unit": unit}}}


def test_r88_f10_milliseconds_labelled_score_is_an_error():
    found = unit_contradictions(_policy("/sourceNative/metrics/latency_ms", "score"))
    assert [(f.rule.id, f.severity, f.file, f.pointer, f.expected, f.found) for f in found] \
        == [("KI231", "error", "store/policy/ranking.json",
             "/families/sol_execbench_leaderboard/unit", "ms", "score")]
    assert found[0].message == (
        "family sol_execbench_leaderboard ranks /sourceNative/metrics/latency_ms, whose name "
        "says it is in ms, but declares unit 'score': `rank` would print each value in "
        "'score' (13.6 ms as \"13.6 score\"), misleading whoever reads it")
    # the unit stated another way, or another unit of time: said too
    assert [f.found for f in unit_contradictions(
        _policy("/sourceNative/metrics/latency_ms", "ns"))] == ["ns"]
    for agreeing in ("ms", "MS", "msec", "milliseconds"):
        assert unit_contradictions(_policy("/sourceNative/metrics/latency_ms", agreeing)) == []
    # the shipped default: a score named a score
    assert unit_contradictions(_policy("/sourceNative/metrics/sol_score", "score")) == []


def test_verify_reports_it_of_the_work_tree(store):
    path = store.root / "store/policy/ranking.json"
    path.write_bytes(dumps(_policy("/sourceNative/metrics/latency_ms", "score")))
    assert [(f.rule.id, f.pointer) for f in check_policy(store)] == [
        ("KI231", "/families/sol_execbench_leaderboard/unit")]


def test_a_sequence_of_pull_requests_the_gate_judges(published, tmp_path, kit):
    remote = Remote(published, tmp_path)
    assert remote.pr("group", lambda c: add_group(remote, kit, {"fast": 1000,
                                                                 "slow": 3000})).accepted

    def rank_by(unit):
        def change(clone):
            policy = remote.read_json("store/policy/ranking.json")
            policy["families"]["synthetic"] = {
                "comparison": "source-native", "metric": "/timing/latencyNs/mean",
                "order": "ascending", "unit": unit}
            remote.write_json("store/policy/ranking.json", policy)
        return change

    refused = remote.pr("latency labelled score", rank_by("score"))
    assert not refused.accepted
    assert "KI231 policy-unit-contradicts-metric" in refused.output, refused.output
    assert remote.pr("latency in its own unit", rank_by("ns")).accepted
