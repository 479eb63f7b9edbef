"""Wording helpers of kistore.core.errors."""

from __future__ import annotations

import pytest

from kistore.core.errors import with_article
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
