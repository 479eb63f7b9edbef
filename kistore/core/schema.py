"""JSON Schema validation of manifests (draft 2020-12), offline.

Owns loading ``schemas/*.json`` (shipped inside the wheel as the ``kistore.schemas``
package), resolving their ``$ref`` between each other without any network access, and
turning validation errors into :class:`~kistore.core.errors.SchemaError` findings that carry the
JSON Pointer (RFC 6901) of the offending value.

``format: date-time`` is enforced (RFC 3339, via ``rfc3339-validator``): python-jsonschema
ignores ``format`` unless a checker is registered, so one is registered explicitly here and
a missing checker fails closed (:class:`~kistore.core.errors.InstallationError`, exit 2) rather
than passing silently.

The schema files carry no ``$id`` and refer to each other by relative ``$ref``
(``"common.json#/$defs/digest"``), so any validator resolves a reference against the file it
read (JSON Schema 2020-12 §8.2.1: the retrieval URI is the base), offline, from a checkout:
``check-jsonschema --schemafile schemas/BenchmarkRun.json``, or Ajv with each file added
under its name. (An absolute ``$id`` sent every validator to a host that serves nothing; a
relative one is resolved against the working directory by check-jsonschema.) Inside kistore
each is identified as :data:`SCHEMA_BASE` + its file name. A ``$ref`` that resolves to nothing (a
damaged installation) is an :class:`~kistore.core.errors.InstallationError` naming the schema
file, the JSON Pointer of the ``$ref`` and its value.

Speed: a valid document is confirmed by ``jsonschema-rs`` (compiled, ~20 us a manifest
instead of ~5 ms) with the same schemas, registry and the same date-time checker; only a
document it rejects is run through python-jsonschema, which stays the single source of
every finding and of the final verdict (a document python-jsonschema accepts is accepted
even when the fast validator disagrees, e.g. on ``$`` before a final newline).
"""

from __future__ import annotations

import json
import os
import re
from copy import deepcopy
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import hashes
from .canonical import escape_pointer
from .errors import QUOTE_WIDTH, InstallationError, SchemaError, shorten
from .layout import is_name

if TYPE_CHECKING:  # pragma: no cover - typing only
    from importlib.resources.abc import Traversable

API_VERSION = "kernelindex.dev/v1alpha1"
KINDS = ("Workload", "BenchmarkProtocol", "ExecutionEnvironment", "Implementation", "BenchmarkRun")
"""Every manifest kind, in dependency order (a run references the other four)."""


def nearest_kind(text: str) -> str | None:
    """Return the kind a mistyped kind most likely means, for a "did you mean".

    Args:
        text: what was typed where a kind goes (``workload``, ``Run``, ``Implementaton``).

    Returns:
        The one kind equal to ``text`` ignoring case; else the one kind whose name holds
        ``text`` (3 characters or more, ignoring case: ``run``, ``environment``; None when
        several do); else the closest spelling (:func:`difflib.get_close_matches`, ignoring
        case); None when no kind is near, or ``text`` is a kind.
    """
    if text in KINDS:
        return None
    folded = text.casefold()
    lowered = {kind.casefold(): kind for kind in KINDS}
    if folded in lowered:
        return lowered[folded]
    holding = [kind for low, kind in lowered.items() if len(folded) >= 3 and folded in low]
    if holding:
        return holding[0] if len(holding) == 1 else None  # "benchmark": which one?
    # Lazy: difflib loads only to suggest a kind after a miss.
    import difflib

    close = difflib.get_close_matches(folded, list(lowered), n=1, cutoff=0.6)
    return lowered[close[0]] if close else None

SCHEMA_BASE = "https://kernelindex.dev/schemas/v1alpha1/"
"""Inside kistore, schema ``NAME.json`` is identified as ``SCHEMA_BASE + "NAME.json"``."""


@cache
def _schema_dir() -> Traversable:
    """Return the installed ``kistore.schemas`` package, or ``schemas/`` beside the source.

    As plain directories (a wheel's ``kistore/schemas/``, a checkout's ``schemas/`` next to
    ``kistore/``) they are found by path; only a package that is not plain files (a zip
    import) is asked through its loader.
    """
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # .../kistore
    for candidate in (os.path.join(package, "schemas"),
                      os.path.join(os.path.dirname(package), "schemas")):
        if os.path.isfile(os.path.join(candidate, "BenchmarkRun.json")):
            return Path(candidate)
    # importlib.resources loads tempfile, zipfile... (~15 ms of start-up, docs/speed.md).
    # Lazy: only a package that is not plain files (a zip import) needs its loader.
    from importlib import resources

    try:
        return resources.files("kistore.schemas")
    except ModuleNotFoundError:  # running from the source tree: kistore/ next to schemas/
        return resources.files("kistore").joinpath("..", "schemas")


_CHECKER_SOURCES = (__file__, os.path.join(os.path.dirname(__file__), "text_fields.py"),
                    os.path.join(os.path.dirname(__file__), "_plain_text.py"))
"""The sources of :func:`check_manifest`'s checks besides the schemas (:func:`checker_id`)."""


@cache
def checker_id() -> bytes:
    """Return what identifies :func:`check_manifest`'s verdicts: 32 bytes, same while it is.

    BLAKE2b of this module's source and of :mod:`kistore.core.text_fields`' and
    :mod:`kistore.core._plain_text`'s (the checks beside the schemas: NFC, scripts,
    prose, date-time) and of every shipped schema file, name and bytes. A verdict
    recorded under one id (:mod:`kistore.index.checked`) is not taken for another:
    upgrading kistore, or editing a schema in a checkout, checks documents again.

    Raises:
        InstallationError: a shipped schema, or this module's source, cannot be read.
    """
    digest = hashes.blake2b(digest_size=32)
    try:
        for source in _CHECKER_SOURCES:
            with open(source, "rb") as f:
                digest.update(f.read())
        for name in schema_names():
            data = _schema_dir().joinpath(name).read_bytes()
            digest.update(b"%d:%s\n%d:" % (len(name), name.encode(), len(data)) + data)
    except OSError as e:
        raise InstallationError(f"kistore's schemas cannot be read ({e}); reinstall kistore "
                                "(`pip install --force-reinstall kistore`)") from None
    return digest.digest()


def schema_names() -> list[str]:
    """Return the file names of every shipped schema (``BenchmarkRun.json``, ...)."""
    return sorted(p.name for p in _schema_dir().iterdir() if p.name.endswith(".json"))


@cache
def load_schema(name: str) -> dict[str, Any]:
    """Return one shipped schema as a dict, identified as ``SCHEMA_BASE + name``.

    Args:
        name: file name in ``schemas/``, e.g. ``"BenchmarkRun.json"``.

    Returns:
        The schema with ``"$id": SCHEMA_BASE + name`` added (the file has none), so its
        relative ``$ref`` values resolve in kistore's registry exactly as they resolve
        against the file in a checkout.

    Raises:
        InstallationError: no such schema ships with kistore, or it is not JSON (a damaged
            installation: exit code 2).
    """
    try:
        text = _schema_dir().joinpath(name).read_text("utf-8")
        schema: dict[str, Any] = json.loads(text)
    except (OSError, ValueError) as e:
        raise InstallationError(f"kistore's schema {name} cannot be read ({e}); reinstall "
                                "kistore (`pip install --force-reinstall kistore`)",
                                file=_schema_file(name)) from None
    return {**schema, "$id": SCHEMA_BASE + name}


def _schema_file(name: str) -> str:
    """Return where schema ``name`` is read from, for messages (``.../schemas/NAME``)."""
    return str(_schema_dir().joinpath(name))


def _require_date_time_checker() -> None:
    """Fail closed when ``rfc3339-validator`` (a declared dependency) is not importable.

    Without it ``format: date-time`` would go unchecked: a malformed ``observedAt`` would
    pass validation silently.

    Raises:
        InstallationError: naming the package and the command that installs it.
    """
    try:
        # Lazy: the validator loads only when a document is validated (start-up).
        import rfc3339_validator  # noqa: F401
    except ImportError:
        raise InstallationError(
            "the Python package rfc3339-validator is not installed, so `format: date-time` "
            "(observedAt, validFrom ...) cannot be checked and nothing is validated; install "
            "it (`pip install rfc3339-validator`), it is one of kistore's dependencies"
        ) from None


def check_schema_references() -> None:
    """Resolve every ``$ref`` of every shipped schema offline; raise on the first that fails.

    Called when a validator cannot be built or meets an unresolvable reference, so that
    the message names the exact ``$ref`` instead of the validator library's own error.

    Raises:
        InstallationError: naming the schema file, the JSON Pointer of the ``$ref`` inside
            it and the reference that resolves to nothing.
    """
    # Lazy: the validator loads only when a document is validated (start-up).
    from referencing import Registry, Resource
    from referencing.exceptions import Unresolvable

    names = schema_names()
    registry: Registry[Any] = Registry().with_resources(
        (SCHEMA_BASE + n, Resource.from_contents(load_schema(n))) for n in names)
    for name in names:
        resolver = registry.resolver(base_uri=SCHEMA_BASE + name)
        for pointer, ref in schema_references(load_schema(name), ""):
            try:
                resolver.lookup(ref)
            except Unresolvable:
                raise _unresolvable(name, pointer, ref) from None


def schema_references(value: Any, pointer: str = "") -> list[tuple[str, str]]:
    """Return ``(JSON Pointer, $ref value)`` of every ``$ref`` in a schema (document order).

    Args:
        value: a schema, or part of one.
        pointer: the JSON Pointer of ``value`` inside its schema file.

    A ``$ref`` inside a nested resource with its own ``$id`` is not expected in kistore's
    schemas (none has one), so every reference resolves against the file's own ``$id``.
    """
    found: list[tuple[str, str]] = []
    if isinstance(value, dict):
        ref = value.get("$ref")
        if isinstance(ref, str):
            found.append((f"{pointer}/$ref", ref))
        for key, item in value.items():
            found += schema_references(item, f"{pointer}/{escape_pointer(key)}")
    elif isinstance(value, list):
        for i, item in enumerate(value):
            found += schema_references(item, f"{pointer}/{i}")
    return found


def _unresolvable(name: str, pointer: str, ref: str) -> InstallationError:
    return InstallationError(
        f"$ref {ref!r} cannot be resolved offline: kistore's schema files are damaged or "
        "incomplete; reinstall kistore (`pip install --force-reinstall kistore`)",
        file=_schema_file(name), pointer=pointer)


@cache
def _validator(name: str) -> Any:
    # Lazy: jsonschema is slow to import and most commands never validate.
    import jsonschema
    from referencing import Registry, Resource

    _require_date_time_checker()  # fail closed here, not silently skip date-time

    resources_ = [
        (SCHEMA_BASE + n, Resource.from_contents(load_schema(n))) for n in schema_names()
    ]
    registry: Registry[Any] = Registry().with_resources(resources_)
    checker = jsonschema.FormatChecker(formats=())
    checker.checks("date-time")(_is_date_time)
    validator = jsonschema.validators.extend(
        jsonschema.Draft202012Validator, {"pattern": _ecma_pattern}
    )
    return validator(load_schema(name), registry=registry, format_checker=checker)


def _ecma_pattern(validator: Any, pattern: str, instance: Any, schema: Any) -> Any:
    """Check the ``pattern`` keyword with ECMA-262 semantics for ``$`` (JSON Schema's dialect).

    Python's ``$`` also matches before a final newline, so ``"evil\n"`` would pass
    ``^[a-z]+$``; ECMA-262's ``$`` (no multiline flag) matches only at the very end.
    """
    # Lazy: the validator loads only when a document is validated (start-up).
    from jsonschema.exceptions import ValidationError

    if isinstance(instance, str) and not _ecma_regex(pattern).search(instance):
        yield ValidationError(f"{shorten(repr(instance))} does not match {pattern!r}")


@cache
def _ecma_regex(pattern: str) -> re.Pattern[str]:
    """Compile ``pattern``, a trailing unescaped ``$`` meaning end of string (Python ``\\Z``)."""
    return re.compile(re.sub(r"(?<!\\)\$$", r"\\Z", pattern))


def _is_date_time(value: object) -> bool:
    """Return True for an RFC 3339 date-time; a non-string is left to the ``type`` keyword.

    (``format`` applies only to strings; calling the validator with ``null`` would raise.)
    """
    if not isinstance(value, str):
        return True
    if _PLAIN_DATE_TIME.fullmatch(value):  # the common form: no call into rfc3339-validator
        return True
    # Lazy: the validator loads only when a document is validated (start-up).
    import rfc3339_validator

    # rfc3339-validator's regex ends in Python's `$`, which also accepts a final newline
    return "\n" not in value and bool(rfc3339_validator.validate_rfc3339(value))


_RFC3339_OTHER = re.compile(
    r"([0-9]{4}-[0-9]{2}-[0-9]{2})([Tt])([0-9]{2}:[0-9]{2}:)([0-9]{2})(\.[0-9]+)?"
    r"([Zz]|[+-][0-9]{2}:[0-9]{2})")
"""RFC 3339 §5.6's shape with what it admits and kistore does not: ``t``, ``z``, second 60."""


def date_time_advice(value: object) -> str | None:
    """Say how to write a valid RFC 3339 date-time kistore does not accept, or None.

    kistore accepts one spelling of a time (a house rule: a stored time is compared and
    shown byte for byte, and Python's datetime, which reads it, holds no leap second):
    upper-case ``T`` and ``Z`` and seconds 00-59. RFC 3339 §5.6 also admits a lower-case
    ``t`` and ``z`` and a leap second ``:60`` (reviewer r89 F2: these were called "not an
    RFC 3339 date-time").

    Args:
        value: the refused value.

    Returns:
        e.g. ``'2016-12-31T23:59:60Z' is RFC 3339, but kistore accepts only ... : write
        '2016-12-31T23:59:59Z'``; None when ``value`` is not such a date-time.
    """
    match = _RFC3339_OTHER.fullmatch(value) if isinstance(value, str) else None
    if match is None:
        return None
    day, sep, clock, second, fraction, zone = match.groups()
    if sep == "T" and zone != "z" and second != "60":
        return None  # another problem (a month 13, say): not RFC 3339 at all
    fixed = (f"{day}T{clock}{'59' if second == '60' else second}{fraction or ''}"
             f"{zone.upper()}")
    if not _is_date_time(fixed):
        return None  # wrong in another way too (a month 13): not RFC 3339 at all
    return (f"{value!r} is RFC 3339, but kistore accepts one spelling only: upper-case T "
            f"and Z, seconds 00-59 (no leap second); write {fixed!r}")


# UTC date-times of a year from 0001 whose day exists in every month (01-28): a subset of
# what rfc3339-validator accepts (a test checks it), so answering True changes no verdict.
_PLAIN_DATE_TIME = re.compile(
    r"(?!0000)[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|1[0-9]|2[0-8])T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]"
    r"(\.[0-9]{1,9})?Z")


@cache
def _fast_validator(name: str) -> Any:
    """Return the compiled ``jsonschema-rs`` validator for one schema (None: unavailable)."""
    try:
        # decimal and email.utils first: jsonschema_rs's Rust start imports them, and a
        # Ctrl-C handled there was a Rust panic and its traceback (exit 1), not an interrupt.
        # Lazy: the validator loads only when a document is validated (start-up).
        import decimal  # noqa: F401
        import email.utils  # noqa: F401

        # Lazy: the validator loads only when a document is validated (start-up).
        import jsonschema_rs
    except ImportError:  # pragma: no cover - the wheel is missing on this platform
        return None
    _require_date_time_checker()  # the format callback below needs it
    try:
        registry = jsonschema_rs.Registry(
            [(SCHEMA_BASE + n, load_schema(n)) for n in schema_names()]
        )
        return jsonschema_rs.Draft202012Validator(
            load_schema(name), registry=registry, validate_formats=True,
            formats={"date-time": _is_date_time}, offline=True,
        )
    except ValueError as e:  # jsonschema-rs refuses a schema whose $ref it cannot resolve
        check_schema_references()  # names the $ref, if that is what it was
        first = str(e).splitlines()[0] if str(e) else type(e).__name__
        raise InstallationError(f"kistore's schema {name} does not compile ({first}); "
                                "reinstall kistore", file=_schema_file(name)) from None


def fast_validator(kind: Any) -> Any:
    """Return the compiled ``jsonschema-rs`` validator of a kind's schema, or None.

    Its ``is_valid(document)`` answering True means :func:`check_manifest` finds no schema
    error (the fast validator is never more lenient: a property test holds it to that);
    :func:`identifying_problems` and :func:`reserved_on_windows`, the rest of
    :func:`check_manifest`, are asked apart.

    Args:
        kind: a manifest's ``kind`` value (anything).

    Returns:
        The validator, or None when ``kind`` is no kind of :data:`KINDS` or jsonschema-rs is
        not installed (then only :func:`check_manifest` can answer).
    """
    return _fast_validator(f"{kind}.json") if kind in KINDS else None


def check_document(document: Any, schema: str, *, file: str | None = None) -> list[SchemaError]:
    """Validate a JSON value against one shipped schema and return every finding.

    Args:
        document: the parsed JSON value.
        schema: schema file name, e.g. ``"BenchmarkRun.json"``.
        file: file name to put in each finding.

    Returns:
        One :class:`SchemaError` per violation (empty when valid), sorted by JSON Pointer,
        each naming the field and what was expected.

    Raises:
        InstallationError: a ``$ref`` of the shipped schema resolves to nothing offline (a
            broken install; :func:`check_schema_references` names the one, else the
            message says to reinstall kistore).
    """
    fast = _fast_validator(schema)
    if fast is not None and fast.is_valid(document):
        return []
    # Lazy: the validator loads only when a document is validated (start-up).
    from referencing.exceptions import Unresolvable

    findings = []
    try:
        for error in _validator(schema).iter_errors(document):
            pointer = "".join(f"/{escape_pointer(str(p))}" for p in error.absolute_path)
            findings.extend(_unexpected_keys(error, pointer, file)
                            or _missing_key(error, pointer, file)
                            or _name_problem(error, pointer, file)
                            or [_reference_problem(error, pointer, file)])
    except Unresolvable as e:  # met only when validation reaches the broken $ref
        check_schema_references()
        raise InstallationError(f"a $ref of kistore's schema {schema} cannot be resolved "
                                f"offline ({e}); reinstall kistore",
                                file=_schema_file(schema)) from None
    return sorted(_misspelt_keys(findings, file),
                  key=lambda f: (f.pointer or "", f.message))


def _reference_problem(error: Any, pointer: str, file: str | None) -> SchemaError:
    """Return the finding of one error, keeping the text of a run's reference that is no digest.

    A ``spec.*Digest`` string failing its pattern keeps what was written
    (:attr:`SchemaError.written`) for the store's "did you mean" (reviewer r90b F6).
    """
    found = SchemaError(describe_error(error), file=file, pointer=pointer)
    path = list(error.absolute_path)
    if error.validator == "pattern" and len(path) == 2 and path[0] == "spec" and \
            str(path[1]).endswith("Digest") and isinstance(error.instance, str):
        found.written = (str(path[1]), error.instance)
    return found


def _misspelt_keys(findings: list[SchemaError], file: str | None) -> list[SchemaError]:
    """Fold "missing required field K" and "unexpected key K2" into one did-you-mean.

    A required key typed ``metdata`` gave two errors (the key missing, the typo unexpected)
    and no word that one is the other (reviewer r89 F8). When an unexpected key of an
    object is a close spelling of a key missing from it (:func:`difflib.get_close_matches`,
    cutoff 0.8, ignoring case), the two become one finding at the typo: "did you mean".
    """
    missing = {f.pointer: f for f in findings if f.message.startswith("missing required")}
    unexpected = [f for f in findings if f.message.startswith("unexpected key ")]
    if not missing or not unexpected:
        return findings
    # Lazy: difflib loads only to suggest a key after a miss.
    import difflib

    dropped: set[int] = set()
    merged = []
    for typo in unexpected:
        parent, _, key = (typo.pointer or "").rpartition("/")
        wanted = {p.rpartition("/")[2]: f for p, f in missing.items()
                  if p is not None and p.rpartition("/")[0] == parent and id(f) not in dropped}
        close = difflib.get_close_matches(key.casefold(), [k.casefold() for k in wanted],
                                          n=1, cutoff=0.8)
        if not close:
            continue
        right = next(k for k in wanted if k.casefold() == close[0])
        dropped.update({id(typo), id(wanted[right])})
        merged.append(SchemaError(
            f"unexpected key {shorten(repr(key))}: did you mean {right!r}? (a required "
            "field, missing)", file=file, pointer=typo.pointer))
    return [f for f in findings if id(f) not in dropped] + merged


def _unexpected_keys(error: Any, pointer: str, file: str | None) -> list[SchemaError]:
    """One finding per key a closed object does not allow, at the key's own pointer.

    jsonschema reports ``additionalProperties``/``unevaluatedProperties`` once, at the
    object (the manifest's top level has the empty pointer, so the message named no place
    at all), with the keys only inside its text. Each key is named here with the object's
    pointer and the keys it allows. Returns [] for any other error.
    """
    if error.validator not in ("additionalProperties", "unevaluatedProperties") or \
            error.validator_value is not False or not isinstance(error.instance, dict):
        return []
    keys = [k for k in error.instance if repr(k) in error.message]  # the message quotes each
    where = f"the object at {pointer}" if pointer else "the top-level object"
    # unevaluatedProperties also allows what sibling subschemas (allOf, $ref) declare
    allowed = sorted(error.schema.get("properties", {})) \
        if error.validator == "additionalProperties" else []
    also = f"; it allows only {', '.join(allowed)}" if allowed else ""
    return [SchemaError(f"unexpected key {shorten(repr(key))} in {where}{also}: remove it or "
                        "correct its "
                        "spelling", file=file, pointer=f"{pointer}/{escape_pointer(key)}")
            for key in keys]


def _missing_key(error: Any, pointer: str, file: str | None) -> list[SchemaError]:
    """Return a missing required key's finding, at the pointer where the key belongs.

    jsonschema reports it at the object that lacks it (the top level has the empty pointer,
    so the message named no place at all). Returns [] for any other error.
    """
    if error.validator != "required" or not isinstance(error.instance, dict):
        return []
    keys = [k for k in error.validator_value
            if k not in error.instance and repr(k) in error.message]
    if not keys:
        return []
    key = keys[0]  # jsonschema reports each missing key as its own error
    described = error.schema.get("properties", {}).get(key, {})
    about = described.get("description") if isinstance(described, dict) else None
    about = f" ({about.rstrip('.')})" if isinstance(about, str) and len(about) <= 160 else ""
    return [SchemaError(f"missing required field {key!r}{about}: add it", file=file,
                        pointer=f"{pointer}/{escape_pointer(key)}")]


NAME_RULE = ("a name is 1 to 253 characters: lowercase ASCII letters a-z, digits 0-9, '-' and "
             "'.', beginning and ending with a letter or digit (it is a file name in every "
             "checkout and a part of every citation's URL)")
"""``common.json#/$defs/name`` in words."""


def _name_problem(error: Any, pointer: str, file: str | None) -> list[SchemaError]:
    """Return the finding of a ``metadata.name`` its pattern refuses, in words, with a fix.

    jsonschema says only that the value does not match the regular expression (review73
    F7). The finding says what a name may hold (:data:`NAME_RULE`) and, when there is
    one, the nearest valid name (:func:`nearest_name`). Returns [] for any other error.
    """
    if pointer != "/metadata/name" or error.validator not in ("pattern", "minLength") \
            or not isinstance(error.instance, str):
        return []
    name = error.instance
    fix = nearest_name(name)
    write = f"write {fix!r}" if fix else "choose a name of those characters"
    return [SchemaError(f"{shorten(repr(name), length=len(name))} is not a valid name: "
                        f"{NAME_RULE}; {write}",
                        file=file, pointer=pointer)]


def nearest_name(text: str) -> str | None:
    """Return the valid ``metadata.name`` nearest ``text``, or None when none is near.

    Lowercase, accents dropped, each run of other characters one ``-``
    (:func:`kistore.core.naming.slug`), cut to 253 characters: ``"NVIDIA_B200 Run"`` ->
    ``"nvidia-b200-run"``.

    Args:
        text: a refused name.

    Returns:
        A name ``common.json#/$defs/name`` accepts and Windows does not reserve
        (:func:`reserved_on_windows`), other than ``text``; None when nothing of ``text``
        is left (``"東京"``) or what is left is reserved.
    """
    # Lazy: naming imports unicodedata (~2 ms of start-up), needed only for a refused name.
    from .naming import slug

    fixed = slug(text)[:253].rstrip("-.")
    if fixed == text or not is_name(fixed) or reserved_on_windows(fixed):
        return None
    return fixed


def in_metadata_file(pointer: str | None) -> str | None:
    """Return where a manifest's JSON Pointer (RFC 6901) points in its metadata file.

    A stored manifest is two files: ``metadata`` is kept in the metadata file, not the
    object, so a schema error at ``/metadata/...`` is that file's to fix.

    Args:
        pointer: a pointer into the whole manifest (``/metadata/name``, ``/spec/x``), or None.

    Returns:
        The pointer relative to the metadata file's root (``/name``; ``""`` for
        ``/metadata`` itself), or None when it points outside ``metadata``.
    """
    if pointer is not None and (pointer == "/metadata" or pointer.startswith("/metadata/")):
        return pointer[len("/metadata"):]
    return None


def check_manifest(document: Any, *, file: str | None = None) -> list[SchemaError]:
    """Validate a manifest against the schema of its ``kind``.

    Args:
        document: the parsed manifest (a JSON object with apiVersion, kind, metadata, spec).
        file: file name to put in each finding.

    Returns:
        Every :class:`SchemaError` found (empty when valid). An object with no known
        ``kind`` yields a single finding at ``/kind``.
    """
    if not isinstance(document, dict):
        return [SchemaError("a manifest must be a JSON object: expected an object, found "
                            f"{_json_type(document)}", file=file, pointer="")]
    kind = document.get("kind")
    if kind not in KINDS:
        found = "it has none" if "kind" not in document else f"found {_found(kind, KINDS)}"
        near = nearest_kind(kind) if isinstance(kind, str) else None
        return [SchemaError(
            f"a manifest's kind must be one of {', '.join(KINDS)}; {found}"
            + (f"; did you mean {near!r}?" if near else ""), file=file, pointer="/kind")]
    # Lazy: the text rules load when a document is checked (an indexed `show` checks none)
    from .text_fields import identifying_problems

    return (check_document(document, f"{kind}.json", file=file)
            + identifying_problems(document, file=file)
            + reserved_name_problems(document, file=file))


_RESERVED_ON_WINDOWS = re.compile(r"(?:con|prn|aux|nul|com[1-9]|lpt[0-9]) *(?:\.|$)")
"""Device names Windows reserves for a path component, with any extension (``aux.txt``)."""


def reserved_on_windows(name: str) -> bool:
    """Whether Windows reserves ``name`` as a path component (:func:`reserved_name_problems`)."""
    return _RESERVED_ON_WINDOWS.match(name.lower()) is not None


def reserved_name_problems(document: Any, *, file: str | None = None) -> list[SchemaError]:
    """Return an error when ``metadata.name`` is a device name Windows reserves.

    A name becomes a file, ``store/names/KIND/XX/NAME``, that is never renamed or deleted
    (KI208); Git for Windows refuses to check out a path component named ``CON``, ``PRN``,
    ``AUX``, ``NUL``, ``COM1``-``COM9`` or ``LPT0``-``LPT9`` in any case, with or without
    an extension (its ``is_valid_win32_path``), so one such name would break every Windows
    checkout of the store for good (new-user review 2026-12-02 F19).

    Args:
        document: a parsed manifest.
        file: file name to put in the error.

    Returns:
        One :class:`SchemaError` at ``/metadata/name``, or none.
    """
    metadata = document.get("metadata") if isinstance(document, dict) else None
    name = metadata.get("name") if isinstance(metadata, dict) else None
    if not isinstance(name, str) or not reserved_on_windows(name):
        return []
    return [SchemaError(
        f"{name!r} is a device name Windows reserves (CON, PRN, AUX, NUL, COM1-COM9, "
        "LPT0-LPT9, with or without an extension): Git for Windows cannot check out its "
        "names file, and a name is never freed; choose another name", file=file,
        pointer="/metadata/name")]


def describe_error(error: Any) -> str:
    """Say in one line which field is wrong and what was expected, in JSON's words.

    Args:
        error: a ``jsonschema.ValidationError``.

    Returns:
        e.g. ``field 'metadata': expected an object, found null``.
    """
    field = error.absolute_path[-1] if error.absolute_path else None
    message: str = error.message
    quoted = repr(error.instance)
    length = len(error.instance) if isinstance(error.instance, str | list | dict) else None
    if len(quoted) > QUOTE_WIDTH:  # jsonschema quotes the whole value: a 5,000-digit number
        message = message.replace(quoted, shorten(quoted, length=length))
    if error.validator in ("maxLength", "minLength") and isinstance(error.instance, str):
        bound = "at most" if error.validator == "maxLength" else "at least"
        shown = shorten(quoted, length=length)  # a cut value says its length itself
        counted = f" ({length:,} characters)" if shown == quoted else ""
        message = (f"{shown}{counted} is too "
                   f"{'long' if error.validator == 'maxLength' else 'short'}: the schema "
                   f"allows {bound} {error.validator_value:,} characters")
    elif error.validator == "format":
        message = date_time_advice(error.instance) or (
            f"{shorten(quoted)} is not an RFC 3339 {error.validator_value} "
            "(e.g. 2026-07-10T06:41:58.611Z)")
    elif error.validator == "pattern" and isinstance(error.instance, str):
        message = _pattern_message(error, field)
    elif error.validator == "type":  # JSON's words, not Python's ("None is not of type")
        wanted = error.validator_value
        wanted = wanted if isinstance(wanted, list) else [wanted]
        message = f"expected {' or '.join(_A[w] if w in _A else w for w in wanted)}, found " \
                  f"{_json_type(error.instance)}"
    elif error.validator == "const":
        message = f"expected {_json(error.validator_value)}, found " \
                  f"{_found(error.instance, [error.validator_value])}"
    elif error.validator == "enum":
        message = f"expected one of {', '.join(_json(v) for v in error.validator_value)}, " \
                  f"found {_found(error.instance, error.validator_value)}"
    elif error.validator == "contains" and isinstance(error.validator_value, dict) and \
            "const" in error.validator_value:  # an array that must list one value
        message = f"must list {_json(error.validator_value['const'])}, found " \
                  f"{_json(error.instance)}"
    elif error.validator == "not" and isinstance(error.schema, dict) and \
            isinstance(error.schema.get("description"), str):  # the schema says why, in words
        message = error.schema["description"]
    if field is not None and not message.startswith(f"field {field!r}"):
        message = f"field {field!r}: {message}"
    return message


def _pattern_message(error: Any, field: Any) -> str:
    """Say a ``pattern`` error of a string (a value, or a key under ``propertyNames``).

    In words when the pattern is one of kistore's
    (:func:`kistore.core.pattern_words.pattern_said`: fresh09 L4), any character of the
    value that is not printable ASCII named (:func:`_found`); else as jsonschema says it,
    with the regular expression.
    """
    # Lazy: the table of patterns in words, only for a refused value.
    from .pattern_words import pattern_said

    value, pattern = error.instance, error.validator_value
    quoted = shorten(repr(value))
    if not (value.isascii() and value.isprintable()) and pattern.isascii():
        # Lazy: the Unicode names, with the text rules' tables, only for such a value.
        from .text_fields import odd_characters_said

        quoted = f"{shorten(ascii(value))} ({odd_characters_said(value)})"
    path = list(error.relative_schema_path)
    key = len(path) >= 2 and path[-2] == "propertyNames"
    said = pattern_said(pattern, quoted, bool(_ecma_regex(pattern).search(value.lower())),
                        key_of=str(field) if key else None)
    return said or f"{quoted} does not match {pattern!r}"


def taken_at(manifest: Any, tokens: list[str]) -> str | None:
    """Say what a manifest's schema takes at one place where it takes no number.

    Asked where a number cannot be parsed (``NaN`` written at ``/spec/observedAt``): a
    number is put there in a copy and the schema's ``type``, ``const`` or ``enum`` error at
    that place, if any, says what it takes instead (reviewer r90b F5: the advice said "write
    a number" at a string).

    Args:
        manifest: a parsed manifest (not changed).
        tokens: the reference tokens of the place, unescaped (``["spec", "observedAt"]``).

    Returns:
        JSON's words for what goes there: ``a string: RFC 3339 date-time with a time zone,
        e.g. 2026-07-10T06:41:58.611Z`` (the type and the schema's description, first
        sentence), ``"kernelindex.dev/v1alpha1"`` (a ``const``), ``one of "passed", ...``;
        for ``kind``, the five kinds. None when the schema takes a number there (or the
        place or the kind cannot be found).
    """
    if tokens == ["kind"]:
        return f"a string, one of {', '.join(_json(k) for k in KINDS)}"
    kind = manifest.get("kind") if isinstance(manifest, dict) else None
    if kind not in KINDS or not tokens:
        return None
    copy = deepcopy(manifest)
    parent = copy
    try:
        for token in tokens[:-1]:
            parent = parent[int(token)] if isinstance(parent, list) else parent[token]
        parent[int(tokens[-1]) if isinstance(parent, list) else tokens[-1]] = 0
    except (IndexError, KeyError, TypeError, ValueError):
        return None
    for error in _validator(f"{kind}.json").iter_errors(copy):
        if [str(p) for p in error.absolute_path] != tokens:
            continue
        if error.validator == "const":
            return _json(error.validator_value)
        if error.validator == "enum":
            return f"one of {', '.join(_json(v) for v in error.validator_value)}"
        if error.validator == "type":
            wanted = error.validator_value if isinstance(error.validator_value, list) \
                else [error.validator_value]
            words = " or ".join(_A.get(str(w), str(w)) for w in wanted)
            about = error.schema.get("description") if isinstance(error.schema, dict) else None
            if isinstance(about, str):
                first = re.split(r"\. (?=[A-Z])", about)[0].rstrip(".")
                first = first[:1].lower() + first[1:] if first.startswith(("A ", "An ")) \
                    else first
                words += f": {first}"
            return words
    return None


_A = {"object": "an object", "array": "an array", "string": "a string", "integer": "an integer",
      "number": "a number", "boolean": "a boolean", "null": "null"}


def _json_type(value: Any) -> str:
    """Name a parsed JSON value's type as JSON does: ``null``, ``a string``, ``an object``."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    for kind, name in ((float, "a number"), (str, "a string"), (list, "an array"),
                       (dict, "an object")):
        if isinstance(value, kind):
            return name
    return type(value).__name__  # pragma: no cover - not from a JSON parser


def _found(value: Any, expected: Any) -> str:
    """Show a found value as :func:`_json` does, a look-alike of an ASCII one escaped and named.

    When every ``expected`` value is ASCII and ``value`` is a string holding a character
    that is not printable ASCII, the string is shown JSON-escaped (``"pa\\u0455sed"``) and
    each such character named (:func:`kistore.core.text_fields.odd_characters_said`):
    printed raw, ``"BenchmarkRun\\u200b"`` reads as the ``'BenchmarkRun'`` the message
    suggests (fresh09 L2).
    """
    if not isinstance(value, str) or value.isascii() and value.isprintable() or \
            not all(v.isascii() for v in expected if isinstance(v, str)):
        return _json(value)
    # Lazy: the Unicode names, with the text rules' tables, only for such a value.
    from .text_fields import odd_characters_said

    text = json.dumps(value)
    shown = text if len(text) <= 60 else text[:57] + "..."
    return f"{shown} ({odd_characters_said(value)})"


def _json(value: Any) -> str:
    """Show a value as JSON (``null``, ``"text"``), short: an error message quotes it."""
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 60 else text[:57] + "..."
