"""What kistore counts as a number in a stored document: one test for every layer.

A JSON number (RFC 8259 §6) parses to a Python ``int`` or ``float``; ``true`` and
``false`` parse to ``bool``, which Python counts as an ``int`` and JSON does not count as a
number. ``rank`` orders runs by this test (:meth:`kistore.query.policy.Comparison.value`),
KI245-KI247 count a metric as held by it, the contradiction rules (KI223, KI228, KI230)
judge a run's statistics by it, and exports, pages and attestation checks read a value as
a number by it: until 2026-12-05 six modules kept their own copy (closing29 "Found and not
mended" 2), so one could have come to call "a number" what ``rank`` leaves unranked.
"""

from __future__ import annotations

from typing import Any, TypeGuard

_NUMBER = (int, float)
"""A tuple, not ``int | float``: ``isinstance`` with a union made a union object per call
(this test runs once per statistic of every run ``verify`` reads)."""


def is_number(value: Any) -> TypeGuard[int | float]:
    """Return whether a parsed JSON value is a JSON number.

    Args:
        value: a value as :mod:`kistore.core.canonical` parses it (dict, list, str, int,
            float, bool or None).

    Returns:
        True for an ``int`` or ``float`` that is not a ``bool``. False for ``None``
        (nothing there, or ``null``), a string (``"0.5"``), a boolean, an array or an
        object. No finiteness test: strict parsing refuses NaN, Infinity and numbers beyond
        the double range (README, "The rules kistore keeps"), so every stored number is
        finite; a caller reading values from elsewhere tests finiteness itself.

    Raises nothing.
    """
    return isinstance(value, _NUMBER) and not isinstance(value, bool)
