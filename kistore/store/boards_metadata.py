"""KI238 at ``add --update-metadata``: a stored run's new metadata stating another board.

``add`` judges KI238 on the runs it adds (:mod:`kistore.store.boards`); a run already
stored whose metadata ``--update-metadata`` replaces was not judged, so a title edited to
another shape was written without a word and refused only at the commit (reviewer fresh96
F8). Its spec, workload and Implementation never change (objects are immutable), so what
is judged is what the new metadata states that the stored metadata did not: a title,
source URL or source file now naming another board, shape, definition or solution than
its workload's (or its Implementation's). A disagreement the stored metadata already held
is ``verify``'s (a warning), not this change's.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..core import layout
from ..core.boards import (
    BOARD_DISAGREES,
    Board,
    board_disagreements,
    board_message,
    board_of,
    metadata_fields,
    with_implementation,
)
from ..core.comparison import stored_spec
from ..core.digest import Digest
from ..core.errors import InputError, KistoreError
from ..core.model import REFERENCE_FIELDS, Manifest, metadata_name
from ..core.statistics import named

if TYPE_CHECKING:  # pragma: no cover - typing only
    from ._store import Store
    from ._views import View

_AT = {kind: REFERENCE_FIELDS.index(field) for kind, field in (
    ("Workload", "workloadDigest"), ("Implementation", "implementationDigest"))}


def metadata_boards_admitted(store: Store, runs: Sequence[Manifest]
                             ) -> list[tuple[Digest, KistoreError]]:
    """KI238 refusals for stored runs whose metadata an add replaces.

    Args:
        store: the store added to (its work tree: the stored metadata, workload and
            Implementation are read there, one read each per run).
        runs: the BenchmarkRuns whose metadata the add replaces (status
            ``metadata-updated``), with their new metadata.

    Returns:
        ``(run digest, InputError at /metadata)`` per run whose new metadata states
        another board than its workload's where its stored metadata did not; the message
        names the run, each field and the workload (:func:`board_message`, as the gate says
        it of a metadata edit), then what to do: keep those fields as stored.
    """
    view = store.view(None)
    problems: list[tuple[Digest, KistoreError]] = []
    for run in runs:
        said = metadata_disagreement(view, run.digest, run.passing_spec(), run.name,
                                     run.passing_metadata(),
                                     _parsed(view.read(layout.metadata_path(run.digest))))
        if said is not None:
            message, fields = said
            problems.append((run.digest, InputError(
                f"{message}; keep {fields} as stored: --update-metadata replaces what the run "
                "states, never where it was measured (a run measured elsewhere is another "
                f"run, added with its own workload) ({BOARD_DISAGREES.id})",
                pointer="/metadata", rule_id=BOARD_DISAGREES.id)))
    return problems


def metadata_disagreement(view: View, digest: Digest, spec: Any, name: Any, new: Any,
                          old: Any) -> tuple[str, str] | None:
    """Say whether a run's metadata ``new`` states another board than ``old`` did.

    Args:
        view: where the run's workload and Implementation are read (one read each).
        digest: the run's digest.
        spec: its ``spec`` (parsed; the object never changes).
        name: its ``metadata.name``.
        new: the metadata judged (parsed JSON, any shape).
        old: the metadata it replaces (parsed, or None: none).

    Returns:
        ``(message, fields)``: :func:`board_message` of the metadata change
        (``metadata_only``) and the fields that say it (``its title and its source file
        (...)``), when ``new`` states a disagreement with the run's workload (or
        Implementation) that ``old`` did not; None else, or when the workload is absent
        or not intact.
    """
    refs = [spec.get(f) if isinstance(spec, dict) else None for f in REFERENCE_FIELDS]
    hexes = [r[7:] if isinstance(r, str) and r.startswith("sha256:") and len(r) == 71 else ""
             for r in refs]
    workload, workload_name = _stored(view, hexes[_AT["Workload"]], "Workload")
    board = board_of("BenchmarkRun", spec, name, new)
    if workload is None or board is None:
        return None
    implementation = _stored(view, hexes[_AT["Implementation"]], "Implementation")[0]
    board = with_implementation(board, implementation) or ()
    before = with_implementation(board_of("BenchmarkRun", spec, name, old), implementation)
    if set(board_disagreements(board, workload)) <= set(board_disagreements(before or (),
                                                                             workload)):
        return None
    message = board_message(named("BenchmarkRun", name, str(digest)), board,
                            named("Workload", workload_name,
                                  f"sha256:{hexes[_AT['Workload']]}"), workload,
                            metadata_only=True)
    fields = metadata_fields(board, workload) or ["metadata"]
    return (message or "", " and ".join(f"its {f}" for f in fields))


def _stored(view: View, hex_: str, kind: str) -> tuple[Board | None, str | None]:
    """Return a stored manifest's board and name (None, None when absent or not intact)."""
    if len(hex_) != 64 or not all(c in "0123456789abcdef" for c in hex_):
        return None, None
    digest = Digest(hex_)
    board = board_of(kind, stored_spec(view.read(layout.object_path(digest)), hex_, kind))
    return board, None if board is None else metadata_name(
        view.read(layout.metadata_path(digest)))


def _parsed(data: bytes | None) -> object:
    """Return stored metadata bytes parsed (None when absent or not JSON)."""
    try:
        return None if data is None else json.loads(data)
    except (ValueError, UnicodeDecodeError):
        return None
