"""KI234 rank-outlier: a run that would take #1 of its group by 100x is said before it lands.

Reviewer r89 F5: a run whose latency was milliseconds written as nanoseconds ranked #1 with
a green gate. KI230 catches a value under 100 ns; a 25 ms kernel written as 25,000 ns
passes it and takes #1 of a group whose runs take 20,000,000 ns. ``add``, ``import``,
``check`` and pre-receive now warn of such a run (added all the same: an honest fast
kernel exists), and ``rank``, ``show`` and the site's run page mark a #1 that far ahead.
"""

from __future__ import annotations

import json
import math

import pytest

from kistore.check.gate import check_range
from kistore.cli import main
from kistore.core import layout
from kistore.core.digest import Digest
from kistore.core.model import Manifest
from kistore.query.answers import rank
from kistore.query.outlier_rules import outliers_admitted, range_outliers
from kistore.query.outliers import OUTLIER_FACTOR, factor, ranking_outlier, ranking_outliers

from ..conftest import git
from ..prs import Remote

WHY = ("a value 100x or more ahead is what a value in another unit reads as (ms or us written "
       "as ns); no group of the real data has a #1 more than 15x ahead of its median run")
HINT = ("check the value's unit (`timing.latencyNs` is in nanoseconds: a 0.42 ms kernel is "
        "420000); a run truly that much better: say how it was measured in the pull request "
        "(it is added and ranked all the same); a committed slip: a trusted maintainer "
        "withdraws it (`kistore attest REF --type withdrawal -m REASON --key KEY --file`, the "
        "file committed: objects are never edited, and a withdrawal is what takes a stored run "
        "out of the ranking), then the corrected run is added as a new object")
MEASURED = "(by measured latency, /timing/latencyNs/mean ascending)"
REFERENCE = "the group's median run"


def said(value: str, ratio: str, best: str, best_value: str, how: str = MEASURED, *,
         rank: int = 1, best_rank: int = 2) -> str:
    """The finding's message: the run's rank and value, the ratio, the reference, why."""
    return (f"would rank #{rank} of its comparison group {how} with {value}, {ratio} better "
            f"than #{best_rank} {best} with {best_value}, {REFERENCE} once the change lands: "
            f"{WHY}")


class Group:
    """One comparison group of a store: its protocol, environment and workload, runs added
    with an implementation each (committed)."""

    def __init__(self, store, kit, beside: Group | None = None) -> None:
        self.store, self.kit = store, kit
        if beside is None:
            self.parts = [kit.protocol(), kit.environment(), kit.workload()]
        else:  # another workload on the same protocol and GPU: another group
            self.parts = [*beside.parts[:2], kit.workload("gemm")]
        self.store.add([Manifest.from_document(d) for d in self.parts], commit=True)

    def docs(self, name: str, latency=None, *, role=None, status="passed", native=None):
        protocol, env, workload = self.parts
        impl = self.kit.implementation(f"proj-{name}", role=role, name=f"impl-{name}")
        run = self.kit.run(protocol, env, impl, workload, latency=latency, name=name,
                           status=status, native=native)
        return [impl, run]

    def add(self, name: str, latency=None, **kw) -> tuple[str, tuple[str, ...]]:
        """Add a run (committed) as ``kistore add`` does; return its digest and warnings."""
        found = self.store.add([Manifest.from_document(d) for d in self.docs(name, latency,
                                                                             **kw)],
                               commit=True, checks=(outliers_admitted,))
        run = found[-1]
        assert run.kind == "BenchmarkRun"
        return str(run.digest), run.warnings

    def head(self) -> str:
        return git(self.store.root, "rev-parse", "HEAD").strip()


@pytest.fixture
def slow_group(store, kit):
    """The reviewer's group: runs of 20,000,000 and 21,000,000 ns."""
    group = Group(store, kit)
    group.digests = {n: group.add(n, lat)[0] for n, lat in (("a", 20_000_000),
                                                             ("b", 21_000_000))}
    return group


def test_the_rule_measures_a_factor_in_the_family_s_order():
    assert OUTLIER_FACTOR == 100
    assert factor("ascending", 25_000, 20_000_000) == 800
    assert factor("descending", 0.9, 0.005) == pytest.approx(180)
    assert factor("ascending", 10, 10) == factor("descending", 0.5, 0.5) == 1  # a tie
    assert factor("ascending", 10, 5) == 0.5  # the other is better
    assert factor("ascending", 10, 0) == 0  # 0 is better than any latency
    assert factor("descending", 0.5, 0) == math.inf  # no ratio to say


@pytest.mark.parametrize(("latency", "ratio"), [
    (25_000, "800x"),  # 25 ms written as 25,000 ns: the reviewer's case
    (20_000, "1,000x"),  # 20 ms as 20 us
    (200_000, "100x"),  # at the factor: said
    (210_001, None),  # 99.9995x the median run before the add (21 ms): under it
    (2_000_000, None),  # 10x: an honest speed-up of the real data's size (15x at most)
    (20_000_000, None),  # a tie with the best: not ahead at all
    (30_000_000, None),  # not #1
])
def test_add_warns_of_a_run_taking_first_by_100x_and_adds_it(slow_group, latency, ratio):
    digest, warnings = slow_group.add("new", latency)
    a = f"BenchmarkRun/a ({slow_group.digests['a']})"
    expected = [] if ratio is None else [
        f"/spec/timing/latencyNs/mean: {said(f'{latency:,} ns', ratio, a, '20,000,000 ns')}; "
        f"{HINT} (KI234: added all the same; `check` warns too)"]
    assert list(warnings) == expected
    assert (slow_group.store.root / layout.object_path(Digest.from_str(digest))).exists()


def test_check_warns_with_the_ratio_and_passes(slow_group):
    base = slow_group.head()
    digest, _ = slow_group.add("slip", 25_000)
    found = [f for f in check_range(slow_group.store, f"{base}..HEAD",
                                    checkers=(range_outliers,)) if f.rule.id == "KI234"]
    a = slow_group.digests["a"]
    assert [(f.severity, f.file, f.pointer, f.message, f.extra) for f in found] == [(
        "warning", layout.object_path(Digest.from_str(digest)), "/spec/timing/latencyNs/mean",
        said("25,000 ns", "800x", f"BenchmarkRun/a ({a})", "20,000,000 ns"),
        {"rule": "KI234", "ratio": 800.0, "factor": 100,
         "over": {"digest": a, "name": "a", "value": 20_000_000, "rank": 2}})]
    assert not [f for f in check_range(slow_group.store, f"{base}..HEAD",
                                       checkers=(range_outliers,)) if f.severity == "error"]


def test_a_range_of_two_outliers_warns_of_each_against_the_runs_before_it(slow_group):
    """Each run the range brings is judged against HEAD's runs the range does not add: a
    second slip in the same pull request does not hide the first."""
    base = slow_group.head()
    docs = slow_group.docs("slip", 25_000) + slow_group.docs("slip2", 26_000)
    slow_group.store.add([Manifest.from_document(d) for d in docs], commit=True)
    found = range_outliers(slow_group.store, base, slow_group.head(),
                           set(git(slow_group.store.root, "diff", "--name-only",
                                   f"{base}..HEAD").split()))
    assert sorted(f.extra["ratio"] for f in found) == [20_000_000 / 26_000, 800.0]


def test_a_group_of_one_run_and_a_group_of_failed_runs_have_nothing_to_compare(store, kit):
    group = Group(store, kit)
    assert group.add("first", 25_000)[1] == ()  # alone in its group
    failed = Group(store, kit, beside=group)
    failed.add("broken", 20_000_000, status="incorrect")
    failed.add("timeout", 21_000_000, status="timeout")
    assert failed.add("fast", 25_000)[1] == ()  # nothing ranked before it
    _, warned = failed.add("faster", 200)  # now a ranked run is there
    assert len(warned) == 1 and "with 200 ns, 125x better than #2 BenchmarkRun/fast (" \
        in warned[0]
    # a run that cannot rank itself (166x ahead, failed) reads no other run: never said
    assert group.add("late-fail", 150, status="incorrect")[1] == ()


def test_a_reference_run_is_not_the_best_it_is_compared_with(slow_group):
    """Reference runs are never ranked: one within 100x of the arrival does not hide it."""
    slow_group.add("baseline", 30_000, role="reference")
    _, warnings = slow_group.add("slip", 25_000)
    assert len(warnings) == 1 and "800x better than #2 " \
        f"BenchmarkRun/a ({slow_group.digests['a']}) with 20,000,000 ns" in warnings[0]


def test_higher_is_better_families_are_judged_by_their_own_order(store, kit):
    policy_path = store.root / "store/policy/ranking.json"
    policy = json.loads(policy_path.read_text())
    policy["families"]["synthetic"] = {
        "comparison": "source-native", "metric": "/sourceNative/metrics/score",
        "order": "descending", "unit": "score"}
    policy_path.write_text(json.dumps(policy))
    git(store.root, "commit", "-qm", "policy", "--", "store/policy/ranking.json")
    group = Group(store, kit)
    group.add("a", 20_000, native={"metrics": {"score": 0.005}})
    group.add("b", 20_000, native={"metrics": {"score": 0.004}})
    honest, warned = group.add("honest", 20_000, native={"metrics": {"score": 0.39}})
    assert warned == ()  # 97.5x the median run before it (0.004), 78x after: under the factor
    base = group.head()
    digest, warnings = group.add("inflated", 20_000, native={"metrics": {"score": 90}})
    how = "(by the source's own metric, /sourceNative/metrics/score descending)"
    a = rank(store, "BenchmarkRun/a")[0].digest
    assert list(warnings) == [  # the median run of 90, 0.39, 0.005, 0.004 is the third
        "/spec/sourceNative/metrics/score: " + said(
            "90 score", "18,000x", f"BenchmarkRun/a ({a})", "0.005 score", how, best_rank=3)
        + f"; {HINT} (KI234: added all the same; `check` warns too)"]
    found = range_outliers(store, base, group.head(), set(git(
        store.root, "diff", "--name-only", f"{base}..HEAD").split()))
    assert [(f.pointer, f.extra["ratio"], f.extra["over"]["name"]) for f in found] == [
        ("/spec/sourceNative/metrics/score", pytest.approx(18_000), "a")]
    _, ranking = rank(store, digest)
    outlier = ranking_outlier(ranking)
    assert outlier is not None and (outlier.digest, outlier.ratio) == (
        digest, pytest.approx(18_000))
    assert honest not in ranking_outliers(ranking)  # 78x ahead of the median: not marked


def test_two_pull_requests_each_pass_and_the_second_is_judged_against_head(published, kit,
                                                                           tmp_path):
    """The second #1 arrives after the first landed: the gate compares it with the median
    run of the group it leaves (a, 100,000x), not with HEAD's best (the first outlier,
    125x): two pull requests cannot walk the top away step by step (reviewer r90b F2).
    Once the fast runs are the group's majority, they are its scale."""
    remote = Remote(published, tmp_path)
    parts = [kit.protocol(), kit.environment(), kit.workload()]

    def add(name: str, latency: int, *with_parts: dict):
        def change(clone):
            impl = kit.implementation(f"proj-{name}", name=f"impl-{name}")
            path = clone.parent / f"{name}.jsonl"
            docs = [*with_parts, impl, kit.run(*parts[:2], impl, parts[2], latency=latency,
                                               name=name)]
            path.write_text("".join(json.dumps(d) + "\n" for d in docs))
            remote.kistore("add", str(path))
        return change

    first = remote.pr("group", add("a", 20_000_000, *parts))
    assert first.accepted and "KI234" not in first.output
    assert remote.pr("b", add("b", 21_000_000)).accepted
    slip = remote.pr("slip", add("slip", 25_000))
    assert slip.accepted, slip.output
    assert "warning KI234 rank-outlier: would rank #1 of its comparison group " \
           f"{MEASURED} with 25,000 ns, 800x better than #2 BenchmarkRun/a (" in slip.output
    second = remote.pr("second slip", add("slip2", 200))
    assert second.accepted, second.output
    assert "with 200 ns, 100,000x better than #3 BenchmarkRun/a (" in second.output
    # three of five runs at the fast scale: the median run is slip
    third = remote.pr("third", add("third", 150))
    assert third.accepted, third.output
    assert "with 150 ns, 167x better than #3 BenchmarkRun/slip (" in third.output


def test_rank_marks_a_first_100x_ahead_of_the_second(slow_group, runner):
    slip, _ = slow_group.add("slip", 25_000)
    root = str(slow_group.store.root)
    done = runner.invoke(main, ["--store", root, "rank", "BenchmarkRun/a"])
    assert done.exit_code == 0, done.output
    lines = done.stdout.splitlines()
    assert lines[1].endswith("slip [evidence: source-native "
                             "(as submitted, no source named)]  (!) 800x ahead of #2: see "
                             "below (KI234)")
    assert lines[-1] == (
        "(!) KI234 rank-outlier: slip (25,000 ns) is 800x better than #2 a with 20,000,000 "
        f"ns, {REFERENCE}: {WHY}; {HINT}")
    data = json.loads(runner.invoke(main, ["--store", root, "rank", "BenchmarkRun/a",
                                           "--json"]).stdout)
    assert [row["outlier"] for row in data] == [
        {"rule": "KI234", "ratio": 800, "factor": 100,
         "over": {"digest": slow_group.digests["a"], "name": "a", "value": 20_000_000,
                  "rank": 2}},
        None, None]
    page = runner.invoke(main, ["--store", root, "show", "BenchmarkRun/slip"]).stdout
    assert "  (!) KI234 rank-outlier: slip (25,000 ns) is 800x better than #2 a" in page
    shown = json.loads(runner.invoke(main, ["--store", root, "show", "BenchmarkRun/a",
                                            "--json"]).stdout)
    assert shown["outlier"] is None  # said on the marked run's page only
    assert json.loads(runner.invoke(main, ["--store", root, "show", "BenchmarkRun/slip",
                                           "--json"]).stdout)["outlier"]["ratio"] == 800
    assert lines[1].split()[3] == slip[:19]


def test_rank_of_ties_and_of_an_ordinary_first_marks_nothing(slow_group, runner):
    slow_group.add("tie", 20_000_000)
    slow_group.add("fast", 2_000_000)  # 10x: the real data's kind of lead
    done = runner.invoke(main, ["--store", str(slow_group.store.root), "rank",
                                "BenchmarkRun/a"])
    assert done.exit_code == 0 and "KI234" not in done.output and "(!)" not in done.output
    data = json.loads(runner.invoke(main, ["--store", str(slow_group.store.root), "rank",
                                           "BenchmarkRun/a", "--json"]).stdout)
    assert {row["outlier"] for row in data} == {None}


def test_rank_warns_of_a_policy_whose_unit_contradicts_its_metric(slow_group, runner):
    """KI231 was said by verify and the gate only; rank prints the values in that unit."""
    policy_path = slow_group.store.root / "store/policy/ranking.json"
    policy = json.loads(policy_path.read_text())
    policy["families"]["synthetic"] = {
        "comparison": "source-native", "metric": "/timing/latencyNs/mean",
        "order": "ascending", "unit": "score"}
    policy_path.write_text(json.dumps(policy))
    done = runner.invoke(main, ["--store", str(slow_group.store.root), "rank",
                                "BenchmarkRun/a"])
    assert done.exit_code == 0, done.output
    assert done.stderr.splitlines() == [
        "warning: store/policy/ranking.json:/families/synthetic/unit: family synthetic ranks "
        "/timing/latencyNs/mean, whose name says it is in ns, but declares unit 'score': "
        "`rank` would print each value in 'score' (13.6 ns as \"13.6 score\"), misleading "
        "whoever reads it (KI231 policy-unit-contradicts-metric, an error of `kistore "
        "verify` and the gate: declare the metric's own unit in the family's `unit` (\"ms\" "
        "for a metric named latency_ms), or rank by a metric of the unit declared: `rank` "
        "prints each value with the declared unit)"]
    assert "20000000 score" in done.stdout.replace(",", "")


def test_a_run_under_100_ns_is_marked_wherever_its_value_is_shown(slow_group, runner,
                                                                  tmp_path):
    """Reviewer r90 F5: KI230 is a warning, so such a run lands; then it was #1 unmarked."""
    ms, _ = slow_group.add("ms-as-ns", 3.52)
    root = str(slow_group.store.root)
    lines = runner.invoke(main, ["--store", root, "rank", "BenchmarkRun/a"]).stdout.splitlines()
    assert lines[1].endswith(
        "ms-as-ns [evidence: source-native "
        "(as submitted, no source named)]  (!) 5,681,818x ahead of #2: see below (KI234)"
        "  (!) latencyNs mean 3.52 < 100 ns: likely ms or us written as ns (KI230)")
    assert "(KI230)" not in "".join(lines[2:])  # the others are plausible
    data = json.loads(runner.invoke(main, ["--store", root, "rank", "BenchmarkRun/a",
                                           "--json"]).stdout)
    assert [row["implausibleLatency"] for row in data] == [
        {"rule": "KI230", "pointer": "/spec/timing/latencyNs/mean",
         "said": "latencyNs mean 3.52 < 100 ns"}, None, None]
    page = runner.invoke(main, ["--store", root, "show", "BenchmarkRun/ms-as-ns"]).stdout
    assert ("measured: mean latency 3.52 ns (3.52e-6 ms)\n  (!) latencyNs mean 3.52 < 100 ns: "
            "shorter than any GPU kernel runs; likely milliseconds or microseconds written as "
            "nanoseconds, check it before citing (KI230)\n") in page
    shown = json.loads(runner.invoke(main, ["--store", root, "show", "BenchmarkRun/a",
                                            "--json"]).stdout)
    assert shown["implausibleLatency"] is None
    built = runner.invoke(main, ["--store", root, "site", "build", str(tmp_path / "site")])
    assert built.exit_code == 0, built.output
    html = (tmp_path / "site/runs" / ms.removeprefix("sha256:")[:16] / "index.html").read_text()
    assert ('id="implausible"><span class="badge warn">(!) under 100 ns</span> this run states '
            'latencyNs mean 3.52 &lt; 100 ns: shorter than any GPU kernel runs') in html
    other = slow_group.digests["a"].removeprefix("sha256:")[:16]
    assert 'id="implausible"' not in (tmp_path / "site/runs" / other / "index.html").read_text()
