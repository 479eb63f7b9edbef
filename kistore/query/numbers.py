"""Ranked values as text: each stored number as the manifest holds it, never rounded.

``rank`` and ``show`` once printed latencies of 0.9, 1.0 and 1.1 ns all as "1 ns" while
ranking them apart, then (review r60, F16) printed a stored 0.3 as ``0.29999999999999999``
(``%.17g``): a number the manifest does not hold. Every value text is now the number's
shortest round-trip form (the digits of ``repr(float)``, as the manifest's RFC 8785 text
holds them: ``0.3``, ``0.30000000000000004``), so it parses back to the stored value and
distinct values never print alike. Latencies in ``ns`` keep thousands separators and fixed
notation, padded with zeros to the group's most decimals so that a column lines up
(``1.00``, ``1.04``, ``1.10``); padding adds only zeros, never digits the value lacks.
"""

from __future__ import annotations

from collections.abc import Iterable

_MAX_FIXED_EXPONENT = 17
"""Past 10**17 a latency prints in exponent form (fixed notation would show binary digits)."""


def number_text(value: float) -> str:
    """Return ``value``'s shortest round-trip text, without a trailing ``.0``.

    Args:
        value: a finite number (int or float).

    Returns:
        ``repr(float(value))`` less a trailing ``.0`` (``0.3``, ``0.30000000000000004``,
        ``372764``, ``1e+22``); ``float(text) == value`` always holds.
    """
    text = repr(float(value))
    return text[:-2] if text.endswith(".0") else text


def _decimals(value: float) -> int:
    """Return how many decimals the shortest round-trip form of ``value`` has in fixed form."""
    text = repr(float(value))
    mantissa, _, exponent = text.partition("e")
    whole, _, fraction = mantissa.partition(".")
    places = 0 if fraction == "0" else len(fraction)
    return max(0, places - int(exponent or 0))


def _fixed(value: float, decimals: int) -> str:
    """Return ``value`` with thousands separators and exactly ``decimals`` decimals.

    The value's own shortest digits, padded with zeros (never ``{value:.{decimals}f}``, which
    would print binary digits past the shortest form: 0.3 as ``0.29999999999999999``).
    """
    own = _decimals(value)
    if abs(value) >= 10.0 ** _MAX_FIXED_EXPONENT:
        return number_text(value)
    # The shortest digits moved to fixed form by hand: `{value:.{own}f}` rounds the binary
    # value again and may end one digit off (2**-24 printed ...062 for ...063).
    sign, text = ("-", repr(float(value))[1:]) if repr(float(value)).startswith("-") \
        else ("", repr(float(value)))
    mantissa, _, exponent = text.partition("e")
    whole, _, fraction = mantissa.partition(".")
    digits = whole + ("" if fraction == "0" else fraction)
    point = len(whole) + int(exponent or 0)
    if point <= 0:
        digits, point = "0" * (1 - point) + digits, 1
    digits += "0" * max(0, point - len(digits))
    after = digits[point:]
    text = f"{sign}{int(digits[:point]):,}" + (f".{after}" if after else "")
    if decimals > own:
        text += ("." if own == 0 else "") + "0" * (decimals - own)
    return text


def value_texts(values: Iterable[float | None], unit: str | None) -> dict[float, str]:
    """Return the text of each value of one group, as ``rank``, ``show`` and ``compare`` print it.

    Args:
        values: the group's ranked values (None values are left out).
        unit: their unit: ``ns`` prints ``1,234 ns``-style fixed notation with every
            value's own decimals, padded with zeros to the group's most; any other unit
            prints :func:`number_text`.

    Returns:
        ``{value: text}`` for each distinct value (the text has no unit). Each text parses
        back (less its commas) to exactly the stored value, so distinct values give
        distinct texts.
    """
    distinct = {v for v in values if v is not None}
    if unit != "ns":
        return {v: number_text(v) for v in distinct}
    decimals = max((_decimals(v) for v in distinct), default=0)
    return {v: _fixed(v, decimals) for v in distinct}


def ratio_text(a: float, b: float) -> str:
    """Return the text of ``a / b`` (``b`` non-zero) that never claims 1 for values that differ.

    Four significant digits (``1.04``) where they show the ratio is not 1; when ``a != b``
    but four digits would print ``1``, as many digits as it takes (``0.9999999999999998``),
    and when even the double quotient is exactly 1, ``1 (A and B differ past double
    precision)``.

    Args:
        a: the numerator (A's ranked value).
        b: the denominator (B's ranked value), non-zero.

    Returns:
        The text.
    """
    ratio = a / b
    text = f"{ratio:.4g}"
    if a == b or float(text) != 1.0:
        return text
    if ratio == 1.0:
        return "1 (A and B differ past double precision)"
    return number_text(ratio)
