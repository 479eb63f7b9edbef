"""KI227: a run's ``observedAt`` that cannot be true (reviewer r85 F17).

A BenchmarkRun says when it was measured (``spec.observedAt``, RFC 3339; the only time
field of the run schema). Two such times cannot be true:

* later than the time the run entered the repository plus :data:`CLOCK_SKEW` (one day,
  as KI428 allows commit dates): a measurement is not made after it was stored. The entry
  time is the committer time of the commit that first added the run's object (``check``,
  pre-receive, ``verify``) or the clock (``add``, ``import``, before any commit);
* before :data:`EARLIEST` (2000-01-01T00:00:00Z): no GPU ran such kernels then (CUDA
  appeared in 2007); 1970-01-01 is the Unix epoch, a placeholder for a time not known.

A warning, not a refusal: the schema admits any date-time, and runs stored before the rule
must still verify; the site and export show the date as stated. This module knows text and
numbers only: callers bring the entry time.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from typing import Any

from .canonical_fast import loads_lenient
from .findings import WARNING, rule
from .times import CLOCK_SKEW, commit_text, parse_rfc3339

EARLIEST = int(dt.datetime(2000, 1, 1, tzinfo=dt.UTC).timestamp())
"""2000-01-01T00:00:00Z: an ``observedAt`` before it is implausible (:mod:`.observed`)."""

POINTER = "/spec/observedAt"
"""Where a run states its time (the warning's JSON Pointer, on the run's object file)."""

OBSERVED_IMPLAUSIBLE = rule(
    "KI227", "observed-time-implausible", WARNING,
    "state when the run was measured (RFC 3339): objects are never edited, so add the "
    "corrected run as a new object")

_RUN = re.compile(rb'\{"apiVersion":"[^"\\]*","kind":"BenchmarkRun",')
_KEY = b'"observedAt":"'


def observed_seconds(spec: Any) -> int | None:
    """Return a run spec's ``observedAt`` in seconds since the epoch, or None.

    Args:
        spec: a BenchmarkRun's ``spec`` (parsed JSON).

    Returns:
        The time (rounded down to the second), or None when it is missing or does not read
        as an RFC 3339 date-time with an offset (the schema check says so).
    """
    value = spec.get("observedAt") if isinstance(spec, dict) else None
    if not isinstance(value, str):
        return None
    when = parse_rfc3339(value)
    try:
        return None if when is None else math.floor(when.timestamp())
    except OverflowError:  # year 1 at +05:00 lies before what datetime holds in UTC
        return None


def run_observed(data: bytes) -> int | None:
    """Return the ``observedAt`` of a run object's canonical bytes, in seconds, or None.

    In canonical bytes (RFC 8785) keys are sorted and every ``"`` inside a string is
    escaped: a run's bytes start ``{"apiVersion":"...","kind":"BenchmarkRun",``, and
    ``"observedAt":"`` occurs only as a key; once, it is ``spec.observedAt`` (the schema
    requires it), read without parsing the document (a 100,000-run store is read whole by
    ``verify``). Otherwise the document is parsed.

    Args:
        data: an object file's bytes.

    Returns:
        The time (:func:`observed_seconds`), or None: not a run, or no readable time.
    """
    if not _RUN.match(data):
        return None
    if data.count(_KEY) == 1:
        start = data.find(_KEY) + len(_KEY)
        value = data[start:data.find(b'"', start)]
        if b"\\" not in value:
            return observed_seconds({"observedAt": value.decode("utf-8", "replace")})
    try:
        document = loads_lenient(data)
    except ValueError:
        return None
    return observed_seconds(document.get("spec") if isinstance(document, dict) else None)


def observed_problem(observed: int, entered: int, how: str) -> str | None:
    """Return why a run's ``observedAt`` is implausible (KI227's message), or None.

    Args:
        observed: the run's ``observedAt`` in seconds since the epoch.
        entered: when it entered the repository, in seconds since the epoch.
        how: what ``entered`` is, e.g. ``"commit 0123456789ab first added it"``.

    Returns:
        The message (naming both times), or None when ``EARLIEST <= observed <=
        entered + CLOCK_SKEW``.
    """
    if observed > entered + CLOCK_SKEW:
        return (f"the run says it was observed at {commit_text(observed)}, more than a day "
                f"after it entered the repository ({commit_text(entered)}: {how}): a "
                "measurement is not made after it is stored")
    if observed < EARLIEST:
        return (f"the run says it was observed at {commit_text(observed)}, before "
                f"{commit_text(EARLIEST)}: no GPU ran such kernels then (1970-01-01 is the "
                "Unix epoch, a placeholder for a time not known)")
    return None
