"""The gate's group rules judge every run a range puts in a group, whatever came first.

Reviewer break94: a group file added before its run (past the hook: a base KI216 broke)
made the pull request adding the run itself add no group file. gate95 made KI234 look the
run up; KI232 (claims) still took arriving runs from the group files of the change only,
so a second claim of a record landed with a green gate. The other way round (a run landed
without its group file, past the hook: KI215 at that base; then its group file alone)
bypassed KI210/KI217 (units) and KI221 (values), which took arriving runs from the objects
of the change only. And a run whose group file and object were both there before its
environment arrived entered its group by a pull request adding the environment alone,
which KI232 and KI234 did not see. One answer now,
:func:`kistore.store.arrivals.runs_arriving`, for every rule; each case here failed on the
code before it for the rules named above.
"""

from __future__ import annotations

import json

import pytest

from kistore.check.gate import check_range
from kistore.core import layout
from kistore.core.model import Manifest
from kistore.query.group_rules import units_agree, values_are_numbers
from kistore.query.outlier_rules import range_outliers
from kistore.store.arrivals import runs_arriving

from ..conftest import add_docs, commit_all, git, group_files, write_raw

CHECKERS = (units_agree, values_are_numbers, range_outliers)
SCORED = {"comparison": "source-native", "metric": "/sourceNative/metrics/score",
          "order": "descending"}
NATIVE = {"source": "sol-execbench", "benchmark": "rmsnorm", "externalId": "25504",
          "metrics": {"sol_score": 0.53}}


def _files(doc: dict) -> dict[str, bytes]:
    m = Manifest.from_document(doc)
    return {layout.object_path(m.digest): m.object_bytes,
            layout.metadata_path(m.digest): m.metadata_bytes}


def _rank_by(root, entry: dict) -> None:
    path = root / layout.POLICY_FILE
    policy = json.loads(path.read_text())
    policy["families"]["synthetic"] = entry
    path.write_text(json.dumps(policy))


def _pair(kit, rule: str, protocol, env, workload):
    """The stored run and the arriving one, which ``rule`` reports."""
    impl, other = kit.implementation("p", name="i"), kit.implementation("q", name="j")
    if rule == "KI232":  # a second claim of one SOL-ExecBench record
        return [impl, kit.run(protocol, env, impl, workload, latency=10, native=NATIVE,
                              name="sol-kernel-3-submission-25504")], \
            [other, kit.run(protocol, env, other, workload, latency=10, native=NATIVE,
                            name="sol-submission-25504")]
    if rule == "KI234":  # 3.7 us stated as ns beside 3.68 ms
        return [impl, kit.run(protocol, env, impl, workload, latency=3_680_000, name="a")], \
            [other, kit.run(protocol, env, other, workload, latency=3_700, name="b")]
    unit, score = ("GFLOP/s", 3.0) if rule == "KI210" else ("score", "0.5")  # KI221
    stored = kit.run(protocol, env, impl, workload, latency=10, name="a",
                     native={"metrics": {"score": 2.0},
                             "unit": "TFLOP/s" if rule == "KI210" else "score"})
    return [impl, stored], [other, kit.run(protocol, env, other, workload, latency=10,
                                           name="b",
                                           native={"metrics": {"score": score}, "unit": unit})]


def _sequence(store, kit, rule: str, order: str) -> tuple[str, str, dict]:
    """Commit a group's stored run, then the arriving run's files in two commits.

    ``order``: "group-first" (break94: its group file, then its object), "run-first" (its
    object, then its group file), "environment-last" (its object and group file, its
    environment dangling, then that environment: another one of the same GPU) or
    "group-missing" (its object alone, past the hook: KI215; the "first half" is the stored
    run's commit, so the range is the one commit adding the run).

    Returns:
        The second commit's parent, the second commit, the arriving run's document.
    """
    root = store.root
    if rule in ("KI210", "KI221"):
        _rank_by(root, {**SCORED, **({"unitPointer": "/sourceNative/unit"} if rule == "KI210"
                                     else {"unit": "score"})})
        commit_all(root, "the policy ranks by a score")
    protocol, env, workload = kit.protocol(), kit.environment(), kit.workload()
    stored, arriving = _pair(kit, rule, protocol, env, workload)
    add_docs(store, [protocol, env, workload, *stored])
    run = arriving[1]
    if order == "environment-last":
        env2 = kit.environment(driver="560.1")  # another environment, one GPU: one group
        run["spec"]["environmentDigest"] = kit.digest(env2)
    manifests = [Manifest.from_document(d) for d in (protocol, env, workload)]
    if order == "environment-last":
        manifests.append(Manifest.from_document(env2))
    group = group_files([Manifest.from_document(run)], manifests)
    files = {**_files(arriving[0]), **_files(run)}
    if order == "group-missing":
        base = git(root, "rev-parse", "HEAD").strip()
        for path, data in files.items():
            write_raw(root, path, data)
        return base, commit_all(root, "the run without its group file, past the hook"), run
    if order == "environment-last":
        add_docs(store, arriving, commit=False, allow_dangling=True)  # its forward records
        first, second = group, _files(env2)
    else:
        first, second = (group, files) if order == "group-first" else (files, group)
    for path, data in first.items():
        write_raw(root, path, data)
    base = commit_all(root, "first half, past the hook")
    for path, data in second.items():
        write_raw(root, path, data)
    return base, commit_all(root, "second half"), run


@pytest.mark.parametrize("order", ["group-first", "run-first", "environment-last",
                                   "group-missing"])
@pytest.mark.parametrize("rule", ["KI232", "KI210", "KI221", "KI234"])
def test_the_gate_judges_a_run_arriving_in_its_group_by_any_way(store, kit, rule, order):
    base, head, run = _sequence(store, kit, rule, order)
    found = [f for f in check_range(store, f"{base}..{head}", checkers=CHECKERS)
             if f.rule.id == rule]
    run_file = layout.object_path(Manifest.from_document(run).digest)
    pointer = {"KI232": "/spec/sourceNative/externalId", "KI210": "/spec/sourceNative/unit",
               "KI221": "/spec/sourceNative/metrics/score",
               "KI234": "/spec/timing/latencyNs/mean"}[rule]
    assert [(f.file, f.pointer) for f in found] == [(run_file, pointer)], found
    said = {"KI232": "claims to be sol-execbench record '25504' (its id as run names spell "
                     "it), which BenchmarkRun/sol-kernel-3-submission-25504",
            "KI210": "states 'GFLOP/s' at /sourceNative/unit; the other runs of comparison "
                     "group sha256:",
            "KI221": "states \"0.5\" at /sourceNative/metrics/score, the value its family "
                     "'synthetic' is ranked by, which is no number",
            "KI234": "would rank #1 of its comparison group"}[rule]
    assert said in found[0].message
    if order == "group-missing":  # judged against its computed group, and KI215 said too
        missing = [f for f in check_range(store, f"{base}..{head}", checkers=CHECKERS)
                   if f.rule.id == "KI215"]
        assert [f.file for f in missing] == [run_file], missing


def test_runs_arriving_names_the_group_once_and_no_run_already_there(store, kit):
    base, head, run = _sequence(store, kit, "KI234", "environment-last")
    digest = Manifest.from_document(run).digest
    changed = set(git(store.root, "diff", "--name-only", base, head).split())
    assert changed == set(_files(kit.environment(driver="560.1")))  # no run's file
    arriving = runs_arriving(store.view(base), store.view(head), changed)
    [(key, runs)] = arriving.items()
    assert runs == {digest}
    assert digest.hex in store.view(head).list_dir(layout.group_dir(key))
    # the first half: its group file names the run, which is there (rule 1, by the path)
    first = git(store.root, "rev-parse", f"{base}~1").strip()
    first_changed = set(git(store.root, "diff", "--name-only", first, base).split())
    assert runs_arriving(store.view(first), store.view(base), first_changed) == {key: {digest}}
    # a range adding nothing: no run arrives; the stored runs do not arrive again
    assert runs_arriving(store.view(head), store.view(head), set()) == {}
    assert runs_arriving(store.view(head), store.view(head), changed) == {}
