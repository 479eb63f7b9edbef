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

from ..core import layout
from ..core.boards import (
    BOARD_DISAGREES,
    Board,
    board_finding_at,
    board_message,
    board_of,
    with_implementation,
)
from ..core.boards import RUN_POINTER as BOARD_POINTER
from ..core.comparison import stored_spec
from ..core.digest import Digest
from ..core.errors import InputError, KistoreError
from ..core.model import REFERENCE_FIELDS, Manifest, metadata_name
from ..core.statistics import named
from .run_facts import facts_of
from .statistics import Referenced, referenced_admitted

if TYPE_CHECKING:  # pragma: no cover - typing only
    from ._store import Store

WORKLOAD_POINTER = "/spec/definition"
"""Where a workload states its board (the error's JSON Pointer on an added workload)."""


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
    workloads: dict[str, tuple[Board, str | None] | None] = {}  # each read once for both
    refused = referenced_admitted(store, manifests, _BOARDS, workloads)
    said = {digest for digest, _ in refused}  # a run refused for its own board: said once
    return refused + [p for p in _implementations_admitted(store, manifests, workloads)
                      if p[0] not in said]


_IMPLEMENTATION_MAY_STATE = re.compile(rb'"(?:kernelId|benchmark|definition)":')
"""An Implementation states its board under these keys (canonical bytes: exactly these);
one of the batch whose bytes hold none is not parsed (:func:`_implementations_admitted`)."""

_STORED_MAY_STATE = re.compile(rb"kernelId|benchmark|definition|\\u|\x00")
""":data:`_IMPLEMENTATION_MAY_STATE` for a stored Implementation, whose bytes may not be
canonical (a file committed or edited by hand: ``verify`` says so, KI103): a key reads
``kernelId``, ``benchmark`` or ``definition`` only when its bytes hold those letters (with
any spacing around the colon), spell them with an escape (``\\u0062``: no other JSON escape
makes a letter), or are UTF-16 or UTF-32 (which :func:`~kistore.core.comparison.stored_spec`
reads too: ASCII there holds NUL bytes). Bytes holding none are neither hashed nor parsed:
no board (as a tampered or absent one has)."""

_WORKLOAD_AT = REFERENCE_FIELDS.index("workloadDigest")
_IMPLEMENTATION_AT = REFERENCE_FIELDS.index("implementationDigest")


def _implementations_admitted(store: Store, manifests: Sequence[Manifest],
                              workloads: dict[str, tuple[Board, str | None] | None]
                              ) -> list[tuple[Digest, KistoreError]]:
    """KI238 refusals for added runs whose Implementation states another board than their Workload.

    A SOL-ExecBench submission's Implementation states its board (``sourceNative.kernelId``
    and ``benchmark``, :func:`kistore.core.boards.board_of`), written by the importer from
    the run's own leaderboard row: a run naming board 3's Implementation and board 10's
    Workload is a copy pointed at another board even when the run itself states nothing of
    its board (reviewer fresh95 F2). Each Implementation and Workload is read once (in the
    batch, else stored in the work tree); an Implementation whose bytes state no board is
    not parsed (stored ones too: :data:`_STORED_MAY_STATE`), and a Workload read only for a
    run whose Implementation states one, unless KI238's run check read it already.

    Args:
        store: the store added to (its work tree).
        manifests: the manifests the add would add.
        workloads: what :func:`~kistore.store.statistics.referenced_admitted` read of each
            Workload (hex -> (board, name), None: it states none): not read again.

    Returns:
        ``(run digest, InputError at /spec/workloadDigest or /spec/sourceNative/benchmark)``
        per added run so pointed.
    """
    view = store.view(None)
    batch = {m.digest.hex: m for m in manifests}
    read: dict[tuple[str, str], tuple[Board | None, str | None]] = {}

    def stated(hex_: str, kind: str) -> tuple[Board | None, str | None]:
        if kind == "Workload" and hex_ in workloads:  # read by the run check already
            return workloads[hex_] or (None, None)
        if (hex_, kind) not in read:
            m = batch.get(hex_)
            if m is not None:
                board = board_of(kind, m.passing_spec()) if m.kind == kind and (
                    kind == "Workload" or _IMPLEMENTATION_MAY_STATE.search(m.object_bytes)
                ) else None
                read[hex_, kind] = (board, m.name)
            else:
                digest = Digest(hex_)
                data = view.read(layout.object_path(digest))
                board = None if data is None or kind == "Implementation" and not \
                    _STORED_MAY_STATE.search(data) else board_of(kind, stored_spec(data, hex_,
                                                                                  kind))
                read[hex_, kind] = (board, None if board is None else metadata_name(
                    view.read(layout.metadata_path(digest))))
        return read[hex_, kind]

    problems: list[tuple[Digest, KistoreError]] = []
    for m in manifests:
        refs = m.reference_hex if m.kind == "BenchmarkRun" else ()
        if len(refs) <= max(_WORKLOAD_AT, _IMPLEMENTATION_AT) or not (
                refs[_WORKLOAD_AT] and refs[_IMPLEMENTATION_AT]):
            continue
        implementation, _ = stated(refs[_IMPLEMENTATION_AT], "Implementation")
        if not implementation:
            continue
        workload, name = stated(refs[_WORKLOAD_AT], "Workload")
        board = with_implementation(_run_board(m), implementation)
        message = None if workload is None or board is None else board_message(
            named(m.kind, m.name, str(m.digest)), board,
            named("Workload", name, f"sha256:{refs[_WORKLOAD_AT]}"), workload)
        if message is not None and board is not None and workload is not None:
            problems.append((m.digest, _refused(message, board_finding_at(board,
                                                                           workload)[0])))
    return problems


def _run_board(run: Manifest) -> Board | None:
    """Return an added run's board (found once a run: :func:`kistore.store.run_facts.facts_of`)."""
    return facts_of(run).board


def _refused(said: str, pointer: str) -> InputError:
    """Return the refusal: the disagreement, what to do, the rule's id."""
    return InputError(f"{said}; {BOARD_DISAGREES.hint} ({BOARD_DISAGREES.id})", pointer=pointer,
                      rule_id=BOARD_DISAGREES.id)


_BOARDS = Referenced("workloadDigest", "Workload", _run_board,
                     lambda spec: board_of("Workload", spec),
                     lambda spec, metadata: board_of("BenchmarkRun", spec, metadata.get("name"),
                                                    metadata), board_message,
                     _refused, BOARD_POINTER, WORKLOAD_POINTER,
                     lambda mine, theirs: board_finding_at(mine, theirs)[0])
