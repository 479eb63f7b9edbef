"""`check` says what an attestation file and a newly trusted key do (KI414, KI415, KI427).

Review r78 F11: PR 1 trusted a maintainer key (nothing signed yet, so nothing listed) and
PR 2 added an attestation file withdrawing a group's #1, signed with it: the ranking
changed and both gates printed ``0 info``, while the same effect from a trust or policy
edit is listed (KI414, KI415). Each pull request is pushed to a bare remote running
``hooks/pre-receive`` (:class:`tests.prs.Remote`).
"""

from __future__ import annotations

import json

import pytest

from kistore.attest import notes
from kistore.check import gate
from kistore.core.digest import Digest
from kistore.query import impact
from kistore.store import Store

from ..conftest import next_second
from ..prs import Remote
from .test_history_names import add_group
from .test_history_trust_effects import (
    MAINTAINER_ID,
    MAINTAINER_KEY,
    bundle,
    ranked_names,
    trust_maintainer,
)


@pytest.fixture
def remote(published, tmp_path) -> Remote:
    return Remote(published, tmp_path)


@pytest.fixture
def trusted(remote, kit) -> dict[str, str]:
    """PR 1 adds a group (fast 10 ns, mid 20 ns, slow 30 ns); PR 2 trusts a maintainer key."""
    digests: dict[str, str] = {}
    assert remote.pr("group", lambda c: digests.update(
        add_group(remote, kit, {"fast": 10, "mid": 20, "slow": 30}))).accepted
    pushed = remote.pr("add maintainer key", trust_maintainer(remote))
    assert pushed.accepted, pushed.output
    digests["trust output"] = pushed.output
    # A key counts from the second after the commit that adds it (commit times have whole
    # seconds: kistore.attest.trust_history); on a quiet machine the next pull request's
    # commit could fall in that same second and its withdrawal rightly count for nothing
    # (seen once in CI). Wait for the next second, so the tests judge what they mean to.
    next_second(remote.clone)
    return digests


def withdraw(remote: Remote, digest: str):
    def change(clone):
        subject = Digest.from_str(digest)
        notes.attach(Store(clone), subject, bundle(MAINTAINER_KEY, "withdrawal",
                                                   subject=subject), as_file=True)
    return change


def test_trusting_a_key_is_listed_with_its_role_and_validity(trusted):
    # on main the trust pull request printed nothing: the key had signed nothing yet
    assert (f"remote: store/trust/keys.json:/keys/0: info KI427 key-newly-trusted: the "
            f"range trusts key {MAINTAINER_ID} for maintainer: valid from when it enters "
            "the trust file, no expiry") in trusted["trust output"]
    assert "0 errors, 0 warnings, 1 info" in trusted["trust output"]


def test_an_attestation_file_withdrawing_a_groups_first_is_listed(remote, trusted):
    assert ranked_names(remote) == ["fast", "mid", "slow"]
    pushed = remote.pr("add attestation", withdraw(remote, trusted["fast"]))
    assert pushed.accepted, pushed.output  # a trusted maintainer's: info, not refused
    assert ranked_names(remote) == ["mid", "slow"]
    assert (f"info KI414 evidence-level-changes: run {trusted['fast']}: source-native -> "
            "source-native, withdrawn") in pushed.output
    assert "info KI415 ranking-order-changes: group sha256:" in pushed.output
    assert "before: 1 fast, 2 mid, 3 slow; after: 1 mid, 2 slow" in pushed.output
    assert "0 errors, 0 warnings, 2 info" in pushed.output  # KI427 only when trust changes


def test_an_attestation_range_ranks_only_the_named_runs_groups(remote, trusted, kit,
                                                               monkeypatch):
    # O(change): another group of the store is neither read nor ranked; the store-wide
    # catalog scan of a trust change is never made
    def another_group(clone):
        protocol, env, workload = kit.protocol(), kit.environment(), kit.workload("softmax")
        docs = [workload]  # the protocol and environment are stored already
        for name, latency in (("a", 1), ("b", 2)):
            impl = kit.implementation(f"proj-{name}", name=f"impl-{name}")
            docs += [impl, kit.run(protocol, env, impl, workload, latency=latency, name=name)]
        path = clone.parent / "other.jsonl"
        path.write_text("".join(json.dumps(d) + "\n" for d in docs))
        remote.kistore("add", str(path))

    assert remote.pr("another group", another_group).accepted
    base = remote.main()
    assert remote.pr("add attestation", withdraw(remote, trusted["mid"])).accepted
    remote_store = Store(remote.bare)

    def no_scan(*_args, **_kwargs):
        raise AssertionError("the whole store was scanned")

    monkeypatch.setattr(impact, "open_catalog", no_scan)
    ranked: list[list[str]] = []
    rank_group = impact.rank_group

    def spy(key, records, *args, **kwargs):
        ranked.append(sorted(r.name for r in records))
        return rank_group(key, records, *args, **kwargs)

    monkeypatch.setattr(impact, "rank_group", spy)
    findings = gate.check_range(remote_store, f"{base}..{remote.main()}",
                                checkers=[impact.trust_and_policy_effects])
    said = {f.rule.id: f.message for f in findings}
    assert len(findings) == 2 and said["KI414"] == (
        f"run {trusted['mid']}: source-native -> source-native, withdrawn")
    assert said["KI415"].endswith("before: 1 fast, 2 mid, 3 slow; after: 1 fast, 2 slow")
    assert ranked == [["fast", "mid", "slow"]] * 2  # before and after, this group alone


def test_a_community_attestation_file_changes_nothing_and_says_nothing(remote, trusted):
    # a key nobody trusts: the run's evidence stays what it was, no line
    from ..attest.test_attestation_evidence import STRANGER

    def change(clone):
        subject = Digest.from_str(trusted["slow"])
        notes.attach(Store(clone), subject, bundle(STRANGER, "withdrawal", subject=subject),
                     as_file=True)

    pushed = remote.pr("a community withdrawal", change)
    assert pushed.accepted, pushed.output
    assert "KI414" not in pushed.output and "KI415" not in pushed.output
    assert ranked_names(remote) == ["fast", "mid", "slow"]
