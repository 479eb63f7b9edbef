"""Schemas: the published record validates; each kind rejects bad manifests by field."""

from __future__ import annotations

import copy
import json

import pytest

from kistore.core.model import Manifest
from kistore.core.schema import KINDS, check_manifest, schema_names

from ..conftest import PUBLISHED

D = "sha256:" + "ab" * 32


def workload():
    return {"apiVersion": "kernelindex.dev/v1alpha1", "kind": "Workload",
            "metadata": {"name": "w"}, "spec": {"suite": {"name": "S"}, "definition": "gemm"}}


def implementation():
    return {"apiVersion": "kernelindex.dev/v1alpha1", "kind": "Implementation",
            "metadata": {"name": "i"}, "spec": {"project": "p", "role": "candidate"}}


def test_every_kind_has_a_schema():
    assert {f"{k}.json" for k in KINDS} <= set(schema_names())


def test_published_record_validates_and_hashes(bundle):
    for key, document in bundle.items():
        assert check_manifest(document) == []
        assert str(Manifest.from_document(document).digest) == PUBLISHED[key]


def test_metadata_is_not_hashed(bundle):
    run = copy.deepcopy(bundle["run"])
    run["metadata"]["title"] = "A corrected title"
    assert str(Manifest.from_document(run).digest) == PUBLISHED["run"]


def _errors(document):
    return [(e.pointer, e.message) for e in check_manifest(document, file="m.json")]


@pytest.mark.parametrize("make,path,value,pointer,field", [
    ("run", ["spec", "observedAt"], "2026-07-10 06:41", "/spec/observedAt", "observedAt"),
    ("run", ["spec", "observedAt"], "2026-02-30T00:00:00Z", "/spec/observedAt", "observedAt"),
    ("run", ["spec", "protocolDigest"], "sha256:ABC", "/spec/protocolDigest", "protocolDigest"),
    ("run", ["spec", "status"], "great", "/spec/status", "status"),
    ("run", ["spec", "timing", "latencyNs", "mean"], -1, "/spec/timing/latencyNs/mean", "mean"),
    ("run", ["metadata", "name"], "../etc/passwd", "/metadata/name", "name"),
    ("run", ["metadata", "name"], "Upper", "/metadata/name", "name"),
    ("protocol", ["spec", "comparability", "family"], "", "/spec/comparability/family",
     "family"),
    ("environment", ["spec", "hardware", "product"], "", "/spec/hardware/product", "product"),
    ("workload", ["spec", "definition"], 7, "/spec/definition", "definition"),
    ("implementation", ["spec", "role"], "winner", "/spec/role", "role"),
])
def test_invalid_manifest_names_the_field(bundle, make, path, value, pointer, field):
    document = copy.deepcopy(bundle[make]) if make in bundle else globals()[make]()
    target = document
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    errors = _errors(document)
    # the field by its quoted key, or (metadata.name's refusal in words) 'not a valid name:'
    assert any(p == pointer and (repr(field) in m or f"not a valid {field}:" in m)
               for p, m in errors), errors


def test_units_in_field_names_are_enforced(bundle):
    run = copy.deepcopy(bundle["run"])
    run["spec"]["timing"]["latencyMs"] = {"mean": 13.6}
    assert any("latencyMs" in m for _, m in _errors(run))


@pytest.mark.parametrize("kind", KINDS)
def test_missing_spec_is_named(kind):
    errors = _errors({"apiVersion": "kernelindex.dev/v1alpha1", "kind": kind,
                      "metadata": {"name": "x"}})
    assert ("/spec", "missing required field 'spec': add it") in errors  # where it belongs


def test_unknown_kind_and_api_version():
    assert _errors({"kind": "Nope"})[0][0] == "/kind"
    document = workload()
    document["apiVersion"] = "v2"
    assert _errors(document)[0][0] == "/apiVersion"


def test_unexpected_top_level_field_is_refused():
    document = workload()
    document["extra"] = 1
    assert any("extra" in m for _, m in _errors(document))


@pytest.mark.parametrize("path,value", [
    (["metadata", "name"], "evil\n"),
    (["spec", "observedAt"], "2026-07-10T06:41:58Z\n"),
    (["spec", "protocolDigest"], "sha256:" + "ab" * 32 + "\n"),
])
def test_trailing_newline_does_not_slip_past_a_pattern(bundle, path, value):
    """Python's `$` matches before a final newline; JSON Schema's (ECMA-262) does not."""
    run = copy.deepcopy(bundle["run"])
    run[path[0]][path[1]] = value
    assert any(p == "/" + "/".join(path) for p, _ in _errors(run)), _errors(run)


def test_trailing_newline_in_a_statistic_name_is_refused(bundle):
    run = copy.deepcopy(bundle["run"])
    run["spec"]["timing"]["latencyNs"] = {"mean\n": 5}
    assert _errors(run)


def test_unexpected_key_is_named_with_its_objects_pointer():
    """A misspelt key at the top level was reported with no JSON Pointer at all."""
    top = {**workload(), "spek": {}}
    [found] = check_manifest(top, file="w.json")
    assert found.pointer == "/spek"
    assert found.format() == ("w.json:/spek: unexpected key 'spek' in the top-level object: "
                              "remove it or correct its spelling")
    nested = workload()
    nested["metadata"]["nmae"] = "x"
    [found] = check_manifest(nested, file="w.json")
    assert found.format() == (
        "w.json:/metadata/nmae: unexpected key 'nmae' in the object at /metadata; it allows "
        "only annotations, description, labels, name, title: remove it or correct its spelling")


@pytest.mark.parametrize("latency", [0, -1, 0.5, 1e-7])
def test_latency_of_zero_negative_or_below_one_ns_is_refused(bundle, latency):
    # Issue 18: a latency of 0 ns, negative or below 1 ns was accepted, and ranked first.
    run = copy.deepcopy(bundle["run"])
    run["spec"]["timing"]["latencyNs"]["mean"] = latency
    findings = check_manifest(run)
    assert [(f.pointer, f.message) for f in findings] == [
        ("/spec/timing/latencyNs/mean",
         f"field 'mean': {latency!r} is less than the minimum of 1")]


def test_one_ns_is_a_latency_and_a_spread_of_zero_is_allowed(bundle):
    run = copy.deepcopy(bundle["run"])
    run["spec"]["timing"]["latencyNs"] = {"mean": 1, "min": 1.5, "std": 0}
    assert check_manifest(run) == []
    run["spec"]["timing"]["latencyNs"]["std"] = -1
    assert [f.pointer for f in check_manifest(run)] == ["/spec/timing/latencyNs/std"]


def test_the_repository_copy_of_the_published_record_is_shared_examples_byte_for_byte():
    # examples/ lets a clone alone (a GitHub runner) test with the published record
    from ..conftest import BUNDLE, SHARED

    original = SHARED / "examples" / BUNDLE.name
    if not original.is_file():
        pytest.skip(f"{original} is absent (a clone alone): nothing to compare the copy with")
    assert BUNDLE.read_bytes() == original.read_bytes()


def test_the_kernelbench_example_is_this_repositorys_store_byte_for_byte():
    # examples/kernelbench-level1-1-h100-pcie.bundle.json gives the README's example store a
    # group of two runs to compare (a new user, fresh93: `compare` of the one run there
    # compared it with itself); it is `kistore cat --manifest` of store/'s own manifests, so
    # an import of KernelBench into that store later finds each one already there.
    from kistore.core.layout import metadata_path, name_path, object_path

    from ..conftest import EXAMPLES, ROOT

    bundle = json.loads((EXAMPLES / "kernelbench-level1-1-h100-pcie.bundle.json").read_text())
    kinds = sorted(document["kind"] for document in bundle.values())
    assert kinds == ["BenchmarkProtocol", "BenchmarkRun", "BenchmarkRun", "ExecutionEnvironment",
                     "Implementation", "Implementation", "Workload"]
    for document in bundle.values():
        manifest = Manifest.from_document(document)
        assert (ROOT / object_path(manifest.digest)).read_bytes() == manifest.object_bytes
        assert (ROOT / metadata_path(manifest.digest)).read_bytes() == manifest.metadata_bytes
        names = ROOT / name_path(manifest.kind, manifest.name)
        assert names.read_text() == f"{manifest.digest}\n"
    runs = [document for document in bundle.values() if document["kind"] == "BenchmarkRun"]
    assert {str(Manifest.from_document(run).digest)[7:15] for run in runs} == {
        "612e0706", "1974422a"}  # the README's `kistore compare 1974422a 612e0706`


@pytest.mark.parametrize("fields,lacking", [
    (["workloadDigest"], ["family", "primaryStatistic"]),
    ([], ["family", "primaryStatistic"]),
    (["family", "workloadDigest"], ["primaryStatistic"]),
    (["primaryStatistic"], ["family"])])
def test_key_fields_always_list_the_family_and_the_statistic(bundle, fields, lacking):
    # review 2026-12-01 F3: keyFields without family put two families, ranked by their
    # own policies, into one group that then ranked the same runs two ways; without
    # primaryStatistic, a mean and a median run were each ranked first
    protocol = copy.deepcopy(bundle["protocol"])
    protocol["spec"]["comparability"]["keyFields"] = fields
    assert _errors(protocol) == sorted(
        ("/spec/comparability/keyFields",
         f"field 'keyFields': must list {json.dumps(field)}, found {json.dumps(fields)}")
        for field in lacking)
    protocol["spec"]["comparability"]["keyFields"] = sorted({*fields, *lacking})
    assert _errors(protocol) == []


@pytest.mark.parametrize("given,write", [
    ("2016-12-31T23:59:60Z", "2016-12-31T23:59:59Z"),  # a real leap second
    ("2026-07-10T06:41:58.611z", "2026-07-10T06:41:58.611Z"),
    ("2026-07-10t06:41:58+02:00", "2026-07-10T06:41:58+02:00")])
def test_rfc3339_spellings_kistore_refuses_say_what_to_write(bundle, given, write):
    # r89 F2: RFC 3339 §5.6 admits these; kistore's one spelling does not, and said "not
    # an RFC 3339 date-time", which they are
    run = copy.deepcopy(bundle["run"])
    run["spec"]["observedAt"] = given
    assert _errors(run) == [("/spec/observedAt", (
        f"field 'observedAt': {given!r} is RFC 3339, but kistore accepts one spelling only: "
        f"upper-case T and Z, seconds 00-59 (no leap second); write {write!r}"))]


@pytest.mark.parametrize("given", ["2026-07-10 06:41:58Z", "2026-13-10t06:41:58Z",
                                   "2026-02-30T00:00:60Z"])
def test_a_time_that_is_not_rfc3339_is_said_so(bundle, given):
    run = copy.deepcopy(bundle["run"])
    run["spec"]["observedAt"] = given
    assert _errors(run) == [("/spec/observedAt", (
        f"field 'observedAt': {given!r} is not an RFC 3339 date-time "
        "(e.g. 2026-07-10T06:41:58.611Z)"))]
