"""Canonical bytes: RFC 8785 known answers, the oracle property test, strict parsing."""

from __future__ import annotations

import json
import math

import pytest
import rfc8785
from hypothesis import given, settings
from hypothesis import strategies as st

from kistore.core import canonical
from kistore.core.errors import CanonicalFormError, ParseError

from ..conftest import VECTORS

CASES = json.loads((VECTORS / "rfc8785-cases.json").read_text("utf-8"))["cases"]
BAD = json.loads((VECTORS / "bad-inputs.json").read_text())["cases"]


@pytest.mark.parametrize("case", CASES, ids=[c["input"][:30] for c in CASES])
def test_known_answers(case):
    value = canonical.loads(case["input"].encode("utf-8"))
    assert canonical.dumps(value) == case["canonical"].encode("utf-8")


@pytest.mark.parametrize("name", sorted(BAD))
def test_bad_input_is_rejected_with_pointer(name):
    data = (VECTORS / "bad" / name).read_bytes()
    with pytest.raises(ParseError) as caught:
        canonical.loads(data, file=name)
    error = caught.value
    assert error.file == name
    assert BAD[name]["message_contains"] in error.message
    if BAD[name]["pointer"] is not None:
        assert error.pointer == BAD[name]["pointer"]


def test_error_names_line_and_column():
    with pytest.raises(ParseError) as caught:
        canonical.loads(b'{\n  "a": 1,\n  "a": 2\n}', file="m.json")
    assert str(caught.value) == ("m.json:3:3:/a: duplicate object key 'a'; a key may appear "
                                 "once: delete one of them")


def test_integral_floats_become_integers():
    assert canonical.dumps({"a": 1.0, "b": -0.0, "c": 2.5}) == b'{"a":1,"b":0,"c":2.5}'


def test_dumps_rejects_what_has_no_canonical_form():
    for value, pointer in [({"x": math.nan}, "/x"), ({"x": [2**53]}, "/x/0"),
                           ({"x": 1e16}, "/x"), ({1: 2}, ""), ({"x": {1, 2}}, "/x"),
                           ({"s": "\ud800"}, "/s")]:
        with pytest.raises(CanonicalFormError) as caught:
            canonical.dumps(value)
        assert caught.value.pointer == pointer, value


def test_is_canonical():
    assert canonical.is_canonical(b'{"a":1}')
    assert not canonical.is_canonical(b'{"a": 1}')
    assert not canonical.is_canonical(b'{"a":1.0}')
    assert not canonical.is_canonical(b"not json")


# -- property tests against an independent RFC 8785 implementation (the `rfc8785` package)

safe_ints = st.integers(min_value=-(2**53 - 1), max_value=2**53 - 1)
finite_floats = st.floats(allow_nan=False, allow_infinity=False).filter(
    lambda f: not (f.is_integer() and abs(f) > 2**53 - 1)
)
text = st.text(st.characters(exclude_categories=["Cs"]), max_size=8)
json_values = st.recursive(
    st.none() | st.booleans() | safe_ints | finite_floats | text,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(text, children, max_size=4),
    max_leaves=20,
)


def _oracle(value):
    """rfc8785 writes integral floats like 1.0 as '1', as we do after normalising."""
    return rfc8785.dumps(value)


@settings(max_examples=400, deadline=None)
@given(json_values)
def test_dumps_equals_rfc8785_oracle(value):
    assert canonical.dumps(value) == _oracle(value)


@settings(max_examples=300, deadline=None)
@given(finite_floats)
def test_numbers_equal_es6_formatting(number):
    assert canonical.dumps(number) == _oracle(number)


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.text(st.characters(exclude_categories=["Cs"]), max_size=3),
                       safe_ints, max_size=6))
def test_key_order_is_utf16(value):
    assert canonical.dumps(value) == _oracle(value)


@settings(max_examples=300, deadline=None)
@given(json_values)
def test_parse_of_canonical_bytes_round_trips(value):
    data = canonical.dumps(value)
    assert canonical.dumps(canonical.loads(data)) == data
    assert canonical.is_canonical(data)


@settings(max_examples=200, deadline=None)
@given(json_values)
def test_loads_accepts_what_json_accepts_and_agrees(value):
    data = json.dumps(value, ensure_ascii=False, indent=1).encode("utf-8")
    assert canonical.dumps(canonical.loads(data)) == canonical.dumps(json.loads(data))


@pytest.mark.parametrize("depth", [canonical.MAX_DEPTH, canonical.MAX_DEPTH + 1])
def test_nesting_past_max_depth_is_rejected_and_at_it_accepted(depth):
    text = ("[" * (depth - 1) + '{"a":1}' + "]" * (depth - 1)).encode()
    if depth <= canonical.MAX_DEPTH:
        assert canonical.loads(text)
    else:
        with pytest.raises(ParseError):
            canonical.loads(text)


def test_many_shallow_containers_are_not_too_deep():
    """The bracket count only decides whether the depth is walked, never the answer."""
    text = json.dumps({"xs": [[i] for i in range(200)], "s": "[[[[" * 50}).encode()
    assert canonical.loads(text)["xs"][199] == [199]


@pytest.mark.parametrize("digits", [18, 4301, 5000])
def test_an_integer_of_thousands_of_digits_is_a_parse_error_not_a_crash(digits):
    # A new-user test: int() refuses 4,300+ digits with a ValueError, which escaped as a
    # traceback from add, verify, check and ls.
    text = b'{"v":' + b"9" * digits + b"}"
    with pytest.raises(ParseError, match=r"outside \+/-\(2\*\*53 - 1\)") as caught:
        canonical.loads(text)
    assert caught.value.pointer == "/v"


# Each parse error says what was expected and what to do, at FILE:LINE:COL:/pointer.
PARSE_ERRORS = [
    (b'{"a": 1,}', "m.json:1:9: expected a string object key: remove the trailing comma "
     "before '}'"),
    (b'[1,]', "m.json:1:4:/1: unexpected character ']'; expected a value: remove the trailing "
     "comma before it"),
    (b"{'a': 1}", "m.json:1:2: expected a string object key: write the key in double quotes"),
    (b'{"a" 1}', 'm.json:1:6:/a: expected \':\' after object key; write "key": value'),
    (b'{"a": 1 "b": 2}', "m.json:1:9: expected ',' or '}' in object: add the missing comma "
     "before this, or close with '}'"),
    (b'[1 2]', "m.json:1:4: expected ',' or ']' in array: add the missing comma before this, "
     "or close with ']'"),
    (b'{"a": 1', "m.json:1:8: expected ',' or '}' in object: the text is cut off, complete "
     "it or close with '}'"),
    (b'{"a": [', "m.json:1:8:/a/0: unexpected end of input; expected a value: the text is "
     "cut off here, complete it"),
    (b'{"a": tru}', "m.json:1:7:/a: unexpected character 't'; expected a value: a value is "
     "an object, array, string in double quotes, number, true, false or null"),
    (b'{"a": "x', "m.json:1:7:/a: unterminated string; close it with '\"'"),
    (b'{"a": "\t"}', "m.json:1:8:/a: unescaped control character U+0009 in string; write it "
     "as \\t"),
    (b'{"a": "\x01"}', "m.json:1:8:/a: unescaped control character U+0001 in string; write "
     "it as \\u0001"),
    (b'{"a": "\\q"}', "m.json:1:8:/a: invalid escape '\\q' in string; the escapes are \\\" "
     "\\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX: write a backslash as \\\\"),
    (b'{"a": "\\u12"}', "m.json:1:10:/a: invalid \\u escape; expected 4 hex digits, as in "
     "\\u00e9"),
    (b'{"a": "\\ude00"}', "m.json:1:8:/a: lone low surrogate \\ude00 in string; a character "
     "beyond U+FFFF is escaped as a high then a low surrogate (\\ud83d\\ude00), or written "
     "as itself"),
    (b'{"a": 07}', "m.json:1:7:/a: invalid number (no digits, or a leading zero); write 7 "
     "not 07, 0.5 not .5, and an id with leading zeros as a string"),
    (b'{"a": 1.}', "m.json:1:7:/a: invalid number: digits expected after '.'; write 1.0 or 1, "
     "not 1."),
    (b'{"a": 1e}', "m.json:1:7:/a: invalid number: digits expected in exponent; write 1e5, "
     "not 1e"),
    (b'{"a": [1, ]}', "m.json:1:11:/a/1: unexpected character ']'; expected a value: remove "
     "the trailing comma before it"),
    (b'{"kind": }', "m.json:1:10:/kind: unexpected character '}'; expected a value: a key "
     "needs a value after its colon (null if there is none)"),
    (b"  \n", "m.json: empty input; expected one JSON value: give a manifest (a JSON object)"),
    (b'{"a": 1} {}', "m.json:1:10: extra data after the JSON value; a JSON text holds one "
     "value: remove what follows it"),
    (b"[" * 65 + b"]" * 65, "m.json:1:65:" + "/0" * 64 + ": nesting deeper than 64 levels; "
     "flatten the document to at most 64 levels"),
]


INVALID_UTF8 = [
    # Latin-1 "é" inside a value: line, column, byte offset and the value's pointer
    ('{"metadata": {"name": "caf\xe9"}}'.encode("latin-1"),
     "m.json:1:27:/metadata/name: invalid UTF-8 byte 0xe9 at byte offset 26; the file is not "
     "UTF-8 (Latin-1 or Windows-1252?): re-encode it as UTF-8, e.g. `iconv -f LATIN1 -t "
     "UTF-8`"),
    (b'{"a": 1,\n "b": [1, \xff]}', "m.json:2:11:/b/1: invalid UTF-8 byte 0xff at byte "
     "offset 19; the file is not UTF-8 (Latin-1 or Windows-1252?): re-encode it as UTF-8, "
     "e.g. `iconv -f LATIN1 -t UTF-8`"),
    ('{"a": 1}'.encode("utf-16"), "m.json:1:1: invalid UTF-8 byte 0xff at byte offset 0; "
     "the file is UTF-16 (it starts with a UTF-16 byte-order mark): save it as UTF-8"),
    # reviewer r83: without the mark, "expected a string object key" at 1:2
    ('{"a": 1}'.encode("utf-16-le"), "m.json:1:1: the file is UTF-16 (little-endian, without "
     "a byte-order mark: every other byte is 0): save it as UTF-8, e.g. `iconv -f UTF-16LE "
     "-t UTF-8`"),
    ('{"a": 1}'.encode("utf-16-be"), "m.json:1:1: the file is UTF-16 (big-endian, without "
     "a byte-order mark: every other byte is 0): save it as UTF-8, e.g. `iconv -f UTF-16BE "
     "-t UTF-8`"),
]


@given(st.dictionaries(st.text(max_size=8), st.integers() | st.text(max_size=8), max_size=4),
       st.sampled_from([("utf-16-le", "little"), ("utf-16-be", "big")]))
def test_any_json_text_saved_as_utf16_without_a_mark_is_named_utf16(value, encoding):
    codec, order = encoding
    with pytest.raises(ParseError) as caught:
        canonical.loads(json.dumps(value).encode(codec), file="m.json")
    assert f"the file is UTF-16 ({order}-endian, without a byte-order mark" in str(caught.value)


def test_a_nul_byte_that_is_not_utf16_is_reported_where_it_is():
    with pytest.raises(ParseError) as caught:
        canonical.loads(b'{"a": "\x00"}', file="m.json")
    assert "UTF-16" not in str(caught.value) and str(caught.value).startswith("m.json:1:8")


@pytest.mark.parametrize(("data", "expected"), PARSE_ERRORS + INVALID_UTF8)
def test_each_parse_error_says_where_and_what_to_do(data, expected):
    """Several errors named no fix; invalid UTF-8 named no pointer, and no fix for UTF-16."""
    with pytest.raises(ParseError) as caught:
        canonical.loads(data, file="m.json")
    assert str(caught.value) == expected


@pytest.mark.parametrize(("file", "expected"), [
    ("store/metadata/sha256/38/" + "a" * 62 + ".json",
     "empty file; expected one JSON value: the manifest's metadata (a JSON object holding "
     'at least its "name")'),
    ("store/objects/sha256/38/" + "a" * 62 + ".json",
     "empty file; expected one JSON value: the manifest's object (a JSON object of "
     "apiVersion, kind and spec)"),
    ("run.json", "empty input; expected one JSON value: give a manifest (a JSON object)"),
])
def test_an_empty_stored_file_is_called_what_it_is_not_a_manifest(file, expected):
    # break96 L1: an emptied metadata file was told "give a manifest (a JSON object)"
    for data in (b"", b" \n"):
        with pytest.raises(ParseError) as caught:
            canonical.loads(data, file=file)
        assert caught.value.format() == f"{file}: {expected}"
