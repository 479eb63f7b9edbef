"""Say a remote's refusal of a ``kistore notes push`` for its dates as the clock it is (fresh07 L2).

``kistore notes push REMOTE`` dates the notes commits REMOTE lacks at the push, by this
machine's clock (:func:`kistore.attest.notes_dated.dated_at_push`). A remote refusing them
as dated off its own clock (KI437, :mod:`kistore.check._notes_clock`) therefore says that
the two clocks differ by minutes, and relaying its fix ("push the notes with `kistore
notes push REMOTE`", what was run) sent the user round in a circle: :func:`clock_refusal`
says how far this machine's clock is from the hook's and to set it right.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime

from ..core.errors import printable
from ..core.times import NOTES_AHEAD, NOTES_BEHIND, duration_text

_CLOCK = re.compile(r"KI437 notes-commit-off-clock: .*?this push's clock "
                    r"\((\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)\)")


def clock_refusal(stderr: str, remote: str, now: datetime) -> str | None:
    """Return why a notes push was refused for this machine's clock, or None.

    Args:
        stderr: ``git push``'s standard error (the remote hook's lines as ``remote: ...``).
        remote: the remote pushed to, as given.
        now: this machine's clock when the push was made (aware).

    Returns:
        One message naming the hook's clock (as its KI437 says it), this machine's, how
        far apart they are (to the second, :func:`kistore.core.times.duration_text`'s
        precise mode, beside what KI437 allows) and what to do; None when the refusal is
        not KI437's or names no clock. Raises nothing.
    """
    found = _CLOCK.search(stderr)
    if found is None:
        return None
    theirs = datetime.strptime(found.group(1), "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)
    ours = now.astimezone(UTC).replace(microsecond=0)
    seconds = int((ours - theirs).total_seconds())
    side = "ahead of" if seconds > 0 else "behind"
    name = printable(remote)
    return (f"git push {name} refused the notes as dated off its clock (KI437): `kistore "
            f"notes push` dated them at this push, {ours.strftime('%Y-%m-%dT%H:%M:%SZ')} by "
            f"this machine's clock, and {name}'s hook read its clock as "
            f"{theirs.strftime('%Y-%m-%dT%H:%M:%SZ')}: this machine's clock is about "
            f"{duration_text(abs(seconds), precise=True)} {side} {name}'s, where KI437 "
            f"allows a notes commit dated up to {duration_text(NOTES_AHEAD)} after the "
            f"server's clock and {duration_text(NOTES_BEHIND)} before it. Set this "
            f"machine's clock right (NTP: `timedatectl set-ntp true`), then run `kistore notes "
            f"push {name}` again: it makes the notes commits again, dated at the push")
