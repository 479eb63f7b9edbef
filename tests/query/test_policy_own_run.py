"""A policy change and the run that arrives with it, at the gate (break97 M4, L10).

M4: one pull request moved a family to ``/sourceNative/metrics/p50``, a metric no stored run
holds, and added the only run stating it, 1,000x ahead of the stored runs by measured
latency. The run ranked #1 alone, the stored runs unranked; the gate said KI247 "their
groups ranking others" and KI415's "(arriving)", and the 1,000x lead `rank --comparison
measured` marks right after the merge was said nowhere. L10: a policy change to a metric a
stored slip states 1,000x off, with an arriving run as fast in the same range: KI234 said
both runs, and KI235 named the arriving run too, as the policy's doing (docs/rules.md KI235:
"not said of a run KI234 says already").
"""

from __future__ import annotations

import json

from ..conftest import git
from . import test_policy_arriving as arriving
from .test_policy_arriving import MEAN, rank_by_the_mean
from .test_rank_outlier_group import _cli, _ki234

group = arriving.group  # one group of three runs: eager, compile, triton (3.68-3.9 ms)

P50 = "/sourceNative/metrics/p50"


def _rank_by(store, metric: str) -> str:
    """Commit a policy ranking the family ``synthetic`` by ``metric`` (ms); return BASE."""
    base = git(store.root, "rev-parse", "HEAD").strip()
    path = store.root / "store/policy/ranking.json"
    policy = json.loads(path.read_text())
    policy["families"]["synthetic"] = {"comparison": "source-native", "metric": metric,
                                       "order": "ascending", "unit": "ms"}
    path.write_text(json.dumps(policy, indent=2) + "\n")
    git(store.root, "commit", "-qam", f"rank by {metric}")
    return base


def _add(store, kit, parts, tmp_path, name: str, latency: float, metrics: dict,
         *, commit: bool = True):
    """``add`` (``--commit``) a run ``name`` and its implementation; return the CLI result."""
    protocol, env, work = parts
    impl = kit.implementation(f"proj-{name}", name=f"impl-{name}")
    path = tmp_path / f"{name}.jsonl"
    path.write_text("".join(json.dumps(d) + "\n" for d in (impl, kit.run(
        protocol, env, impl, work, latency=latency, name=name,
        native={"metrics": metrics}))))
    return _cli(store, "add", *(["--commit"] if commit else []), str(path))


def _digest(store, name: str) -> str:
    return json.loads(_cli(store, "show", f"BenchmarkRun/{name}", "--json").stdout)["digest"]


def test_a_policy_moving_the_family_to_its_own_run_s_metric_says_so(group, tmp_path):
    """M4 as filed: KI247 says the group ranks only the run the change adds, KI234 says its
    lead by measured latency (``add`` too), and the fix's command shows that lead."""
    store, kit, parts = group
    base = _rank_by(store, P50)
    added = _add(store, kit, parts, tmp_path, "planted", 3_680, {"p50": 0.00365})
    planted = _digest(store, "planted")
    lead = ("ranks alone by its family's policy (by the source's own metric, "
            f"{P50} ascending), which no run stored before this change holds; by measured "
            "latency (`kistore rank BenchmarkRun/planted --comparison measured`) it would "
            "rank #1 of its comparison group (by measured latency, /timing/latencyNs/mean "
            "ascending) with 3,680 ns, 1,035x better than #3 BenchmarkRun/")  # 3,810,000/3,680
    [said] = _ki234(added.stderr)
    assert said.startswith(f"warning: {tmp_path / 'planted.jsonl'}:2:1:/spec/timing/"
                           f"latencyNs/mean: {lead}"), said
    checked = _cli(store, "check", f"{base}..HEAD").output
    [said] = _ki234(checked)
    obj = f"store/objects/sha256/{planted[7:9]}/{planted[9:]}.json"
    assert said.startswith(f"{obj}:/spec/timing/latencyNs/mean: warning KI234 rank-outlier: "
                           f"{lead}"), said
    assert "BenchmarkRun/compile (sha256:" in said and "with 3,810,000 ns, the group's " \
        "median run once the change lands: a value 100x or more ahead" in said, said
    [ki247] = [x for x in checked.splitlines() if "warning KI247" in x]
    assert (f"family synthetic ranks {P50}: 3 runs that ranked before this change would rank "
            f"nothing, their group ranking only BenchmarkRun/planted ({planted}), which this "
            "change adds (no run stored before this change holds a number there, so the "
            "change both ranks the group by it and brings what ranks)") in ki247, ki247
    [fix] = [x for x in checked.splitlines() if x.startswith("fix KI247")]
    command = "kistore rank BenchmarkRun/planted --comparison measured"
    assert fix.endswith(f"the group's only ranked runs are this change's own, compared with no "
                        f"stored run: compare them with the stored runs by measured latency "
                        f"first (`{command}`)"), fix
    assert "0 errors, 2 warnings, 1 info" in checked, checked
    data = json.loads(_cli(store, "check", f"{base}..HEAD", "--json").stdout)
    [found] = [f for f in data["findings"] if f["rule"] == "KI247"]
    assert list(found["extra"]["rankingOnly"].values()) == [[planted]]
    # the fix, run as printed: the lead the gate said
    shown = _cli(store, *command.split()[1:]).stdout
    [row] = [x for x in shown.splitlines() if "planted" in x and x.split()[0] == "1"]
    assert row.split()[:3] == ["1", "3,680", "ns"] and "1,035x ahead of #3" in row, shown
    # bounds: a new group whose runs all arrive (the real data's imports arrive so), 1,000x
    # apart by measured latency, alike by p50, is judged by the policy alone: nothing
    protocol, env, _ = parts
    docs = [work := kit.workload("new-one")]
    for name, ns in (("n-1", 3_680), ("n-2", 3_680_000), ("n-3", 3_700_000)):
        impl = kit.implementation(f"proj-{name}", name=f"impl-{name}")
        docs += [impl, kit.run(protocol, env, impl, work, latency=ns, name=name,
                               native={"metrics": {"p50": 3.7}})]
    path = tmp_path / "new.jsonl"
    path.write_text("".join(json.dumps(d) + "\n" for d in docs))
    head = git(store.root, "rev-parse", "HEAD").strip()
    assert not _ki234(_cli(store, "add", "--commit", str(path)).stderr)
    assert not _ki234(_cli(store, "check", f"{head}..HEAD").output)
    # a run arriving where a stored run (planted, now) ranks by p50 is judged under the
    # policy alone, as before: 1.01x of planted there, nothing said of its 3,600 ns
    _add(store, kit, parts, tmp_path, "fast", 3_600, {"p50": 0.0036})
    assert "KI234" not in _cli(store, "check", "HEAD~1..HEAD").output


def test_ki235_is_not_said_of_a_run_ki234_says(group, tmp_path):
    """L10 as filed: a stored slip (0.00366 ms) and an arriving run (0.00364 ms) under a
    policy moving to the source's mean: KI234 of each, once; no KI235 naming the arriving
    run as the policy's #1."""
    store, kit, parts = group
    _add(store, kit, parts, tmp_path, "slip", 3_660_000, {"mean": 0.00366})
    base = git(store.root, "rev-parse", "HEAD").strip()
    rank_by_the_mean(store)
    _add(store, kit, parts, tmp_path, "fast", 3_640_000, {"mean": 0.00364})
    checked = _cli(store, "check", f"{base}..HEAD").output
    assert "KI235" not in checked, checked
    said = _ki234(checked)
    assert len(said) == 2, said
    assert sum("this change would newly mark BenchmarkRun/slip (sha256:" in x for x in said) == 1
    assert sum(": warning KI234 rank-outlier: would rank #1 of its comparison group (by the "
               f"source's own metric, {MEAN} ascending) with 0.00364 ms" in x for x in said) == 1


def test_the_policy_s_own_spread_names_stored_runs_with_their_ranks_after(group, tmp_path):
    """KI235 of a policy change beside an arrival names BASE's runs (the policy's doing),
    ranked as once the change lands: five stored slips 1,000x off by the new metric (the
    median run among them, the arrival counted in: KI234 marks none) and an arriving run
    faster still, #1 once the change lands (it named the arriving run, L10's shape)."""
    store, kit, parts = group
    for i in range(5):
        _add(store, kit, parts, tmp_path, f"slip-{i}", 3_660_000 + 10_000 * i,
             {"mean": 0.00366 + 0.00001 * i})
    base = git(store.root, "rev-parse", "HEAD").strip()
    rank_by_the_mean(store)
    _add(store, kit, parts, tmp_path, "faster", 3_600_000, {"mean": 0.0036})
    checked = _cli(store, "check", f"{base}..HEAD").output
    assert not _ki234(checked), checked
    [ki235] = [x for x in checked.splitlines() if "warning KI235" in x]
    # 3.9 / 0.00366 = 1,065.6x: the stored runs under the new policy, the arrival left out
    assert "span 1,066x for the first time (best over worst; " in ki235, ki235
    assert "#2 BenchmarkRun/slip-0 (sha256:" in ki235, ki235  # #2 once it lands
    assert "is 1,066x better than #9 BenchmarkRun/triton (" in ki235, ki235
    assert "faster" not in ki235, ki235
