"""KI235: a change that makes its comparison group span 100x for the first time (r92 F1).

KI234 compares each run with its group's median run, before and after a change. One-run
pull requests each just under 100x of the median run walk it: three runs at ~40 us beside
a group's real 3.68 and 3.81 ms (95x, nothing said) make a 40 us run the median run, and
then runs at 500 ns (80x of it, 7,620x of the real runs) passed ``add``, ``check``,
pre-receive, ``rank`` and ``verify`` unsaid; in a group of one stored run three pull
requests did it. Now the pull request whose runs first make the group's best and worst
100x apart is said, naming the run and the stored run it is measured against. Each
sequence through the CLI (``add --commit``, then ``check BASE..HEAD``, per pull request).
"""

from __future__ import annotations

import json

import pytest

from kistore.query.outliers import OUTLIER_FACTOR, spans, spread, under_said

from ..conftest import add_docs, git
from ..prs import Remote
from .test_rank_outlier_base import HOW, _group
from .test_rank_outlier_base import WHY as WHY234
from .test_rank_outlier_group import Board, _cli, _ki234

WHY = ("KI234 compares each run with its group's median run, which runs each just under 100x "
       "of it, one pull request at a time, can move (six such runs put a #1 7,360x ahead of a "
       "group's real runs, unsaid), so a change that makes a group's runs 100x apart is said, "
       "at each end (a run already that far off at the other end spends nothing); a value in "
       "another unit (ms or us written as ns) reads so")


@pytest.fixture
def board(store, kit, tmp_path):
    return Board(store, kit, tmp_path)


def _ki235(text: str) -> list[str]:
    return [line for line in text.splitlines()
            if "(KI235: added" in line or "warning KI235 group-spread-crosses-factor: " in line]


KI235_SAYS = ("warning KI235 group-spread-crosses-factor: this change {verb} its comparison "
              "group (by measured latency, /timing/latencyNs/mean ascending) ")
"""How a KI235 line starts after its place (``verb``: ``makes`` or ``takes``)."""


def _ki235_naming(text: str, run: str) -> tuple[str, str, str]:
    """The first KI235 line of ``text``, the digest it names ``BenchmarkRun/RUN`` by, and
    what it says after its place (``FILE:POINTER: ``)."""
    line = _ki235(text)[0]
    return line, line.split(f"BenchmarkRun/{run} (")[1].split(")")[0], line.split(": ", 1)[1]


def _pull_requests(board: Board, work: dict, runs: list[tuple[str, int]]
                   ) -> list[tuple[str, str]]:
    """One ``add --commit`` per run, then ``check BASE..HEAD``: (add's stderr, check's)."""
    said = []
    for name, latency in runs:
        base = board.head()
        added = _cli(board.store, "add", "--commit", board.file(name, board.docs(
            name, latency, workload=work)))
        said.append((added.stderr, _cli(board.store, "check", f"{base}..HEAD").output))
    return said


def test_six_pull_requests_into_a_group_of_two_the_crossing_one_is_said(board):
    """r92 F1's first sequence: 40,000, 40,100 and 40,200 ns beside 3.68 and 3.81 ms (95x:
    the group spans less than 100x), then 500 ns (7,620x the real 3.81 ms run, 80x the
    median run 40,200 ns, which KI234 compares with), 510 and 520 ns."""
    work, stored = _group(board, "pair", {"real-1": 3_680_000, "real-2": 3_810_000})
    said = _pull_requests(board, work, [(f"rat-{i}", v) for i, v in enumerate(
        (40_000, 40_100, 40_200, 500, 510, 520))])
    assert [(len(_ki235(a)), len(_ki235(c)), len(_ki234(a + c))) for a, c in said] == [
        (0, 0, 0), (0, 0, 0), (0, 0, 0), (1, 1, 0), (0, 0, 0), (0, 0, 0)]
    assert ["0 errors, 0 warnings" in c for _, c in said] == [
        True, True, True, False, True, True]
    checked = said[3][1]
    assert "0 errors, 1 warning" in checked
    line, rat3, says = _ki235_naming(checked, "rat-3")
    assert says == KI235_SAYS.format(verb="makes") + (
        f"span 7,620x for the first "
        f"time (best over worst; 95x before it): BenchmarkRun/rat-3 ({rat3}) with 500 ns, "
        f"which would rank #1, is 7,620x better than #6 BenchmarkRun/real-2 "
        f"({stored['real-2']}) with 3,810,000 ns, the group's worst run before the change: "
        f"{WHY}")
    assert line.startswith(f"store/objects/sha256/{rat3[7:9]}/{rat3[9:]}.json:"
                           "/spec/timing/latencyNs/mean: ")
    assert ("this change makes its comparison group (by measured latency, /timing/latencyNs/"
            "mean ascending) span 7,620x for the first time") in said[3][0]
    assert "check the unit of the run named" in said[3][0]
    # the limit docs/rules.md states: once the group spans 100x, KI234's median rule alone
    # judges it, and rank marks none (the median run is a 40 us run)
    assert "(!)" not in _cli(board.store, "rank", "BenchmarkRun/real-1").stdout


def test_three_pull_requests_into_a_group_of_one_the_third_is_said(board):
    """r92 F1's second sequence: 80,700 and 80,900 ns beside one stored 7.66 ms run (94.9x),
    then 860 ns (8,907x the stored run, 93.8x the median run 80,700 ns)."""
    work, stored = _group(board, "solo", {"kb-solo": 7_660_000})
    said = _pull_requests(board, work, [("solo-a", 80_700), ("solo-b", 80_900),
                                        ("solo-c", 860)])
    assert [(len(_ki235(a)), len(_ki235(c))) for a, c in said] == [(0, 0), (0, 0), (1, 1)]
    assert [len(_ki234(a + c)) for a, c in said] == [0, 0, 0]
    assert ("span 8,907x for the first time (best over worst; 95x before it): "
            "BenchmarkRun/solo-c (sha256:") in said[2][1]
    assert (f"with 860 ns, which would rank #1, is 8,907x better than #4 BenchmarkRun/kb-solo "
            f"({stored['kb-solo']}) with 7,660,000 ns, the group's worst run before the "
            "change") in said[2][1]
    data = json.loads(_cli(board.store, "check", "HEAD~1..HEAD", "--json").stdout)
    [found] = [f for f in data["findings"] if f["rule"] == "KI235"]
    assert found["severity"] == "warning"
    assert found["extra"] == {
        "rule": "KI235", "ratio": pytest.approx(7_660_000 / 860), "factor": 100,
        "before": pytest.approx(7_660_000 / 80_700), "after": pytest.approx(7_660_000 / 860),
        "over": {"digest": stored["kb-solo"], "name": "kb-solo", "value": 7_660_000,
                 "rank": 4, "stored": True}}
    # the three as one range: 8,907x the group's only run before it, KI234's to say
    whole = _cli(board.store, "check", "HEAD~3..HEAD").output
    assert len(_ki234(whole)) == 1 and _ki235(whole) == []


def test_a_run_100x_slower_crosses_too_and_a_marked_run_is_said_once(board):
    """A run 1,000x slower than a group's best (us written where ns were meant) is said,
    against the stored best; a slip KI234 marks already is said by KI234 alone."""
    work, stored = _group(board, "slow", {"real": 3_520_000})
    said = _pull_requests(board, work, [("slow-x1000", 3_520_000_000)])
    assert len(_ki235(said[0][1])) == 1
    assert (f"is 1,000x worse than #1 BenchmarkRun/real ({stored['real']}) with 3,520,000 ns, "
            "the group's best run before the change") in said[0][1]
    work, _ = _group(board, "fast", {"real-fast": 3_520_000})
    said = _pull_requests(board, work, [("fast-us", 3_520)])
    assert len(_ki234(said[0][1])) == 1 and _ki235(said[0][1]) == []


def test_a_group_that_spans_100x_already_or_arrives_whole_is_not_said(board):
    """Nothing crosses in a group that spans 100x before the change (the real data's 417x
    FlashInfer groups), nor in a group whose runs all arrive in one change."""
    work, _ = _group(board, "wide", {"torch": 11_900_000, "triton-1": 28_500,
                                     "triton-2": 43_000})
    said = _pull_requests(board, work, [("triton-3", 30_000), ("slow-torch", 12_000_000)])
    assert [_ki235(a + c) for a, c in said] == [[], []]
    base = board.head()
    new = board.kit.workload("new")
    _cli(board.store, "add", "--commit", board.file("new", [
        new, *board.docs("new-torch", 11_900_000, workload=new),
        *board.docs("new-triton", 28_500, workload=new)]))
    assert _ki235(_cli(board.store, "check", f"{base}..HEAD").output) == []


@pytest.mark.parametrize(("order", "values", "expected"), [
    ("ascending", [], 1.0),
    ("ascending", [5.0], 1.0),
    ("ascending", [40_000, 3_810_000], 95.25),
    ("descending", [40_000, 3_810_000], 95.25),  # best over worst either way
    ("ascending", [0.0, 10.0, 2_000.0], 200.0),  # a value of 0 is left out
    ("descending", [-1.0, 0.0, 0.5, 0.9], 1.8),
    ("ascending", [0.0, 3_520_000], 1.0),  # one value above 0: nothing to span
])
def test_one_spread_for_the_gate_verify_and_ki235(order, values, expected):
    assert spread(order, values) == pytest.approx(expected)
    assert spans(order, values) == (expected >= OUTLIER_FACTOR)


# -- r92 F8: a ranking policy change that removes or makes a mark ------------------------

POLICY = "store/policy/ranking.json"


def _policy(board: Board, family: dict | None, message: str) -> None:
    path = board.store.root / POLICY
    policy = json.loads(path.read_text())
    if family is None:
        policy["families"].pop("synthetic")
    else:
        policy["families"]["synthetic"] = family
    path.write_text(json.dumps(policy, indent=2) + "\n")
    git(board.store.root, "commit", "-qam", message)


def test_a_policy_change_taking_a_marked_slip_out_of_the_ranking_is_said(board, kit):
    """r92 F8: the real runs state a source mean in ms, the hand-written slip (3,520 ns,
    1,045x ahead of the median run) none: ranking the family by that mean takes the slip,
    and its mark, out; only KI415 (info) said it. Then the change back marks it again."""
    protocol, env, _ = board.parts
    work = kit.workload("f8")
    docs = [work]
    for name, ns, native in (("real-1", 3_680_000, {"metrics": {"mean": 3.68}}),
                             ("real-2", 3_810_000, {"metrics": {"mean": 3.81}}),
                             ("three-0", 3_520, None)):
        impl = kit.implementation(f"proj-{name}", name=f"impl-{name}")
        docs += [impl, kit.run(protocol, env, impl, work, latency=ns, name=name,
                               native=native)]
    digests = add_docs(board.store, docs)
    slip, real = digests[6], digests[2]
    assert "(!) 1,045x ahead of #2" in _cli(board.store, "rank", "BenchmarkRun/real-1").stdout
    base = board.head()
    _policy(board, {"comparison": "source-native", "metric": "/sourceNative/metrics/mean",
                    "order": "ascending", "unit": "ms"}, "policy: synthetic by source mean")
    checked = _cli(board.store, "check", f"{base}..HEAD").output
    # KI415 of both groups, in one line; the board's group a, b, c states no source mean:
    # unranked by the change while the slip's group ranks by it, a warning (KI246; KI245's
    # error is for a metric no group holds, fresh95 F1); the slip leaves a group that keeps
    # ranking its real runs: KI247 names it (break95 M2), beside KI234's moved mark
    assert "0 errors, 3 warnings, 1 info" in checked, checked
    assert (f"warning KI247 policy-unranks-runs: family synthetic ranks /sourceNative/metrics/"
            f"mean: 1 run that ranked before this change would rank nothing, its group ranking "
            f"others (`rank` shows it as \"-\"): BenchmarkRun/three-0 ({slip}, #1 in group "
            ) in checked
    assert "warning KI246 policy-metric-unheld-by-some-groups: family synthetic ranks " \
        "/sourceNative/metrics/mean, which no run of its comparison group holds (the runs " \
        "of its other groups hold it)" in checked
    [line] = [x for x in checked.splitlines() if "warning KI234" in x]
    assert line.split(": ", 1)[1].rstrip() == (
        f"warning KI234 rank-outlier: this change would remove KI234's mark from "
        f"BenchmarkRun/three-0 ({slip}), a stored run that ranks #1 {HOW} with 3,520 ns, "
        f"1,045x better than #2 BenchmarkRun/real-1 ({real}) with 3,680,000 ns, the group's "
        f"median run before the change; once it lands the group ranks (by the source's own "
        f"metric, /sourceNative/metrics/mean ascending) and it is not ranked (no value at "
        f"/sourceNative/metrics/mean), and `rank`, `show` and the site mark it no more: "
        f"{WHY234}")
    assert line.startswith(f"store/objects/sha256/{slip[7:9]}/{slip[9:]}.json:"
                           "/spec/timing/latencyNs/mean: ")
    data = json.loads(_cli(board.store, "check", f"{base}..HEAD", "--json").stdout)
    [found] = [f for f in data["findings"] if f["rule"] == "KI234"]
    assert (found["extra"]["policy"], found["extra"]["after"]) == (True, None)
    assert found["extra"]["before"]["over"]["digest"] == real
    assert "a trusted maintainer withdraws it" in found["hint"]
    back = board.head()
    _policy(board, None, "policy: synthetic measured again")
    checked = _cli(board.store, "check", f"{back}..HEAD").output
    [line] = [x for x in checked.splitlines() if "warning KI234" in x]
    assert (f"this change would newly mark BenchmarkRun/three-0 ({slip}), a stored run that "
            f"would rank #1 {HOW} with 3,520 ns, 1,045x better than #2 BenchmarkRun/real-1 "
            f"({real}) with 3,680,000 ns, the group's median run once the change lands "
            "(before it the group ranked (by the source's own metric, /sourceNative/metrics/"
            "mean ascending) and it was not ranked (no value at /sourceNative/metrics/mean), "
            "unmarked)") in line


def test_a_policy_change_moving_no_mark_says_no_ki234(board, kit):
    """An ordinary group re-ranked by another metric: KI415's info alone."""
    base = board.head()
    _policy(board, {"comparison": "source-native", "metric": "/timing/latencyNs/mean",
                    "order": "ascending", "unit": "ns"}, "policy: synthetic by the mean")
    assert "KI234" not in _cli(board.store, "check", f"{base}..HEAD").output


def test_pre_receive_says_the_crossing_push(board, tmp_path):
    """The solo sequence as three pushes through the pre-receive hook: the third warned."""
    work, _ = _group(board, "solo", {"kb-solo": 7_660_000})
    (tmp_path / "remote").mkdir()
    remote = Remote(board.store.root, tmp_path / "remote")

    def add(name: str, latency: int):
        def change(clone):
            remote.kistore("add", board.file(name, board.docs(name, latency, workload=work)))
        return change

    pushes = [remote.pr(n, add(n, v)) for n, v in (("solo-a", 80_700), ("solo-b", 80_900),
                                                    ("solo-c", 860))]
    assert all(p.accepted for p in pushes), [p.output for p in pushes]
    assert [len(_ki235(p.output)) for p in pushes] == [0, 0, 1]
    assert "0 errors, 1 warning, 0 info" in pushes[2].output
    assert "span 8,907x for the first time" in pushes[2].output


def test_a_policy_change_making_a_group_span_100x_first_is_said(board, kit):
    """r93 F4: the group's real run states its source mean in ms (7.66), two contributors'
    runs 1,000x off (0.0075, 0.0074) beside honest latencies (1.04x): ranking the family
    by that mean makes the group span 1,035x, and nothing said it (KI235 judged only runs
    a range adds)."""
    protocol, env, _ = board.parts
    work = kit.workload("f4")
    docs = [work]
    for name, ns, mean in (("kb-real", 7_660_000, 7.66), ("pol-a", 7_500_000, 0.0075),
                           ("pol-b", 7_400_000, 0.0074)):
        impl = kit.implementation(f"proj-{name}", name=f"impl-{name}")
        docs += [impl, kit.run(protocol, env, impl, work, latency=ns, name=name,
                               native={"metrics": {"mean": mean}})]
    digests = add_docs(board.store, docs)
    real, slip = digests[2], digests[6]
    base = board.head()
    _policy(board, {"comparison": "source-native", "metric": "/sourceNative/metrics/mean",
                    "order": "ascending", "unit": "ms"}, "policy: synthetic by source mean")
    checked = _cli(board.store, "check", f"{base}..HEAD").output  # KI246: a, b, c
    [line] = _ki235(checked)
    assert line.startswith(f"store/objects/sha256/{slip[7:9]}/{slip[9:]}.json:"
                           "/spec/sourceNative/metrics/mean: "), line
    assert "this ranking policy change makes comparison group " in line
    assert line.split(" (by the source's own", 1)[1].rstrip() == (
        f" metric, /sourceNative/metrics/mean ascending) span 1,035x for the first time "
        f"(best over worst; 1.04x before it, ranked {HOW[len('of its comparison group '):]}): "
        f"#1 BenchmarkRun/pol-b ({slip}) with 0.0074 ms is 1,035x better than "
        f"#3 BenchmarkRun/kb-real ({real}) with 7.66 ms, the group's worst run: {WHY}"), line
    data = json.loads(_cli(board.store, "check", f"{base}..HEAD", "--json").stdout)
    [found] = [f for f in data["findings"] if f["rule"] == "KI235"]
    assert (found["extra"]["policy"], found["extra"]["over"]["digest"]) == (True, real)
    # its fix speaks of the policy change, not of a run added (reviewer r93b G6)
    assert found["hint"].startswith(
        f"the change to {POLICY} ranks this group by /sourceNative/metrics/mean ascending, "
        "under which its runs' values differ 1,035x: check that the policy's metric"), found
    assert "added all the same" not in found["hint"]
    assert found["extra"]["before"] < 1.04 < 1_035 < found["extra"]["after"] < 1_036
    back = board.head()  # the change back: 1,035x to 1.04x, nothing to say
    _policy(board, None, "policy: synthetic measured again")
    assert _ki235(_cli(board.store, "check", f"{back}..HEAD").output) == []


@pytest.mark.parametrize(("ratio", "said"), [
    (1.0351, "1.04x"), (95.25, "95x"), (99.4, "99x"), (99.6, "99.6x"), (99.96, "99.96x"),
    (99.996, "99.996x"), (99.99999999, "99.99999999x")])
def test_the_spread_before_never_reads_as_the_factor(ratio, said):
    """r93 F9: a group at 99.996x said "100x before it" of a crossing to 100.8x."""
    assert under_said(ratio) == said


def test_a_crossing_from_just_under_100x_says_the_spread_before_under_it(board):
    """r93 F9 through the CLI: 76,603 and 76,610 ns beside one 7.66 ms run (99.996x), then
    76,000 ns (100.8x): the spread before was said "100x"."""
    work, _ = _group(board, "edge", {"kb-edge": 7_660_000})
    said = _pull_requests(board, work, [("edge-a", 76_603), ("edge-c", 76_610),
                                        ("edge-b", 76_000)])
    assert [len(_ki235(c)) for _, c in said] == [0, 0, 1]
    assert "span 101x for the first time (best over worst; 99.996x before it): " in said[2][1]


def test_r93_f1_a_slow_decoy_said_first_does_not_hide_a_later_walk_past_the_real_runs(board):
    """r93 F1: a run 100x slower than the real 3.68 and 3.81 ms runs (said, passed), then
    four runs at ~40 us (95x ahead of the real runs: nothing to say; the decoy takes a fourth
    to move the median run) and one at 500 ns (7,620x the real 3.81 ms run, 81x the median
    run 40,300 ns): KI235 was said once a group, the decoy spent it, and the 500 ns run
    passed silent."""
    work, stored = _group(board, "decoy", {"real-1": 3_680_000, "real-2": 3_810_000})
    said = _pull_requests(board, work, [("decoy", 380_000_000), *[
        (f"rat-{i}", v) for i, v in enumerate((40_000, 40_100, 40_200, 40_300, 500))]])
    assert [(len(_ki235(a)), len(_ki235(c))) for a, c in said] == [
        (1, 1), (0, 0), (0, 0), (0, 0), (0, 0), (1, 1)]  # before: the last (0, 0)
    assert [len(_ki234(a + c)) for a, c in said] == [0, 0, 0, 0, 0, 0]
    _, rat4, says = _ki235_naming(said[5][1], "rat-4")
    assert says == KI235_SAYS.format(verb="takes") + (
        f"100x past its runs at its "
        f"best end (it spanned 9,500x before it, by a run 100x off at the other end, which "
        f"does not spend this warning): BenchmarkRun/rat-4 ({rat4}) with 500 ns, which would "
        f"rank #1, is 7,620x better than #7 BenchmarkRun/real-2 ({stored['real-2']}) with "
        f"3,810,000 ns, the worst run before the change within 100x of the group's best: "
        f"{WHY}")
