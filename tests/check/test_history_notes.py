"""Issue #17, item 8: notes are judged before they are written, and a clone says what it lacks.

Each test pushes its pull requests (and notes) to a bare remote running
``hooks/pre-receive``.
"""

from __future__ import annotations

import json

import pytest

from kistore.attest import notes
from kistore.store import Store

from ..attest.test_attestation_evidence import PROTOCOL, RUN, STRANGER, bundle
from ..conftest import PUBLISHED, git
from ..prs import Remote

NOT_FETCHED = "notes not fetched: run `kistore notes fetch origin`"


@pytest.fixture
def remote(published, tmp_path) -> Remote:
    return Remote(published, tmp_path)


def write_file(remote: Remote, path: str, data: bytes):
    def change(clone):
        (clone / path).parent.mkdir(parents=True, exist_ok=True)
        (clone / path).write_bytes(data)
    return change


def test_notes_sync_leaves_out_bundles_the_server_would_refuse_and_says_why(remote):
    # The attack: files that landed before the gate checked them (or past it): a forged
    # signature, a bundle about another subject. `notes sync` wrote them as notes, the
    # server then refused every later notes push.
    good = bundle(STRANGER, "reproduction")
    forged = good.replace(b'"payload":"', b'"payload":"A', 1)
    elsewhere = bundle(STRANGER, "reproduction", subject=PROTOCOL)  # about the protocol...
    forged_path = notes.attestation_path(RUN, forged)
    moved_path = notes.attestation_path(RUN, elsewhere)  # ... filed under the run
    for message, path, data in (("forged", forged_path, forged),
                                ("moved", moved_path, elsewhere)):
        assert remote.pr(message, write_file(remote, path, data), hook=False).accepted
    assert remote.pr("a good one", write_file(remote, notes.attestation_path(RUN, good),
                                              good)).accepted
    synced = remote.kistore("notes", "sync", check=False)
    assert synced.returncode == 1
    assert "1 attestation(s) attached, 0 already present" in synced.stdout
    assert f"{forged_path}: not attached: the bundle does not verify" in synced.stderr
    assert f"{moved_path}: not attached: the bundle does not verify" in synced.stderr
    assert "subject" in synced.stderr.split(moved_path)[1].splitlines()[0]
    pushed = remote.push("refs/notes/kistore")
    assert pushed.accepted, pushed.output


def test_clone_without_notes_says_notes_not_fetched_never_no_attestations(remote, tmp_path):
    notes.attach(Store(remote.clone), RUN, bundle(STRANGER, "reproduction"))
    assert remote.push("refs/notes/kistore").accepted
    fresh = tmp_path / "fresh"
    git(tmp_path, "clone", "-q", str(remote.bare), str(fresh))
    reader = Remote.__new__(Remote)
    reader.clone, reader.bare = fresh, remote.bare

    listed = reader.kistore("attestations", PUBLISHED["run"])
    assert NOT_FETCHED in listed.stdout
    assert json.loads(reader.kistore("attestations", PUBLISHED["run"], "--json").stdout)[
        "notesNotFetched"].startswith(NOT_FETCHED)
    assert NOT_FETCHED in reader.kistore("show", PUBLISHED["run"]).stdout
    verified = reader.kistore("verify")
    assert "info KI308 attestations-seen: 0 attestation(s) from notes" in verified.stdout
    assert NOT_FETCHED in verified.stdout

    reader.kistore("notes", "fetch", "origin")
    listed = reader.kistore("attestations", PUBLISHED["run"])
    assert NOT_FETCHED not in listed.stdout
    assert "reproduction" in listed.stdout
