"""fresh06 M2, M3: payload dates ahead of the clock, and revocations that reach back.

M2 (a): a rerun whose signed payload says ``observedAt`` three hours ahead (a rerun farm's
clock) entered as a note and counted; a plain ``kistore trust revoke KEY`` minutes later
(at now, after the rerun entered) un-counted it, the payload's date being believed against
a revocation recorded after the rerun entered. It counts now; a revocation recorded
*before* an attestation entered is still held against its payload's date.
M2 (b): ``trust add KEY --valid-until now+1h`` of that key was written, exit 0, and the
gate refused it, saying "before its rerun ... entered the repository at" a time before the
``validUntil``: both now refuse it, naming the payload's date that counts.
M3: ``trust revoke KEY --at EARLIER`` un-counted a maintainer's counted withdrawal with
info only (KI413, KI414), while KI410's fix advertised it as the way around a narrowing:
it is a KI413 warning now, and KI410's fix says it is no way around.
"""

from __future__ import annotations

import datetime as dt
import json

import pytest

from kistore.attest import notes, signing
from kistore.store import Store

from ..attest.test_attestation_evidence import MAINTAINER_KEY, RERUN_KEY, RUN, bundle
from ..conftest import PUBLISHED, git, next_second
from ..prs import Remote, soon
from .test_evidence_every_commit import withdrawn

RERUN_ID = signing.keyid(RERUN_KEY.public_key())
MAINTAINER_ID = signing.keyid(MAINTAINER_KEY.public_key())
TRUST = "store/trust/keys.json"


def ahead(hours: float) -> str:
    """An RFC 3339 instant ``hours`` from now (UTC, whole seconds)."""
    when = dt.datetime.now(dt.UTC).replace(microsecond=0) + dt.timedelta(hours=hours)
    return when.strftime("%Y-%m-%dT%H:%M:%SZ")


@pytest.fixture
def farm(published, tmp_path) -> tuple[Remote, str, str]:
    """Main trusts RERUN_KEY; its rerun, payload dated three hours ahead, is a pushed note.

    Returns:
        The server, the note's location and the payload's date.
    """
    server = Remote(published, tmp_path)
    assert server.pr("trust the farm", lambda c: server.kistore(
        "trust", "add", signing.public_key_line(RERUN_KEY.public_key()), "--role", "rerun",
        "--comment", "farm")).accepted
    next_second()
    dated = ahead(3)
    notes.attach(Store(server.clone), RUN, bundle(RERUN_KEY, "rerun", observedAt=dated))
    assert server.push("refs/notes/kistore").accepted  # KI411 at the push clock: valid
    next_second()
    blob = git(server.clone, "rev-parse", f"HEAD:store/objects/sha256/{RUN.hex[:2]}/"
               f"{RUN.hex[2:]}.json").strip()
    return server, f"refs/notes/kistore:{blob}", dated


def effects(server: Remote) -> list[tuple[str, str]]:
    said = json.loads(server.kistore("attestations", PUBLISHED["run"], "--json").stdout)
    return [(a["type"], a["effect"]) for a in said["attestations"]]


def test_a_revocation_at_now_keeps_a_rerun_dated_ahead_counted(farm):
    server, _note, _dated = farm
    assert effects(server) == [("rerun", "verifies")]
    revoke = server.pr("rotate the farm's key", lambda c: server.kistore(
        "trust", "revoke", RERUN_ID))
    assert revoke.accepted, revoke.output
    # on BASE 440899c7: "info KI414 ... verified -> source-native", and `attestations` said
    # "not-counted: key ... was revoked at T; the attestation entered the repository at E
    # and its signed payload is dated E+3h" (verify: KI314)
    assert "KI414" not in revoke.output and "KI413" not in revoke.output
    said = json.loads(server.kistore("attestations", PUBLISHED["run"], "--json").stdout)
    assert (said["evidenceLevel"], [(a["effect"], a["counted"]) for a in said["attestations"]]) == (
        "verified", [("verifies", True)])
    done = server.kistore("verify", "--json")
    assert [f["rule"] for f in json.loads(done.stdout)["findings"]
            if f["rule"] in ("KI302", "KI314")] == []


def test_a_revocation_recorded_before_entry_holds_the_payload_to_it(farm):
    server, _note, dated = farm
    planned = ahead(1)
    assert server.pr("the farm's key ends in an hour", lambda c: server.kistore(
        "trust", "revoke", RERUN_ID, "--at", planned)).accepted
    assert effects(server) == [("rerun", "verifies")]  # recorded after it entered
    next_second()
    late = bundle(RERUN_KEY, "rerun", observedAt=dated, text="again")
    notes.attach(Store(server.clone), RUN, late)
    pushed = server.push("refs/notes/kistore")  # the gate refuses it (KI411) ...
    assert not pushed.accepted
    assert "error KI411 new-attestation-key-not-trusted" in pushed.output
    assert server.push("refs/notes/kistore", hook=False).accepted  # ... landed past it:
    said = json.loads(server.kistore("attestations", PUBLISHED["run"], "--json").stdout)
    # the first still counts; the second entered after the revocation was recorded
    assert sorted(effects(server)) == [("rerun", "not-counted"), ("rerun", "verifies")]
    reasons = [a["reason"] for a in said["attestations"] if a["effect"] == "not-counted"]
    assert reasons[0].startswith(f"key {RERUN_ID} was revoked at {planned}; the attestation "
                                 "entered the repository at ")
    assert reasons[0].endswith(f" and its signed payload is dated {dated}")


def test_a_planned_expiry_before_the_payload_date_is_refused_naming_it(farm):
    server, note, dated = farm
    entered = json.loads(server.kistore("attestations", PUBLISHED["run"], "--json").stdout)[
        "attestations"][0]["enteredAt"]
    before = (server.clone / TRUST).read_bytes()
    until = ahead(1)
    refused = server.kistore("trust", "add", signing.public_key_line(RERUN_KEY.public_key()),
                             "--role", "rerun", "--valid-until", until, check=False)
    # on BASE 440899c7: "trusted ... for rerun", exit 0, and the gate refused the commit
    narrows = (f"validUntil none -> {until}, before its rerun at {note}, whose signed payload "
               f"is dated {dated}, which counts against validUntil (it entered the repository "
               f"at {entered})")
    assert (refused.returncode, refused.stderr) == (1, (
        f"error: key {RERUN_ID}: not changed: its entry as HEAD holds it (roles rerun; "
        f"validFrom none; validUntil none) would become (roles rerun; validFrom none; "
        f"validUntil {until}), which narrows it ({narrows}); a key's trust is never narrowed "
        "after the fact (what it signed and entered before would stop counting), and "
        "`kistore check` refuses such a change (KI410). To end the key's trust, revoke it: "
        f"`kistore trust revoke {RERUN_ID} --at {until}` (nothing it signs from then on "
        "counts, and what it signed that entered before stays counted; a revocation is kept "
        "for good, KI412; `--at` an earlier time reaches back and un-counts what entered "
        "since, a withdrawal included: for a leaked key, and `kistore check` warns of each, "
        "KI413); nothing was written\n"))
    assert (server.clone / TRUST).read_bytes() == before

    def by_hand(clone) -> None:
        doc = server.read_json(TRUST)
        doc["keys"][0]["validUntil"] = until
        server.write_json(TRUST, doc)

    pushed = server.pr("the farm's key ends in an hour", by_hand)
    assert not pushed.accepted
    # on BASE: "..., before its rerun at NOTE entered the repository at E)", E before until
    assert f"narrows the entry of key {RERUN_ID} in the trust file ({narrows})" in pushed.output
    assert ("`kistore trust revoke KEY` without `--at`" not in pushed.output)  # KI413's fix
    assert (f"revoke it in a new commit instead: `kistore trust revoke {RERUN_ID}` (from now: "
            "nothing it signs from then on counts, and what it signed that entered before "
            "stays counted; `--at` an earlier time is no way around this: it un-counts what "
            "entered since, a withdrawal included, and is for a leaked key, `kistore check` "
            "warning of each, KI413)") in pushed.output.replace("\nremote: ", " ")
    # the revocation it names instead keeps the rerun counted (recorded after it entered)
    assert server.pr("the farm's key ends in an hour", lambda c: server.kistore(
        "trust", "revoke", RERUN_ID, "--at", until)).accepted
    assert effects(server) == [("rerun", "verifies")]


def test_revoking_back_to_before_a_counted_withdrawal_is_a_warning(published, tmp_path):
    server = Remote(published, tmp_path)
    assert server.pr("trust", lambda c: server.kistore(
        "trust", "add", signing.public_key_line(MAINTAINER_KEY.public_key()), "--role",
        "maintainer", "--comment", "maintainer")).accepted
    data = bundle(MAINTAINER_KEY, "withdrawal")
    path = notes.attestation_path(RUN, data)
    assert server.pr("withdraw", lambda c: notes.attach(Store(c), RUN, data, as_file=True),
                     date=soon(1)).accepted
    assert withdrawn(server)
    entered = json.loads(server.kistore("attestations", PUBLISHED["run"], "--json").stdout)[
        "attestations"][0]["enteredAt"]
    revoke = server.pr("the maintainer key leaked in January", lambda c: server.kistore(
        "trust", "revoke", MAINTAINER_ID, "--at", "2026-01-01T00:00:00Z"), date=soon(2))
    assert revoke.accepted, revoke.output  # a leaked key is a reason: no error
    # on BASE 440899c7: "info KI413 ...: withdraws -> not-counted (...)", 0 warnings
    lines = revoke.output.replace("\nremote: ", " ")
    assert (f"{path}: warning KI413 attestation-starts-or-stops-counting: withdrawal "
            f"by {MAINTAINER_ID} on {RUN}: withdraws -> not-counted (key {MAINTAINER_ID} was "
            "revoked at 2026-01-01T00:00:00Z; the attestation entered the repository at "
            f"{entered}); the range's revocation reaches back to before it entered (revokedAt "
            "none -> 2026-01-01T00:00:00Z): it counted and counts no more") in lines
    assert ("fix KI413 (1 finding): if the key leaked, reaching back is what the revocation "
            "is for (what entered since may be the thief's): say so in the pull request and "
            "keep it; otherwise revoke it from now, `kistore trust revoke KEY` without `--at` "
            "(or `--at` a time after what it signed entered): what the key signed that "
            "entered before stays counted") in lines
    assert "0 errors, 1 warning, 2 info" in revoke.output
    assert not withdrawn(server)
