"""`kistore add` refuses a run whose unit disagrees with its comparison group's (KI210).

Review 2026-12-02: `add --commit` accepted such a run, which `check` and `verify` refuse
and which made `rank` and `show` of its group fail. The rule is
:mod:`kistore.query.units`'; the store runs it before writing when its caller passes it
(``Store.add(checks=)``: the command line does).
"""

from __future__ import annotations

import json

import pytest

from kistore.cli import main
from kistore.core.comparison import comparison_key, key_object
from kistore.core.model import Manifest

from ..conftest import git, snapshot

HINT = ("state the unit the other runs of the comparison group state (the policy's "
        "unitPointer), in a new run object; or change the ranking policy by a reviewed pull "
        "request (KI210: `check` and `verify` refuse it)")


def run(runner, store_path, *args):
    return runner.invoke(main, ["--store", str(store_path), *args])


def scored(kit, parts, name, score, unit):
    protocol, env, workload = parts
    impl = kit.implementation(f"proj-{name}", name=f"impl-{name}")
    doc = kit.run(protocol, env, impl, workload, latency=10, name=name,
                  native={"metrics": {"score": score}})
    doc["spec"]["sourceNative"]["unit"] = unit
    return [impl, doc]


@pytest.fixture
def unit_store(store_path, kit, runner, tmp_path):
    """A store whose family `synthetic` ranks by a unitPointer, and one run in TFLOP/s."""
    policy_path = store_path / "store/policy/ranking.json"
    policy = json.loads(policy_path.read_text())
    policy["families"]["synthetic"] = {
        "comparison": "source-native", "metric": "/sourceNative/metrics/score",
        "order": "descending", "unitPointer": "/sourceNative/unit"}
    policy_path.write_text(json.dumps(policy))
    git(store_path, "commit", "-qm", "policy", "--", "store/policy/ranking.json")
    parts = [kit.protocol(), kit.environment(), kit.workload()]
    first = tmp_path / "first.jsonl"
    first.write_text("".join(json.dumps(d) + "\n"
                             for d in parts + scored(kit, parts, "a", 2.0, "TFLOP/s")))
    assert run(runner, store_path, "add", "--commit", str(first)).exit_code == 0
    return parts


def key_of(parts, run_doc):
    protocol, env, _ = parts
    return comparison_key(key_object(run_doc["spec"], protocol["spec"], env["spec"]))


@pytest.mark.parametrize("commit", [False, True])
def test_add_refuses_a_run_in_another_unit_than_its_group_and_writes_nothing(
        runner, store_path, kit, tmp_path, unit_store, commit):
    impl, odd = scored(kit, unit_store, "b", 2000.0, "GFLOP/s")
    (tmp_path / "impl.json").write_text(json.dumps(impl))
    assert run(runner, store_path, "add", "--commit", str(tmp_path / "impl.json")).exit_code == 0
    path = tmp_path / "odd.json"
    path.write_text(json.dumps(odd))
    before, head = snapshot(store_path), git(store_path, "rev-parse", "HEAD")
    refused = run(runner, store_path, "add", *(["--commit"] if commit else []), str(path))
    assert refused.exit_code == 1
    assert refused.stderr.splitlines() == [
        f"error: {path}:/spec/sourceNative/unit: states 'GFLOP/s' at /sourceNative/unit; "
        f"the other runs of comparison group {key_of(unit_store, odd)} state 'TFLOP/s': "
        f"`rank` would fail for the whole group; {HINT}"]
    assert snapshot(store_path) == before
    assert git(store_path, "rev-parse", "HEAD") == head
    assert git(store_path, "status", "--porcelain") == ""
    assert run(runner, store_path, "rank", "BenchmarkRun/a").exit_code == 0
    # the same run in the group's unit is added
    impl, good = scored(kit, unit_store, "c", 3.0, "TFLOP/s")
    path = tmp_path / "good.jsonl"
    path.write_text("".join(json.dumps(d) + "\n" for d in (impl, good)))
    added = run(runner, store_path, "add", "--commit", str(path))
    assert added.exit_code == 0, added.output
    assert str(Manifest.from_document(good).digest) in added.stdout


def test_add_refuses_two_runs_of_one_new_group_in_two_units(runner, store_path, kit,
                                                             tmp_path, unit_store):
    parts = [kit.protocol(version="2"), unit_store[1], unit_store[2]]  # another group
    docs = parts[:1] + scored(kit, parts, "ms", 1.0, "ms") + scored(kit, parts, "ns", 9.0, "ns")
    path = tmp_path / "batch.jsonl"
    path.write_text("".join(json.dumps(d) + "\n" for d in docs))
    before = snapshot(store_path)
    refused = run(runner, store_path, "add", "--commit", str(path))
    assert refused.exit_code == 1
    ms, ns = docs[2], docs[4]
    digests = sorted((str(Manifest.from_document(d).digest), u) for d, u in ((ms, "ms"),
                                                                             (ns, "ns")))
    rarest = min(digests, key=lambda d: d[1])  # one run each: the first unit by name
    line = 3 if rarest[1] == "ms" else 5
    assert refused.stderr.splitlines() == [
        f"error: {path}:{line}:1:/spec/sourceNative/unit: the runs of comparison group "
        f"{key_of(parts, ms)} state different units at /sourceNative/unit: "
        + "; ".join(f"{u} (e.g. {d})" for d, u in sorted(digests, key=lambda d: d[1]))
        + f"; `rank` fails for the whole group; {HINT}"]
    assert snapshot(store_path) == before


def test_store_add_asks_only_the_checks_its_caller_passes(store_path, kit, tmp_path, unit_store):
    """Store.add from Python: KI210 applies when ``checks=`` holds units_admitted; a call
    without it asks the store's own rules only (there is no process-global list)."""
    from kistore.core.errors import MultipleErrors
    from kistore.query.units import units_admitted
    from kistore.store import Store

    store = Store(store_path)
    impl, odd = scored(kit, unit_store, "b", 2000.0, "GFLOP/s")
    manifests = [Manifest.from_document(d) for d in (impl, odd)]
    before = snapshot(store_path)
    with pytest.raises(MultipleErrors) as refused:
        store.add(manifests, checks=(units_admitted,))
    assert [p.pointer for p in refused.value.problems] == ["/spec/sourceNative/unit"]
    assert refused.value.problems[0].message.startswith(
        "states 'GFLOP/s' at /sourceNative/unit; the other runs of comparison group "
        f"{key_of(unit_store, odd)} state 'TFLOP/s'")
    assert snapshot(store_path) == before
    results = store.add(manifests)  # no checks passed: the store's own rules only
    assert [(str(r.digest), r.status) for r in results] == [
        (str(m.digest), "added") for m in manifests]
