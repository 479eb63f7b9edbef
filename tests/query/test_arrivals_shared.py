"""KI234's per-run half of an add, shared by runs alike (issue 22, bulk01).

An add judged each arriving run by :func:`kistore.index.records.describe` (its protocol,
environment and implementation looked up, its key object made and hashed: ~9 us a run)
and by ranking it alone (:func:`kistore.query.ranking.rank_group`, which asks the run's
contradictions and KernelBench claim again: ~12 us a run), all in the add's one serial
stretch. Now :class:`kistore.index.records.Describer` finds a run's keyed part once for
runs alike in their references, and a run whose facts hold a clean cut
(:func:`kistore.store.run_facts.clean_cut`) is ranked alone by its status and value.
These tests hold the records to be ``describe``'s field for field, the lookups to be made
once a distinct reference, and the clean ranking to answer as ``rank_group`` does.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from bench.generate import manifests
from kistore.core.model import Manifest
from kistore.index.records import Describer, describe
from kistore.query import outlier_rules
from kistore.query.outlier_rules import _arrival
from kistore.query.policy import MEASURED
from kistore.query.units import policy_of
from kistore.store.run_facts import clean_cut, facts_of, keeping_ranked

from .test_ranked_share import KEYS

BATCH = [Manifest.from_document(d) for d in manifests(120)]
"""The bench's generated manifests: protocols, environments, implementations, runs."""
SPECS = {str(m.digest): (m.kind, m.passing_spec()) for m in BATCH}
RUNS = [m for m in BATCH if m.kind == "BenchmarkRun"]


def _lookup(calls: list[Any] | None = None):
    def lookup(digest: str) -> tuple[str, dict[str, Any]] | None:
        if calls is not None:
            calls.append(digest)
        return SPECS.get(digest)
    return lookup


def test_describer_gives_describes_records_and_looks_each_reference_up_once():
    calls: list[Any] = []
    described = Describer(_lookup(calls))
    made = [described(str(m.digest), m.kind, m.name, m.passing_spec()) for m in BATCH]
    assert made == [describe(str(m.digest), m.kind, m.name, m.passing_spec(), _lookup())
                    for m in BATCH]
    assert sum(r.comparison_key is not None for r in made) == len(RUNS) == 110
    specs = [m.passing_spec() for m in RUNS]
    triples = {(s["workloadDigest"], s["protocolDigest"], s["environmentDigest"])
               for s in specs}
    implementations = {s["implementationDigest"] for s in specs}
    # before: describe looked up each run's protocol, environment and implementation
    assert len(calls) == 2 * len(triples) + len(implementations) < 3 * len(RUNS)
    assert (len(triples), len(implementations)) == (6, 3)


_PROTOCOLS = [d for d, (k, _) in SPECS.items() if k == "BenchmarkProtocol"]
_ENVIRONMENTS = [d for d, (k, _) in SPECS.items() if k == "ExecutionEnvironment"]
_IMPLEMENTATIONS = [d for d, (k, _) in SPECS.items() if k == "Implementation"]
_ODD = [None, "sha256:" + "0" * 64, 7, ["sha256:x"], {"a": 1}]
"""Values a reference field may hold that name no stored manifest of its kind (absent,
dangling, or no string: a run the schema refuses, described all the same)."""


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(
    st.sampled_from(_PROTOCOLS + _ENVIRONMENTS + _ODD),  # protocolDigest
    st.sampled_from(_ENVIRONMENTS + _PROTOCOLS + _ODD),  # environmentDigest
    st.sampled_from(_IMPLEMENTATIONS + _PROTOCOLS + _ODD),  # implementationDigest
    st.sampled_from(["sha256:" + "a" * 64, "sha256:" + "b" * 64, None, 3])),  # workload
    min_size=1, max_size=12))
def test_describer_answers_as_describe_whatever_the_references(fields):
    described = Describer(_lookup())
    base = RUNS[0].passing_spec()
    for i, refs in enumerate(fields):
        spec = dict(base)
        for name, value in zip(("protocolDigest", "environmentDigest",
                                "implementationDigest", "workloadDigest"), refs, strict=True):
            if value is None:
                spec.pop(name, None)
            else:
                spec[name] = value
        digest = f"sha256:{i:064x}"
        assert described(digest, "BenchmarkRun", f"r{i}", spec) == describe(
            digest, "BenchmarkRun", f"r{i}", spec, _lookup())


def _variants() -> list[Manifest]:
    """The bench's runs, and runs no ranking takes: failed, valueless, unitless, a string."""
    docs = [d for d in manifests(60) if d["kind"] == "BenchmarkRun"]
    odd = []
    for i, change in enumerate(("failed", "no value", "no unit", "a string")):
        doc = json.loads(json.dumps(docs[i]))
        spec = doc["spec"]
        doc["metadata"]["name"] += f"-{i}"
        if change == "failed":
            spec["status"] = "incorrect"
            spec["correctness"]["passed"] = False
            spec["sourceNative"]["status"] = "INCORRECT_NUMERICAL"
        elif change == "no value":
            spec["sourceNative"]["metrics"] = {}
        elif change == "no unit":
            spec["sourceNative"].pop("unit", None)
            spec["sourceNative"]["metrics"].pop("latencyUnit", None)
        else:  # KI221 warns of it; rank leaves it unranked
            metrics = spec["sourceNative"]["metrics"]
            for key in metrics:
                metrics[key] = str(metrics[key])
        odd.append(doc)
    return [Manifest.from_document(d) for d in docs + odd]


def test_a_clean_arrival_ranks_alone_as_rank_group_ranks_it(store):
    policy = policy_of(store, None)
    assert policy is not None
    with keeping_ranked(lambda: KEYS):
        runs = _variants()
        cuts = [clean_cut(m) for m in runs]
    assert all(c is not None for c in cuts)  # none contradicts itself: each is its cut
    described = Describer(_lookup())
    answers = []
    for m, cut in zip(runs, cuts, strict=True):
        record = described(str(m.digest), m.kind, m.name, cut)
        for which in (None, MEASURED):
            clean = _arrival(record, policy, which, True)
            assert clean == _arrival(record, policy, which, False), m.name
            answers.append(clean is None)
    # ranked and not: both kinds of answer were compared
    assert answers.count(False) >= 40 and answers.count(True) >= 4


def test_a_contradicting_run_has_no_clean_cut():
    from ..store.test_run_facts import slipped_run

    with keeping_ranked(lambda: KEYS):
        run = Manifest.from_document(slipped_run())
        assert clean_cut(run) is None
    assert facts_of(run).ranked is not None and facts_of(run).contradictions


def test_an_add_asks_no_clean_runs_contradictions_again(runner, store_path, tmp_path,
                                                        monkeypatch):
    from kistore.cli import main
    from kistore.query import ranking

    docs = list(manifests(120))
    path = tmp_path / "runs.jsonl"
    path.write_text("".join(json.dumps(d) + "\n" for d in docs))
    asked: list[Any] = []
    contradictions = ranking.run_contradictions
    monkeypatch.setattr(ranking, "run_contradictions",
                        lambda spec: asked.append(spec) or contradictions(spec))
    judged: list[Any] = []
    arrival = outlier_rules._arrival
    monkeypatch.setattr(outlier_rules, "_arrival",
                        lambda *a: judged.append(a) or arrival(*a))
    result = runner.invoke(main, ["--store", str(store_path), "add", "--commit", str(path)])
    assert result.exit_code == 0, result.output
    assert len(judged) == 110  # each arriving run judged (its group known)
    # before: rank_group asked again of each passed run of a candidate (55 of them)
    assert asked == []
