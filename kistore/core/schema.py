"""JSON Schema validation of manifests (draft 2020-12), offline.

Owns loading ``schemas/*.json`` (shipped inside the wheel as the ``kistore.schemas``
package), resolving their ``$ref`` between each other without any network access, and
turning validation errors into :class:`~kistore.errors.SchemaError` findings that carry the
JSON Pointer (RFC 6901) of the offending value.

``format: date-time`` is enforced (RFC 3339, via ``rfc3339-validator``): python-jsonschema
ignores ``format`` unless a checker is registered, so one is registered explicitly here and
a missing checker is an import error rather than a silent pass.

Speed: a valid document is confirmed by ``jsonschema-rs`` (compiled, ~20 us a manifest
instead of ~5 ms) with the same schemas, registry and the same date-time checker; only a
document it rejects is run through python-jsonschema, which stays the single source of
every finding and of the final verdict (a document python-jsonschema accepts is accepted
even when the fast validator disagrees, e.g. on ``$`` before a final newline).
"""

from __future__ import annotations

import json
import re
from functools import cache
from importlib import resources
from importlib.resources.abc import Traversable
from typing import Any

from .canonical import escape_pointer
from .errors import SchemaError

API_VERSION = "kernelindex.dev/v1alpha1"
KINDS = ("Workload", "BenchmarkProtocol", "ExecutionEnvironment", "Implementation", "BenchmarkRun")
"""Every manifest kind, in dependency order (a run references the other four)."""

SCHEMA_BASE = "https://kernelindex.dev/schemas/v1alpha1/"


@cache
def _schema_dir() -> Traversable:
    """Return the installed ``kistore.schemas`` package, or ``schemas/`` beside the source."""
    try:
        return resources.files("kistore.schemas")
    except ModuleNotFoundError:  # running from the source tree: kistore/ next to schemas/
        return resources.files("kistore").joinpath("..", "schemas")


def schema_names() -> list[str]:
    """Return the file names of every shipped schema (``BenchmarkRun.json``, ...)."""
    return sorted(p.name for p in _schema_dir().iterdir() if p.name.endswith(".json"))


@cache
def load_schema(name: str) -> dict[str, Any]:
    """Return one shipped schema as a dict.

    Args:
        name: file name in ``schemas/``, e.g. ``"BenchmarkRun.json"``.

    Raises:
        FileNotFoundError: when no such schema ships with kistore.
    """
    text = _schema_dir().joinpath(name).read_text("utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema


@cache
def _validator(name: str) -> Any:
    # Lazy: jsonschema is slow to import and most commands never validate.
    import jsonschema
    import rfc3339_validator  # noqa: F401 - fail loudly here, not silently skip date-time
    from referencing import Registry, Resource

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
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


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


# UTC date-times of a year from 0001 whose day exists in every month (01-28): a subset of
# what rfc3339-validator accepts (a test checks it), so answering True changes no verdict.
_PLAIN_DATE_TIME = re.compile(
    r"(?!0000)[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|1[0-9]|2[0-8])T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]"
    r"(\.[0-9]{1,9})?Z")


@cache
def _fast_validator(name: str) -> Any:
    """Return the compiled ``jsonschema-rs`` validator for one schema (None: unavailable)."""
    try:
        # Lazy: the validator loads only when a document is validated (start-up).
        import jsonschema_rs
    except ImportError:  # pragma: no cover - the wheel is missing on this platform
        return None
    registry = jsonschema_rs.Registry(
        [(SCHEMA_BASE + n, load_schema(n)) for n in schema_names()]
    )
    return jsonschema_rs.Draft202012Validator(
        load_schema(name), registry=registry, validate_formats=True,
        formats={"date-time": _is_date_time}, offline=True,
    )


def fast_validator(kind: Any) -> Any:
    """Return the compiled ``jsonschema-rs`` validator of a kind's schema, or None.

    Its ``is_valid(document)`` answering True means :func:`check_manifest` finds nothing
    (the fast validator is never more lenient: a property test holds it to that).

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
    """
    fast = _fast_validator(schema)
    if fast is not None and fast.is_valid(document):
        return []
    findings = []
    for error in _validator(schema).iter_errors(document):
        pointer = "".join(f"/{escape_pointer(str(p))}" for p in error.absolute_path)
        findings.extend(_unexpected_keys(error, pointer, file) or _missing_key(error, pointer, file)
                        or [SchemaError(describe_error(error), file=file, pointer=pointer)])
    return sorted(findings, key=lambda f: (f.pointer or "", f.message))


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
    return [SchemaError(f"unexpected key {key!r} in {where}{also}: remove it or correct its "
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
        found = "it has none" if "kind" not in document else f"found {_json(kind)}"
        return [SchemaError(
            f"a manifest's kind must be one of {', '.join(KINDS)}; {found}", file=file,
            pointer="/kind")]
    return check_document(document, f"{kind}.json", file=file)


def describe_error(error: Any) -> str:
    """Say in one line which field is wrong and what was expected, in JSON's words.

    Args:
        error: a ``jsonschema.ValidationError``.

    Returns:
        e.g. ``field 'metadata': expected an object, found null``.
    """
    field = error.absolute_path[-1] if error.absolute_path else None
    message: str = error.message
    if error.validator == "format":
        message = f"{error.instance!r} is not an RFC 3339 {error.validator_value}"
        message += " (e.g. 2026-07-10T06:41:58.611Z)"
    elif error.validator == "pattern" and isinstance(error.instance, str):
        message = f"{error.instance!r} does not match {error.validator_value!r}"
    elif error.validator == "type":  # JSON's words, not Python's ("None is not of type")
        wanted = error.validator_value
        wanted = wanted if isinstance(wanted, list) else [wanted]
        message = f"expected {' or '.join(_A[w] if w in _A else w for w in wanted)}, found " \
                  f"{_json_type(error.instance)}"
    elif error.validator == "const":
        message = f"expected {_json(error.validator_value)}, found {_json(error.instance)}"
    elif error.validator == "enum":
        message = f"expected one of {', '.join(_json(v) for v in error.validator_value)}, " \
                  f"found {_json(error.instance)}"
    if field is not None and not message.startswith(f"field {field!r}"):
        message = f"field {field!r}: {message}"
    return message


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


def _json(value: Any) -> str:
    """Show a value as JSON (``null``, ``"text"``), short: an error message quotes it."""
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 60 else text[:57] + "..."
