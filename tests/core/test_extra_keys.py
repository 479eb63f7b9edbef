"""One meaning per ``extra`` key: ``entered`` names a commit, ``enteredAt`` is a time.

KI439 held its line's entry time as ``extra.entered``, which every other notes rule uses
for the notes commit a refused line entered in; ``kistore notes push``'s way out read it as
one and printed "entered in notes commit(s) 2026-12-06T2" (fresh08 L7). The scenario modules
of the notes rules (tests/check/test_notes_entry_verdict.py and others) hold every finding
they make to :func:`kistore.core.extra_keys.extra_problems` (the ``extra_keys_kept``
fixture); here, the check itself.
"""

from __future__ import annotations

import pytest

from kistore.core.extra_keys import COMMIT_KEYS, TIME_KEYS, extra_problems

ID = "0123456789abcdef0123456789abcdef01234567"


def test_ki439_s_old_extra_is_said_and_its_new_one_passes():
    old = {"keyid": "SHA256:k", "entered": "2026-12-06T22:01:49Z",
           "clock": "2026-12-06T22:09:49Z", "effect": "community", "now": "withdraws"}
    assert extra_problems(old) == [
        "extra.entered holds '2026-12-06T22:01:49Z', not a commit id (the notes commit a "
        "refused line or note entered in, which the push brings)"]
    new = {**{k: v for k, v in old.items() if k != "entered"},
           "enteredAt": "2026-12-06T22:01:49Z"}
    assert extra_problems(new) == []


@pytest.mark.parametrize(("extra", "said"), [
    ({"entered": ID, "commit": ID, "commits": [ID, ID], "revokedIn": None}, []),
    ({"enteredAt": "2026-12-06T22:01:49.250000Z"}, []),
    ({"commit": f"commit {ID[:12]}"}, [
        f"extra.commit holds 'commit {ID[:12]}', not a commit id ({COMMIT_KEYS['commit']})"]),
    ({"commit": ID.upper()}, [
        f"extra.commit holds '{ID.upper()}', not a commit id ({COMMIT_KEYS['commit']})"]),
    ({"commits": [ID, ID[:12]]}, [
        f"extra.commits holds {[ID, ID[:12]]!r}, not a commit id ({COMMIT_KEYS['commits']})"]),
    ({"entered": ""}, [f"extra.entered holds '', not a commit id ({COMMIT_KEYS['entered']})"]),
    ({"enteredAt": 1790812800}, [  # KI227's `entered` until 2026-12-07: seconds
        f"extra.enteredAt holds 1790812800, not an RFC 3339 UTC time "
        f"({TIME_KEYS['enteredAt']})"]),
    ({"enteredAt": "2026-12-06T22:01:49+01:00"}, [
        f"extra.enteredAt holds '2026-12-06T22:01:49+01:00', not an RFC 3339 UTC time "
        f"({TIME_KEYS['enteredAt']})"]),
    ({"start": "anything", "old": "x"}, []),  # keys not listed are not judged
])
def test_each_listed_key_holds_what_it_names(extra, said):
    assert extra_problems(extra) == said
