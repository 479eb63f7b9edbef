"""Partition values longer than a directory name holds (r75 finding 2): the short form."""

from __future__ import annotations

import csv
import hashlib

from hypothesis import given
from hypothesis import strategies as st

from kistore.export.rows import SHORT_MARK, escape_partition, partition_value, windows_end

from .conftest import cli, duck, export_ok, files

LONG_SOURCE = "s" * 300
LONG_PRODUCT = "NVIDIA " + "B" * 300
SOURCE_DIR = "s" * 64 + "%7E" + hashlib.sha256(LONG_SOURCE.encode()).hexdigest()[:16]
PRODUCT_DIR = "NVIDIA " + "B" * 57 + "%7E" + hashlib.sha256(
    LONG_PRODUCT.encode()).hexdigest()[:16]


def long_store(store, kit):
    """One run whose source and GPU product are each 300+ characters (schema-valid)."""
    from ..conftest import add_docs

    protocol, env, workload = kit.protocol(), kit.environment(LONG_PRODUCT), kit.workload()
    impl = kit.implementation("proj")
    run = kit.run(protocol, env, impl, workload, latency=10, name="long-run",
                  native={"externalId": "x"})
    run["spec"]["sourceNative"]["source"] = LONG_SOURCE
    add_docs(store, [protocol, env, workload, impl, run])
    return store


def test_a_long_source_and_gpu_name_export_in_their_short_form(runner, store, kit, tmp_path):
    long_store(store, kit)
    out = tmp_path / "out"
    export_ok(runner, store, out)
    assert SOURCE_DIR == "s" * 64 + "%7E2955c7328c57ca39"
    part = out / "runs" / f"source={SOURCE_DIR}" / f"hardware={PRODUCT_DIR}"
    assert [p.name for p in part.iterdir()] == ["part-00000.parquet"]
    assert max(len(p.name.encode()) for p in out.rglob("*")) < 255
    # DuckDB reads the short form (with `~`) as the partition columns' values
    assert duck(out, "SELECT name, source, hardware FROM {runs}") == [
        ("long-run", SOURCE_DIR.replace("%7E", "~"), PRODUCT_DIR.replace("%7E", "~"))]
    # the full values are in the manifests table
    assert duck(out, "SELECT json_extract_string(object, '$.spec.sourceNative.source') "
                     "FROM {manifests} WHERE kind = 'BenchmarkRun'") == [(LONG_SOURCE,)]


def test_pyarrow_reads_the_dataset_with_a_short_form(runner, store, kit, tmp_path):
    import pyarrow.dataset as ds

    long_store(store, kit)
    out = tmp_path / "out"
    export_ok(runner, store, out)
    rows = ds.dataset(out / "runs", partitioning="hive").to_table(
        columns=["name", "source", "hardware"]).to_pylist()
    assert rows == [{"name": "long-run", "source": SOURCE_DIR.replace("%7E", "~"),
                     "hardware": PRODUCT_DIR.replace("%7E", "~")}]


def test_two_exports_with_a_short_form_are_byte_identical(runner, store, kit, tmp_path):
    long_store(store, kit)
    export_ok(runner, store, tmp_path / "a")
    export_ok(runner, store, tmp_path / "b")
    assert files(tmp_path / "a") == files(tmp_path / "b")


def test_csv_keeps_the_full_long_values(runner, store, kit, tmp_path):
    long_store(store, kit)
    out = tmp_path / "out"
    result = cli(runner, store, "export", str(out), "--format", "csv")
    assert result.exit_code == 0, result.output
    with open(out / "runs" / "part-00000.csv", newline="", encoding="utf-8") as f:
        (row,) = list(csv.DictReader(f))
    assert (row["source"], row["hardware"]) == (LONG_SOURCE, LONG_PRODUCT)


def test_the_kept_beginning_counts_written_bytes_and_never_splits_an_escape():
    value = "/" * 100  # each written as %2F (3 bytes): 21 fit 64 bytes
    shortened = partition_value(value)
    assert shortened == "%2F" * 21 + "%7E" + hashlib.sha256(value.encode()).hexdigest()[:16]


@given(st.text(max_size=400))
def test_every_partition_value_fits_a_directory_name_and_never_looks_shortened(value):
    written = partition_value(value)
    assert len(f"hardware={written}".encode("utf-8", "surrogatepass")) <= 255
    # Written whole: escaped, its final "." or space escaped too (windows_end, r82 F5)
    if written == windows_end(escape_partition(value)):
        assert SHORT_MARK not in written
    else:
        assert written.count(SHORT_MARK) == 1


@given(st.text(max_size=300), st.text(max_size=300))
def test_two_values_written_whole_or_short_never_share_a_name_unless_equal(a, b):
    if a != b:
        assert partition_value(a) != partition_value(b)


def test_a_value_ending_in_a_dot_or_space_is_written_whole_with_that_end_escaped():
    # Found by hypothesis in CI (value "."): whole, not shortened, and no short mark
    assert partition_value(".") == "%2E"
    assert partition_value("NVIDIA B200 ") == "NVIDIA B200%20"
    assert SHORT_MARK not in partition_value(".")
