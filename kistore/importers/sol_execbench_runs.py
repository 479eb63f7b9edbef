"""SOL-ExecBench local evaluator runs (``sol-execbench/runs/*``) -> manifests.

A run folder holds ``summary.json`` and ``trial-<N>.jsonl`` (one SOL-ExecBench trace per
workload), written by a third party with NVIDIA's unmodified evaluator on a rented B200
with **unlocked clocks**: local estimates, not leaderboard numbers. They get their own
BenchmarkProtocol, family ``sol_execbench_local``, so they are never compared with
leaderboard runs (family ``sol_execbench_leaderboard``).

One record and one BenchmarkRun per trace line. Its Workload is the trace's definition at
that one workload (the case exactly as evaluated, tolerance included); its
ExecutionEnvironment is the trace's ``hardware`` + ``libs`` with the folder's clock mode;
its Implementation is the trace's ``solution`` with the ``submission_sha256`` the summary
records. The run keeps the trace's metrics verbatim, plus the summary's ``sol_ms``,
``baseline_latency_ms`` and ``median_latency_sol_score`` for that workload.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any

from ..core.errors import KistoreError
from ..core.limits import DEFAULT
from ..core.naming import slug
from .common import (
    TRACE_FIELDS,
    TRACE_STATUSES,
    Record,
    SourceFile,
    check_shape,
    digest_of,
    failed_record,
    fields_of,
    hardware,
    load_json,
    load_lines,
    manifest,
    parse_time,
    provenance,
    software,
    trace_outcome,
)

SOURCE = "sol-execbench"
FAMILY = "sol_execbench_local"
LICENSE = ("UNCLEAR: third-party files in github.com/SamMausberg/sol-execbench-b200-kernels "
           "(repo Apache-2.0) around NVIDIA API responses with no terms found. Internal "
           "testing only; do not republish")
_REPO = "github.com/SamMausberg/sol-execbench-b200-kernels@"
UPSTREAMS = {
    "sol-execbench/runs/10-concrete-view-initial":
        _REPO + "c4095db5fdbc8d6028149cd9466876bdcf158501",
    "sol-execbench/runs/119-moe-grouped-initial":
        _REPO + "dbd7cf0da7d3d7f59723cf8ce6e3c3e530b1fec0",
}
"""The repo@commit each known run folder was rebuilt from (SOURCE.md, table A)."""

SUMMARY_SHAPE: dict[str, Any] = {
    "type": "object",
    "required": ["clock_mode", "evaluation_stack", "evaluator_revision", "website_id",
                 "submission_sha256", "workloads"],
    "properties": {
        "clock_mode": {"type": "string", "minLength": 1},
        "evaluation_stack": {"type": "string", "minLength": 1},
        "evaluator_revision": {"type": "string", "minLength": 1},
        "website_id": {"type": "integer"},
        "submission_sha256": {"type": "string"},
        "recorded_at": {"type": "string"},
        "workloads": {"type": "array", "items": {"type": "object", "required": ["axes"]}},
    },
}
TRACE_SHAPE: dict[str, Any] = {
    "type": "object", "required": ["definition", "solution", "workload", "evaluation"],
    "properties": {
        "definition": {"type": "string", "minLength": 1},
        "solution": {"type": "string", "minLength": 1},
        "workload": {"type": "object", "required": ["uuid", "axes"],
                     "properties": {"uuid": {"type": "string", "minLength": 1},
                                    "axes": {"type": "object"}}},
        "evaluation": {
            "type": "object", "required": ["status", "environment", "timestamp"],
            "properties": {
                "status": {"enum": sorted(TRACE_STATUSES)},
                "performance": {"type": ["object", "null"], "properties": {
                    "latency_ms": {"type": ["number", "null"], "minimum": 0}}},
                "correctness": {"type": ["object", "null"]},
                "environment": {
                    "type": "object", "required": ["hardware"],
                    "properties": {"hardware": {"type": "string", "minLength": 1},
                                   "libs": {"type": "object",
                                            "additionalProperties": {"type": "string"}}}},
                "timestamp": {"type": "string"},
            },
        },
    },
}
SUMMARY_METRICS = ("sol_ms", "baseline_latency_ms", "median_latency_sol_score")
FIELDS = {**TRACE_FIELDS,
          **fields_of("ExecutionEnvironment",
                      {"/spec/hardware/product": "/evaluation/environment/hardware"}),
          **fields_of("Workload", {"/spec/cases/0": "/workload",
                                   "/spec/definition": "/definition"})}
"""Where a trace line states each value its manifests keep (:attr:`.common.Record.fields`;
the summary's metrics are the folder's ``summary.json``'s, outside the line)."""


def is_run_folder(path: Path) -> bool:
    """Return True for a local evaluator run folder (it holds ``summary.json``)."""
    return (path / "summary.json").is_file()


def folder_records(folder: Path, name: str, limit: int = DEFAULT.source_bytes) -> list[Record]:
    """Return one record per trace line of every ``trial-*.jsonl`` in a run folder.

    Args:
        folder: the run folder on disk.
        name: its path relative to the data root (``sol-execbench/runs/...``).
        limit: most bytes read from each file (``[limits] source-bytes``).

    Returns:
        The records; a ``summary.json`` that cannot be read is one failing record.
    """
    summary_file = SourceFile(folder / "summary.json", f"{name}/summary.json", False, limit)
    try:
        summary = load_json(summary_file)
        check_shape(summary, SUMMARY_SHAPE, file=summary_file.name)
    except KistoreError as e:
        return [failed_record(summary_file.name, e, f"run folder {name}")]
    run = LocalRun(name, summary)
    records = []
    for trial in sorted(folder.glob("trial-*.jsonl")):
        source = SourceFile(trial, f"{name}/{trial.name}", False, limit)
        for line, value in load_lines(source):
            records.append(Record(source.name, partial(run.trace, source, line, value),
                                  line=line, label=f"trace in {source.name}", fields=FIELDS,
                                  value=value))
    return records


class LocalRun:
    """One run folder's shared facts (summary.json) and its trace -> manifests mapping.

    Args:
        name: the folder's path relative to the data root.
        summary: its checked ``summary.json``.
    """

    def __init__(self, name: str, summary: dict[str, Any]) -> None:
        self.name = name
        self.summary = summary
        self.kernel_id: int = summary["website_id"]

    def trace(self, source: SourceFile, line: int, value: Any) -> list[dict[str, Any]]:
        """Build one trace line's manifests: workload, protocol, environment, solution, run.

        Raises:
            KistoreError: a line that does not parse or has not the trace format.
        """
        if isinstance(value, KistoreError):
            raise value
        check_shape(value, TRACE_SHAPE, file=source.name, line=line)
        evaluation, case = value["evaluation"], value["workload"]
        workload = manifest(
            "Workload", slug("sol-local-kernel", self.kernel_id, case["uuid"]),
            {"suite": {"name": "SOL-ExecBench"}, "definition": value["definition"],
             "cases": [case], "sourceNative": {"source": SOURCE, "kernelId": self.kernel_id}},
            title=f"{value['definition']} {case['uuid']}",
            annotations=provenance(SOURCE, license=LICENSE),
        )
        protocol, environment = self.protocol(), self.environment(evaluation["environment"])
        implementation = manifest(
            "Implementation", slug("sol-local", value["solution"]),
            {"project": value["solution"], "role": "candidate",
             "sourceNative": {"source": SOURCE, "solution": value["solution"],
                              "submissionSha256": self.summary["submission_sha256"]}},
            title=f"SOL-ExecBench local solution {value['solution']}",
            annotations=provenance(SOURCE, license=LICENSE),
        )
        metrics = {**(evaluation.get("performance") or {}),
                   **(evaluation.get("correctness") or {})}
        for entry in self.summary["workloads"]:
            if entry["axes"] == case["axes"]:
                metrics.update({k: entry[k] for k in SUMMARY_METRICS if k in entry})
        spec = {
            **trace_outcome(evaluation),
            "observedAt": parse_time(evaluation["timestamp"], file=source.name, line=line,
                                     pointer="/evaluation/timestamp"),
            "workloadDigest": digest_of(workload), "protocolDigest": digest_of(protocol),
            "environmentDigest": digest_of(environment),
            "implementationDigest": digest_of(implementation),
            "sourceNative": {"source": SOURCE, "benchmark": value["definition"],
                             "externalId": f"{Path(self.name).name}/{Path(source.name).stem}/"
                                           f"{case['uuid']}",
                             "status": evaluation["status"], "metrics": metrics},
        }
        run = manifest(
            "BenchmarkRun", slug("sol-local", Path(self.name).name, Path(source.name).stem,
                                 case["uuid"]),
            spec, title=f"{value['solution']} · {value['definition']} · "
                        f"{evaluation['environment']['hardware']} (local, "
                        f"{self.summary['clock_mode']} clocks)",
            annotations=provenance(SOURCE, license=LICENSE, upstream=UPSTREAMS.get(self.name),
                                   file=source.name, source_line=str(line),
                                   result_scope=self.summary.get("result_scope")),
        )
        return [workload, protocol, environment, implementation, run]

    def protocol(self) -> dict[str, Any]:
        """Return the local evaluator's BenchmarkProtocol (family ``sol_execbench_local``)."""
        stack = self.summary["evaluation_stack"]
        return manifest(
            "BenchmarkProtocol", slug("sol-execbench-local", stack, dots=False),
            {"harness": {"name": "SOL-ExecBench evaluator (local)", "version": stack,
                         "revision": self.summary["evaluator_revision"]},
             "measurement": {"timer": "harness_reported", "primaryStatistic": "mean",
                             "notes": "performance.latency_ms of each trace, as the "
                                      "unmodified evaluator reports it."},
             "correctness": {"reference": "definition reference implementation",
                             "comparator": "sol_execbench_eval"},
             "comparability": {
                 "family": FAMILY,
                 "notes": "Local estimates by a third party on a rented GPU; not leaderboard "
                          "numbers. Comparable only within this family, one workload, one "
                          "GPU type."}},
            title=f"SOL-ExecBench evaluator {stack}, local runs",
            annotations=provenance(SOURCE, license=LICENSE),
        )

    def environment(self, environment: dict[str, Any]) -> dict[str, Any]:
        """Return the trace's hardware and libraries, with the folder's clock mode."""
        device: str = environment["hardware"]
        libs: dict[str, str] = environment.get("libs") or {}
        clocks = self.summary["clock_mode"]
        spec: dict[str, Any] = {"hardware": {**hardware(device), "clocks": {"mode": clocks}}}
        if libs:
            spec["software"] = software(libs)
        versions = [f"{k}-{v}" for k, v in sorted(libs.items())]
        return manifest(
            "ExecutionEnvironment", slug("sol-local", device.removeprefix("NVIDIA "), *versions,
                                         clocks, "clocks"),
            spec, title=f"{device}, {clocks} clocks (local SOL-ExecBench runs)",
            annotations=provenance(SOURCE, license=LICENSE),
        )

