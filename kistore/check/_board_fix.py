"""``verify``'s fix for a KI238 an uncommitted metadata edit made (reviewer fresh96 F8).

``verify`` warns of KI238 on a stored run (history may hold one added before the rule)
and its fix is a trusted maintainer's withdrawal: objects are never edited nor removed.
But when the run's metadata file in the work tree differs from ``HEAD``'s, and ``HEAD``'s
metadata states no such disagreement, the work tree's edit is the cause (``add
--update-metadata`` of a title, or a hand edit): the fix is to restore the file
(``git checkout HEAD -- PATH``), as the pre-commit hook says, not to withdraw an honest run.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ..core import layout
from ..core.boards import BOARD_DISAGREES
from ..core.findings import Finding
from ..store.boards_metadata import metadata_disagreement

if TYPE_CHECKING:  # pragma: no cover - typing only
    from ..store import Store


def uncommitted_board_fixes(store: Store, at: str | None, findings: list[Finding]
                            ) -> list[Finding]:
    """Give each KI238 an uncommitted metadata edit made the fix ``git checkout HEAD -- PATH``.

    Args:
        store: the store verified.
        at: the revision verified; None: the work tree (only then is a file uncommitted).
        findings: ``verify``'s findings.

    Returns:
        ``findings`` in their order; a KI238 on a run whose work-tree metadata file holds
        other bytes than ``HEAD``'s, where ``HEAD``'s states no disagreement this one does
        (:func:`kistore.store.boards_metadata.metadata_disagreement`), with that fix and
        the message of a metadata change (the run ranks where it did: its title misstates
        it, as the gate says).
        Two reads of the metadata file, one of the object, per KI238 finding (rare).
    """
    if at is not None or store.root is None or not any(
            f.rule.id == BOARD_DISAGREES.id for f in findings):
        return findings
    head = store.head_or_none()
    view = store.view(None)
    told = []
    for f in findings:
        digest = layout.digest_from_path(f.file) if f.rule.id == BOARD_DISAGREES.id and \
            f.file else None
        path = None if digest is None else layout.metadata_path(digest)
        now = None if path is None else view.read(path)
        committed = None if path is None or head is None else head.read(path)
        if digest is not None and now is not None and committed is not None and \
                now != committed:
            spec = _spec(view.read(layout.object_path(digest)))
            metadata = _parsed(now)
            said = metadata_disagreement(view, digest, spec, metadata.get("name") if isinstance(
                metadata, dict) else None, metadata, _parsed(committed))
            if said is not None:
                f = replace(f, message=said[0], fix=(
                    f"restore {said[1]} as committed (`git checkout HEAD -- {path}`): the "
                    "work tree's metadata of this run, not committed, says it; the run "
                    "itself is as it was added, nothing to withdraw"))
        told.append(f)
    return told


def _parsed(data: bytes | None) -> Any:
    """Return JSON bytes parsed; None when absent or not JSON."""
    try:
        return None if data is None else json.loads(data)
    except (ValueError, UnicodeDecodeError):
        return None


def _spec(data: bytes | None) -> Any:
    """Return an object file's ``spec`` (None when it has none)."""
    doc = _parsed(data)
    return doc.get("spec") if isinstance(doc, dict) else None
