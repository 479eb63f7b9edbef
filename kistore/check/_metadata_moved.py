"""A metadata file renamed, or its name edited, by hand: one cause, one advice (last96).

Two hand edits of a committed manifest's metadata were told as something else, with fixes
that made things worse:

* the metadata's ``name`` edited in the work tree (item 2): KI211 on the metadata ("run
  `kistore migrate`", which wrote a second names file for a committed object, and the
  gate then refused KI208) and KI212 on its committed names file ("remove a names file no
  manifest owns"). Both get the fix that works, restoring the name HEAD holds:
  :func:`name_edit_fixes`;
* the metadata file renamed (``mv META META.bak``, item 5): KI110 "move or remove it",
  KI204 on the object and KI212 on its names file, whose fix would delete a committed
  names file. The ``.bak`` is told what it is, with the ``mv`` back
  (:func:`told_metadata_file`), and :func:`metadata_moved` leaves out what the rename
  explains.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import TYPE_CHECKING

from ..core import layout
from ..core.digest import Digest
from ..core.errors import KistoreError
from ..core.findings import Finding
from ..core.model import metadata_name

if TYPE_CHECKING:  # pragma: no cover - typing only
    from ..store import Files, Store

METADATA_FILE = "metadata_file"
"""``extra`` key: the metadata file a misplaced file under ``store/metadata/`` is."""

_RENAMED = re.compile(r"(store/metadata/sha256/[0-9a-f]{2}/[0-9a-f]{62}\.json)(?:[.~_-].*)")
"""A metadata path with a suffix (``.bak``, ``~``, ``.orig``): the file it was."""


def told_metadata_file(snap: Files, finding: Finding) -> Finding:
    """Return a KI110 finding of a file under ``store/metadata/`` told what it is.

    Args:
        snap: where the files are read (the file's own metadata path, its object path).
        finding: a KI110 finding (a file off the layout).

    Returns:
        ``finding`` as it is unless its path is a metadata path with a suffix
        (``META.json.bak``) whose own metadata file is missing while its object is there:
        then a metadata file renamed by hand, fixed by the ``mv`` back
        (``extra["metadata_file"]`` the path, ``extra["owner"]`` the digest).
    """
    found = _RENAMED.fullmatch(finding.file or "")
    if found is None or finding.file is None or finding.file.rpartition("/")[2].startswith("."):
        return finding  # .NAME.PID.N.tmp: a killed add's, KI110 says so
    own = found[1]
    digest = layout.digest_from_path(own)
    try:
        if digest is None or snap.read(own) is not None or \
                snap.read(layout.object_path(digest)) is None:
            return finding
    except (KistoreError, ValueError):  # unreadable, past the limit: KI110 as it is
        return finding
    return replace(
        finding, extra={**finding.extra, METADATA_FILE: own, "owner": str(digest)},
        message=f"not a path of the store layout; metadata file {own} of {digest} renamed "
        "by hand: the object is there, its metadata file missing",
        fix=f"a metadata file renamed by hand: rename it back with `mv {finding.file} {own}` "
        "(from the top of the clone; committed: `git mv` and commit); nothing else is to be "
        "written or removed for it")


def metadata_moved(findings: list[Finding]) -> list[Finding]:
    """Leave out what a metadata file renamed by hand explains (:func:`told_metadata_file`).

    Its object without metadata (KI204) and its names file claiming a name for a digest
    with no metadata file (KI212, "remove a names file": a committed one, KI208 at the
    gate). Returns ``findings`` in their order. Raises nothing.
    """
    moved = {f.extra["owner"] for f in findings if METADATA_FILE in f.extra}
    if not moved:
        return findings
    objects = {layout.object_path(Digest.from_str(d)) for d in moved}
    return [f for f in findings
            if not (f.rule.id == "KI204" and f.file in objects)
            and not (f.rule.id == "KI212" and f.extra.get("owner") in moved)]


def name_edit_fixes(store: Store, at: str | None, findings: list[Finding]) -> list[Finding]:
    """Give KI211 and KI212 of a committed manifest whose name was edited the restore.

    A name never moves (KI208): when ``HEAD`` holds the object and its metadata names it
    otherwise than the work tree's metadata does, the work tree's edit is the cause; KI211's
    ``kistore migrate`` wrote a second names file for it and KI212's "remove a names file"
    deleted the committed one (last96 item 2). Both then say to restore the name.

    Args:
        store: the store verified.
        at: the revision verified; None: the work tree (only then is an edit uncommitted).
        findings: ``verify``'s contents findings.

    Returns:
        ``findings`` in their order, such KI211 (on the metadata file) and KI212 (on the
        committed names file, naming the manifest as its owner) with the fix
        ``git checkout HEAD -- METADATA``. One HEAD read per such finding (rare).
    """
    if at is not None or store.root is None or not any(
            f.rule.id in ("KI211", "KI212") for f in findings):
        return findings
    head = store.head_or_none()
    if head is None:
        return findings
    told = []
    for f in findings:
        path = None
        if f.rule.id == "KI211" and f.extra.get("names_path") and f.found == "no such file":
            path = f.file
        elif f.rule.id == "KI212" and f.extra.get("owner"):
            path = layout.metadata_path(Digest.from_str(f.extra["owner"]))
        digest = layout.digest_from_path(path) if path else None
        if digest is not None and path is not None:
            committed = metadata_name(head.read(path))
            now = metadata_name(store.view(None).read(path))
            if committed is not None and now is not None and committed != now and \
                    head.read(layout.object_path(digest)) is not None:
                f = replace(f, fix=(
                    f"{digest} is committed as {committed!r} and the work tree's metadata "
                    f"names it {now!r}: a name never moves (KI208), so restore it "
                    f"(`git checkout HEAD -- {path}`, or set metadata.name back to "
                    f"{committed!r}); `kistore migrate` writes no names file for the new "
                    "name, and the committed names file stays"))
        told.append(f)
    return told
