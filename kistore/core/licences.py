"""The licences a run's page states: its own, and those of the manifests it names.

kistore's importers record each manifest's licence, as the data's ``SOURCE.md`` states it,
in the ``kernelindex.dev/license`` annotation of its metadata (``UNCLEAR: NVIDIA
leaderboard API responses; ... Internal testing only; do not republish``). The metadata is
not hashed: a run copied into a new one (``kistore cat --manifest``, edited, added) keeps
its ``implementationDigest`` and ``workloadDigest`` and can drop the annotation, and the
site published such a copy with no caution, though the Implementation it names and shows
is the data's (reviewer fresh95 F2's side note, fixk95). So a run's licences are its own
and those of its Implementation and Workload, each said with the manifest stating it: a
run cannot drop a caution its references carry, nor hide it under a licence of its own.

Only the Implementation and the Workload pass theirs on: the page shows their code and
definition; a protocol or environment describes how and where a run measured, and a run
of one's own on an imported board is one's own.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from .provenance import ANNOTATION

LICENSE_ANNOTATION = ANNOTATION + "license"
"""The metadata annotation an importer records a manifest's licence in."""

INHERITED = (("implementationDigest", "Implementation"), ("workloadDigest", "Workload"))
"""The references of a run whose licence the run's page states too, with their kinds."""

UNCLEAR = "UNCLEAR"
"""How a licence the data's rights are not known for starts (``SOURCE.md``'s word)."""

UNCLEAR_FLAG = "(!) rights unclear"
"""The caution before an unclear licence, on the run page (its badge) and in ``show``."""

UPSTREAM_ANNOTATION = ANNOTATION + "upstream"
"""The annotation an importer records the upstream copy in (``repo@commit``)."""

OBSERVED_BASIS_ANNOTATION = ANNOTATION + "observed-at-basis"
"""The annotation saying what a run's ``observedAt`` is when it is not a measurement time."""


class Licence(NamedTuple):
    """One licence a run's page states, and which manifest states it.

    Attributes:
        text: the licence as recorded (``MIT``, ``UNCLEAR: ...``).
        kind: the kind of the manifest stating it (``BenchmarkRun`` for the run's own).
        name: that manifest's ``metadata.name``.
        digest: its digest (``sha256:...``).
        own: True when the run states it itself.
    """

    text: str
    kind: str
    name: str
    digest: str
    own: bool

    @property
    def unclear(self) -> bool:
        """Return True when the rights to the data are not known (``UNCLEAR: ...``).

        In any case and after leading white space (``Unclear: ...``, `` UNCLEAR``): the
        importers write ``UNCLEAR``, a contributor may write it otherwise, and the caution
        is for what the word says, not its spelling (break97 L9).
        """
        return self.text.lstrip().casefold().startswith(UNCLEAR.casefold())

    def said(self) -> str:
        """Return the licence as the run page's Licence line says it, in plain text.

        ``(!) rights unclear UNCLEAR: ... (stated by this run)``; an inherited one says
        ``(stated by its Implementation NAME, which this run names)`` (the words of the
        site's ``licence`` macro, so ``show`` and the page agree: fresh00c M1).
        """
        flag = f"{UNCLEAR_FLAG} " if self.unclear else ""
        who = ("stated by this run" if self.own
               else f"stated by its {self.kind} {self.name}, which this run names")
        return f"{flag}{self.text} ({who})"

    def to_json(self) -> dict[str, Any]:
        """Return ``{license, kind, name, digest, own, unclear}``."""
        return {"license": self.text, "kind": self.kind, "name": self.name,
                "digest": self.digest, "own": self.own, "unclear": self.unclear}


def licence_of(metadata: Mapping[str, Any] | None) -> str | None:
    """Return the licence a manifest's metadata records, or None when it records none.

    Args:
        metadata: a manifest's ``metadata`` object (None: no metadata read).

    Returns:
        The ``kernelindex.dev/license`` annotation when it is a non-empty string.
    """
    return annotation_of(metadata, LICENSE_ANNOTATION)


def annotation_of(metadata: Mapping[str, Any] | None, key: str) -> str | None:
    """Return the annotation ``key`` of a manifest's metadata, or None when it has none.

    Args:
        metadata: a manifest's ``metadata`` object (None: no metadata read).
        key: the full annotation key (:data:`UPSTREAM_ANNOTATION` ...).

    Returns:
        Its value when it is a non-empty string, else None (a contributor's metadata may
        hold anything there).
    """
    annotations = (metadata or {}).get("annotations")
    text = annotations.get(key) if isinstance(annotations, Mapping) else None
    return text if isinstance(text, str) and text.strip() else None


def run_licences(run: Any, related: Mapping[str, Any]) -> list[Licence]:
    """Return the licences a run's page states: the run's own, then what it names passes on.

    Args:
        run: the run's :class:`kistore.core.model.Manifest`.
        related: reference field (``implementationDigest``) -> the referenced
            :class:`~kistore.core.model.Manifest`, or None when it is not in the store.

    Returns:
        The run's own licence (``own``), then the Implementation's and the Workload's
        (:data:`INHERITED`) each unless an earlier one has the same text; empty when none
        records one.
    """
    found = []
    own = licence_of(run.metadata)
    if own is not None:
        found.append(Licence(own, run.kind, run.name, str(run.digest), True))
    for field, kind in INHERITED:
        manifest = related.get(field)
        if manifest is None:  # not in the store: nothing of it is shown
            continue
        text = licence_of(manifest.metadata)
        if text is not None and all(text != said.text for said in found):
            found.append(Licence(text, kind, manifest.name, str(manifest.digest), False))
    return found
