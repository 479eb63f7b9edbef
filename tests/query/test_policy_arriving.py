"""A pull request that adds a run and changes the ranking policy (break96 M2).

The policy judgments (KI234's marks a policy change moves, KI235, KI247, KI415) ranked
HEAD's runs under BASE's policy and called that "before": a run the same range adds was "a
stored run" whose mark the change "would remove", and KI247 said it "ranked before this
change", of a run BASE never held. The "before" end is BASE's runs under BASE's policy, the
"after" end HEAD's runs under HEAD's; an arriving run is judged by the rules for arriving
runs (KI234/KI235 under HEAD's policy, KI221), and KI415 says it arrives.
"""

from __future__ import annotations

import json

import pytest

from ..conftest import add_docs, git
from .test_policy_unranks_runs import MEAN, _rank_by_the_source_mean
from .test_rank_outlier_group import _cli, _ki234


@pytest.fixture
def group(store, kit):
    """main: one comparison group of three runs, each stating its source's mean in ms."""
    protocol, env, work = kit.protocol(), kit.environment(), kit.workload("level1-1")
    docs = [protocol, env, work]
    for name, ns in (("eager", 3_680_000), ("compile", 3_810_000), ("triton", 3_900_000)):
        impl = kit.implementation(f"proj-{name}", name=f"impl-{name}")
        docs += [impl, kit.run(protocol, env, impl, work, latency=ns, name=name,
                               native={"metrics": {"mean": ns / 1e6}})]
    add_docs(store, docs)
    return store, kit, (protocol, env, work)


def _pull_request(store, kit, parts, tmp_path, latency, mean) -> str:
    """Add the run ``slip`` (``add --commit``), then rank the family by the source's mean.

    Returns BASE (the commit before both).
    """
    base = git(store.root, "rev-parse", "HEAD").strip()
    protocol, env, work = parts
    impl = kit.implementation("proj-slip", name="impl-slip")
    path = tmp_path / "slip.jsonl"
    path.write_text("".join(json.dumps(d) + "\n" for d in (impl, kit.run(
        protocol, env, impl, work, latency=latency, name="slip",
        native={"metrics": {"mean": mean}}))))
    _cli(store, "add", "--commit", str(path))
    rank_by_the_mean(store)
    return base


def rank_by_the_mean(store) -> None:
    """Commit a policy ranking the family ``synthetic`` by :data:`MEAN` (ms, ascending)."""
    _rank_by_the_source_mean(store)
    git(store.root, "commit", "-qam", "rank by the source's mean")


def test_an_arriving_slip_the_new_metric_leaves_unranked_is_no_stored_run(group, tmp_path):
    """break96 M2 as filed: 1,000x ahead by measured latency, its mean a string."""
    store, kit, parts = group
    base = _pull_request(store, kit, parts, tmp_path, 3_680, "0.00368")
    checked = _cli(store, "check", f"{base}..HEAD").output
    lines = checked.splitlines()
    assert "a stored run that" not in checked, checked
    assert not [x for x in lines if "KI247" in x], checked  # it never ranked before
    assert not _ki234(checked), checked  # no end ranks it: nothing to mark
    [ki221] = [x for x in lines if "warning KI221" in x]  # the arriving run's own rule
    assert "slip" in ki221 or '"0.00368"' in ki221, ki221
    [ki415] = [x for x in lines if "KI415" in x]
    assert ki415.endswith(
        "before: 1 eager, 2 compile, 3 triton; after: 1 eager, 2 compile, 3 triton, - slip "
        f"(arriving; \"0.00368\" at {MEAN} is not a number)"), ki415
    assert "0 errors, 1 warning, 1 info" in checked, checked


def test_an_arriving_slip_the_new_metric_ranks_is_said_once_as_arriving(group, tmp_path):
    """Honest by measured latency, 1,000x ahead by the new metric (its mean written in s):
    KI234 of the arriving run, once, by the arriving runs' rule; no KI235 of a policy that
    spreads nothing among BASE's runs, no "newly mark ... a stored run"."""
    store, kit, parts = group
    base = _pull_request(store, kit, parts, tmp_path, 3_700_000, 0.0037)
    checked = _cli(store, "check", f"{base}..HEAD").output
    assert "a stored run that" not in checked, checked
    assert "this ranking policy change makes" not in checked, checked  # KI235 (policy)
    [said] = _ki234(checked)
    assert said.startswith("store/objects/") and "would rank #1 of its comparison group (by " \
        f"the source's own metric, {MEAN} ascending) with 0.0037 ms, 1,030x better than " in said, \
        said
    [ki415] = [x for x in checked.splitlines() if "KI415" in x]
    assert ki415.endswith("before: 1 eager, 2 compile, 3 triton; after: 1 slip (arriving), "
                          "2 eager, 3 compile, 4 triton"), ki415



def test_a_stored_run_the_policy_marks_is_still_said_beside_an_arriving_run(group, tmp_path):
    """The policy's own doing to a stored run stays said, once, when the same range adds an
    honest run: ``old``, stored at BASE honest by measured latency with its mean written in
    seconds, is newly marked by the change (as before break96 M2's fix), and the arriving
    run is no stored run."""
    store, kit, (protocol, env, work) = group
    impl = kit.implementation("proj-old", name="impl-old")
    path = tmp_path / "old.jsonl"
    path.write_text("".join(json.dumps(d) + "\n" for d in (impl, kit.run(
        protocol, env, impl, work, latency=3_750_000, name="old",
        native={"metrics": {"mean": 0.00375}}))))
    _cli(store, "add", "--commit", str(path))
    base = _pull_request(store, kit, (protocol, env, work), tmp_path, 3_700_000, 3.7)
    checked = _cli(store, "check", f"{base}..HEAD").output
    [said] = _ki234(checked)
    assert "this change would newly mark BenchmarkRun/old (sha256:" in said, said
    assert "a stored run that would rank #1 of its comparison group (by the source's own " \
        f"metric, {MEAN} ascending) with 0.00375 ms" in said, said
    assert "BenchmarkRun/slip" not in said.split(" with ")[0], said
    [ki415] = [x for x in checked.splitlines() if "KI415" in x]
    assert ki415.endswith("before: 1 eager, 2 old, 3 compile, 4 triton; after: 1 old, 2 eager, "
                          "3 slip (arriving), 4 compile, 5 triton"), ki415
