"""KI432 of the work tree: a committed metadata file's ``kernelindex.dev/*`` annotation edited.

The gate judges commits (KI432 refuses a change of a landed manifest's provenance) and
``verify`` warns of one in the history; ``add`` refuses to write one. But an edit by hand
of a committed metadata file, not committed, was answered by every query of the work tree
(``show``, ``rank``, ``compare``) with no word: a licence caution ``UNCLEAR ... do not
republish`` edited to ``CC0-1.0`` read as the source's own. This module compares such a
file with ``HEAD``'s, annotation by annotation; the callers say it (``verify``: a KI432
warning, :func:`kistore.check._provenance_here.worktree_provenance`; the queries: one
stderr line a change, :func:`kistore.cli._renamed_here.warn_provenance_edited`).

Only files the caller already knows differ from ``HEAD`` are read (two reads a file: the
work tree's and ``HEAD``'s blob): the queries know them from the stat check of the files
they answer from, ``verify`` from the blob ids of the files it read.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, NamedTuple

from ..core.errors import one_line
from ..core.provenance import ABSENT, provenance_changes, quoted_annotation

if TYPE_CHECKING:  # pragma: no cover - typing only
    from ._store import Store

__all__ = ["ProvenanceEdit", "edit_said", "provenance_edits"]


class ProvenanceEdit(NamedTuple):
    """One ``kernelindex.dev/*`` annotation the work tree holds otherwise than ``HEAD``.

    Attributes:
        path: the metadata file's repository path (``store/metadata/sha256/XX/...json``).
        annotation: the annotation's key (``kernelindex.dev/license``).
        committed: ``HEAD``'s value (:data:`kistore.core.provenance.ABSENT`: none).
        now: the work tree's value (:data:`~kistore.core.provenance.ABSENT`: none).
    """

    path: str
    annotation: str
    committed: Any
    now: Any

    @property
    def verb(self) -> str:
        """Return ``adds``, ``removes`` or ``changes``: what the work tree does to it."""
        return "adds" if self.committed is ABSENT else "removes" if self.now is ABSENT \
            else "changes"


def provenance_edits(store: Store, paths: Iterable[str]) -> list[ProvenanceEdit]:
    """Return the ``kernelindex.dev/*`` annotations the work tree's metadata files change.

    Args:
        store: a store with a work tree (a bare one: nothing is compared).
        paths: metadata file paths known (or suspected) to differ from ``HEAD``'s.

    Returns:
        One :class:`ProvenanceEdit` per annotation changed, added or removed
        (:func:`kistore.core.provenance.provenance_changes`), by path then key. A file
        ``HEAD`` lacks (not committed: it may still be corrected), or that does not parse
        as a JSON object on either side (``verify``'s KI102-KI104 say so), is skipped.
        Two reads a path. Raises what reading the files raises
        (:class:`kistore.core.errors.ObjectUnreadable` for a damaged blob of ``HEAD``).
    """
    wanted = sorted(set(paths))
    if not wanted or store.root is None:
        return []
    head = store.head_or_none()
    if head is None:
        return []
    view = store.view(None)
    found = []
    for path in wanted:
        committed = _parsed(head.read(path))
        now = _parsed(view.read(path)) if committed is not None else None
        if committed is None or now is None:
            continue
        found += [ProvenanceEdit(path, key, was, is_) for key, was, is_ in
                  provenance_changes(committed, now)]
    return found


def edit_said(edit: ProvenanceEdit) -> str:
    """Return what the work tree does to the annotation, for a message (one line).

    Args:
        edit: one annotation the work tree holds otherwise than ``HEAD``
            (:func:`provenance_edits`).

    Returns:
        One line (controls and bidirectional marks escaped: :func:`kistore.core.errors.
        one_line`), e.g. ``the work tree changes the provenance annotation
        'kernelindex.dev/license' ('UNCLEAR: ...' in HEAD, 'CC0-1.0' in the work tree, not
        committed)``. Raises nothing.
    """
    return one_line(
        f"the work tree {edit.verb} the provenance annotation {edit.annotation!r} "
        f"({quoted_annotation(edit.committed)} in HEAD, {quoted_annotation(edit.now)} in the "
        "work tree, not committed)")


def _parsed(data: bytes | None) -> dict[str, Any] | None:
    """Return a metadata file's bytes parsed, or None when absent or not a JSON object."""
    if data is None:
        return None
    try:
        doc = json.loads(data)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return None
    return doc if isinstance(doc, dict) else None
