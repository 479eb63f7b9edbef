"""Wording helpers of kistore.core.errors."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kistore.core.errors import ResolutionError, SchemaError, with_article
from kistore.core.schema import KINDS


@pytest.mark.parametrize(("kind", "said"), [
    ("ExecutionEnvironment", "an ExecutionEnvironment"), ("Implementation", "an Implementation"),
    ("BenchmarkRun", "a BenchmarkRun"), ("Workload", "a Workload"),
    ("BenchmarkProtocol", "a BenchmarkProtocol"), ("RankingPolicy", "a RankingPolicy")])
def test_a_kind_takes_its_article(kind, said):
    # review 2026-12-01: "is a ExecutionEnvironment"
    assert with_article(kind) == said
    assert kind in KINDS or kind == "RankingPolicy"


def test_one_line_escapes_unicode_line_and_paragraph_separators():
    # str.splitlines and Unicode break lines there: a title could forge a line (r83 F4)
    from kistore.core.errors import one_line

    assert one_line("a\u2028b\u2029c\nd\x85e") == "a\\u2028b\\u2029c\\nd\\x85e"
    assert len(one_line("".join(map(chr, range(0x2000, 0x2070)))).splitlines()) == 1


_ESCAPABLE = st.one_of(st.sampled_from("\\nxu0285ce\n\x85\u202e\u2028"), st.characters())
"""Mostly what an escape is made of (a backslash, its letters and digits, what is escaped),
and any character (no lone surrogate: no manifest string holds one)."""


_ESCAPE = re.compile(r"\\(?:\\|n|x[0-9a-f]{2}|u[0-9a-f]{4})")


def _read_back(shown: str) -> str:
    """Undo the escapes of one_line; a backslash that starts none fails."""
    assert "\\" not in _ESCAPE.sub("", shown), f"a backslash that starts no escape: {shown!r}"
    return _ESCAPE.sub(lambda m: {"\\\\": "\\", "\\n": "\n"}.get(m.group(0))
                       or chr(int(m.group(0)[2:], 16)), shown)


@given(st.text(_ESCAPABLE, max_size=12))
def test_one_line_is_injective_and_stays_one_line(text):
    # text84 leftover: a title holding the two characters `\n` printed as one holding a line
    # feed. Every backslash printed now starts an escape, and reading the escapes back gives
    # the text: two texts never print alike.
    from kistore.core.errors import one_line

    shown = one_line(text)
    assert len(shown.splitlines()) <= 1 and "\r" not in shown
    assert not any(0x202A <= ord(c) <= 0x202E or 0x2066 <= ord(c) <= 0x2069 for c in shown)
    assert _read_back(shown) == text


def test_a_backslash_is_escaped_apart_from_the_escapes():
    from kistore.core.errors import one_line

    assert one_line("a\\nb") == "a\\\\nb"  # the two characters \ and n
    assert one_line("a\nb") == "a\\nb"  # a line feed
    assert one_line("x\\u202e\u202e") == "x\\\\u202e\\u202e"
    assert one_line('"a\\nb"', escaped=True) == '"a\\nb"'  # JSON's escapes stay as they are


def test_a_suggestion_is_said_before_the_advice_formed_once():
    # review leftover of r91 F2: the store cut "; ADVICE" off the text and appended it again
    error = ResolutionError("run x references sha256:ab: not in the store",
                            advice="add them first", file="run.json", pointer="/spec")
    assert error.message == "run x references sha256:ab: not in the store; add them first"
    error.suggest("workloadDigest: did you mean sha256:ac (Workload/w)?")
    assert error.message == ("run x references sha256:ab: not in the store; workloadDigest: "
                             "did you mean sha256:ac (Workload/w)?; else add them first")
    assert str(error) == error.format() == f"run.json:/spec: {error.message}"
    error.suggest("did you mean sha256:ad?")  # said again: replaced, never appended twice
    assert error.message.count("did you mean") == 1 and error.message.endswith(
        "did you mean sha256:ad?; else add them first")
    plain = SchemaError("field 'workloadDigest': 'x' does not match")
    plain.suggest("did you mean sha256:ac (Workload/w)?")
    assert plain.message == ("field 'workloadDigest': 'x' does not match; did you mean "
                             "sha256:ac (Workload/w)?")  # no advice: no "else"
