"""KI237 and ``rank``: a source-native time of 0 or below never ranks (fresh18 F1).

Under a policy ranking a family by ``/sourceNative/metrics/mean`` in ms, a run stating
-5, 0 or -1e9 ms ranked #1 in ``rank`` (and so ``show``, ``compare``, the export and the
site), passed ``check``, pre-receive and ``verify`` without a word, and, as its group's
median run, switched KI234 off for the group.
"""

from __future__ import annotations

import json

import pytest

from ..conftest import add_docs, git
from .test_policy_unheld_metric import _policy
from .test_rank_outlier_group import _cli

MEAN_MS = {"comparison": "source-native", "metric": "/sourceNative/metrics/mean",
           "order": "ascending", "unit": "ms"}


class Group:
    """A store with one comparison group of two real runs (3.68 and 3.81 ms, mean)."""

    def __init__(self, store, kit, tmp_path) -> None:
        self.store, self.kit, self.tmp = store, kit, tmp_path
        self.parts = [kit.protocol(), kit.environment(), kit.workload()]
        add_docs(store, [*self.parts, *self.docs("real-1", 3.68), *self.docs("real-2", 3.81)])

    def docs(self, name: str, mean: float) -> list[dict]:
        protocol, env, work = self.parts
        impl = self.kit.implementation(f"proj-{name}", name=f"impl-{name}")
        return [impl, self.kit.run(protocol, env, impl, work, latency=3_680_000, name=name,
                                   native={"metrics": {"mean": mean}})]

    def add(self, *runs: tuple[str, float]) -> str:
        """Commit runs past `add`'s refusal (as a push without the hook does); return BASE."""
        base = self.head()
        add_docs(self.store, [d for name, mean in runs for d in self.docs(name, mean)])
        return base

    def file(self, *runs: tuple[str, float]) -> str:
        path = self.tmp / "runs.jsonl"
        path.write_text("".join(json.dumps(d) + "\n" for name, mean in runs
                                for d in self.docs(name, mean)))
        return str(path)

    def policy(self, family: dict) -> str:
        """Commit ``family`` as the policy of ``synthetic``; return the commit before it."""
        return _policy(self, family)  # it reads a Board's store and head only

    def head(self) -> str:
        return git(self.store.root, "rev-parse", "HEAD").strip()


@pytest.fixture
def board(store, kit, tmp_path):
    return Group(store, kit, tmp_path)


def _rows(board: Group) -> list[tuple]:
    data = json.loads(_cli(board.store, "rank", "BenchmarkRun/real-1", "--json").stdout)
    return [(row["name"], row["rank"], row["value"], row.get("reason")) for row in data]


def test_a_time_of_zero_or_below_is_listed_unranked_with_the_reason(board):
    board.policy(MEAN_MS)
    board.add(("neg", -5), ("zero", 0), ("huge-neg", -1e9))
    rows = _rows(board)
    assert rows[:2] == [("real-1", 1, 3.68, None), ("real-2", 2, 3.81, None)]
    assert sorted(rows[2:]) == [  # unranked rows are listed by digest
        ("huge-neg", None, None,
         "states -1000000000 ms at /sourceNative/metrics/mean: a value of 0 or below "
         "cannot rank"),
        ("neg", None, None,
         "states -5 ms at /sourceNative/metrics/mean: a value of 0 or below cannot rank"),
        ("zero", None, None,
         "states 0 ms at /sourceNative/metrics/mean: a value of 0 or below cannot rank")]
    shown = _cli(board.store, "rank", "BenchmarkRun/real-1").stdout
    assert "2 ranked by the source's own metric" in shown


def test_a_score_of_zero_is_unranked_and_no_gate_finding(board):
    board.policy({"comparison": "source-native", "metric": "/sourceNative/metrics/mean",
                  "order": "descending", "unit": "score"})
    base = board.add(("zero", 0))
    assert [r[:2] for r in _rows(board)] == [("real-2", 1), ("real-1", 2), ("zero", None)]
    assert _rows(board)[2][3] == ("states 0 score at /sourceNative/metrics/mean: a value "
                                  "of 0 or below cannot rank")
    checked = _cli(board.store, "check", f"{base}..HEAD").output
    assert "KI237" not in checked


def test_zero_and_negative_runs_no_longer_switch_ki234_off(board):
    board.policy(MEAN_MS)
    board.add(("slip", 0.0000368), ("zero", 0), ("neg", -5))
    rows = _cli(board.store, "rank", "BenchmarkRun/real-1").stdout.splitlines()
    assert "slip" in rows[1] and rows[1].endswith("(!) 100,000x ahead of #2: see below (KI234)")


def test_check_refuses_an_arriving_time_of_zero_or_below(board):
    board.policy(MEAN_MS)
    base = board.add(("neg", -5))
    neg = _cli(board.store, "rank", "BenchmarkRun/real-1", "--json")
    [digest] = [r["digest"] for r in json.loads(neg.stdout) if r["name"] == "neg"]
    hexed = digest.removeprefix("sha256:")
    checked = _cli(board.store, "check", f"{base}..HEAD", code=1).output
    assert (f"store/objects/sha256/{hexed[:2]}/{hexed[2:]}.json:/spec/sourceNative/metrics/"
            f"mean: error KI237 ranked-time-not-above-zero: BenchmarkRun/neg ({digest}) "
            "states -5 ms at /sourceNative/metrics/mean, the value its family 'synthetic' is "
            "ranked by (store/policy/ranking.json), a time: a value of 0 or below cannot "
            "rank, and `rank` leaves the run unranked (expected a time above 0 ms, found "
            "-5 ms)\n") in checked
    assert "FAILED: " in checked and ": 1 error," in checked
    verified = _cli(board.store, "verify", code=1).output
    assert ("store/policy/ranking.json:/families/synthetic/metric: error KI237 "
            "ranked-time-not-above-zero: family 'synthetic' ranks /sourceNative/metrics/mean, "
            "a time in ms, where a stored run of it states a value of 0 or below (e.g. "
            f"BenchmarkRun/neg ({digest}) states -5 ms there): a value of 0 or below cannot "
            "rank, and `rank` leaves such runs unranked (expected runs whose times are "
            "above 0, found -5 ms)\n") in verified


def test_a_policy_change_ranking_stored_runs_of_zero_or_below_is_refused(board):
    """The sequence: runs stored first (measured: nothing said), then the policy's PR."""
    base = board.add(("neg", -5), ("zero", 0))
    assert "KI237" not in _cli(board.store, "check", f"{base}..HEAD").output
    base = board.policy(MEAN_MS)
    checked = _cli(board.store, "check", f"{base}..HEAD", code=1).output
    [line] = [x for x in checked.splitlines() if "error KI237" in x]
    assert line.startswith(
        "store/policy/ranking.json:/families/synthetic/metric: error KI237 "
        "ranked-time-not-above-zero: family 'synthetic' would rank /sourceNative/metrics/"
        "mean, a time in ms, where 2 stored runs of it state a value of 0 or below (e.g. "
        "BenchmarkRun/"), line
    assert line.endswith(": a value of 0 or below cannot rank, and `rank` leaves such runs "
                         "unranked (expected runs whose times are above 0, found "
                         + ("-5 ms)" if "BenchmarkRun/neg " in line else "0 ms)")), line


def test_add_refuses_a_time_of_zero_or_below_and_adds_nothing(board):
    board.policy(MEAN_MS)
    head = board.head()
    path = board.file(("ok", 3.7), ("neg", -5))
    refused = _cli(board.store, "add", "--commit", path, code=1)
    assert refused.stderr == (
        f"error: {path}:4:1:/spec/sourceNative/metrics/mean: states -5 ms at "
        "/sourceNative/metrics/mean, the value its family 'synthetic' is ranked by "
        "(store/policy/ranking.json), a time: a value of 0 or below cannot rank; state the "
        "time in the family's unit, above 0 (a kernel takes some time), in a new run "
        "(objects are never edited); a policy ranking stored runs that state one: rank the "
        "family by a metric they state above 0; `rank` never ranks a value of 0 or below "
        "(KI237: nothing added; `check` and pre-receive refuse it too)\n")
    assert board.head() == head
    assert _cli(board.store, "add", "--commit", board.file(("ok", 3.7))).exit_code == 0


@pytest.mark.parametrize("mean", [1e-308, 5e-324])
def test_a_lead_past_the_largest_double_is_marked(board, mean):
    """fresh18 F8: 3.68 / 1e-308 overflows a double; the mark vanished (1e-307 was marked)."""
    board.policy(MEAN_MS)
    board.add(("slip", mean))
    rows = _cli(board.store, "rank", "BenchmarkRun/real-1").stdout.splitlines()
    assert "slip" in rows[1]
    assert rows[1].endswith("(!) more than 1.8e308x ahead of #2: see below (KI234)"), rows[1]
    data = json.loads(_cli(board.store, "rank", "BenchmarkRun/real-1", "--json").stdout)
    assert data[0]["name"] == "slip"
    assert data[0]["outlier"]["ratio"] == 1.7976931348623157e308
    shown = json.loads(_cli(board.store, "show", "BenchmarkRun/slip", "--json").stdout)
    assert shown["outlier"]["ratio"] == 1.7976931348623157e308
