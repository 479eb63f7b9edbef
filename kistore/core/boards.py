"""KI238: a run whose board is not its Workload's (a copy pointed at another board).

A ``sol-execbench`` run states the board it was measured on three times: its own
``spec.sourceNative.benchmark`` (the SOL-ExecBench problem, e.g.
``010_attention_value_projection_with_transpose``), the kernel number of its name
(``sol-kernel-10-submission-...``, KI209's form) and, through ``spec.workloadDigest``, the
Workload whose ``spec.definition`` is that problem and ``sourceNative.kernelId`` that
number. A ``flashinfer-trace`` run's name says the shape it was measured at
(``...-torch-m-1-20250803t...``), its workload's one case the shape it stands for (``axes``
``{"M": 104}``). The importers write each from one record, and every run of the real data
agrees. The importers write the board into the run's metadata too: a SOL-ExecBench run's
title names its problem and a leaderboard row's provenance annotations its kernel
(``.../leaderboard/kernel/3/...``), a FlashInfer Trace run's title its axes (``M=1``), a
KernelBench run's title and ``sourceNative.benchmark`` its problem file (``level1/19_ReLU.py``,
against its workload's ``sourceNative.benchmark``: r93b G3); a run
renamed to another allowed name, or with its benchmark left out, still states it there
(reviewer r92 F3), and those are read too. A run where they differ is a copy pointed at
another board (its numbers are one problem's, ranked in another problem's comparison group:
the group is the workload's), or a workload digest written by hand wrongly (reviewer r91 F6:
a copy of board 3's run with its benchmark left out, or a run named m-1 on the m=104
workload, was added unsaid).

An error where a run enters (``add``, ``import``, ``check BASE..HEAD``, pre-receive): no
honest run disagrees, and a workload is immutable by digest, so the pair judged at entry
never changes afterwards (but for a run's title, which a pull request may edit: the gate
judges a run whose metadata file the range changes too); a warning in ``verify``
(:data:`BOARD_DISAGREES_STORED`), since a store may hold such a run added before the rule
(objects are never removed). Judged only when the run's source reads as ``sol-execbench``
(:func:`kistore.core.naming.naming_source`, folded as KI226 reads it) or
``flashinfer-trace``, and only what both state (:func:`board_disagreements`): a run stating
nothing of its board contradicts nothing.

Pure: the rule and its words. ``verify`` and ``check`` apply it across files
(:func:`kistore.check._rules.check_entries`), ``add`` before it writes
(:func:`kistore.store.boards.boards_admitted`).
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from .board_claims import (
    flashinfer_definition,
    implementation_solution,
    local_case,
    solution_disagreements,
    workload_case,
)
from .findings import ERROR, WARNING, rule
from .folding import ascii_alnum
from .naming import naming_source, slug

SOURCE = "sol-execbench"
"""The source whose runs state their board (``sourceNative.benchmark``)."""

BOARD_DISAGREES = rule(
    "KI238", "run-board-disagrees-with-workload", ERROR,
    "point workloadDigest at the Workload of the board the run was measured on (its "
    "spec.definition the run's sourceNative.benchmark, its kernel, shape or case the one the "
    "run's name, title, externalId and annotations say: each SOL-ExecBench board, each "
    "SOL-ExecBench local workload (case uuid) and each FlashInfer Trace definition and shape "
    "is its own workload), and implementationDigest at the Implementation of the solution it "
    "measured; a copy of another board's run is not this board's, whatever it states")
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

IMPLEMENTATION_POINTER = "/spec/implementationDigest"
"""Where a FlashInfer Trace run naming another solution than its Implementation's is wrong."""

Board = tuple[tuple[str, str], ...]
"""What a manifest states of the board it is measured on, as ``(key, value)`` pairs in
a fixed order: a plain tuple (hashable, cheap to pickle between ``verify``'s workers).
Keys: ``board`` (a SOL-ExecBench run's ``sourceNative.benchmark``, a workload's
``definition``); ``kernel`` (the kernel number a SOL-ExecBench run's name says, a
SOL-ExecBench workload's ``sourceNative.kernelId``); ``name`` (a FlashInfer Trace run's
name, read against its workload's ``axes``); ``axes`` (a FlashInfer Trace workload's one
case's axes, ``k=v`` slugs joined by ``,``); and a run's fields of its metadata, keyed
``KEY:FIELD`` (:func:`_stated_in_metadata`: ``board:title``, ``kernel:source-url``,
``kernel:source-file``, ``axes:title``), each judged as ``KEY`` is."""

_KERNEL_NAME = re.compile(r"sol-kernel-([0-9]+)-")
"""A SOL-ExecBench leaderboard row's name says its kernel (board) number: a submission
(``sol-kernel-3-submission-42126``, KI209's form) and the board's own rows
(``sol-kernel-3-sol-bound``, ``-scoring-baseline``, ``-reference-implementation``). A
local evaluator run's (``sol-local-ID``) says none: its id is the trial's
(``sol-local-10-concrete-view-initial-trial-1-...``)."""

FLASHINFER = "flashinfertrace"
"""``flashinfer-trace`` as :func:`kistore.core.folding.ascii_alnum` reads a source."""

KERNELBENCH = "kernelbench"
"""``kernelbench`` as :func:`kistore.core.folding.ascii_alnum` reads a source: its runs and
workloads state the problem file (``sourceNative.benchmark``, ``level1/19_ReLU.py``), and
its runs' titles name it first (``level1/19_ReLU.py · IMPLEMENTATION · HARDWARE``; r93b G3)."""


def board_of(kind: Any, spec: Any, name: Any = None, metadata: Any = None
             ) -> Board | None:
    """Return what a manifest states of its board: a run's and a workload's (:data:`Board`).

    Args:
        kind: the manifest's ``kind``.
        spec: its ``spec`` (parsed JSON, any shape).
        name: its ``metadata.name`` (a run's name says its kernel or shape), or None.
        metadata: its metadata (parsed JSON, any shape), or None: a run's ``title`` and
            ``kernelindex.dev/source-url`` and ``source-file`` annotations state its board
            or shape where the importers write them (:func:`_stated_in_metadata`).

    Returns:
        For an Implementation whose ``sourceNative.source`` reads as ``sol-execbench``,
        ``board:implementation`` (its ``benchmark``) and ``kernel:implementation`` (its
        ``kernelId``), each when stated (:func:`with_implementation` adds them to its run's);
        for one of ``flashinfer-trace``, ``board:implementation-definition`` (its
        ``definition``, the Workload's ``definition`` the importer wrote from the same trace).
        For a BenchmarkRun whose ``sourceNative.source`` reads as ``sol-execbench``, its
        ``sourceNative.benchmark`` when a string, the kernel number its name says
        (``sol-kernel-N-...``), the benchmark its title names and the kernel its
        annotations name; for one of ``flashinfer-trace``, its name and the axes its title
        says (``M=1``); for a Workload, its ``definition`` when a string, a SOL-ExecBench
        one's ``sourceNative.kernelId`` (an integer) and a FlashInfer Trace one's axes (of
        its one case); None when it states none of these.
    """
    if not isinstance(spec, dict):
        return None
    native = spec.get("sourceNative")
    source = _stating(native.get("source") if isinstance(native, dict) else None)
    stated: list[tuple[str, str]] = []
    if kind == "Workload":
        value = spec.get("definition")
        if isinstance(value, str):
            stated.append(("board", value))
        if source == SOURCE:
            kernel = native.get("kernelId")  # type: ignore[union-attr]
            if isinstance(kernel, int) and not isinstance(kernel, bool):
                stated.append(("kernel", str(kernel)))
            stated += workload_case(spec)  # fresh96 F2: a local evaluator run's one case
        elif source == FLASHINFER:
            axes = _one_case_axes(spec.get("cases"))
            if axes is not None:
                stated.append(("axes", axes))
        elif source == KERNELBENCH:
            problem = native.get("benchmark")  # type: ignore[union-attr]
            if isinstance(problem, str):
                stated.append(("problem", problem))
    elif kind == "Implementation" and source == SOURCE:  # fresh95 F2: its board too
        value = native.get("benchmark")  # type: ignore[union-attr]
        if isinstance(value, str):
            stated.append((f"board:{IMPLEMENTATION}", value))
        kernel = native.get("kernelId")  # type: ignore[union-attr]
        if isinstance(kernel, int) and not isinstance(kernel, bool):
            stated.append((f"kernel:{IMPLEMENTATION}", str(kernel)))
    elif kind == "Implementation" and source == FLASHINFER:  # break95 H1: the same hole
        value = native.get("definition")  # type: ignore[union-attr]
        if isinstance(value, str):
            stated.append((f"board:{IMPLEMENTATION}-definition", value))
        stated += implementation_solution(native)  # type: ignore[arg-type]  # fresh96 F3
    elif kind == "BenchmarkRun" and source == KERNELBENCH:
        problem = native.get("benchmark")  # type: ignore[union-attr]
        if isinstance(problem, str):
            stated.append(("problem", problem))
        stated += _kernelbench_title(metadata)
    elif kind == "BenchmarkRun" and source == SOURCE:
        value = native.get("benchmark")  # type: ignore[union-attr]
        if isinstance(value, str):
            stated.append(("board", value))
        said = _KERNEL_NAME.match(name) if isinstance(name, str) else None
        if said is not None:
            stated.append(("kernel", str(int(said[1]))))
        stated += _stated_in_metadata(metadata, flashinfer=False)
        stated += local_case(native, name)  # type: ignore[arg-type]  # fresh96 F2
    elif kind == "BenchmarkRun" and source == FLASHINFER:
        if isinstance(name, str):
            stated.append(("name", name))
        stated += _stated_in_metadata(metadata, flashinfer=True)
        title = metadata.get("title") if isinstance(metadata, dict) else None
        segments = title.split(_SEPARATOR) if isinstance(title, str) else []
        stated += flashinfer_definition(  # fresh96 F3: its definition and solution
            native,  # type: ignore[arg-type]
            segments if len(segments) == 3 and _AXES_TITLE.fullmatch(segments[1]) else [])
    return tuple(stated) or None


IMPLEMENTATION = "implementation"
"""The field a run's :data:`Board` keys what its Implementation states under
(``kernel:implementation``, ``board:implementation``): the importer writes a SOL-ExecBench
submission's Implementation (``sourceNative.kernelId``, ``benchmark``) from the same
leaderboard row as its run and workload, so a run pointed at another board's workload is
said even when the run itself states nothing of its board (reviewer fresh95 F2: a copy of a
board-3 run, renamed, its benchmark left out, ranked on board 10 with a green gate)."""


def with_implementation(run: Board | None, implementation: Board | None) -> Board | None:
    """Return a run's board with what its Implementation states of its board added.

    Args:
        run: the run's :data:`Board` (:func:`board_of`), or None.
        implementation: the board of the Implementation the run names (:func:`board_of`
            of kind ``Implementation``: keys ``board:implementation``,
            ``kernel:implementation``), or None.

    Returns:
        The run's pairs, then the Implementation's; None when neither states any.

    Raises nothing.
    """
    if not implementation:
        return run
    stated = tuple(pair for pair in implementation
                   if pair[0].partition(":")[2].startswith(IMPLEMENTATION))
    return (run or ()) + stated or None


_MAY_STATE = re.compile(rb'"benchmark":|(?i:sol|flash|kernel)|[\x80-\xff]')
"""A run states a board under ``"benchmark":`` (canonical bytes: exactly these), or, by
its name, title or annotations, only when its source reads as ``sol-execbench`` or
``flashinfer-trace`` (:func:`board_of`), whose bytes hold ``sol`` or ``flash`` in some case
(``kernel`` for ``kernelbench``, whose runs' titles name their problem file since
2026-12-05, r93b G3), or a byte past ASCII (a source NFKC folds so, ``ＳＯＬ``). Its name
alone no longer decides (r92 F3: ``sol-submission-N`` and a FlashInfer Trace run named by
hand state their board in their title and annotations)."""


def may_state_board(data: bytes) -> bool:
    """Whether a run object's canonical bytes may state a board (else :func:`board_of` finds none).

    A byte search, no parse (:data:`_MAY_STATE`): a run whose bytes hold none of those
    patterns is not parsed for its board. True says only "parse it".

    Args:
        data: a BenchmarkRun object's canonical bytes.
    """
    return _MAY_STATE.search(data) is not None


def reads_metadata(spec: Any) -> bool:
    """Return whether :func:`board_of` reads a run's metadata.

    It does when the run's source is one that states the board there (``sol-execbench``,
    ``flashinfer-trace``, ``kernelbench``: its title names the problem): a caller adding
    many runs parses the metadata of those only.

    Args:
        spec: the run's ``spec`` (parsed JSON, any shape).
    """
    native = spec.get("sourceNative") if isinstance(spec, dict) else None
    return _stating(native.get("source") if isinstance(native, dict) else None) is not None


def _stating(source: Any) -> str | None:
    """Return which board-stating source a run's ``sourceNative.source`` reads as.

    Those whose runs state their board (:func:`board_of`, :func:`reads_metadata`):
    :data:`SOURCE` (``sol-execbench``, read folded as KI226 reads names) or
    :data:`FLASHINFER` or :data:`KERNELBENCH` (its letters and digits); None for another.
    """
    if naming_source(source) == SOURCE:
        return SOURCE
    folded = ascii_alnum(source) if isinstance(source, str) else None
    return folded if folded in (FLASHINFER, KERNELBENCH) else None


_SEPARATOR = " · "
"""What the importers join a run's title with (``Geometric · 003_lm_head... · B200``)."""

_BENCHMARK_TITLE = re.compile(r"[0-9]+_[A-Za-z0-9][A-Za-z0-9_.-]*")
"""A SOL-ExecBench problem as its runs' titles name it (``003_lm_head_projection...``): the
importers write ``SUBMITTER · PROBLEM · GPU`` (a leaderboard row, ``kernel_name``) and
``SOLUTION · PROBLEM · HARDWARE (local, MODE clocks)`` (a local evaluator run, its trace's
``definition``). A dataset name is a number prefix (unique within its collection: L1, L2,
Quant, FlashInfer-Bench; any count of digits), ``_`` and a name (any case, ``.`` and ``-``
too: r93b G3, it was three digits and lower case only). Only a segment of this form is read
of a leaderboard row's title: a hand-written title (``my kernel · fast · B200``) states no
problem."""

_LOCAL_TITLE = re.compile(r".+ \(local, [A-Za-z0-9_-]+ clocks\)")
"""The last segment of a local evaluator run's title (``B200 (local, locked clocks)``): the
segment before it is its trace's ``definition`` whatever its form (r93b G3), when it is one
word (no space: a definition is a file name)."""

_KERNELBENCH_TITLE = re.compile(r"level[0-9]+/[^\s/·]+\.py")
"""A KernelBench run's title's first segment (``level1/19_ReLU.py``), its problem file."""

_AXES_TITLE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=[^,=·]+(?:, [A-Za-z_][A-Za-z0-9_]*=[^,=·]+)*")
"""A FlashInfer Trace run's title states its axes as a segment ``M=1`` (``K=V, K=V``,
sorted: ``SOLUTION · M=1 · DEVICE``)."""

_KERNEL_ANNOTATIONS = (
    ("source-url", re.compile(r"/leaderboard/kernel/([0-9]+)/")),
    ("source-file", re.compile(r"(?:^|/)leaderboard/kernel-([0-9]+)/")))
"""Where a SOL-ExecBench leaderboard row's annotations say its kernel: the API it was
retrieved from (``.../api/leaderboard/kernel/3/B200?...``) and the snapshot file it was
imported from (``sol-execbench/leaderboard/kernel-3/leaderboard_snapshot.json``)."""


def _stated_in_metadata(metadata: Any, *, flashinfer: bool) -> list[tuple[str, str]]:
    """Return what a run's metadata states of its board, keyed ``KEY:FIELD`` (r92 F3).

    A run renamed to another allowed name (``sol-submission-N``, ``...-m1-...``) or with
    its benchmark left out still says where it was measured in the fields the importer
    wrote: its title and its provenance annotations (which the gate keeps as imported,
    KI432). Only what a field plainly states, in the form the importer writes it.

    Args:
        metadata: the run's metadata (any shape).
        flashinfer: a FlashInfer Trace run (its title's axes); else a SOL-ExecBench run
            (its title's problem, its annotations' kernel).

    Returns:
        ``("board:title", PROBLEM)``, ``("kernel:source-url", N)``,
        ``("kernel:source-file", N)`` or ``("axes:title", "m=1")``, each when stated.
    """
    if not isinstance(metadata, dict):
        return []
    stated: list[tuple[str, str]] = []
    title = metadata.get("title")
    segments = title.split(_SEPARATOR) if isinstance(title, str) else []
    if flashinfer:
        for segment in segments[1:]:
            if _AXES_TITLE.fullmatch(segment):
                pairs = (pair.partition("=") for pair in segment.split(", "))
                stated.append(("axes:title", ",".join(sorted(
                    f"{slug(k)}={slug(v)}" for k, _, v in pairs))))
                break
        return stated
    if len(segments) >= 3 and (_BENCHMARK_TITLE.fullmatch(segments[-2]) or (
            _LOCAL_TITLE.fullmatch(segments[-1]) and segments[-2]
            and not any(c.isspace() for c in segments[-2]))):
        stated.append(("board:title", segments[-2]))
    annotations = metadata.get("annotations")
    for field, pattern in _KERNEL_ANNOTATIONS:
        value = annotations.get(f"kernelindex.dev/{field}") if isinstance(annotations, dict) \
            else None
        said = pattern.search(value) if isinstance(value, str) else None
        if said is not None:
            stated.append((f"kernel:{field}", str(int(said[1]))))
    return stated


def _kernelbench_title(metadata: Any) -> list[tuple[str, str]]:
    """Return ``("problem:title", FILE)`` when a KernelBench run's title names its problem.

    The importer writes ``LEVEL/FILE.py · IMPLEMENTATION · HARDWARE``
    (:data:`_KERNELBENCH_TITLE`, its first segment); any other title states nothing.
    """
    title = metadata.get("title") if isinstance(metadata, dict) else None
    first = title.split(_SEPARATOR)[0] if isinstance(title, str) else ""
    return [("problem:title", first)] if _KERNELBENCH_TITLE.fullmatch(first) else []


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
        ``(key, the workload's value, the run's value)`` per disagreement, in the run's
        order, ``key`` as the run states it: ``board`` (benchmark against definition),
        ``board:title`` (the problem its title names), ``kernel`` (the name's number
        against ``kernelId``), ``kernel:source-url``, ``kernel:source-file`` (the
        annotations'), ``axes`` (the axes a FlashInfer Trace run's name says, ``-m-1``
        wherever it stands, against its workload's: ``m=1`` against ``m=104``),
        ``axes:title`` (its title's ``M=1``), ``case:name``, ``case:external-id`` (a
        SOL-ExecBench local evaluator run's case uuid against its workload's one case's),
        ``board:benchmark`` (a FlashInfer Trace run's definition);
        then ``solution:title``, ``solution:external-id`` (a FlashInfer Trace run's
        solution) against the solution of the Implementation it names (the ``solution``
        key of ``run``, :func:`with_implementation`), that value in place of the
        workload's. The axes stated are compared key by key, those the workload has. A
        value either side does not state is not judged.
    """
    theirs = dict(workload)
    found: list[tuple[str, str, str]] = []
    for key, value in run:
        base = key.partition(":")[0]
        if base in ("name", "axes"):
            axes = theirs.get("axes")
            said = None if axes is None else (
                _named_axes(value, axes) if base == "name" else value)
            if axes is not None and said and not _axes_agree(said, axes):
                found.append(("axes" if base == "name" else key, axes, said))
        elif base in theirs and theirs[base] != value:
            found.append((key, theirs[base], value))
    return found + solution_disagreements(run)


def _axes_agree(said: str, axes: str) -> bool:
    """Whether the axes ``said`` (``k=v`` joined by ``,``) agree with a workload's, key by key."""
    known = dict(pair.partition("=")[::2] for pair in axes.split(","))
    return all(known.get(k, v) == v for k, _, v in (p.partition("=") for p in said.split(",")))


def _named_axes(name: str, axes: str) -> str | None:
    """Return the axes ``name`` says for the keys of ``axes`` (``m=1``), or None.

    Each key's last ``-KEY-VALUE`` (or ``KEY-VALUE`` at the start) wherever it stands: the
    importer writes the axes after the solution, before the time stamp
    (``...-torch-m-1-20250803t...``); a name without the stamp (``...-torch-m-1``) says
    them too (r92 F3). A key the name does not say is left out.
    """
    said = []
    for pair in axes.split(","):
        key = pair.partition("=")[0]
        values = re.findall(rf"(?:^|-){re.escape(key)}-([a-z0-9.]+)(?=-|$)", name)
        if values:
            said.append(f"{key}={values[-1]}")
    return ",".join(said) or None


_SAID = {"board": "states sourceNative.benchmark {run!r}",
         "board:title": "is titled for {run!r}",
         "kernel": "is named as SOL-ExecBench kernel {run}",
         "kernel:source-url": "was retrieved from SOL-ExecBench kernel {run}'s leaderboard "
                              "(annotation kernelindex.dev/source-url)",
         "kernel:source-file": "was imported from SOL-ExecBench kernel {run}'s snapshot "
                               "(annotation kernelindex.dev/source-file)",
         "axes": "is named as measured at {run}",
         "axes:title": "is titled as measured at {run}",
         "board:implementation": "names an Implementation for {run!r} (its "
                                 "sourceNative.benchmark)",
         "kernel:implementation": "names an Implementation of SOL-ExecBench kernel {run} "
                                  "(its sourceNative.kernelId)",
         "board:implementation-definition": "names an Implementation for definition {run!r} "
                                            "(its sourceNative.definition)",
         "problem": "states sourceNative.benchmark {run!r}",
         "problem:title": "is titled for {run!r}",
         "case:name": "is named as measured at workload (case) {run}",
         "case:external-id": "states sourceNative.externalId of workload (case) {run}",
         "board:benchmark": "states sourceNative.benchmark {run!r}",
         "solution:title": "is titled for solution {run!r}",
         "solution:external-id": "states sourceNative.externalId of solution {run!r}"}
"""What the run states, per key of :func:`board_disagreements`."""

_THEIRS = {"board": "{theirs!r}", "kernel": "kernel {theirs} (sourceNative.kernelId)",
           "axes": "{theirs}", "problem": "{theirs!r} (sourceNative.benchmark)",
           "case": "case {theirs} (cases/0/uuid)"}
"""What its workload states, per kind of value."""


def board_message(run: str, board: Board, workload: str, definition: Board, *,
                  metadata_only: bool = False) -> str | None:
    """Say how a run's board disagrees with its workload's, or None.

    Args:
        run: the run as the message names it (``BenchmarkRun/NAME (sha256:...)``).
        board: what it states of its board (:func:`board_of`).
        workload: its workload as the message names it.
        definition: what the workload states (:func:`board_of`).
        metadata_only: only the run's metadata changed (a stored run, its title edited):
            its ranking does not change (the workload digest is in its object), so the
            message says the metadata misstates where it was measured instead (reviewer
            fresh95 F6: it said "this run would rank on another board").

    Returns:
        One sentence naming the run once, each field of it that disagrees, then the
        workload once with each value it states that they contradict (r92 F3: the
        workload was named once per disagreement); None when they agree.

    Raises nothing.
    """
    found = board_disagreements(board, definition)
    if not found:
        return None
    said = " and ".join(_SAID[key].format(run=mine) for key, _, mine in found)
    contradicted = []
    theirs = " and ".join(dict.fromkeys(
        _THEIRS[key.partition(":")[0]].format(theirs=value) for key, value, _ in found
        if not key.startswith("solution:")))
    if theirs:
        contradicted.append(f"its workload {workload} is {theirs}")
    contradicted += list(dict.fromkeys(
        f"it names an Implementation of solution {value!r} (its sourceNative.solution)"
        for key, value, _ in found if key.startswith("solution:")))
    source, where, place = _words(found[0][0])
    if metadata_only:
        return (f"{run} {said} but {' and '.join(contradicted)}: {source} run's title "
                f"and annotations say where it was measured, and these now say another "
                f"{place} than the one it ranks on")
    return (f"{run} {said} but {' and '.join(contradicted)}: {source} run is ranked in its "
            f"workload's comparison group, so this run would rank {where}")


def _words(key: str) -> tuple[str, str, str]:
    """Return a disagreement's source, where the run would rank, and the source's word.

    The source's own word for what a run is measured on (L0 of fresh96: "board" was said of
    a FlashInfer Trace shape, which no board holds).
    ``(source, where the run would rank, the word)``: a SOL-ExecBench leaderboard row's
    board, a local evaluator run's workload (SOL-ExecBench's word for one case), a
    FlashInfer Trace run's shape or definition, a KernelBench run's problem.
    """
    base, _, field = key.partition(":")
    if base == "axes":
        return ("a FlashInfer Trace", "at another shape than it was measured at", "shape")
    if base == "solution" or field == "benchmark" or \
            field.endswith("-definition"):
        return ("a FlashInfer Trace", "under another definition or solution than it was "
                "measured for", "definition")
    if base == "case":
        return ("a SOL-ExecBench local evaluator", "at another workload (case) than it was "
                "measured at", "workload")
    if base == "problem":
        return ("a KernelBench", "on another problem than it was measured on", "problem")
    return ("a SOL-ExecBench", "on another board than it was measured on", "board")


_FIELDS = {"title": "title", "source-url": "source URL (annotation kernelindex.dev/source-url)",
           "source-file": "source file (annotation kernelindex.dev/source-file)"}
"""The metadata field each ``KEY:FIELD`` of :data:`Board` is read from, as a fix names it."""


def metadata_fields(board: Board, definition: Board) -> list[str]:
    """Return the run's metadata fields that state another board than its workload's.

    Args:
        board: the run's :data:`Board`.
        definition: its workload's.

    Returns:
        Each field once, in the run's order (``title``, ``source URL (annotation
        kernelindex.dev/source-url)``, ``source file (...)``); the run's name and spec
        are left out (a stored run's never change: KI208, KI401).
    """
    return list(dict.fromkeys(_FIELDS[key.partition(":")[2]]
                              for key, _, _ in board_disagreements(board, definition)
                              if key.partition(":")[2] in _FIELDS))


def board_finding_at(board: Board, definition: Board) -> tuple[str, str, str]:
    """Return a disagreement's JSON Pointer on the run, ``expected`` and ``found``.

    The run's benchmark (``/spec/sourceNative/benchmark``, the workload's definition
    expected) when that disagrees, else its ``workloadDigest`` (the run's name says
    another kernel or shape: ``kernel 10`` expected, ``kernel 3`` found).

    Args:
        board: the run's :data:`Board`.
        definition: its workload's; the two disagree (:func:`board_message` said so).
    """
    found = board_disagreements(board, definition)
    for key, theirs, mine in found:
        if key in ("board", "problem", "board:benchmark"):  # the run's own benchmark
            return RUN_POINTER, theirs, mine
    key, theirs, mine = found[0]
    key = key.partition(":")[0]
    # a run naming another solution's Implementation only: its implementationDigest is wrong
    pointer = IMPLEMENTATION_POINTER if key == "solution" else NAME_POINTER
    return pointer, f"{key} {theirs}", f"{key} {mine}"
