"""``kistore import``: exit codes, summary lines, one error line per bad record."""

from __future__ import annotations

import json
import os
import shutil

from kistore.cli import main
from kistore.core import layout
from kistore.core.digest import Digest

from ..conftest import DATA, git, requires_data, snapshot

BOARD = DATA / "sol-execbench/leaderboard/kernel-121/leaderboard-snapshot.json"


def run(runner, store_path, *args):
    return runner.invoke(main, ["--store", str(store_path), *args])


@requires_data
def test_import_prints_counts_per_kind_and_commits(runner, store_path):
    result = run(runner, store_path, "import", "--commit", "sol-execbench", str(BOARD))
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["kind", "added", "unchanged"]
    assert lines[1:6] == [
        f"{'Workload':<22}{1:>7}{0:>11}",
        f"{'BenchmarkProtocol':<22}{1:>7}{0:>11}",
        f"{'ExecutionEnvironment':<22}{1:>7}{0:>11}",
        f"{'Implementation':<22}{15:>7}{0:>11}",
        f"{'BenchmarkRun':<22}{15:>7}{0:>11}",
    ]
    assert lines[6] == "15 runs from 15 records; 0 skipped, 0 files ignored"
    assert git(store_path, "status", "--porcelain") == ""
    assert "kistore import sol-execbench: 15 runs from 1 file" in git(
        store_path, "log", "-1", "--format=%s")


@requires_data
def test_second_import_json_reports_everything_unchanged(runner, store_path):
    assert run(runner, store_path, "import", "sol-execbench", str(BOARD)).exit_code == 0
    before = snapshot(store_path)
    result = run(runner, store_path, "import", "--json", "sol-execbench", str(BOARD))
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["runs"] == 15 and report["records"] == 15
    assert report["counts"]["BenchmarkRun"] == {"added": 0, "unchanged": 15,
                                                "metadata-updated": 0}
    assert {m["status"] for m in report["manifests"]} == {"unchanged"}
    assert snapshot(store_path) == before


@requires_data
def test_directory_walk_notes_ignored_files(runner, store_path, tmp_path):
    folder = tmp_path / "kernelbench"
    shutil.copytree(DATA / "kernelbench/H100_Modal", folder / "H100_Modal")
    shutil.copy(DATA / "kernelbench/SOURCE.md", folder)  # names files relative to the data
    (folder / "H100_Modal/notes.txt").write_text("not data")
    result = run(runner, store_path, "import", "kernelbench", str(folder))
    assert result.exit_code == 0, result.output
    assert (f"note: {folder.as_posix()}/H100_Modal/notes.txt: not an import format of kernelbench "
            "(ignored)") in result.stderr.splitlines()


FIFO = ("a FIFO, socket or device, not a regular file: kistore reads manifests only from "
        "regular files in a directory (it never opens this one); move it out of the "
        "directory, or give it on the command line to read it as a stream")


@requires_data
def test_a_fifo_in_a_walked_folder_is_refused_as_add_refuses_it(runner, store_path, tmp_path):
    # fresh14 F14: walked past unsaid, "0 files ignored"; now named as `add DIR` names it,
    # looked at, never opened (opening it would wait for a writer: the test would hang)
    folder = tmp_path / "kernelbench"
    shutil.copytree(DATA / "kernelbench/H100_Modal", folder / "H100_Modal")
    shutil.copy(DATA / "kernelbench/SOURCE.md", folder)
    os.mkfifo(folder / "H100_Modal/extra.json")
    os.mkfifo(folder / "notes.md")  # any name: no note would say it
    before = snapshot(store_path)
    result = run(runner, store_path, "import", "kernelbench", str(folder))
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == (f"error: {folder}/H100_Modal/extra.json: {FIFO}\n"
                             f"error: {folder}/notes.md: {FIFO}\n"
                             "error: 2 problems in all; nothing was added\n")
    assert snapshot(store_path) == before
    # the same words as `add DIR`'s
    (tmp_path / "dd").mkdir()
    os.mkfifo(tmp_path / "dd/x.jsonl")
    added = run(runner, store_path, "add", str(tmp_path / "dd"))
    assert (added.exit_code, added.stderr) == (1, f"error: {tmp_path}/dd/x.jsonl: {FIFO}\n")


@requires_data
def test_a_fifo_source_md_in_a_walked_folder_is_refused_as_add_refuses_it(runner, store_path,
                                                                          tmp_path):
    # fetch02's leftover: a FIFO SOURCE.md was passed over unsaid by its name, so its folder
    # was simply no source folder (unsourced); now refused in `add DIR`'s words, unopened
    folder = tmp_path / "kernelbench"
    shutil.copytree(DATA / "kernelbench/H100_Modal", folder / "H100_Modal")
    os.mkfifo(folder / "SOURCE.md")
    before = snapshot(store_path)
    result = run(runner, store_path, "import", "kernelbench", str(folder))
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == f"error: {folder}/SOURCE.md: {FIFO}\n"
    assert snapshot(store_path) == before


def _broken_board(tmp_path):
    target = tmp_path / "board.json"
    value = json.loads(BOARD.read_text())
    value["response"]["data"]["rankings"][2]["submitted_at"] = "last tuesday"
    target.write_text(json.dumps(value))
    return target


@requires_data
def test_bad_record_exits_1_names_file_and_pointer_and_writes_nothing(runner, store_path,
                                                                      tmp_path):
    board = _broken_board(tmp_path)
    before = snapshot(store_path)
    result = run(runner, store_path, "import", "--commit", "sol-execbench", str(board))
    assert result.exit_code == 1
    errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert errors == [f"error: {board.as_posix()}:/response/data/rankings/2/submitted_at: "
                      "kernel 121 submission 24003: "  # low00: the row is named
                      "'last tuesday' is not an ISO 8601 date-time "
                      "(e.g. 2026-07-10T03:35:40.526966)"]
    assert "Traceback" not in result.output
    assert snapshot(store_path) == before


@requires_data
def test_skip_invalid_warns_once_per_bad_record_and_imports_the_rest(runner, store_path,
                                                                     tmp_path):
    board = _broken_board(tmp_path)
    result = run(runner, store_path, "import", "--skip-invalid", "--json", "sol-execbench",
                 str(board))
    assert result.exit_code == 0, result.output
    warnings = [line for line in result.stderr.splitlines() if line.startswith("warning:")
                and "SOURCE.md" not in line]  # the board is copied without its SOURCE.md
    assert len(warnings) == 1
    assert warnings[0].startswith(f"warning: {board.as_posix()}:/response/data/rankings/2/")
    assert warnings[0].endswith("(record skipped)")
    assert json.loads(result.stdout)["runs"] == 14


@requires_data
def test_bad_json_lines_name_the_line(runner, store_path, tmp_path):
    data = tmp_path / "flashinfer-trace"
    shutil.copytree(DATA / "flashinfer-trace", data)
    traces = data / "traces/gemm/gemm_n_28672_k_4096.jsonl"
    traces.chmod(0o644)
    lines = traces.read_text().splitlines()
    lines[2] = "{not json"
    traces.write_text("\n".join(lines) + "\n")
    result = run(runner, store_path, "import", "flashinfer-trace", str(data))
    assert result.exit_code == 1
    errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1
    assert errors[0].startswith(f"error: {traces.as_posix()}:3:")


def test_message_without_commit_is_a_usage_error(runner, store_path):
    result = run(runner, store_path, "import", "-m", "hello", "kernelbench", str(DATA))
    assert result.exit_code == 2
    assert "-m/--message needs --commit" in result.output


def test_unknown_source_is_a_usage_error(runner, store_path):
    result = run(runner, store_path, "import", "mlperf", str(DATA))
    assert result.exit_code == 2
    assert "'mlperf' is not one of" in result.output


def test_missing_path_exits_1(runner, store_path, tmp_path):
    result = run(runner, store_path, "import", "kernelbench", str(tmp_path / "nope"))
    assert result.exit_code == 1
    assert f"error: {tmp_path / 'nope'}: no such file or directory" in result.stderr


def test_help_has_an_example(runner):
    result = runner.invoke(main, ["import", "--help"])
    assert result.exit_code == 0
    lines = [line.strip() for line in result.output.splitlines()]
    assert "Example:" in lines and "\\b" not in result.output  # click kept the \b paragraph
    assert "kistore import --commit sol-execbench ../shared/data/sol-execbench" in lines


def _board_listing_a_submission_twice(tmp_path):
    """BOARD with row 2 listed again at the end with another latency (another run, one name)."""
    target = tmp_path / "board.json"
    value = json.loads(BOARD.read_text())
    rankings = value["response"]["data"]["rankings"]
    twin = dict(rankings[2], latency_ms=rankings[2]["latency_ms"] * 2)
    rankings.append(twin)
    target.write_text(json.dumps(value))
    return target, len(rankings) - 1, twin["submission_id"]


@requires_data
def test_a_record_listed_twice_names_both_records_and_skip_invalid_skips_the_second(
        runner, store_path, tmp_path):
    """Two records giving one run name failed the whole import, even with --skip-invalid,
    with a store-level "name is already used" that named neither record."""
    board, last, submission = _board_listing_a_submission_twice(tmp_path)
    name = f"sol-kernel-121-submission-{submission}"
    before = snapshot(store_path)
    result = run(runner, store_path, "import", "sol-execbench", str(board))
    assert result.exit_code == 1
    errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1
    assert errors[0].startswith(
        f"error: {board.as_posix()}:/response/data/rankings/{last}: kernel 121 submission "
        f"{submission}: its BenchmarkRun '{name}' (")
    assert errors[0].endswith(
        f") built from kernel 121 submission {submission} at {board.as_posix()}:/response/"
        "data/rankings/2; the source holds the same record twice with other values: remove "
        "one of them")
    assert snapshot(store_path) == before
    result = run(runner, store_path, "import", "--skip-invalid", "--json", "sol-execbench",
                 str(board))
    assert result.exit_code == 0, result.output
    warnings = [line for line in result.stderr.splitlines() if line.startswith("warning:")
                and "SOURCE.md" not in line]  # the board is copied without its SOURCE.md
    assert warnings == [errors[0].replace("error:", "warning:", 1) + " (record skipped)"]
    report = json.loads(result.stdout)
    assert report["runs"] == last and report["records"] == last + 1
    # the first listing is the one imported
    shown = run(runner, store_path, "show", "--json", f"BenchmarkRun/{name}")
    assert shown.exit_code == 0, shown.output
    first = json.loads(board.read_text())["response"]["data"]["rankings"][2]
    assert json.loads(shown.stdout)["sourceNative"]["metrics"]["latency_ms"] == \
        first["latency_ms"]


@requires_data
def test_an_interrupt_after_the_import_landed_says_so_and_exits_0(runner, store_path,
                                                                   monkeypatch):
    # It printed click's "Aborted!" (exit 1), though the import was stored and committed;
    # later "nothing was added" (exit 130) for a signal as the write lock was let go.
    import contextlib
    import os
    import signal

    from kistore.store import Store

    real = Store._write_lock

    @contextlib.contextmanager
    def letting_go(self):
        with real(self):
            yield
        os.kill(os.getpid(), signal.SIGINT)  # the import has landed: it undoes nothing

    monkeypatch.setattr(Store, "_write_lock", letting_go)
    result = run(runner, store_path, "import", "--commit", "sol-execbench", str(BOARD))
    assert result.exit_code == 0, result.output
    head = git(store_path, "rev-parse", "HEAD").strip()
    assert "interrupted after the import had landed: all " in result.stderr
    assert f"manifests are stored and committed as {head}; nothing was undone" in result.stderr
    assert git(store_path, "status", "--porcelain") == ""


@requires_data
def test_kernelbench_files_are_recognised_by_content_in_any_folder(runner, store_path,
                                                                   tmp_path):
    # Issue 18: a KernelBench copy in a folder not named `kernelbench` was refused whole.
    original = run(runner, store_path, "import", "--json", "kernelbench",
                   str(DATA / "kernelbench/H100_Modal/baseline_time_torch.json"))
    assert original.exit_code == 0, original.output
    copy = tmp_path / "downloads" / "timings"
    copy.mkdir(parents=True)
    shutil.copy(DATA / "kernelbench/H100_Modal/baseline_time_torch.json", copy / "modal.json")
    shutil.copy(DATA / "kernelbench/H100_PCIe_LambdaLabs/baseline_time_torch.json",
                copy / "baseline_time_torch.json")
    result = run(runner, store_path, "import", "--json", "kernelbench", str(copy.parent))
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    by_digest = {m["digest"]: m for m in report["manifests"]}
    for m in json.loads(original.stdout)["manifests"]:  # the same manifests: unchanged
        assert by_digest[m["digest"]]["status"] == "unchanged", m["name"]
    assert any(m["name"].startswith("kernelbench-h100-pcie-lambdalabs-eager-")
               for m in report["manifests"])


def test_an_import_that_recognises_no_file_exits_1(runner, store_path, tmp_path):
    # Issue 18: `kistore import` of a folder with nothing of the source's formats exited 0.
    folder = tmp_path / "elsewhere"
    folder.mkdir()
    (folder / "notes.txt").write_text("not data")
    (folder / "other.json").write_text('{"level1": {}}')
    for source in ("kernelbench", "sol-execbench", "flashinfer-trace"):
        result = run(runner, store_path, "import", source, str(folder))
        assert result.exit_code == 1, (source, result.output)
        assert result.stderr.splitlines()[-1] == (
            f"error: nothing to import: no file of {folder} is a {source} file (2 file(s) "
            "ignored); name the source's folder or files (docs/importers.md lists each "
            "source's formats)")
        assert git(store_path, "status", "--porcelain") == ""


@requires_data
def test_sol_execbench_and_flashinfer_files_are_recognised_by_content(runner, store_path,
                                                                      tmp_path):
    # Issue 18: files were known by their names and folders only; copies elsewhere, renamed,
    # were ignored.
    copy = tmp_path / "copy"
    copy.mkdir()
    shutil.copy(BOARD, copy / "board-121.json")
    result = run(runner, store_path, "import", "--json", "sol-execbench", str(copy))
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["runs"] == 15
    flat = tmp_path / "flat"
    flat.mkdir()
    trace = DATA / "flashinfer-trace"
    shutil.copy(trace / "definitions/gemm/gemm_n_4096_k_4096.json", flat)
    shutil.copy(trace / "traces/gemm/gemm_n_4096_k_4096.jsonl", flat / "t.jsonl")
    shutil.copy(trace / "traces/workloads/gemm/gemm_n_4096_k_4096.workload.jsonl",
                flat / "w.jsonl")
    original = run(runner, store_path, "import", "--json", "flashinfer-trace",
                   str(trace / "definitions/gemm/gemm_n_4096_k_4096.json"),
                   str(trace / "traces/gemm/gemm_n_4096_k_4096.jsonl"),
                   str(trace / "traces/workloads/gemm/gemm_n_4096_k_4096.workload.jsonl"))
    assert original.exit_code == 0, original.output
    from kistore.store import Store

    Store.init(tmp_path / "other")  # provenance annotations name the files: another store
    result = run(runner, tmp_path / "other", "import", "--json", "flashinfer-trace", str(flat))
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["ignored"] == []
    assert (report["runs"], report["records"]) == (json.loads(original.stdout)["runs"],
                                                   json.loads(original.stdout)["records"])
    assert report["runs"] > 0


@requires_data
def test_errors_name_the_path_as_typed_and_provenance_keeps_the_data_name(
        runner, store_path, tmp_path, monkeypatch):
    # Importers name a file relative to the data root (the provenance name); errors named
    # it so too: `sol-execbench/...` where the person typed `../data/sol-execbench/...`,
    # a path that cannot be opened from where the command ran (review 2026-12-01).
    root = tmp_path / "data/sol-execbench"
    (root / "leaderboard/kernel-121").mkdir(parents=True)
    shutil.copy(DATA / "sol-execbench/SOURCE.md", root)
    shutil.copy(BOARD, root / "leaderboard/kernel-121")
    broken = root / "leaderboard/kernel-121/board.json"
    shutil.copy(_broken_board(tmp_path), broken)
    (root / "leaderboard/kernel-121/notes.txt").write_text("not data")
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    typed = "../data/sol-execbench/leaderboard/kernel-121/board.json"
    result = run(runner, store_path, "import", "sol-execbench", typed)
    assert result.exit_code == 1
    assert [line for line in result.stderr.splitlines() if line.startswith("error:")] == [
        f"error: {typed}:/response/data/rankings/2/submitted_at: kernel 121 submission "
        "24003: 'last tuesday' is not an ISO 8601 date-time (e.g. 2026-07-10T03:35:40.526966)"]
    # a file named that is no import format: refused while planning, named as typed
    (root / "leaderboard/kernel-121/stray.txt").write_text("not data")
    stray = "../data/sol-execbench/leaderboard/kernel-121/stray.txt"
    result = run(runner, store_path, "import", "sol-execbench", stray)
    assert result.exit_code == 1
    assert result.stderr.startswith(f"error: {stray}: not a SOL-ExecBench import format")
    # skipped with a warning, and a folder's ignored file: as typed too
    (root / "leaderboard/kernel-121/leaderboard-snapshot.json").unlink()
    result = run(runner, store_path, "import", "--skip-invalid", "--json", "sol-execbench",
                 "../data/sol-execbench")
    assert result.exit_code == 0, result.output
    stderr = result.stderr.splitlines()
    assert [line[:len(typed) + 11] for line in stderr if line.startswith("warning:")] == [
        f"warning: {typed}:/"]
    assert ("note: ../data/sol-execbench/leaderboard/kernel-121/notes.txt: not an import "
            "format of sol-execbench (ignored)") in stderr
    run_digest = next(m["digest"] for m in json.loads(result.stdout)["manifests"]
                      if m["kind"] == "BenchmarkRun")
    metadata = store_path / layout.metadata_path(Digest.from_str(run_digest))
    annotations = json.loads(metadata.read_text())["annotations"]
    assert json.loads(result.stdout)["runs"] == 14
    # provenance keeps the name relative to the data root, wherever the import ran from
    assert annotations["kernelindex.dev/source-file"] == \
        "sol-execbench/leaderboard/kernel-121/board.json"


@requires_data
def test_a_copy_under_another_folder_name_imports_to_the_same_metadata(runner, store_path,
                                                                       tmp_path):
    # Provenance names the source, not the folder: a mirror named otherwise gives the same
    # source-file and the same licence (decided by the `sol-execbench/problems/` prefix),
    # so importing the original afterwards finds every manifest unchanged.
    mirror = tmp_path / "mirror-of-sol"
    shutil.copytree(DATA / "sol-execbench/problems/119", mirror / "problems/119")
    shutil.copy(DATA / "sol-execbench/SOURCE.md", mirror)
    result = run(runner, store_path, "import", "--json", "sol-execbench", str(mirror))
    assert result.exit_code == 0, result.output
    added = json.loads(result.stdout)["manifests"]
    assert {m["status"] for m in added} == {"added"}
    workload = next(m for m in added if m["kind"] == "Workload")
    metadata = store_path / layout.metadata_path(Digest.from_str(workload["digest"]))
    annotations = json.loads(metadata.read_text())["annotations"]
    assert annotations["kernelindex.dev/source-file"] == \
        "sol-execbench/problems/119/definition.json"
    assert annotations["kernelindex.dev/license"].startswith("UNCLEAR: github.com/bras6379")
    again = run(runner, store_path, "import", "--json", "sol-execbench",
                str(DATA / "sol-execbench/problems/119"))
    assert again.exit_code == 0, again.output
    assert {m["status"] for m in json.loads(again.stdout)["manifests"]} == {"unchanged"}


@requires_data
def test_reimport_from_the_source_folder_needs_and_takes_update_metadata(runner, store_path,
                                                                        tmp_path):
    # review 2026-12-02: the refusal said "pass --update-metadata", which import had not.
    # Reviewer r88 F1: provenance is corrected before the import is committed; once
    # committed, it stays (KI432, below).
    copy = tmp_path / "board.json"
    shutil.copy(BOARD, copy)
    first = run(runner, store_path, "import", "--json", "sol-execbench", str(copy))
    assert first.exit_code == 0, first.output
    runs = {m["digest"] for m in json.loads(first.stdout)["manifests"]
            if m["kind"] == "BenchmarkRun"}
    before = snapshot(store_path)
    refused = run(runner, store_path, "import", "sol-execbench", str(BOARD))
    assert refused.exit_code == 1
    errors = [line for line in refused.stderr.splitlines() if line.startswith("error:")]
    assert errors.pop() == "error: 15 problems in all; nothing was added"  # r85 F11
    assert len(errors) == 15
    prefix = f"error: {BOARD.as_posix()}:/metadata: "
    assert {line[len(prefix):len(prefix) + 71] for line in errors} == runs
    for line in errors:
        assert line.startswith(prefix)
        assert (" is already stored with other metadata (/annotations/kernelindex.dev~1"
                f'source-file: stored "{copy.as_posix()}", given "sol-execbench/leaderboard/'
                'kernel-121/leaderboard-snapshot.json"; ') in line
        assert line.endswith("); pass --update-metadata to replace it")
    assert snapshot(store_path) == before
    updated = run(runner, store_path, "import", "--update-metadata", "--commit",
                  "sol-execbench", str(BOARD))
    assert updated.exit_code == 0, updated.output
    assert updated.stdout.splitlines()[:6] == [
        f"{'kind':<22}{'added':>7}{'unchanged':>11}{'updated':>9}",
        # the first import was not committed: this one commits them (added, r88 F2b)
        f"{'Workload':<22}{1:>7}{0:>11}{0:>9}",
        f"{'BenchmarkProtocol':<22}{1:>7}{0:>11}{0:>9}",
        f"{'ExecutionEnvironment':<22}{1:>7}{0:>11}{0:>9}",
        f"{'Implementation':<22}{15:>7}{0:>11}{0:>9}",
        f"{'BenchmarkRun':<22}{0:>7}{0:>11}{15:>9}",
    ]
    assert git(store_path, "status", "--porcelain") == ""
    # F9: the commit says what it replaced, a run a line (KIND/NAME DIGEST)
    message = git(store_path, "log", "-1", "--format=%B").rstrip("\n").splitlines()
    assert message[:3] == [
        "kistore import sol-execbench: 15 runs from 1 file; metadata replaced on 15 manifests",
        "", "Metadata replaced (--update-metadata):"]
    assert {line.split()[1] for line in message[3:]} == runs
    assert all(line.startswith("BenchmarkRun/") for line in message[3:])
    for digest in runs:
        metadata = store_path / layout.metadata_path(Digest.from_str(digest))
        annotations = json.loads(metadata.read_text())["annotations"]
        assert annotations["kernelindex.dev/source-file"] == \
            "sol-execbench/leaderboard/kernel-121/leaderboard-snapshot.json"
    again = run(runner, store_path, "import", "--json", "sol-execbench", str(BOARD))
    assert again.exit_code == 0, again.output
    assert {m["status"] for m in json.loads(again.stdout)["manifests"]} == {"unchanged"}
    # committed: the copy's path cannot come back, with the flag or without it
    after = snapshot(store_path)
    for flag in ([], ["--update-metadata"]):
        refused = run(runner, store_path, "import", *flag, "sol-execbench", str(copy))
        assert refused.exit_code == 1
        errors = [line for line in refused.stderr.splitlines() if line.startswith("error:")]
        assert errors.pop() == "error: 30 problems in all; nothing was added"
        assert all(line.startswith(
            f"error: {copy.as_posix()}:/metadata/annotations/kernelindex.dev~1")
            and "(KI432; the gate refuses it)" in line for line in errors), errors
        moved = [line for line in errors if "kernelindex.dev~1source-file: sha256:" in line]
        assert len(moved) == 15 and all(
            "is committed with the provenance annotation 'kernelindex.dev/source-file' "
            "'sol-execbench/leaderboard/kernel-121/leaderboard-snapshot.json', and this "
            f"metadata makes it '{copy.as_posix()}': " in line for line in moved), moved
        assert "--update-metadata" not in refused.stderr
        assert snapshot(store_path) == after


@requires_data
def test_import_update_metadata_never_moves_a_committed_name(runner, store_path, tmp_path):
    # the rule of `add --update-metadata`: a committed run keeps its name
    from kistore.core.model import Manifest
    from kistore.importers import import_files
    from kistore.store import Store

    scratch = Store.init(tmp_path / "scratch")
    report = import_files(scratch, "sol-execbench", [str(BOARD)])
    run_result = next(r for r in report.results if r.kind == "BenchmarkRun")
    document = json.loads((scratch.root / layout.object_path(run_result.digest)).read_text())
    document["metadata"] = json.loads(
        (scratch.root / layout.metadata_path(run_result.digest)).read_text())
    document["metadata"]["name"] = "renamed-by-hand"
    renamed = Manifest.from_document(document)
    assert renamed.digest == run_result.digest
    Store(store_path).add([renamed], allow_dangling=True, commit=True)
    before = snapshot(store_path)
    refused = run(runner, store_path, "import", "--update-metadata", "sol-execbench", str(BOARD))
    assert refused.exit_code == 1
    errors = [line for line in refused.stderr.splitlines() if line.startswith("error:")]
    assert errors == [
        f"error: {BOARD.as_posix()}:/metadata/name: {run_result.digest} is stored as "
        "BenchmarkRun/renamed-by-hand; a name never moves (people cite and link it), so it "
        f"cannot become {run_result.name!r}: keep the name and correct the title or other "
        "metadata"]
    assert snapshot(store_path) == before


@requires_data
def test_an_admission_warning_is_reported_by_import_and_refuses_nothing(store):
    """What a check passed as ``checks=`` warns of (an AdmissionWarning, as KI217) lands
    in the import's warnings, placed on the record's file and pointer; the run is added."""
    from kistore.importers import import_files
    from kistore.store import AdmissionWarning

    warned = []

    def first_run_warned(store_, manifests):
        run_ = min((m for m in manifests if m.kind == "BenchmarkRun"), key=lambda m: m.digest)
        warned.append(run_.digest)
        return [(run_.digest, AdmissionWarning("a test warning", pointer="/spec/status"))]

    report = import_files(store, "sol-execbench", [str(BOARD)], checks=(first_run_warned,))
    assert report.warnings == [f"{BOARD.as_posix()}:/spec/status: a test warning"]
    by_digest = {r.digest: r for r in report.results}
    assert by_digest[warned[0]].status == "added"
    assert by_digest[warned[0]].warnings == (report.warnings[0],)
    assert sum(1 for r in report.results if r.warnings) == 1


def test_a_kernelbench_file_of_unknown_bytes_is_refused_saying_what_imports(
        runner, store_path, tmp_path):
    """review r85 F23: the refusal did not say that only the three known files import, nor
    what to do with a newer upstream file."""
    from kistore.importers.kernelbench import KNOWN_FILES

    path = tmp_path / "baseline_time_torch.json"
    path.write_text('{"level1": {}}')
    result = run(runner, store_path, "import", "kernelbench", str(path))
    assert result.exit_code == 1, result.output
    names = ", ".join(n for n, _, _ in KNOWN_FILES.values())
    assert f"error: {path}: not a known upstream" in result.stderr
    assert [x for x in result.stderr.splitlines() if x.startswith("error: ")][0] == (
        f"error: {path}: not a known upstream KernelBench timing file (by its bytes; known: "
        f"{names}); the file records no measurement time, so kistore cannot give its runs an "
        "observedAt. Only these files import, byte for byte: for a newer upstream file, add "
        "its SHA-256, upstream path, commit and that commit's date to KNOWN_FILES in "
        "kistore/importers/kernelbench.py and run `make catalogue` (a change to kistore: its "
        "runs' digests join the KI226 catalogue), or write its runs as your own manifests "
        "with the observedAt you know, naming no source or your own (a run claiming "
        "kernelbench that kistore's importer does not make is refused, KI226), and `kistore "
        "add` them")
    assert git(store_path, "status", "--porcelain") == ""
