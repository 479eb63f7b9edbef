"""``kistore notes push`` refused by KI439 says the clock's way out, not a cut date.

KI439 (a new line whose verdict at its notes commit's date differs from the push clock's)
carried its entry time as ``extra.entered`` (``extra.enteredAt`` since 2026-12-07, as
``entered`` names a notes commit in every other rule); the way out of a refused push read
every ``extra.entered`` as a notes commit id and printed "entered in notes commit(s)
2026-12-06T2" (fresh08 L7: a date cut to twelve characters) with a rebuild advice that
does not touch the clock.
"""

from __future__ import annotations

from kistore.check.gate import ENTRY_VERDICT_DIFFERS
from kistore.cli.attest import _way_out
from kistore.core.findings import Finding


def test_a_ki439_refusal_names_the_clock_not_a_notes_commit():
    found = Finding(
        ENTRY_VERDICT_DIFFERS, "the withdrawal by SHA256:k on sha256:ab enters ...",
        file="refs/notes/kistore:0123456789abcdef0123456789abcdef01234567",
        extra={"keyid": "SHA256:k", "enteredAt": "2026-12-06T22:01:49Z",
               "clock": "2026-12-06T22:09:49Z", "effect": "community", "now": "withdraws"})
    said = _way_out([found], "origin")
    # on 92d25970: "the refused line(s) entered in notes commit(s) 2026-12-06T2, which
    # origin lacks ... `kistore notes rebase origin` ..."
    assert said == (
        "a line KI439 names is judged at its notes commit's date: set this machine's clock "
        "right, then run `kistore notes push origin` again (it dates notes commits more "
        "than a minute off the clock at the push)")


def test_a_ki439_refusal_held_by_a_parent_notes_commit_does_not_blame_this_clock():
    # fresh08 M2: the lateness came from a parent notes commit dated ahead, which KI439's
    # own fix names (a fix of its own, not the rule's); the way out said "set this
    # machine's clock right", which was right already
    found = Finding(
        ENTRY_VERDICT_DIFFERS, "the withdrawal by SHA256:k on sha256:ab enters ...",
        file="refs/notes/kistore:0123456789abcdef0123456789abcdef01234567",
        extra={"keyid": "SHA256:k", "entered": "2026-12-06T22:17:26Z",
               "clock": "2026-12-06T22:13:30Z", "effect": "withdraws", "now": "community"},
        fix="this machine's clock is not the cause: notes commit 0123456789ab ...")
    assert _way_out([found], "origin") == (
        "a line KI439 names enters at the date of a notes commit it is built on, dated "
        "ahead of its own: KI439's fix above names it and says what to do (this machine's "
        "clock is not the cause)")
