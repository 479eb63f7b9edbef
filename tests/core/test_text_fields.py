"""KI104 applied by one table, text_fields.TEXT_FIELDS: which strings are identifying, which prose.

Review73 F8: a Workload's definition, a suite's name, a run's sourceNative.benchmark and
metric keys, a library's name and version and a harness's name were not checked (a
Cyrillic ``sоl_score`` became a second column of the DuckDB export), a raw tab in a
description reached the site's HTML, and an externalId holding U+00A0 got a suggested
run name instead of a refusal. F7: a refused metadata.name showed only the regex.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kistore.check._rules import check_clean_pair, check_manifest_pair
from kistore.core import canonical
from kistore.core.errors import MultipleErrors
from kistore.core.model import Manifest
from kistore.core.schema import KINDS, NAME_RULE, check_manifest, load_schema, nearest_name
from kistore.core.text_fields import TEXT_FIELDS, identifying_problems
from tests.conftest import ManifestKit, snapshot

CYRILLIC_O = "\u043e"

EVERY_KIND_PROSE = {"/metadata/title", "/metadata/description", "/metadata/labels/*",
                    "/metadata/annotations/*"}
"""The metadata strings of every kind, all prose (their keys too)."""

NOT_TEXT = {
    "Workload": {"/spec/reference/source", "/spec/reference/digest"},
    "BenchmarkProtocol": set(),
    "ExecutionEnvironment": set(),
    "Implementation": {"/spec/source/digest", "/spec/artifacts/*/digest"},
    "BenchmarkRun": {"/spec/observedAt", "/spec/workloadDigest", "/spec/protocolDigest",
                     "/spec/environmentDigest", "/spec/implementationDigest"},
}
"""Per kind, the string fields deliberately not in TEXT_FIELDS: source code (tabs and
newlines are its own), and values a pattern or format holds to ASCII (digests,
date-times); ``/metadata/name`` has its pattern too."""


def _resolve(schema: Any) -> Any:
    """``schema`` with a ``$ref`` beside other keys merged in (properties joined)."""
    while isinstance(schema, dict) and "$ref" in schema:
        file, _, fragment = schema["$ref"].partition("#")
        target = load_schema(file or "common.json")
        for part in fragment.split("/")[1:]:
            target = target[part]
        rest = {k: v for k, v in schema.items() if k != "$ref"}
        merged = {**target, **rest}
        merged["properties"] = {**target.get("properties", {}), **rest.get("properties", {})}
        schema = merged
    return schema


def _string_fields(schema: Any, pointer: str, found: set[str]) -> None:
    """Add the pointer pattern of every string a schema allows to ``found``."""
    schema = _resolve(schema)
    if not isinstance(schema, dict):
        return
    if schema.get("type") == "string":
        found.add(pointer)
    for key, sub in schema.get("properties", {}).items():
        _string_fields(sub, f"{pointer}/{key}", found)
    for key in ("items", "additionalProperties"):
        if isinstance(schema.get(key), dict):
            _string_fields(schema[key], f"{pointer}/*", found)


@pytest.mark.parametrize("kind", KINDS)
def test_every_string_field_of_every_kind_is_in_the_table_or_deliberately_not(kind):
    # A field a schema adds is not left unchecked by oversight: it must be listed here.
    found: set[str] = set()
    _string_fields(load_schema(f"{kind}.json"), "", found)
    listed = set(TEXT_FIELDS[kind]["identifying"]) | set(TEXT_FIELDS[kind]["prose"])
    strings = {p for p in listed if not p.endswith("/@")}  # keys are no schema leaf
    assert found - strings - EVERY_KIND_PROSE == NOT_TEXT[kind] | {"/metadata/name"}
    # every listed value pattern is a string the schema allows
    assert strings - found == set()


def _run(kit: ManifestKit, **native: Any) -> dict[str, Any]:
    return kit.run(kit.protocol(), kit.environment(), kit.implementation(), kit.workload(),
                   latency=1000.0, native=native, name="run-1")


def test_a_cyrillic_metric_key_is_refused_at_its_pointer(kit: ManifestKit):
    # review73 F8: 'sоl_score' became a second column beside 'sol_score' in the export
    key = f"s{CYRILLIC_O}l_score"
    run = _run(kit, metrics={"sol_score": 0.5, key: 0.7})
    [error] = identifying_problems(run)
    assert error.pointer == f"/spec/sourceNative/metrics/{key}"
    assert error.message == (
        f"the key {key!r} holds U+043E CYRILLIC SMALL LETTER O at character 2, of the "
        "Cyrillic script, after U+0073 LATIN SMALL LETTER S at character 1, of the Latin "
        "script (letters of one script, or Latin with Japanese, Chinese or Korean writing: a "
        "look-alike of another script makes one GPU, name or key two that print alike): "
        "retype character 2 in the Latin script, or write the whole string in one script")


def test_an_external_id_with_a_no_break_space_is_refused_not_renamed(kit: ManifestKit):
    # review73 F8: it got a suggested run name (KI209) instead of a refusal
    run = _run(kit, externalId="20\u00a0464")
    run["spec"]["sourceNative"]["source"] = "sol-execbench"  # names runs by externalId
    run["metadata"]["name"] = "sol-submission-20-464"
    [error] = identifying_problems(run)
    assert (error.pointer, error.message) == (
        "/spec/sourceNative/externalId",
        "'20\\xa0464' holds U+00A0 NO-BREAK SPACE at character 3, whitespace other than "
        "U+0020 SPACE (the only whitespace allowed, one between words; identifying strings "
        "must be plain text, or one GPU, name or key becomes two that print alike): write "
        "'20 464'")
    with pytest.raises(MultipleErrors) as refused:
        Manifest.from_document(run, file="run.json")
    assert [str(e) for e in refused.value.errors] == [f"run.json:/spec/sourceNative/externalId: "
                                                      f"{error.message}"]


@pytest.mark.parametrize(("kind", "path"), [
    ("Workload", ("spec", "definition")),
    ("Workload", ("spec", "suite", "name")),
    ("BenchmarkProtocol", ("spec", "harness", "name")),
    ("ExecutionEnvironment", ("spec", "software", "libraries", "torch")),
    ("Implementation", ("spec", "project")),
    ("BenchmarkRun", ("spec", "sourceNative", "benchmark")),
])
def test_each_named_identifying_field_refuses_a_lookalike(kit: ManifestKit, kind, path):
    document = {"Workload": kit.workload, "BenchmarkProtocol": kit.protocol,
                "ExecutionEnvironment": lambda: kit.environment("NVIDIA B200"),
                "Implementation": kit.implementation,
                "BenchmarkRun": lambda: _run(kit)}[kind]()
    assert identifying_problems(document) == []
    where = document
    for part in path[:-1]:
        where = where.setdefault(part, {})
    where[path[-1]] = f"c{CYRILLIC_O}py"
    [error] = identifying_problems(document)
    assert error.pointer == "/" + "/".join(path)
    assert "holds U+043E CYRILLIC SMALL LETTER O at character 2" in error.message


def test_a_library_name_is_a_key_and_its_version_a_value(kit: ManifestKit):
    env = kit.environment("NVIDIA B200")
    env["spec"]["software"] = {"libraries": {f"t{CYRILLIC_O}rch": "2.5", "cuda": "12\u00a08"}}
    assert [(e.pointer, e.message[:8]) for e in identifying_problems(env)] == [
        ("/spec/software/libraries/cuda", "'12\\xa08"),
        (f"/spec/software/libraries/t{CYRILLIC_O}rch", "the key "),
    ]


@pytest.mark.parametrize(("value", "message"), [
    ("a\tb", "'a\\tb' holds U+0009 CHARACTER TABULATION at character 2, a control character "
             "(free text may hold line feeds, no other control): replace it by a space"),
    ("ok \u202eevil", "'ok \\u202eevil' holds U+202E RIGHT-TO-LEFT OVERRIDE at character 4, a "
                      "bidirectional control, which reorders the text shown around it: remove "
                      "it"),
    ("bell\x07", "'bell\\x07' holds U+0007 at character 5, a control character (free text may "
                 "hold line feeds, no other control): remove it"),
])
def test_prose_refuses_controls_and_bidi_controls(kit: ManifestKit, value, message):
    # review73 F8: a raw tab in a description reached the site's HTML
    impl = kit.implementation()
    impl["spec"]["description"] = value
    impl["metadata"]["title"] = value
    impl["metadata"]["labels"] = {value: "x"}
    assert [(e.pointer, e.message) for e in identifying_problems(impl)] == [
        (f"/metadata/labels/{value}", f"the key {message}"), ("/metadata/title", message),
        ("/spec/description", message)]


@pytest.mark.parametrize("value", [
    "Two lines.\nThe second.", "\u6771\u4eac\u30a8\u30ec\u30af\u30c8\u30ed\u30f3 and NVIDIA \u0412",
    "  spaced  ", "emoji \U0001f680 and \u00b5s", "\u05e9\u05dc\u05d5\u05dd ok"])
def test_prose_may_hold_lines_any_script_and_any_visible_character(kit: ManifestKit, value):
    impl = kit.implementation()
    impl["spec"]["description"] = value
    impl["spec"]["author"] = value
    assert identifying_problems(impl) == []


def test_source_code_is_not_text_checked(kit: ManifestKit):
    workload = kit.workload()
    workload["spec"]["reference"] = {"language": "python",
                                     "source": "def run(a):\n\treturn a\u200b\n"}
    assert identifying_problems(workload) == []


def _pair(doc: dict[str, Any]) -> tuple[str, bytes, bytes]:
    obj = {k: v for k, v in doc.items() if k != "metadata"}
    data = canonical.dumps(obj)
    return hashlib.sha256(data).hexdigest(), data, canonical.dumps(doc["metadata"])


def test_verify_fast_path_leaves_a_metadata_control_to_the_full_checks(kit: ManifestKit):
    impl = kit.implementation()
    impl["metadata"]["title"] = "KernelBench reference \u00b7 PyTorch"  # non-ASCII prose: ok
    assert check_clean_pair(*_pair(impl)) is not None
    for title in ("a\tb", "a\u2066b"):
        impl["metadata"]["title"] = title
        assert check_clean_pair(*_pair(impl)) is None
        digest, data, metadata = _pair(impl)
        [finding] = check_manifest_pair(f"store/objects/{digest}", "store/metadata/x.json",
                                        canonical.loads(data), canonical.loads(metadata))
        assert (finding.rule.id, finding.file, finding.pointer) == (
            "KI104", "store/metadata/x.json", "/title")


# -- metadata.name in words (F7) ----------------------------------------------------------

@pytest.mark.parametrize(("name", "advice"), [
    ("NVIDIA_B200 Run", "write 'nvidia-b200-run'"),
    ("-r\u00e9sum\u00e9-", "write 'resume'"),
    ("\u6771\u4eac", "choose a name of those characters"),
    ("Aux", "choose a name of those characters"),  # 'aux' is reserved on Windows
    ("", "choose a name of those characters"),
])
def test_a_refused_name_is_said_in_words_with_the_nearest_valid_one(kit: ManifestKit, name,
                                                                    advice):
    impl = kit.implementation()
    impl["metadata"]["name"] = name
    errors = [e for e in check_manifest(impl) if "is not a valid name" in e.message]
    assert [(e.pointer, e.message) for e in errors] == [
        ("/metadata/name", f"{name!r} is not a valid name: {NAME_RULE}; {advice}")]
    assert "does not match" not in str(check_manifest(impl))


@settings(max_examples=400, deadline=None)
@given(st.text(max_size=30))
def test_the_nearest_name_is_always_valid(text):
    fixed = nearest_name(text)
    if fixed is None:
        return
    impl = {"apiVersion": "kernelindex.dev/v1alpha1", "kind": "Implementation",
            "metadata": {"name": fixed}, "spec": {"project": "p"}}
    assert check_manifest(impl) == []
    assert fixed != text


# -- the verify fast path stays fast and exact ------------------------------------------

@settings(max_examples=600, deadline=None)
@given(st.text(st.characters(codec="utf-8") | st.sampled_from(
    "\t\n\x07\x7f\x85\u061c\u200e\u202e\u2067\u00b7\u2014\\\""), max_size=12))
def test_the_byte_screen_of_metadata_misses_no_refused_prose(value):
    from kistore.check._rules import _plain_prose
    from kistore.core.text_fields import prose_problem

    data = canonical.dumps({"name": "n", "title": value})
    if prose_problem(value) is not None:
        assert not _plain_prose(data), value
    if value.isascii() and value.isprintable() and "\\" not in value and '"' not in value:
        assert _plain_prose(data)


def test_the_bench_manifests_never_reach_the_text_rules(monkeypatch):
    # check_clean_pair skips KI104 for plain ASCII object and metadata bytes
    import kistore.check._rules as rules
    from bench.generate import manifests

    calls: list[object] = []
    monkeypatch.setattr(rules, "identifying_problems", lambda doc: calls.append(doc) or [])
    documents = list(manifests(40))
    assert len(documents) >= 40
    for document in documents:
        digest, data, metadata = _pair(document)
        assert rules.check_clean_pair(digest, data, metadata) is not None
    assert calls == []


# -- end to end: kistore add --------------------------------------------------------------

def test_add_takes_a_real_chinese_gpu_name_and_refuses_a_lookalike_metric_key(
        runner, store_path, tmp_path, kit: ManifestKit):
    # review73 F4 and F8 through the command people run: exit 0, then exit 1 with the file,
    # the JSON Pointer and the character, and nothing written
    from kistore.cli import main

    protocol, workload, impl = kit.protocol(), kit.workload(), kit.implementation()
    env = kit.environment("\u6469\u5c14\u7ebf\u7a0b MTT S80", name="env-mtt")
    source = tmp_path / "docs.jsonl"
    source.write_text("".join(json.dumps(d) + "\n" for d in (protocol, workload, impl, env)))
    added = runner.invoke(main, ["--store", str(store_path), "add", str(source)])
    assert added.exit_code == 0, added.output
    key = f"s{CYRILLIC_O}l_score"
    run = kit.run(protocol, env, impl, workload, latency=1000.0, native={"metrics": {key: 1}},
                  name="run-mtt")
    source.write_text(json.dumps(run))
    before = snapshot(store_path)
    refused = runner.invoke(main, ["--store", str(store_path), "add", str(source)])
    assert refused.exit_code == 1
    assert f"error: {source}:1:1:/spec/sourceNative/metrics/{key}: the key {key!r} holds U+043E " \
           "CYRILLIC SMALL LETTER O at character 2" in refused.stderr
    assert "Traceback" not in refused.output
    assert snapshot(store_path) == before
