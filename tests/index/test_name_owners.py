"""The name index answers ``owners`` from the keys asked, not the whole store (issue 22).

A bulk add asks about every name it adds. With more than 256 names it used to read every
name of their kinds (``WHERE scope=? AND 1``): O(store) time and a dict of the whole
store's names in memory, at every chunk of a store built by chunked ``add --commit``s.
"""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from kistore.core.digest import Digest
from kistore.index import _database as database
from kistore.index.names import NameIndex


def _digest(i: int) -> Digest:
    return Digest(f"{i:064x}")


def _index(tmp_path: Path, rows: list[tuple[int, str, str]]) -> NameIndex:
    """A fresh name index holding ``(digest number, kind, name)`` rows in scope ``work``."""
    (tmp_path / ".git").mkdir(exist_ok=True)
    index = NameIndex(database.index_path(tmp_path / ".git"))
    index.record("work", [(_digest(i), "ok", "mk", kind, name) for i, kind, name in rows], {})
    return index


def test_a_large_batch_reads_only_the_rows_of_its_keys(tmp_path):
    index = _index(tmp_path, [(i, "BenchmarkRun", f"run-{i}") for i in range(1, 3001)]
                   + [(5000, "Workload", "run-7")])
    keys = [("BenchmarkRun", f"run-{i}") for i in range(2900, 3200)]  # 300: past the old 256
    statements: list[str] = []
    index.db.set_trace_callback(statements.append)
    try:
        found = index.owners("work", keys)
    finally:
        index.db.set_trace_callback(None)
    assert found == {("BenchmarkRun", f"run-{i}"): _digest(i) for i in range(2900, 3001)}
    selects = [s for s in statements if s.lstrip().upper().startswith("SELECT")]
    assert selects and all("name_key IN (" in s for s in selects), selects
    assert not any(s.rstrip().endswith("AND 1") for s in selects)


def test_a_name_held_twice_gives_the_larger_digest_in_a_large_batch(tmp_path):
    index = _index(tmp_path, [(7, "Workload", "w"), (9, "Workload", "w"), (8, "Workload", "w"),
                              *((100 + i, "Workload", f"v{i}") for i in range(300))])
    keys = [("Workload", "w"), *(("Workload", f"v{i}") for i in range(300))]
    found = index.owners("work", keys)
    assert found[("Workload", "w")] == _digest(9)
    assert len(found) == 301
    assert index.owners("work", [("Workload", "w")]) == {("Workload", "w"): _digest(9)}


names = st.sampled_from([f"n{i}" for i in range(12)])
kinds = st.sampled_from(["Workload", "BenchmarkRun"])


@settings(max_examples=15, deadline=None)
@given(rows=st.lists(st.tuples(st.integers(1, 40), kinds, names), max_size=30),
       asked=st.lists(st.tuples(kinds, names), max_size=24), pad=st.integers(0, 300))
def test_owners_is_the_largest_holder_of_each_asked_name(tmp_path_factory, rows, asked, pad):
    tmp = tmp_path_factory.mktemp("owners")
    index = _index(tmp, [(i, kind, name) for i, kind, name in {r[0]: r for r in rows}.values()])
    keys = asked + [("Workload", f"absent-{i}") for i in range(pad)]  # either side of 256
    expected: dict[tuple[str, str], Digest] = {}
    for i, kind, name in {r[0]: r for r in rows}.values():
        if (kind, name) in keys and i > int(expected.get((kind, name), _digest(0)).hex, 16):
            expected[(kind, name)] = _digest(i)
    assert index.owners("work", keys) == expected
