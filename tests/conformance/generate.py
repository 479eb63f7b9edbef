"""Write conformance/*.json: inputs and the results kistore must give (conformance/README.md).

Run ``python -m tests.conformance.generate`` from the repository root after a deliberate
change; ``tests/conformance/test_conformance.py`` fails while the committed files differ
from what this writes. Everything is deterministic: fixed Ed25519 seeds (RFC 8032 signing
is deterministic), fixed dates. What each vector *expects* (valid or not, the rule id, the
reason, the findings) is written here by hand, never read back from kistore.
"""

from __future__ import annotations

import base64
import copy
import hashlib
import json
import struct
from functools import partial
from pathlib import Path
from typing import Any

from kistore.attest import attestation, signing, sshsig
from kistore.core import canonical
from kistore.core.model import Manifest

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "conformance"
API = "kernelindex.dev/v1alpha1"
DATE = "2026-07-10T12:00:00Z"
"""Committer and author date of every commit and notes commit of the store vectors."""


def private(seed: int):
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    return Ed25519PrivateKey.from_private_bytes(bytes([seed]) * 32)


def string(data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + data


def sk_key(seed: int) -> sshsig.SshPublicKey:
    return sshsig.SshPublicKey(sshsig.SK_ED25519, signing.raw_public_key(private(seed)
                                                                         .public_key()), b"ssh:")


def sk_sign(seed: int, message: bytes, *, flags: int = 0x01, counter: int = 7) -> bytes:
    """The SSHSIG blob a FIDO key holding seed's key makes (OpenSSH PROTOCOL.u2f)."""
    data = sshsig.signed_data(message)
    signed = (hashlib.sha256(b"ssh:").digest() + bytes([flags]) + struct.pack(">I", counter)
              + hashlib.sha256(data).digest())
    inner = (string(sshsig.SK_ED25519.encode()) + string(private(seed).sign(signed))
             + bytes([flags]) + struct.pack(">I", counter))
    return sshsig.Signature(sk_key(seed).wire, sshsig.NAMESPACE.encode(), b"", b"sha512",
                            inner).to_bytes()


KEYS = {
    "plain-1": {"privateKeySeedHex": "01" * 32, "publicKey": sshsig.public_key_of(private(1))
                .line(), "keyid": sshsig.public_key_of(private(1)).keyid()},
    "plain-2": {"privateKeySeedHex": "02" * 32, "publicKey": sshsig.public_key_of(private(2))
                .line(), "keyid": sshsig.public_key_of(private(2)).keyid()},
    "sk-4": {"privateKeySeedHex": "04" * 32, "application": "ssh:",
             "publicKey": sk_key(4).line(), "keyid": sk_key(4).keyid()},
}


# -- manifests ----------------------------------------------------------------------------

def _run_text(name: str, metrics_text: str, *, extra: str = "") -> str:
    """A BenchmarkRun manifest as text; ``metrics_text`` lands verbatim in sourceNative."""
    digest = "sha256:" + "ab" * 32
    return (
        '{\n  "kind": "BenchmarkRun",\n  "apiVersion": "' + API + '",\n'
        '  "metadata": {"name": "' + name + '"' + extra + '},\n'
        '  "spec": {\n    "timing": {"primaryStatistic": "mean", "latencyNs": {"mean": 1.0E3}},\n'
        '    "status": "passed", "observedAt": "2026-01-01T00:00:00Z",\n'
        f'    "workloadDigest": "{digest}", "protocolDigest": "{digest}",\n'
        f'    "environmentDigest": "{digest}", "implementationDigest": "{digest}",\n'
        '    "sourceNative": {"source": "conformance", "metrics": ' + metrics_text + '}\n  }\n}\n')


MANIFESTS = [
    ("numbers", "RFC 8785 §3.2.2.3 numbers: ECMAScript shortest round trip, no '+', no "
     "trailing zeros, exponent only below 1e-6 or from 1e21; -0 is 0; integral floats "
     "are integers",
     _run_text("numbers", '{"one": 1.0, "negativeZero": -0.0, "tenth": 0.1, "micro": 1e-6, '
               '"belowMicro": 1.5E-07, "tiny": 5e-324, "nearInt": 333333333.33333329, '
               '"maxSafe": 9007199254740991, "scaled": 100.25e-3, "large": 4.5e15, '
               '"fraction": 123456789.5}')),
    ("key-order", "RFC 8785 §3.2.3: object keys sorted by their UTF-16 code units ('B' before "
     "'a', '10' before '9', U+1F600 (surrogates D83D DE00) before U+FA0E), at every depth",
     _run_text("key-order", '{"c": 1, "a": {"z": 1, "y": [{"d": 1, "c": 2}]}, "B": 2, '
               '"10": 3, "9": 4, "\\ufa0e": 5, "\\ud83d\\ude00": 6, "\\u00e9": 7}')),
    ("strings", "RFC 8785 §3.2.2.2 strings: only \\\" \\\\ and controls are escaped (\\b \\t \\n "
     "\\f \\r short, others \\u00XX lowercase); '/', DEL and non-ASCII are written as UTF-8",
     _run_text("strings", '{"slash": "a\\/b", "latin": "\\u00e9t\\u00E9", "tab": "\\t", '
               '"unit": "\\u001f", "del": "\\u007f", "quote": "\\"\\\\", '
               '"emoji": "\\ud83d\\ude00"}')),
    ("metadata-not-hashed", "the digest covers apiVersion, kind and spec only: this is "
     "'numbers' with another metadata.name and a title, so the same object and digest",
     _run_text("numbers-again", '{"one": 1.0, "negativeZero": -0.0, "tenth": 0.1, '
               '"micro": 1e-6, "belowMicro": 1.5E-07, "tiny": 5e-324, '
               '"nearInt": 333333333.33333329, "maxSafe": 9007199254740991, '
               '"scaled": 100.25e-3, "large": 4.5e15, "fraction": 123456789.5}',
               extra=', "title": "same run, other metadata"')),
]


def manifests() -> dict[str, Any]:
    cases = []
    for name, why, text in MANIFESTS:
        document = canonical.loads(text.encode("utf-8"))
        manifest = Manifest.from_document(document)
        cases.append({"name": name, "why": why, "input": text,
                      "object": manifest.object_bytes.decode("utf-8"),
                      "metadata": manifest.metadata_bytes.decode("utf-8"),
                      "digest": str(manifest.digest)})
    return {
        "description": "Manifests -> canonical bytes and digests. 'input' is the manifest's "
                       "text (its UTF-8 bytes are the input). 'object' is the RFC 8785 "
                       "canonical text of {apiVersion, kind, spec} (the object file's bytes), "
                       "'metadata' that of the metadata object (the metadata file's bytes), "
                       "'digest' is "
                       "'sha256:' + hex sha256 of the object's bytes. Value-level RFC 8785 "
                       "cases: tests/vectors/rfc8785-cases.json; inputs that must be "
                       "refused: tests/vectors/bad/ with tests/vectors/bad-inputs.json.",
        "cases": cases}


# -- envelopes ----------------------------------------------------------------------------

SUBJECT_TEXT = ('{"apiVersion": "' + API + '", "kind": "Workload", "metadata": {"name": '
                '"conformance-subject"}, "spec": {"suite": {"name": "conformance"}, '
                '"definition": "rmsnorm"}}')
SUBJECT = Manifest.from_document(canonical.loads(SUBJECT_TEXT.encode()))
OTHER_SUBJECT = "sha256:" + "cd" * 32
PREDICATE = {"outcome": "reproduced", "observedAt": "2026-07-10T06:41:58Z"}
PAE = attestation.PAYLOAD_TYPE


def _statement(subject: str = str(SUBJECT.digest), type_name: str = "reproduction",
               predicate: dict[str, Any] | None = None) -> dict[str, Any]:
    from kistore.core.digest import Digest

    digest = Digest.from_str(subject)
    return attestation.make_statement(digest, f"store/objects/sha256/{digest.hex[:2]}/"
                                      f"{digest.hex[2:]}.json", type_name,
                                      copy.deepcopy(predicate or PREDICATE))


def _bundle(payload: bytes, sig: bytes, key_line: str, keyid: str,
            payload_type: str = PAE) -> dict[str, Any]:
    return {"dsseEnvelope": {"payload": base64.b64encode(payload).decode(),
                             "payloadType": payload_type,
                             "signatures": [{"keyid": keyid, "sig": base64.b64encode(sig)
                                             .decode()}]},
            "verificationMaterial": {"publicKey": key_line}}


def _sshsig(statement: dict[str, Any] | None = None, **kw: Any) -> dict[str, Any]:
    key = sshsig.public_key_of(private(1))
    bundle = attestation.sign_statement_sshsig(statement or _statement(), key,
                                               partial(sshsig.sign, private(1), **kw))
    return bundle.to_json()


def _sig(bundle: dict[str, Any]) -> bytes:
    return base64.b64decode(bundle["dsseEnvelope"]["signatures"][0]["sig"])


def _with_sig(bundle: dict[str, Any], sig: bytes) -> dict[str, Any]:
    out = copy.deepcopy(bundle)
    out["dsseEnvelope"]["signatures"][0]["sig"] = base64.b64encode(sig).decode()
    return out


def _field(blob: bytes, index: int, value: bytes) -> bytes:
    s = sshsig.Signature.from_bytes(blob)
    fields = [s.public_key, s.namespace, s.reserved, s.hash_algorithm, s.signature]
    fields[index] = value
    return sshsig.Signature(*fields, version=s.version).to_bytes()


def _payload_of(bundle: dict[str, Any]) -> bytes:
    return base64.b64decode(bundle["dsseEnvelope"]["payload"])


def _changed_payload(bundle: dict[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(bundle)
    payload = _payload_of(bundle).replace(b"2026-07-10T06", b"2026-07-11T06")
    out["dsseEnvelope"]["payload"] = base64.b64encode(payload).decode()
    return out


def envelope_cases() -> list[dict[str, Any]]:
    raw = attestation.sign_statement(_statement(), private(1)).to_json()
    ssh = _sshsig()
    blob = _sig(ssh)
    pae = signing.pae(PAE, _payload_of(ssh))
    sk = attestation.sign_statement_sshsig(_statement(), sk_key(4),
                                           partial(sk_sign, 4)).to_json()
    sk_no_touch = attestation.sign_statement_sshsig(
        _statement(), sk_key(4), partial(sk_sign, 4, flags=0)).to_json()
    inner = sshsig.Signature.from_bytes(blob).signature
    s_value = int.from_bytes(inner[-32:], "little") + signing.L
    sha1_data = (b"SSHSIG" + string(sshsig.NAMESPACE.encode()) + string(b"") + string(b"sha1")
                 + string(hashlib.sha1(pae).digest()))
    sha1_blob = sshsig.Signature(sshsig.public_key_of(private(1)).wire,
                                 sshsig.NAMESPACE.encode(), b"", b"sha1",
                                 string(b"ssh-ed25519")
                                 + string(private(1).sign(sha1_data))).to_bytes()
    sk_inner = sshsig.Signature.from_bytes(_sig(sk)).signature
    two = copy.deepcopy(raw)
    two["dsseEnvelope"]["signatures"].append(copy.deepcopy(
        _sshsig()["dsseEnvelope"]["signatures"][0]))
    swapped = copy.deepcopy(raw)
    swapped["dsseEnvelope"]["payloadType"] = "application/json"
    other_subject = _sshsig(_statement(OTHER_SUBJECT))
    unknown_type = _statement()
    unknown_type["predicateType"] = "https://kernelindex.dev/attestation/endorsement/v1"
    payload = canonical.dumps(unknown_type)
    unknown = _bundle(payload, sshsig.sign(private(1), signing.pae(PAE, payload)),
                      sshsig.public_key_of(private(1)).line(),
                      sshsig.public_key_of(private(1)).keyid())
    bad_predicate = _statement()
    bad_predicate["predicate"]["outcome"] = "maybe"
    payload = canonical.dumps(bad_predicate)
    bad = _bundle(payload, sshsig.sign(private(1), signing.pae(PAE, payload)),
                  sshsig.public_key_of(private(1)).line(),
                  sshsig.public_key_of(private(1)).keyid())
    identity = sshsig.SshPublicKey(sshsig.ED25519, (1).to_bytes(32, "little"))
    weak = _bundle(_payload_of(raw), bytes([1]) + bytes(63), identity.line(),
                   identity.keyid())
    text = canonical.dumps(ssh).decode()
    duplicate = text.replace('{"dsseEnvelope":{', '{"dsseEnvelope":{"payload":"e30=",', 1)

    def case(name: str, why: str, bundle: dict[str, Any] | str, reason: str | None) -> dict:
        data = bundle if isinstance(bundle, str) else canonical.dumps(bundle).decode()
        return {"name": name, "why": why, "bundle": data, "valid": reason is None,
                "rule": "KI306" if reason is None else "KI301",
                **({"reasonContains": reason} if reason else {})}

    return [
        case("raw-ed25519", "kistore attest --key PRIVATE: a 64-byte Ed25519 signature of "
             "the PAE", raw, None),
        case("sshsig-ed25519-sha512", "kistore attest --key KEY.pub: an SSHSIG blob "
             "(ssh-keygen's default sha512) over the PAE", ssh, None),
        case("sshsig-ed25519-sha256", "SSHSIG with hash_algorithm sha256",
             _sshsig(hash_algorithm="sha256"), None),
        case("sshsig-sk-ed25519", "a FIDO key (sk-ssh-ed25519@openssh.com): flags 0x01, "
             "counter 7, Ed25519 over SHA256(application) || flags || counter || "
             "SHA256(signed data)", sk, None),
        case("sshsig-sk-no-touch", "flags 0x00 (a no-touch-required key): accepted, as "
             "ssh-keygen -Y verify accepts it", sk_no_touch, None),
        case("raw-payload-changed", "one payload byte changed after signing",
             _changed_payload(raw), "signature does not verify over the payload"),
        case("sshsig-payload-changed", "one payload byte changed after signing",
             _changed_payload(ssh), "SSHSIG signature does not verify over these bytes"),
        case("sshsig-wrong-namespace", "a signature made for git commits (namespace 'git')",
             _with_sig(ssh, sshsig.sign(private(1), pae, namespace="git")),
             "SSHSIG namespace is 'git', expected 'kernelindex-attestation'"),
        case("sshsig-sha1", "correctly signed over a SHA-1 digest: not an allowed algorithm",
             _with_sig(ssh, sha1_blob), "SSHSIG hash algorithm 'sha1' is not allowed"),
        case("sshsig-hash-algorithm-swapped", "sha512 signature relabelled sha256",
             _with_sig(ssh, _field(blob, 3, b"sha256")), "SSHSIG signature does not verify"),
        case("sshsig-over-payload-not-pae", "the signature is over the payload, not its PAE",
             _with_sig(ssh, sshsig.sign(private(1), _payload_of(ssh))),
             "SSHSIG signature does not verify"),
        case("sshsig-trailing-byte", "a byte after the blob: a second encoding",
             _with_sig(ssh, blob + b"\0"), "1 byte(s) after the last field"),
        case("sshsig-trailing-byte-in-signature", "a byte after the signature field's "
             "contents", _with_sig(ssh, _field(blob, 4, inner + b"\0")),
             "SSHSIG signature field: 1 byte(s) after the last field"),
        case("sshsig-malleated-s", "S + L: verifies with lenient libraries",
             _with_sig(ssh, _field(blob, 4, inner[:-32] + s_value.to_bytes(32, "little"))),
             "non-canonical Ed25519 signature in SSHSIG (S >= L"),
        case("sshsig-reserved", "a non-empty reserved field",
             _with_sig(ssh, _field(blob, 2, b"tag")), "SSHSIG reserved field holds 3 byte(s)"),
        case("sshsig-version-2", "SIG_VERSION 2",
             _with_sig(ssh, blob[:6] + b"\0\0\0\2" + blob[10:]), "SSHSIG version 2"),
        case("sshsig-another-key", "the bundle names key 1, the blob is key 2's valid "
             "signature", _with_sig(ssh, sshsig.sign(private(2), pae)),
             "the SSHSIG signature is by another key than the bundled one"),
        case("sk-counter-changed", "the sk counter changed after signing",
             _with_sig(sk, _field(_sig(sk), 4, sk_inner[:-4] + struct.pack(">I", 8))),
             "SSHSIG signature does not verify"),
        case("raw-signature-sk-key", "a raw 64-byte signature under an sk key",
             _with_sig(sk, signing.sign(private(4), PAE, _payload_of(sk))),
             "key signs only SSHSIG signatures"),
        case("payload-type-swapped", "payloadType other than application/vnd.in-toto+json",
             swapped, "payloadType is 'application/json'"),
        case("two-signatures", "a bundle carries one key and one signature", two,
             "2 signatures, but a bundle carries one public key and one signature"),
        case("duplicate-key", "two 'payload' fields in the envelope: not strict JSON",
             duplicate, "duplicate object key"),
        case("subject-not-the-object", "a valid signature about another object, attached "
             "here", other_subject, "a signature copied onto another subject"),
        case("unknown-predicate-type", "a predicateType kistore does not know", unknown,
             "unknown predicateType"),
        case("predicate-fails-schema", "outcome 'maybe' is not in the reproduction schema",
             bad, "does not validate against predicate-reproduction.json"),
        case("weak-key", "the identity point as public key (every message verifies under a "
             "cofactorless check)", weak, "weak Ed25519 public key"),
    ]


def envelopes() -> dict[str, Any]:
    return {
        "description": "Attestation bundles -> valid or invalid with the rule kistore verify "
                       "reports. Each 'bundle' (its UTF-8 bytes) is one git-notes line on "
                       "the object 'subject', in a store built as stores.json says from its "
                       "'base' plus the subject's object and metadata files. A valid bundle "
                       "is a community attestation (its key is not trusted): KI306; an "
                       "invalid one is KI301 and the finding's message contains "
                       "'reasonContains'. 'keys' gives the signers' seeds.",
        "subject": {"input": SUBJECT_TEXT, "object": SUBJECT.object_bytes.decode(),
                    "metadata": SUBJECT.metadata_bytes.decode(),
                    "digest": str(SUBJECT.digest)},
        "keys": KEYS,
        "cases": envelope_cases()}


# -- stores ---------------------------------------------------------------------------------

def _complete_run() -> dict[str, Manifest]:
    def doc(kind: str, name: str, spec: dict[str, Any]) -> Manifest:
        return Manifest.from_document({"apiVersion": API, "kind": kind,
                                       "metadata": {"name": name}, "spec": spec})

    protocol = doc("BenchmarkProtocol", "p", {"harness": {"name": "h", "version": "1"},
                                              "measurement": {"primaryStatistic": "mean"},
                                              "comparability": {"family": "f"}})
    env = doc("ExecutionEnvironment", "e", {"hardware": {"vendor": "nvidia",
                                                         "product": "NVIDIA H100"}})
    impl = doc("Implementation", "i", {"project": "proj"})
    workload = doc("Workload", "w", {"suite": {"name": "s"}, "definition": "rmsnorm"})
    run = doc("BenchmarkRun", "r", {
        "status": "passed", "timing": {"primaryStatistic": "mean", "latencyNs": {"mean": 10_000}},
        "observedAt": "2026-01-01T00:00:00Z", "workloadDigest": str(workload.digest),
        "protocolDigest": str(protocol.digest), "environmentDigest": str(env.digest),
        "implementationDigest": str(impl.digest)})
    return {"protocol": protocol, "environment": env, "implementation": impl,
            "workload": workload, "run": run}


def _path(m: Manifest, base: str = "objects") -> str:
    return f"store/{base}/sha256/{m.digest.hex[:2]}/{m.digest.hex[2:]}.json"


def _names_path(kind: str, name: str) -> str:
    """``store/names/KIND/XX/NAME``, XX the first two hex digits of sha256 of NAME (by hand)."""
    return f"store/names/{kind}/{hashlib.sha256(name.encode()).hexdigest()[:2]}/{name}"


def _group_file() -> tuple[str, str]:
    """The run's group file: path and text, its key object written out by hand.

    ``store/groups/sha256/XX/REST/RUN``: XX+REST the sha256 of the text, the RFC 8785 bytes
    of the run's key object (family and primaryStatistic of its protocol, the product of its
    environment's hardware, its protocol and workload digests; keys sorted, no spaces).
    """
    parts = _complete_run()
    text = ('{"family":"f","hardwareProduct":"NVIDIA H100","primaryStatistic":"mean",'
            f'"protocolDigest":"{parts["protocol"].digest}",'
            f'"workloadDigest":"{parts["workload"].digest}"}}')
    key = hashlib.sha256(text.encode()).hexdigest()
    return f"store/groups/sha256/{key[:2]}/{key[2:]}/{parts['run'].digest.hex}", text


def _base_files() -> dict[str, str]:
    from kistore.core import layout
    from kistore.store import _store

    files = {f"{_path(m)}": m.object_bytes.decode() for m in _complete_run().values()}
    files |= {_path(m, "metadata"): m.metadata_bytes.decode() for m in _complete_run().values()}
    files |= {layout.name_path(m.kind, m.name): layout.name_record(m.digest).decode()
              for m in _complete_run().values()}
    files.update([_group_file()])
    files["kistore.toml"] = "[store]\nversion = 1\n"
    files[".gitattributes"] = layout.GITATTRIBUTES_LINE + "\n"
    files[layout.POLICY_FILE] = _store._default_policy().decode("utf-8")
    return files


def _rerun(seed: int, *, sk: bool = False, observed: str = "2026-07-10T06:41:58Z") -> str:
    run = _complete_run()["run"]
    statement = attestation.make_statement(run.digest, _path(run), "rerun", {
        "outcome": "reproduced", "observedAt": observed,
        "environmentDigest": str(_complete_run()["environment"].digest),
        "timing": {"latencyNs": {"mean": 9_500}, "primaryStatistic": "mean"}})
    if sk:
        return attestation.sign_statement_sshsig(statement, sk_key(seed),
                                                 partial(sk_sign, seed)).to_bytes().decode()
    return attestation.sign_statement_sshsig(
        statement, sshsig.public_key_of(private(seed)),
        partial(sshsig.sign, private(seed))).to_bytes().decode()


def _trust(*entries: dict[str, Any]) -> str:
    return json.dumps({"keys": list(entries)}, indent=2) + "\n"


def _key_entry(name: str, roles: list[str], **window: str) -> dict[str, Any]:
    # validFrom before DATE: a key without one counts only from the second after the commit
    # that adds it, and here the commit adding it also holds what it signed
    return {"keyid": KEYS[name]["keyid"], "publicKey": KEYS[name]["publicKey"],
            "roles": roles, "validFrom": "2026-01-01T00:00:00Z", **window}


def store_cases() -> list[dict[str, Any]]:
    run = _complete_run()["run"]
    protocol = _complete_run()["protocol"]
    good = _rerun(1)
    attestation_file = (f"store/attestations/sha256/{run.digest.hex[:2]}/{run.digest.hex[2:]}/"
                        f"{hashlib.sha256(good.encode()).hexdigest()}.json")
    tampered_object = protocol.object_bytes.decode().replace('"h"', '"H"')
    noncanonical = protocol.object_bytes.decode().replace(",", ", ")
    name = hashlib.sha256(noncanonical.encode()).hexdigest()
    noncanonical_path = f"store/objects/sha256/{name[:2]}/{name[2:]}.json"
    changed = json.loads(good)
    changed["dsseEnvelope"]["payload"] = base64.b64encode(base64.b64decode(
        changed["dsseEnvelope"]["payload"]).replace(b"9500", b"8500")).decode()
    changed_line = canonical.dumps(changed).decode()
    missing = "ef" * 32
    run_object = _path(run)

    def case(name: str, why: str, findings: list[tuple[str, str, str]], *,
             files: dict[str, str | None] | None = None,
             notes: dict[str, list[str]] | None = None) -> dict[str, Any]:
        return {"name": name, "why": why, "files": files or {}, "notes": notes or {},
                "findings": [{"rule": r, "severity": s, "file": f} for r, s, f in findings],
                "exitCode": 1 if any(s == "error" for _, s, _ in findings) else 0}

    return [
        case("good", "a complete run, a trusted rerun as a note (SSHSIG) and as a file",
             [], files={"store/trust/keys.json": _trust(_key_entry("plain-1", ["rerun"])),
                        attestation_file: good},
             notes={run_object: [good]}),
        case("trusted-security-key", "a rerun by a trusted sk-ssh-ed25519 key", [],
             files={"store/trust/keys.json": _trust(_key_entry("sk-4", ["rerun"]))},
             notes={run_object: [_rerun(4, sk=True)]}),
        case("object-byte-changed", "an object file whose sha256 is no longer its name (the "
             "protocol's): one cause, one finding: no rule judges the edited bytes, so the "
             "run's group file, whose key they complete, is not reported too",
             [("KI101", "error", _path(protocol))],
             files={_path(protocol): tampered_object}),
        case("object-not-canonical", "named by the sha256 of its bytes, but not RFC 8785 "
             "canonical (spaces after commas)",
             [("KI103", "error", noncanonical_path), ("KI204", "error", noncanonical_path)],
             files={noncanonical_path: noncanonical}),
        case("note-payload-changed", "a note whose payload changed after signing",
             [("KI301", "error", "refs/notes/kistore:" + _blob(run.object_bytes))],
             notes={run_object: [changed_line]}),
        case("attestation-file-misnamed", "a file not named by its sha256",
             [("KI305", "error", attestation_file.replace(attestation_file[-69:-5],
                                                          "00" * 32))],
             files={attestation_file.replace(attestation_file[-69:-5], "00" * 32): good}),
        case("attestation-file-subject-missing", "a file about an object not in the store",
             [("KI303", "error", f"store/attestations/sha256/{missing[:2]}/{missing[2:]}/"
               f"{hashlib.sha256(good.encode()).hexdigest()}.json"),
              ("KI301", "error", f"store/attestations/sha256/{missing[:2]}/{missing[2:]}/"
               f"{hashlib.sha256(good.encode()).hexdigest()}.json")],
             files={f"store/attestations/sha256/{missing[:2]}/{missing[2:]}/"
                    f"{hashlib.sha256(good.encode()).hexdigest()}.json": good}),
        case("rerun-key-lacks-role", "a rerun by a key trusted only as maintainer",
             [("KI302", "error", "refs/notes/kistore:" + _blob(run.object_bytes))],
             files={"store/trust/keys.json": _trust(_key_entry("plain-1", ["maintainer"]))},
             notes={run_object: [good]}),
        case("rerun-key-revoked", "a rerun dated after its key's revocation",
             [("KI302", "error", "refs/notes/kistore:" + _blob(run.object_bytes))],
             files={"store/trust/keys.json": _trust(_key_entry(
                 "sk-4", ["rerun"], revokedAt="2026-07-01T00:00:00Z"))},
             notes={run_object: [_rerun(4, sk=True)]}),
        case("trust-keyid-not-the-fingerprint", "keys.json lists key 1 under key 2's keyid",
             [("KI309", "error", "store/trust/keys.json")],
             files={"store/trust/keys.json": _trust({**_key_entry("plain-1", ["rerun"]),
                                                     "keyid": KEYS["plain-2"]["keyid"]})}),
        case("names-file-without-manifest", "store/names/KIND/XX/NAME claims a name for a "
             "digest with no metadata file (a squatted name)",
             [("KI212", "error", _names_path("BenchmarkRun", "squat"))],
             files={_names_path("BenchmarkRun", "squat"): f"sha256:{missing}\n"}),
        case("names-file-missing", "a manifest whose names file is absent",
             [("KI211", "error", _path(protocol, "metadata"))],
             files={_names_path("BenchmarkProtocol", "p"): None}),
        case("group-file-missing", "a run whose comparison key is known, with no group file",
             [("KI215", "error", _path(run))], files={_group_file()[0]: None}),
        case("group-file-of-another-group", "the run's group file in another key's directory "
             "(its bytes, whose sha256 is not that key)",
             [("KI215", "error", _path(run)),
              ("KI216", "error", "store/groups/sha256/ab/" + "ab" * 31 + "/" + run.digest.hex)],
             files={_group_file()[0]: None,
                    "store/groups/sha256/ab/" + "ab" * 31 + "/" + run.digest.hex:
                        _group_file()[1]}),
        case("note-on-unknown-object", "a note on a blob that is no object of the store "
             "(a warning only)", [("KI304", "warning", "refs/notes/kistore:"
                                   + _blob(SUBJECT.object_bytes))],
             notes={"(blob) " + SUBJECT.object_bytes.decode(): [good]}),
    ]


def _blob(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def stores() -> dict[str, Any]:
    return {
        "description": "Small stores -> findings of `kistore verify`. Build each store: a "
                       "git repository whose one commit (author and committer date 'date', "
                       "UTC) holds 'base' updated by the case's 'files' (a null value "
                       "deletes); then, for each entry of 'notes', a note under "
                       "refs/notes/kistore (also dated 'date') on the git blob of the file "
                       "at that path (or, for a key '(blob) TEXT', of the bytes TEXT), "
                       "holding the lines sorted bytewise, each ending in a newline. "
                       "'findings' lists every error and warning (info findings are not "
                       "listed) as rule, severity and file; 'exitCode' is 1 when one is an "
                       "error.",
        "date": DATE,
        "base": _base_files(),
        "keys": KEYS,
        "cases": store_cases()}


def render(value: dict[str, Any]) -> str:
    """The committed form: indented JSON, ASCII only (every other character escaped)."""
    return json.dumps(value, indent=2, ensure_ascii=True) + "\n"


FILES = {"manifests.json": manifests, "envelopes.json": envelopes, "stores.json": stores}


def main() -> None:
    """Write every conformance/*.json file."""
    OUT.mkdir(exist_ok=True)
    for name, make in FILES.items():
        (OUT / name).write_text(render(make()), encoding="ascii")
        print(f"wrote conformance/{name}")


if __name__ == "__main__":
    main()
