"""The compiled fast path of :mod:`kistore.core.canonical`: orjson, where it provably agrees.

:func:`kistore.core.canonical.loads` and :func:`kistore.core.canonical.dumps` walk every value in
Python (hooks, pointer bookkeeping, number normalisation): about 70 us and 85 us for a
1 KB manifest. orjson (compiled) parses and writes JSON in a few microseconds, but it is
not RFC 8785 and not kistore's strict parser. So it is used only where its answer is
provably the exact one, and every other case goes to the exact path:

* :func:`loads_if_canonical` parses bytes only when orjson's re-encoding reproduces them
  byte for byte: such bytes are strict JSON (no duplicate key, whitespace, BOM, NaN, big
  integer or non-shortest number survives a byte-exact round trip) in canonical form.
* :func:`loads` parses any strict JSON text when orjson's value is provably the exact
  parser's: no escape beyond the short ones, as many keys in the value as in the text
  (so no duplicate), and no number the exact parser refuses or orjson may read otherwise.
* :func:`dumps` writes a value only when nothing orjson writes unlike RFC 8785 occurs
  in its output (see :data:`DOUBTS`), and no value in it is one the exact path refuses.

None from either means "take the exact path", never "invalid"; property tests hold both
to :mod:`kistore.core.canonical` and to the independent ``rfc8785`` package. orjson's number
layout is checked once at import (:func:`_writes_numbers_as_rfc8785`); any other layout
turns this path off.
"""

from __future__ import annotations

import functools
import json
import re
from typing import Any

from ._jsonrules import MAX_DEPTH, es6_number, too_deep

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
            if text != f"[{es6_number(probe)}]".encode():
                return False
        elif not probe.is_integer() and not 1e-6 <= abs(probe) < 1e-5:
            return False  # a doubt where none is expected: another layout
    return True


AGREES = _writes_numbers_as_rfc8785()
"""Whether the fast path is on (orjson installed, with the number layout assumed here)."""


def _doubtful(data: bytes, *, integral_floats_ok: bool = False) -> bool:
    """Return True when orjson-written ``data`` may differ from its RFC 8785 form.

    Doubted: a number form of :data:`DOUBTS` (integral floats, ``12.0``, only unless
    ``integral_floats_ok``: the caller rewrites them); a 4-byte UTF-8 sequence (RFC 8785 §3.2.3
    orders keys by UTF-16 code units, orjson by code points: they differ only beyond
    U+FFFF); more than :data:`kistore.core.canonical.MAX_DEPTH` brackets (the depth limit is
    then checked by the exact path).
    """
    if data.count(b"{") + data.count(b"[") > MAX_DEPTH:
        return True
    if b"+" in data:  # "e+"; one byte is found by memchr, far faster than two
        return True
    ends_as_comma = data.translate(_ENDS_AS_COMMA)  # then 2 searches instead of 6
    if (b".0," in ends_as_comma and not integral_floats_ok) or b"e-6," in ends_as_comma:
        return True
    return not data.isascii() and _FOUR_BYTE_UTF8.search(data) is not None


def loads_lenient(data: bytes) -> Any:
    """Parse any JSON text, orjson first; the standard parser takes what orjson refuses.

    For files whose bytes are not being judged, only read for a field or two (a kind, a
    name): orjson is a few times faster, and the standard library still reads what orjson
    refuses (a lone surrogate escape ``"\\ud800"``, a number past a double's range such as
    ``1e400``, which it reads as ``inf``; and ``NaN``, ``Infinity``, which are not JSON), so
    both accept the same files. An integer outside 64 bits (below ``-2**63`` or above
    ``2**64 - 1``) orjson does not refuse: it reads it as a float, rounded (``2**64`` gives
    ``1.8446744073709552e+19``), where the standard parser gives the exact int; a caller
    that needs such a number exact must not use this. Not RFC 8785 and not strict:
    :func:`loads` and :func:`kistore.core.canonical.loads` are.

    Args:
        data: raw bytes (UTF-8; the standard parser also detects UTF-16 and UTF-32).

    Returns:
        The parsed value (JSON types).

    Raises:
        ValueError: neither parser accepts the bytes (``json.JSONDecodeError``,
            ``UnicodeDecodeError``), or arrays/objects nest deeper than the standard parser
            reaches (Python's recursion limit, about 1,000 levels; orjson stops at 1,024):
            as any other malformed file, never a ``RecursionError``.
    """
    if orjson is not None:
        try:
            return orjson.loads(data)
        except orjson.JSONDecodeError:
            pass
    try:
        return json.loads(data)
    except RecursionError:  # a committed file of 3,000 "[": malformed, not a crash
        raise ValueError(f"nesting deeper than {MAX_DEPTH} levels; flatten the document to "
                         f"at most {MAX_DEPTH} levels") from None


def loads_if_canonical(data: bytes) -> Any:
    """Parse ``data`` when a compiled test proves it strict, canonical JSON; else None.

    The one proof of canonical bytes that :func:`kistore.core.canonical.loads`, ``verify``,
    the gate and the index share: orjson's (:func:`_loads_if_orjson_canonical`), then the
    standard library's (:func:`_loads_if_plainly_canonical`) for what orjson doubts. None
    means "take the exact path", never "not canonical".

    Args:
        data: raw bytes.

    Returns:
        The value, exactly what :func:`kistore.core.canonical.loads` returns, or None.
    """
    value = _loads_if_orjson_canonical(data)
    return value if value is not None else _loads_if_plainly_canonical(data)


def _loads_if_orjson_canonical(data: bytes) -> Any:
    """Parse ``data`` with orjson when that proves it strict, canonical JSON; else None.

    Args:
        data: raw bytes.

    Returns:
        The value (JSON types only), exactly what :func:`kistore.core.canonical.loads` returns,
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


# A float written by orjson as 0.0 or -0.0 (maybe a nonzero literal that underflowed),
# once the end of every number is a comma (see _ENDS_AS_COMMA).


def _has_long_integral_float(ends_as_comma: bytes) -> bool:
    """Return True when some ``.0,`` follows 16 digits (a float maybe beyond 2**53 - 1).

    A loop of ``bytes.find`` over the few integral floats of a document: a regular
    expression trying ``[0-9]{16}`` at every digit of every digest costs ten times more.
    """
    at = ends_as_comma.find(b".0,")
    while at != -1:
        if at >= 16 and ends_as_comma[at - 16:at].isdigit():
            return True
        at = ends_as_comma.find(b".0,", at + 3)
    return False


def loads(data: bytes) -> Any:
    """Parse strict JSON with orjson when that provably gives the exact parser's value.

    Args:
        data: raw bytes of one JSON text whose first byte is ``{`` or ``[``.

    Returns:
        Exactly what :func:`kistore.core.canonical.loads` returns, or None: take the exact path
        (which also names any problem). Not None only when:

        * orjson parses the bytes: it refuses a byte-order mark, invalid UTF-8, control
          characters in strings, NaN and Infinity, leading zeros, trailing data and
          numbers beyond the double range, as the exact parser does;
        * no ``\\u`` escape occurs (it may hide a lone surrogate, or spell a colon or a
          duplicate key differently);
        * the text holds as many colons as orjson's re-encoding of the value: outside
          strings a colon ends a key, and inside strings colons are the same in both (a
          colon is never escaped but as ``\\u003a``), so a duplicate key, which the
          value holds once, would leave fewer;
        * orjson's re-encoding (integers within +/-(2**53 - 1)) holds no zero float
          (a nonzero literal such as 1e-400 may have underflowed to it) and no integral
          float of 16 or more digits (maybe beyond 2**53 - 1);
        * nesting is within :data:`kistore.core.canonical.MAX_DEPTH`.
    """
    if not AGREES or data[:1] not in (b"{", b"["):
        return None
    if b"\\" in data and b"\\u" in data:  # one memchr for the common case: no escape
        return None
    try:
        value = orjson.loads(data)
        encoded = orjson.dumps(value, option=orjson.OPT_STRICT_INTEGER)
    except (orjson.JSONDecodeError, orjson.JSONEncodeError):
        return None
    if data.count(b":") != encoded.count(b":") or b"e+" in encoded:
        return None
    ends_as_comma = encoded.translate(_ENDS_AS_COMMA)
    if b"0.0," in ends_as_comma and (  # a zero float (maybe an underflow), or 10.0, 20.0 ...
            b":0.0," in ends_as_comma or b",0.0," in ends_as_comma
            or b"[0.0," in ends_as_comma or b"-0.0," in ends_as_comma):
        return None
    if _has_long_integral_float(ends_as_comma):
        return None
    if encoded.count(b"{") + encoded.count(b"[") > MAX_DEPTH and (
            too_deep(value)):
        return None
    return value


def dumps(value: Any) -> bytes | None:
    """Return the RFC 8785 bytes of a JSON object or array, or None for the exact path.

    Args:
        value: a ``dict`` or ``list`` of JSON values (anything else: None).

    Returns:
        ``kistore.core.canonical.dumps(value)``, computed by orjson, when the output is not
        :func:`_doubtful` and holds no ``null`` (orjson writes NaN and Infinity as null;
        the exact path refuses them). Integral floats, which orjson writes ``12.0`` and
        RFC 8785 ``12``, are rewritten (:func:`_integral_floats_as_integers`). None when
        orjson refuses the value (an integer beyond +/-(2**53 - 1), a lone surrogate, a
        non-string key, a subclass of a JSON type, a type that is not JSON) or the output
        is doubtful. The bytes are a copy of their own size, safe to keep by the million.

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
    if b"null" in data or _doubtful(data, integral_floats_ok=True):
        return None
    if b".0," in data.translate(_ENDS_AS_COMMA):
        return _integral_floats_as_integers(data, value)
    # orjson returns its bytes in the buffer it wrote into (4 KB at least): a 75-byte
    # metadata file held 4,089 bytes (tracemalloc), 8 GB over a million kept manifests.
    return bytes(memoryview(data))


def _integral_floats_as_integers(data: bytes, value: Any) -> bytes | None:
    """Rewrite orjson's ``12.0``/``-0.0`` as RFC 8785's ``12``/``0`` (§3.2.2.3), or None.

    Each ``.0`` that ends a number token (digits after ``:``, ``,`` or ``[``, maybe
    signed) loses its ``.0`` (and ``-0`` its sign). Such text may also sit inside a
    string: re-parsing the result must give back ``value`` (``12 == 12.0`` in Python; a
    changed string is not equal), or None. So is a float of 16 or more integer digits
    (maybe beyond 2**53 - 1, which the exact path refuses).
    """
    ends_as_comma = data.translate(_ENDS_AS_COMMA)
    pieces, start = [], 0
    at = ends_as_comma.find(b".0,")
    while at != -1:
        begin = at
        while begin > 0 and 48 <= ends_as_comma[begin - 1] <= 57:  # back over the digits
            begin -= 1
        negative = begin > 0 and ends_as_comma[begin - 1] == 45  # "-"
        token = begin - negative
        if not 0 < at - begin < 16 or token == 0 or ends_as_comma[token - 1] not in b":,[":
            return None
        pieces.append(data[start:token] + b"0" if data[begin:at] == b"0" else data[start:at])
        start = at + 2
        at = ends_as_comma.find(b".0,", start)
    pieces.append(data[start:])
    rewritten = b"".join(pieces)
    return rewritten if orjson.loads(rewritten) == value else None


def _not_json(value: Any) -> Any:
    """Refuse a type orjson does not write itself (its default hook): take the exact path."""
    raise TypeError(type(value).__name__)


# What json.loads accepts and re-encodes to the same bytes, yet kistore's strict parser or
# RFC 8785 would not: an integral float ("1.0", "-0.0") or Python's exponent form ("1e-05",
# "1e+16") -- both seen by the float hook --, an integer of 16 or more characters (it may
# exceed 2**53 - 1; the int hook), and a 4-byte UTF-8 sequence (beyond U+FFFF: UTF-16 key
# order; searched only in non-ASCII bytes). The hooks see each number's text once, which
# costs far less than searching all the bytes for these patterns.


class _Doubtful(Exception):
    """Raised by the fast path's number hooks: take the exact path for these bytes."""


def _plain_int(text: str) -> int:
    if len(text) < 16:  # at most 15 digits: within 2**53 - 1
        return int(text)
    raise _Doubtful(text)


def _plain_float(text: str) -> float:
    if text.endswith(".0") or "e" in text or "E" in text:
        raise _Doubtful(text)
    return float(text)


_plain_decoder = json.JSONDecoder(parse_int=_plain_int, parse_float=_plain_float)
_canonical_encoder = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(",", ":"),
                                      sort_keys=True)


def _loads_if_plainly_canonical(data: bytes) -> Any:
    """Parse ``data`` when a fast test proves it strict, canonical JSON; else return None.

    The strict parser and :func:`kistore.core.canonical.dumps` walk every value in Python; this
    test runs in C. ``json.loads`` accepts more than :func:`kistore.core.canonical.loads`, and
    ``canonicaljson`` (stdlib JSON with sorted keys, no spaces) differs from RFC 8785 in a
    few cases, so the bytes count as canonical only when re-encoding reproduces them exactly
    (which rules out duplicate keys, whitespace, a byte-order mark, NaN, values beyond the
    double range, non-shortest numbers and lone surrogates), no number hook doubts them
    (see the comment above), they hold no 4-byte UTF-8 sequence and at most
    :data:`kistore.MAX_DEPTH` brackets. A fixed-notation non-integral float is
    the same text in Python's ``repr`` and in ECMAScript (both shortest round-trip digits).
    None means "take the exact path", never "not canonical"; a property test holds this to
    :func:`kistore.core.canonical.is_canonical`.
    """
    if data.count(b"{") + data.count(b"[") > MAX_DEPTH:
        return None
    if not data.isascii() and _FOUR_BYTE_UTF8.search(data):
        return None
    try:
        value = _plain_decoder.decode(data.decode("utf-8"))
        encoded = _canonical_encoder.encode(value).encode("utf-8")
    except (_Doubtful, ValueError, TypeError, RecursionError, UnicodeError):
        return None
    if encoded != data and b"0.0000" in data:  # maybe 0.000012, which Python writes 1.2e-05
        data = _small_fraction().sub(_python_form, data)
    return value if encoded == data else None


# A fraction in [1e-7, 1e-4): RFC 8785 writes it 0.0000..., Python's repr 1.2e-05.
@functools.cache
def _small_fraction() -> re.Pattern[bytes]:
    """Return the pattern of a fraction in [1e-7, 1e-4) (compiled on first use)."""
    return re.compile(rb"(?<![0-9.eE])-?0\.0000[0-9]+(?![0-9.eE])")


def _python_form(match: re.Match[bytes]) -> bytes:
    """Rewrite a small fraction in RFC 8785 form as Python's ``repr`` writes it.

    Text that is not exactly the RFC 8785 form stays as it is, so the comparison with
    the re-encoded bytes fails; inside a string the rewrite only makes a mismatch too
    (the encoder copies strings), so it can never make non-canonical bytes look canonical.
    """
    text = match.group()
    value = float(text)
    return repr(value).encode() if es6_number(value).encode() == text else text
