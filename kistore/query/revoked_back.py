"""A range's revocation that reaches back and un-counts what counted (KI413 as a warning).

``kistore trust revoke KEY --at EARLIER`` ends a key's trust back to EARLIER: a
maintainer's withdrawal that entered since stops withdrawing, a rerun stops verifying. That
is what revoking a leaked key back to its leak is for, so it is no error; but it is the one
way a counted withdrawal is taken back, the very change KI410 refuses as a narrowing, and
``check``, ``check --landed`` and pre-receive said it as info alone (KI413, KI414) while
KI410's own fix advertised ``--at`` an earlier time as the way around (fresh06 M3). So
:func:`revoked_back` tells the KI413 finding that is a warning: an attestation that counted
under BASE's trust (it withdrew, verified or disagreed) and that HEAD's trust, with a
revocation the range sets or moves earlier, no longer counts. Its message names the line
(its type, key, subject and place) and the revocation.
"""

from __future__ import annotations

from typing import Any

from ..attest.evidence import DISAGREES, NOT_COUNTED, VERIFIES, WITHDRAWS
from ..attest.trust import format_time

COUNTED = (WITHDRAWS, VERIFIES, DISAGREES)
"""Effects by which an attestation changes a run's evidence level or ranking."""

FIX = ("if the key leaked, reaching back is what the revocation is for (what entered since "
       "may be the thief's): say so in the pull request and keep it; otherwise revoke it from "
       "now, `kistore trust revoke KEY` without `--at` (or `--at` a time after what it "
       "signed entered): what the key signed that entered before stays counted")
"""What to do about a revocation reaching back (the warning's fix)."""


def revoked_back(old: Any, new: Any, before: Any, after: Any) -> str:
    """Say how a range's revocation un-counts an attestation that counted, or ``""``.

    Args:
        old: its :class:`kistore.attest.evidence.Judgement` under BASE's trust.
        new: the same attestation's judgement under HEAD's trust (same entry time).
        before: BASE's :class:`kistore.attest.trust.Trust` (as judged: ``held``).
        after: HEAD's.

    Returns:
        ``"; the range's revocation reaches back to before it entered (revokedAt none ->
        R): it counted and counts no more"``; ``""`` when ``old`` did not count, ``new``
        is not ``not-counted`` by a revocation of its key, or the range did not set or
        move that revocation.
    """
    if old.effect not in COUNTED or new.effect != NOT_COUNTED or new.keyid is None:
        return ""
    key = getattr(after, "keys", {}).get(new.keyid)
    was = getattr(before, "keys", {}).get(new.keyid)
    if key is None or key.revoked_at is None or (
            was is not None and was.revoked_at == key.revoked_at):
        return ""
    if not new.reason.startswith(f"key {new.keyid} was revoked at "):
        return ""  # un-counted by more than the revocation (a role dropped: KI410's)
    base = format_time(was.revoked_at) if was is not None and was.revoked_at else "none"
    return (f"; the range's revocation reaches back to before it entered (revokedAt {base} "
            f"-> {format_time(key.revoked_at)}): it counted and counts no more")
