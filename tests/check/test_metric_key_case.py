"""KI224: one run's metric keys that differ only in letter case (review r78 F8).

A run stating ``LATENCY_MS`` beside ``latency_ms`` was added and passed ``check``; DuckDB
names columns and struct fields without case, so its JSON Lines export row could not be
read at all. ``add`` now refuses such a run, ``check`` and ``verify`` report it, ``rank``
leaves a stored one out (the rule is one of ``run_contradictions``).
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
from kistore.core.model import Manifest

from ..conftest import add_docs, git

TWO_SPELLINGS = (
    "the run states metrics 'LATENCY_MS' and 'latency_ms', keys that differ only in letter "
    "case: DuckDB, Spark and Trino read column and field names without case, so an export "
    "cannot tell them apart (DuckDB reads the wrong CSV column and refuses the JSON Lines "
    "row)")


def _docs(kit):
    """A group with an honest run and one stating two spellings: (docs, two-spellings run)."""
    protocol, env, workload = kit.protocol(), kit.environment(), kit.workload()
    impls = [kit.implementation(f"proj-{i}", name=f"impl-{i}") for i in range(2)]
    honest = kit.run(protocol, env, impls[0], workload, latency=50, name="honest",
                     native={"metrics": {"latency_ms": 0.05}})
    cased = kit.run(protocol, env, impls[1], workload, latency=5, name="cased",
                    native={"metrics": {"latency_ms": 0.005, "LATENCY_MS": 999.0}})
    return [protocol, env, workload, *impls, honest], cased


def test_the_rule_names_both_keys_at_the_later_ones_pointer():
    spec = {"sourceNative": {"metrics": {"latency_ms": 1, "LATENCY_MS": 2, "Latency_MS": 3,
                                         "a/b~": 4, "A/B~": 5, "other": 6}}}
    assert [(c.rule, c.pointer, c.short) for c in run_contradictions(spec)] == [
        ("KI224", "/spec/sourceNative/metrics/Latency_MS",
         "metrics 'LATENCY_MS' and 'Latency_MS' differ only in case"),
        ("KI224", "/spec/sourceNative/metrics/a~1b~0",
         "metrics 'A/B~' and 'a/b~' differ only in case"),
        ("KI224", "/spec/sourceNative/metrics/latency_ms",
         "metrics 'LATENCY_MS' and 'latency_ms' differ only in case")]
    assert run_contradictions({"sourceNative": {"metrics": {"LATENCY_MS": 2}}}) == []
    # Unicode case folding: the sharp s folds to "ss"
    assert [c.rule for c in run_contradictions(
        {"sourceNative": {"metrics": {"STRASSE": 1, "straße": 2}}})] == ["KI224"]


@given(st.dictionaries(st.text(alphabet="aAbB_", min_size=1, max_size=3), st.just(1.0)))
def test_refused_exactly_when_two_keys_fold_alike(metrics):
    found = [c for c in run_contradictions({"sourceNative": {"metrics": metrics}})
             if c.rule == "KI224"]
    assert len(found) == len(metrics) - len({k.casefold() for k in metrics})


def test_add_refuses_it_with_its_pointer(store, kit, runner, tmp_path):
    docs, cased = _docs(kit)
    add_docs(store, docs)
    path = tmp_path / "cased.json"
    path.write_text(json.dumps(cased))
    done = runner.invoke(main, ["--store", str(store.root), "add", "--commit", str(path)])
    assert done.exit_code == 1, done.output
    assert f"{path}:" in done.stderr
    assert f"/spec/sourceNative/metrics/latency_ms: {TWO_SPELLINGS} (KI224)" in done.stderr
    assert not (store.root / layout.object_path(Manifest.from_document(cased).digest)).exists()


@pytest.fixture
def past_the_gate(store, kit, monkeypatch):
    """The run committed past add's refusal (by hand, or before the rule): (base, run)."""
    docs, cased = _docs(kit)
    add_docs(store, docs)
    base = git(store.root, "rev-parse", "HEAD").strip()
    with monkeypatch.context() as m:
        m.setattr("kistore.store.run_facts.run_contradictions", lambda spec: [])
        add_docs(store, [cased])
    return base, cased


def test_check_verify_and_rank_report_it(store, past_the_gate, runner):
    base, cased = past_the_gate
    path = layout.object_path(Manifest.from_document(cased).digest)
    expected = [("KI224", "error", path, "/spec/sourceNative/metrics/latency_ms",
                 TWO_SPELLINGS)]

    def said(findings):
        return [(f.rule.id, f.severity, f.file, f.pointer, f.message) for f in findings
                if f.rule.id == "KI224"]

    assert said(check_range(store, f"{base}..HEAD")) == expected
    for at in (None, "HEAD"):
        assert said(verify(store, at)) == expected
    done = runner.invoke(main, ["--store", str(store.root), "rank", "--all",
                                "BenchmarkRun/honest"])
    assert done.exit_code == 0, done.output
    line = next(x for x in done.stdout.splitlines() if " cased " in x)
    assert line.startswith("    -") and line.endswith(
        "(contradicts itself: metrics 'LATENCY_MS' and 'latency_ms' differ only in case "
        "(KI224))")
