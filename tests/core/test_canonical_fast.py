"""The compiled (orjson) fast path never answers where the exact path would answer otherwise.

``kistore.canonical_fast.loads_if_canonical`` is the first try of ``canonical.loads`` and of
verify's "these bytes are strict, RFC 8785 canonical JSON"; ``canonical_fast.dumps`` is the
first try of ``canonical.dumps``. Every answer other than None must agree with the exact
path and with the independent ``rfc8785`` package (the random documents and number texts
shared with verify's stdlib fast path are in test_verify.py).
"""

from __future__ import annotations

import dataclasses
import datetime
import json

import orjson
import pytest
import rfc8785
from hypothesis import given, settings
from hypothesis import strategies as st

from kistore.core import canonical, canonical_fast
from kistore.core.errors import CanonicalFormError

from .test_canonical import json_values


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
    fast = canonical_fast.loads_if_canonical(raw)
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
    assert canonical_fast._loads_if_orjson_canonical(raw) is None
    if raw in (b"1", b'"a"'):  # canonical scalars: the standard library's proof reads them
        assert canonical_fast.loads_if_canonical(raw) == json.loads(raw)
    else:  # and declines the rest too
        assert canonical_fast.loads_if_canonical(raw) is None


def test_compiled_path_accepts_ordinary_canonical_bytes(bundle):
    raw = canonical.dumps([0.15764724456512623, -0.0001234567890123456, 0.000012, 1e-7,
                           1.5e-7, 2**53 - 1, "\u2028\x7f\x1f\n", {"\uffff": 1, "a": None}])
    assert canonical_fast.loads_if_canonical(raw) == canonical.loads(raw)
    for name in ("run", "protocol", "environment"):
        document = bundle[name]
        for part in ({k: document[k] for k in ("apiVersion", "kind", "spec")},
                     document["metadata"]):
            raw = canonical.dumps(part)
            assert canonical_fast.loads_if_canonical(raw) == json.loads(raw), name


def test_another_orjson_number_layout_turns_the_compiled_path_off(monkeypatch):
    """An orjson release that wrote 1e-05 (not 0.00001) must not be trusted."""
    real = orjson.dumps

    def older(value, *args, **kwargs):
        return real(value, *args, **kwargs).replace(b"0.00001", b"1e-5")

    monkeypatch.setattr(orjson, "dumps", older)
    assert canonical_fast._writes_numbers_as_rfc8785() is False
    monkeypatch.setattr(orjson, "dumps", real)
    assert canonical_fast._writes_numbers_as_rfc8785() is True


@pytest.mark.parametrize("doubt", canonical_fast.DOUBTS)
def test_every_doubtful_number_text_is_searched_for(doubt):
    """The unrolled searches in loads_if_canonical cover every entry of DOUBTS."""
    fine = b'{"a":["x",1.5,2e-7]}'
    assert canonical_fast.loads_if_canonical(fine) == {"a": ["x", 1.5, 2e-7]}
    inside_a_string = b'{"a":["x' + doubt + b'",1.5,2e-7]}'
    assert canonical_fast.loads_if_canonical(inside_a_string) is None


# -- dumps: the compiled writer --------------------------------------------------------

@settings(max_examples=1500, deadline=None)
@given(json_values)
def test_compiled_dumps_is_the_exact_form_or_declines(value):
    fast = canonical_fast.dumps(value)
    if fast is not None:
        assert fast == canonical._dumps_exact(value) == rfc8785.dumps(value)


def test_compiled_dumps_writes_ordinary_manifests(bundle):
    """Not only correct but used: the published record's parts take the fast path."""
    for document in bundle.values():
        for part in ({k: document[k] for k in ("apiVersion", "kind", "spec")},
                     document["metadata"]):
            assert canonical_fast.dumps(part) == canonical._dumps_exact(part)


def test_compiled_dumps_writes_integral_floats_as_integers():
    value = {"b": [12.0, -0.0, 0.0, -3.0, 1.5, 1e14], "a": {"c": 2.0}}
    assert canonical_fast.dumps(value) == rfc8785.dumps(value) == (
        b'{"a":{"c":2},"b":[12,0,0,-3,1.5,100000000000000]}')


@pytest.mark.parametrize("text", ["[1.0]", "x:1.0,", ",-0.0}"])
def test_an_integral_float_spelled_in_a_string_is_not_rewritten(text):
    value = {"n": 2.0, "s": text}
    assert canonical_fast.dumps(value) is None  # the rewrite touched the string: declined
    assert canonical.dumps(value) == rfc8785.dumps(value)


class Key(str):
    pass


@dataclasses.dataclass
class Point:
    x: int


@pytest.mark.parametrize("value", [
    [float("nan")], {"a": float("inf")},           # orjson writes null; RFC 8785 has no form
    [2**53], {"a": -(2**53)},                      # beyond +/-(2**53 - 1)
    ["\ud800"], {"\udfff": 1},                     # lone surrogates
    {1: "a"}, {("t",): 1},                         # keys that are not strings
    [Key("a")], {Key("a"): 1}, [True, Point(1)],   # a subclass, a dataclass
    [datetime.date(2026, 11, 29)],                 # a type JSON does not have
    [9007199254740994.0], [1e16], [1.5e-6],        # numbers orjson writes unlike RFC 8785
    [None], {"\U0001f600": 1, "\uffff": 2},        # null (NaN's disguise), UTF-16 key order
    [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]],
    "a", 1, 1.5, None,                             # not an object or array
])
def test_compiled_dumps_declines_what_it_cannot_prove(value):
    assert canonical_fast.dumps(value) is None


@pytest.mark.parametrize("value", [[float("nan")], [2**53], ["\ud800"], {1: "a"},
                                   [datetime.date(2026, 11, 29)]])
def test_what_the_compiled_writer_declines_the_exact_path_still_refuses(value):
    with pytest.raises(CanonicalFormError):
        canonical.dumps(value)


def test_declined_values_still_get_their_exact_form():
    value = {"b": [1.0, -0.0, 1e15, 1.5e-6, None], "\U0001f600": 1, "\uffff": 2, "k": Key("v")}
    assert canonical.dumps(value) == rfc8785.dumps(
        {"b": [1, 0, 10**15, 1.5e-6, None], "\U0001f600": 1, "\uffff": 2, "k": "v"})


def test_loads_tries_the_compiled_parser_first_and_the_exact_one_on_doubt(monkeypatch):
    exact = []
    real = canonical._loads_exact
    monkeypatch.setattr(canonical, "_loads_exact",
                        lambda data, file: exact.append(data) or real(data, file))
    assert canonical.loads(b'{"b": [1, 2.5], "a": {}}') == {"b": [1, 2.5], "a": {}}
    assert canonical.loads(b'{"a":0.0}') == {"a": 0.0}  # zero: maybe an underflow
    assert exact == [b'{"a":0.0}']


def test_the_exact_parser_still_names_a_duplicate_key_in_one_line_bytes():
    from kistore.core.errors import ParseError

    with pytest.raises(ParseError, match="duplicate object key 'a'") as caught:
        canonical.loads(b'{"a":1,"a":1}')
    assert caught.value.pointer == "/a"


# -- loads: the compiled parser for any strict JSON text ---------------------------------

def _same(a, b) -> bool:
    """Equal including types: 1 is not 1.0, -0.0 is not 0.0 (repr tells them apart)."""
    return repr(a) == repr(b)


@settings(max_examples=1500, deadline=None)
@given(json_values, st.sampled_from([
    {}, {"sort_keys": True}, {"indent": 1}, {"separators": (",", ":")},
    {"ensure_ascii": False}, {"ensure_ascii": False, "separators": (",", ":")}]))
def test_compiled_loads_is_the_exact_parse_or_declines(value, layout):
    data = json.dumps([value], **layout).encode("utf-8")
    fast = canonical_fast.loads(data)
    if fast is not None:
        assert _same(fast, canonical._loads_exact(data, "-")), data


@settings(max_examples=500, deadline=None)
@given(st.dictionaries(st.text(max_size=3), json_values, min_size=1, max_size=4),
       st.data())
def test_compiled_loads_never_accepts_a_duplicate_key(obj, data):
    key = data.draw(st.sampled_from(sorted(obj)))
    again = json.dumps({key: obj[key]}, ensure_ascii=False)[1:-1]
    text = json.dumps(obj, ensure_ascii=False)
    doubled = (text[:-1] + ", " + again + "}").encode("utf-8")
    assert canonical_fast.loads(doubled) is None
    nested = b'{"outer":' + doubled + b"}"
    assert canonical_fast.loads(nested) is None


@settings(max_examples=3000, deadline=None)
@given(st.from_regex(r"-?(0|[1-9][0-9]{0,17})(\.[0-9]{1,30})?([eE][-+]?[0-9]{1,3})?",
                     fullmatch=True))
def test_compiled_loads_reads_every_decimal_as_python_does(text):
    """orjson's number parser must round exactly as float() and int() do."""
    fast = canonical_fast.loads(f"[{text}]".encode())
    if fast is not None:
        assert _same(fast, canonical._loads_exact(f"[{text}]".encode(), "-")), text
        plain = "." not in text and "e" not in text.lower()
        assert _same(fast, [int(text) if plain else float(text)]), text


@pytest.mark.parametrize("raw", [
    b'{"a":1,"a":1}', b'{"a":1, "a" :2}', b'[{"k":{"a":1,"a":1}}]',   # duplicate keys
    b'{"a":"x\\":","a":1}',           # a string holding '":' does not hide a duplicate
    b"[1e-400]", b"[-1e-400]", b"[1E400]", b"[1e16]", b"[9007199254740992]",
    b"[9007199254740992.0]", b"[9007199254740994.5e0]",
    b"[0." + b"0" * 400 + b"1]",      # underflows to 0
    b"[NaN]", b"[Infinity]", b"[01]", b"[1,]", b"[1] [2]", b"",
    b'["\\ud800"]', b'{"\\u0061":1,"a":2}',   # escapes: \u might spell a duplicate key
    b"\xef\xbb\xbf{}", b'{"a":"\xff"}', b'["a\x01"]',
    b"[" * 65 + b"]" * 65,
    b" {}", b"1", b'"a"',             # left to the exact path
])
def test_compiled_loads_declines_what_it_cannot_prove(raw):
    assert canonical_fast.loads(raw) is None


def test_compiled_loads_reads_ordinary_tool_output():
    """Not only correct but used: unsorted keys, spaces, fractions, nesting."""
    raw = b'{"spec": {"b": [1, 2.5e-3, 12.0, true, null], "a": "x\\":y"}, "kind": "W"}'
    fast = canonical_fast.loads(raw)
    assert fast is not None
    assert _same(fast, canonical._loads_exact(raw, "-"))


@pytest.mark.parametrize("raw", [
    b"[" * 1025 + b"]" * 1025,  # one past orjson's limit: the standard parser recursed
    b"[" * 3000 + b"]" * 3000,
    b'{"a":' * 3000 + b"1" + b"}" * 3000,
    b"[" * 200_000 + b"]" * 200_000,
    b"[" * 200_000,  # never closed
], ids=["1025", "3000", "3000-objects", "200000", "200000-open"])
def test_lenient_loads_says_too_deep_as_any_malformed_file(raw):
    # Review r60 F8: every caller takes ValueError for "not JSON"; a RecursionError got past
    # them as "internal error: this is a bug in kistore" from check, ls, rank, show and add
    with pytest.raises(ValueError, match=r"^nesting deeper than 64 levels; flatten the "
                                         r"document to at most 64 levels$"):
        canonical_fast.loads_lenient(raw)


def test_lenient_loads_still_reads_what_orjson_reads_and_what_only_the_stdlib_reads():
    deep = canonical_fast.loads_lenient(b"[" * 1000 + b"]" * 1000)  # orjson: up to 1,024
    for _ in range(999):
        [deep] = deep
    assert deep == []
    assert canonical_fast.loads_lenient(b'["\\ud800", NaN]')[0] == "\ud800"  # orjson refuses
    with pytest.raises(json.JSONDecodeError):  # a malformed file: the stdlib's own error
        canonical_fast.loads_lenient(b'{"a": [1, 2}')


def test_loads_lenient_reads_what_its_docstring_says():
    # orjson takes 64-bit integers exactly and a wider one as a rounded float (not refused)
    assert canonical_fast.loads_lenient(b"18446744073709551615") == 2**64 - 1
    assert canonical_fast.loads_lenient(b"-9223372036854775808") == -(2**63)
    wide = canonical_fast.loads_lenient(b"18446744073709551616")
    assert isinstance(wide, float) and wide == 1.8446744073709552e19
    # what orjson refuses the standard parser reads
    assert canonical_fast.loads_lenient(b'"\\ud800"') == "\ud800"
    assert canonical_fast.loads_lenient(b"[1e400]") == [float("inf")]
