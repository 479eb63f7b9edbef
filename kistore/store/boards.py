"""KI238 before an add writes: a run whose board (benchmark, kernel, shape) is not its workload's.

:meth:`kistore.store.Store.add` asks :func:`boards_admitted` with the new manifests (an
:data:`kistore.store.AdmissionCheck` it always runs); ``import`` adds through it.
:mod:`kistore.core.boards` owns the rule and its words. Each disagreement refuses the add
(nothing is written). Two ways a run and its workload meet, as KI218's run and protocol
do (:mod:`kistore.store.statistics`):

* a run the batch adds, whose workload is in the batch or stored in the work tree: one
  read of that workload's object (and metadata, for its name), once per workload; a run
  stating nothing of its board (:func:`kistore.core.boards.board_of`: no benchmark, no
  name of a leaderboard row or of a FlashInfer Trace run) reads nothing;
* a workload the batch adds, which earlier runs named while it was missing (``add
  --allow-dangling``): those runs are the ones its forward directory lists
  (:func:`kistore.core.layout.forward_dir`); one listing, one read per run listed. Refused
  on the workload, naming each run (a stored run never changes: this workload can never
  be the one it names).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..core.boards import (
    BOARD_DISAGREES,
    Board,
    board_finding_at,
    board_message,
    board_of,
    reads_metadata,
)
from ..core.boards import RUN_POINTER as BOARD_POINTER
from ..core.digest import Digest
from ..core.errors import InputError, KistoreError
from ..core.model import Manifest
from .statistics import Referenced, referenced_admitted

if TYPE_CHECKING:  # pragma: no cover - typing only
    from ._store import Store

WORKLOAD_POINTER = "/spec/definition"
"""Where a workload states its board (the error's JSON Pointer on an added workload)."""

_MAY_STATE = re.compile(rb'"benchmark":|(?i:sol|flash|kernel)|[\x80-\xff]')
"""A run states a board under ``"benchmark":`` (canonical bytes: exactly these), or, by
its name, title or annotations, only when its source reads as ``sol-execbench`` or
``flashinfer-trace`` (:func:`kistore.core.boards.board_of`), whose bytes hold ``sol`` or
``flash`` in some case (``kernel`` for ``kernelbench``, whose runs' titles name their
problem file since 2026-12-05, r93b G3), or a byte past ASCII (a source NFKC folds so,
``ＳＯＬ``): a run whose bytes hold none of these is not parsed. Its name alone no longer
decides (r92 F3: ``sol-submission-N`` and a FlashInfer Trace run named by hand state their
board in their title and annotations)."""


def boards_admitted(store: Store, manifests: Sequence[Manifest]
                    ) -> list[tuple[Digest, KistoreError]]:
    """KI238 refusals for the runs and workloads an add would add.

    Args:
        store: the store added to (its work tree).
        manifests: the manifests the add would add (new objects).

    Returns:
        ``(run digest, InputError)`` per added SOL-ExecBench run whose
        ``sourceNative.benchmark`` differs from its workload's ``definition`` (the
        workload in the batch or stored; at ``/spec/sourceNative/benchmark``), and
        ``(workload digest, InputError)`` per earlier stored run the added workload's
        forward records list that disagrees with it (at ``/spec/definition``). Each
        message names the run, the workload and both boards, then what to do.
    """
    return referenced_admitted(store, manifests, _BOARDS)


def _run_board(run: Manifest) -> Board | None:
    """Return an added run's board (:data:`_MAY_STATE` says which runs are parsed)."""
    if not _MAY_STATE.search(run.object_bytes):
        return None
    spec = run.passing_spec()  # and its metadata, when read, parsed for the look, not kept
    metadata = run.passing_metadata() if reads_metadata(spec) else None
    return board_of(run.kind, spec, run.name, metadata)  # (issue 22: memory)


def _refused(said: str, pointer: str) -> InputError:
    """Return the refusal: the disagreement, what to do, the rule's id."""
    return InputError(f"{said}; {BOARD_DISAGREES.hint} ({BOARD_DISAGREES.id})", pointer=pointer)


_BOARDS = Referenced("workloadDigest", "Workload", _run_board,
                     lambda spec: board_of("Workload", spec),
                     lambda spec, metadata: board_of("BenchmarkRun", spec, metadata.get("name"),
                                                    metadata), board_message,
                     _refused, BOARD_POINTER, WORKLOAD_POINTER,
                     lambda mine, theirs: board_finding_at(mine, theirs)[0])
