"""SSHSIG attestations under trust (same keyids, roles, windows) and the allowed_signers export."""

from __future__ import annotations

import copy
import subprocess
from functools import partial

from kistore.attest import allowed_signers, attestation, notes, sshsig
from kistore.attest.evidence import SOURCE_NATIVE, VERIFIED, check_attestations, evidence_for
from kistore.attest.trust import Trust, TrustedKey, add_key, parse_time, revoke_key
from kistore.core import layout
from kistore.core.digest import Digest

from ..conftest import PUBLISHED, fixed_key
from ..sshsig_kit import needs_ssh_keygen, sk_key, sk_sign

RUN = Digest.from_str(PUBLISHED["run"])
MEASURED = {"outcome": "reproduced", "observedAt": "2026-07-10T06:41:58Z",
            "environmentDigest": PUBLISHED["environment"],
            "timing": {"latencyNs": {"mean": 13_500_000}, "primaryStatistic": "mean"}}
SK_PRIVATE = fixed_key(4)
SK = sk_key(SK_PRIVATE)
SINCE = parse_time("2019-01-01")


def sk_rerun(**kw) -> bytes:
    statement = attestation.make_statement(RUN, layout.object_path(RUN), "rerun",
                                           copy.deepcopy(MEASURED))
    return attestation.sign_statement_sshsig(statement, SK,
                                             partial(sk_sign, SK_PRIVATE, **kw)).to_bytes()


def test_rerun_by_trusted_security_key_makes_the_run_verified(record_store):
    # trusted since before the note (a key without validFrom counts from its commit)
    entry = add_key(record_store.root, SK.line() + " yubikey", ["rerun"], valid_from=SINCE)
    assert (entry.keyid, entry.public_key) == (SK.keyid(), SK.line())
    notes.attach(record_store, RUN, sk_rerun())
    evidence = evidence_for(record_store, RUN)
    assert evidence.level == VERIFIED
    assert evidence.attestations[0]["keyid"] == SK.keyid()
    assert [f.rule.id for f in check_attestations(record_store)] == ["KI307", "KI308"]


def test_rerun_by_revoked_security_key_is_not_counted(record_store):
    add_key(record_store.root, SK.line(), ["rerun"], valid_from=SINCE)
    revoke_key(record_store.root, SK.keyid(), at=parse_time("2020-01-01"))
    notes.attach(record_store, RUN, sk_rerun())
    evidence = evidence_for(record_store, RUN)
    assert evidence.level == SOURCE_NATIVE
    assert "was revoked at 2020-01-01T00:00:00Z" in evidence.attestations[0]["reason"]
    assert [f.rule.id for f in check_attestations(record_store)] == ["KI302", "KI308"]


def test_trust_file_with_sk_key_round_trips():
    key = TrustedKey(SK.keyid(), SK.line(), ("rerun",), comment="yubikey")
    trust = Trust({SK.keyid(): key})
    assert Trust.from_bytes(trust.to_bytes()).keys == trust.keys


# -- allowed_signers -------------------------------------------------------------------

KEY = sshsig.public_key_of(fixed_key(1))


def test_line_has_keyid_and_roles_as_principals_and_the_window_in_utc():
    key = TrustedKey(KEY.keyid(), KEY.line(), ("maintainer", "rerun"),
                     valid_from=parse_time("2026-01-01T00:00:00.250+02:00"),
                     valid_until=parse_time("2027-01-01"),
                     revoked_at=parse_time("2026-06-01T12:00:00.700Z"))
    assert allowed_signers.line(key) == (
        f"{KEY.keyid()},maintainer,rerun namespaces=\"kernelindex-attestation\","
        'valid-after="20251231220001Z",valid-before="20260601115959Z" ' + KEY.line())


def test_line_without_window_has_only_the_namespace():
    key = TrustedKey(KEY.keyid(), KEY.line(), ("rerun",))
    assert allowed_signers.line(key) == (
        f'{KEY.keyid()},rerun namespaces="kernelindex-attestation" {KEY.line()}')


def test_file_comment_cannot_break_out_of_its_line():
    key = TrustedKey(KEY.keyid(), KEY.line(), ("rerun",), comment="ci\nevil ssh-ed25519 AAAA")
    text = allowed_signers.to_text(Trust({KEY.keyid(): key}))
    assert text.endswith(f"# {KEY.keyid()}: ci evil ssh-ed25519 AAAA\n"
                         f"{allowed_signers.line(key)}\n")
    assert text.startswith(allowed_signers.HEADER)


@needs_ssh_keygen
def test_ssh_keygen_judges_the_exported_window_as_kistore_judges_trust(tmp_path):
    key = TrustedKey(KEY.keyid(), KEY.line(), ("rerun",),
                     valid_from=parse_time("2026-01-01T00:00:00Z"),
                     revoked_at=parse_time("2026-06-01T00:00:00Z"))
    (tmp_path / "allowed").write_text(allowed_signers.to_text(Trust({KEY.keyid(): key})))
    message = b"PAE bytes"
    (tmp_path / "sig").write_text(sshsig.armor(sshsig.sign(fixed_key(1), message)))

    def ssh_keygen(principal: str, when: str) -> bool:
        return subprocess.run(
            ["ssh-keygen", "-Y", "verify", "-f", str(tmp_path / "allowed"), "-I", principal,
             "-n", "kernelindex-attestation", "-s", str(tmp_path / "sig"),
             f"-Overify-time={when}"], input=message, capture_output=True,
            timeout=60).returncode == 0

    for when, expected in [("20251231235959Z", False), ("20260101000000Z", True),
                           ("20260531235959Z", True), ("20260601000000Z", False)]:
        instant = parse_time(f"{when[:4]}-{when[4:6]}-{when[6:8]}T{when[8:10]}:{when[10:12]}:"
                             f"{when[12:14]}Z")
        assert (key.judge("rerun", instant) is None) is expected  # kistore
        assert ssh_keygen("rerun", when) is expected, when  # ssh-keygen
        assert ssh_keygen(KEY.keyid(), when) is expected, when
    assert not ssh_keygen("maintainer", "20260301000000Z")  # a role the key lacks
