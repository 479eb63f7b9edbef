"""Ranked values as text, with enough digits that values ranked apart never print alike.

``rank`` and ``show`` once printed latencies of 0.9, 1.0 and 1.1 ns all as "1 ns" while
ranking them apart. :func:`value_texts` picks, for the values of one comparison group, the
fewest digits that keep every distinct value distinct in print (never fewer than the
default: whole nanoseconds, six significant digits for other units).
"""

from __future__ import annotations

from collections.abc import Iterable

_MAX_DECIMALS = 9
"""Most decimals of a nanosecond printed (below 1e-9 ns, a double's text is exact anyway)."""
_MAX_SIGNIFICANT = 17
"""Significant digits that print any IEEE 754 double exactly."""


def value_texts(values: Iterable[float | None], unit: str | None) -> dict[float, str]:
    """Return the text of each value of one group, as ``rank`` and ``show`` print it.

    Args:
        values: the group's ranked values (None values are left out).
        unit: their unit: ``ns`` prints ``1,234 ns``-style fixed decimals (whole
            nanoseconds unless two values need more to differ), any other unit prints
            six significant digits or more, likewise.

    Returns:
        ``{value: text}`` for each distinct value (the text has no unit), distinct values
        giving distinct texts.
    """
    distinct = sorted({v for v in values if v is not None})
    if unit == "ns":
        for decimals in range(_MAX_DECIMALS + 1):
            texts = {v: f"{v:,.{decimals}f}" for v in distinct}
            if len(set(texts.values())) == len(distinct):
                return texts
        return {v: repr(v) for v in distinct}
    for significant in range(6, _MAX_SIGNIFICANT + 1):
        texts = {v: f"{v:.{significant}g}" for v in distinct}
        if len(set(texts.values())) == len(distinct):
            return texts
    return {v: repr(v) for v in distinct}
