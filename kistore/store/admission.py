"""What an add admits: the checks made before any file is written, and the files to write.

An add is all or nothing (docs/design.md §3): every refusal in a batch is found first (a name
already taken, metadata that differs from what is stored, a corrupt stored object, a
dangling reference), and only a batch with none is written. :func:`plan_add` makes those
checks against a work tree and returns the exact files to write; :mod:`kistore.store` writes
them (and commits them) under its write lock.
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ..core import canonical, layout
from ..core.canonical_fast import loads_lenient
from ..core.comparison import REFERENCE_KINDS, RunKeys
from ..core.digest import Digest, is_digest
from ..core.errors import (
    ConflictError,
    InputError,
    KistoreError,
    MetadataConflictError,
    MultipleErrors,
    ResolutionError,
    VerificationError,
    one_line,
    with_article,
)
from ..core.model import REFERENCE_FIELDS, Manifest, metadata_name, wrong_kind, wrong_kind_answer
from ..core.provenance import provenance_changes, quoted_annotation
from ..core.restore import restore_advice
from ._views import WorkTreeView
from .landed import measure
from .run_facts import RunFacts, facts_of


@dataclass(frozen=True, slots=True)
class AddResult:
    """What ``add`` did with one manifest.

    Attributes:
        digest: the manifest's digest.
        kind: its kind.
        name: its ``metadata.name``.
        status: ``added`` (new object, one whose files an add killed mid-write left
            unfinished, or, with ``commit``, one in the work tree that ``HEAD`` lacks: this
            add commits it), ``unchanged`` (already stored, same metadata) or
            ``metadata-updated`` (already stored; metadata replaced on request).
        warnings: what an admission check warned of about this manifest without refusing
            it (:class:`kistore.store.AdmissionWarning`), each in the one-line form
            ``FILE[:LINE]:/pointer: message``; empty for most.
        completed: the group files (paths) this add wrote for earlier runs whose
            comparison key this manifest, stored already, completes (a protocol or
            environment merged beside a run that named it while it dangled: KI215, low00);
            empty for most.
    """

    digest: Digest
    kind: str
    name: str
    status: str
    warnings: tuple[str, ...] = ()
    completed: tuple[str, ...] = ()


@dataclass(slots=True)
class AddPlan:
    """The outcome of :func:`plan_add`: what to report and what to write.

    Attributes:
        results: one :class:`AddResult` per distinct manifest, in input order.
        files: work-tree path (``/``-separated) -> exact bytes to write: a new
            manifest's object, metadata and names file (:func:`kistore.core.layout.
            name_path`); a names file missing beside a stored manifest too; a forward record
            (:func:`kistore.core.layout.forward_path`) per dangling reference of a new run;
            a group file (:func:`kistore.core.layout.group_path`) per run whose comparison
            key the add makes known (a new run, or an earlier one whose protocol or
            environment the add brings); empty when the store already holds everything.
        written: each manifest whose files change, with its object and metadata paths
            (for the index's names).
        stale: names files to remove once the files are written: the old name of a
            manifest renamed (``--update-metadata``) before it was ever committed.
        work_tree_only: paths of ``files`` an add that commits writes but leaves out of its
            commit: the group file of an earlier run HEAD does not hold (added without
            ``--commit``), which would put into HEAD's comparison groups a run HEAD lacks
            (KI216). The run's own ``add --commit`` commits it later. Empty without
            ``commit``.
        checked: the hex digests of the manifests checked as new (every rule of an add
            ran on them, :func:`plan_add`): those it adds, the leftovers of a killed add
            among them (:func:`_left_unfinished`), and with ``commit`` every manifest HEAD
            lacks (one a plain add wrote too). The layers' admission checks run on these.
        groups: run hex -> its comparison group's directory (:func:`kistore.core.layout.
            group_dir`), for every run of the add whose key is known (a run ``checked``
            lacking here has none yet), its group file written now or already there: what
            KI232's admission reads (:func:`kistore.store.claims.claims_admitted`), the
            keys computed once an add.
    """

    results: list[AddResult] = field(default_factory=list)
    files: dict[str, bytes] = field(default_factory=dict)
    written: list[tuple[Manifest, str, str]] = field(default_factory=list)
    stale: list[str] = field(default_factory=list)
    work_tree_only: set[str] = field(default_factory=set)
    checked: set[str] = field(default_factory=set)
    groups: dict[str, str] = field(default_factory=dict)


def plan_add(view: WorkTreeView, manifests: Sequence[Manifest], *, allow_dangling: bool,
             update_metadata: bool, commit: bool, origins: Mapping[Digest, Any] | None,
             head_holds: Callable[[str, bytes], bool],
             head_read: Callable[[str], bytes | None] | None = None,
             landed: Callable[[str], bytes | None] | None = None,
             places: Sequence[Any] | None = None) -> AddPlan:
    """Check a batch against the work tree; return what to write, or every refusal.

    Args:
        view: the work tree (the index's names answer name lookups).
        manifests: validated manifests, in input order (duplicates allowed).
        allow_dangling: admit runs whose references are neither stored nor in the batch.
        update_metadata: replace the metadata of an already stored object when it differs.
        commit: the files will be committed: a file already in the work tree but not in
            HEAD (``head_holds`` says no) is written again, so that it is committed.
        origins: where each manifest came from (a file name or a
            :class:`kistore.store.inputs.Located`), named in the errors.
        head_holds: ``holds(path, data)``: True when HEAD's tree has exactly ``data``.
        head_read: ``read(path)``: HEAD's bytes at ``path``, or None. A committed object's
            metadata is judged against HEAD's (a name never moves, KI432's annotations
            stay) when the work tree's file is not HEAD's: edited or broken there, it is no
            measure (reviewer break96 H3: a broken file's name was taken as the stored one
            and the run renamed). None: the work tree's file is the measure.
        landed: ``last(path)``: the bytes of the last committed version of a metadata
            file that parses (:func:`kistore.store.landed.last_measure`), asked when HEAD's
            does not, or HEAD has none while it holds the object: that version is then the
            measure of the name and the ``kernelindex.dev/*`` annotations (last96 1b).
            None: HEAD's file is, parsed or not.
        places: where each of ``manifests`` came from, in their order (as ``origins``'
            values): a digest given again with other metadata is refused at that copy,
            the second, third ... each at its own (``origins`` holds one place a digest;
            fresh01 F5: an object given three times had both refusals at the third).
            None: ``origins``' place.

    Returns:
        The :class:`AddPlan`.

    Raises:
        PlanRefused: a :class:`MultipleErrors` of every refusal, each located in its input,
            with the plan of the manifests the second pass can judge (those it refused
            too, unless a reference of theirs names another kind): the same digest twice
            with different metadata; a ``(kind, metadata.name)`` already used by another
            digest (in the index's names, or by its names file holding another digest); a
            stored object file whose bytes are not the manifest's; stored metadata that
            differs, unless ``update_metadata``, and with it another
            ``metadata.name`` than HEAD holds (a committed name never moves); dangling
            references, unless ``allow_dangling``; a reference to a manifest of another
            kind than its field names (stored or in the batch).
    """
    # Keyed by digest hex: a Digest hashes in Python, a str in C (a million lookups).
    unique: dict[str, Manifest] = {}
    errors: list[KistoreError] = []
    given: dict[str, int] = {}  # how many times each digest came, once it came again
    for i, m in enumerate(manifests):
        first = unique.setdefault(m.digest.hex, m)
        if first is not m:
            given[m.digest.hex] = given.get(m.digest.hex, 1) + 1
        if first.metadata_bytes != m.metadata_bytes:
            differs = metadata_difference(first.metadata_bytes, m.metadata_bytes,
                                          "first", "then")
            times = given[m.digest.hex]
            errors.append(ConflictError(
                f"{m.digest} appears {'twice' if times == 2 else f'{times} times'} in this "
                f"input with different metadata ({differs})",
                pointer="/metadata",
            ))
            locate(errors[-1], places[i] if places is not None else
                   (origins or {}).get(m.digest))
    # a name held by a digest no object file holds is looked up again (fresh15 F6)
    names = view.stored_owners(view.name_owners(list({(m.kind, m.name)
                                                      for m in unique.values()})), unique)
    # each names file's path made once (its shard is a sha256 of the name)
    name_paths = {key: layout.name_path(*key) for key in {(m.kind, m.name)
                                                          for m in unique.values()}}
    claims = _names_files(view, name_paths)
    stored = _stored_objects(view, {*unique, *(h for m in unique.values()
                                               for h in m.reference_hex if h)})
    batch_names: dict[tuple[str, str], Digest] = {}
    kinds_read: dict[str, str | None] = {}  # stored references' kinds, each read once
    results: list[AddResult] = []
    files: dict[str, bytes] = {}
    written: list[tuple[Manifest, str, str]] = []  # for the index's names
    stale: list[str] = []
    checked: set[str] = set()
    unjudged: set[str] = set()  # refused, and the second pass cannot judge them (low01)
    for hex_, m in unique.items():
        digest = m.digest
        problems: list[KistoreError] = []
        key = (m.kind, m.name)
        claimed = claims.get(key)  # the names file's digest: a taken name is a path
        owner = names.get(key) or claimed or batch_names.setdefault(key, digest)
        if owner == digest and claimed is not None and claimed != digest:
            owner = claimed  # a names file holds the name for another digest
        if owner != digest:
            where = "" if key in names else _place((origins or {}).get(owner))
            if owner == claimed and names.get(key) != claimed:  # known by its names file only
                where = f" (its names file {layout.name_path(*key)} says so)"
                if not _owns(view, owner, key):
                    problems.append(ConflictError(_bogus_claim(key, owner),
                                                  pointer="/metadata/name"))
                    owner = digest  # said above; the rest of this manifest is checked
            if owner != digest:
                problems.append(ConflictError(
                    f"{m.kind} name {m.name!r} is already used by {owner}{where}; names "
                    f"are unique per kind: {_name_advice(view, owner, unique, head_holds)}",
                    pointer="/metadata/name"))
        object_path, metadata_path = layout.object_path(digest), layout.metadata_path(digest)
        status = "added"
        # stored, not committed: this add commits it (an earlier plain add's, or a leftover)
        uncommitted = commit and hex_ in stored and not head_holds(object_path, m.object_bytes)
        if hex_ in stored:
            stored_metadata = view.read(metadata_path)
            if view.read(object_path) != m.object_bytes:
                problems.append(VerificationError(
                    f"the stored object file {object_path} is corrupt (its bytes are not "
                    "this manifest's canonical bytes); " + restore_advice(
                        object_path, digest, head_holds(object_path, m.object_bytes)),
                    pointer="",
                ))
            elif (stored_metadata is None or claimed != digest) and _left_unfinished(
                    view, m, stored_metadata, claimed, head_holds):
                pass  # "added": checked and written as if its files were not there
            elif stored_metadata == m.metadata_bytes:
                status = "unchanged"
            elif stored_metadata is not None and not update_metadata and (
                    metadata_name(stored_metadata) == m.name
                    or not head_holds(metadata_path, stored_metadata)) and \
                    not _provenance_moved(stored_metadata, m, head_holds(
                        metadata_path, stored_metadata)):
                problems.append(MetadataConflictError(  # the command line says its option
                    f"{digest} is already stored with other metadata ("
                    f"{metadata_difference(stored_metadata, m.metadata_bytes)})",
                    pointer="/metadata",
                ))
                # stored: not checked as new (its dangling references were let dangle when
                # it was added; fresh98: "pass --allow-dangling" beside this was spurious)
                status = "conflict"
            else:  # replaced, or refused below: a committed name (even without the flag)
                status = "metadata-updated"
                if head_read is not None and head_holds(object_path, m.object_bytes) and not (
                        stored_metadata is not None
                        and head_holds(metadata_path, stored_metadata)):
                    # a committed object's metadata edited in the work tree: HEAD's counts
                    stored_metadata = head_read(metadata_path) or stored_metadata
                committed = stored_metadata is not None and head_holds(metadata_path,
                                                                       stored_metadata)
                if landed is not None and measure(stored_metadata) is None and (
                        committed or stored_metadata is None) and head_holds(
                        object_path, m.object_bytes):
                    # HEAD's file does not parse, or is gone: the last committed version
                    # that parses is the measure (last96 1b: a broken commit between let
                    # a name and licence move)
                    last = landed(metadata_path)
                    if last is not None:
                        stored_metadata, committed = last, True
                stored_name = metadata_name(stored_metadata)
                if (stored_name is not None and stored_name != m.name
                        and stored_metadata is not None and committed):
                    problems.append(ConflictError(
                        f"{digest} is stored as {m.kind}/{stored_name}; a name never moves "
                        f"(people cite and link it), so it cannot become {m.name!r}: keep "
                        "the name and correct the title or other metadata",
                        pointer="/metadata/name"))
                if stored_metadata is not None and committed:
                    # beside a renamed name too: every problem said in one run (break97 L1)
                    problems += _provenance_moved(stored_metadata, m, True)
                elif stored_name is not None and stored_name != m.name and \
                        layout.is_name(stored_name):  # renamed before it was committed
                    old = layout.name_path(m.kind, stored_name)
                    if view.read(old) == layout.name_record(digest) and \
                            not head_holds(old, layout.name_record(digest)):
                        stale.append(old)
        # What this add writes or commits for the first time is checked as new: an object
        # file a killed add left, or one only a plain add wrote, is no proof of checks run.
        # (A whole plain add lacks no forward record: it let each reference dangle.)
        fresh = status == "added" or uncommitted
        if not commit and status == "unchanged" and m.kind == "BenchmarkRun" and \
                _forward_records(view, m, unique, stored, commit=False, head_holds=head_holds):
            fresh, status = True, "added"  # killed before its forward records
        # what the run states alone, found once for every rule (in the parse workers of
        # a bulk add), its spec not kept on the manifest (issue 22)
        facts = facts_of(m) if m.kind == "BenchmarkRun" and (
            fresh or status != "unchanged") else None
        if facts is not None:  # verify's KI209, before writing
            if facts.id_disagreement is not None:
                problems.append(InputError(facts.id_disagreement, pointer="/metadata/name",
                                           rule_id="KI209"))
            problems += _unproven_claim(facts)  # KI226: a new run, or its new metadata
        if fresh:
            checked.add(hex_)
            problems += _problems_as_new(view, m, facts, unique, stored, kinds_read,
                                         allow_dangling=allow_dangling,
                                         recorded=status != "added")
            files[object_path] = m.object_bytes
        if status != "unchanged" or object_path in files or (
                commit and not head_holds(metadata_path, m.metadata_bytes)):
            files[metadata_path] = m.metadata_bytes
        name_path, record = name_paths[key], layout.name_record(digest)
        if object_path in files or claimed != digest or (
                commit and not head_holds(name_path, record)):
            files[name_path] = record  # the name is claimed with the object (or repaired)
        if object_path in files or commit:
            files.update(_forward_records(view, m, unique, stored, commit=commit,
                                          head_holds=head_holds))
        # said "added" when HEAD lacks it: this add commits it (r88 F2b: after a killed
        # import, the retry that committed 750 runs said "added 0, unchanged 750")
        results.append(AddResult(digest, m.kind, m.name,
                                 "added" if uncommitted and status == "unchanged" else status))
        if status != "unchanged":
            written.append((m, object_path, metadata_path))
        if problems:
            for problem in problems:
                locate(problem, (origins or {}).get(digest))
            errors.extend(problems)
    misnamed: dict[str, list[str]] = {}
    earlier = _earlier_runs(view, unique, files, misnamed)
    # a protocol or environment stored already completes the key of an earlier run too
    # (two pull requests merged: the run dangled on it in one, it arrived in the other)
    settled = [r.digest.hex for r in results if r.status in ("unchanged", "metadata-updated")
               and r.kind in REFERENCE_KINDS.values()]
    completing = _earlier_runs(view, unique, files, misnamed, also=settled) if settled else {}
    results = [replace(r, warnings=(*r.warnings, *misnamed[r.digest.hex]))
               if r.digest.hex in misnamed else r for r in results]
    for arriving, refusal in _answered_with_wrong_kind(view, unique, earlier):
        locate(refusal, (origins or {}).get(arriving))
        errors.append(refusal)
        unjudged.add(arriving.hex)  # its reference names another kind: no group to judge in
    if commit:
        errors += _uncommitted_references(view, unique, stored, origins, head_holds)
    # a plain add's run whose group file is missing was left by an add killed before it
    # (group files come last); it is checked as new, and its file written. (Not one whose
    # key this add makes known: a manifest it names arrives now.)
    new_here = {h for h in unique if h in checked}
    whole = set() if commit else {h for h, m in unique.items() if m.kind == "BenchmarkRun"
                                  and h not in checked and h in stored
                                  and new_here.isdisjoint(m.reference_hex)}
    groups, work_tree_only, keyed = _group_files(view, unique, files,
                                                 {**completing, **earlier}, commit=commit,
                                                 head_holds=head_holds, also=whole)
    if completing:  # said of the stored manifest: an add of it wrote files after all
        results = [replace(r, completed=tuple(sorted(
            path for path in groups if path.rpartition("/")[2] in completing[r.digest.hex])))
            if r.digest.hex in completing else r for r in results]
    unfinished = whole & {path.rpartition("/")[2] for path in groups}
    for i, result in enumerate(results):
        if result.digest.hex in unfinished:
            m = unique[result.digest.hex]
            problems = _problems_as_new(view, m, facts_of(m), unique, stored, kinds_read,
                                        allow_dangling=allow_dangling, recorded=True)
            for problem in problems:
                locate(problem, (origins or {}).get(m.digest))
            errors += problems
            checked.add(m.digest.hex)
            results[i] = replace(result, status="added")
            written.append((m, layout.object_path(m.digest), layout.metadata_path(m.digest)))
    if errors:  # with the plan: the second pass judges what it can, refused or not (low01)
        raise PlanRefused(errors, AddPlan(results, files, written, stale, work_tree_only,
                                          checked - unjudged, keyed))
    files.update(groups)
    return AddPlan(results, files, written, stale, work_tree_only, checked, keyed)


class PlanRefused(MultipleErrors):
    """:func:`plan_add`'s refusal, with the plan of the manifests it did not refuse.

    The add's rules are two passes: :func:`plan_add`'s, on each manifest and its
    references, then the admission checks (``Store.add``'s ``checks``: KI232, KI238, the
    query layer's KI210, KI234, KI221), which read the plan's comparison groups. A refusal
    of the second pass showed only once the first found nothing (cause99): an import
    fixed one row and was refused again for another. ``Store.add`` runs the second pass
    on :attr:`plan`'s ``checked`` and refuses both passes' problems at once (low00). The
    manifests the first pass refused are judged too (low01: a KI232 between a refused run
    and a clean one of the batch showed only after the first fix), except one a reference
    of which names a manifest of another kind (its comparison group, and what the checks
    read through that reference, are not what it says).

    Args:
        errors: the first pass's problems.
        plan: the plan as far as it was made; its ``checked`` lacks only the manifests the
            second pass cannot judge.
    """

    def __init__(self, errors: list[KistoreError], plan: AddPlan) -> None:
        super().__init__(errors)
        self.plan = plan


DANGLING_ADVICE = "add them first, or pass --allow-dangling to record the run anyway"
"""What a refused dangling reference's message ends with (its ``advice``: a did-you-mean,
:meth:`~kistore.core.errors.MeantError.suggest`, goes before it)."""


def _problems_as_new(view: WorkTreeView, m: Manifest, facts: RunFacts | None,
                     batch: Mapping[str, Manifest], stored: set[str],
                     kinds_read: dict[str, str | None], *, allow_dangling: bool,
                     recorded: bool) -> list[KistoreError]:
    """Return what refuses ``m`` as a manifest this add adds (the rules of a new one).

    Its references' kinds (KI202, :func:`_wrong_kinds`), a run's contradictions
    (KI222-KI224) and, unless ``allow_dangling``, the references neither stored nor in
    ``batch``. With ``recorded`` (its files were there already), a reference whose forward
    record for ``m`` is in the work tree is not refused: the add that wrote it whole let
    it dangle.
    """
    problems = _wrong_kinds(view, m, batch, stored, kinds_read) if m.reference_hex else []
    if facts is not None:
        problems += [InputError(f"{c.message} ({c.rule})", pointer=c.pointer, rule_id=c.rule)
                     for c in facts.contradictions]
    if allow_dangling:
        return problems
    missing = [(field_name, ref) for field_name, ref in zip(
        REFERENCE_FIELDS, m.reference_hex, strict=False)
        if ref and ref not in batch and ref not in stored and not (
            recorded and view.read(layout.forward_path(Digest(ref), m.digest)) is not None)]
    if missing:
        listed = ", ".join(f"{field_name}={Digest(ref)}" for field_name, ref in missing)
        dangling = ResolutionError(  # at the field when one (fresh98: a typo said /spec)
            f"{m.kind} {m.name} ({m.digest}) references digests that are not in the "
            f"store nor in this input: {listed}", advice=DANGLING_ADVICE,
            pointer=f"/spec/{missing[0][0]}" if len(missing) == 1 else "/spec")
        dangling.missing = tuple((field_name, str(Digest(ref))) for field_name, ref in missing)
        problems.append(dangling)
    return problems


def _unproven_claim(facts: RunFacts) -> list[KistoreError]:
    """KI226: a run claims KernelBench's data but its importer does not make it.

    Args:
        facts: the run's :class:`~kistore.store.run_facts.RunFacts` (their ``unproven``:
            found with its metadata parsed only for a run outside the catalogue whose
            metadata holds annotations).
    """
    unproven = facts.unproven
    if unproven is None:
        return []
    where = "/metadata" if unproven.in_metadata else ""
    return [InputError(f"{unproven.message} ({unproven.rule})", pointer=where + unproven.pointer,
                       rule_id=unproven.rule)]


Earlier = dict[str, dict[str, tuple[bytes, dict[str, str]]]]
"""Per arriving manifest's hex: each earlier run (hex) whose dangling reference names it,
with the run's object bytes and its references (field -> ``sha256:<hex>``)."""


def _earlier_runs(view: WorkTreeView, batch: Mapping[str, Manifest],
                  files: Mapping[str, bytes], misnamed: dict[str, list[str]] | None = None,
                  *, also: Sequence[str] | None = None) -> Earlier:
    """Return the stored runs whose dangling references the add's new manifests answer.

    With ``also`` (hex digests of manifests of the batch stored already), the runs whose
    references those answer instead: an add of a stored protocol or environment writes
    the group files its key completes for them (low00).

    Found through the forward records of each manifest whose object the add writes
    (``store/forward/sha256/XX/<62 hex>/``, :func:`kistore.core.layout.forward_dir`), as
    the gate finds them (:mod:`kistore.check._focus`): one directory listing per arriving
    manifest, or from :data:`BULK_LOOKUP` manifests on one listing per forward shard, so
    a bulk add of runs nothing names pays at most 256 listings. Runs the add writes itself
    are left out (their references are checked as they arrive), as are records whose run
    has no object that parses as a run (``verify`` reports those: KI214), and those whose
    object's bytes do not hash to its name (KI101: renamed by hand or edited; no group
    file is written for a run that does not exist, reviewer r90b F4), each said in
    ``misnamed`` when given (arriving hex -> one warning per such file, with what to do).
    """
    arriving = list(also) if also is not None else [
        h for h, m in batch.items() if layout.object_path(m.digest) in files]
    if len(arriving) >= BULK_LOOKUP:
        shards: dict[str, set[str]] = {}
        for shard in {h[:2] for h in arriving}:
            shards[shard] = set(view.list_dir(f"{layout.FORWARD_DIR}/{shard}"))
        arriving = [h for h in arriving if h[2:] in shards[h[:2]]]
    found: Earlier = {}
    for hex_ in arriving:
        for leaf in sorted(view.list_dir(layout.forward_dir(Digest(hex_)))):
            if len(leaf) != 64 or not _HEX.issuperset(leaf) or (
                    leaf in batch and layout.object_path(batch[leaf].digest) in files):
                continue
            path = layout.object_path(Digest(leaf))
            data = view.read(path)
            references = _run_references(data)
            if data is not None and references is not None and Digest.of(data).hex != leaf:
                if misnamed is not None:
                    misnamed.setdefault(hex_, []).append(
                        f"{path}: skipped: its sha256 is {Digest.of(data)}, not the digest "
                        "its name says (KI101), so no group file is written for it; "
                        f"{view.restore_advice(path, Digest(leaf))}")
            elif data is not None and references is not None:
                found.setdefault(hex_, {})[leaf] = (data, references)
    return found


def _answered_with_wrong_kind(view: WorkTreeView, batch: Mapping[str, Manifest],
                              earlier: Earlier) -> list[tuple[Digest, KistoreError]]:
    """Refuse a manifest that answers an earlier run's dangling reference with another kind.

    The run was stored with ``--allow-dangling`` naming a digest that nothing held; the
    manifest of that digest arrives now, and must be of the kind the run's field names
    (:func:`kistore.core.model.wrong_kind`, rule KI202, which ``verify`` and ``check``
    report on the run). A stored run never changes, so such a manifest can never be added
    while the run is stored.

    Returns:
        ``(arriving digest, error)`` per (arriving manifest, earlier run, field), the error
        naming the run, its object file and JSON Pointer, and the kind expected.
    """
    problems: list[tuple[Digest, KistoreError]] = []
    for hex_, runs in earlier.items():
        m, text = batch[hex_], f"sha256:{hex_}"
        for run_hex, (_, references) in sorted(runs.items()):
            run = Digest(run_hex)
            for field_name, ref in sorted(references.items()):
                expected = wrong_kind(field_name, m.kind) if ref == text else None
                if expected is None:
                    continue
                name = metadata_name(view.read(layout.metadata_path(run)))
                shown = f"BenchmarkRun {name} ({run})" if name else str(run)
                problems.append((m.digest, ResolutionError(wrong_kind_answer(
                    f"{m.kind} {m.name} ({m.digest})", shown,
                    f"{layout.object_path(run)}:/spec/{field_name}", m.kind),
                    pointer="/kind", rule_id="KI202")))
    return problems


def _uncommitted_references(view: WorkTreeView, batch: Mapping[str, Manifest],
                            stored: set[str], origins: Mapping[Digest, Any] | None,
                            head_holds: Callable[[str, bytes], bool]) -> list[KistoreError]:
    """Refuse an ``add --commit`` of a run naming a manifest only the work tree holds.

    A manifest added without ``--commit`` is in the work tree, not in HEAD: a run that
    names it is no dangling reference there (no forward record is written), so the commit
    would hold a run whose reference HEAD cannot resolve and has no record of (KI213 at
    HEAD). The referenced manifest must be committed first, or with the run (give its file
    to the same ``add --commit``). Each distinct reference is read once. One whose object
    directory is a symbolic link (or a file) is not read: the write then refuses the link
    (:func:`kistore.git.writer.refuse_links`), as it does a plain add's.

    Returns:
        One error per run naming such manifests, naming each field and digest; empty when
        every stored reference is committed.
    """
    committed: dict[str, bool] = {}
    errors: list[KistoreError] = []
    for m in batch.values():
        pending = []
        for field_name, ref in zip(REFERENCE_FIELDS, m.reference_hex, strict=False):
            if not ref or ref in batch or ref not in stored:
                continue
            if ref not in committed:
                path = layout.object_path(Digest(ref))
                if view.linked_dir(path.rpartition("/")[0]) is not None:
                    # not read through a link: the write refuses the link, as a plain
                    # add's does (not "commit them first": review r88 F2)
                    committed[ref] = True
                    continue
                data = view.read(path)
                committed[ref] = data is not None and head_holds(path, data)
            if not committed[ref]:
                pending.append(f"{field_name}={Digest(ref)}")
        if pending:
            errors.append(ResolutionError(
                f"{m.kind} {m.name} ({m.digest}) names manifests that are in the work tree but "
                f"not committed: {', '.join(pending)}; a commit holding the run without them "
                "fails `kistore verify --at HEAD` and the gate (KI213): commit them first "
                "(`kistore add --commit FILE` of their files, or `git add store && git "
                "commit`), or give their files to this same `add --commit`",
                pointer="/spec", rule_id="KI213"))
            locate(errors[-1], (origins or {}).get(m.digest))
    return errors


def _group_files(view: WorkTreeView, batch: Mapping[str, Manifest], files: Mapping[str, bytes],
                 earlier: Earlier, *, commit: bool, head_holds: Callable[[str, bytes], bool],
                 also: Collection[str] = ()
                 ) -> tuple[dict[str, bytes], set[str], dict[str, str]]:
    """Return the group files (:func:`kistore.core.layout.group_path`) an add writes.

    One per run whose comparison key the add makes known: each run of the batch whose
    object it writes (or, committing, any run of the batch) with its protocol and
    environment stored or in the batch (and each run of ``also``, hex digests: a plain
    add's re-added runs, whose missing group file an add killed before it left); and
    each earlier run whose protocol or environment arrives with this add, found through
    the forward records of the arriving digest (``earlier``: :func:`_earlier_runs`).
    The file holds :func:`kistore.core.layout.group_record` of the run's key object. A
    file already in the work tree is not written again (a group file never changes), unless
    the add commits and HEAD lacks it. Each group directory is listed once.

    Returns:
        ``(files, work_tree_only, keyed)``: path -> bytes to write; when the add commits,
        the paths of the earlier runs HEAD does not hold (added without ``--commit``):
        written into the work tree beside their run, left out of the commit (HEAD's
        groups hold only HEAD's runs, KI216); and run hex -> group directory of every run
        whose key is known, its file written or not (:attr:`AddPlan.groups`).
    """
    def read(hex_: str) -> bytes | None:
        m = batch.get(hex_)
        return m.object_bytes if m is not None else view.read(layout.object_path(Digest(hex_)))

    keys = RunKeys(read)  # each key object made once an add
    runs: dict[str, dict[str, str]] = {}  # run hex -> its references
    for hex_, m in batch.items():
        if m.kind == "BenchmarkRun" and (commit or hex_ in also
                                         or layout.object_path(m.digest) in files):
            runs[hex_] = {f: f"sha256:{h}" for f, h in zip(REFERENCE_FIELDS, m.reference_hex,
                                                           strict=False) if h}
    uncommitted: set[str] = set()  # earlier runs HEAD does not hold
    for hex_, found in earlier.items():  # earlier runs whose key an arriving manifest completes
        if batch[hex_].kind not in REFERENCE_KINDS.values():
            continue
        for leaf, (data, references) in found.items():
            if leaf not in runs:
                runs[leaf] = references
                if commit and not head_holds(layout.object_path(Digest(leaf)), data):
                    uncommitted.add(leaf)
    wanted: dict[str, bytes] = {}
    keyed: dict[str, str] = {}
    for hex_, references in runs.items():
        group = keys.group(references)
        if group is not None:
            keyed[hex_] = layout.group_dir(group[0])
            wanted[f"{keyed[hex_]}/{hex_}"] = group[1]
    listings: dict[str, set[str]] = {}
    written = {}
    work_tree_only = set()
    for path, record in wanted.items():
        folder, _, leaf = path.rpartition("/")
        if folder not in listings:  # through the view: a sparse checkout's too
            listings[folder] = set(view.list_dir(folder))
        if leaf not in listings[folder]:
            written[path] = record
            if leaf in uncommitted:
                work_tree_only.add(path)
        elif (commit and leaf not in uncommitted and not head_holds(path, record)
              and view.read(path) == record):
            written[path] = record
    return written, work_tree_only, keyed


_HEX = frozenset("0123456789abcdef")


def _run_references(data: bytes | None) -> dict[str, str] | None:
    """Return a stored run's reference fields (``sha256:<hex>`` each), None for no run."""
    try:
        doc = loads_lenient(data) if data is not None else None
    except ValueError:
        return None
    spec = doc.get("spec") if isinstance(doc, dict) and doc.get("kind") == "BenchmarkRun" \
        else None
    if not isinstance(spec, dict):
        return None
    return {f: spec[f] for f in REFERENCE_FIELDS if is_digest(spec.get(f))}


def _forward_records(view: WorkTreeView, m: Manifest, batch: Mapping[str, Manifest],
                     stored: set[str], *, commit: bool,
                     head_holds: Callable[[str, bytes], bool]) -> dict[str, bytes]:
    """Return the forward records of a run's references missing from store and batch.

    Those ``--allow-dangling`` lets through: one per missing digest,
    :func:`kistore.core.layout.forward_path` holding :func:`kistore.core.layout.
    forward_record` of the fields naming it.

    A record already in the work tree is not written again (a record never changes:
    ``verify`` reports one that disagrees, KI214), unless the add commits and HEAD lacks it.
    """
    fields: dict[str, list[str]] = {}
    for field_name, ref in zip(REFERENCE_FIELDS, m.reference_hex, strict=False):
        if ref and ref not in batch and ref not in stored:
            fields.setdefault(ref, []).append(field_name)
    records = {}
    for ref, named in fields.items():
        path = layout.forward_path(Digest(ref), m.digest)
        record = layout.forward_record(named)
        there = view.read(path)
        if there is None or (commit and there == record and not head_holds(path, record)):
            records[path] = record
    return records




def _wrong_kinds(view: WorkTreeView, m: Manifest, batch: Mapping[str, Manifest],
                 stored: set[str], kinds_read: dict[str, str | None]) -> list[KistoreError]:
    """Refuse a run whose reference names a manifest of another kind (KI202 at add time).

    Nothing the store accepts may break it later: an Implementation's digest given as
    ``workloadDigest`` would be stored for good and fail ``verify`` ever after. Each
    stored reference's object file is read once per add (``kinds_read``).
    """
    problems: list[KistoreError] = []
    for field_name, ref in zip(REFERENCE_FIELDS, m.reference_hex, strict=False):
        if not ref:
            continue
        if ref in batch:
            kind: str | None = batch[ref].kind
        elif ref in stored:
            if ref not in kinds_read:
                kinds_read[ref] = _stored_kind(view.read(layout.object_path(Digest(ref))))
            kind = kinds_read[ref]
        else:
            continue  # dangling: refused or allowed below
        expected = wrong_kind(field_name, kind)
        if kind is not None and expected is not None:
            problems.append(ResolutionError(
                f"{m.kind} {m.name} ({m.digest}): {field_name} {Digest(ref)} is "
                f"{with_article(kind)}, not {with_article(expected)}; point it at "
                f"the {expected} the run measured",
                pointer=f"/spec/{field_name}", rule_id="KI202"))
    return problems


def _left_unfinished(view: WorkTreeView, m: Manifest, stored_metadata: bytes | None,
                     claimed: Digest | None, head_holds: Callable[[str, bytes], bool]) -> bool:
    """Return True when ``m``'s object file is the leftover of an add killed mid-write.

    An add writes a manifest's object, then its metadata, then its names file (a bulk
    add's writer processes each take whole directories, in any order), and was killed
    by SIGKILL (or power loss) somewhere in between: an object file HEAD does not hold
    with no metadata file beside it, or metadata whose name no names file gives to this
    digest, is such a leftover (``verify``: KI204, KI211; a metadata file that holds no
    valid name is damage, not a leftover: each file is renamed into place whole). It
    proves no check ran, so the next add of the manifest checks and writes it as new
    (reviewer r83 F1: it was taken for a stored manifest, its run checks skipped, and
    committed as "metadata replaced"). ``head_holds`` is asked only of such a file: a
    whole add's files cost no git read.
    """
    name = metadata_name(stored_metadata)
    if stored_metadata is not None and not layout.is_name(name):
        return False  # damaged, not left half-written (each file is renamed into place)
    if name is not None and (claimed if name == m.name else layout.digest_from_record(
            view.read(layout.name_path(m.kind, name)) or b"")) == m.digest:
        return False
    return not head_holds(layout.object_path(m.digest), m.object_bytes)


def _owns(view: WorkTreeView, owner: Digest, key: tuple[str, str]) -> bool:
    """Return True when the stored manifest ``owner`` is of kind and name ``key``.

    A names file's claim checked against what it names, as ``verify``'s KI212 checks it.
    """
    return (_stored_kind(view.read(layout.object_path(owner))) == key[0]
            and metadata_name(view.read(layout.metadata_path(owner))) == key[1])


def _name_advice(view: WorkTreeView, owner: Digest, batch: Mapping[str, Manifest],
                 head_holds: Callable[[str, bytes], bool]) -> str:
    """Say what to do about a name ``owner`` holds: choose another, or drop ``owner``.

    A name HEAD's manifest holds is never freed. One only the work tree's holds (a plain
    ``add``'s, or the leftover of an add killed before it committed: reviewer r83) is
    freed by removing that add's files, which ``kistore drop`` does (only them: ``git clean
    -f store/`` would delete every pending add); a manifest of this input or HEAD's is asked
    of no more than one read.
    """
    path = layout.object_path(owner)
    data = None if owner.hex in batch else view.read(path)
    if data is None or head_holds(path, data):
        return "choose another metadata.name"
    return (f"{owner} is in the work tree but not committed (added without --commit, or "
            "by an add killed before it committed: `git status --short store` shows its "
            f"files). If it is not wanted, `kistore drop {owner}` removes its files (and only "
            "them; `--dry-run` lists them first); then add again. Otherwise choose another "
            "metadata.name")


def _bogus_claim(key: tuple[str, str], owner: Digest) -> str:
    """Return the refusal of a name held only by a names file naming no such manifest."""
    path = layout.name_path(*key)
    return (f"{key[0]} name {key[1]!r} is held by the names file {path}, but it names "
            f"{owner}, which is no stored {key[0]} of that name (a bogus names file: "
            "`kistore verify` reports it as KI212; an add killed mid-write may leave one). "
            "If the file is not committed, delete it and add again; a committed names file "
            "is never rewritten, so then choose another metadata.name")


def _stored_kind(data: bytes | None) -> str | None:
    """Return the ``kind`` of stored object bytes, or None when they hold none."""
    try:
        doc = loads_lenient(data) if data is not None else None
    except ValueError:
        return None
    kind = doc.get("kind") if isinstance(doc, dict) else None
    return kind if isinstance(kind, str) else None


def _provenance_moved(stored: bytes, m: Manifest, committed: bool) -> list[KistoreError]:
    """KI432 as ``add`` refuses it: ``m``'s metadata changes committed ``kernelindex.dev/*``.

    Args:
        stored: the stored metadata file's bytes.
        m: the manifest given.
        committed: whether HEAD holds ``stored`` (only a landed manifest's provenance stays;
            one this clone has not committed may still be corrected).

    Returns:
        One :class:`ConflictError` per annotation changed, added or removed, at
        ``/metadata/annotations/...``; none when not ``committed`` or unreadable.
    """
    if not committed:
        return []
    try:
        old, new = loads_lenient(stored), loads_lenient(m.metadata_bytes)
    except ValueError:
        return []  # unreadable stored metadata is verify's (KI102)
    return [ConflictError(
        f"{m.digest} is committed with the provenance annotation {one_line(key)!r} "
        f"{quoted_annotation(was)}, and this metadata makes it {quoted_annotation(now)}: a "
        "landed manifest's kernelindex.dev/* annotations are its importer's record and "
        "never change (KI432; the gate refuses it); keep them as stored, and answer a wrong "
        "licence or source with a maintainer's withdrawal (`kistore attest REF --type "
        "withdrawal -m WHY`)",
        pointer="/metadata/annotations/" + canonical.escape_pointer(key))
        for key, was, now in provenance_changes(old, new)]


def _names_files(view: WorkTreeView, paths: Mapping[tuple[str, str], str]
                 ) -> dict[tuple[str, str], Digest]:
    """Return the digest each ``(kind, name)`` of ``paths`` has in its work-tree names file.

    ``paths``: each key's names file (:func:`kistore.core.layout.name_path`).

    A name is taken when its names file (:func:`kistore.core.layout.name_path`) exists,
    whatever the index's names say: a names file with no manifest beside it (a squatted
    name, which ``verify`` reports as KI212) still holds the name. A key with no names file,
    or one that holds no digest (``verify`` reports it; an add writes it again), is left
    out. From :data:`BULK_LOOKUP` names on, each shard directory is listed once instead of
    opening a file per name.
    """
    if len(paths) >= BULK_LOOKUP:
        listed: dict[str, set[str]] = {}
        for path in paths.values():
            folder = path.rpartition("/")[0]
            if folder not in listed:  # the view's listing: a sparse checkout's includes HEAD's
                listed[folder] = set(view.list_dir(folder))
        paths = {k: p for k, p in paths.items()
                 if p.rpartition("/")[2] in listed[p.rpartition("/")[0]]}
    owners = {}
    for key, path in paths.items():
        data = view.read(path)
        owner = layout.digest_from_record(data) if data is not None else None
        if owner is not None:
            owners[key] = owner
    return owners


BULK_LOOKUP = 64
"""From this many digests on, ``add`` lists each object shard directory once instead of
asking for each digest's object file (20,000 failed stats cost 0.3 s of a bulk add)."""


def _stored_objects(view: WorkTreeView, hexes: set[str]) -> set[str]:
    """Return which of ``hexes`` (64-hex digests) have an object file in the work tree.

    A listing only rules a digest out: one it names is confirmed as a regular file, as
    :meth:`WorkTreeView.has_object` answers (a directory of that name is no object).
    """
    if len(hexes) < BULK_LOOKUP:
        return {h for h in hexes if view.has_object(Digest(h))}
    listed: dict[str, set[str]] = {}
    for shard in {h[:2] for h in hexes}:  # a sparse checkout's listing includes HEAD's
        listed[shard] = set(view.list_dir(f"{layout.OBJECTS_DIR}/{shard}"))
    return {h for h in hexes
            if h[2:] + layout.SUFFIX in listed[h[:2]] and view.has_object(Digest(h))}


def _place(origin: Any) -> str:
    """Say where a manifest earlier in this input came from: `` (first at FILE:LINE)``."""
    if origin is None:
        return " (earlier in this input)"
    if isinstance(origin, str):
        return f" (first in {origin})"
    where = origin.file + (f":{origin.line}" if origin.line is not None else "")
    return f" (first at {where}{':' + origin.pointer if origin.pointer else ''})"


def locate(problem: KistoreError, origin: Any) -> None:
    """Place a problem about one manifest where that manifest came from.

    ``origin`` is a file name, or an object with ``file``, ``line`` and ``pointer`` (the
    manifest's place in its file) and, optionally, ``position`` (where a pointer's value
    is, :meth:`kistore.store.inputs.Located.position`), or None. A
    :class:`kistore.store.ValueWarning` (KI221's, KI230's, KI233's) at a pointer into a
    manifest of a one-value input is placed at that value's line and column (reviewer
    break97 L7: it named ``run.json:/spec/...`` without them, while a JSON Lines input gave
    its line); a JSON Lines input gives the manifest's line, as before. ``problem.origin`` is set to
    ``origin`` (:attr:`kistore.core.errors.KistoreError.origin`): a caller tells a refusal
    at its own input from it (an import's record, fresh98 MED 5).
    """
    problem.origin = origin
    if isinstance(origin, str):
        problem.file = origin
    elif origin is not None:
        problem.file, problem.line = origin.file, origin.line
        problem.pointer = (origin.pointer or "") + (problem.pointer or "")
        position = getattr(origin, "position", None)
        if position is not None and problem.pointer and getattr(problem, "at_value", False):
            found = position(problem.pointer)
            if found is not None:
                problem.line, problem.column = found
    problem.args = (problem.format(),)


def metadata_difference(old: bytes, new: bytes, was: str = "stored", now: str = "given") -> str:
    """Say in one line how two metadata documents differ, by JSON Pointer.

    Args:
        old: the metadata bytes there first.
        new: the other metadata bytes.
        was: what to call ``old`` (stored, first).
        now: what to call ``new`` (given, then).

    Returns:
        ``POINTER: stored VALUE, given VALUE`` per difference, joined by ``; ``; a sentence
        saying so when ``old`` is not strict JSON (e.g. nested past 64 levels). One line,
        safe to print: a control or bidirectional control in a value or key (stored
        metadata committed past the hooks may hold U+202E) is escaped, as ``show`` escapes
        manifest values (:func:`kistore.core.errors.one_line`).

    Raises:
        InputError: ``new`` is not strict JSON (:func:`kistore.core.canonical.loads`).
    """
    changes: list[str] = []

    def walk(a: Any, b: Any, pointer: str) -> None:
        if isinstance(a, dict) and isinstance(b, dict):
            for key in sorted(a.keys() | b.keys()):
                child = f"{pointer}/{canonical.escape_pointer(key)}"
                walk(a.get(key, _ABSENT), b.get(key, _ABSENT), child)
        elif a != b and _one_text(a, b):  # printed as they are, they look the same
            changes.append(f"{pointer or '/'}: {was} {json.dumps(a)}, {now} {json.dumps(b)} "
                           f"(one text in two Unicode normalisations: {was} "
                           f"{_normal_form(a)}, {now} {_normal_form(b)})")
        elif a != b:
            shown = ["(absent)" if v is _ABSENT else json.dumps(v, ensure_ascii=False)
                     for v in (a, b)]
            changes.append(f"{pointer or '/'}: {was} {shown[0]}, {now} {shown[1]}")

    try:  # strict: a committed file nested 1,000 deep parses leniently, then breaks json.dumps
        stored = canonical.loads(old)
    except InputError:
        return "the stored metadata file is not valid JSON: `kistore verify` reports it"
    walk(stored, canonical.loads(new), "")
    return one_line("; ".join(changes), escaped=True)  # JSON values: their escapes stay


_ABSENT = object()


def _one_text(a: Any, b: Any) -> bool:
    """Whether ``a`` and ``b`` are strings equal once both are in Unicode NFC (UAX #15)."""
    return isinstance(a, str) and isinstance(b, str) and \
        unicodedata.normalize("NFC", a) == unicodedata.normalize("NFC", b)


def _normal_form(text: str) -> str:
    """Name the Unicode normalisation form ``text`` is in: NFC, NFD, or neither (UAX #15)."""
    for form in ("NFC", "NFD"):
        if unicodedata.is_normalized(form, text):
            return form
    return "neither NFC nor NFD"
