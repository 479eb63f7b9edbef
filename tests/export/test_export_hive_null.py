"""A GPU product spelled as Hive's null partition is not read as null (review r78 F12).

``hardware.product`` ``__HIVE_DEFAULT_PARTITION__`` (schema-valid) was written into the
directory of a null partition, beside a run whose environment is missing, and every reader
read its GPU as NULL. It is now written in the short form (``%7E`` and a hash), which no
reader takes for null; the full value stays in CSV, JSON Lines and the manifests table.
"""

from __future__ import annotations

import csv
import hashlib

from kistore.export.rows import partition_value

from ..conftest import add_docs
from .conftest import duck, export_ok

HIVE_NULL = "__HIVE_DEFAULT_PARTITION__"
WRITTEN = HIVE_NULL + "%7E" + hashlib.sha256(HIVE_NULL.encode()).hexdigest()[:16]
READ = HIVE_NULL + "~8ec3cd044a1b2ac4"


def _store(store, kit):
    """A run whose environment is missing, and one on a GPU named ``__HIVE_DEFAULT_...``."""
    protocol, workload = kit.protocol(), kit.workload()
    env = kit.environment(HIVE_NULL, name="env-hive")
    missing = kit.environment("NVIDIA B200", name="env-missing")  # never added
    impls = [kit.implementation(f"proj-{i}", name=f"impl-{i}") for i in range(2)]
    hive = kit.run(protocol, env, impls[0], workload, latency=10, name="hive-null-gpu",
                    native={"externalId": "hive"})
    dangling = kit.run(protocol, missing, impls[1], workload, latency=20, name="dangling-env",
                        native={"externalId": "dangling"})
    add_docs(store, [protocol, workload, env, *impls, hive])
    add_docs(store, [dangling], allow_dangling=True)


def test_the_value_is_written_in_its_short_form():
    assert WRITTEN == HIVE_NULL + "%7E8ec3cd044a1b2ac4"
    assert partition_value(HIVE_NULL) == WRITTEN
    # only the exact spelling: anything else is written whole as before
    for other in (HIVE_NULL.lower(), HIVE_NULL + "x", "_" + HIVE_NULL):
        assert partition_value(other) == other


def test_duckdb_and_pyarrow_read_it_apart_from_the_null_partition(runner, store, kit,
                                                                   tmp_path):
    import pyarrow.dataset as ds

    _store(store, kit)
    out = tmp_path / "out"
    export_ok(runner, store, out)
    assert sorted(p.name for p in (out / "runs" / "source=synthetic").iterdir()) == [
        f"hardware={HIVE_NULL}", f"hardware={WRITTEN}"]
    expected = [("dangling-env", None), ("hive-null-gpu", READ)]
    assert duck(out, "SELECT name, hardware FROM {runs} ORDER BY name") == expected
    table = ds.dataset(out / "runs", partitioning="hive").to_table(
        columns=["name", "hardware"]).to_pylist()
    assert sorted((r["name"], r["hardware"]) for r in table) == expected
    # the full value is in the manifests table
    assert duck(out, "SELECT json_extract_string(object, '$.spec.hardware.product') FROM "
                     "{manifests} WHERE kind = 'ExecutionEnvironment'") == [(HIVE_NULL,)]


def test_csv_keeps_the_gpu_name_whole(runner, store, kit, tmp_path):
    _store(store, kit)
    export_ok(runner, store, tmp_path / "csv", "--format", "csv")
    text = (tmp_path / "csv" / "runs" / "part-00000.csv").read_text(encoding="utf-8")
    assert {r["name"]: r["hardware"] for r in csv.DictReader(text.splitlines())} == {
        "dangling-env": "", "hive-null-gpu": HIVE_NULL}
