"""Catalogs: every :class:`~.records.Record` of one view of the store.

A catalog answers the lookups queries need (a record by digest, a comparison group,
listings by kind/workload/hardware). Three implementations answer identically:

* :class:`MemoryCatalog` -- scanned from a store view (work tree or commit); O(store);
* :class:`kistore.query.index.IndexCatalog` -- the SQLite index of one git tree;
* :class:`OverlayCatalog` -- a catalog with some manifests replaced, e.g. the index of
  ``HEAD`` plus the uncommitted files of the work tree.

Every object read here is re-hashed: a file whose SHA-256 is not its name is left out
(``kistore verify`` reports it), never trusted.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..core import canonical, layout, schema
from ..core.digest import Digest
from ..core.errors import KistoreError
from ..core.file_kinds import DIRECTORY, SUBMODULE, SYMLINK, file_kind
from ..core.limits import LongValue, PastLimit, bytes_past_limit, past_limit
from .checked import is_checked, record_checked
from .records import Describer, Listed, Record

if TYPE_CHECKING:  # pragma: no cover - typing only
    from .interfaces import StoreView
    from .warm import HeadAttested, OutsideCheckout

Loaded = tuple[str, str, dict[str, Any]]
"""``(kind, name, spec)`` of a manifest read from the store."""

MARKED_AT_MOST = 100
"""The most changed manifests an overlay keeps schema verdicts for (:meth:`OverlayCatalog.over`):
an ``add`` not yet committed is a few; a bulk one checks its thousands each time, as before."""


def load_manifest(view: StoreView, digest: Digest, *, validate: bool = False,
                  marks: Path | None = None) -> Loaded | None:
    """Read one manifest from a view; None when absent, corrupt, or without metadata.

    Args:
        view: a :class:`kistore.store.View`.
        digest: the object's digest; the object bytes must hash to it.
        validate: also check it against its kind's JSON Schema (as :func:`parse_manifest`).
        marks: with ``validate``, the git directory whose schema verdicts
            (:mod:`.checked`) are kept: bytes that passed before are not checked again
            (no schema compiled, no jsonschema-rs loaded: ~30-50 ms of a fresh process),
            and bytes that pass now are recorded. None: always check, record nothing.

    Raises:
        InstallationError: with ``marks``, kistore's schemas cannot be read.
    """
    try:
        data = view.read(layout.object_path(digest))
        meta = view.read(layout.metadata_path(digest))
    except PastLimit:  # past a limit, unread: :func:`damage` says so
        return None
    if not (validate and marks is not None and data is not None and meta is not None):
        return parse_manifest(digest, data, meta, validate=validate)
    if is_checked(marks, data, meta):  # these bytes passed check_manifest under this checker
        return parse_manifest(digest, data, meta)
    loaded = parse_manifest(digest, data, meta, validate=True)
    if loaded is not None:  # hashed, canonical and valid: the same verdict as `show`'s
        record_checked(marks, data, meta)
    return loaded


def parse_manifest(digest: Digest, data: bytes | None, meta: bytes | None, *,
                   validate: bool = False) -> Loaded | None:
    """Parse stored object and metadata bytes; None when absent or not what the name says.

    Not what the name says: bytes that do not hash to ``digest``, or that are not in
    canonical form (RFC 8785): a file written by hand with other bytes for the same JSON
    would be ranked under a digest that is not the manifest's (``verify``: KI103). With
    ``validate``, a manifest its kind's JSON Schema refuses (KI104) is None too (the
    index build and every work-tree or scanned answer validate: :func:`problem` says why).
    """
    parsed = parse_document(digest, data, meta, validate=validate)
    return parsed[1] if parsed is not None else None


def parse_document(digest: Digest, data: bytes | None, meta: bytes | None, *,
                   validate: bool = False) -> tuple[dict[str, Any], Loaded] | None:
    """:func:`parse_manifest`, also returning the object document it parsed.

    Returns:
        ``(object document, (kind, name, spec))``, or None as :func:`parse_manifest`.
    """
    if data is None or meta is None or Digest.of(data) != digest:
        return None
    try:
        document, metadata = canonical.loads_if_canonical(data), canonical.loads_if_canonical(meta)
        if document is None or metadata is None:
            return None
        kind, name, spec = document["kind"], metadata["name"], document["spec"]
    except (KistoreError, KeyError, TypeError):
        return None
    if not (isinstance(kind, str) and isinstance(name, str) and isinstance(spec, dict)):
        return None
    if validate and schema.check_manifest({**document, "metadata": metadata}):
        return None
    return document, (kind, name, spec)


def damage(view: StoreView, digest: Digest) -> tuple[str, str]:
    """Say which file of a stored manifest a query cannot read, and what is wrong with it.

    Reads both files from ``view`` and asks :func:`problem`.

    Args:
        view: a :class:`kistore.store.View`.
        digest: the manifest's digest.

    Returns:
        ``(path, problem)`` as :func:`problem`; ``("", "")`` when both files read well.
        A file read as absent that is there but no regular file (a symbolic link, a FIFO,
        a directory: never read) is said so, not "is missing" (review 2026-12-02 F17).
    """
    read = []
    for path in (layout.object_path(digest), layout.metadata_path(digest)):
        try:
            read.append(view.read(path))
        except PastLimit as e:  # said once, never read whole (fresh03 H3)
            return path, too_large(e.size, e.limit, e.key)
    path, said = problem(digest, *read)
    if said == "is missing":
        said = not_regular(view, path) or said
    return path, said


def is_there(view: StoreView, path: str) -> bool:
    """Return whether a file is at ``path`` of ``view``: a regular one, read within its bound.

    A file past the bound a view reads within (:data:`kistore.store.WORK_TREE_BYTES`, a
    stray 1 GB file under ``store/``) is there, refused unread.
    """
    try:
        return view.read(path) is not None
    except PastLimit:
        return True


_NOT_REGULAR = {
    SYMLINK: "is a symbolic link: the store keeps only regular files and never reads "
             "through a link (`kistore verify`: KI111)",
    SUBMODULE: "is a submodule, not a file (`kistore verify`: KI111)",
    DIRECTORY: "is a directory, not a file (`kistore verify`: KI110)",
}
"""What a stored path that is there but no regular file is, by its kind
(:func:`kistore.core.file_kinds.file_kind` of the git mode it lists as)."""

_SPECIAL = "is a FIFO, socket or device, not a regular file (`kistore verify`: KI111)"
"""Any other kind: a work tree's FIFO, socket and device list as one mode (never looked at
again to tell them apart)."""


def not_regular(view: StoreView, path: str) -> str | None:
    """Return what ``path`` is when ``view`` lists it with a mode no regular file has.

    Args:
        view: the view read.
        path: a stored file's repository path that read as absent.

    Returns:
        E.g. ``is a symbolic link: ...``; None when the path is absent.
    """
    modes_of = getattr(view, "modes_of", None)  # a View's (index's protocol lacks it)
    if modes_of is None:
        return None
    mode = modes_of([path]).get(path)
    if mode is None or mode in (0o100644, 0o100755):
        return None
    return _NOT_REGULAR.get(file_kind(mode), _SPECIAL)


_TOO_LARGE = "; `kistore verify` reports KI106"
"""How the problem of a file past ``[limits] manifest-bytes`` ends (:func:`too_large`)."""


def too_large(size: int | None, limit: int, key: str = "manifest-bytes") -> str:
    """Return the problem of a stored file past ``[limits] manifest-bytes`` (not read).

    Args:
        size: the file's size in bytes (None: not known).
        limit: the limit in bytes.
        key: what the limit is (:data:`kistore.core.limits.CEILING_KEY`: the bound of a
            work-tree read that asks no limit).

    Returns:
        e.g. ``holds 1,308 bytes, more than the limit of 700 (manifest-bytes); `kistore
        verify` reports KI106`` (:func:`kistore.core.limits.bytes_past_limit`), which
        :func:`is_too_large` recognises in the index's ``skipped`` list.
    """
    return f"holds {bytes_past_limit(size, limit, key)}{_TOO_LARGE}"


def is_too_large(problem: str) -> bool:
    """Return whether a problem (:func:`problem`, or a ``skipped`` row's) is :func:`too_large`'s."""
    return problem.startswith("holds ") and problem.endswith(_TOO_LARGE)


VALUE_KEYS = ("string-length", "array-length", "object-members")
"""The ``[limits]`` keys a value inside a file passes (KI107), as :func:`too_long` names them."""

_TOO_LONG = "; `kistore verify` reports KI107"
"""How the problem of a file with a value past ``[limits] string-length``,
``array-length`` or ``object-members`` ends (:func:`too_long`)."""


def too_long(value: LongValue) -> str:
    """Return the problem of a stored file holding a string, array or object past its limit.

    Args:
        value: the first such value of the file (:func:`kistore.core.limits.long_values`).

    Returns:
        e.g. ``has a string of 1,200 characters at /spec/native/note, more than the limit
        of 1,000 (string-length); `kistore verify` reports KI107``
        (:func:`kistore.core.limits.past_limit`), which :func:`limit_key` recognises in
        the index's ``skipped`` list.
    """
    where = value.pointer or '""'
    return f"has {past_limit(f'{value.what} at {where}', value.limit, value.key)}{_TOO_LONG}"


def limit_key(problem: str) -> str | None:
    """Return the ``[limits]`` key that leaves a file out, from its problem; None if none does.

    Args:
        problem: :func:`problem`'s, or a ``skipped`` row's.

    Returns:
        ``manifest-bytes`` for :func:`too_large`'s, ``string-length``, ``array-length``
        or ``object-members`` for :func:`too_long`'s; None for any other problem (damage,
        not a limit).
    """
    if is_too_large(problem):
        return "manifest-bytes"
    if problem.startswith("has ") and problem.endswith(f"){_TOO_LONG}"):
        said = problem[:-len(_TOO_LONG) - 1]
        key = said[said.rfind("(") + 1:]
        return key if key in VALUE_KEYS else None
    return None


def committed_fix(path: str, problem: str) -> str:
    """Say what to do about a committed file a query leaves out (the index ``skipped`` it).

    Args:
        path: the file's repository path (``store/objects/...`` or ``store/metadata/...``).
        problem: what is wrong with it (:func:`problem`, :func:`too_large`, :func:`too_long`).

    Returns:
        For a file past a ``[limits]`` setting (``manifest-bytes``; ``string-length``,
        ``array-length`` or ``object-members`` for a value in it): that it is left out
        while the limit stands, and how to raise it (the file may be sound: committed
        under a higher limit since lowered). Otherwise: it was committed so (past the
        hooks), and that a metadata file is fixed by committing a corrected one, while an
        object never changes and stays left out.
    """
    key = limit_key(problem)
    if key is not None:
        what = "length" if key in ("string-length", "array-length") else "size"
        return (f"it is left out while the limit stands: raise [limits] {key} in "
                f"kistore.toml if this {what} is meant")
    if path.startswith(layout.METADATA_DIR):
        # Lazy: advice for a damaged file only (a fresh answer loads no restore words)
        from ..core.restore import metadata_advice

        return f"it was committed so (past the hooks): {metadata_advice(path, committed=True)}"
    return "it was committed so (past the hooks): an object never changes, so it stays left out"


def problem(digest: Digest, data: bytes | None, meta: bytes | None) -> tuple[str, str]:
    """Say which of a manifest's two files a query cannot read, and what is wrong with it.

    The checks of :func:`parse_manifest` with ``validate``, in its order, each named: for
    a message that tells the person which file to restore (``git checkout HEAD -- PATH``) or,
    for a committed file, what ``kistore verify`` will report.

    Args:
        digest: the manifest's digest.
        data: its object file's bytes (None: absent).
        meta: its metadata file's bytes (None: absent).

    Returns:
        ``(path, problem)``: the repository path of the bad file, and what is wrong with it
        (e.g. ``is missing``, ``does not hash to its name: its sha256 is sha256:...``,
        ``is not in canonical form (RFC 8785; `kistore verify`: KI103)``, ``does not match
        its schema (...; KI104)``); ``("", "")`` when both files read well.
    """
    object_path, metadata_path = layout.object_path(digest), layout.metadata_path(digest)
    if data is None:
        return object_path, "is missing"
    found = Digest.of(data)
    if found != digest:
        return object_path, (f"is corrupt: its sha256 is {str(found)[:19]}..., not the digest "
                             "in its name")
    if meta is None:
        return metadata_path, "is missing"
    values = []
    for path, raw, field in ((object_path, data, "kind"), (metadata_path, meta, "name")):
        try:
            value = canonical.loads(raw, file=path)
        except KistoreError as e:
            return path, f"does not parse ({e.message})"
        if not isinstance(value, dict) or not isinstance(value.get(field), str):
            return path, f"has no {field}"
        if canonical.dumps(value) != raw:  # canonical.is_canonical, already parsed
            return path, "is not in canonical form (RFC 8785; `kistore verify`: KI103)"
        values.append(value)
    if not isinstance(values[0].get("spec"), dict):
        return object_path, "has no spec"
    errors = schema.check_manifest({**values[0], "metadata": values[1]}, file=object_path)
    if errors:  # a value under /metadata is the metadata file's (F14: the object was blamed)
        in_object = [e for e in errors if schema.in_metadata_file(e.pointer) is None]
        path, first = (object_path, in_object[0]) if in_object else (metadata_path, errors[0])
        return path, f"does not match its schema ({first.message}; KI104)"
    return "", ""


class Catalog:
    """The lookups queries make; subclasses answer them from memory or from SQLite.

    Attributes:
        unreadable: digests whose object file is in the work tree but does not verify
            (corrupt bytes, no metadata): queries leave them out, and the CLI warns. What
            a commit holds damaged is :meth:`skipped` instead.
        annotated: for a work-tree catalog, the object blob ids (hex) that carry a note
            under ``refs/notes/kistore`` (:func:`kistore.query.warm.annotated_blobs`), so
            runs with no attestation are answered without reading notes; None: unknown.
        outside: for a work-tree catalog of a sparse checkout, the files outside it as
            ``HEAD`` holds them (:class:`kistore.index.warm.OutsideCheckout`), which
            ``annotated`` is checked against too; None: not a sparse checkout.
        committed: for a work-tree catalog, the runs ``HEAD``'s tree holds an attestation
            folder for (:class:`kistore.index.warm.HeadAttested`), which a work-tree answer
            reads where the work tree lost them; None: not asked.
    """

    unreadable: tuple[str, ...] = ()
    annotated: frozenset[str] | None = None
    outside: OutsideCheckout | None = None
    committed: HeadAttested | None = None

    def skipped(self) -> dict[str, tuple[str, str]]:
        """Return the committed manifests the index build left out, and why.

        Returns:
            ``{digest string: (path, problem)}`` (:func:`problem`): manifests whose object
            file is in the git tree the catalog answers from but does not read well
            (non-canonical bytes, KI103; a spec its schema refuses, KI104; no metadata...),
            as a push that skipped the hooks can leave them. For the work tree, only those
            whose files still hold ``HEAD``'s bytes. Empty for a catalog not built by the index.
        """
        return {}

    def record(self, digest: str) -> Record | None:
        """Return the record of a digest string, or None when it is not stored."""
        raise NotImplementedError

    def deleted(self) -> list[str]:
        """Return the committed manifests this catalog leaves out as deleted (none here).

        Returns:
            Digest strings, sorted: manifests the catalog underneath holds whose object
            file is gone from the work tree (objects are never deleted: damage to restore
            with ``git checkout``). Only a work-tree overlay has any.
        """
        return []

    def group(self, key: str) -> list[Record]:
        """Return every run whose comparison key is ``key``, in digest order."""
        raise NotImplementedError

    def records(self, *, kind: str | None = None, workload: str | None = None,
                hardware: str | None = None) -> list[Record]:
        """Return the records matching every filter given, in (kind, name, digest) order.

        Args:
            kind: a manifest kind.
            workload: a workload digest (a Workload itself, or runs of it).
            hardware: a GPU product (an environment, or runs on it).
        """
        raise NotImplementedError

    def referencing(self, digests: set[str]) -> list[Record]:
        """Return the runs that reference any of ``digests``."""
        raise NotImplementedError

    def listing(self, *, kind: str | None = None, workload: str | None = None,
                hardware: str | None = None, details: bool = True) -> list[Listed]:
        """Return what ``kistore ls`` shows of :meth:`records` (same filters, same order).

        A catalog of the index reads its listing rows only (no stored document is
        decoded), and the work tree's catalog checks them per shard directory, not per
        file (:mod:`._fresh`).

        Args:
            kind: a manifest kind.
            workload: a workload digest (a Workload itself, or runs of it).
            hardware: a GPU product (an environment, or runs on it).
            details: also give each entry's workload and comparison key; False may leave
                them None (a text listing shows digest, kind and name only).
        """
        return [Listed.of(r) for r in self.records(kind=kind, workload=workload,
                                                   hardware=hardware)]

    def named(self, kind: str, name: str) -> Record | None:
        """Return the record of ``KIND/NAME``, or None."""
        return next((r for r in self.records(kind=kind) if r.name == name), None)

    def lost(self, kind: str, name: str) -> str | None:
        """Return the digest ``KIND/NAME`` has underneath when this view cannot read it.

        For an overlay (the work tree over ``HEAD``): the manifest ``HEAD`` names so, whose
        work-tree files are now missing or corrupt. None when there is no such manifest.
        """
        return None

    def renamed(self, digests: Iterable[str]) -> list[tuple[str, str, str, str]]:
        """Return those of ``digests`` the work tree names otherwise than ``HEAD`` does.

        Args:
            digests: digest strings an answer shows.

        Returns:
            ``(digest, kind, HEAD's name, the work tree's name)`` per manifest, in digest
            order. Empty here: only the work tree's catalog reads files that can differ
            from a commit (:meth:`kistore.index._fresh.CheckedCatalog.renamed`).
        """
        return []

    def uncommitted(self, digests: Iterable[str]) -> list[str]:
        """Return those of ``digests`` ``HEAD`` holds that the work tree holds otherwise.

        Args:
            digests: digest strings an answer shows.

        Returns:
            Digest strings (``sha256:<hex>``), sorted. Empty here: only the work tree's
            catalog reads files that can differ from a commit
            (:meth:`kistore.index._fresh.CheckedCatalog.uncommitted`). Raises nothing.
        """
        return []

    def recheck(self, digest: str) -> Record | None:
        """Look ``digest`` up again after :meth:`record` found nothing for a readable manifest.

        The store holds the manifest's files and they read well, yet the catalog has no
        record: a derived catalog that can tell its rows from the store's (the index)
        rebuilds them and answers again; a scan is exact, and answers None.
        """
        return None

    def run_groups(self, chunk: int = 1000) -> Iterator[tuple[str | None, list[Record]]]:
        """Yield every run once, a comparison group at a time (for ``kistore export``).

        Args:
            chunk: how many runs without a comparison key to yield together.

        Yields:
            ``(comparison key, runs of the group in digest order)`` for every group, then
            ``(None, runs)`` for the runs in no group (a referenced protocol or environment
            missing), ``chunk`` at a time in digest order. Groups come in no fixed order.
        """
        groups: dict[str | None, list[Record]] = {}
        for r in self.records(kind="BenchmarkRun"):
            groups.setdefault(r.comparison_key, []).append(r)
        for key in sorted(k for k in groups if k is not None):
            yield key, sorted(groups[key], key=lambda r: r.digest)
        loose = sorted(groups.get(None, []), key=lambda r: r.digest)
        for i in range(0, len(loose), chunk):
            yield None, loose[i:i + chunk]

    def names(self, kind: str) -> dict[str, str]:
        """Return ``{digest string: metadata.name}`` of every manifest of ``kind``."""
        return {r.digest: r.name for r in self.records(kind=kind)}


def in_listing_order(records: Iterable[Record]) -> list[Record]:
    """Return records in the order listings give them: by kind, then name, then digest."""
    return sorted(records, key=lambda r: (r.kind, r.name, r.digest))


def _matches(r: Record, kind: str | None, workload: str | None, hardware: str | None) -> bool:
    return ((kind is None or r.kind == kind) and (workload is None or r.workload == workload)
            and (hardware is None or r.hardware == hardware))


def _refs(r: Record) -> set[str | None]:
    return {r.workload, r.protocol, r.environment, r.implementation} if r.kind == "BenchmarkRun" \
        else set()


class MemoryCatalog(Catalog):
    """Records held in a dict.

    Args:
        records: the records, keyed by digest string.
    """

    def __init__(self, records: dict[str, Record],
                 skipped: dict[str, tuple[str, str]] | None = None) -> None:
        self._records = records
        self._skipped = skipped or {}

    @classmethod
    def from_view(cls, view: StoreView) -> MemoryCatalog:
        """Scan every object of a view (O(store): reads, re-hashes and validates every object).

        Leaves out what the index build leaves out (:func:`parse_manifest` with
        ``validate``), so both answer alike. Of a commit, those are :meth:`skipped`, as the
        index lists them; of the work tree, :attr:`unreadable`, as its overlay finds them.
        """
        loaded: dict[str, Loaded] = {}
        refused: dict[str, tuple[str, str]] = {}
        for d in view.digests():
            m = load_manifest(view, d, validate=True)
            if m is not None:
                loaded[str(d)] = m
            elif is_there(view, layout.object_path(d)):  # there, and refused
                path, why = damage(view, d)
                refused[str(d)] = (path, why) if path else (layout.object_path(d),
                                                           "could not be read")
        if view.scope == "work":
            catalog = cls(describe_all(loaded, lambda d: None))
            catalog.unreadable = tuple(sorted(refused))
            return catalog
        return cls(describe_all(loaded, lambda d: None), refused)

    def skipped(self) -> dict[str, tuple[str, str]]:  # noqa: D102 - documented on Catalog
        return self._skipped

    def record(self, digest: str) -> Record | None:  # noqa: D102 - documented on Catalog
        return self._records.get(digest)

    def group(self, key: str) -> list[Record]:  # noqa: D102
        return sorted((r for r in self._records.values() if r.comparison_key == key),
                      key=lambda r: r.digest)

    def records(self, *, kind: str | None = None, workload: str | None = None,  # noqa: D102
                hardware: str | None = None) -> list[Record]:
        return in_listing_order(r for r in self._records.values()
                                if _matches(r, kind, workload, hardware))

    def referencing(self, digests: set[str]) -> list[Record]:  # noqa: D102
        return [r for r in self._records.values() if _refs(r) & digests]


class OverlayCatalog(Catalog):
    """A base catalog with some records replaced or removed.

    Args:
        base: the catalog underneath (e.g. the index of ``HEAD``).
        changes: digest string to its new record, or None where the manifest is gone.
    """

    def __init__(self, base: Catalog, changes: dict[str, Record | None]) -> None:
        self.base = base
        self.changes = changes

    def deleted(self) -> list[str]:  # noqa: D102 - documented on Catalog
        return sorted(d for d, record in self.changes.items()
                      if record is None and d not in self.unreadable
                      and self.base.record(d) is not None)

    @classmethod
    def over(cls, base: Catalog, view: StoreView, digests: Iterable[Digest], *,
             marks: Path | None = None) -> OverlayCatalog:
        """Overlay the manifests ``digests`` as ``view`` holds them now on ``base``.

        Runs of ``base`` that reference a changed manifest are described again, so a
        protocol added in the work tree gives its dangling runs a comparison key.
        Every changed manifest is checked against its schema; ``marks`` (a git
        directory) keeps those verdicts by exact bytes, as :func:`load_manifest` says,
        when at most :data:`MARKED_AT_MOST` manifests changed (more: one empty file
        each would litter ``.git``, and the schema's compile is a small part of
        checking them all).

        Raises:
            InstallationError: with ``marks``, kistore's schemas cannot be read.
        """
        digests = list(digests)
        # every changed manifest is read: in a partial clone (a `git reset --soft` in a
        # blob-less sparse clone stages thousands) their blobs come in one fetch, not one
        # `git cat-file` each
        view.prefetch(path for d in digests
                      for path in (layout.object_path(d), layout.metadata_path(d)))
        if len(digests) > MARKED_AT_MOST:
            marks = None
        loaded = {str(d): load_manifest(view, d, validate=True, marks=marks) for d in digests}

        def fallback(digest: str) -> tuple[str, dict[str, Any]] | None:
            if digest in loaded:  # present ones are found first; this one is gone
                return None
            r = base.record(digest)
            return (r.kind, r.spec) if r is not None else None

        present = {d: m for d, m in loaded.items() if m is not None}
        unreadable = tuple(sorted(
            d for d, m in loaded.items()
            if m is None and is_there(view, layout.object_path(Digest.from_str(d)))))
        changes: dict[str, Record | None] = {d: None for d, m in loaded.items() if m is None}
        changes.update(describe_all(present, fallback))
        for r in base.referencing(set(loaded)):
            if r.digest not in changes:
                changes.update(describe_all({r.digest: (r.kind, r.name, r.spec)},
                                            chain(present, fallback)))
        overlay = cls(base, changes)
        overlay.unreadable = unreadable
        return overlay

    def record(self, digest: str) -> Record | None:  # noqa: D102
        return self.changes[digest] if digest in self.changes else self.base.record(digest)

    def group(self, key: str) -> list[Record]:  # noqa: D102
        kept = [r for r in self.base.group(key) if r.digest not in self.changes]
        new = [r for r in self.changes.values() if r is not None and r.comparison_key == key]
        return sorted(kept + new, key=lambda r: r.digest)

    def records(self, *, kind: str | None = None, workload: str | None = None,  # noqa: D102
                hardware: str | None = None) -> list[Record]:
        kept = [r for r in self.base.records(kind=kind, workload=workload, hardware=hardware)
                if r.digest not in self.changes]
        new = [r for r in self.changes.values()
               if r is not None and _matches(r, kind, workload, hardware)]
        return in_listing_order(kept + new)

    def named(self, kind: str, name: str) -> Record | None:  # noqa: D102
        for r in self.changes.values():
            if r is not None and r.kind == kind and r.name == name:
                return r
        found = self.base.named(kind, name)
        return None if found is None or found.digest in self.changes else found

    def recheck(self, digest: str) -> Record | None:  # noqa: D102 - documented on Catalog
        return self.changes[digest] if digest in self.changes else self.base.recheck(digest)

    def lost(self, kind: str, name: str) -> str | None:  # noqa: D102
        found = self.base.named(kind, name)
        if found is not None and found.digest in self.changes and \
                self.changes[found.digest] is None:
            return found.digest
        return None

    def referencing(self, digests: set[str]) -> list[Record]:  # noqa: D102
        kept = [r for r in self.base.referencing(digests) if r.digest not in self.changes]
        return kept + [r for r in self.changes.values() if r is not None and _refs(r) & digests]

    def listing(self, *, kind: str | None = None, workload: str | None = None,  # noqa: D102
                hardware: str | None = None, details: bool = True) -> list[Listed]:
        changes = self.changes
        kept = [e for e in self.base.listing(kind=kind, workload=workload, hardware=hardware,
                                             details=details) if e.digest not in changes]
        new = [Listed.of(r) for r in changes.values()
               if r is not None and _matches(r, kind, workload, hardware)]
        return sorted(kept + new, key=lambda e: (e.kind, e.name, e.digest)) if new else kept


def chain(present: dict[str, Loaded],
          fallback: Callable[[str], tuple[str, dict[str, Any]] | None]
          ) -> Callable[[str], tuple[str, dict[str, Any]] | None]:
    """Return a lookup that finds manifests in ``present`` first, then asks ``fallback``."""
    def lookup(digest: str) -> tuple[str, dict[str, Any]] | None:
        if digest in present:
            kind, _, spec = present[digest]
            return kind, spec
        return fallback(digest)

    return lookup


def describe_all(loaded: dict[str, Loaded], fallback: Any) -> dict[str, Record]:
    """Describe manifests, resolving references among them first, then with ``fallback``.

    Args:
        loaded: digest string to ``(kind, name, spec)``.
        fallback: ``lookup(digest) -> (kind, spec) | None`` for manifests not in ``loaded``.
    """
    described = Describer(chain(loaded, fallback))  # runs alike share their key's lookups
    return {d: described(d, kind, name, spec) for d, (kind, name, spec) in loaded.items()}
