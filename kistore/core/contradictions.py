"""Runs that contradict themselves or their source: rules KI222 and KI223 (docs/rules.md).

Pure (no I/O). A BenchmarkRun's ``status`` decides whether it is ranked, and its source's
metrics are ranked as stored, so a run that says ``passed`` while its own correctness
check (``correctness.passed: false``) or its source's status (``INCORRECT_NUMERICAL``)
says it failed, or that states a SOL score of 7.5 on a scale that ends at 1, would rank
first on nothing but its word (review r75 F9). :func:`run_contradictions` says what is
wrong; ``add`` and ``import`` refuse such a run, ``check`` and ``verify`` report it as an
error, and ``rank`` leaves a stored one out, saying why.

* **KI222** (``run-status-contradicts-itself``): ``status`` is ``passed`` and
  ``correctness.passed`` is ``false``; or ``sourceNative.status`` is a trace status
  (:data:`TRACE_STATUSES`, the vocabulary of FlashInfer Trace and SOL-ExecBench, the
  sources of :data:`TRACE_SOURCES`) that means another ``status`` than the run's.
* **KI223** (``metric-out-of-range``): a metric of :data:`METRIC_BOUNDS` lies outside its
  source's scale (a SOL-ExecBench SOL score outside [0, 1]).
* **KI224** (``metric-keys-differ-only-in-case``): two keys of ``sourceNative.metrics``
  are equal after Unicode case folding (``LATENCY_MS`` beside ``latency_ms``). SQL
  engines (DuckDB, Spark, Trino) name columns and struct fields case-insensitively, so
  the two are one export column: DuckDB refused the run's JSON Lines row (review r78 F8).
  Within one run only; across runs ``kistore export`` writes such keys apart
  (:mod:`kistore.export.columns`, :func:`metric_columns`).
"""

from __future__ import annotations

from typing import Any, NamedTuple

from .canonical import escape_pointer

TRACE_STATUSES = {
    "PASSED": "passed",
    "INCORRECT": "incorrect", "INCORRECT_SHAPE": "incorrect",
    "INCORRECT_NUMERICAL": "incorrect", "INCORRECT_DTYPE": "incorrect",
    "RUNTIME_ERROR": "runtime-error",
    "COMPILE_ERROR": "compile-error",
    "TIMEOUT": "timeout",
}
"""A trace's ``evaluation.status`` (FlashInfer Trace and SOL-ExecBench, which derives from it)
-> BenchmarkRun ``spec.status``; the raw value is kept in ``sourceNative.status``."""

TRACE_SOURCES = frozenset({"flashinfer-trace", "sol-execbench"})
"""The ``sourceNative.source`` values whose ``sourceNative.status`` is a trace status."""

SOL_SCORE = (0.0, 1.0, "1 is the speed-of-light bound, 0.5 the scoring baseline")
"""SOL-ExecBench's SOL score ``S = 1 / (1 + (T_k - T_sol) / (T_b - T_sol))`` (per workload,
and its arithmetic mean over workloads): 1.0 is the speed-of-light bound T_sol itself, 0.5
the scoring baseline T_b, and a slower kernel tends to 0 (SOURCE.md of
/work/shared/data/sol-execbench; every published row and local run lies in [0.1, 1.0])."""

METRIC_BOUNDS: dict[tuple[str, str], tuple[float, float, str]] = {
    ("sol-execbench", "sol_score"): SOL_SCORE,
    ("sol-execbench", "median_latency_sol_score"): SOL_SCORE,
}
"""``(sourceNative.source, metric key) -> (lowest, highest, what the scale means)``, both
bounds included (KI223)."""


class Contradiction(NamedTuple):
    """One thing a run states that its other fields or its source's scale deny.

    Attributes:
        rule: ``KI222``, ``KI223`` or ``KI224``.
        pointer: JSON Pointer of the value at fault, in the object (``/spec/status``).
        message: one sentence for people: what the run says, what denies it.
        short: a few words for ``rank``'s reason column.
    """

    rule: str
    pointer: str
    message: str
    short: str


def run_contradictions(spec: Any) -> list[Contradiction]:
    """Return what a BenchmarkRun's ``spec`` states against itself or its source's scale.

    Args:
        spec: a BenchmarkRun's ``spec`` (anything: a value that is not a dict, or a field
            of the wrong type, is the schema's to report, and yields nothing here).

    Returns:
        The contradictions, KI222 first, then KI223, then KI224 (one per key that folds to
        an earlier key's case, in code-point order of the keys); empty for a run that
        makes sense.
    """
    if not isinstance(spec, dict):
        return []
    found: list[Contradiction] = []
    status = spec.get("status")
    correctness = spec.get("correctness")
    if status == "passed" and isinstance(correctness, dict) \
            and correctness.get("passed") is False:
        found.append(Contradiction(
            "KI222", "/spec/status",
            "the run says status 'passed' but its correctness check says it failed "
            "(/spec/correctness/passed is false): a run that fails its correctness check "
            "is not passed, and is never ranked",
            "status passed, correctness.passed false"))
    native = spec.get("sourceNative")
    native = native if isinstance(native, dict) else {}
    source, raw = native.get("source"), native.get("status")
    if source in TRACE_SOURCES and isinstance(raw, str) and raw in TRACE_STATUSES \
            and isinstance(status, str) and TRACE_STATUSES[raw] != status:
        found.append(Contradiction(
            "KI222", "/spec/status",
            f"the run says status {status!r} but its source's status {raw!r} "
            f"(/spec/sourceNative/status, {source}) means {TRACE_STATUSES[raw]!r}",
            f"status {status}, source status {raw}"))
    metrics = native.get("metrics")
    if isinstance(source, str) and isinstance(metrics, dict):
        for key, value in metrics.items():
            bounds = METRIC_BOUNDS.get((source, key))
            if bounds is None or not isinstance(value, int | float) or isinstance(value, bool):
                continue
            low, high, meaning = bounds
            if not low <= value <= high:
                found.append(Contradiction(
                    "KI223", f"/spec/sourceNative/metrics/{key}",
                    f"{source}'s {key} lies in [{low:g}, {high:g}] ({meaning}); the run "
                    f"states {value!r}, which no run can score",
                    f"{key} {value!r} outside [{low:g}, {high:g}]"))
    if isinstance(metrics, dict):
        found += _case_collisions(metrics)
    return found


def _case_collisions(metrics: dict[str, Any]) -> list[Contradiction]:
    """KI224: each metric key equal, after :meth:`str.casefold`, to a key before it.

    Args:
        metrics: a run's ``sourceNative.metrics`` (keys are strings: JSON).

    Returns:
        One contradiction per key after the first of each case-folded class (keys in
        code-point order), at that key's JSON Pointer (RFC 6901).
    """
    first: dict[str, str] = {}
    found = []
    for key in sorted(metrics):
        kept = first.setdefault(key.casefold(), key)
        if kept != key:
            found.append(Contradiction(
                "KI224", f"/spec/sourceNative/metrics/{escape_pointer(key)}",
                f"the run states metrics {kept!r} and {key!r}, keys that differ only in "
                "letter case: DuckDB, Spark and Trino read column and field names without "
                "case, so an export cannot tell them apart (DuckDB reads the wrong CSV "
                "column and refuses the JSON Lines row)",
                f"metrics {kept!r} and {key!r} differ only in case"))
    return found
