"""A record whose manifest the add refuses is a bad record: told at the record, skippable.

fresh98 MED 5, on the real SOL-ExecBench kernel-10 board with row 5 (submission 20171) set
to ``sol_score: 1.7`` (KI223) and row 7 (submission 19917) to ``latency_ms: "fast"``:
without ``--skip-invalid`` only the latency row was reported (the KI223 one once it was
fixed), at ``FILE:/spec/sourceNative/metrics/sol_score``, a pointer into the manifest
naming no submission; with it, the whole import was refused.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from kistore.cli import main
from kistore.core import layout
from kistore.core.digest import Digest

from ..conftest import DATA, ROOT, requires_data, snapshot

SOL = DATA / "sol-execbench"
BOARD = "leaderboard/kernel-10/leaderboard-snapshot.json"
SOL_SCORE_ERROR = (
    "/response/data/rankings/5/sol_score: kernel 10 submission 20171: its BenchmarkRun "
    "'sol-kernel-10-submission-20171' is refused at /spec/sourceNative/metrics/sol_score, the "
    "record's 1.7: sol-execbench's sol_score lies in [0, 1] (1 is the speed-of-light bound, "
    "0.5 the scoring baseline); the run states 1.7, which no run can score (KI223); the record "
    "is the source's and cannot be imported as it is: --skip-invalid leaves it out; report it "
    "upstream")
LATENCY_ERROR = ("/response/data/rankings/7/latency_ms: kernel 10 submission 19917: field "
                 "'latency_ms': expected a number, found a string: the record states \"fast\" "
                 "(expected by the importer's reading of the source format); the record is the "
                 "source's and cannot be imported as it is: --skip-invalid leaves it out; "
                 "report it upstream")


def _board(tmp_path: Path, *, latency: bool = True) -> Path:
    """The real kernel-10 board in a folder with its SOURCE.md, rows 5 (and 7) made bad."""
    folder = tmp_path / "sol-execbench"
    (folder / BOARD).parent.mkdir(parents=True)
    shutil.copy(SOL / "SOURCE.md", folder)
    value = json.loads((SOL / BOARD).read_text())
    rows = value["response"]["data"]["rankings"]
    assert (rows[5]["submission_id"], rows[5]["sol_score"]) == (20171, 0.50528)
    rows[5]["sol_score"] = 1.7
    if latency:
        assert (rows[7]["submission_id"], rows[7]["latency_ms"]) == (19917, 0.025716)
        rows[7]["latency_ms"] = "fast"
    (folder / BOARD).write_text(json.dumps(value, indent=2))
    return folder / BOARD


def _import(runner, store_path: Path, *args: str):
    return runner.invoke(main, ["--store", str(store_path), "import", *args])


def _lines(result, prefix: str) -> list[str]:
    return [line for line in result.stderr.splitlines() if line.startswith(prefix)]


@requires_data
def test_every_bad_record_is_told_at_its_row_and_nothing_is_written(runner, store_path,
                                                                     tmp_path):
    board = _board(tmp_path)
    before = snapshot(store_path)
    result = _import(runner, store_path, "sol-execbench", str(board))
    assert result.exit_code == 1
    assert _lines(result, "error: ") == [f"error: {board.as_posix()}:{LATENCY_ERROR}",
                                         f"error: {board.as_posix()}:{SOL_SCORE_ERROR}",
                                         "error: 2 problems in all; nothing was added"]
    assert "Traceback" not in result.output
    assert snapshot(store_path) == before


@requires_data
def test_the_add_time_refusal_alone_is_told_at_its_row(runner, store_path, tmp_path):
    board = _board(tmp_path, latency=False)
    result = _import(runner, store_path, "sol-execbench", str(board))
    assert result.exit_code == 1
    assert _lines(result, "error: ") == [f"error: {board.as_posix()}:{SOL_SCORE_ERROR}"]


@requires_data
def test_skip_invalid_leaves_out_both_rows_and_keeps_the_rest_as_the_store_holds_them(
        runner, store_path, tmp_path):
    board = _board(tmp_path)
    result = _import(runner, store_path, "--skip-invalid", "--json", "sol-execbench",
                     str(board))
    assert result.exit_code == 0, result.output
    assert _lines(result, "warning: ") == [
        f"warning: {board.as_posix()}:{LATENCY_ERROR} (record skipped)",
        f"warning: {board.as_posix()}:{SOL_SCORE_ERROR} (record skipped)"]
    report = json.loads(result.stdout)
    assert (report["records"], report["runs"]) == (23, 21)
    runs = {m["name"]: m["digest"] for m in report["manifests"] if m["kind"] == "BenchmarkRun"}
    assert "sol-kernel-10-submission-20171" not in runs
    assert "sol-kernel-10-submission-19917" not in runs
    # the other rows: the very objects and metadata (provenance) this repository's store
    # holds, imported from shared/data
    assert runs["sol-kernel-10-submission-19716"] == (  # row 4, beside the bad row 5
        "sha256:34b6230a2cd79fbfacf072f3c296fbb9aca31a02597f7c0abda1090a3453b7f4")
    for digest in runs.values():
        for path in (layout.object_path(Digest.from_str(digest)),
                     layout.metadata_path(Digest.from_str(digest))):
            assert (store_path / path).read_bytes() == (ROOT / path).read_bytes(), path
    implementations = {m["name"] for m in report["manifests"] if m["kind"] == "Implementation"}
    assert len(implementations) == 21  # the skipped rows' implementations are left out too
