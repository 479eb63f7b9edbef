"""``kistore notes push`` refused for this machine's clock says so (fresh07 L2).

``kistore notes push`` dates the notes commits the remote lacks at the push, by this
machine's clock; a remote's KI437 refusal then means the clocks differ, and relaying its
fix ("push the notes with `kistore notes push REMOTE`") named what had been run.
"""

from __future__ import annotations

import datetime as dt

from kistore.attest.push_clock import clock_refusal

# the remote hook's lines as `git push` relays them (fresh07's k437msg, clock +7 min)
_REFUSED = (
    "remote: (store): error KI437 notes-commit-off-clock: notes commit 26628799f3e7, which "
    "this push of refs/notes/kistore brings, is dated 2026-12-06T20:59:15Z, 6 minutes after "
    "this push's clock (2026-12-06T20:52:18Z): a note line enters the repository at its notes "
    "commit's date, so a notes commit a push brings must be dated at the push\n"
    "remote: fix KI437 (1 finding): push the notes with `kistore notes push REMOTE`, REMOTE "
    "being your repository's name for this one\n"
    "remote: FAILED: 1 ref update(s): 1 error, 0 warnings, 0 info\n"
    " ! [remote rejected] 26628799f3e7 -> refs/notes/kistore (pre-receive hook declined)\n")


def test_a_clock_seven_minutes_fast_is_named():
    ours = dt.datetime(2026, 12, 6, 20, 59, 16, 400_000, tzinfo=dt.UTC)
    # on BASE 440899c7: "git push origin failed: remote: ... fix KI437 (1 finding): push
    # the notes with `kistore notes push REMOTE`" (what was run)
    assert clock_refusal(_REFUSED, "origin", ours) == (
        "git push origin refused the notes as dated off its clock (KI437): `kistore notes "
        "push` dated them at this push, 2026-12-06T20:59:16Z by this machine's clock, and "
        "origin's hook read its clock as 2026-12-06T20:52:18Z: this machine's clock is about "
        "6 minutes 58 seconds ahead of origin's, where KI437 allows a notes commit dated up "
        "to 1 minute after the server's clock and 10 minutes before it. Set this machine's "
        "clock right (NTP: `timedatectl set-ntp true`), then run `kistore notes push origin` "
        "again: it makes the notes commits again, dated at the push")


def test_a_slow_clock_and_other_refusals():
    ours = dt.datetime(2026, 12, 6, 20, 40, 21, tzinfo=dt.UTC)
    # to the second, beside what KI437 allows (msg03: "about 12 minutes" until 2026-12-07)
    assert "this machine's clock is about 11 minutes 57 seconds behind origin's, " in (
        clock_refusal(_REFUSED, "origin", ours) or "")
    assert clock_refusal("remote: error KI411 new-attestation-key-not-trusted: ...", "origin",
                         ours) is None
