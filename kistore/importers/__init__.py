"""Importers: real public benchmark data turned into manifests, through the one add path.

Each source has one small module (:mod:`.sol_execbench`, :mod:`.flashinfer_trace`,
:mod:`.kernelbench`) that reads the source's files into :class:`~.common.Record` units;
this module builds them into :class:`~kistore.core.model.Manifest` values and hands them all to
:meth:`kistore.store.Store.add` in one call (no second write path).

All or nothing: every bad record is reported (file and line for JSON Lines, or JSON
Pointer) and nothing is imported. With ``skip_invalid`` a bad record is left out whole
(its run and whatever only it needed) and reported as a warning instead. A record whose
manifest takes a name an earlier record gave another manifest (a duplicate record with
other values) is a bad record too, reported naming both. Importing is
deterministic (no wall clock: every time comes from the data) and idempotent (a second
import reports every manifest ``unchanged`` and writes nothing).

See ``docs/importers.md`` for the mapping of each source onto the five kinds.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..core import canonical
from ..core.errors import AdvisedError, InputError, KistoreError, MultipleErrors
from ..core.limits import DEFAULT, Limits
from ..core.model import Manifest
from ..core.schema import KINDS
from . import flashinfer_trace, kernelbench, sol_execbench
from ._provenance import Recorded, warning
from ._refused import at_records, origins_of, told
from .common import Plan, Record, Stored, expand, source_folder, typed_names

if TYPE_CHECKING:
    from ..store import AddResult, AdmissionCheck, Store

SOURCES: dict[str, Callable[[list[Any]], Plan]] = {
    "sol-execbench": sol_execbench.plan,
    "flashinfer-trace": flashinfer_trace.plan,
    "kernelbench": kernelbench.plan,
}
"""Source id -> the function that reads its files into records."""

SOURCE_REPOSITORIES: dict[str, frozenset[str]] = {
    "sol-execbench": sol_execbench.REPOSITORIES,
    "flashinfer-trace": flashinfer_trace.REPOSITORIES,
    "kernelbench": kernelbench.REPOSITORIES,
}
"""Source id -> the upstream repositories of its files (``github.com/OWNER/NAME``), any of
which its ``SOURCE.md`` names: a ``SOURCE.md`` naming none is another source's (or a stub),
and the paths inside its folder may mean nothing upstream."""

FOLDER_DECIDES: dict[str, frozenset[str]] = {
    "sol-execbench": sol_execbench.FOLDER_DECIDES,
    "flashinfer-trace": flashinfer_trace.FOLDER_DECIDES,
    "kernelbench": kernelbench.FOLDER_DECIDES,
}
"""Source id -> the ``kernelindex.dev/*`` annotations a file's path inside its
``SOURCE.md`` folder decides (the rest the importer knows otherwise)."""

STATUSES = ("added", "unchanged", "metadata-updated")


@dataclass
class ImportReport:
    """What one import did.

    Attributes:
        source: the source id.
        results: one :class:`~kistore.store.AddResult` per distinct manifest, in order.
        skipped: the problems of records left out under ``skip_invalid`` (one per line).
        ignored: files found in the named directories that are not this source's formats.
        records: how many records were read (built or skipped).
        warnings: the provenance warnings (:mod:`._provenance`), then what an admission
            check warned of (:attr:`kistore.store.AddResult.warnings`, e.g. KI217).
    """

    source: str
    results: list[AddResult]
    skipped: list[KistoreError] = field(default_factory=list)
    ignored: list[str] = field(default_factory=list)
    records: int = 0
    warnings: list[str] = field(default_factory=list)
    """What the manifests of files outside the source's folder record (no ``warning:``
    prefix; one line per group: no ``SOURCE.md``, a foreign one)."""

    def counts(self) -> dict[str, dict[str, int]]:
        """Return ``{kind: {status: n}}`` for every kind (in dependency order) and status."""
        tally = Counter((r.kind, r.status) for r in self.results)
        return {kind: {s: tally[(kind, s)] for s in STATUSES} for kind in KINDS}

    @property
    def runs(self) -> int:
        """Number of BenchmarkRun manifests this import covers (added or already stored)."""
        return sum(1 for r in self.results if r.kind == "BenchmarkRun")


def plan_import(source: str, paths: Sequence[str], limits: Limits = DEFAULT) -> Plan:
    """Read the files of a source into records, without building or writing anything.

    Args:
        source: one of :data:`SOURCES`.
        paths: files or directories of that source (e.g. ``shared/data/kernelbench``).
        limits: size limits; each file is read up to ``source_bytes`` + 1 bytes.

    Returns:
        The :class:`~.common.Plan`: records in a deterministic order, ignored files, the
        files in no folder holding a ``SOURCE.md`` (``unsourced``), and those whose
        ``SOURCE.md`` names none of the source's repositories (``foreign``,
        :data:`SOURCE_REPOSITORIES`), their folders in ``watched``.

    Raises:
        InputError: an unknown source.
        MultipleErrors: paths that do not exist, or named files that are not this
            source's formats.
    """
    reader = SOURCES.get(source)
    if reader is None:
        raise InputError(f"unknown source {source!r}; expected one of {', '.join(SOURCES)}")
    files = expand(paths, limits.source_bytes, source)
    typed = Plan(typed=typed_names(files))
    try:
        plan = reader(files)
    except KistoreError as e:  # named as the person typed them, not by provenance name
        raise typed.retell(e) from None
    plan.typed = typed.typed
    plan.ignored = [plan.as_typed(name) for name in plan.ignored]
    folders = {f.path: source_folder(f.path) for f in files}
    plan.unsourced = [plan.as_typed(f.name) for f in files if folders[f.path] is None]
    foreign = {folder for folder in set(folders.values()) if folder is not None
               and not names_repository(folder / "SOURCE.md", SOURCE_REPOSITORIES[source])}
    plan.foreign = [(plan.as_typed(f.name), folder / "SOURCE.md") for f in files
                    if (folder := folders[f.path]) is not None and folder in foreign]
    for f in files:
        folder = folders[f.path]
        if folder is None or folder in foreign:
            plan.watched.setdefault(f.name.rpartition("/")[0],
                                    None if folder is None else folder / "SOURCE.md")
    return plan


def names_repository(source_md: Path, repositories: frozenset[str]) -> bool:
    """Whether a ``SOURCE.md`` names any of ``repositories``.

    A repository is named by its ``github.com/OWNER/NAME`` in any case (GitHub's are
    case-insensitive), not followed by more of a name (``.../KernelBench2`` does not name
    ``.../KernelBench``; ``.../KernelBench.git`` does).

    Args:
        source_md: the file, read as UTF-8 (undecodable bytes replaced).
        repositories: e.g. :data:`SOURCE_REPOSITORIES` ``[source]``.

    Returns:
        True when one is named; False when none is, or the file cannot be read.
    """
    try:
        text = source_md.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    return any(re.search(re.escape(r) + r"(?![\w-])", text, re.IGNORECASE)
               for r in repositories)


def run_import(
    store: Store,
    source: str,
    plan: Plan,
    *,
    commit: bool = False,
    message: str | None = None,
    skip_invalid: bool = False,
    update_metadata: bool = False,
    progress: Callable[[int], Any] | None = None,
    checks: Sequence[AdmissionCheck] = (),
    on_landed: Callable[[str | None], None] | None = None,
) -> ImportReport:
    """Build every record of a plan and add the manifests to the store in one call.

    Args:
        store: the store to add to.
        source: the source id (for the report and the commit message).
        plan: from :func:`plan_import`.
        commit: also commit (``Store.add(commit=True)``).
        message: commit message (default ``kistore import SOURCE: N runs from F files``,
            then, when ``update_metadata`` replaced some, ``; metadata replaced on M
            manifests`` and a body listing them: ``Store.add``'s ``message``).
        skip_invalid: leave bad records out (reported in ``ImportReport.skipped``)
            instead of refusing the whole import.
        update_metadata: replace the stored metadata of an object imported before with
            other metadata (e.g. from a folder without ``SOURCE.md``), as
            ``Store.add(update_metadata=True)``: a committed name still never moves.
        progress: called with 1 after each record is built (e.g. a progress bar's update).
        checks: the rules of the layers above the store the add asks before writing
            (``Store.add(checks=)``); ``kistore import`` passes
            ``(kistore.query.units.units_admitted,)`` (KI210). Default none.
        on_landed: called once the add has landed (``Store.add(on_landed=)``).

    A stored run a trusted maintainer withdrew claims no source record any more
    (``Store.add(withdrawn=)``, :func:`kistore.attest.evidence.withdrawn_runs`): the
    record's own run is imported in its place (KI232; reviewer r90 F6).

    Returns:
        The :class:`ImportReport`.

    Raises:
        MultipleErrors: every bad record (file, line or JSON Pointer, what was expected)
            when not ``skip_invalid``; or every refusal of ``Store.add`` (e.g. a name
            conflict with what is stored, or a
            :class:`~kistore.core.errors.MetadataConflictError` unless
            ``update_metadata``). Nothing is written then.
        StoreStateError: as ``Store.add``; a work tree not checked out (a ``git clone
            --no-checkout``) is refused before any record is built
            (:meth:`kistore.store.Store.require_checkout_to_write`, naming ``kistore
            import``).
    """
    store.require_checkout_to_write("kistore import")
    errors: list[KistoreError] = []
    skipped: list[KistoreError] = []
    cache: dict[bytes, Manifest] = {}
    owners: dict[tuple[str, str], tuple[Manifest, Record]] = {}
    accepted: list[tuple[Record, list[Manifest]]] = []
    limits = store.limits()
    if plan.join_stored is not None:
        plan.join_stored(_stored_manifests(store))
    for record in plan.records:
        try:
            built = _build(record, cache, limits)
            _claim_names(built, record, owners, plan.as_typed)
        except KistoreError as e:
            (skipped if skip_invalid else errors).extend(plan.retell(e).problems)
        else:
            accepted.append((record, built))
        if progress is not None:
            progress(1)
    if skip_invalid:  # a name the store gives another manifest would refuse the whole add
        told = len(skipped)
        accepted = _without_stored_names(store, accepted, skipped)
        for problem in skipped[told:]:
            plan.retell(problem)
    files = len({r.file for r in plan.records})
    given = set(map(id, errors))  # the records that did not build, told already
    # Lazy: attestations are read only when a run's claim meets another's (KI232).
    from ..attest.evidence import withdrawn_runs

    while True:  # once, or again without the records the add-time rules refused
        manifests = [m for _, built in accepted for m in built]
        runs = sum(1 for m in manifests if m.kind == "BenchmarkRun")
        said_first = (f"kistore import {source}: {runs} run{'s' * (runs != 1)} from {files} "
                      f"file{'s' * (files != 1)}")
        try:
            results = store.add(  # every bad record said at once: refused, with the add's
                manifests, commit=commit, origins=origins_of(accepted, plan.as_typed),
                refused=errors,
                update_metadata=update_metadata, checks=checks, on_landed=on_landed,
                withdrawn=withdrawn_runs(store),
                # the store adds what --update-metadata replaced (KIND/NAME DIGEST a line)
                message=message or _saying(said_first),
            )
        except KistoreError as e:
            refused = at_records(e)  # each told at its record, named as typed
            for problem in e.problems:
                if problem.origin is None and id(problem) not in given:
                    plan.retell(problem)
            if not skip_invalid or not refused:
                raise e from None
            skipped += e.problems  # left out whole; the rest added again, checked again
            accepted = [(r, built) for r, built in accepted if id(r) not in refused]
            continue
        break
    groups: dict[Path | None, Recorded] = {}
    for record, built in accepted:
        folder = record.file.rpartition("/")[0]
        if folder in plan.watched:  # its provenance is warned of: what does it record?
            source_md = plan.watched[folder]
            groups.setdefault(source_md, Recorded(source_md)).add(
                plan.as_typed(record.file), built)
    said = [warning(source, groups[key], FOLDER_DECIDES[source], SOURCE_REPOSITORIES[source])
            for key in sorted(groups, key=lambda k: k is not None)]
    said += [line for r in results for line in r.warnings]  # admission checks' (KI217)
    return ImportReport(source, results, skipped, plan.ignored, len(plan.records),
                        [line for line in said if line is not None])


def _saying(first: str) -> Callable[[Sequence[AddResult]], str]:
    """Return ``Store.add``'s ``message`` saying ``first`` (it adds what it replaced)."""
    return lambda _: first


def import_files(store: Store, source: str, paths: Sequence[str], **options: Any) -> ImportReport:
    """:func:`plan_import` then :func:`run_import` (the Python form of ``kistore import``).

    Args:
        store: the store to add to.
        source: one of :data:`SOURCES`.
        paths: files or directories of that source.
        options: ``commit``, ``message``, ``skip_invalid``, ``update_metadata``,
            ``progress``, ``checks`` of :func:`run_import`.

    Raises:
        As :func:`plan_import` and :func:`run_import`.
    """
    return run_import(store, source, plan_import(source, paths), **options)


def _stored_manifests(store: Store) -> Stored:
    """Return :data:`~.common.Stored` over the store's work tree (the add's own view).

    Raises (when called): as :meth:`kistore.store.View.manifest` for a damaged file.
    """
    view = store.view()

    def stored(kind: str, name: str) -> Manifest | None:
        digest = view.find_name(kind, name)
        return None if digest is None else view.manifest(digest)

    return stored


def _without_stored_names(store: Store, accepted: list[tuple[Record, list[Manifest]]],
                          skipped: list[KistoreError]) -> list[tuple[Record, list[Manifest]]]:
    """Leave out the records whose manifests have names the store gives other manifests.

    Each is reported in ``skipped``, naming the stored digest. Read before the add takes
    its lock: a name taken by a concurrent add in between still refuses the whole add.

    Args:
        store: the store imported into (its work tree).
        accepted: ``(record, manifests)`` pairs that built and claimed their names.
        skipped: the skipped-record problems, appended to.

    Returns:
        The pairs that do not clash, in order.
    """
    keys = list({(m.kind, m.name) for _, built in accepted for m in built})
    stored = store.view().name_owners(keys)
    kept = []
    for record, built in accepted:
        clashes = [(m, stored[(m.kind, m.name)]) for m in built
                   if stored.get((m.kind, m.name)) not in (None, m.digest)]
        if not clashes:
            kept.append((record, built))
        for m, owner in clashes:
            skipped.append(InputError(
                f"{record.label}: its {m.kind} {m.name!r} ({m.digest.hex[:12]}) has the name "
                f"of {owner} already in the store; names are unique per kind: rename or "
                "remove the stored one to import this record", file=record.file,
                line=record.line, pointer=record.pointer))
    return kept


def _claim_names(built: list[Manifest], record: Record,
                 owners: dict[tuple[str, str], tuple[Manifest, Record]],
                 typed: Callable[[str], str] = str) -> None:
    """Take the names of a record's manifests; refuse the record if another record has one.

    Two records of a source that give different manifests one name (the same submission
    listed twice with other values) would make ``Store.add`` refuse the whole import, even
    under ``skip_invalid``. The later record is the bad one, reported naming the first.

    Args:
        built: the record's manifests.
        record: the record.
        owners: ``(kind, name) -> (manifest, record)`` of the records taken so far;
            updated only when no name clashes.
        typed: the path the person typed for a record's file (:meth:`~.common.Plan.as_typed`),
            for the first record named in the message.

    Raises:
        MultipleErrors: one problem per clashing name, at the later record.
    """
    problems: list[KistoreError] = []
    for m in built:
        first = owners.get((m.kind, m.name))
        if first is not None and first[0].digest != m.digest:
            other = first[1]
            where = typed(other.file) + (f":{other.line}" if other.line is not None else "") + \
                (f":{other.pointer}" if other.pointer else "")
            problems.append(InputError(
                f"{record.label}: its {m.kind} {m.name!r} ({m.digest.hex[:12]}) has the name "
                f"of another {m.kind} ({first[0].digest.hex[:12]}) built from {other.label} "
                f"at {where}; the source holds the same record twice with other values: "
                "remove one of them", file=record.file, line=record.line,
                pointer=record.pointer))
    if problems:
        raise MultipleErrors(problems)
    for m in built:
        owners.setdefault((m.kind, m.name), (m, record))


def _named(error: KistoreError, record: Record) -> None:
    """Begin each problem of a record the importer cannot read with what the record is.

    ``LABEL: `` (``kernel 10 submission 19917: field 'latency_ms': expected a number``), as
    a refusal of its manifests says it (:func:`kistore.importers._refused.at_records`); a
    board row's message named only its pointer (cause99). A record that is a whole file
    (no pointer, no line: :func:`kistore.importers.common.failed_record`) is named by its
    file already; a message that begins with the label is left as it is.
    """
    if not record.pointer and record.line is None:
        return
    for problem in error.problems:
        if not problem.message.startswith(f"{record.label}:"):
            problem.message = f"{record.label}: {problem.message}"
            problem.args = (problem.format(),)


def _build(record: Record, cache: dict[bytes, Manifest], limits: Limits = DEFAULT
           ) -> list[Manifest]:
    """Build and validate one record's manifests; every problem is located at the record.

    A manifest that fails its schema, limits or canonical form is told at the record's
    value it came from, in the source's unit, with advice for an import
    (:func:`._refused.told`: the source's record cannot be corrected as one's own manifest
    can; a canonical form's advice to write a larger unit is left out).

    ``cache`` maps a document's canonical bytes to its Manifest, so a protocol shared by
    750 runs is validated once. Each manifest is held to ``limits`` as an added one is.
    """
    try:
        documents = record.build()
    except KistoreError as e:
        _named(e, record)
        raise
    built = []
    problems: list[KistoreError] = []
    for document in documents:
        try:
            key = canonical.dumps(document)
            if key not in cache:
                cache[key] = Manifest.from_document(document, file=record.file,
                                                    limits=limits)
            built.append(cache[key])
        except KistoreError as e:
            for p in e.problems:  # told at the record's value (its fields), for an import
                pointer, message = told(
                    record, str(document.get("kind")),
                    str((document.get("metadata") or {}).get("name")), p.pointer or "",
                    p.problem if isinstance(p, AdvisedError) else p.message)
                problems.append(InputError(message, file=record.file, line=record.line,
                                           pointer=pointer))
    if problems:
        raise MultipleErrors(problems)
    return built


__all__ = ["FOLDER_DECIDES", "SOURCES", "SOURCE_REPOSITORIES", "ImportReport", "import_files",
           "names_repository", "plan_import", "run_import"]
