"""Which BenchmarkRuns may claim KernelBench as their source: rule KI226 (docs/rules.md).

Pure (no git, no store). KernelBench's importer (:mod:`kistore.importers.kernelbench`)
imports only upstream timing files it knows by their SHA-256, so the BenchmarkRuns it can
ever make are a finite, known set. Their digests ship with kistore as reviewed data
(:data:`CATALOGUE_FILE`, one ``sha256:<hex>`` a line, sorted), and that list is the trust
root for the claim: a run that claims KernelBench (:func:`kernelbench_claims`) and whose
digest is not in it was not made by ``kistore import kernelbench`` from an upstream file,
whatever its name and annotations say (review r85 F20: a hand-written 0.5 ms "KernelBench"
run passed every gate and ranked #1).

The catalogue is append-only across kistore versions: a digest an earlier release's
importer made stays, so runs already stored keep passing. ``make catalogue`` regenerates it
(:mod:`kistore.importers.catalogue`, which keeps every line already there).

What counts as a claim (checked in this order; one finding names them all):

* the object's ``spec.sourceNative.source`` spelled as ``kernelbench``;
* the metadata's ``kernelindex.dev/source`` annotation spelled as ``kernelbench``;
* its ``kernelindex.dev/upstream`` annotation naming KernelBench's repository
  (``github.com/ScalingIntelligence/KernelBench``), or ``kernelindex.dev/source-file``
  a path in a ``kernelbench`` folder (the importer's two other reserved annotations).

"Spelled as" is :func:`spelled`: NFKC, case folded, every character that is not a letter or
digit dropped, so ``KernelBench``, `` kernelbench``, ``kernel-bench`` and fullwidth
``ｋｅｒｎｅｌｂｅｎｃｈ`` all claim it (a reader takes each for KernelBench); annotation keys
are spelled the same way (``Kernelindex.dev/Source``). Not claims: a run's name (a run of
one's own on a KernelBench problem may say so), ``sourceNative.benchmark``, the
``kernelindex.dev/license`` annotation alone, other source ids (``kernelbench-mine``) and
look-alike letters of another script (``kernelbеnch`` with a Cyrillic ``е``: UTS #39's
confusables table would be needed, as for KI104). The metadata is not in the digest: a
catalogued object is proven whatever its metadata says.
"""

from __future__ import annotations

import functools
import unicodedata
from typing import Any, NamedTuple

from .canonical import escape_pointer
from .errors import shorten
from .package_data import read_package_data

KERNELBENCH = "kernelbench"
"""KernelBench's source id (``sourceNative.source`` of what its importer makes)."""

KERNELBENCH_REPOSITORY = "github.com/ScalingIntelligence/KernelBench"
"""KernelBench's upstream repository (its ``SOURCE.md``)."""

CATALOGUE_FILE = "kernelbench_runs.txt"
"""The catalogue of run digests, package data of ``kistore.core`` (beside this module)."""

ANNOTATION = "kernelindex.dev/"
"""The prefix of the annotations kistore's importers write (``kernelindex.dev/source``)."""

_SOURCE, _UPSTREAM, _SOURCE_FILE = "source", "upstream", "source-file"


@functools.lru_cache(maxsize=4096)
def spelled(text: str) -> str:
    """Return ``text`` as a reader takes it: NFKC, case folded, letters and digits only.

    Cached: a store's runs repeat a few annotation keys and source ids, and the uncached
    form cost ~3 us a string (measured), ~100 us a run outside the catalogue.

    Args:
        text: any string (``' KernelBench'``).

    Returns:
        The letters and digits (:meth:`str.isalnum`) of its NFKC form, case folded
        (``'kernelbench'``).
    """
    folded = unicodedata.normalize("NFKC", text).casefold()
    return "".join(c for c in folded if c.isalnum())


_KEYS = {spelled(ANNOTATION + k): k for k in (_SOURCE, _UPSTREAM, _SOURCE_FILE)}
_REPOSITORY = spelled(KERNELBENCH_REPOSITORY.partition("/")[2])  # scalingintelligencekernelbench


class Claim(NamedTuple):
    """One place a BenchmarkRun says it is KernelBench's data.

    Attributes:
        in_metadata: False for the object file, True for the metadata file.
        pointer: JSON Pointer in that file (``/spec/sourceNative/source``,
            ``/annotations/kernelindex.dev~1source``).
        value: the string found there.
    """

    in_metadata: bool
    pointer: str
    value: str


class UnprovenClaim(NamedTuple):
    """A run claiming KernelBench that its importer does not make (KI226).

    Attributes:
        rule: ``KI226``.
        in_metadata: whether the first claim (where the finding is placed) is in the
            metadata file.
        pointer: JSON Pointer of the first claim, in its file.
        message: one sentence for people: what the run claims and why it is not proven.
        short: a few words for ``rank``'s reason column.
    """

    rule: str
    in_metadata: bool
    pointer: str
    message: str
    short: str


def kernelbench_claims(spec: Any, metadata: Any) -> list[Claim]:
    """Return where a BenchmarkRun claims to be KernelBench's data.

    Args:
        spec: the run's ``spec`` (anything: a wrong type is the schema's to report).
        metadata: its parsed metadata, or None when not read (only the object's claim
            is looked for then, as ``rank``, which reads no metadata, does).

    Returns:
        The claims: the object's first, then the annotations in key order.
    """
    found = []
    native = spec.get("sourceNative") if isinstance(spec, dict) else None
    source = native.get("source") if isinstance(native, dict) else None
    if isinstance(source, str) and spelled(source) == KERNELBENCH:
        found.append(Claim(False, "/spec/sourceNative/source", source))
    annotations = metadata.get("annotations") if isinstance(metadata, dict) else None
    if isinstance(annotations, dict):
        claimed = [key for key, value in annotations.items()
                   if (which := _KEYS.get(spelled(key))) is not None
                   and isinstance(value, str) and _claims(which, value)]
        found += [Claim(True, "/annotations/" + escape_pointer(key), annotations[key])
                  for key in sorted(claimed)]
    return found


def _claims(which: str, value: str) -> bool:
    """Whether an importer annotation's ``value`` claims KernelBench (see the module doc)."""
    if which == _SOURCE:
        return spelled(value) == KERNELBENCH
    if which == _UPSTREAM:
        return _REPOSITORY in spelled(value)
    first = value.strip().lstrip("/").split("/", 1)  # source-file: its first folder
    return len(first) == 2 and spelled(first[0]) == KERNELBENCH


def unproven_claim(digest_hex: str | None, spec: Any, metadata: Any) -> UnprovenClaim | None:
    """Return KI226 for a run that claims KernelBench but is not in the catalogue.

    Args:
        digest_hex: the 64 hex digits of the run's digest (None: not known, as for an
            object outside the layout; then no claim is proven).
        spec: the run's ``spec``.
        metadata: its parsed metadata, or None (the object's claim only).

    Returns:
        None when the run claims nothing or is in :func:`catalogue`; otherwise the finding,
        placed at its first claim.
    """
    if digest_hex is not None and digest_hex in catalogue():
        return None
    claims = kernelbench_claims(spec, metadata)
    if not claims:
        return None
    said = ", ".join(
        f"{'metadata' if c.in_metadata else 'object'} {c.pointer} "
        f"{shorten(repr(c.value), 160, length=len(c.value))}" for c in claims)
    digest = f"sha256:{digest_hex}" if digest_hex else "its digest"
    message = (
        f"the run claims to be KernelBench's data ({said}), but kistore's KernelBench "
        f"importer does not make this run ({digest}) from any upstream file it knows "
        f"(kistore/core/{CATALOGUE_FILE} lists the {len(catalogue())} it makes): a run "
        "you measured yourself names no source, or its own")
    return UnprovenClaim("KI226", claims[0].in_metadata, claims[0].pointer, message,
                         "claims kernelbench, not an import")


@functools.cache
def catalogue() -> frozenset[str]:
    """Return the hex digests of every run kistore's KernelBench importer makes (or made).

    Read once from :data:`CATALOGUE_FILE` (``sha256:<hex>`` a line).

    Returns:
        The 64 hex digits of each catalogued run.

    Raises:
        OSError: the package data is missing (a broken install).
    """
    return frozenset(line.removeprefix("sha256:") for line in _catalogue_text().split())


def _catalogue_text() -> str:
    return read_package_data("kistore.core", CATALOGUE_FILE).decode("ascii")
