"""``verify``'s fix of KI102-KI104 on a metadata file: the one repair that works.

The rules give a broken metadata file both repairs, each with when it works
(:data:`._rules.METADATA_FIX`): ``git checkout HEAD -- PATH`` when HEAD holds it as
kistore wrote it, else ``kistore add --update-metadata FILE``. ``verify`` knows which
holds (cat97 left: it offered both where one restores nothing, while ``show`` and ``cat``
said the one): a file of the work tree whose HEAD version is other bytes that parse gets
the checkout; one HEAD holds so, or holds none, and one read from a commit, the rewrite.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from ..core import layout
from ..core.digest import Digest
from ..core.findings import Finding
from ._rules import METADATA_FIX, METADATA_RESTORE, METADATA_REWRITE

if TYPE_CHECKING:  # pragma: no cover - typing only
    from ..store import Store


def metadata_fixes(store: Store, at: str | None, findings: list[Finding]) -> list[Finding]:
    """Give each KI102-KI104 finding on a metadata file the one repair that works.

    Args:
        store: the store verified.
        at: the revision verified; None: the work tree (only there can a checkout of HEAD
            repair a file).
        findings: ``verify``'s contents findings.

    Returns:
        ``findings`` in their order, each with :data:`._rules.METADATA_FIX` given
        :data:`._rules.METADATA_RESTORE` or :data:`._rules.METADATA_REWRITE`. Two reads
        (the work tree's file, HEAD's) per such file: an error path's. Raises nothing but
        what reading the work tree raises.
    """
    if not any(f.fix == METADATA_FIX for f in findings):
        return findings
    view = store.view(None) if at is None and store.root is not None else None
    known: dict[Digest, str] = {}
    told = []
    for f in findings:
        digest = layout.digest_from_path(f.file or "") if f.fix == METADATA_FIX else None
        if digest is not None:
            if digest not in known:
                known[digest] = METADATA_RESTORE if view is not None and \
                    view.metadata_restorable(digest) else METADATA_REWRITE
            f = replace(f, fix=known[digest])
        told.append(f)
    return told
