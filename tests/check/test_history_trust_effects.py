"""Issue #17, item 2: trust is not retroactive, and `check` says what a trust change does.

Each test pushes its pull requests in turn to a bare remote running ``hooks/pre-receive``.
"""

from __future__ import annotations

import json

import pytest

from kistore.attest import notes, signing
from kistore.core.digest import Digest
from kistore.store import Store

from ..attest.test_attestation_evidence import MAINTAINER_KEY, bundle
from ..prs import Remote, soon
from .test_history_names import add_group

MAINTAINER_PUB = signing.public_key_line(MAINTAINER_KEY.public_key())
MAINTAINER_ID = signing.keyid(MAINTAINER_KEY.public_key())


@pytest.fixture
def remote(published, tmp_path) -> Remote:
    return Remote(published, tmp_path)


@pytest.fixture
def withdrawn_early(remote, kit) -> dict[str, str]:
    """PR 1 adds a group (fast 10 ns, mid 20 ns, slow 30 ns); PR 2 a withdrawal of `fast`
    signed by a key nobody trusts yet (a community attestation: both land)."""
    digests: dict[str, str] = {}
    assert remote.pr("group", lambda c: digests.update(
        add_group(remote, kit, {"fast": 10, "mid": 20, "slow": 30}))).accepted
    fast = Digest.from_str(digests["fast"])

    def withdraw(clone):
        notes.attach(Store(clone), fast, bundle(MAINTAINER_KEY, "withdrawal", subject=fast),
                     as_file=True)

    assert remote.pr("withdraw fast (untrusted key)", withdraw).accepted
    return digests


def trust_maintainer(remote: Remote, *extra: str):
    def change(clone):
        (clone.parent / "maintainer.pub").write_text(MAINTAINER_PUB + "\n")
        remote.kistore("trust", "add", str(clone.parent / "maintainer.pub"), "--role",
                       "maintainer", *extra)
    return change


def higher_first(remote: Remote):
    """A pull request's change: the synthetic family ranked by latency, highest first."""
    def change(clone):
        policy = remote.read_json("store/policy/ranking.json")
        policy["families"]["synthetic"] = {
            "comparison": "source-native", "metric": "/timing/latencyNs/mean",
            "order": "descending", "unit": "ns"}
        remote.write_json("store/policy/ranking.json", policy)
    return change


def ranked_names(remote: Remote) -> list[str]:
    done = remote.kistore("rank", "BenchmarkRun/mid", "--json")
    return [row["name"] for row in json.loads(done.stdout) if row["rank"] is not None]


def test_withdrawal_signed_before_its_key_was_trusted_does_not_take_effect_when_trust_lands(
        remote, withdrawn_early):
    # The attack (reproduced on main): the trust pull request made an older withdrawal by
    # the newly trusted key count; a run left the ranking and `check` said nothing.
    assert ranked_names(remote) == ["fast", "mid", "slow"]
    pushed = remote.pr("trust the maintainer key", trust_maintainer(remote))
    assert pushed.accepted, pushed.output
    assert ranked_names(remote) == ["fast", "mid", "slow"]  # valid from this commit on
    attestations = remote.kistore("attestations", "BenchmarkRun/fast", "--json")
    [entry] = json.loads(attestations.stdout)["attestations"]
    assert entry["effect"] == "community"
    assert f"key {MAINTAINER_ID} is trusted from " in entry["reason"]
    assert "KI413" not in pushed.output and "KI415" not in pushed.output
    verified = remote.kistore("verify", check=False)
    assert verified.returncode == 0, verified.stdout + verified.stderr


def test_check_lists_what_a_backdated_trust_change_does(remote, withdrawn_early):
    # Trusting the key from a date in the past is a reviewer's explicit choice: `check`
    # lists the attestation that starts counting, the run it withdraws, the group it
    # re-orders. Info, so the push lands; reviewers read it before merging.
    fast = withdrawn_early["fast"]
    pushed = remote.pr("trust the maintainer key since 2020",
                       trust_maintainer(remote, "--valid-from", "2020-01-01"))
    assert pushed.accepted, pushed.output
    assert (f"info KI413 attestation-starts-or-stops-counting: withdrawal by {MAINTAINER_ID} "
            f"on {fast}: community") in pushed.output
    assert "-> withdraws" in pushed.output
    assert f"info KI414 evidence-level-changes: run {fast}: source-native -> " \
           "source-native, withdrawn" in pushed.output
    assert "info KI415 ranking-order-changes: group sha256:" in pushed.output
    assert "before: 1 fast, 2 mid, 3 slow; after: 1 mid, 2 slow" in pushed.output
    assert ranked_names(remote) == ["mid", "slow"]


def test_check_lists_what_a_policy_change_does(remote, kit):
    digests: dict[str, str] = {}
    assert remote.pr("group", lambda c: digests.update(
        add_group(remote, kit, {"fast": 10, "slow": 30}))).accepted

    pushed = remote.pr("rank synthetic higher-first", higher_first(remote))
    assert "KI415 ranking-order-changes" in pushed.output, pushed.output
    assert "before: 1 fast, 2 slow; after: 1 slow, 2 fast" in pushed.output


def test_a_policy_change_ranks_as_rank_does_a_withdrawn_run_left_out(remote, kit):
    # KI415 of a policy change ranked every run, a trusted maintainer's withdrawn one too
    # ("before: 1 fast, 2 mid, 3 slow"), where `rank` leaves it out (docs/attestations.md:
    # withdrawn, removed from rankings): the order it listed was no order `rank` shows.
    digests: dict[str, str] = {}
    assert remote.pr("group", lambda c: digests.update(
        add_group(remote, kit, {"fast": 10, "mid": 20, "slow": 30}))).accepted
    # The key counts from its commit, and the withdrawal lands after it in the same second
    # (dated so: under load in CI it once did, and was not counted; test_trust_same_second)
    second = soon(1)
    assert remote.pr("trust the maintainer key", trust_maintainer(remote), date=second).accepted
    fast = Digest.from_str(digests["fast"])

    def withdraw(clone):
        notes.attach(Store(clone), fast, bundle(MAINTAINER_KEY, "withdrawal", subject=fast),
                     as_file=True)

    assert remote.pr("withdraw fast", withdraw, date=second).accepted
    assert ranked_names(remote) == ["mid", "slow"]

    pushed = remote.pr("rank synthetic higher-first", higher_first(remote))
    assert "before: 1 mid, 2 slow; after: 1 slow, 2 mid" in pushed.output, pushed.output
    assert ranked_names(remote) == ["slow", "mid"]
