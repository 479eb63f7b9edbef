"""Rows of the ``runs``, ``manifests`` and ``attestations`` tables, as staged lists.

Pure: values in (the verified object and metadata documents, what the run's group says,
where the object was first added), a list in :mod:`.columns` order out. Every value taken
from a manifest is taken from the bytes read at the exported commit, never from a cache.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from typing import Any

from ..core.digest import Digest
from ..core.git_names import name_key
from ..core.numbers import is_number
from ..core.pathnames import component, hashed_on
from ..core.times import commit_text
from ..query.outliers import implausible_latency
from .columns import ATTESTATIONS, HIVE_NULL, MANIFESTS, RUNS, Table

Found = tuple[str | None, str | None, str | None, str | None, str | None]
"""Where an object was first added and where it landed on the first-parent line:
``(firstCommit, addedAt RFC 3339, permalink, landingCommit, publishedAt RFC 3339)``."""


def run_row(digest: str, document: dict[str, Any], metadata: dict[str, Any],
            derived: dict[str, Any], found: Found) -> list[Any]:
    """Return the staged ``runs`` row of one run.

    Args:
        digest: the run's digest string.
        document: its object document (``{apiVersion, kind, spec}``), as parsed from the
            verified bytes.
        metadata: its metadata document.
        derived: what its comparison group says (:func:`kistore.export.derive.derive_group`
            values, or ``{}`` when the index knows no group for it).
        found: where the object was first added.
    """
    spec = document.get("spec", {})
    timing = spec.get("timing") or {}
    native = spec.get("sourceNative") or {}
    metrics = native.get("metrics")
    metrics = metrics if isinstance(metrics, dict) else {}
    values = {
        **{name: None for name in RUNS.names},
        **derived,
        "digest": digest, "name": metadata.get("name"), "title": metadata.get("title"),
        "status": spec.get("status"), "observedAt": spec.get("observedAt"),
        "primaryStatistic": timing.get("primaryStatistic"),
        "latencyNs": dict(sorted((timing.get("latencyNs") or {}).items())),
        "trials": timing.get("trials"),
        "evidenceLevel": derived.get("evidenceLevel", "source-native"),
        "withdrawn": derived.get("withdrawn", False),
        "communityAttestations": derived.get("communityAttestations", 0),
        "workloadDigest": spec.get("workloadDigest"),
        "protocolDigest": spec.get("protocolDigest"),
        "environmentDigest": spec.get("environmentDigest"),
        "implementationDigest": spec.get("implementationDigest"),
        "source": _text(native.get("source")), "externalId": _text(native.get("externalId")),
        "sourceNative": {k: v for k, v in sorted(metrics.items()) if is_number(v)},
        "implausibleLatency": low["said"] if (low := implausible_latency(spec)) else None,
        **_where(found), "generation": 0,
    }
    return [values[name] for name in RUNS.names]


def manifest_row(digest: str, document: dict[str, Any], data: bytes, meta: bytes,
                 metadata: dict[str, Any], found: Found) -> list[Any]:
    """Return the staged ``manifests`` row of one manifest (any kind).

    Args:
        digest: its digest string.
        document: its object document, parsed from ``data``.
        data: the object file's bytes (verified: their SHA-256 is ``digest``).
        meta: the metadata file's bytes.
        metadata: the metadata document, parsed from ``meta``.
        found: where the object was first added.
    """
    values = {"digest": digest, "kind": document.get("kind"),
              "apiVersion": document.get("apiVersion"), "name": metadata.get("name"),
              "title": metadata.get("title"), "object": data.decode("utf-8"),
              "metadata": meta.decode("utf-8"), **_where(found), "generation": 0}
    return [values[name] for name in MANIFESTS.names]


def _where(found: Found) -> dict[str, str | None]:
    """Return the columns of :data:`Found` by name."""
    return dict(zip(("firstCommit", "addedAt", "permalink", "landingCommit", "publishedAt"),
                    found, strict=True))


def attestation_row(subject: str, seen: Any, judgement: Any) -> list[Any]:
    """Return the staged ``attestations`` row of one attestation as judged.

    Args:
        subject: the attested manifest's digest string.
        seen: the :class:`kistore.attest.notes.Seen` (its bytes identify the bundle).
        judgement: its :class:`kistore.attest.evidence.Judgement`.
    """
    data = judgement.to_json()
    values = {**data, "subject": subject, "bundleDigest": str(Digest.of(seen.data)),
              "generation": 0}
    return [values.get(name) for name in ATTESTATIONS.names]


def partition(table: Table, row: list[Any]) -> str:
    """Return the Hive-style partition directory of a staged row (``""`` for none).

    ``source=kernelbench/hardware=NVIDIA H100 PCIe``: each value escaped as Hive and Spark
    escape partition values (:func:`escape_partition`), a null as :data:`HIVE_NULL`, and a
    value whose escaped form is longer than 128 bytes in its short form
    (:func:`partition_value`).
    """
    parts = []
    for column in table.partition:
        value = row[table.index(column)]
        parts.append(f"{column}={HIVE_NULL if value is None else partition_value(str(value))}")
    return "/".join(parts)


SHORT_MARK = "%7E"
"""What separates a shortened partition value's beginning from its hash: ``~`` escaped,
which :func:`escape_partition` never writes (``~`` is not escaped), so no value written
whole looks like a short form; readers unescape it to ``~``."""


@functools.lru_cache(maxsize=4096)
def partition_value(value: str) -> str:
    """Return a partition value as its directory name, in the short form when it is long.

    ``escape_partition(value)`` when that is at most 128 bytes (UTF-8); else the escaped
    beginning of the value (at most 64 bytes), ``%7E`` and 16 hex digits of the SHA-256 of
    the whole value (:func:`kistore.core.pathnames.component`), so that any value the
    schemas admit fits one directory name (255 bytes). Readers see the short form (with
    ``~``) as the column's value: Hive readers take a partition column from the path.

    A value equal to :data:`HIVE_NULL` (a GPU product spelled ``__HIVE_DEFAULT_PARTITION__``)
    is written in the short form too, ``__HIVE_DEFAULT_PARTITION__%7E8ec3cd044a1b2ac4``:
    written whole it is the null partition (review r78 F12), and no escape of it reads
    back whole everywhere: DuckDB and Spark compare the raw directory name with Hive's,
    but pyarrow (pandas) decodes ``%5F`` first and reads null.
    """
    return windows_end(component(value, escape_partition, SHORT_MARK,
                                 always=value == HIVE_NULL))


_WINDOWS_ENDS = {".": "%2E", " ": "%20"}
"""A directory name's last character Windows drops, and its escape (reviewer r82 F5)."""


def windows_end(name: str) -> str:
    """Return a directory name with a final ``.`` or space escaped (``%2E``, ``%20``).

    Win32 drops trailing dots and spaces of a path component, so ``hardware=NVIDIA B200.``
    *is* ``hardware=NVIDIA B200`` on Windows: two partitions shared one directory and one
    ``part-00000.parquet`` replaced the other (reviewer r82 F5). Only the last character
    is escaped (the name then ends in a hex digit); readers unescape it, so the value reads
    back exactly. (A reserved device name, ``CON``, cannot be a partition directory: each
    begins ``COLUMN=``.)

    Args:
        name: a partition value as written (:func:`escape_partition` or a short form).

    Returns:
        The name, its last character escaped when it is ``.`` or a space.
    """
    if name and name[-1] in _WINDOWS_ENDS:
        return name[:-1] + _WINDOWS_ENDS[name[-1]]
    return name


def partition_names(values: Iterable[str], whole: Iterable[str] = ()) -> dict[str, str]:
    """Return the values of one partition column written under a case-distinct name.

    Two values whose directory names (:func:`partition_value`) are one name on a
    case-insensitive file system (:func:`kistore.core.git_names.name_key`: case folding and
    Unicode normalisation, as APFS and NTFS compare; ``NVIDIA B200`` and ``nvidia b200``)
    would share a directory there: one partition's file overwrote the other's (review r80
    F6). Of each such class one value keeps its name: the one ``whole`` names (an earlier
    generation of the export wrote it so), else the first in code-point order. Each other
    value is written with every ASCII letter escaped too (``%6E%76%69%64%69%61 %62200``),
    which DuckDB, pyarrow, Spark and Trino unescape: they read the value back exactly. A
    value whose letters are all alike in both cases there (``Ä`` beside ``ä``), or whose
    escaped name is longer than 128 bytes, gets the short form instead (beginning, ``%7E``,
    16 hex of the SHA-256 of the value), which readers read with ``~`` and the hash.
    Deterministic: the same values (and ``whole``) give the same names.

    Args:
        values: the distinct non-null values of the column in the export.
        whole: directory names (as :func:`partition_value` writes them) that an earlier
            generation of the export wrote, so that ``--since`` keeps each value's
            directory.

    Returns:
        ``{value: directory name}`` for the values not written under
        :func:`partition_value`; no two directory names of the column (these and the
        others) share a :func:`~kistore.core.git_names.name_key`.
    """
    written = set(whole)
    classes: dict[str, list[str]] = {}
    for value in sorted(set(values)):
        classes.setdefault(name_key(partition_value(value)), []).append(value)
    taken = set(classes)
    names: dict[str, str] = {}
    for _, members in sorted(classes.items()):
        kept = next((v for v in members if partition_value(v) in written), members[0])
        for value in members:
            if value == kept:
                continue
            name = windows_end(component(value, _escape_letters, SHORT_MARK,
                                         always=value == HIVE_NULL))
            if name_key(name) in taken:
                name = component(value, _escape_letters, SHORT_MARK, always=True)
            while name_key(name) in taken:  # 16 hex digits alike: hash the name on
                name = hashed_on(name, SHORT_MARK)
            taken.add(name_key(name))
            names[value] = name
    return names


def _escape_letters(value: str) -> str:
    """Return :func:`escape_partition` of ``value`` with every ASCII letter escaped too."""
    return "".join(f"%{ord(c):02X}" if c in _ESCAPED or (c.isascii() and c.isalpha())
                   else c for c in value)


_ESCAPED = set('"#%\'*/:=?\\\x7f{[]^<>|') | {chr(c) for c in range(0x20)}
"""Characters Hive (``FileUtils.escapePathName``) and Spark escape in partition values, and
``<``, ``>``, ``|``, which Windows refuses in a name (Hive escapes them on Windows; since
2026-12-03, reviewer r82 F5)."""


@functools.lru_cache(maxsize=4096)
def escape_partition(value: str) -> str:
    """Return a partition value as a directory name: ``%XX`` for each escaped character.

    The characters Hive and Spark escape (path separators, ``=``, ``%``, controls, ...) and
    those Windows refuses (:data:`_ESCAPED`), so DuckDB, Spark and Trino read the value back
    unchanged (a final ``.`` or space: :func:`windows_end`); an empty value is
    :data:`HIVE_NULL` as in Hive (the sources and GPU products are never empty).
    """
    if value == "":
        return HIVE_NULL
    return "".join(f"%{ord(c):02X}" if c in _ESCAPED else c for c in value)


commit_time = functools.lru_cache(maxsize=4096)(commit_text)
"""A commit time (seconds since the epoch) as RFC 3339 UTC, ``...T...Z``
(:func:`kistore.core.times.commit_text`: a time past year 9999 reads as
9999-12-31T23:59:59Z), kept for the commits an export meets again."""


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None
