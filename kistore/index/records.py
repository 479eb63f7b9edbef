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

    def referenced(field_name: str, want: str) -> dict[str, Any] | None:
        ref = spec.get(field_name)
        found = lookup(ref) if isinstance(ref, str) else None
        return found[1] if found is not None and found[0] == want else None

    protocol = referenced("protocolDigest", "BenchmarkProtocol")
    environment = referenced("environmentDigest", "ExecutionEnvironment")
    implementation = referenced("implementationDigest", "Implementation")
    obj = key_object(spec, protocol, environment)
    return Record(
        digest, kind, name, spec,
        workload=spec.get("workloadDigest"),
        hardware=_product(environment) if environment is not None else None,
        protocol=spec.get("protocolDigest"),
        environment=spec.get("environmentDigest"),
        implementation=spec.get("implementationDigest"),
        comparison_key=str(comparison_key(obj)) if obj is not None else None,
        key_object=obj,
        family=(protocol or {}).get("comparability", {}).get("family"),
        statistic=(protocol or {}).get("measurement", {}).get("primaryStatistic"),
        role=implementation.get("role", CANDIDATE) if implementation is not None else None,
        project=implementation.get("project") if implementation is not None else None,
    )


def _product(environment: dict[str, Any]) -> str | None:
    product = environment.get("hardware", {}).get("product")
    return product if isinstance(product, str) else None
