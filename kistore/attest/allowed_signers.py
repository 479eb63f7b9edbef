r"""Trust as OpenSSH sees it: ``store/trust/keys.json`` as an allowed_signers file.

Owns the export only (``kistore trust export --allowed-signers FILE``); trust itself is
:mod:`kistore.attest.trust`'s. The format is ssh-keygen(1), "ALLOWED SIGNERS": one line
per key, ``principals options keytype base64``, ``#`` lines are comments. Each trusted key
becomes::

    # SHA256:...: CI rerun farm
    SHA256:...,rerun namespaces="kernelindex-attestation",valid-after="20260101000000Z",\
valid-before="20261231235959Z" ssh-ed25519 AAAA...

(one line; broken here at the ``\``).

* **principals**: the key's keyid (its OpenSSH fingerprint) and each of its roles, so
  ``ssh-keygen -Y verify -I SHA256:...`` asks "signed by this key?" and ``-I rerun`` asks
  "signed by a key trusted for rerun?".
* **namespaces**: only ``kernelindex-attestation`` (a key trusted here is not thereby
  trusted for git commits or files).
* **valid-after**: ``validFrom``, rounded up to the whole second (ssh-keygen's resolution).
* **valid-before**: the earlier of ``validUntil`` and ``revokedAt``, less one second:
  ssh-keygen accepts a signature *at or before* valid-before, kistore counts nothing from
  the second a key expires or is revoked (:meth:`kistore.attest.trust.TrustedKey.judge`).
  Times are UTC with a ``Z`` suffix, as ssh-keygen(1) documents (the tests run OpenSSH
  9.2).

ssh-keygen judges the window at the time ``-Overify-time`` gives (default: now); kistore
judges it at the time an attestation entered the repository (docs/attestations.md).
Roles are principals, not checked against an attestation's type: that is the caller's
``-I``. ``scripts/verify-store.sh`` builds the same file from ``keys.json`` with jq, and the
tests hold the two byte-identical.
"""

from __future__ import annotations

import unicodedata
from datetime import UTC, datetime, timedelta

from .sshsig import NAMESPACE
from .trust import Trust, TrustedKey

HEADER = (
    "# OpenSSH allowed_signers, exported by `kistore trust export --allowed-signers` from\n"
    "# store/trust/keys.json. Principals: the keyid and the key's roles. Check a signature:\n"
    "#   ssh-keygen -Y verify -f FILE -I PRINCIPAL -n kernelindex-attestation -s SIG < PAE\n"
)


def ssh_time(instant: datetime) -> str:
    """Return an instant as an allowed_signers timestamp, ``YYYYMMDDHHMMSSZ`` (UTC)."""
    return instant.astimezone(UTC).strftime("%Y%m%d%H%M%SZ")


def line(key: TrustedKey) -> str:
    """Return one key's allowed_signers line (no comment line, no newline).

    Args:
        key: the trusted key.

    Returns:
        ``principals options keytype base64`` as the module docstring describes.
    """
    options = [f'namespaces="{NAMESPACE}"']
    if key.valid_from is not None:
        start = key.valid_from.replace(microsecond=0)
        if start != key.valid_from:
            start += timedelta(seconds=1)
        options.append(f'valid-after="{ssh_time(start)}"')
    ends = [t for t in (key.valid_until, key.revoked_at) if t is not None]
    if ends:
        last = min(ends).replace(microsecond=0) - timedelta(seconds=1)
        options.append(f'valid-before="{ssh_time(last)}"')
    principals = ",".join([key.keyid, *key.roles])
    return f"{principals} {','.join(options)} {key.public_key}"


def to_text(trust: Trust) -> str:
    """Return the allowed_signers file of a trust: a header, then per key a comment and a line.

    Keys come in keyid order (the order of ``keys.json``). The comment line is ``# KEYID:
    COMMENT`` (``# KEYID:`` without one), each control character (Unicode category Cc)
    of the comment replaced by a space: a comment must stay one line.

    Args:
        trust: the store's trust.

    Returns:
        The file's text, each line ending in ``\\n``.
    """
    out = [HEADER]
    for keyid in sorted(trust.keys):
        key = trust.keys[keyid]
        comment = "".join(" " if unicodedata.category(c) == "Cc" else c
                          for c in key.comment or "")
        out.append(f"# {keyid}:" + (f" {comment}" if comment else "") + "\n")
        out.append(line(key) + "\n")
    return "".join(out)
