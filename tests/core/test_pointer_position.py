"""Where a JSON Pointer's value starts in a JSON text (break97 L7: KI221's line:column).

``add`` names a ``.json`` input's value by its line and column beside the pointer, as JSON
Lines name their line; :func:`kistore.core.canonical.pointer_position` finds it.
"""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from kistore.core.canonical import escape_pointer, pointer_position

texts = st.text(st.characters(exclude_categories=["Cs"]), max_size=5)  # UTF-8 encodable
values = st.recursive(
    st.none() | st.booleans() | st.integers(-10**6, 10**6) | texts,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(texts, inner, max_size=3),
    max_leaves=12)


def _pointers(value, at=""):
    yield at, value
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _pointers(item, f"{at}/{escape_pointer(key)}")
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _pointers(item, f"{at}/{i}")


def _offset(text: str, line: int, column: int) -> int:
    return sum(len(x) + 1 for x in text.split("\n")[:line - 1]) + column - 1


@settings(max_examples=200, deadline=None)
@given(values, st.sampled_from([None, 2]), st.booleans())
def test_each_pointer_s_value_starts_where_it_is_said(value, indent, ascii_only):
    """Every value of a document, pretty-printed or on one line, keys with ``/`` and ``~``
    and non-ASCII text too: the text at the line and column said decodes to that value."""
    text = json.dumps(value, indent=indent, ensure_ascii=ascii_only)
    for pointer, expected in _pointers(value):
        found = pointer_position(text.encode(), pointer)
        assert found is not None, pointer
        decoded, _ = json.JSONDecoder().raw_decode(text, _offset(text, *found))
        assert decoded == expected, (pointer, found)


def test_a_hand_counted_place_and_what_has_none():
    text = b'{\n  "spec": {\n    "metrics": {"mean": "3.7"}\n  }\n}\n'
    assert pointer_position(text, "/spec/metrics/mean") == (3, 25)  # hand-counted
    assert pointer_position(text, "/spec") == (2, 11)
    assert pointer_position(text, "") == (1, 1)
    assert pointer_position(text, "/spec/metrics/median") is None  # no such value
    assert pointer_position(b'{"a": ', "/b") is None  # no JSON text: no place
