"""``notes sync`` and ``attestations`` after the key of an attached file stops counting.

Reviewer fresh03 H5: a withdrawal filed, committed and attached by ``kistore notes sync``
while its key was trusted; then the key revoked (or its ``validUntil`` passed, no commit
at all). Every later ``notes sync`` judged the file as a note made now, refused to attach
what was attached long ago ("the attestation entered the repository at NOW") and exited 1;
``attestations`` listed it twice, "from note" and "from file", where it had said
"note+file". Trust changes what counts, never identity: the note line and the file are the
same bundle bytes.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import time
from datetime import UTC, datetime, timedelta

from kistore.attest import attestation, notes, signing
from kistore.attest.evidence import UNPUSHED_NOTE
from kistore.attest.trust import add_key, format_time
from kistore.core import layout

from ..attest.test_attestation_evidence import MAINTAINER_KEY, RUN, bundle
from ..conftest import commit_all, git, redate_history, store_file
from .test_attestation_cli import RUN_REF, run

KEYID = signing.keyid(MAINTAINER_KEY.public_key())
FILED = "2026-08-01T00:00:00Z"  # after the bundle's signed createdAt (2026-07-10)


def _filed_and_synced(runner, store, *, valid_until=None):
    """Trust the maintainer (committed, 2026-01-01), file its withdrawal (committed at
    FILED), sync it; return the file's repository path."""
    add_key(store.root, signing.public_key_line(MAINTAINER_KEY.public_key()), ["maintainer"],
            valid_until=valid_until)
    commit_all(store.root, "trust the maintainer")
    redate_history(store.root, "2026-01-01T00:00:00Z")
    path = notes.attach(store, RUN, bundle(MAINTAINER_KEY, "withdrawal"), as_file=True)
    git(store.root, "add", "store/attestations")
    subprocess.run(["git", "commit", "-q", "-m", "withdraw"], cwd=store.root, check=True,
                   env={**os.environ, "GIT_COMMITTER_DATE": FILED, "GIT_AUTHOR_DATE": FILED})
    synced = run(runner, store.root, "notes", "sync")
    assert (synced.exit_code, synced.output) == (
        0, "1 attestation(s) attached, 0 already present\n"), synced.stderr
    return path


def _listed(runner, store):
    listed = run(runner, store.root, "attestations", RUN_REF)
    assert listed.exit_code == 0, listed.stderr
    return listed.output


def _only_once(runner, store, path):
    """The attestations listing as JSON: one attestation, found as a note and as a file."""
    listed = run(runner, store.root, "attestations", RUN_REF, "--json")
    (a,) = json.loads(listed.output)["attestations"]
    blob = git(store.root, "rev-parse", f"HEAD:{store_file(str(RUN))}").strip()
    assert a["places"] == [{"source": "note", "location": f"refs/notes/kistore:{blob}"},
                           {"source": "file", "location": path}]
    return a


def _synced_again(runner, store):
    """A second ``notes sync``: nothing to do, exit 0, the notes ref unchanged."""
    before = git(store.root, "rev-parse", "refs/notes/kistore")
    again = run(runner, store.root, "notes", "sync")
    assert (again.exit_code, again.output, again.stderr) == (
        0, "0 attestation(s) attached, 1 already present\n", "")
    assert git(store.root, "rev-parse", "refs/notes/kistore") == before


HEAD = (f"subject:   {RUN}\nevidence:  source-native (withdrawn)\ncommunity: 0 signers\n"
        f"withdrawal {KEYID} valid withdraws, from note+file: trusted maintainer key")
SAID = "; reason: because\n"


def test_sync_after_a_revocation_finds_the_attached_file_present(runner, record_store):
    path = _filed_and_synced(runner, record_store)
    assert _listed(runner, record_store) == HEAD + SAID
    _synced_again(runner, record_store)
    revoked = run(runner, record_store.root, "trust", "revoke", KEYID)
    assert revoked.exit_code == 0, revoked.stderr
    when = revoked.output.removeprefix(f"revoked {KEYID} from ").strip()
    commit_all(record_store.root, "revoke the maintainer key")
    _synced_again(runner, record_store)  # exited 1: "entered the repository at NOW"
    _synced_again(runner, record_store)  # and on every run after
    # one row, as before the revocation; it still counts (entered before it)
    assert _listed(runner, record_store) == (
        HEAD + f" when this entered ({FILED}); revoked since, at {when}: it counts, trust "
        f"is not retroactive{UNPUSHED_NOTE}" + SAID)
    a = _only_once(runner, record_store, path)
    assert (a["effect"], a["valid"], a["counted"], a["enteredAt"]) == (
        "withdraws", True, True, FILED)


def test_sync_after_the_key_expired_finds_the_attached_file_present(runner, record_store):
    # no commit, no edit: the key's validUntil simply passes
    # 15 s: the first sync must judge the key still trusted on a loaded CI machine (4 s was
    # less than this set-up can take there)
    until = (datetime.now(UTC) + timedelta(seconds=15)).replace(microsecond=0)
    path = _filed_and_synced(runner, record_store, valid_until=until)
    assert _listed(runner, record_store) == HEAD + SAID
    time.sleep(max(0.0, (until - datetime.now(UTC)).total_seconds()) + 0.1)
    _synced_again(runner, record_store)
    _synced_again(runner, record_store)
    assert _listed(runner, record_store) == (
        HEAD + f" when this entered ({FILED}); expired since, at {format_time(until)}: it "
        f"counts, trust is not retroactive{UNPUSHED_NOTE}" + SAID)
    a = _only_once(runner, record_store, path)
    assert (a["effect"], a["valid"], a["counted"]) == ("withdraws", True, True)


def test_a_file_not_attached_before_the_revocation_is_still_refused(runner, record_store):
    # what counts still decides what enters: a note made now by the revoked key is refused
    # as the server's hook refuses it (KI411); the attached one is present, said so
    _filed_and_synced(runner, record_store)
    statement = attestation.make_statement(RUN, layout.object_path(RUN), "withdrawal", {
        "reason": "again", "createdAt": "2026-07-11T00:00:00Z"})
    later = notes.attach(record_store, RUN, attestation.sign_statement(
        statement, MAINTAINER_KEY).to_bytes(), as_file=True)
    revoked = run(runner, record_store.root, "trust", "revoke", KEYID)
    when = revoked.output.removeprefix(f"revoked {KEYID} from ").strip()
    synced = run(runner, record_store.root, "notes", "sync")
    assert (synced.exit_code, synced.stdout) == (
        1, "0 attestation(s) attached, 1 already present\n")
    assert re.fullmatch(
        re.escape(f"error: {later}: not attached: a note made now would not count (key "
                  f"{KEYID} was revoked at {when}; the attestation entered the repository "
                  "at ") + r"2026-\S+Z" + re.escape(
                      "); a server's pre-receive hook refuses such a note (KI409, KI411), "
                      "which would block every later `kistore notes push`; the file "
                      "attestation stays as it is\n"), synced.stderr), synced.stderr
