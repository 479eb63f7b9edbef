"""Times as kistore writes them: commit times (seconds since the epoch) as RFC 3339 UTC.

This module knows numbers and text only: no git, no I/O.
"""

from __future__ import annotations

import datetime as dt


def utc_text(seconds: int) -> str:
    """Return a time given in seconds since the Unix epoch as RFC 3339 UTC, to the second.

    Args:
        seconds: seconds since 1970-01-01T00:00:00Z (a git commit time, say).

    Returns:
        ``YYYY-MM-DDTHH:MM:SSZ`` (RFC 3339 §5.6, offset ``Z``), e.g. ``0`` ->
        ``1970-01-01T00:00:00Z``.

    Raises:
        OverflowError, ValueError: the time lies outside years 1-9999 (Python's
            :class:`datetime.datetime`); a caller reading a stored commit must guard it.
    """
    return dt.datetime.fromtimestamp(seconds, dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
