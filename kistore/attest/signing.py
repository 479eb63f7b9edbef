"""Ed25519 keys, keyids, and DSSE v1 signing over the pre-authentication encoding (PAE).

Owns: reading private keys (PEM PKCS#8 and OpenSSH ``ed25519``, encrypted or not) and
public keys (OpenSSH public-key lines and PEM), the OpenSSH fingerprint used as keyid,
DSSE v1 PAE, and signing/verifying raw signatures. Pure: no git, no files, no trust
decisions (those live in :mod:`kistore.attest.trust`), no JSON (:mod:`kistore.attest.attestation`).

Specs followed:

* DSSE v1 (https://github.com/secure-systems-lab/dsse/blob/master/protocol.md):
  ``PAE(type, body) = "DSSEv1" SP LEN(type) SP type SP LEN(body) SP body``, lengths as
  ASCII decimal byte counts. The signature is over PAE of the exact payload bytes.
* RFC 8032 §5.1.7: an Ed25519 signature ``R || S`` with ``S >= L`` is rejected. This module
  checks it itself rather than trusting every backend to do so. Public keys of small order
  (under which one signature verifies every message) are refused when read.
* OpenSSH fingerprints (``ssh-keygen -l``): ``SHA256:`` + unpadded base64 of the SHA-256 of
  the SSH wire-format public key (RFC 8709 §4: string "ssh-ed25519", string key).
"""

from __future__ import annotations

import base64
import hashlib
import struct
from typing import TYPE_CHECKING

from ..core.errors import InputError, VerificationError

if TYPE_CHECKING:  # cryptography is imported inside functions: the CLI stays fast to start
    from cryptography.hazmat.primitives.asymmetric.ed25519 import (
        Ed25519PrivateKey,
        Ed25519PublicKey,
    )

SSH_KEY_TYPE = "ssh-ed25519"
SIGNATURE_SIZE = 64
"""Bytes in an Ed25519 signature (R: 32, S: 32), RFC 8032 §5.1.6."""

L = 2**252 + 27742317777372353535851937790883648493
"""Order of the Ed25519 base point (RFC 8032 §5.1); a canonical S is below it."""


KEY_FORMS = ("give an Ed25519 private key in OpenSSH or PEM (PKCS#8) form: `kistore key "
             "generate PATH` or `ssh-keygen -t ed25519` makes one")
"""What a private key file must be, said when one cannot be read (msg94 F2)."""


class PassphraseRequired(InputError):
    """The private key is encrypted and no passphrase (or a wrong one) was given."""


def pae(payload_type: str, payload: bytes) -> bytes:
    """Return the DSSE v1 pre-authentication encoding of a payload.

    Args:
        payload_type: the envelope's ``payloadType`` (e.g. ``application/vnd.in-toto+json``).
        payload: the exact payload bytes (never re-serialised).

    Returns:
        ``b"DSSEv1 " + len(type) + b" " + type + b" " + len(payload) + b" " + payload``,
        lengths in ASCII decimal bytes (DSSE v1 protocol, "Signature definition").
    """
    kind = payload_type.encode("utf-8")
    return b"DSSEv1 %d %b %d %b" % (len(kind), kind, len(payload), payload)


def load_private_key(data: bytes, passphrase: bytes | None = None, *, file: str = "-"
                     ) -> Ed25519PrivateKey:
    """Read an Ed25519 private key in PEM (PKCS#8) or OpenSSH format.

    Args:
        data: the key file's bytes.
        passphrase: the passphrase of an encrypted key, or None.
        file: file name for error messages.

    Returns:
        The private key.

    Raises:
        PassphraseRequired: the key is encrypted and ``passphrase`` is None or wrong.
        InputError: the bytes are no private key, or a key of another type (RSA, ECDSA).
    """
    # Lazy: cryptography loads only when a key or signature is used (start-up).
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    loader = (serialization.load_ssh_private_key if b"OPENSSH PRIVATE KEY" in data
              else serialization.load_pem_private_key)
    try:
        key = loader(data, password=passphrase)
    except TypeError as e:  # cryptography: encrypted without a password, or vice versa
        if passphrase is None:
            raise PassphraseRequired("the private key is encrypted; give its passphrase",
                                     file=file) from None
        raise InputError(f"cannot read the private key ({e}); {KEY_FORMS}", file=file) from None
    except ValueError as e:
        # A wrong passphrase on an encrypted PKCS#8 PEM leaves valid CBC padding about one
        # time in 256; cryptography then says "Could not deserialize", not "Incorrect password".
        if passphrase is not None and (b"ENCRYPTED" in data or "decrypt" in str(e).lower()
                                       or "password" in str(e) or "Corrupt" in str(e)):
            raise PassphraseRequired("wrong passphrase for the private key: type it again, or "
                                     "set KISTORE_KEY_PASSPHRASE to the right one",
                                     file=file) from None
        raise InputError(
            f"not a PEM or OpenSSH private key ({e}); create one with `kistore key generate`",
            file=file) from None
    except Exception as e:  # noqa: BLE001 - unsupported algorithms raise assorted types
        raise InputError(f"cannot read the private key ({e}); {KEY_FORMS}", file=file) from None
    if not isinstance(key, Ed25519PrivateKey):  # msg94 F2: an RSA key got no way forward
        raise InputError(
            f"the key is {type(key).__name__.removesuffix('PrivateKey')}, expected Ed25519 "
            "(attestations are signed with Ed25519 only): make one with `kistore key generate "
            "PATH` or `ssh-keygen -t ed25519`", file=file)
    return key


def load_public_key(text: str | bytes, *, file: str = "-") -> Ed25519PublicKey:
    """Read an Ed25519 public key: an OpenSSH line (``ssh-ed25519 AAAA... comment``) or PEM.

    Args:
        text: the line or PEM text.
        file: file name for error messages.

    Raises:
        InputError: not a public key, or not Ed25519.
    """
    # Lazy: cryptography loads only when a key or signature is used (start-up).
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    data = text.encode("ascii", "replace") if isinstance(text, str) else text
    data = data.strip()
    key: object  # the loaders' unions differ (cryptography 51 added ML-DSA to the SSH one)
    try:
        if data.startswith(b"-----BEGIN"):
            key = serialization.load_pem_public_key(data)
        else:
            fields = data.split()
            if len(fields) < 2 or fields[0] != SSH_KEY_TYPE.encode():
                raise ValueError(f"expected '{SSH_KEY_TYPE} AAAA...'")
            key = serialization.load_ssh_public_key(b" ".join(fields[:2]))
    except (ValueError, TypeError) as e:
        raise InputError(f"not an Ed25519 public key ({e})", file=file) from None
    except Exception as e:  # noqa: BLE001 - unsupported algorithms raise assorted types
        raise InputError(f"not an Ed25519 public key ({e})", file=file) from None
    if not isinstance(key, Ed25519PublicKey):
        raise InputError("the public key is not Ed25519", file=file)
    if has_small_order(raw_public_key(key)):
        raise InputError(
            "weak Ed25519 public key (a point of small order, or no curve point): one "
            "signature would verify for every message under it", file=file)
    return key


_P = 2**255 - 19
_D = -121665 * pow(121666, -1, _P) % _P
_SQRT_M1 = pow(2, (_P - 1) // 4, _P)


def has_small_order(raw: bytes) -> bool:
    """Return True when a 32-byte Ed25519 public key is a point of order 1, 2, 4 or 8.

    Under such a key the cofactorless verification most libraries use accepts one fixed
    signature for every message (e.g. the identity point with R = identity, S = 0), so
    such keys are refused. A non-canonical encoding (y >= p) or bytes that are no curve
    point also count as unusable and return True.

    Args:
        raw: the RFC 8032 §5.1.2 encoding of the point.
    """
    y = int.from_bytes(raw, "little") & ((1 << 255) - 1)
    if y >= _P:
        return True
    u, v = (y * y - 1) % _P, (_D * y * y + 1) % _P
    x = u * pow(v, 3, _P) * pow(u * pow(v, 7, _P), (_P - 5) // 8, _P) % _P  # RFC 8032 §5.1.3
    if (v * x * x - u) % _P != 0:
        x = x * _SQRT_M1 % _P
        if (v * x * x - u) % _P != 0:
            return True  # not on the curve
    if x & 1 != raw[31] >> 7:
        x = _P - x
    point = (x, y)
    for _ in range(3):  # [8]P
        point = _add(point, point)
    return point == (0, 1)


def _add(a: tuple[int, int], b: tuple[int, int]) -> tuple[int, int]:
    """Add two points of the twisted Edwards curve -x^2 + y^2 = 1 + d x^2 y^2 (affine)."""
    (x1, y1), (x2, y2) = a, b
    t = _D * x1 * x2 * y1 * y2 % _P
    x3 = (x1 * y2 + x2 * y1) * pow(1 + t, -1, _P) % _P
    y3 = (y1 * y2 + x1 * x2) * pow(1 - t, -1, _P) % _P
    return x3, y3


def raw_public_key(key: Ed25519PublicKey) -> bytes:
    """Return the 32 raw bytes of an Ed25519 public key (RFC 8032 §5.1.5)."""
    # Lazy: cryptography loads only when a key or signature is used (start-up).
    from cryptography.hazmat.primitives import serialization

    return key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def ssh_wire_key(key: Ed25519PublicKey) -> bytes:
    """Return the SSH wire-format public key: string "ssh-ed25519", string key (RFC 8709 §4)."""
    name = SSH_KEY_TYPE.encode("ascii")
    raw = raw_public_key(key)
    return struct.pack(">I", len(name)) + name + struct.pack(">I", len(raw)) + raw


def public_key_line(key: Ed25519PublicKey) -> str:
    """Return the OpenSSH public-key line ``ssh-ed25519 <base64 wire key>`` (no comment)."""
    return f"{SSH_KEY_TYPE} {base64.b64encode(ssh_wire_key(key)).decode('ascii')}"


def keyid(key: Ed25519PublicKey) -> str:
    """Return the keyid: the OpenSSH SHA-256 fingerprint, as ``ssh-keygen -l`` prints it.

    Returns:
        ``"SHA256:" + base64(sha256(ssh_wire_key(key)))`` without ``=`` padding.
    """
    digest = hashlib.sha256(ssh_wire_key(key)).digest()
    return "SHA256:" + base64.b64encode(digest).decode("ascii").rstrip("=")


def sign(key: Ed25519PrivateKey, payload_type: str, payload: bytes) -> bytes:
    """Sign DSSE PAE(payload_type, payload) with Ed25519.

    Args:
        key: the signer's private key.
        payload_type: the envelope's ``payloadType``.
        payload: the exact payload bytes.

    Returns:
        The 64-byte Ed25519 signature over :func:`pae` of the arguments.
    """
    return key.sign(pae(payload_type, payload))


def verify_signature(key: Ed25519PublicKey, payload_type: str, payload: bytes,
                     signature: bytes) -> None:
    """Check an Ed25519 signature over DSSE PAE(payload_type, payload).

    Args:
        key: the public key to check against (the bundled key, never one found by keyid).
        payload_type: the envelope's ``payloadType`` exactly as received.
        payload: the payload bytes exactly as received (decoded from base64, not re-encoded).
        signature: the raw signature bytes.

    Raises:
        VerificationError: the signature is not 64 bytes, is non-canonical (S >= L,
            RFC 8032 §5.1.7), or does not verify.
    """
    # Lazy: cryptography loads only when a key or signature is used (start-up).
    from cryptography.exceptions import InvalidSignature

    if len(signature) != SIGNATURE_SIZE:
        raise VerificationError(
            f"signature is {len(signature)} bytes, expected {SIGNATURE_SIZE} (Ed25519)")
    if not is_canonical_signature(signature):
        raise VerificationError(
            "non-canonical Ed25519 signature (S >= L, RFC 8032 §5.1.7); a malleated copy "
            "of a signature is refused")
    try:
        key.verify(signature, pae(payload_type, payload))
    except InvalidSignature:
        raise VerificationError(
            "signature does not verify over the payload under the bundled key") from None


def is_canonical_signature(signature: bytes) -> bool:
    """Return True when the S half of an Ed25519 signature is below the group order L."""
    return int.from_bytes(signature[32:64], "little") < L


def generate() -> Ed25519PrivateKey:
    """Return a new random Ed25519 private key."""
    # Lazy: cryptography loads only when a key or signature is used (start-up).
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    return Ed25519PrivateKey.generate()


def private_key_bytes(key: Ed25519PrivateKey, passphrase: bytes | None = None) -> bytes:
    """Return a private key as an OpenSSH private-key file (what ``ssh-keygen`` writes).

    Args:
        key: the key.
        passphrase: encrypt with this passphrase (bcrypt KDF, aes256-ctr), or None.
    """
    # Lazy: cryptography loads only when a key or signature is used (start-up).
    from cryptography.hazmat.primitives import serialization

    encryption: serialization.KeySerializationEncryption = (
        serialization.BestAvailableEncryption(passphrase) if passphrase
        else serialization.NoEncryption())
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.OpenSSH,
                             encryption)
