"""KI226: a run may not claim KernelBench's data unless kistore's importer makes it (r85 F20).

A hand-written BenchmarkRun with ``sourceNative.source: kernelbench``, an importer-style
name and the importer's annotations (source, MIT licence, upstream commit) passed ``add``,
the hooks and ``check`` with 0 findings and ranked #1 above KernelBench's real measurement.
``add`` and ``import`` now refuse it, ``check`` and ``verify`` report it as an error, and
``rank`` leaves a stored one out saying why; the metadata alone claims too, so a pull
request that only edits a run's metadata into a KernelBench claim is refused as well.
"""

from __future__ import annotations

import json

import pytest

from kistore.check.audit import verify
from kistore.check.gate import check_range
from kistore.cli import main
from kistore.core import canonical, layout
from kistore.core.errors import KistoreError
from kistore.core.model import Manifest
from kistore.query.answers import rank

from ..conftest import DATA, add_docs, add_past_a_refusal, git, requires_data

UPSTREAM = ("github.com/ScalingIntelligence/KernelBench@"
            "423217d9fda91e0c2d67e4a43bf62f96f6d104f1")
CLAIMING = {"kernelindex.dev/source": "kernelbench", "kernelindex.dev/license": "MIT",
            "kernelindex.dev/upstream": UPSTREAM}
SHORT = "claims kernelbench, not an import (KI226)"
STALE_CATALOGUE = (
    "the record is not at fault, kistore is: its catalogue of the KernelBench runs its "
    "importer makes (kistore/core/kernelbench_runs.txt) lacks this run: the importer changed "
    "without `make catalogue`; run `make catalogue` in kistore's source tree, review the "
    "added lines and import again (an installed kistore: report it to kistore's maintainers)")
"""An import's advice when KI226 refuses a run kistore's own importer makes (adv01)."""


def _message(digest: str, claims: str) -> str:
    return (f"the run claims to be KernelBench's data ({claims}), but kistore's KernelBench "
            f"importer does not make this run ({digest}) from any upstream file it knows "
            "(kistore/core/kernelbench_runs.txt lists the 750 it makes): a run you measured "
            "yourself names no source, or its own without `kernelbench` in any spelling")


ALL_THREE = ("object /spec/sourceNative/source 'kernelbench', metadata "
             "/annotations/kernelindex.dev~1source 'kernelbench', metadata "
             f"/annotations/kernelindex.dev~1upstream '{UPSTREAM}'")


def _fake(kit):
    """An honest group of one run and F20's fake beside it: (docs, fake)."""
    protocol, env, workload = kit.protocol(), kit.environment(), kit.workload()
    impls = [kit.implementation(f"proj-{i}", name=f"impl-{i}") for i in range(2)]
    honest = kit.run(protocol, env, impls[0], workload, latency=2_660_000, name="honest")
    fake = kit.run(protocol, env, impls[1], workload, latency=500_000,
                   name="kernelbench-h100-modal-eager-level1-1-fast",
                   native={"benchmark": "level1/1_Square_matrix_multiplication_.py",
                           "metrics": {"mean": 0.5}})
    fake["spec"]["sourceNative"]["source"] = "kernelbench"
    fake["metadata"]["annotations"] = dict(CLAIMING)
    return [protocol, env, workload, *impls, honest], fake


def test_add_refuses_the_f20_run(store, kit, runner, tmp_path):
    docs, fake = _fake(kit)
    add_docs(store, docs)
    digest = str(Manifest.from_document(fake).digest)
    with pytest.raises(KistoreError) as caught:
        store.add([Manifest.from_document(fake)], commit=True)
    assert [(p.pointer, p.message) for p in caught.value.problems] == [
        ("/spec/sourceNative/source", _message(digest, ALL_THREE) + " (KI226)")]
    path = tmp_path / "fake.json"
    path.write_text(json.dumps(fake))
    done = runner.invoke(main, ["--store", str(store.root), "add", "--commit", str(path)])
    assert done.exit_code == 1, done.output
    assert done.stderr.startswith(f"error: {path}:/spec/sourceNative/source: the run claims ")
    assert done.stderr.rstrip().endswith("(KI226)")
    assert not (store.root / layout.object_path(Manifest.from_document(fake).digest)).exists()


def test_a_run_naming_its_own_source_is_added(store, kit):
    docs, fake = _fake(kit)
    fake["spec"]["sourceNative"]["source"] = "my-lab"
    fake["metadata"]["annotations"] = {"kernelindex.dev/license": "MIT"}
    add_docs(store, [*docs, fake])  # no error



@pytest.mark.parametrize(("source", "annotation"), [
    ("kernelbench-v2", None), ("kernelbenchmark", None),
    ("my-lab", "\uff2bernelBench"), ("my-lab", "kernel bench v2")])
def test_add_refuses_the_r87_spellings(store, kit, runner, tmp_path, source, annotation):
    """Reviewer r87: a source ``kernelbench-v2`` or ``kernelbenchmark``, or a fullwidth
    ``ＫernelBench`` annotation, passed ``add`` and ``check`` and ranked #1."""
    docs, fake = _fake(kit)
    add_docs(store, docs)
    fake["spec"]["sourceNative"]["source"] = source
    fake["metadata"]["annotations"] = {} if annotation is None else {
        "kernelindex.dev/source": annotation}
    path = tmp_path / "fake.json"
    path.write_text(json.dumps(fake))
    done = runner.invoke(main, ["--store", str(store.root), "add", "--commit", str(path)])
    assert done.exit_code == 1, done.output
    at = ("/spec/sourceNative/source" if annotation is None
          else "/metadata/annotations/kernelindex.dev~1source")
    said = repr(source if annotation is None else annotation)
    assert done.stderr.startswith(f"error: {path}:{at}: the run claims to be KernelBench's "
                                  f"data ({'object' if annotation is None else 'metadata'} "
                                  f"{at.removeprefix('/metadata')} {said}), "), done.stderr
    assert done.stderr.rstrip().endswith("(KI226)")
    assert not (store.root / layout.object_path(Manifest.from_document(fake).digest)).exists()


def test_r87_runs_committed_by_hand_are_errors_and_never_ranked(store, kit, monkeypatch):
    """A sequence of pull requests: PR1 adds an honest group (passes); PR2, written past
    ``add``, adds ``kernelbench-v2`` and ``kernelbenchmark`` runs faster than it: the gate
    and ``verify`` report both, and ``rank`` leaves both out; PR3 adds a run naming its own
    source (``kernel-b3nch``): it passes and ranks."""
    docs, fake = _fake(kit)
    fakes = []
    for source in ("kernelbench-v2", "kernelbenchmark"):
        doc = json.loads(json.dumps(fake))
        doc["spec"]["sourceNative"]["source"] = source
        doc["metadata"] = {"name": f"fast-{source}", "annotations": {}}
        fakes.append(doc)
    base = add_past_a_refusal(store, monkeypatch, docs, fakes, finds_nothing=lambda *a: None,
                              rule="kistore.store.run_facts.unproven_claim")
    expected = [("KI226", "error", layout.object_path(Manifest.from_document(doc).digest),
                 "/spec/sourceNative/source",
                 _message(str(Manifest.from_document(doc).digest),
                          f"object /spec/sourceNative/source '{source}'"))
                for doc, source in zip(fakes, ("kernelbench-v2", "kernelbenchmark"),
                                       strict=True)]
    assert sorted(_said(check_range(store, f"{base}..HEAD"))) == sorted(expected)
    assert sorted(_said(verify(store))) == sorted(expected)
    _, ranking = rank(store, "BenchmarkRun/honest")
    assert [(r.record.name, r.rank) for r in ranking.ranked] == [("honest", 1)]
    assert sorted(r.record.name for r in ranking.excluded) == [
        "fast-kernelbench-v2", "fast-kernelbenchmark"]
    pr2 = git(store.root, "rev-parse", "HEAD").strip()
    own = json.loads(json.dumps(fake))
    own["spec"]["sourceNative"]["source"] = "kernel-b3nch"
    own["metadata"] = {"name": "mine", "annotations": {}}
    add_docs(store, [own])
    assert _said(check_range(store, f"{pr2}..HEAD")) == []
    _, ranking = rank(store, "BenchmarkRun/honest")
    assert [r.record.name for r in ranking.ranked] == ["mine", "honest"]

@pytest.fixture
def past_the_gate(store, kit, monkeypatch):
    """F20's run committed past add's refusal (by hand, or by a kistore before KI226)."""
    docs, fake = _fake(kit)
    base = add_past_a_refusal(store, monkeypatch, docs, [fake], finds_nothing=lambda *a: None,
                              rule="kistore.store.run_facts.unproven_claim")
    return base, fake


def _said(findings):
    return [(f.rule.id, f.severity, f.file, f.pointer, f.message) for f in findings
            if f.rule.id == "KI226"]


def test_check_and_verify_report_it_as_an_error(store, past_the_gate):
    base, fake = past_the_gate
    digest = Manifest.from_document(fake).digest
    expected = [("KI226", "error", layout.object_path(digest), "/spec/sourceNative/source",
                 _message(str(digest), ALL_THREE))]
    assert _said(check_range(store, f"{base}..HEAD")) == expected
    for at in (None, "HEAD"):
        assert _said(verify(store, at)) == expected


def test_rank_leaves_it_out_saying_why(store, past_the_gate, runner):
    _, ranking = rank(store, "BenchmarkRun/honest")
    assert [(r.record.name, r.rank) for r in ranking.ranked] == [("honest", 1)]
    assert [(r.record.name, r.reason) for r in ranking.excluded] == [
        ("kernelbench-h100-modal-eager-level1-1-fast", SHORT)]
    done = runner.invoke(main, ["--store", str(store.root), "rank", "--all",
                                "BenchmarkRun/honest"])
    assert done.exit_code == 0, done.output
    said = [line for line in done.stdout.splitlines() if "-fast" in line]
    assert said[0].startswith("    -") and said[0].endswith(f"({SHORT})")


def _retitle(store, doc, annotations, *, by_hand: bool):
    """Give a stored run new annotations: with ``add --update-metadata`` or written and
    committed by hand (what a pull request can do without kistore)."""
    doc = json.loads(json.dumps(doc))
    doc["metadata"]["annotations"] = annotations
    manifest = Manifest.from_document(doc)
    if not by_hand:
        store.add([manifest], update_metadata=True, commit=True)
        return
    path = layout.metadata_path(manifest.digest)
    (store.root / path).write_bytes(canonical.dumps(doc["metadata"]))
    git(store.root, "add", path)
    git(store.root, "commit", "-q", "-m", "metadata only")


def test_a_metadata_only_claim_is_refused_in_a_later_pull_request(store, kit):
    """PR1 adds a run naming no source (passes); PR2 only edits its metadata into
    KernelBench's annotations: add refuses it, and the gate reports the PR written by hand
    on the metadata file; PR3 taking the claim back passes again."""
    docs, run = _fake(kit)
    del run["spec"]["sourceNative"]
    run["metadata"]["annotations"] = {}
    base = git(store.root, "rev-parse", "HEAD").strip()
    add_docs(store, [*docs, run])
    pr1 = git(store.root, "rev-parse", "HEAD").strip()
    assert _said(check_range(store, f"{base}..{pr1}")) == []
    digest = Manifest.from_document(run).digest
    claim = {"kernelindex.dev/source": "KernelBench"}
    with pytest.raises(KistoreError) as caught:
        _retitle(store, run, claim, by_hand=False)
    said = _message(str(digest), "metadata /annotations/kernelindex.dev~1source "
                                 "'KernelBench'")
    assert [(p.pointer, p.message) for p in caught.value.problems] == [
        ("/metadata/annotations/kernelindex.dev~1source",  # since r88 F1: provenance stays
         f"{digest} is committed with the provenance annotation 'kernelindex.dev/source' "
         "(absent), and this metadata makes it 'KernelBench': a landed manifest's "
         "kernelindex.dev/* annotations are its importer's record and never change (KI432; "
         "the gate refuses it); keep them as stored, and answer a wrong licence or source "
         "with a maintainer's withdrawal (`kistore attest REF --type withdrawal -m WHY`)"),
        ("/metadata/annotations/kernelindex.dev~1source", said + " (KI226)")]
    _retitle(store, run, claim, by_hand=True)
    pr2 = git(store.root, "rev-parse", "HEAD").strip()
    found = check_range(store, f"{pr1}..{pr2}")
    assert _said(found) == [("KI226", "error", layout.metadata_path(digest),
                             "/annotations/kernelindex.dev~1source", said)]
    assert "KI405" in {f.rule.id for f in found}  # the metadata edit, as before
    assert _said(verify(store)) == _said(found)
    _, ranking = rank(store, "BenchmarkRun/honest")  # rank reads objects: no source here
    assert [r.record.name for r in ranking.ranked][0] == run["metadata"]["name"]
    assert "KI432" in {f.rule.id for f in found}  # an annotation a landed run lacked
    _retitle(store, run, {"kernelindex.dev/source": "my-lab"}, by_hand=True)
    taken_back = check_range(store, f"{pr2}..HEAD")
    assert _said(taken_back) == []
    # KI432 holds the landed claim too: taking it back is the maintainers' (a withdrawal)
    assert [f.rule.id for f in taken_back if f.severity == "error"] == ["KI432"]
    assert _said(verify(store)) == []


def _imported_h100(tmp_path, runner):
    """Return a new store's root with KernelBench's H100 Modal file imported, committed."""
    from kistore.store import Store

    root = tmp_path / "store"
    Store.init(root)
    timing = DATA / "kernelbench" / "H100_Modal" / "baseline_time_torch.json"
    done = runner.invoke(main, ["--store", str(root), "import", "--commit", "kernelbench",
                                str(timing)])
    assert done.exit_code == 0, done.output
    return root


@requires_data
def test_the_real_import_passes_and_the_fake_beside_it_is_refused(tmp_path, runner):
    """The repro on the real data: import KernelBench's H100 Modal file, then add F20's
    run (the importer's protocol, environment, implementation and workload digests)."""
    root = _imported_h100(tmp_path, runner)
    fake = {"apiVersion": "kernelindex.dev/v1alpha1", "kind": "BenchmarkRun", "spec": {
        "environmentDigest": "sha256:768687503cbd649126b2e86f3267e2d6e548b20eb2216494743f09f"
                             "92266d338",
        "implementationDigest": "sha256:9d3d8489c70a94d62a77d481c83945cdc4cad9aa6b958be96a2"
                                "fd9b3d95e6476",
        "protocolDigest": "sha256:9edd3b9f8443c0971ebae5fdfb2c42974ff5ac21c8d1dd0bbdef22df51"
                          "3ef637",
        "workloadDigest": "sha256:dc34fbd1aa0327655a7870cf7049cf92522543127fa0a1430847f09847"
                          "bdb1d0",
        "observedAt": "2025-12-31T00:00:00.000Z", "status": "passed",
        "sourceNative": {"source": "kernelbench",
                         "benchmark": "level1/1_Square_matrix_multiplication_.py",
                         "metrics": {"mean": 0.5}},
        "timing": {"latencyNs": {"mean": 500000}, "primaryStatistic": "mean",
                   "trials": 100}},
        "metadata": {"name": "kernelbench-h100-modal-eager-level1-1-fast",
                     "title": "KernelBench level1/1 (H100 Modal)", "annotations": CLAIMING}}
    path = tmp_path / "fake.json"
    path.write_text(json.dumps(fake))
    done = runner.invoke(main, ["--store", str(root), "add", "--commit", str(path)])
    assert done.exit_code == 1 and "(KI226)" in done.stderr, done.output
    from kistore.store import Store

    store = Store(root)
    assert _said(verify(store)) == []
    _, ranking = rank(store, "BenchmarkRun/kernelbench-h100-modal-eager-level1-1-square-"
                             "matrix-multiplication")
    assert ranking.ranked[0].record.digest == (
        "sha256:bb1ce6354d4b07ff0d72ebb3812e288865f7b6074b27aab0367c26bacb94678e")


def test_no_imported_run_of_the_real_data_is_refused(imported_store):
    """All three sources of shared/data: KernelBench's 750 runs are catalogued, and the
    runs of the open sources claim nothing of KernelBench."""
    assert _said(verify(imported_store)) == []


@requires_data
def test_import_refuses_runs_its_catalogue_does_not_list(tmp_path, runner, monkeypatch):
    """An importer changed without ``make catalogue`` (here: an empty catalogue) makes runs
    the catalogue does not list: its own import is refused, each run naming KI226."""
    monkeypatch.setattr("kistore.core.provenance.catalogue", lambda: frozenset())
    monkeypatch.setattr("kistore.store.run_facts.catalogue", lambda: frozenset())
    root = tmp_path / "store"
    runner.invoke(main, ["init", str(root)])
    timing = DATA / "kernelbench" / "H100_Modal" / "baseline_time_torch.json"
    done = runner.invoke(main, ["--store", str(root), "import", "kernelbench", str(timing)])
    assert done.exit_code == 1, done.output
    # the rule's words, then the advice of who is at fault: not the record (adv01: it said
    # "the record is the source's ...: report it upstream"), kistore's stale catalogue
    refused = [line for line in done.stderr.splitlines() if "(KI226); " in line]
    assert len(refused) == 250
    assert all(line.endswith(f"(KI226); {STALE_CATALOGUE}") for line in refused)
    assert not any("upstream;" in line or "report it upstream" in line for line in refused)
    first = "sha256:bb1ce6354d4b07ff0d72ebb3812e288865f7b6074b27aab0367c26bacb94678e"
    upstream = ("github.com/ScalingIntelligence/KernelBench@"
                "1f8d20fa06357a9c343f4508887b6da22f114752")
    assert refused[0] == (
        f"error: {timing.as_posix()}:/level1/1_Square_matrix_multiplication_.py: "
        "level1/1_Square_matrix_multiplication_.py: its BenchmarkRun "
        "'kernelbench-h100-modal-eager-level1-1-square-matrix-multiplication' is refused at "
        "/spec/sourceNative/source (a pointer into the BenchmarkRun, not the record): "
        + _message(first, "object /spec/sourceNative/source 'kernelbench', metadata "
                   "/annotations/kernelindex.dev~1source 'kernelbench', metadata "
                   "/annotations/kernelindex.dev~1source-file 'kernelbench/H100_Modal/"
                   f"baseline_time_torch.json', metadata /annotations/kernelindex.dev~1upstream "
                   f"'{upstream}'").replace("the 750 it makes", "the 0 it makes")
        + f" (KI226); {STALE_CATALOGUE}")
    assert not list((root / "store" / "objects").rglob("*.json"))


@requires_data
def test_r93_f5_a_copy_of_an_imported_run_is_one_cause(tmp_path, runner, monkeypatch):
    """r93 F5: `cp` of an imported run's object to a bogus name in its shard, committed:
    KI101 ("a copy: rm it") and KI226 on the copy (its bytes judged as a run of the digest
    its name says: "add the corrected run as a new object"), two contrary advices. Now
    KI101 alone, in `check` of the pull request and in `verify` of the work tree."""
    root = _imported_h100(tmp_path, runner)
    base = git(root, "rev-parse", "HEAD").strip()
    own = next(p for p in sorted((root / layout.OBJECTS_DIR).rglob("*.json"))
               if json.loads(p.read_text()).get("kind") == "BenchmarkRun")
    copy = own.with_name("e" * 62 + ".json")
    copy.write_bytes(own.read_bytes())
    git(root, "add", "store")
    git(root, "commit", "-qm", "cpy")
    said = copy.relative_to(root).as_posix()
    for command in (["check", "--json", f"{base}..HEAD"], ["verify", "--json"]):
        monkeypatch.chdir(root)
        done = runner.invoke(main, command)
        errors = [(f["rule"], f["file"]) for f in json.loads(done.stdout)["findings"]
                  if f["severity"] == "error"]
        assert (done.exit_code, errors) == (1, [("KI101", said)]), (command, done.output)
