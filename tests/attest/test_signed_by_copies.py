"""A bundle's copies judged together by KI410 and KI435, as readers judge them (review01 M5).

The same bundle bytes can be held twice: as a note line and as an attestation file.
Readers (:func:`kistore.attest.evidence.judge_all`) judge both at the earliest copy's entry,
or, when that leaves it a community attestation, at the entry of a committed file copy that
entered later and counts there. KI410 (:func:`kistore.attest.signed_by.uncounted`) and
KI435 judged each copy at its own entry, so they disagreed with readers both ways.
"""

from __future__ import annotations

import datetime as dt

from kistore.attest.signed_by import Signed, counted_any, counts, judged_copy, uncounted
from kistore.attest.trust import TrustedKey

T0 = dt.datetime(2026, 12, 6, 12, 0, tzinfo=dt.UTC)
KEY = TrustedKey("SHA256:k", "ssh-ed25519 AAAA", ("maintainer",), valid_from=T0)


def _copy(minutes: int, path: str = "", bundle: str = "b1") -> Signed:
    where = path or "refs/notes/kistore:" + "0" * 40
    return Signed("SHA256:k", "maintainer", "withdrawal", T0 + dt.timedelta(minutes=minutes),
                  None, where, path, bundle)


FILE = "store/attestations/ab/cd.json"


def test_a_note_copy_before_the_start_counts_with_its_later_file_copy():
    note, filed = _copy(-30), _copy(30, FILE)
    held = [note, filed]
    assert counts(KEY, note, held) and counts(KEY, filed, held)
    # alone (no copy held with it), the note entered before the key's validFrom
    assert not counts(KEY, note, [note])
    # KI435's question: does an earlier start make the note newly count? no: it counts
    wider = TrustedKey("SHA256:k", "ssh-ed25519 AAAA", ("maintainer",),
                       valid_from=T0 - dt.timedelta(hours=1))
    assert [s for s in held if not counts(KEY, s, held) and counts(wider, s, held)] == []


def test_a_note_copy_after_the_start_does_not_count_when_its_file_copy_entered_first():
    # the other way round (KI410): the file entered before the start (community), the note
    # copy after it: readers judge both at the file's entry, community: a later start takes
    # nothing back (per copy, the note was "uncounted": a false refusal)
    filed, note = _copy(-30, FILE), _copy(30)
    held = [note, filed]
    assert not counts(KEY, note, held)
    later = TrustedKey("SHA256:k", "ssh-ed25519 AAAA", ("maintainer",),
                       valid_from=T0 + dt.timedelta(hours=1))
    assert uncounted(KEY, later, held) is None
    assert counted_any(KEY, held) is None
    # a note copy alone after the start counts, and a later start takes it back
    lone = _copy(30, bundle="b2")
    assert uncounted(KEY, later, [*held, lone]) == lone
    assert counted_any(KEY, [*held, lone]) == lone


def test_a_later_note_copy_upgrades_nothing_and_the_last_counting_file_copy_is_chosen():
    first = _copy(-30)
    copies = [first, _copy(10), _copy(20, FILE), _copy(40, "store/attestations/ef/01.json")]
    chosen = judged_copy(copies, first.entered, lambda s: s.entered, lambda s: bool(s.path),
                         lambda s: KEY.judge(s.role, s.entered, s.signed) is None)
    assert chosen is copies[3]
    assert judged_copy(copies[:2], first.entered, lambda s: s.entered, lambda s: bool(s.path),
                       lambda s: True) is None
