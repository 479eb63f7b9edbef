"""A committed metadata file as a measure: the last version of it that parses.

A name never moves (KI208) and a landed manifest's ``kernelindex.dev/*`` annotations stay
(KI432): each is judged by comparing a metadata file with an earlier version of it. A
version that does not parse (truncated, empty, ``{``), holds no string ``name``, or is
gone (the file deleted) is no measure: a commit between that broke or deleted the file
let the next one write another name and licence with every check green, each rule
skipping the side it could not read (last96 1b). The measure is then the last version of
that path, along the first-parent history, that is one.

Used by ``add --update-metadata`` (:func:`kistore.store.admission.plan_add`), by ``verify``'s
history walk and by the gate (:mod:`kistore.check.lineage`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

from ..core.canonical_fast import loads_lenient
from ..core.errors import InputError
from ..git.blobs import read_blob
from ..git.pathlog import first_parent_versions

if TYPE_CHECKING:  # pragma: no cover - typing only
    import pygit2


class Landed(NamedTuple):
    """One committed version of a metadata file that is a measure.

    Attributes:
        commit: the commit that wrote that version (40 hex digits).
        data: its bytes.
        doc: the object they hold (a string ``name`` in it).
    """

    commit: str
    data: bytes
    doc: dict[str, Any]


def measure(data: bytes | None) -> dict[str, Any] | None:
    """Return the metadata object ``data`` holds when it is a measure of name and provenance.

    Args:
        data: a metadata file's bytes, or None (no file).

    Returns:
        The object (parsed leniently: :func:`kistore.core.canonical_fast.loads_lenient`, a
        duplicate key's last value) when it holds a string ``name``; None otherwise (no
        file, not JSON, not an object, no string name: the contents check's KI102/KI104).
        Raises nothing.
    """
    if data is None:
        return None
    try:
        doc = loads_lenient(data)
    except (ValueError, UnicodeDecodeError):
        return None
    return doc if isinstance(doc, dict) and isinstance(doc.get("name"), str) else None


def last_measure(repo: pygit2.Repository, rev: str, path: str) -> Landed | None:
    """Return the newest version of ``path`` along ``rev``'s first-parent history that parses.

    ``rev``'s own version counts. Versions that do not parse, and deletions, are passed
    over: git's path-limited log (:func:`kistore.git.pathlog.first_parent_versions`), one
    blob read per version until one is a measure (:func:`measure`). For the rare file a
    commit broke or deleted: never asked of every file.

    Args:
        repo: the ``pygit2.Repository``.
        rev: a commit id (40 hex digits) or revision git understands.
        path: the metadata file's repository path.

    Returns:
        That version, or None when none ever parsed (or ``rev`` names no commit).

    Raises:
        ObjectUnreadable: a commit, tree or blob of the way is damaged (KI117's words).
    """
    try:
        versions = first_parent_versions(repo, rev, path)
    except InputError:
        return None
    for commit, blob in versions:
        if blob is None:
            continue
        data = read_blob(repo, blob, path)
        doc = measure(data)
        if doc is not None:
            return Landed(commit, data, doc)
    return None
