"""The :class:`Manifest` value: a validated manifest with its canonical bytes and digest.

A manifest is ``{apiVersion, kind, metadata, spec}``. Its identity is the digest of the
canonical bytes (RFC 8785) of ``{apiVersion, kind, spec}``; ``metadata`` is stored beside
it as its own canonical bytes and is not hashed (docs/design.md §2). This module builds that value
and keeps the exact bytes; it knows nothing of files or git.

A manifest is lean: it holds its two byte strings, its digest, kind, name and the digests
it references, which is all that adding it to a store needs. The parsed document (and its
``spec``, ``metadata``, ``title``) is parsed from those canonical bytes on first use and
kept; a bulk add of 1,000,000 manifests never builds it (docs/speed.md, fourth pass).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import Any

from . import canonical, canonical_fast
from .digest import Digest, is_digest
from .errors import CanonicalFormError, InputError, KistoreError, MultipleErrors, with_article
from .limits import DEFAULT, Limits
from .limits import check_manifest as check_limits
from .schema import KINDS, check_manifest

REFERENCE_FIELDS = ("workloadDigest", "protocolDigest", "environmentDigest", "implementationDigest")
"""The ``spec`` fields of a BenchmarkRun that reference other manifests by digest."""

REFERENCE_KINDS = dict(zip(REFERENCE_FIELDS, ("Workload", "BenchmarkProtocol",
                                              "ExecutionEnvironment", "Implementation"),
                           strict=True))
"""The kind each BenchmarkRun reference field must name (rule KI202, docs/rules.md)."""


def wrong_kind(field_name: str, kind: str | None) -> str | None:
    """Return the kind a run's reference field must name when ``kind`` is another (KI202).

    The one statement of rule KI202: ``add`` refuses with it (a run it adds, and an earlier
    run whose dangling reference a manifest it adds answers), ``verify`` and ``check``
    report it.

    Args:
        field_name: one of :data:`REFERENCE_FIELDS`.
        kind: the ``kind`` of the manifest the field names; None when it has none (an
            object that does not parse: other rules say so).

    Returns:
        The expected kind (``"Workload"`` for ``workloadDigest``) when ``kind`` is a kind
        and not that one; None when it fits or is unknown.

    Raises:
        KeyError: ``field_name`` is no reference field.
    """
    expected = REFERENCE_KINDS[field_name]
    return expected if kind is not None and kind != expected else None


def wrong_kind_answer(arriving: str, run: str, where: str, found: str) -> str:
    """Say that a manifest answers an earlier run's dangling reference with the wrong kind.

    The words ``add``'s refusal and the gate's KI202 on the arriving manifest share: the
    run was stored naming a digest nothing held; the manifest of that digest arrives and
    is of another kind than the run's field names (:func:`wrong_kind`). A stored run never
    changes, so the manifest can never be stored beside it.

    Args:
        arriving: the arriving manifest as people read it (``KIND NAME (digest)``).
        run: the earlier run as people read it (``BenchmarkRun/NAME (digest)``).
        where: the run's object file and JSON Pointer, ``PATH:/spec/FIELD``.
        found: the arriving manifest's kind.

    Returns:
        One sentence naming both manifests, the field, the kind expected and the kind found,
        and what to do (leave the manifest out; check which digest the run meant).

    Raises:
        KeyError: ``where`` does not end in ``/spec/FIELD`` of a reference field.
    """
    expected = REFERENCE_KINDS[where.rpartition("/")[2]]
    return (f"{arriving} answers the dangling reference of the earlier {run}: {where} names "
            f"this digest and must name {with_article(expected)}, not {with_article(found)} "
            "(`kistore verify` would report KI202 on the run); a stored run never changes, "
            "so this manifest cannot be added while that run is stored: check which digest "
            "the run meant")

_KINDS = {kind: kind for kind in KINDS}
"""Each kind name to its one shared string (a million manifests hold five strings)."""


def object_document(document: dict[str, Any]) -> dict[str, Any]:
    """Return the hashed part of a manifest: ``{apiVersion, kind, spec}`` (no metadata)."""
    return {k: document[k] for k in ("apiVersion", "kind", "spec") if k in document}


@dataclass(frozen=True, slots=True)
class Manifest:
    """A schema-valid manifest and its canonical bytes.

    Build one with :meth:`from_document` or :meth:`from_bytes` (both validate); the
    constructor and :meth:`from_parts` trust their arguments. Two manifests are equal when
    their bytes are.

    Attributes:
        object_bytes: RFC 8785 bytes of ``{apiVersion, kind, spec}``; the digest is their
            SHA-256 and they are exactly the stored object file.
        metadata_bytes: RFC 8785 bytes of ``metadata``; exactly the stored metadata file.
        digest: ``Digest.of(object_bytes)``.
        kind: the manifest kind, e.g. ``"BenchmarkRun"``.
        name: ``metadata.name``: unique per kind within a store.
        reference_hex: for a BenchmarkRun, the 64 hex digits of each digest it references,
            in :data:`REFERENCE_FIELDS` order (``""`` for a field it lacks); else ``()``.
            :meth:`references` gives them as digests by field.
        facts: for a BenchmarkRun, what ``add``'s rules read of it alone, found once
            (:func:`kistore.store.run_facts.facts_of`; opaque here); None until asked.
    """

    object_bytes: bytes
    metadata_bytes: bytes
    digest: Digest
    kind: str = field(compare=False)
    name: str = field(compare=False)
    reference_hex: tuple[str, ...] = field(default=(), repr=False, compare=False)
    _document: dict[str, Any] | None = field(default=None, init=False, repr=False,
                                             compare=False)
    facts: Any = field(default=None, init=False, repr=False, compare=False)

    @classmethod
    def from_document(
        cls, document: Any, *, file: str | None = None, pointer: str = "",
        limits: Limits = DEFAULT,
    ) -> Manifest:
        """Validate a parsed manifest and compute its canonical bytes and digest.

        The manifest keeps no reference to ``document``: :attr:`document` is parsed again
        from the canonical bytes when asked for (equal values; ``1.0`` comes back as ``1``).

        Args:
            document: the parsed JSON value.
            file: where it came from, for error messages.
            pointer: JSON Pointer of the manifest inside ``file`` (e.g. ``/run`` in a bundle).
            limits: the size limits (:mod:`kistore.core.limits`): canonical object and
                metadata bytes, string length, array length.

        Raises:
            MultipleErrors: every schema violation, each a SchemaError with file and pointer;
                or every limit the manifest passes, each an InputError at its pointer.
            CanonicalFormError: a value with no RFC 8785 form (e.g. an integer beyond 2**53).
            InputError: a referenced digest the schema let through that is not exactly
                ``sha256:`` + 64 lowercase hex (e.g. with a final newline).
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
        too_large = check_limits(document, object_bytes, metadata_bytes, limits, file=file,
                                 pointer=pointer)
        if too_large:
            raise MultipleErrors(list(too_large))
        kind = document["kind"]
        return cls(object_bytes, metadata_bytes, Digest.of(object_bytes),
                   _KINDS.get(kind, kind), document["metadata"]["name"],
                   _reference_hex(kind, document["spec"], file=file, pointer=pointer))

    @classmethod
    def from_bytes(cls, object_bytes: bytes, metadata_bytes: bytes, *, file: str | None = None,
                   schema: bool = True) -> Manifest:
        """Rebuild a manifest from its stored object and metadata bytes.

        The digest is computed from ``object_bytes`` as given; the caller compares it with
        the name it was stored under. The parsed document is kept (a read is for its content).

        Args:
            object_bytes: the object file's bytes.
            metadata_bytes: the metadata file's bytes.
            file: the file named in errors.
            schema: check the document against its kind's schema. False only for bytes
                already checked so (a record of the derived index was made from the same
                object digest, whose build validated it): one answer then compiles no
                schema (~30 ms of a fresh process, docs/speed.md). A document without a
                string ``kind`` and ``metadata.name`` and an object ``spec`` is checked all
                the same.

        Raises:
            ParseError: when either byte string is not strict JSON.
            MultipleErrors: when the rebuilt manifest fails its schema.
            InputError: a referenced digest that is not exactly ``sha256:`` + 64 hex.
        """
        document = canonical.loads(object_bytes, file=file or "-")
        document["metadata"] = canonical.loads(metadata_bytes, file=file or "-")
        shaped = isinstance(document, dict) and isinstance(document.get("kind"), str) and \
            isinstance(document.get("spec"), dict) and \
            isinstance(document["metadata"], dict) and \
            isinstance(document["metadata"].get("name"), str)
        findings = check_manifest(document, file=file) if schema or not shaped else []
        if findings:
            raise MultipleErrors(list(findings))
        kind = document["kind"]
        manifest = cls(object_bytes, metadata_bytes, Digest.of(object_bytes),
                       _KINDS.get(kind, kind), document["metadata"]["name"],
                       _reference_hex(kind, document["spec"], file=file, pointer=""))
        object.__setattr__(manifest, "_document", document)
        return manifest

    def to_parts(self) -> tuple[bytes, bytes, str, str, str, tuple[str, ...]]:
        """Return the manifest as plain values (for :mod:`marshal`, between processes).

        Returns:
            ``(object_bytes, metadata_bytes, digest hex, kind, name, reference_hex)``.
        """
        return (self.object_bytes, self.metadata_bytes, self.digest.hex, self.kind,
                self.name, self.reference_hex)

    @classmethod
    def from_parts(cls, object_bytes: bytes, metadata_bytes: bytes, digest_hex: str, kind: str,
                   name: str, reference_hex: tuple[str, ...]) -> Manifest:
        """Rebuild a manifest from :meth:`to_parts` of one that was validated (no check).

        Only for values a :meth:`from_document` in a worker process produced: nothing is
        validated or hashed again.
        """
        return cls(object_bytes, metadata_bytes, Digest._checked(digest_hex),
                   _KINDS.get(kind, kind), name, tuple(map(sys.intern, reference_hex)))

    @property
    def document(self) -> dict[str, Any]:
        """The parsed manifest ``{apiVersion, kind, metadata, spec}``, parsed on first use.

        Parsed from the canonical bytes, so numbers come back in their canonical form
        (``1.0`` as ``1``). The dict is kept and shared: do not change it.

        Raises:
            ParseError: never for a manifest built by this class (its bytes are canonical).
        """
        document = self._document
        if document is None:
            document = canonical.loads(self.object_bytes, file="-")
            document["metadata"] = canonical.loads(self.metadata_bytes, file="-")
            object.__setattr__(self, "_document", document)
        return document

    def passing_spec(self) -> dict[str, Any]:
        """Return the manifest's ``spec``, parsed for one look and not kept (unless it was).

        For a check that reads every manifest of a batch once (``add``'s KI209, KI222 and
        KI223 of each run, KI210's groups): :attr:`spec` keeps every run's parsed document
        on its manifest until the batch is let go, which made a bulk add's memory grow by
        kilobytes a run (issue 22). A document already parsed is returned as
        is; otherwise the object bytes are parsed (not the metadata) and nothing is kept.

        Returns:
            The ``spec`` object (equal to :attr:`spec`); the caller must not change it.

        Raises:
            ParseError: never for a manifest built by this class (its bytes are canonical).
        """
        return self._passing("spec")

    def passing_metadata(self) -> dict[str, Any]:
        """Return the manifest's ``metadata``, parsed for one look and not kept (unless it was).

        As :meth:`passing_spec` reads the spec: a document already parsed is not parsed
        again (``add``'s KI238 of a run whose metadata another check parsed).

        Returns:
            The ``metadata`` object (equal to :attr:`metadata`); the caller must not change it.

        Raises:
            ParseError: never for a manifest built by this class (its bytes are canonical).
        """
        return self._passing("metadata")

    def _passing(self, part: str) -> dict[str, Any]:
        """Return ``spec`` or ``metadata``: the kept document's, else parsed and not kept."""
        document = self._document
        found: dict[str, Any]
        if document is not None:
            found = document[part]
        elif part == "spec":
            found = canonical.loads(self.object_bytes, file="-")["spec"]
        else:
            found = canonical.loads(self.metadata_bytes, file="-")
        return found

    @property
    def title(self) -> str:
        """``metadata.title``, or the name when there is none."""
        return str(self.metadata.get("title", self.name))

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
        return {f: Digest._checked(h) for f, h in zip(REFERENCE_FIELDS, self.reference_hex,
                                                      strict=False) if h}


def _reference_hex(kind: str, spec: Any, *, file: str | None, pointer: str
                   ) -> tuple[str, ...]:
    """Return a run's referenced digests as hex, in :data:`REFERENCE_FIELDS` order.

    Raises:
        InputError: a reference the schema's pattern let through (``$`` matches before a
            final newline) that is not exactly a digest.
    """
    if kind != "BenchmarkRun":
        return ()
    found = []
    for f in REFERENCE_FIELDS:
        text = spec.get(f)
        hex_ = _checked_references.get(text) if isinstance(text, str) else None
        if hex_ is None:
            if text is None:
                hex_ = ""
            elif is_digest(text):
                if len(_checked_references) >= _CHECKED_REFERENCES:
                    _checked_references.clear()
                hex_ = _checked_references[text] = sys.intern(text[7:])
            else:
                raise InputError(f"not a digest: {text!r}; expected 'sha256:' + 64 lowercase "
                                 "hex", file=file, pointer=f"{pointer}/spec/{f}")
        found.append(hex_)
    return tuple(found)


_CHECKED_REFERENCES = 1 << 16
_checked_references: dict[str, str] = {}
"""Reference texts found to be digests -> their hex, one shared string each: the runs of a
batch reference few manifests (~1,000 for 19,000 runs), and the digest grammar's regex
cost an eighth of building a manifest. Emptied when it reaches 65,536 entries."""


def _at(error: KistoreError, pointer: str) -> KistoreError:
    """Prefix an error's pointer with the manifest's place inside its file."""
    if pointer:
        error.pointer = pointer + (error.pointer or "")
    error.args = (error.format(),)
    return error


def lenient_object(data: bytes | None) -> dict[str, Any]:
    """Return stored bytes parsed leniently as an object: a damaged file is another check's.

    (:func:`kistore.core.canonical_fast.loads_lenient`: orjson, the stdlib where orjson
    refuses.)

    Args:
        data: a stored file's bytes (metadata, an object), or None (absent).

    Returns:
        The object they hold; ``{}`` when absent, not JSON or not an object. Never raises.
    """
    try:
        doc = canonical_fast.loads_lenient(data) if data is not None else None
    except ValueError:
        return {}
    return doc if isinstance(doc, dict) else {}


def metadata_name(data: bytes | None) -> str | None:
    """Return the ``name`` of stored metadata bytes, or None when they hold none.

    Args:
        data: a metadata file's bytes, or None (absent).

    Returns:
        ``name`` when the bytes parse (leniently, :func:`lenient_object`) as an object
        holding a string there; None otherwise. Never raises.
    """
    return name_in(lenient_object(data))


def name_in(metadata: dict[str, Any]) -> str | None:
    """Return parsed metadata's ``name`` when it is a string, else None."""
    name = metadata.get("name")
    return name if isinstance(name, str) else None
