"""KI427 tells the truth about when a widened key counts (reviewers r81 F14, r82 F9).

A key without ``validFrom`` counts from when it entered the trust file. Setting a
``validFrom`` before that on it (r81 F14a, r82 F9) widened its window into the past with no
KI427; adding a role to a trusted key (r81 F14b) makes what it signed since its start count
for the new role (roles are not dated), and KI427 said "valid from when it enters the trust
file". Each pull request is pushed to a bare remote running ``hooks/pre-receive``.
"""

from __future__ import annotations

import datetime as dt

import pytest

from kistore.attest import notes
from kistore.attest.trust_history import listed_since
from kistore.core.digest import Digest
from kistore.store import Store

from ..attest.test_attestation_evidence import MAINTAINER_KEY, bundle
from ..conftest import git
from ..prs import Remote
from .test_history_names import add_group
from .test_history_trust_effects import MAINTAINER_ID, ranked_names, trust_maintainer

TRUST = "store/trust/keys.json"


@pytest.fixture
def remote(published, tmp_path) -> Remote:
    return Remote(published, tmp_path)


@pytest.fixture
def withdrawn(remote, kit) -> dict[str, str]:
    """A group (fast, mid, slow); the key trusted for rerun only (no validFrom); then its
    withdrawal of `fast`, which does not count (the key is no maintainer)."""
    digests: dict[str, str] = {}
    assert remote.pr("group", lambda c: digests.update(
        add_group(remote, kit, {"fast": 10, "mid": 20, "slow": 30}))).accepted
    pushed = remote.pr("trust the key for reruns", lambda c: (
        trust_maintainer(remote)(c), _roles(remote, ["rerun"])))
    assert pushed.accepted, pushed.output
    since = listed_since(Store(remote.bare).repo, remote.main())[MAINTAINER_ID]
    digests["since"] = since.strftime("%Y-%m-%dT%H:%M:%SZ")
    fast = Digest.from_str(digests["fast"])

    def withdraw(clone):
        notes.attach(Store(clone), fast, bundle(MAINTAINER_KEY, "withdrawal", subject=fast),
                     as_file=True)

    # the gate refuses it now (KI411: the key is trusted, not for this role); it landed
    # before the server ran that rule, or past it, as r81's repro committed it
    assert remote.pr("withdrawal by the rerun key", withdraw, hook=False,
                     date=(since + dt.timedelta(seconds=5)).strftime(
                         "%Y-%m-%dT%H:%M:%SZ")).accepted
    assert ranked_names(remote) == ["fast", "mid", "slow"]
    return digests


def _roles(remote: Remote, roles: list[str], **fields: str) -> None:
    doc = remote.read_json(TRUST)
    assert isinstance(doc, dict)
    doc["keys"][0]["roles"] = roles
    doc["keys"][0].update(fields)
    remote.write_json(TRUST, doc)


def test_a_role_added_to_a_trusted_key_says_it_counts_from_the_key_s_start(remote, withdrawn):
    pushed = remote.pr("the key is a maintainer too",
                       lambda c: _roles(remote, ["maintainer", "rerun"]))
    assert pushed.accepted, pushed.output  # info: reviewers read it before merging
    assert (f"info KI427 key-newly-trusted: the range trusts key {MAINTAINER_ID} for "
            "maintainer too (already rerun), from the key's start, not from this change "
            "(roles are not dated): what it signed since then counts for maintainer: valid "
            f"from {withdrawn['since']}, when it entered the trust file (what it signed "
            "since then counts), no expiry; attestations it signed that entered before this "
            "change now count: 1 withdrawal (a withdrawal that entered earlier takes effect "
            "now) (KI413 lists each)") in pushed.output
    assert ranked_names(remote) == ["mid", "slow"]  # what the message warned of


def test_a_valid_from_set_before_the_key_entered_is_a_widened_window(remote, withdrawn):
    pushed = remote.pr("the key's date", lambda c: _roles(
        remote, ["maintainer", "rerun"], validFrom="2020-01-01T00:00:00Z"))
    assert pushed.accepted, pushed.output
    assert (f"info KI427 key-newly-trusted: the range trusts key {MAINTAINER_ID} for "
            "maintainer too (already rerun), from the key's start, not from this change "
            "(roles are not dated): what it signed since then counts for maintainer "
            f"(validFrom none (from when it entered the trust file, {withdrawn['since']}) -> "
            "2020-01-01T00:00:00Z): valid from 2020-01-01T00:00:00Z (what it signed since "
            "then counts), no expiry; attestations it signed that entered before this change "
            "now count: 1 withdrawal") in pushed.output


def test_a_valid_from_set_on_a_key_that_had_none_is_listed(remote):
    # r82 F9 exactly: one key, trusted with no validFrom; the range sets one in 2020
    assert remote.pr("trust", trust_maintainer(remote)).accepted
    since = listed_since(Store(remote.bare).repo, remote.main())[MAINTAINER_ID]
    entered = since.strftime("%Y-%m-%dT%H:%M:%SZ")
    # a validFrom no earlier than the entry widens nothing: no KI427; later than the entry,
    # it takes back the time the key counted since (fresh02 G1): KI410, as removing it
    later = (since + dt.timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
    _roles(remote, ["maintainer"], validFrom=later)
    git(remote.clone, "commit", "-q", "--no-verify", "-am", "a later date")
    quiet = remote.kistore("check", "origin/main..HEAD", check=False)
    assert "KI427" not in quiet.stdout + quiet.stderr
    narrowing = git(remote.clone, "rev-parse", "HEAD").strip()
    assert (f"error KI410 trust-entry-narrowed: commit {narrowing[:12]} narrows the entry "
            f"of key {MAINTAINER_ID} in the trust file (validFrom none (from when it entered "
            f"the trust file, {entered}) -> {later})") in quiet.stdout, quiet.stdout
    git(remote.clone, "reset", "-q", "--hard", "origin/main")
    pushed = remote.pr("note the key's date", lambda c: _roles(
        remote, ["maintainer"], validFrom="2020-01-01T00:00:00Z"))
    assert pushed.accepted, pushed.output
    assert (f"store/trust/keys.json:/keys/0: info KI427 key-newly-trusted: the range widens "
            f"when key {MAINTAINER_ID} counts for maintainer (validFrom none (from when it "
            f"entered the trust file, {entered}) -> 2020-01-01T00:00:00Z): valid from "
            "2020-01-01T00:00:00Z (what it signed since then counts), no expiry") \
        in pushed.output


def test_a_valid_from_before_the_key_s_start_removed_is_a_narrowing(remote, withdrawn):
    """fresh06 H1: a validFrom earlier than the key's start, removed (by hand or by a
    `git revert` of the reviewed commit setting it), moves the key's start later, to its
    first trust commit: the withdrawal it signed between the two stopped counting, and
    every gate passed it (KI427 called it a widening)."""
    assert remote.pr("the key's date", lambda c: _roles(
        remote, ["maintainer", "rerun"], validFrom="2020-01-01T00:00:00Z")).accepted
    assert ranked_names(remote) == ["mid", "slow"]  # the withdrawal counts from 2020

    def removed(clone):
        doc = remote.read_json(TRUST)
        assert isinstance(doc, dict)
        del doc["keys"][0]["validFrom"]
        remote.write_json(TRUST, doc)

    pushed = remote.pr("drop the key's date", removed)
    assert not pushed.accepted, pushed.output
    assert (f"narrows the entry of key {MAINTAINER_ID} in the trust file (validFrom "
            "2020-01-01T00:00:00Z -> none (from when it entered the trust file, "
            f"{withdrawn['since']}))") in pushed.output
    assert "KI427" not in pushed.output
    assert ranked_names(remote) == ["mid", "slow"]
