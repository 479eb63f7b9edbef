"""Issue #17: trust judged over the whole history, each attack a sequence of pull requests.

Every test pushes its pull requests one by one to a bare remote running
``hooks/pre-receive`` (:class:`tests.prs.Remote`).
"""

from __future__ import annotations

import json

import pytest

from kistore.attest import signing

from ..attest.test_attestation_evidence import RERUN_KEY
from ..conftest import PUBLISHED
from ..prs import Remote, soon

RERUN_PUB = signing.public_key_line(RERUN_KEY.public_key())
RERUN_ID = signing.keyid(RERUN_KEY.public_key())
TRUST = "store/trust/keys.json"


@pytest.fixture
def remote(published, tmp_path) -> Remote:
    return Remote(published, tmp_path)


def trust_rerun_key(remote: Remote, *extra: str) -> None:
    (remote.clone.parent / "rerun.pub").write_text(RERUN_PUB + "\n")
    remote.kistore("trust", "add", str(remote.clone.parent / "rerun.pub"), "--role", "rerun",
                   *extra)


def test_revoked_key_deleted_then_trusted_again_by_two_pull_requests_is_refused(remote):
    # The attack (reproduced on main): PR 1 deletes the revoked key's entry, PR 2 adds the
    # key again; each range passed on its own and the key signed again.
    def revoked(clone):
        trust_rerun_key(remote)
        remote.kistore("trust", "revoke", RERUN_ID, "--at", "2026-01-01")

    assert remote.pr("trust and revoke the rerun key", revoked).accepted
    before = remote.main()

    dropped = remote.pr("drop the revoked entry", lambda c: remote.write_json(TRUST,
                                                                             {"keys": []}))
    assert not dropped.accepted
    assert f"error KI412 trust-revocation-lifted: key {RERUN_ID} was revoked at " \
           "2026-01-01T00:00:00Z" in dropped.output
    assert "its entry is gone" in dropped.output
    assert remote.main() == before

    # Suppose the deletion landed anyway (before the server ran this rule): the key was
    # still revoked in an earlier commit, so trusting it again is refused whatever the range.
    assert remote.pr("drop the revoked entry", lambda c: remote.write_json(
        TRUST, {"keys": []}), hook=False).accepted
    dropped_at = remote.main()
    again = remote.pr("trust the rerun key again", lambda c: trust_rerun_key(remote))
    assert not again.accepted
    assert f"error KI412 trust-revocation-lifted: key {RERUN_ID} was revoked at " \
           f"2026-01-01T00:00:00Z (commit {before[:12]}); the trust file makes that no " \
           "revocation" in again.output
    assert remote.main() == dropped_at

    # verify of the history that did land says the revocation is gone
    verified = remote.kistore("verify", check=False)
    assert verified.returncode == 1
    assert "KI412 trust-revocation-lifted" in verified.stdout + verified.stderr


def test_revocation_moved_earlier_then_back_later_by_two_pull_requests_is_refused(remote):
    # PR 1 moves the revocation earlier (allowed), PR 2 moves it back to where it was: later
    # than the previous version, so its one-range check would pass against the first only.
    def revoked(clone):
        trust_rerun_key(remote)
        remote.kistore("trust", "revoke", RERUN_ID, "--at", "2026-01-01")

    assert remote.pr("revoke", revoked).accepted
    assert remote.pr("revoke earlier", lambda c: remote.kistore(
        "trust", "revoke", RERUN_ID, "--at", "2025-06-01")).accepted
    earlier = remote.main()

    def back(clone):
        doc = remote.read_json(TRUST)
        doc["keys"][0]["revokedAt"] = "2026-01-01T00:00:00Z"
        remote.write_json(TRUST, doc)

    moved = remote.pr("revoke later again", back)
    assert not moved.accepted
    assert f"was revoked at 2025-06-01T00:00:00Z (commit {earlier[:12]}); the trust file " \
           "makes that 2026-01-01T00:00:00Z" in moved.output


def test_revocation_made_and_undone_inside_one_push_is_refused(remote):
    # Two commits in one push: the first revokes, the second deletes the entry. The net
    # diff from the base shows a key that was never revoked there; the revocation was made.
    assert remote.pr("trust", lambda c: trust_rerun_key(remote)).accepted
    from ..conftest import git

    remote.kistore("trust", "revoke", RERUN_ID, "--at", "2026-01-01")
    git(remote.clone, "commit", "-q", "--no-verify", "-am", "revoke")
    pushed = remote.pr("and forget it", lambda c: remote.write_json(TRUST, {"keys": []}))
    assert not pushed.accepted
    assert "KI412" in pushed.output


def test_revocation_lifted_past_the_hook_still_holds_in_every_answer(remote):
    # The same two pull requests landed on a server that did not run the rule (a host
    # without hooks/pre-receive): the key trusted again must still not make a run verified.
    from ..attest.test_attestation_evidence import bundle
    from .test_history_reruns import attest_file, level

    def revoked(clone):
        trust_rerun_key(remote)
        remote.kistore("trust", "revoke", RERUN_ID, "--at", "2026-01-01")

    assert remote.pr("trust and revoke the rerun key", revoked).accepted
    assert remote.pr("drop the revoked entry", lambda c: remote.write_json(
        TRUST, {"keys": []}), hook=False).accepted
    assert remote.pr("trust the rerun key again", lambda c: trust_rerun_key(remote),
                     hook=False).accepted
    refused = remote.pr("a rerun by the key", attest_file(remote, bundle(RERUN_KEY)))
    assert not refused.accepted  # the server holds the revocation too
    assert ("error KI411 new-attestation-key-not-trusted: a new rerun attestation by "
            f"{RERUN_ID} cannot enter now") in refused.output
    assert "was revoked at 2026-01-01T00:00:00Z" in refused.output
    assert remote.pr("a rerun by the key", attest_file(remote, bundle(RERUN_KEY)),
                     hook=False, date=soon(1)).accepted
    assert level(remote) == "source-native"
    [judged] = json.loads(remote.kistore("attestations", PUBLISHED["run"], "--json")
                          .stdout)["attestations"]
    assert judged["effect"] == "not-counted"
    assert f"key {RERUN_ID} was revoked at 2026-01-01T00:00:00Z" in judged["reason"]


def test_a_key_trusted_and_used_in_one_pull_request_is_refused(remote):
    # The attack (review of 2026-12-01): one pull request makes its own key a maintainer and
    # withdraws the competitor's run; each rule passed, and the run left the ranking.
    from ..attest.test_attestation_evidence import MAINTAINER_KEY, bundle
    from .test_history_reruns import attest_file, level

    keyid = signing.keyid(MAINTAINER_KEY.public_key())

    def trust_and_withdraw(clone):
        (clone.parent / "evil.pub").write_text(
            signing.public_key_line(MAINTAINER_KEY.public_key()) + "\n")
        remote.kistore("trust", "add", str(clone.parent / "evil.pub"), "--role", "maintainer",
                       "--valid-from", "2020-01-01")
        attest_file(remote, bundle(MAINTAINER_KEY, "withdrawal"))(clone)

    before = remote.main()
    both = remote.pr("trust a maintainer and withdraw a run", trust_and_withdraw)
    assert not both.accepted
    assert (f"error KI411 new-attestation-key-not-trusted: a new withdrawal attestation by "
            f"{keyid} would count only under the trust this change makes (the trust file "
            "before it does not trust the key)"  # fresh96 L7: "counts only because" was wrong
            ) in " ".join(both.output.split())
    # fresh95 F13: the fix line said "sign with a key trusted now, or leave it out"
    fixes = [line.rstrip() for line in both.output.splitlines() if "fix KI411" in line]
    assert len(fixes) == 1 and fixes[0].endswith(
        "fix KI411 (1 finding): land the trust change on its own first (a pull request "
        "changing store/trust/keys.json alone), then the attestation in the next"), fixes
    assert "sign with a key trusted now" not in both.output
    assert remote.main() == before and level(remote) == "source-native"

    # Reviewed on its own, the trust change lands; the withdrawal then counts.
    from ..conftest import git

    git(remote.clone, "reset", "-q", "--hard", before)
    assert remote.pr("trust a maintainer", lambda c: remote.kistore(
        "trust", "add", str(c.parent / "evil.pub"), "--role", "maintainer",
        "--valid-from", "2020-01-01")).accepted
    assert remote.pr("withdraw", attest_file(remote, bundle(MAINTAINER_KEY, "withdrawal"))
                     ).accepted
    assert json.loads(remote.kistore("attestations", PUBLISHED["run"], "--json").stdout
                      )["withdrawn"] is True
