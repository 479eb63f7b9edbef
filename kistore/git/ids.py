"""Git object ids of blobs, computed from their bytes (``git hash-object``), no git needed.

Apart from :mod:`.pack` (which re-exports :func:`blob_id`): a read that only needs a
blob's id (the run page's citation, the work-tree comparison) loads neither the pack
writer nor ``struct`` (docs/speed.md, "Start-up, third pass").
"""

from __future__ import annotations

import hashlib


def blob_id(data: bytes) -> bytes:
    """Return the git object id (20 raw bytes, SHA-1) of a blob holding ``data``."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).digest()
