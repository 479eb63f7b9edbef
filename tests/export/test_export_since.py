"""--since REV: append only what changed, as new files; refuse what cannot be appended."""

from __future__ import annotations

import json

import pytest

from kistore.core.model import Manifest

from ..conftest import add_docs, commit_all, git, store_file
from .conftest import cli, duck, export_ok, files

LATEST = {
    "runs": "digest", "manifests": "digest", "groups": "comparisonKey, comparison",
    "attestations": "subject, bundleDigest, location"}
"""Each table's key: the latest generation's row of a key is the current one."""


def current(out, table: str) -> list[tuple]:
    """The current rows of a table: the latest generation per key, without `generation`."""
    return duck(out, f"SELECT * EXCLUDE (generation) FROM {{{table}}} QUALIFY row_number() "
                     f"OVER (PARTITION BY {LATEST[table]} ORDER BY generation DESC) = 1 "
                     f"ORDER BY {LATEST[table]}")


@pytest.fixture
def changed(fixture, kit):
    """The fixture at C1, then C2: a new fastest run on H100 and a corrected title."""
    store = fixture.store
    c1 = git(store.root, "rev-parse", "HEAD").strip()
    fast = kit.implementation("proj-e", name="impl-e")
    docs = [kit.protocol("synthetic", name="proto-measured"),
            kit.environment("NVIDIA H100", name="env-h100"), kit.workload("rmsnorm",
                                                                          name="rmsnorm")]
    docs[1]["spec"]["hardware"]["architecture"] = "sm_90"
    run = kit.run(docs[0], docs[1], fast, docs[2], latency=5, name="h100-e")
    add_docs(store, [fast, run])
    retitled = Manifest.from_document(json.loads(
        (store.root / store_file(fixture.digests["sol-a"])).read_text()) | {
        "metadata": {"name": "sol-a", "title": "SOL run a, retitled"}})
    store.add([retitled], update_metadata=True, commit=True)
    c2 = git(store.root, "rev-parse", "HEAD").strip()
    return c1, c2, kit.digest(run)


def test_since_appends_changed_rows_as_new_files_and_equals_a_full_export(
        runner, fixture, changed, tmp_path):
    c1, c2, new_run = changed
    out, full = tmp_path / "out", tmp_path / "full"
    export_ok(runner, fixture.store, out, "--at", c1)
    before = files(out)
    result = export_ok(runner, fixture.store, out, "--since", c1, "--at", c2)
    assert f"appended generation 1 (changed rows only) to {out} at commit {c2}" in result.output
    after = files(out)
    data = {p: b for p, b in before.items() if not p.startswith("_")}
    assert {p: after[p] for p in data} == data  # nothing written before is changed
    new = sorted(p for p in after if p not in before)
    assert new == ["groups/part-00001.parquet", "manifests/kind=BenchmarkRun/part-00001.parquet",
                   "manifests/kind=Implementation/part-00001.parquet",
                   "runs/source=__HIVE_DEFAULT_PARTITION__/hardware=NVIDIA H100/part-00001.parquet",
                   "runs/source=synthetic/hardware=NVIDIA B200/part-00001.parquet"]
    # changed: the new run, every run of its group (ranks or group size moved), the retitled
    changed_runs = duck(out, "SELECT name FROM {runs} WHERE generation = 1 ORDER BY name")
    assert changed_runs == [("h100-a",), ("h100-b",), ("h100-c",), ("h100-d",), ("h100-e",),
                            ("h100-ref",), ("sol-a",)]
    assert duck(out, "SELECT name, rank FROM {runs} WHERE generation = 1 AND rank = 1"
                ) == [("h100-e", 1)]
    export_ok(runner, fixture.store, full, "--at", c2)
    for table in LATEST:
        assert current(out, table) == current(full, table), table
    manifest = json.loads((out / "_manifest.json").read_text())
    assert manifest["commit"] == c2
    assert [(g["generation"], g["commit"], g["since"]) for g in manifest["generations"]] == [
        (0, c1, None), (1, c2, c1)]
    assert manifest["generations"][1]["rows"] == {"runs": 7, "groups": 1, "attestations": 0,
                                                  "manifests": 3}
    # the state now describes C2: a second --since from C2 to C2 appends nothing
    again = export_ok(runner, fixture.store, out, "--since", c2, "--at", c2)
    assert again.stdout.strip() == (f"nothing changed since commit {c2}: {out} is current "
                                    "(generation 1); nothing appended")
    assert files(out) == after  # not a byte changed, _manifest.json included


def test_since_another_commit_than_the_export_was_made_at_is_refused(
        runner, fixture, changed, tmp_path):
    c1, c2, _ = changed
    out = tmp_path / "out"
    export_ok(runner, fixture.store, out, "--at", c1)
    before = files(out)
    result = cli(runner, fixture.store, "export", str(out), "--since", c2)
    assert result.exit_code == 1
    assert f"error: {out}: the export in {out} was made at {c1}, not at {c2} ({c2[:12]}); " \
           f"give --since {c1[:12]}" in result.output
    assert files(out) == before


def test_since_refuses_an_export_whose_files_changed_or_are_unlisted(
        runner, fixture, changed, tmp_path):
    c1, c2, _ = changed
    out = tmp_path / "out"
    export_ok(runner, fixture.store, out, "--at", c1)
    groups = out / "groups" / "part-00000.parquet"
    groups.write_bytes(groups.read_bytes() + b"x")
    (out / "runs" / "stray.parquet").write_bytes(b"")
    result = cli(runner, fixture.store, "export", str(out), "--since", c1, "--at", c2)
    assert result.exit_code == 1
    assert f"error: the export in {out} does not match its _manifest.json: " \
           "groups/part-00000.parquet: its sha256 is" in result.output
    assert "runs/stray.parquet: not listed in _manifest.json (left by an interrupted " \
           "export?)" in result.output
    assert not any(p.name.startswith(".kistore-since-") for p in out.iterdir())


def test_since_in_another_format_is_refused(runner, fixture, changed, tmp_path):
    c1, c2, _ = changed
    out = tmp_path / "out"
    export_ok(runner, fixture.store, out, "--at", c1, "--format", "csv")
    result = cli(runner, fixture.store, "export", str(out), "--since", c1, "--at", c2,
                 "--format", "jsonl")
    assert result.exit_code == 1
    assert f"the export in {out} is csv, not jsonl; --since appends in the format it was " \
           "made in" in result.output
    ok = export_ok(runner, fixture.store, out, "--since", c1, "--at", c2)  # csv, its own
    assert "(csv)" in ok.output
    assert (out / "runs" / "part-00001.csv").read_text().count("\n") == 1 + 7


def test_since_refuses_when_rows_would_vanish(runner, fixture, tmp_path):
    store = fixture.store
    c1 = git(store.root, "rev-parse", "HEAD").strip()
    out = tmp_path / "out"
    export_ok(runner, store, out)
    git(store.root, "rm", "-q", store_file(fixture.digests["orphan"]),
        store_file(fixture.digests["orphan"], "metadata"))
    commit_all(store.root, "deleted an object (past the hooks)")
    before = files(out)
    result = cli(runner, store, "export", str(out), "--since", c1)
    assert result.exit_code == 1
    assert f"1 runs row(s) of the export at {c1[:12]} are gone at" in result.output
    assert f"(e.g. {fixture.digests['orphan']}); append-only files cannot say so: make a " \
           "full export into a new directory" in result.output
    assert files(out) == before


def test_since_without_an_export_is_refused(runner, fixture, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    result = cli(runner, fixture.store, "export", str(out), "--since", "HEAD")
    assert result.exit_code == 1
    assert f"error: {out}: no _manifest.json here: --since continues an export made by " \
           "`kistore export`; give its directory" in result.output


def _new_metric(store, kit) -> None:
    """Commit a SOL run carrying a source-native metric no run had before."""
    sol = kit.protocol("sol_execbench_leaderboard", name="proto-sol")
    b200 = kit.environment("NVIDIA B200", name="env-b200")
    impl = kit.implementation("proj-n", name="impl-n")
    run = kit.run(sol, b200, impl, kit.workload("gemm", name="gemm"), latency=70, name="sol-n",
                  native={"metrics": {"sol_score": 0.1, "brand_new_metric": 3}})
    add_docs(store, [impl, run])


def test_a_new_source_native_metric_appends_in_parquet_and_in_csv(runner, fixture, kit,
                                                                  tmp_path):
    # r85 F18: CSV had a column per metric key, so a new key changed the columns (and
    # --since refused it); now one JSON column holds every run's metrics
    store = fixture.store
    c1 = git(store.root, "rev-parse", "HEAD").strip()
    export_ok(runner, store, tmp_path / "pq")
    export_ok(runner, store, tmp_path / "csv", "--format", "csv")
    header = (tmp_path / "csv" / "runs" / "part-00000.csv").read_text().splitlines()[0]
    _new_metric(store, kit)
    export_ok(runner, store, tmp_path / "pq", "--since", c1)  # a map: any metric name
    assert duck(tmp_path / "pq", "SELECT sourceNative['brand_new_metric'] FROM {runs} "
                                 "WHERE name = 'sol-n'") == [(3,)]
    export_ok(runner, store, tmp_path / "csv", "--since", c1)
    appended = (tmp_path / "csv" / "runs" / "part-00001.csv").read_text().splitlines()
    assert appended[0] == header
    import duckdb

    assert duckdb.connect().execute(
        f"SELECT sourceNative, CAST(sourceNative ->> '$.brand_new_metric' AS INTEGER) "
        f"FROM read_csv('{tmp_path}/csv/runs/*.csv') WHERE name = 'sol-n'").fetchall() == [
        ('{"brand_new_metric":3,"sol_score":0.1}', 3)]


def test_a_csv_export_with_a_column_per_metric_is_refused_naming_the_change(
        runner, fixture, kit, tmp_path):
    # a CSV export made before r85 F18 recorded its metric columns as `fields`
    store = fixture.store
    c1 = git(store.root, "rev-parse", "HEAD").strip()
    out = tmp_path / "csv"
    export_ok(runner, store, out, "--format", "csv")
    manifest = json.loads((out / "_manifest.json").read_text())
    (native,) = [c for c in manifest["tables"]["runs"]["columns"]
                 if c["name"] == "sourceNative"]
    assert native.pop("encoding") == "json"
    native["fields"] = ["sol_score", "speedup_factor"]
    (out / "_manifest.json").write_text(json.dumps(manifest))
    _new_metric(store, kit)
    before = files(out)
    result = cli(runner, store, "export", str(out), "--since", c1)
    assert result.exit_code == 1
    assert result.output == (
        f"error: {out}: the columns changed since the export at {c1[:12]} (it writes "
        "runs.sourceNative as one column per metric key, which this kistore writes as one "
        "column of JSON text (docs/export.md)): files already written cannot take the new "
        "columns; make a full export into a new directory\n")
    assert files(out) == before


@pytest.mark.parametrize("column", ["text", "counted"])
def test_an_export_made_before_attestations_text_is_refused_naming_the_column(
        runner, fixture, changed, tmp_path, column):
    # An export made before trust77 added `attestations.text` (6dfe21d6) lists the other
    # columns only; its `--since` said "a new latency statistic or ... metric", which no
    # run had. Its _manifest.json as that kistore wrote it: the same, without `text`. So
    # too one made before att01 added `attestations.counted` (2026-12-06).
    c1, c2, _ = changed
    out = tmp_path / "out"
    export_ok(runner, fixture.store, out, "--at", c1)
    manifest = json.loads((out / "_manifest.json").read_text())
    columns = manifest["tables"]["attestations"]["columns"]
    columns[:] = [c for c in columns if c["name"] != column]
    (out / "_manifest.json").write_text(json.dumps(manifest))
    before = files(out)
    result = cli(runner, fixture.store, "export", str(out), "--since", c1, "--at", c2)
    assert result.exit_code == 1
    assert result.output == (
        f"error: {out}: the columns changed since the export at {c1[:12]} (it has no "
        f"attestations.{column}, which this kistore writes): files already written cannot take "
        "the new columns; make a full export into a new directory\n")
    assert files(out) == before


def test_an_append_that_fails_at_the_end_leaves_the_previous_export_whole(
        runner, fixture, changed, tmp_path, monkeypatch):
    from kistore.export import outdir

    c1, c2, _ = changed
    out = tmp_path / "out"
    export_ok(runner, fixture.store, out, "--at", c1)
    before = files(out)

    def disk_full(root, manifest):
        raise OSError(28, "No space left on device", str(root / "_manifest.json"))

    monkeypatch.setattr(outdir, "write_manifest", disk_full)
    result = cli(runner, fixture.store, "export", str(out), "--since", c1, "--at", c2)
    assert result.exit_code == 1
    assert "No space left on device; nothing was left half-written" in result.output
    assert files(out) == before  # new files removed, state put back, no temporary left
    monkeypatch.undo()
    export_ok(runner, fixture.store, out, "--since", c1, "--at", c2)  # and it can go on


def test_since_over_a_manifest_nested_3000_deep_is_an_error_not_a_crash(runner, fixture,
                                                                         tmp_path):
    # a bare json.loads raised RecursionError: "internal error" and a traceback
    out = tmp_path / "out"
    out.mkdir()
    (out / "_manifest.json").write_bytes(b"[" * 3000 + b"]" * 3000)
    result = cli(runner, fixture.store, "export", str(out), "--since", "HEAD")
    assert result.exit_code == 1, result.output
    assert result.output.startswith(f"error: {out / '_manifest.json'}: not the JSON `kistore "
                                    "export` writes (nesting deeper than ")
    assert "make a full export into a new directory (or remove this one first)" in \
        result.output
    assert "internal error" not in result.output and "Traceback" not in result.output


def test_the_readme_count_of_runs_counts_each_run_once_after_since(
        runner, fixture, changed, tmp_path):
    """review r85 F4: README's `count(*)` after its own `--since` step counted a run of the
    changed group once per generation (1009 for a store of 1006 runs)."""
    from ..conftest import ROOT

    c1, c2, _ = changed
    out = tmp_path / "out"
    export_ok(runner, fixture.store, out, "--at", c1)
    export_ok(runner, fixture.store, out, "--since", c1, "--at", c2)
    start, end = 'duckdb.sql(\\"', '\\").show()'  # README's python -c line (fixm99)
    (line,) = [x.strip() for x in (ROOT / "README.md").read_text().splitlines()
               if x.strip().startswith('python -c "import duckdb;') and start in x]
    sql = line[line.index(start) + len(start):line.index(end)].replace("'../out/", f"'{out}/")
    current_runs = duck(out, "SELECT digest FROM {runs} QUALIFY row_number() OVER "
                             "(PARTITION BY digest ORDER BY generation DESC) = 1")
    assert len(duck(out, "SELECT digest FROM {runs}")) > len(current_runs)  # rows stay
    assert duck(out, sql) == [(len(current_runs),)] == [(fixture.runs + 1,)]


def test_export_help_queries_as_readme_does(runner):
    """low00: `export --help` showed `duckdb -c`, a program `make install` does not put in
    .venv, and `count(*)`, which counts a run once per generation after `--since`; README's
    line (the Python module, each run once) is what it shows now."""
    from kistore.cli import main

    from ..conftest import ROOT

    (readme,) = [x.split("   #")[0].strip() for x in (ROOT / "README.md").read_text()
                 .splitlines() if x.strip().startswith('python -c "import duckdb;')
                 and "count(DISTINCT digest)" in x]
    shown = runner.invoke(main, ["export", "--help"]).output
    assert readme in [x.strip() for x in shown.splitlines()]
    assert "duckdb -c" not in shown
