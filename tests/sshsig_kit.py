"""Test helpers for SSHSIG: a software stand-in for a FIDO key, blob surgery, ssh-agent.

The ``sk-ssh-ed25519@openssh.com`` signature is built by hand from its documented signed
data (OpenSSH PROTOCOL.u2f): Ed25519 over SHA256(application) || flags || counter ||
SHA256(SSHSIG signed data). ssh-keygen, which needs no hardware to verify, is the oracle.
"""

from __future__ import annotations

import base64
import contextlib
import copy
import hashlib
import json
import os
import shutil
import signal
import struct
import subprocess
import time
from collections.abc import Iterator
from functools import partial
from pathlib import Path

import pytest

from kistore.attest import attestation, notes, signing, sshsig
from kistore.attest.trust import add_key
from kistore.core import canonical, layout
from kistore.core.digest import Digest
from kistore.git.pack import blob_id

from .conftest import ROOT, add_docs, commit_all, fixed_key, git

SIGNER, OTHER = fixed_key(1), fixed_key(2)
SCRIPT = ROOT / "scripts" / "verify-store.sh"

needs_ssh_keygen = pytest.mark.skipif(
    shutil.which("ssh-keygen") is None or shutil.which("ssh-agent") is None,
    reason="needs OpenSSH's ssh-keygen and ssh-agent (Debian: openssh-client; `make test` "
           "installs it)")


def string(data: bytes) -> bytes:
    """An SSH ``string``: uint32 big-endian length, then the bytes."""
    return struct.pack(">I", len(data)) + data


def sk_key(private, application: bytes = b"ssh:") -> sshsig.SshPublicKey:
    """The sk-ssh-ed25519 public key a FIDO key holding ``private`` would report."""
    return sshsig.SshPublicKey(sshsig.SK_ED25519, signing.raw_public_key(private.public_key()),
                               application)


def sk_sign(private, message: bytes, *, application: bytes = b"ssh:", flags: int = 0x01,
            counter: int = 7, namespace: str = sshsig.NAMESPACE,
            hash_algorithm: str = "sha512") -> bytes:
    """An SSHSIG blob as a FIDO key holding ``private`` would make it (PROTOCOL.u2f)."""
    data = sshsig.signed_data(message, namespace=namespace, hash_algorithm=hash_algorithm)
    signed = (hashlib.sha256(application).digest() + bytes([flags]) + struct.pack(">I", counter)
              + hashlib.sha256(data).digest())
    inner = (string(sshsig.SK_ED25519.encode()) + string(private.sign(signed))
             + bytes([flags]) + struct.pack(">I", counter))
    return sshsig.Signature(sk_key(private, application).wire, namespace.encode(), b"",
                            hash_algorithm.encode(), inner).to_bytes()


def ssh_keygen_verifies(tmp: Path, blob: bytes, key: sshsig.SshPublicKey, message: bytes,
                        namespace: str = sshsig.NAMESPACE) -> bool:
    """Ask ``ssh-keygen -Y verify`` (the reference implementation) about a blob."""
    (tmp / "allowed").write_text(f"signer {key.line()}\n")
    (tmp / "sig").write_text(sshsig.armor(blob))
    done = subprocess.run(["ssh-keygen", "-Y", "verify", "-f", str(tmp / "allowed"),
                           "-I", "signer", "-n", namespace, "-s", str(tmp / "sig")],
                          input=message, capture_output=True, timeout=60)
    return done.returncode == 0


@contextlib.contextmanager
def ssh_agent(tmp: Path) -> Iterator[dict[str, str]]:
    """Run a private ssh-agent for one test; yield the environment that reaches it.

    The agent runs in the foreground (``-D``) as our child, on a socket under ``tmp``, and
    is terminated (then killed, if need be) when the block ends; nothing else is touched.
    """
    sock = tmp / "agent.sock"
    agent = subprocess.Popen(["ssh-agent", "-D", "-a", str(sock)], stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        for _ in range(200):  # up to 10 s for the socket to appear
            if sock.exists() or agent.poll() is not None:
                break
            time.sleep(0.05)
        env = {**os.environ, "SSH_AUTH_SOCK": str(sock)}
        for _ in range(200):  # listening: `ssh-add -l` says 1 (no keys), not 2 (no agent)
            listed = subprocess.run(["ssh-add", "-l"], env=env, capture_output=True, timeout=30)
            if listed.returncode != 2 or agent.poll() is not None:
                break
            time.sleep(0.05)
        if listed.returncode == 2:
            raise RuntimeError(f"ssh-agent did not start: {listed.stderr!r}")
        yield env
    finally:
        agent.send_signal(signal.SIGTERM)
        try:
            agent.wait(timeout=10)
        except subprocess.TimeoutExpired:
            agent.kill()
            agent.wait(timeout=10)


class Small:
    """A committed store with one run and what it references; helpers to attest about it."""

    def __init__(self, store, kit) -> None:
        protocol, env, impl, workload = (kit.protocol(), kit.environment(),
                                         kit.implementation(), kit.workload())
        run = kit.run(protocol, env, impl, workload, latency=10.0, name="run")
        digests = add_docs(store, [protocol, env, impl, workload, run])
        self.store, self.path = store, store.root
        self.protocol, self.environment = Digest.from_str(digests[0]), digests[1]
        self.run = Digest.from_str(digests[4])

    def bundle(self, type_name: str = "reproduction", *, private=SIGNER, subject=None,
               namespace: str = sshsig.NAMESPACE, sk: bool = False, raw: bool = False,
               observed: str = "2026-07-10T06:41:58Z") -> bytes:
        subject = subject or self.run
        predicate = {"outcome": "reproduced", "observedAt": observed}
        if type_name == "rerun":
            predicate |= {"environmentDigest": self.environment,
                          "timing": {"latencyNs": {"mean": 9.5}, "primaryStatistic": "mean"}}
        if type_name == "withdrawal":
            predicate = {"reason": "wrong timer", "createdAt": observed}
        statement = attestation.make_statement(subject, layout.object_path(subject), type_name,
                                               copy.deepcopy(predicate))
        if raw:
            return attestation.sign_statement(statement, private).to_bytes()
        key = sk_key(private) if sk else sshsig.public_key_of(private)
        signer = (partial(sk_sign, private, namespace=namespace) if sk
                  else partial(sshsig.sign, private, namespace=namespace))
        if namespace != sshsig.NAMESPACE:  # sign_statement_sshsig would catch it: forge
            payload = canonical.dumps(statement)
            blob = signer(signing.pae(attestation.PAYLOAD_TYPE, payload))
            env = attestation.Envelope(attestation.PAYLOAD_TYPE, payload,
                                       (attestation.Signature(key.keyid(), blob),))
            return attestation.Bundle(env, key.line()).to_bytes()
        return attestation.sign_statement_sshsig(statement, key, signer).to_bytes()

    def attach(self, data: bytes, *, as_file: bool = False, subject=None) -> str:
        where = notes.attach(self.store, subject or self.run, data, as_file=as_file)
        if as_file:
            commit_all(self.path, "attestation")
        return where

    def trust(self, private=SIGNER, roles=("rerun",), sk: bool = False, **window) -> str:
        key = sk_key(private) if sk else sshsig.public_key_of(private)
        add_key(self.path, key.line(), list(roles), **window)
        commit_all(self.path, "trust")
        return key.keyid()

    @staticmethod
    def object_path(subject: Digest) -> str:
        return layout.object_path(subject)


def script(path: Path, *args: str) -> tuple[int, str]:
    done = subprocess.run(["bash", str(SCRIPT), *args], cwd=path, capture_output=True,
                          text=True, timeout=300)
    return done.returncode, done.stdout + done.stderr


def flip_payload_byte(bundle: bytes) -> bytes:
    """The bundle with one byte of its payload changed (a digit of observedAt)."""
    value = json.loads(bundle)
    payload = base64.b64decode(value["dsseEnvelope"]["payload"])
    at = payload.index(b'"observedAt":"') + len(b'"observedAt":"') + 3  # the year's last digit
    digit = b"7" if payload[at:at + 1] != b"7" else b"8"
    changed = payload[:at] + digit + payload[at + 1:]
    value["dsseEnvelope"]["payload"] = base64.b64encode(changed).decode()
    return canonical.dumps(value)


def replace_note(small: Small, subject: Digest, lines: list[bytes]) -> None:
    blob = blob_id(small.store.view("HEAD").object_bytes(subject)).hex()
    note = small.path.parent / "note"
    note.write_bytes(b"".join(line + b"\n" for line in sorted(lines)))
    git(small.path, "notes", "--ref=kistore", "add", "-f", "-F", str(note), blob)
