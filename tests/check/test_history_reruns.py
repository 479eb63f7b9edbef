"""Issue #17, items 4 and 5: an attestation with an effect must fit the run it is about.

Each test pushes its pull requests in turn to a bare remote running ``hooks/pre-receive``.
"""

from __future__ import annotations

import json

import pytest

from kistore.attest import notes, signing
from kistore.core.digest import Digest
from kistore.store import Store

from ..attest.test_attestation_evidence import MAINTAINER_KEY, RERUN_KEY, RUN, bundle
from ..conftest import PUBLISHED, other_environment
from ..prs import Remote, soon

WORKLOAD = Digest.from_str(PUBLISHED["protocol"])  # any non-run object of the record


@pytest.fixture
def remote(published, tmp_path) -> Remote:
    remote = Remote(published, tmp_path)

    def trust(clone):
        for key, role in ((RERUN_KEY, "rerun"), (MAINTAINER_KEY, "maintainer")):
            path = clone.parent / f"{role}.pub"
            path.write_text(signing.public_key_line(key.public_key()) + "\n")
            remote.kistore("trust", "add", str(path), "--role", role)

    assert remote.pr("trust", trust).accepted
    return remote


def attest_file(remote: Remote, data: bytes, subject: Digest = RUN):
    return lambda clone: notes.attach(Store(clone), subject, data, as_file=True)


def level(remote: Remote) -> str:
    done = remote.kistore("attestations", PUBLISHED["run"], "--json")
    return json.loads(done.stdout)["evidenceLevel"]


def test_withdrawal_of_a_protocol_is_refused_not_silently_ignored(remote):
    # A withdrawal of a Protocol took effect on no run: the runs measured under it stayed
    # ranked, and nothing said so.
    data = bundle(MAINTAINER_KEY, "withdrawal", subject=WORKLOAD)
    pushed = remote.pr("withdraw the protocol", attest_file(remote, data, WORKLOAD))
    assert not pushed.accepted
    assert ("error KI310 attestation-does-not-fit-subject: withdrawal by "
            f"{signing.keyid(MAINTAINER_KEY.public_key())} (file): a withdrawal is about a "
            f"BenchmarkRun; {WORKLOAD} is a BenchmarkProtocol") in pushed.output
    # ... and as a note line pushed straight to refs/notes/kistore
    notes.attach(Store(remote.clone), WORKLOAD, data)
    pushed = remote.push("refs/notes/kistore")
    assert not pushed.accepted
    assert ("KI409 notes-line-invalid: line 1 of the note: a withdrawal is about a "
            "BenchmarkRun") in pushed.output


def test_rerun_on_another_gpu_does_not_verify_the_run(remote, bundle):
    # The attack: a trusted rerun key "reproduced" a B200 run on an H100 (or on an
    # environment not in the store) and the run became `verified`.
    h100 = other_environment(bundle, "NVIDIA H100")
    path = remote.clone.parent / "h100.json"
    path.write_text(json.dumps(h100))
    assert remote.pr("an H100 environment", lambda c: remote.kistore("add", str(path))
                     ).accepted
    env = remote.kistore("add", str(path)).stdout.split()[0]
    elsewhere = bundle_for(RERUN_KEY, environmentDigest=env)
    pushed = remote.pr("rerun on H100", attest_file(remote, elsewhere))
    assert not pushed.accepted
    assert ("the rerun ran on 'NVIDIA H100'; the run was measured on 'NVIDIA B200': a rerun "
            "on another GPU does not reproduce it") in pushed.output
    other_statistic = bundle_for(RERUN_KEY, timing={"latencyNs": {"min": 1},
                                                    "primaryStatistic": "min"})
    pushed = remote.pr("rerun timed by min", attest_file(remote, other_statistic))
    assert "the rerun's timing uses 'min'; the run's primary statistic is 'mean'" \
        in pushed.output
    assert level(remote) == "source-native"
    assert remote.pr("a fitting rerun", attest_file(remote, bundle_for(RERUN_KEY)),
                     date=soon(1)).accepted  # after the trust's second
    assert level(remote) == "verified"
    shown = remote.kistore("show", PUBLISHED["run"]).stdout
    keyid = signing.keyid(RERUN_KEY.public_key())
    assert (f"rerun by {keyid} (verifies): measured 13,500,000 ns (13.5 ms), the run "
            "13,634,148 ns (13.6341 ms), ratio 0.9902x") in shown
    [rerun] = json.loads(remote.kistore("show", PUBLISHED["run"], "--json").stdout)["reruns"]
    assert (rerun["measuredNs"], rerun["runNs"]) == (13_500_000, 13634148)


def bundle_for(key, **changes) -> bytes:
    return bundle(key, "rerun", **changes)


def test_a_keys_later_not_reproduced_rerun_takes_back_its_earlier_reproduced(remote):
    # One key said both: the run stayed `verified` on its first word however often the
    # key said otherwise later. Its latest statement stands.
    assert remote.pr("reproduced", attest_file(remote, bundle_for(RERUN_KEY)),
                     date=soon(1)).accepted
    assert level(remote) == "verified"
    later = bundle_for(RERUN_KEY, outcome="not-reproduced", observedAt="2026-08-01T00:00:00Z")
    assert remote.pr("not reproduced", attest_file(remote, later),
                     date=soon(2)).accepted
    assert level(remote) == "source-native"
    effects = [a["effect"] for a in json.loads(remote.kistore(
        "attestations", PUBLISHED["run"], "--json").stdout)["attestations"]]
    assert sorted(effects) == ["disagrees", "superseded"]


def test_rerun_without_an_outcome_is_refused_by_attest(remote, tmp_path):
    key = tmp_path / "k"
    from cryptography.hazmat.primitives import serialization

    key.write_bytes(RERUN_KEY.private_bytes(serialization.Encoding.PEM,
                                            serialization.PrivateFormat.PKCS8,
                                            serialization.NoEncryption()))
    measured = tmp_path / "measured.json"
    measured.write_text(json.dumps({"environmentDigest": PUBLISHED["environment"], "timing": {
        "latencyNs": {"mean": 13634148}, "primaryStatistic": "mean"}}))
    done = remote.kistore("attest", PUBLISHED["run"], "--type", "rerun", "--key", str(key),
                          "--predicate", str(measured), check=False)
    assert done.returncode == 1
    assert f"{measured}:/outcome: missing required field 'outcome'" in done.stderr
