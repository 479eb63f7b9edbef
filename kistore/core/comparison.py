"""The comparison key: which runs may be ranked against each other (docs/design.md §6).

Two runs are comparable only within one workload, one GPU product and one evaluation stack.
The key is the digest of the RFC 8785 canonical bytes of the *key object*::

    {"family":           protocol spec.comparability.family,
     "hardwareProduct":  environment spec.hardware.product,
     "primaryStatistic": protocol spec.measurement.primaryStatistic,
     "protocolDigest":   run spec.protocolDigest,
     "workloadDigest":   run spec.workloadDigest}

A protocol may narrow or widen the key with ``spec.comparability.keyFields``: then only the
listed fields go into the object (e.g. leaving out ``protocolDigest`` makes every version of
a protocol family comparable). Environment software (driver, CUDA, libraries) is never part
of the key: the same GPU product with other software is comparable.

Pure: no I/O. The caller supplies the run spec and the specs of its referenced protocol and
environment (None when they are not in the store).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import lru_cache
from typing import Any

from . import hashes, layout
from .canonical_fast import loads_lenient
from .digest import Digest, is_digest

KEY_FIELDS = ("family", "hardwareProduct", "primaryStatistic", "protocolDigest",
              "workloadDigest")
"""Every field the key object may hold (the default set), in canonical order."""

REFERENCE_KINDS: Mapping[str, str] = {"protocolDigest": "BenchmarkProtocol",
                                      "environmentDigest": "ExecutionEnvironment"}
"""The reference fields of a run whose manifest's spec the key reads, and that manifest's kind."""
KEYED_REFERENCES = ("workloadDigest", "protocolDigest", "environmentDigest")
"""The reference fields a run's key object depends on (:func:`key_object`): runs that agree
in them share one key object."""


def key_fields(protocol: dict[str, Any] | None) -> tuple[str, ...]:
    """Return the key fields a protocol uses: its ``comparability.keyFields`` or all.

    Args:
        protocol: the protocol's ``spec``, or None when the protocol is not in the store.
    """
    if protocol is None:
        return KEY_FIELDS
    listed = protocol.get("comparability", {}).get("keyFields")
    return tuple(f for f in KEY_FIELDS if f in listed) if listed is not None else KEY_FIELDS


def key_object(run: dict[str, Any], protocol: dict[str, Any] | None,
               environment: dict[str, Any] | None) -> dict[str, str] | None:
    """Return the key object of a run, or None when a field it needs is unknown.

    Args:
        run: the BenchmarkRun ``spec``.
        protocol: the spec of the protocol ``run["protocolDigest"]`` names, or None.
        environment: the spec of the environment ``run["environmentDigest"]`` names, or None.

    Returns:
        ``{field: value}`` for each field of :func:`key_fields`; None when a needed manifest
        is missing from the store (a dangling run is in no comparison group).
    """
    if protocol is None:
        return None  # keyFields and family live in the protocol: nothing is known without it
    values: dict[str, str | None] = {
        "family": protocol.get("comparability", {}).get("family"),
        "hardwareProduct": (environment or {}).get("hardware", {}).get("product"),
        "primaryStatistic": protocol.get("measurement", {}).get("primaryStatistic"),
        "protocolDigest": run.get("protocolDigest"),
        "workloadDigest": run.get("workloadDigest"),
    }
    chosen = {f: values[f] for f in key_fields(protocol)}
    if any(v is None for v in chosen.values()):
        return None
    return {f: str(v) for f, v in chosen.items()}


def stored_spec(data: bytes | None, digest_hex: str, kind: str) -> dict[str, Any] | None:
    """Return the ``spec`` of a stored object file when it is the object of a digest and kind.

    What a run's comparison group is computed from (:func:`run_key_object`), alike for
    every writer of group files (``add``, ``migrate``) and for ``verify`` and the gate: a
    protocol or environment counts only when its object file's sha256 is ``digest_hex``
    (not tampered), it parses and its ``kind`` is ``kind``.

    Args:
        data: the object file's bytes, or None when there is none.
        digest_hex: the 64 hex digits the referring run names.
        kind: ``BenchmarkProtocol`` or ``ExecutionEnvironment``.

    Returns:
        The spec (a dict), or None.
    """
    if data is None or hashes.sha256(data).hexdigest() != digest_hex:
        return None
    try:
        doc = loads_lenient(data)
    except (ValueError, UnicodeDecodeError):
        return None
    spec = doc.get("spec") if isinstance(doc, dict) and doc.get("kind") == kind else None
    return spec if isinstance(spec, dict) else None


def run_key_object(references: Mapping[str, str], protocol: dict[str, Any] | None,
                   environment: dict[str, Any] | None) -> dict[str, str] | None:
    """Return a stored run's key object from its reference fields, or None when unknown.

    :func:`key_object` of a run whose ``spec`` holds ``references`` (the key reads only
    ``protocolDigest`` and ``workloadDigest`` of the run itself), so callers that know a
    run's references (an add, ``verify``'s workers) need not parse its spec again. A
    protocol or environment spec of another shape than its schema's (``verify`` reports
    it) leaves the key unknown.

    Args:
        references: reference field name -> ``sha256:<hex>`` of the run.
        protocol: :func:`stored_spec` of the protocol ``references["protocolDigest"]``
            names, or None.
        environment: :func:`stored_spec` of its environment, or None.
    """
    try:
        return key_object(dict(references), protocol, environment)
    except (AttributeError, TypeError):  # a spec whose parts are not objects
        return None


def comparison_key(obj: dict[str, str]) -> Digest:
    """Return the comparison key: ``Digest.of(canonical.dumps(obj))`` (RFC 8785 bytes).

    Args:
        obj: a key object from :func:`key_object`.
    """
    return _group_file(tuple(obj.items()))[0]


def group_file(obj: Mapping[str, str]) -> tuple[Digest, bytes]:
    """Return a key object's comparison key and its group file's bytes, made once a process.

    The bytes are :func:`kistore.core.layout.group_record`'s, the key their SHA-256
    (:func:`comparison_key`). Every rule that needs a group's key asks here, so that
    ``verify``'s KI215/KI216 (:func:`kistore.check._groups.expected_file`) and KI234's
    placing of runs in groups (:func:`comparison_key`, through
    :func:`kistore.index.records.describe`) no longer encode and hash each group once each
    (ver99; mend00). The cache keeps the :data:`GROUP_FILES_KEPT` groups asked last.

    Args:
        obj: a key object from :func:`key_object` (its items in the order it made them).

    Returns:
        ``(key, bytes)``. Raises nothing for a key object.
    """
    return _group_file(tuple(obj.items()))


GROUP_FILES_KEPT = 32768
"""Most groups :func:`group_file` keeps (least recently asked dropped first): ~1.0 KB each
(its key object's items, the key, the bytes; tracemalloc, keys of five fields with two
digests: mend02), so at most ~34 MB. It was 65,536, ~67 MB (said as ~26 MB): a store of
more groups than this gains little from it (1,000,000 runs: ~950,000 groups, each run's
group asked about twice, so nearly every ask a miss), one of fewer (100,000 runs: 22,454)
keeps them all."""


@lru_cache(maxsize=GROUP_FILES_KEPT)
def _group_file(items: tuple[tuple[str, str], ...]) -> tuple[Digest, bytes]:
    """:func:`group_file` of a key object's items; cached: the runs of one group share it."""
    data = layout.group_record(dict(items))
    return Digest.of(data), data


class RunKeys:
    """The key objects and group files of stored runs, computed as every writer computes them.

    The one computation of a run's group file (``store/groups/``, docs/design.md §3) for
    ``add`` (:mod:`kistore.store.admission`), ``migrate`` and ``drop``, and of its key object
    for ``verify`` and the gate: each referenced protocol or environment is read once
    (:func:`stored_spec` of its object file), each key object made once per distinct
    :data:`KEYED_REFERENCES`. No I/O of its own: the caller gives the reader.

    Args:
        read: ``read(hex)``: the bytes of the object file of the digest with these 64 hex
            digits, or None when there is none (or it cannot be read).
    """

    def __init__(self, read: Callable[[str], bytes | None]) -> None:
        self._read = read
        self._specs: dict[tuple[str, str], dict[str, Any] | None] = {}
        self._keys: dict[tuple[str | None, ...], dict[str, str] | None] = {}
        # (protocol, environment) -> the key object of a run of theirs, less its workload
        self._templates: dict[tuple[str | None, ...], dict[str, str] | None] = {}
        self._groups: dict[tuple[str | None, ...], tuple[Digest, bytes] | None] = {}

    def spec(self, ref: str, kind: str) -> dict[str, Any] | None:
        """Return :func:`stored_spec` of the manifest ``ref`` (``sha256:<hex>``) names.

        None when ``ref`` is no full digest, or the object is absent, tampered, does not
        parse or is of another kind than ``kind``.
        """
        if (ref, kind) not in self._specs:
            self._specs[ref, kind] = stored_spec(self._read(ref[7:]), ref[7:], kind) \
                if is_digest(ref) else None
        return self._specs[ref, kind]

    def key_object(self, references: Mapping[str, str]) -> dict[str, str] | None:
        """Return :func:`run_key_object` of a run with ``references``, or None when unknown.

        Args:
            references: the run's reference field name -> ``sha256:<hex>``.

        Returns:
            The key object (shared by every run with the same :data:`KEYED_REFERENCES`,
            and one without ``workloadDigest`` by every run of its protocol and
            environment: not to be changed), or None when its protocol or environment is
            not stored.
        """
        keyed = (references.get("workloadDigest"), references.get("protocolDigest"),
                 references.get("environmentDigest"))  # KEYED_REFERENCES' order
        if keyed not in self._keys:
            self._keys[keyed] = self._key_of(keyed[0], keyed[1:])
        return self._keys[keyed]

    def _key_of(self, workload: str | None, others: tuple[str | None, str | None]
                ) -> dict[str, str] | None:
        """:func:`run_key_object` of a run: its protocol and environment's part made once.

        Everything but ``workloadDigest`` in a key object comes from the protocol and the
        environment (their specs, and the protocol's digest), so each (protocol,
        environment) pair makes one key object with a stand-in workload, and each run's
        is that object with its own workload digest put in (``verify`` of 100,000 runs
        made 28,753 key objects from their specs, for 48 pairs). The stand-in is a string,
        as a stored run's digest is: a key whose other fields are known is never None
        because of it, and a key without ``workloadDigest`` is the pair's for every run.
        """
        if others not in self._templates:
            references = {f: r for f, r in zip(("protocolDigest", "environmentDigest"),
                                                 others, strict=True) if r is not None}
            self._templates[others] = run_key_object(
                {**references, "workloadDigest": "sha256:"}, *(
                    self.spec(references[f], kind) if f in references else None
                    for f, kind in REFERENCE_KINDS.items()))
        template = self._templates[others]
        if template is None or "workloadDigest" not in template:
            return template
        if workload is None:
            return None  # a field the key holds is unknown
        obj = dict(template)
        obj["workloadDigest"] = str(workload)
        return obj

    def group(self, references: Mapping[str, str]) -> tuple[Digest, bytes] | None:
        """Return a run's comparison key and its group file's bytes, or None when unknown.

        The file is :func:`kistore.core.layout.group_path` of the key and the run, holding
        :func:`kistore.core.layout.group_record` of the key object: byte for byte what an
        add writes.

        Args:
            references: the run's reference field name -> ``sha256:<hex>``.
        """
        keyed = tuple(references.get(f) for f in KEYED_REFERENCES)
        if keyed not in self._groups:
            obj = self.key_object(references)
            self._groups[keyed] = None if obj is None else group_file(obj)
        return self._groups[keyed]
