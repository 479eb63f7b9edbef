"""A key counts from the commit that adds it: when the clock ties, history order decides.

Commit dates have whole seconds. A withdrawal whose pull request lands in the same second
as the pull request trusting its key came after it in history, and counts (it failed once
in CI under load: it was judged by the clock alone, a tie read as "before"). One that
entered before the trust commit in history stays a community attestation, whether a
second earlier or in the same second. Each commit date is fixed, so the tie is certain.
"""

from __future__ import annotations

import datetime as dt
import json

import pytest

from kistore.attest import notes
from kistore.core.digest import Digest
from kistore.store import Store

from ..attest.test_attestation_evidence import MAINTAINER_KEY, bundle
from ..prs import Remote, soon
from .test_history_names import add_group
from .test_history_trust_effects import MAINTAINER_ID, ranked_names, trust_maintainer


def _grouped(published, tmp_path, kit) -> tuple[Remote, Digest]:
    remote = Remote(published, tmp_path)
    digests: dict[str, str] = {}
    assert remote.pr("group", lambda c: digests.update(
        add_group(remote, kit, {"fast": 10, "mid": 20, "slow": 30}))).accepted
    return remote, Digest.from_str(digests["fast"])


def _withdraw(fast: Digest):
    def change(clone):
        notes.attach(Store(clone), fast, bundle(MAINTAINER_KEY, "withdrawal", subject=fast),
                     as_file=True)
    return change


def _earlier(date: str, seconds: int) -> str:
    when = dt.datetime.strptime(date, "%Y-%m-%dT%H:%M:%SZ") - dt.timedelta(seconds=seconds)
    return when.strftime("%Y-%m-%dT%H:%M:%SZ")


def _effect(remote: Remote, name: str) -> dict:
    done = remote.kistore("attestations", f"BenchmarkRun/{name}", "--json")
    [entry] = json.loads(done.stdout)["attestations"]
    return entry


@pytest.mark.parametrize("withdrawal_first", [False, True], ids=["after", "before"])
def test_a_withdrawal_in_the_trust_commits_second_counts_only_after_it_in_history(
        published, tmp_path, kit, withdrawal_first):
    # the same second both ways: after the trust commit it counts (it did not: the flake);
    # before it, history says it entered before the key counted
    remote, fast = _grouped(published, tmp_path, kit)
    second = soon(1)
    prs = [("trust the maintainer key", trust_maintainer(remote)),
           ("withdraw fast", _withdraw(fast))]
    for message, change in reversed(prs) if withdrawal_first else prs:
        pushed = remote.pr(message, change, date=second)
        assert pushed.accepted, pushed.output
    entry = _effect(remote, "fast")
    assert entry["enteredAt"] == second
    if withdrawal_first:
        assert entry["effect"] == "community", entry
        assert f"key {MAINTAINER_ID} is trusted from {second}, the time of commit " \
            in entry["reason"]
        assert ranked_names(remote) == ["fast", "mid", "slow"]
    else:
        assert entry["effect"] == "withdraws", entry
        assert ranked_names(remote) == ["mid", "slow"]
        verified = remote.kistore("verify", check=False)
        assert verified.returncode == 0, verified.stdout + verified.stderr


def test_a_withdrawal_a_second_before_the_trust_commit_does_not_count(
        published, tmp_path, kit):
    remote, fast = _grouped(published, tmp_path, kit)
    second = soon(1)
    assert remote.pr("withdraw fast (untrusted key)", _withdraw(fast),
                     date=_earlier(second, 1)).accepted
    assert remote.pr("trust the maintainer key", trust_maintainer(remote), date=second).accepted
    entry = _effect(remote, "fast")
    assert entry["enteredAt"] == _earlier(second, 1)
    assert entry["effect"] == "community", entry
    assert ranked_names(remote) == ["fast", "mid", "slow"]
