"""Public-key files as people have them: one or several OpenSSH lines, or one PEM key.

What ``https://github.com/USER.keys`` serves, an ``authorized_keys`` file or a ``.pub``
file: one OpenSSH public-key line per key (``TYPE BASE64 [comment]``), often of several
types. :func:`read_public_keys` returns every Ed25519 key of such a file and, for every
other line, its line number and why it was left out, so ``kistore trust add FILE`` trusts
each Ed25519 key and names each line it skips. Blank lines and ``#`` comments are ignored,
as ``sshd`` ignores them in ``authorized_keys``.

Key types (OpenSSH PROTOCOL and PROTOCOL.u2f):

* ``ssh-ed25519``: trusted;
* ``sk-ssh-ed25519@openssh.com`` (an Ed25519 key on a FIDO security key): trusted too,
  as attestations signed with it verify (SSHSIG inside DSSE, :mod:`kistore.attest.sshsig`);
* ``ssh-rsa``, ``ecdsa-sha2-*``, ``ssh-dss``, ``sk-ecdsa-*``: skipped, naming the type.

Parsing of one line is :meth:`kistore.attest.sshsig.SshPublicKey.from_text`'s; this module
only splits a file into lines and says what it skipped.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..core.errors import InputError, KistoreError, printable, shorten
from .sshsig import SshPublicKey

SECURITY_KEY_ED25519 = "sk-ssh-ed25519@openssh.com"
"""An Ed25519 key held by a FIDO security key (OpenSSH PROTOCOL.u2f)."""

SIGNABLE = frozenset({"ssh-ed25519", SECURITY_KEY_ED25519})
"""OpenSSH key types whose signatures kistore verifies: lines of other types are skipped."""

_TYPE_NAMES = {
    "ssh-rsa": "an RSA key", "ssh-dss": "a DSA key",
    "ecdsa-sha2-nistp256": "an ECDSA key", "ecdsa-sha2-nistp384": "an ECDSA key",
    "ecdsa-sha2-nistp521": "an ECDSA key",
    "sk-ecdsa-sha2-nistp256@openssh.com": "an ECDSA security key",
}


@dataclass(frozen=True, slots=True)
class KeyLine:
    """One public key read from a file.

    Attributes:
        key: the public key (:class:`kistore.attest.sshsig.SshPublicKey`: plain Ed25519 or
            a security key's).
        line: its 1-based line in the file (1 for a PEM key).
        text: the line as written (its OpenSSH form), for messages.
    """

    key: Any
    line: int
    text: str


@dataclass(frozen=True, slots=True)
class Skipped:
    """A line of a key file that names no key kistore can trust, and why.

    Attributes:
        file: the file, as given.
        line: the 1-based line.
        reason: why it was skipped (its key type, or what is wrong with it).
    """

    file: str
    line: int
    reason: str

    def format(self) -> str:
        """Return ``FILE:LINE: skipped: reason``."""
        return printable(f"{self.file}:{self.line}: skipped: {self.reason}")

    def to_json(self) -> dict[str, Any]:
        """Return ``{"file", "line", "reason"}``."""
        return {"file": printable(self.file), "line": self.line, "reason": self.reason}


def read_public_keys(data: bytes, *, file: str) -> tuple[list[KeyLine], list[Skipped]]:
    """Return every Ed25519 public key of a key file, and every other line with the reason.

    Args:
        data: the file's bytes: OpenSSH public-key lines (``authorized_keys`` form, as
            ``https://github.com/USER.keys`` serves them), or one PEM public key.
        file: its name, for messages.

    Returns:
        ``(keys, skipped)``: the keys in line order (a key listed twice once, at its first
        line); and one :class:`Skipped` per non-blank, non-comment line that holds no
        trusted key type or no valid key (a later repeat of a key is skipped too).

    Raises:
        InputError: ``data`` holds no line at all, or is a PEM key that is not an Ed25519
            public key.
    """
    text = data.decode("utf-8", "replace")
    if text.lstrip().startswith("-----BEGIN"):  # one PEM key: the whole file
        return [KeyLine(SshPublicKey.from_text(data, file=file), 1, text.strip())], []
    keys: list[KeyLine] = []
    skipped: list[Skipped] = []
    seen: dict[str, int] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        kind = line.split()[0]
        if kind not in SIGNABLE:
            skipped.append(Skipped(file, number, _unsupported(kind)))
            continue
        try:
            key = SshPublicKey.from_text(line, file=file)
        except KistoreError as e:
            reason = e.message if isinstance(e, InputError) else str(e)
            skipped.append(Skipped(file, number, f"not a valid {kind} key ({reason})"))
            continue
        keyid = key.keyid()
        if keyid in seen:
            skipped.append(Skipped(file, number, f"the same key as line {seen[keyid]}"))
            continue
        seen[keyid] = number
        keys.append(KeyLine(key, number, line))
    if not keys and not skipped:
        raise InputError("no public key in the file: expected OpenSSH lines ('ssh-ed25519 "
                         "AAAA... comment', as https://github.com/USER.keys serves them) or a "
                         "PEM public key", file=file)
    return keys, skipped


def _unsupported(kind: str) -> str:
    """Say why a line of key type ``kind`` is skipped."""
    if kind in _TYPE_NAMES:
        return (f"{_TYPE_NAMES[kind]} ({kind}): kistore trusts only Ed25519 keys "
                "(ssh-ed25519); make one with `ssh-keygen -t ed25519` or `kistore key generate`")
    return (f"not an OpenSSH public-key line (it starts {shorten(repr(kind), 40)}); expected "
            "'ssh-ed25519 AAAA... comment'")
