"""KernelBench baseline timing files -> manifests.

Reads ``<HARDWARE>_<Provider>/baseline_time_torch[_compile_<backend>_<mode>].json``
(``shared/data/kernelbench/SOURCE.md``): ``{level<N>: {<problem file>.py: {mean, std, min,
max, num_trials, hardware, device}}}``, latencies in ms of KernelBench's PyTorch reference
programs, eager or ``torch.compile``. One record and one BenchmarkRun per problem per file.

* Workload: one per problem (``level1/1_Square_matrix_multiplication_.py``), shared by
  every file.
* Implementation: one per file variant -- PyTorch eager, or ``torch.compile`` with the
  backend and mode the file name gives -- both ``candidate``: they compete on the same
  workload, GPU and protocol.
* ExecutionEnvironment: the ``hardware`` string (``torch.cuda.get_device_name()``) plus the
  provider, which only the folder name gives (``H100_PCIe_LambdaLabs`` -> ``LambdaLabs``).
* The files record no time. ``observedAt`` is the date of the upstream commit that last
  changed the file (SOURCE.md), at 00:00:00.000Z, and an annotation says so; a file that
  is not in :data:`KNOWN_FILES` cannot be imported (there is no time to give its runs).
* Files are recognised by content: the SHA-256 of the bytes names the known upstream file,
  so a copy in any folder, under any name, imports exactly as the original (same names,
  same digests); the provider and variant come from the known file's upstream path.
* No correctness is recorded: these are reference programs, so every run is ``passed``.
"""

from __future__ import annotations

import hashlib
import re
from functools import partial
from pathlib import PurePosixPath
from typing import Any

from ..core import canonical
from ..core.errors import KistoreError, MultipleErrors
from ..core.naming import slug
from .common import (
    Field,
    Plan,
    Record,
    SourceFile,
    check_shape,
    digest_of,
    fail,
    failed_record,
    fields_of,
    hardware,
    latency_ns,
    manifest,
    provenance,
    read_source,
)

SOURCE = "kernelbench"
SUITE = "KernelBench"
FAMILY = "kernelbench_timing"
LICENSE = "MIT"
UPSTREAM = "github.com/ScalingIntelligence/KernelBench@423217d9fda91e0c2d67e4a43bf62f96f6d104f1"
REPOSITORIES = frozenset({UPSTREAM.split("@")[0]})
"""The upstream repositories of this source's files (what its ``SOURCE.md`` names)."""
FOLDER_DECIDES: frozenset[str] = frozenset()
"""The ``kernelindex.dev/*`` annotations a file's path inside its ``SOURCE.md`` folder
decides: none. A file is known by its bytes (:data:`KNOWN_FILES`), which give its upstream
path and commit; the licence and upstream are this source's, wherever the file is."""

KNOWN_FILES = {
    "0da6e4a2e97916dc1cbc8fa5ee61985e85badda6b3f45f1d49fc91939130f699":
        ("kernelbench/H100_PCIe_LambdaLabs/baseline_time_torch.json",
         "129232ea3c4cfa05c2dd5473bdb935d6246dc84b", "2025-07-21"),
    "5973a32e2645e67580b42fde462616ad072d4236885c1f999b1114b9fb812a13":
        ("kernelbench/H100_PCIe_LambdaLabs/baseline_time_torch_compile_inductor_default.json",
         "129232ea3c4cfa05c2dd5473bdb935d6246dc84b", "2025-07-21"),
    "8e8f4c262ce4ad0aa074c095ba90690f89cc4d0cdb644b842e3a6bea3762bd22":
        ("kernelbench/H100_Modal/baseline_time_torch.json",
         "1f8d20fa06357a9c343f4508887b6da22f114752", "2025-12-31"),
}
"""SHA-256 of each known file's bytes -> its upstream path (under the data root), and the
upstream commit and date that last changed it (SOURCE.md table)."""

PROVIDERS = {"LambdaLabs": "Lambda Labs", "Modal": "Modal"}
"""Provider word in a folder name -> the provider's name."""

_FILE_NAME = re.compile(
    r"^baseline_time_torch(?:_compile_(?P<backend>[a-z0-9]+)_(?P<mode>[a-z0-9_-]+))?\.json$"
)
_LEVEL = re.compile(r"^level[0-9]+$")

TIMING_SHAPE: dict[str, Any] = {
    "type": "object",
    "required": ["mean", "std", "min", "max", "num_trials", "hardware"],
    "properties": {
        "mean": {"type": "number", "minimum": 0}, "std": {"type": "number", "minimum": 0},
        "min": {"type": "number", "minimum": 0}, "max": {"type": "number", "minimum": 0},
        "num_trials": {"type": "integer", "minimum": 1},
        "hardware": {"type": "string", "minLength": 1}, "device": {"type": "string"},
    },
}
FILE_SHAPE: dict[str, Any] = {
    "type": "object", "minProperties": 1,
    "propertyNames": {"pattern": "^level[0-9]+$"},
    "additionalProperties": {"type": "object",
                             "propertyNames": {"pattern": r"^[^/]+\.py$"},
                             "additionalProperties": {"type": "object"}},
}


def plan(files: list[SourceFile]) -> Plan:
    """Read KernelBench timing files into one record per problem per file.

    A file is recognised by its bytes (:data:`KNOWN_FILES`), whatever its name or folder; a
    file named like a timing file whose bytes are not a known file is one failing record
    (there is no time to give its runs).

    Args:
        files: from :func:`~.common.expand`.

    Returns:
        Records in file order, then level and problem order as the file lists them.

    Raises:
        MultipleErrors: a file named explicitly that is neither a known timing file nor
            named like one.
    """
    result = Plan()
    unknown: list[KistoreError] = []
    for source in files:
        named = _FILE_NAME.match(source.path.name) is not None
        try:
            data = read_source(source)
        except KistoreError as e:
            if named or source.explicit:
                result.records.append(failed_record(source.name, e, f"file {source.name}"))
            else:
                result.ignored.append(source.name)
            continue
        known = KNOWN_FILES.get(hashlib.sha256(data).hexdigest())
        if known is not None:
            result.records.extend(_file_records(source, data, known))
        elif named:
            names = ", ".join(n for n, _, _ in KNOWN_FILES.values())
            refused = fail("not a known upstream KernelBench timing file (by its bytes; "
                           f"known: {names}); the file records no measurement time, so "
                           "kistore cannot give its runs an observedAt. Only these files "
                           "import, byte for byte: for a newer upstream file, add its SHA-256, "
                           "upstream path, commit and that commit's date to KNOWN_FILES in "
                           "kistore/importers/kernelbench.py and run `make catalogue` (a "
                           "change to kistore: its runs' digests join the KI226 catalogue), or "
                           "write its runs as your own manifests with the observedAt you know, "
                           "naming no source or your own (a run claiming kernelbench that "
                           "kistore's importer does not make is refused, KI226), and `kistore "
                           "add` them", file=source.name)
            result.records.append(failed_record(source.name, refused, f"file {source.name}"))
        elif source.explicit:
            unknown.append(fail("not a KernelBench timing file: its bytes are none of the "
                                "known upstream files (shared/data/kernelbench/SOURCE.md)",
                                file=source.name))
        else:
            result.ignored.append(source.name)
    if unknown:
        raise MultipleErrors(unknown)
    return result


def _file_records(source: SourceFile, data: bytes, known: tuple[str, str, str]
                  ) -> list[Record]:
    try:
        value = canonical.loads(data, file=source.name)
        check_shape(value, FILE_SHAPE, file=source.name)
    except KistoreError as e:
        return [failed_record(source.name, e, f"file {source.name}")]
    timing_file = TimingFile(source, known)
    return [
        Record(source.name, partial(timing_file.run, level, problem, timing),
               pointer=f"/{level}/{problem}", label=f"{level}/{problem}", fields=FIELDS,
               value=timing)
        for level, problems in value.items() for problem, timing in problems.items()
    ]


class TimingFile:
    """One timing file: its implementation variant, provider and upstream commit.

    Args:
        source: the file as found (its name is the one errors give).
        known: the known file its bytes are (:data:`KNOWN_FILES`): upstream path, commit,
            date. The provider and variant come from the upstream path, never from where
            the copy is, so every copy gives the same manifests.
    """

    def __init__(self, source: SourceFile, known: tuple[str, str, str]) -> None:
        self.file, self.commit, self.date = known
        self.found = source.name
        upstream = PurePosixPath(self.file)
        self.folder = upstream.parent.name
        match = _FILE_NAME.match(upstream.name)
        assert match is not None, upstream  # KNOWN_FILES names only timing files
        self.backend, self.mode = match.group("backend"), match.group("mode")

    def implementation(self) -> dict[str, Any]:
        """PyTorch eager, or torch.compile with this file's backend and mode (candidate)."""
        if self.backend is None:
            return manifest(
                "Implementation", "kernelbench-pytorch-eager",
                {"project": "PyTorch", "role": "candidate", "language": "python",
                 "framework": "torch (eager)",
                 "description": "KernelBench's PyTorch reference program of each problem, "
                                "run in eager mode.",
                 "sourceNative": {"source": SOURCE, "variant": "torch"}},
                title="KernelBench reference, PyTorch eager",
                annotations=provenance(SOURCE, license=LICENSE, upstream=UPSTREAM),
            )
        variant = f"torch_compile_{self.backend}_{self.mode}"
        return manifest(
            "Implementation", slug("kernelbench-torch-compile", self.backend, self.mode),
            {"project": "PyTorch", "role": "candidate", "language": "python",
             "framework": f"torch.compile (backend {self.backend}, mode {self.mode})",
             "description": "KernelBench's PyTorch reference program of each problem, "
                            f"compiled with torch.compile (backend {self.backend}, "
                            f"mode {self.mode}).",
             "sourceNative": {"source": SOURCE, "variant": variant}},
            title=f"KernelBench reference, torch.compile {self.backend} {self.mode}",
            annotations=provenance(SOURCE, license=LICENSE, upstream=UPSTREAM),
        )

    def environment(self, hardware_name: str) -> dict[str, Any]:
        """Return the GPU the ``hardware`` string names, with the provider the folder names."""
        provider_word = self.folder.rsplit("_", 1)[-1] if "_" in self.folder else ""
        provider = PROVIDERS.get(provider_word, provider_word)
        spec: dict[str, Any] = {"hardware": hardware(hardware_name)}
        if provider:
            spec["provider"] = provider
        return manifest(
            "ExecutionEnvironment", slug("kernelbench", hardware_name.removeprefix("NVIDIA "),
                                         provider_word),
            spec, title=f"{hardware_name}" + (f" at {provider}" if provider else ""),
            annotations=provenance(SOURCE, license=LICENSE, upstream=UPSTREAM),
        )

    def run(self, level: str, problem: str, timing: Any) -> list[dict[str, Any]]:
        """Build one problem's manifests: workload, protocol, environment, implementation, run.

        Raises:
            MultipleErrors: the timing record does not have the source format.
        """
        pointer = f"/{level}/{problem}"
        check_shape(timing, TIMING_SHAPE, file=self.found, pointer=pointer)
        workload, protocol = workload_manifest(level, problem), protocol_manifest()
        environment = self.environment(timing["hardware"])
        implementation = self.implementation()
        variant = "eager" if self.backend is None else slug("compile", self.backend, self.mode)
        spec = {
            "status": "passed",  # reference programs: KernelBench records no correctness
            "timing": {"latencyNs": latency_ns({k: timing[k] for k in STATISTICS},
                                               file=self.found, pointer=pointer),
                       "primaryStatistic": "mean", "trials": timing["num_trials"]},
            "observedAt": f"{self.date}T00:00:00.000Z",
            "workloadDigest": digest_of(workload), "protocolDigest": digest_of(protocol),
            "environmentDigest": digest_of(environment),
            "implementationDigest": digest_of(implementation),
            "sourceNative": {"source": SOURCE, "benchmark": f"{level}/{problem}",
                             "metrics": dict(timing)},
        }
        run = manifest(
            "BenchmarkRun", slug("kernelbench", self.folder, variant, level,
                                 problem.removesuffix(".py")),
            spec, title=f"{level}/{problem} · {implementation['metadata']['title']} · "
                        f"{timing['hardware']}",
            annotations=provenance(
                SOURCE, license=LICENSE, upstream=f"{UPSTREAM.split('@')[0]}@{self.commit}",
                file=self.file,
                observed_at_basis=f"date of upstream commit {self.commit} that last changed "
                                  "the file; the file records no measurement time",
            ),
        )
        return [workload, protocol, environment, implementation, run]


STATISTICS = ("mean", "std", "min", "max")
"""The latency statistics a KernelBench timing record gives (ms)."""

FIELDS = {
    **fields_of("BenchmarkRun", {
        **{f"/spec/timing/latencyNs/{k}": Field(f"/{k}", "ms") for k in STATISTICS},
        "/spec/timing/trials": "/num_trials",
        "/spec/sourceNative/metrics": "",  # the timing record, verbatim
    }),
    **fields_of("ExecutionEnvironment", {"/spec/hardware/product": "/hardware"}),
}
"""Where a timing record states each value its manifests keep (:attr:`.common.Record.
fields`): a refused latency statistic is told at the record's, in ms (fresh01 F1)."""


def workload_manifest(level: str, problem: str) -> dict[str, Any]:
    """Return a KernelBench problem as a Workload (its source is ``KernelBench/<level>/<file>``)."""
    definition = problem.removesuffix(".py")
    return manifest(
        "Workload", slug("kernelbench", level, definition),
        {"suite": {"name": SUITE, "collection": level}, "definition": definition,
         "reference": {"language": "python", "path": f"KernelBench/{level}/{problem}"},
         "sourceNative": {"source": SOURCE, "benchmark": f"{level}/{problem}"}},
        title=f"KernelBench {level}/{definition}",
        annotations=provenance(SOURCE, license=LICENSE, upstream=UPSTREAM),
    )


def protocol_manifest() -> dict[str, Any]:
    """KernelBench's baseline timing protocol (family ``kernelbench_timing``)."""
    return manifest(
        "BenchmarkProtocol", "kernelbench-timing",
        {"harness": {"name": "KernelBench baseline timing"},
         "measurement": {"timer": "wall-clock", "primaryStatistic": "mean", "trials": 100,
                         "warmupTrials": 3,
                         "notes": "mean/std/min/max over num_trials runs after 3 warm-ups "
                                  "(results/timing/README.md)."},
         "comparability": {"family": FAMILY,
                           "notes": "Comparable only within one KernelBench problem and one "
                                    "GPU product; eager and torch.compile compete."}},
        title="KernelBench baseline timing",
        annotations=provenance(SOURCE, license=LICENSE, upstream=UPSTREAM),
    )
