"""KI238's readers of what a run states of its case, definition and solution (fresh96).

What SOL-ExecBench local evaluator runs and FlashInfer Trace runs state of the workload
they were measured on besides their name's shape (reviewer fresh96 F2, F3).

* A SOL-ExecBench local evaluator run is one trace of one *workload* (SOL-ExecBench's word
  for one case of a definition, with its ``uuid``): the importer
  (:mod:`kistore.importers.sol_execbench_runs`) names the run
  ``sol-local-FOLDER-TRIAL-UUID`` and writes ``sourceNative.externalId``
  ``FOLDER/TRIAL/UUID``, and its Workload holds that one case (``cases[0].uuid``). A run
  copied onto another case's workload of the same kernel (seq_len 512 measured, seq_len
  2048 ranked) still ends both with the case it was measured at (key ``case``).
* A FlashInfer Trace run (:mod:`kistore.importers.flashinfer_trace`) states its
  definition in the source's own field ``sourceNative.benchmark`` (the trace's
  ``definition``; key ``board``, against its workload's ``definition``). The trace file
  it was imported from (annotation ``kernelindex.dev/source-file``) is not read: the
  dataset names it ``traces/OP_TYPE/DEFINITION.jsonl``, but the importer takes any
  ``traces/**/NAME.jsonl`` (one new trace file, ``traces/gemm/new.jsonl``, imported after
  the folder: reviewer r85 F6), so its name is the importer's user's, not the source's
  statement. Its title's first segment and its ``externalId`` (the evaluation's
  ``log_file``, ``SOLUTION_N.log``, N a signed integer) state the trace's ``solution``,
  which the importer writes into its Implementation (``sourceNative.solution``) from the
  same trace (key ``solution``, against the Implementation's). The run's name is the
  solution's slug and states nothing read here (where the solution ends in it is not
  plain).

Only what a field plainly states in the form the importer writes it: a hand-named run, a
title of another shape, an ``externalId`` of another form state nothing.
All 17 local evaluator runs and all 172 FlashInfer Trace runs of the real data agree
(``tests/check/test_board_claims.py``).
"""

from __future__ import annotations

import re
from typing import Any

SOLUTION_IMPLEMENTATION = "solution:implementation"
"""The key of what a FlashInfer Trace Implementation states of its solution."""

_UUID = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
_LOCAL_NAME = re.compile(rf"sol-local-.+-({_UUID})")
"""A local evaluator run's name (``sol-local-10-concrete-view-initial-trial-1-UUID``)."""
_LOCAL_EXTERNAL_ID = re.compile(rf"[^/]+/[^/]+/({_UUID})")
"""A local evaluator run's ``externalId`` (``10-concrete-view-initial/trial-1/UUID``)."""

_LOG_FILE = re.compile(r"(.+)_-?[0-9]+\.log")
"""A FlashInfer-Bench evaluation's ``log_file`` (``gemm_n_4096_k_4096_torch_9138...4.log``)."""


def local_case(native: dict[str, Any], name: Any) -> list[tuple[str, str]]:
    """Return the case uuid a SOL-ExecBench run's name and ``externalId`` state.

    Args:
        native: the run's ``spec.sourceNative`` (a dict).
        name: its ``metadata.name`` (any).

    Returns:
        ``("case:name", UUID)`` and ``("case:external-id", UUID)`` (lower case), each when
        the field has the local evaluator importer's form; a leaderboard row states none.
    """
    stated: list[tuple[str, str]] = []
    said = _LOCAL_NAME.fullmatch(name) if isinstance(name, str) else None
    if said is not None:
        stated.append(("case:name", said[1]))
    external = native.get("externalId")
    said = _LOCAL_EXTERNAL_ID.fullmatch(external.lower()) if isinstance(external, str) \
        else None  # a uuid is one whatever its letters' case
    if said is not None:
        stated.append(("case:external-id", said[1]))
    return stated


def workload_case(spec: dict[str, Any]) -> list[tuple[str, str]]:
    """Return ``[("case", UUID)]`` for a workload of one case with a string ``uuid``, else []."""
    cases = spec.get("cases")
    if isinstance(cases, list) and len(cases) == 1 and isinstance(cases[0], dict) and \
            isinstance(cases[0].get("uuid"), str):
        return [("case", cases[0]["uuid"].lower())]
    return []


def flashinfer_definition(native: dict[str, Any], segments: list[str]
                          ) -> list[tuple[str, str]]:
    """Return what a FlashInfer Trace run states of its definition and solution.

    Args:
        native: the run's ``spec.sourceNative`` (a dict).
        segments: its title split at `` · `` ([] without a title).

    Returns:
        ``("board:benchmark", DEFINITION)`` (``sourceNative.benchmark``),
        ``("solution:title", SOLUTION)`` (the title's first segment, when the title has
        the importer's three segments) and ``("solution:external-id", SOLUTION)``, each
        when stated.
    """
    stated: list[tuple[str, str]] = []
    benchmark = native.get("benchmark")
    if isinstance(benchmark, str):
        stated.append(("board:benchmark", benchmark))
    if len(segments) == 3 and segments[0]:
        stated.append(("solution:title", segments[0]))
    external = native.get("externalId")
    said = _LOG_FILE.fullmatch(external) if isinstance(external, str) else None
    if said is not None:
        stated.append(("solution:external-id", said[1]))
    return stated


def implementation_solution(native: dict[str, Any]) -> list[tuple[str, str]]:
    """Return what a FlashInfer Trace Implementation states of its solution.

    Returns:
        ``[(SOLUTION_IMPLEMENTATION, SOLUTION)]`` for its ``sourceNative.solution`` (a
        string), else [].
    """
    solution = native.get("solution")
    return [(SOLUTION_IMPLEMENTATION, solution)] if isinstance(solution, str) else []


def solution_disagreements(run: tuple[tuple[str, str], ...]) -> list[tuple[str, str, str]]:
    """Return where a FlashInfer Trace run names another solution than its Implementation.

    Args:
        run: the run's board with its Implementation's added
            (:func:`kistore.core.boards.with_implementation`).

    Returns:
        ``(key, the Implementation's solution, the run's)`` per field that disagrees
        (fresh96 F3); [] when the Implementation states no solution.
    """
    theirs = dict(run).get(SOLUTION_IMPLEMENTATION)
    if theirs is None:
        return []
    return [(key, theirs, value) for key, value in run
            if key.startswith("solution:") and key != SOLUTION_IMPLEMENTATION
            and value != theirs]
