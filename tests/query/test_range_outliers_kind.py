"""KI234 in the gate parses only objects that may be runs (task cost96, item 2).

:func:`kistore.query.outlier_rules.range_outliers` hashed and parsed every object a range
adds to learn that an Implementation or a Workload is no run (~37 us a manifest). A bytes
test now comes first; it must never miss a run, in canonical bytes or in any JSON text a
range may commit by hand (KI103 says those are not canonical; KI234 judged them before).
"""

from __future__ import annotations

import json

from hypothesis import example, given
from hypothesis import strategies as st

from kistore.core.canonical_fast import loads_lenient
from kistore.core.model import Manifest
from kistore.query import outlier_rules
from kistore.query.outlier_rules import _MAY_BE_RUN, range_outliers

from ..conftest import git
from .test_rank_outlier import Group

KINDS = ["BenchmarkRun", "Implementation", "Workload", "BenchmarkProtocol",
         "ExecutionEnvironment", "benchmarkrun", "BenchmarkRunX"]


def _escaped(text: str, which: list[bool]) -> str:
    """``text`` as a JSON string body, the letters ``which`` marks written ``\\uXXXX``."""
    marks = which + [False] * len(text)
    return "".join(f"\\u{ord(c):04x}" if e else c for c, e in zip(text, marks, strict=False))


@given(kind=st.sampled_from(KINDS), spec=st.dictionaries(st.text(max_size=5),
                                                         st.text(max_size=8), max_size=3),
       escapes=st.lists(st.booleans(), min_size=12, max_size=12),
       spaced=st.booleans(), encoding=st.sampled_from(["utf-8", "utf-16", "utf-32"]))
@example(kind="BenchmarkRun", spec={}, escapes=[False] * 12, spaced=True, encoding="utf-8")
@example(kind="BenchmarkRun", spec={}, escapes=[True] + [False] * 11, spaced=False,
         encoding="utf-8")
@example(kind="BenchmarkRun", spec={}, escapes=[False] * 12, spaced=False, encoding="utf-16")
def test_no_run_is_ever_taken_for_another_kind(kind, spec, escapes, spaced, encoding):
    sep = ": " if spaced else ":"
    text = (f'{{"apiVersion"{sep}"v1", "kind"{sep}"{_escaped(kind, escapes)}", '
            f'"spec"{sep}{json.dumps(spec)}}}')
    data = text.encode(encoding)
    assert loads_lenient(data)["kind"] == kind  # what the rule reads
    if kind == "BenchmarkRun":
        assert _MAY_BE_RUN.search(data)  # never skipped
    elif "\\u" not in text and encoding == "utf-8" and "BenchmarkRun" not in text:
        assert not _MAY_BE_RUN.search(data)  # skipped: neither hashed nor parsed


def test_a_range_adding_no_run_parses_nothing(store, kit, monkeypatch):
    group = Group(store, kit)
    group.add("a", 20_000_000)
    base = group.head()
    store.add([Manifest.from_document(kit.implementation("other", name="impl-other")),
               Manifest.from_document(kit.workload("gemm"))], commit=True)
    parsed = []
    monkeypatch.setattr(outlier_rules, "loads_lenient",
                        lambda data: parsed.append(data) or loads_lenient(data))
    changed = set(git(store.root, "diff", "--name-only", f"{base}..HEAD").split())
    assert len([p for p in changed if p.startswith("store/objects/")]) == 2
    assert range_outliers(store, base, group.head(), changed) == []
    assert parsed == []  # was 2: each object hashed and parsed to learn it is no run


def test_a_range_adding_a_run_still_parses_it(store, kit, monkeypatch):
    group = Group(store, kit)
    group.add("a", 20_000_000)
    group.add("b", 21_000_000)
    base = group.head()
    digest, _ = group.add("slip", 25_000)
    parsed = []
    monkeypatch.setattr(outlier_rules, "loads_lenient",
                        lambda data: parsed.append(data) or loads_lenient(data))
    changed = set(git(store.root, "diff", "--name-only", f"{base}..HEAD").split())
    found = range_outliers(store, base, group.head(), changed)
    assert [f.extra["ratio"] for f in found] == [800.0]  # as before
    assert any(b'"kind":"BenchmarkRun"' in data for data in parsed)
