"""An add's refusal of imported manifests, told at the source records that built them.

The add-time rules (``Store.add``'s: KI209, KI222-KI224, KI226, KI228 before writing, then
KI232, KI238 and the query layer's checks ``kistore import`` passes) judge manifests. A
refusal was placed in the manifest (``FILE:/spec/sourceNative/metrics/sol_score`` for a
board row's ``sol_score: 1.7``, KI223: fresh98 MED 5), named no record, and ``--skip-invalid``
did not skip it: the whole import was refused. Each manifest now goes to the add with an
:class:`Origin` naming the records that built it, and :func:`at_records` tells a refusal
at the first of them (its file, line and JSON Pointer, what it is, ``submission 20171``),
saying the manifest, the pointer into it and the message with its rule; ``run_import``
leaves those records out under ``--skip-invalid`` and adds the rest again. :func:`told`
says such a refusal, and a manifest that fails its schema as it is built, at the record's
own value, in the source's unit (fresh01 F1).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from ..core.digest import Digest
from ..core.errors import AdvisedError, InputError, KistoreError, shorten
from ..core.model import Manifest
from ..core.numbers import is_number
from .common import IMPORT_ADVICE, Record, import_advice, ms_to_ns


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
    where it states the manifest's, :attr:`.common.Record.fields`), and its message is
    :func:`told`'s (``kernel 10 submission 20171: its BenchmarkRun
    'sol-kernel-10-submission-20171' is refused at /spec/sourceNative/metrics/sol_score,
    the record's 1.7: ... (KI223); the record is the source's ...``), saying how many
    other records built a manifest several built, and ending with the advice of whoever
    the refusing rule says is at fault (:func:`.common.import_advice`): the record's
    values (KI223: ``--skip-invalid`` leaves it out, report it upstream), the store's
    state (KI232: the rule's fix, then import again) or kistore's own files (KI226: its
    catalogue stale, ``make catalogue``).

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
        # an AdvisedError's advice is to a manifest's author, not to the record's (KI254)
        said = problem.problem if isinstance(problem, AdvisedError) else problem.message
        problem.pointer, problem.message = told(
            first, m.kind, m.name, problem.pointer or "", said,
            others=len(origin.records) - 1, advice=import_advice(problem.rule_id))
        problem.file, problem.line = origin.file, first.line
        problem.column = None
        problem.args = (problem.format(),)
        refused.update(map(id, origin.records))
    return refused if skippable else None


def told(record: Record, kind: str, name: str, pointer: str, message: str, *,
         others: int = 0, advice: str = IMPORT_ADVICE) -> tuple[str, str]:
    """Tell a refusal of a manifest's value at the record it came from.

    The one place an import says a refused manifest: at build (its schema, its canonical
    form: :func:`kistore.importers._build`) and at add (the add-time rules:
    :func:`at_records`). Where the record states the value (:meth:`.common.Record.source_of`,
    each importer's :attr:`.common.Record.fields`) the problem is placed there and says the
    value as the record states it, and in the manifest's unit (``1e-12 ms = 1e-06 ns``);
    elsewhere it stays at the record, saying the pointer into the manifest as such.

    Args:
        record: the (first) record that built the manifest.
        kind: the manifest's kind.
        name: its ``metadata.name``.
        pointer: the problem's JSON Pointer into the manifest (``""``: the whole of it).
        message: what is wrong there, without advice to a manifest's author.
        others: how many other records built the same manifest.
        advice: what to do (:func:`.common.import_advice` of the refusing rule): by
            default :data:`.common.IMPORT_ADVICE`, the record's values being at fault.

    Returns:
        ``(pointer, message)``: the JSON Pointer in the record's file (the record's, then
        the field's inside it), and ``LABEL: its KIND 'NAME' is refused at POINTER, the
        record's VALUE: MESSAGE; ADVICE``, or ``... at POINTER (a pointer into the KIND, not
        the record): ...`` where the field is not known.
    """
    built = f" (built from {others} other record(s) too)" if others else ""
    where = record.source_of(kind, pointer)
    known, value = record.stated(where.pointer) if where is not None else (False, None)
    if where is None or not known:
        return record.pointer, (
            f"{record.label}: its {kind} {name!r}{built} is refused at {pointer or '/'} (a "
            f"pointer into the {kind}, not the record): {message}; {advice}")
    stated = _shown(value)
    if where.unit == "ms" and is_number(value):
        stated = f"{stated} ms = {_shown(ms_to_ns(value))} ns"
    return record.pointer + where.pointer, (
        f"{record.label}: its {kind} {name!r}{built} is refused at {pointer}, the "
        f"record's {stated}: {message}; {advice}")


def _shown(value: Any) -> str:
    """Return a record's value as JSON text, cut to :data:`~kistore.core.errors.QUOTE_WIDTH`."""
    try:
        text = json.dumps(value, ensure_ascii=False, allow_nan=True)
    except (TypeError, ValueError):
        text = repr(value)
    return shorten(text)
