"""The three file formats, row groups and partition directories."""

from __future__ import annotations

import csv
import json

import pytest

from kistore.export import writers
from kistore.export.rows import escape_partition

from ..conftest import add_docs
from .conftest import duck, export_ok


def test_csv_flattens_latency_and_writes_source_native_metrics_as_json(runner, fixture,
                                                                       tmp_path):
    out = tmp_path / "out"
    export_ok(runner, fixture.store, out, "--format", "csv")
    with open(out / "runs" / "part-00000.csv", newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == fixture.runs
    header = list(rows[0])
    assert header[header.index("latencyNs.mean"):header.index("latencyNs.mean") + 7] == [
        "latencyNs.mean", "latencyNs.median", "latencyNs.min", "latencyNs.max",
        "latencyNs.std", "latencyNs.geomean", "latencyNs.p95"]
    # one column of RFC 8785 JSON text, whatever metric keys the runs state (r85 F18)
    assert [h for h in header if h.startswith("sourceNative")] == [
        "sourceNativeRank", "sourceNativeGroupSize", "sourceNativeValue", "sourceNativeUnit",
        "sourceNative"]
    assert "latencyNs" not in header and len(header) == 52  # outlierRatio, implausibleLatency
    assert header[header.index("unrankedReason") + 1:][:2] == ["outlierRatio",
                                                               "implausibleLatency"]
    by_name = {r["name"]: r for r in rows}
    sol = by_name["sol-c"]
    assert (sol["sourceNative"], sol["rank"], sol["source"], sol["hardware"],
            sol["withdrawn"]) == ('{"sol_score":0.75,"speedup_factor":2}', "1", "synthetic",
                                  "NVIDIA B200", "false")
    a = by_name["h100-a"]
    assert (a["latencyNs.mean"], a["latencyNs.p95"], a["latencyNs.min"], a["sourceNative"],
            a["title"]) == ("10", "12", "", "{}", "")
    assert by_name["b200-a"]["latencyNs.mean"] == "20.5"
    assert sorted(p.name for p in out.iterdir()) == [
        "_manifest.json", "_state", "attestations", "groups", "manifests", "runs"]


def test_csv_reads_back_in_duckdb_with_the_parquet_values(runner, fixture, tmp_path):
    export_ok(runner, fixture.store, tmp_path / "pq")
    export_ok(runner, fixture.store, tmp_path / "csv", "--format", "csv")
    import duckdb

    from_csv = duckdb.connect().execute(
        f"SELECT digest, rank, \"latencyNs.mean\" FROM read_csv('{tmp_path}/csv/runs/*.csv') "
        "ORDER BY digest").fetchall()
    assert from_csv == duck(tmp_path / "pq", "SELECT digest, rank, latencyNs.mean FROM {runs} "
                                             "ORDER BY digest")


def test_csv_columns_do_not_depend_on_the_metric_keys_runs_state(runner, fixture, kit,
                                                                 tmp_path):
    # r85 F18: one run with 9,000 metric keys made every row 9,065 columns wide (a column
    # per key any run states); now a run with 1,000 keys of its own changes no column
    import duckdb

    def header(out):
        with open(out / "runs" / "part-00000.csv", newline="", encoding="utf-8") as f:
            return next(csv.reader(f))

    export_ok(runner, fixture.store, tmp_path / "before", "--format", "csv")
    impl = kit.implementation("proj-m", name="impl-m")
    run = kit.run(kit.protocol("sol_execbench_leaderboard", name="proto-sol"),
                  kit.environment("NVIDIA B200", name="env-b200"), impl,
                  kit.workload("gemm", name="gemm"), latency=70, name="sol-m",
                  native={"metrics": {f"m{i}": i for i in range(1_000)}})
    add_docs(fixture.store, [impl, run])
    export_ok(runner, fixture.store, tmp_path / "after", "--format", "csv")
    assert header(tmp_path / "after") == header(tmp_path / "before")
    assert len(header(tmp_path / "after")) == 52
    assert duckdb.connect().execute(
        "SELECT json_array_length(json_keys(sourceNative)), "
        "CAST(sourceNative ->> '$.m999' AS INTEGER), sourceNative ->> '$.sol_score' "
        f"FROM read_csv('{tmp_path}/after/runs/*.csv') WHERE name IN ('sol-m', 'sol-c') "
        "ORDER BY name").fetchall() == [(2, None, "0.75"), (1_000, 999, None)]


def test_jsonl_one_object_a_line_with_nested_latency_and_metrics(runner, fixture, tmp_path):
    out = tmp_path / "out"
    export_ok(runner, fixture.store, out, "--format", "jsonl")
    lines = (out / "runs" / "part-00000.jsonl").read_text().splitlines()
    rows = {r["name"]: r for r in map(json.loads, lines)}
    assert len(lines) == fixture.runs
    sol = rows["sol-a"]
    assert sol["sourceNative"] == {"sol_score": 0.25, "speedup_factor": 2}
    assert sol["latencyNs"] == {"mean": 50}
    assert list(sol)[:4] == ["digest", "name", "title", "status"]
    assert rows["h100-c"]["evidenceLevel"] == "verified"
    manifests = [json.loads(x) for x in (out / "manifests" / "part-00000.jsonl").read_text()
                 .splitlines()]
    assert len(manifests) == 22 and all(m["kind"] for m in manifests)


def test_parquet_is_written_in_fixed_row_groups(runner, fixture, tmp_path, monkeypatch):
    import pyarrow.parquet as pq

    monkeypatch.setitem(writers.ROW_GROUP_ROWS, "runs", 2)
    monkeypatch.setitem(writers.ROW_GROUP_ROWS, "manifests", 4)
    out = tmp_path / "out"
    export_ok(runner, fixture.store, out)
    h100 = pq.ParquetFile(out / "runs" / "source=__HIVE_DEFAULT_PARTITION__" /
                          "hardware=NVIDIA H100" / "part-00000.parquet").metadata
    assert [h100.row_group(i).num_rows for i in range(h100.num_row_groups)] == [2, 2, 2]
    runs = pq.ParquetFile(out / "manifests" / "kind=BenchmarkRun" / "part-00000.parquet")
    assert [runs.metadata.row_group(i).num_rows for i in range(runs.metadata.num_row_groups)
            ] == [4, 4, 3]
    # sorted by digest inside each file
    digests = runs.read(columns=["digest"]).column("digest").to_pylist()
    assert digests == sorted(digests)


def test_partition_directories_are_hive_style_and_read_back_unchanged(
        runner, fixture, tmp_path):
    out = tmp_path / "out"
    export_ok(runner, fixture.store, out)
    dirs = sorted(p.parent.relative_to(out).as_posix() for p in out.rglob("*.parquet"))
    assert dirs == [
        "attestations", "groups", "manifests/kind=BenchmarkProtocol",
        "manifests/kind=BenchmarkRun", "manifests/kind=ExecutionEnvironment",
        "manifests/kind=Implementation", "manifests/kind=Workload",
        "runs/source=__HIVE_DEFAULT_PARTITION__/hardware=NVIDIA B200",
        "runs/source=__HIVE_DEFAULT_PARTITION__/hardware=NVIDIA H100",
        "runs/source=synthetic/hardware=NVIDIA B200"]
    assert duck(out, "SELECT source, hardware, count(*) FROM {runs} GROUP BY ALL ORDER BY ALL"
                ) == [("synthetic", "NVIDIA B200", 3), (None, "NVIDIA B200", 2),
                      (None, "NVIDIA H100", 6)]


@pytest.mark.parametrize("value, directory", [
    ("NVIDIA H100 80GB HBM3", "NVIDIA H100 80GB HBM3"),
    ("a/b=c%d", "a%2Fb%3Dc%25d"),
    ("x:y\n", "x%3Ay%0A"),
    ("", "__HIVE_DEFAULT_PARTITION__"),
])
def test_partition_values_are_escaped_as_hive_and_spark_escape_them(value, directory):
    assert escape_partition(value) == directory


def test_escaped_partition_values_read_back_in_duckdb(tmp_path):
    import duckdb
    import pyarrow as pa
    import pyarrow.parquet as pq

    for value in ("a/b=c%d", "x:y", "plain value"):
        path = tmp_path / "t" / f"hardware={escape_partition(value)}" / "part-00000.parquet"
        path.parent.mkdir(parents=True)
        pq.write_table(pa.table({"v": [value]}), path)
    rows = duckdb.connect().execute(
        f"SELECT v, hardware FROM read_parquet('{tmp_path}/t/**/*.parquet', "
        "hive_partitioning = true) ORDER BY v").fetchall()
    assert all(v == hardware for v, hardware in rows) and len(rows) == 3


def test_parquet_without_pyarrow_says_how_to_install_it(runner, fixture, tmp_path,
                                                        monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "pyarrow", None)
    from .conftest import cli

    result = cli(runner, fixture.store, "export", str(tmp_path / "out"))
    assert result.exit_code == 1
    assert "error: Parquet needs pyarrow: pip install 'kistore[export]' (or choose --format " \
           "csv or jsonl)" in result.output
    csv_result = cli(runner, fixture.store, "export", str(tmp_path / "csv"), "--format", "csv")
    assert csv_result.exit_code == 0
