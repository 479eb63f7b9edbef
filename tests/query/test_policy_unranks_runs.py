"""KI247: a policy change that unranks runs inside a group that keeps ranking others (break95 M2).

break95's sequence: main holds a comparison group of two runs stating a source-native mean
and a third added by `add --commit` without one, tied #1 by measured latency; a branch ranks
the family by `/sourceNative/metrics/mean`. The pre-commit and `check origin/main..HEAD`
said "ok: 0 errors, 0 warnings, 1 info", and KI415's "after" list left the third run out,
silently (KI245 and KI246 judge whole groups). Now a warning names the run, its rank before
and the pointer it lacks, and KI415 lists it as `rank` shows it, "-".
"""

from __future__ import annotations

import json

import pytest

from kistore.core.findings import WARNING
from kistore.query.unheld_metric import RUNS_UNRANKED, dropped_rows, unranked_runs

from ..conftest import add_docs, git
from .test_rank_outlier_group import _cli

POLICY = "store/policy/ranking.json"
MEAN = "/sourceNative/metrics/mean"


@pytest.fixture
def main_branch(store, kit, tmp_path):
    """main: eager and compile state a source mean; othercloud, added later, does not."""
    protocol, env, work = kit.protocol(), kit.environment(), kit.workload("level1-1")
    docs = [protocol, env, work]
    for name, ns, ms in (("eager", 3_680_000, 3.68), ("compile", 3_810_000, 3.81)):
        impl = kit.implementation(f"proj-{name}", name=f"impl-{name}")
        docs += [impl, kit.run(protocol, env, impl, work, latency=ns, name=name,
                               native={"metrics": {"mean": ms, "std": 0.01}})]
    add_docs(store, docs)
    impl = kit.implementation("proj-othercloud", name="impl-othercloud")
    other = kit.run(protocol, env, impl, work, latency=3_680_000, name="othercloud-eager")
    path = tmp_path / "othercloud.jsonl"
    path.write_text("".join(json.dumps(d) + "\n" for d in (impl, other)))
    _cli(store, "add", "--commit", str(path))
    rows = _cli(store, "rank", "BenchmarkRun/eager").stdout.splitlines()
    assert [row.split()[0] for row in rows[1:4]] == ["1", "1", "3"]  # tied #1, as break95's
    return store


def _rank_by_the_source_mean(store) -> None:
    path = store.root / POLICY
    policy = json.loads(path.read_text())
    policy["families"]["synthetic"] = {"comparison": "source-native", "metric": MEAN,
                                       "order": "ascending", "unit": "ms"}
    path.write_text(json.dumps(policy, indent=2) + "\n")


def _digest(store, name: str) -> str:
    return json.loads(_cli(store, "show", f"BenchmarkRun/{name}", "--json").stdout)["digest"]


def test_the_branch_that_unranks_one_run_of_a_group_is_warned_naming_it(main_branch):
    store = main_branch
    base = git(store.root, "rev-parse", "HEAD").strip()
    other = _digest(store, "othercloud-eager")
    _rank_by_the_source_mean(store)
    git(store.root, "commit", "-qam", "partial")
    checked = _cli(store, "check", f"{base}..HEAD")  # a warning: exit 0, said
    assert "ok: " in checked.output and "0 errors, 1 warning, 1 info" in checked.output
    [line] = [x for x in checked.output.splitlines() if "warning KI247" in x]
    assert line.startswith(f"{POLICY}:/families/synthetic/metric: warning KI247 "
                           "policy-unranks-runs: family synthetic ranks "
                           f"{MEAN}: 1 run that ranked before this change would rank "
                           "nothing, its group ranking others (`rank` shows it as \"-\"): "
                           f"BenchmarkRun/othercloud-eager ({other}, #1 in group sha256:"), line
    assert line.endswith(f" before; now no value at {MEAN}). It holds /timing/latencyNs/mean "
                         "(expected a pointer every ranked run holds, found "
                         f"{MEAN})"), line
    # KI415's one line no longer drops it silently
    [ki415] = [x for x in checked.output.splitlines() if "KI415" in x]
    assert ki415.endswith("before: 1 eager, 1 othercloud-eager, 3 compile; after: 1 eager, "
                          f"2 compile, - othercloud-eager (no value at {MEAN})"), ki415
    data = json.loads(_cli(store, "check", f"{base}..HEAD", "--json").stdout)
    [found] = [f for f in data["findings"] if f["rule"] == "KI247"]
    assert found["extra"]["runs"] == [{
        "digest": other, "name": "othercloud-eager", "group": found["extra"]["runs"][0]["group"],
        "rank": 1, "reason": f"no value at {MEAN}"}]
    assert found["extra"]["metric"] == MEAN
    assert found["extra"]["held"] == ["/timing/latencyNs/mean"]  # no source mean at all
    shown = _cli(store, "rank", "BenchmarkRun/eager").stdout.splitlines()  # as said: "-"
    [row] = [r for r in shown if "othercloud-eager " in r]
    assert row.split()[0] == "-" and row.endswith(f"(no value at {MEAN})"), shown


def test_the_pre_commit_hook_says_it_too(main_branch):
    """pre-commit checks HEAD..STAGED, the same gate: the warning is printed there."""
    store = main_branch
    _rank_by_the_source_mean(store)
    git(store.root, "add", POLICY)
    staged = git(store.root, "commit-tree", git(store.root, "write-tree").strip(), "-p",
                 "HEAD", "-m", "staged").strip()
    checked = _cli(store, "check", f"HEAD..{staged}").output
    assert "warning KI247 policy-unranks-runs: family synthetic ranks" in checked, checked
    assert "BenchmarkRun/othercloud-eager (" in checked


def test_a_change_every_run_of_the_group_holds_says_nothing(main_branch, kit):
    """A family ranked by /timing/latencyNs/mean, which all three runs hold: nobody is
    unranked, and the order (by the same values) does not change."""
    store = main_branch
    base = git(store.root, "rev-parse", "HEAD").strip()
    path = store.root / POLICY
    policy = json.loads(path.read_text())
    policy["families"]["synthetic"] = {"comparison": "source-native",
                                       "metric": "/timing/latencyNs/mean",
                                       "order": "ascending", "unit": "ns"}
    path.write_text(json.dumps(policy, indent=2) + "\n")
    git(store.root, "commit", "-qam", "held by all")
    checked = _cli(store, "check", f"{base}..HEAD").output
    assert "KI247" not in checked and "KI415" not in checked, checked


class _Record:
    def __init__(self, digest, name, spec):
        self.digest, self.name, self.spec = digest, name, spec


class _Row:
    def __init__(self, record, rank=None, reason=None):
        self.record, self.rank, self.reason = record, rank, reason


class _Ranking:
    def __init__(self, ranked, unranked):
        self.ranked, self.unranked = ranked, unranked


def test_many_runs_are_counted_past_the_ones_named():
    records = [_Record(f"sha256:{i:064x}", f"r{i}", {"sourceNative": {"metrics": {"avg": 1}}})
               for i in range(11)]
    before = _Ranking([_Row(r, i + 1) for i, r in enumerate(records)], [])
    after = _Ranking([], [_Row(r, None, f"no value at {MEAN}") for r in records])
    assert [row.record.name for row in dropped_rows(before, after)] == [
        r.name for r in records]
    assert dropped_rows(after, before) == []  # ranked at both: nothing dropped that way
    [finding] = unranked_runs({"fam": (MEAN, [("sha256:g", before.ranked[i], row) for i, row
                                              in enumerate(dropped_rows(before, after))])})
    assert finding.rule is RUNS_UNRANKED and finding.severity == WARNING
    assert "family fam ranks /sourceNative/metrics/mean: 11 runs that ranked before this " \
        "change would rank nothing, their groups ranking others" in finding.message
    assert finding.message.count("BenchmarkRun/") == 8
    assert "; ... (3 more). They hold /sourceNative/metrics/avg" in finding.message
    assert len(finding.extra["runs"]) == 11
