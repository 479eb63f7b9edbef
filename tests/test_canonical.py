"""Canonical bytes: RFC 8785 known answers, the oracle property test, strict parsing."""

from __future__ import annotations

import json
import math

import pytest
import rfc8785
from hypothesis import given, settings
from hypothesis import strategies as st

from kistore import canonical
from kistore.errors import CanonicalFormError, ParseError

from .conftest import VECTORS

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
    assert str(caught.value) == "m.json:3:3:/a: duplicate object key 'a'; a key may appear once"


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
