"""docs/export.md: its column tables are the code's, and its DuckDB queries run as written."""

from __future__ import annotations

import re

import pytest

from kistore.export.columns import TABLES, markdown

from ..conftest import ROOT
from .conftest import export_ok

DOC = (ROOT / "docs" / "export.md").read_text()
SQL = re.findall(r"```sql\n(.*?)```", DOC, re.DOTALL)
PYTHON = re.findall(r"```python\n(.*?)```", DOC, re.DOTALL)


def block(title: str) -> str:
    """The SQL block whose first line is ``-- title``."""
    found = [b for b in SQL if b.startswith(f"-- {title}\n")]
    assert len(found) == 1, f"docs/export.md has no single SQL block titled {title!r}"
    return found[0]


@pytest.mark.parametrize("name", list(TABLES))
def test_doc_column_table_is_the_code_table(name):
    assert f"### {name}\n" in DOC
    assert markdown(TABLES[name]) in DOC, (
        f"docs/export.md's {name} table differs from kistore.export.columns: paste "
        f"kistore.export.columns.markdown(TABLES[{name!r}])")


def test_every_column_name_appears_once_per_table_and_is_documented():
    for table in TABLES.values():
        assert len(set(table.names)) == len(table.names)
        assert all(c.meaning and c.type for c in table.columns)
        assert set(table.partition) <= set(table.names) and set(table.sort) <= set(table.names)


@pytest.fixture
def con(runner, fixture, tmp_path):
    """A DuckDB connection with the doc's views over an export of the fixture store."""
    import duckdb

    out = tmp_path / "out"
    export_ok(runner, fixture.store, out)
    connection = duckdb.connect()
    connection.execute(block("views: the current row of every key").replace("'OUT/",
                                                                            f"'{out}/"))
    return connection


def run(con, title: str, **replace: str) -> list[tuple]:
    sql = block(title)
    for old, new in replace.items():
        assert old in sql
        sql = sql.replace(old, new)
    return con.execute(sql).fetchall()


def test_best_run_per_workload_per_gpu(con):
    rows = run(con, "best run per workload per GPU")
    assert [(w, hw, name, value, unit) for w, hw, _, name, _, value, unit, _ in rows] == [
        ("gemm", "NVIDIA B200", "sol-c", 0.75, "score"),
        ("rmsnorm", "NVIDIA B200", "b200-b", 15, "ns"),
        ("rmsnorm", "NVIDIA H100", "h100-a", 10, "ns")]


def test_one_implementation_across_gpus(con):
    rows = run(con, "one implementation across GPUs",
               **{"'kernelbench-pytorch-eager'": "'impl-a'"})
    assert [r[:6] for r in rows] == [
        ("gemm", "NVIDIA B200", "sol_execbench_leaderboard", 3, 3, 0.25),
        ("rmsnorm", "NVIDIA B200", "synthetic", None, 1, 20.5),  # withdrawn there
        ("rmsnorm", "NVIDIA H100", "synthetic", 1, 3, 10),
        ("rmsnorm", "NVIDIA H100", None, None, None, None)]  # the run in no group
    assert rows[0][7] == 50  # latencyNs beside the score


def test_verified_runs(con):
    rows = run(con, "verified runs")
    assert [(r[0], r[3], r[4]) for r in rows] == [("h100-c", 2, 3)]
    assert rows[0][5].startswith("SHA256:")


def test_objects_verify(con):
    assert run(con, "objects verify") == [(22, 22)]


def test_nested_columns(con):
    rows = run(con, "nested columns")
    assert [(name, score, native) for name, _, score, native, _ in rows] == [
        ("sol-c", 0.75, 1), ("sol-b", 0.5, 2), ("sol-a", 0.25, 3)]


def test_metrics_from_the_csv(runner, fixture, tmp_path):
    # r85 F18: CSV writes a run's metrics as one column of JSON text
    import duckdb

    out = tmp_path / "runs-csv"
    export_ok(runner, fixture.store, out, "--format", "csv")
    sql = block("metrics from the CSV")
    assert "'runs-csv/" in sql
    rows = duckdb.connect().execute(sql.replace("'runs-csv/", f"'{out}/")).fetchall()
    assert rows == [("sol-c", 0.75, ["sol_score", "speedup_factor"]),
                    ("sol-b", 0.5, ["sol_score", "speedup_factor"]),
                    ("sol-a", 0.25, ["sol_score", "speedup_factor"])]


def test_every_sql_block_is_tested():
    titles = {b.splitlines()[0] for b in SQL}
    assert titles == {"-- views: the current row of every key", "-- best run per workload per GPU",
                      "-- one implementation across GPUs", "-- verified runs",
                      "-- objects verify", "-- nested columns", "-- metrics from the CSV"}


def test_views_keep_the_latest_generation_of_each_key(runner, fixture, kit, tmp_path):
    import duckdb

    from ..conftest import add_docs, git

    store = fixture.store
    c1 = git(store.root, "rev-parse", "HEAD").strip()
    out = tmp_path / "out"
    export_ok(runner, store, out)
    b200 = kit.environment("NVIDIA B200", name="env-b200")
    impl = kit.implementation("proj-z", name="impl-z")
    run_ = kit.run(kit.protocol("synthetic", name="proto-measured"), b200, impl,
                   kit.workload("rmsnorm", name="rmsnorm"), latency=1, name="b200-z")
    add_docs(store, [impl, run_])
    export_ok(runner, store, out, "--since", c1)
    connection = duckdb.connect()
    connection.execute(block("views: the current row of every key").replace("'OUT/",
                                                                            f"'{out}/"))
    best = connection.execute(block("best run per workload per GPU")).fetchall()
    assert [(r[1], r[3]) for r in best if r[0] == "rmsnorm"] == [
        ("NVIDIA B200", "b200-z"), ("NVIDIA H100", "h100-a")]
    assert connection.execute("SELECT count(*), count(DISTINCT digest) FROM runs").fetchall() \
        == [(12, 12)]


def test_pyspark_snippet_is_valid_python():
    assert len(PYTHON) == 1
    compile(PYTHON[0], "docs/export.md", "exec")
    for question in ("# best run per workload per GPU", "# one implementation across GPUs",
                     "# verified runs"):
        assert question in PYTHON[0]


def _store_without_attestations(store, kit):
    from ..conftest import add_docs

    env = kit.environment("NVIDIA H100", name="env-h100")
    impl = kit.implementation("proj-a", name="impl-a")
    work = kit.workload("rmsnorm", name="rmsnorm")
    proto = kit.protocol("synthetic", name="proto-measured")
    runs = [kit.run(proto, env, impl, work, latency=n, name=f"h100-{n}") for n in (10, 20)]
    add_docs(store, [env, impl, work, proto, *runs])


def test_every_query_runs_on_a_store_without_attestations(runner, store, kit, tmp_path):
    # reviewer r83 F14: no attestations/ directory, so the doc's view failed ("No files found")
    import duckdb

    _store_without_attestations(store, kit)
    out = tmp_path / "out"
    export_ok(runner, store, out)
    export_ok(runner, store, tmp_path / "runs-csv", "--format", "csv")  # the CSV's query
    connection = duckdb.connect()
    for sql in SQL:
        connection.execute(sql.replace("'OUT/", f"'{out}/")
                           .replace("'runs-csv/", f"'{tmp_path}/runs-csv/"))
    assert connection.execute("SELECT count(*) FROM attestations").fetchall() == [(0,)]
    assert connection.execute("SELECT count(*) FROM runs").fetchall() == [(2,)]
    columns = [r[0] for r in connection.execute("DESCRIBE attestations").fetchall()]
    assert columns == list(TABLES["attestations"].names)


@pytest.mark.parametrize("fmt", ["csv", "jsonl"])
def test_a_table_of_no_rows_is_a_file_of_no_rows_in_text_formats(runner, store, kit, tmp_path,
                                                                   fmt):
    _store_without_attestations(store, kit)
    out = tmp_path / "out"
    export_ok(runner, store, out, "--format", fmt)
    written = (out / "attestations" / f"part-00000.{fmt}").read_text(encoding="utf-8")
    header = ",".join(TABLES["attestations"].names) + "\n"
    assert written == (header if fmt == "csv" else "")
