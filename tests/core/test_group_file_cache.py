"""The group-key cache (:func:`kistore.core.comparison.group_file`) is bounded (mend02).

It kept up to 65,536 groups a process, ~1 KB each (~67 MB at a store of that many groups);
now :data:`kistore.core.comparison.GROUP_FILES_KEPT`, the least recently asked dropped.
"""

from __future__ import annotations

import hashlib
import tracemalloc

from kistore.core import comparison, layout
from kistore.core.comparison import GROUP_FILES_KEPT, group_file


def _key(i: int) -> dict[str, str]:
    """A key object as a run of a KernelBench-like store gives it: two digests, three words."""
    def digest(text: str) -> str:
        return "sha256:" + hashlib.sha256(text.encode()).hexdigest()

    return {"family": "kernelbench-level1", "hardwareProduct": "NVIDIA H100 80GB HBM3",
            "primaryStatistic": "mean", "protocolDigest": digest(f"protocol-{i % 7}"),
            "workloadDigest": digest(f"workload-{i}")}


def test_the_cache_keeps_at_most_its_bound_dropping_the_least_recently_asked(monkeypatch):
    made: list[dict[str, str]] = []
    record = layout.group_record

    def counted(obj):
        made.append(obj)
        return record(obj)

    monkeypatch.setattr(layout, "group_record", counted)
    comparison._group_file.cache_clear()
    keys = [_key(i) for i in range(GROUP_FILES_KEPT + 1)]
    first = group_file(keys[0])
    assert first == (comparison.comparison_key(keys[0]), record(keys[0]))
    assert len(made) == 1  # comparison_key asked the cache: made once
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for key in keys[1:GROUP_FILES_KEPT]:
            group_file(key)
        held = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert comparison._group_file.cache_info().currsize == GROUP_FILES_KEPT
    assert held < 1536 * GROUP_FILES_KEPT  # the bound's memory as its docstring says it
    group_file(keys[0])  # asked again: now the most recent
    assert len(made) == GROUP_FILES_KEPT
    group_file(keys[-1])  # one more: keys[1], the least recently asked, is dropped
    assert comparison._group_file.cache_info().currsize == GROUP_FILES_KEPT
    assert len(made) == GROUP_FILES_KEPT + 1
    group_file(keys[0])
    assert len(made) == GROUP_FILES_KEPT + 1  # kept
    group_file(keys[1])
    assert made[-1] == keys[1] and len(made) == GROUP_FILES_KEPT + 2  # made again
    comparison._group_file.cache_clear()
