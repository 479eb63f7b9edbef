"""Records: what the query layer knows about each manifest, derived from the store.

A :class:`Record` is one manifest reduced to the fields queries filter and group by. A run's
record also carries what comes from the manifests it references (its comparison key,
hardware product, implementation role and project), so a comparison group is one lookup.

Pure: the caller passes a ``lookup`` that returns referenced manifests. The same function
fills the in-memory catalog and the SQLite index, so both answer alike.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from ..core.comparison import comparison_key, key_object

Lookup = Callable[[str], "tuple[str, dict[str, Any]] | None"]
"""``lookup(digest string) -> (kind, spec)`` of a stored manifest, or None when absent."""

CANDIDATE = "candidate"
REFERENCE = "reference"


class Record(NamedTuple):
    """One manifest as queries see it.

    A named tuple, not a frozen dataclass: making one costs ~2 ms of start-up (its methods
    are compiled), on every run page and ``rank`` (docs/speed.md). Compared and hashed as
    a tuple, spec included (a spec is a dict: a record is not hashable).

    Attributes:
        digest: ``sha256:<hex>`` of the manifest.
        kind: its kind.
        name: its ``metadata.name``.
        spec: its ``spec``.
        workload: a Workload's own digest, or a run's ``workloadDigest``.
        hardware: an environment's ``hardware.product``, or that of a run's environment.
        protocol: a run's ``protocolDigest``.
        environment: a run's ``environmentDigest``.
        implementation: a run's ``implementationDigest``.
        comparison_key: a run's comparison key (``sha256:...``), None when a referenced
            manifest it needs is missing.
        key_object: the object the key is the digest of.
        family: a run's protocol comparability family.
        statistic: a run's protocol primary statistic (e.g. ``mean``).
        role: a run's implementation role (``candidate``/``reference``), None when unknown.
        project: a run's implementation project, None when unknown.
    """

    digest: str
    kind: str
    name: str
    spec: dict[str, Any]
    workload: str | None = None
    hardware: str | None = None
    protocol: str | None = None
    environment: str | None = None
    implementation: str | None = None
    comparison_key: str | None = None
    key_object: dict[str, str] | None = None
    family: str | None = None
    statistic: str | None = None
    role: str | None = None
    project: str | None = None

    @property
    def status(self) -> str | None:
        """Return a run's ``spec.status`` (``passed``, ``incorrect``, ...)."""
        status = self.spec.get("status")
        return status if isinstance(status, str) else None

    @property
    def named_source(self) -> bool:
        """Return True when a run names its source (``spec.sourceNative.source``, non-empty).

        A run that names none has its submitter's numbers: its ``source-native`` evidence is
        said "as submitted, no source named" (:func:`kistore.core.words.evidence_said`).

        Returns:
            Whether ``spec.sourceNative.source`` is a non-empty value. Raises nothing.
        """
        native = self.spec.get("sourceNative")
        return isinstance(native, dict) and bool(native.get("source"))

    @property
    def is_reference(self) -> bool:
        """Return True for a run of a ``reference`` implementation (never ranked)."""
        return self.role == REFERENCE


class Listed(NamedTuple):
    """One manifest as a listing (``kistore ls``) shows it: a :class:`Record` without its spec.

    Attributes:
        digest: ``sha256:<hex>`` of the manifest.
        kind: its kind.
        name: its ``metadata.name``.
        workload: as :attr:`Record.workload`.
        hardware: as :attr:`Record.hardware`.
        comparison_key: as :attr:`Record.comparison_key`.

    A listing asked for without details (:meth:`kistore.index.catalog.Catalog.listing`)
    may leave ``workload`` and ``comparison_key`` None.
    """

    digest: str
    kind: str
    name: str
    workload: str | None = None
    hardware: str | None = None
    comparison_key: str | None = None

    @classmethod
    def of(cls, r: Record) -> Listed:
        """Return the listing entry of a record."""
        return cls(r.digest, r.kind, r.name, r.workload, r.hardware, r.comparison_key)


def describe(digest: str, kind: str, name: str, spec: dict[str, Any], lookup: Lookup) -> Record:
    """Return the record of one manifest.

    Args:
        digest: its digest string.
        kind: its kind.
        name: its ``metadata.name``.
        spec: its ``spec``.
        lookup: returns the ``(kind, spec)`` of referenced manifests (runs only use it).
    """
    if kind == "Workload":
        return Record(digest, kind, name, spec, workload=digest)
    if kind == "ExecutionEnvironment":
        return Record(digest, kind, name, spec, hardware=_product(spec))
    if kind != "BenchmarkRun":
        return Record(digest, kind, name, spec)
    return _run_record(digest, name, spec, _keyed(spec, lookup),
                       _implemented(spec.get("implementationDigest"), lookup))


class Describer:
    """:func:`describe` of many manifests, each run's referenced manifests read once a batch.

    A run's record takes its key, hardware, family and statistic from its
    :data:`~kistore.core.comparison.KEYED_REFERENCES` alone, and its role and project from
    its ``implementationDigest`` alone, so runs alike in them share those parts: each is
    found once (its lookups, key object and comparison key), not once a run (issue 22: an
    add of 20,000 runs described each in ~9 us of its one serial stretch; the runs of a
    bulk add share a few hundred keys). The records are :func:`describe`'s, field for
    field; runs alike share one key object (not to be changed).

    Args:
        lookup: as :func:`describe`'s; asked once a distinct reference, so it must answer
            alike for the life of this object (one view of a store).
    """

    def __init__(self, lookup: Lookup) -> None:
        self._lookup = lookup
        self._keyed: dict[tuple[str | None, ...], _Keyed] = {}
        self._implemented: dict[str | None, tuple[str | None, str | None]] = {}

    def __call__(self, digest: str, kind: str, name: str, spec: dict[str, Any]) -> Record:
        """Return :func:`describe` of the manifest with the lookup given."""
        if kind != "BenchmarkRun":
            return describe(digest, kind, name, spec, self._lookup)
        keyed = (spec.get("workloadDigest"), spec.get("protocolDigest"),
                 spec.get("environmentDigest"))  # KEYED_REFERENCES' order
        implementation = spec.get("implementationDigest")
        if not (isinstance(keyed[0], str | None) and isinstance(keyed[1], str | None)
                and isinstance(keyed[2], str | None)
                and isinstance(implementation, str | None)):  # unhashable: alone
            return describe(digest, kind, name, spec, self._lookup)
        shared = self._keyed.get(keyed)
        if shared is None:
            shared = self._keyed[keyed] = _keyed(spec, self._lookup)
        role = self._implemented.get(implementation)
        if role is None:
            role = self._implemented[implementation] = _implemented(implementation,
                                                                    self._lookup)
        return _run_record(digest, name, spec, shared, role)


class _Keyed(NamedTuple):
    """What a run's record takes from its protocol and environment (:class:`Describer`)."""

    hardware: str | None
    comparison_key: str | None
    key_object: dict[str, str] | None
    family: str | None
    statistic: str | None


def _keyed(spec: dict[str, Any], lookup: Lookup) -> _Keyed:
    """Return a run's :class:`_Keyed`: its protocol and environment looked up, its key made."""
    protocol = _referenced(spec.get("protocolDigest"), "BenchmarkProtocol", lookup)
    environment = _referenced(spec.get("environmentDigest"), "ExecutionEnvironment", lookup)
    obj = key_object(spec, protocol, environment)
    return _Keyed(_product(environment) if environment is not None else None,
                  str(comparison_key(obj)) if obj is not None else None, obj,
                  (protocol or {}).get("comparability", {}).get("family"),
                  (protocol or {}).get("measurement", {}).get("primaryStatistic"))


def _implemented(ref: Any, lookup: Lookup) -> tuple[str | None, str | None]:
    """Return a run's implementation role and project (None, None when it is unknown)."""
    implementation = _referenced(ref, "Implementation", lookup)
    if implementation is None:
        return None, None
    return implementation.get("role", CANDIDATE), implementation.get("project")


def _referenced(ref: Any, want: str, lookup: Lookup) -> dict[str, Any] | None:
    """Return the spec of the manifest ``ref`` names when it is of kind ``want``, else None."""
    found = lookup(ref) if isinstance(ref, str) else None
    return found[1] if found is not None and found[0] == want else None


def _run_record(digest: str, name: str, spec: dict[str, Any], keyed: _Keyed,
                implemented: tuple[str | None, str | None]) -> Record:
    """Return a run's record of its own fields, its keyed part and its implementation's."""
    return Record(
        digest, "BenchmarkRun", name, spec,
        workload=spec.get("workloadDigest"),
        hardware=keyed.hardware,
        protocol=spec.get("protocolDigest"),
        environment=spec.get("environmentDigest"),
        implementation=spec.get("implementationDigest"),
        comparison_key=keyed.comparison_key,
        key_object=keyed.key_object,
        family=keyed.family,
        statistic=keyed.statistic,
        role=implemented[0],
        project=implemented[1],
    )


def _product(environment: dict[str, Any]) -> str | None:
    product = environment.get("hardware", {}).get("product")
    return product if isinstance(product, str) else None
