"""Numbers as text: each stored number as the manifest holds it; latencies readable.

The rule: a stored value prints as its canonical form, the shortest digits that parse back
to the same double laid out as ECMAScript's ``Number::toString`` lays them out (RFC 8785
§3.2.2.3, the text the manifest's canonical bytes hold: ``0.3``, ``1e-7``, ``5e-324``,
``16777217.000000004``). A latency in ns, in the text output of ``rank``, ``show`` and
``compare``, prints to :data:`LATENCY_DIGITS` significant digits (whole ns never rounded
away) with thousands separators (:func:`latency_text`: ``42,860.8``, ``12,015,668``): the
stored value is an exact ms-to-ns product of a harness's mean, and its 17 digits claimed
femtoseconds (review r85 F13). Where two different latencies of one table would print
alike, they print exact (:func:`distinct_texts`). ``--json``, ``--format jsonl`` and
exports keep every stored value exact. A rounded, readable form (``13.6 ms``, ``1.04x``)
may sit beside it.

History: ``rank`` and ``show`` once printed latencies of 0.9, 1.0 and 1.1 ns all as "1 ns";
then (review r60, F16) a stored 0.3 as ``0.29999999999999999``; then (review r70, F8) padded
each latency with zeros to the group's most decimals (``1.1000000000000000 ns`` beside a
16-decimal run: digits the value lacks, and a run's text changed when another run was
added), and printed scores in Python's ``repr`` (``1e-07``) instead of the stored ``1e-7``.
The static site had its own rule (review r70, F11: ``1. ns`` for 1.0000000596046448) and now
calls this module too. A text here depends on the value alone; a table lines its column up
with spaces (:func:`column`), never with digits.
"""

from __future__ import annotations

import json
import math
import re
from _json import make_encoder  # the C encoder json.dumps uses
from collections.abc import Sequence
from json.encoder import (  # type: ignore[attr-defined]  # json.dumps's indenting encoder
    _make_iterencode,
    encode_basestring,
    encode_basestring_ascii,
)
from typing import Any

from ..core.canonical import es6_number
from ..core.numbers import is_number


def number_text(value: float) -> str:
    """Return ``value``'s canonical text: the number as the manifest's canonical bytes hold it.

    Args:
        value: a finite number (``int`` or ``float``).

    Returns:
        ECMAScript ``Number::toString`` of the double (RFC 8785 §3.2.2.3): the shortest
        digits that round-trip, in fixed notation from 1e-6 up to 1e21 and in exponent form
        outside it (``0.3``, ``0.30000000000000004``, ``372764``, ``0.00001``, ``1e-7``,
        ``5e-324``, ``1e+22``). ``float(text) == value`` always holds.
    """
    number = float(value)
    text = float.__repr__(number)
    if "e" in text or "n" in text:  # an exponent (or inf, nan): ECMAScript's layout
        return es6_number(number)
    # 1e-4 <= |value| < 1e16 (or 0): repr and ECMAScript write the same shortest digits in
    # fixed notation, but for repr's ".0" (5x faster than es6_number: every --json float)
    if text.endswith(".0"):
        return "0" if text == "-0.0" else text[:-2]
    return text


def rounded_text(value: float, digits: int, *, keep_zeros: bool = True) -> str:
    """Return a readable, rounded text of ``value``: ``digits`` significant digits.

    The form that may sit beside a stored number (module docstring), never the one called
    the value: the site's summary line (``SOL score 0.5125``, ``1.04×``), ``show``'s ms
    conversion (``0.0012345 ms``). Python's ``g`` format chooses fixed or exponent form
    (exponent when the decimal exponent is below -4 or at least ``digits``); an exponent is
    written as :func:`number_text` writes one (ECMAScript ``Number::toString``: ``1.1e-6``,
    ``9.0072e+9``), never Python's ``1.1e-06``.

    Args:
        value: a finite number (``int`` or ``float``).
        digits: significant digits, at least 1.
        keep_zeros: keep trailing zeros, as a measurement's precision is written
            (``1.00``, ``0.5000``; Python's ``#g``); ``False`` strips them (``1``, ``0.5``).

    Returns:
        The text (``0.5125``, ``1.00``, ``4.941e-324``, ``1.235e+22``); never ends in ``.``.
    """
    text = format(float(value), f"{'#' if keep_zeros else ''}.{digits}g")
    mantissa, mark, exponent = text.partition("e")
    mantissa = mantissa.rstrip(".")
    if not mark:
        return mantissa
    power = int(exponent)
    return f"{mantissa}e{'+' if power >= 0 else '-'}{abs(power)}"


def grouped_text(value: float) -> str:
    """Return :func:`number_text` with thousands separators in its whole part.

    Args:
        value: a finite number (``int`` or ``float``).

    Returns:
        ``16,777,217.000000004``, ``123,456,789,012.34567``, ``1.0000000596046448``; the
        exponent forms as they are (``1e-7``, ``1e+21``). Less its commas, the text is
        :func:`number_text`'s, so it parses back to exactly ``value``.
    """
    text = number_text(value)
    if "e" in text:
        return text
    sign, digits = ("-", text[1:]) if text.startswith("-") else ("", text)
    whole, point, fraction = digits.partition(".")
    return f"{sign}{int(whole):,}{point}{fraction}"


LATENCY_DIGITS = 6
"""Significant digits of a latency in text output (:func:`latency_text`): a harness's mean
is not known to more, and six tell apart what a ranking of one workload puts side by side."""


def latency_text(ns: float) -> str:
    """Return a latency in ns to :data:`LATENCY_DIGITS` significant digits, grouped.

    Whole nanoseconds are never rounded away (``12,015,668``, not ``12,015,700``); trailing
    zeros of the fraction are left out, as digits the value lacks (review r70 F8), so an
    integer stays an integer (``1,234``). Outside 1e-6 to 1e21 the exponent form of
    :func:`rounded_text` (``1.1e-7``).

    Args:
        ns: a finite latency in ns.

    Returns:
        ``42,860.8`` for 42860.831780213484, ``1.1`` for 1.1, ``0.3`` for 0.30000000000000004,
        ``0`` for 0.
    """
    number = float(ns)
    if number == 0:
        return "0"
    if not 1e-6 <= abs(number) < 1e21:
        return rounded_text(number, LATENCY_DIGITS, keep_zeros=False)
    decimals = max(0, LATENCY_DIGITS - 1 - math.floor(math.log10(abs(number))))
    text = format(number, f",.{decimals}f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text  # never "-0": six significant digits of a nonzero value keep one nonzero


def value_text(value: float, unit: str | None) -> str:
    """Return a value's text as ``rank``, ``show`` and ``compare`` print it.

    Args:
        value: the stored value.
        unit: its unit: ``ns`` prints :func:`latency_text` (``1,234.57``), any other unit
            (scores, a source's own metric) :func:`number_text`, as stored.

    Returns:
        The text, without the unit. It depends on ``value`` alone; a latency's is rounded
        (:func:`distinct_texts` tells apart two that print alike).
    """
    return latency_text(value) if unit == "ns" else number_text(value)


def distinct_texts(values: Sequence[float], unit: str | None) -> list[str]:
    """Return :func:`value_text` of each value; values that differ never print alike.

    Where two different values would print the same rounded latency (3.3 and
    3.3000000000000003), each of those prints its exact text (:func:`grouped_text`), so a
    table never shows a tie the values do not have (the rule :func:`ratio_text` keeps).

    Args:
        values: the values of one table (a ranking, A and B of a comparison).
        unit: their unit.

    Returns:
        One text a value, in order.
    """
    texts = [value_text(v, unit) for v in values]
    owners: dict[str, set[float]] = {}
    for value, text in zip(values, texts, strict=True):
        owners.setdefault(text, set()).add(float(value))
    return [grouped_text(v) if unit == "ns" and len(owners[t]) > 1 else t
            for v, t in zip(values, texts, strict=True)]


def json_text(value: Any) -> str:
    """Return a JSON value on one line for people: its numbers as stored, keys sorted.

    Strings, booleans and null as JSON writes them (``"fp16"``, ``true``, ``null``); every
    number as :func:`number_text` (``1e-7``, not Python's ``1e-07``); arrays and objects
    with ``, `` and ``: `` between items (``{"atol": 0.00001, "rtol": 1e-7}``).

    Args:
        value: a JSON value as the parser returns it (dict, list, str, int, float, bool,
            None).

    Returns:
        The text.

    Raises:
        TypeError: ``value`` holds something JSON cannot write.
    """
    if is_number(value):
        return number_text(value)
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(k, ensure_ascii=False)}: {json_text(v)}"
                               for k, v in sorted(value.items())) + "}"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(json_text(v) for v in value) + "]"
    return json.dumps(value, ensure_ascii=False)


def json_document(value: Any, *, indent: int | None = 2, ensure_ascii: bool = False) -> str:
    """Return ``value`` as a JSON document whose numbers are written as stored.

    What ``--json`` prints: the layout of ``json.dumps(value, indent=indent,
    ensure_ascii=ensure_ascii)`` (keys in the order given, never sorted; with ``indent``
    None, one compact line, ``","`` and ``":"`` between items), except that every float is
    its canonical text (:func:`number_text`: ``1e-7``, ``0.00001``, ``1``, as the manifest's
    canonical bytes and the readable output hold it) instead of Python's ``repr``
    (``1e-07``, ``1e-05``, ``1.0``). A reader parses each number back to the same double.
    Integers print all their digits; NaN and infinities as ``json.dumps`` writes them.

    How (the same text either way; tests/query/test_json_document.py holds both to the
    encoder this replaced): with ``indent`` None (JSON Lines, ``--format jsonl``) the
    standard library's C encoder writes the line, then the few float texts that differ
    are rewritten outside strings (:func:`_canonical_floats`); an indented document is
    written by the standard library's own indenting encoder (``json.encoder``, pure Python
    in 3.11, as ``json.dumps(indent=...)`` is) with :func:`number_text` as its float hook.
    docs/speed.md, "JSON output", has the costs.

    Args:
        value: dicts, lists, tuples, str, int, float, bool and None, nested.
        indent: spaces per level, or None for one compact line (JSON Lines).
        ensure_ascii: escape every non-ASCII character (``\\u`` escapes).

    Returns:
        The text, without a final newline.

    Raises:
        TypeError: ``value`` holds something else (a set, bytes, an object), as
            ``json.dumps`` raises; or a key that is not str, int, float, bool or None.
        RecursionError: ``value`` holds itself, or nests past Python's recursion limit.
    """
    if indent is not None or not isinstance(value, dict | list | tuple):
        # (a lone number has no "[", "," or ":" before it for _REPR_FLOAT to see)
        return _indented(value, indent, ensure_ascii)
    text = "".join(_COMPACT[ensure_ascii](value, 0))
    # every float repr writes otherwise holds one of these (three scans in C, ~0.3 us a row)
    if ".0" not in text and "e-" not in text and "e+" not in text:
        return text
    if "\\" in text or _REPR_FLOAT_KEY.search(text):
        # an escape inside a string (a quote is then not always a string's end), or a
        # float key (the C encoder writes it as repr, in quotes): the exact, slower way
        return _indented(value, None, ensure_ascii)
    return _canonical_floats(text)


def _not_serializable(value: Any) -> Any:
    """Refuse what is not JSON, as ``json.dumps`` does (the encoders' ``default``)."""
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def _float_text(value: float) -> str:
    """Return a float as :func:`json_document` writes it (NaN and infinities as JSON's)."""
    return number_text(value) if math.isfinite(value) else json.dumps(value)


_COMPACT = {ascii_: make_encoder(None, _not_serializable,
                                 encode_basestring_ascii if ascii_ else encode_basestring,
                                 None, ":", ",", False, False, True)
            for ascii_ in (False, True)}
"""The standard library's C encoders (``json.dumps``'s), compact, by ``ensure_ascii``."""

_REPR_FLOAT = re.compile(r"[\[,:](-?\d++(?:\.0(?![0-9])|(?:\.\d++)?+e[-+]\d++))")
"""A float whose Python ``repr`` differs from its canonical text, as the C encoder writes
it after ``[``, ``,`` or ``:``: integral (``1.0``, ``-0.0``, ``372764.0``) or with an
exponent (``1e-07``, ``1e+16``, ``1.5e-05``). Elsewhere (``0.5``, ``13.6``, ``0.0001``)
both are the same shortest digits. The leading character class lets the regex engine
skip to those three characters (searching from any digit cost 9 us a rank row)."""

_REPR_FLOAT_KEY = re.compile(r'"-?\d+(?:\.0|(?:\.\d+)?e[-+]\d+)":')
"""A key that may be a float the C encoder wrote as ``repr`` (``"1e-07":``)."""


def _canonical_floats(text: str) -> str:
    """Rewrite every float of the C encoder's compact ``text`` in its canonical form.

    ``text`` holds no backslash, so a ``"`` always opens or closes a string: a match of
    :data:`_REPR_FLOAT` after an even count of quotes is a number, after an odd count it
    is inside a string and stays as it is.
    """
    parts: list[str] = []
    last = seen = quotes = 0
    for match in _REPR_FLOAT.finditer(text):
        start, end = match.span(1)
        quotes += text.count('"', seen, start)
        seen = start
        if quotes & 1:
            continue
        token = match.group(1)
        parts.append(text[last:start])
        if "e" in token:
            parts.append(number_text(float(token)))
        else:  # an integral float below 1e16: repr's digits less ".0"
            parts.append("0" if token == "-0.0" else token[:-2])
        last = end
    parts.append(text[last:])
    return "".join(parts)


def _indented(value: Any, indent: int | None, ensure_ascii: bool) -> str:
    """Write ``value`` with ``json.encoder``'s Python encoder, floats canonical."""
    encode = _make_iterencode(
        None, _not_serializable, encode_basestring_ascii if ensure_ascii else encode_basestring,
        None if indent is None else " " * indent, _float_text,
        ": " if indent is not None else ":", ",", False, False, True)
    return "".join(encode(value, 0))


def column(texts: Sequence[str]) -> list[str]:
    """Return ``texts`` padded with spaces so that their decimal points line up.

    A text without a point lines up where its exponent starts (``1e-7``), or its end, with
    the others' points. Padding is spaces only: no text gains a digit (``1.1`` stays
    ``1.1``, not ``1.1000``).

    Args:
        texts: number texts (e.g. of :func:`value_text`).

    Returns:
        The texts, in order, all of one width: right-aligned on their points.
    """
    tails = [len(t) - _point(t) for t in texts]
    after = max(tails, default=0)
    padded = [t + " " * (after - tail) for t, tail in zip(texts, tails, strict=True)]
    width = max((len(t) for t in padded), default=0)
    return [t.rjust(width) for t in padded]


def _point(text: str) -> int:
    """Return where ``text``'s decimal point is, or would be (before an exponent, at the end)."""
    for mark in (".", "e"):
        if mark in text:
            return text.index(mark)
    return len(text)


DOUBLE_MAX_SAID = "1.8e308"
"""The largest double (1.7976931348623157e308), as a ratio past it is said."""


def whole_ratio_text(ratio: float) -> str:
    """Return a ratio whole and grouped, as KI234's mark and the pages say one: ``1,051,136``.

    Args:
        ratio: a factor of 1,000 or more, where decimals say nothing; or infinite, a
            quotient past the largest double (``1e300 / 1e-10``): ``more than 1.8e308``
            (``less than -1.8e308`` below), never ``inf``.
    """
    if math.isinf(ratio):
        return f"more than {DOUBLE_MAX_SAID}" if ratio > 0 else f"less than -{DOUBLE_MAX_SAID}"
    return f"{ratio:,.0f}"


def ratio_text(a: float, b: float) -> str:
    """Return the text of ``a / b`` (``b`` non-zero) that never claims 1 for values that differ.

    Four significant digits (``1.04``) where they show the ratio is not 1; from 1,000 on,
    whole and grouped (:func:`whole_ratio_text`: ``1,051,136``, as the leaderboard and
    KI234's mark beside it write the same ratio; it was ``1.051e+6``); when ``a != b``
    but four digits would print ``1``, as many digits as it takes (``0.9999999999999998``),
    and when even the double quotient is exactly 1, ``1 (A and B differ past double
    precision)``. A quotient past the doubles is said so, never ``inf`` nor ``0``:
    ``more than 1.8e308``, ``less than 5e-324 (not 0: past double precision)``.

    Args:
        a: the numerator (A's ranked value).
        b: the denominator (B's ranked value), non-zero.

    Returns:
        The text.
    """
    ratio = a / b
    if abs(ratio) >= 1000:  # infinite too: "more than 1.8e308", never "inf"
        return whole_ratio_text(ratio)
    if ratio == 0 and a != 0:  # under the smallest double: no "0" for values that differ
        return ("less than 5e-324" if (a > 0) == (b > 0) else "more than -5e-324") + \
            " (not 0: past double precision)"
    text = rounded_text(ratio, 4, keep_zeros=False)
    if a == b or float(text) != 1.0:
        return text
    if ratio == 1.0:
        return "1 (A and B differ past double precision)"
    return number_text(ratio)
