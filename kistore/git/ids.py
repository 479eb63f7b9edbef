"""Git object ids of blobs and trees, computed from their bytes (``git hash-object``).

Apart from :mod:`.pack` (which re-exports these): a read that only needs an object's id
(the run page's citation, the work-tree comparison, a tree read by
:mod:`.treediff`) loads neither the pack writer nor ``struct`` and ``zlib``
(docs/speed.md, "Start-up, third pass" and "fourth pass").
"""

from __future__ import annotations

from ..core import hashes


def blob_id(data: bytes) -> bytes:
    """Return the git object id (20 raw bytes, SHA-1) of a blob holding ``data``."""
    return hashes.sha1(b"blob %d\0" % len(data) + data).digest()


TREE = 2
"""Pack object type of a tree (gitformat-pack(5))."""
BLOB = 3
"""Pack object type of a blob."""
_KIND_NAMES = {TREE: b"tree", BLOB: b"blob"}


def object_id(kind: int, data: bytes) -> bytes:
    """Return the git object id (20 raw bytes, SHA-1) of a :data:`BLOB` or :data:`TREE`.

    Raises:
        KeyError: another kind.
    """
    return hashes.sha1(b"%s %d\0" % (_KIND_NAMES[kind], len(data)) + data).digest()
