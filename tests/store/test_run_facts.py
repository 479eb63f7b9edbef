"""What ``add``'s per-run rules read of a run: found once, in the parse workers of a bulk add.

:mod:`kistore.store.run_facts` (issue 22, bulk99): each rule used to parse the run's spec
again in the add's serial stretch. These tests hold the facts a worker sends to be the
ones the parent would find itself, the words an add says to be the one-process ones, and
the spec of a run to be parsed once for all of the store's per-run rules.
"""

from __future__ import annotations

import json
import marshal

import pytest

from bench.generate import manifests
from kistore.core import canonical
from kistore.core.model import Manifest
from kistore.store import inputs
from kistore.store.run_facts import RunFacts, facts_of, plain, restored


@pytest.fixture
def parallel(monkeypatch):
    """Parse any input of 8+ lines in worker processes, 3 lines a task, as if on 2 CPUs."""
    monkeypatch.setattr(inputs, "PARALLEL_LINES", 8)
    monkeypatch.setattr(inputs, "_CHUNK_LINES", 3)
    monkeypatch.setattr(inputs, "_cpus", lambda: 2)


def fresh(m: Manifest) -> Manifest:
    """The same manifest with nothing found yet (the parent's own look)."""
    return Manifest(m.object_bytes, m.metadata_bytes, m.digest, m.kind, m.name,
                    m.reference_hex)


def slipped_run() -> dict:
    """A generated run whose latency reads as milliseconds (KI230, KI233), that says it
    passed a correctness check it failed (KI222) and whose name is not its record's (KI209)."""
    run = next(d for d in manifests(10) if d["kind"] == "BenchmarkRun")
    run["spec"]["timing"]["latencyNs"] = {"mean": 46, "median": 45, "min": 41, "max": 59}
    run["spec"]["correctness"]["passed"] = False
    run["metadata"]["name"] = "sol-submission-1"  # KI209: its externalId is 20000
    return run


def parses_counted(monkeypatch, runs: set[bytes]) -> list[bytes]:
    """Return the list each ``canonical.loads`` of one of ``runs`` is appended to, from now."""
    parsed: list[bytes] = []
    loads = canonical.loads

    def counted(data, *args, **kwargs):
        if data in runs:
            parsed.append(data)
        return loads(data, *args, **kwargs)

    monkeypatch.setattr(canonical, "loads", counted)
    return parsed


def test_parse_workers_find_each_runs_facts_as_the_parent_would(parallel):
    docs = list(manifests(40))
    data = b"".join(json.dumps(d).encode() + b"\n" for d in docs)
    found = inputs.parse_manifests(data, file="runs.jsonl")
    runs = [x.manifest for x in found if x.manifest.kind == "BenchmarkRun"]
    assert len(runs) == 36
    # lines 1-21 parsed here, the rest in the worker: every run's facts found where parsed
    assert all(m.facts is not None for m in runs)
    assert [facts_of(m) for m in runs] == [facts_of(fresh(m)) for m in runs]
    first = facts_of(runs[0])
    assert first.board == (("board", "000_gemm_n_2048"),)
    assert first.claim == ("sol-execbench", "20000")
    assert (first.contradictions, first.latencies, first.latency_slip, first.unproven,
            first.id_disagreement) == ((), (), None, None, None)


def test_facts_cross_processes_as_plain_values_and_come_back_equal():
    m = Manifest.from_document(slipped_run())
    found = facts_of(m)
    assert isinstance(found, RunFacts)
    assert [c.rule for c in found.contradictions] == ["KI222"]
    assert [c.rule for c in found.latencies] == ["KI230"]
    assert found.latency_slip is not None and found.latency_slip.rule == "KI233"
    assert found.id_disagreement is not None and "20000" in found.id_disagreement
    sent = marshal.loads(marshal.dumps(plain(m)))  # what a worker sends (plain values)
    back = restored(fresh(m), sent)
    assert facts_of(back) == found
    assert isinstance(facts_of(back).latencies[0], type(found.latencies[0]))


def test_a_bulk_add_says_what_one_process_says_of_runs_judged_in_the_workers(
        parallel, runner, store_path, tmp_path):
    from kistore.cli import main

    from ..conftest import snapshot

    docs = list(manifests(30))
    docs[25] = slipped_run()  # line 26: in a worker's range
    path = tmp_path / "runs.jsonl"
    path.write_text("".join(json.dumps(d) + "\n" for d in docs))
    before = snapshot(store_path)
    result = runner.invoke(main, ["--store", str(store_path), "add", "--commit", str(path)])
    assert result.exit_code == 1
    with pytest.MonkeyPatch.context() as m:
        m.setattr(inputs, "PARALLEL_LINES", 10**9)
        alone = runner.invoke(main, ["--store", str(store_path), "add", "--commit",
                                     str(path)])
    assert result.stderr == alone.stderr
    said = result.stderr.splitlines()
    assert any(line.startswith(f"error: {path}:26:1:/metadata/name: ") for line in said)
    assert any(line.startswith(f"error: {path}:26:1:/spec/status: ") and "(KI222)" in line
               for line in said)
    assert snapshot(store_path) == before


def test_an_add_parses_each_runs_spec_once_for_the_stores_per_run_rules(
        store, monkeypatch):
    docs = list(manifests(12))
    added = [Manifest.from_document(d) for d in docs]
    runs = {m.object_bytes for m in added if m.kind == "BenchmarkRun"}
    parsed = parses_counted(monkeypatch, runs)
    store.add(added, commit=True)
    # before: plan (KI209, KI226, contradictions), KI232, KI230/KI233, KI238 twice
    assert len(parsed) == len(runs) == 8
    assert set(parsed) == runs
