"""RFC 6901 reference tokens: one escape and one unescape (kistore.core.canonical), and
the places that read a pointer's tokens (the ranking policy's families and metrics, the
settings file, a manifest's number) through them (reviewer r91's leftovers: two read them
by hand)."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kistore.check._policy import family_of, name_words, ranking_caveats
from kistore.core.canonical import escape_pointer, pointer_tokens, unescape_pointer
from kistore.query.policy import resolve_pointer

# text made mostly of the characters that matter: ~, /, 0, 1
_TEXT = st.text(st.sampled_from("~/01a") | st.characters(), max_size=30)
_ESCAPED = st.from_regex(re.compile(r"(?:[^~/]|~[01])*"), fullmatch=True)


@given(_TEXT)
def test_unescape_undoes_escape(text):
    token = escape_pointer(text)
    assert "/" not in token and unescape_pointer(token) == text


@given(_ESCAPED)
def test_escape_undoes_unescape_of_a_valid_token(token):
    assert escape_pointer(unescape_pointer(token)) == token


@given(st.lists(_TEXT, max_size=5))
def test_a_pointer_of_escaped_tokens_reads_back_as_its_texts(texts):
    pointer = "".join(f"/{escape_pointer(t)}" for t in texts)
    assert pointer_tokens(pointer) == texts


@pytest.mark.parametrize(("token", "text"), [
    ("~01", "~1"),     # ~1 first, then ~0: never '/'
    ("~10", "/0"),
    ("a~1b~0c", "a/b~c"),
    ("~00~11", "~0/1"),
    ("", ""),
])
def test_rfc_6901_order(token, text):
    assert unescape_pointer(token) == text


def test_the_policy_reads_tokens_so():
    [finding] = ranking_caveats({"families": {"sol~1/b": {
        "comparison": "source-native", "metric": "/sourceNative/metrics/latency_ms",
        "order": "descending", "unit": "ms"}}})
    assert finding.pointer == "/families/sol~01~1b/order"  # KI236, escaped
    assert family_of(finding) == "sol~1/b"
    assert [w for _, w in name_words("GFLOP~1s")] == ["gflop", "s"]
    assert resolve_pointer({"a/b": {"~1": 3}}, "/a~1b/~01") == 3
    assert pointer_tokens("") == [] and resolve_pointer({"x": 1}, "") == {"x": 1}
