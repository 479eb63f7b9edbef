"""Reading manifests from what people hand to ``kistore add``.

Accepted inputs (docs/design.md §3): a single manifest file; a bundle (a JSON object whose values
are manifests, as ``shared/examples`` publishes a record; or a JSON array of manifests);
JSON Lines (``.jsonl``/``.ndjson``: one manifest a line); a directory (every ``.json``,
``.jsonl`` and ``.ndjson`` file below it, in sorted path order); and ``-`` for standard
input (a manifest, a bundle or JSON Lines). Every problem in every input is collected
before anything is returned, so a caller can refuse the whole batch at once.

Sizes are bounded while reading (:mod:`kistore.core.limits`): a file or standard input
holding one JSON value (a manifest or a bundle) is read up to ``manifest-bytes`` + 1 bytes
and refused past it; JSON Lines have no total limit, but each line is refused as soon as it
passes ``manifest-bytes``; every manifest's canonical bytes, strings and arrays are checked
against the limits too. ``kistore add /dev/zero`` stops after 1 MiB.
"""

from __future__ import annotations

import contextlib
import gc
import json
import marshal
import os
import sys
from collections.abc import Callable, Iterable, Iterator
from copy import deepcopy
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from ..core import canonical, hashes, schema
from ..core.canonical import escape_pointer, pointer_tokens
from ..core.contradictions import METRIC_BOUNDS
from ..core.errors import (
    EncodingError,
    InputError,
    KistoreError,
    MultipleErrors,
    ParseError,
    TrailingDataError,
)
from ..core.file_kinds import SPECIAL, kind_at
from ..core.limits import DEFAULT, Limits, read_bounded, read_lines_bounded, read_up_to, too_large
from ..core.model import Manifest
from ..core.workers import cpus, forking, start_worker

JSON_LINES_SUFFIXES = (".jsonl", ".ndjson")
MANIFEST_SUFFIXES = (".json", *JSON_LINES_SUFFIXES)


@dataclass(frozen=True, slots=True)
class Located:
    """A manifest and where it was read from.

    Attributes:
        manifest: the validated manifest.
        file: the file name as given (``-`` for stdin).
        pointer: JSON Pointer of the manifest inside the file (``""`` for the whole file).
        line: 1-based line for JSON Lines input, else None.
        source: standard input's bytes when it held one JSON value (it cannot be read
            again), else None.
        sha256: the SHA-256 of a one-value input file's bytes (``.json``, a bundle), else
            None: :meth:`position` reads the file again, only when it still holds them.
            Not the bytes themselves: kept for every manifest, they held 1.9x the memory
            of a directory add of 2,000 pretty-printed runs after reading (tracemalloc).
    """

    manifest: Manifest
    file: str
    pointer: str = ""
    line: int | None = None
    source: bytes | None = None
    sha256: bytes | None = None

    def position(self, pointer: str) -> tuple[int, int] | None:
        """Return the 1-based line and column of the value at ``pointer`` in the input.

        ``pointer``: from the input's root (the manifest's :attr:`pointer` and the pointer
        into it). None for a JSON Lines input (its line is the manifest's), a file that
        no longer holds the bytes read (changed since), or a pointer to no value. For a
        problem found after reading (KI221's warning, reviewer break97 L7).
        """
        if self.line is not None:
            return None
        data = self.source if self.source is not None else _again(self.file, self.sha256)
        return None if data is None else canonical.pointer_position(data, pointer)


@lru_cache(maxsize=2)
def _again(file: str, sha256: bytes | None) -> bytes | None:
    """Return an input file's bytes read again when their SHA-256 is ``sha256``, else None.

    Cached: the warnings of one bundle read it once.
    """
    if sha256 is None:
        return None
    try:
        data = read_bounded(file, DEFAULT.manifest_bytes)
    except (KistoreError, OSError):
        return None
    return data if hashes.sha256(data).digest() == sha256 else None


def read_inputs(paths: Iterable[str], limits: Limits = DEFAULT) -> list[Located]:
    """Read and validate every manifest in ``paths``.

    Args:
        paths: file names, directory names, or ``-`` (standard input, read once).
        limits: the size limits (:mod:`kistore.core.limits`; a store's come from its
            ``kistore.toml``).

    Returns:
        Each manifest with its location, in input order.

    Raises:
        MultipleErrors: every parse, canonical-form, schema and size problem in every
            input, each naming file, line:column where known, and JSON Pointer. Nothing is
            returned when any input is bad.
    """
    found, errors = read_inputs_apart(paths, limits)
    if errors:
        raise MultipleErrors(errors)
    return found


Reading = Callable[[int, int], None]
"""``reading(files, bytes)``: how many input files were read and how many bytes, so far."""


def read_inputs_apart(paths: Iterable[str], limits: Limits = DEFAULT,
                      reading: Reading | None = None
                      ) -> tuple[list[Located], list[KistoreError]]:
    """Read every manifest in ``paths``: those of the inputs that pass, and the others' problems.

    ``kistore add`` checks the manifests of the inputs that pass against the store even
    when another input fails (:meth:`kistore.store.Store.add` ``refused``), so one run
    reports every input's problems (reviewer r85 F2); an input failing its own checks
    cannot be checked further.

    Args:
        paths: as :func:`read_inputs`.
        limits: as :func:`read_inputs`.
        reading: called after each file is read with the files and bytes read so far (a
            caller's progress line: ``add /tmp`` read 5.6 GB for ten minutes without a
            word, review r88 F6); None: not called.

    Returns:
        ``(manifests, problems)``: each manifest of a file (or standard input) with no
        problem, with its location, in input order; and every problem of the others, as
        :func:`read_inputs` raises them.
    """
    found: list[Located] = []
    errors: list[KistoreError] = []
    files = size = 0
    for name in paths:
        for file, data in _expand(name, errors, limits):
            files, size = files + 1, size + len(data)
            if reading is not None:
                reading(files, size)
            try:
                found.extend(parse_manifests(data, file=file, limits=limits))
            except KistoreError as e:
                errors.extend(e.problems)
    return found, errors


_MANY = ("for more manifests than fit, use JSON Lines (a .jsonl file, or - for standard "
         "input): one manifest a line, each line within the limit")
"""What a message about a too-large file or bundle suggests besides raising the limit."""


_VANISHED = ("was listed in {} but is gone: something removed it while the directory was "
             "read; run the add again when nothing writes there (or add a copy of the "
             "directory)")
"""Said of a directory's file removed between its listing and its read."""


def _expand(name: str, errors: list[KistoreError], limits: Limits
            ) -> Iterator[tuple[str, bytes]]:
    """Yield ``(file name, bytes)`` of each input ``name`` stands for, read within the limits.

    A problem (no such path, an input past its limit, a directory's file removed while it
    is read) is appended to ``errors`` and the input skipped, so every input's problems
    are reported together. A directory is read with its subdirectories (those named with
    a leading dot are skipped).
    """
    if name == "-":
        try:
            yield "-", _read_stdin(limits)
        except InputError as e:
            errors.append(e)
        return
    path = Path(name)
    if path.is_dir():
        files = []
        for p in _walk(path, name, errors):
            if any(part.startswith(".") for part in p.relative_to(path).parts):
                continue
            try:
                if p.is_file():
                    if p.suffix in MANIFEST_SUFFIXES:
                        files.append(p)
                elif not p.exists() and not p.is_symlink():
                    if p.suffix in MANIFEST_SUFFIXES:
                        errors.append(InputError(_VANISHED.format(name), file=str(p)))
                elif (skipped := _not_read(p)) is not None:
                    errors.append(InputError(skipped, file=str(p)))
            except OSError as e:  # a link into /proc/1 (EACCES): say it, read on
                errors.append(InputError(
                    f"cannot be looked at ({e.strerror or e}); give a narrower directory "
                    "that holds only manifests", file=str(p)))
        if not files and not errors:
            errors.append(InputError("directory holds no .json, .jsonl or .ndjson files; name the "
                                     "manifest files, or rename them to end in .json",
                                     file=name))
        for p in files:
            try:
                yield str(p), _read_file(str(p), limits)
            except InputError as e:
                errors.append(e)
            except FileNotFoundError:  # removed after the listing (review r88 F6)
                errors.append(InputError(_VANISHED.format(name), file=str(p)))
            except OSError as e:
                if e.filename is not None:  # open's error names the file: said as it is
                    raise
                errors.append(_unreadable(e, str(p)))
    elif path.exists():  # a file, or a pipe such as <(...) or /dev/stdin
        try:
            yield name, _read_file(name, limits)
        except InputError as e:
            errors.append(e)
        except OSError as e:
            if e.filename is not None:  # open's error names the file: said as it is
                raise
            errors.append(_unreadable(e, name))
    else:
        errors.append(InputError("no such file or directory; check the path (give - to read "
                                 "standard input)", file=name))


_GONE_DIRECTORY = ("is a directory that was listed in {} but is gone: something removed it "
                   "while the directory was read (under /proc, a process that ended); run the "
                   "add again when nothing changes there, or give a narrower directory that "
                   "holds only manifests")
"""Said of a subdirectory removed between its parent's listing and its own."""


def _walk(top: Path, name: str, errors: list[KistoreError]) -> list[Path]:
    """Return every entry below ``top`` (files, directories, links), sorted, as ``rglob``.

    ``Path.rglob`` raised FileNotFoundError for a subdirectory removed while it walked
    (``add /`` met a process of ``/proc`` that ended), said as if the user had given a bad
    path (fresh01 F4); here such a directory is a problem in ``errors``
    (:data:`_GONE_DIRECTORY`) and the walk goes on; so is one that cannot be listed for
    another reason (``/proc/PID/net``: EINVAL). Directories not permitted to be read are
    passed over, as ``rglob`` does; symbolic links to directories are listed, not followed;
    directories named with a leading dot are not descended into (their entries are
    skipped by the caller).

    Args:
        top: the directory given.
        name: it as typed (named in the message).
        errors: where a vanished directory's problem is appended.
    """
    found: list[Path] = []

    def failed(error: OSError) -> None:
        if isinstance(error, PermissionError):
            return
        where = str(error.filename or top)
        if isinstance(error, (FileNotFoundError, NotADirectoryError)):
            errors.append(InputError(_GONE_DIRECTORY.format(name), file=where))
        else:
            errors.append(InputError(
                f"is a directory that cannot be listed ({error.strerror or error}); give a "
                "narrower directory that holds only manifests", file=where))

    for directory, dirs, files in os.walk(top, onerror=failed):
        here = Path(directory)
        found += (here / entry for entry in (*dirs, *files))
        dirs[:] = [d for d in dirs if not d.startswith(".")]
    return sorted(found)


def _unreadable(error: OSError, file: str) -> InputError:
    """Say which input could not be read, why, and what to do (never a bare reason).

    ``add /proc/self/mem`` said "error: Input/output error" (a read error carries no file
    name; fresh01 F4).
    """
    return InputError(f"cannot be read ({error.strerror or error}); nothing was read from it: "
                      "give a regular file holding manifests (copy what you meant to add "
                      "into one), or check the disk it is on", file=file)


def _not_read(path: Path) -> str | None:
    """Why an entry of a directory given to ``add`` is refused, or None when it is not.

    A directory walk reads regular files (a symlink to one is read as the file) and
    descends into real directories. What it would otherwise pass over unsaid (review
    2026-12-02 F17: a FIFO named ``x.json`` and a symlinked directory were skipped without a
    word) is refused, the whole add with it, before anything is read: a FIFO, socket or
    device named as a manifest (opening a FIFO would wait for a writer forever), a
    symlink to nothing, and a symlink to a directory (not followed).

    Args:
        path: an entry the walk met that is no regular file.

    Returns:
        The message, or None (a real directory; an entry of another name).
    """
    if path.is_symlink():
        if path.is_dir():
            return ("a symbolic link to a directory: `kistore add DIR` does not follow it; "
                    "give the directory it points to on the command line to add its manifests")
        if not path.exists() and path.suffix in MANIFEST_SUFFIXES:
            return "a symbolic link to nothing (a broken link); remove it or fix its target"
        if path.suffix not in MANIFEST_SUFFIXES:
            return None
    if path.is_dir() or path.suffix not in MANIFEST_SUFFIXES:
        return None
    return not_regular(path)


def not_regular(path: Path) -> str | None:
    """Say that a walked directory's entry is a FIFO, socket or device, or None when not.

    The one wording of ``add DIR`` (:func:`_not_read`) and ``import SOURCE DIR``
    (:func:`kistore.importers.common.expand`; fresh14 F14: a FIFO there was walked past
    unsaid, "0 files ignored"). The entry is only looked at (``stat``, a symlink followed),
    never opened: opening a FIFO would wait for a writer forever.

    Args:
        path: an entry a directory walk met.

    Returns:
        The message, or None: a regular file, a directory, or an entry ``stat`` cannot
        look at (a broken link). Raises nothing.
    """
    if kind_at(path, follow=True) not in SPECIAL:
        return None
    return ("a FIFO, socket or device, not a regular file: kistore reads manifests only from "
            "regular files in a directory (it never opens this one); move it out of the "
            "directory, or give it on the command line to read it as a stream")


def _read_file(name: str, limits: Limits) -> bytes:
    """Read one input file: JSON Lines line by line within the limit, else whole within it.

    Raises:
        InputError: a line of JSON Lines, or a file holding one JSON value, past
            ``manifest-bytes`` (nothing further is read).
        OSError: the file cannot be read.
    """
    if name.endswith(JSON_LINES_SUFFIXES):
        with open(name, "rb") as stream:
            return read_lines_bounded(stream, limits.manifest_bytes, file=name)
    return read_bounded(name, limits.manifest_bytes, fix=_MANY)


def _read_stdin(limits: Limits) -> bytes:
    """Read standard input: one JSON value within the limit, or JSON Lines of any length.

    Up to ``manifest-bytes`` + 1 bytes are read first. Input that ends within the limit is
    returned whole (a manifest, a bundle or JSON Lines). Longer input can only be JSON
    Lines: when its first or second line is a whole JSON value the rest is read line by
    line (each within the limit), else it is refused without reading further.

    Raises:
        InputError: a JSON value longer than the limit, or a line of JSON Lines past it.
    """
    stream = sys.stdin.buffer
    limit = limits.manifest_bytes
    data = read_up_to(stream, limit + 1)
    if len(data) <= limit:
        return data
    if _starts_as_json_lines(data):
        return read_lines_bounded(stream, limit, file="-", start=data)
    raise InputError(too_large(limit, "manifest-bytes", what="the input", fix=_MANY), file="-")


def parse_manifests(data: bytes, *, file: str, limits: Limits = DEFAULT) -> list[Located]:
    """Parse one input's bytes into manifests (manifest, bundle or JSON Lines).

    JSON Lines are used when ``file`` ends in ``.jsonl``/``.ndjson``, or for stdin (``-``)
    when the bytes are not one JSON value and the first or second non-blank line is one
    whole JSON value by itself: then every bad line is reported at its own line number.

    Args:
        data: the input's bytes (read within the limits: :func:`read_inputs`).
        file: its name (``-`` for standard input).
        limits: the limits each manifest is checked against.

    Raises:
        MultipleErrors: every problem found in the input.
    """
    if file.endswith(JSON_LINES_SUFFIXES):
        return _parse_lines(data, file, limits)
    try:
        value = canonical.loads(data, file=file)
    except ParseError as first:
        if file == "-" and _starts_as_json_lines(data):
            return _parse_lines(data, file, limits)
        raise MultipleErrors([_with_hint(first, file, data)]) from None
    return _from_value(value, file, line=None, limits=limits, source=data)  # see Located


def _starts_as_json_lines(data: bytes) -> bool:
    """Return True when the first or second of 2+ non-blank lines is a whole JSON value.

    Called only for stdin that is not one JSON value. A pretty-printed manifest or bundle
    opens with a line holding ``{`` or ``[`` alone and a second line such as ``"kind":
    ...,``: neither is a value by itself, so its real error is kept; JSON Lines open with
    a whole manifest (the second line covers a broken first line).
    """
    lines = [line for line in data.split(b"\n", 50) if line.strip()][:2]
    if len(lines) < 2:
        return False
    for line in lines:
        try:
            canonical.loads(line)
        except ParseError:
            continue
        return True
    return False


def number_advice(error: KistoreError, data: bytes) -> None:
    """Say what the schema takes where ``NaN``/``Infinity`` was written (reviewer r90 F8).

    The strict parser cannot know the schema; here the text is read leniently (Python's
    ``json``, which reads ``NaN``), the manifest holding the error's pointer found (the
    innermost object with ``kind`` and ``spec`` on its path: a manifest of a bundle too),
    and its schema asked with a number, null and nothing there.

    Args:
        error: a problem of :func:`kistore.core.canonical.loads`; only ``NaN``, ``Infinity``
            and ``-Infinity`` ones are changed (their message and ``args``).
        data: the JSON text it was found in.
    """
    bad = error.message.split(" is not JSON", 1)[0]
    if bad not in ("NaN", "Infinity", "-Infinity") or not error.pointer:
        return
    try:
        value = json.loads(data)
    except (ValueError, RecursionError):
        return
    tokens = pointer_tokens(error.pointer)
    node, manifest, rest = value, None, tokens
    for i, token in enumerate(tokens):
        if isinstance(node, dict) and "kind" in node and "spec" in node:
            manifest, rest = node, tokens[i:]
        if isinstance(node, dict) and token in node:
            node = node[token]
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            return
    if manifest is None or not rest:
        return
    bounded = _bounded_metric(manifest, rest)
    if bounded:
        error.message = f"{bad} is not JSON; {bounded}"
        error.args = (error.format(),)
        return
    if _unknown_key(manifest, rest):  # fresh95 F10: "the schema takes all three" was said
        error.message = (f"{bad} is not JSON; remove it: the schema has no field "
                         f"{rest[-1]!r} here (any value there is refused as an unexpected key)")
        error.args = (error.format(),)
        return
    what = schema.taken_at(manifest, rest) or "a number"
    takes = {how: _schema_takes(manifest, rest, how) for how in ("null", "out")}
    advice = {(True, True): f"write {what}, or null, or leave the field out (the schema "
                            "takes all three here)",
              (True, False): f"write {what} or null (the schema takes null here; the value "
                             "cannot be left out)",
              (False, True): f"write {what}, or leave the field out (the schema takes no "
                             "null here)",
              (False, False): f"write {what} (the schema takes neither null nor the value "
                              "left out here)"}
    error.message = f"{bad} is not JSON; {advice[takes['null'], takes['out']]}"
    error.args = (error.format(),)
    if what == "a number" and (takes["null"] or takes["out"]) and isinstance(error, ParseError):
        error.number_at = "".join(f"/{escape_pointer(t)}" for t in rest)


def _bounded_metric(manifest: dict[str, Any], tokens: list[str]) -> str | None:
    """Return the advice for a run's metric whose source bounds it (KI223: ``sol_score``), or None.

    The schema takes anything in ``sourceNative.metrics``, but a metric of
    :data:`kistore.core.contradictions.METRIC_BOUNDS` is refused unless it is a number in
    its range (null too: it can never rank), so the schema's "or null" would mislead
    (reviewer r90b F5).
    """
    spec = manifest.get("spec")
    native = spec.get("sourceNative") if isinstance(spec, dict) else None
    source = native.get("source") if isinstance(native, dict) else None
    if manifest.get("kind") != "BenchmarkRun" or len(tokens) != 4 or \
            tokens[:3] != ["spec", "sourceNative", "metrics"] or not isinstance(source, str):
        return None
    bounds = METRIC_BOUNDS.get((source, tokens[3]))
    if bounds is None:
        return None
    low, high, meaning = bounds
    return (f"write a number in [{low:g}, {high:g}] ({source}'s {tokens[3]}: {meaning}); "
            "null or any other value is refused (KI223 metric-out-of-range)")


def _unknown_key(manifest: dict[str, Any], tokens: list[str]) -> bool:
    """Whether the schema refuses the member at ``tokens`` whatever its value (no such key).

    A number there (what the parser asked for) gives an ``unexpected key`` error naming the
    member, which leaving it out does not: the key is not in the schema.
    """
    key = tokens[-1]
    try:
        with_number = _errors_with(manifest, tokens, _put(0))
        left_out = _errors_with(manifest, tokens, _leave_out)
    except (IndexError, KeyError, TypeError):
        return False
    return any(f"unexpected key {key!r}" in message for _, message in with_number - left_out)


def _errors_with(manifest: dict[str, Any], tokens: list[str],
                 change: Callable[[Any, str], None]) -> set[tuple[str | None, str]]:
    """Return the schema errors of a copy of ``manifest`` changed at ``tokens``."""
    copy = deepcopy(manifest)
    parent = copy
    for token in tokens[:-1]:
        parent = parent[int(token)] if isinstance(parent, list) else parent[token]
    change(parent, tokens[-1])
    return {(e.pointer, e.message) for e in schema.check_manifest(copy)}


def _put(value: Any) -> Callable[[Any, str], None]:
    """Return a change writing ``value`` at a place (:func:`_errors_with`)."""
    def change(parent: Any, token: str) -> None:
        parent[int(token) if isinstance(parent, list) else token] = value
    return change


def _leave_out(parent: Any, token: str) -> None:
    """Leave a member out (:func:`_errors_with`); an array's item cannot be."""
    if isinstance(parent, list):
        raise IndexError(token)
    del parent[token]


def _schema_takes(manifest: dict[str, Any], tokens: list[str], how: str) -> bool:
    """Whether the manifest's schema finds nothing new at ``tokens`` with null or no value.

    Args:
        manifest: the manifest (leniently parsed; not changed).
        tokens: the reference tokens of the value within it.
        how: ``null`` (the value null) or ``out`` (its member left out).

    Returns:
        True when every schema error of the changed copy is one of the copy holding ``0``
        there (a number: what the parser asked for).
    """
    try:
        return _errors_with(manifest, tokens, _put(None) if how == "null" else _leave_out) \
            <= _errors_with(manifest, tokens, _put(0))
    except (IndexError, KeyError, TypeError):
        return False


def _with_hint(error: ParseError, file: str, data: bytes = b"") -> ParseError:
    """Add to "extra data after the JSON value" what to do for this kind of input.

    ``NaN``/``Infinity`` are told what the schema takes there (:func:`number_advice`).
    """
    number_advice(error, data)
    if isinstance(error, TrailingDataError):
        if file == "-":
            error.message += ("; for JSON Lines on stdin, put each manifest whole on a line "
                              "of its own")
        else:
            error.message += ("; for several manifests use a bundle (an object or array of "
                              "manifests) or JSON Lines in a file named .jsonl or .ndjson")
        error.args = (error.format(),)
    return error


def _parse_lines(data: bytes, file: str, limits: Limits) -> list[Located]:
    lines = data.split(b"\n")
    found: list[Located] | None = None
    try:
        if len(lines) >= PARALLEL_LINES and _cpus() > 1:
            found = _parse_ranges_in_parallel(lines, file, limits)
        if found is None:  # small input, one CPU, or no worker processes allowed
            found = _parse_range(lines, file, 0, len(lines), limits)
    except MultipleErrors:
        opening = _pretty_printed(lines)
        if opening is not None:  # one error that says what the file is, not one a line
            raise MultipleErrors([_pretty_in_json_lines(file, opening)]) from None
        raise
    if not found:
        raise MultipleErrors([ParseError("no manifests in JSON Lines input: every line is blank; "
                                         "give one manifest a line", file=file)])
    return found


def _parse_range(lines: list[bytes], file: str, start: int, end: int,
                 limits: Limits = DEFAULT) -> list[Located]:
    """Parse ``lines[start:end]`` (line numbers ``start + 1`` ...), collecting every problem.

    Raises:
        MultipleErrors: every problem in the range, each at FILE:LINE:COL and pointer.
    """
    found: list[Located] = []
    errors: list[KistoreError] = []
    offsets = _LineOffsets(lines)
    for number in range(start + 1, end + 1):
        raw = lines[number - 1]
        if not raw.strip():
            continue
        try:
            if number > 1 and raw.startswith(_BOM):
                raise _bom_inside(number, file)
            if len(raw) > limits.manifest_bytes:  # a line not read within the limit
                raise InputError(too_large(limits.manifest_bytes, "manifest-bytes",
                                           what=f"line {number}"), file=file, line=number)
            value = canonical.loads(raw, file=file)
            found.extend(_from_value(value, file, line=number, limits=limits))
        except KistoreError as e:
            for problem in e.problems:
                number_advice(problem, raw)
                problem.line, problem.column = number, problem.column or 1
                if isinstance(problem, TrailingDataError):
                    problem.message = ("a second JSON value on this line; JSON Lines hold one "
                                       "manifest a line: start a new line before it")
                if isinstance(problem, EncodingError):  # its offset counted from the line
                    problem.in_line(number, offsets.start_of(number))
                problem.args = (problem.format(),)
                errors.append(problem)
    if errors:
        raise MultipleErrors(errors)
    return found


_BOM = b"\xef\xbb\xbf"


def _pretty_printed(lines: list[bytes]) -> int | None:
    """Return the number of the line opening a pretty-printed JSON value, or None.

    JSON Lines never hold ``{`` or ``[`` alone on a line (a manifest is an object on one
    line); a pretty-printed manifest, bundle or ``jq .`` output always opens with one.
    Asked only of input that failed to parse, so a good file costs nothing.
    """
    for number, raw in enumerate(lines, 1):
        if raw.strip():
            return number if raw.strip() in (b"{", b"[") else None
    return None


def _pretty_in_json_lines(file: str, line: int) -> ParseError:
    """Return the error for pretty-printed JSON (values over many lines) in JSON Lines."""
    shown = "-" if file == "-" else file
    return ParseError(
        f"pretty-printed JSON (a value spread over several lines) where JSON Lines hold one "
        f"manifest a line: write each manifest on one line (`jq -c . {shown}`), or give the "
        "value as a .json file (a manifest, or a bundle: an object or array of manifests)",
        file=file, pointer="", line=line, column=1)


class _LineOffsets:
    """Where each line of a split input begins in the file, summed only when first asked.

    Asked for lines in increasing order (a range's errors), it adds each line's length once:
    one pass over the lines up to the range's last bad byte, and nothing for a clean input.

    Args:
        lines: the input split at ``\\n`` (each line without it).
    """

    def __init__(self, lines: list[bytes]) -> None:
        self.lines = lines
        self.number, self.offset = 1, 0  # line 1 begins at byte 0

    def start_of(self, number: int) -> int:
        """Return the byte offset in the file where 1-based line ``number`` begins."""
        if number < self.number:
            self.number, self.offset = 1, 0
        while self.number < number:
            self.offset += len(self.lines[self.number - 1]) + 1
            self.number += 1
        return self.offset


def _bom_inside(number: int, file: str) -> ParseError:
    """Return the error for a byte-order mark opening line ``number`` > 1 of JSON Lines.

    :func:`kistore.core.canonical.loads` sees each line alone and says "at start of file";
    inside a file it is usually a BOM-saved file appended to this one.
    """
    return ParseError(f"byte-order mark (bytes EF BB BF) at the start of line {number}, not "
                      "of the file (a file saved with a BOM was probably appended here): "
                      "delete those 3 bytes", file=file, pointer="", line=number, column=1)


PARALLEL_LINES = 2000
"""From this many JSON Lines on, lines are parsed and validated on every CPU."""

_CHUNK_LINES = 1000
"""Lines per task handed to a worker process (small enough to balance two CPUs)."""

_shared_lines: tuple[list[bytes], str, Limits] | None = None
"""The lines being parsed, set before the workers fork so they inherit them unpickled."""


def _cpus() -> int:
    """Return how many CPUs this process may run on (:func:`kistore.core.workers.cpus`)."""
    return cpus()


def _parse_ranges_in_parallel(lines: list[bytes], file: str, limits: Limits
                              ) -> list[Located] | None:
    """Parse JSON Lines here and in forked workers (one per other CPU); keep input order.

    This process parses the first share of the ranges itself while the workers parse the
    rest: what it parses needs no transfer, and transfer (building every document a second
    time) is the cost of the workers.

    Returns:
        Every manifest, in input order; None when worker processes cannot be started here
        or one died before answering (killed): the caller then parses in one process.

    Raises:
        MultipleErrors: every problem, in input order. A range in which a worker found a
            problem is parsed again here, so each message is exactly the one-process one.
    """
    # Lazy: the process machinery loads only when workers run (start-up).
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    # The per-run rules' answers (:func:`_with_facts`), loaded before the workers fork.
    # Lazy: only a bulk parse finds them here.
    from . import run_facts

    global _shared_lines
    try:
        context = multiprocessing.get_context("fork")
    except ValueError:  # pragma: no cover - no fork on this platform
        return None
    ranges = [(i, min(i + _CHUNK_LINES, len(lines))) for i in range(0, len(lines), _CHUNK_LINES)]
    workers = max(1, _cpus() - 1)
    own = len(ranges) // (workers + 1)
    parts: list[list[Located] | MultipleErrors | None] = []
    _shared_lines = (lines, file, limits)
    run_facts.ranked_keys_now()  # the policy read here once, not in each worker
    gc.freeze()  # a collection in parent or worker would copy every shared page it walks
    # An executor, not multiprocessing.Pool: a Pool replaces a worker killed mid-task (OOM
    # killer, kill -9) and waits forever for its lost result; the executor reports it.
    pool = ProcessPoolExecutor(workers, mp_context=context, initializer=start_worker,
                               initargs=(os.getpid(),))
    try:
        with forking():  # the first submit forks every worker (an interrupt lands after)
            theirs = pool.map(_parse_shared_range, ranges[own:])  # dispatched in background
        for start, end in ranges[:own]:
            try:
                parts.append(_with_facts(_parse_range(lines, file, start, end, limits)))
            except MultipleErrors as e:
                parts.append(e)
        parts.extend(None if packed is None else _unpack(packed, file) for packed in theirs)
    except (OSError, BrokenProcessPool):  # no processes allowed, or a worker was killed:
        return None  # one process does it all
    finally:
        pool.shutdown(wait=False, cancel_futures=True)
        _shared_lines = None
        gc.unfreeze()
    found: list[Located] = []
    errors: list[KistoreError] = []
    for (start, end), part in zip(ranges, parts, strict=True):
        if part is None:  # a worker's range with a problem: find it again, exactly
            try:
                _parse_range(lines, file, start, end, limits)
            except MultipleErrors as e:
                errors.extend(e.problems)
        elif isinstance(part, MultipleErrors):
            errors.extend(part.problems)
        else:
            found.extend(part)
    if errors:
        raise MultipleErrors(errors)
    return found


def _parse_shared_range(bounds: tuple[int, int]) -> bytes | None:
    """Worker: parse one range of the inherited lines; None when it holds a problem.

    Returns the manifests as :mod:`marshal` bytes of plain tuples (see :func:`_unpack`):
    :meth:`Manifest.to_parts`, no parsed document. What the parent spends receiving
    bounds the speed-up: unmarshalling each document cost it ~20 us a manifest and kept
    ~5 KB of dicts it never reads (docs/speed.md, fourth pass).
    """
    assert _shared_lines is not None
    lines, file, limits = _shared_lines
    # Lazy: imported by the parent before it forked this worker.
    from .run_facts import plain

    try:
        found = _with_facts(_parse_range(lines, file, *bounds, limits))
    except KistoreError:
        return None
    return marshal.dumps([(x.manifest.to_parts(), plain(x.manifest), x.pointer, x.line)
                          for x in found])


def _with_facts(found: list[Located]) -> list[Located]:
    """Find each run's :class:`~kistore.store.run_facts.RunFacts` where it was parsed.

    A bulk add's per-run rules then read them instead of parsing each run's spec again in
    the one serial stretch before anything is written (issue 22); here they run on every
    CPU, beside the parsing. Returns ``found``, each run's facts kept on its manifest.
    """
    # Lazy: imported by the parent before it forked its workers.
    from .run_facts import attach

    for x in found:
        # A rule that failed here would fail again where the add asks for its answer, as
        # it always did: left unfound, the add finds it there (same words, same exit).
        with contextlib.suppress(Exception):
            attach(x.manifest)
    return found


def _unpack(packed: bytes, file: str) -> list[Located]:
    """Rebuild what :func:`_parse_shared_range` validated in a worker (no second check)."""
    # Lazy: imported by the parent before it forked its workers.
    from .run_facts import restored

    from_parts = Manifest.from_parts
    return [Located(restored(from_parts(*parts), facts), file, pointer, line)
            for parts, facts, pointer, line in marshal.loads(packed)]


def _shown(value: Any) -> bool:
    """Whether ``value`` is ``kistore show --json`` output: an object with a string digest."""
    return isinstance(value, dict) and isinstance(value.get("digest"), str)


def _shown_not_a_manifest(value: dict[str, Any], file: str, pointer: str,
                          line: int | None) -> InputError:
    """Return the error for ``kistore show --json`` output given to ``add`` (r85 F16).

    A top-level string ``digest`` is what ``show --json`` prints beside a manifest (or, for
    a run, beside its page: rank, ratios, ``manifest``); no manifest has one (its digest is
    computed from its bytes, never given) and no bundle member is a string. Without this,
    a run page gave one error per page field and a manifest "unexpected key 'digest'".
    """
    kind = value.get("kind")
    given = "a run page" if "manifest" in value and "rank" in value else (
        f"a stored {kind} with its digest" if isinstance(kind, str) else "an object with a digest")
    return InputError(
        f"this is {given}, as `kistore show --json` prints it, not a manifest: `kistore "
        f"add` takes {{apiVersion, kind, metadata, spec}} and computes the digest; `kistore "
        f"cat --manifest REF` prints a stored manifest to copy and edit "
        f"(docs/contributing.md)", file=file, pointer=f"{pointer}/digest", line=line)


def _from_value(value: Any, file: str, *, line: int | None,
                limits: Limits = DEFAULT, source: bytes | None = None) -> list[Located]:
    """Split a parsed value into manifests (a manifest, a bundle object or an array).

    An object without ``kind``/``apiVersion`` of which some member is a manifest is a
    bundle; its other members are reported where they are (``/b: ...``), not the whole
    file as one bad manifest. ``source``: the input's bytes (one JSON text): standard
    input's kept with each manifest, a file's SHA-256 (:class:`Located`).
    """
    sha256 = None if source is None or file == "-" else hashes.sha256(source).digest()
    if file != "-":
        source = None
    if _shown(value):  # before the bundle test: a run page holds its manifest as a member
        raise MultipleErrors([_shown_not_a_manifest(value, file, "", line)])
    if isinstance(value, dict) and "kind" not in value and "apiVersion" not in value and any(
        isinstance(v, dict) and "kind" in v for v in value.values()
    ):  # a bundle: every member must be a manifest (a non-manifest member is reported)
        entries = [(f"/{escape_pointer(k)}", v) for k, v in value.items()]
    elif isinstance(value, list):
        if not value:  # else `kistore add` of `[]` added nothing and said nothing
            raise MultipleErrors([InputError(
                "no manifests here: expected a manifest (an object) or an array of "
                "manifests, found an empty array", file=file, pointer="", line=line)])
        entries = [(f"/{i}", v) for i, v in enumerate(value)]
    else:
        entries = [("", value)]
    found: list[Located] = []
    errors: list[KistoreError] = []
    for pointer, document in entries:
        if _shown(document):  # a bundle of `show --json` outputs
            errors.append(_shown_not_a_manifest(document, file, pointer, line))
            continue
        try:
            found.append(Located(Manifest.from_document(document, file=file, pointer=pointer,
                                                        limits=limits),
                                 file, pointer, line, source, sha256))
        except KistoreError as e:
            errors.extend(e.problems)
    if errors:
        raise MultipleErrors(errors)
    return found
