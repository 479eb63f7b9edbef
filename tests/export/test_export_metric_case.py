"""Metric keys that differ only in case are written apart in JSON Lines and CSV (r78 F8).

One run stating ``LATENCY_MS`` made DuckDB rename every run's real
``sourceNative.latency_ms`` CSV column and read the other one (1 value instead of 253),
and refuse the JSON Lines export (``Duplicate name "LATENCY_MS" in struct``). Within one run
KI224 now refuses such keys; across runs (and for a run stored before KI224) the JSON Lines
export writes each key of a case-folded class but one as ``KEY~H`` (16 hex of its SHA-256).
CSV writes every run's metrics as one column of JSON text (r85 F18), whose keys DuckDB's
JSON paths tell apart as they are.
"""

from __future__ import annotations

import hashlib
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kistore.export.columns import metric_names

from ..conftest import add_docs, git
from .conftest import cli, export_ok

UPPER = "LATENCY_MS~" + hashlib.sha256(b"LATENCY_MS").hexdigest()[:16]


def _docs(kit):
    protocol, env, workload = kit.protocol(), kit.environment(), kit.workload()
    impls = [kit.implementation(f"proj-{i}", name=f"impl-{i}") for i in range(4)]
    return [protocol, env, workload, *impls], (protocol, env, workload, impls)


def _run(kit, base, i, name, metrics):
    protocol, env, workload, impls = base
    return kit.run(protocol, env, impls[i], workload, latency=10 + i, name=name,
                   native={"externalId": name, "metrics": metrics})


@pytest.fixture
def cased(store, kit, monkeypatch):
    """Runs ``lower`` (latency_ms), ``upper`` (LATENCY_MS) and ``both`` (stored before KI224)."""
    docs, base = _docs(kit)
    add_docs(store, [*docs, _run(kit, base, 0, "lower", {"latency_ms": 1.5}),
                     _run(kit, base, 1, "upper", {"LATENCY_MS": 999.0})])
    with monkeypatch.context() as m:
        m.setattr("kistore.store.run_facts.run_contradictions", lambda spec: [])
        add_docs(store, [_run(kit, base, 2, "both", {"latency_ms": 2.5, "LATENCY_MS": 7.0})])
    return store


def test_the_written_names():
    assert UPPER == "LATENCY_MS~ce467cc873d21bd0"
    assert metric_names(["latency_ms", "LATENCY_MS", "sol_score"]) == {"LATENCY_MS": UPPER}
    # no key in its case-folded form: the first in code-point order keeps its spelling
    assert metric_names(["Latency_MS", "LATENCY_MS"]) == {
        "Latency_MS": "Latency_MS~" + hashlib.sha256(b"Latency_MS").hexdigest()[:16]}
    assert metric_names(["a", "b"]) == {}


def test_a_key_spelled_as_the_written_name_moves_the_name_on():
    """r79 F3: ``LATENCY_MS~ce46...`` as a key of its own made every CSV export fail."""
    again = UPPER + "~" + hashlib.sha256(UPPER.encode()).hexdigest()[:16]
    assert again == "LATENCY_MS~ce467cc873d21bd0~3da653ad42b7432b"
    for taken in (UPPER, UPPER.lower()):
        assert metric_names(["latency_ms", "LATENCY_MS", taken]) == {"LATENCY_MS": again}
    # taken twice over: the mark and hash are added until the name is free
    assert metric_names(["latency_ms", "LATENCY_MS", UPPER, again.lower()]) == {
        "LATENCY_MS": again + "~" + hashlib.sha256(again.encode()).hexdigest()[:16]}


def _first_name(key):
    return key + "~" + hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:16]


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])  # a shared machine
@given(st.sets(st.text(alphabet="aAbBß_~", min_size=1, max_size=4), max_size=10),
       st.sets(st.text(alphabet="aAbBß_~", min_size=1, max_size=4), max_size=4), st.booleans())
def test_every_written_name_differs_from_every_other_in_case(keys, squatted, upper):
    # some keys spelled as another key's first written name (in either case)
    squats = {(_first_name(k).upper() if upper else _first_name(k)) for k in squatted}
    keys = keys | squats
    renamed = metric_names(keys)
    written = [renamed.get(k, k).casefold() for k in keys]
    assert len(set(written)) == len(keys)
    assert {k.casefold() for k in keys} <= set(written)  # one of each class keeps its name
    assert metric_names(sorted(keys, reverse=True)) == renamed  # order does not matter


def test_duckdb_reads_every_metric_of_every_run_from_the_csv_json_column(runner, cased,
                                                                         tmp_path):
    import duckdb

    out = tmp_path / "csv"
    export_ok(runner, cased, out, "--format", "csv")
    header = (out / "runs" / "part-00000.csv").read_text().splitlines()[0].split(",")
    assert [h for h in header if h.startswith("sourceNative.")] == []
    rows = duckdb.connect().execute(
        f"""SELECT name, sourceNative, CAST(sourceNative ->> '$.latency_ms' AS DOUBLE),
                   CAST(sourceNative ->> '$.LATENCY_MS' AS DOUBLE)
            FROM read_csv('{out}/runs/*.csv') ORDER BY name""").fetchall()
    assert rows == [("both", '{"LATENCY_MS":7,"latency_ms":2.5}', 2.5, 7.0),
                    ("lower", '{"latency_ms":1.5}', 1.5, None),
                    ("upper", '{"LATENCY_MS":999}', None, 999.0)]
    manifest = json.loads((out / "_manifest.json").read_text())
    (native,) = [c for c in manifest["tables"]["runs"]["columns"]
                 if c["name"] == "sourceNative"]
    # keys as stated: nothing renamed, no column per key
    assert native == {"name": "sourceNative", "type": "map<string, double>",
                      "encoding": "json"}


def test_duckdb_loads_the_json_lines(runner, cased, tmp_path):
    import duckdb

    out = tmp_path / "jsonl"
    export_ok(runner, cased, out, "--format", "jsonl")
    rows = duckdb.connect().execute(
        f"""SELECT name, sourceNative.latency_ms, sourceNative."{UPPER}"
            FROM read_json('{out}/runs/*.jsonl') ORDER BY name""").fetchall()
    assert rows == [("both", 2.5, 7.0), ("lower", 1.5, None), ("upper", None, 999.0)]


def test_parquet_keeps_the_keys_as_they_are(runner, cased, tmp_path):
    from .conftest import duck

    out = tmp_path / "pq"
    export_ok(runner, cased, out)
    assert duck(out, "SELECT name, map_keys(sourceNative) FROM {runs} ORDER BY name") == [
        ("both", ["LATENCY_MS", "latency_ms"]), ("lower", ["latency_ms"]),
        ("upper", ["LATENCY_MS"])]


def test_since_refuses_a_new_key_that_differs_only_in_case(runner, store, kit, tmp_path):
    docs, base = _docs(kit)
    add_docs(store, [*docs, _run(kit, base, 0, "lower", {"latency_ms": 1.5})])
    first = git(store.root, "rev-parse", "HEAD").strip()
    out = tmp_path / "jsonl"
    export_ok(runner, store, out, "--format", "jsonl")
    add_docs(store, [_run(kit, base, 1, "other", {"latency_ms": 3.0, "sol_score": 0.5})])
    export_ok(runner, store, out, "--since", first)  # a new key is fine in JSON Lines
    second = git(store.root, "rev-parse", "HEAD").strip()
    add_docs(store, [_run(kit, base, 2, "upper", {"LATENCY_MS": 999.0})])
    before = sorted(p.name for p in (out / "runs").iterdir())
    done = cli(runner, store, "export", str(out), "--since", second)
    assert done.exit_code == 1, done.output
    assert (f"the columns changed since the export at {second[:12]} (a source-native metric "
            "key now differs only in case from another, which changes the names metrics "
            f"are written under ('LATENCY_MS' as '{UPPER}'; docs/export.md, \"Metric keys "
            "that differ only in case\")): files already written cannot take the new "
            "columns; make a full export into a new directory") in done.output
    assert sorted(p.name for p in (out / "runs").iterdir()) == before


def test_a_stored_key_spelled_as_the_written_name_still_exports(runner, store, kit, tmp_path):
    """r79 F3: one run's ``LATENCY_MS`` and ``LATENCY_MS~ce46...`` (which the gate and KI224
    accept) beside another's ``latency_ms`` stopped every CSV and JSON Lines export."""
    import duckdb

    docs, base = _docs(kit)
    add_docs(store, [*docs, _run(kit, base, 0, "lower", {"latency_ms": 1.5}),
                     _run(kit, base, 1, "squat", {"LATENCY_MS": 999.0, UPPER: 5.0})])
    again = "LATENCY_MS~ce467cc873d21bd0~3da653ad42b7432b"
    csv_out, jsonl_out = tmp_path / "csv", tmp_path / "jsonl"
    export_ok(runner, store, csv_out, "--format", "csv")
    rows = duckdb.connect().execute(
        f"""SELECT name, sourceNative ->> '$.latency_ms', sourceNative ->> '$."{UPPER}"',
                   sourceNative ->> '$.LATENCY_MS'
            FROM read_csv('{csv_out}/runs/*.csv') ORDER BY name""").fetchall()
    assert rows == [("lower", "1.5", None, None), ("squat", None, "5", "999")]
    export_ok(runner, store, jsonl_out, "--format", "jsonl")
    rows = duckdb.connect().execute(
        f"""SELECT name, sourceNative.latency_ms, sourceNative."{UPPER}",
                   sourceNative."{again}"
            FROM read_json('{jsonl_out}/runs/*.jsonl') ORDER BY name""").fetchall()
    assert rows == [("lower", 1.5, None, None), ("squat", None, 5.0, 999.0)]
    manifest = json.loads((jsonl_out / "_manifest.json").read_text())
    (native,) = [c for c in manifest["tables"]["runs"]["columns"]
                 if c["name"] == "sourceNative"]
    assert native["renamed"] == {"LATENCY_MS": again}
