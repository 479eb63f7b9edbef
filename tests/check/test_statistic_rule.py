"""KI218: a run stating another primary statistic than its protocol (new-user review 2026-12-02).

A run whose ``timing.primaryStatistic`` is ``median`` under a protocol measuring ``mean``
was accepted and ranked by ``mean``, silently. It is a warning in ``add`` (printed, the run
added), in ``check`` (the gate: the protocol looked up at its one path in HEAD) and in
``verify``; and when the protocol arrives in a later pull request than the run (``add
--allow-dangling``), the pull request adding it is warned of the earlier run, found through
its forward record, as a whole-tree check finds it.
"""

from __future__ import annotations

import copy
import json

import pytest

from kistore.check.audit import verify
from kistore.check.gate import check_range
from kistore.cli import main
from kistore.core.model import Manifest

from ..conftest import ManifestKit, add_docs, git


def _message(run: dict, protocol: dict) -> str:
    return (f"BenchmarkRun/{run['metadata']['name']} ({ManifestKit.digest(run)}) states "
            "timing.primaryStatistic 'median' but its protocol BenchmarkProtocol/"
            f"{protocol['metadata']['name']} ({ManifestKit.digest(protocol)}) measures 'mean' "
            "(measurement.primaryStatistic); ranking uses the protocol's 'mean', not the "
            "run's: the run is in the protocol's 'mean' comparison group, and a family ranked "
            "by measured latency reads its timing.latencyNs.mean")


HINT = ("nothing to change in a stored run (objects are never edited); in a run you add, state "
        "the protocol's measurement.primaryStatistic as timing.primaryStatistic, with that "
        "statistic's value in timing.latencyNs, or point protocolDigest at a protocol "
        "measuring the statistic the run reports (KI218: added all the same; `check` and "
        "`verify` warn too)")


@pytest.fixture
def parts(kit):
    """A protocol measuring mean, its environment, implementation and workload; a run of
    them stating median (its latencyNs holds both), and one stating mean."""
    protocol, env = kit.protocol(name="proto-mean"), kit.environment()
    impl, workload = kit.implementation(), kit.workload()
    median = kit.run(protocol, env, impl, workload, latency={"mean": 12_000, "median": 10_000},
                     name="run-median")
    median["spec"]["timing"]["primaryStatistic"] = "median"
    agreeing = kit.run(protocol, env, impl, workload, latency=11_000, name="run-mean")
    return {"protocol": protocol, "base": [env, impl, workload], "median": median,
            "mean": agreeing}


def _ki218(findings):
    return [(f.rule.id, f.severity, f.file, f.pointer, f.expected, f.found, f.message)
            for f in findings if f.rule.id == "KI218"]


def _expected(run, protocol):
    from kistore.core import layout

    digest = Manifest.from_document(run).digest
    return [("KI218", "warning", layout.object_path(digest), "/spec/timing/primaryStatistic",
             "mean", "median", _message(run, protocol))]


def _both_ways(store, spec):
    """The gate's findings, fast (one path a question) and over the whole tree: equal."""
    fast, whole = check_range(store, spec), check_range(store, spec, whole_tree=True)
    assert fast == whole
    return fast


def add_two_runs(store, runner, parts, tmp_path, flag):
    """``kistore add FLAG`` of the median run (warned) then the mean run: (result, path)."""
    add_docs(store, [parts["protocol"], *parts["base"]])
    path = tmp_path / "runs.jsonl"
    path.write_text(json.dumps(parts["median"]) + "\n" + json.dumps(parts["mean"]) + "\n")
    done = runner.invoke(main, ["--store", str(store.root), "add", flag, str(path)])
    assert done.exit_code == 0, done.output
    return done, path


def test_add_warns_and_adds(store, runner, parts, tmp_path):
    done, path = add_two_runs(store, runner, parts, tmp_path, "--commit")
    assert done.stderr == (f"warning: {path}:1:1:/spec/timing/primaryStatistic: "
                           f"{_message(parts['median'], parts['protocol'])}; {HINT}\n")
    digests = [ManifestKit.digest(parts[k]) for k in ("median", "mean")]
    assert done.stdout.splitlines() == [f"{digests[0]} BenchmarkRun run-median",
                                        f"{digests[1]} BenchmarkRun run-mean"]


def test_add_json_carries_the_warning(store, runner, parts, tmp_path):
    # F21 (review 2026-12-02): --json left KI218 out (stderr text only)
    done, path = add_two_runs(store, runner, parts, tmp_path, "--json")
    said = (f"{path}:1:1:/spec/timing/primaryStatistic: "
            f"{_message(parts['median'], parts['protocol'])}; {HINT}")
    assert done.stderr == f"warning: {said}\n"
    assert [(r["name"], r["status"], r["warnings"]) for r in json.loads(done.stdout)] == [
        ("run-median", "added", [said]), ("run-mean", "added", [])]


def test_add_of_a_protocol_warns_of_the_earlier_runs_it_answers(store, parts):
    # the run arrives first, dangling; the protocol later: its add names the run
    add_docs(store, [*parts["base"], parts["median"]], allow_dangling=True)
    [result] = store.add([Manifest.from_document(parts["protocol"])], commit=True)
    assert result.warnings == (
        f"/spec/measurement/primaryStatistic: {_message(parts['median'], parts['protocol'])}"
        f"; {HINT}",)


def test_check_warns_of_a_pull_request_adding_such_a_run(store, parts):
    add_docs(store, [parts["protocol"], *parts["base"]])
    base = git(store.root, "rev-parse", "HEAD").strip()
    add_docs(store, [parts["median"], parts["mean"]])
    findings = _both_ways(store, f"{base}..HEAD")
    assert _ki218(findings) == _expected(parts["median"], parts["protocol"])
    assert [f for f in findings if f.severity == "error"] == []  # a warning: the gate passes
    # a pull request changing nothing relevant: another workload, and the run's metadata
    base = git(store.root, "rev-parse", "HEAD").strip()
    add_docs(store, [ManifestKit().workload("softmax", name="other-workload")])
    assert _ki218(_both_ways(store, f"{base}..HEAD")) == []


def test_verify_warns_and_passes(store, parts):
    add_docs(store, [parts["protocol"], *parts["base"], parts["median"], parts["mean"]])
    for at in (None, "HEAD"):
        findings = verify(store, at)
        assert _ki218(findings) == _expected(parts["median"], parts["protocol"])
        assert [f.rule.id for f in findings if f.severity == "error"] == []


def test_a_protocol_arriving_after_its_run_is_warned_of_in_its_own_pull_request(store, parts):
    """Pull requests that each pass: the run (dangling), then its protocol, then an edit.

    The first cannot know the protocol's statistic (KI201 only); the second makes the
    disagreement true, so its gate says it, on the earlier run, which the protocol's forward
    directory lists; an edit of the protocol's metadata later makes nothing new true.
    """
    add_docs(store, parts["base"])
    base = git(store.root, "rev-parse", "HEAD").strip()
    add_docs(store, [parts["median"]], allow_dangling=True)
    first = _both_ways(store, f"{base}..HEAD")
    assert _ki218(first) == [] and "KI201" in {f.rule.id for f in first}
    base = git(store.root, "rev-parse", "HEAD").strip()
    add_docs(store, [parts["protocol"]])
    assert _ki218(_both_ways(store, f"{base}..HEAD")) == _expected(parts["median"],
                                                                    parts["protocol"])
    base = git(store.root, "rev-parse", "HEAD").strip()
    edited = copy.deepcopy(parts["protocol"])
    edited["metadata"]["title"] = "Protocol measuring the mean"
    store.add([Manifest.from_document(edited)], update_metadata=True, commit=True)
    edit = _both_ways(store, f"{base}..HEAD")
    assert [f.rule.id for f in edit] == ["KI405"] and _ki218(edit) == []
    assert _ki218(verify(store)) == _expected(parts["median"], parts["protocol"])


@pytest.mark.parametrize("native", [
    None,
    {"primaryStatistic": "max"},  # the key twice: the spec is parsed
    {"note": 'copied "primaryStatistic":"max" from the log'},  # escaped in a string
    {"note": '"primaryStatistic":'},
])
def test_add_reads_a_run_s_statistic_from_its_bytes_as_its_spec_says(kit, native):
    from kistore.core.statistics import run_statistic
    from kistore.store.statistics import stated

    protocol, env = kit.protocol(statistic="p90"), kit.environment()
    run = Manifest.from_document(kit.run(protocol, env, kit.implementation(), kit.workload(),
                                         latency=3, native=native))
    assert stated(run) == run_statistic(run.spec) == "p90"
