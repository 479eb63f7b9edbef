"""What an import records for files outside their source's folder, and the warnings saying so.

A file's path inside the folder holding its source's ``SOURCE.md`` is its provenance name
(:func:`~.common.data_name`). Each importer states which ``kernelindex.dev/*`` annotations
that path decides (``FOLDER_DECIDES``: the paths, and for SOL-ExecBench the upstream and a
problem folder's licence); the rest it knows otherwise (KernelBench by a file's bytes, the
licence and upstream of a source that has one). Nothing is read from a ``SOURCE.md``: its
folder is only where paths start.

So a file in no such folder, or under a ``SOURCE.md`` naming none of the source's
repositories, may record paths (and upstreams) that are not the source's. The warnings
here state what the manifests built from those files actually record, read from the
manifests themselves (:class:`Recorded`), and what the folder would have decided; no
warning where the folder decides nothing (KernelBench imports identically anywhere).
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from ..core.model import Manifest
from .common import ANNOTATION, UNSTATED_LICENSE

PATH_KEYS = ("source-file", "definition-file", "cases-file")
"""The annotations that hold a path inside the source's folder (``FOLDER_DECIDES``)."""


@dataclass
class Recorded:
    """The provenance the manifests built from one group of files record.

    A group is the files in no folder holding a ``SOURCE.md`` (``source_md`` None), or
    those under one ``SOURCE.md`` naming none of the source's repositories (``source_md``
    that file; one group per such file). Only manifests with a
    ``kernelindex.dev/source-file`` count: those built from exactly one file (the others
    carry no per-file provenance).

    Attributes:
        source_md: None, or the foreign ``SOURCE.md``.
        files: the files the manifests came from, as typed, in order of first record
            (a dict used as an ordered set).
        path: the first recorded ``source-file`` value.
        path_keys: the annotations of :data:`PATH_KEYS` the manifests record.
        manifests: how many manifests were counted.
        upstreams: ``kernelindex.dev/upstream`` value (None: absent) -> manifests.
        unstated: manifests whose licence is :data:`~.common.UNSTATED_LICENSE`.
    """

    source_md: Path | None
    files: dict[str, None] = field(default_factory=dict)
    path: str = ""
    path_keys: set[str] = field(default_factory=set)
    manifests: int = 0
    upstreams: Counter[str | None] = field(default_factory=Counter)
    unstated: int = 0

    def add(self, typed: str, built: list[Manifest]) -> None:
        """Count the manifests one record built (``typed``: its file as the person typed it)."""
        for m in built:
            annotations = json.loads(m.metadata_bytes).get("annotations") or {}
            path = annotations.get(ANNOTATION + "source-file")
            if path is None:
                continue
            self.files.setdefault(typed)
            self.path = self.path or path
            self.path_keys.update(k for k in PATH_KEYS if ANNOTATION + k in annotations)
            self.manifests += 1
            self.upstreams[annotations.get(ANNOTATION + "upstream")] += 1
            self.unstated += annotations.get(ANNOTATION + "license") == UNSTATED_LICENSE


def warning(source: str, recorded: Recorded, decides: frozenset[str],
            repositories: frozenset[str]) -> str | None:
    """Say what the manifests of a group of files record, and what their folder decided.

    Args:
        source: the source id.
        recorded: what the group's manifests record.
        decides: the annotations a file's path inside its source's folder decides
            (the importer's ``FOLDER_DECIDES``).
        repositories: the source's repositories (``SOURCE_REPOSITORIES[source]``).

    Returns:
        One line without ``warning:``; None when the folder decides nothing (the manifests
        are the same wherever the files are) or the group built no manifest.
    """
    if not decides or not recorded.manifests:
        return None
    n, example = len(recorded.files), next(iter(recorded.files))
    if recorded.source_md is None:
        head = f"{n} file(s) are in no folder holding a SOURCE.md (e.g. {example})"
    else:
        head = (f"{n} file(s) are under {_naming(recorded.source_md, repositories)} "
                f"({recorded.source_md}; e.g. {example}), perhaps not {source}'s folder")
    paths = " and ".join(k for k in PATH_KEYS if k in recorded.path_keys & decides)
    if recorded.source_md is None:
        where = (f"the path as typed as kernelindex.dev/{paths} (e.g. {recorded.path}), not "
                 f"the path inside {source}'s folder")
        advice = (f"import from {source}'s folder, with its SOURCE.md, to record the paths "
                  "inside it")
    else:
        where = (f"the path inside that SOURCE.md's folder as kernelindex.dev/{paths} (e.g. "
                 f"{recorded.path}), {source}'s own path only if that folder is a copy of "
                 f"{source}'s")
        advice = f"if that folder is not a copy of {source}'s, import from {source}'s own"
    upstream = _upstreams(recorded)
    if "upstream" in decides:
        unstated = (f", and the licence {UNSTATED_LICENSE!r} on {recorded.unstated} of "
                    f"{recorded.manifests}" if recorded.unstated else "")
        known = (f"{upstream}{unstated}: kistore knows {source}'s upstreams"
                 + (" and some licences" if "license" in decides else "")
                 + " by the path inside its folder")
        advice += " and the upstreams they give" if recorded.source_md is None else ""
    else:
        known = f"{upstream} and the licence, as for every {source} file wherever it is"
    return f"{head}: their manifests record {where}; {known}; {advice}"


def _naming(source_md: Path, repositories: frozenset[str]) -> str:
    """Say which SOURCE.md: ``an empty SOURCE.md``, or one naming none of ``repositories``."""
    try:
        empty = not source_md.read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        empty = False
    if empty:
        return "an empty SOURCE.md"
    names = sorted(repositories)
    return (f"a SOURCE.md not naming {names[0]}" if len(names) == 1
            else f"a SOURCE.md naming none of {', '.join(names)}")


def _upstreams(recorded: Recorded) -> str:
    """``kernelindex.dev/upstream REPO@COMMIT``, or how many manifests record one and none."""
    total, missing = recorded.manifests, recorded.upstreams[None]
    named = sorted(u for u in recorded.upstreams if u is not None)
    if not named:
        return "no kernelindex.dev/upstream"
    if not missing and len(named) == 1:
        return f"kernelindex.dev/upstream {named[0]}"
    which = named[0] if len(named) == 1 else f"{len(named)} distinct, e.g. {named[0]}"
    said = (f"kernelindex.dev/upstream on {total - missing} of {total}" if missing
            else f"kernelindex.dev/upstream on all {total}") + f" ({which})"
    return said + (f", none on {missing}" if missing else "")
