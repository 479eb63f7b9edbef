"""A value of any length as one path component: the short form export and the site share.

Pure (no I/O). A file name holds at most 255 bytes (``NAME_MAX`` on Linux and macOS), but
the schemas cap neither ``sourceNative.source`` nor ``hardware.product`` (only the 65,536
character limit of every string). Where such a value names a directory -- an export's Hive
partition ``runs/source=VALUE/``, the site's ``sources/VALUE/`` page -- a value longer than
:data:`LIMIT` bytes is written in a short form instead: its first characters, a mark that
no written value contains, and 16 hex digits of the SHA-256 of the whole value. Short
forms are deterministic (two exports or builds write the same names) and two values never
share one (the mark keeps a short form apart from every value written whole; two long
values share one only if the first 64 bits of their SHA-256 digests are equal).
"""

from __future__ import annotations

from collections.abc import Callable

from . import hashes

LIMIT = 128
"""The most bytes (UTF-8) of a value written whole; a longer one is shortened."""

KEEP = 64
"""The most bytes of the value's beginning a short form keeps (whole characters)."""

HASH_HEX = 16
"""Hex digits of the whole value's SHA-256 that end a short form (64 bits)."""


def hashed_on(name: str, mark: str = "~") -> str:
    """Return ``name`` with ``mark`` and the first :data:`HASH_HEX` hex digits of its SHA-256.

    The step a writer takes again and again until a name is free (a metric key or a
    partition value whose written name another already has): ``LATENCY_MS`` ->
    ``LATENCY_MS~ce467cc873d21bd0``. Deterministic; UTF-8 with lone surrogates kept.

    Args:
        name: the name so far.
        mark: what separates it from the hash (``~``, or ``%7E`` in a partition directory).

    Returns:
        ``name + mark + H``, ``H`` the first :data:`HASH_HEX` hex digits of the SHA-256 of
        ``name`` as UTF-8 (``surrogatepass``).
    """
    return f"{name}{mark}{_hash_hex(name)}"


def _hash_hex(value: str) -> str:
    """Return the first :data:`HASH_HEX` hex digits of the SHA-256 of ``value`` as UTF-8."""
    return hashes.sha256(value.encode("utf-8", "surrogatepass")).hexdigest()[:HASH_HEX]


def component(value: str, written: Callable[[str], str] = str, mark: str = "~", *,
              always: bool = False) -> str:
    """Return how a value is written as one path component, shortened when it is long.

    Args:
        value: the value (any string).
        written: how a value is written in the name (e.g. escaped as Hive escapes partition
            values); it must map each character on its own (``written(a + b) ==
            written(a) + written(b)``) and never produce ``mark``.
        mark: what separates a short form's beginning from its hash; the caller picks one
            that ``written`` never produces, so that no value written whole looks like a
            short form.
        always: write the short form whatever the length (a value that a reader would
            take, written whole, for something else: Hive's null partition name).

    Returns:
        ``written(value)`` when that is at most :data:`LIMIT` bytes of UTF-8 (and not
        ``always``); else the short
        form ``written(P) + mark + H``: ``P`` the longest beginning of ``value`` whose
        written form has at most :data:`KEEP` bytes, ``H`` the first :data:`HASH_HEX` hex
        digits of the SHA-256 of ``value`` as UTF-8 (surrogates as ``surrogatepass``
        writes them). E.g. ``"s" * 300`` is ``"s" * 64 + "~" + "2955c7328c57ca39"``.
    """
    whole = written(value)
    if not always and len(whole.encode("utf-8", "surrogatepass")) <= LIMIT:
        return whole
    kept, size = [], 0
    for char in value:
        part = written(char)
        size += len(part.encode("utf-8", "surrogatepass"))
        if size > KEEP:
            break
        kept.append(part)
    return "".join(kept) + mark + _hash_hex(value)
