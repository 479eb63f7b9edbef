"""One meaning per key of a finding's ``extra``: the keys that name a commit, and entry times.

A ``--json`` consumer, and kistore's own code, read a finding's ``extra`` by key across
rules: ``kistore notes push``'s way out (:func:`kistore.cli.attest._way_out`) reads
``extra.entered`` of every refused line as the notes commit the line entered in. KI439 held
its line's entry *time* under that key until 2026-12-07, and the way out printed "entered in
notes commit(s) 2026-12-06T2" (fresh08 L7). So each key here has one meaning in every rule:

- :data:`COMMIT_KEYS`: a commit's full id (40 lowercase hex digits; ``commits``: a list of
  them). ``revokedIn`` may be None (a revocation no commit recorded: the work tree's).
- :data:`TIME_KEYS`: an instant, RFC 3339 UTC with ``Z`` (``2026-12-06T22:01:49Z``).

Not yet so (left as they are): the layout rules a branch's tree walk judges (KI110-KI118,
KI204's gap, a version of a file the history holds: :func:`kistore.check._paths.walk_judge`,
:mod:`kistore.check._metadata_gaps`, ...) carry ``extra.commit`` as their messages name the
commit, ``commit 0123456789ab``, which :func:`extra_problems` says as a problem.
"""

from __future__ import annotations

import re
from typing import Any

COMMIT_KEYS: dict[str, str] = {
    "commit": "the commit the finding is about (a notes commit for a line of the notes "
              "history)",
    "commits": "the commits the finding is about (a list)",
    "entered": "the notes commit a refused line or note entered in, which the push brings",
    "revokedIn": "the commit that recorded the revocation (None: not committed)",
}
"""``extra`` keys whose value names a commit, by its full id: key -> what it names."""

TIME_KEYS: dict[str, str] = {
    "enteredAt": "when the attestation (or run) entered the repository",
    "keyStart": "when the attestation's key starts counting (its validFrom, or the commit "
                "that added it)",
}
"""``extra`` keys whose value is an instant, RFC 3339 UTC: key -> what it is."""

_ID = re.compile(r"[0-9a-f]{40}")
_TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z")


def extra_problems(extra: dict[str, Any]) -> list[str]:
    """Say each key of ``extra`` holding other than its meaning (:data:`COMMIT_KEYS`, ...).

    Args:
        extra: a finding's ``extra`` (:attr:`kistore.core.findings.Finding.extra`).

    Returns:
        One line per key that breaks its meaning, e.g. ``extra.entered holds
        '2026-12-06T22:01:49Z', not a commit id (the notes commit a refused line ...)``;
        empty when every key holds what it names (keys not listed are not judged).
    """
    said = []
    for key, value in extra.items():
        if key in COMMIT_KEYS:
            values = value if key == "commits" and isinstance(value, list) else [value]
            if key == "revokedIn" and value is None:
                continue
            if not values or not all(isinstance(v, str) and _ID.fullmatch(v) for v in values):
                said.append(f"extra.{key} holds {value!r}, not a commit id ({COMMIT_KEYS[key]})")
        elif key in TIME_KEYS and not (isinstance(value, str) and _TIME.fullmatch(value)):
            said.append(f"extra.{key} holds {value!r}, not an RFC 3339 UTC time "
                        f"({TIME_KEYS[key]})")
    return said
