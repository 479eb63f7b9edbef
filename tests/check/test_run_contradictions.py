"""KI222, KI223: a run contradicting itself or its source's scale (review r75 F9).

A run saying ``status: passed`` with ``correctness.passed: false`` and a source status
``INCORRECT_NUMERICAL``, and a made-up sol-execbench submission with ``sol_score`` 7.5 (the
scale is [0, 1]: SOURCE.md), were added, passed ``check`` and ``verify``, and ranked #1.
``add`` now refuses them, ``check`` and ``verify`` report them as errors, and ``rank``
leaves a stored one out with the reason.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kistore.check.audit import verify
from kistore.check.gate import check_range
from kistore.cli import main
from kistore.core import layout
from kistore.core.contradictions import run_contradictions
from kistore.core.errors import KistoreError
from kistore.core.model import Manifest
from kistore.query.answers import rank

from ..conftest import add_docs, git

PASSED_BUT_FAILED = (
    "the run says status 'passed' but its correctness check says it failed "
    "(/spec/correctness/passed is false): a run that fails its correctness check is not "
    "passed, and is never ranked")
NATIVE_INCORRECT = ("the run says status 'passed' but its source's status "
                    "'INCORRECT_NUMERICAL' (/spec/sourceNative/status, sol-execbench) means "
                    "'incorrect'")
SOL_7_5 = ("sol-execbench's sol_score lies in [0, 1] (1 is the speed-of-light bound, 0.5 the "
           "scoring baseline); the run states 7.5, which no run can score")


def _cheat(kit):
    """The repro's two runs in one group with an honest one: (docs, incorrect, fabricated)."""
    protocol, env, workload = kit.protocol(), kit.environment(), kit.workload()
    impls = [kit.implementation(f"proj-{i}", name=f"impl-{i}") for i in range(3)]
    honest = kit.run(protocol, env, impls[0], workload, latency=50, name="honest")
    incorrect = kit.run(protocol, env, impls[1], workload, latency=5, name="incorrect")
    incorrect["spec"]["correctness"] = {"passed": False, "maxAbsoluteError": 1e9}
    incorrect["spec"]["sourceNative"] = {"source": "sol-execbench",
                                         "status": "INCORRECT_NUMERICAL"}
    fabricated = kit.run(protocol, env, impls[2], workload, latency=7, name="fabricated",
                         native={"metrics": {"sol_score": 7.5}})
    fabricated["spec"]["sourceNative"]["source"] = "sol-execbench"
    return [protocol, env, workload, *impls, honest], incorrect, fabricated


def test_the_rules_say_what_is_contradicted(kit):
    _, incorrect, fabricated = _cheat(kit)
    assert [tuple(c) for c in run_contradictions(incorrect["spec"])] == [
        ("KI222", "/spec/status", PASSED_BUT_FAILED,
         "status passed, correctness.passed false"),
        ("KI222", "/spec/status", NATIVE_INCORRECT,
         "status passed, source status INCORRECT_NUMERICAL")]
    assert [tuple(c) for c in run_contradictions(fabricated["spec"])] == [
        ("KI223", "/spec/sourceNative/metrics/sol_score", SOL_7_5,
         "sol_score 7.5 outside [0, 1]")]
    honest = dict(incorrect["spec"], status="incorrect")  # what the source said: fine
    assert run_contradictions(honest) == []
    # another source's status words are its own; a bound is per source
    other = dict(incorrect["spec"], sourceNative={"source": "kernelbench", "status": "INCORRECT",
                                                  "metrics": {"sol_score": 7.5}},
                 correctness={"passed": True})
    assert run_contradictions(other) == []
    assert run_contradictions("not a spec") == []


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_a_sol_score_is_refused_exactly_outside_zero_to_one(score):
    for key in ("sol_score", "median_latency_sol_score"):
        spec = {"status": "passed",
                "sourceNative": {"source": "sol-execbench", "metrics": {key: score}}}
        found = [c.rule for c in run_contradictions(spec)]
        assert found == ([] if 0.0 <= score <= 1.0 else ["KI223"])


def test_add_refuses_each_with_its_pointer(store, kit, runner, tmp_path):
    docs, incorrect, fabricated = _cheat(kit)
    add_docs(store, docs)
    with pytest.raises(KistoreError) as caught:
        store.add([Manifest.from_document(incorrect)], commit=True)
    said = [(p.pointer, p.message) for p in caught.value.problems]
    assert said == [("/spec/status", f"{PASSED_BUT_FAILED} (KI222)"),
                    ("/spec/status", f"{NATIVE_INCORRECT} (KI222)")]
    path = tmp_path / "fabricated.json"
    path.write_text(json.dumps(fabricated))
    done = runner.invoke(main, ["--store", str(store.root), "add", "--commit", str(path)])
    assert done.exit_code == 1, done.output
    assert f"{path}:" in done.stderr and f"/spec/sourceNative/metrics/sol_score: {SOL_7_5}" \
        " (KI223)" in done.stderr
    assert not (store.root / layout.object_path(Manifest.from_document(fabricated).digest)
                ).exists()


@pytest.fixture
def past_the_gate(store, kit, monkeypatch):
    """The two runs committed past add's refusal (by hand, or before these rules): base."""
    docs, incorrect, fabricated = _cheat(kit)
    add_docs(store, docs)
    base = git(store.root, "rev-parse", "HEAD").strip()
    with monkeypatch.context() as m:
        m.setattr("kistore.store.admission.run_contradictions", lambda spec: [])
        add_docs(store, [incorrect, fabricated])
    return base, incorrect, fabricated


def _said(findings):
    return [(f.rule.id, f.severity, f.file, f.pointer, f.message) for f in findings
            if f.rule.id in ("KI222", "KI223", "KI224")]


def test_check_and_verify_report_them_as_errors(store, past_the_gate):
    base, incorrect, fabricated = past_the_gate
    wrong = layout.object_path(Manifest.from_document(incorrect).digest)
    made_up = layout.object_path(Manifest.from_document(fabricated).digest)
    expected = sorted([
        ("KI222", "error", wrong, "/spec/status", PASSED_BUT_FAILED),
        ("KI222", "error", wrong, "/spec/status", NATIVE_INCORRECT),
        ("KI223", "error", made_up, "/spec/sourceNative/metrics/sol_score", SOL_7_5)])
    assert sorted(_said(check_range(store, f"{base}..HEAD"))) == expected
    for at in (None, "HEAD"):
        assert sorted(_said(verify(store, at))) == expected


def test_rank_leaves_them_out_saying_why(store, past_the_gate, runner):
    _, ranking = rank(store, "BenchmarkRun/honest")
    assert [(r.record.name, r.rank) for r in ranking.ranked] == [("honest", 1)]
    assert sorted((r.record.name, r.reason) for r in ranking.excluded) == [
        ("fabricated", "contradicts itself: sol_score 7.5 outside [0, 1] (KI223)"),
        ("incorrect", "contradicts itself: status passed, correctness.passed false (KI222); "
                      "status passed, source status INCORRECT_NUMERICAL (KI222)")]
    done = runner.invoke(main, ["--store", str(store.root), "rank", "BenchmarkRun/honest"])
    assert done.exit_code == 0, done.output
    lines = done.stdout.splitlines()
    assert len(lines) == 2 and lines[1].startswith("    1") and " honest " in lines[1]
    done = runner.invoke(main, ["--store", str(store.root), "rank", "--all",
                                "BenchmarkRun/honest"])
    said = [line for line in done.stdout.splitlines() if " fabricated " in line]
    assert said[0].startswith("    -") and said[0].endswith(
        "(contradicts itself: sol_score 7.5 outside [0, 1] (KI223))")


def test_no_imported_run_contradicts_itself(imported_store):
    """The real data (all three sources) keeps every run: none is refused or left out."""
    findings = verify(imported_store)
    assert _said(findings) == []
