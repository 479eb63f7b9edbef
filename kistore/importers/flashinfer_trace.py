"""FlashInfer Trace: definitions, workloads and traces -> manifests.

Reads (``shared/data/flashinfer-trace/SOURCE.md`` describes every field):

* ``definitions/**/<name>.json`` -- a Definition (axes, inputs, outputs, reference source);
* ``traces/workloads/**/<name>.workload.jsonl`` -- one workload a line (``uuid``, ``axes``,
  ``inputs``): each becomes one Workload (definition + that workload's case), since runs
  at different shapes are not comparable;
* ``traces/**/<name>.jsonl`` -- one trace a line: one BenchmarkRun each, whatever its
  status (PASSED, INCORRECT, RUNTIME_ERROR, COMPILE_ERROR, ... mapped to the schema's enum
  by :data:`~.common.TRACE_STATUSES`).
  A trace carries no workload uuid: it joins its workload on ``axes``, as the source says.

Every trace needs its workload: a workload line (and its definition) among the files
imported, or the Workload a previous import stored from them (found by its name and
checked for its definition and axes: importing one new trace file after the whole folder
works, reviewer r85 F6); a trace whose workload is in neither is a bad record, and so is a
workload line whose definition is in neither. The solution files were not copied, so an
Implementation records the solution's name only.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any

from ..core import canonical
from ..core.errors import KistoreError, MultipleErrors
from ..core.naming import slug
from .common import (
    TRACE_FIELDS,
    TRACE_STATUSES,
    Plan,
    Record,
    SourceFile,
    Stored,
    check_shape,
    digest_of,
    fail,
    fields_of,
    first_value,
    hardware,
    has_keys,
    latency_ns,
    load_json,
    load_lines,
    manifest,
    parse_time,
    provenance,
    software,
    trace_outcome,
)

SOURCE = "flashinfer-trace"
SUITE = "FlashInfer Trace"
FAMILY = "flashinfer_trace"
LICENSE = ("UNCLEAR: github.com/xslingcn/flashinfer-trace has no LICENSE; the upstream "
           "dataset flashinfer-ai/flashinfer-trace is Apache-2.0 (not verified for this copy)")
UPSTREAM = "github.com/xslingcn/flashinfer-trace@579673cebd9e6500b1faa4d3c8dc3c59401ec2d6"
REPOSITORIES = frozenset({UPSTREAM.split("@")[0]})
"""The upstream repositories of this source's files (what its ``SOURCE.md`` names)."""
FOLDER_DECIDES = frozenset({"source-file", "definition-file"})
"""The ``kernelindex.dev/*`` annotations a file's path inside its ``SOURCE.md`` folder
decides: only the paths. The licence and upstream are the same for every file."""

DEFINITION_SHAPE: dict[str, Any] = {
    "type": "object",
    "required": ["name", "axes", "inputs", "outputs", "reference"],
    "properties": {
        "name": {"type": "string", "minLength": 1},
        "description": {"type": "string"}, "type": {"type": "string"},
        "tags": {"type": "array", "items": {"type": "string"}},
        "axes": {"type": "object"}, "inputs": {"type": "object"},
        "outputs": {"type": "object"}, "reference": {"type": "string"},
    },
}
WORKLOAD_SHAPE: dict[str, Any] = {
    "type": "object", "required": ["definition", "workload"],
    "properties": {
        "definition": {"type": "string"},
        "workload": {"type": "object", "required": ["uuid", "axes", "inputs"],
                     "properties": {"uuid": {"type": "string"}, "axes": {"type": "object"},
                                    "inputs": {"type": "object"}}},
    },
}
TRACE_SHAPE: dict[str, Any] = {
    "type": "object", "required": ["definition", "solution", "workload", "evaluation"],
    "properties": {
        "definition": {"type": "string", "minLength": 1},
        "solution": {"type": "string", "minLength": 1},
        "workload": {"type": "object", "required": ["axes"],
                     "properties": {"axes": {"type": "object"}}},
        "evaluation": {
            "type": "object",
            "required": ["status", "performance", "environment", "timestamp"],
            "properties": {
                "status": {"enum": sorted(TRACE_STATUSES)},
                "log_file": {"type": "string"},
                "correctness": {"type": ["object", "null"], "properties": {
                    "max_relative_error": {"type": ["number", "null"]},
                    "max_absolute_error": {"type": ["number", "null"]}}},
                "performance": {"type": ["object", "null"], "properties": {
                    "latency_ms": {"type": ["number", "null"], "minimum": 0}}},
                "environment": {
                    "type": "object", "required": ["device"],
                    "properties": {"device": {"type": "string", "minLength": 1},
                                   "libs": {"type": "object",
                                            "additionalProperties": {"type": "string"}}}},
                "timestamp": {"type": "string"},
            },
        },
    },
}

FIELDS = {**TRACE_FIELDS,
          **fields_of("BenchmarkRun", {"/spec/sourceNative/externalId": "/evaluation/log_file"}),
          **fields_of("ExecutionEnvironment",
                      {"/spec/hardware/product": "/evaluation/environment/device"}),
          **fields_of("Implementation", {"/spec/sourceNative/definition": "/definition"})}
"""Where a trace line states each value its manifests keep (:attr:`.common.Record.fields`):
a refused run's latency is told at ``/evaluation/performance/latency_ms``, in ms
(fresh01 F1)."""
WORKLOAD_FIELDS = fields_of("Workload", {"/spec/cases/0": "/workload",
                                         "/spec/sourceNative/uuid": "/workload/uuid",
                                         "/spec/definition": "/definition"})
"""Where a workload line states the values of its Workload (the rest: its definition's)."""


def _recognise(source: SourceFile) -> str | None:
    """Return ``definition``, ``workload`` or ``trace`` when the file's content is one.

    A workload line carries an empty ``solution`` (``""``) and ``evaluation``; a trace line
    names its solution.
    """
    if source.path.suffix == ".json":
        return "definition" if has_keys(first_value(source), DEFINITION_SHAPE["required"]) \
            else None
    if source.path.suffix != ".jsonl":
        return None
    line = first_value(source, lines=True)
    if has_keys(line, TRACE_SHAPE["required"]) and line["solution"]:
        return "trace"
    if has_keys(line, WORKLOAD_SHAPE["required"]) and not line.get("solution"):
        return "workload"
    return None


def plan(files: list[SourceFile]) -> Plan:
    """Read FlashInfer Trace files into records: one per workload line and per trace line.

    Args:
        files: from :func:`~.common.expand`.

    Returns:
        Records in file order then line order: workloads first, then traces.

    Raises:
        MultipleErrors: a file named explicitly that is not a definition, workload or
            trace file.
    """
    result = Plan()
    definitions: dict[str, SourceFile] = {}
    workload_files: list[SourceFile] = []
    trace_files: list[SourceFile] = []
    unknown: list[KistoreError] = []
    for source in files:
        parts = Path(source.name).parts
        if source.path.name.endswith(".workload.jsonl"):
            workload_files.append(source)
        elif source.path.suffix == ".jsonl" and "traces" in parts:
            trace_files.append(source)
        elif source.path.suffix == ".json" and "definitions" in parts:
            definitions[source.path.stem] = source
        elif (found := _recognise(source)) == "trace":  # elsewhere: by content
            trace_files.append(source)
        elif found == "workload":
            workload_files.append(source)
        elif found == "definition":
            definitions[source.path.stem] = source
        elif source.explicit:
            unknown.append(fail("not a FlashInfer Trace file: expected definitions/**.json, "
                                "traces/workloads/**.workload.jsonl or traces/**.jsonl",
                                file=source.name))
        else:
            result.ignored.append(source.name)
    if unknown:
        raise MultipleErrors(unknown)
    index = Index(definitions)
    result.join_stored = index.join_stored
    for source in workload_files:
        for line, value in load_lines(source):
            index.add_workload(source, line, value)
            result.records.append(Record(source.name, partial(index.workload_unit, source, line,
                                                              value),
                                         line=line, label="workload", fields=WORKLOAD_FIELDS,
                                         value=value))
    for source in trace_files:
        for line, value in load_lines(source):
            result.records.append(Record(source.name, partial(index.trace, source, line, value),
                                         line=line, label="trace", fields=FIELDS, value=value))
    return result


class Index:
    """Definitions by name and workload lines by (definition, axes), for joining traces.

    Args:
        definitions: definition files by definition name (the file stem).
    """

    def __init__(self, definitions: dict[str, SourceFile]) -> None:
        self.definition_files = definitions
        self.workloads: dict[tuple[str, bytes], list[tuple[SourceFile, int, Any]]] = {}
        self._definitions: dict[str, dict[str, Any]] = {}
        self._stored: Stored | None = None
        self._stored_found: dict[tuple[str, bytes], dict[str, Any] | None] = {}

    def join_stored(self, stored: Stored) -> None:
        """Join traces and workload lines to the store's Workloads too (``Plan.join_stored``)."""
        self._stored, self._stored_found = stored, {}

    def stored_workload(self, definition: str, axes: Any) -> dict[str, Any] | None:
        """Return the stored Workload of a definition at these axes (its document), or None.

        Found by the name an import gives it (:func:`workload_name`), then held to what it
        must be: this source's, of ``definition``, with one case at exactly ``axes``.

        Raises:
            KistoreError: the stored manifest of that name is damaged
                (:meth:`kistore.store.View.manifest`).
        """
        if self._stored is None or not isinstance(axes, dict):
            return None
        key = (definition, _axes_key(axes))
        if key not in self._stored_found:  # the traces of one workload read it once
            found = self._stored("Workload", workload_name(definition, axes))
            spec = found.spec if found is not None else {}
            cases = spec.get("cases")
            held = (spec.get("sourceNative") or {}).get("source") == SOURCE and \
                spec.get("definition") == definition and isinstance(cases, list) and \
                len(cases) == 1 and _axes_key(cases[0].get("axes")) == key[1]
            self._stored_found[key] = found.document if found is not None and held else None
        return self._stored_found[key]

    def add_workload(self, source: SourceFile, line: int, value: Any) -> None:
        """Remember a workload line under its definition and axes (bad lines are skipped)."""
        if isinstance(value, dict) and isinstance(value.get("workload"), dict):
            key = (str(value.get("definition")), _axes_key(value["workload"].get("axes")))
            self.workloads.setdefault(key, []).append((source, line, value))

    def definition(self, name: str, *, file: str, line: int) -> tuple[SourceFile, dict[str, Any]]:
        """Return a definition's file and checked content.

        Raises:
            InputError: no definition file of that name among the imported files (the
                caller looked for the stored Workload first).
            MultipleErrors: the definition does not have the source format.
        """
        source = self.definition_files.get(name)
        if source is None:
            raise fail(f"definition {name!r} is not among the imported files, nor is the "
                       "Workload of this line in the store; import the definitions/ folder "
                       "with the traces (or the whole folder: kistore import flashinfer-trace "
                       "DIR)", file=file, line=line, pointer="/definition")
        if name not in self._definitions:
            value = load_json(source)
            check_shape(value, DEFINITION_SHAPE, file=source.name)
            self._definitions[name] = value
        return source, self._definitions[name]

    def workload(self, source: SourceFile, line: int, value: Any) -> dict[str, Any]:
        """Build the Workload of one workload line (its definition + this one case).

        Returns:
            The Workload document; the stored one when the definition is not among the
            files and the store holds this workload (:meth:`stored_workload`).

        Raises:
            KistoreError: a line that does not parse, has not the source format, or names
                a definition neither imported nor stored with this workload.
        """
        if isinstance(value, KistoreError):
            raise value
        check_shape(value, WORKLOAD_SHAPE, file=source.name, line=line)
        case = value["workload"]
        if value["definition"] not in self.definition_files:
            stored = self.stored_workload(value["definition"], case["axes"])
            if stored is not None:  # imported before, definition and all
                return stored
        def_file, definition = self.definition(value["definition"], file=source.name, line=line)
        spec: dict[str, Any] = {"suite": {"name": SUITE}, "definition": definition["name"]}
        if definition.get("type"):
            spec["suite"]["collection"] = definition["type"]
            spec["opType"] = definition["type"]
        if definition.get("description"):
            spec["description"] = definition["description"]
        if definition.get("tags"):
            spec["tags"] = definition["tags"]
        spec.update({
            "axes": definition["axes"], "inputs": definition["inputs"],
            "outputs": definition["outputs"], "cases": [case],
            "reference": {"language": "python", "source": definition["reference"]},
            "sourceNative": {"source": SOURCE, "uuid": case["uuid"]},
        })
        return manifest(
            "Workload", workload_name(definition["name"], case["axes"]),
            spec, title=f"{definition['name']} {_axes_title(case['axes'])}",
            annotations=provenance(SOURCE, license=LICENSE, upstream=UPSTREAM,
                                   file=source.name, definition_file=def_file.name),
        )

    def workload_unit(self, source: SourceFile, line: int, value: Any) -> list[dict[str, Any]]:
        """Return ``[`` :meth:`workload` ``]``: a workload line is a record of its own."""
        return [self.workload(source, line, value)]

    def trace(self, source: SourceFile, line: int, value: Any) -> list[dict[str, Any]]:
        """Build one trace line's manifests: workload, protocol, environment, solution, run.

        Raises:
            KistoreError: a line that does not parse or has not the source format; a
                passed trace whose latency is not positive (:func:`.common.latency_ns`); no
                workload with the trace's definition and axes imported or stored (or
                several imported).
        """
        if isinstance(value, KistoreError):
            raise value
        check_shape(value, TRACE_SHAPE, file=source.name, line=line)
        evaluation = value["evaluation"]
        latency = (evaluation.get("performance") or {}).get("latency_ms")
        if evaluation["status"] == "PASSED" and latency is not None:
            # a passed trace takes time: 0 ms would rank first (every importer's guard)
            latency_ns({"latency_ms": latency}, file=source.name, line=line,
                       pointer="/evaluation/performance")
        axes = value["workload"]["axes"]
        matches = self.workloads.get((value["definition"], _axes_key(axes)), [])
        if len(matches) > 1:
            raise fail(f"{len(matches)} workload lines of definition {value['definition']!r} "
                       f"with axes {axes} among the imported files; a trace joins its "
                       "workload on axes: import each workload line once",
                       file=source.name, line=line, pointer="/workload/axes")
        workload = self.workload(*matches[0]) if matches else \
            self.stored_workload(value["definition"], axes)
        if workload is None:
            raise fail(f"no workload line of definition {value['definition']!r} with axes "
                       f"{axes} among the imported files, and the store holds no Workload "
                       f"{workload_name(value['definition'], axes)!r} made from one; "
                       "a trace joins its workload on axes: import traces/workloads/ and "
                       "definitions/ with the traces (or the whole folder: kistore import "
                       "flashinfer-trace DIR)",
                       file=source.name, line=line, pointer="/workload/axes")
        protocol, environment = protocol_manifest(), environment_manifest(evaluation["environment"])
        implementation = manifest(
            "Implementation", slug("flashinfer-trace", value["solution"]),
            {"project": value["solution"], "role": "candidate",
             "sourceNative": {"source": SOURCE, "solution": value["solution"],
                              "definition": value["definition"]}},
            title=f"FlashInfer Trace solution {value['solution']}",
            annotations=provenance(SOURCE, license=LICENSE, upstream=UPSTREAM),
        )
        observed_at = parse_time(evaluation["timestamp"], file=source.name, line=line,
                                 pointer="/evaluation/timestamp")
        native: dict[str, Any] = {
            "source": SOURCE, "benchmark": value["definition"], "status": evaluation["status"],
            "metrics": {**(evaluation.get("performance") or {}),
                        **(evaluation.get("correctness") or {})},
        }
        if evaluation.get("log_file"):
            native["externalId"] = evaluation["log_file"]
        spec = {
            **trace_outcome(evaluation), "observedAt": observed_at,
            "workloadDigest": digest_of(workload), "protocolDigest": digest_of(protocol),
            "environmentDigest": digest_of(environment),
            "implementationDigest": digest_of(implementation), "sourceNative": native,
        }
        stamp = slug(evaluation["timestamp"]).replace("-", "").replace(".", "").replace(":", "")
        run = manifest(
            "BenchmarkRun", slug("flashinfer-trace", value["solution"],
                                 _axes_name(value["workload"]["axes"]), stamp),
            spec, title=f"{value['solution']} · {_axes_title(value['workload']['axes'])} · "
                        f"{evaluation['environment']['device']}",
            annotations=provenance(SOURCE, license=LICENSE, upstream=UPSTREAM,
                                   file=source.name, source_line=str(line)),
        )
        return [workload, protocol, environment, implementation, run]


def protocol_manifest() -> dict[str, Any]:
    """Return the FlashInfer Trace BenchmarkProtocol (family ``flashinfer_trace``)."""
    return manifest(
        "BenchmarkProtocol", "flashinfer-trace",
        {"harness": {"name": "FlashInfer-Bench"},
         "measurement": {"timer": "harness_reported", "primaryStatistic": "mean",
                         "notes": "evaluation.performance.latency_ms, the mean latency the "
                                  "FlashInfer-Bench harness reports per trace."},
         "correctness": {"reference": "definition reference implementation",
                         "comparator": "max absolute and relative error against the reference"},
         "comparability": {"family": FAMILY,
                           "notes": "Comparable only within one definition and workload "
                                    "(axes), one GPU type, and this harness."}},
        title="FlashInfer Trace (FlashInfer-Bench evaluation)",
        annotations=provenance(SOURCE, license=LICENSE, upstream=UPSTREAM),
    )


def environment_manifest(environment: dict[str, Any]) -> dict[str, Any]:
    """Return the ExecutionEnvironment of a trace's ``evaluation.environment`` (device + libs)."""
    device: str = environment["device"]
    libs: dict[str, str] = environment.get("libs") or {}
    spec: dict[str, Any] = {"hardware": hardware(device)}
    if libs:
        spec["software"] = software(libs)
    versions = [f"{k}-{v}" for k, v in sorted(libs.items())]
    return manifest(
        "ExecutionEnvironment", slug("flashinfer-trace", device.removeprefix("NVIDIA "),
                                     *versions),
        spec, title=f"FlashInfer Trace {device}"
                    + (", " + ", ".join(f"{k} {v}" for k, v in sorted(libs.items()))
                       if libs else ""),
        annotations=provenance(SOURCE, license=LICENSE, upstream=UPSTREAM),
    )


def workload_name(definition: str, axes: dict[str, Any]) -> str:
    """Return the ``metadata.name`` of the Workload of a definition at these axes."""
    return slug("flashinfer-trace", definition, _axes_name(axes))


def _axes_key(axes: Any) -> bytes:
    try:
        return canonical.dumps(axes)
    except KistoreError:
        return repr(axes).encode()


def _axes_name(axes: dict[str, Any]) -> str:
    return slug(*(f"{k}-{v}" for k, v in sorted(axes.items())))


def _axes_title(axes: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in sorted(axes.items()))

