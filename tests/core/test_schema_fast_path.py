"""The compiled validator (jsonschema-rs) only ever speeds up acceptance: it never accepts a
manifest python-jsonschema rejects, and findings are python-jsonschema's, unchanged.

The one property of it (tests/check/test_verify.py held a second, on the published bundle
only; its documents and values are drawn here too)."""

from __future__ import annotations

import copy
import json

from hypothesis import given, settings
from hypothesis import strategies as st

from bench.generate import manifests
from kistore.core import schema
from kistore.core.text_fields import identifying_problems

from ..conftest import BUNDLE

SAMPLES = [d for d in manifests(60) if d["kind"] != "BenchmarkRun"][:8] + \
    [d for d in manifests(60) if d["kind"] == "BenchmarkRun"][:4] + \
    list(json.loads(BUNDLE.read_text()).values())  # the published run, protocol, environment

VALUES = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.integers(),
                   st.floats(-2, 2), st.text(max_size=30),
                   st.sampled_from(["", "x", "2026-13-40T00:00:00Z", "2026-07-10T06:41:58Z",
                                    "2026-07-10t06:41:58Z", "sha256:" + "0" * 64,
                                    "sha256:" + "A" * 64, "sha256:ABC", "abc\n", "-bad",
                                    "mean", "p99", "passed", "nope"]),
                   st.just({}), st.just([]))


def python_findings(document):
    kind = document.get("kind") if isinstance(document, dict) else None
    if kind not in schema.KINDS:
        return None
    return list(schema._validator(f"{kind}.json").iter_errors(document))


def paths(value, prefix=()):
    yield prefix
    if isinstance(value, dict):
        for k, v in value.items():
            yield from paths(v, (*prefix, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from paths(v, (*prefix, i))


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(SAMPLES), st.data(), VALUES)
def test_fast_validator_never_accepts_what_jsonschema_rejects(document, data, value):
    doc = copy.deepcopy(document)
    where = data.draw(st.sampled_from([p for p in paths(doc) if p]))
    parent = doc
    for step in where[:-1]:
        parent = parent[step]
    if data.draw(st.booleans()) and isinstance(parent, dict):
        del parent[where[-1]]
    else:
        parent[where[-1]] = value
    expected = python_findings(doc)
    fast = schema._fast_validator(f"{doc['kind']}.json") if doc.get("kind") in schema.KINDS \
        else None
    if fast is not None and fast.is_valid(doc):
        assert expected == []
        # check_manifest takes the fast answer for the schema; what it still says is the
        # text rules' alone (KI104's identifying strings, Windows-reserved names), which
        # the compiled validator does not claim to check
        assert list(map(str, schema.check_manifest(doc))) == list(map(str, (
            identifying_problems(doc) + schema.reserved_name_problems(doc))))
    if expected is not None:  # the schema's part of check_manifest (the text rules of
        # kistore.core.text_fields come after it, on top)
        assert len(schema.check_document(doc, f"{doc['kind']}.json")) == len(expected)


def test_bad_date_time_is_refused_on_both_paths():
    run = copy.deepcopy(next(d for d in SAMPLES if d["kind"] == "BenchmarkRun"))
    run["spec"]["observedAt"] = "2026-13-99T00:00:00Z"
    assert not schema._fast_validator("BenchmarkRun.json").is_valid(run)
    [finding] = schema.check_manifest(run)
    assert finding.pointer == "/spec/observedAt"
    assert "RFC 3339" in finding.message


def test_null_date_time_is_a_finding_not_a_traceback():
    run = copy.deepcopy(next(d for d in SAMPLES if d["kind"] == "BenchmarkRun"))
    run["spec"]["observedAt"] = None
    [finding] = schema.check_manifest(run)
    assert finding.pointer == "/spec/observedAt"
    assert "expected a string, found null" in finding.message
