"""Layout migrations: the files a store written by an earlier kistore lacks.

``kistore migrate`` (:meth:`kistore.store.Store.migrate`) writes them through the add's
own write path (work tree, or ``--commit``). The names files
(``store/names/<Kind>/<XX>/<name>``, docs/design.md §3) of a store whose manifests were
added before names were paths, the forward records
(``store/forward/sha256/<XX>/<62 hex>/<run hex>``) of its runs' dangling references, and the
group files (``store/groups/sha256/<XX>/<62 hex of the key>/<run hex>``) of its runs whose
comparison key is known. It is idempotent: a second run finds nothing to write.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, TypeVar

from ..core import canonical, layout
from ..core.comparison import RunKeys
from ..core.digest import Digest, is_digest
from ..core.errors import ConflictError, KistoreError, MetadataConflictError, MultipleErrors
from ..core.model import REFERENCE_FIELDS
from ..core.schema import KINDS
from ._views import View, WorkTreeView


@dataclass(frozen=True, slots=True)
class NameWritten:
    """One names file a migration writes.

    Attributes:
        path: its repository path (:func:`kistore.core.layout.name_path`).
        digest: the owning manifest's digest, which the file holds.
        kind: the manifest's kind.
        name: its ``metadata.name``.
    """

    path: str
    digest: Digest
    kind: str
    name: str


def plan_names(view: WorkTreeView, head_holds: Callable[[str, bytes], bool] | None = None
               ) -> list[NameWritten]:
    """Return the names file each manifest of the work tree lacks, or every reason not to.

    Every object and metadata file is read (O(store), once per store: a migration), not the
    derived index: what is written is committed for good. A manifest whose files do not
    parse, or whose name the schema does not allow, is left out (``kistore verify`` reports
    it: KI102, KI104).

    Args:
        view: the work tree.
        head_holds: for a migration that commits, ``holds(path, data)``: True when HEAD's
            tree has exactly ``data`` at ``path``; a names file already in the work tree
            but not in HEAD (a migration run without ``--commit``) is then written again,
            so that it is committed. None: the work tree is all that counts.

    Returns:
        One :class:`NameWritten` per missing names file, sorted by path; empty when every
        manifest has its file.

    Raises:
        MultipleErrors: nothing is written when any name is held by two manifests (KI205:
            give one another name first) or has a names file holding another digest or
            other bytes (KI211, KI212: a committed names file is never changed).
    """
    holders: dict[tuple[str, str], list[Digest]] = {}
    for key, digest in view._scan_holders(KINDS):  # noqa: SLF001 - this package's view
        holders.setdefault(key, []).append(digest)

    def wanted() -> Iterator[tuple[NameWritten, bytes] | KistoreError]:
        for (kind, name), digests in sorted(holders.items()):
            if not layout.is_name(name):
                continue
            path = layout.name_path(kind, name)
            if len(digests) > 1:
                yield MetadataConflictError(  # the command line says how to re-add
                    f"{kind}/{name} is held by {len(digests)} manifests "
                    f"({', '.join(str(d)[:19] for d in sorted(digests))}): a name belongs to "
                    "one (KI205); a committed name never moves (KI208), so if two are "
                    "committed this store cannot be migrated without rewriting its history "
                    "(drop all but one from it, before anyone cites them); one not yet "
                    "committed can take another metadata.name (added again with its "
                    "metadata replaced), then migrate", file=path)
                continue
            yield NameWritten(path, digests[0], kind, name), layout.name_record(digests[0])

    def conflict(w: NameWritten, data: bytes) -> str:
        owner = layout.digest_from_record(data)
        held = f"holds {owner}" if owner is not None else "holds no digest"
        return (f"{held}, not {w.digest} whose metadata names {w.kind}/{w.name}: a names "
                "file is never rewritten; `kistore verify` says which is wrong (KI211, KI212)")

    return _lacking(view, head_holds, wanted(), conflict)


@dataclass(frozen=True, slots=True)
class ForwardWritten:
    """One forward record a migration writes.

    Attributes:
        path: its repository path (:func:`kistore.core.layout.forward_path`).
        data: its bytes (:func:`kistore.core.layout.forward_record`).
        target: the referenced digest that has no object.
        run: the run that references it.
    """

    path: str
    data: bytes
    target: Digest
    run: Digest


def plan_forward(view: WorkTreeView, head_holds: Callable[[str, bytes], bool] | None = None,
                 skipped: dict[str, ObjectSkipped] | None = None) -> list[ForwardWritten]:
    """Return the forward record each dangling reference of the work tree's runs lacks.

    Every object file is read (O(store), once: a migration). A run whose object does not
    parse is left out (``verify`` reports it). A digest whose object file is missing while
    a file under ``store/objects/`` holds its bytes (renamed by hand: to another digest's
    name, or ``NAME.json.bak``; :meth:`View.find_renamed`) is there, under another name:
    no record is written for it (reviewer r92 F2: KI213's advice, followed, wrote records
    that were stale once the file was put back, and ``verify`` said nothing of them).

    Args:
        view: the work tree.
        head_holds: as :func:`plan_names` takes it (a record in the work tree but not in
            HEAD is written again when the migration commits).
        skipped: when given, filled with each object file left out because its bytes do
            not hash to its name, and each renamed file whose digest no record is written
            for (path -> :class:`ObjectSkipped`).

    Returns:
        One :class:`ForwardWritten` per missing record, sorted by path.

    Raises:
        MultipleErrors: nothing is written when a record already holds other bytes (a
            committed record is never rewritten; ``kistore verify`` says which is wrong:
            KI214).
    """
    objects = set(view.digests())
    renamed: dict[Digest, str | None] = {}  # a missing digest -> the file holding its bytes

    def moved(target: Digest) -> bool:
        """Whether ``target``'s bytes sit in a file renamed by hand (reviewer r92 F2)."""
        if target not in renamed:
            renamed[target] = path = view.find_renamed(target)
            if path is not None and skipped is not None and path not in skipped:
                skipped[path] = ObjectSkipped(path, layout.digest_from_path(path), target,
                                              view.restore_advice(layout.object_path(target),
                                                                  target))
        return renamed[target] is not None

    def wanted() -> Iterator[tuple[ForwardWritten, bytes]]:
        for run, spec in _run_specs(view, sorted(objects, key=lambda d: d.hex), skipped):
            fields: dict[str, list[str]] = {}
            for field_name in REFERENCE_FIELDS:
                ref = spec.get(field_name)
                if isinstance(ref, str) and is_digest(ref) and \
                        Digest.from_str(ref) not in objects and not moved(Digest.from_str(ref)):
                    fields.setdefault(ref, []).append(field_name)
            for ref, named in sorted(fields.items()):
                target = Digest.from_str(ref)
                record = layout.forward_record(named)
                yield ForwardWritten(layout.forward_path(target, run), record, target, run), record

    def conflict(w: ForwardWritten, data: bytes) -> str:
        return (f"holds {data[:80]!r}, not {w.data!r} (the fields of {w.run} naming "
                f"{w.target}): a forward record is never rewritten; `kistore verify` says "
                "which is wrong (KI214)")

    return _lacking(view, head_holds, wanted(), conflict)


@dataclass(frozen=True, slots=True)
class ObjectSkipped:
    """An object file a migration leaves out: its bytes do not hash to its name (KI101).

    A file renamed by hand (reviewer r90b F4) or edited: a group file or forward record
    written for the digest its name says would be one for a run that does not exist (a
    KI216 left after the file is put back), and one for the digest its bytes are would be
    stale once it is put back (r92 F2; a ``NAME.json.bak`` too, whose name says no digest:
    KI110). Nothing is written for it; ``kistore migrate`` names it with what to do.

    Attributes:
        path: the object file's repository path.
        digest: the digest its name says (None: its name is no object path, KI110).
        holds: the digest its bytes hash to.
        advice: what to do (:meth:`kistore.store.View.restore_advice`: the ``mv`` back
            for a renamed file), a clause starting in lower case.
    """

    path: str
    digest: Digest | None
    holds: Digest
    advice: str

    def message(self) -> str:
        """Return the one line ``kistore migrate`` prints of it (no final period)."""
        if self.digest is None:
            return (f"{self.path}: skipped: no object path of the layout (KI110), its sha256 "
                    f"is {self.holds}, so nothing is written for it; {self.advice}")
        return (f"{self.path}: skipped: its sha256 is {self.holds}, not the digest its name "
                f"says (KI101), so nothing is written for it; {self.advice}")


@dataclass(frozen=True, slots=True)
class GroupWritten:
    """One group file a migration writes.

    Attributes:
        path: its repository path (:func:`kistore.core.layout.group_path`).
        data: its bytes (:func:`kistore.core.layout.group_record` of the key object).
        key: the run's comparison key (the sha256 of ``data``).
        run: the run.
    """

    path: str
    data: bytes
    key: Digest
    run: Digest


def plan_groups(view: View, head_holds: Callable[[str, bytes], bool] | None = None,
                skipped: dict[str, ObjectSkipped] | None = None) -> list[GroupWritten]:
    """Return the group file each run of the work tree whose comparison key is known lacks.

    Every object file is read (O(store), once: a migration). A run's key is known when its
    protocol (and environment, when the key names the hardware) is stored, untampered and
    of its kind, as an add decides it (:class:`kistore.core.comparison.RunKeys`, which says
    the file and its bytes).

    Args:
        view: the work tree (or a commit: the gate asks whether a store without
            ``store/groups/`` needs a migration).
        head_holds: as :func:`plan_names` takes it (a group file in the work tree but not in
            HEAD is written again when the migration commits).
        skipped: as :func:`plan_forward` takes it.

    Returns:
        One :class:`GroupWritten` per missing group file, sorted by path.

    Raises:
        MultipleErrors: nothing is written when a group file already holds other bytes (a
            committed group file is never rewritten; ``kistore verify`` says which is
            wrong: KI216).
    """
    objects = sorted(view.digests(), key=lambda d: d.hex)
    keys = RunKeys(lambda hex_: view.read(layout.object_path(Digest(hex_))))

    def wanted() -> Iterator[tuple[GroupWritten, bytes]]:
        for run, spec in _run_specs(view, objects, skipped):
            group = keys.group({f: spec[f] for f in REFERENCE_FIELDS if is_digest(spec.get(f))})
            if group is not None:
                key, record = group
                yield GroupWritten(layout.group_path(key, run), record, key, run), record

    def conflict(w: GroupWritten, data: bytes) -> str:
        return (f"holds {data[:80]!r}, not {w.data[:80]!r} (the key object of {w.run}): a "
                "group file is never rewritten; `kistore verify` says which is wrong (KI216)")

    return _lacking(view, head_holds, wanted(), conflict)


def _run_specs(view: View, digests: Iterable[Digest],
               skipped: dict[str, ObjectSkipped] | None = None
               ) -> Iterator[tuple[Digest, dict[str, Any]]]:
    """Yield ``(digest, spec)`` of each BenchmarkRun among ``digests`` whose object parses.

    Objects that do not parse or are of another kind are passed over: ``verify`` names them.
    So is an object whose bytes do not hash to its name (KI101: renamed by hand or
    edited), added to ``skipped`` when given: nothing may be written for the run its name
    says, which does not exist (reviewer r90b F4).
    """
    for digest in digests:
        path = layout.object_path(digest)
        try:
            data = view.read(path)
        except KistoreError:
            continue
        if data is None:
            continue
        # hashed once a view: find_renamed and restore_advice ask of it again (data given:
        # nothing is read, nothing raised)
        holds = view.sha256_of(path, data)
        if holds is not None and holds != digest:
            if skipped is not None and data and path not in skipped:
                skipped[path] = ObjectSkipped(path, digest, holds,
                                              view.restore_advice(path, digest))
            continue
        try:
            doc = canonical.loads(data)
        except KistoreError:
            continue
        spec = doc.get("spec") if isinstance(doc, dict) else None
        if isinstance(spec, dict) and doc.get("kind") == "BenchmarkRun":
            yield digest, spec


def uncommitted(view: WorkTreeView, head: View | None) -> list[Digest]:
    """Return the manifests of the work tree that HEAD does not hold byte for byte.

    What ``kistore migrate --commit`` refuses to commit beside: a names file, forward
    record or group file is written for every manifest of the work tree, and one committed
    for a manifest HEAD lacks (added without ``--commit``) would fail ``verify --at HEAD``
    and the gate (KI212, KI216; a committed run naming such a manifest would lack its
    forward record, KI213). Each object and metadata file is read once and compared with
    HEAD's blob id (:meth:`View.holds`: no blob is read).

    Args:
        view: the work tree.
        head: HEAD's view; None when there is no commit yet (every manifest is new).

    Returns:
        The digests whose object or metadata file HEAD lacks or holds other bytes of (a
        metadata file replaced without ``--commit``), sorted.
    """
    found = []
    for digest in sorted(view.digests(), key=lambda d: d.hex):
        paths = (layout.object_path(digest), layout.metadata_path(digest))
        if head is not None:
            head.modes_of(paths)  # a commit's view keeps their blob ids: no blob is read
        for path in paths:
            data = view.read(path)
            if data is not None and (head is None or not head.holds(path, data)):
                found.append(digest)
                break
    return found


Written = TypeVar("Written", NameWritten, ForwardWritten, GroupWritten)


def _lacking(view: View, head_holds: Callable[[str, bytes], bool] | None,
             wanted: Iterable[tuple[Written, bytes] | KistoreError],
             conflict: Callable[[Written, bytes], str]) -> list[Written]:
    """Return the files of ``wanted`` the work tree lacks, or every reason not to write them.

    The one loop of :func:`plan_names`, :func:`plan_forward` and :func:`plan_groups`.

    Args:
        view: the work tree.
        head_holds: as :func:`plan_names` takes it.
        wanted: per file the manifests need, what is written and the bytes it holds; or a
            reason nothing may be written (raised with the others).
        conflict: what to say of a file that holds other bytes (``data``) than it must.

    Returns:
        The files to write, sorted by path: those absent from the work tree, and with
        ``head_holds``, those it has but HEAD does not.

    Raises:
        MultipleErrors: every reason of ``wanted``, and a :class:`ConflictError` per file
            holding other bytes (a committed file is never rewritten).
    """
    lacking: list[Written] = []
    errors: list[KistoreError] = []
    for item in wanted:
        if isinstance(item, KistoreError):
            errors.append(item)
            continue
        written, record = item
        data = view.read(written.path)
        if data == record and (head_holds is None or head_holds(written.path, data)):
            continue
        if data is not None and data != record:
            errors.append(ConflictError(conflict(written, data), file=written.path))
            continue
        lacking.append(written)
    if errors:
        raise MultipleErrors(errors)
    return sorted(lacking, key=lambda w: w.path)
