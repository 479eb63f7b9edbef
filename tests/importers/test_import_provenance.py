"""Provenance warnings of ``kistore import``: files outside their source's folder.

A file's path inside the folder holding its source's ``SOURCE.md`` names it in the
manifests (``kernelindex.dev/source-file``) and, for SOL-ExecBench, decides its upstream
and a problem folder's licence; the rest each importer knows otherwise (KernelBench by a
file's bytes). The warnings must say what the manifests actually record: checked here
against the stored metadata, for each source, with no, an empty and a foreign SOURCE.md
(review 2026-12-02). SOL-ExecBench and FlashInfer Trace use small fixtures written here;
KernelBench is known only by the bytes of its real files (skipped without shared/data).
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from kistore.cli import main
from kistore.importers import (
    FOLDER_DECIDES,
    SOURCE_REPOSITORIES,
    import_files,
    names_repository,
    plan_import,
)
from kistore.importers import flashinfer_trace as fi
from kistore.importers import sol_execbench as sol
from kistore.store import Store

from ..conftest import DATA, requires_data

A = "kernelindex.dev/"
SOL_REPOSITORIES = ("github.com/NVIDIA/SOL-ExecBench, github.com/SamMausberg/sol-execbench-b200-"
                    "kernels, github.com/bras6379/sol-execbench-solver")
STUBS = {
    "empty": b"",
    "foreign": b"# KernelBench\n\nRepository: `github.com/ScalingIntelligence/KernelBench`\n",
}
"""SOURCE.md files that name none of the repositories of sol-execbench or flashinfer-trace."""
BOARD_UPSTREAM = sol.SNAPSHOT_UPSTREAMS[
    "sol-execbench/leaderboard/kernel-3/leaderboard_snapshot.json"]


def _write(path: Path, value: object, *, lines: bool = False) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    values = value if lines else [value]
    assert isinstance(values, list)
    path.write_text("\n".join(json.dumps(v) for v in values) + "\n")


def _sol(root: Path) -> Path:
    """A SOL-ExecBench folder: a one-row board, a one-trace run folder, a problem folder.

    Their paths are those of shared/data's files, so inside a folder holding a SOURCE.md
    the importer knows each one's upstream (and the problem's licence) by its path.
    """
    _write(root / "leaderboard/kernel-3/leaderboard_snapshot.json", {
        "url": "https://research.nvidia.com/benchmarks/sol-execbench/api/leaderboard/kernel/3",
        "retrieved_at": "2026-09-06T12:00:00.123456",
        "response": {"data": {
            "kernel_name": "003_fixture", "kernel_id": 3, "gpu_type": "B200",
            "evaluation_stack_version": "v1.1", "latency_unit": "ms",
            "rankings": [{"username": "alice", "rank": 1, "submission_id": 11, "user_id": 7,
                          "submitted_at": "2026-09-01T10:00:00", "sol_score": 0.6,
                          "latency_ms": 0.02, "avg_speedup": 1.5, "fast_1_count": 3,
                          "fast_1_total": 4}]}},
    })
    run = root / "runs/10-concrete-view-initial"
    _write(run / "summary.json", {
        "clock_mode": "unlocked", "evaluation_stack": "v1.1", "evaluator_revision": "abc123",
        "website_id": 10, "submission_sha256": "00" * 32, "workloads": [{"axes": {"n": 4}}]})
    _write(run / "trial-1.jsonl", [{
        "definition": "010_fixture", "solution": "mine", "workload": {"uuid": "w1",
                                                                      "axes": {"n": 4}},
        "evaluation": {"status": "PASSED", "performance": {"latency_ms": 0.5},
                       "environment": {"hardware": "NVIDIA B200"},
                       "timestamp": "2026-09-06T18:01:07"}}], lines=True)
    problem = root / "problems/119"
    _write(problem / "definition.json", {
        "name": "025_fixture", "axes": {"n": {"type": "var"}},
        "inputs": {"x": {"shape": ["n"], "dtype": "float32"}},
        "outputs": {"y": {"shape": ["n"], "dtype": "float32"}},
        "reference": "def run(x):\n    return x\n"})
    _write(problem / "workload.jsonl", [{"uuid": "c1", "axes": {"n": 8},
                                         "inputs": {"x": {"type": "random"}}}], lines=True)
    return root


def _flashinfer(root: Path) -> Path:
    """A FlashInfer Trace folder: one definition, one workload line, one trace line."""
    _write(root / "definitions/gemm/gemm_fixture.json", {
        "name": "gemm_fixture", "type": "gemm", "axes": {"M": {"type": "var"}},
        "inputs": {"A": {"shape": ["M"], "dtype": "float16"}},
        "outputs": {"C": {"shape": ["M"], "dtype": "float16"}},
        "reference": "def run(A):\n    return {'C': A}\n"})
    case = {"axes": {"M": 8}, "inputs": {"A": {"type": "random"}}}
    _write(root / "traces/workloads/gemm/gemm_fixture.workload.jsonl", [{
        "definition": "gemm_fixture", "solution": "", "workload": {"uuid": "u1", **case},
        "evaluation": {}}], lines=True)
    _write(root / "traces/gemm/gemm_fixture.jsonl", [{
        "definition": "gemm_fixture", "solution": "triton_a", "workload": case,
        "evaluation": {"status": "PASSED", "performance": {"latency_ms": 0.25},
                       "correctness": {"max_absolute_error": 0.0, "max_relative_error": 0.0},
                       "environment": {"device": "NVIDIA B200", "libs": {"torch": "2.7.1"}},
                       "timestamp": "2025-07-01T00:00:00"}}], lines=True)
    return root


def _kernelbench(root: Path) -> Path:
    """A KernelBench folder: one real timing file (known by its bytes), under another name."""
    root.mkdir(parents=True)
    shutil.copy(DATA / "kernelbench/H100_Modal/baseline_time_torch.json", root / "timing.json")
    return root


FIXTURES = {"sol-execbench": _sol, "flashinfer-trace": _flashinfer, "kernelbench": _kernelbench}


def _folder(tmp_path: Path, source: str, source_md: bytes | None) -> Path:
    """The source's fixture in ``tmp_path/copy``, with that SOURCE.md (None: none)."""
    root = FIXTURES[source](tmp_path / "copy")
    if source_md is not None:
        (root / "SOURCE.md").write_bytes(source_md)
    return root


def _imported(tmp_path: Path, name: str, source: str, folder: Path | list[Path]
              ) -> tuple[list[str], dict[str, dict[str, str]]]:
    """Import ``folder`` (or folders) into a fresh store: the warnings, and each manifest's
    annotations by ``kind/name`` (read back from the stored metadata)."""
    store = Store.init(tmp_path / name)
    folders = folder if isinstance(folder, list) else [folder]
    report = import_files(store, source, [str(f) for f in folders])
    view = store.view()
    stored = {}
    for digest in view.digests():
        m = view.manifest(digest)
        stored[f"{m.kind}/{m.name}"] = json.loads(m.metadata_bytes).get("annotations", {})
    return report.warnings, stored


def _folder_imported(tmp_path: Path, source: str, source_md: bytes | None
                     ) -> tuple[Path, list[str], dict[str, dict[str, str]]]:
    """:func:`_folder` of ``source`` with ``source_md``, imported into a fresh store
    (``tmp_path/store``): the folder, and :func:`_imported`'s warnings and annotations."""
    root = _folder(tmp_path, source, source_md)
    return (root, *_imported(tmp_path, "store", source, root))


def _own_md(source: str) -> bytes:
    """A SOURCE.md naming just one of the source's repositories (the last, sorted)."""
    return f"Repository: `{sorted(SOURCE_REPOSITORIES[source])[-1]}`\n".encode()


def _typed_paths(count: int, example: str, second: str, source: str, then: str) -> str:
    """The warning of an import of ``count`` files from outside ``source``'s folder.

    Their manifests record the path as typed (``example``, the first file) as
    ``kernelindex.dev/source-file`` and ``second`` (``cases-file``, ``definition-file``);
    ``then``: what the warning says after, of upstreams and licences.
    """
    return (f"{count} file(s) are in no folder holding a SOURCE.md (e.g. {example}): their "
            f"manifests record the path as typed as kernelindex.dev/source-file and {second} "
            f"(e.g. {example}), not the path inside {source}'s folder; {then}")


def _under_stub(count: int, naming: str, root: Path, example: str, second: str, source: str,
                then: str) -> str:
    """The warning of an import of ``count`` files under a SOURCE.md that does not name
    ``source``'s repository (``naming`` says what it is) at the top of ``root``.

    ``example``: the first file's path inside ``root``; ``second``: the other path
    annotation (``cases-file``, ``definition-file``); ``then``: what the warning says after,
    of upstreams and licences.
    """
    return (f"{count} file(s) are under {naming} ({(root / 'SOURCE.md').resolve()}; e.g. "
            f"{root.as_posix()}/{example}), perhaps not {source}'s folder: their manifests "
            "record the path inside that SOURCE.md's folder as kernelindex.dev/source-file "
            f"and {second} (e.g. {source}/{example}), {source}'s own path only if that "
            f"folder is a copy of {source}'s; {then}")


def _same_under_its_own(tmp_path: Path, source: str, root: Path,
                        stored: dict[str, dict[str, str]]) -> None:
    """Under a SOURCE.md naming ``source``'s repository, ``root`` imports with no warning
    and the metadata ``stored`` (what the import under a stub recorded)."""
    (root / "SOURCE.md").write_bytes(_own_md(source))
    again, own = _imported(tmp_path, "own", source, root)
    assert again == [] and stored == own


# -- no SOURCE.md ---------------------------------------------------------------------------


def test_sol_execbench_without_source_md_warns_of_typed_paths_and_no_upstream(tmp_path):
    root, warnings, stored = _folder_imported(tmp_path, "sol-execbench", None)
    board = f"{root.as_posix()}/leaderboard/kernel-3/leaderboard_snapshot.json"
    assert warnings == [_typed_paths(
        3, board, "cases-file", "sol-execbench",
        "no kernelindex.dev/upstream, and the licence 'UNCLEAR: not stated' on 1 of 3: "
        "kistore knows sol-execbench's upstreams and some licences by the path inside its "
        "folder; import from sol-execbench's folder, with its SOURCE.md, to record the paths "
        "inside it and the upstreams they give")]
    # what it says is what is stored
    run = stored["BenchmarkRun/sol-kernel-3-submission-11"]
    assert run[A + "source-file"] == board and A + "upstream" not in run
    problem = stored["Workload/sol-definition-025-fixture"]
    assert problem[A + "source-file"] == f"{root.as_posix()}/problems/119/definition.json"
    assert problem[A + "cases-file"] == f"{root.as_posix()}/problems/119/workload.jsonl"
    assert problem[A + "license"] == "UNCLEAR: not stated" and A + "upstream" not in problem
    local = [v for k, v in stored.items() if k.startswith("BenchmarkRun/sol-local-")]
    assert len(local) == 1 and A + "upstream" not in local[0]


def test_flashinfer_trace_without_source_md_warns_of_typed_paths_only(tmp_path):
    root, warnings, stored = _folder_imported(tmp_path, "flashinfer-trace", None)
    workloads = f"{root.as_posix()}/traces/workloads/gemm/gemm_fixture.workload.jsonl"
    assert warnings == [_typed_paths(
        2, workloads, "definition-file", "flashinfer-trace",
        f"kernelindex.dev/upstream {fi.UPSTREAM} and the licence, as for every "
        "flashinfer-trace file wherever it is; import from flashinfer-trace's folder, with "
        "its SOURCE.md, to record the paths inside it")]
    run = next(v for k, v in stored.items() if k.startswith("BenchmarkRun/"))
    assert run[A + "source-file"] == f"{root.as_posix()}/traces/gemm/gemm_fixture.jsonl"
    assert (run[A + "upstream"], run[A + "license"]) == (fi.UPSTREAM, fi.LICENSE)
    workload = next(v for k, v in stored.items() if k.startswith("Workload/"))
    assert workload[A + "definition-file"] == \
        f"{root.as_posix()}/definitions/gemm/gemm_fixture.json"


@requires_data
@pytest.mark.parametrize("source_md", [None, *STUBS.values()], ids=["none", *STUBS])
def test_kernelbench_anywhere_imports_identically_and_warns_of_nothing(tmp_path, source_md):
    # known by its bytes: upstream, commit, path and licence never come from the folder
    root, warnings, stored = _folder_imported(tmp_path, "kernelbench", source_md)
    assert warnings == []
    _, real = _imported(tmp_path, "real", "kernelbench",
                        DATA / "kernelbench/H100_Modal/baseline_time_torch.json")
    assert stored == real
    run = stored["BenchmarkRun/kernelbench-h100-modal-eager-level1-1-square-matrix-"
                 "multiplication"]
    assert run[A + "source-file"] == "kernelbench/H100_Modal/baseline_time_torch.json"
    assert run[A + "upstream"] == ("github.com/ScalingIntelligence/KernelBench@"
                                   "1f8d20fa06357a9c343f4508887b6da22f114752")


# -- an empty or foreign SOURCE.md ----------------------------------------------------------


@pytest.mark.parametrize("stub", STUBS)
def test_sol_execbench_under_a_stub_source_md_records_what_its_own_would(tmp_path, stub):
    # the paths match shared/data's: the metadata is that of an import under a SOURCE.md
    # naming sol-execbench's repository, upstreams and licences included
    root, warnings, stored = _folder_imported(tmp_path, "sol-execbench", STUBS[stub])
    naming = "an empty SOURCE.md" if stub == "empty" else \
        f"a SOURCE.md naming none of {SOL_REPOSITORIES}"
    assert warnings == [_under_stub(
        3, naming, root, "leaderboard/kernel-3/leaderboard_snapshot.json", "cases-file",
        "sol-execbench",
        f"kernelindex.dev/upstream on all 3 (3 distinct, e.g. {BOARD_UPSTREAM}): kistore "
        "knows sol-execbench's upstreams and some licences by the path inside its folder; if "
        "that folder is not a copy of sol-execbench's, import from sol-execbench's own")]
    _same_under_its_own(tmp_path, "sol-execbench", root, stored)


@pytest.mark.parametrize("stub", STUBS)
def test_flashinfer_trace_under_a_stub_source_md_records_what_its_own_would(tmp_path, stub):
    root, warnings, stored = _folder_imported(tmp_path, "flashinfer-trace", STUBS[stub])
    naming = "an empty SOURCE.md" if stub == "empty" else \
        "a SOURCE.md not naming github.com/xslingcn/flashinfer-trace"
    assert warnings == [_under_stub(
        2, naming, root, "traces/workloads/gemm/gemm_fixture.workload.jsonl",
        "definition-file", "flashinfer-trace",
        f"kernelindex.dev/upstream {fi.UPSTREAM} and the licence, as for every "
        "flashinfer-trace file wherever it is; if that folder is not a copy of "
        "flashinfer-trace's, import from flashinfer-trace's own")]
    _same_under_its_own(tmp_path, "flashinfer-trace", root, stored)


def test_the_cli_prints_each_warning_once(runner, store_path, tmp_path):
    root = _folder(tmp_path, "flashinfer-trace", None)
    result = runner.invoke(main, ["--store", str(store_path), "import", "--json",
                                  "flashinfer-trace", str(root)])
    assert result.exit_code == 0, result.output
    warned = [line for line in result.stderr.splitlines() if line.startswith("warning:")]
    assert len(warned) == 1
    assert warned[0].startswith("warning: 2 file(s) are in no folder holding a SOURCE.md")


def test_one_warning_per_foreign_source_md_after_the_one_for_files_in_none(tmp_path):
    root = _sol(tmp_path / "sol")
    first, second = tmp_path / "first", tmp_path / "second"
    shutil.move(root / "leaderboard", first / "leaderboard")
    shutil.move(root / "problems", second / "problems")
    (first / "SOURCE.md").write_bytes(STUBS["empty"])
    (second / "SOURCE.md").write_bytes(STUBS["foreign"])
    warnings, _ = _imported(tmp_path, "store", "sol-execbench", [root, second, first])
    assert [w[:w.index(" (")] for w in warnings] == [  # then in the order of records
        "1 file(s) are in no folder holding a SOURCE.md",
        "1 file(s) are under an empty SOURCE.md",  # the board
        f"1 file(s) are under a SOURCE.md naming none of {SOL_REPOSITORIES}"]  # the problem
    assert "the licence 'UNCLEAR: not stated'" not in warnings[2]  # problems/ is known


def test_a_skipped_file_is_not_counted_and_nothing_built_warns_of_nothing(tmp_path):
    root = _folder(tmp_path, "flashinfer-trace", None)
    trace = root / "traces/gemm/gemm_fixture.jsonl"
    trace.write_text(trace.read_text().replace('"2025-07-01T00:00:00"', '"yesterday"'))
    store = Store.init(tmp_path / "store")
    report = import_files(store, "flashinfer-trace", [str(trace)], skip_invalid=True)
    assert [str(p) for p in report.skipped] and report.results == [] and report.warnings == []


# -- what each importer takes from the folder -----------------------------------------------


@pytest.mark.parametrize("source", ["sol-execbench", "flashinfer-trace"])
def test_folder_decides_names_exactly_the_annotations_a_folder_changes(tmp_path, source):
    root = _folder(tmp_path, source, None)
    _, outside = _imported(tmp_path, "outside", source, root)
    (root / "SOURCE.md").write_bytes(_own_md(source))
    _, inside = _imported(tmp_path, "inside", source, root)
    assert inside.keys() == outside.keys()
    changed = {key.removeprefix(A) for name in inside
               for key in inside[name].keys() | outside[name].keys()
               if inside[name].get(key) != outside[name].get(key)}
    assert changed == FOLDER_DECIDES[source]


# -- which SOURCE.md names a source ---------------------------------------------------------


def test_a_source_md_naming_any_one_of_the_sources_repositories_is_its_own(tmp_path):
    # sol-execbench's files come from three repositories; naming the leaderboard's alone
    # (SamMausberg/sol-execbench-b200-kernels) was warned of as another source's
    assert len(SOURCE_REPOSITORIES["sol-execbench"]) == 3
    for repository in SOURCE_REPOSITORIES["sol-execbench"]:
        root = _folder(tmp_path / repository.replace("/", "_"), "sol-execbench",
                       f"Data from `{repository}`.\n".encode())
        plan = plan_import("sol-execbench", [str(root)])
        assert plan.records and plan.foreign == [] and plan.unsourced == []
        assert plan.watched == {}


@pytest.mark.parametrize(("text", "named"), [
    ("Repository: `github.com/ScalingIntelligence/KernelBench`, MIT", True),
    ("see https://github.com/scalingintelligence/kernelbench.", True),  # any case
    ("clone github.com/ScalingIntelligence/KernelBench.git", True),
    ("github.com/ScalingIntelligence/KernelBench2", False),  # another repository
    ("github.com/ScalingIntelligence/KernelBench-fork", False),
    ("github.com/ScalingIntelligence", False),
    ("", False),
])
def test_names_repository_matches_a_whole_repository_name(tmp_path, text, named):
    source_md = tmp_path / "SOURCE.md"
    source_md.write_text(text)
    assert names_repository(source_md, SOURCE_REPOSITORIES["kernelbench"]) is named
    assert names_repository(tmp_path / "absent.md", SOURCE_REPOSITORIES["kernelbench"]) is False


@requires_data
@pytest.mark.parametrize("source", ["sol-execbench", "flashinfer-trace", "kernelbench"])
def test_each_sources_own_source_md_names_exactly_its_repositories(source):
    text = (DATA / source / "SOURCE.md").read_text()
    assert set(re.findall(r"github\.com/[\w.-]+/[\w.-]+", text)) == SOURCE_REPOSITORIES[source]
    plan = plan_import(source, [str(DATA / source)])
    assert plan.records and plan.foreign == [] and plan.unsourced == [] and plan.watched == {}


@requires_data
def test_every_imported_run_records_its_source_licence_and_upstream_commit_as_readme_says():
    # fresh00c L1: README said "every manifest records its ... upstream commit", and 87
    # SOL-ExecBench manifests (board Workloads, Implementations, ...) record none
    readme = (Path(__file__).parents[2] / "README.md").read_text()
    said = " ".join(readme.split())
    assert "every run records its source, licence, upstream commit" in said
    assert "every manifest records" not in said
    shared_without = 0
    for source in ("sol-execbench", "flashinfer-trace", "kernelbench"):
        runs = 0
        for record in plan_import(source, [str(DATA / source)]).records:
            for doc in record.build():
                notes = doc["metadata"].get("annotations") or {}
                if doc["kind"] != "BenchmarkRun":
                    shared_without += A + "upstream" not in notes
                    continue
                runs += 1
                assert notes[A + "source"] == source, doc["metadata"]["name"]
                assert notes[A + "license"].strip(), doc["metadata"]["name"]
                assert re.fullmatch(r"github\.com/[^@\s]+@[0-9a-f]{40}", notes[A + "upstream"]), (
                    doc["metadata"]["name"], notes[A + "upstream"])
        assert runs > 0, source
    assert shared_without > 0  # so README must say "run", not "manifest"
