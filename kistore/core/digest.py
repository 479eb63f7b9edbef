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


_HEX = "0123456789abcdef"


def one_slip_away(written: str) -> set[str]:
    """Return the 64-hex-digit digests one slip away from ``written`` (``sha256:`` left off).

    A digit changed (64 digits: 960), one too many (65: each left out), one missing (63:
    each of 16 put in at each of 64 places), a character that is no hex digit where one was
    (only that place is tried), and two adjacent digits swapped (64 digits: 63; the
    commonest typo, one edit as Damerau counts edits: reviewer r92 F4). Nothing for other
    lengths, or two such characters. Pure: the caller looks each up (at most 1,023).

    Args:
        written: what a reference holds after ``sha256:``, lower case.
    """
    odd = [i for i, c in enumerate(written) if c not in _HEX]
    if len(odd) > 1 or not 63 <= len(written) <= 65:
        return set()
    places = odd or range(len(written) + (len(written) == 63))
    if len(written) == 65:
        near = {written[:i] + written[i + 1:] for i in places}
    elif len(written) == 63:
        near = {written[:i] + c + written[i:] for i in places for c in _HEX}
    else:
        near = {written[:i] + c + written[i + 1:] for i in places for c in _HEX}
        if not odd:
            near |= {written[:i] + written[i + 1] + written[i] + written[i + 2:]
                     for i in range(63)}
    return {h for h in near if h != written and all(c in _HEX for c in h)}


def two_digits_off(written: str, candidates: Iterable[str]) -> list[str]:
    """Return the candidates that are ``written`` with exactly two of its 64 hex digits changed.

    For a "did you mean" past one slip (reviewer r92 F4: ``...6477348c65`` for
    ``...6477384c65`` two digits apart, a 62-digit prefix right): the caller passes what it
    can list cheaply (the stored digests of ``written``'s first two digits' shard), and
    offers a match only when it is the one.

    Args:
        written: what a reference holds after ``sha256:``, lower case.
        candidates: 64-hex-digit digests (others are passed over).

    Returns:
        The candidates two digits off, in the order given; none when ``written`` is not 64
        hex digits.
    """
    if len(written) != 64 or not set(written) <= set(_HEX):
        return []
    return [c for c in candidates
            if len(c) == 64 and sum(a != b for a, b in zip(c, written, strict=True)) == 2]


def slip_said(written: str, meant: str) -> str:
    """Return how far a reference written is from the digest it likely means, in words.

    Args:
        written: what the reference holds after ``sha256:``, lower case.
        meant: the stored digest's 64 hex digits (:func:`one_slip_away` or
            :func:`two_digits_off` found it).

    Returns:
        What follows "is": ``"the same with two adjacent digits swapped"`` when it is
        ``written`` with two neighbours swapped, ``"two digits away"`` for two changed,
        else ``"one digit away"``.
    """
    if len(written) == len(meant):
        off = [i for i, (a, b) in enumerate(zip(written, meant, strict=True)) if a != b]
        if len(off) == 2 and off[1] == off[0] + 1 and written[off[0]] == meant[off[1]] \
                and written[off[1]] == meant[off[0]]:
            return "the same with two adjacent digits swapped"
        if len(off) == 2:
            return "two digits away"
    return "one digit away"
