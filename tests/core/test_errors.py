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
