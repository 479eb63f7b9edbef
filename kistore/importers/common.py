"""Helpers every importer shares: records, source files, units, names, provenance.

An importer turns a source's files into :class:`Record` values. Each record is one unit of
the all-or-nothing rule: its ``build`` returns every manifest document it needs (a run and
the workload, protocol, environment and implementation it references), or raises an
:class:`~kistore.core.errors.InputError` naming the file, the line (JSON Lines) and the JSON
Pointer of the bad value. :mod:`kistore.importers` runs the records and hands the result
to :meth:`kistore.store.Store.add`; nothing here writes anything.

Conversions follow the published SOL-ExecBench record (``shared/examples``): latencies in
ms become ns exactly (:func:`ms_to_ns`), times become UTC with millisecond precision and
``Z`` (:func:`utc_ms`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from decimal import Decimal
from functools import cache
from pathlib import Path
from typing import Any

from ..core import canonical
from ..core.canonical import escape_pointer, unescape_pointer
from ..core.contradictions import TRACE_STATUSES as TRACE_STATUSES  # re-exported
from ..core.digest import Digest
from ..core.errors import AdvisedError, InputError, KistoreError, MultipleErrors, shorten
from ..core.findings import KISTORE, NOT_THE_VALUES
from ..core.limits import DEFAULT, read_bounded
from ..core.model import Manifest, object_document
from ..core.naming import slug
from ..core.schema import API_VERSION, describe_error
from ..store.inputs import not_regular

ANNOTATION = "kernelindex.dev/"
"""Prefix of every provenance annotation key (``kernelindex.dev/source`` ...)."""

GPU_ARCHITECTURES = {
    "B200": "sm_100", "GB200": "sm_100", "B100": "sm_100",
    "H100": "sm_90", "H200": "sm_90", "GH200": "sm_90",
    "A100": "sm_80", "A10G": "sm_86", "L40S": "sm_89", "L4": "sm_89",
}
"""CUDA compute capability of GPU models named in source data (NVIDIA's published table)."""

UNSTATED_LICENSE = "UNCLEAR: not stated"
"""The licence recorded where an importer knows none: a file at a path inside its
``SOURCE.md`` folder that no licence of the importer's is known by."""


@dataclass
class Record:
    """One unit of import: what a bad value makes the importer skip or refuse, whole.

    Attributes:
        file: the source file, as shown in messages (relative to the data root).
        build: returns the manifest documents of this unit (a run last, after what it
            references); raises :class:`InputError` (or :class:`MultipleErrors`) on bad data.
        line: 1-based line in a JSON Lines file, else None.
        pointer: JSON Pointer of the record inside its file (``""`` for the whole file).
        label: what the record is, for warnings (e.g. ``submission 21427``).
        fields: where the record states a value its manifests keep: ``(kind, pointer into
            the manifest)`` -> :class:`Field` (``("BenchmarkRun", "/spec/sourceNative/
            metrics/sol_score")`` -> ``/sol_score``); a key covers the values below it too
            (:meth:`source_of`). A refusal of a manifest's value is then told at the
            record's (:mod:`kistore.importers._refused`); a value not here, at the record.
        value: the record's parsed JSON value (at ``pointer`` in ``file``; a line's), where
            :attr:`fields` point; None for a record that is a whole file or folder.
    """

    file: str
    build: Callable[[], list[dict[str, Any]]]
    line: int | None = None
    pointer: str = ""
    label: str = "record"
    fields: Mapping[tuple[str, str], Field] = field(default_factory=dict)
    value: Any = None

    def source_of(self, kind: str, pointer: str) -> Field | None:
        """Return where the record states a manifest's value (:attr:`fields`), or None.

        Args:
            kind: the manifest's kind (``BenchmarkRun``).
            pointer: a JSON Pointer into the manifest (``/spec/timing/latencyNs/mean``).

        Returns:
            The :class:`Field` of ``pointer``, else of its nearest parent in
            :attr:`fields` with the rest of ``pointer`` appended (then with no unit: a
            unit scales one value); None when neither is there.
        """
        above = pointer
        while above:
            found = self.fields.get((kind, above))
            if found is not None:
                return found if above == pointer else Field(found.pointer + pointer[len(above):])
            above = above.rpartition("/")[0]
        return None

    def stated(self, inside: str) -> tuple[bool, Any]:
        """Return the record's value at a pointer inside it.

        Args:
            inside: a JSON Pointer relative to :attr:`value` (a :attr:`Field.pointer`).

        Returns:
            ``(True, value)``; ``(False, None)`` where the record holds none there (or no
            :attr:`value` is kept).
        """
        value = self.value
        if value is None:
            return False, None
        for token in inside.split("/")[1:] if inside else ():
            key = unescape_pointer(token)
            if isinstance(value, dict) and key in value:
                value = value[key]
            elif isinstance(value, list) and key.isdigit() and int(key) < len(value):
                value = value[int(key)]
            else:
                return False, None
        return True, value


@dataclass(frozen=True)
class Field:
    """Where a source record states one value a manifest built from it keeps.

    Attributes:
        pointer: JSON Pointer of the value inside the record (relative to
            :attr:`Record.pointer`): ``/evaluation/performance/latency_ms``.
        unit: ``"ms"`` when the record states milliseconds the manifest keeps as
            nanoseconds (:func:`ms_to_ns`); ``""`` when kept as stated.
    """

    pointer: str
    unit: str = ""


def fields_of(kind: str, pairs: Mapping[str, str | Field]) -> dict[tuple[str, str], Field]:
    """Return :attr:`Record.fields` entries of one kind: ``{manifest pointer: record pointer}``.

    Args:
        kind: the manifest kind the pointers are into.
        pairs: pointer into the manifest -> a :class:`Field`, or its pointer (kept as stated).
    """
    return {(kind, built): f if isinstance(f, Field) else Field(f) for built, f in pairs.items()}


@dataclass(frozen=True)
class SourceFile:
    """A file handed to an importer.

    Attributes:
        path: where it is on disk.
        name: its path relative to the data root (``sol-execbench/leaderboard/...``):
            the directory above the one holding ``SOURCE.md``; else the path as given.
        explicit: True when the person named this file, False when found in a directory.
        limit: most bytes read from it (``[limits] source-bytes``); more is refused.
    """

    path: Path
    name: str
    explicit: bool
    limit: int = DEFAULT.source_bytes


Stored = Callable[[str, str], "Manifest | None"]
"""``stored(kind, name)``: the store's manifest of that kind and ``metadata.name`` (its
object re-hashed), or None when no manifest has that name."""


@dataclass
class Plan:
    """What an importer made of its files, before anything is built.

    Attributes:
        records: the units to build, in a deterministic order.
        ignored: files that are not this source's import formats (named, not an error).
    """

    records: list[Record] = field(default_factory=list)
    ignored: list[str] = field(default_factory=list)
    unsourced: list[str] = field(default_factory=list)
    """Files (as typed) in no folder holding a ``SOURCE.md``: their manifests record the
    path as typed for provenance, and no upstream known by path (:func:`source_folder`)."""
    foreign: list[tuple[str, Path]] = field(default_factory=list)
    """Files (as typed) under a ``SOURCE.md`` that names none of the source's repositories,
    with that ``SOURCE.md``: their provenance paths are relative to a folder that may not
    be the source's."""
    watched: dict[str, Path | None] = field(default_factory=dict)
    """The data-root folder name (:attr:`SourceFile.name` without its last part) of each
    file in ``unsourced`` (-> None) or ``foreign`` (-> its ``SOURCE.md``): the records of
    files there are those whose provenance the import warns of."""
    typed: dict[str, str] = field(default_factory=dict)
    """A source file's or folder's name relative to the data root (:attr:`SourceFile.name`,
    the provenance name) -> the path as the person typed it (:func:`typed_names`)."""
    join_stored: Callable[[Stored], None] | None = None
    """Given the store's lookup before any record is built (:func:`kistore.importers.
    run_import`), for a source whose records may join manifests a previous import stored
    rather than files given now (a FlashInfer trace its Workload: reviewer r85 F6)."""

    def as_typed(self, name: str) -> str:
        """Return the path the person typed for a data-root name (``fi/x.json``).

        E.g. ``../fi/x.json``: the file itself, else a file of a folder found through
        those typed (a problem's ``definition.json`` beside its ``workload.jsonl``); else
        ``name`` unchanged.
        """
        found = self.typed.get(name)
        if found is not None:
            return found
        folder, slash, leaf = name.rpartition("/")
        typed_folder = self.typed.get(folder) if slash else None
        return f"{typed_folder}/{leaf}" if typed_folder is not None else name

    def retell(self, error: KistoreError) -> KistoreError:
        """Name the path the person typed in each problem of ``error`` (in place).

        Importers name a file by its data-root name, which provenance keeps; a message
        names the file as it was given (``../fi/x.json``), so that it can be opened from
        where the command ran.

        Returns:
            ``error``, its problems' ``file`` rewritten.
        """
        for problem in error.problems:
            if problem.file is not None:
                problem.file = self.as_typed(problem.file)
                problem.args = (problem.format(),)
        return error


def typed_names(files: Sequence[SourceFile]) -> dict[str, str]:
    """Map each file's data-root name, and its folder's, to the path as the person typed it.

    Args:
        files: from :func:`expand`.

    Returns:
        ``{name: typed path}`` (``kernelbench/H100/x.json`` -> ``../kernelbench/H100/x.json``),
        folders too (``kernelbench/H100`` -> ``../kernelbench/H100``), where they differ.
    """
    typed: dict[str, str] = {}
    for source in files:
        given = source.path.as_posix()
        if given != source.name:
            typed[source.name] = given
            folder, slash, _ = source.name.rpartition("/")
            if slash:
                typed.setdefault(folder, source.path.parent.as_posix())
    return typed


def expand(paths: Sequence[str], limit: int = DEFAULT.source_bytes,
           source: str | None = None) -> list[SourceFile]:
    """Turn the files and directories a person named into source files, sorted in each.

    Args:
        paths: file or directory names.
        limit: most bytes read from each file (``[limits] source-bytes``).
        source: the source id the files are imported as (``sol-execbench``); names each
            file's provenance (:func:`data_name`). None: the data folder's own name.

    Returns:
        Every regular file (directories walked recursively, ``SOURCE.md`` and hidden
        files left out), in argument order then sorted path order, each listed once.

    Raises:
        MultipleErrors: an InputError for each path that does not exist, and for each
            FIFO, socket or device a walked directory holds, whatever its name, a
            ``SOURCE.md`` too (named as ``kistore add DIR`` names one,
            :func:`kistore.store.inputs.not_regular`: looked at, never opened).
    """
    found: dict[Path, SourceFile] = {}
    errors: list[KistoreError] = []
    for given in paths:
        path = Path(given)
        if path.is_dir():
            for child in sorted(path.rglob("*")):
                if any(part.startswith(".") for part in child.relative_to(path).parts):
                    continue
                if child.is_file():
                    if child.name != "SOURCE.md":  # the folder's note: not a source file
                        found.setdefault(child.resolve(), SourceFile(
                            child, data_name(child, source), False, limit))
                # as `add DIR` (fresh14 F14), a FIFO named SOURCE.md too: passed over unsaid,
                # its folder was no source folder (fetch02's leftover)
                elif (said := not_regular(child)) is not None:
                    errors.append(InputError(said, file=str(child)))
        elif path.exists() and not path.is_dir():  # a file, or a device or pipe named
            found[path.resolve()] = SourceFile(path, data_name(path, source), True, limit)
        else:
            errors.append(InputError("no such file or directory", file=given))
    if errors:
        raise MultipleErrors(errors)
    return list(found.values())


def data_name(path: Path, source: str | None = None) -> str:
    """Name a source file as its provenance: ``SOURCE/`` + its path in the ``SOURCE.md`` folder.

    ``/work/shared/data/kernelbench/H100_Modal/baseline_time_torch.json`` becomes
    ``kernelbench/H100_Modal/baseline_time_torch.json``. The first part is the source id,
    not the folder's name, so a copy of the data under another folder name imports to the
    same metadata (and the licence a path prefix decides stays the same); with ``source``
    None it is the folder's name. A file outside any folder with a ``SOURCE.md`` keeps the
    name it was given.

    Args:
        path: the file.
        source: the source id it is imported as, or None.

    Returns:
        A POSIX path string.
    """
    folder = source_folder(path)
    if folder is None:
        return path.as_posix()
    inside = path.resolve().relative_to(folder).as_posix()
    return f"{source or folder.name or '.'}/{inside}"


def source_folder(path: Path) -> Path | None:
    """Return the nearest folder above ``path`` holding a ``SOURCE.md`` (resolved), or None.

    The file's provenance name is its path inside it (:func:`data_name`); nothing is read
    from the ``SOURCE.md``. An importer knows a file's licence and upstream itself, by that
    name where they depend on it (each importer's ``FOLDER_DECIDES``).
    """
    for parent in path.resolve().parents:
        if (parent / "SOURCE.md").is_file():
            return parent
    return None


def read_source(source: SourceFile) -> bytes:
    """Read a source file, never more than its limit + 1 bytes (:mod:`kistore.core.limits`).

    Raises:
        InputError: the file holds more than ``source.limit`` bytes (named, with the
            ``source-bytes`` setting that raises it), or cannot be read.
    """
    try:
        return read_bounded(str(source.path), source.limit, key="source-bytes")
    except InputError as e:
        e.file = source.name
        e.args = (e.format(),)
        raise
    except OSError as e:
        raise InputError(f"cannot be read: {e.strerror or e}", file=source.name) from None


def load_json(source: SourceFile) -> Any:
    """Parse a whole JSON file strictly (:func:`kistore.core.canonical.loads`).

    Raises:
        ParseError: naming the file, line, column and JSON Pointer of the problem.
        InputError: a file past its size limit (:func:`read_source`).
    """
    try:
        return canonical.loads(read_source(source), file=source.name)
    except AdvisedError as e:
        raise for_import(e) from None


def load_lines(source: SourceFile) -> Iterator[tuple[int, Any]]:
    """Yield ``(line number, value)`` for each non-blank line of a JSON Lines file.

    A line that does not parse is yielded as a :class:`ParseError` value (with the line
    set), so the caller can make it a failing record and go on with the other lines.

    Raises:
        InputError: a file past its size limit (:func:`read_source`).
    """
    for number, raw in enumerate(read_source(source).split(b"\n"), start=1):
        if not raw.strip():
            continue
        try:
            yield number, canonical.loads(raw, file=source.name)
        except KistoreError as e:
            e.line, e.column = number, e.column or 1
            yield number, for_import(e)


IMPORT_ADVICE = ("the record is the source's and cannot be imported as it is: "
                 "--skip-invalid leaves it out; report it upstream")
"""What to do about a source's record kistore cannot import: the source is a third party's,
not a manifest of the person's to correct (fresh01 F1: "write it in a larger unit" was said
of a FlashInfer trace's latency)."""

STORE_ADVICE = ("the record is not at fault, what the store holds is: do as {rule}'s fix "
                "says, then import again; --skip-invalid leaves the record out meanwhile")
"""What to do when the rule ``{rule}`` refuses a record's manifest for the store's state
(:data:`kistore.core.findings.NOT_THE_VALUES`, :data:`~kistore.core.findings.STORE`): a
stored run claiming the same record (KI232), a group stating another unit (KI210). The
record is right; the refusal's message says the rule's fix."""


def import_advice(rule_id: str | None) -> str:
    """Return what an import says to do when the rule ``rule_id`` refuses a record's manifest.

    Each rule declares who is at fault (:data:`kistore.core.findings.NOT_THE_VALUES`): the
    record's own values (every rule not listed there, and a problem no rule raised: a
    schema, a number), the store's state, or kistore's own files (KI226: its catalogue is
    stale, ``make catalogue``).

    Args:
        rule_id: the refusing rule's id (:attr:`~kistore.core.errors.KistoreError.rule_id`),
            or None.

    Returns:
        :data:`IMPORT_ADVICE` (the record's values), :data:`STORE_ADVICE` naming the rule
        (the store's), or ``the record is not at fault, kistore is: FIX`` (kistore's, its
        rule's fix).
    """
    fault = NOT_THE_VALUES.get(rule_id or "")
    if rule_id is None or fault is None:
        return IMPORT_ADVICE
    if fault.who == KISTORE:
        return f"the record is not at fault, kistore is: {fault.fix}"
    return STORE_ADVICE.format(rule=rule_id)


def for_import(error: KistoreError) -> KistoreError:
    """Say :data:`IMPORT_ADVICE` in place of an error's advice to the value's author.

    Args:
        error: a problem in a source file; changed in place when it is an
            :class:`~kistore.core.errors.AdvisedError` with advice (a number beyond 2**53).

    Returns:
        ``error``, its one-line form formed again.
    """
    if isinstance(error, AdvisedError) and error.advice:
        error.message = f"{error.problem}; {IMPORT_ADVICE}"
    error.args = (error.format(),)
    return error


def first_value(source: SourceFile, *, lines: bool = False) -> Any:
    """Return a file's JSON value, to recognise its format by content (never raises).

    How an importer knows a file of its source whatever the file is named or where it is:
    by the keys of the record the source's format starts with.

    Args:
        source: the file.
        lines: JSON Lines: the value of the first non-blank line, not of the whole file.

    Returns:
        The parsed value; None when the file is past its size limit or does not parse.
    """
    try:
        data = read_source(source)
        if lines:
            data = next((raw for raw in data.split(b"\n") if raw.strip()), b"")
        return canonical.loads(data, file=source.name)
    except KistoreError:
        return None


def has_keys(value: Any, keys: Sequence[str]) -> bool:
    """Return whether ``value`` is a JSON object holding every key of ``keys``."""
    return isinstance(value, dict) and all(k in value for k in keys)


def check_shape(value: Any, schema: dict[str, Any], *, file: str, line: int | None = None,
                pointer: str = "") -> None:
    """Check a source record against a JSON Schema describing the source's format.

    The schemas live beside each importer and hold only what the importer relies on, so a
    record that passes can be mapped without further checks.

    Args:
        value: the parsed record.
        schema: a draft 2020-12 schema (a dict).
        file: the source file, for messages.
        line: its line in a JSON Lines file.
        pointer: where the record sits inside the file.

    Raises:
        MultipleErrors: one InputError per violation, at its JSON Pointer, saying what
            the source format expects, the value the record states there (a number, string,
            true, false or null; when the words do not say it already: ``expected a
            number or null, found a string: the record states "x"``), and
            :data:`IMPORT_ADVICE` (fresh02, F1 retry: ``-3`` and ``"x"`` said no advice).
    """
    errors: list[KistoreError] = [
        InputError(
            f"{_with_value(describe_error(error), error.instance)} (expected by the "
            f"importer's reading of the source format); {IMPORT_ADVICE}",
            file=file, line=line,
            pointer=pointer + "".join(f"/{escape_pointer(str(p))}" for p in error.absolute_path),
        )
        for error in _validator(_freeze(schema)).iter_errors(value)
    ]
    if errors:
        raise MultipleErrors(errors)


def _with_value(said: str, value: Any) -> str:
    """Return ``said`` with ``: the record states VALUE`` after it, for a scalar it omits.

    Args:
        said: a schema error in words (:func:`~kistore.core.schema.describe_error`).
        value: the value it is about; an object or array is not quoted (the pointer names it).
    """
    if isinstance(value, dict | list):
        return said
    text = shorten(json.dumps(value, ensure_ascii=False))
    return said if text in said else f"{said}: the record states {text}"


def _freeze(schema: dict[str, Any]) -> str:
    return canonical.dumps(schema).decode("utf-8")


@cache
def _validator(schema_text: str) -> Any:

    # Lazy: jsonschema is slow to import; only importers that run need it.
    import jsonschema

    return jsonschema.Draft202012Validator(json.loads(schema_text))


def failed_record(file: str, error: KistoreError, label: str) -> Record:
    """Return a record that raises ``error`` when built: a whole file that cannot be read.

    The error then goes the way of every bad record (refused, or skipped with a warning
    under ``skip_invalid``), so one unreadable file does not stop the others being read.
    """
    def broken() -> list[dict[str, Any]]:
        raise error

    return Record(file, broken, label=label)


def fail(message: str, *, file: str, pointer: str = "", line: int | None = None) -> InputError:
    """Return an InputError about a source value, for the caller to raise."""
    return InputError(message, file=file, pointer=pointer, line=line)


# -- conversions ---------------------------------------------------------------------


def latency_ns(stats_ms: dict[str, Any], *, file: str, pointer: str,
               line: int | None = None) -> dict[str, int | float]:
    """Convert a passed run's latency statistics from ms to ns, refusing impossible ones.

    Args:
        stats_ms: statistic name (``mean``, ``std``, ``min``, ``max``, ...) -> ms.
        file: the source file, for errors.
        pointer: JSON Pointer of the statistics object in ``file``.
        line: 1-based line of the record in ``file`` (JSON Lines sources), for errors.

    Returns:
        The same statistics in ns (:func:`ms_to_ns`).

    Raises:
        MultipleErrors: a latency that is not positive (``std`` may be 0), or a mean
            outside ``[min, max]``: a source error that would otherwise rank first. Each
            says the value as the record states it (JSON's form: ``-0.0``), what was
            expected and :data:`IMPORT_ADVICE` (fresh02, F1 retry: ``0`` said no advice).
    """
    ns = {k: ms_to_ns(v) for k, v in stats_ms.items()}
    problems = [fail(f"latency {k} = {_stated(stats_ms[k])} ms is {_UNDER[k == 'std']}: a "
                     f"passed run takes time); {IMPORT_ADVICE}",
                     file=file, pointer=f"{pointer}/{k}", line=line)
                for k, v in ns.items() if (v < 0 if k == "std" else v <= 0)]
    low, high = ns.get("min"), ns.get("max")
    for k in ("mean", "median"):
        if k in ns and ((low is not None and ns[k] < low) or (high is not None and ns[k] > high)):
            problems.append(fail(f"latency {k} = {_stated(stats_ms[k])} ms lies outside [min, "
                                 f"max] = [{_stated(stats_ms.get('min'))}, "
                                 f"{_stated(stats_ms.get('max'))}] ms (expected within them); "
                                 f"{IMPORT_ADVICE}",
                                 file=file, pointer=f"{pointer}/{k}", line=line))
    if problems:
        raise MultipleErrors(list(problems))
    return ns


_UNDER = {False: "not positive (expected more than 0 ms", True: "negative (expected 0 ms or more"}
"""What :func:`latency_ns` says of a statistic below its floor: any but ``std`` (True)."""


def _stated(value: Any) -> str:
    """Return a record's number as JSON writes it (``0``, ``-0.0``, ``1e-12``), cut to fit."""
    return shorten(json.dumps(value))


def ms_to_ns(ms: float | int) -> int | float:
    """Convert milliseconds to nanoseconds exactly as written in the source.

    The decimal text of the number (``str(ms)``, the shortest round-trip form) is scaled
    by 10**6 in decimal arithmetic, so ``13.634148`` ms is ``13634148`` ns, not
    ``13634147.999999998``.

    Args:
        ms: a finite, non-negative latency in milliseconds.

    Returns:
        ``int`` when the result is integral, else the nearest ``float``.
    """
    ns = Decimal(str(ms)) * 10**6
    return int(ns) if ns == ns.to_integral_value() else float(ns)


def utc_ms(text: str) -> str:
    """Turn an ISO 8601 time into RFC 3339 UTC with milliseconds and ``Z``.

    A time without a zone is taken as UTC (SOL-ExecBench ``submitted_at``, FlashInfer
    ``timestamp``). Sub-millisecond digits are truncated, not rounded:
    ``2026-07-10T03:35:40.526966`` becomes ``2026-07-10T03:35:40.526Z``.

    Raises:
        ValueError: when ``text`` is not an ISO 8601 date-time.
    """
    moment = datetime.fromisoformat(text)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    moment = moment.astimezone(UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def parse_time(value: Any, *, file: str, pointer: str, line: int | None = None) -> str:
    """Apply :func:`utc_ms` to a source value; an InputError names where it failed.

    Raises:
        InputError: when the value is not an ISO 8601 date-time string.
    """
    try:
        return utc_ms(value)
    except (TypeError, ValueError):
        raise fail(f"{value!r} is not an ISO 8601 date-time (e.g. 2026-07-10T03:35:40.526966)",
                   file=file, pointer=pointer, line=line) from None


def gpu_model(product: str) -> str:
    """Return the model word of a GPU product name: ``NVIDIA H100 80GB HBM3`` -> ``H100``."""
    words = product.removeprefix("NVIDIA ").split()
    return words[0] if words else product


def architecture(product: str) -> str | None:
    """CUDA ``sm_XX`` of a GPU product from :data:`GPU_ARCHITECTURES`, or None when unknown."""
    return GPU_ARCHITECTURES.get(gpu_model(product))


def hardware(product: str) -> dict[str, str]:
    """Return an ExecutionEnvironment ``hardware`` object for a GPU product name.

    ``{vendor, product, architecture}``: vendor ``nvidia`` for ``NVIDIA ...`` products (else
    the first word), architecture from :data:`GPU_ARCHITECTURES` when known (else absent).
    """
    vendor = "nvidia" if product.startswith("NVIDIA") else slug(product.split()[0])
    out = {"vendor": vendor, "product": product}
    arch = architecture(product)
    if arch is not None:
        out["architecture"] = arch
    return out


def software(libs: dict[str, str]) -> dict[str, Any]:
    """Return an ExecutionEnvironment ``software`` object from a trace's ``libs``.

    ``libraries`` keeps ``libs`` verbatim; ``cuda`` repeats ``libs["cuda"]`` where given,
    in the field the index shows as the CUDA version.
    """
    out: dict[str, Any] = {"libraries": dict(libs)}
    if "cuda" in libs:
        out["cuda"] = libs["cuda"]
    return out


def manifest(kind: str, name: str, spec: dict[str, Any], *, title: str | None = None,
             annotations: dict[str, str] | None = None,
             labels: dict[str, str] | None = None) -> dict[str, Any]:
    """Assemble a manifest document (apiVersion, kind, metadata, spec).

    Empty ``labels``/``annotations`` are left out, so a manifest without them has exactly
    the metadata ``{name, title}`` the published record shows.
    """
    metadata: dict[str, Any] = {"name": name}
    if title is not None:
        metadata["title"] = title
    if labels:
        metadata["labels"] = dict(sorted(labels.items()))
    if annotations:
        metadata["annotations"] = {k: v for k, v in sorted(annotations.items()) if v}
    return {"apiVersion": API_VERSION, "kind": kind, "metadata": metadata, "spec": spec}


def provenance(source: str, *, license: str, upstream: str | None = None,
               file: str | None = None, retrieved_at: str | None = None,
               **extra: str | None) -> dict[str, str]:
    """Return the ``kernelindex.dev/*`` annotations saying where a manifest came from.

    Args:
        source: source id (``sol-execbench``, ``flashinfer-trace``, ``kernelbench``).
        license: the licence as SOURCE.md states it (``UNCLEAR: ...`` when unclear).
        upstream: ``repo@commit`` of the upstream copy.
        file: the source file relative to the data root. Leave it out for a manifest that
            several files produce (a protocol, an environment): every file must give a
            shared manifest the same metadata, or the add refuses it as a conflict.
        retrieved_at: when the source data was fetched, where the data says so.
        extra: further annotations, keyed by the part after ``kernelindex.dev/``
            (underscores become ``-``).
    """
    notes: dict[str, str | None] = {"source": source, "license": license, "upstream": upstream,
                                    "source-file": file, "retrieved-at": retrieved_at}
    notes.update({k.replace("_", "-"): v for k, v in extra.items()})
    return {ANNOTATION + k: v for k, v in notes.items() if v}


def digest_of(document: dict[str, Any]) -> str:
    """Return a manifest document's digest (sha256 of canonical {apiVersion, kind, spec})."""
    return str(Digest.of(canonical.dumps(object_document(document))))


TRACE_FIELDS = {
    **fields_of("BenchmarkRun", {
        "/spec/status": "/evaluation/status",
        "/spec/timing/latencyNs/mean": Field("/evaluation/performance/latency_ms", "ms"),
        "/spec/correctness/maxAbsoluteError": "/evaluation/correctness/max_absolute_error",
        "/spec/correctness/maxRelativeError": "/evaluation/correctness/max_relative_error",
        "/spec/observedAt": "/evaluation/timestamp",
        "/spec/sourceNative/benchmark": "/definition",
        "/spec/sourceNative/status": "/evaluation/status",
        **{f"/spec/sourceNative/metrics/{k}": f"/evaluation/{part}/{k}" for part, keys in (
            ("performance", ("latency_ms", "reference_latency_ms", "speedup_factor")),
            ("correctness", ("max_absolute_error", "max_relative_error"))) for k in keys},
    }),
    **fields_of("ExecutionEnvironment", {
        "/spec/software/libraries": "/evaluation/environment/libs",
        "/spec/software/cuda": "/evaluation/environment/libs/cuda",
    }),
    **fields_of("Implementation", {"/spec/project": "/solution",
                                   "/spec/sourceNative/solution": "/solution"}),
}
"""Where a trace line (FlashInfer Trace, a SOL-ExecBench local run) states the values
:func:`trace_outcome` and the importers keep (:attr:`Record.fields`); each importer adds
its own (the device's key, the workload)."""


def trace_outcome(evaluation: dict[str, Any]) -> dict[str, Any]:
    """Map a trace's ``evaluation`` to run spec fields: status, timing, correctness.

    Shared by FlashInfer Trace and SOL-ExecBench traces (the same schema lineage).

    Args:
        evaluation: a checked ``evaluation`` object: ``status`` one of
            :data:`TRACE_STATUSES`, optional ``performance.latency_ms`` (ms, mean) and
            ``correctness.max_absolute_error``/``max_relative_error``.

    Returns:
        ``{status, timing: {latencyNs: {mean}, primaryStatistic: mean}, correctness:
        {passed, maxAbsoluteError, maxRelativeError}}``; latency left out when null.
    """
    performance = evaluation.get("performance") or {}
    raw = evaluation.get("correctness") or {}
    timing: dict[str, Any] = {"primaryStatistic": "mean"}
    if performance.get("latency_ms") is not None:
        timing = {"latencyNs": {"mean": ms_to_ns(performance["latency_ms"])}, **timing}
    correctness: dict[str, Any] = {"passed": evaluation["status"] == "PASSED"}
    for key, out in (("max_absolute_error", "maxAbsoluteError"),
                     ("max_relative_error", "maxRelativeError")):
        if raw.get(key) is not None:
            correctness[out] = raw[key]
    return {"status": TRACE_STATUSES[evaluation["status"]], "timing": timing,
            "correctness": correctness}
