"""An add's refusal of imported manifests, told at the source records that built them.

The add-time rules (``Store.add``'s: KI209, KI222-KI224, KI226, KI228 before writing, then
KI232, KI238 and the query layer's checks ``kistore import`` passes) judge manifests. A
refusal was placed in the manifest (``FILE:/spec/sourceNative/metrics/sol_score`` for a
board row's ``sol_score: 1.7``, KI223: fresh98 MED 5), named no record, and ``--skip-invalid``
did not skip it: the whole import was refused. Each manifest now goes to the add with an
:class:`Origin` naming the records that built it, and :func:`at_records` tells a refusal
at the first of them (its file, line and JSON Pointer, what it is, ``submission 20171``),
saying the manifest, the pointer into it and the message with its rule; ``run_import``
leaves those records out under ``--skip-invalid`` and adds the rest again.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from ..core.digest import Digest
from ..core.errors import InputError, KistoreError
from ..core.model import Manifest
from .common import Record


@dataclass(frozen=True, eq=False)
class Origin:
    """Where an imported manifest came from, as ``Store.add(origins=)`` takes one.

    :func:`kistore.store.admission.locate` places a refusal at ``file`` and ``line`` and
    keeps its pointer into the manifest (``pointer`` is empty); :func:`at_records` then
    tells it at the record.

    Attributes:
        file: the first record's file, as the person typed it (``Plan.as_typed``).
        line: its line (JSON Lines), else None.
        manifest: the manifest.
        records: every record that built it, in order (a board's Workload: every row).
        pointer: ``""``: the refusal's own pointer, into the manifest, is kept.
    """

    file: str
    line: int | None
    manifest: Manifest
    records: tuple[Record, ...]
    pointer: str = ""


def origins_of(accepted: Iterable[tuple[Record, list[Manifest]]],
               typed: Callable[[str], str] = str) -> dict[Digest, Origin]:
    """Return each manifest's :class:`Origin`, by digest.

    Args:
        accepted: ``(record, its manifests)`` pairs, in order.
        typed: the path the person typed for a record's file (``Plan.as_typed``).

    Returns:
        ``{digest: Origin}``: the records that built each manifest, the first one's place.
    """
    records: dict[Digest, list[Record]] = {}
    manifests: dict[Digest, Manifest] = {}
    for record, built in accepted:
        for m in built:
            records.setdefault(m.digest, []).append(record)
            manifests.setdefault(m.digest, m)
    return {d: Origin(typed(found[0].file), found[0].line, manifests[d], tuple(found))
            for d, found in records.items()}


def at_records(error: KistoreError) -> set[int] | None:
    """Tell each problem of an add's refusal placed at an :class:`Origin` at its record.

    Only an :class:`~kistore.core.errors.InputError` is the record's (what the add-time
    rules refuse in a manifest); a :class:`~kistore.core.errors.StoreStateError` is the
    store's (a name or other metadata stored: ``--update-metadata`` decides; a damaged
    stored file), placed at the manifest as before and left as it is. In place, for each
    of the record's: its file, line and pointer become the first record's (the file as
    typed, the column none; the pointer to the record's own value where the record says
    where it states the run's, :attr:`.common.Record.fields`), and its message
    ``LABEL: its KIND 'NAME' is refused at POINTER: MESSAGE`` (``kernel 10 submission
    20171: its BenchmarkRun 'sol-kernel-10-submission-20171' is refused at
    /spec/sourceNative/metrics/sol_score: ... (KI223)``), saying how many other records
    built a manifest several built.

    Args:
        error: what ``Store.add`` raised.

    Returns:
        The ids (``id()``) of the records that built a refused manifest, to be left out
        whole; None when one problem is no record's to leave out (placed at no record, or
        the store's).
    """
    refused: set[int] = set()
    skippable = True
    for problem in error.problems:
        origin = problem.origin
        if not isinstance(origin, Origin) or not isinstance(problem, InputError):
            skippable = False  # the store's state: a name or metadata stored, a file damaged
            continue
        first, m = origin.records[0], origin.manifest
        others = len(origin.records) - 1
        built = f" (built from {others} other record(s) too)" if others else ""
        problem.message = (f"{first.label}: its {m.kind} {m.name!r} is refused at "
                           f"{problem.pointer or '/'}{built}: {problem.message}")
        inner = first.fields.get(problem.pointer or "") if m.kind == "BenchmarkRun" else None
        problem.file, problem.line = origin.file, first.line
        problem.pointer = first.pointer + (inner or "")
        problem.column = None
        problem.args = (problem.format(),)
        refused.update(map(id, origin.records))
    return refused if skippable else None
