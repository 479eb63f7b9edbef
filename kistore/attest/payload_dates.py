"""The dates a signed payload states: not ahead of the clock signing it (fresh06 M2).

A rerun's ``observedAt`` or a withdrawal's ``createdAt`` is the signer's to write, and is
believed only against the signer: its key's revocation and expiry are judged at the later
of the attestation's entry time and that date (:meth:`kistore.attest.trust.TrustedKey.
judge`). A payload dated hours ahead (a rerun farm's clock, a predicate file written by
hand) was signed and written without a word, and then stopped counting once its key's
planned ``validUntil`` fell before that date (the gate refused the expiry, KI410, naming a
date before the entry time). ``kistore attest`` refuses such a payload:
:func:`ahead_problem`. The tolerance is :data:`PAYLOAD_AHEAD`, the five minutes the gate
allows a commit ahead of its clock (KI438, :data:`kistore.core.times.COMMIT_AHEAD`): the
payload is dated by whatever measured or wrote it (a rerun farm's machine, a file written by
hand), and honest clocks differ by that much at most; not KI437's minute for a notes commit
(:data:`kistore.core.times.NOTES_AHEAD`), which ``kistore notes push`` dates itself. The
day ``add`` allows a run's ``observedAt`` (KI227, :data:`kistore.core.times.CLOCK_SKEW`)
is for a measurement's own date, which judges no key.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from ..core.errors import InputError
from ..core.times import COMMIT_AHEAD, duration_text
from .trust import format_time, parse_time

if TYPE_CHECKING:  # pragma: no cover - typing only
    from .signed_by import Signed

PAYLOAD_AHEAD = COMMIT_AHEAD
"""Seconds (five minutes) a payload's ``observedAt``/``createdAt`` may lie after the clock
signing it (:func:`ahead_problem`)."""

DATES = ("observedAt", "createdAt")
"""The predicate fields that date a payload (:func:`kistore.attest.evidence.signed_at`)."""


def ahead_problem(predicate: dict[str, Any], now: datetime) -> tuple[str, str] | None:
    """Return the first payload date more than :data:`PAYLOAD_AHEAD` after ``now``, said.

    Args:
        predicate: the predicate about to be signed.
        now: the clock signing it (UTC-aware).

    Returns:
        ``(field, why)``: the field (``observedAt``) and a sentence naming its date, the
        clock, how far ahead it is and what that date does; None when every date is at
        most five minutes ahead (or none reads as a date: the schema says so).
    """
    now = now.replace(microsecond=0)  # as said: the span is between the two shown
    for name in DATES:
        value = predicate.get(name)
        if not isinstance(value, str):
            continue
        try:
            stated = parse_time(value)
        except InputError:  # not a date: the predicate's schema check names it
            continue
        if stated - now > timedelta(seconds=PAYLOAD_AHEAD):
            ahead = int((stated - now).total_seconds())  # precise: not "5 minutes" (fresh08 L4)
            return name, (
                f"its {name}, {format_time(stated)}, is {duration_text(ahead, precise=True)} "
                f"after this machine's clock ({format_time(now)}), more than "
                f"the {PAYLOAD_AHEAD // 60} minutes a payload may be ahead: a signed date "
                "counts against its own key (revoked or expired before that date, the key "
                "no longer counts for it), so a date in the future would un-count it early")
    return None


def lost_said(lost: Signed, until: datetime) -> str:
    """Say what a ``validUntil`` at ``until`` un-counts, naming the date that counts.

    KI410's ``before its rerun at LOCATION entered the repository at T`` was false on its
    face when ``until`` is after T and it is the payload's later date that counts against
    ``validUntil`` (fresh06 M2): that date is named then.

    Args:
        lost: the attestation the narrowing un-counts (:class:`kistore.attest.signed_by.
            Signed`).
        until: the new ``validUntil`` (UTC).

    Returns:
        ``its rerun at LOC entered the repository at T`` when T is at or after ``until``;
        else ``its rerun at LOC, whose signed payload is dated S, which counts against
        validUntil (it entered the repository at T)``.
    """
    if lost.entered >= until.replace(microsecond=0) or lost.signed is None:
        return lost.said()
    return (f"its {lost.type} at {lost.location}, whose signed payload is dated "
            f"{format_time(lost.signed)}, which counts against validUntil (it entered the "
            f"repository at {format_time(lost.entered)})")
