"""Reading manifests from what people hand to ``kistore add``.

Accepted inputs (DESIGN §3): a single manifest file; a bundle (a JSON object whose values
are manifests, as ``shared/examples`` publishes a record; or a JSON array of manifests);
JSON Lines (``.jsonl``/``.ndjson``: one manifest a line); a directory (every ``.json``,
``.jsonl`` and ``.ndjson`` file below it, in sorted path order); and ``-`` for standard
input (a manifest, a bundle or JSON Lines). Every problem in every input is collected
before anything is returned, so a caller can refuse the whole batch at once.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import canonical
from .canonical import escape_pointer
from .errors import InputError, KistoreError, MultipleErrors, ParseError
from .model import Manifest

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
    """

    manifest: Manifest
    file: str
    pointer: str = ""
    line: int | None = None


def read_inputs(paths: Iterable[str]) -> list[Located]:
    """Read and validate every manifest in ``paths``.

    Args:
        paths: file names, directory names, or ``-`` (standard input, read once).

    Returns:
        Each manifest with its location, in input order.

    Raises:
        MultipleErrors: every parse, canonical-form and schema problem in every input, each
            naming file, line:column where known, and JSON Pointer. Nothing is returned
            when any input is bad.
    """
    found: list[Located] = []
    errors: list[KistoreError] = []
    for name in paths:
        for file, data in _expand(name, errors):
            try:
                found.extend(parse_manifests(data, file=file))
            except KistoreError as e:
                errors.extend(e.problems)
    if errors:
        raise MultipleErrors(errors)
    return found


def _expand(name: str, errors: list[KistoreError]) -> Iterator[tuple[str, bytes]]:
    if name == "-":
        yield "-", sys.stdin.buffer.read()
        return
    path = Path(name)
    if path.is_dir():
        files = sorted(
            p for p in path.rglob("*")
            if p.is_file() and p.suffix in MANIFEST_SUFFIXES
            and not any(part.startswith(".") for part in p.relative_to(path).parts)
        )
        if not files:
            errors.append(InputError("directory holds no .json or .jsonl files", file=name))
        for p in files:
            yield str(p), p.read_bytes()
    elif path.exists():  # a file, or a pipe such as <(...) or /dev/stdin
        yield name, path.read_bytes()
    else:
        errors.append(InputError("no such file or directory", file=name))


def parse_manifests(data: bytes, *, file: str) -> list[Located]:
    """Parse one input's bytes into manifests (manifest, bundle or JSON Lines).

    JSON Lines are used when ``file`` ends in ``.jsonl``/``.ndjson``, or for stdin when the
    bytes are not one JSON value but every non-blank line is.

    Raises:
        MultipleErrors: every problem found in the input.
    """
    if file.endswith(JSON_LINES_SUFFIXES):
        return _parse_lines(data, file)
    try:
        value = canonical.loads(data, file=file)
    except ParseError as first:
        if file == "-" and b"\n" in data.strip():
            try:
                return _parse_lines(data, file)
            except MultipleErrors:
                pass
        raise MultipleErrors([first]) from None
    return _from_value(value, file, line=None)


def _parse_lines(data: bytes, file: str) -> list[Located]:
    found: list[Located] = []
    errors: list[KistoreError] = []
    for number, raw in enumerate(data.split(b"\n"), start=1):
        if not raw.strip():
            continue
        try:
            value = canonical.loads(raw, file=file)
            found.extend(_from_value(value, file, line=number))
        except KistoreError as e:
            for problem in e.problems:
                problem.line, problem.column = number, problem.column or 1
                problem.args = (problem.format(),)
                errors.append(problem)
    if errors:
        raise MultipleErrors(errors)
    if not found:
        raise MultipleErrors([ParseError("no manifests in JSON Lines input", file=file)])
    return found


def _from_value(value: Any, file: str, *, line: int | None) -> list[Located]:
    """Split a parsed value into manifests (a manifest, a bundle object or an array).

    An object without ``kind``/``apiVersion`` of which some member is a manifest is a
    bundle; its other members are reported where they are (``/b: ...``), not the whole
    file as one bad manifest.
    """
    if isinstance(value, dict) and "kind" not in value and "apiVersion" not in value and any(
        isinstance(v, dict) and "kind" in v for v in value.values()
    ):  # a bundle: every member must be a manifest (a non-manifest member is reported)
        entries = [(f"/{escape_pointer(k)}", v) for k, v in value.items()]
    elif isinstance(value, list):
        entries = [(f"/{i}", v) for i, v in enumerate(value)]
    else:
        entries = [("", value)]
    found: list[Located] = []
    errors: list[KistoreError] = []
    for pointer, document in entries:
        try:
            found.append(Located(Manifest.from_document(document, file=file, pointer=pointer),
                                 file, pointer, line))
        except KistoreError as e:
            errors.extend(e.problems)
    if errors:
        raise MultipleErrors(errors)
    return found
