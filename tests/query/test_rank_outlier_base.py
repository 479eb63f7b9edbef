"""KI234 at the gate judges a change by what it cannot move: the group before it (r91 F1).

r91 F1: the median run of the group a change leaves is the slip itself when the slips are
half that group or more: one stored run and a contributor's two runs written in us, in one
add, passed ``add``, ``check`` and pre-receive unmarked (the median run was the second
slip, 1.04x); and a third one-run slip into a group of two real runs passed, and silently
took the marks of the first two away. Now an arriving run is also compared with the median
run of its group before the change, and the gate says each stored run whose mark the change
removes or makes. Each sequence through the CLI (``add``, ``check``, pre-receive, ``rank``).
"""

from __future__ import annotations

import json

import pytest

from ..conftest import add_docs
from ..prs import Remote
from .test_rank_outlier import HINT
from .test_rank_outlier_group import Board, _cli, _ki234

WHY = ("a value 100x or more ahead is what a value in another unit reads as (ms or us written "
       "as ns); no group of the real data has a #1 more than 15x ahead of its median run")
HOW = "of its comparison group (by measured latency, /timing/latencyNs/mean ascending)"


@pytest.fixture
def board(store, kit, tmp_path):
    return Board(store, kit, tmp_path)


def _group(board: Board, label: str, values: dict[str, float]) -> tuple[dict, dict[str, str]]:
    """Add (committed) a workload of its own with one run per ``values`` item: its
    workload, and each run's digest by name."""
    work = board.kit.workload(label)
    docs = [work, *[d for name, v in values.items()
                    for d in board.docs(name, v, workload=work)]]
    added = add_docs(board.store, docs)
    return work, {name: added[2 + 2 * i] for i, name in enumerate(values)}


def _rows(board: Board, ref: str) -> list[str]:
    return _cli(board.store, "rank", ref).stdout.splitlines()


def test_one_stored_run_and_two_slips_in_one_add_are_each_said(board):
    """r91 F1's first sequence: a KernelBench group of one run (7.66 ms) and one
    contributor's eager and torch.compile runs written in us (7,400 and 7,100 ns)."""
    work, stored = _group(board, "solo", {"kb-solo": 7_660_000})
    base = board.head()
    added = _cli(board.store, "add", "--commit", board.file("solo", [
        *board.docs("solo-eager-us", 7_400, workload=work),
        *board.docs("solo-compile-us", 7_100, workload=work)]))
    said = [line.split(": ", 2)[2] for line in _ki234(added.stderr)]
    only = (f"BenchmarkRun/kb-solo ({stored['kb-solo']}) with 7,660,000 ns, the group's only "
            "run before the change (a change's own runs cannot move it; once the change lands "
            "the group's median run is")
    eager = _digest(added, "solo-eager-us")
    assert sorted(said) == sorted([
        f"would rank #1 {HOW} with 7,100 ns, 1,079x better than #3 {only} #2 BenchmarkRun/"
        f"solo-eager-us ({eager}) with 7,400 ns, which `rank` compares with: `rank` will not "
        f"mark this run): {WHY}; {HINT} (KI234: added all the same; `check` warns too)",
        f"would rank #2 {HOW} with 7,400 ns, 1,035x better than #3 {only} this run itself: "
        f"`rank` will not mark this run): {WHY}; {HINT} (KI234: added all the same; `check` "
        "warns too)"])
    checked = _cli(board.store, "check", f"{base}..HEAD")
    assert len(_ki234(checked.output)) == 2 and "0 errors, 2 warnings" in checked.output
    data = json.loads(_cli(board.store, "check", f"{base}..HEAD", "--json").stdout)
    overs = [f["extra"]["over"] for f in data["findings"] if f["rule"] == "KI234"]
    assert overs == [{"digest": stored["kb-solo"], "name": "kb-solo", "value": 7_660_000,
                      "rank": 3}] * 2
    # the limit docs/rules.md states: rank keeps the group's median run (the second slip,
    # 1.04x): once merged, nothing marks them (the gate said it, before the merge)
    assert "(!)" not in "".join(_rows(board, "BenchmarkRun/kb-solo"))
    assert "KI234" not in _cli(board.store, "verify").output


def _digest(added, name: str) -> str:
    return next(x for x in added.stdout.splitlines()
                if x.endswith(f" BenchmarkRun {name}")).split()[0]


def test_a_change_making_the_slips_no_longer_half_marks_them_and_says_so(board):
    """After such a merge, two honest runs make the slips a minority again: the change
    newly marks both stored runs, and add and check say it (r91 F1 (b)'s other half)."""
    work, stored = _group(board, "solo", {"kb-solo": 7_660_000})
    add_docs(board.store, [*board.docs("solo-eager-us", 7_400, workload=work),
                           *board.docs("solo-compile-us", 7_100, workload=work)])
    base = board.head()
    added = _cli(board.store, "add", "--commit", board.file("honest", [
        *board.docs("honest-1", 7_500_000, workload=work),
        *board.docs("honest-2", 7_700_000, workload=work)]))
    said = sorted(_ki234(added.stderr))
    assert len(said) == 2, added.stderr
    assert "this change would newly mark BenchmarkRun/solo-compile-us (sha256:" in said[0]
    assert (f"a stored run that would rank #1 {HOW} with 7,100 ns, 1,056x better than #3 "
            "BenchmarkRun/honest-1 (sha256:") in said[0]
    assert ("with 7,500,000 ns, the group's median run once the change lands (before it the "
            "median run was #2 BenchmarkRun/solo-eager-us (sha256:") in said[0]
    assert "with 7,400 ns, and the stored run was not marked)" in said[0]
    assert "this change would newly mark BenchmarkRun/solo-eager-us (sha256:" in said[1]
    assert "with 7,400 ns, 1,014x better than #3 BenchmarkRun/honest-1" in said[1]
    checked = _cli(board.store, "check", f"{base}..HEAD")
    found = _ki234(checked.output)
    assert len(found) == 2 and "0 errors, 2 warnings" in checked.output
    assert {line.split(":/spec")[0] for line in found} == {
        f"store/objects/sha256/{d[7:9]}/{d[9:]}.json" for d in
        [_stored_digest(board, "solo-compile-us"), _stored_digest(board, "solo-eager-us")]}
    rows = _rows(board, "BenchmarkRun/kb-solo")
    assert rows[1].endswith("(!) 1,056x ahead of #3: see below (KI234)")
    assert rows[2].endswith("(!) 1,014x ahead of #3: see below (KI234)")
    assert stored  # kb-solo: #4 now, unmarked


def _stored_digest(board: Board, name: str) -> str:
    return json.loads(_cli(board.store, "show", f"BenchmarkRun/{name}", "--json").stdout)[
        "digest"]


def test_three_one_run_pull_requests_the_third_is_said_and_the_marks_it_removes(
        board, tmp_path):
    """r91 F1's second sequence, through pre-receive: a group of two real runs (3.68 and
    3.81 ms), then three one-run pull requests in us. The third made the slips three of
    five, the median run a slip: it passed with 0 warnings and the marks of the first two
    vanished from rank. Now the gate says it (995x the median run before it) and says each
    mark it removes, on the stored run's object."""
    work, _ = _group(board, "pair", {"real-1": 3_680_000, "real-2": 3_810_000})
    (tmp_path / "remote").mkdir()
    remote = Remote(board.store.root, tmp_path / "remote")
    adds: list[str] = []

    def add(name: str, latency: int):
        def change(clone):
            adds.append(remote.kistore("add", board.file(name, board.docs(
                name, latency, workload=work))).stderr)
        return change

    pushes = [remote.pr(f"three-{i}", add(f"three-{i}", v))
              for i, v in enumerate((3_520, 3_600, 3_700))]
    assert all(p.accepted for p in pushes), [p.output for p in pushes]
    assert ["0 errors, 1 warning, 0 info" in p.output for p in pushes[:2]] == [True, True]
    third = pushes[2].output
    assert "0 errors, 3 warnings, 0 info" in third, third
    assert (f"warning KI234 rank-outlier: would rank #3 {HOW} with 3,700 ns, 995x better than "
            "#4 BenchmarkRun/real-1 (sha256:") in third
    assert ("with 3,680,000 ns, the group's median run before the change (a change's own runs "
            "cannot move it; once the change lands the group's median run is this run itself: "
            f"`rank` will not mark this run): {WHY}") in third
    removed = [line for line in third.splitlines() if "would remove KI234's mark" in line]
    assert [line.split("warning KI234 rank-outlier: ")[1].split(" (sha256:")[0]
            for line in removed] == [
        "this change would remove KI234's mark from BenchmarkRun/three-0",
        "this change would remove KI234's mark from BenchmarkRun/three-1"]
    assert (f"a stored run that would rank #1 {HOW} with 3,520 ns, 1,045x better than #4 "
            "BenchmarkRun/real-1 (sha256:") in removed[0]
    assert ("with 3,680,000 ns, the group's median run before the change; once it lands the "
            "group's median run is #3 BenchmarkRun/three-2 (sha256:") in removed[0]
    assert removed[0].rstrip().endswith("with 3,700 ns, and `rank`, `show` and the site mark the "
                               f"stored run no more: {WHY}")
    # the add said the same three (the removals on the add's own run's line)
    assert len(_ki234(adds[2])) == 3 and "would remove KI234's mark from " \
        "BenchmarkRun/three-1" in adds[2]
    assert "a trusted maintainer withdraws it (`kistore attest REF --type withdrawal" in \
        adds[2].split("would remove KI234's mark from BenchmarkRun/three-0")[1]
    # the limit docs/rules.md states: rank keeps the group's median run (three-2)
    rows = remote.kistore("rank", "BenchmarkRun/real-1").stdout.splitlines()
    assert "(!)" not in "".join(rows) and len(rows) == 6


def test_a_new_group_whose_slips_are_its_majority_is_a_limit(board):
    """What the gate cannot judge (docs/rules.md, KI234's limits): a new GPU's one honest
    run and two runs in us in one add: no run before the change, and the median run of the
    group it leaves is the second slip (1.02x)."""
    base = board.head()
    l40s = board.kit.workload("l40s")
    _cli(board.store, "add", "--commit", board.file("l40s", [
        l40s, *board.docs("l40s-honest", 3_520_000, workload=l40s),
        *board.docs("l40s-eager-us", 3_520, workload=l40s),
        *board.docs("l40s-compile-us", 3_600, workload=l40s)]))
    assert "KI234" not in _cli(board.store, "check", f"{base}..HEAD").output


def test_an_ordinary_run_moves_no_mark_and_a_withdrawn_run_is_not_the_base(board, tmp_path):
    """A stored slip stays marked when an honest run arrives (no word); a base whose only
    ranked run a maintainer withdrew has no median run: the arrivals are judged together."""
    work, _ = _group(board, "one", {"real": 3_520_000, "slip": 3_520})
    base = board.head()
    added = _cli(board.store, "add", "--commit", board.file(
        "h", board.docs("honest", 3_600_000, workload=work)))
    assert _ki234(added.stderr) == []
    assert "KI234" not in _cli(board.store, "check", f"{base}..HEAD").output
    assert _rows(board, "BenchmarkRun/real")[1].endswith("(!) 1,000x ahead of #2: see below "
                                                         "(KI234)")
    key = tmp_path / "m"
    _cli(board.store, "key", "generate", str(key))
    _cli(board.store, "trust", "add", f"{key}.pub", "--role", "maintainer", "--valid-from",
         "2026-01-01")
    lone, _ = _group(board, "lone", {"gone": 3_520_000})
    _cli(board.store, "attest", "BenchmarkRun/gone", "--type", "withdrawal", "-m", "wrong GPU",
         "--key", str(key))
    added = _cli(board.store, "add", board.file("s", board.docs("lone-us", 3_520,
                                                                workload=lone)))
    assert _ki234(added.stderr) == []  # without the withdrawal: 1,000x its only run
