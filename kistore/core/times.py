"""Times as kistore writes them: commit times (seconds since the epoch) as RFC 3339 UTC.

This module knows numbers and text only: no git, no I/O.
"""

from __future__ import annotations

import datetime as dt
import re


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


def parse_rfc3339(text: str) -> dt.datetime | None:
    """Return an RFC 3339 date-time (a stored ``observedAt``, say) as an aware datetime, or None.

    The one reader of stored date-times (KI227's :mod:`kistore.core.observed`, export's
    timestamp columns). Only RFC 3339's form (:data:`_RFC3339`): Python's
    ``fromisoformat`` alone also took ISO 8601's other forms (``20260101T000000Z``, week
    dates) and ignored whatever follows a NUL (``...Z\\x00junk``). A lower-case ``t`` or
    ``z`` (RFC 3339 §5.6 admits them; the schema's checker does not) reads as upper case;
    fractions past the microsecond are truncated.

    Args:
        text: the date-time as stored, e.g. ``2026-07-10T06:41:58.611+02:00``.

    Returns:
        The datetime in its stated offset (not converted: ``9999-12-31T23:59:59-12:00``
        lies in UTC year 10000, which ``astimezone(dt.UTC)`` cannot hold, and the caller
        decides what to do with it); None when ``text`` is not a date-time, has no offset,
        or states what Python cannot hold (a leap second ``:60``).
    """
    if not _RFC3339.fullmatch(text):
        return None
    try:
        when = dt.datetime.fromisoformat(text.replace("z", "Z"))
    except ValueError:
        return None
    return when


_RFC3339 = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt][0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?"
                      r"([Zz]|[+-][0-9]{2}:[0-9]{2})")
"""RFC 3339 §5.6 ``date-time``'s shape (the values are fromisoformat's to judge)."""


LAST_SECOND = 253402300799
"""9999-12-31T23:59:59Z: the last second Python's :class:`datetime.datetime` holds."""

FIRST_SECOND = 0
"""1970-01-01T00:00:00Z: the first second a git commit time can say (git writes none before)."""


def representable(seconds: int) -> bool:
    """Tell whether a commit time lies in years 1970-9999, which kistore can represent.

    Args:
        seconds: seconds since the Unix epoch (a git author or committer time).

    Returns:
        True when ``FIRST_SECOND <= seconds <= LAST_SECOND``.
    """
    return FIRST_SECOND <= seconds <= LAST_SECOND


def commit_datetime(seconds: int) -> dt.datetime:
    """Return a stored commit's time as an aware UTC datetime, never raising.

    The one reader of commit times for datetimes (citations, entry times of attestations):
    git accepts any time a committer writes (``GIT_COMMITTER_DATE='@253402300800 +0000'``
    is year 10000, review r79 F2), and a stored commit cannot be rewritten, so a time
    outside years 1970-9999 is clamped to the nearest second kistore can represent
    (:data:`FIRST_SECOND`, :data:`LAST_SECOND`); :func:`out_of_range` says so for a
    caller's warning. ``kistore check`` refuses such commits (KI428).

    Args:
        seconds: seconds since the Unix epoch.

    Returns:
        The time, clamped into 1970-01-01T00:00:00Z..9999-12-31T23:59:59Z.
    """
    return dt.datetime.fromtimestamp(_clamped(seconds), dt.UTC)


def commit_text(seconds: int) -> str:
    """Return a stored commit's time as :func:`utc_text` does, clamped as :func:`commit_datetime`.

    Args:
        seconds: seconds since the Unix epoch.

    Returns:
        ``YYYY-MM-DDTHH:MM:SSZ`` between ``1970-01-01T00:00:00Z`` and ``9999-12-31T23:59:59Z``.
    """
    return utc_text(_clamped(seconds))


def duration_text(seconds: int, *, precise: bool = False) -> str:
    """Say a length of time in its largest whole unit, rounded down (``20 hours``).

    The one wording of how far apart two times are in a message (KI434's "3 minutes before
    this push", KI437's "19 hours after this push's clock", ``kistore attest``'s payload
    date "5 minutes 54 seconds after this machine's clock").

    Args:
        seconds: the length in seconds (a negative one is said as ``0 seconds``).
        precise: say what is left in the next smaller unit too, when it is one or more
            (``354`` -> ``5 minutes 54 seconds``, ``10799`` -> ``2 hours 59 minutes``):
            where a bound is named beside it ("more than the 5 minutes a payload may be
            ahead"), ``5 minutes`` read as within it (fresh08 L4).

    Returns:
        ``N days``, ``N hours``, ``N minutes`` or ``N seconds`` (the singular for 1): the
        largest unit of which ``seconds`` holds one or more, e.g. ``3599`` -> ``59
        minutes``, ``86400`` -> ``1 day``; ``precise``: then the rest in the next unit.
    """
    seconds = max(0, seconds)
    units = (("day", 86_400), ("hour", 3600), ("minute", 60), ("second", 1))
    for (unit, size), (_, smaller) in zip(units, units[1:], strict=False):
        if seconds >= size:
            count, rest = divmod(seconds, size)
            said = f"{count} {unit}{'s' if count != 1 else ''}"
            if precise and rest >= smaller:
                said += f" {duration_text(rest - rest % smaller)}"
            return said
    return f"{seconds} second{'s' if seconds != 1 else ''}"


def _clamped(seconds: int) -> int:
    """Return ``seconds`` moved into :data:`FIRST_SECOND`..:data:`LAST_SECOND`."""
    return min(max(seconds, FIRST_SECOND), LAST_SECOND)


def out_of_range(seconds: int) -> str | None:
    """Say why a commit time cannot be represented, or None when it can.

    Args:
        seconds: seconds since the Unix epoch.

    Returns:
        e.g. ``"253402300800 s since the epoch, past 9999-12-31T23:59:59Z (the last second
        kistore can represent), read as 9999-12-31T23:59:59Z"``; None for a time in years
        1970-9999.
    """
    if representable(seconds):
        return None
    bound, side = ((LAST_SECOND, "past") if seconds > LAST_SECOND
                   else (FIRST_SECOND, "before"))
    edge = "last" if side == "past" else "first"
    return (f"{seconds} s since the epoch, {side} {utc_text(bound)} (the {edge} second "
            f"kistore can represent), read as {utc_text(bound)}")


CLOCK_SKEW = 86_400
"""Seconds (one day) a commit may be dated after the checking clock, or its committer date
before a parent's, and still be believed (clocks of honest machines disagree a little).
``kistore check`` refuses commits past it (KI428); entry times of attestations
(:mod:`kistore.attest.notes`) do not believe a date past the clock by more."""

NOTES_AHEAD = 60
"""Seconds (one minute) a notes commit a push brings may be dated after the receiving
server's clock (KI437, :mod:`kistore.check._notes_clock`): a note line enters the repository
at its notes commit's date, so that date must be the push's.

Much less than :data:`COMMIT_AHEAD`, because it is every note's lateness: a note line's
entry is its notes commit's date held up to its ancestors' (:class:`kistore.attest.notes.
Clock`), every notes commit is built on the notes tip, and anyone may push one (a community
note), so a notes commit dated this far ahead holds every later line that late, a
maintainer's honest withdrawal too, which then enters after its key's planned
``validUntil`` (fresh08 M2); and a line the server held before a trust push, dated this far
ahead, crosses a ``validFrom`` set between its receipt and its date (fresh08 M1). Honest
notes commits are not dated ahead: ``kistore notes push`` dates the ones it sends at the
push (:data:`kistore.attest.notes_dated.RECENT`), on the pushing machine's clock, before the
server reads its own; so only the two clocks' difference is left, and NTP keeps it far
under a minute. A reader cannot know the server's clock, so the window cannot be closed on
the reading side: what is left of both findings is this minute (docs/attestations.md,
"Which dates are trusted"). Commits of branches keep :data:`COMMIT_AHEAD`: they are made
by hand, not dated at their push, and what lands on the protected branch is reviewed, so
nobody moves its tip ahead at will as anyone can the notes'."""

NOTES_BEHIND = 600
"""Seconds (ten minutes) a notes commit a push brings may be dated before the receiving
server's clock (KI437): time for ``kistore attest`` then ``git push`` by hand; an older one
is made again at the push by ``kistore notes push`` (:data:`NOTES_AHEAD`)."""

COMMIT_AHEAD = 300
"""Seconds (five minutes) a commit a range brings may be dated after the checking clock
(KI438, :mod:`kistore.check._commit_clock`): an attestation file enters the repository at
the committer date of the commit that brings it, held up to its ancestors', so a commit
dated hours ahead moves every later file's entry hours ahead (fresh06 L6). The clocks of
honest machines agree within it; :data:`CLOCK_SKEW` is what history already landed is
read with."""


