"""The :class:`Manifest` value: a validated manifest with its canonical bytes and digest.

A manifest is ``{apiVersion, kind, metadata, spec}``. Its identity is the digest of the
canonical bytes (RFC 8785) of ``{apiVersion, kind, spec}``; ``metadata`` is stored beside
it as its own canonical bytes and is not hashed (DESIGN §2). This module builds that value
and keeps the exact bytes; it knows nothing of files or git.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from . import canonical
from .digest import Digest
from .errors import CanonicalFormError, KistoreError, MultipleErrors
from .schema import check_manifest

REFERENCE_FIELDS = ("workloadDigest", "protocolDigest", "environmentDigest", "implementationDigest")
"""The ``spec`` fields of a BenchmarkRun that reference other manifests by digest."""


def object_document(document: dict[str, Any]) -> dict[str, Any]:
    """Return the hashed part of a manifest: ``{apiVersion, kind, spec}`` (no metadata)."""
    return {k: document[k] for k in ("apiVersion", "kind", "spec") if k in document}


@dataclass(frozen=True, slots=True)
class Manifest:
    """A schema-valid manifest and its canonical bytes.

    Attributes:
        object_bytes: RFC 8785 bytes of ``{apiVersion, kind, spec}``; the digest is their
            SHA-256 and they are exactly the stored object file.
        metadata_bytes: RFC 8785 bytes of ``metadata``; exactly the stored metadata file.
        digest: ``Digest.of(object_bytes)``.
        document: the parsed manifest (apiVersion, kind, metadata, spec).
    """

    object_bytes: bytes
    metadata_bytes: bytes
    digest: Digest
    document: dict[str, Any] = field(repr=False, compare=False)

    @classmethod
    def from_document(
        cls, document: Any, *, file: str | None = None, pointer: str = ""
    ) -> Manifest:
        """Validate a parsed manifest and compute its canonical bytes and digest.

        Args:
            document: the parsed JSON value.
            file: where it came from, for error messages.
            pointer: JSON Pointer of the manifest inside ``file`` (e.g. ``/run`` in a bundle).

        Raises:
            MultipleErrors: every schema violation, each a SchemaError with file and pointer.
            CanonicalFormError: a value with no RFC 8785 form (e.g. an integer beyond 2**53).
        """
        findings = check_manifest(document, file=file)
        if findings:
            raise MultipleErrors([_at(f, pointer) for f in findings])
        try:
            object_bytes = canonical.dumps(object_document(document))
        except CanonicalFormError as e:
            e.file = file
            raise _at(e, pointer) from None
        try:
            metadata_bytes = canonical.dumps(document["metadata"])
        except CanonicalFormError as e:
            e.file = file
            raise _at(e, pointer + "/metadata") from None
        return cls(object_bytes, metadata_bytes, Digest.of(object_bytes), document)

    @classmethod
    def from_bytes(cls, object_bytes: bytes, metadata_bytes: bytes, *, file: str | None = None
                   ) -> Manifest:
        """Rebuild a manifest from its stored object and metadata bytes.

        The digest is computed from ``object_bytes`` as given; the caller compares it with
        the name it was stored under.

        Raises:
            ParseError: when either byte string is not strict JSON.
            MultipleErrors: when the rebuilt manifest fails its schema.
        """
        document = canonical.loads(object_bytes, file=file or "-")
        document["metadata"] = canonical.loads(metadata_bytes, file=file or "-")
        findings = check_manifest(document, file=file)
        if findings:
            raise MultipleErrors(list(findings))
        return cls(object_bytes, metadata_bytes, Digest.of(object_bytes), document)

    @property
    def kind(self) -> str:
        """The manifest kind, e.g. ``"BenchmarkRun"``."""
        return str(self.document["kind"])

    @property
    def name(self) -> str:
        """``metadata.name``: unique per kind within a store."""
        return str(self.document["metadata"]["name"])

    @property
    def title(self) -> str:
        """``metadata.title``, or the name when there is none."""
        return str(self.document["metadata"].get("title", self.name))

    @property
    def spec(self) -> dict[str, Any]:
        """The manifest's ``spec`` object."""
        spec: dict[str, Any] = self.document["spec"]
        return spec

    @property
    def metadata(self) -> dict[str, Any]:
        """The manifest's ``metadata`` object."""
        metadata: dict[str, Any] = self.document["metadata"]
        return metadata

    def references(self) -> dict[str, Digest]:
        """Return the manifests this one references, by spec field name.

        Only a BenchmarkRun references other manifests (:data:`REFERENCE_FIELDS`).
        """
        if self.kind != "BenchmarkRun":
            return {}
        return {f: Digest.from_str(self.spec[f]) for f in REFERENCE_FIELDS if f in self.spec}


def _at(error: KistoreError, pointer: str) -> KistoreError:
    """Prefix an error's pointer with the manifest's place inside its file."""
    if pointer:
        error.pointer = pointer + (error.pointer or "")
    error.args = (error.format(),)
    return error
