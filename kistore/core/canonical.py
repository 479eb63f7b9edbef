"""Canonical bytes: the strict JSON parser and the RFC 8785 (JCS) serialiser.

This module is the only producer of bytes that kistore hashes or signs. It owns two things:

* :func:`loads` -- a strict parser. Beyond RFC 8259 it rejects what I-JSON (RFC 7493) and
  RFC 8785 rule out: duplicate object keys, ``NaN``/``Infinity``, numbers outside the
  IEEE 754 double range, integers outside +/-(2**53 - 1), invalid UTF-8, lone surrogates,
  a byte-order mark, empty input, and nesting deeper than :data:`MAX_DEPTH`.
* :func:`dumps` -- the canonical form of a JSON value, byte-for-byte equal to RFC 8785
  output. The common case is encoded by ``canonicaljson`` (C speed); the cases where
  ``canonicaljson`` differs from RFC 8785 are normalised or encoded exactly here:

  - integral floats (``1.0``, ``-0.0``) become integers (RFC 8785 §3.2.2.3 writes ``1``/``0``);
  - floats that Python writes with an exponent (``1e-05``) get ES6 ``Number.toString`` text
    (``0.00001``, ``1e-7``), RFC 8785 §3.2.2.3;
  - object keys are sorted by UTF-16 code units, not code points (RFC 8785 §3.2.3), which
    differs only when keys hold characters beyond U+FFFF.

Parsing runs ``json`` (C speed) with hooks that detect every rejected construct; only when a
document is rejected does a slow, exact scanner re-read it to name the line, column and
JSON Pointer (RFC 6901) of the offending value. Nothing here knows about git or files on disk.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import Any

import canonicaljson

from . import canonical_fast as _fast
from . import layout
from ._jsonrules import MAX_DEPTH, MAX_SAFE_INTEGER, es6_number, too_deep
from .errors import CanonicalFormError, EncodingError, ParseError, TrailingDataError, shorten

__all__ = [
    "MAX_DEPTH",
    "MAX_SAFE_INTEGER",
    "dumps",
    "es6_number",
    "escape_pointer",
    "is_canonical",
    "loads",
    "loads_if_canonical",
    "pointer_tokens",
    "unescape_pointer",
]

_BOM = b"\xef\xbb\xbf"
_encode_string: Callable[[str], str] = json.encoder.encode_basestring


class _Reject(Exception):
    """Raised by the fast parser's hooks; the slow scanner then finds where and why."""


def _reject_constant(name: str) -> Any:
    raise _Reject(name)


def _parse_int(text: str) -> int:
    if len(text) > 17:  # beyond 2**53 - 1 for sure; and int() refuses 4,300+ digits
        raise _Reject(text)
    value = int(text)
    if -MAX_SAFE_INTEGER <= value <= MAX_SAFE_INTEGER:
        return value
    raise _Reject(text)


def _parse_float(text: str) -> float:
    value = float(text)
    if value == 0 and _underflows(text):
        raise _Reject(text)
    if math.isfinite(value) and not (value.is_integer() and abs(value) > MAX_SAFE_INTEGER):
        return value
    raise _Reject(text)


def _underflows(text: str) -> bool:
    """Return True for a nonzero literal (``1e-400``) that a double rounds to 0.

    Such a number would be silently stored as 0, with the same digest as a real 0.
    """
    mantissa = text.lower().partition("e")[0]
    return any(c in "123456789" for c in mantissa)


def _object_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        raise _Reject("duplicate key")
    return obj


_decoder = json.JSONDecoder(
    object_pairs_hook=_object_pairs,
    parse_constant=_reject_constant,
    parse_int=_parse_int,
    parse_float=_parse_float,
)


LARGER_UNIT_ADVICE = "write it in a larger unit, or as a string where the schema takes one"
"""What to write for a number JSON readers disagree on (beyond 2**53)."""

NON_FINITE_ADVICE = "write a number, or null or leave the field out where the schema allows it"
"""What to write for ``NaN``/``Infinity`` when the schema at its pointer is not known here
(``kistore add`` asks it: :func:`kistore.store.inputs.parse_manifests`; reviewer r90 F8:
"write null or leave the field out" was refused next for a field the schema types as a
number)."""


def loads(data: bytes, *, file: str = "-") -> Any:
    """Parse strict JSON.

    Args:
        data: the raw bytes of one JSON text (UTF-8, no byte-order mark).
        file: name used in error messages (a path, or ``-`` for stdin).

    Returns:
        The value: ``dict``, ``list``, ``str``, ``int``, ``float``, ``bool`` or ``None``.
        Numbers with a fraction or exponent are ``float`` (``1.0`` stays ``1.0`` here;
        :func:`dumps` writes it as ``1``).

    Raises:
        ParseError: for empty input, a byte-order mark, invalid UTF-8, a syntax error,
            a duplicate object key, ``NaN``/``Infinity``, a number outside the double
            range, an integer outside +/-(2**53 - 1), a lone surrogate escape, or nesting
            deeper than :data:`MAX_DEPTH`. The error names the file, line, column and
            JSON Pointer of the offending value.
    """
    value = _fast.loads(data)
    return value if value is not None else _loads_exact(data, file)


def _loads_exact(data: bytes, file: str) -> Any:
    """:func:`loads` without the compiled fast path (every check, every error message)."""
    if data.startswith(_BOM):
        raise ParseError(
            "byte-order mark at start of file; save the file as UTF-8 without BOM",
            file=file, pointer="", line=1, column=1,
        )
    if b"\x00" in data[:2]:  # JSON text never holds a NUL byte; UTF-16 text opens with one
        _refuse_utf16(data, file)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise _invalid_utf8(data, e.start, file) from None
    if not text.strip():
        raise ParseError(_empty(file), file=file, pointer="")
    try:
        value = _decoder.decode(text)
    except (_Reject, json.JSONDecodeError, RecursionError) as e:
        _Scanner(text, file).parse()  # raises the precise error
        raise ParseError(f"rejected JSON ({e})", file=file) from None
    # nesting can only pass MAX_DEPTH with more than MAX_DEPTH opening brackets in the text
    deep = text.count("{") + text.count("[") > MAX_DEPTH and too_deep(value)
    if ("\\u" in text and _has_surrogate_escape(text)) or deep:
        _Scanner(text, file).parse()
    return value


def _empty(file: str) -> str:
    """Say that ``file`` holds no JSON value, and which one it should hold.

    A stored metadata file or object file is not a manifest (reviewer break96 L1: an
    emptied metadata file was told "give a manifest"); any other input is one.
    """
    if file.startswith(layout.METADATA_DIR + "/"):
        return ("empty file; expected one JSON value: the manifest's metadata (a JSON object "
                'holding at least its "name")')
    if file.startswith(layout.OBJECTS_DIR + "/"):
        return ("empty file; expected one JSON value: the manifest's object (a JSON object "
                "of apiVersion, kind and spec)")
    return "empty input; expected one JSON value: give a manifest (a JSON object)"


def _refuse_utf16(data: bytes, file: str) -> None:
    """Raise the error for UTF-16 text saved without a byte-order mark, when ``data`` is.

    JSON text opens with an ASCII character (``{``, ``[``, a space), which UTF-16 writes
    as that byte and a 0 (little-endian) or a 0 and that byte (big-endian): every other
    byte of the first few is 0. Otherwise nothing is raised here (the NUL is reported
    where it is, as any character JSON does not allow).

    Raises:
        ParseError: ``data`` looks like UTF-16 without a byte-order mark.
    """
    head = data[:64]
    for order, zeros, chars in (("little", head[1::2], head[0::2]),
                                ("big", head[0::2], head[1::2])):
        if len(head) >= 4 and not zeros.strip(b"\x00") and b"\x00" not in chars:
            raise ParseError(
                f"the file is UTF-16 ({order}-endian, without a byte-order mark: every "
                "other byte is 0): save it as UTF-8, e.g. `iconv -f UTF-16"
                f"{'LE' if order == 'little' else 'BE'} -t UTF-8`",
                file=file, pointer="", line=1, column=1)


def _invalid_utf8(data: bytes, start: int, file: str) -> EncodingError:
    """Return the error for the invalid UTF-8 byte at ``data[start]``: where, and what to do.

    The text is scanned with each undecodable byte standing for itself (Python's
    ``surrogateescape``), so the error names the JSON Pointer of the value holding it.
    """
    line, column = _line_column(data[:start].decode("utf-8"))
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        fix = "the file is UTF-16 (it starts with a UTF-16 byte-order mark): save it as UTF-8"
    else:
        fix = ("the file is not UTF-8 (Latin-1 or Windows-1252?): re-encode it as UTF-8, "
               "e.g. `iconv -f LATIN1 -t UTF-8`")
    pointer = None
    try:
        _Scanner(data.decode("utf-8", "surrogateescape"), file).parse()
    except ParseError as e:  # the scanner stops at the byte, or at a syntax error before it
        if (e.line, e.column) == (line, column):
            pointer = e.pointer
    return EncodingError(data[start], start, fix, file=file, pointer=pointer, line=line,
                         column=column)


def _has_surrogate_escape(text: str) -> bool:
    lowered = text.lower()
    return any(f"\\ud{c}" in lowered for c in "89abcdef")


def dumps(value: Any) -> bytes:
    """Return the RFC 8785 canonical bytes of a JSON value.

    Args:
        value: ``dict`` (``str`` keys), ``list``/``tuple``, ``str``, ``int``, ``float``,
            ``bool`` or ``None``, nested at most :data:`MAX_DEPTH` deep.

    Returns:
        UTF-8 bytes: no insignificant whitespace, keys sorted by UTF-16 code units,
        numbers in ES6 ``Number.toString`` form, strings escaped as RFC 8785 §3.2.2.2 says.

    Raises:
        CanonicalFormError: for a value that has no canonical form kistore accepts
            (NaN/Infinity, an integer outside +/-(2**53 - 1), a lone surrogate, a non-string
            key, a type that is not JSON, or nesting deeper than :data:`MAX_DEPTH`),
            naming the JSON Pointer of the value.
    """
    fast = _fast.dumps(value)
    return fast if fast is not None else _dumps_exact(value)


def _dumps_exact(value: Any) -> bytes:
    """:func:`dumps` without the compiled fast path (every value, every refusal)."""
    exact = [False]
    try:
        normal = _quick(value, 1, exact)
    except _Slow:  # something to refuse: the pointer-tracking walk names where and why
        exact = [False]
        normal = _normalise(value, "", 1, exact)
    if exact[0]:
        text = _encode_exact(normal)
        try:
            return text.encode("utf-8")
        except UnicodeEncodeError:
            _find_lone_surrogate(normal, "")
            raise
    try:
        return canonicaljson.encode_canonical_json(normal)
    except UnicodeEncodeError:
        _find_lone_surrogate(normal, "")
        raise


def is_canonical(data: bytes) -> bool:
    """Return True when ``data`` is strict JSON already in RFC 8785 canonical form.

    Args:
        data: raw bytes.

    Returns:
        ``dumps(loads(data)) == data``; False (never an exception) for bytes that do not parse.
    """
    if _fast.loads_if_canonical(data) is not None:
        return True
    try:
        return dumps(loads(data)) == data
    except (ParseError, CanonicalFormError):
        return False


def loads_if_canonical(data: bytes, *, file: str = "-") -> Any:
    """Parse ``data`` and return its value when the bytes are in RFC 8785 canonical form.

    The one test of canonical bytes: the compiled proof first
    (:func:`kistore.core.canonical_fast.loads_if_canonical`), else ``dumps(loads(data))``
    compared with ``data``.

    Args:
        data: raw bytes.
        file: name used in error messages.

    Returns:
        The value when ``data`` is canonical; None when it is strict JSON in another form
        (or a value with no canonical form), and for a canonical ``null`` (callers read
        objects; :func:`is_canonical` answers for any value).

    Raises:
        ParseError: ``data`` is not strict JSON (see :func:`loads`).
    """
    value = _fast.loads_if_canonical(data)
    if value is not None:
        return value
    value = loads(data, file=file)
    try:
        return value if dumps(value) == data else None
    except CanonicalFormError:
        return None


class _Slow(Exception):
    """Raised by :func:`_quick` for anything it does not handle; :func:`_normalise` then runs."""


def _quick(value: Any, depth: int, exact: list[bool]) -> Any:
    """Do what :func:`_normalise` does for valid values, without building JSON Pointers.

    The bulk add path canonicalises every manifest twice (object and metadata); building a
    pointer string for every key dominated. Anything to refuse (or a subclass of a JSON
    type) raises :class:`_Slow`, and :func:`_normalise` redoes the walk to report it.
    """
    kind = type(value)
    if kind is str or kind is bool or value is None:
        return value
    if kind is int:
        if -MAX_SAFE_INTEGER <= value <= MAX_SAFE_INTEGER:
            return value
        raise _Slow
    if kind is float:
        if value.is_integer():
            if abs(value) <= MAX_SAFE_INTEGER:
                return int(value)  # 1.0 -> 1, -0.0 -> 0, as RFC 8785 writes them
            raise _Slow
        if not math.isfinite(value):
            raise _Slow
        if abs(value) < 1e-4:  # Python writes these with an exponent, ES6 may not
            exact[0] = True
        return value
    if depth > MAX_DEPTH:
        raise _Slow
    if kind is dict:
        out = {}
        for key, item in value.items():
            if type(key) is not str:
                raise _Slow
            if not key.isascii() and max(key) > "\uffff":
                exact[0] = True  # UTF-16 order may differ from code-point order
            out[key] = _quick(item, depth + 1, exact)
        return out
    if kind is list or kind is tuple:
        return [_quick(item, depth + 1, exact) for item in value]
    raise _Slow


def _normalise(value: Any, pointer: str, depth: int, exact: list[bool]) -> Any:
    """Copy ``value`` into the form whose canonicaljson bytes are RFC 8785 bytes."""
    if isinstance(value, str) or value is None or value is True or value is False:
        return value
    if isinstance(value, int):
        if -MAX_SAFE_INTEGER <= value <= MAX_SAFE_INTEGER:
            return int(value)
        raise CanonicalFormError(
            f"integer {shorten(str(value))} is outside +/-(2**53 - 1)",
            advice=LARGER_UNIT_ADVICE,
            pointer=pointer
        )
    if isinstance(value, float):
        if not math.isfinite(value):
            raise CanonicalFormError(f"{value} is not a JSON number", advice=NON_FINITE_ADVICE,
                                     pointer=pointer)
        if value.is_integer():
            if abs(value) <= MAX_SAFE_INTEGER:
                return int(value)  # 1.0 -> 1, -0.0 -> 0, as RFC 8785 writes them
            raise CanonicalFormError(
                f"number {shorten(repr(value))} is whole and outside +/-(2**53 - 1), where "
                "JSON readers disagree on its value (RFC 7493)",
                advice=LARGER_UNIT_ADVICE,
                pointer=pointer,
            )
        if abs(value) < 1e-4:  # Python writes these with an exponent, ES6 may not
            exact[0] = True
        return float(value)
    if depth > MAX_DEPTH:
        raise CanonicalFormError(f"nesting deeper than {MAX_DEPTH} levels; flatten the "
                                 f"document to at most {MAX_DEPTH} levels", pointer=pointer)
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise CanonicalFormError(f"object key {key!r} is not a string", pointer=pointer)
            if not key.isascii() and max(key) > "\uffff":
                exact[0] = True  # UTF-16 order may differ from code-point order
            out[key] = _normalise(item, f"{pointer}/{escape_pointer(key)}", depth + 1, exact)
        return out
    if isinstance(value, list | tuple):
        return [
            _normalise(item, f"{pointer}/{i}", depth + 1, exact) for i, item in enumerate(value)
        ]
    raise CanonicalFormError(
        f"{type(value).__name__} is not a JSON type", pointer=pointer
    )


def _encode_exact(value: Any) -> str:
    """RFC 8785 text of a normalised value (the slow path for exotic numbers and keys)."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, str):
        return _encode_string(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return es6_number(value)
    if isinstance(value, list):
        return "[" + ",".join(_encode_exact(item) for item in value) + "]"
    keys = sorted(value, key=lambda k: k.encode("utf-16-be", "surrogatepass"))
    return "{" + ",".join(f"{_encode_string(k)}:{_encode_exact(value[k])}" for k in keys) + "}"


def escape_pointer(token: str) -> str:
    """Escape one token for an RFC 6901 JSON Pointer (``~`` -> ``~0``, ``/`` -> ``~1``).

    Args:
        token: any text (an object's key, an array's index as digits).

    Returns:
        The reference token: ``a/b~c`` -> ``a~1b~0c``; :func:`unescape_pointer` undoes it.
    """
    return token.replace("~", "~0").replace("/", "~1")


def unescape_pointer(token: str) -> str:
    """Unescape one reference token of an RFC 6901 JSON Pointer: the text it names.

    RFC 6901 section 4's order: ``~1`` -> ``/`` first, then ``~0`` -> ``~`` (the other
    order reads ``~01``, the key ``~1``, as ``/``). The one place kistore unescapes a token
    (reviewer r91: ``check/_policy`` and ``query/policy`` each did it by hand).

    Args:
        token: one token, escaped (``GFLOP~1s``); no ``/`` in it.

    Returns:
        The text (``GFLOP/s``); :func:`escape_pointer` of it is ``token`` again when
        every ``~`` of ``token`` is followed by ``0`` or ``1`` (the RFC's only escapes).
    """
    return token.replace("~1", "/").replace("~0", "~")


def pointer_tokens(pointer: str) -> list[str]:
    """Return the unescaped reference tokens of an RFC 6901 JSON Pointer.

    Args:
        pointer: ``""`` (the whole document) or ``/`` followed by tokens split at ``/``
            (``/families/a~1b/unit``).

    Returns:
        The texts each token names (``["families", "a/b", "unit"]``; ``[]`` for ``""``).
    """
    return [unescape_pointer(token) for token in pointer.split("/")[1:]]


def _find_lone_surrogate(value: Any, pointer: str) -> None:
    """Raise CanonicalFormError at the first string (or key) holding a lone surrogate."""
    def bad(s: str) -> bool:
        try:
            s.encode("utf-8")
        except UnicodeEncodeError:
            return True
        return False

    if isinstance(value, str) and bad(value):
        raise CanonicalFormError("string holds a lone UTF-16 surrogate; remove it, or pair "
                                 "a high surrogate with a low one", pointer=pointer)
    if isinstance(value, dict):
        for key, item in value.items():
            if bad(key):
                raise CanonicalFormError("key holds a lone UTF-16 surrogate; remove it, or "
                                         "pair a high surrogate with a low one",
                                         pointer=pointer)
            _find_lone_surrogate(item, f"{pointer}/{escape_pointer(key)}")
    elif isinstance(value, list):
        for i, item in enumerate(value):
            _find_lone_surrogate(item, f"{pointer}/{i}")


def _line_column(text_before: str) -> tuple[int, int]:
    """1-based line and column of the position just after ``text_before``."""
    return text_before.count("\n") + 1, len(text_before) - text_before.rfind("\n")


def pointer_position(data: bytes, pointer: str) -> tuple[int, int] | None:
    """Return where the value at a JSON Pointer starts in a JSON text: 1-based line, column.

    What a problem found after parsing (a warning of ``add`` on a run's value, KI221) names
    beside the pointer, as a parse error does (reviewer break97 L7: a ``.json`` file's
    warning named no line, a JSON Lines file's did).

    Args:
        data: one JSON text that :func:`loads` accepts (UTF-8).
        pointer: an RFC 6901 pointer into it, tokens escaped (``/spec/a~1b``).

    Returns:
        ``(line, column)`` of the value's first character (columns count characters, as
        :class:`ParseError`'s do); None when the text holds no such value or does not parse.
        Scans the text once, up to the value (the exact reader's pace: call it for a problem
        found, not for every value).
    """
    try:
        _Finder(data.decode("utf-8"), pointer).parse()
    except _Found as found:
        return _line_column(found.text_before)
    except (ParseError, UnicodeDecodeError, RecursionError):
        return None
    return None


class _Found(Exception):
    """Raised by :class:`_Finder` at the value it looks for."""

    def __init__(self, text_before: str) -> None:
        super().__init__()
        self.text_before = text_before


class _Scanner:
    """Exact, slow, strict JSON reader used only to explain a rejection.

    It accepts exactly what :func:`loads` accepts and raises :class:`ParseError` with the
    line, column and JSON Pointer of the first problem.
    """

    _WS = " \t\n\r"

    def __init__(self, text: str, file: str) -> None:
        self.text = text
        self.file = file
        self.pos = 0

    def fail(self, message: str, pointer: str | None, pos: int | None = None, *,
             advice: str = "") -> None:
        at = self.pos if pos is None else pos
        line, column = _line_column(self.text[:at])
        raise ParseError(message, advice=advice, file=self.file, pointer=pointer, line=line,
                         column=column)

    def parse(self) -> None:
        self.skip_ws()
        self.value("", 1)
        self.skip_ws()
        if self.pos != len(self.text):
            line, column = _line_column(self.text[: self.pos])
            raise TrailingDataError(
                "extra data after the JSON value; a JSON text holds one value: remove what "
                "follows it", file=self.file, line=line, column=column)

    def skip_ws(self) -> None:
        text, pos = self.text, self.pos
        while pos < len(text) and text[pos] in self._WS:
            pos += 1
        self.pos = pos

    def peek(self) -> str:
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def value(self, pointer: str, depth: int) -> None:
        c = self.peek()
        if c in "{[" and depth > MAX_DEPTH:
            self.fail(f"nesting deeper than {MAX_DEPTH} levels; flatten the document to at "
                      f"most {MAX_DEPTH} levels", pointer)
        if c == "{":
            self.object(pointer, depth)
        elif c == "[":
            self.array(pointer, depth)
        elif c == '"':
            self.string(pointer)
        elif c == "-" or c.isdigit():
            self.number(pointer)
        else:
            for literal in ("true", "false", "null"):
                if self.text.startswith(literal, self.pos):
                    self.pos += len(literal)
                    return
            for bad in ("NaN", "Infinity", "-Infinity"):
                if self.text.startswith(bad, self.pos):
                    self.fail(f"{bad} is not JSON", pointer, advice=NON_FINITE_ADVICE)
            if not c:
                self.fail("unexpected end of input; expected a value: the text is cut off "
                          "here, complete it", pointer)
            after = self.text[:self.pos].rstrip(" \t\n\r")[-1:]  # what the value follows
            self.fail(f"unexpected character {c!r}; expected a value{_value_fix(c, after)}",
                      pointer)

    def object(self, pointer: str, depth: int) -> None:
        self.pos += 1
        seen: set[str] = set()
        self.skip_ws()
        if self.peek() == "}":
            self.pos += 1
            return
        while True:
            self.skip_ws()
            if self.peek() != '"':
                self.fail(f"expected a string object key{_key_fix(self.peek())}", pointer)
            start = self.pos
            key = self.string(pointer)
            child = f"{pointer}/{escape_pointer(key)}"
            if key in seen:
                self.fail(f"duplicate object key {shorten(repr(key))}; a key may appear once: "
                          "delete one "
                          "of them", child, start)
            seen.add(key)
            self.skip_ws()
            if self.peek() != ":":
                self.fail("expected ':' after object key; write \"key\": value", child)
            self.pos += 1
            self.skip_ws()
            self.value(child, depth + 1)
            self.skip_ws()
            c = self.peek()
            self.pos += 1
            if c == "}":
                return
            if c != ",":
                self.fail(f"expected ',' or '}}' in object{_separator_fix(c, '}')}", pointer,
                          self.pos - 1)

    def array(self, pointer: str, depth: int) -> None:
        self.pos += 1
        self.skip_ws()
        if self.peek() == "]":
            self.pos += 1
            return
        index = 0
        while True:
            self.skip_ws()
            self.value(f"{pointer}/{index}", depth + 1)
            self.skip_ws()
            c = self.peek()
            self.pos += 1
            if c == "]":
                return
            if c != ",":
                self.fail(f"expected ',' or ']' in array{_separator_fix(c, ']')}", pointer,
                          self.pos - 1)
            index += 1

    def string(self, pointer: str) -> str:
        start = self.pos
        self.pos += 1
        out: list[str] = []
        text = self.text
        while True:
            if self.pos >= len(text):
                self.fail("unterminated string; close it with '\"'", pointer, start)
            c = text[self.pos]
            if c == '"':
                self.pos += 1
                return "".join(out)
            if c < " ":
                escape = _SHORT_ESCAPES.get(c, f"\\u{ord(c):04x}")
                self.fail(f"unescaped control character U+{ord(c):04X} in string; write it "
                          f"as {escape}", pointer)
            if "\udc80" <= c <= "\udcff":  # an undecodable byte (see _invalid_utf8)
                self.fail("invalid UTF-8", pointer)
            if c != "\\":
                out.append(c)
                self.pos += 1
                continue
            esc = text[self.pos + 1 : self.pos + 2]
            simple = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n",
                      "r": "\r", "t": "\t"}
            if esc in simple:
                out.append(simple[esc])
                self.pos += 2
                continue
            if esc != "u":
                self.fail(f"invalid escape '\\{esc}' in string; the escapes are \\\" \\\\ "
                          "\\/ \\b \\f \\n \\r \\t \\uXXXX: write a backslash as \\\\",
                          pointer)
            unit = self.hex4(self.pos + 2, pointer)
            if 0xDC00 <= unit <= 0xDFFF:
                self.fail(f"lone low surrogate \\u{unit:04x} in string{_SURROGATE_FIX}",
                          pointer)
            if 0xD800 <= unit <= 0xDBFF:
                low = -1
                if text.startswith("\\u", self.pos + 6):
                    low = self.hex4(self.pos + 8, pointer)
                if not 0xDC00 <= low <= 0xDFFF:
                    self.fail(f"lone high surrogate \\u{unit:04x} in string{_SURROGATE_FIX}",
                              pointer)
                out.append(chr(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)))
                self.pos += 12
                continue
            out.append(chr(unit))
            self.pos += 6

    def hex4(self, at: int, pointer: str) -> int:
        digits = self.text[at : at + 4]
        if len(digits) != 4 or any(c not in "0123456789abcdefABCDEF" for c in digits):
            self.fail("invalid \\u escape; expected 4 hex digits, as in \\u00e9", pointer,
                      at)
        return int(digits, 16)

    def number(self, pointer: str) -> None:
        text, start = self.text, self.pos
        end = start + (text[start] == "-")
        if text.startswith("Infinity", end):
            self.fail("-Infinity is not JSON", pointer, advice=NON_FINITE_ADVICE)
        int_start = end
        while end < len(text) and text[end].isdigit():
            end += 1
        if end == int_start or (text[int_start] == "0" and end - int_start > 1):
            self.fail("invalid number (no digits, or a leading zero); write 7 not 07, 0.5 "
                      "not .5, and an id with leading zeros as a string", pointer, start)
        is_float = False
        if text[end : end + 1] == ".":
            is_float, frac = True, end + 1
            end = frac
            while end < len(text) and text[end].isdigit():
                end += 1
            if end == frac:
                self.fail("invalid number: digits expected after '.'; write 1.0 or 1, not "
                          "1.", pointer, start)
        if text[end : end + 1] in ("e", "E"):
            is_float = True
            end += 1 + (text[end + 1 : end + 2] in ("+", "-"))
            exp = end
            while end < len(text) and text[end].isdigit():
                end += 1
            if end == exp:
                self.fail("invalid number: digits expected in exponent; write 1e5, not 1e",
                          pointer, start)
        literal = text[start:end]
        self.pos = end
        quoted = shorten(literal)
        try:
            _parse_float(literal) if is_float else _parse_int(literal)
        except _Reject:
            if is_float and float(literal) == 0:
                self.fail(f"number {quoted} is too small for an IEEE 754 double (it would "
                          "round to 0)", pointer, start, advice="write 0 or store it as a string")
            if is_float and math.isfinite(float(literal)):
                self.fail(
                    f"number {quoted} is whole and outside +/-(2**53 - 1), where JSON "
                    "readers disagree on its value (RFC 7493)", pointer, start,
                    advice=LARGER_UNIT_ADVICE,
                )
            if is_float:
                self.fail(f"number {quoted} is outside the IEEE 754 double range (expected "
                          "at most 1.7976931348623157e308 either side of 0)", pointer, start,
                          advice=LARGER_UNIT_ADVICE)
            self.fail(f"integer {quoted} is outside +/-(2**53 - 1)", pointer, start,
                      advice=LARGER_UNIT_ADVICE)


_SHORT_ESCAPES = {"\n": "\\n", "\t": "\\t", "\r": "\\r", "\b": "\\b", "\f": "\\f"}
"""Control characters RFC 8259 lets a string write as a two-character escape."""

_SURROGATE_FIX = ("; a character beyond U+FFFF is escaped as a high then a low surrogate "
                  "(\\ud83d\\ude00), or written as itself")


def _value_fix(c: str, after: str = ",") -> str:
    """Return what to do about ``c`` where a value should start (text to append).

    ``after`` is the last non-whitespace character before it (``:`` after a key).
    """
    if c in "]}":
        return (": a key needs a value after its colon (null if there is none)"
                if after == ":" else ": remove the trailing comma before it")
    if c == "'":
        return ": strings are written in double quotes"
    if "\udc80" <= c <= "\udcff":
        return ""  # an undecodable byte: replaced by the invalid UTF-8 message
    return (": a value is an object, array, string in double quotes, number, true, false "
            "or null")


def _key_fix(c: str) -> str:
    """Return what to do where an object key should start and ``c`` is found."""
    if c == "}":
        return ": remove the trailing comma before '}'"
    if not c:
        return ": the text is cut off inside an object, complete it"
    return ": write the key in double quotes"


def _separator_fix(c: str, close: str) -> str:
    """Return what to do where ``,`` or ``close`` should follow a member and ``c`` is."""
    if not c:
        return f": the text is cut off, complete it or close with '{close}'"
    return f": add the missing comma before this, or close with '{close}'"


class _Finder(_Scanner):
    """:class:`_Scanner` stopping at the value a JSON Pointer names (:func:`pointer_position`)."""

    def __init__(self, text: str, pointer: str) -> None:
        super().__init__(text, "-")
        self.target = pointer

    def value(self, pointer: str, depth: int) -> None:
        if pointer == self.target:
            raise _Found(self.text[:self.pos])
        super().value(pointer, depth)
