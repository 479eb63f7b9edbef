"""SSH public keys and SSHSIG signatures (OpenSSH PROTOCOL.sshsig), checked by kistore itself.

Owns: the OpenSSH public keys an attestation may carry (``ssh-ed25519`` and the FIDO
``sk-ssh-ed25519@openssh.com``), their wire form and fingerprint (the keyid); the SSHSIG
blob (parse strictly, build, armor), the data it signs, and its verification; signing
through ``ssh-keygen -Y sign`` (so a key held by ssh-agent or a security key can sign).
Which bytes an attestation signs (DSSE PAE) is :mod:`kistore.attest.attestation`'s
business; trust is :mod:`kistore.attest.trust`'s. No git, no JSON.

Specs followed (all byte strings as SSH ``string``: uint32 big-endian length, then bytes,
RFC 4251 §5):

* PROTOCOL.sshsig §2, the blob: ``byte[6] "SSHSIG"``, ``uint32 1`` (version), ``string
  publickey``, ``string namespace``, ``string reserved``, ``string hash_algorithm``,
  ``string signature``. §3, the signed data: ``byte[6] "SSHSIG"``, ``string namespace``,
  ``string reserved``, ``string hash_algorithm``, ``string H(message)``, with H = SHA-256 or
  SHA-512 (``sha256``, ``sha512``). kistore's namespace is :data:`NAMESPACE`.
* RFC 8709 §4 and §6: ``ssh-ed25519`` keys (``string "ssh-ed25519", string key[32]``) and
  signatures (``string "ssh-ed25519", string sig[64]``), the signature over the signed data.
* OpenSSH PROTOCOL.u2f: ``sk-ssh-ed25519@openssh.com`` keys (``string type, string key[32],
  string application``) and signatures (``string type, string sig[64], byte flags, uint32
  counter``); the Ed25519 signature is over ``SHA256(application) || flags || counter ||
  SHA256(signed data)``. Flag 0x01 is user presence (the key was touched), 0x04 user
  verification (PIN or biometric).
* RFC 8032 §5.1.7: a signature with ``S >= L`` is refused (checked here, not left to the
  library), and keys of small order are refused (:func:`kistore.attest.signing.has_small_order`).

Stricter than ``ssh-keygen -Y verify``, never looser: every length must be exact, nothing
may trail a field or the blob (so one signature has exactly one encoding), the reserved
field must be empty (kistore and ssh-keygen write it empty; ssh-keygen verifies with an
empty one). An ``sk`` signature's flags and counter are signed and reported
(:class:`Verified`) but, as with ``ssh-keygen -Y verify``, not required to show a touch:
whether a key needs one is its holder's choice when making it (``no-touch-required``).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import struct
import subprocess
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..core.errors import InputError, VerificationError
from . import signing

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import (
        Ed25519PrivateKey,
        Ed25519PublicKey,
    )

NAMESPACE = "kernelindex-attestation"
"""The SSHSIG namespace of every kistore attestation signature (``ssh-keygen -n``)."""

MAGIC = b"SSHSIG"
VERSION = 1
HASH_ALGORITHMS = {"sha256": hashlib.sha256, "sha512": hashlib.sha512}
"""The hash algorithms PROTOCOL.sshsig allows for H(message); ssh-keygen writes sha512."""

ED25519 = "ssh-ed25519"
SK_ED25519 = "sk-ssh-ed25519@openssh.com"
KEY_TYPES = (ED25519, SK_ED25519)
USER_PRESENT = 0x01
"""PROTOCOL.u2f flag: the security key was touched when it signed."""

ARMOR_BEGIN = "-----BEGIN SSH SIGNATURE-----"
ARMOR_END = "-----END SSH SIGNATURE-----"


def _string(data: bytes) -> bytes:
    """Encode bytes as an SSH ``string`` (RFC 4251 §5)."""
    return struct.pack(">I", len(data)) + data


class _Reader:
    """Reads SSH wire values from bytes, refusing short or trailing data."""

    def __init__(self, data: bytes, what: str) -> None:
        self.data = data
        self.offset = 0
        self.what = what

    def take(self, n: int, field: str) -> bytes:
        if self.offset + n > len(self.data):
            raise VerificationError(
                f"{self.what}: {field} runs past the end ({len(self.data) - self.offset} "
                f"bytes left, {n} needed): truncated or not an SSH encoding")
        value = self.data[self.offset:self.offset + n]
        self.offset += n
        return value

    def uint32(self, field: str) -> int:
        value: int = struct.unpack(">I", self.take(4, field))[0]
        return value

    def string(self, field: str) -> bytes:
        return self.take(self.uint32(field + " length"), field)

    def end(self) -> None:
        extra = len(self.data) - self.offset
        if extra:
            raise VerificationError(
                f"{self.what}: {extra} byte(s) after the last field (non-canonical encoding: "
                "one signature must have exactly one encoding)")


@dataclass(frozen=True, slots=True)
class SshPublicKey:
    """An OpenSSH Ed25519 public key, plain or held by a FIDO security key.

    Attributes:
        type: ``ssh-ed25519`` or ``sk-ssh-ed25519@openssh.com``.
        raw: the 32-byte Ed25519 public key (RFC 8032 §5.1.5).
        application: for an ``sk`` key, the FIDO application string (``ssh:`` by default);
            ``b""`` for a plain key.
    """

    type: str
    raw: bytes
    application: bytes = b""

    @property
    def wire(self) -> bytes:
        """The SSH wire form (RFC 8709 §4; PROTOCOL.u2f for ``sk`` keys): what is fingerprinted."""
        out = _string(self.type.encode("ascii")) + _string(self.raw)
        return out + _string(self.application) if self.type == SK_ED25519 else out

    def line(self) -> str:
        """Return the OpenSSH public-key line ``TYPE BASE64`` (no comment)."""
        return f"{self.type} {base64.b64encode(self.wire).decode('ascii')}"

    def keyid(self) -> str:
        """Return the keyid: ``SHA256:`` + unpadded base64 of SHA-256 of :attr:`wire`.

        The same as ``ssh-keygen -l -f KEY.pub`` prints, for both key types.
        """
        digest = hashlib.sha256(self.wire).digest()
        return "SHA256:" + base64.b64encode(digest).decode("ascii").rstrip("=")

    def ed25519(self) -> Ed25519PublicKey:
        """Return the key as a ``cryptography`` Ed25519 public key (for verifying)."""
        # Lazy: cryptography loads only when a key or signature is used (start-up).
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

        return Ed25519PublicKey.from_public_bytes(self.raw)

    @classmethod
    def from_wire(cls, data: bytes, *, what: str = "public key") -> SshPublicKey:
        """Parse an SSH wire-format key strictly (exact lengths, nothing trailing).

        Raises:
            VerificationError: another key type, a key not 32 bytes, a weak key (small
                order), an application with a NUL byte, or trailing bytes.
        """
        reader = _Reader(data, what)
        kind = reader.string("key type")
        if kind not in (t.encode() for t in KEY_TYPES):
            raise VerificationError(
                f"{what}: key type {kind.decode('ascii', 'replace')!r} is not supported; "
                f"expected {' or '.join(KEY_TYPES)}")
        raw = reader.string("Ed25519 key")
        if len(raw) != 32:
            raise VerificationError(f"{what}: Ed25519 key is {len(raw)} bytes, expected 32")
        application = reader.string("application") if kind == SK_ED25519.encode() else b""
        reader.end()
        if b"\0" in application:
            raise VerificationError(f"{what}: the application string holds a NUL byte")
        if signing.has_small_order(raw):
            raise VerificationError(
                f"{what}: weak Ed25519 public key (a point of small order, or no curve "
                "point): one signature would verify for every message under it")
        return cls(kind.decode("ascii"), raw, application)

    @classmethod
    def from_text(cls, text: str | bytes, *, file: str = "-") -> SshPublicKey:
        """Read an OpenSSH public-key line (``TYPE BASE64 [comment]``) or an Ed25519 PEM key.

        Args:
            text: the line (a comment after the key is ignored) or PEM text.
            file: file name for error messages.

        Raises:
            InputError: not a supported public key (with what was expected).
        """
        data = text.encode("ascii", "replace") if isinstance(text, str) else text
        data = data.strip()
        if data.startswith(b"-----BEGIN"):
            pem = signing.load_public_key(data, file=file)
            return cls(ED25519, signing.raw_public_key(pem))
        fields = data.split()
        if len(fields) < 2 or fields[0].decode("ascii", "replace") not in KEY_TYPES:
            raise InputError(f"not an Ed25519 public key (expected '{ED25519} AAAA...' or "
                             f"'{SK_ED25519} AAAA...')", file=file)
        try:
            wire = base64.b64decode(fields[1], validate=True)
        except (binascii.Error, ValueError):
            raise InputError("not an Ed25519 public key (invalid base64)", file=file) from None
        try:
            key = cls.from_wire(wire)
        except VerificationError as e:
            raise InputError(e.message, file=file) from None
        if key.type != fields[0].decode("ascii"):
            raise InputError(f"the line says {fields[0].decode('ascii')!r} but the key is "
                             f"{key.type!r}", file=file)
        return key


def public_key_of(private: Ed25519PrivateKey) -> SshPublicKey:
    """Return the ``ssh-ed25519`` public key of an Ed25519 private key."""
    return SshPublicKey(ED25519, signing.raw_public_key(private.public_key()))


@dataclass(frozen=True, slots=True)
class Signature:
    """A parsed SSHSIG blob (PROTOCOL.sshsig §2).

    Attributes:
        public_key: the ``publickey`` field (SSH wire form of the signer's key).
        namespace: the ``namespace`` field.
        reserved: the ``reserved`` field (empty in every signature kistore accepts).
        hash_algorithm: the ``hash_algorithm`` field (``sha256`` or ``sha512``).
        signature: the ``signature`` field (SSH signature encoding of the key type).
        version: the ``SIG_VERSION`` field (1).
    """

    public_key: bytes
    namespace: bytes
    reserved: bytes
    hash_algorithm: bytes
    signature: bytes
    version: int = VERSION

    def to_bytes(self) -> bytes:
        """Return the blob (PROTOCOL.sshsig §2), the bytes a DSSE ``sig`` holds in base64."""
        return (MAGIC + struct.pack(">I", self.version) + _string(self.public_key)
                + _string(self.namespace) + _string(self.reserved)
                + _string(self.hash_algorithm) + _string(self.signature))

    @classmethod
    def from_bytes(cls, data: bytes) -> Signature:
        """Parse a blob strictly: magic, version, five strings, nothing after.

        Raises:
            VerificationError: not an SSHSIG blob, a truncated field, or trailing bytes.
        """
        if not data.startswith(MAGIC):
            raise VerificationError("not an SSHSIG signature (no 'SSHSIG' preamble)")
        reader = _Reader(data, "SSHSIG signature")
        reader.take(len(MAGIC), "preamble")
        version = reader.uint32("version")
        public_key, namespace, reserved, hash_algorithm, signature = (
            reader.string(name) for name in
            ("publickey", "namespace", "reserved", "hash_algorithm", "signature"))
        reader.end()
        return cls(public_key, namespace, reserved, hash_algorithm, signature, version)


def is_sshsig(signature: bytes) -> bool:
    """Return True when signature bytes claim to be an SSHSIG blob (start with ``SSHSIG``)."""
    return signature.startswith(MAGIC)


def signed_data(message: bytes, *, namespace: str = NAMESPACE, hash_algorithm: str = "sha512"
                ) -> bytes:
    """Return the bytes an SSHSIG signature signs (PROTOCOL.sshsig §3), reserved empty.

    Args:
        message: the message (for an attestation: the DSSE PAE of the payload).
        namespace: the namespace.
        hash_algorithm: ``sha256`` or ``sha512``.

    Raises:
        VerificationError: an unsupported hash algorithm.
    """
    hasher = HASH_ALGORITHMS.get(hash_algorithm)
    if hasher is None:
        raise VerificationError(
            f"SSHSIG hash algorithm {hash_algorithm!r} is not allowed; PROTOCOL.sshsig allows "
            f"{' and '.join(HASH_ALGORITHMS)}")
    return (MAGIC + _string(namespace.encode("utf-8")) + _string(b"")
            + _string(hash_algorithm.encode("ascii")) + _string(hasher(message).digest()))


@dataclass(frozen=True, slots=True)
class Verified:
    """What a verified SSHSIG signature says beyond "valid".

    Attributes:
        key: the signer's key.
        hash_algorithm: ``sha256`` or ``sha512``.
        flags: for an ``sk`` key, the authenticator flags (0x01 touched, 0x04 verified);
            None for a plain key.
        counter: for an ``sk`` key, the authenticator's signature counter; None otherwise.
    """

    key: SshPublicKey
    hash_algorithm: str
    flags: int | None = None
    counter: int | None = None


def verify(blob: bytes, key: SshPublicKey, message: bytes, *, namespace: str = NAMESPACE
           ) -> Verified:
    """Verify an SSHSIG blob over ``message`` under ``key``; raise the first reason it fails.

    Checks, in order: the blob parses strictly (:meth:`Signature.from_bytes`); version 1;
    its ``publickey`` is ``key`` (byte for byte: the bundled key, not one the blob brings);
    the namespace is ``namespace`` (a signature made for another purpose, e.g. a git
    commit's ``git`` namespace, is refused); reserved is empty; the hash algorithm is
    ``sha256`` or ``sha512``; the inner signature's type is the key's, its encoding exact,
    ``S < L``; and the Ed25519 signature verifies over :func:`signed_data` (wrapped as
    PROTOCOL.u2f says for ``sk`` keys).

    Args:
        blob: the SSHSIG blob (not armored).
        key: the key the signature must be by.
        message: the exact signed message.
        namespace: the namespace the signature must carry.

    Returns:
        The :class:`Verified` details.

    Raises:
        VerificationError: with a one-line reason.
    """
    sig = Signature.from_bytes(blob)
    if sig.version != VERSION:
        raise VerificationError(f"SSHSIG version {sig.version} is not supported (only 1)")
    if sig.public_key != key.wire:
        raise VerificationError(
            "the SSHSIG signature is by another key than the bundled one "
            f"({_signer(sig.public_key)}, bundled {key.keyid()})")
    if sig.namespace != namespace.encode("utf-8"):
        raise VerificationError(
            f"SSHSIG namespace is {sig.namespace.decode('utf-8', 'replace')!r}, expected "
            f"{namespace!r}: a signature made for another purpose is not an attestation")
    if sig.reserved:
        raise VerificationError(
            f"SSHSIG reserved field holds {len(sig.reserved)} byte(s); kistore accepts only "
            "an empty one (ssh-keygen signs and verifies with it empty)")
    hash_algorithm = sig.hash_algorithm.decode("ascii", "replace")
    data = signed_data(message, namespace=namespace, hash_algorithm=hash_algorithm)
    reader = _Reader(sig.signature, "SSHSIG signature field")
    kind = reader.string("signature type").decode("ascii", "replace")
    if kind != key.type:
        raise VerificationError(
            f"SSHSIG signature type {kind!r} does not match the key type {key.type!r}")
    raw = reader.string("Ed25519 signature")
    flags = counter = None
    if key.type == SK_ED25519:
        flags = reader.take(1, "flags")[0]
        counter = reader.uint32("counter")
    reader.end()
    if len(raw) != signing.SIGNATURE_SIZE:
        raise VerificationError(
            f"SSHSIG Ed25519 signature is {len(raw)} bytes, expected {signing.SIGNATURE_SIZE}")
    if not signing.is_canonical_signature(raw):
        raise VerificationError(
            "non-canonical Ed25519 signature in SSHSIG (S >= L, RFC 8032 §5.1.7); a "
            "malleated copy of a signature is refused")
    if flags is not None and counter is not None:
        data = (hashlib.sha256(key.application).digest() + bytes([flags])
                + struct.pack(">I", counter) + hashlib.sha256(data).digest())
    # Lazy: cryptography loads only when a key or signature is used (start-up).
    from cryptography.exceptions import InvalidSignature

    try:
        key.ed25519().verify(raw, data)
    except InvalidSignature:
        raise VerificationError(
            "SSHSIG signature does not verify over these bytes under the bundled key "
            "(signed over other bytes, or changed after signing)") from None
    return Verified(key, hash_algorithm, flags, counter)


def _signer(wire: bytes) -> str:
    """Return the keyid of the key an SSHSIG blob's ``publickey`` field holds.

    Raises:
        VerificationError: the field holds no key: the blob cannot be parsed, as
            ``ssh-keygen -Y verify`` says ("parse signature object"), a damaged signature
            rather than one by another key (fresh00 LOW: one base64 character changed).
    """
    try:
        return SshPublicKey.from_wire(wire).keyid()
    except VerificationError as e:
        raise VerificationError(
            f"the SSHSIG signature cannot be parsed: its publickey field holds no key ({e}); "
            "the blob was damaged after signing (`ssh-keygen -Y verify` says \"parse signature "
            "object\" too)") from None


def sign(private: Ed25519PrivateKey, message: bytes, *, namespace: str = NAMESPACE,
         hash_algorithm: str = "sha512") -> bytes:
    """Sign ``message`` as ``ssh-keygen -Y sign`` would with a plain Ed25519 key file.

    Ed25519 is deterministic (RFC 8032), so the blob is the same bytes ssh-keygen writes for
    the same key, namespace, hash algorithm and message.

    Args:
        private: the signer's Ed25519 private key.
        message: the message (for an attestation: DSSE PAE of the payload).
        namespace: the SSHSIG namespace.
        hash_algorithm: ``sha256`` or ``sha512`` (ssh-keygen's default).

    Returns:
        The SSHSIG blob (PROTOCOL.sshsig §2).
    """
    key = public_key_of(private)
    raw = private.sign(signed_data(message, namespace=namespace, hash_algorithm=hash_algorithm))
    inner = _string(ED25519.encode("ascii")) + _string(raw)
    return Signature(key.wire, namespace.encode("utf-8"), b"", hash_algorithm.encode("ascii"),
                     inner).to_bytes()


def armor(blob: bytes) -> str:
    """Return the armored form (PROTOCOL.sshsig §1): header, base64 in 70-column lines, footer.

    70 columns is what ssh-keygen writes (the protocol says SHOULD 76; readers accept any).
    """
    text = base64.b64encode(blob).decode("ascii")
    lines = [text[i:i + 70] for i in range(0, len(text), 70)]
    return "\n".join([ARMOR_BEGIN, *lines, ARMOR_END]) + "\n"


def dearmor(text: str | bytes) -> bytes:
    """Return the blob inside an armored SSHSIG signature.

    Raises:
        InputError: no header or footer, or invalid base64 between them.
    """
    if isinstance(text, bytes):
        text = text.decode("ascii", "replace")
    body = text.strip()
    if not body.startswith(ARMOR_BEGIN) or not body.endswith(ARMOR_END):
        raise InputError(f"not an armored SSH signature ({ARMOR_BEGIN} ... {ARMOR_END})")
    inner = "".join(body[len(ARMOR_BEGIN):-len(ARMOR_END)].split())
    try:
        return base64.b64decode(inner, validate=True)
    except (binascii.Error, ValueError):
        raise InputError("the armored SSH signature holds invalid base64") from None


def sign_with_ssh_keygen(public_key_file: str, message: bytes, *, namespace: str = NAMESPACE,
                         program: str = "ssh-keygen") -> bytes:
    """Sign through ``ssh-keygen -Y sign -f KEY.pub -n NAMESPACE`` (message on stdin).

    ssh-keygen finds the private half in ssh-agent (``SSH_AUTH_SOCK``), or uses a FIDO
    security key (which may wait for a touch), or reads the private key file beside the
    ``.pub`` (prompting on the terminal if it is encrypted). kistore never sees the private
    key. Side effects: runs ssh-keygen, which may talk to the agent or the security key.

    Args:
        public_key_file: the signer's OpenSSH public key file.
        message: the bytes to sign (an attestation's DSSE PAE).
        namespace: the SSHSIG namespace.
        program: the ssh-keygen to run.

    Returns:
        The SSHSIG blob (dearmored).

    Raises:
        InputError: ssh-keygen is missing or failed (with its own message and what to do).
    """
    command = [program, "-Y", "sign", "-f", public_key_file, "-n", namespace]
    try:
        done = subprocess.run(command, input=message, capture_output=True, check=False)
    except FileNotFoundError:
        raise InputError(f"{program} not found: signing with a public key needs OpenSSH's "
                         "ssh-keygen with -Y sign (Debian package openssh-client)") from None
    said = " ".join(done.stderr.decode("utf-8", "replace").replace(
        "Signing data on standard input", "").split())
    if done.returncode != 0:
        agent = _agent_lacks(public_key_file)
        if agent is not None:  # msg95 5: the agent, not a passphrase, is what failed
            raise InputError(_agent_failure(public_key_file, agent, said, done.returncode),
                             file=public_key_file)
        raise InputError(
            f"ssh-keygen -Y sign failed (exit {done.returncode}): {said or 'no message'}; "
            "load the private key into ssh-agent (`ssh-add KEY`, with SSH_AUTH_SOCK set), "
            "plug in the security key, or give the private key file to --key",
            file=public_key_file)
    return dearmor(done.stdout)


NO_AGENT = "no ssh-agent is reachable (SSH_AUTH_SOCK is not set)"
""":func:`_agent_lacks` of a shell where no agent was started."""


def _agent_lacks(public_key_file: str) -> str | None:
    """Say why ssh-agent could not sign with the key in ``public_key_file``; None if it could.

    Asks the agent itself (``ssh-add -L``: exit 2 when none answers, 1 when it holds no
    key, else its keys' lines). None too for a security key (``sk-...``: ssh-keygen signs
    with the key, not the agent), a file that is no public key, or no ``ssh-add``: then
    ssh-keygen's own words are all there is to say.

    Args:
        public_key_file: the ``--key KEY.pub`` given.

    Returns:
        :data:`NO_AGENT`, ``no ssh-agent answers at SSH_AUTH_SOCK=PATH``, ``ssh-agent
        (SSH_AUTH_SOCK=PATH) does not hold this key``, or None.
    """
    # Lazy: only a failed signing asks the agent.
    import os

    try:
        with open(public_key_file, "rb") as f:
            key = SshPublicKey.from_text(f.read(), file=public_key_file)
    except (OSError, InputError):
        return None
    if key.type == SK_ED25519:
        return None
    sock = os.environ.get("SSH_AUTH_SOCK")
    if not sock:
        return NO_AGENT
    try:
        listed = subprocess.run(["ssh-add", "-L"], capture_output=True, check=False,
                                timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if listed.returncode == 2:
        return f"no ssh-agent answers at SSH_AUTH_SOCK={sock}"
    held = {" ".join(line.split()[:2]) for line in listed.stdout.decode("ascii", "replace")
            .splitlines()} if listed.returncode == 0 else set()
    return None if key.line() in held else \
        f"ssh-agent (SSH_AUTH_SOCK={sock}) does not hold this key"


def _has_terminal() -> bool:
    """Return True when this process has a controlling terminal (ssh-keygen prompts on it)."""
    # Lazy: only a failed signing asks.
    import os

    try:
        os.close(os.open("/dev/tty", os.O_RDWR | os.O_NOCTTY))
    except OSError:
        return False
    return True


def _agent_failure(public_key_file: str, agent: str, said: str, code: int) -> str:
    """Return the message of a signing that failed because ssh-agent lacks the key.

    ssh-keygen then reads the private key file beside ``KEY.pub``; an encrypted one it
    cannot unlock without a terminal, and says "incorrect passphrase" though none was
    typed (msg95 5: a key kept in ssh-agent has its passphrase asked by ``ssh-add``).

    Args:
        public_key_file: the ``--key KEY.pub`` given.
        agent: :func:`_agent_lacks`'s words.
        said: ssh-keygen's stderr, on one line.
        code: its exit status.
    """
    private = public_key_file.removesuffix(".pub") if public_key_file.endswith(".pub") \
        else "KEY"
    add = f"`ssh-add {private}`"
    if "incorrect passphrase" in said and _has_terminal():  # ssh-keygen asked on it
        then = (f"; ssh-keygen then read the private key file {private}, which is "
                "encrypted, and the passphrase typed at its prompt did not unlock it")
        add += " (it asks the passphrase once)"
    elif "incorrect passphrase" in said:
        then = (f"; ssh-keygen then read the private key file {private}, which is "
                "encrypted, with no terminal to ask its passphrase on (its \"incorrect "
                "passphrase\": none was typed)")
        add += " (it asks the passphrase once)"
    elif "No private key found" in said:
        then = f"; nor is there a private key file {private} beside it"
        add = "`ssh-add PRIVATE_KEY_FILE` (wherever the private key is)"
    else:
        then = ""
    start = "start one and add the key: `eval \"$(ssh-agent -s)\"`, then " \
        if agent == NO_AGENT or agent.startswith("no ssh-agent answers") else "add the key: "
    return (f"ssh-keygen -Y sign could not sign (exit {code}): {agent}{then}; {start}{add}, "
            f"and run the command again; or give the private key file to --key (ssh-keygen "
            f"said: {said or 'nothing'})")
