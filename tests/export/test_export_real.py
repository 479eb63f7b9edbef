"""kistore export on real data: this repository's own store/, and shared/data imported fresh."""

from __future__ import annotations

import json

import pytest

from kistore.store import Store

from ..conftest import DATA, IMPORTED_RUNS, ROOT
from .conftest import cli, clone, duck, export_ok, rank_json


@pytest.fixture(scope="module")
def repository(tmp_path_factory):
    """A clone of this repository (its committed store/), exported once as Parquet."""
    base = tmp_path_factory.mktemp("real")
    store = Store(clone(ROOT, base / "repo"))
    from click.testing import CliRunner

    export_ok(CliRunner(), store, base / "out")
    return store, base / "out"


def test_repository_store_runs_rows_equal_its_benchmark_runs(runner, repository):
    store, out = repository
    listed = cli(runner, store, "ls", "--kind", "BenchmarkRun", "--format", "jsonl")
    runs = [json.loads(line) for line in listed.stdout.splitlines()]
    assert len(runs) == sum(IMPORTED_RUNS.values()) + 1  # and the published record
    assert duck(out, "SELECT count(*), count(DISTINCT digest) FROM {runs}") == [
        (len(runs), len(runs))]
    assert duck(out, "SELECT count(*) FROM {manifests} WHERE kind = 'BenchmarkRun'") == [
        (len(runs),)]


@pytest.mark.parametrize("name", [
    "sol-kernel-3-submission-25504",  # a SOL-ExecBench board: source-native sol_score
    "sol-submission-20464",  # the published record (dangling workload and implementation)
])
def test_repository_store_ranks_equal_rank_json(runner, repository, name):
    store, out = repository
    expected = {r["digest"]: r["rank"] for r in rank_json(runner, store, f"BenchmarkRun/{name}")}
    key = duck(out, f"SELECT comparisonKey FROM {{runs}} WHERE name = '{name}'")[0][0]
    assert dict(duck(out, f"SELECT digest, rank FROM {{runs}} WHERE comparisonKey = '{key}'")
                ) == expected


def test_repository_store_ranks_of_several_groups_of_each_source(runner, repository):
    store, out = repository
    picked = duck(out, """SELECT source, arg_min(name, digest) FROM {runs}
        WHERE comparisonKey IS NOT NULL GROUP BY source ORDER BY source""")
    assert [s for s, _ in picked] == sorted(IMPORTED_RUNS)
    for _, name in picked:
        expected = {r["digest"]: r["rank"] for r in rank_json(runner, store,
                                                              f"BenchmarkRun/{name}")}
        key = duck(out, f"SELECT comparisonKey FROM {{runs}} WHERE name = '{name}'")[0][0]
        assert dict(duck(out, f"SELECT digest, rank FROM {{runs}} WHERE comparisonKey = "
                              f"'{key}'")) == expected


@pytest.mark.skipif(not DATA.exists(), reason=f"shared data not present at {DATA}")
def test_shared_data_imported_fresh_exports_every_run_per_source(runner, imported_store,
                                                                 tmp_path):
    out = tmp_path / "out"
    export_ok(runner, imported_store, out, "--format", "jsonl")
    rows = [json.loads(line) for line in (out / "runs" / "part-00000.jsonl").read_text()
            .splitlines()]
    counts: dict[str, int] = {}
    for row in rows:
        counts[row["source"]] = counts.get(row["source"], 0) + 1
    assert counts == IMPORTED_RUNS
    board = [r for r in rows if r["family"] == "sol_execbench_leaderboard"]
    assert board and all(r["comparison"] == "source-native" and r["unit"] == "score"
                         for r in board)
    assert {r["hardware"] for r in rows} == {"NVIDIA B200", "NVIDIA H100 PCIe",
                                             "NVIDIA H100 80GB HBM3"}
