"""Ed25519 keys, OpenSSH keyids, DSSE PAE, and signature checks (kistore.signing)."""

from __future__ import annotations

import subprocess

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from hypothesis import given
from hypothesis import strategies as st

from kistore.attest import signing
from kistore.core.errors import InputError, VerificationError

from ..conftest import fixed_key

PAYLOAD_TYPE = "application/vnd.in-toto+json"


def test_pae_matches_the_dsse_spec_example():
    # DSSE v1 protocol.md, "Test vectors": PAE of "http://example.com/HelloWorld", "hello world"
    assert signing.pae("http://example.com/HelloWorld", b"hello world") == (
        b"DSSEv1 29 http://example.com/HelloWorld 11 hello world")


def test_pae_counts_bytes_not_characters():
    assert signing.pae("t", "é".encode()) == b"DSSEv1 1 t 2 \xc3\xa9"
    assert signing.pae("", b"") == b"DSSEv1 0  0 "


def test_keyid_equals_ssh_keygen_fingerprint(tmp_path):
    key = fixed_key(1).public_key()
    path = tmp_path / "k.pub"
    path.write_text(signing.public_key_line(key) + " someone@example\n")
    out = subprocess.run(["ssh-keygen", "-l", "-f", str(path)], capture_output=True, text=True,
                         check=True).stdout
    assert out.split()[1] == signing.keyid(key)
    assert signing.keyid(key).startswith("SHA256:") and "=" not in signing.keyid(key)


def test_public_key_line_round_trips_and_pem_is_accepted():
    key = fixed_key(2).public_key()
    line = signing.public_key_line(key)
    assert signing.keyid(signing.load_public_key(line + " comment")) == signing.keyid(key)
    pem = key.public_bytes(serialization.Encoding.PEM,
                           serialization.PublicFormat.SubjectPublicKeyInfo)
    assert signing.public_key_line(signing.load_public_key(pem)) == line


@pytest.mark.parametrize("text", ["", "ssh-rsa AAAAB3NzaC1yc2E", "ssh-ed25519 !!!", "hello"])
def test_not_an_ed25519_public_key_is_refused(text):
    with pytest.raises(InputError, match="not an Ed25519 public key"):
        signing.load_public_key(text)


def test_private_keys_in_pem_and_openssh_form_are_read():
    key = fixed_key(3)
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                            serialization.NoEncryption())
    for data in (pem, signing.private_key_bytes(key)):
        loaded = signing.load_private_key(data)
        assert signing.keyid(loaded.public_key()) == signing.keyid(key.public_key())


def test_ssh_keygen_key_is_read(tmp_path):
    path = tmp_path / "id_ed25519"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(path)], check=True)
    loaded = signing.load_private_key(path.read_bytes(), file=str(path))
    assert signing.public_key_line(loaded.public_key()) == " ".join(
        (tmp_path / "id_ed25519.pub").read_text().split()[:2])


@pytest.mark.parametrize("form", ["openssh", "pem"])
def test_encrypted_key_needs_its_passphrase(form):
    key = fixed_key(4)
    if form == "openssh":
        data = signing.private_key_bytes(key, b"secret")
    else:
        data = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                 serialization.BestAvailableEncryption(b"secret"))
    with pytest.raises(signing.PassphraseRequired, match="encrypted"):
        signing.load_private_key(data, file="k")
    with pytest.raises(signing.PassphraseRequired, match="wrong passphrase"):
        signing.load_private_key(data, b"guess", file="k")
    assert signing.load_private_key(data, b"secret").public_key() == key.public_key()


# An encrypted PKCS#8 PEM (cryptography, passphrase "secret", key seed bytes(range(32))),
# fixed here because its salt is random; "guess523" decrypts it to valid CBC padding (one
# wrong passphrase in 256 does), so cryptography fails later, in the ASN.1 parse.
_PADDED_BY_CHANCE = b"""-----BEGIN ENCRYPTED PRIVATE KEY-----
MIGjMF8GCSqGSIb3DQEFDTBSMDEGCSqGSIb3DQEFDDAkBBDkcsDX2igIsm7/zPrp
PeJWAgIIADAMBggqhkiG9w0CCQUAMB0GCWCGSAFlAwQBKgQQZra41Y8cdFWuSgSc
MBFFZARARGNUPN2cdccQ1f7HClEd7gggurEvOWjfrTZ/VKGxnm2OU1NTsB9jat8L
q2vzdMqmspM7sSyuKXVzgLC2xIUOlg==
-----END ENCRYPTED PRIVATE KEY-----
"""


def test_every_wrong_passphrase_of_an_encrypted_pem_is_said_wrong():
    # CI found it by chance: such a passphrase was said "not a PEM or OpenSSH private key"
    with pytest.raises(ValueError, match="deserialize"):  # the case this test is about
        serialization.load_pem_private_key(_PADDED_BY_CHANCE, password=b"guess523")
    for guess in (b"guess523", b"guess0"):  # the padding case, and the usual one
        with pytest.raises(signing.PassphraseRequired, match="wrong passphrase"):
            signing.load_private_key(_PADDED_BY_CHANCE, guess, file="k")
    key = signing.load_private_key(_PADDED_BY_CHANCE, b"secret")
    assert key.public_key() == Ed25519PrivateKey.from_private_bytes(bytes(range(32))).public_key()


def test_non_ed25519_private_key_is_refused():
    data = ec.generate_private_key(ec.SECP256R1()).private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption())
    with pytest.raises(InputError, match="expected Ed25519"):
        signing.load_private_key(data, file="ec.pem")
    with pytest.raises(InputError, match="not a PEM or OpenSSH private key"):
        signing.load_private_key(b"garbage", file="x")


def test_signature_over_pae_verifies():
    key = fixed_key(5)
    sig = signing.sign(key, PAYLOAD_TYPE, b"{}")
    key.public_key().verify(sig, b"DSSEv1 28 application/vnd.in-toto+json 2 {}")
    signing.verify_signature(key.public_key(), PAYLOAD_TYPE, b"{}", sig)


def test_non_canonical_signature_s_plus_l_is_rejected():
    key = fixed_key(6)
    sig = signing.sign(key, PAYLOAD_TYPE, b"{}")
    s = int.from_bytes(sig[32:], "little")
    malleated = sig[:32] + (s + signing.L).to_bytes(32, "little")
    assert not signing.is_canonical_signature(malleated)
    with pytest.raises(VerificationError, match=r"non-canonical Ed25519 signature \(S >= L"):
        signing.verify_signature(key.public_key(), PAYLOAD_TYPE, b"{}", malleated)


def test_signature_of_wrong_length_is_rejected():
    with pytest.raises(VerificationError, match="signature is 63 bytes, expected 64"):
        signing.verify_signature(fixed_key(7).public_key(), PAYLOAD_TYPE, b"{}", b"\0" * 63)


@given(payload=st.binary(max_size=200), flip=st.integers(min_value=0))
def test_any_changed_payload_byte_fails_verification(payload, flip):
    key = fixed_key(8)
    sig = signing.sign(key, PAYLOAD_TYPE, payload)
    signing.verify_signature(key.public_key(), PAYLOAD_TYPE, payload, sig)
    changed = bytearray(payload or b"x")
    if payload:
        changed[flip % len(changed)] ^= 0x01
    with pytest.raises(VerificationError, match="does not verify"):
        signing.verify_signature(key.public_key(), PAYLOAD_TYPE, bytes(changed), sig)


# The eight points of small order (RFC 8032 encodings; the first six as listed by
# libsodium's blocklist, plus the identity and order-2 point with the sign bit set).
SMALL_ORDER = [
    "0100000000000000000000000000000000000000000000000000000000000000",  # identity
    "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",  # order 2
    "0000000000000000000000000000000000000000000000000000000000000000",  # order 4
    "0000000000000000000000000000000000000000000000000000000000000080",  # order 4
    "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05",  # order 8
    "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc85",  # order 8
    "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a",  # order 8
    "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa",  # order 8
]


@pytest.mark.parametrize("hex_key", SMALL_ORDER)
def test_small_order_points_are_detected(hex_key):
    assert signing.has_small_order(bytes.fromhex(hex_key))


def test_ordinary_keys_are_not_small_order():
    for n in range(1, 20):
        assert not signing.has_small_order(signing.raw_public_key(fixed_key(n).public_key()))


def test_weak_key_that_verifies_every_message_is_refused():
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    identity = bytes.fromhex(SMALL_ORDER[0])
    weak = Ed25519PublicKey.from_public_bytes(identity)
    forged = identity + bytes(32)  # R = identity, S = 0
    for message in (b"a rerun that never ran", b"anything"):
        weak.verify(forged, message)  # the library accepts it: the attack is real
    with pytest.raises(InputError, match="weak Ed25519 public key"):
        signing.load_public_key(signing.public_key_line(weak))
