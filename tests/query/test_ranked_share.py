"""KI221's and KI234's share of a run, found where the run is parsed (issue 22, bulk00).

:func:`kistore.store.run_facts.ranked_spec`: ``add`` read each run's whole spec for KI221
(``m.spec``, kept on the run until the add ended: kilobytes a run at 100,000) and KI234
(which reused it). Now the run's facts keep its spec cut to the keys the ranking policy
reads (:func:`kistore.query.outlier_rules.ranked_keys`), found with the other facts, in the
parse workers of a bulk add. These tests hold the cut to be what the policy reads, a run
the cut does not serve (a contradiction) to be read whole, the cut to cross from a worker,
an add to parse each run's spec once and keep none, and the words to be unchanged.
"""

from __future__ import annotations

import json

from bench.generate import manifests
from kistore.core.model import Manifest
from kistore.query.outlier_rules import ranked_kept, ranked_keys
from kistore.query.ranked_values import values_admitted
from kistore.store import inputs
from kistore.store.run_facts import facts_of, keeping_ranked, ranked_spec

from ..store.test_run_facts import parallel, parses_counted, slipped_run  # noqa: F401

KEYS = frozenset({"status", "timing", "workloadDigest", "protocolDigest",
                  "environmentDigest", "implementationDigest", "sourceNative"})
"""What the store ``kistore init`` writes ranks by (its policy's metric and unit pointers
start at ``/sourceNative``), held by hand."""


def test_the_init_policy_ranks_by_the_keys_held_here(store):
    assert ranked_keys(store) == KEYS


def test_a_clean_run_is_read_as_its_cut_and_a_contradicting_run_whole():
    clean = Manifest.from_document(next(d for d in manifests(10) if d["kind"] == "BenchmarkRun"))
    slipped = Manifest.from_document(slipped_run())  # KI222: rank reads more of it
    with keeping_ranked(lambda: KEYS):
        cut = ranked_spec(clean)
        whole = ranked_spec(slipped)
    spec = clean.passing_spec()
    assert set(spec) - set(cut) == {"correctness", "observedAt"}
    assert cut == {k: v for k, v in spec.items() if k in KEYS}
    assert cut["timing"] == spec["timing"] and cut["sourceNative"] == spec["sourceNative"]
    assert facts_of(slipped).ranked is not None  # found, but not enough for this run
    assert whole == slipped.passing_spec()


def test_no_keys_named_no_cut_kept():
    run = Manifest.from_document(next(d for d in manifests(10) if d["kind"] == "BenchmarkRun"))
    assert facts_of(run).ranked is None
    assert ranked_spec(run) == run.passing_spec()


def test_the_policy_is_read_once_and_only_when_a_runs_facts_are_found():
    asked = []
    docs = [d for d in manifests(10) if d["kind"] != "BenchmarkRun"]
    with keeping_ranked(lambda: asked.append(1) or KEYS):
        inputs.parse_manifests(b"".join(json.dumps(d).encode() + b"\n" for d in docs),
                               file="x.jsonl")
        assert asked == []
        for d in manifests(10):
            if d["kind"] == "BenchmarkRun":
                facts_of(Manifest.from_document(d))
    assert asked == [1]


def test_parse_workers_find_each_runs_cut_as_the_parent_would(parallel):  # noqa: F811
    docs = list(manifests(40))
    data = b"".join(json.dumps(d).encode() + b"\n" for d in docs)
    with keeping_ranked(lambda: KEYS):
        found = inputs.parse_manifests(data, file="runs.jsonl")
    runs = [x.manifest for x in found if x.manifest.kind == "BenchmarkRun"]
    assert len(runs) == 36
    assert all(m._document is None for m in runs[-10:])  # the worker's: no document
    assert [facts_of(m).ranked for m in runs] == [
        {k: v for k, v in m.passing_spec().items() if k in KEYS} for m in runs]


def test_ki221_keeps_no_runs_parsed_document(store):
    docs = list(manifests(12))
    added = [Manifest.from_document(d) for d in docs]
    runs = [Manifest(m.object_bytes, m.metadata_bytes, m.digest, m.kind, m.name,
                     m.reference_hex) for m in added if m.kind == "BenchmarkRun"]
    others = [m for m in added if m.kind != "BenchmarkRun"]
    with ranked_kept(store):
        assert values_admitted(store, [*others, *runs]) == []
    # before: `m.spec` kept each run's whole document until the add ended
    assert all(m._document is None for m in runs)


def test_an_add_parses_each_runs_spec_once_for_every_rule(runner, store_path, tmp_path,
                                                          monkeypatch):
    from kistore.cli import main

    docs = list(manifests(12))
    path = tmp_path / "runs.jsonl"
    path.write_text("".join(json.dumps(d) + "\n" for d in docs))
    runs = {Manifest.from_document(d).object_bytes for d in docs
            if d["kind"] == "BenchmarkRun"}
    parsed = parses_counted(monkeypatch, runs)
    result = runner.invoke(main, ["--store", str(store_path), "add", "--commit", str(path)])
    assert result.exit_code == 0, result.output
    # before: the facts' parse, then KI221's (`m.spec`, which KI234 read again)
    assert len(parsed) == len(runs) == 8
    assert set(parsed) == runs


def test_an_add_says_the_same_words_from_the_cut_as_from_the_whole_spec(
        runner, store_path, tmp_path, monkeypatch):
    """KI221's and KI234's own words are held by tests/query/test_ranked_value_at_add.py and
    test_rank_outlier*.py; here an add of slipped runs says, from the cut, what it says
    reading each run whole."""
    from kistore.cli import main
    from kistore.store import Store

    docs = list(manifests(30))
    docs[25] = slipped_run()  # KI222, KI230, KI233, KI209: read whole either way
    path = tmp_path / "runs.jsonl"
    path.write_text("".join(json.dumps(d) + "\n" for d in docs))
    with monkeypatch.context() as m:  # no cut: each run's spec read whole, as before
        m.setattr("kistore.query.outlier_rules.ranked_keys", lambda store: None)
        whole = runner.invoke(main, ["--store", str(store_path), "add", str(path)])
    fresh = tmp_path / "again"  # the same add, on a fresh store
    Store.init(fresh)
    cut = runner.invoke(main, ["--store", str(fresh), "add", str(path)])
    assert (cut.exit_code, cut.stdout, cut.stderr) == (whole.exit_code, whole.stdout,
                                                       whole.stderr)
    assert cut.exit_code == 1 and "(KI222)" in cut.stderr
