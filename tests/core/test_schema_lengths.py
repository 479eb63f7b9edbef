"""Schema errors about a value's length say its real length and the bound (reviewer r85 F1).

A 254-letter name was "(256 characters)" (the length of its repr, quotes and all), a
70,000-character title "(70,002 characters) is too long" with no limit said.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from kistore.core.errors import shorten
from kistore.core.schema import check_manifest

from ..conftest import ManifestKit


def _messages(document: dict) -> list[str]:
    return [str(e) for e in check_manifest(document, file="m.json")]


def test_a_long_name_says_its_own_length():
    doc = ManifestKit().workload(name="a" * 254)
    [message] = _messages(doc)
    assert message.startswith("m.json:/metadata/name: '" + "a" * 55 + "... (254 characters) "
                              "is not a valid name: a name is 1 to 253 characters")


def test_a_long_title_says_its_length_and_the_schemas_bound():
    doc = ManifestKit().workload(name="w")
    doc["metadata"]["title"] = "x" * 70_000
    [message] = _messages(doc)
    assert message == ("m.json:/metadata/title: field 'title': '" + "x" * 55 + "... (70,000 "
                       "characters) is too long: the schema allows at most 500 characters")
    doc["metadata"]["title"] = "x" * 501  # cut too: its length said once
    assert _messages(doc)[0].endswith("... (501 characters) is too long: the schema allows "
                                      "at most 500 characters")


@given(st.text(min_size=81, max_size=300))
def test_shorten_says_the_given_length_of_a_quoted_value(value):
    assert shorten(repr(value), length=len(value)).endswith(f"({len(value):,} characters)")
