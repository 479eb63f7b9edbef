"""Attestations: in-toto Statement v1 in a DSSE envelope, carried as a bundle with its key.

Owns the wire format and the signature check of one attestation, without git or trust:

* the **statement** (in-toto Statement v1,
  https://github.com/in-toto/attestation/blob/main/spec/v1/statement.md)::

    {"_type": "https://in-toto.io/Statement/v1",
     "subject": [{"name": "store/objects/sha256/38/4a96....json",
                  "digest": {"sha256": "384a96..."}}],
     "predicateType": "https://kernelindex.dev/attestation/<type>/v1",
     "predicate": {...}}            # validated by schemas/predicate-<type>.json

* the **envelope** (DSSE v1): ``{"payload": b64, "payloadType":
  "application/vnd.in-toto+json", "signatures": [{"keyid": ..., "sig": b64}]}``, the
  payload being :func:`kistore.core.canonical.dumps` of the statement;
* the **bundle** (after a Sigstore bundle): ``{"dsseEnvelope": {...},
  "verificationMaterial": {"publicKey": "ssh-ed25519 AAAA..."}}``. A bundle's stored form
  is its RFC 8785 canonical bytes (one line; JSON Lines in git notes).

Parsing keeps the exact payload bytes (base64-decoded, never re-serialised) and is strict
(duplicate keys, unknown fields and bad base64 are refused). The keyid in a signature is
only a hint: the bundled public key is what is checked, and a bundle carries exactly one
signature (one key counts once). Whether the key is trusted is decided by
:mod:`kistore.attest.trust`, not here.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..core import canonical
from ..core.digest import Digest, is_digest
from ..core.errors import (
    InputError,
    KistoreError,
    MultipleErrors,
    SchemaError,
    VerificationError,
)
from ..core.schema import check_document
from ..core.text_fields import prose_problem
from . import signing, sshsig

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

PAYLOAD_TYPE = "application/vnd.in-toto+json"
STATEMENT_TYPE = "https://in-toto.io/Statement/v1"
PREDICATE_BASE = "https://kernelindex.dev/attestation/"
TYPES = ("reproduction", "rerun", "note", "dispute", "withdrawal")
"""Attestation types; each has one predicateType URI and one predicate schema."""

PREDICATE_TYPES = {t: f"{PREDICATE_BASE}{t}/v1" for t in TYPES}
"""Type name -> ``predicateType`` URI."""

ROLE_FOR_TYPE = {"rerun": "rerun", "withdrawal": "maintainer"}
"""Types whose effect needs a trusted role; other types are community attestations."""

TEXT_KEY = {"reproduction": "text", "rerun": "text", "note": "text", "dispute": "reason",
            "withdrawal": "reason"}
"""The predicate member holding each type's free text, what its signer says in words."""


def stated_text(type_name: str | None, predicate: dict[str, Any]) -> str | None:
    """Return what an attestation says in words: a note's ``text``, a dispute's ``reason``.

    Args:
        type_name: the attestation type (:data:`TYPES`), None when unknown.
        predicate: the statement's predicate.

    Returns:
        The string at the type's :data:`TEXT_KEY` member, or None (no such member, not a
        string, an unknown type). As signed: a reader escapes it where it prints it.
    """
    value = predicate.get(TEXT_KEY.get(type_name or "", ""))
    return value if isinstance(value, str) else None


def text_problems(predicate: dict[str, Any], *, file: str | None = None
                  ) -> list[KistoreError]:
    """Return an error per free text of a predicate that a manifest's prose could not hold.

    A note's ``text``, a dispute's or withdrawal's ``reason`` (and a reproduction's or
    rerun's ``text``) are printed by ``attestations``, ``show``, the site and ``export``:
    they are held to the rule of a manifest's prose (:func:`kistore.core.text_fields.
    prose_problem`: no control character but LINE FEED, no bidirectional control), so ESC
    (a terminal's escape sequences) or U+202E (text shown reversed) is refused when
    signing and reported in a stored one (KI312).

    Args:
        predicate: a predicate object.
        file: where it came from, named in the errors.

    Returns:
        A :class:`kistore.core.errors.SchemaError` per refused member (``/text``,
        ``/reason``), in that order; empty when none.
    """
    errors: list[KistoreError] = []
    for key in ("text", "reason"):
        value = predicate.get(key)
        problem = prose_problem(value) if isinstance(value, str) else None
        if problem is not None:
            errors.append(SchemaError(problem, file=file, pointer=f"/{key}"))
    return errors


def predicate_schema(type_name: str) -> str:
    """Return the schema file name of a type's predicate, e.g. ``predicate-rerun.json``."""
    return f"predicate-{type_name}.json"


def type_of(predicate_type: str) -> str | None:
    """Return the type name of a ``predicateType`` URI, or None for a URI kistore does not know."""
    for name, uri in PREDICATE_TYPES.items():
        if uri == predicate_type:
            return name
    return None


@dataclass(frozen=True, slots=True)
class Signature:
    """One DSSE signature.

    Attributes:
        keyid: the signer's hint (kistore writes the OpenSSH fingerprint); never trusted.
        sig: the raw signature bytes (decoded from base64).
    """

    keyid: str
    sig: bytes


@dataclass(frozen=True, slots=True)
class Envelope:
    """A DSSE v1 envelope.

    Attributes:
        payload_type: ``payloadType`` exactly as received.
        payload: the payload bytes exactly as received (base64-decoded).
        signatures: the signatures, in envelope order.
    """

    payload_type: str
    payload: bytes
    signatures: tuple[Signature, ...]

    def to_json(self) -> dict[str, Any]:
        """Return the envelope as JSON (standard base64 for payload and sig)."""
        return {
            "payload": _b64(self.payload),
            "payloadType": self.payload_type,
            "signatures": [{"keyid": s.keyid, "sig": _b64(s.sig)} for s in self.signatures],
        }


@dataclass(frozen=True, slots=True)
class Statement:
    """The parts of an in-toto Statement v1 that kistore reads.

    Attributes:
        subject_name: ``subject[0].name`` (kistore writes the object's store path).
        subject: ``subject[0].digest.sha256`` as a :class:`Digest`.
        predicate_type: the ``predicateType`` URI.
        type: the kistore type name of that URI (``rerun``, ...).
        predicate: the predicate object.
    """

    subject_name: str
    subject: Digest
    predicate_type: str
    type: str
    predicate: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Bundle:
    """An envelope and the public key that signed it.

    Attributes:
        envelope: the DSSE envelope.
        public_key: the signer's OpenSSH public-key line (``ssh-ed25519 AAAA...``, or
            ``sk-ssh-ed25519@openssh.com AAAA...`` for a FIDO key).
    """

    envelope: Envelope
    public_key: str

    def to_json(self) -> dict[str, Any]:
        """Return the bundle as JSON: ``{"dsseEnvelope": ..., "verificationMaterial": ...}``."""
        return {"dsseEnvelope": self.envelope.to_json(),
                "verificationMaterial": {"publicKey": self.public_key}}

    def to_bytes(self) -> bytes:
        """Return the RFC 8785 canonical bytes of :meth:`to_json` (the stored form, one line)."""
        return canonical.dumps(self.to_json())

    @classmethod
    def from_bytes(cls, data: bytes, *, file: str = "-") -> Bundle:
        """Parse a bundle strictly, keeping the exact payload bytes.

        Args:
            data: the bundle's bytes (one JSON text).
            file: where they came from, for error messages.

        Raises:
            ParseError: not strict JSON (e.g. a duplicate key anywhere in the bundle).
            InputError: a missing or unknown field, a wrong type, or invalid base64, with
                the JSON Pointer of the value.
        """
        value = canonical.loads(data, file=file)
        _fields(value, "", {"dsseEnvelope", "verificationMaterial"}, file)
        env = value["dsseEnvelope"]
        _fields(env, "/dsseEnvelope", {"payload", "payloadType", "signatures"}, file)
        material = value["verificationMaterial"]
        _fields(material, "/verificationMaterial", {"publicKey"}, file)
        public_key = _string(material, "publicKey", "/verificationMaterial", file)
        payload_type = _string(env, "payloadType", "/dsseEnvelope", file)
        payload = _unb64(_string(env, "payload", "/dsseEnvelope", file),
                         "/dsseEnvelope/payload", file)
        if not isinstance(env["signatures"], list):
            raise InputError("signatures must be an array", file=file,
                             pointer="/dsseEnvelope/signatures")
        signatures = []
        for i, item in enumerate(env["signatures"]):
            at = f"/dsseEnvelope/signatures/{i}"
            _fields(item, at, {"sig"}, file, optional={"keyid"})
            keyid = item.get("keyid", "")
            if not isinstance(keyid, str):
                raise InputError("keyid must be a string", file=file, pointer=at + "/keyid")
            signatures.append(Signature(keyid, _unb64(_string(item, "sig", at, file),
                                                      at + "/sig", file)))
        return cls(Envelope(payload_type, payload, tuple(signatures)), public_key)


def build_predicate(type_name: str, given: dict[str, Any] | None = None, *,
                    outcome: str | None = None, message: str | None = None,
                    now: str) -> dict[str, Any]:
    """Fill a predicate from what ``kistore attest`` was given (not yet validated).

    Args:
        type_name: one of :data:`TYPES`.
        given: fields from ``--predicate FILE`` (timing, environmentDigest, ...), or None.
        outcome: ``--outcome``; for reproduction/rerun it overrides ``given``. A
            reproduction defaults to ``reproduced`` when neither sets it; a rerun has no
            default (it changes a run's evidence level: its signer says which).
        message: ``--message``: the note's ``text``, the dispute's or withdrawal's
            ``reason``, or a reproduction's ``text``.
        now: RFC 3339 time used for a missing ``observedAt`` / ``createdAt``.

    Returns:
        The predicate object (a rerun without an outcome lacks it: its schema then says
        ``missing required field 'outcome'``).
    """
    predicate = dict(given or {})
    if type_name == "reproduction":
        predicate["outcome"] = outcome or predicate.get("outcome", "reproduced")
    elif type_name == "rerun" and outcome:
        predicate["outcome"] = outcome
    if type_name in ("reproduction", "rerun"):
        predicate.setdefault("observedAt", now)
        if message:
            predicate["text"] = message
    else:
        predicate.setdefault("createdAt", now)
        if message:
            predicate["text" if type_name == "note" else "reason"] = message
    return predicate


def make_statement(subject: Digest, subject_name: str, type_name: str,
                   predicate: dict[str, Any], *, file: str = "predicate") -> dict[str, Any]:
    """Build an in-toto Statement v1 about one object and validate its predicate.

    Args:
        subject: the manifest's digest (the statement's ``subject[0].digest.sha256``).
        subject_name: ``subject[0].name``; kistore uses the object's store path.
        type_name: one of :data:`TYPES`.
        predicate: the predicate object, validated by ``schemas/predicate-<type>.json``.
        file: where the predicate came from, named in schema errors.

    Returns:
        The statement as a JSON object.

    Raises:
        InputError: an unknown type.
        MultipleErrors: the predicate does not validate (each problem with its pointer),
            or its free text holds a control or bidirectional character
            (:func:`text_problems`).
    """
    if type_name not in PREDICATE_TYPES:
        raise InputError(f"unknown attestation type {type_name!r}; expected one of "
                         f"{', '.join(TYPES)}")
    problems = [*check_document(predicate, predicate_schema(type_name), file=file),
                *text_problems(predicate, file=file)]
    if problems:

        raise MultipleErrors(list(problems))
    return {"_type": STATEMENT_TYPE,
            "subject": [{"name": subject_name, "digest": {"sha256": subject.hex}}],
            "predicateType": PREDICATE_TYPES[type_name],
            "predicate": predicate}


def sign_statement(statement: dict[str, Any], key: Ed25519PrivateKey) -> Bundle:
    """Sign a statement: payload = RFC 8785 bytes of it; signature over DSSE PAE.

    Args:
        statement: an in-toto statement (see :func:`make_statement`).
        key: the signer's Ed25519 private key.

    Returns:
        A bundle with one signature (keyid = the key's OpenSSH fingerprint) and the
        signer's OpenSSH public-key line.

    Raises:
        CanonicalFormError: the statement has no canonical form.
    """
    payload = canonical.dumps(statement)
    public = key.public_key()
    signature = Signature(signing.keyid(public), signing.sign(key, PAYLOAD_TYPE, payload))
    return Bundle(Envelope(PAYLOAD_TYPE, payload, (signature,)), signing.public_key_line(public))


def sign_statement_sshsig(statement: dict[str, Any], key: sshsig.SshPublicKey,
                          signer: Callable[[bytes], bytes]) -> Bundle:
    """Sign a statement with an SSHSIG signature (PROTOCOL.sshsig) over its DSSE PAE.

    The payload is the RFC 8785 bytes of the statement, as :func:`sign_statement`; the
    DSSE ``sig`` is the SSHSIG blob (namespace :data:`kistore.attest.sshsig.NAMESPACE`)
    that ``signer`` returns for ``PAE(payloadType, payload)``. The blob is verified before
    the bundle is returned, so a signer that used another key, namespace or message is
    caught here rather than stored.

    Args:
        statement: an in-toto statement (see :func:`make_statement`).
        key: the signer's public key (the bundle's ``verificationMaterial.publicKey``).
        signer: returns the SSHSIG blob for the message it is given, e.g.
            ``functools.partial(sshsig.sign_with_ssh_keygen, "KEY.pub")`` (ssh-agent or a
            FIDO key) or ``functools.partial(sshsig.sign, private_key)``.

    Returns:
        A bundle with one signature (keyid = the key's OpenSSH fingerprint).

    Raises:
        CanonicalFormError: the statement has no canonical form.
        InputError: the signer failed (e.g. ssh-keygen found no key in the agent).
        VerificationError: what the signer returned does not verify under ``key``.
    """
    payload = canonical.dumps(statement)
    blob = signer(signing.pae(PAYLOAD_TYPE, payload))
    try:
        sshsig.verify(blob, key, signing.pae(PAYLOAD_TYPE, payload))
    except VerificationError as e:
        raise VerificationError(f"the new signature does not verify: {e.message}") from None
    signature = Signature(key.keyid(), blob)
    return Bundle(Envelope(PAYLOAD_TYPE, payload, (signature,)), key.line())


def verify_bundle(bundle: Bundle, subject: Digest | None = None) -> Statement:
    """Check a bundle's signature and statement; raise the first reason it fails.

    Checks, in order: ``payloadType`` is :data:`PAYLOAD_TYPE`; exactly one signature (none,
    the same signature twice, or one key under two keyids are each refused: one key counts
    once); the bundled key is an OpenSSH Ed25519 key (``ssh-ed25519``, or
    ``sk-ssh-ed25519@openssh.com`` for an SSHSIG signature); the signature -- a raw
    Ed25519 signature (64 bytes), or an SSHSIG blob (PROTOCOL.sshsig, namespace
    ``kernelindex-attestation``, checked by :func:`kistore.attest.sshsig.verify`) -- is
    canonical (S < L) and verifies over DSSE PAE of the exact payload bytes; the payload
    is strict JSON and an in-toto Statement v1 with one subject whose digest is
    ``subject`` (when given); the ``predicateType`` is known; the predicate validates
    against its schema.

    Args:
        bundle: the parsed bundle.
        subject: the digest of the object the bundle is attached to, or None to skip.

    Returns:
        The verified statement.

    Raises:
        VerificationError: with a one-line reason naming what failed.
    """
    env = bundle.envelope
    if env.payload_type != PAYLOAD_TYPE:
        raise VerificationError(
            f"payloadType is {env.payload_type!r}, expected {PAYLOAD_TYPE!r}")
    _one_signature(env.signatures)
    try:
        key = sshsig.SshPublicKey.from_text(bundle.public_key)
    except InputError as e:
        raise VerificationError(f"verificationMaterial.publicKey: {e.message}") from None
    sig = env.signatures[0].sig
    if sshsig.is_sshsig(sig):
        sshsig.verify(sig, key, signing.pae(env.payload_type, env.payload))
    elif key.type != sshsig.ED25519:
        raise VerificationError(
            f"a {key.type} key signs only SSHSIG signatures; this signature is "
            f"{len(sig)} bytes without the 'SSHSIG' preamble")
    else:
        signing.verify_signature(key.ed25519(), env.payload_type, env.payload, sig)
    statement = parse_statement(env.payload)
    if subject is not None and statement.subject != subject:
        raise VerificationError(
            f"the statement is about {statement.subject}, not about {subject} it is attached "
            "to (a signature copied onto another subject)")
    return statement


def bundle_keyid(bundle: Bundle) -> str | None:
    """Return the OpenSSH fingerprint of the bundled key, or None when it is unreadable."""
    try:
        return sshsig.SshPublicKey.from_text(bundle.public_key).keyid()
    except InputError:
        return None


def _one_signature(signatures: tuple[Signature, ...]) -> None:
    if not signatures:
        raise VerificationError("the envelope has no signatures")
    if len(signatures) == 1:
        return
    first = signatures[0]
    for other in signatures[1:]:
        if other == first:
            raise VerificationError("the same signature appears twice; a key counts once")
        if other.sig == first.sig:
            raise VerificationError(
                f"one signature is listed under two keyids ({first.keyid!r}, {other.keyid!r}); "
                "a key counts once")
    raise VerificationError(
        f"{len(signatures)} signatures, but a bundle carries one public key and one signature")


def parse_statement(payload: bytes) -> Statement:
    """Parse and check an in-toto Statement v1 payload (strict JSON, exact bytes).

    Raises:
        VerificationError: not strict JSON, not a Statement v1, not exactly one sha256
            subject, an unknown ``predicateType``, or a predicate that fails its schema.
    """
    try:
        value = canonical.loads(payload, file="payload")
    except KistoreError as e:
        raise VerificationError(f"payload is not strict JSON: {e.format()}") from None
    if not isinstance(value, dict) or value.get("_type") != STATEMENT_TYPE:
        raise VerificationError(f"payload is not an in-toto Statement ({STATEMENT_TYPE})")
    subjects = value.get("subject")
    if not isinstance(subjects, list) or len(subjects) != 1 or not isinstance(subjects[0], dict):
        raise VerificationError("the statement must have exactly one subject")
    digest = subjects[0].get("digest")
    hex_ = digest.get("sha256") if isinstance(digest, dict) else None
    name = subjects[0].get("name", "")
    if not isinstance(hex_, str) or not is_digest("sha256:" + hex_) or not isinstance(name, str):
        raise VerificationError("subject digest must be {\"sha256\": <64 lowercase hex>}")
    predicate_type = value.get("predicateType")
    type_name = type_of(predicate_type) if isinstance(predicate_type, str) else None
    if type_name is None:
        raise VerificationError(f"unknown predicateType {predicate_type!r}")
    predicate = value.get("predicate")
    problems = check_document(predicate, predicate_schema(type_name))
    if problems:
        first = problems[0]
        raise VerificationError(
            f"predicate{first.pointer or ''} does not validate against "
            f"{predicate_schema(type_name)}: {first.message}")
    assert isinstance(predicate, dict) and isinstance(predicate_type, str)  # checked above
    return Statement(name, Digest(hex_), predicate_type, type_name, predicate)


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _unb64(text: str, pointer: str, file: str) -> bytes:
    """Decode standard or URL-safe base64 (DSSE allows either), padding required."""
    try:
        if "-" in text or "_" in text:
            return base64.b64decode(text.replace("-", "+").replace("_", "/"), validate=True)
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raise InputError("not valid base64", file=file, pointer=pointer) from None


def _fields(value: Any, pointer: str, required: set[str], file: str,
            optional: frozenset[str] | set[str] = frozenset()) -> None:
    if not isinstance(value, dict):
        raise InputError("expected a JSON object", file=file, pointer=pointer)
    missing = sorted(required - value.keys())
    if missing:
        raise InputError(f"missing field {missing[0]!r}", file=file, pointer=pointer)
    unknown = sorted(value.keys() - required - set(optional))
    if unknown:
        raise InputError(f"unknown field {unknown[0]!r}", file=file,
                         pointer=f"{pointer}/{canonical.escape_pointer(unknown[0])}")


def _string(value: dict[str, Any], key: str, pointer: str, file: str) -> str:
    item = value[key]
    if not isinstance(item, str):
        raise InputError(f"{key} must be a string", file=file, pointer=f"{pointer}/{key}")
    return item
