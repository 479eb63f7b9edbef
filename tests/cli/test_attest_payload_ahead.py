"""fresh06 M2, L2: ``attest`` refuses a payload dated ahead of its clock; its wording.

A rerun whose ``--predicate`` said ``observedAt`` three hours ahead (a rerun farm's clock)
was signed and written without a word; its key's planned expiry, or (before the reader
rule of :mod:`kistore.attest.revocations_known`) a revocation at now, then un-counted it.
``attest`` refuses a payload date more than five minutes ahead (KI437's tolerance for a
notes commit), naming the field, the date, the clock and what to do; nothing is written.
"""

from __future__ import annotations

import datetime as dt
import json
import re

import pytest

from kistore.attest.evidence import Judgement
from kistore.attest.payload_dates import ahead_problem
from kistore.cli import attest as attest_cli

from .test_attest_entry_ahead import _date
from .test_attestation_cli import MEASURED, RUN_REF, _notes_and_files, key_file, run

__all__ = ["key_file"]  # the fixture, used by name


@pytest.mark.parametrize(("type_name", "field", "done", "extra"), [
    ("rerun", "observedAt", "observed", MEASURED),
    ("withdrawal", "createdAt", "made", {"reason": "timer bug"}),
])
def test_a_payload_dated_hours_ahead_is_refused(runner, record_store, store_path, key_file,
                                                tmp_path, type_name, field, done, extra):
    stated = _date(dt.datetime.now(dt.UTC) + dt.timedelta(hours=3))
    predicate = tmp_path / "predicate.json"
    predicate.write_text(json.dumps({**extra, field: stated}))
    before = _notes_and_files(store_path)
    result = run(runner, store_path, "attest", RUN_REF, "--type", type_name, "--predicate",
                 str(predicate), "--key", str(key_file))
    # on BASE 440899c7: written, exit 0, not a word
    assert result.exit_code == 1
    clock = re.search(r"machine's clock \((\S+)\)", result.stderr)
    assert clock is not None, result.stderr
    shown = dt.datetime.fromisoformat(clock.group(1))
    assert abs((shown - dt.datetime.now(dt.UTC)).total_seconds()) < 60
    hours, minutes = divmod(int((dt.datetime.fromisoformat(stated) - shown).total_seconds())
                            // 60, 60)  # 2 59 or 3 0: said in core.times.duration_text's words
    span = f"{hours} hour{'s' * (hours != 1)}" + (
        f" {minutes} minute{'s' * (minutes != 1)}" if minutes else "")
    assert result.stderr == (
        f"error: {predicate}:/{field}: the {type_name} about {RUN_REF} was not written: its "
        f"{field}, {stated}, is {span} after this machine's "
        f"clock ({clock.group(1)}), more than the 5 minutes a payload may be ahead: a signed "
        "date counts against its own key (revoked or expired before that date, the key no "
        "longer counts for it), so a date in the future would un-count it early. State when "
        f"it was {done} (RFC 3339, e.g. `date -u +%Y-%m-%dT%H:%M:%SZ`), or leave {field} out "
        "for now, or set this machine's clock right, then attest again\n")
    assert _notes_and_files(store_path) == before


def test_a_payload_a_few_minutes_ahead_is_written(runner, record_store, store_path, key_file,
                                                  tmp_path):
    predicate = tmp_path / "predicate.json"
    predicate.write_text(json.dumps({
        **MEASURED, "observedAt": _date(dt.datetime.now(dt.UTC) + dt.timedelta(minutes=4))}))
    result = run(runner, store_path, "attest", RUN_REF, "--type", "reproduction",
                 "--predicate", str(predicate), "--key", str(key_file))
    assert result.exit_code == 0, result.output


def test_a_rerun_that_will_not_count_says_so(monkeypatch, capsys):
    # fresh06 L2: "it counts as not-counted (key ... expired at ...)"
    reason = "key SHA256:x expired at 2026-12-06T18:55:29Z; the attestation entered ..."
    judged = Judgement("rerun", "SHA256:x", True, "not-counted", reason, "note",
                       "refs/notes/kistore:ab", dt.datetime(2026, 12, 7, 15, 55, 33,
                                                            tzinfo=dt.UTC),
                       outcome="reproduced")

    monkeypatch.setattr("kistore.attest.evidence.judged_many",
                        lambda store, digests: {digests[0]: [(None, judged)]})
    attest_cli._say_if_it_does_not_count(None, "sha256:ab", "rerun", "refs/notes/kistore:ab",
                                         "SHA256:x", {"outcome": "reproduced"})
    assert capsys.readouterr().err == (
        f"warning: this rerun does not verify the run: it will not count: {reason}; "
        "`kistore attestations sha256:ab` lists it\n")


@pytest.mark.parametrize(("seconds", "said"), [
    (354, "5 minutes 54 seconds"), (420, "7 minutes"), (3 * 3600 + 59, "3 hours"),
    (3 * 3600 - 1, "2 hours 59 minutes"), (90_061, "1 day 1 hour")])
def test_a_payload_a_little_more_than_five_minutes_ahead_says_its_seconds(seconds, said):
    # fresh08 L4: "is 5 min after ..., more than the 5 minutes" for 5 min 54 s; since
    # 2026-12-07 in core.times.duration_text's words (its own formatter, _span, is gone)
    now = dt.datetime(2026, 12, 7, 0, 0, tzinfo=dt.UTC)
    stated = now + dt.timedelta(seconds=seconds)
    assert ahead_problem({"observedAt": _date(stated)}, now) == ("observedAt", (
        f"its observedAt, {_date(stated)}, is {said} after this machine's clock "
        "(2026-12-07T00:00:00Z), more than the 5 minutes a payload may be ahead: a signed "
        "date counts against its own key (revoked or expired before that date, the key no "
        "longer counts for it), so a date in the future would un-count it early"))
