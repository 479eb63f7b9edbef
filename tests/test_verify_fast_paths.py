"""verify's fast paths never say "fine" where the exact checks would report something.

``kistore.verify._compiled_canonical`` (orjson) is verify's first try at "these bytes are
strict, RFC 8785 canonical JSON": every answer other than None must agree with
:func:`kistore.canonical.is_canonical` and the independent ``rfc8785`` package (the random
documents and number texts shared with the stdlib fast path are in test_verify.py).
``check_clean_pair`` must never hide a finding, ``audit._pair_key`` must equal
``layout.digest_from_path``, and the plain date-time shortcut must change no verdict.
"""

from __future__ import annotations

import hashlib
import json

import orjson
import pytest
import rfc8785
from hypothesis import given, settings
from hypothesis import strategies as st

from kistore import canonical, verify
from kistore.digest import Digest
from kistore.model import REFERENCE_FIELDS
from tests.conftest import ROOT, store_file

OBJECT_PATH = "store/objects/sha256/00/" + "0" * 62 + ".json"


def assert_truly_canonical(raw: bytes, value: object) -> None:
    assert canonical.is_canonical(raw), raw
    assert value == canonical.loads(raw), raw
    assert rfc8785.dumps(value) == raw, raw


@settings(max_examples=2000, deadline=None)
@given(st.floats(allow_nan=False, allow_infinity=False)
       | st.floats(-1e-3, 1e-3) | st.floats(1e14, 1e22) | st.integers(-2**60, 2**60))
def test_orjson_number_text_is_rfc8785_unless_doubted(number):
    """orjson's own text for any number is accepted only where it is RFC 8785's text."""
    raw = orjson.dumps([number])
    fast = verify._compiled_canonical(raw)
    if fast is not None:
        assert_truly_canonical(raw, fast)
    if isinstance(number, float) and not number.is_integer() and not 1e-6 <= abs(number) < 1e-5:
        assert fast == [number], raw  # ordinary fractions do take the fast path


@pytest.mark.parametrize("raw", [
    b'{"a":1,"a":1}',                 # duplicate key (orjson keeps the last one)
    b'{"a":1,"a":2}',
    b'{"b":1,"a":2}',                 # keys out of order
    b'{"a": 1}',                      # whitespace
    b"[1.0]", b"[-0.0]", b"[0.0]",    # integral floats: RFC 8785 writes 1, 0
    b"[1e+16]", b"[1.5e+300]",        # RFC 8785 writes 10000000000000000, 1.5e+300 is fine
    b"[1.5e-6]", b"[1e-6]",           # RFC 8785 writes 0.0000015, 0.000001
    b"[1e-5]", b"[1E-7]",             # RFC 8785 writes 0.00001, 1e-7
    b"[-0]", b"[01]", b"[1.50]",
    b"[9007199254740992]", b"[-9007199254740992]",   # beyond 2**53 - 1
    b"[NaN]", b"[1e400]", b"[1e-400]",
    b'["\\ud800"]', b'["\\u00e9"]', b'["\\/"]',      # lone surrogate, needless escapes
    b"\xef\xbb\xbf{}",                # byte-order mark
    b'{"\xf0\x9f\x98\x80":1,"\xef\xbf\xbf":2}',      # UTF-16 key order differs
    b"[" * 65 + b"]" * 65,            # deeper than MAX_DEPTH
    b"1", b'"a"',                     # not an array or object: left to the other paths
    b'{"a":"\xff"}',                  # invalid UTF-8
])
def test_compiled_path_declines_what_is_not_provably_canonical(raw):
    assert verify._compiled_canonical(raw) is None


def test_compiled_path_accepts_ordinary_canonical_bytes(bundle):
    raw = canonical.dumps([0.15764724456512623, -0.0001234567890123456, 0.000012, 1e-7,
                           1.5e-7, 2**53 - 1, "\u2028\x7f\x1f\n", {"\uffff": 1, "a": None}])
    assert verify._compiled_canonical(raw) == canonical.loads(raw)
    for name in ("run", "protocol", "environment"):
        document = bundle[name]
        for part in ({k: document[k] for k in ("apiVersion", "kind", "spec")},
                     document["metadata"]):
            raw = canonical.dumps(part)
            assert verify._compiled_canonical(raw) == json.loads(raw), name


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


def test_another_orjson_number_layout_turns_the_compiled_path_off(monkeypatch):
    """An orjson release that wrote 1e-05 (not 0.00001) must not be trusted."""
    real = orjson.dumps

    def older(value, *args, **kwargs):
        return real(value, *args, **kwargs).replace(b"0.00001", b"1e-5")

    monkeypatch.setattr(orjson, "dumps", older)
    assert verify._orjson_writes_numbers_as_rfc8785() is False
    monkeypatch.setattr(orjson, "dumps", real)
    assert verify._orjson_writes_numbers_as_rfc8785() is True


@pytest.mark.parametrize("doubt", verify._ORJSON_DOUBTS)
def test_every_doubtful_number_text_is_searched_for(doubt):
    """The unrolled searches in _compiled_canonical cover every entry of _ORJSON_DOUBTS."""
    fine = b'{"a":["x",1.5,2e-7]}'
    assert verify._compiled_canonical(fine) == {"a": ["x", 1.5, 2e-7]}
    inside_a_string = b'{"a":["x' + doubt + b'",1.5,2e-7]}'
    assert verify._compiled_canonical(inside_a_string) is None


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
            tuple(entry.references.get(f) for f in REFERENCE_FIELDS))


@pytest.mark.parametrize("name", ["run", "protocol", "environment"])
def test_clean_pair_of_published_manifests_is_what_the_full_checks_say(bundle, name):
    digest_hex, object_data, metadata_data = _files(bundle[name])
    findings, entry = _full_verdict(digest_hex, object_data, metadata_data)
    assert findings == []
    clean = verify.check_clean_pair(digest_hex, object_data, metadata_data)
    assert clean == _as_clean(entry)
    assert clean[0] == bundle[name]["kind"] and clean[1] == bundle[name]["metadata"]["name"]
    if name == "run":
        assert clean[2] == tuple(bundle["run"]["spec"][f] for f in REFERENCE_FIELDS)


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
    document = json.loads((ROOT.parent / "shared/examples/"
                           "sol-execbench-submission-20464.bundle.json").read_text())[bundle_kind]
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
        assert clean == _as_clean(entry)


# -- audit._pair_key: layout.digest_from_path for every path, faster ---------------------

_HEX = "0123456789abcdef"
_path_parts = st.lists(st.sampled_from(
    ["store/", "objects/", "metadata/", "sha256/", "sha2567/", "/", ".json", "\n", "G", "A",
     "\u0663", "x", "ab/", "0123456789abcdef" * 3 + "0123456789abcd", "ef", "e"]), max_size=8)


@settings(max_examples=500, deadline=None)
@given(_path_parts, st.text(_HEX, min_size=64, max_size=64),
       st.sampled_from(["objects", "metadata"]), st.booleans())
def test_pair_key_agrees_with_layout_digest_from_path(parts, hex_, base, mangle):
    from kistore import audit, layout

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

    from kistore import schema

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
    from kistore import schema

    assert schema._is_date_time(text) is valid


_reference_values = st.none() | st.integers() | st.sampled_from(
    ["sha256:" + "ab" * 32, "sha256:" + "AB" * 32, "sha256:" + "ab" * 31, "",
     "sha256:" + "ab" * 32 + "sha256:" + "cd" * 32, "sha256:" + "ab" * 32 + "\n",
     "sha256:" + "ab" * 32 + "\nsha256:" + "cd" * 32]) | st.text(
    max_size=80)


@settings(max_examples=800, deadline=None)
@given(st.fixed_dictionaries({}, optional={f: _reference_values for f in REFERENCE_FIELDS}))
def test_run_references_are_the_fields_that_are_digests(spec):
    from kistore.digest import is_digest

    expected = tuple(spec.get(f) if is_digest(spec.get(f)) else None for f in REFERENCE_FIELDS)
    assert verify._run_references(spec) == expected


def test_run_references_of_a_run_with_all_four(bundle):
    spec = bundle["run"]["spec"]
    assert verify._run_references(spec) == tuple(spec[f] for f in REFERENCE_FIELDS)
    # two digests joined in one field, nothing in the next: the lengths rule it out
    fields = list(REFERENCE_FIELDS)
    split = dict(spec, **{fields[0]: spec[fields[0]] + spec[fields[1]], fields[1]: ""})
    assert verify._run_references(split) == (None, None, spec[fields[2]], spec[fields[3]])
    # the same with the joining newline inside the first field: still not two digests
    split = dict(spec, **{fields[0]: spec[fields[0]] + "\n" + spec[fields[1]], fields[1]: ""})
    assert verify._run_references(split) == (None, None, spec[fields[2]], spec[fields[3]])
