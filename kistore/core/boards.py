"""KI238: a SOL-ExecBench run whose board is not its Workload's definition.

A ``sol-execbench`` run states the board it was measured on twice: its own
``spec.sourceNative.benchmark`` (the SOL-ExecBench problem, e.g.
``010_attention_value_projection_with_transpose``) and, through ``spec.workloadDigest``,
the Workload whose ``spec.definition`` is that problem. The importer writes both from one
field, and all 80 runs of the real data agree. A run where they differ is a copy pointed
at another board (its numbers are one problem's, ranked in another problem's comparison
group: the group is the workload's), or a workload digest written by hand wrongly.

An error where a run enters (``add``, ``import``, ``check BASE..HEAD``, pre-receive): no
honest run disagrees, and a workload is immutable by digest, so the pair judged at entry
never changes afterwards; a warning in ``verify`` (:data:`BOARD_DISAGREES_STORED`), since
a store may hold such a run added before the rule (objects are never removed). Judged only
when the run's source reads as ``sol-execbench`` (:func:`kistore.core.naming.
naming_source`, folded as KI226 reads it) and both state a string; a run stating no
benchmark states nothing to contradict.

Pure: the rule and its words. ``verify`` and ``check`` apply it across files
(:func:`kistore.check._rules.check_entries`), ``add`` before it writes
(:func:`kistore.store.boards.boards_admitted`).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from .findings import ERROR, WARNING, rule
from .naming import naming_source

SOURCE = "sol-execbench"
"""The source whose runs state their board (``sourceNative.benchmark``)."""

BOARD_DISAGREES = rule(
    "KI238", "run-board-disagrees-with-workload", ERROR,
    "point workloadDigest at the Workload whose spec.definition is the run's "
    "sourceNative.benchmark (each SOL-ExecBench board is its own workload), or state the "
    "board the run was measured on; a copy of another board's run is not this board's")
BOARD_DISAGREES_STORED = replace(BOARD_DISAGREES, severity=WARNING, hint=(
    "objects are never edited nor removed: a trusted maintainer withdraws the run "
    "(`kistore attest REF --type withdrawal`); the run that is the source's goes in anew"))
"""KI238 as ``verify`` reports a stored pair (a warning: history may hold one for good)."""

RUN_POINTER = "/spec/sourceNative/benchmark"
"""Where a run states its board (the finding's JSON Pointer, on the run's object)."""


def board_of(kind: Any, spec: Any) -> str | None:
    """Return the board a manifest states: a run's benchmark or a workload's definition.

    Args:
        kind: the manifest's ``kind``.
        spec: its ``spec`` (parsed JSON, any shape).

    Returns:
        For a BenchmarkRun whose ``sourceNative.source`` reads as ``sol-execbench``, its
        ``sourceNative.benchmark`` when a string; for a Workload, its ``definition`` when
        a string; else None.
    """
    if not isinstance(spec, dict):
        return None
    if kind == "Workload":
        value = spec.get("definition")
        return value if isinstance(value, str) else None
    if kind != "BenchmarkRun":
        return None
    native = spec.get("sourceNative")
    if not isinstance(native, dict) or naming_source(native.get("source")) != SOURCE:
        return None
    value = native.get("benchmark")
    return value if isinstance(value, str) else None


def board_message(run: str, board: str, workload: str, definition: str) -> str | None:
    """Say how a run's board disagrees with its workload's definition, or None.

    Args:
        run: the run as the message names it (``BenchmarkRun/NAME (sha256:...)``).
        board: its ``sourceNative.benchmark``.
        workload: its workload as the message names it.
        definition: the workload's ``spec.definition``.

    Returns:
        One sentence naming both and both values; None when they are equal.
    """
    if board == definition:
        return None
    return (f"{run} states sourceNative.benchmark {board!r} but its workload {workload} is "
            f"{definition!r}: a SOL-ExecBench run is ranked in its workload's comparison "
            "group, so this run would rank on another board than it was measured on")
