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
from typing import Any, Generic, TypeVar

from ..core import canonical, layout
from ..core.comparison import RunKeys
from ..core.digest import Digest, is_digest
from ..core.errors import ConflictError, KistoreError, MetadataConflictError, MultipleErrors
from ..core.model import REFERENCE_FIELDS
from ..core.schema import KINDS
from ._renames import Moved
from ._views import View, WorkTreeView
from .name_changes import Rename, undo


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


def plan_names(view: WorkTreeView, head_holds: Callable[[str, bytes], bool] | None = None,
               moved: Callable[[dict[Digest, str]], dict[Digest, Moved]] | None = None
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
        moved: ``moved({digest: name})``: those manifests whose committed name was changed
            by hand (:meth:`kistore.store._renames.CommittedNames.moved`: in the work tree, or
            by a commit); asked once of the manifests whose names file is missing and once
            of those holding a name with another. None: nothing is committed.

    Returns:
        One :class:`NameWritten` per missing names file, sorted by path; empty when every
        manifest has its file.

    Raises:
        MultipleErrors: nothing is written when a name changed by hand is among them: a
            missing names file of a manifest another names file names already (a rename
            committed: reviewer break97 M1), or whose committed name differs (in the work
            tree, or changed by a commit in a store made before names were paths: last96
            item 2, last97 MED 2b); a name never moves (KI208), and a second names file
            is a second claim the gate refuses. Each says the name to set back (and the
            commits to drop), also when the new name is another manifest's (last97 MED
            2c). Else when a name is held by two manifests (KI205: give one another name
            first) or has a names file holding another digest or other bytes (KI211,
            KI212: a committed names file is never changed).
    """
    holders: dict[tuple[str, str], list[Digest]] = {}
    for key, digest in view._scan_holders(KINDS):  # noqa: SLF001 - this package's view
        holders.setdefault(key, []).append(digest)
    claimed: dict[str, dict[Digest, list[str]]] = {}

    def elsewhere(w: NameWritten) -> list[str]:
        """Return the names files naming ``w``'s manifest under another name (a kind read once)."""
        if w.kind not in claimed:
            claimed[w.kind] = view.names_records(w.kind)
        return _others(claimed[w.kind], w)

    def conflict(w: NameWritten, data: bytes) -> str:
        owner = layout.digest_from_record(data)
        held = f"holds {owner}" if owner is not None else "holds no digest"
        return (f"{held}, not {w.digest} whose metadata names {w.kind}/{w.name}: a names "
                "file is never rewritten; `kistore verify` says which is wrong (KI211, KI212)")

    names = _Lacking(view, head_holds, conflict)
    shared: list[list[NameWritten]] = []
    for (kind, name), digests in sorted(holders.items()):
        if not layout.is_name(name):
            continue
        if len(digests) > 1:
            shared.append([NameWritten(layout.name_path(kind, name), d, kind, name)
                           for d in sorted(digests)])
            continue
        names.take((NameWritten(layout.name_path(kind, name), digests[0], kind, name),
                    layout.name_record(digests[0])))
    # a name two hold because one was renamed onto it: the rename's fix, not KI205's
    renamed = _renamed([w for ws in shared for w in ws], elsewhere, moved)
    for ws in shared:
        for error in [renamed[w.digest] for w in ws if w.digest in renamed] or [
                _held_twice(ws)]:
            names.take(error)
    lacking = names.lacking()
    errors = _renamed(lacking, elsewhere, moved)
    if errors:
        raise MultipleErrors(list(errors.values()))
    return lacking


def _held_twice(ws: list[NameWritten]) -> KistoreError:
    """Return KI205's refusal of a name the manifests ``ws`` all hold (none renamed)."""
    return MetadataConflictError(  # the command line says how to re-add
        f"{ws[0].kind}/{ws[0].name} is held by {len(ws)} manifests "
        f"({', '.join(str(w.digest)[:19] for w in ws)}): a name belongs to "
        "one (KI205); a committed name never moves (KI208), so if two are "
        "committed this store cannot be migrated without rewriting its history "
        "(drop all but one from it, before anyone cites them); one not yet "
        "committed can take another metadata.name (added again with its "
        "metadata replaced), then migrate", file=ws[0].path)


def _renamed(ws: list[NameWritten], elsewhere: Callable[[NameWritten], list[str]],
             moved: Callable[[dict[Digest, str]], dict[Digest, Moved]] | None
             ) -> dict[Digest, KistoreError]:
    """Return the refusal of each of ``ws`` whose manifest's name was changed by hand.

    Args:
        ws: names files a migration would write (or a name several manifests hold).
        elsewhere: the names files naming a manifest under another name.
        moved: as :func:`plan_names` takes it (asked once, of all ``ws``).

    Returns:
        digest -> a :class:`ConflictError` on its metadata file saying the name to set
        back, and where the change is committed, the commits that changed it; in the
        order of ``ws``.
    """
    found = moved({w.digest: w.name for w in ws}) if moved is not None and ws else {}
    errors: dict[Digest, KistoreError] = {}
    for w in ws:
        paths = elsewhere(w)
        m = found.get(w.digest)
        if paths:  # the names file keeps the name (reviewer break97 M1)
            said = (f"is named by {paths[0]} already; a name never moves (KI208), so no names "
                    "file is written for another: ")
            first = paths[0].rsplit("/", 1)[-1]
        elif m is not None:
            said = (f"{'was' if m.renames else 'is'} committed as {w.kind}/{m.first}"
                    f"{_by(m.renames)}; a name never moves (KI208), so no names file is "
                    "written for the new name: ")
            first = m.first
        else:
            continue
        errors[w.digest] = ConflictError(
            f"{w.kind}/{w.name}: {w.digest} {said}{_put_back(w, first, m)}",
            file=layout.metadata_path(w.digest))
    return errors


def _by(moved: tuple[Rename, ...]) -> str:
    """Return `` and commit X changed its metadata.name`` (nothing for no commit)."""
    if not moved:
        return ""
    return (f" and {', '.join(r.said() for r in moved)} changed its metadata.name"
            if len(moved) == 1 or any(not r.droppable for r in moved) else
            f" and commits {', '.join(r.commit[:12] for r in moved)} changed its "
            "metadata.name")


def _put_back(w: NameWritten, first: str, m: Moved | None) -> str:
    """Say how to give ``w``'s manifest its name ``first`` back (:class:`Moved` ``m``).

    The work tree's edit: check the file out. Committed: undo the commits that changed
    it (:func:`kistore.store.name_changes.undo`: dropped, or reverted when a merge brought
    one in). Not known (none of the first-parent history's versions says the change): both
    ways.
    """
    path = layout.metadata_path(w.digest)
    if m is not None and not m.renames:
        return (f"restore its name (`git checkout HEAD -- {path}`, or set metadata.name back "
                f"to {first!r})")
    if m is None:
        return (f"restore its name (`git checkout HEAD -- {path}` if the change is not "
                f"committed; if it is, set metadata.name back to {first!r}, or drop the "
                "commits that changed it: `kistore check BASE..HEAD` names them)")
    return undo(m.renames, path, first)


def _others(claimed: dict[Digest, list[str]], w: NameWritten) -> list[str]:
    """Return the names files holding ``w``'s digest under another name than ``w``'s."""
    return [path for path in claimed.get(w.digest, []) if path != w.path]


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


def plan_runs(view: WorkTreeView, head_holds: Callable[[str, bytes], bool] | None = None,
              skipped: dict[str, ObjectSkipped] | None = None
              ) -> tuple[list[ForwardWritten], list[GroupWritten]]:
    """Return the forward records and the group files the work tree's runs lack, in one pass.

    Every object file is read, hashed and parsed once (O(store), once: a migration; until
    2026-12-05 twice, by a pass for each kind of file). A run whose object does not parse
    is left out (``verify`` reports it).

    Forward records: one per dangling reference. A digest whose object file is missing
    while a file under ``store/objects/`` holds its bytes (renamed by hand: to another
    digest's name, or ``NAME.json.bak``; :meth:`View.find_renamed`) is there, under another
    name: no record is written for it (reviewer r92 F2: KI213's advice, followed, wrote
    records that were stale once the file was put back, and ``verify`` said nothing of
    them). Group files: as :func:`plan_groups` finds them.

    Args:
        view: the work tree.
        head_holds: as :func:`plan_names` takes it (a record or group file in the work tree
            but not in HEAD is written again when the migration commits).
        skipped: when given, filled with each object file left out because its bytes do
            not hash to its name, and each renamed file whose digest no record is written
            for (path -> :class:`ObjectSkipped`).

    Returns:
        ``(forward records, group files)``: one :class:`ForwardWritten` per missing record
        and one :class:`GroupWritten` per missing group file, each list sorted by path.

    Raises:
        MultipleErrors: nothing is written when a record already holds other bytes (KI214),
            else when a group file does (KI216): a committed file is never rewritten;
            ``kistore verify`` says which is wrong.
    """
    objects = sorted(view.digests(), key=lambda d: d.hex)
    dangling = _Dangling(view, set(objects), skipped)
    keys = _run_keys(view)
    forward = _Lacking(view, head_holds, _forward_conflict)
    groups = _Lacking(view, head_holds, _group_conflict)
    for run, spec in _run_specs(view, objects, skipped):  # each object read once
        for item in dangling.records(run, spec):
            forward.take(item)
        group = _group_file(keys, run, spec)
        if group is not None:
            groups.take(group)
    return forward.lacking(), groups.lacking()


class _Dangling:
    """The forward records of runs' dangling references (:func:`plan_runs`).

    Args:
        view: the work tree.
        objects: every digest with an object file.
        skipped: as :func:`plan_runs` takes it (a renamed file is added when found).
    """

    def __init__(self, view: View, objects: set[Digest],
                 skipped: dict[str, ObjectSkipped] | None) -> None:
        self._view, self._objects, self._skipped = view, objects, skipped
        self._renamed: dict[Digest, str | None] = {}  # a missing digest -> its bytes' file

    def _moved(self, target: Digest) -> bool:
        """Whether ``target``'s bytes sit in a file renamed by hand (reviewer r92 F2)."""
        if target not in self._renamed:
            self._renamed[target] = path = self._view.find_renamed(target)
            if path is not None and self._skipped is not None and path not in self._skipped:
                self._skipped[path] = ObjectSkipped(
                    path, layout.digest_from_path(path), target,
                    self._view.restore_advice(layout.object_path(target), target))
        return self._renamed[target] is not None

    def records(self, run: Digest, spec: dict[str, Any]
                ) -> Iterator[tuple[ForwardWritten, bytes]]:
        """Yield the forward record of each dangling reference of ``run``, with its bytes."""
        fields: dict[str, list[str]] = {}
        for field_name in REFERENCE_FIELDS:
            ref = spec.get(field_name)
            if isinstance(ref, str) and is_digest(ref) and \
                    Digest.from_str(ref) not in self._objects and \
                    not self._moved(Digest.from_str(ref)):
                fields.setdefault(ref, []).append(field_name)
        for ref, named in sorted(fields.items()):
            target = Digest.from_str(ref)
            record = layout.forward_record(named)
            yield ForwardWritten(layout.forward_path(target, run), record, target, run), record


def _forward_conflict(w: ForwardWritten, data: bytes) -> str:
    """Say what is wrong with a forward record holding other bytes (``data``) than it must."""
    return (f"holds {data[:80]!r}, not {w.data!r} (the fields of {w.run} naming "
            f"{w.target}): a forward record is never rewritten; `kistore verify` says "
            "which is wrong (KI214)")


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

    Every object file is read (O(store), once: a migration; ``kistore migrate`` finds them
    with the forward records, in :func:`plan_runs`' one pass). A run's key is known when
    its protocol (and environment, when the key names the hardware) is stored, untampered
    and of its kind, as an add decides it (:class:`kistore.core.comparison.RunKeys`, which
    says the file and its bytes).

    Args:
        view: the work tree (or a commit: the gate asks whether a store without
            ``store/groups/`` needs a migration).
        head_holds: as :func:`plan_names` takes it (a group file in the work tree but not in
            HEAD is written again when the migration commits).
        skipped: as :func:`plan_runs` takes it.

    Returns:
        One :class:`GroupWritten` per missing group file, sorted by path.

    Raises:
        MultipleErrors: nothing is written when a group file already holds other bytes (a
            committed group file is never rewritten; ``kistore verify`` says which is
            wrong: KI216).
    """
    keys = _run_keys(view)
    groups = _Lacking(view, head_holds, _group_conflict)
    for run, spec in _run_specs(view, sorted(view.digests(), key=lambda d: d.hex), skipped):
        group = _group_file(keys, run, spec)
        if group is not None:
            groups.take(group)
    return groups.lacking()


def _run_keys(view: View) -> RunKeys:
    """Return the runs' key objects, read from ``view``'s object files."""
    return RunKeys(lambda hex_: view.read(layout.object_path(Digest(hex_))))


def _group_file(keys: RunKeys, run: Digest, spec: dict[str, Any]
                ) -> tuple[GroupWritten, bytes] | None:
    """Return the group file of ``run`` with its bytes; None when its key is not known."""
    group = keys.group({f: spec[f] for f in REFERENCE_FIELDS if is_digest(spec.get(f))})
    if group is None:
        return None
    key, record = group
    return GroupWritten(layout.group_path(key, run), record, key, run), record


def _group_conflict(w: GroupWritten, data: bytes) -> str:
    """Say what is wrong with a group file holding other bytes (``data``) than it must."""
    return (f"holds {data[:80]!r}, not {w.data[:80]!r} (the key object of {w.run}): a "
            "group file is never rewritten; `kistore verify` says which is wrong (KI216)")


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


class _Lacking(Generic[Written]):
    """The files a migration must write of those the manifests need, or every reason not to.

    The one check of :func:`plan_names`, :func:`plan_runs` and :func:`plan_groups`: each
    file the manifests need is handed to :meth:`take` as it is found (one pass may fill
    several), then :meth:`lacking` answers.

    Args:
        view: the work tree.
        head_holds: as :func:`plan_names` takes it.
        conflict: what to say of a file that holds other bytes (``data``) than it must.
    """

    def __init__(self, view: View, head_holds: Callable[[str, bytes], bool] | None,
                 conflict: Callable[[Written, bytes], str]) -> None:
        self._view, self._head_holds = view, head_holds
        self._conflict: Callable[[Written, bytes], str] = conflict
        self._lacking: list[Written] = []
        self._errors: list[KistoreError] = []

    def take(self, item: tuple[Written, bytes] | KistoreError) -> None:
        """Take one file the manifests need (what is written, its bytes), or a reason."""
        if isinstance(item, KistoreError):
            self._errors.append(item)
            return
        written, record = item
        data = self._view.read(written.path)
        if data == record and (self._head_holds is None or
                               self._head_holds(written.path, data)):
            return
        if data is not None and data != record:
            self._errors.append(ConflictError(self._conflict(written, data),
                                              file=written.path))
            return
        self._lacking.append(written)

    def lacking(self) -> list[Written]:
        """Return the files to write, sorted by path.

        Those absent from the work tree, and with ``head_holds``, those it has but HEAD
        does not.

        Raises:
            MultipleErrors: every reason taken, and a :class:`ConflictError` per file
                holding other bytes (a committed file is never rewritten).
        """
        if self._errors:
            raise MultipleErrors(self._errors)
        return sorted(self._lacking, key=lambda w: w.path)
