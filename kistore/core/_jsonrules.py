"""What strict JSON and RFC 8785 fix, shared by the exact and the fast canonical paths.

The nesting limit, the range of integers a double holds exactly, and the ECMAScript number
form RFC 8785 writes. :mod:`kistore.core.canonical` (the exact path) and
:mod:`kistore.core.canonical_fast` (orjson, where provably the same) both import these, so
neither imports the other's internals.
"""

from __future__ import annotations

from typing import Any

MAX_DEPTH = 64
"""Deepest nesting of arrays/objects accepted (the document itself is depth 1)."""

MAX_SAFE_INTEGER = 2**53 - 1
"""Largest integer magnitude accepted (I-JSON, RFC 7493 §2.2): exact in an IEEE double."""


def too_deep(value: Any) -> bool:
    """Return True when arrays/objects in ``value`` nest deeper than :data:`MAX_DEPTH`."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            item = item.values()
        elif not isinstance(item, list):
            continue
        if depth > MAX_DEPTH:
            return True
        stack.extend((child, depth + 1) for child in item if isinstance(child, dict | list))
    return False


def es6_number(value: float) -> str:
    """Format a finite double as ECMAScript ``Number.prototype.toString`` does.

    This is the number serialisation RFC 8785 §3.2.2.3 prescribes. Python's ``repr`` gives
    the same shortest round-trip digits; only the layout (where the point and exponent go)
    differs, and is rebuilt here (ECMA-262 §7.1.12.1 ``Number::toString``).

    Args:
        value: a finite ``float``.

    Returns:
        The text, e.g. ``0.00001`` for ``1e-05``, ``1e-7`` for ``1e-07``, ``1e+21``.
    """
    if value == 0:
        return "0"
    sign = "-" if value < 0 else ""
    mantissa, _, exponent = repr(abs(value)).partition("e")
    whole, _, fraction = mantissa.partition(".")
    all_digits = whole + fraction
    significant = all_digits.lstrip("0")
    # value = 0.<digits> * 10**n, ECMA-262's k digits and exponent n
    n = len(whole) + int(exponent or 0) - (len(all_digits) - len(significant))
    digits = significant.rstrip("0")
    k = len(digits)
    if k <= n <= 21:
        text = digits + "0" * (n - k)
    elif 0 < n <= 21:
        text = digits[:n] + "." + digits[n:]
    elif -6 < n <= 0:
        text = "0." + "0" * -n + digits
    else:
        e = n - 1
        text = digits[0] + ("." + digits[1:] if k > 1 else "") + ("e+" if e >= 0 else "e-")
        text += str(abs(e))
    return sign + text
