"""``verify``'s KI410 of the work tree: a committed attestation file the work tree lost.

No commit may delete or rewrite a committed attestation file (KI410: the gate refuses it,
at every commit). The work tree can still lack one (``mv``, ``rm -r`` of its folder), or
hold a FIFO, a symbolic link, a directory or other bytes in its place; every query of the
work tree judges it as ``HEAD`` holds it then, and warns
(:mod:`kistore.attest.committed_here`, fresh14 F15). ``verify`` of the work tree reports
each such file as an **error**, as KI402 is for an object deleted there, with the fix
``git checkout HEAD -- PATH``.

Cost: ``HEAD``'s listing of ``store/attestations/`` (a tree read a shard and folder) and a
read and SHA-1 of each committed file in the work tree (``verify`` reads them all for the
KI3xx checks anyway); ``HEAD``'s blob is never read.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from ..attest.committed_here import CHANGED, MISSING, differing
from ..core import layout
from ..core.findings import Finding
from ..git.pack import blob_id
from .lineage import APPEND_ONLY_REMOVED

if TYPE_CHECKING:  # pragma: no cover - typing only
    from ..store import Store

ATTESTATION_REWRITTEN = replace(APPEND_ONLY_REMOVED, name="attestation-file-rewritten")
"""KI410 of an attestation file whose bytes the work tree changed (as a commit rewriting
it is named)."""

_SHA256 = f"{layout.ATTESTATIONS_DIR}/sha256"


def worktree_attestations_kept(store: Store) -> list[Finding]:
    """KI410 (an error) per committed attestation file the work tree lacks or holds otherwise.

    Args:
        store: the store verified (its work tree; a bare one or one without commits:
            nothing). In a sparse checkout, a file outside it reads as git's index holds it.

    Returns:
        One finding per file ``HEAD`` holds that the work tree lacks (it, or its folder),
        holds as a FIFO, a symbolic link or a directory, or holds with other bytes; on the
        file, ``expected`` ``HEAD``'s blob, ``found`` what the work tree holds (``no file``,
        ``a FIFO``, ..., or the blob of its bytes), ``extra`` ``worktree`` True and
        ``held``; sorted by file.

    Raises:
        ObjectUnreadable: a tree of ``HEAD`` it reads is damaged.
    """
    head = store.head_or_none() if store.root is not None else None
    if head is None:
        return []
    folders = [f"{_SHA256}/{shard}/{rest}" for shard in sorted(head.list_dir(_SHA256))
               for rest in sorted(head.list_dir(f"{_SHA256}/{shard}"))]
    here = store.view(None)
    held = {}
    for folder in folders:
        for name in head.list_dir(folder):
            path = f"{folder}/{name}"
            data = here.read_within(path)  # past the limit: unread (KI106 says it)
            if data is not None:
                held[path] = data
    found = []
    for taken in differing(store, head, folders, held):
        committed = head.blob_ids([taken.path])[0]
        now = held.get(taken.path)
        if taken.held == CHANGED and now is not None:
            said, shown = "changed in the work tree", f"blob {blob_id(now).hex()}"
        elif taken.held == MISSING:
            said, shown = "missing from the work tree", "no file"
        else:
            said, shown = f"{taken.held} in the work tree", taken.held
        found.append(Finding(
            ATTESTATION_REWRITTEN if taken.held == CHANGED else APPEND_ONLY_REMOVED,
            f"committed in HEAD, {said}: an attestation file, once committed, is never "
            "removed or changed (the gate refuses such a commit); every query of the work "
            "tree judges it as HEAD holds it, and warns",
            file=taken.path, expected=f"blob {committed}", found=shown,
            extra={"worktree": True, "held": taken.held},
            fix=f"restore it (`git checkout HEAD -- {taken.path}`)"))
    return sorted(found, key=lambda f: f.file or "")
