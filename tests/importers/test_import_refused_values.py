"""A record whose manifest fails its schema is told at the record's own value, in its unit.

fresh01 F1, on a copy of the real FlashInfer Trace data with line 2 of
``traces/gemm/gemm_n_4096_k_4096.jsonl`` set to ``"latency_ms": 1e-12``: the import said
``...:2:1: trace: the BenchmarkRun built from it is invalid at /spec/timing/latencyNs/mean:
field 'mean': 1e-06 is less than the minimum of 1``: a pointer into the built manifest, a
value (1e-06 ns) the file does not hold, and (at ``12345678901.5``) advice for a manifest's
author ("write it in a larger unit"). Each importer now names the record's pointer, its
value as the file states it and in the manifest's unit, and what an import can do.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from decimal import Decimal
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kistore.cli import main
from kistore.core.errors import shorten
from kistore.importers import flashinfer_trace, kernelbench
from kistore.importers._refused import told
from kistore.importers.common import IMPORT_ADVICE, Record, ms_to_ns

from ..conftest import DATA, requires_data, snapshot

MEAN = "field 'mean': 1e-06 is less than the minimum of 1"
TRACE_RUN = ("flashinfer-trace-gemm-n-4096-k-4096-triton-gpt-o3-m-248-"
             "20250722t125458303693")


def _copy(tmp_path: Path, source: str) -> Path:
    """A copy of shared/data/SOURCE (its SOURCE.md too) under tmp, to edit."""
    folder = tmp_path / "src" / source
    shutil.copytree(DATA / source, folder)
    return folder


def _set_latency(path: Path, line: int, value: str) -> None:
    """Set ``latency_ms`` on one line of a JSON Lines file, in the file's own text."""
    lines = path.read_text().split("\n")
    lines[line - 1], found = re.subn(r'"latency_ms": [^,}]+', f'"latency_ms": {value}',
                                     lines[line - 1], count=1)
    assert found == 1
    path.write_text("\n".join(lines))


def _import(runner, store_path: Path, *args: str):
    return runner.invoke(main, ["--store", str(store_path), "import", *args])


def _refused(runner, store_path: Path, *args: str) -> list[str]:
    """Import, expecting a refusal that writes nothing; return its ``error:`` lines."""
    before = snapshot(store_path)
    result = _import(runner, store_path, *args)
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    assert snapshot(store_path) == before
    return [line for line in result.stderr.splitlines() if line.startswith("error: ")]


@requires_data
@pytest.mark.parametrize(("stated", "said", "problem"), [
    ("1e-12", "1e-12 ms = 1e-06 ns", MEAN),
    ("12345678901.5", "12345678901.5 ms = 12345678901500000 ns",
     "integer 12345678901500000 is outside +/-(2**53 - 1)"),  # no "larger unit" advice
])
def test_a_flashinfer_trace_latency_is_told_at_the_line_in_ms_and_ns(
        runner, store_path, tmp_path, stated, said, problem):
    folder = _copy(tmp_path, "flashinfer-trace")
    trace = folder / "traces/gemm/gemm_n_4096_k_4096.jsonl"
    _set_latency(trace, 2, stated)
    assert _refused(runner, store_path, "flashinfer-trace", str(folder)) == [
        f"error: {trace.as_posix()}:2:1:/evaluation/performance/latency_ms: trace: its "
        f"BenchmarkRun {TRACE_RUN!r} is refused at /spec/timing/latencyNs/mean, the "
        f"record's {said}: {problem}; the record is the source's and cannot be imported as "
        "it is: --skip-invalid leaves it out; report it upstream"]


@requires_data
def test_skip_invalid_leaves_the_trace_out_with_the_same_words(runner, store_path, tmp_path):
    folder = _copy(tmp_path, "flashinfer-trace")
    trace = folder / "traces/gemm/gemm_n_4096_k_4096.jsonl"
    _set_latency(trace, 2, "1e-12")
    result = _import(runner, store_path, "--skip-invalid", "--json", "flashinfer-trace",
                     str(folder))
    assert result.exit_code == 0, result.output
    assert [line for line in result.stderr.splitlines() if line.startswith("warning: ")] == [
        f"warning: {trace.as_posix()}:2:1:/evaluation/performance/latency_ms: trace: its "
        f"BenchmarkRun {TRACE_RUN!r} is refused at /spec/timing/latencyNs/mean, the "
        f"record's 1e-12 ms = 1e-06 ns: {MEAN}; {IMPORT_ADVICE} (record skipped)"]
    assert json.loads(result.stdout)["runs"] == 171  # the 172 of shared/data but this one


@requires_data
def test_a_sol_execbench_board_row_latency_is_told_at_the_row(runner, store_path, tmp_path):
    folder = _copy(tmp_path, "sol-execbench")
    board = folder / "leaderboard/kernel-10/leaderboard-snapshot.json"
    value = json.loads(board.read_text())
    row = value["response"]["data"]["rankings"][5]
    assert (row["submission_id"], row["latency_ms"]) == (20171, 0.025401)
    row["latency_ms"] = 1e-12
    board.write_text(json.dumps(value, indent=2))
    assert _refused(runner, store_path, "sol-execbench", str(board)) == [
        f"error: {board.as_posix()}:/response/data/rankings/5/latency_ms: kernel 10 "
        "submission 20171: its BenchmarkRun 'sol-kernel-10-submission-20171' is refused at "
        f"/spec/timing/latencyNs/mean, the record's 1e-12 ms = 1e-06 ns: {MEAN}; "
        f"{IMPORT_ADVICE}"]


@requires_data
def test_a_sol_execbench_local_trace_latency_is_told_at_the_line(runner, store_path,
                                                                  tmp_path):
    folder = _copy(tmp_path, "sol-execbench")
    run = folder / "runs/10-concrete-view-initial"
    _set_latency(run / "trial-1.jsonl", 1, "1e-12")
    assert _refused(runner, store_path, "sol-execbench", str(run)) == [
        f"error: {(run / 'trial-1.jsonl').as_posix()}:1:1:/evaluation/performance/latency_ms: "
        "trace in sol-execbench/runs/10-concrete-view-initial/trial-1.jsonl: its BenchmarkRun "
        "'sol-local-10-concrete-view-initial-trial-1-3aa8f76c-2f1e-5cd4-b081-c1ef756fad09' is "
        "refused at /spec/timing/latencyNs/mean, the record's 1e-12 ms = 1e-06 ns: "
        f"{MEAN}; {IMPORT_ADVICE}"]


@requires_data
def test_a_kernelbench_statistic_is_told_at_the_problem_in_ms_and_ns(
        runner, store_path, tmp_path, monkeypatch):
    folder = _copy(tmp_path, "kernelbench")
    timing = folder / "H100_Modal/baseline_time_torch.json"
    value = json.loads(timing.read_text())
    problem = value["level1"]["1_Square_matrix_multiplication_.py"]
    assert (problem["min"], problem["mean"]) == (2.65, 2.66)
    problem["min"] = 1e-12
    timing.write_text(json.dumps(value))
    # known by its bytes as the real file is (a KernelBench file imports only so)
    known = kernelbench.KNOWN_FILES[hashlib.sha256(
        (DATA / "kernelbench/H100_Modal/baseline_time_torch.json").read_bytes()).hexdigest()]
    monkeypatch.setitem(kernelbench.KNOWN_FILES,
                        hashlib.sha256(timing.read_bytes()).hexdigest(), known)
    assert _refused(runner, store_path, "kernelbench", str(timing)) == [
        f"error: {timing.as_posix()}:/level1/1_Square_matrix_multiplication_.py/min: "
        "level1/1_Square_matrix_multiplication_.py: its BenchmarkRun "
        "'kernelbench-h100-modal-eager-level1-1-square-matrix-multiplication' is refused at "
        "/spec/timing/latencyNs/min, the record's 1e-12 ms = 1e-06 ns: field 'min': 1e-06 is "
        f"less than the minimum of 1; {IMPORT_ADVICE}"]


def test_a_value_the_importer_cannot_place_keeps_the_manifest_pointer_labelled_so():
    record = Record("x.jsonl", list, line=3, label="trace", value={"a": 1})
    assert told(record, "Workload", "w", "/spec/cases", "expected an array") == (
        "", "trace: its Workload 'w' is refused at /spec/cases (a pointer into the Workload, "
            f"not the record): expected an array; {IMPORT_ADVICE}")


def test_a_field_covers_the_values_below_it_without_its_unit():
    record = Record("k.json", list, pointer="/level1/p.py", label="level1/p.py",
                    fields=kernelbench.FIELDS, value={"mean": 2.66, "extra": {"a~b": [7]}})
    assert told(record, "BenchmarkRun", "r", "/spec/sourceNative/metrics/extra/a~0b/0",
                "too large", others=2) == (
        "/level1/p.py/extra/a~0b/0",
        "level1/p.py: its BenchmarkRun 'r' (built from 2 other record(s) too) is refused at "
        f"/spec/sourceNative/metrics/extra/a~0b/0, the record's 7: too large; {IMPORT_ADVICE}")
    # a mapped field the record does not hold is said at the manifest's pointer
    assert told(record, "BenchmarkRun", "r", "/spec/timing/latencyNs/std", "m")[0] == \
        "/level1/p.py"


@requires_data
@pytest.mark.parametrize(("stated", "problem"), [
    ("1e305", "number 1e305 is whole and outside +/-(2**53 - 1), where JSON readers disagree "
              "on its value (RFC 7493)"),  # not "write it in a larger unit"
    ("NaN", "NaN is not JSON"),  # not "write a number, or null or leave the field out"
])
def test_a_number_the_parser_refuses_in_a_trace_gets_the_import_s_advice(
        runner, store_path, tmp_path, stated, problem):
    folder = _copy(tmp_path, "flashinfer-trace")
    trace = folder / "traces/gemm/gemm_n_4096_k_4096.jsonl"
    _set_latency(trace, 2, stated)
    assert _refused(runner, store_path, "flashinfer-trace", str(folder)) == [
        f"error: {trace.as_posix()}:2:391:/evaluation/performance/latency_ms: trace: "
        f"{problem}; {IMPORT_ADVICE}"]


@given(st.floats(min_value=0, max_value=1e300, allow_nan=False, allow_infinity=False))
def test_a_trace_latency_is_said_as_the_line_states_it_and_as_the_run_keeps_it(ms):
    record = Record("t.jsonl", list, line=2, label="trace", fields=flashinfer_trace.FIELDS,
                    value={"evaluation": {"performance": {"latency_ms": ms}}})
    pointer, message = told(record, "BenchmarkRun", "r", "/spec/timing/latencyNs/mean", "m")
    assert pointer == "/evaluation/performance/latency_ms"
    assert message == (f"trace: its BenchmarkRun 'r' is refused at /spec/timing/latencyNs/mean, "
                       f"the record's {shorten(json.dumps(ms))} ms = "
                       f"{shorten(json.dumps(ms_to_ns(ms)))} ns: m; {IMPORT_ADVICE}")
    # the ns said are the ms said times 10**6: exactly, or the nearest double
    assert float(Decimal(json.dumps(ms)) * 10**6) == float(json.dumps(ms_to_ns(ms)))
