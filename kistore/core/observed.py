"""KI227: a run's ``observedAt`` that cannot be true (reviewer r85 F17).

A BenchmarkRun says when it was measured (``spec.observedAt``, RFC 3339; the only time
field of the run schema). Two such times cannot be true:

* later than the time the run entered the repository plus :data:`CLOCK_SKEW` (one day,
  as KI428 allows commit dates): a measurement is not made after it was stored. The entry
  time is the committer time of the commit that first added the run's object (``check``,
  pre-receive, ``verify``) or the clock (``add``, ``import``, before any commit);
* before :data:`EARLIEST` (2000-01-01T00:00:00Z): no GPU ran such kernels then (CUDA
  appeared in 2007); 1970-01-01 is the Unix epoch, a placeholder for a time not known.

The first cannot be true at all: a run that *enters* with it is refused, KI227 as an
error (:data:`OBSERVED_AFTER_ENTRY`: ``add`` and ``import`` write nothing, ``check
BASE..HEAD`` and pre-receive report an error for each run the range adds; until 2026-12-04
a warning, reviewer r87: a run observed 2099 was added and ranked). A run the history
already holds is warned of (``verify``): runs stored before the rule must still verify, and
objects are never removed. The second may be a placeholder for a time not known: a warning
everywhere. The site and export show the date as stated; ``show`` says when it cannot be
true (:func:`observed_caveat`). This module knows text and numbers only: callers bring the
entry time.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from dataclasses import replace
from typing import Any

from .canonical_fast import loads_lenient
from .findings import ERROR, WARNING, Rule, rule
from .times import CLOCK_SKEW, commit_text, parse_rfc3339

EARLIEST = int(dt.datetime(2000, 1, 1, tzinfo=dt.UTC).timestamp())
"""2000-01-01T00:00:00Z: an ``observedAt`` before it is implausible (:mod:`.observed`)."""

POINTER = "/spec/observedAt"
"""Where a run states its time (the warning's JSON Pointer, on the run's object file)."""

ADDED_ADVICE = ("state when the run was measured (RFC 3339): while this add is not "
                "committed, `kistore drop {ref}` takes it back and you add the corrected "
                "file; once committed, objects are never edited: add the corrected run as a "
                "new object")
"""What to do about a run an add wrote with a KI227 time (``{ref}``: its digest): the add
may be committed (``--commit``) or not, so both states are named."""

OBSERVED_IMPLAUSIBLE = rule(
    "KI227", "observed-time-implausible", WARNING,
    "state when the run was measured (RFC 3339): a run not committed yet, `kistore drop "
    "DIGEST` and add the corrected file; a committed one stays (objects are never edited): "
    "add the corrected run as a new object")

OBSERVED_AFTER_ENTRY = replace(OBSERVED_IMPLAUSIBLE, severity=ERROR, hint=(
    "state when the run was measured (RFC 3339) and add it again: a measurement is not made "
    "after it is stored (a run a pull request adds: drop it from the branch, `kistore drop "
    "DIGEST` before it is committed, and add the corrected file)"))
"""KI227 as an error: a run *entering* (an add, an import, a range the gate checks) observed
more than :data:`CLOCK_SKEW` after its entry, which cannot be true (as KI428 is an error in
the gate and a warning in ``verify``; reviewer r87)."""

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


def observed_rule(observed: int, entered: int, *, entering: bool) -> Rule | None:
    """Return the rule an ``observedAt`` breaks (which :func:`observed_problem` words), or None.

    Args:
        observed: the run's ``observedAt`` in seconds since the epoch.
        entered: when it entered the repository, in seconds since the epoch.
        entering: True when the run enters now (an add, an import, a range the gate
            checks): one observed after ``entered + CLOCK_SKEW`` is an error then
            (:data:`OBSERVED_AFTER_ENTRY`); False for a run the history holds (``verify``):
            a warning (:data:`OBSERVED_IMPLAUSIBLE`).

    Returns:
        :data:`OBSERVED_AFTER_ENTRY` or :data:`OBSERVED_IMPLAUSIBLE`, or None when
        ``EARLIEST <= observed <= entered + CLOCK_SKEW``.
    """
    if observed > entered + CLOCK_SKEW:
        return OBSERVED_AFTER_ENTRY if entering else OBSERVED_IMPLAUSIBLE
    return OBSERVED_IMPLAUSIBLE if observed < EARLIEST else None


def observed_caveat(observed: int, now: int) -> str | None:
    """Return a few words saying a shown ``observedAt`` cannot be true, or None.

    For a page showing the time as stated (``show``), judged against this machine's clock:
    a time more than :data:`CLOCK_SKEW` past ``now`` is past any entry time too.

    Args:
        observed: the run's ``observedAt`` in seconds since the epoch.
        now: the clock, seconds since the epoch.

    Returns:
        ``after this machine's clock: ...`` or ``before 2000: ...``, naming the rule.
    """
    if observed > now + CLOCK_SKEW:
        return (f"more than a day after this machine's clock: a measurement is not made "
                f"after it is stored, {OBSERVED_IMPLAUSIBLE.id}")
    if observed < EARLIEST:
        return f"before {commit_text(EARLIEST)[:10]}: implausible, {OBSERVED_IMPLAUSIBLE.id}"
    return None


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
        return (f"the run says it was observed at {observed_text(observed)}, more than a day "
                f"after it entered the repository ({commit_text(entered)}: {how}): a "
                "measurement is not made after it is stored")
    if observed < EARLIEST:
        epoch = (" (1970-01-01 is the Unix epoch, a placeholder for a time not "
                 "known)") if observed == 0 else ""
        return (f"the run says it was observed at {observed_text(observed)}, before "
                f"{commit_text(EARLIEST)}: no GPU ran such kernels then{epoch}")
    return None


_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)


def observed_text(seconds: int) -> str:
    """Return a run's ``observedAt`` (seconds since the epoch) as RFC 3339 UTC, unclamped.

    Not :func:`~.times.commit_text`, which clamps to 1970-9999 (meant for commit dates): a
    run observed ``0001-01-01T00:00:00Z`` or ``1969-07-20T20:17:00Z`` is quoted as it says,
    not as ``1970-01-01T00:00:00Z`` (reviewer r89 F1).

    Args:
        seconds: seconds since 1970-01-01T00:00:00Z, of a time in years 1-9999.

    Returns:
        ``YYYY-MM-DDTHH:MM:SSZ``.
    """
    try:
        when = _EPOCH + dt.timedelta(seconds=seconds)
    except OverflowError:  # not from a parsed observedAt: years 1-9999 only
        return commit_text(seconds)
    return f"{when.year:04d}" + when.strftime("-%m-%dT%H:%M:%SZ")  # glibc's %Y: 1, not 0001
