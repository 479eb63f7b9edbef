"""An attestation file committed ahead of the clock, past its key's expiry (evid03's leftover).

evid03 noted that KI411 judges a new attestation file at this machine's clock while every
reader (``verify``, ``attestations``, ``rank``) judges it at its entry time, its first
commit's (held to its ancestors'), which the submitter dates and KI428 lets run a day
ahead: a branch setting a planned ``validUntil`` on a maintainer key, then adding a
withdrawal by that key in a commit dated after it, passes KI411, and ``verify`` says KI302.
Readers are right (the file enters at its commit's time), and the gate already agrees:
``check`` judges the attestation files of HEAD at their entry times too (KI302, the same
finding ``verify`` gives), so ``check`` and pre-receive refuse the branch; dated before the
expiry, it is accepted and counts.
"""

from __future__ import annotations

import json
import subprocess

from kistore.attest import attestation
from kistore.core import layout

from ..attest.test_attestation_evidence import MAINTAINER_KEY
from ..conftest import PUBLISHED, git
from ..prs import Remote, soon
from .test_evidence_every_commit import (
    KEYID,
    edit_trust,
    remote,  # noqa: F401 (a trusted maintainer, its withdrawal)
    the_entry,
)
from .test_evidence_taken_back import RUN, commit_at
from .test_history_reruns import attest_file


def _again() -> bytes:
    """A second withdrawal of the run by the maintainer key (other bytes than the first)."""
    statement = attestation.make_statement(RUN, layout.object_path(RUN), "withdrawal", {
        "reason": "again", "createdAt": "2026-07-10T00:00:00Z"})
    return attestation.sign_statement(statement, MAINTAINER_KEY).to_bytes()


def _branch(server: Remote) -> tuple[str, str, str]:
    """Commit a planned expiry (``validUntil`` 3 h ahead, committed 2 h ahead), then the
    withdrawal file in a commit dated 5 h ahead. Return BASE, the file's path, the expiry."""
    clone = server.clone
    base = git(clone, "rev-parse", "HEAD").strip()
    until = soon(3)
    edit_trust(lambda d: the_entry(d).update(validUntil=until))(clone)
    commit_at(clone, soon(2), "commit", "-qam", "a planned expiry")
    before = set(git(clone, "ls-files", "store/attestations").split())
    attest_file(server, _again())(clone)
    git(clone, "add", "-A")
    [path] = set(git(clone, "ls-files", "store/attestations").split()) - before
    commit_at(clone, soon(5), "commit", "-qm", "a withdrawal dated ahead")
    return base, path, until


def _errors(server: Remote, *args: str) -> list[dict]:
    done = server.kistore(*args, "--json", check=False)
    return [f for f in json.loads(done.stdout)["findings"] if f["severity"] == "error"]


def test_a_file_dated_past_its_keys_expiry_is_refused_as_verify_says(remote):  # noqa: F811
    base, path, until = _branch(remote)
    [gate] = _errors(remote, "check", f"{base}..HEAD")
    assert (gate["rule"], gate["file"]) == ("KI302", path)
    assert f"key {KEYID} expired at {until}" in gate["message"]
    # `verify` of the branch says the same of the file
    [said] = [f for f in _errors(remote, "verify") if f["file"] == path]
    assert said == gate
    pushed = remote.push("HEAD:main")
    assert not pushed.accepted
    assert f"{path}: error KI302 attestation-role-not-trusted: " in pushed.output
    assert remote.main() == base


def test_dated_before_the_expiry_it_is_accepted_and_counts(remote):  # noqa: F811
    base, _path, _until = _branch(remote)
    subprocess.run(["git", "commit", "-q", "--amend", "--no-edit"], cwd=remote.clone,
                   check=True, capture_output=True)  # the committer dated now
    assert _errors(remote, "check", f"{base}..HEAD") == []
    assert remote.push("HEAD:main").accepted
    said = json.loads(remote.kistore("attestations", PUBLISHED["run"], "--json").stdout)
    assert [a["effect"] for a in said["attestations"]] == ["withdraws", "withdraws"]
