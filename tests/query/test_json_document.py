"""``json_document`` on the standard library's encoders is byte for byte the encoder it replaced.

Until small73 :func:`kistore.query.numbers.json_document` was a hand-written encoder
(:func:`old_json_document` below, kept here only as the reference): ``--format jsonl`` and
``--json`` cost ~2.2x the C encoder's CPU. Now the C encoder writes JSON Lines and
``json.encoder``'s own indenting encoder writes ``--json``; the floats are the canonical
text either way. Hypothesis holds every input to the old text: floats of every regime
(``1e-7``, ``1e21``, ``-0.0``, ``5e-324``), NaN and infinities, integers past 64 bits,
float/int/bool/None keys, strings with quotes, backslashes, control characters and
non-ASCII text, and strings that look like numbers (``"1.0"``, ``"1e-07"``).
"""

from __future__ import annotations

import json
import math
from json.encoder import encode_basestring, encode_basestring_ascii
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from kistore.core.canonical import es6_number
from kistore.query.numbers import json_document


def old_json_document(value: Any, *, indent: int | None = 2, ensure_ascii: bool = False) -> str:
    """The hand-written encoder of kistore/query/numbers.py before small73, verbatim.

    Its ``number_text`` was ``es6_number(float(value))`` (kistore.core), as called here.
    """
    quote = encode_basestring_ascii if ensure_ascii else encode_basestring
    parts: list[str] = []
    _encode(value, quote, indent, 0, parts)
    return "".join(parts)


def _json_number(value: float | int) -> str:
    if isinstance(value, float):  # number_text was es6_number(float(value)) then
        return es6_number(value) if math.isfinite(value) else json.dumps(value)
    return int.__repr__(value)


def _json_key(key: Any) -> str:
    if isinstance(key, str):
        return key
    if key is None or isinstance(key, bool):
        return json.dumps(key)
    if isinstance(key, int | float):
        return _json_number(key)
    raise TypeError(f"keys must be str, int, float, bool or None, not {type(key).__name__}")


def _encode(value: Any, quote: Any, indent: int | None, level: int, out: list[str]) -> None:
    if isinstance(value, str):
        out.append(quote(value))
    elif value is None or value is True or value is False:
        out.append("null" if value is None else "true" if value else "false")
    elif isinstance(value, int | float):
        out.append(_json_number(value))
    elif isinstance(value, list | tuple | dict):
        items = list(value.items()) if isinstance(value, dict) else value
        opening, closing = ("{", "}") if isinstance(value, dict) else ("[", "]")
        if not items:
            out.append(opening + closing)
            return
        inner = "" if indent is None else "\n" + " " * (indent * (level + 1))
        outer = "" if indent is None else "\n" + " " * (indent * level)
        separator = ","
        out.append(opening)
        for i, item in enumerate(items):
            out.append(inner if i == 0 else separator + inner)
            if isinstance(value, dict):
                out.append(quote(_json_key(item[0])) + (": " if indent is not None else ":"))
                item = item[1]
            _encode(item, quote, indent, level + 1, out)
        out.append(outer + closing)
    else:
        raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


SPECIAL_FLOATS = [1e-7, 1e21, 1e22, 1e16, 1e15, -0.0, 0.0, 5e-324, 1.0, -1.0, 0.00001,
                  1.5e-5, 1e-6, 0.1, 123.456, 1.7976931348623157e308, 372764.0, 2.0 ** 53,
                  float("nan"), float("inf"), float("-inf")]
FLOATS = st.floats() | st.sampled_from(SPECIAL_FLOATS)
LOOKALIKES = st.sampled_from(["1.0", "1e-07", "-0.0", "x 1.0,", '"', "\\", "\\\"1.0\"",
                              "1e+16", ",2.0]", ":3.0}", "é", "\u2028", "\x00", "\ud800"])
STRINGS = st.text(max_size=6) | LOOKALIKES
KEYS = STRINGS | FLOATS | st.integers() | st.booleans() | st.none()
SCALARS = st.none() | st.booleans() | FLOATS | st.integers() | st.integers(-2**70, 2**70) \
    | STRINGS
VALUES = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=4)
                      | st.tuples(inner, inner)
                      | st.dictionaries(KEYS, inner, max_size=4), max_leaves=12)


@settings(max_examples=600, suppress_health_check=[HealthCheck.too_slow])
@given(VALUES, st.sampled_from([None, 2, 0, 4]), st.booleans())
@example({1e-7: [1e-7, "1e-07"], "1.0": 1.0}, None, False)  # a float key: the exact path
@example(["a\\\"1.0", 1.0, '"', 2.0], None, False)  # escaped quotes: the exact path
@example(["1.0", 1.0, "x:1e-07,", 1e-7, -0.0, 5e-324, 1e21, 1e16], None, False)
@example(0.0, None, False)  # a lone float: hypothesis found it (no "[", "," or ":" before)
@example(-1e-7, None, True)
def test_the_text_is_the_old_encoders_byte_for_byte(value, indent, ascii_):
    assert json_document(value, indent=indent, ensure_ascii=ascii_) == \
        old_json_document(value, indent=indent, ensure_ascii=ascii_)


def test_floats_of_every_regime_on_one_line():
    value = {"a": [1e-7, 1e21, 1e22, 1e16, -0.0, 5e-324, 1.0, 0.00001, 1.5e-5, 0.1],
             "s": "1.0 1e-07", "n": [float("nan"), float("-inf")], "i": 2**70}
    assert json_document(value, indent=None) == (
        '{"a":[1e-7,1e+21,1e+22,10000000000000000,0,5e-324,1,0.00001,0.000015,0.1],'
        '"s":"1.0 1e-07","n":[NaN,-Infinity],"i":1180591620717411303424}')
    assert json_document({1e-7: 1.0, 2.0: "x"}, indent=None) == '{"1e-7":1,"2":"x"}'


@pytest.mark.parametrize("indent", [None, 2])
@pytest.mark.parametrize(("value", "message"), [
    ({"x": {1}}, "Object of type set is not JSON serializable"),
    ([b"x"], "Object of type bytes is not JSON serializable"),
    ({(1, 2): 1}, "keys must be str, int, float, bool or None, not tuple"),
])
def test_what_json_cannot_write_is_the_same_type_error(value, message, indent):
    for encode in (json_document, old_json_document):
        with pytest.raises(TypeError, match=message):
            encode(value, indent=indent)
