"""fresh04 M1: a key revoked back to before what it signed entered leaves ``verify`` green.

``kistore trust revoke KEY --at EARLIER`` is how a key's trust ends. Of a maintainer key
whose withdrawal entered after EARLIER, the gate said ok, and then ``kistore verify`` on
main failed for good: error KI302 ("key ... was revoked at ...") with a fix that could not
apply (KI410 keeps the file, KI412 the revocation). Such an attestation is evidence that
no longer counts, listed ``not-counted``; ``verify`` says so as info (KI314). KI302 stays
an error for what is wrong: an attestation that entered after the revocation was on main.
"""

from __future__ import annotations

import json

import pytest

from kistore.attest import attestation, notes, signing
from kistore.core import layout
from kistore.store import Store

from ..attest.test_attestation_evidence import MAINTAINER_KEY, RUN, bundle
from ..conftest import PUBLISHED, git, next_second
from ..prs import Remote, soon
from .test_evidence_every_commit import KEYID, withdrawn

EARLIER = "2026-01-01T00:00:00Z"


@pytest.fixture
def server(published, tmp_path) -> Remote:
    """Main holds the maintainer key, trusted, then its withdrawal file, entered an hour on."""
    server = Remote(published, tmp_path)
    key = signing.public_key_line(MAINTAINER_KEY.public_key())
    assert server.pr("trust", lambda c: server.kistore(
        "trust", "add", key, "--role", "maintainer", "--comment", "maintainer")).accepted
    data = bundle(MAINTAINER_KEY, "withdrawal")
    assert server.pr("withdraw", lambda c: notes.attach(Store(c), RUN, data, as_file=True),
                     date=soon(1)).accepted
    return server


def findings(server, *rules: str) -> tuple[int, list[dict]]:
    done = server.kistore("verify", "--json", check=False)
    return done.returncode, [f for f in json.loads(done.stdout)["findings"]
                             if f["rule"] in rules]


def another_withdrawal() -> bytes:
    statement = attestation.make_statement(
        RUN, layout.object_path(RUN), "withdrawal",
        {"reason": "signed after the revocation", "createdAt": "2026-07-11T00:00:00Z"})
    return attestation.sign_statement(statement, MAINTAINER_KEY).to_bytes()


def test_revoking_back_to_before_a_withdrawal_leaves_verify_green(server):
    data = bundle(MAINTAINER_KEY, "withdrawal")
    path = notes.attestation_path(RUN, data)
    next_second()  # the note in a second of its own: in the trust commit's, it is community
    server.kistore("notes", "sync")  # the file is a note too, pushed before the revocation
    assert server.push("refs/notes/kistore").accepted
    blob = git(server.clone, "rev-parse", f"HEAD:{layout.object_path(RUN)}").strip()
    note = f"refs/notes/kistore:{blob}"
    said = json.loads(server.kistore("attestations", PUBLISHED["run"], "--json").stdout)
    entered = said["attestations"][0]["enteredAt"]
    assert server.pr("revoke the maintainer back to January", lambda c: server.kistore(
        "trust", "revoke", KEYID, "--at", EARLIER), date=soon(2)).accepted
    revoking = server.main()
    assert not withdrawn(server)  # the withdrawal no longer counts ...
    said = json.loads(server.kistore("attestations", PUBLISHED["run"], "--json").stdout)
    assert [(a["effect"], a["counted"]) for a in said["attestations"]] == [("not-counted", False)]
    code, found = findings(server, "KI302", "KI314")
    assert code == 0, found  # ... and verify stays green (it failed with KI302 before)
    reason = (f"key {KEYID} was revoked at {EARLIER}; the attestation entered the repository "
              f"at {entered}")
    assert [(f["rule"], f["severity"], f["file"], f["message"]) for f in found] == [
        ("KI314", "info", where,
         f"withdrawal by {KEYID} ({source}): not counted: {reason}; the revocation was "
         f"recorded after it entered (by commit {revoking[:12]}), so it counts for nothing: "
         "a revocation ends a key's trust back to its time (listed not-counted)")
        for where, source in ((note, "note"), (path, "file"))]
    assert found[0]["extra"]["revokedIn"] == revoking
    assert found[0]["hint"].startswith("Nothing to fix: revoking a key")
    text = server.kistore("verify").stdout
    assert f"{path}: info KI314 attestation-key-revoked-since: withdrawal by" in text
    assert "KI302" not in text


def test_a_withdrawal_added_after_the_revocation_is_still_refused(server):
    assert server.pr("revoke the maintainer back to January", lambda c: server.kistore(
        "trust", "revoke", KEYID, "--at", EARLIER), date=soon(2)).accepted
    late = another_withdrawal()
    path = notes.attestation_path(RUN, late)
    add = server.pr("withdraw again", lambda c: notes.attach(Store(c), RUN, late, as_file=True),
                    date=soon(3))
    assert not add.accepted
    assert (f"{path}: error KI302 attestation-role-not-trusted: withdrawal by {KEYID} (file): "
            f"key {KEYID} was revoked at {EARLIER}; the attestation entered the repository at "
            ) in add.output
    # landed past the hook, verify says it as the error it is; the old withdrawal is info
    assert server.pr("withdraw again", lambda c: notes.attach(Store(c), RUN, late, as_file=True),
                     hook=False, date=soon(3)).accepted
    code, found = findings(server, "KI302", "KI314")
    assert code == 1
    old = notes.attestation_path(RUN, bundle(MAINTAINER_KEY, "withdrawal"))
    assert sorted((f["rule"], f["severity"], f["file"]) for f in found) == [
        ("KI302", "error", path), ("KI314", "info", old)]
