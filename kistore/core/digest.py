"""The :class:`Digest` value: ``sha256:`` + 64 lowercase hex digits.

Owns the digest grammar, computing a digest from bytes, and matching the short prefixes
people type (at least :data:`MIN_PREFIX` hex digits, as git does). No I/O, no git.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from . import hashes
from .errors import InputError, ResolutionError

ALGORITHM = "sha256"
MIN_PREFIX = 8
_FULL = re.compile(r"sha256:[0-9a-f]{64}")
_PREFIX = re.compile(rf"(?:sha256:)?([0-9a-f]{{{MIN_PREFIX},64}})")


@dataclass(frozen=True, slots=True)
class Digest:
    """A SHA-256 content digest, e.g. ``sha256:384a96d0...54f6``.

    Ordered by ``hex``, as ``order=True`` would order it; the four comparisons are written
    out because every command imports this class, and ``order=True`` compiles four more
    methods at each start (~0.5 ms).

    Attributes:
        hex: the 64 lowercase hex digits.
    """

    hex: str

    def __lt__(self, other: object) -> bool:
        if other.__class__ is self.__class__:
            return self.hex < other.hex
        return NotImplemented

    def __le__(self, other: object) -> bool:
        if other.__class__ is self.__class__:
            return self.hex <= other.hex
        return NotImplemented

    def __gt__(self, other: object) -> bool:
        if other.__class__ is self.__class__:
            return self.hex > other.hex
        return NotImplemented

    def __ge__(self, other: object) -> bool:
        if other.__class__ is self.__class__:
            return self.hex >= other.hex
        return NotImplemented

    def __post_init__(self) -> None:
        if len(self.hex) != 64 or not _FULL.fullmatch("sha256:" + self.hex):
            raise InputError(f"not a SHA-256 digest: {self.hex!r}; expected 64 lowercase hex")

    @classmethod
    def of(cls, data: bytes) -> Digest:
        """Return the digest of ``data`` (the exact bytes; nothing is re-serialised)."""
        return cls._checked(hashes.sha256(data).hexdigest())

    @classmethod
    def _checked(cls, hex_: str) -> Digest:
        """Build a digest from hex already known to match the grammar (no second check).

        A bulk add builds about five digests a manifest; checking each twice cost more
        than hashing the manifest.
        """
        digest = object.__new__(cls)
        object.__setattr__(digest, "hex", hex_)
        return digest

    @classmethod
    def from_str(cls, text: str) -> Digest:
        """Parse the full form ``sha256:<64 hex>``.

        Raises:
            InputError: when ``text`` is not exactly that grammar (uppercase hex is refused).
        """
        if not _FULL.fullmatch(text):
            raise InputError(f"not a digest: {text!r}; expected 'sha256:' + 64 lowercase hex")
        return cls._checked(text[7:])

    def __str__(self) -> str:
        return f"{ALGORITHM}:{self.hex}"

    @property
    def short(self) -> str:
        """The first 12 hex digits, for display only (never for lookup)."""
        return self.hex[:12]


def is_digest(text: object) -> bool:
    """Return True when ``text`` is a full digest string ``sha256:<64 lowercase hex>``."""
    return isinstance(text, str) and _FULL.fullmatch(text) is not None


def parse_prefix(text: str) -> str | None:
    """Return the lowercase hex prefix in ``text`` (``sha256:`` optional), or None.

    ``text`` qualifies when it is 8 to 64 lowercase hex digits, optionally after ``sha256:``.
    """
    match = _PREFIX.fullmatch(text)
    return match.group(1) if match else None


def match_prefix(prefix: str, candidates: Iterable[Digest], *, what: str = "object") -> Digest:
    """Resolve a hex prefix against candidate digests, as git resolves short object ids.

    Args:
        prefix: 8 to 64 lowercase hex digits.
        candidates: digests that might start with ``prefix`` (may include others).
        what: noun used in error messages.

    Returns:
        The single digest that starts with ``prefix``.

    Raises:
        ResolutionError: when none matches, or when several do (listing each candidate).
    """
    found = sorted({d for d in candidates if d.hex.startswith(prefix)})
    if not found:
        raise ResolutionError(f"no {what} with digest prefix {prefix}")
    if len(found) > 1:
        listed = ", ".join(str(d) for d in found)
        raise ResolutionError(
            f"digest prefix {prefix} is ambiguous: {listed}; type more digits"
        )
    return found[0]
