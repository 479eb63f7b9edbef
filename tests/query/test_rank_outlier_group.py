"""KI234 judges what readers will see: each run against its group's median run (r90b).

F2: the mark compared a #1 with its #2 only, so two slipped runs at the top (1.02x apart)
went unmarked, and two pull requests at 60x each made a 3,600x lead no rule named. F10:
the gate and ``add`` judged an arriving run only against the runs already stored (a new
group whose runs all come in one pull request passed silently), and a withdrawn run stayed
the group's best. F7: ``add`` of the environment completing a stored run's key judged
nothing. Each through the CLI (``add``, ``check``, pre-receive, ``rank``).
"""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from kistore.cli import main
from kistore.query.outliers import Run, group_outliers

from ..conftest import add_docs, git
from ..prs import Remote

REAL = (3_520_000, 3_600_000, 3_700_000)  # three runs of a 3.5 ms kernel, in ns


def _cli(store, *args, code=0):
    result = CliRunner().invoke(main, ["--store", str(store.root), *args])
    assert result.exit_code == code, result.output
    return result


def _ki234(text: str) -> list[str]:
    return [line for line in text.splitlines()  # add's warnings, check's findings
            if "(KI234: added" in line or "warning KI234 rank-outlier: " in line]


@pytest.mark.parametrize(("values", "marked"), [
    ([], {}),
    ([3_520], {}),  # alone: nothing to compare
    ([3_520, 3_520_000], {"r0": (1000.0, "r1", 2)}),  # two runs: #1 against #2
    ([3_520, 3_600, *REAL], {"r0": (1000.0, "r2", 3), "r1": (3_520_000 / 3_600, "r2", 3)}),
    ([970, 58_000, *REAL], {"r0": (3_520_000 / 970, "r2", 3)}),  # 58,000 ns: 60.7x
    ([3_520, 3_600, 3_520_000, 3_600_000], {"r0": (1000.0, "r2", 3),
                                            "r1": (3_520_000 / 3_600, "r2", 3)}),
    ([3_520, 3_600, 3_700, 3_520_000, 3_600_000], {}),  # slips are the majority
    ([1_930_000, 28_900_000], {}),  # the real data's widest lead: 14.97x
    ([35_200, 3_520_000], {"r0": (100.0, "r1", 2)}),  # at the factor: marked
    ([35_201, 3_520_000], {}),  # 99.997x
    ([0.0, 3_520_000], {}),  # a value of 0: no ratio to say
])
def test_each_run_is_compared_with_the_group_s_median_run(values, marked):
    runs = [Run(f"r{i}", f"n{i}", v, "ns") for i, v in enumerate(values)]
    found = group_outliers("ascending", runs)
    assert {d: (pytest.approx(o.ratio), o.best, o.best_rank) for d, o in found.items()} == {
        d: (pytest.approx(r), b, k) for d, (r, b, k) in marked.items()}


def test_higher_is_better_and_a_median_of_0():
    scores = [Run("a", None, 90.0, None), Run("b", None, 0.4, None), Run("c", None, 0.005, None),
              Run("d", None, 0.004, None)]
    assert {d: o.ratio for d, o in group_outliers("descending", scores).items()} == {
        "a": pytest.approx(18_000)}  # 0.4 is 80x the median run: not marked
    zero = [Run("a", None, 0.9, None), Run("b", None, 0.0, None)]
    assert group_outliers("descending", zero) == {}


class Board:
    """A store with one comparison group of three real-sized runs (3.52-3.7 ms)."""

    def __init__(self, store, kit, tmp_path) -> None:
        self.store, self.kit, self.tmp = store, kit, tmp_path
        self.parts = [kit.protocol(), kit.environment(), kit.workload()]
        self.digests = dict(zip("abc", add_docs(store, [
            *self.parts, *[d for n, v in zip("abc", REAL, strict=True)
                           for d in self.docs(n, v)]])[4::2], strict=True))

    def docs(self, name: str, latency: float, environment: dict | None = None,
             workload: dict | None = None) -> list[dict]:
        protocol, env, work = self.parts
        impl = self.kit.implementation(f"proj-{name}", name=f"impl-{name}")
        return [impl, self.kit.run(protocol, environment or env, impl, workload or work,
                                   latency=latency, name=name)]

    def file(self, name: str, docs: list[dict]) -> str:
        path = self.tmp / f"{name}.jsonl"
        path.write_text("".join(json.dumps(d) + "\n" for d in docs))
        return str(path)

    def head(self) -> str:
        return git(self.store.root, "rev-parse", "HEAD").strip()


@pytest.fixture
def board(store, kit, tmp_path):
    return Board(store, kit, tmp_path)


def test_two_runs_in_us_in_one_change_are_each_said_and_both_marked(board):
    """F2, first sequence: one contributor's two runs written in us, in one add."""
    base = board.head()
    added = _cli(board.store, "add", "--commit", board.file(
        "us", board.docs("us-a", 3_520) + board.docs("us-b", 3_600)))
    said = _ki234(added.stderr)
    assert len(said) == 2
    assert "would rank #1 of its comparison group (by measured latency, /timing/latencyNs/" \
        "mean ascending) with 3,520 ns, 1,000x better than #3 BenchmarkRun/a (" in said[0]
    assert "with 3,520,000 ns, the group's median run once the change lands" in said[0]
    assert "would rank #2 of its comparison group (by measured latency, /timing/latencyNs/" \
        "mean ascending) with 3,600 ns, 978x better than #3 BenchmarkRun/a (" in said[1]
    checked = _cli(board.store, "check", f"{base}..HEAD")
    assert len(_ki234(checked.output)) == 2 and "0 errors, 2 warnings" in checked.output
    rows = _cli(board.store, "rank", "BenchmarkRun/a").stdout.splitlines()
    assert rows[1].endswith("us-a [evidence: source-native "
                            "(as submitted, no source named)]  (!) 1,000x ahead of #3: see "
                            "below (KI234)")
    assert rows[2].endswith("us-b [evidence: source-native "
                            "(as submitted, no source named)]  (!) 978x ahead of #3: see "
                            "below (KI234)")
    assert "(!)" not in "".join(rows[3:6])
    assert [r.startswith("(!) KI234 rank-outlier: ") for r in rows[6:]] == [True, True]
    data = json.loads(_cli(board.store, "rank", "BenchmarkRun/a", "--json").stdout)
    assert [(row["name"], (row["outlier"] or {}).get("over", {}).get("name"))
            for row in data] == [("us-a", "a"), ("us-b", "a"), ("a", None), ("b", None),
                                 ("c", None)]
    shown = json.loads(_cli(board.store, "show", "BenchmarkRun/us-b", "--json").stdout)
    assert shown["outlier"]["over"] == {"digest": board.digests["a"], "name": "a",
                                        "value": 3_520_000, "rank": 3}
    # merged, the warning lasts: verify says it once for the group, on its #1
    verified = _cli(board.store, "verify")
    assert [line.split(": warning KI234 rank-outlier: ")[1] for line in verified.output
            .splitlines() if "warning KI234" in line] == [
        "ranks #1 of its comparison group (by measured latency, /timing/latencyNs/mean "
        f"ascending) with 3,520 ns, 1,000x better than #3 BenchmarkRun/a ({board.digests['a']})"
        " with 3,520,000 ns, the group's median run, and 1 more run(s) of the group are "
        "marked so: a value 100x or more ahead is what a value in another unit reads as (ms "
        "or us written as ns); no group of the real data has a #1 more than 15x ahead of its "
        "median run"]
    assert "0 errors, 1 warning" in verified.output


def test_verify_of_a_group_whose_first_is_ordinary_says_nothing(board):
    _cli(board.store, "add", "--commit", board.file("fast", board.docs("fast", 352_000)))
    assert "KI234" not in _cli(board.store, "verify").output  # 10x: the real data's kind


def test_two_pull_requests_at_60x_each_the_second_is_said(board, tmp_path):
    """F2, second sequence: each pull request passes alone; the second is judged against
    the median run, 3,629x ahead, not against the first (59.8x)."""
    (tmp_path / "remote").mkdir()
    remote = Remote(board.store.root, tmp_path / "remote")

    def add(name: str, latency: int):
        def change(clone):
            remote.kistore("add", board.file(name, board.docs(name, latency)))
        return change

    first = remote.pr("step 1", add("step-1", 58_000))  # 60.7x the median run: honest
    assert first.accepted and "KI234" not in first.output, first.output
    second = remote.pr("step 2", add("step-2", 970))
    assert second.accepted, second.output
    assert "warning KI234 rank-outlier: would rank #1 of its comparison group " \
        "(by measured latency, /timing/latencyNs/mean ascending) with 970 ns, 3,629x better " \
        "than #3 BenchmarkRun/a (" in second.output
    rows = remote.kistore("rank", "BenchmarkRun/a").stdout.splitlines()
    assert rows[1].endswith("step-2 [evidence: source-native "
                            "(as submitted, no source named)]  (!) 3,629x ahead of #3: see "
                            "below (KI234)")
    assert "(!)" not in rows[2]  # step-1, 60.7x: under the factor


def test_a_new_group_whose_runs_come_in_one_change_is_judged_with_itself(board):
    """F10: a new workload's runs, one honest and one 1,000x off, in one add: add and check
    compare them as rank will (before: no word, and rank marked it a second later)."""
    base = board.head()
    gemm = board.kit.workload("gemm")
    docs = [gemm, *board.docs("new-honest", 3_520_000, workload=gemm),
            *board.docs("new-slip", 3_520, workload=gemm)]
    added = _cli(board.store, "add", "--commit", board.file("newg", docs))
    said = _ki234(added.stderr)
    assert len(said) == 1 and "with 3,520 ns, 1,000x better than #2 BenchmarkRun/new-honest (" \
        in said[0]
    checked = _cli(board.store, "check", f"{base}..HEAD")
    assert [line.split(": warning KI234")[0] for line in _ki234(checked.output)] == [
        f"store/objects/sha256/{_hex(added, 'new-slip')[:2]}/{_hex(added, 'new-slip')[2:]}"
        ".json:/spec/timing/latencyNs/mean"]
    rows = _cli(board.store, "rank", "BenchmarkRun/new-slip").stdout.splitlines()
    assert rows[1].endswith("new-slip [evidence: source-native "
                            "(as submitted, no source named)]  (!) 1,000x ahead of #2: see "
                            "below (KI234)")


def _hex(added, name: str) -> str:
    line = next(x for x in added.stdout.splitlines() if x.endswith(f" BenchmarkRun {name}"))
    return line.split()[0].removeprefix("sha256:")


def test_a_withdrawn_run_is_not_the_group_s_median(board, tmp_path):
    """F10's second half: a maintainer withdraws a slipped run; the group then holds a,
    b, c, and the next slip is said in add and the gate (the withdrawn run was its best)."""
    key = tmp_path / "m"
    _cli(board.store, "key", "generate", str(key))
    _cli(board.store, "trust", "add", f"{key}.pub", "--role", "maintainer", "--valid-from",
         "2026-01-01")
    git(board.store.root, "add", "store/trust")
    git(board.store.root, "commit", "-q", "--no-verify", "-m", "trust a maintainer")
    docs = board.docs("us-a", 3_520) + board.docs("us-c", 3_540) + board.docs("us-d", 3_560)
    _cli(board.store, "add", "--commit", board.file("us", docs))  # said, landed: 3 of 6
    for name in ("us-a", "us-c", "us-d"):
        _cli(board.store, "attest", f"BenchmarkRun/{name}", "--type", "withdrawal", "-m",
             "us written as ns", "--key", str(key), "--file")
    git(board.store.root, "add", "store/attestations")
    git(board.store.root, "commit", "-q", "--no-verify", "-m", "withdraw")
    base = board.head()
    added = _cli(board.store, "add", "--commit", board.file("b2", board.docs("us-b", 3_600)))
    said = _ki234(added.stderr)  # without the withdrawals: median us-c, 1.0x, no word
    assert len(said) == 1 and "with 3,600 ns, 1,000x better than #3 BenchmarkRun/b (" in \
        said[0]
    checked = _cli(board.store, "check", f"{base}..HEAD")
    assert len(_ki234(checked.output)) == 1 and "1,000x better than #3 BenchmarkRun/b (" in \
        checked.output


def test_add_of_the_environment_completing_a_run_s_key_judges_the_run(board):
    """F7: the run first (dangling environment), its environment next: the second add
    writes the run's group file, and says KI234 for it, on the environment's line."""
    env = board.kit.environment(driver="560.35")
    docs = board.docs("dang-us", 3_520, environment=env)
    _cli(board.store, "add", "--allow-dangling", "--commit", board.file("dang", docs))
    added = _cli(board.store, "add", "--commit", board.file("env", [env]))
    said = _ki234(added.stderr)
    assert len(said) == 1 and said[0].startswith(f"warning: {board.tmp / 'env.jsonl'}:1:")
    assert "BenchmarkRun/dang-us (sha256:" in said[0] and "a stored run whose comparison " \
        "group this add completes, would rank #1 of its comparison group" in said[0]
