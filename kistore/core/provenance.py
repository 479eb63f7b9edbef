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

What counts as a claim (checked in this order; one finding names them all): a value that
*names* KernelBench, in any of the places a run says where its data came from:

* the object's ``spec.sourceNative.source``;
* the metadata's ``kernelindex.dev/source`` annotation;
* the importers' other reserved provenance annotations: ``kernelindex.dev/upstream``
  (KernelBench's is ``github.com/ScalingIntelligence/KernelBench``),
  ``kernelindex.dev/source-file`` (its files are in a ``kernelbench`` folder) and
  ``kernelindex.dev/source-url``.

A value names KernelBench (:func:`names_kernelbench`) when :func:`spelled` (NFKC, case
folded, accents split off, every character but ``[a-z0-9]`` dropped) *contains*
``kernelbench``:
``KernelBench``, `` kernelbench``, ``kernel-bench``, fullwidth ``ｋｅｒｎｅｌｂｅｎｃｈ``, and
also ``kernelbench-v2``, ``kernelbenchmark`` or ``my-kernelbench`` (a reader takes each for
KernelBench's data, or a version of it: reviewer r87, whose ``kernelbench-v2`` and
``kernelbenchmark`` runs ranked #1 when only the exact spelling claimed). Every place is
read the same way, and annotation keys are spelled the same way (``Kernelindex.dev/Source``).
Not claims: a run's name (a run of one's own on a KernelBench problem may say so),
``sourceNative.benchmark``, the ``kernelindex.dev/license`` annotation alone, other
annotations, a source id without those letters in that order (``sol-execbench``,
``flashinfer-trace``, ``kernel-b3nch``) and look-alike letters of another script standing
for one of its letters (``kernelbеnch`` with a Cyrillic ``е`` reads ``kernelbnch``: UTS #39's
confusables table would be needed, as for KI104; the object's ``source`` is ASCII by its
schema, so only a metadata claim can use them). The metadata is not in the digest: a
catalogued object is proven whatever its metadata says.
"""

from __future__ import annotations

import functools
from typing import Any, NamedTuple

from .canonical import escape_pointer
from .errors import one_line, shorten
from .folding import ascii_alnum
from .package_data import read_package_data

KERNELBENCH = "kernelbench"
"""KernelBench's source id (``sourceNative.source`` of what its importer makes)."""

KERNELBENCH_REPOSITORY = "github.com/ScalingIntelligence/KernelBench"
"""KernelBench's upstream repository (its ``SOURCE.md``)."""

CATALOGUE_FILE = "kernelbench_runs.txt"
"""The catalogue of run digests, package data of ``kistore.core`` (beside this module)."""

ANNOTATION = "kernelindex.dev/"
"""The prefix of the annotations kistore's importers write (``kernelindex.dev/source``)."""

_PLACES = ("source", "upstream", "source-file", "source-url")
"""The importers' provenance annotations (after :data:`ANNOTATION`) that can claim a source."""


@functools.lru_cache(maxsize=4096)
def spelled(text: str) -> str:
    """Return ``text`` as a reader takes it: NFKC, case folded, ``[a-z0-9]`` only.

    The NFKC form (fullwidth ``ｋ``, mathematical ``𝐤`` and circled ``ⓚ`` read ``k``) is case
    folded, its accents are split off (NFKD: ``é`` reads ``e``), and every character but
    ASCII letters and digits is dropped: separators, marks, and letters of other scripts, so
    a Cyrillic letter put between ``kernel`` and ``bench`` does not hide them.

    :func:`kistore.core.folding.ascii_alnum`, the wide one of the two folding policies
    (the other, :func:`kistore.core.products.product_key`'s, keeps every character but
    folds whitespace runs; why they differ: :mod:`kistore.core.folding`).

    Cached: a store's runs repeat a few annotation keys and source ids, and the uncached
    form cost ~3 us a string (measured), ~100 us a run outside the catalogue.

    Args:
        text: any string (``' KernelBench'``).

    Returns:
        The ASCII letters and digits of that form (``'kernelbench'``).
    """
    return ascii_alnum(text)


_KEYS = frozenset(spelled(ANNOTATION + k) for k in _PLACES)


def names_kernelbench(value: str) -> bool:
    """Whether ``value`` names KernelBench: its :func:`spelled` form contains ``kernelbench``.

    Args:
        value: a source id, an annotation's value (``'kernelbench-v2'``, a path, a URL).

    Returns:
        True for ``'KernelBench'``, ``'kernel_bench'``, ``'kernelbenchmark'``,
        ``'github.com/ScalingIntelligence/KernelBench'``; False for ``'sol-execbench'``.
    """
    return KERNELBENCH in spelled(value)


def is_provenance_key(key: str) -> bool:
    """Whether an annotation key is one of kistore's own (``kernelindex.dev/license``, KI432).

    Read as :func:`spelled` reads it, so ``Kernelindex.dev/License`` and
    ``kernelindex.dev / source`` are too: a reader takes them for the importer's.

    Args:
        key: a ``metadata.annotations`` key.

    Returns:
        True when its letters and digits begin ``kernelindexdev``.
    """
    return spelled(key).startswith(_PREFIX)


_PREFIX = spelled(ANNOTATION)

ABSENT: Any = object()
"""An annotation a metadata object does not hold (never equal to any value it holds)."""


def provenance_changes(old: Any, new: Any) -> list[tuple[str, Any, Any]]:
    """Return the ``kernelindex.dev/*`` annotations (KI432) metadata ``new`` changes in ``old``.

    Args:
        old: a landed manifest's metadata object (anything but a dict holds none).
        new: the metadata replacing it.

    Returns:
        ``(key, old value, new value)`` per annotation changed, added or removed (a key
        :func:`is_provenance_key` accepts), in key order; :data:`ABSENT` for a missing side.
    """
    before, after = _provenance(old), _provenance(new)
    return [(key, before.get(key, ABSENT), after.get(key, ABSENT))
            for key in sorted(set(before) | set(after))
            if before.get(key, ABSENT) != after.get(key, ABSENT)]


def quoted_annotation(value: Any) -> str:
    """Return an annotation value as a message quotes it (escaped, cut), or ``(absent)``.

    Args:
        value: a value of :func:`provenance_changes` (:data:`ABSENT` for none).

    Returns:
        ``'CC0-1.0'`` for a string (controls and bidirectional marks escaped, as ``show``
        escapes them), its text for another JSON value, ``(absent)`` for :data:`ABSENT`.
    """
    if value is ABSENT:
        return "(absent)"
    return shorten(one_line(repr(value) if isinstance(value, str) else str(value)))


def _provenance(doc: Any) -> dict[str, Any]:
    """Return the ``kernelindex.dev/*`` annotations of a metadata object (key -> value)."""
    held = doc.get("annotations") if isinstance(doc, dict) else None
    if not isinstance(held, dict):
        return {}
    return {k: v for k, v in held.items() if is_provenance_key(k)}



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
    if isinstance(source, str) and names_kernelbench(source):
        found.append(Claim(False, "/spec/sourceNative/source", source))
    annotations = metadata.get("annotations") if isinstance(metadata, dict) else None
    if isinstance(annotations, dict):
        claimed = [key for key, value in annotations.items()
                   if spelled(key) in _KEYS and isinstance(value, str)
                   and names_kernelbench(value)]
        found += [Claim(True, "/annotations/" + escape_pointer(key), annotations[key])
                  for key in sorted(claimed)]
    return found


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
        "you measured yourself names no source, or its own without `kernelbench` in any "
        "spelling")
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
