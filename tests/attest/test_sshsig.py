"""SSHSIG inside DSSE (kistore.attest.sshsig): answers checked by ssh-keygen, each attack refused.

Every refusal is checked through :func:`kistore.attest.attestation.verify_bundle`, the
path ``verify``, ``attestations`` and the gate take, so each is refused with its reason.
"""

from __future__ import annotations

import base64
import copy
import hashlib
import struct
import subprocess
from functools import partial

import pytest

from kistore.attest import attestation, signing, sshsig
from kistore.attest.attestation import Bundle, Envelope, Signature
from kistore.core.digest import Digest
from kistore.core.errors import InputError, VerificationError

from ..conftest import PUBLISHED, fixed_key
from ..sshsig_kit import needs_ssh_keygen, sk_key, sk_sign, ssh_keygen_verifies, string

RUN = Digest.from_str(PUBLISHED["run"])
PREDICATE = {"outcome": "reproduced", "observedAt": "2026-07-10T06:41:58Z"}
PAE_TYPE = attestation.PAYLOAD_TYPE


def statement() -> dict:
    return attestation.make_statement(RUN, f"store/objects/{RUN.hex}", "reproduction",
                                      copy.deepcopy(PREDICATE))


def sshsig_bundle(private=None, **kw) -> Bundle:
    private = private or fixed_key(1)
    return attestation.sign_statement_sshsig(statement(), sshsig.public_key_of(private),
                                             partial(sshsig.sign, private, **kw))


def sk_bundle(private=None, **kw) -> Bundle:
    private = private or fixed_key(4)
    return attestation.sign_statement_sshsig(statement(), sk_key(private),
                                             partial(sk_sign, private, **kw))


def with_sig(bundle: Bundle, sig: bytes, public_key: str | None = None) -> Bundle:
    env = bundle.envelope
    return Bundle(Envelope(env.payload_type, env.payload,
                           (Signature(env.signatures[0].keyid, sig),)),
                  public_key or bundle.public_key)


def refused(bundle: Bundle) -> str:
    with pytest.raises(VerificationError) as e:
        attestation.verify_bundle(bundle, RUN)
    return e.value.message


def pae(bundle: Bundle) -> bytes:
    return signing.pae(bundle.envelope.payload_type, bundle.envelope.payload)


def replace_field(blob: bytes, index: int, value: bytes) -> bytes:
    """Replace the index-th string of an SSHSIG blob (0 publickey ... 4 signature)."""
    sig = sshsig.Signature.from_bytes(blob)
    fields = [sig.public_key, sig.namespace, sig.reserved, sig.hash_algorithm, sig.signature]
    fields[index] = value
    return sshsig.Signature(*fields, version=sig.version).to_bytes()


# -- known answers ---------------------------------------------------------------------


@needs_ssh_keygen
def test_signature_is_byte_for_byte_what_ssh_keygen_writes(tmp_path):
    key_file = tmp_path / "k"
    key_file.write_bytes(signing.private_key_bytes(fixed_key(1)))
    key_file.chmod(0o600)
    message = b"DSSEv1 28 application/vnd.in-toto+json 2 {}"
    made = subprocess.run(["ssh-keygen", "-Y", "sign", "-f", str(key_file), "-n",
                           sshsig.NAMESPACE], input=message, capture_output=True, check=True,
                          timeout=60).stdout
    assert made.decode() == sshsig.armor(sshsig.sign(fixed_key(1), message))
    assert sshsig.dearmor(made) == sshsig.sign(fixed_key(1), message)
    verified = sshsig.verify(sshsig.dearmor(made), sshsig.public_key_of(fixed_key(1)), message)
    assert (verified.hash_algorithm, verified.flags, verified.counter) == ("sha512", None, None)


def test_blob_layout_follows_protocol_sshsig():
    blob = sshsig.sign(fixed_key(1), b"m", hash_algorithm="sha256")
    key = sshsig.public_key_of(fixed_key(1))
    raw = fixed_key(1).sign(b"SSHSIG" + string(b"kernelindex-attestation") + string(b"")
                            + string(b"sha256") + string(hashlib.sha256(b"m").digest()))
    assert blob == (b"SSHSIG" + b"\x00\x00\x00\x01" + string(key.wire)
                    + string(b"kernelindex-attestation") + string(b"") + string(b"sha256")
                    + string(string(b"ssh-ed25519") + string(raw)))


@needs_ssh_keygen
def test_keyid_of_plain_and_sk_keys_is_the_ssh_keygen_fingerprint(tmp_path):
    for key in (sshsig.public_key_of(fixed_key(1)), sk_key(fixed_key(4))):
        (tmp_path / "k.pub").write_text(key.line() + " c\n")
        printed = subprocess.run(["ssh-keygen", "-l", "-f", str(tmp_path / "k.pub")],
                                 capture_output=True, text=True, check=True,
                                 timeout=60).stdout.split()[1]
        assert key.keyid() == printed
    assert sshsig.public_key_of(fixed_key(1)).keyid() == signing.keyid(
        fixed_key(1).public_key())


def test_sshsig_bundle_verifies_and_carries_the_keyid():
    bundle = sshsig_bundle()
    assert attestation.verify_bundle(bundle, RUN).type == "reproduction"
    assert bundle.envelope.signatures[0].keyid == signing.keyid(fixed_key(1).public_key())
    assert attestation.bundle_keyid(bundle) == signing.keyid(fixed_key(1).public_key())
    assert bundle.envelope.signatures[0].sig.startswith(b"SSHSIG")
    assert Bundle.from_bytes(bundle.to_bytes()) == bundle


def test_sha256_sshsig_verifies_too():
    assert attestation.verify_bundle(sshsig_bundle(hash_algorithm="sha256"), RUN)


@needs_ssh_keygen
def test_sk_signature_built_from_protocol_u2f_verifies_in_kistore_and_ssh_keygen(tmp_path):
    bundle = sk_bundle(flags=0x05, counter=1234)
    assert attestation.verify_bundle(bundle, RUN).type == "reproduction"
    key = sk_key(fixed_key(4))
    blob = bundle.envelope.signatures[0].sig
    verified = sshsig.verify(blob, key, pae(bundle))
    assert (verified.flags, verified.counter) == (0x05, 1234)
    assert bundle.public_key.startswith("sk-ssh-ed25519@openssh.com AAAA")
    assert ssh_keygen_verifies(tmp_path, blob, key, pae(bundle))
    assert not ssh_keygen_verifies(tmp_path, blob, key, pae(bundle) + b" ")


@needs_ssh_keygen
def test_sk_signature_without_touch_is_accepted_like_ssh_keygen_does(tmp_path):
    # A key made with `ssh-keygen -O no-touch-required` signs with flags 0; ssh-keygen -Y
    # verify accepts that, and so does kistore (the flags are reported, and signed).
    bundle = sk_bundle(flags=0x00)
    blob = bundle.envelope.signatures[0].sig
    assert sshsig.verify(blob, sk_key(fixed_key(4)), pae(bundle)).flags == 0
    assert ssh_keygen_verifies(tmp_path, blob, sk_key(fixed_key(4)), pae(bundle))


# -- attacks refused, each with its reason ----------------------------------------------


def test_sk_flags_changed_after_signing_are_refused():
    # Claiming user verification (0x04) that the key never reported.
    bundle = sk_bundle(flags=0x01)
    blob = bundle.envelope.signatures[0].sig
    inner = sshsig.Signature.from_bytes(blob).signature
    forged = inner[:-5] + bytes([0x05]) + inner[-4:]
    assert "does not verify" in refused(with_sig(bundle, replace_field(blob, 4, forged)))


def test_sk_counter_changed_after_signing_is_refused():
    bundle = sk_bundle(counter=7)
    blob = bundle.envelope.signatures[0].sig
    inner = sshsig.Signature.from_bytes(blob).signature
    forged = inner[:-4] + struct.pack(">I", 8)
    assert "does not verify" in refused(with_sig(bundle, replace_field(blob, 4, forged)))


def test_sk_signature_under_another_application_is_refused():
    # The same authenticator key registered for another application is another key.
    bundle = sk_bundle()
    other = sk_key(fixed_key(4), b"ssh:other")
    blob = sk_sign(fixed_key(4), pae(bundle), application=b"ssh:other")
    message = refused(with_sig(bundle, blob))
    assert "another key than the bundled one" in message and other.keyid() in message


def test_sshsig_with_wrong_namespace_is_refused():
    # A signature made for a git commit (namespace "git") replayed as an attestation.
    bundle = sshsig_bundle()
    blob = sshsig.sign(fixed_key(1), pae(bundle), namespace="git")
    assert refused(with_sig(bundle, blob)) == (
        "SSHSIG namespace is 'git', expected 'kernelindex-attestation': a signature made "
        "for another purpose is not an attestation")


def test_sshsig_namespace_relabelled_after_signing_is_refused():
    bundle = sshsig_bundle()
    blob = sshsig.sign(fixed_key(1), pae(bundle), namespace="file")
    relabelled = replace_field(blob, 1, b"kernelindex-attestation")
    assert "does not verify" in refused(with_sig(bundle, relabelled))


def test_sshsig_with_unsupported_hash_algorithm_is_refused():
    # Correctly signed, but over a SHA-1 digest: PROTOCOL.sshsig allows sha256 and sha512.
    bundle = sshsig_bundle()
    data = (b"SSHSIG" + string(b"kernelindex-attestation") + string(b"") + string(b"sha1")
            + string(hashlib.sha1(pae(bundle)).digest()))
    inner = string(b"ssh-ed25519") + string(fixed_key(1).sign(data))
    blob = sshsig.Signature(sshsig.public_key_of(fixed_key(1)).wire,
                            b"kernelindex-attestation", b"", b"sha1", inner).to_bytes()
    assert refused(with_sig(bundle, blob)) == (
        "SSHSIG hash algorithm 'sha1' is not allowed; PROTOCOL.sshsig allows sha256 and sha512")


def test_sshsig_hash_algorithm_swapped_after_signing_is_refused():
    bundle = sshsig_bundle(hash_algorithm="sha512")
    swapped = replace_field(bundle.envelope.signatures[0].sig, 3, b"sha256")
    assert "does not verify" in refused(with_sig(bundle, swapped))


def test_sshsig_payload_changed_after_signing_is_refused():
    bundle = sshsig_bundle()
    payload = bytearray(bundle.envelope.payload)
    payload[payload.index(b"reproduced")] ^= 0x01
    env = bundle.envelope
    changed = Bundle(Envelope(env.payload_type, bytes(payload), env.signatures),
                     bundle.public_key)
    assert refused(changed) == (
        "SSHSIG signature does not verify over these bytes under the bundled key (signed "
        "over other bytes, or changed after signing)")


def test_sshsig_over_the_payload_instead_of_its_pae_is_refused():
    bundle = sshsig_bundle()
    blob = sshsig.sign(fixed_key(1), bundle.envelope.payload)
    assert "does not verify" in refused(with_sig(bundle, blob))


def test_sshsig_by_another_key_than_the_bundled_one_is_refused():
    # Key substitution: the bundle names key 1, the SSHSIG blob brings key 2 and its
    # valid signature. The bundled key is what is checked (and what trust looks up).
    bundle = sshsig_bundle()
    blob = sshsig.sign(fixed_key(2), pae(bundle))
    message = refused(with_sig(bundle, blob))
    assert message.startswith("the SSHSIG signature is by another key than the bundled one")
    assert signing.keyid(fixed_key(2).public_key()) in message


def test_sshsig_with_trailing_bytes_is_refused():
    bundle = sshsig_bundle()
    assert refused(with_sig(bundle, bundle.envelope.signatures[0].sig + b"\0")) == (
        "SSHSIG signature: 1 byte(s) after the last field (non-canonical encoding: one "
        "signature must have exactly one encoding)")


def test_sshsig_with_trailing_bytes_inside_the_signature_field_is_refused():
    bundle = sshsig_bundle()
    blob = bundle.envelope.signatures[0].sig
    padded = replace_field(blob, 4, sshsig.Signature.from_bytes(blob).signature + b"\0")
    assert refused(with_sig(bundle, padded)).startswith(
        "SSHSIG signature field: 1 byte(s) after the last field (non-canonical")


def test_sshsig_with_a_short_ed25519_signature_is_refused():
    bundle = sshsig_bundle()
    blob = bundle.envelope.signatures[0].sig
    raw = sshsig.Signature.from_bytes(blob).signature[-64:]
    short = replace_field(blob, 4, string(b"ssh-ed25519") + string(raw[:63]))
    assert refused(with_sig(bundle, short)) == "SSHSIG Ed25519 signature is 63 bytes, expected 64"


def test_sshsig_with_malleated_s_is_refused():
    # S + L verifies with lenient Ed25519 libraries: a second encoding of one signature.
    bundle = sshsig_bundle()
    blob = bundle.envelope.signatures[0].sig
    raw = sshsig.Signature.from_bytes(blob).signature[-64:]
    s = int.from_bytes(raw[32:], "little") + signing.L
    malleated = raw[:32] + s.to_bytes(32, "little")
    forged = replace_field(blob, 4, string(b"ssh-ed25519") + string(malleated))
    assert refused(with_sig(bundle, forged)).startswith(
        "non-canonical Ed25519 signature in SSHSIG (S >= L")


def test_sshsig_with_padded_public_key_field_is_refused():
    bundle = sshsig_bundle()
    blob = bundle.envelope.signatures[0].sig
    padded_key = sshsig.public_key_of(fixed_key(1)).wire + b"\0"
    message = refused(with_sig(bundle, replace_field(blob, 0, padded_key)))
    assert message == ("the SSHSIG signature cannot be parsed: its publickey field holds no "
                       "key (public key: 1 byte(s) after the last field (non-canonical "
                       "encoding: one signature must have exactly one encoding)); the blob was "
                       "damaged after signing (`ssh-keygen -Y verify` says \"parse signature "
                       "object\" too)")
    bundled = "ssh-ed25519 " + base64.b64encode(padded_key).decode()
    message = refused(with_sig(bundle, replace_field(blob, 0, padded_key), bundled))
    assert message == ("verificationMaterial.publicKey: public key: 1 byte(s) after the last "
                       "field (non-canonical encoding: one signature must have exactly one "
                       "encoding)")


def test_sshsig_with_one_character_of_its_key_type_changed_cannot_be_parsed():
    """fresh00 LOW: a damaged blob was said to be "by another key than the bundled one";
    ssh-keygen calls it unparseable ("parse signature object: incomplete message")."""
    bundle = sshsig_bundle()
    blob = bundle.envelope.signatures[0].sig
    at = blob.index(b"ssh-ed25519")  # the publickey field's key type, the first one
    damaged = blob[:at + 10] + b"8" + blob[at + 11:]
    message = refused(with_sig(bundle, damaged))
    assert message.startswith("the SSHSIG signature cannot be parsed: its publickey field "
                              "holds no key (")
    assert "another key" not in message


def test_sshsig_with_reserved_data_is_refused():
    bundle = sshsig_bundle()
    blob = replace_field(bundle.envelope.signatures[0].sig, 2, b"tag")
    assert refused(with_sig(bundle, blob)).startswith(
        "SSHSIG reserved field holds 3 byte(s); kistore accepts only an empty one")


def test_sshsig_of_a_later_version_is_refused():
    bundle = sshsig_bundle()
    blob = bundle.envelope.signatures[0].sig
    later = blob[:6] + b"\x00\x00\x00\x02" + blob[10:]
    assert refused(with_sig(bundle, later)) == "SSHSIG version 2 is not supported (only 1)"


def test_truncated_sshsig_is_refused():
    bundle = sshsig_bundle()
    assert "runs past the end" in refused(
        with_sig(bundle, bundle.envelope.signatures[0].sig[:-1]))


def test_sshsig_signature_type_other_than_the_key_type_is_refused():
    # A plain ssh-ed25519 signature presented under an sk key: no flags, no counter.
    bundle = sk_bundle()
    plain = sshsig.sign(fixed_key(4), pae(bundle))
    forged = sshsig.Signature(sk_key(fixed_key(4)).wire, b"kernelindex-attestation", b"",
                              b"sha512", sshsig.Signature.from_bytes(plain).signature)
    assert refused(with_sig(bundle, forged.to_bytes())) == (
        "SSHSIG signature type 'ssh-ed25519' does not match the key type "
        "'sk-ssh-ed25519@openssh.com'")


def test_raw_signature_under_an_sk_key_is_refused():
    bundle = sk_bundle()
    raw = signing.sign(fixed_key(4), PAE_TYPE, bundle.envelope.payload)
    assert refused(with_sig(bundle, raw)) == (
        "a sk-ssh-ed25519@openssh.com key signs only SSHSIG signatures; this signature is "
        "64 bytes without the 'SSHSIG' preamble")


def test_armored_signature_text_in_the_envelope_is_refused():
    # The DSSE sig holds the blob; the armored text is not another accepted encoding.
    bundle = sshsig_bundle()
    armored = sshsig.armor(bundle.envelope.signatures[0].sig).encode()
    assert "expected 64" in refused(with_sig(bundle, armored))


def test_weak_sk_key_is_refused():
    identity = (1).to_bytes(32, "little")  # the identity point: small order
    weak = sshsig.SshPublicKey(sshsig.SK_ED25519, identity, b"ssh:")
    with pytest.raises(InputError, match="weak Ed25519 public key"):
        sshsig.SshPublicKey.from_text(weak.line())


def test_public_key_line_type_must_match_the_key():
    line = sk_key(fixed_key(4)).line().replace("sk-ssh-ed25519@openssh.com", "ssh-ed25519")
    with pytest.raises(InputError, match="the line says 'ssh-ed25519' but the key is"):
        sshsig.SshPublicKey.from_text(line)


def test_signer_returning_a_signature_by_another_key_is_caught_before_storing():
    with pytest.raises(VerificationError, match="the new signature does not verify"):
        attestation.sign_statement_sshsig(statement(), sshsig.public_key_of(fixed_key(1)),
                                          partial(sshsig.sign, fixed_key(2)))


def test_dearmor_refuses_text_without_header():
    with pytest.raises(InputError, match="not an armored SSH signature"):
        sshsig.dearmor("U1NIU0lH\n")
