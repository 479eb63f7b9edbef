"""KI245 and KI415's one line: a ranking-policy change whose metric no run holds (fresh95 F1).

A typo in ``store/policy/ranking.json`` (``/sourceNative/metrics/latency`` where the runs
state ``latency_ms``) took every group of the family out of the ranking and the gate said
"ok" with one KI415 info line a group (500 of them). Now it is an error naming the family,
the pointer and the pointers the runs hold, and KI415 is one line however many groups
change order (``--json`` lists each).
"""

from __future__ import annotations

import json

import pytest

from kistore.query.unheld_metric import held_pointers

from ..conftest import add_docs, git
from .test_rank_outlier_group import Board, _cli

POLICY = "store/policy/ranking.json"


@pytest.fixture
def board(store, kit, tmp_path):
    return Board(store, kit, tmp_path)


def _second_group(board: Board, kit) -> None:
    """A second group of the family whose runs state a source-native latency in ms."""
    protocol, env, _ = board.parts
    work = kit.workload("typo")
    docs = [work]
    for name, ns, ms in (("t-1", 3_680_000, 3.68), ("t-2", 3_810_000, 3.81)):
        impl = kit.implementation(f"proj-{name}", name=f"impl-{name}")
        docs += [impl, kit.run(protocol, env, impl, work, latency=ns, name=name,
                               native={"metrics": {"latency_ms": ms, "mean": ms}})]
    add_docs(board.store, docs)


def _policy(board: Board, family: dict) -> str:
    base = board.head()
    path = board.store.root / POLICY
    policy = json.loads(path.read_text())
    policy["families"]["synthetic"] = family
    path.write_text(json.dumps(policy, indent=2) + "\n")
    git(board.store.root, "commit", "-qam", "policy change")
    return base


def _one_line(checked: str, said: str) -> str:
    """Return the one line of ``checked`` on the family's metric saying ``said`` first.

    ``said``: ``SEVERITY RULE NAME: MESSAGE...``, the line's words after its place.
    """
    severity, rule = said.split()[:2]
    [line] = [x for x in checked.splitlines() if rule in x and severity in x]
    assert line.startswith(f"{POLICY}:/families/synthetic/metric: {said}"), line
    return line


def test_a_metric_no_run_holds_is_an_error_naming_what_they_hold(board, kit):
    _second_group(board, kit)
    base = _policy(board, {"comparison": "source-native",
                           "metric": "/sourceNative/metrics/latency", "order": "ascending",
                           "unit": "ms"})
    checked = _cli(board.store, "check", f"{base}..HEAD", code=1).output
    line = _one_line(checked, "error KI245 policy-metric-held-by-no-run: family synthetic "
                     "ranks /sourceNative/metrics/latency, which no run of 2 of its comparison "
                     "groups holds: ranked before this change, they would rank none (e.g. "
                     "group sha256:")
    assert line.endswith(
        "`rank` says \"no value at /sourceNative/metrics/latency\" for every run); did you "
        "mean /sourceNative/metrics/latency_ms? Their runs hold "
        "/sourceNative/metrics/latency_ms, /sourceNative/metrics/mean (expected a pointer "
        "the family's runs hold, found /sourceNative/metrics/latency)"), line
    assert "1 error, 0 warnings, 1 info" in checked, checked
    # KI415 says both groups in one line; --json keeps each group's order
    [ki415] = [x for x in checked.splitlines() if "KI415" in x]
    assert "2 comparison groups change order (families: synthetic)" in ki415
    data = json.loads(_cli(board.store, "check", f"{base}..HEAD", "--json", code=1).stdout)
    [found] = [f for f in data["findings"] if f["rule"] == "KI415"]
    assert [g["after"] for g in found["extra"]["groups"]] == ["nothing ranked"] * 2
    assert found["extra"]["groups"][0]["before"].startswith("1 ")
    [error] = [f for f in data["findings"] if f["rule"] == "KI245"]
    assert error["extra"]["held"] == ["/sourceNative/metrics/latency_ms",
                                      "/sourceNative/metrics/mean"]
    assert len(error["extra"]["groups"]) == 2


def test_the_pre_commit_hook_refuses_it(board, kit):
    """pre-commit checks HEAD..STAGED, the same gate: the typo is not committed."""
    _second_group(board, kit)
    path = board.store.root / POLICY
    policy = json.loads(path.read_text())
    policy["families"]["synthetic"] = {"comparison": "source-native",
                                       "metric": "/sourceNative/metrics/latency",
                                       "order": "ascending", "unit": "ms"}
    path.write_text(json.dumps(policy, indent=2) + "\n")
    git(board.store.root, "add", POLICY)
    staged = git(board.store.root, "commit-tree", git(board.store.root, "write-tree").strip(),
                 "-p", "HEAD", "-m", "staged").strip()
    checked = _cli(board.store, "check", f"HEAD..{staged}", code=1).output
    assert "error KI245 policy-metric-held-by-no-run" in checked


def test_a_metric_the_runs_hold_is_no_error(board, kit):
    """Ranking the family by a metric only one group holds loses the other group: said; by a
    metric every group holds (the measured mean, named as the source's): not said."""
    _second_group(board, kit)
    base = _policy(board, {"comparison": "source-native", "metric": "/timing/latencyNs/mean",
                           "order": "ascending", "unit": "ns"})
    checked = _cli(board.store, "check", f"{base}..HEAD").output
    assert "KI245" not in checked and "0 errors" in checked, checked


def test_a_metric_other_groups_hold_is_a_warning_not_an_error(board, kit):
    """No typo: the second group ranks by the source's mean, the board's first group states
    none and loses its ranking. A reviewer passes it when meant (KI246), exit 0."""
    _second_group(board, kit)
    base = _policy(board, {"comparison": "source-native", "metric": "/sourceNative/metrics/mean",
                           "order": "ascending", "unit": "ms"})
    checked = _cli(board.store, "check", f"{base}..HEAD").output
    assert "KI245" not in checked and "0 errors" in checked, checked
    line = _one_line(checked, "warning KI246 policy-metric-unheld-by-some-groups: family "
                     "synthetic ranks /sourceNative/metrics/mean, which no run of its "
                     "comparison group holds (the runs of its other groups hold it): ranked "
                     "before this change, it would rank none (e.g. group ")
    assert "did you mean" not in line


def test_held_pointers_lists_numbers_under_the_deepest_part_held():
    specs = [{"sourceNative": {"metrics": {"latency_ms": 1.0, "ok": True, "name": "x"}}},
             {"sourceNative": {"metrics": {"sol_score": 0.3, "deep": {"a/b": 2}}}}]
    assert held_pointers(specs, "/sourceNative/metrics/latency") == [
        "/sourceNative/metrics/deep/a~1b", "/sourceNative/metrics/latency_ms",
        "/sourceNative/metrics/sol_score"]
    assert held_pointers(specs, "/sourceNative/other/x") == [
        "/sourceNative/metrics/deep/a~1b", "/sourceNative/metrics/latency_ms",
        "/sourceNative/metrics/sol_score"]
    assert held_pointers([{"a": "b"}], "/x/y") == []
