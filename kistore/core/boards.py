"""KI238: a run whose board is not its Workload's (a copy pointed at another board).

A ``sol-execbench`` run states the board it was measured on three times: its own
``spec.sourceNative.benchmark`` (the SOL-ExecBench problem, e.g.
``010_attention_value_projection_with_transpose``), the kernel number of its name
(``sol-kernel-10-submission-...``, KI209's form) and, through ``spec.workloadDigest``, the
Workload whose ``spec.definition`` is that problem and ``sourceNative.kernelId`` that
number. A ``flashinfer-trace`` run's name says the shape it was measured at
(``...-torch-m-1-20250803t...``), its workload's one case the shape it stands for
(``axes`` ``{"M": 104}``). The importers write each from one record, and every run of the
real data agrees. A run where they differ is a copy pointed at another board (its numbers
are one problem's, ranked in another problem's comparison group: the group is the
workload's), or a workload digest written by hand wrongly (reviewer r91 F6: a copy of
board 3's run with its benchmark left out, or a run named m-1 on the m=104 workload, was
added unsaid).

An error where a run enters (``add``, ``import``, ``check BASE..HEAD``, pre-receive): no
honest run disagrees, and a workload is immutable by digest, so the pair judged at entry
never changes afterwards; a warning in ``verify`` (:data:`BOARD_DISAGREES_STORED`), since
a store may hold such a run added before the rule (objects are never removed). Judged only
when the run's source reads as ``sol-execbench`` (:func:`kistore.core.naming.
naming_source`, folded as KI226 reads it) or ``flashinfer-trace``, and only what both
state (:func:`board_disagreements`): a run stating nothing of its board contradicts
nothing.

Pure: the rule and its words. ``verify`` and ``check`` apply it across files
(:func:`kistore.check._rules.check_entries`), ``add`` before it writes
(:func:`kistore.store.boards.boards_admitted`).
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from .findings import ERROR, WARNING, rule
from .folding import ascii_alnum
from .naming import naming_source, slug

SOURCE = "sol-execbench"
"""The source whose runs state their board (``sourceNative.benchmark``)."""

BOARD_DISAGREES = rule(
    "KI238", "run-board-disagrees-with-workload", ERROR,
    "point workloadDigest at the Workload of the board the run was measured on (its "
    "spec.definition the run's sourceNative.benchmark, its kernel or shape the one the "
    "run's name says: each SOL-ExecBench board and each FlashInfer Trace shape is its own "
    "workload); a copy of another board's run is not this board's, whatever it states")
BOARD_DISAGREES_STORED = replace(BOARD_DISAGREES, severity=WARNING, hint=(
    "objects are never edited nor removed: a trusted maintainer withdraws the run "
    "(`kistore attest REF --type withdrawal`); the run that is the source's goes in anew"))
"""KI238 as ``verify`` reports a stored pair (a warning: history may hold one for good)."""

RUN_POINTER = "/spec/sourceNative/benchmark"
"""Where a run states its board (the finding's JSON Pointer, on the run's object)."""

NAME_POINTER = "/spec/workloadDigest"
"""Where a run whose name says another kernel or shape than its workload's is wrong (the
finding's JSON Pointer, on the run's object: the name is the source's, the workload the
run was pointed at is what disagrees)."""

Board = tuple[tuple[str, str], ...]
"""What a manifest states of the board it is measured on, as ``(key, value)`` pairs in
a fixed order: a plain tuple (hashable, cheap to pickle between ``verify``'s workers).
Keys: ``board`` (a SOL-ExecBench run's ``sourceNative.benchmark``, a workload's
``definition``); ``kernel`` (the kernel number a SOL-ExecBench run's name says, a
SOL-ExecBench workload's ``sourceNative.kernelId``); ``name`` (a FlashInfer Trace run's
name, read against its workload's ``axes``); ``axes`` (a FlashInfer Trace workload's one
case's axes, ``k=v`` slugs joined by ``,``)."""

_KERNEL_NAME = re.compile(r"sol-kernel-([0-9]+)-")
"""A SOL-ExecBench leaderboard row's name says its kernel (board) number: a submission
(``sol-kernel-3-submission-42126``, KI209's form) and the board's own rows
(``sol-kernel-3-sol-bound``, ``-scoring-baseline``, ``-reference-implementation``). A
local evaluator run's (``sol-local-ID``) says none: its id is the trial's
(``sol-local-10-concrete-view-initial-trial-1-...``)."""

_STAMP = r"-[0-9]+t[0-9]+"
"""A FlashInfer Trace run's name ends in its evaluation's time stamp
(``-20250803t233619508706``), after the axes of its workload (``-m-1``)."""

FLASHINFER = "flashinfertrace"
"""``flashinfer-trace`` as :func:`kistore.core.folding.ascii_alnum` reads a source."""


def board_of(kind: Any, spec: Any, name: Any = None) -> Board | None:
    """Return what a manifest states of its board: a run's and a workload's (:data:`Board`).

    Args:
        kind: the manifest's ``kind``.
        spec: its ``spec`` (parsed JSON, any shape).
        name: its ``metadata.name`` (a run's name says its kernel or shape), or None.

    Returns:
        For a BenchmarkRun whose ``sourceNative.source`` reads as ``sol-execbench``, its
        ``sourceNative.benchmark`` when a string and the kernel number its name says
        (``sol-kernel-N-...``); for one of ``flashinfer-trace``, its name; for a
        Workload, its ``definition`` when a string, a SOL-ExecBench one's
        ``sourceNative.kernelId`` (an integer) and a FlashInfer Trace one's axes (of its
        one case); None when it states none of these.
    """
    if not isinstance(spec, dict):
        return None
    native = spec.get("sourceNative")
    source = native.get("source") if isinstance(native, dict) else None
    stated: list[tuple[str, str]] = []
    if kind == "Workload":
        value = spec.get("definition")
        if isinstance(value, str):
            stated.append(("board", value))
        if naming_source(source) == SOURCE:
            kernel = native.get("kernelId")  # type: ignore[union-attr]
            if isinstance(kernel, int) and not isinstance(kernel, bool):
                stated.append(("kernel", str(kernel)))
        elif isinstance(source, str) and ascii_alnum(source) == FLASHINFER:
            axes = _one_case_axes(spec.get("cases"))
            if axes is not None:
                stated.append(("axes", axes))
    elif kind == "BenchmarkRun" and naming_source(source) == SOURCE:
        value = native.get("benchmark")  # type: ignore[union-attr]
        if isinstance(value, str):
            stated.append(("board", value))
        said = _KERNEL_NAME.match(name) if isinstance(name, str) else None
        if said is not None:
            stated.append(("kernel", str(int(said[1]))))
    elif kind == "BenchmarkRun" and isinstance(source, str) and isinstance(name, str) \
            and ascii_alnum(source) == FLASHINFER:
        stated.append(("name", name))
    return tuple(stated) or None


def _one_case_axes(cases: Any) -> str | None:
    """Return a workload's one case's axes as ``k=v`` slugs joined by ``,``, or None."""
    if not (isinstance(cases, list) and len(cases) == 1 and isinstance(cases[0], dict)):
        return None
    axes = cases[0].get("axes")
    if not isinstance(axes, dict) or not axes:
        return None
    return ",".join(f"{slug(k)}={slug(v)}" for k, v in sorted(axes.items()))


def board_disagreements(run: Board, workload: Board) -> list[tuple[str, str, str]]:
    """Return what a run states of its board that its workload contradicts.

    Args:
        run: the run's :data:`Board`.
        workload: its workload's.

    Returns:
        ``(key, the workload's value, the run's value)`` per disagreement, in order:
        ``board`` (benchmark against definition), ``kernel`` (the name's number against
        ``kernelId``), ``axes`` (the axes a FlashInfer Trace run's name says before its
        time stamp against its workload's, ``m=1`` against ``m=104``; a name not ending
        so says none). A value either side does not state is not judged.
    """
    theirs = dict(workload)
    found: list[tuple[str, str, str]] = []
    for key, value in run:
        if key == "name":
            axes = theirs.get("axes")
            said = None if axes is None else _named_axes(value, axes)
            if axes is not None and said is not None and said != axes:
                found.append(("axes", axes, said))
        elif key in theirs and theirs[key] != value:
            found.append((key, theirs[key], value))
    return found


def _named_axes(name: str, axes: str) -> str | None:
    """Return the axes ``name`` says for the keys of ``axes`` (``m=1``), or None."""
    keys = [pair.partition("=")[0] for pair in axes.split(",")]
    said = re.search("".join(f"-{re.escape(k)}-([a-z0-9.]+)" for k in keys) + _STAMP + "$",
                     name)
    return None if said is None else ",".join(
        f"{k}={v}" for k, v in zip(keys, said.groups(), strict=True))


_SAID = {"board": "states sourceNative.benchmark {run!r} but its workload {workload} is "
                  "{theirs!r}",
         "kernel": "is named as SOL-ExecBench kernel {run} but its workload {workload} is "
                   "kernel {theirs} (sourceNative.kernelId)",
         "axes": "is named as measured at {run} but its workload {workload} is {theirs}"}


def board_message(run: str, board: Board, workload: str, definition: Board) -> str | None:
    """Say how a run's board disagrees with its workload's, or None.

    Args:
        run: the run as the message names it (``BenchmarkRun/NAME (sha256:...)``).
        board: what it states of its board (:func:`board_of`).
        workload: its workload as the message names it.
        definition: what the workload states (:func:`board_of`).

    Returns:
        One sentence naming both and each value they disagree on; None when they agree.
    """
    found = board_disagreements(board, definition)
    if not found:
        return None
    said = " and ".join(_SAID[key].format(run=mine, workload=workload, theirs=theirs)
                        for key, theirs, mine in found)
    source = "a FlashInfer Trace" if found[0][0] == "axes" else "a SOL-ExecBench"
    return (f"{run} {said}: {source} run is ranked in its workload's comparison group, so "
            "this run would rank on another board than it was measured on")


def board_finding_at(board: Board, definition: Board) -> tuple[str, str, str]:
    """Return a disagreement's JSON Pointer on the run, ``expected`` and ``found``.

    The run's benchmark (``/spec/sourceNative/benchmark``, the workload's definition
    expected) when that disagrees, else its ``workloadDigest`` (the run's name says
    another kernel or shape: ``kernel 10`` expected, ``kernel 3`` found).

    Args:
        board: the run's :data:`Board`.
        definition: its workload's; the two disagree (:func:`board_message` said so).
    """
    key, theirs, mine = board_disagreements(board, definition)[0]
    if key == "board":
        return RUN_POINTER, theirs, mine
    return NAME_POINTER, f"{key} {theirs}", f"{key} {mine}"
