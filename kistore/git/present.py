"""Whether a repository holds an object, read from its files alone (no libgit2).

A loose object file (``objects/xx/yyyy...``), or an entry of a pack index
(``objects/pack/*.idx``, gitformat-pack(5) "Version 2 pack-*.idx files"), in the
repository's object directory or an alternate it borrows from (as
:func:`kistore.git.blobs.with_alternates` follows them). A few ``open`` and ``read``
calls: an answer kept from an earlier command (``cite``'s first commit) is checked with
it before it is given again, without importing pygit2 (~0.2 s).
"""

from __future__ import annotations

import os
import struct
from pathlib import Path

from .blobs import with_alternates
from .refs import common_git_dir

_IDX_V2 = b"\377tOc\0\0\0\2"
"""The first 8 bytes of a version 2 pack index: its magic number, then version 2."""

_FANOUT = 256 * 4
"""Bytes of a version 2 index's fan-out table (256 big-endian 4-byte counts)."""


def holds(git_dir: Path, oid: str) -> bool:
    """Return whether the repository at ``git_dir`` holds object ``oid`` (loose or packed).

    Args:
        git_dir: the git directory (a linked worktree's: its ``commondir`` is followed).
        oid: the object's id: 40 hex digits (64 in a SHA-256 repository).

    Returns:
        True when a loose file of ``oid`` or a pack index listing it is found in the object
        directory or an alternate; False otherwise, and when this cannot say (an index of
        version 1, or cut short): a caller believes a kept answer only on True, and asks
        again on False. The object's bytes are not read: a damaged one is "held" (libgit2
        says it is damaged when it is read).
    """
    raw = bytes.fromhex(oid)
    for objects in with_alternates(str(common_git_dir(git_dir) / "objects")):
        if os.path.isfile(os.path.join(objects, oid[:2], oid[2:])):
            return True
        try:
            names = os.listdir(os.path.join(objects, "pack"))
        except OSError:
            continue
        for name in names:
            if name.endswith(".idx") and _index_lists(os.path.join(objects, "pack", name), raw):
                return True
    return False


def _index_lists(idx: str, raw: bytes) -> bool:
    """Whether the pack index file ``idx`` lists the object of id ``raw`` (20 or 32 bytes).

    A binary search of the sorted ids between the fan-out counts of ``raw``'s first byte
    and the one before. An index that cannot be read, or of another version, says False
    (see :func:`holds`).
    """
    try:
        with open(idx, "rb") as f:
            head = f.read(len(_IDX_V2) + _FANOUT)
            if len(head) < len(_IDX_V2) + _FANOUT or head[:len(_IDX_V2)] != _IDX_V2:
                return False
            fanout = struct.unpack(">256I", head[len(_IDX_V2):])
            low = fanout[raw[0] - 1] if raw[0] else 0
            high = fanout[raw[0]]
            while low < high:
                middle = (low + high) // 2
                f.seek(len(head) + len(raw) * middle)
                found = f.read(len(raw))
                if found == raw:
                    return True
                if len(found) < len(raw):
                    return False
                if found < raw:
                    low = middle + 1
                else:
                    high = middle
    except OSError:
        return False
    return False
