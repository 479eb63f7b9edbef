"""fresh06 M2 (a): a payload's date counts only against revocations recorded by its entry.

A rerun whose payload says ``observedAt`` hours ahead (a rerun farm's clock) entered and
verified its run; revoking the key at now, after it entered, un-counted it ("its signed
payload is dated" past the revocation). Judged here as every reader judges (the work
tree's trust file, then the same revocation committed): it stays counted, and a payload
dated past a revocation recorded *before* it entered stays not counted.
"""

from __future__ import annotations

import datetime as dt

from kistore.attest import notes
from kistore.attest.evidence import SOURCE_NATIVE, VERIFIED, evidence_for
from kistore.attest.trust import revoke_key

from ..conftest import commit_all, next_second
from .test_attestation_evidence import RERUN_KEY, RUN, bundle, keyid, trusted

__all__ = ["trusted"]  # the fixture, used by name


def _ahead(hours: int) -> str:
    when = dt.datetime.now(dt.UTC).replace(microsecond=0) + dt.timedelta(hours=hours)
    return when.strftime("%Y-%m-%dT%H:%M:%SZ")


def test_a_revocation_made_after_a_rerun_dated_ahead_entered_keeps_it_counted(trusted):
    notes.attach(trusted, RUN, bundle(RERUN_KEY, observedAt=_ahead(3)))
    assert evidence_for(trusted, RUN).level == VERIFIED
    next_second()
    revoke_key(trusted.root, keyid(RERUN_KEY))  # at now, in the work tree
    # on BASE 440899c7: source-native, "not-counted: ... its signed payload is dated ..."
    assert evidence_for(trusted, RUN).level == VERIFIED
    commit_all(trusted.root, "rotate the farm's key")
    assert evidence_for(trusted, RUN).level == VERIFIED
    next_second()
    notes.attach(trusted, RUN, bundle(RERUN_KEY, observedAt=_ahead(3), text="again"))
    evidence = evidence_for(trusted, RUN)  # the second entered after the revocation
    assert sorted(a["effect"] for a in evidence.attestations) == ["not-counted", "verifies"]
    assert evidence.level == VERIFIED


def test_a_planned_revocation_recorded_before_entry_holds_the_payload_to_it(trusted):
    revoke_key(trusted.root, keyid(RERUN_KEY), at=dt.datetime.now(dt.UTC)
               + dt.timedelta(hours=1))
    commit_all(trusted.root, "the farm's key ends in an hour")
    next_second()
    dated = _ahead(3)
    notes.attach(trusted, RUN, bundle(RERUN_KEY, observedAt=dated))
    evidence = evidence_for(trusted, RUN)
    assert evidence.level == SOURCE_NATIVE
    [rerun] = evidence.attestations
    assert rerun["reason"].endswith(f"and its signed payload is dated {dated}")
