"""Statements, DSSE envelopes and bundles (kistore.attestation): each attack refused."""

from __future__ import annotations

import base64
import copy
import json

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from kistore.attest import attestation, signing
from kistore.attest.attestation import Bundle
from kistore.core import canonical
from kistore.core.digest import Digest
from kistore.core.errors import InputError, MultipleErrors, ParseError, VerificationError

from ..conftest import PUBLISHED, VECTORS, fixed_key

RUN = Digest.from_str(PUBLISHED["run"])
OTHER = Digest.from_str(PUBLISHED["protocol"])
PREDICATE = {"outcome": "reproduced", "observedAt": "2026-07-10T06:41:58Z",
             "timing": {"latencyNs": {"mean": 1234.5}, "primaryStatistic": "mean"}}


def make_bundle(type_name="reproduction", predicate=None, key=None, subject=RUN) -> Bundle:
    statement = attestation.make_statement(subject, f"store/objects/{subject.hex}", type_name,
                                           predicate or copy.deepcopy(PREDICATE))
    return attestation.sign_statement(statement, key or fixed_key(1))


def as_json(bundle: Bundle) -> dict:
    return json.loads(bundle.to_bytes())


def from_json(value: dict) -> Bundle:
    return Bundle.from_bytes(json.dumps(value).encode())


def resign(value: dict, payload: bytes, payload_type: str, key=None) -> dict:
    """Put a new payload in and sign it properly (for attacks that need a valid signature)."""
    key = key or fixed_key(1)
    env = value["dsseEnvelope"]
    env["payload"] = base64.b64encode(payload).decode()
    env["payloadType"] = payload_type
    env["signatures"] = [{"keyid": signing.keyid(key.public_key()),
                          "sig": base64.b64encode(signing.sign(key, payload_type,
                                                               payload)).decode()}]
    return value


def independent_dsse_verify(bundle_bytes: bytes) -> dict:
    """DSSE v1 verification written from the spec, sharing no code with kistore."""
    bundle = json.loads(bundle_bytes)
    env = bundle["dsseEnvelope"]
    payload = base64.b64decode(env["payload"])
    payload_type = env["payloadType"].encode()
    pae = b" ".join([b"DSSEv1", str(len(payload_type)).encode(), payload_type,
                     str(len(payload)).encode(), payload])
    wire = base64.b64decode(bundle["verificationMaterial"]["publicKey"].split()[1])
    raw = wire[-32:]  # string "ssh-ed25519" then string of the 32 key bytes
    assert wire[:15] == b"\x00\x00\x00\x0bssh-ed25519" and wire[15:19] == b"\x00\x00\x00\x20"
    key = Ed25519PublicKey.from_public_bytes(raw)
    for signature in env["signatures"]:
        key.verify(base64.b64decode(signature["sig"]), pae)  # raises InvalidSignature
    return json.loads(payload)


def test_envelope_verifies_with_independent_dsse_check():
    bundle = make_bundle()
    statement = independent_dsse_verify(bundle.to_bytes())
    assert statement == {
        "_type": "https://in-toto.io/Statement/v1",
        "subject": [{"name": f"store/objects/{RUN.hex}", "digest": {"sha256": RUN.hex}}],
        "predicateType": "https://kernelindex.dev/attestation/reproduction/v1",
        "predicate": PREDICATE,
    }
    assert base64.b64decode(as_json(bundle)["dsseEnvelope"]["payload"]) == canonical.dumps(
        statement)  # the payload is the statement's RFC 8785 bytes


def test_bundle_round_trips_and_is_canonical():
    bundle = make_bundle()
    data = bundle.to_bytes()
    assert canonical.is_canonical(data) and b"\n" not in data
    assert Bundle.from_bytes(data) == bundle
    assert set(json.loads(data)) == {"dsseEnvelope", "verificationMaterial"}
    assert json.loads(data)["verificationMaterial"]["publicKey"] == signing.public_key_line(
        fixed_key(1).public_key())
    statement = attestation.verify_bundle(Bundle.from_bytes(data), RUN)
    assert (statement.type, statement.subject, statement.predicate) == (
        "reproduction", RUN, PREDICATE)


def test_verifier_never_reserialises_the_payload():
    # A payload that is valid JSON but not canonical still verifies: the bytes are checked.
    payload = json.dumps(json.loads(canonical.dumps(make_bundle_statement())), indent=1).encode()
    value = resign(as_json(make_bundle()), payload, attestation.PAYLOAD_TYPE)
    assert attestation.verify_bundle(from_json(value), RUN).subject == RUN
    assert Bundle.from_bytes(canonical.dumps(value)).envelope.payload == payload


def make_bundle_statement():
    return attestation.make_statement(RUN, "x", "reproduction", copy.deepcopy(PREDICATE))


def test_payload_changed_after_signing_is_rejected():
    value = as_json(make_bundle())
    statement = json.loads(base64.b64decode(value["dsseEnvelope"]["payload"]))
    statement["predicate"]["timing"]["latencyNs"]["mean"] = 1.0  # a faster result
    value["dsseEnvelope"]["payload"] = base64.b64encode(canonical.dumps(statement)).decode()
    with pytest.raises(VerificationError, match="does not verify over the payload"):
        attestation.verify_bundle(from_json(value), RUN)


def test_payload_type_swapped_is_rejected():
    value = as_json(make_bundle())
    value["dsseEnvelope"]["payloadType"] = "application/json"
    with pytest.raises(VerificationError, match="payloadType is 'application/json'"):
        attestation.verify_bundle(from_json(value), RUN)


def test_payload_type_swapped_and_resigned_is_still_rejected():
    value = as_json(make_bundle())
    payload = base64.b64decode(value["dsseEnvelope"]["payload"])
    value = resign(value, payload, "text/plain")
    with pytest.raises(VerificationError, match="expected 'application/vnd.in-toto\\+json'"):
        attestation.verify_bundle(from_json(value), RUN)


def test_signature_copied_onto_another_subject_is_rejected():
    bundle = make_bundle()
    attestation.verify_bundle(bundle, RUN)
    with pytest.raises(VerificationError, match="copied onto another subject"):
        attestation.verify_bundle(bundle, OTHER)


def test_one_key_under_two_keyids_is_rejected():
    value = as_json(make_bundle())
    sig = dict(value["dsseEnvelope"]["signatures"][0])
    value["dsseEnvelope"]["signatures"].append({**sig, "keyid": "another-name"})
    with pytest.raises(VerificationError, match="listed under two keyids"):
        attestation.verify_bundle(from_json(value), RUN)


def test_same_signature_twice_is_rejected():
    value = as_json(make_bundle())
    value["dsseEnvelope"]["signatures"] *= 2
    with pytest.raises(VerificationError, match="same signature appears twice"):
        attestation.verify_bundle(from_json(value), RUN)


def test_second_signature_by_another_key_is_rejected():
    value = as_json(make_bundle())
    other = as_json(make_bundle(key=fixed_key(2)))["dsseEnvelope"]["signatures"][0]
    value["dsseEnvelope"]["signatures"].append(other)
    with pytest.raises(VerificationError, match="a bundle carries one public key"):
        attestation.verify_bundle(from_json(value), RUN)


def test_envelope_with_no_signatures_is_rejected():
    value = as_json(make_bundle())
    value["dsseEnvelope"]["signatures"] = []
    with pytest.raises(VerificationError, match="has no signatures"):
        attestation.verify_bundle(from_json(value), RUN)


def test_duplicate_json_keys_in_envelope_are_rejected():
    data = make_bundle().to_bytes()
    forged = base64.b64encode(b'{"_type":"x"}').decode()
    # a parser keeping the last "payload" would see the forged one
    doubled = data.replace(b'"payload":', f'"payload":"{forged}","payload":'.encode(), 1)
    with pytest.raises(ParseError, match="duplicate object key 'payload'"):
        Bundle.from_bytes(doubled, file="b.json")


def test_duplicate_json_keys_in_payload_are_rejected():
    payload = canonical.dumps(make_bundle_statement())
    doubled = payload.replace(b'"outcome":"reproduced"',
                              b'"outcome":"not-reproduced","outcome":"reproduced"')
    value = resign(as_json(make_bundle()), doubled, attestation.PAYLOAD_TYPE)
    with pytest.raises(VerificationError, match="payload is not strict JSON.*duplicate"):
        attestation.verify_bundle(from_json(value), RUN)


def test_signature_by_another_key_than_bundled_is_rejected():
    value = as_json(make_bundle())
    value["verificationMaterial"]["publicKey"] = signing.public_key_line(
        fixed_key(9).public_key())
    with pytest.raises(VerificationError, match="does not verify"):
        attestation.verify_bundle(from_json(value), RUN)


def test_keyid_is_only_a_hint():
    value = as_json(make_bundle())
    value["dsseEnvelope"]["signatures"][0]["keyid"] = "whatever"
    bundle = from_json(value)
    attestation.verify_bundle(bundle, RUN)
    assert attestation.bundle_keyid(bundle) == signing.keyid(fixed_key(1).public_key())


def test_non_canonical_signature_in_envelope_is_rejected():
    value = as_json(make_bundle())
    sig = base64.b64decode(value["dsseEnvelope"]["signatures"][0]["sig"])
    s = int.from_bytes(sig[32:], "little") + signing.L
    value["dsseEnvelope"]["signatures"][0]["sig"] = base64.b64encode(
        sig[:32] + s.to_bytes(32, "little")).decode()
    with pytest.raises(VerificationError, match="non-canonical"):
        attestation.verify_bundle(from_json(value), RUN)


@pytest.mark.parametrize("mutate, message", [
    (lambda v: v.pop("verificationMaterial"), "missing field 'verificationMaterial'"),
    (lambda v: v.update(extra=1), "unknown field 'extra'"),
    (lambda v: v["dsseEnvelope"].update(payload="***"), "not valid base64"),
    (lambda v: v["dsseEnvelope"].update(signatures={}), "signatures must be an array"),
    (lambda v: v["dsseEnvelope"]["signatures"][0].update(sig=3), "sig must be a string"),
])
def test_malformed_bundle_names_the_field(mutate, message):
    value = as_json(make_bundle())
    mutate(value)
    with pytest.raises(InputError, match=message):
        from_json(value)


def test_url_safe_base64_is_accepted():
    value = as_json(make_bundle())
    env = value["dsseEnvelope"]
    env["payload"] = base64.urlsafe_b64encode(base64.b64decode(env["payload"])).decode()
    attestation.verify_bundle(from_json(value), RUN)


def test_unknown_predicate_type_is_rejected():
    statement = make_bundle_statement()
    statement["predicateType"] = "https://example.com/anything/v1"
    value = resign(as_json(make_bundle()), canonical.dumps(statement), attestation.PAYLOAD_TYPE)
    with pytest.raises(VerificationError, match="unknown predicateType"):
        attestation.verify_bundle(from_json(value), RUN)


def test_invalid_predicate_is_rejected_when_signing_and_when_verifying():
    with pytest.raises(MultipleErrors, match="outcome"):
        attestation.make_statement(RUN, "x", "reproduction", {"outcome": "maybe",
                                                              "observedAt": "2026-01-01T00:00Z"})
    statement = make_bundle_statement()
    statement["predicate"]["outcome"] = "maybe"
    value = resign(as_json(make_bundle()), canonical.dumps(statement), attestation.PAYLOAD_TYPE)
    with pytest.raises(VerificationError, match="predicate/outcome does not validate"):
        attestation.verify_bundle(from_json(value), RUN)


def test_rerun_predicate_needs_timing_and_environment():
    with pytest.raises(MultipleErrors) as info:
        attestation.make_statement(RUN, "x", "rerun", {"outcome": "reproduced",
                                                       "observedAt": "2026-01-01T00:00:00Z"})
    text = str(info.value.format())
    assert "/environmentDigest: missing required field 'environmentDigest'" in text
    assert "/timing: missing required field 'timing'" in text


def test_statement_with_two_subjects_is_rejected():
    statement = make_bundle_statement()
    statement["subject"] = statement["subject"] * 2
    value = resign(as_json(make_bundle()), canonical.dumps(statement), attestation.PAYLOAD_TYPE)
    with pytest.raises(VerificationError, match="exactly one subject"):
        attestation.verify_bundle(from_json(value), RUN)


def test_every_type_has_one_uri_and_a_schema():
    from kistore.core.schema import load_schema

    assert len(set(attestation.PREDICATE_TYPES.values())) == len(attestation.TYPES)
    for name, uri in attestation.PREDICATE_TYPES.items():
        assert uri == f"https://kernelindex.dev/attestation/{name}/v1"
        assert attestation.type_of(uri) == name
        assert load_schema(attestation.predicate_schema(name))["type"] == "object"


def test_build_predicate_fills_defaults():
    now = "2026-07-10T00:00:00Z"
    assert attestation.build_predicate("reproduction", None, now=now) == {
        "outcome": "reproduced", "observedAt": now}
    assert attestation.build_predicate("rerun", {"outcome": "not-reproduced"}, now=now)[
        "outcome"] == "not-reproduced"
    assert attestation.build_predicate("rerun", {"outcome": "not-reproduced"},
                                       outcome="reproduced", now=now)["outcome"] == "reproduced"
    assert attestation.build_predicate("dispute", None, message="bad timer", now=now) == {
        "reason": "bad timer", "createdAt": now}
    assert attestation.build_predicate("note", None, message="hi", now=now)["text"] == "hi"


def test_pem_serialisation_not_needed_for_bundle_key():
    # the bundle carries an OpenSSH line; a PEM public key there is read too
    value = as_json(make_bundle())
    value["verificationMaterial"]["publicKey"] = fixed_key(1).public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo).decode()
    attestation.verify_bundle(from_json(value), RUN)


VECTOR = json.loads((VECTORS / "dsse-rerun-bundle.json").read_text())


def test_known_answer_bundle_is_reproduced_byte_for_byte():
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    key = Ed25519PrivateKey.from_private_bytes(bytes.fromhex(VECTOR["privateKeySeedHex"]))
    assert signing.public_key_line(key.public_key()) == VECTOR["publicKey"]
    assert signing.keyid(key.public_key()) == VECTOR["keyid"]
    payload = canonical.dumps(VECTOR["statement"])
    assert payload.hex() == VECTOR["payloadHex"]
    assert signing.pae(attestation.PAYLOAD_TYPE, payload).hex() == VECTOR["paeHex"]
    bundle = attestation.sign_statement(VECTOR["statement"], key)
    assert bundle.to_bytes() == VECTOR["bundle"].encode()


def test_known_answer_bundle_verifies_independently_and_with_kistore():
    data = VECTOR["bundle"].encode()
    assert independent_dsse_verify(data) == VECTOR["statement"]
    statement = attestation.verify_bundle(Bundle.from_bytes(data), RUN)
    assert statement.type == "rerun"


def test_bundle_under_a_weak_key_that_signs_everything_is_rejected():
    identity = bytes([1]) + bytes(31)
    wire = b"\x00\x00\x00\x0bssh-ed25519\x00\x00\x00\x20" + identity
    value = as_json(make_bundle())
    value["verificationMaterial"]["publicKey"] = "ssh-ed25519 " + base64.b64encode(
        wire).decode()
    value["dsseEnvelope"]["signatures"] = [
        {"keyid": "", "sig": base64.b64encode(identity + bytes(32)).decode()}]
    with pytest.raises(VerificationError, match="weak Ed25519 public key"):
        attestation.verify_bundle(from_json(value), RUN)
