"""A names file copied or renamed by hand (``NAME.bak``): one cause, one advice (r93b G9).

``cp store/names/KIND/XX/NAME store/names/KIND/XX/NAME.bak`` was said as KI110's generic
"move or remove it"; ``mv`` to such a name also gave KI211 on the manifest's metadata
("run `kistore migrate`") and, at the gate, KI208 on the names file the commit deleted,
each with its own fix. As for an object file (:func:`kistore.check.audit._renamed`), the
file is told what it is: a copy of names file X (``rm`` it), or names file X renamed
(``mv`` it back); :func:`kistore.check.audit.one_cause` then leaves out what a rename
explains.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

from ..core import layout
from ..core.errors import KistoreError
from ..core.findings import Finding
from ..core.model import metadata_name

if TYPE_CHECKING:  # pragma: no cover - typing only
    from ..store import Files

NAMES_FILE = "names_file"
"""``extra`` key: the names file whose bytes a misplaced file under ``store/names/`` holds."""


def told_names_file(snap: Files, finding: Finding) -> Finding:
    """Return a KI110 finding of a file under ``store/names/`` told what it is.

    Args:
        snap: where the files are read (one file, its digest's metadata, one names file).
        finding: a KI110 finding (a file off the layout).

    Returns:
        ``finding`` as it is unless its file lies under ``store/names/KIND/`` and holds a
        names record (:func:`kistore.core.layout.digest_from_record`) of a stored
        manifest whose names file for ``KIND`` (:func:`kistore.core.layout.name_path` of
        its metadata's name) holds the same bytes (a copy: ``extra["copy"]``, ``rm`` it)
        or is missing (renamed by hand: ``mv`` it back); ``extra["names_file"]`` that
        names file, ``extra["holds"]`` the digest.
    """
    file = finding.file or ""
    parts = file.split("/")
    if not file.startswith(layout.NAMES_DIR + "/") or len(parts) < 4 \
            or parts[-1].startswith("."):  # .NAME.PID.N.tmp: a killed add's, KI110 says so
        return finding
    try:
        data = snap.read(file)
        holds = layout.digest_from_record(data) if data is not None else None
        name = metadata_name(snap.read(layout.metadata_path(holds))) if holds else None
        if holds is None or name is None:
            return finding
        own = layout.name_path(parts[2], name)
        if own == file:
            return finding
        there = snap.read(own)
    except (KistoreError, ValueError):  # unreadable, past the limit: KI110 as it is
        return finding
    extra: dict[str, Any] = {**finding.extra, NAMES_FILE: own, "holds": str(holds)}
    if there == data:
        extra["copy"] = True
        return dataclasses.replace(
            finding, extra=extra,
            message=f"not a path of the store layout; a copy of names file {own} (the same "
            f"bytes: {parts[2]}/{name} is {holds})",
            fix=f"a copy of a names file: remove it with `rm {file}` (from the top of the "
            "clone; the gate says to take it out of the commit bringing it); nothing else is "
            "to be written or removed for it")
    if there is not None:
        return finding  # its names file holds other bytes: KI208/KI211 say so there
    return dataclasses.replace(
        finding, extra=extra,
        message=f"not a path of the store layout; names file {own} renamed by hand: it holds "
        f"{parts[2]}/{name} ({holds}), whose names file is missing",
        fix=f"a names file renamed by hand: rename it back with `mv {file} {own}` (from the "
        "top of the clone); nothing else is to be written or removed for it")
