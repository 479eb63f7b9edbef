"""Parquet partition directories stay apart on a case-insensitive file system (r80 F6).

Two GPU products differing only in case (``NVIDIA B200`` and ``nvidia b200``) were two
directories ``hardware=NVIDIA B200`` and ``hardware=nvidia b200``: one directory on APFS or
NTFS, where one partition's ``part-00000.parquet`` overwrote the other's. Now every value of
such a class but one is written with its ASCII letters escaped (read back exactly by DuckDB
and pyarrow), or in the hashed short form where that is not enough; for every partition
column (``source``, ``hardware``, ``kind``), recorded in ``_manifest.json``.
"""

from __future__ import annotations

import json
import urllib.parse

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from kistore.core.git_names import name_key
from kistore.export.rows import partition_names, partition_value

from ..conftest import add_docs, git
from .conftest import duck, export_ok

B200_ESCAPED = "%6E%76%69%64%69%61 %62200"
"""``nvidia b200`` with its ASCII letters escaped: hex of n, v, i, d, i, a, b."""


def _names(values, whole=()):
    """Every value's directory name, as the export writes it."""
    moved = partition_names(values, whole)
    return {v: moved.get(v, partition_value(v)) for v in values}


def test_the_names_of_a_case_class():
    assert B200_ESCAPED == "".join(f"%{ord(c):02X}" if c.isalpha() else c
                                   for c in "nvidia b200")
    # the first in code-point order keeps its name: uppercase before lowercase
    assert partition_names(["NVIDIA B200", "nvidia b200", "NVIDIA H100"]) == {
        "nvidia b200": B200_ESCAPED}
    # a name an earlier generation wrote is kept (--since)
    assert partition_names(["NVIDIA B200", "nvidia b200"], ["nvidia b200"]) == {
        "NVIDIA B200": "%4E%56%49%44%49%41 %42200"}
    assert partition_names(["NVIDIA B200", "NVIDIA H100"]) == {}
    # letters alike in ASCII (only the non-ASCII one differs): the short form
    assert partition_names(["Ä", "ä"]) == {"ä": "ä%7E" + _sha16("ä")}
    # NFC and NFD forms are one name on APFS too
    assert partition_names(["\u00e9", "e\u0301"]) == {"\u00e9": "\u00e9%7E" + _sha16("\u00e9")}


def _sha16(value):
    import hashlib

    return hashlib.sha256(value.encode()).hexdigest()[:16]


VALUES = st.text(alphabet="aAbBßSs éÄä\u0301/%~=_", min_size=1, max_size=6)


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])  # a shared machine
@example(values={"s", "S", "="}, before={"S", "s"})  # two of one class written whole
@given(st.sets(VALUES, max_size=12), st.sets(VALUES, max_size=4))
def test_no_two_directories_are_one_name_after_case_folding(values, before):
    """Any set of values, and any names an earlier generation wrote whole."""
    whole = {partition_value(v) for v in before & values}
    names = _names(values, whole)
    assert len({name_key(n) for n in names.values()}) == len(values)
    assert len({n.casefold() for n in names.values()}) == len(values)
    # without the hash mark, a reader unescapes the name to the value itself
    for value, name in names.items():
        if "%7E" not in name:
            assert urllib.parse.unquote(name) == value
    # of the values an earlier generation wrote whole, one per case class keeps its name
    # (a drawn `before` may hold two of one class, which no export writes: either may keep it)
    by_key: dict[str, set[str]] = {}
    for v in values:
        if partition_value(v) in whole:
            by_key.setdefault(name_key(partition_value(v)), set()).add(v)
    for alike in by_key.values():
        assert sum(names[v] == partition_value(v) for v in alike) == 1, alike


class _Cased:
    """Runs on GPU products and sources that differ only in case."""

    def __init__(self, kit):
        self.kit = kit
        self.protocol, self.workload = kit.protocol(), kit.workload()
        self.envs = {p: kit.environment(p, name=f"env-{i}")
                     for i, p in enumerate(["NVIDIA B200", "nvidia b200"])}
        self.impls = [kit.implementation(f"proj-{i}", name=f"impl-{i}") for i in range(3)]

    def docs(self, *runs):
        """The shared documents, then a run ``(name, source, product)`` of each of ``runs``."""
        docs = [self.protocol, self.workload, *self.envs.values(), *self.impls]
        for i, (name, source, product) in enumerate(runs):
            docs.append(self.kit.run(self.protocol, self.envs[product], self.impls[i],
                                     self.workload, latency=10 + i, name=name,
                                     native={"source": source, "externalId": name}))
        return docs


def _paths(out):
    return sorted(p.relative_to(out).as_posix() for p in out.rglob("*"))


def _assert_apart(out):
    paths = _paths(out)
    assert len({p.casefold() for p in paths}) == len(paths)
    assert len({name_key(p) for p in paths}) == len(paths)


def test_export_writes_cased_values_apart_and_duckdb_reads_them_back(
        runner, store, kit, tmp_path):
    add_docs(store, _Cased(kit).docs(("upper-kb", "my-lab", "NVIDIA B200"),
                                     ("upper-other", "other", "NVIDIA B200"),
                                     ("lower-kb", "my-lab", "nvidia b200")))
    out = tmp_path / "pq"
    export_ok(runner, store, out)
    _assert_apart(out)
    runs = sorted(p for p in _paths(out) if p.startswith("runs/") and p.endswith(".parquet"))
    assert runs == [
        f"runs/source=my-lab/hardware={B200_ESCAPED}/part-00000.parquet",
        "runs/source=my-lab/hardware=NVIDIA B200/part-00000.parquet",
        "runs/source=other/hardware=NVIDIA B200/part-00000.parquet",
    ]
    expected = [("lower-kb", "my-lab", "nvidia b200"),
                ("upper-kb", "my-lab", "NVIDIA B200"),
                ("upper-other", "other", "NVIDIA B200")]
    assert duck(out, "SELECT name, source, hardware FROM {runs} ORDER BY name") == expected
    import pyarrow.dataset as ds

    table = ds.dataset(out / "runs", partitioning="hive").to_table(
        columns=["name", "source", "hardware"])
    assert sorted(zip(*table.to_pydict().values(), strict=True)) == expected
    manifest = json.loads((out / "_manifest.json").read_text())
    assert manifest["tables"]["runs"]["partitionNames"] == {
        "hardware": {"nvidia b200": B200_ESCAPED}}
    assert "partitionNames" not in manifest["tables"]["manifests"]


def test_since_keeps_each_directory_and_adds_the_new_value_apart(
        runner, store, kit, tmp_path):
    cased = _Cased(kit)
    add_docs(store, cased.docs(("lower-kb", "my-lab", "nvidia b200")))
    first = git(store.root, "rev-parse", "HEAD").strip()
    out = tmp_path / "pq"
    export_ok(runner, store, out)
    before = set(_paths(out))
    assert "runs/source=my-lab/hardware=nvidia b200/part-00000.parquet" in before
    add_docs(store, cased.docs(("lower-kb", "my-lab", "nvidia b200"),
                               ("upper-kb", "my-lab", "NVIDIA B200")))
    export_ok(runner, store, out, "--since", first)
    _assert_apart(out)
    # a full export would keep NVIDIA B200 (first in code-point order); generation 0 wrote
    # nvidia b200 whole, so it keeps its directory and the new value is written apart
    new = sorted(p for p in set(_paths(out)) - before
                 if p.startswith("runs/") and p.endswith(".parquet"))
    assert new == ["runs/source=my-lab/hardware=%4E%56%49%44%49%41 %42200/"
                   "part-00001.parquet"]
    assert duck(out, "SELECT name, source, hardware FROM {runs} ORDER BY name") == [
        ("lower-kb", "my-lab", "nvidia b200"),
        ("upper-kb", "my-lab", "NVIDIA B200")]
    manifest = json.loads((out / "_manifest.json").read_text())
    assert manifest["tables"]["runs"]["partitionNames"] == {
        "hardware": {"NVIDIA B200": "%4E%56%49%44%49%41 %42200"}}


PRODUCTS = st.text(alphabet="nNvV Ää/%~=", min_size=1, max_size=5)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sets(PRODUCTS, min_size=1, max_size=8))
def test_written_parquet_paths_are_apart_and_read_back(products):
    """The Parquet writer, given runs on drawn GPU products: no two paths of the export are
    one after case folding, and DuckDB reads each product back (exactly, unless its name
    is the hashed short form)."""
    import tempfile
    from pathlib import Path

    from kistore.export.columns import RUNS
    from kistore.export.rows import partition, run_row
    from kistore.export.writers import Shape, write_table

    staged = []
    for i, product in enumerate(sorted(products)):
        row = run_row(f"sha256:{i:064x}", {"spec": {"sourceNative": {"source": "src"}}},
                      {"name": f"run-{i}"}, {}, (None,) * 5)
        row[RUNS.index("hardware")] = product
        staged.append((partition(RUNS, row), row, b""))
    staged.sort(key=lambda item: item[0])
    shape = Shape(("mean",), {}, {"runs": {"hardware": partition_names(products)}})
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        written = write_table(root, RUNS, staged, "parquet", 0, shape)
        paths = [w.path for w in written]
        assert len(paths) == len(products)
        assert len({p.casefold() for p in paths}) == len({name_key(p) for p in paths}) == len(paths)
        read = dict(duck(root, "SELECT name, hardware FROM {runs}"))
        for i, product in enumerate(sorted(products)):
            name = _names(products)[product]
            assert read[f"run-{i}"] == (product if "%7E" not in name
                                        else urllib.parse.unquote(name)), name
