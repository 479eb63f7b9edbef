"""KI314 in the work tree: a revocation not committed yet, of a key whose file is in HEAD.

fresh04 M1: revoking a key back to before what it signed entered is said as info (KI314),
not as error KI302, in the work tree too (``kistore verify`` before the revocation is
committed); an attestation written after the revocation stays KI302.
"""

from __future__ import annotations

import os
import subprocess

import pytest

from kistore.attest import attestation, notes, signing
from kistore.attest.evidence import check_attestations
from kistore.attest.trust import add_key, parse_time, revoke_key
from kistore.core import layout

from ..conftest import git, redate_history
from .test_attestation_evidence import MAINTAINER_KEY, RUN, bundle, keyid


def another_withdrawal() -> bytes:
    statement = attestation.make_statement(
        RUN, layout.object_path(RUN), "withdrawal",
        {"reason": "signed after the revocation", "createdAt": "2026-07-11T00:00:00Z"})
    return attestation.sign_statement(statement, MAINTAINER_KEY).to_bytes()


def _commit(path, date: str) -> str:
    git(path, "add", "-A")
    subprocess.run(["git", "commit", "-qm", "change"], cwd=path, check=True,
                   env={**os.environ, "GIT_COMMITTER_DATE": date, "GIT_AUTHOR_DATE": date})
    return git(path, "rev-parse", "HEAD").strip()


@pytest.fixture
def trusted(record_store):
    """The record and the maintainer key trusted from January, the history dated then."""
    add_key(record_store.root, signing.public_key_line(MAINTAINER_KEY.public_key()),
            ["maintainer"], valid_from=parse_time("2026-01-01"))
    _commit(record_store.root, "2026-01-02T00:00:00Z")
    redate_history(record_store.root, "2026-01-02T00:00:00Z")  # all of it before what follows
    return record_store


def said(store) -> list[tuple[str, str, str]]:
    return [(f.rule.id, f.severity, f.file) for f in check_attestations(store)
            if f.rule.id in ("KI302", "KI314")]


def test_an_uncommitted_revocation_of_a_committed_withdrawal_is_info(trusted, store_path):
    old = notes.attach(trusted, RUN, bundle(MAINTAINER_KEY, "withdrawal"), as_file=True)
    _commit(store_path, "2026-03-01T00:00:00Z")
    revoke_key(trusted.root, keyid(MAINTAINER_KEY), at=parse_time("2026-02-01"))
    [finding] = [f for f in check_attestations(trusted) if f.rule.id == "KI314"]
    assert (finding.severity, finding.file, finding.extra["revokedIn"]) == ("info", old, None)
    assert finding.message == (
        f"withdrawal by {keyid(MAINTAINER_KEY)} (file): not counted: key "
        f"{keyid(MAINTAINER_KEY)} was revoked at 2026-02-01T00:00:00Z; the attestation "
        "entered the repository at 2026-03-01T00:00:00Z and its signed payload is dated "
        "2026-07-10T00:00:00Z; the revocation was recorded after it entered (in the work "
        "tree's store/trust/keys.json, not committed yet), so it counts for nothing: a "
        "revocation ends a key's trust back to its time (listed not-counted)")
    # a note made after the revocation was written (the file's last change) is an error
    new = notes.attach(trusted, RUN, another_withdrawal())
    assert said(trusted) == [("KI302", "error", new), ("KI314", "info", old)]
    revoking = _commit(store_path, "2026-04-01T00:00:00Z")
    assert said(trusted) == [("KI302", "error", new), ("KI314", "info", old)]
    [finding] = [f for f in check_attestations(trusted) if f.rule.id == "KI314"]
    assert finding.extra["revokedIn"] == revoking
    assert f"(by commit {revoking[:12]})" in finding.message


def test_a_file_written_after_a_committed_revocation_is_an_error(trusted, store_path):
    revoke_key(trusted.root, keyid(MAINTAINER_KEY), at=parse_time("2026-02-01"))
    _commit(store_path, "2026-03-01T00:00:00Z")
    path = notes.attach(trusted, RUN, bundle(MAINTAINER_KEY, "withdrawal"), as_file=True)
    assert said(trusted) == [("KI302", "error", path)]
    _commit(store_path, "2026-04-01T00:00:00Z")
    assert said(trusted) == [("KI302", "error", path)]
