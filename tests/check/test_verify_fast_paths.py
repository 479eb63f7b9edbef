"""verify's fast paths never say "fine" where the exact checks would report something.

The compiled (orjson) canonical check itself is tested in test_canonical_fast.py.
``check_clean_pair`` must never hide a finding, ``audit._pair_key`` must equal
``layout.digest_from_path``, and the plain date-time shortcut must change no verdict.
"""

from __future__ import annotations

import hashlib
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kistore.check import _rules as verify
from kistore.core import canonical
from kistore.core.claims import stored_claim
from kistore.core.digest import Digest
from kistore.core.model import REFERENCE_FIELDS
from kistore.core.observed import run_observed
from tests.conftest import BUNDLE, store_file

OBJECT_PATH = "store/objects/sha256/00/" + "0" * 62 + ".json"


def test_non_canonical_number_forms_still_fail_verification():
    """Bytes the compiled path declines reach the exact path, which reports KI103."""
    for form, canonical_form in ((b"1.0", b"1"), (b"1e+15", b"1000000000000000"),
                                 (b"1.5e-6", b"0.0000015"), (b"1E-7", b"1e-7")):
        raw = b'{"apiVersion":"v","kind":"Workload","spec":{"x":' + form + b"}}"
        findings = verify.check_object_bytes(OBJECT_PATH, raw).findings
        assert "KI103" in [f.rule.id for f in findings], form
        fixed = raw.replace(form, canonical_form)
        assert "KI103" not in [f.rule.id for f in
                               verify.check_object_bytes(OBJECT_PATH, fixed).findings]


def test_integral_float_beyond_2_53_is_a_parse_error_not_accepted():
    raw = b'{"apiVersion":"v","kind":"Workload","spec":{"x":1e+16}}'
    ids = [f.rule.id for f in verify.check_object_bytes(OBJECT_PATH, raw).findings]
    assert ids == ["KI101", "KI102"]


def test_duplicate_key_sent_to_the_exact_path_is_a_parse_error():
    raw = b'{"apiVersion":"v","kind":"Workload","kind":"Workload","spec":{}}'
    [finding] = [f for f in verify.check_object_bytes(OBJECT_PATH, raw).findings
                 if f.rule.id != "KI101"]
    assert finding.rule.id == "KI102"
    assert finding.pointer == "/kind"
    assert "duplicate object key 'kind'" in finding.message


# -- check_clean_pair: the whole per-manifest verdict in one fast call ------------------

def _files(document: dict) -> tuple[str, bytes, bytes]:
    object_data = canonical.dumps({k: document[k] for k in ("apiVersion", "kind", "spec")})
    return (hashlib.sha256(object_data).hexdigest(), object_data,
            canonical.dumps(document["metadata"]))


def _full_verdict(digest_hex: str, object_data: bytes, metadata_data: bytes):
    """What the exact checks say: (findings, entry) as kistore.audit.check_unit builds them."""
    object_path = store_file("sha256:" + digest_hex)
    metadata_path = store_file("sha256:" + digest_hex, "metadata")
    obj = verify.check_object_bytes(object_path, object_data)
    meta = verify.check_metadata_bytes(metadata_path, metadata_data)
    findings = obj.findings + meta.findings
    if obj.value is not None:
        findings += verify.check_manifest_pair(object_path, metadata_path, obj.value,
                                               meta.value)
    entry = verify.entry_from(Digest(digest_hex), obj.value, meta.value, has_object=True,
                              has_metadata=True)
    return findings, entry


def _as_clean(entry) -> tuple:
    return (entry.kind, entry.name,
            tuple(entry.references.get(f) for f in REFERENCE_FIELDS), entry.statistic,
            entry.board)


def _as_clean_claim(entry, object_data: bytes, digest_hex: str) -> tuple:
    """check_clean_pair's answer: the entry's, then the claim stored_claim reads (KI232),
    then the object's spec as parsed (KI234's judge in verify reads it)."""
    return (*_as_clean(entry), stored_claim(object_data, digest_hex),
            json.loads(object_data)["spec"])


@pytest.mark.parametrize("name", ["run", "protocol", "environment"])
def test_clean_pair_of_published_manifests_is_what_the_full_checks_say(bundle, name):
    digest_hex, object_data, metadata_data = _files(bundle[name])
    findings, entry = _full_verdict(digest_hex, object_data, metadata_data)
    assert findings == []
    clean = verify.check_clean_pair(digest_hex, object_data, metadata_data)
    assert clean == _as_clean_claim(entry, object_data, digest_hex)
    assert clean.kind == bundle[name]["kind"] and clean.name == bundle[name]["metadata"]["name"]
    assert clean.spec == bundle[name]["spec"]  # by name, not a 7-tuple's place (review)
    if name == "run":
        assert clean.references == tuple(bundle["run"]["spec"][f] for f in REFERENCE_FIELDS)


def test_clean_pair_declines_every_kind_of_damage(bundle):
    digest_hex, object_data, metadata_data = _files(bundle["run"])
    run_object = json.loads(object_data)
    bad_schema = dict(run_object, spec=dict(run_object["spec"], status="fine"))
    bad_schema_data = canonical.dumps(bad_schema)
    cases = {
        "tampered object (KI101)": (digest_hex, object_data.replace(b"passed", b"failed"),
                                    metadata_data),
        "other name (KI101)": ("0" * 64, object_data, metadata_data),
        "spaced metadata (KI103)": (digest_hex, object_data, metadata_data + b" "),
        "CR in metadata (KI105)": (digest_hex, object_data,
                                   metadata_data.replace(b'","', b'",\r"', 1)),
        "duplicate key in metadata (KI102)": (
            digest_hex, object_data, b'{"name":"a",' + metadata_data[1:]),
        "metadata not an object (KI104)": (digest_hex, object_data, b"[]"),
        "schema-invalid object (KI104)": (hashlib.sha256(bad_schema_data).hexdigest(),
                                          bad_schema_data, metadata_data),
        "metadata key in the object (KI104)": (
            *(lambda d: (hashlib.sha256(d).hexdigest(), d))(
                canonical.dumps(dict(run_object, metadata={"name": "x"}))), metadata_data),
    }
    for what, (hex_, obj, meta) in cases.items():
        findings, _ = _full_verdict(hex_, obj, meta)
        assert findings, what  # the exact checks do find something
        assert verify.check_clean_pair(hex_, obj, meta) is None, what


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(["run", "protocol", "environment"]), st.booleans(), st.data())
def test_clean_pair_never_hides_a_finding(bundle_kind, in_metadata, data):
    """Any byte edit either makes check_clean_pair decline or leaves nothing to report."""
    document = json.loads(BUNDLE.read_text())[bundle_kind]
    digest_hex, object_data, metadata_data = _files(document)
    target = metadata_data if in_metadata else object_data
    i = data.draw(st.integers(0, len(target) - 1))
    edit = data.draw(st.sampled_from([b"", b" ", b"1", b"0", b'"', b"\xff", b"\r", b"a",
                                      b".0", b"e+1", b"-"]))
    target = target[:i] + edit + target[i + 1:]
    if in_metadata:
        metadata_data = target
    else:
        object_data = target
        if data.draw(st.booleans()):  # also rename it, so only the other checks can object
            digest_hex = hashlib.sha256(object_data).hexdigest()
    clean = verify.check_clean_pair(digest_hex, object_data, metadata_data)
    if clean is not None:
        findings, entry = _full_verdict(digest_hex, object_data, metadata_data)
        assert findings == []
        assert clean == _as_clean_claim(entry, object_data, digest_hex)


# -- audit._pair_key: layout.digest_from_path for every path, faster ---------------------

_HEX = "0123456789abcdef"
_path_parts = st.lists(st.sampled_from(
    ["store/", "objects/", "metadata/", "sha256/", "sha2567/", "/", ".json", "\n", "G", "A",
     "\u0663", "x", "ab/", "0123456789abcdef" * 3 + "0123456789abcd", "ef", "e"]), max_size=8)


@settings(max_examples=500, deadline=None)
@given(_path_parts, st.text(_HEX, min_size=64, max_size=64),
       st.sampled_from(["objects", "metadata"]), st.booleans())
def test_pair_key_agrees_with_layout_digest_from_path(parts, hex_, base, mangle):
    from kistore.check import audit
    from kistore.core import layout

    path = f"store/{base}/sha256/{hex_[:2]}/{hex_[2:]}.json"
    if mangle:
        path = "".join(parts) if parts else path
    named = layout.digest_from_path(path)
    expected = None if named is None else (named.hex, 0 if path.startswith(
        layout.OBJECTS_DIR + "/") else 1)
    assert audit._pair_key(path) == expected, path


# -- schema._is_date_time: the plain-form shortcut changes no verdict -------------------

@settings(max_examples=1500, deadline=None)
@given(st.from_regex(r"\A[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt ][0-9]{2}:[0-9]{2}:[0-9]{2}"
                     r"(\.[0-9]{0,12})?([Zz]|[+-][0-9]{2}:[0-9]{2})?\n?\Z")
       | st.text("0123456789-:.TZtz+\n\u0663", max_size=32))
def test_plain_date_time_shortcut_is_a_subset_of_rfc3339_validator(text):
    import rfc3339_validator

    from kistore.core import schema

    if schema._PLAIN_DATE_TIME.fullmatch(text):
        assert rfc3339_validator.validate_rfc3339(text) and "\n" not in text, text


@pytest.mark.parametrize(("text", "valid"), [
    ("2026-01-22T20:58:57Z", True), ("2026-07-10T06:41:58.611Z", True),
    ("2024-02-29T00:00:00Z", True), ("2023-02-29T00:00:00Z", False),   # leap years
    ("2026-04-31T00:00:00Z", False), ("0000-01-01T00:00:00Z", False),
    ("2026-01-22t20:58:57z", False), ("2026-01-22T20:58:57Z\n", False),
    ("2026-01-22T20:58:57+05:30", True), ("2026-01-22T24:00:00Z", False),
])
def test_date_time_verdicts(text, valid):
    from kistore.core import schema

    assert schema._is_date_time(text) is valid


_reference_values = st.none() | st.integers(-(2**53 - 1), 2**53 - 1) | st.sampled_from(
    ["sha256:" + "ab" * 32, "sha256:" + "AB" * 32, "sha256:" + "ab" * 31, "",
     "sha256:" + "ab" * 32 + "sha256:" + "cd" * 32, "sha256:" + "ab" * 32 + "\n",
     "sha256:" + "ab" * 32 + "\nsha256:" + "cd" * 32]) | st.text(
    max_size=80)


@settings(max_examples=800, deadline=None)
@given(st.fixed_dictionaries({}, optional={f: _reference_values for f in REFERENCE_FIELDS}))
def test_a_clean_run_references_its_four_fields_which_are_digests(spec):
    """check_clean_pair takes a valid run's references as they are: its schema requires
    all four, each a digest; any other value (missing, a trailing newline, upper case)
    leaves the run to the exact checks."""
    from kistore.core.digest import is_digest

    document = json.loads(BUNDLE.read_text())["run"]
    document["spec"] = {k: v for k, v in document["spec"].items()
                        if k not in REFERENCE_FIELDS} | spec
    digest_hex, object_data, metadata_data = _files(document)
    clean = verify.check_clean_pair(digest_hex, object_data, metadata_data)
    if all(is_digest(spec.get(f)) for f in REFERENCE_FIELDS):
        assert clean is not None and clean[2] == tuple(spec[f] for f in REFERENCE_FIELDS)
    else:
        assert clean is None
        findings, entry = _full_verdict(digest_hex, object_data, metadata_data)
        assert "KI104" in [f.rule.id for f in findings]
        assert tuple(entry.references.get(f) for f in REFERENCE_FIELDS) == tuple(
            spec.get(f) if is_digest(spec.get(f)) else None for f in REFERENCE_FIELDS)


def test_non_ascii_identifying_text_is_still_held_to_nfc(bundle):
    """The NFC check is skipped only for ASCII bytes: a decomposed accent is refused."""
    document = json.loads(json.dumps(bundle["environment"]))
    for product, clean in (("GPU Se\u0301rie", False), ("GPU S\u00e9rie", True),
                           ("GPU Serie", True)):
        document["spec"]["hardware"]["product"] = product
        digest_hex, object_data, metadata_data = _files(document)
        findings, _ = _full_verdict(digest_hex, object_data, metadata_data)
        assert (findings == []) is clean, (product, findings)
        said = verify.check_clean_pair(digest_hex, object_data, metadata_data)
        assert (said is not None) is clean, product


# -- audit._check_chunk: reads batched apart from checks, same answers --------------------

@pytest.mark.parametrize("read_ahead", [1, 600, 4 << 20])
def test_check_chunk_answers_as_each_unit_alone(published, monkeypatch, read_ahead):
    """Whatever is read ahead (one unit, a few, the whole chunk), each unit's result is what
    check_unit and _names_confirmed say of it alone, damaged files included."""
    from kistore.check import audit
    from kistore.core import layout
    from kistore.store import Store

    objects = sorted((published / layout.OBJECTS_DIR).rglob("*.json"))
    objects[2].write_bytes(objects[2].read_bytes() + b" ")  # KI101 alone (fresh98 MED 4)
    meta = published / layout.METADATA_DIR / objects[1].relative_to(
        published / layout.OBJECTS_DIR)
    meta.write_bytes(meta.read_bytes().replace(b'"name":"', b'"name":"X', 1))  # KI104
    snap = audit.snapshot(Store(published))
    units: list = []
    for _ in audit._unit_chunks(snap, lambda p: True, [], units, everything=True, deferred=[]):
        pass
    assert len(units) == 3
    monkeypatch.setattr(audit, "READ_AHEAD", read_ahead)
    expected = []
    for unit in units:
        findings, entry = audit.check_unit(snap, unit)
        confirmed = audit._names_confirmed(snap, unit[0], entry.kind, entry.name) \
            if unit[1] is not None and unit[2] is not None else None
        object_data = (published / unit[1]).read_bytes()
        expected.append((findings or None, entry.kind, entry.name,
                         tuple(entry.references.get(f) for f in REFERENCE_FIELDS), confirmed,
                         entry.statistic,  # edited bytes (kind None) state no time
                         None if entry.kind is None else run_observed(object_data),
                         stored_claim(object_data, unit[0]), entry.board, None, entry.latency))
    got = audit._check_chunk(snap, units)
    assert got == expected
    assert sum(r[0] is not None for r in got) == 2  # the two damaged manifests
    runs = [r[6] for r in got if r[1] == "BenchmarkRun"]  # KI227's time, as read
    assert runs and all(isinstance(t, int) and not isinstance(t, bool) for t in runs)


class _MemoryView:
    """A view of files held in memory (enough of kistore.store.View for _check_chunk)."""

    def __init__(self, files: dict[str, bytes]) -> None:
        self.files = files

    def read(self, path: str, limit: int | None = None) -> bytes | None:
        return self.files.get(path)

    def holds(self, path: str, data: bytes, limit: int | None = None) -> bool:
        return self.files.get(path) == data


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(["run", "protocol", "environment"]), st.booleans(), st.data())
def test_tampered_or_non_canonical_bytes_fail_in_a_chunk(bundle_kind, in_metadata, data):
    """A byte edit of a stored file, checked by _check_chunk beside clean manifests: an
    object whose bytes changed always fails (KI101: its digest is its name), and every
    result is the exact checks' (check_unit) of that unit alone."""
    from kistore.check import audit
    from kistore.core import layout
    from kistore.index.catalog import parse_manifest
    from kistore.store import Files

    documents = json.loads(BUNDLE.read_text())
    files: dict[str, bytes] = {}
    for document in documents.values():
        digest_hex, object_data, metadata_data = _files(document)
        digest = Digest(digest_hex)
        files[layout.object_path(digest)] = object_data
        files[layout.metadata_path(digest)] = metadata_data
        files[layout.name_path(document["kind"], document["metadata"]["name"])] = \
            layout.name_record(digest)
    target_hex = _files(documents[bundle_kind])[0]
    path = (layout.metadata_path if in_metadata else layout.object_path)(Digest(target_hex))
    before = files[path]
    i = data.draw(st.integers(0, len(before) - 1))
    edit = data.draw(st.sampled_from([b"", b" ", b"1", b"0", b'"', b"\xff", b"\r", b"a",
                                      b".0", b"e+1", b"-", b"\\u0041", b"A"]))
    files[path] = before[:i] + edit + before[i + 1:]
    snap = Files(_MemoryView(files), dict.fromkeys(files, 0o100644))  # type: ignore[arg-type]
    units: list = []
    for _ in audit._unit_chunks(snap, lambda p: True, [], units, everything=True, deferred=[]):
        pass
    keep = frozenset({"status", "timing"})
    results = dict(zip((u[0] for u in units), audit._check_chunk(snap, units, None, keep),
                       strict=True))
    for unit in units:
        findings, entry = audit.check_unit(snap, unit)
        assert results[unit[0]][:4] == (findings or None, entry.kind, entry.name, tuple(
            entry.references.get(f) for f in REFERENCE_FIELDS))
        # KI234's judge in verify takes what a catalog loads, and nothing else: a tampered
        # or non-canonical object, a metadata file the schema refuses, are left out
        pair = (files[unit[1]], files[unit[2]]) if unit[1] and unit[2] else None
        loaded = parse_manifest(Digest(unit[0]), *pair, validate=True) if pair else None
        taken = results[unit[0]][9]
        assert (taken is None) == (loaded is None), unit
        if taken is not None and loaded is not None:
            assert taken[:2] == loaded[:2]
            spec = loaded[2]
            if loaded[0] == "BenchmarkRun" and verify.check_clean_pair(unit[0], *pair):
                spec = {k: v for k, v in spec.items() if k in keep}  # the fast path's cut
            assert taken[2] == spec
    if not in_metadata and files[path] != before:
        assert "KI101" in [f.rule.id for f in results[target_hex][0] or []]


def test_a_units_result_crosses_processes_with_its_fields_named():
    # review: audit's positional 10-tuple (and _rules.Clean's 7) read as result[6], r[4]
    import pickle

    from kistore.check.audit import _Compact

    result = _Compact(None, "BenchmarkRun", "r", ("sha256:" + "a" * 64, None, None, None),
                      "store/names/BenchmarkRun/r.json", "mean", 1767225600, None, None, None)
    back = pickle.loads(pickle.dumps(result))
    assert (type(back), back) == (_Compact, result)
    assert (back.kind, back.names_path, back.observed) == (
        "BenchmarkRun", "store/names/BenchmarkRun/r.json", 1767225600)
    assert back == tuple(back)  # still a plain tuple where one is taken apart
