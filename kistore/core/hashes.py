"""SHA-256, SHA-1 and BLAKE2b for kistore's reads, without loading OpenSSL for a few hashes.

``import hashlib`` loads OpenSSL's libcrypto (``_hashlib``): ~12 M instructions, 6% of
``python -c "import click"``, at every start of every command that hashes anything
(docs/speed.md, "Start-up at 1,000,000"), while one answer (``show``, ``rank``) hashes a
few kilobytes. Python's own SHA-256 and SHA-1 (the builtin ``_sha256`` and ``_sha1``
modules) give the same digests at 4-7x OpenSSL's CPU a byte; BLAKE2b is Python's own in
either case (``hashlib.blake2b`` is ``_blake2.blake2b``).

So :func:`sha256` and :func:`sha1` use Python's own functions for the first
:data:`BUILTIN_BYTES` bytes a process hashes through them, then OpenSSL's: one answer
never loads it, a bulk ``add``, ``verify`` or index build loads it after the first
quarter megabyte and hashes the rest as fast as before. Only the bytes given to the
constructor are counted: code that feeds a hash by ``update`` in a loop (the pack writer,
the export's checksums) imports :mod:`hashlib` itself. A Python built without the builtin
modules uses :mod:`hashlib` throughout.
"""

from __future__ import annotations

from typing import Any, Protocol


class Hash(Protocol):
    """A running hash (``hashlib``'s interface): feed bytes, read the digest."""

    def update(self, data: bytes, /) -> None:
        """Hash ``data`` after what was hashed so far."""

    def digest(self) -> bytes:
        """Return the digest of the bytes so far."""
        ...

    def hexdigest(self) -> str:
        """Return the digest of the bytes so far, as lowercase hex."""
        ...


BUILTIN_BYTES = 256 * 1024
"""Bytes hashed by Python's own SHA-256/SHA-1 before OpenSSL is loaded for the rest: about
where OpenSSL's load (~3.5 ms here) costs what the builtin's slower bytes do (~5 us a KB)."""

_left = BUILTIN_BYTES

try:
    from _blake2 import blake2b as blake2b
    from _sha1 import sha1 as _builtin_sha1

    try:
        from _sha2 import sha256 as _builtin_sha256  # Python 3.12 on
    except ImportError:
        from _sha256 import sha256 as _builtin_sha256  # Python 3.11
except ImportError:  # pragma: no cover - a Python built without its own hash modules
    from hashlib import blake2b as blake2b

    _left = 0


def sha256(data: bytes = b"") -> Hash:
    """Return a SHA-256 hash of ``data`` (feed more with ``update``), as ``hashlib.sha256``.

    Args:
        data: the first bytes to hash.

    Returns:
        A running hash; its digest is SHA-256's whichever implementation computes it.
    """
    return _made(_builtin_sha256, "sha256", data)


def sha1(data: bytes = b"") -> Hash:
    """Return a SHA-1 hash of ``data`` (git's object ids), as ``hashlib.sha1``.

    Not for security: git names objects by it. Under FIPS, OpenSSL's is asked with
    ``usedforsecurity=False``.

    Args:
        data: the first bytes to hash.

    Returns:
        A running hash; its digest is SHA-1's whichever implementation computes it.
    """
    return _made(_builtin_sha1, "sha1", data, usedforsecurity=False)


def _made(builtin: Any, name: str, data: bytes, **openssl: bool) -> Hash:
    """Return Python's own hash ``builtin`` of ``data`` while the budget lasts, else OpenSSL's.

    Args:
        builtin: the builtin module's constructor (``_sha256.sha256``).
        name: the :mod:`hashlib` constructor's name (``sha256``).
        data: the first bytes to hash; they count against :data:`BUILTIN_BYTES`.
        openssl: keyword arguments for OpenSSL's (``usedforsecurity=False``).
    """
    global _left
    if _left > 0:
        _left -= len(data)
        built: Hash = builtin(data)
        return built
    # Lazy: OpenSSL (~12 M instructions to load) only once a process hashes in bulk.
    import hashlib

    made: Hash = getattr(hashlib, name)(data, **openssl)
    return made


__all__ = ["BUILTIN_BYTES", "Hash", "blake2b", "sha1", "sha256"]
