"""SOL-ExecBench: leaderboard snapshots and problem definitions -> manifests.

Reads (``shared/data/sol-execbench/SOURCE.md`` describes every field):

* ``leaderboard*snapshot.json`` -- ``{url, retrieved_at, response: {data: {...}}}`` around
  ``GET /api/leaderboard/kernel/<id>/<gpu>?evaluation_stack_version=<v>``. One record, and
  one BenchmarkRun, per row of ``rankings[]``: submissions (Implementation role
  ``candidate``) and reference rows (SOL Bound, Scoring Baseline, Reference Implementation:
  role ``reference``, never ranked). Runs have exactly the published record's shape.
* ``definition.json`` + ``workload.jsonl`` (+ optional ``metadata.json``) in one folder --
  a problem definition: one Workload with its cases and reference source.

* a local evaluator run folder (``summary.json`` + ``trial-*.jsonl``, under ``runs/``): a
  third party's runs on unlocked clocks, not leaderboard numbers, imported under their own
  protocol family ``sol_execbench_local`` by :mod:`.sol_execbench_runs`.
"""

from __future__ import annotations

import re
from functools import partial
from pathlib import Path
from typing import Any

from ..core.errors import KistoreError, MultipleErrors
from ..core.naming import slug
from . import sol_execbench_runs
from .common import (
    UNSTATED_LICENSE,
    Field,
    Plan,
    Record,
    SourceFile,
    check_shape,
    digest_of,
    fail,
    failed_record,
    fields_of,
    first_value,
    hardware,
    has_keys,
    latency_ns,
    load_json,
    load_lines,
    manifest,
    ms_to_ns,
    parse_time,
    provenance,
)

SOURCE = "sol-execbench"
SUITE = "SOL-ExecBench"
FAMILY = "sol_execbench_leaderboard"

LEADERBOARD_LICENSE = (
    "UNCLEAR: NVIDIA leaderboard API responses; no licence or terms of use found. "
    "Internal testing only; do not republish"
)
PROBLEM_LICENSES = {
    "sol-execbench/problems/": (
        "UNCLEAR: github.com/bras6379/sol-execbench-solver has no LICENSE; content from "
        "nvidia/SOL-ExecBench (NVIDIA Evaluation Dataset License)",
        "github.com/bras6379/sol-execbench-solver@6b435107b7038779bf3b45006f7d15340c027b7f",
    ),
    "sol-execbench/nvidia-examples/": (
        "Apache-2.0",
        "github.com/NVIDIA/SOL-ExecBench@8d2237d2012cba81f64905b273b592653623abf9",
    ),
}
"""Licence and upstream of problem folders, by data-root path prefix (from SOURCE.md)."""

_SNAPSHOT_REPO = "github.com/SamMausberg/sol-execbench-b200-kernels@"
SNAPSHOT_UPSTREAMS = {
    "sol-execbench/leaderboard/kernel-3/leaderboard_snapshot.json":
        _SNAPSHOT_REPO + "4573e8a850a8c2fe68ebc2bf7964e970abce636b",
    "sol-execbench/leaderboard/kernel-10/leaderboard-snapshot.json":
        _SNAPSHOT_REPO + "5c14d0372bc63bafdaf842485384163441d8f7b8",
    "sol-execbench/leaderboard/kernel-121/leaderboard-snapshot.json":
        _SNAPSHOT_REPO + "c4095db5fdbc8d6028149cd9466876bdcf158501",
}
"""The repo@commit each known snapshot was rebuilt from (SOURCE.md, table A)."""

REPOSITORIES = frozenset(
    upstream.split("@")[0] for upstream in (
        *(upstream for _, upstream in PROBLEM_LICENSES.values()),
        *SNAPSHOT_UPSTREAMS.values(), *sol_execbench_runs.UPSTREAMS.values()))
"""The upstream repositories of this source's files (what its ``SOURCE.md`` names): the
leaderboard snapshots' and local runs', and each problem folder's."""
FOLDER_DECIDES = frozenset({"source-file", "cases-file", "upstream", "license"})
"""The ``kernelindex.dev/*`` annotations a file's path inside its ``SOURCE.md`` folder
decides: the paths, the upstream (:data:`SNAPSHOT_UPSTREAMS`, a run folder's
:data:`~.sol_execbench_runs.UPSTREAMS`, a problem folder's :data:`PROBLEM_LICENSES`) and a
problem folder's licence (:data:`~.common.UNSTATED_LICENSE` at a path none names)."""

REFERENCE_ROWS = {
    "SOL Bound": "Speed-of-light bound: the geometric mean of per-workload T_sol from SOLAR "
                 "(SOL score 1.0 by definition); a bound, not a measured kernel.",
    "Scoring Baseline": "The optimised scoring baseline T_b (SOL score 0.5 by definition).",
    "Reference Implementation": "The problem definition's PyTorch reference implementation.",
}
"""What each reference row of a board is (SOURCE.md, 'Leaderboard snapshot')."""

METRICS = ("sol_score", "latency_ms", "avg_speedup", "fast_1_count", "fast_1_total")
"""The row fields a run keeps verbatim in ``sourceNative.metrics`` (the published shape)."""

REFERENCE_ROW_FIELDS = {
    **fields_of("BenchmarkRun", {
        **{f"/spec/sourceNative/metrics/{k}": f"/{k}" for k in METRICS},
        "/spec/timing/latencyNs/mean": Field("/latency_ms", "ms"),  # scaled (run_spec)
    }),
    **fields_of("Implementation", {"/spec/sourceNative/username": "/username"}),
}
"""Where a reference row states each value its run keeps (its ``observedAt`` is the
snapshot's ``retrieved_at``, outside the row)."""
ROW_FIELDS = {
    **REFERENCE_ROW_FIELDS,
    **fields_of("BenchmarkRun", {"/spec/observedAt": "/submitted_at",
                                 "/spec/sourceNative/externalId": "/submission_id"}),
    **fields_of("Implementation", {"/spec/author": "/username",
                                   "/spec/sourceNative/externalId": "/submission_id",
                                   "/spec/sourceNative/userId": "/user_id"}),
}
"""Where a submission row states each value its manifests keep (:attr:`.common.Record.
fields`): an add's refusal of the run's ``sol_score`` names the row's (fresh98 MED 5), a
refused latency the row's ``latency_ms``, in ms (fresh01 F1)."""

_NUMBER = {"type": "number", "minimum": 0}
_COUNT = {"type": "integer", "minimum": 0}
SNAPSHOT_SHAPE: dict[str, Any] = {
    "type": "object",
    "required": ["retrieved_at", "response"],
    "properties": {
        "url": {"type": "string"},
        "retrieved_at": {"type": "string"},
        "response": {
            "type": "object", "required": ["data"],
            "properties": {"data": {
                "type": "object",
                "required": ["kernel_name", "kernel_id", "gpu_type", "evaluation_stack_version",
                             "latency_unit", "rankings"],
                "properties": {
                    "kernel_name": {"type": "string", "minLength": 1},
                    "kernel_title": {"type": "string"},
                    "kernel_id": {"type": "integer", "minimum": 0},
                    "gpu_type": {"type": "string", "pattern": "^[A-Za-z0-9]+$"},
                    "evaluation_stack_version": {"type": "string", "minLength": 1},
                    "latency_unit": {"const": "ms"},
                    "rankings": {"type": "array", "items": {"type": "object"}},
                },
            }},
        },
    },
}
ROW_SHAPE: dict[str, Any] = {
    "type": "object",
    "required": ["username", *METRICS],
    "properties": {
        "username": {"type": "string", "minLength": 1},
        "sol_score": _NUMBER, "latency_ms": _NUMBER, "avg_speedup": _NUMBER,
        "fast_1_count": _COUNT, "fast_1_total": _COUNT,
        "is_reference": {"type": "boolean"},
        "rank": {"type": ["integer", "null"], "minimum": 1},
        "submission_id": {"type": "integer", "minimum": 0},
        "user_id": {"type": "integer"},
        "submitted_at": {"type": "string"},
    },
    "if": {"required": ["is_reference"], "properties": {"is_reference": {"const": True}}},
    "else": {"required": ["rank", "submission_id", "submitted_at"],
             "properties": {"rank": {"type": "integer"}}},
}
DEFINITION_SHAPE: dict[str, Any] = {
    "type": "object",
    "required": ["name", "axes", "inputs", "outputs", "reference"],
    "properties": {
        "name": {"type": "string", "minLength": 1},
        "description": {"type": ["string", "null"]},
        "op_type": {"type": ["string", "null"]},
        "axes": {"type": "object"}, "inputs": {"type": "object"},
        "outputs": {"type": "object"}, "reference": {"type": "string"},
    },
}
WORKLOAD_SHAPE: dict[str, Any] = {
    "type": "object", "required": ["uuid", "axes", "inputs"],
    "properties": {"uuid": {"type": "string"}, "axes": {"type": "object"},
                   "inputs": {"type": "object"}},
}

_SNAPSHOT_NAME = re.compile(r"^leaderboard.*snapshot.*\.json$")
_PROBLEM_FILES = ("definition.json", "workload.jsonl", "metadata.json")


def plan(files: list[SourceFile]) -> Plan:
    """Read SOL-ExecBench files into records.

    Args:
        files: from :func:`~.common.expand`.

    Returns:
        One record per ranking row of each snapshot, one per problem folder, one per
        trace line of a local run folder (:mod:`.sol_execbench_runs`). In a directory,
        snapshots are ``leaderboard*snapshot*.json`` or any JSON file holding a snapshot
        (``retrieved_at`` and ``response``), and files of other formats are listed as
        ignored; a ``.json`` file named explicitly is read as a snapshot.

    Raises:
        MultipleErrors: a file named explicitly that is not a snapshot or problem file.
    """
    result = Plan()
    problems: dict[str, SourceFile] = {}
    run_folders: dict[str, tuple[Path, str, int]] = {}
    unknown: list[KistoreError] = []
    for source in files:
        if sol_execbench_runs.is_run_folder(source.path.parent):
            folder = source.path.parent
            run_folders.setdefault(str(folder.resolve()),
                                   (folder, source.name.rsplit("/", 1)[0], source.limit))
        elif source.path.name in _PROBLEM_FILES:
            folder = source.path.parent / "definition.json"
            problems.setdefault(str(folder.resolve()), SourceFile(
                folder, source.name.rsplit("/", 1)[0] + "/definition.json", source.explicit,
                source.limit))
        elif _SNAPSHOT_NAME.match(source.path.name) or (
                source.explicit and source.path.suffix == ".json") or has_keys(
                first_value(source), ("retrieved_at", "response")):  # by content
            result.records.extend(_board_records(source))  # a named .json is read as one
        elif source.explicit:
            unknown.append(fail("not a SOL-ExecBench import format: expected a leaderboard "
                                "snapshot (.json) or a problem folder's "
                                "definition.json/workload.jsonl", file=source.name))
        else:
            result.ignored.append(source.name)
    if unknown:
        raise MultipleErrors(list(unknown))
    for folder, name, limit in run_folders.values():
        result.records.extend(sol_execbench_runs.folder_records(folder, name, limit))
    for definition in problems.values():
        result.records.append(Record(definition.name, partial(_problem, definition),
                                     label=f"problem {definition.name}"))
    return result


# -- leaderboard snapshots -----------------------------------------------------------------


def _board_records(source: SourceFile) -> list[Record]:
    """One record per ranking row; a snapshot that does not parse is one failing record."""
    try:
        snapshot = load_json(source)
        check_shape(snapshot, SNAPSHOT_SHAPE, file=source.name)
    except KistoreError as e:
        return [failed_record(source.name, e, f"snapshot {source.name}")]
    board = Board(source, snapshot)
    return [
        Record(source.name, partial(board.row, i, row),
               pointer=f"/response/data/rankings/{i}", label=board.row_label(row),
               fields=REFERENCE_ROW_FIELDS if isinstance(row, dict) and row.get(
                   "is_reference") else ROW_FIELDS, value=row)
        for i, row in enumerate(board.data["rankings"])
    ]


class Board:
    """One leaderboard snapshot: the manifests every row of it shares.

    Args:
        source: the snapshot file.
        snapshot: its parsed, shape-checked content.
    """

    def __init__(self, source: SourceFile, snapshot: dict[str, Any]) -> None:
        self.file = source.name
        self.snapshot = snapshot
        self.data: dict[str, Any] = snapshot["response"]["data"]
        self.kernel_id: int = self.data["kernel_id"]
        self.kernel_name: str = self.data["kernel_name"]
        self.gpu: str = self.data["gpu_type"]
        self.stack: str = self.data["evaluation_stack_version"]
        self.retrieved_at = parse_time(snapshot["retrieved_at"], file=self.file,
                                       pointer="/retrieved_at")

    def row_label(self, row: Any) -> str:
        """Say which row a record is, for messages."""
        if isinstance(row, dict) and row.get("submission_id") is not None:
            return f"kernel {self.kernel_id} submission {row['submission_id']}"
        name = row.get("username") if isinstance(row, dict) else None
        return f"kernel {self.kernel_id} row {name!r}"

    def row(self, index: int, row: Any) -> list[dict[str, Any]]:
        """Build a row's manifests: workload, protocol, environment, implementation, run.

        Raises:
            MultipleErrors, InputError: the row does not have the snapshot format.
        """
        pointer = f"/response/data/rankings/{index}"
        check_shape(row, ROW_SHAPE, file=self.file, pointer=pointer)
        # a passed row takes time: 0 ms or less would rank first (the metric's own field)
        latency_ns({"latency_ms": row["latency_ms"]}, file=self.file, pointer=pointer)
        workload, protocol, environment = self.workload(), self.protocol(), self.environment()
        if row.get("is_reference"):
            implementation = self.reference_implementation(row)
            observed_at = self.retrieved_at  # a reference row has no time of its own
            name = slug("sol-kernel", self.kernel_id, row["username"])
            external_id = None
        else:
            implementation = self.submission_implementation(row)
            observed_at = parse_time(row["submitted_at"], file=self.file,
                                     pointer=pointer + "/submitted_at")
            name = slug("sol-kernel", self.kernel_id, "submission", row["submission_id"])
            external_id = str(row["submission_id"])
        spec = run_spec(row, self.kernel_name, observed_at, external_id, {
            "workloadDigest": workload, "protocolDigest": protocol,
            "environmentDigest": environment, "implementationDigest": implementation,
        })
        run = manifest(
            "BenchmarkRun", name, spec,
            title=f"{row['username']} · {self.kernel_name} · {self.gpu}",
            annotations=provenance(
                SOURCE, license=LEADERBOARD_LICENSE, upstream=SNAPSHOT_UPSTREAMS.get(self.file),
                file=self.file, retrieved_at=self.snapshot["retrieved_at"],
                source_url=str(self.snapshot.get("url") or ""),
            ),
        )
        return [workload, protocol, environment, implementation, run]

    def workload(self) -> dict[str, Any]:
        """Return the board's Workload: built from the snapshot alone (suite, kernel name and id).

        The full definition, when imported, is a separate Workload (see :func:`_problem`),
        so a board imports to the same digests whatever else is imported with it.
        """
        return manifest(
            "Workload", slug("sol-kernel", self.kernel_id),
            {"suite": {"name": SUITE}, "definition": self.kernel_name,
             "sourceNative": {"source": SOURCE, "kernelId": self.kernel_id}},
            title=self.data.get("kernel_title") or self.kernel_name,
            annotations=provenance(SOURCE, license=LEADERBOARD_LICENSE),
        )

    def protocol(self) -> dict[str, Any]:
        """Return the evaluation stack's BenchmarkProtocol, byte-identical to the published one.

        For stack ``v1.1`` this is ``sha256:6383f624...`` with metadata exactly
        ``{name: sol-execbench-leaderboard-v1-1, title: SOL-ExecBench evaluation stack v1.1}``
        (no labels, no annotations: the published record has none).
        """
        return protocol_manifest(self.stack)

    def environment(self) -> dict[str, Any]:
        """Return the board's ExecutionEnvironment, byte-identical to the published one.

        For B200 at stack ``v1.1`` this is ``sha256:f304afb2...`` with metadata exactly
        ``{name: sol-execbench-b200-v1-1, title: SOL-ExecBench NVIDIA B200, stack v1.1}``.
        """
        return environment_manifest(self.gpu, self.stack)

    def submission_implementation(self, row: dict[str, Any]) -> dict[str, Any]:
        """Return a submission's Implementation (role ``candidate``), scoped by kernel.

        The same submission id appears on several boards (SOURCE.md), with different code
        measured on each, so the kernel is part of its identity and name.
        """
        native: dict[str, Any] = {"source": SOURCE, "benchmark": self.kernel_name,
                                  "kernelId": self.kernel_id,
                                  "externalId": str(row["submission_id"])}
        if row.get("user_id") is not None:
            native["userId"] = row["user_id"]
        return manifest(
            "Implementation", slug("sol-kernel", self.kernel_id, "submission",
                                   row["submission_id"]),
            {"project": f"SOL-ExecBench submission {row['submission_id']}",
             "author": row["username"], "role": "candidate", "sourceNative": native},
            title=f"{row['username']} · submission {row['submission_id']} · {self.kernel_name}",
            annotations=provenance(SOURCE, license=LEADERBOARD_LICENSE),
        )

    def reference_implementation(self, row: dict[str, Any]) -> dict[str, Any]:
        """Return a reference row's Implementation (role ``reference``: never ranked)."""
        username = row["username"]
        description = REFERENCE_ROWS.get(username, "A reference row of the leaderboard.")
        return manifest(
            "Implementation", slug("sol-kernel", self.kernel_id, username),
            {"project": f"SOL-ExecBench {username}", "role": "reference",
             "description": description,
             "sourceNative": {"source": SOURCE, "benchmark": self.kernel_name,
                              "kernelId": self.kernel_id, "username": username}},
            title=f"{username} · {self.kernel_name}",
            annotations=provenance(SOURCE, license=LEADERBOARD_LICENSE),
        )


def run_spec(row: dict[str, Any], benchmark: str, observed_at: str, external_id: str | None,
             digests: dict[str, dict[str, Any] | str]) -> dict[str, Any]:
    """Return the spec of a leaderboard run, in exactly the published record's shape.

    Args:
        row: a ranking row (its five metrics are kept verbatim).
        benchmark: the board's ``kernel_name``.
        observed_at: RFC 3339 UTC time with milliseconds (:func:`~.common.utc_ms`).
        external_id: ``str(submission_id)``; None for a reference row.
        digests: ``workloadDigest`` ... ``implementationDigest``: a digest string, or the
            manifest document to take the digest of.

    Returns:
        ``{status: passed, timing: {latencyNs: {mean}, primaryStatistic: mean},
        observedAt, sourceNative: {source, metrics, benchmark, externalId}, *Digest}``;
        ``latencyNs.mean`` is ``latency_ms`` scaled exactly (:func:`~.common.ms_to_ns`).
    """
    native: dict[str, Any] = {"source": SOURCE, "metrics": {k: row[k] for k in METRICS},
                              "benchmark": benchmark}
    if external_id is not None:
        native["externalId"] = external_id
    spec: dict[str, Any] = {
        "status": "passed",  # a board lists only submissions that passed its checks
        "timing": {"latencyNs": {"mean": ms_to_ns(row["latency_ms"])},
                   "primaryStatistic": "mean"},
        "observedAt": observed_at,
        "sourceNative": native,
    }
    for field_name, ref in digests.items():
        spec[field_name] = ref if isinstance(ref, str) else digest_of(ref)
    return spec


def protocol_manifest(stack: str) -> dict[str, Any]:
    """Return the leaderboard's BenchmarkProtocol for one evaluation stack version."""
    return manifest(
        "BenchmarkProtocol", slug("sol-execbench-leaderboard", stack, dots=False),
        {"harness": {"name": "SOL-ExecBench evaluation stack", "version": stack},
         "correctness": {"reference": "definition reference implementation",
                         "comparator": "sol_execbench_eval"},
         "measurement": {"timer": "harness_reported", "primaryStatistic": "mean"},
         "comparability": {
             "notes": "Suite-mean latency and SOL-Score as published by the SOL-ExecBench "
                      "leaderboard. Comparable only within one definition, GPU type, and "
                      "evaluation stack version.",
             "family": FAMILY}},
        title=f"SOL-ExecBench evaluation stack {stack}",
    )


def environment_manifest(gpu: str, stack: str) -> dict[str, Any]:
    """Return the leaderboard's ExecutionEnvironment for one GPU type and stack version."""
    return manifest(
        "ExecutionEnvironment", slug("sol-execbench", gpu, stack, dots=False),
        {"hardware": hardware(f"NVIDIA {gpu}"),
         "software": {"libraries": {"evaluation_stack": stack}}},
        title=f"SOL-ExecBench NVIDIA {gpu}, stack {stack}",
    )



# -- problem definitions -------------------------------------------------------------------


def _problem(definition: SourceFile) -> list[dict[str, Any]]:
    """Build a problem folder's one Workload (definition, cases from workload.jsonl, reference)."""
    folder = definition.path.parent
    base = definition.name.rsplit("/", 1)[0]
    if not definition.path.is_file():
        raise fail("a problem folder needs definition.json beside workload.jsonl",
                   file=definition.name)
    value = load_json(definition)
    check_shape(value, DEFINITION_SHAPE, file=definition.name)
    workloads = SourceFile(folder / "workload.jsonl", base + "/workload.jsonl", False,
                           definition.limit)
    if not workloads.path.is_file():
        raise fail("no workload.jsonl beside definition.json: a Workload needs its cases",
                   file=definition.name)
    cases = []
    for line, case in load_lines(workloads):
        if isinstance(case, Exception):
            raise case
        check_shape(case, WORKLOAD_SHAPE, file=workloads.name, line=line)
        cases.append(case)
    meta_path = folder / "metadata.json"
    meta = load_json(SourceFile(meta_path, base + "/metadata.json", False, definition.limit)) \
        if meta_path.is_file() else {}
    license_, upstream = next(
        (v for prefix, v in PROBLEM_LICENSES.items() if definition.name.startswith(prefix)),
        (UNSTATED_LICENSE, None))
    collection = meta.get("subset")
    native: dict[str, Any] = {"source": SOURCE}
    for key, out in (("task_id", "kernelId"), ("hf_id", "hfId")):
        if meta.get(key) is not None or value.get(key) is not None:
            native[out] = meta.get(key, value.get(key))
    if value.get("custom_inputs_entrypoint"):
        native["customInputsEntrypoint"] = value["custom_inputs_entrypoint"]
    suite: dict[str, Any] = {"name": SUITE}
    if collection:
        suite["collection"] = collection
    spec: dict[str, Any] = {"suite": suite, "definition": value["name"]}
    if value.get("description"):
        spec["description"] = value["description"]
    if value.get("op_type"):
        spec["opType"] = value["op_type"]
    spec.update({"axes": value["axes"], "inputs": value["inputs"], "outputs": value["outputs"],
                 "cases": cases,
                 "reference": {"language": "python", "source": value["reference"]},
                 "sourceNative": native})
    return [manifest(
        "Workload", slug("sol-definition", collection or "", value["name"]), spec,
        title=value["name"],
        annotations=provenance(SOURCE, license=license_, upstream=upstream,
                               file=definition.name, cases_file=workloads.name,
                               retrieved_at=meta.get("fetched_at")),
    )]
