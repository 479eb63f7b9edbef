"""The compiled fast path of :mod:`kistore.canonical`: orjson, where it provably agrees.

:func:`kistore.canonical.loads` and :func:`kistore.canonical.dumps` walk every value in
Python (hooks, pointer bookkeeping, number normalisation): about 70 us and 85 us for a
1 KB manifest. orjson (compiled) parses and writes JSON in a few microseconds, but it is
not RFC 8785 and not kistore's strict parser. So it is used only where its answer is
provably the exact one, and every other case goes to the exact path:

* :func:`loads_if_canonical` parses bytes only when orjson's re-encoding reproduces them
  byte for byte: such bytes are strict JSON (no duplicate key, whitespace, BOM, NaN, big
  integer or non-shortest number survives a byte-exact round trip) in canonical form.
* :func:`loads` parses any strict JSON text when orjson's value is provably the exact
  parser's: no escape beyond the short ones, as many object keys in the parsed value as
  in the text (so no duplicate), and no number the exact parser refuses or doubts.
* :func:`dumps` writes a value only when nothing orjson writes unlike RFC 8785 occurs
  in its output (see :data:`DOUBTS`), and no value in it is one the exact path refuses.

None from either means "take the exact path", never "invalid"; property tests hold both
to :mod:`kistore.canonical` and to the independent ``rfc8785`` package. orjson's number
layout is checked once at import (:func:`_writes_numbers_as_rfc8785`); any other layout
turns this path off.
"""

from __future__ import annotations

import re
from typing import Any

from . import canonical

try:  # compiled JSON (Rust); without it everything takes the exact path
    import orjson
except ImportError:  # pragma: no cover - the wheel is missing on this platform
    orjson = None  # type: ignore[assignment]

# Byte patterns of orjson's number output that RFC 8785 writes otherwise: an integral float
# ("1.0", "-0.0" and, from 1e16 on, "1e+16") is an integer in RFC 8785, and a fraction in
# [1e-6, 1e-5) is "1.5e-6" in orjson but "0.0000015" in RFC 8785. Inside an array or
# object every number is followed by one of ",]}". Strings holding these texts only send
# their document to the exact path.
DOUBTS = (b".0,", b".0]", b".0}", b"e+", b"e-6,", b"e-6]", b"e-6}")
_ENDS_AS_COMMA = bytes.maketrans(b"]}", b",,")
_FOUR_BYTE_UTF8 = re.compile(rb"[\xf0-\xff]")
_OPTIONS = 0 if orjson is None else (
    orjson.OPT_SORT_KEYS | orjson.OPT_STRICT_INTEGER | orjson.OPT_PASSTHROUGH_SUBCLASS
    | orjson.OPT_PASSTHROUGH_DATACLASS | orjson.OPT_PASSTHROUGH_DATETIME)


def _writes_numbers_as_rfc8785() -> bool:
    """Return True when the installed orjson writes numbers as :data:`DOUBTS` assumes.

    orjson's float layout has changed between releases; the doubts were worked out (and
    are property-tested) for orjson 3.13. Any other layout of these probes, one from each
    regime of ECMA-262 ``Number::toString``, turns the orjson path off.
    """
    if orjson is None:
        return False
    probes = (1e-21, 1.5e-7, 1e-7, 1e-6, 1.5e-6, 1e-5, 1.25e-5, 9.5e-5, 1e-4, 0.1, 123.456,
              1e15 + 0.5, 5e-324, 1.0, -0.0, 1e16, 1e21, 1.7976931348623157e308)
    for probe in probes:
        text = orjson.dumps([probe])
        if not any(doubt in text for doubt in DOUBTS):
            if text != f"[{canonical.es6_number(probe)}]".encode():
                return False
        elif not probe.is_integer() and not 1e-6 <= abs(probe) < 1e-5:
            return False  # a doubt where none is expected: another layout
    return True


AGREES = _writes_numbers_as_rfc8785()
"""Whether the fast path is on (orjson installed, with the number layout assumed here)."""


def _doubtful(data: bytes) -> bool:
    """Return True when orjson-written ``data`` may differ from its RFC 8785 form.

    Doubted: a number form of :data:`DOUBTS`; a 4-byte UTF-8 sequence (RFC 8785 §3.2.3
    orders keys by UTF-16 code units, orjson by code points: they differ only beyond
    U+FFFF); more than :data:`kistore.canonical.MAX_DEPTH` brackets (the depth limit is
    then checked by the exact path).
    """
    if data.count(b"{") + data.count(b"[") > canonical.MAX_DEPTH:
        return True
    if b"+" in data:  # "e+"; one byte is found by memchr, far faster than two
        return True
    ends_as_comma = data.translate(_ENDS_AS_COMMA)  # then 2 searches instead of 6
    if b".0," in ends_as_comma or b"e-6," in ends_as_comma:
        return True
    return not data.isascii() and _FOUR_BYTE_UTF8.search(data) is not None


def loads_if_canonical(data: bytes) -> Any:
    """Parse ``data`` with orjson when that proves it strict, canonical JSON; else None.

    Args:
        data: raw bytes.

    Returns:
        The value (JSON types only), exactly what :func:`kistore.canonical.loads` returns,
        when ``data`` starts with ``{`` or ``[``, orjson's re-encoding with sorted keys and
        integers within +/-(2**53 - 1) reproduces it exactly (which rules out whitespace,
        duplicate keys, unsorted keys, escapes RFC 8785 does not write, a byte-order mark,
        NaN, big integers and non-shortest numbers) and it is not :func:`_doubtful`.
        Else None: take the exact path (which also names the problem, if there is one).
    """
    if not AGREES or data[:1] not in (b"{", b"[") or _doubtful(data):
        return None
    try:
        value = orjson.loads(data)
        encoded = orjson.dumps(value, option=_OPTIONS)
    except (orjson.JSONDecodeError, orjson.JSONEncodeError):
        return None
    return value if encoded == data else None


# A JSON string, as the grammar has it; in text orjson accepted, scanning left to right
# finds exactly its strings. Replacing each by "" leaves the skeleton: numbers, literals,
# brackets, colons and commas, where a search cannot be fooled by a string's content.
_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"')
_KEY_END = re.compile(rb'"[ \t\n\r]*:')
# Numbers the exact parser refuses or that orjson might read otherwise: an exponent
# (1e-400 underflows to 0, 1e16 is an integer beyond 2**53 - 1), 16 or more integer digits
# (maybe beyond 2**53 - 1), 300 or more digits in one number (a fraction that underflows).
_DOUBTFUL_NUMBER = re.compile(rb"[0-9.][eE]|(?<![0-9.])[0-9]{16}|[0-9.]{300}")


def loads(data: bytes) -> Any:
    """Parse strict JSON with orjson when that provably gives the exact parser's value.

    Args:
        data: raw bytes of one JSON text whose first byte is ``{`` or ``[``.

    Returns:
        Exactly what :func:`kistore.canonical.loads` returns, or None (take the exact path,
        which also names any problem). Not None only when: orjson parses the bytes (which
        refuses a byte-order mark, invalid UTF-8, control characters in strings, NaN,
        leading zeros, trailing data and numbers beyond the double range); no ``\\u``
        escape occurs (lone surrogates); the text's skeleton (strings emptied) holds as many
        ``"":`` as the value has keys (a duplicate key would leave fewer in the value) and
        no :data:`_DOUBTFUL_NUMBER`; nesting is within :data:`kistore.canonical.MAX_DEPTH`.
    """
    if not AGREES or data[:1] not in (b"{", b"[") or b"\\u" in data:
        return None
    try:
        value = orjson.loads(data)
        keys = orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
    except (orjson.JSONDecodeError, orjson.JSONEncodeError):
        return None
    skeleton = _STRING.sub(b'""', data)
    if _DOUBTFUL_NUMBER.search(skeleton):
        return None
    if len(_KEY_END.findall(skeleton)) != _STRING.sub(b'""', keys).count(b'":'):
        return None
    if skeleton.count(b"{") + skeleton.count(b"[") > canonical.MAX_DEPTH and (
            canonical._too_deep(value)):
        return None
    return value


def dumps(value: Any) -> bytes | None:
    """Return the RFC 8785 bytes of a JSON object or array, or None for the exact path.

    Args:
        value: a ``dict`` or ``list`` of JSON values (anything else: None).

    Returns:
        ``kistore.canonical.dumps(value)``, computed by orjson, when the output is not
        :func:`_doubtful` and holds no ``null`` (orjson writes NaN and Infinity as null;
        the exact path refuses them). None when orjson refuses the value (an integer
        beyond +/-(2**53 - 1), a lone surrogate, a non-string key, a subclass of a JSON
        type, a type that is not JSON) or the output is doubtful.

    One deliberate difference: orjson writes a ``uuid.UUID`` as its string and an
    ``enum.Enum`` member as its value, where the exact path refuses both; kistore's
    values come from JSON parsing and never hold either.
    """
    if not AGREES or type(value) not in (dict, list):
        return None
    try:
        data = orjson.dumps(value, option=_OPTIONS, default=_not_json)
    except orjson.JSONEncodeError:
        return None
    if b"null" in data or _doubtful(data):
        return None
    return data


def _not_json(value: Any) -> Any:
    """Refuse a type orjson does not write itself (its default hook): take the exact path."""
    raise TypeError(type(value).__name__)
