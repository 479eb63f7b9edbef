"""Audit a store: check its files with the rules of :mod:`._rules`.

``kistore verify`` is :func:`verify`: the whole store as of the work tree or one commit,
plus the append-only history of objects (docs/design.md §4). The files are read through
the store's one reader, :meth:`kistore.store.View.files` (from git objects, which works in
a bare repository, or from the work tree); this module checks them, in worker processes
when there are many. The rules themselves are pure functions in :mod:`._rules`, the
history walk (KI401-KI403) is :mod:`._history`'s; :mod:`.gate` reuses both for a commit
range.

Checks that are not about the files' bytes (history, the ranking policy, attestations)
plug in through :data:`CHECKERS`: each is ``checker(store, at) -> list[Finding]`` and
:func:`verify` runs them all, and any further ones its caller passes (``checkers=``).
"""

from __future__ import annotations

import dataclasses
import os
import re
import stat
from collections.abc import Callable, Iterable, Iterator
from functools import partial
from itertools import islice
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from ..attest.evidence import check_attestations, judging_blobs, withdrawn_runs
from ..core import layout
from ..core.boards import Board
from ..core.canonical_fast import loads_lenient
from ..core.claims import Claim, stored_claim
from ..core.comparison import KEYED_REFERENCES, REFERENCE_KINDS, RunKeys
from ..core.digest import Digest
from ..core.errors import InputError, MultipleErrors
from ..core.file_kinds import file_kind
from ..core.findings import WARNING, Finding, rule
from ..core.gitattributes import check_gitattributes, not_regular_gitattributes
from ..core.limits import DEFAULT, Limits, within_value_limits
from ..core.model import REFERENCE_FIELDS
from ..core.observed import observed_seconds, run_observed
from ..core.restore import renamed_advice, restore_advice
from ..core.schema import KINDS, fast_validator
from ..core.statistics import latency_names
from ..core.workers import forking, start_worker
from ..git.attr_guard import walking_once
from ..git.blobs import CommitUnparsable, ObjectUnreadable, is_partial_clone
from ..git.note_blobs import NOTE_BYTES, NoteTooLarge, note_too_large
from ..git.pack import blob_id
from ..git.packs import PackDamage, check_packs, map_packs, unmap_packs
from ..index.catalog import Loaded, parse_manifest
from ..store import Files, FileTooLarge, index_lock
from ._attestations_here import worktree_attestations_kept
from ._board_fix import uncommitted_board_fixes
from ._claims import check_claims, judge_claims
from ._commits import unparsable_finding
from ._dates import check_commit_dates
from ._edited_deleted import verify_edited_then_deleted
from ._evidence_kept import check_evidence_history
from ._fixes import HINT_BASE, Base, brought_fix, rebase_command, rebase_fix, staged_fix
from ._focus import collision_candidates, look_up_entries
from ._forward import Run, check_forward_files, is_forward_path
from ._groups import KeyCache, Member, check_group_files, expected_file, is_group_path
from ._history import check_history, worktree_changes
from ._ignored import check_ignored
from ._metadata_fix import metadata_fixes
from ._metadata_moved import metadata_moved, name_edit_fixes, told_metadata_file
from ._names import Named, check_names_files, is_names_path, names_path_in_layout, owned_path
from ._names_moved import NAMES_FILE, told_names_file
from ._observed import Added, check_observed, first_added, judge_observed
from ._paths import check_tree_names
from ._policy import check_policy
from ._products import check_products
from ._provenance_here import worktree_provenance
from ._refs import check_replace_refs
from ._rules import (
    CRLF_LINE_ENDS,
    FILE_MODES,
    FILE_TOO_LARGE,
    GIT_OBJECT_UNREADABLE,
    JSON_PARSE_ERROR,
    METADATA_WITHOUT_OBJECT,
    NOT_A_REGULAR_FILE,
    OBJECT_DIGEST_MISMATCH,
    OBJECT_WITHOUT_METADATA,
    PATH_OUTSIDE_LAYOUT,
    REGULAR,
    SPECIAL,
    Entry,
    check_case_collisions,
    check_clean_pair,
    check_entries,
    check_layout_path,
    check_manifest_pair,
    check_metadata_bytes,
    check_object_bytes,
    check_value_limits,
    entries_clean,
    entry_from,
    sort_key,
)
from ._settings import check_settings
from ._taken import names_one_cause
from ._trees import notes_tree_findings
from ._trust_here import worktree_trust
from ._widened_past import check_widened_history
from .lineage import check_names, check_revocations, check_shallow

if TYPE_CHECKING:  # pragma: no cover - typing only
    from ..store import Store

Checker = Callable[[Any, "str | None"], list[Finding]]
"""``checker(store, at) -> findings``: one more family of checks :func:`verify` runs."""

Progress = Callable[[int], None]
"""Called with the number of files just checked (drives a progress bar)."""


class FromParse(NamedTuple):
    """A check of a layer above that :func:`verify` judges from what its workers parsed.

    Passed among ``checkers``, it is judged where a checker would run, after the contents
    check, from the manifests the workers read and parsed: no file read or parsed twice
    (``kistore verify``'s KI234, :func:`kistore.query.outlier_rules.outliers_from_parse`).

    Attributes:
        keep: ``keep(store, at)``, called once before the workers start: the top-level
            keys of a run's ``spec`` the judge reads (a run the fast path found clean
            crosses from its worker with those keys only), or None when there is nothing
            to judge (then ``judge`` is not called).
        judge: ``judge(store, at, loaded) -> findings``, after the contents check.
            ``loaded``: digest string -> ``(kind, name, spec)`` of every run, protocol,
            environment and implementation the contents check read whole and found to be
            what a catalog loads (:func:`kistore.index.catalog.parse_manifest` with
            ``validate``: hashed to its name, both files canonical, valid under its kind's
            schema); a run's ``spec`` holds the ``keep`` keys only when the fast path
            passed it (then it states no contradiction, KI222-KI224, KI228, and no
            unproven claim, KI226), else all of them.
    """

    keep: Callable[[Any, str | None], frozenset[str] | None]
    judge: Callable[[Any, str | None, dict[str, Loaded]], list[Finding]]


_LOADED_KINDS = frozenset({"BenchmarkRun", "BenchmarkProtocol", "ExecutionEnvironment",
                           "Implementation"})
"""The kinds :attr:`FromParse.judge` is given: runs, and what a run's record reads
(:func:`kistore.index.records.describe`)."""

GITATTRIBUTES = ".gitattributes"

WORK_TREE_WRITTEN = rule(
    "KI418", "work-tree-written-meanwhile", WARNING,
    "an add or git command was writing while verify read: run `kistore verify` again when "
    "it ends (its half-written files are reported above as if damaged; an add in another "
    "worktree, named above, wrote there, not here); if nothing is running, a crashed git "
    "command left .git/index.lock: remove it, then run `git reset -q`")
"""``verify`` of the work tree while git's ``.git/index.lock`` was held (new-user review
2026-12-02, F15): the files are still judged as asked (no gate, :meth:`Store.settled`), and
this says their errors may be an add's half-written files."""


def snapshot(store: Store, at: str | None = None) -> Files:
    """Return the store's files as of the work tree (``at=None``) or the commit ``at``.

    :meth:`kistore.store.View.files` of ``store.view(at)``, read with the checking
    repository's limits (:func:`checking_limits`, also held to strings and arrays: KI107).
    A bare repository has no work tree: ``at=None`` then reads ``HEAD``. A bad key of
    ``[limits]`` keeps its default, the file's other keys apply (:func:`._settings.
    check_settings` reports it: KI108 at the work tree, else KI109 beside ``at``'s KI108).

    A commit of a partial clone (``git clone --filter=blob:none``) fetches, with the
    blobs of the listing, every other blob :func:`verify` reads (:func:`read_beside`):
    one ``git fetch`` in all, not one each for ``kistore.toml``, ``.gitattributes``,
    the note blobs and the trust file's versions.

    Raises:
        InputError: when ``at`` names no commit.
        StoreStateError: a partial clone whose remote cannot give the blobs.
    """
    view = store.view(at)
    snap = view.files(also=read_beside(store, at))
    # kistore.toml: fetched with the listing, if it was not here; a bad key at its default
    # (_settings.check_settings reports it: KI108, or KI109 for another revision's)
    limits = checking_limits(store, per_key=True)
    snap.limit = limits.manifest_bytes
    snap.value_limits = limits
    return snap


def read_beside(store: Store, at: str | None) -> list[str]:
    """Return the blob ids :func:`verify` of ``at`` reads beside the files under ``store/``.

    The checking repository's ``kistore.toml`` (its limits), ``at``'s ``.gitattributes``
    (KI113), and the blobs judging attestations reads (:func:`kistore.attest.evidence.
    judging_blobs`: note blobs, the trust file's versions): for a partial clone's one
    fetch with the listing of a commit. Empty for the work tree (its listing is on disk
    and fetches nothing) and outside a partial clone (nothing is listed there).

    Args:
        store: the repository checked.
        at: revision, or None for the work tree (``HEAD`` in a bare repository).

    Raises:
        InputError: ``at`` names no commit.
    """
    if (at is None and store.root is not None) or not is_partial_clone(store.repo):
        return []
    return [*store.view(None).blob_ids([layout.SETTINGS_FILE]),
            *store.view(at).blob_ids([GITATTRIBUTES]), *judging_blobs(store, at)]


def checking_limits(store: Store, base: str | None = None, *,
                    committed: Limits | None = None, own: Limits | None = None,
                    per_key: bool = False) -> Limits:
    """Return every limit stored files are held to (manifest-bytes: KI106; strings, arrays: KI107).

    The checking repository's ``[limits]`` (its work tree's kistore.toml, or ``HEAD``'s in
    a bare repository), never the checked commit's: a pull request cannot raise the limits
    it is checked against. A range's gate also holds each to ``base``'s committed one (the
    lower of the two): CI checks a pull request from a checkout of the merge, whose
    kistore.toml is the pull request's own. The gate also holds a range's files to its
    HEAD's committed limits, and a range that lowers one to the stored files of HEAD
    (:mod:`kistore.check._lowered`).

    Args:
        store: the checking repository.
        base: the range's BASE commit, or None (``verify``: the store's own limits).
        committed: ``base``'s committed limits when the caller has read them already (the
            gate, :meth:`kistore.store.Settings.valid_limits`); None: read here.
        own: the checking repository's limits when the caller has read them already (the
            gate, :func:`kistore.check._lowered.own_limits`: the defaults when they do not
            parse); None: read here.
        per_key: when reading here, read the store's ``[limits]`` key by key, each bad key
            at its default (:meth:`kistore.store.Store.limits_per_key`: ``verify``, which
            reports the bad keys, :func:`._settings.check_settings`); False: refuse invalid
            limits.

    Returns:
        The limits.

    Raises:
        InputError, MultipleErrors: the store's kistore.toml sets invalid limits, unless
            ``own`` is given or ``per_key`` (BASE's invalid ones are taken as the default
            limits).
    """
    if own is None:
        own = store.limits_per_key()[0] if per_key else store.limits()
    limits = Limits(*map(int, own))
    if base is None:
        return limits
    if committed is None:
        try:
            committed = Limits(*map(int, store.limits(at=base)))
        except (InputError, MultipleErrors):  # BASE's is not valid: its limits are the default
            committed = DEFAULT
    return Limits(*map(min, limits, committed))


PARALLEL_MIN = 4000
"""Manifests (counted as half the files under ``store/``) below which checking runs in this
process (a pool costs more than it saves)."""

class Unit(NamedTuple):
    """One manifest's files (a tuple, its fields by name: it crosses processes by the chunk).

    Attributes:
        hex: its digest's 64 hex digits.
        object_path: its object file's path (None when absent).
        metadata_path: its metadata file's path (None when absent).
        check_object: whether to check the object file's bytes (else it is only parsed for
            the cross-file checks).
        check_metadata: the same of the metadata file.
    """

    hex: str
    object_path: str | None
    metadata_path: str | None
    check_object: bool
    check_metadata: bool


def check_contents(snap: Files, *, focus: set[str] | None = None,
                   progress: Progress | None = None, workers: int | None = None,
                   meanwhile: Callable[[], object] | None = None,
                   objects_read: dict[str, bytes] | None = None,
                   metadata_read: dict[str, bytes] | None = None,
                   observed: dict[str, int | None] | None = None,
                   claims: dict[str, Claim | None] | None = None,
                   keep: frozenset[str] | None = None,
                   loaded: dict[str, Loaded] | None = None,
                   base: Base = HINT_BASE) -> list[Finding]:
    """Apply every per-file and cross-file check to one snapshot.

    Args:
        snap: the files to check.
        focus: check the bytes of these paths only and report only findings about them
            (a gate passes what a range added or changed); cross-file checks still see every
            file. None checks everything.
        progress: called with the number of files checked, as the work goes.
        workers: processes that check files in parallel; None: one per CPU (at most 8)
            on machines with 2 or more CPUs from :data:`PARALLEL_MIN` manifests on, else 1
            (this process).
        meanwhile: called once, with no arguments, while the workers check files (before
            checking, without workers), so other work of the caller (:func:`verify`'s
            history check) fills the time this process would spend waiting.
        objects_read: when given, filled with each object file checked (repository path)
            -> its git tree entry as the check read it: mode (``b"100644"`` or
            ``b"100755"``), a space and the blob id of the bytes (20 raw bytes); ``b""``
            for one not read whole (too large, not a regular file, no metadata file).
            What :func:`kistore.check._history.worktree_changes` compares with ``HEAD``.
        metadata_read: when given (with ``objects_read``), filled with each metadata file
            read whole beside its object (repository path) -> the blob id of the bytes
            read (20 raw bytes): what :func:`kistore.check._provenance_here.
            worktree_provenance` compares with ``HEAD`` (KI432 of the work tree).
        observed: when given, filled with each object file read whole (repository path)
            -> the ``observedAt`` of the run it holds in seconds, None for another kind or
            no readable time (:func:`kistore.core.observed.run_observed` of the bytes as
            read): what ``verify``'s KI227 judges (:func:`kistore.check._observed.
            judge_observed`) without reading the blob again.
        claims: when given, filled with each object read whole (its 64 hex digits) -> the
            source record its run claims, None for none (:func:`kistore.core.claims.
            stored_claim` of the bytes as read: a tampered object claims nothing): what
            ``verify``'s KI232 judges (:func:`kistore.check._claims.judge_claims`) without
            reading the object again.
        keep: with ``loaded``, the top-level keys of a clean run's ``spec`` to keep
            (:attr:`FromParse.keep`).
        loaded: when given, filled as :attr:`FromParse.judge` takes it: each run,
            protocol, environment and implementation read whole that a catalog loads.
        base: the gate's BASE, named in a fix that restores a file from it (KI238 on a
            stored run's metadata: :func:`._rules.check_entries`); default: the word BASE.

    Returns:
        Every finding (KI1xx, KI2xx), sorted by file and place.
    """
    def wanted(path: str) -> bool:
        return focus is None or path in focus

    if focus is not None and not focus:
        if meanwhile is not None:
            meanwhile()
        return []  # nothing under store/ changed: skip reading the tree
    findings: list[Finding] = []
    if focus is None or GITATTRIBUTES in focus:
        findings += _gitattributes_findings(snap)
    listed = snap.modes.keys() if snap.complete else \
        snap.modes.keys() | collision_candidates(snap.view, focus or ())
    findings += [f for f in check_case_collisions(listed)
                 if wanted(f.file or "") or wanted(f.extra["collides_with"])]

    units: list[Unit] = []
    results: list[_Compact] = []
    names_paths: list[str] = []  # plain names paths, judged by _names_findings
    chunks = _unit_chunks(snap, wanted, findings, units, everything=focus is None,
                          deferred=names_paths)
    groups_read: dict[str, bytes | None] | None = None  # every group file, when read

    def beside() -> None:  # in this process while the workers check files
        nonlocal groups_read
        if meanwhile is not None:
            meanwhile()
        if focus is None and snap.view.scope == "work":  # a commit's: by blob id, no read
            groups_read = _group_files_read(snap)

    kept = None if loaded is None else keep or frozenset()
    for chunk_units, chunk, read in _check_units_compact(snap, chunks, workers, beside,
                                                         entries=objects_read is not None
                                                         or metadata_read is not None,
                                                         keep=kept):
        results += chunk
        if read is not None:
            for i, unit in enumerate(chunk_units):
                at = i * UNIT_ENTRY_SIZE
                if objects_read is not None and unit.object_path is not None:
                    entry = read[at:at + ENTRY_SIZE]
                    objects_read[unit.object_path] = b"" if entry == _NOT_READ else entry
                if metadata_read is not None and unit.metadata_path is not None and \
                        (blob := read[at + ENTRY_SIZE:at + UNIT_ENTRY_SIZE]) != _NO_BLOB:
                    metadata_read[unit.metadata_path] = blob
        if progress is not None:
            progress(sum((u.object_path is not None) + (u.metadata_path is not None)
                         for u in chunk_units))
    if observed is not None:
        for unit, result in zip(units, results, strict=True):
            if unit.object_path is not None and not isinstance(result.observed, str):  # read whole
                observed[unit.object_path] = result.observed
    if claims is not None:
        for unit, result in zip(units, results, strict=True):
            if not isinstance(result.claim, str):  # read whole (not _UNREAD, a worker's copy)
                claims[unit.hex] = result.claim
    if loaded is not None:
        for unit, result in zip(units, results, strict=True):
            if result.loaded is not None:
                loaded[f"sha256:{unit.hex}"] = result.loaded
    for result in results:
        if result.findings:
            findings += result.findings
    findings += _names_findings(snap, units, results, focus, wanted, names_paths)
    unread = _unread_objects(units, results, findings)
    keyless = _keyed_by_unread(units, results, unread)
    findings += [f for f in _forward_findings(snap, units, results, focus, wanted)
                 if not unread or f.extra.get("run", "")[7:] not in unread]
    findings += [f for f in _group_findings(snap, units, results, focus, wanted, groups_read)
                 if not unread or f.extra.get("run", "")[7:] not in unread | keyless]
    if focus is None and all(u.object_path is not None and u.metadata_path is not None
                             for u in units):
        if entries_clean([u.hex for u in units], [r.kind for r in results],
                         [r.name for r in results], [r.references for r in results],
                         [r.statistic for r in results], [r.board for r in results],
                         [r.latency for r in results]):
            return _told_renamed(snap, findings)  # check_entries would find nothing: skip it
    entries: dict[Digest, Entry] = {}
    for unit, result in zip(units, results, strict=True):
        digest = Digest(unit.hex)
        refs = {f: r for f, r in zip(REFERENCE_FIELDS, result.references, strict=True)
                if r is not None}
        entries[digest] = Entry(digest, result.kind, result.name, refs,
                                unit.object_path is not None, unit.metadata_path is not None,
                                intact=not any(f.rule.id == OBJECT_DIGEST_MISMATCH.id
                                               for f in result.findings or ()),
                                statistic=result.statistic, board=result.board,
                                latency=result.latency)
    focus_digests = None if focus is None else {  # a deleted file's digest counts too
        d for d in entries if wanted(layout.object_path(d)) or wanted(layout.metadata_path(d))}
    arrived = None if focus_digests is None else {  # their object: added by the range
        d for d in focus_digests if wanted(layout.object_path(d))}
    if not snap.complete and focus_digests is not None:  # the rest of the tree: looked up
        # The earlier runs whose dangling reference a manifest of the range answers are in
        # snap already: range_paths listed its forward directory (KI202 on those runs, and
        # KI218 when the manifest is their protocol).
        look_up_entries(snap.view, entries, focus_digests, snap.limit)
    findings += [f for f in check_entries(entries, focus_digests, arrived, base)
                 if not _pairs_a_special_file(snap, f)]
    return _told_renamed(snap, findings)


def _pairs_a_special_file(snap: Files, finding: Finding) -> bool:
    """Tell whether ``finding`` is KI203 or KI204 of a FIFO, socket or device (KI111's).

    Such a file at an object's or a metadata file's path is no manifest: KI111's fix removes
    it (``rm PATH``), and "add the object ... (`kistore add`)" or "re-add the manifest with
    `kistore add`" beside it (fresh14 F4's leftover) asked to add what never was one.
    """
    return (finding.rule.id in (METADATA_WITHOUT_OBJECT.id, OBJECT_WITHOUT_METADATA.id)
            and snap.modes.get(finding.file or "") == SPECIAL)


def _told_renamed(snap: Files, findings: list[Finding]) -> list[Finding]:
    """Return ``findings`` sorted, each KI110 told whose bytes its file holds (:func:`_renamed`).

    A file renamed to ``NAME.json.bak`` (reviewer r91 F5), in ``verify`` and at the gate
    alike (r92 F2: the gate said KI110's own advice and KI203 "remove the metadata file").
    """
    return sorted(metadata_moved([told_metadata_file(snap, told_names_file(snap, _renamed(
        snap, f))) if f.rule.id == PATH_OUTSIDE_LAYOUT.id else f for f in findings]),
        key=sort_key)


OWN_FILE_BYTES = DEFAULT.manifest_bytes
"""Most bytes read of a file under ``store/`` that is no manifest (a names file, forward
record, group file) and of ``.gitattributes``: ``[limits] manifest-bytes`` is for manifests."""


def _gitattributes_findings(snap: Files) -> list[Finding]:
    """KI113 of ``.gitattributes``, read up to 1 MiB whatever ``[limits] manifest-bytes`` is.

    ``manifest-bytes`` limits manifests: a store that set it to 10 bytes stopped ``verify``
    at its 58-byte ``.gitattributes`` (review 2026-12-02 F17). A ``.gitattributes`` past
    1 MiB is KI106 on it (and not read).
    """
    root = getattr(snap.view, "root", None) if snap.view.scope == "work" else None
    if root is not None:  # a FIFO: one finding, the one git's status check gives (fresh14 F3)
        try:
            mode = os.stat(Path(root) / GITATTRIBUTES).st_mode
        except OSError:  # absent: the line is missing, said below
            mode = stat.S_IFREG
        if not stat.S_ISREG(mode):
            return [not_regular_gitattributes(file_kind(mode))]
    try:
        return check_gitattributes(snap.read(GITATTRIBUTES, OWN_FILE_BYTES))
    except FileTooLarge as e:
        return [Finding(FILE_TOO_LARGE, e.message, file=GITATTRIBUTES,
                        expected=f"at most {e.limit:,} bytes",
                        found=f"{e.size:,} bytes" if e.size is not None else
                        f"more than {e.limit:,} bytes")]


def _unread_objects(units: list[Unit], results: list[_Compact],
                    found: list[Finding]) -> set[str]:
    """Return the hex digests whose object file is past the limit, unreadable or damaged.

    Such an object is not read (KI117: git cannot read it), or not as its digest's bytes
    (KI101 a changed byte, KI102 no JSON, KI111 a symbolic link): its run's forward records
    and group file cannot be judged against it (KI214, KI216 would say it "has no object
    file ... found no such file", review r88 F5), so its own finding alone is reported,
    with its fix (restore the file). Its names file is judged by the metadata's name only
    (:func:`kistore.check._names.check_names_files`). ``found``: the findings of the
    layout's paths (a symbolic link's KI111 is one, not a unit's).
    """
    unread = (FILE_TOO_LARGE.id, GIT_OBJECT_UNREADABLE.id, OBJECT_DIGEST_MISMATCH.id,
              JSON_PARSE_ERROR.id, NOT_A_REGULAR_FILE.id)
    linked = {f.file for f in found if f.rule.id == NOT_A_REGULAR_FILE.id}
    return {u.hex for u, r in zip(units, results, strict=True)
            if u.object_path in linked or r.findings
            and any(f.rule.id in unread and f.file == u.object_path for f in r.findings)}


def _keyed_by_unread(units: list[Unit], results: list[_Compact], unread: set[str]
                     ) -> set[str]:
    """Return the hex digests of the runs whose comparison key reads an object of ``unread``.

    A run's key reads its workload, protocol and environment
    (:data:`kistore.core.comparison.KEYED_REFERENCES`); while one of them is past the
    limit, unreadable or edited (:func:`_unread_objects`: its own finding, KI101 with its
    fix, restoring the bytes, says so), the key is not known, and the run's group file is
    not judged by it: KI216 said "remove a group file no add writes" of a file the restore
    makes right again (fresh98 MED 4: one cause, one advice).

    Args:
        units: the snapshot's units (:data:`Unit`).
        results: what each unit's check learnt (:data:`_Compact`: kind, references).
        unread: the hex digests :func:`_unread_objects` returned.

    Returns:
        Those runs' hex digests.
    """
    if not unread:
        return set()
    return {u.hex for u, r in zip(units, results, strict=True) if r.kind == "BenchmarkRun"
            and any((ref := r.references[i]) is not None and ref[7:] in unread
                    for i in _KEY_INDEXES if REFERENCE_FIELDS[i] in KEYED_REFERENCES)}


def _names_findings(snap: Files, units: list[Unit], results: list[_Compact],
                    focus: set[str] | None, wanted: Callable[[str], bool],
                    deferred: list[str]) -> list[Finding]:
    """KI211 and KI212 (:func:`kistore.check._names.check_names_files`) over one snapshot.

    The names files the workers confirmed (:func:`_names_confirmed`) are neither read nor
    judged again here; every other names file in the layout is read once (with ``focus``:
    those the range touches and those of the manifests it touches). ``deferred`` are the
    regular names files pairing left unjudged (:func:`_plain_units`): those not confirmed
    get their layout finding (KI110) here. Only the manifests the rules can say something
    about are handed on: those not confirmed, and those an unconfirmed names file names.
    """
    confirmed = {r.names_path: u.hex for u, r in zip(units, results, strict=True)
                 if r.names_path is not None}
    findings: list[Finding] = []
    for path in deferred:  # a confirmed path is a names path of the layout by construction
        if path not in confirmed and wanted(path):
            findings += check_layout_path(path, REGULAR)
    prefix = layout.NAMES_DIR + "/"
    present = [p for p in snap.modes  # the confirmed ones are present too: not listed again
               if p.startswith(prefix) and p not in confirmed and names_path_in_layout(p)]
    damaged: dict[str, Finding] = {}
    read = _names_reader(snap, damaged)
    asked = {h for h in map(_record_hex, map(read, present)) if h}
    if damaged:  # KI117 alone: no KI211 of its manifest, no KI212 of its unread bytes
        findings += [damaged[p] for p in sorted(damaged) if wanted(p)]
        present = [p for p in present if p not in damaged]
        confirmed = {**confirmed, **_owners_of(units, results, damaged)}
    skip = set(confirmed.values()) - asked
    manifests = [Named(u.hex, r.kind, r.name, u.object_path is not None,
                       u.metadata_path is not None)
                 for u, r in zip(units, results, strict=True) if u.hex not in skip]
    focus_digests = None if focus is None else {  # a deleted file's digest counts too
        u.hex for u in units
        if wanted(layout.object_path(Digest(u.hex))) or wanted(layout.metadata_path(Digest(u.hex)))}
    return findings + check_names_files(manifests, present, read,
                                        focus=None if focus is None else wanted,
                                        focus_digests=focus_digests, confirmed=confirmed)


def _owners_of(units: list[Unit], results: list[_Compact], paths: Iterable[str]
               ) -> dict[str, str]:
    """Return each of ``paths`` -> the hex digest of the manifest whose names path it is.

    For names files that cannot be read (KI117): their manifests are judged no further
    (:func:`kistore.check._names.check_names_files`'s ``confirmed``), as an unread object's
    names file is judged by its metadata only. A path no manifest owns is left out.
    """
    wanted = set(paths)
    owners: dict[str, str] = {}
    for u, r in zip(units, results, strict=True):
        path = owned_path(Named(u.hex, r.kind, r.name, u.object_path is not None,
                                u.metadata_path is not None))
        if path in wanted:
            owners[path] = u.hex
    return owners


def _record_hex(data: bytes | None) -> str | None:
    """Return the hex digest a names file holds (:func:`kistore.core.layout.digest_from_record`)."""
    owner = None if data is None else layout.digest_from_record(data)
    return None if owner is None else owner.hex


def _forward_findings(snap: Files, units: list[Unit], results: list[_Compact],
                      focus: set[str] | None, wanted: Callable[[str], bool]) -> list[Finding]:
    """KI213 and KI214 (:func:`kistore.check._forward.check_forward_files`) over one snapshot.

    A gate's snapshot holds the record paths of the runs it touches and the runs of the
    records it touches (:func:`kistore.check._focus.range_paths`); whether a referenced
    digest has an object is then looked up at its path.
    """
    present = [p for p in snap.modes if p.startswith(_FORWARD_PREFIX) and is_forward_path(p)]
    objects = {u.hex for u in units if u.object_path is not None}
    recorded = {p.rpartition("/")[2] for p in present}  # the runs the records name
    # each distinct reference judged once (a few thousand targets), not each run's four
    targets = set().union(*map(set, zip(*(res.references for res in results), strict=True)))
    dangling = {r for r in targets if r is not None and r[7:] not in objects}
    runs = [Run(u.hex, u.object_path is not None,
                {f: r for f, r in zip(REFERENCE_FIELDS, res.references, strict=True)
                 if r is not None})
            for u, res in zip(units, results, strict=True) if res.kind == "BenchmarkRun" and (
                focus is not None or u.hex in recorded or  # a whole tree: runs that dangle
                not dangling.isdisjoint(res.references))]
    looked_up: dict[str, bool] = {}

    def has_object(hex_: str) -> bool:
        if hex_ in objects or snap.complete:
            return hex_ in objects
        if hex_ not in looked_up:
            path = layout.object_path(Digest(hex_))
            looked_up[hex_] = path in snap.view.modes_of([path])
        return looked_up[hex_]

    focus_digests = None if focus is None else {
        u.hex for u in units
        if wanted(layout.object_path(Digest(u.hex))) or wanted(layout.metadata_path(Digest(u.hex)))}
    return check_forward_files(runs, present, _names_reader(snap), has_object,
                               focus=None if focus is None else wanted,
                               focus_digests=focus_digests)


_KEYED = 1 + max(map(REFERENCE_FIELDS.index, KEYED_REFERENCES))
"""A unit's references up to this index hold every one a key object reads."""
_KEY_INDEXES = tuple(REFERENCE_FIELDS.index(f) for f in REFERENCE_KINDS)
"""The index in a unit's references of each reference whose manifest a comparison key
reads (:data:`kistore.core.comparison.REFERENCE_KINDS`)."""


def _group_findings(snap: Files, units: list[Unit], results: list[_Compact],
                    focus: set[str] | None, wanted: Callable[[str], bool],
                    given: dict[str, bytes | None] | None = None) -> list[Finding]:
    """KI215 and KI216 (:func:`kistore.check._groups.check_group_files`) over one snapshot.

    Each run's key object is computed from its references and the specs of its protocol
    and environment, each distinct one read once (:func:`kistore.core.comparison.
    stored_spec`). A gate judges the runs the range touches and those whose protocol or
    environment object the range adds (found through their forward records by
    :func:`kistore.check._focus.range_paths`, which also reads each changed group file's
    run); a run's group path absent from the gate's snapshot is looked up in the tree.
    A whole tree whose group files all agree (:func:`_groups_agree`) is settled without
    the rules' loop. ``given``: every group file of the layout read while the workers
    checked files (:func:`_group_files_read`: path -> what :func:`_names_reader` gives),
    neither listed (its paths are the tree's group files) nor read again here.
    """
    present = list(given) if given is not None else [
        p for p in snap.modes if p.startswith(_GROUPS_PREFIX) and is_group_path(p)]

    def read_object(hex_: str) -> bytes | None:
        try:
            return snap.read(layout.object_path(Digest(hex_)))
        except FileTooLarge:
            return None

    run_keys = RunKeys(read_object)
    keys: dict[tuple[str | None, ...], dict[str, str] | None] = {}  # by the key's references

    def key_of(keyed: tuple[str | None, ...]) -> dict[str, str] | None:
        if keyed not in keys:
            keys[keyed] = run_keys.key_object(
                {f: r for f, r in zip(REFERENCE_FIELDS, keyed, strict=False) if r is not None})
        return keys[keyed]

    if focus is None and _groups_agree(snap, units, results, present, key_of, given):
        return []
    touched = None if focus is None else {
        u.hex for u in units
        if wanted(layout.object_path(Digest(u.hex))) or wanted(layout.metadata_path(Digest(u.hex)))}
    arrived = set() if touched is None else {
        h for h in touched if wanted(layout.object_path(Digest(h)))}
    named = {p.rpartition("/")[2] for p in present}
    members = []
    judged: set[str] = set()
    for unit, res in zip(units, results, strict=True):
        references = res.references
        if res.kind != "BenchmarkRun" or unit.object_path is None:
            continue  # no run: a group file naming it is KI216 all the same
        if focus is not None:
            if unit.hex in touched or any(  # type: ignore[operator]
                    references[i] is not None and references[i][7:] in arrived  # type: ignore[index]
                    for i in _KEY_INDEXES):
                judged.add(unit.hex)
            elif unit.hex not in named:
                continue
        # workload, protocol, environment: what a key reads
        members.append(Member(unit.hex, True, key_of(references[:_KEYED])))
    listed = _names_reader(snap)
    found: dict[str, int] = {}
    if not snap.complete and focus is not None:  # the judged runs' group paths: looked up
        cache: KeyCache = {}
        paths = [expected_file(m.hex, m.key_object, cache).path for m in members
                 if m.hex in judged and m.key_object is not None and m.is_run]
        found = snap.view.modes_of([p for p in paths if p not in snap.modes])
        present += list(found)
    by_blob: dict[str, bytes | None] = {}  # a group's files share one blob: read it once

    def read(path: str) -> bytes | None:
        if given is not None and path in given:
            return given[path]
        blob = snap.view.blob_id(path)
        if blob is not None and blob in by_blob:
            return by_blob[blob]
        if path not in found:
            data = listed(path)
        elif found[path] not in FILE_MODES:
            return None
        else:
            try:
                data = snap.view.read(path, OWN_FILE_BYTES)
            except FileTooLarge:
                data = b""  # not a key object: KI216
        if blob is not None:
            by_blob[blob] = data
        return data
    return check_group_files(members, present, read,
                             focus=None if focus is None else wanted, focus_digests=judged)


def _groups_agree(snap: Files, units: list[Unit], results: list[_Compact], present: list[str],
                  key_of: Callable[[tuple[str | None, ...]], dict[str, str] | None],
                  given: dict[str, bytes | None] | None) -> bool:
    """Whether KI215 and KI216 can find nothing in a whole tree (the common case, settled fast).

    True when the group file paths ``present`` are exactly the paths of the runs whose
    key is known (:func:`kistore.check._groups.expected_file`: no run lacks its file, no
    file names another run or key) and each is a regular file holding exactly its run's
    key object's bytes (:meth:`kistore.store.Files.holds`: a commit's by blob id, no blob
    read). Then :func:`kistore.check._groups.check_group_files` would return nothing: it
    is not asked, nor are its expected paths and bytes made a run at a time (~2-3 s of
    this process's CPU at 100,000 runs, serial after the workers). False: the caller
    judges every file as before (whatever this found is found again there).

    Args:
        snap: the whole tree's files.
        units: every manifest of the tree (:data:`Unit`).
        results: what each unit's check learnt (:data:`_Compact`: kind, references).
        present: the group file paths of the tree.
        key_of: a run's key object from its references up to :data:`_KEYED`, or None.
        given: every group file read while the workers checked files (path -> what
            :func:`_names_reader` gave: its paths are ``present``), compared here without
            a read; None: none read (a commit's: :meth:`kistore.store.Files.holds`).
    """
    runs = [(u.hex, r.references[:_KEYED]) for u, r in zip(units, results, strict=True)
            if r.kind == "BenchmarkRun" and u.object_path is not None]
    cache: KeyCache = {}
    groups: dict[tuple[str | None, ...], tuple[str, bytes] | None] = {}  # directory, bytes
    for keyed in dict.fromkeys(k for _, k in runs):
        key_object = key_of(keyed)
        if key_object is None:
            groups[keyed] = None
            continue
        first = expected_file("", key_object, cache)
        groups[keyed] = first.path, first.data
    expected = {group[0] + hex_: group[1] for hex_, keyed in runs
                if (group := groups[keyed]) is not None}
    if len(expected) != len(present):
        return False
    if given is not None:  # as many paths, each one read: the same paths
        return all(given.get(path, _NOT_GIVEN) == data for path, data in expected.items())
    if expected.keys() != set(present):
        return False
    holds = snap.holds
    return all(holds(path, data) for path, data in expected.items())


_NOT_GIVEN = object()
"""A path no group file was read at (:func:`_groups_agree`): equal to no bytes."""


def _names_reader(snap: Files, damaged: dict[str, Finding] | None = None
                  ) -> Callable[[str], bytes | None]:
    """``read(path)``: a names file's bytes, None for no regular file or one past the limit.

    Also forward records and group files. Read up to 1 MiB (:data:`OWN_FILE_BYTES`), never
    ``[limits] manifest-bytes``: they are kistore's own small files, not manifests (a
    store limiting manifests to 10 bytes got a KI212 for every names file).

    Args:
        snap: where to read.
        damaged: when given, a git object that cannot be read (:class:`ObjectUnreadable`,
            a flipped bit in a committed names file: review F6) puts its KI117 finding
            here, by path, and reads as None; else the error is raised.
    """
    def read(path: str) -> bytes | None:
        if snap.modes.get(path) not in FILE_MODES:
            return None
        try:
            return snap.read(path, OWN_FILE_BYTES)
        except FileTooLarge:
            return b""  # not a digest: KI212 (a names file is 72 bytes)
        except ObjectUnreadable as e:
            if damaged is None:
                raise
            damaged[path] = unreadable_finding(e, path)
            return None
    return read


_OBJECTS_PREFIX = layout.OBJECTS_DIR + "/"
_FORWARD_PREFIX = layout.FORWARD_DIR + "/"
_GROUPS_PREFIX = layout.GROUPS_DIR + "/"
_METADATA_PREFIX = layout.METADATA_DIR + "/"
_OBJECTS_CUT, _METADATA_CUT = len(_OBJECTS_PREFIX), len(_METADATA_PREFIX)
_SHARDED_NAME = re.compile(f"[0-9a-f]{{2}}/[0-9a-f]{{62}}{re.escape(layout.SUFFIX)}")


def _pair_key(path: str) -> tuple[str, int] | None:
    """Return (digest hex, 0 for an object or 1 for a metadata file), or None.

    :func:`kistore.core.layout.digest_from_path` for the paths it accepts, without its three
    regexes and a Digest per path (a test holds the two equal).
    """
    if path.startswith(_OBJECTS_PREFIX):
        side, rest = 0, path[_OBJECTS_CUT:]
    elif path.startswith(_METADATA_PREFIX):
        side, rest = 1, path[_METADATA_CUT:]
    else:
        return None
    if _SHARDED_NAME.fullmatch(rest) is None:
        return None
    return rest[:2] + rest[3:65], side


def _unit_chunks(snap: Files, wanted: Callable[[str], bool], findings: list[Finding],
                 units: list[Unit], *, everything: bool = False,
                 deferred: list[str] | None = None) -> Iterator[list[Unit]]:
    """Pair each object with its metadata file; yield the units :data:`CHUNK` at a time.

    A unit is complete when its first path is seen (the other path is looked up, not
    waited for), so a pool starts checking while this still pairs. Paths outside the
    layout or not regular files get their :func:`~kistore.check._rules.check_layout_path`
    findings appended to ``findings``; every unit yielded is also appended to ``units``.
    Runs of plain layout paths are paired a batch at a time (:func:`_plain_units`);
    ``everything`` says ``wanted`` is true of every path (no focus), so it is not asked.
    ``deferred``: a batch of regular files under ``store/names/`` is appended there unjudged
    (the caller owes them :func:`~kistore.check._rules.check_layout_path`); None: judged here.
    """
    chunk: list[Unit] = []
    for some in _units(snap, wanted, findings, everything, deferred):
        chunk += some
        while len(chunk) >= CHUNK:
            units += chunk[:CHUNK]
            yield chunk[:CHUNK]
            del chunk[:CHUNK]
    if chunk:
        units += chunk
        yield chunk


_BATCH = 1024
"""Paths :func:`_plain_units` judges at once."""

_OBJECT_LINES = re.compile(
    f"(?:{re.escape(_OBJECTS_PREFIX)}[0-9a-f]{{2}}/[0-9a-f]{{62}}{re.escape(layout.SUFFIX)}\n)+")
_METADATA_LINES = re.compile(
    f"(?:{re.escape(_METADATA_PREFIX)}[0-9a-f]{{2}}/[0-9a-f]{{62}}{re.escape(layout.SUFFIX)}\n)+")


def _units(snap: Files, wanted: Callable[[str], bool], findings: list[Finding],
           everything: bool, deferred: list[str] | None = None) -> Iterator[list[Unit]]:
    """Yield the units of :func:`_unit_chunks` in the order of ``snap.modes``, a few at a time."""
    modes = snap.modes
    items = iter(modes.items())
    obj: str | None
    meta: str | None
    while batch := list(islice(items, _BATCH)):
        plain = _plain_units(batch, modes, deferred)
        if plain is not None:
            yield plain if everything else [  # a gate: check only the range's paths
                Unit(u.hex, u.object_path, u.metadata_path,
                     wanted(u.object_path),  # type: ignore[arg-type]
                     u.metadata_path is not None and wanted(u.metadata_path))
                for u in plain]
            continue
        some: list[Unit] = []
        for path, mode in batch:
            paired = _pair_key(path)
            if paired is None or mode != REGULAR:
                if wanted(path):  # only these can be outside the layout or not 100644 files
                    findings += check_layout_path(path, mode)
                if paired is None:
                    continue
            if paired[1] == 0:  # an object: its metadata path is a valid one, present or not
                obj, meta = path, _METADATA_PREFIX + path[_OBJECTS_CUT:]
                if meta not in modes:
                    meta = None
            elif _OBJECTS_PREFIX + path[_METADATA_CUT:] in modes:
                continue  # the object's unit holds this metadata file
            else:
                obj, meta = None, path
            some.append(Unit(paired[0], obj, meta, obj is not None and wanted(obj),
                             meta is not None and wanted(meta)))
        yield some


def _plain_units(batch: list[tuple[str, int]], modes: dict[str, int],
                 deferred: list[str] | None = None) -> list[Unit] | None:
    """Pair a batch of plain paths at once; None when the batch is not plain.

    Plain: all objects, or all metadata files whose objects exist, each a regular file
    of mode 100644 with a valid layout name. The units are what the per-path loop of :func:`_units`
    yields for such a batch (no finding can arise there), judged by one regular expression
    over the batch instead of one per path: a clean store is nothing but such batches
    (pairing 100,000 manifests: 0.78 s -> 0.48 s of CPU). A batch of names files is
    appended to ``deferred`` when given, unjudged (the workers confirm most of them: a
    layout check of each here cost a sha256 and two regular expressions a path).
    """
    paths = [p for p, _ in batch]
    if {m for _, m in batch} != {REGULAR}:  # 100755 (KI114), symlinks, ...: path by path
        return None
    text = "\n".join(paths) + "\n"
    if text.count("\n") != len(paths):  # a path holding a newline: judge it alone
        return None
    cut = _OBJECTS_CUT
    if _OBJECT_LINES.fullmatch(text) is not None:
        metas = [_METADATA_PREFIX + path[cut:] for path in paths]
        make = Unit._make  # half the constructor's cost: a clean store is all such batches
        return [make((path[cut:cut + 2] + path[cut + 3:cut + 65], path, meta, True, True))
                if meta in modes else
                make((path[cut:cut + 2] + path[cut + 3:cut + 65], path, None, True, False))
                for path, meta in zip(paths, metas, strict=True)]
    if _METADATA_LINES.fullmatch(text) is not None and all(
            _OBJECTS_PREFIX + p[_METADATA_CUT:] in modes for p in paths):
        return []  # each belongs to its object's unit
    if deferred is not None and all(map(is_names_path, paths)):
        deferred += paths  # names files: judged by _names_findings
        return []
    if all(map(names_path_in_layout, paths)):
        return []  # names files: checked by _names_findings
    if all(map(is_forward_path, paths)):
        return []  # forward records: checked by _forward_findings
    if all(map(is_group_path, paths)):
        return []  # group files: checked by _group_findings
    return None


def check_unit(snap: Files, unit: Unit) -> tuple[list[Finding], Entry]:
    """Check one manifest's object and metadata files and build its cross-file entry.

    Args:
        snap: where to read the files.
        unit: see :data:`Unit`.

    Returns:
        The findings of :func:`~kistore.check._rules.check_object_bytes`,
        :func:`~kistore.check._rules.check_metadata_bytes`,
        :func:`~kistore.check._rules.check_value_limits` (``snap.value_limits``) and
        :func:`~kistore.check._rules.check_manifest_pair` for the files to check, and the
        :class:`~kistore.check._rules.Entry` (kind, name, references) of the manifest.
    """
    hex_, object_path, metadata_path, check_object, check_metadata = unit
    digest = Digest(hex_)
    findings: list[Finding] = []
    values: list[Any] = [None, None]
    for i, (path, check, checker) in enumerate((
            (object_path, check_object, check_object_bytes),
            (metadata_path, check_metadata, check_metadata_bytes))):
        try:
            data = None if path is None else snap.read(path)
        except FileTooLarge as e:  # not read; reported when its bytes are to be checked
            if check:
                findings.append(Finding(FILE_TOO_LARGE, e.message, file=path,
                                        expected=f"at most {e.limit:,} bytes",
                                        found=f"{e.size:,} bytes" if e.size is not None else
                                        f"more than {e.limit:,} bytes"))
            continue
        except ObjectUnreadable as e:  # a damaged repository: said however it is checked
            findings.append(unreadable_finding(e, path))
            continue
        if path is None or data is None:  # absent, or a symlink or submodule (a path finding)
            continue
        if check:
            parsed = checker(path, data)
            told = [_renamed(snap, f) for f in parsed.findings]
            if i == 0 and any(map(is_edit, told)):  # one cause: no rule judges these bytes
                findings += [f for f in told if f.rule.id in _SAID_OF_EDITED]
                continue
            findings += told
            values[i] = parsed.value
            if parsed.value is not None:
                findings += check_value_limits(path, parsed.value, len(data), snap.value_limits)
        else:
            values[i] = _quick_parse(data)
    obj, meta = values
    if (check_object or check_metadata) and obj is not None:
        findings += check_manifest_pair(object_path or layout.object_path(digest),
                                        metadata_path or layout.metadata_path(digest), obj, meta)
    return findings, entry_from(digest, obj, meta, has_object=object_path is not None,
                                has_metadata=metadata_path is not None)


_SAID_OF_EDITED = (OBJECT_DIGEST_MISMATCH.id, CRLF_LINE_ENDS.id)
"""What is said of an object file's edited bytes (:func:`is_edit`): the edit (KI101), and a
line-ending conversion, which is how an edit may come (KI105: its fix, restoring the file
from git, is KI101's)."""


def is_edit(finding: Finding) -> bool:
    """Whether a finding is the KI101 of an object file's edited bytes (one cause, fresh98 MED 4).

    Args:
        finding: a finding of an object file's bytes, told by :func:`_renamed`.

    Returns:
        True for a KI101 whose bytes are no stored manifest's (no ``extra["holds"]``: not
        a rename or a copy, which :func:`one_cause` words). The bytes are not the manifest
        the file names, and restoring them (KI101's and KI401's fix) is the one advice, so
        :func:`check_unit` judges them by no other rule: the content rules (KI102-KI104,
        KI107, the schema, KI209, KI222-KI233, KI219) and the cross-file ones reading the
        run's references and key (KI201, KI202, KI213, KI215, KI218, KI238) each gave a
        fix of their own for the edited value (KI233's: add a corrected run, have a
        maintainer withdraw it). A never-parsed object is what the cross-file checks see.
    """
    return finding.rule.id == OBJECT_DIGEST_MISMATCH.id and "holds" not in finding.extra


def _renamed(snap: Files, finding: Finding) -> Finding:
    """Return a KI101 or KI110 finding told what the file is, when its bytes are a stored one's.

    Args:
        snap: where the files are read.
        finding: a finding of an object file's bytes (KI101), or of a file off the layout
            (KI110: read only when it is under ``store/objects/``, and not a temporary file
            of a killed add, ``.NAME.PID.N.tmp``).

    Returns:
        ``finding``; when the file's bytes hash to a digest whose metadata file is stored:

        * its own object file missing: the file was renamed by hand (reviewer r90 F7; r91
          F5: to ``NAME.json.bak`` too, KI110), :func:`kistore.core.restore.renamed_advice`
          added to its message, ``extra["holds"]`` (the digest its bytes are) and the
          ``mv`` as its fix, which :func:`one_cause` reads; when the file's own name is a
          stored manifest's object path (a rename over another object, r91 F5), that
          object's bytes are gone: ``extra["over"]``, and the fix restores it after the
          ``mv`` (:func:`kistore.core.restore.restore_advice`);
        * its own object file there with those bytes: a copy (r91 F5: KI101 advised
          ``git checkout`` of a file git never held), ``extra["copy"]``, removed with ``rm``.

        Any other file (its bytes no stored manifest's: tampered) is left as it is.
    """
    file = finding.file
    if not file or not (finding.rule.id == OBJECT_DIGEST_MISMATCH.id and finding.found
                        or finding.rule.id == PATH_OUTSIDE_LAYOUT.id
                        and file.startswith(layout.OBJECTS_DIR + "/")
                        and not file.rpartition("/")[2].startswith(".")):
        return finding  # .NAME.PID.N.tmp: a killed add's temporary file, KI110 says so
    try:
        if finding.rule.id == OBJECT_DIGEST_MISMATCH.id:
            holds = Digest.from_str(finding.found or "")
        elif (data := snap.read(file)) is None:
            return finding
        else:
            holds = Digest.of(data)
        own_bytes = snap.read(layout.object_path(holds))
        if snap.read(layout.metadata_path(holds)) is None:
            return finding  # no stored manifest's bytes (tampered)
        named = layout.digest_from_path(file)
        over = named if named is not None and snap.read(layout.metadata_path(named)) \
            is not None else None
    except (FileTooLarge, ObjectUnreadable, ValueError):
        return finding
    own = layout.object_path(holds)
    said = ("not a path of the store layout" if finding.rule.id == PATH_OUTSIDE_LAYOUT.id
            else finding.message)  # KI110's own advice (move or remove it) is not this
    extra: dict[str, Any] = {**finding.extra, "holds": str(holds)}
    if own_bytes is not None:
        if Digest.of(own_bytes) != holds:
            return finding  # its own file is there, changed: KI101 says so on it
        extra["copy"] = True
        message = (f"{said}; its bytes are those of {holds}, whose own object file {own} is "
                   "there with them: a copy")
        fix = (f"a copy of a stored object: remove it with `rm {file}` (from the top of the "
               "clone); nothing else is to be written or removed for it")
    else:
        message = f"{said}; {_renamed_clause(file, holds, over)}"
        fix = (f"a file renamed by hand: rename it back with `mv {file} {own}` (from the top "
               "of the clone); nothing else is to be written or removed for it")
    if over is not None:  # its name is a stored object's path: that object's bytes are gone
        back = restore_advice(file, over, None)
        extra["over"] = str(over)
        if own_bytes is not None:
            message += f", written over the object file of {over}, whose metadata is stored"
            fix = f"a copy of a stored object written over another object's file: {back}"
        else:
            fix = (f"a file renamed by hand over another object's file: rename it back with "
                   f"`mv {file} {own}` (from the top of the clone) first, then put back the "
                   f"object it replaced: {back}")
    return dataclasses.replace(finding, message=message, extra=extra, fix=fix)


_ON_MISNAMED = ("KI204", "KI213", "KI215", "KI226")
"""Rules a misnamed object file breaks itself: an object with no metadata, whose "run"
lacks its forward records and group file, and, an imported run's bytes judged as a run of
the digest its name says, claims the source's data without being its import (KI226,
whose "add the corrected run as a new object" contradicted KI101's `rm`: reviewer r93 F5)."""

_ON_HOLDER = ("KI214", "KI216")
"""Rules a forward record or group file of the renamed run breaks (its object is gone)."""

_ON_OVERWRITTEN = ("KI401",)
"""Rules the object file a rename wrote over breaks at its path (HEAD holds other bytes);
every finding on its metadata file judges that metadata with the other manifest's bytes."""


def one_cause(findings: list[Finding], others: Iterable[Finding] = (),
              base: Base | None = None) -> list[Finding]:
    """Leave out the findings an object file renamed or copied by hand explains.

    One cause, one advice. A file ``mv``-ed to another name (KI101, or KI110 for a name off
    the layout such as ``NAME.json.bak``, with ``extra["holds"]``: :func:`_renamed`) also
    leaves its own digest's metadata without an object (KI203), its object deleted from
    HEAD's path (KI402, or KI403 when a commit renamed it) and that run's forward records
    and group file naming no object (KI214, KI216), and makes the misnamed file an object
    without metadata (KI204) whose "run" lacks forward records and a group file (KI213,
    KI215), and leaves each run naming it with a reference to no object file (KI201) and
    no forward record (KI213: reviewer r92 F2). Each of those advised writing or removing
    a file (``kistore migrate`` wrote a group file for a run that does not exist, left
    after the ``mv``: reviewer r90b F4); the ``mv`` alone puts them right. Renamed over
    another stored object (``extra["over"]``, r91 F5): that object's path reads as
    modified (KI401), and its metadata, forward records and group file are judged with the
    moved bytes; the finding's fix restores it.
    A copy (``extra["copy"]``) breaks KI204, KI213 and KI215 only, on itself, and KI226
    of an imported run's copy (r93 F5). First, an object the history check finds gone
    leaves out its metadata's KI203 (:func:`_deleted_since`, r93b G2), and a names file
    renamed by hand its manifest's KI211 and its KI208 (:func:`_names_moved`, r93b G9).

    When the history check's KI401-KI403 of those paths name a commit, the rename (or the
    copy written over another object) is committed: renaming it back in a later commit
    leaves it in the history, which the gate and ``verify`` read commit by commit (KI403
    again: reviewer r92 F12), so the finding's fix says the branch's way instead, naming
    the commit and BASE (:func:`_committed_fix`).

    Args:
        findings: findings of one verify (or one gate).
        others: the rest of its findings, read for their causes (the contents check's
            KI101, for the history check's KI402) and their commits (the history check's
            KI403, for the contents check's KI101); not returned. The gate first gives
            its KI101 findings the range's fix (:func:`gate_fixes`).
        base: the gate's BASE (:class:`._fixes.Base`), whose rebase a committed rename's
            fix names (:func:`._fixes.rebase_fix`; read only then, mend02); None
            (``verify``): the fix says how to find it.

    Returns:
        ``findings`` in their order, without those on the files such a rename explains,
        a committed one's cause with its branch fix.
    """
    findings = _names_moved(_deleted_since(findings, others), others, base or HINT_BASE)
    misnamed: set[str] = set()
    holders: set[str] = set()
    moved: set[str] = set()  # the digests whose bytes sit in a renamed file
    own: dict[str, str] = {}  # a renamed object's own paths -> the misnamed file
    overwritten: set[str] = set()
    judged_with_moved: set[str] = set()  # the metadata of an object renamed over
    for f in (*findings, *others):
        if f.rule.id in (OBJECT_DIGEST_MISMATCH.id, PATH_OUTSIDE_LAYOUT.id) and f.file \
                and "holds" in f.extra and NAMES_FILE not in f.extra:
            misnamed.add(f.file)
            if not f.extra.get("copy"):
                holds = Digest.from_str(f.extra["holds"])
                holders.add(holds.hex)
                moved.add(str(holds))
                own |= dict.fromkeys((layout.metadata_path(holds), layout.object_path(holds)),
                                     f.file)
            if "over" in f.extra:
                over = Digest.from_str(f.extra["over"])
                holders.add(over.hex)
                overwritten.add(f.file)
                judged_with_moved.add(layout.metadata_path(over))
    if not misnamed:
        return findings

    def explained(f: Finding) -> bool:
        file = f.file or ""
        return ((f.rule.id in _ON_MISNAMED and file in misnamed)
                or (f.rule.id in _ON_HOLDER and file.rpartition("/")[2] in holders)
                or (f.rule.id in _ON_OVERWRITTEN and file in overwritten)
                or (f.rule.id in _ON_OWN and file in own)
                or (f.rule.id in _ON_REFERRER and _names(f) in moved)
                or file in judged_with_moved)

    committed: dict[str, dict[str, str]] = {}  # misnamed file -> commit -> a path it moved
    for f in (*findings, *others):
        if f.rule.id in _ON_OWN + _ON_OVERWRITTEN and "commit" in f.extra and explained(f):
            cause = own.get(f.file or "", f.file or "")
            committed.setdefault(cause, {}).setdefault(f.extra["commit"], f.file or "")
    return [_committed_fix(f, committed[f.file or ""], base)
            if f.file in committed and "holds" in f.extra else f
            for f in findings if not explained(f)]


_HISTORY = ("KI401", "KI402", "KI403")
"""The history check's findings on an object path: modified, deleted, renamed."""


def _deleted_since(findings: list[Finding], others: Iterable[Finding]) -> list[Finding]:
    """Leave out KI203, KI214, KI216 of an object the history check finds gone.

    One cause, one advice (reviewer r93b G2): an object deleted in a commit (KI402), or
    edited and then deleted (KI401 on the edit: the deletion of bytes that are no object's
    is not KI402, :func:`._history._was_object`), or renamed away (KI403) leaves its
    metadata without an object, and so does a committed object deleted in the work tree
    (KI402 of the work tree); KI203 advised removing the metadata file (or a ``kistore
    add``), which loses the run for good. The history finding's fix, restoring the object
    (in a branch: dropping the commits; in the work tree: ``git checkout``), puts the
    metadata right too, and the run's group file and forward records, which name no object
    while it is gone (KI216, KI214: ``verify`` said them too), and each run naming it, whose
    reference names no object file and has no forward record (KI201, KI213: "add the
    referenced manifest", as for a renamed object, r92 F2) and its group file, whose key is
    not known while the object is gone (KI216: "remove a group file no add writes").

    Args:
        findings: findings of one verify (or one gate).
        others: the rest of its findings (``verify``'s history check), read for causes.

    Returns:
        ``findings`` in their order, without each such KI203, KI214, KI216, and KI201 and
        KI213 of a reference to it.
    """
    touched = {f.file for f in (*findings, *others) if f.rule.id in _HISTORY and f.file}
    if not touched:
        return findings

    gone = {d.hex for path in touched if (d := layout.digest_from_path(path)) is not None}

    def names_gone(f: Finding) -> bool:
        named = _names(f) if f.rule.id in _ON_REFERRER else None
        return named is not None and named.removeprefix("sha256:") in gone
    # a run naming it: its key is not known while it is gone, so its group file is KI216's
    referrers = {d.hex for f in findings if names_gone(f)
                 and (d := layout.digest_from_path(f.file or "")) is not None}

    def explained(f: Finding) -> bool:
        file = f.file or ""
        digest, leaf = layout.digest_from_path(file), file.rpartition("/")[2]
        return ((f.rule.id == "KI203" and digest is not None and digest.hex in gone)
                or (f.rule.id in _ON_HOLDER and leaf in gone)
                or (f.rule.id == "KI216" and leaf in referrers) or names_gone(f))
    return [f for f in findings if not explained(f)]


def _names_moved(findings: list[Finding], others: Iterable[Finding], base: Base
                 ) -> list[Finding]:
    """Leave out what a names file renamed by hand explains (reviewer r93b G9).

    Its manifest's missing names file (KI211 on the metadata) and, at the gate, the commit
    deleting it (KI208 on the names file): the rename's ``mv`` back puts both right. A
    committed rename (KI208 names the commit) gets the branch's fix instead: a later
    commit moving it back leaves the deletion in the history, read commit by commit.

    Args:
        findings: findings of one verify (or one gate).
        others: the rest of its findings, read for the commits of KI208.
        base: the gate's BASE, or :data:`._fixes.HINT_BASE` (``verify``), whose rebase
            the fix names (:attr:`._fixes.Base.rebase_id`, read only for such a fix).

    Returns:
        ``findings`` in their order, without those; the KI110 of a committed rename with
        the fix naming the commit (``git rebase -i BASE``).
    """
    renamed = {f.extra[NAMES_FILE]: f for f in findings
               if f.rule.id == PATH_OUTSIDE_LAYOUT.id and NAMES_FILE in f.extra
               and not f.extra.get("copy")}
    if not renamed:
        return findings
    metadata = {layout.metadata_path(Digest.from_str(f.extra["holds"])) for f in renamed.values()}
    commits: dict[str, list[str]] = {}
    for f in (*findings, *others):
        if f.rule.id == "KI208" and f.file and f.file in renamed and "commit" in f.extra:
            commits.setdefault(f.file, []).append(str(f.extra["commit"])[:12])
    out = []
    for f in findings:
        if (f.rule.id == "KI208" and f.file in renamed) or (
                f.rule.id == "KI211" and f.file in metadata):
            continue
        own = f.extra.get(NAMES_FILE) if f.rule.id == PATH_OUTSIDE_LAYOUT.id else None
        if own in commits and not f.extra.get("copy"):
            f = dataclasses.replace(f, fix=(
                f"a names file renamed by hand, in commit {', '.join(commits[own])} of the "
                "branch: moving it back in a later commit leaves the deletion in the history, "
                "which is read commit by commit (KI208), so rebuild the branch without it: "
                f"{rebase_command(base.rebase_args)}, and drop that commit (or edit it to leave "
                f"{own} as it "
                "was); nothing else is to be written or removed for it"))
        out.append(f)
    return out


def gate_fixes(findings: list[Finding], base: Base) -> list[Finding]:
    """Give the gate's KI101 findings the range's fix (reviewer r93b G1, G7).

    At the gate a KI101 on a file a commit of the range edited (KI401 naming it) gets the
    branch's fix (``git rebase -i BASE``; ``git checkout HEAD`` restores nothing there, and
    a committed object cannot be dropped), and a copy written over an object file no commit
    held (a made-up metadata file beside it) gets the branch's fix too, taking both files
    out of the commit bringing them (:func:`._fixes.brought_fix`: a ``git rm`` in a later
    commit leaves them in the history, which the gate judges commit by commit, hist00); in
    pre-commit ``git rm`` of both. Called before :func:`one_cause`, which ``verify`` calls
    alone.

    Args:
        findings: the gate's findings.
        base: the range's BASE, whose rebase the fixes name (:attr:`._fixes.Base.rebase_id`,
            read only for such a fix: mend02); :attr:`._fixes.Base.staged`, the range's HEAD
            is the pre-commit hook's commit of the index: an edit is restored from HEAD
            (:func:`._fixes.staged_fix`), no commit dropped.

    Returns:
        ``findings`` in their order; a KI101 of bytes no stored manifest's (an edit) on a
        file a commit's KI401 names: the fix drops that commit (``git rebase -i BASE``: a
        fixing commit leaves the edit in the history, read commit by commit); a copy
        written over an object file no commit of the range changed (no KI401: its
        metadata file was made for it): both files out of that commit (staged: ``git rm``
        of both).
    """
    edited: dict[str, list[str]] = {}
    for f in findings:
        if f.rule.id == "KI401" and f.file and "commit" in f.extra:
            edited.setdefault(f.file, []).append(str(f.extra["commit"]))
    out = []
    for f in findings:
        if f.rule.id == OBJECT_DIGEST_MISMATCH.id and f.file in edited \
                and "holds" not in f.extra and base.staged:
            f = dataclasses.replace(f, fix=staged_fix(
                "an object's bytes edited", f.file,
                "objects are never edited: add a new manifest instead"))
        elif f.rule.id == OBJECT_DIGEST_MISMATCH.id and f.file in edited \
                and "holds" not in f.extra:
            f = dataclasses.replace(f, fix=rebase_fix(
                "an object's bytes edited", edited[f.file], "restoring them", "the edit",
                "KI401", f.file, base.rebase_args,
                "objects are never edited: add a new manifest instead"))
        elif f.rule.id == OBJECT_DIGEST_MISMATCH.id and f.extra.get("copy") \
                and "over" in f.extra and f.file not in edited and f.file:
            meta = layout.metadata_path(Digest.from_str(f.extra["over"]))
            what = "a copy of a stored object, with a metadata file made for it"
            f = dataclasses.replace(f, fix=(
                f"{what}: remove both (`git rm {f.file} {meta}`) and commit; nothing else is "
                "to be written or removed for it" if base.staged else brought_fix(
                    what, f"{f.file} {meta}", base.rebase_args,
                    "nothing else is to be written or removed for it")))
        out.append(f)
    return out


def edit_fixes(contents: list[Finding], history: Iterable[Finding]) -> list[Finding]:
    """Give ``verify``'s KI101 of an object edited in a commit the fix of that commit's KI401.

    One cause, one advice (reviewer fresh95 F4): the history walk gives the KI401 of an
    edit the revision holds the fix that works, restoring the bytes from the commit before
    the edit (:func:`._history.history_findings`); ``git checkout HEAD -- PATH``, the
    KI101's own, changes nothing there. A KI401 of the work tree on the file (no commit)
    says ``HEAD`` holds an object's bytes there (a change of bytes no object's is none:
    :func:`._history._was_object`): the KI101 is of the work tree's bytes, and its own
    fix stands. The gate's KI101 gets the branch's fix from :func:`gate_fixes`.

    Args:
        contents: ``verify``'s contents findings (KI101 among them).
        history: its history findings (KI401 among them, each fix as the walk gave it).

    Returns:
        ``contents`` in their order; a KI101 of bytes no stored manifest's (an edit, not a
        rename: no ``extra["holds"]``) on a file whose KI401 names a commit, holds the file
        (no ``extra["deleted"]``) and has a fix of its own, with that fix. Raises nothing.
    """
    fixes: dict[str, str] = {}
    worktree: set[str] = set()
    for f in history:
        if f.rule.id != "KI401" or not f.file:
            continue
        if "commit" not in f.extra:
            worktree.add(f.file)
        elif "deleted" not in f.extra and f.fix is not None:
            fixes.setdefault(f.file, f.fix)
    return [dataclasses.replace(f, fix=fixes[f.file])
            if f.rule.id == OBJECT_DIGEST_MISMATCH.id and f.file in fixes
            and f.file not in worktree and "holds" not in f.extra else f for f in contents]


_ON_REFERRER = ("KI201", "KI213")
"""Rules a run naming the renamed object breaks: its reference names no object file, and
has no forward record (reviewer r92 F2: `kistore migrate`, KI213's advice, wrote records
for an object that is there, under another name)."""


def _names(finding: Finding) -> str | None:
    """Return the digest a KI201 or KI213 finding's reference names (text), or None."""
    if "reference" in finding.extra:
        return str(finding.extra["reference"])
    found = layout.forward_from_path(finding.extra.get("forward_path", ""))
    return None if found is None else str(found[0])


_ON_OWN = ("KI203", "KI402", "KI403")
"""Rules a renamed object's own paths break: its metadata without an object, its object
deleted from its path, or renamed (committed) away from it."""


def _committed_fix(finding: Finding, commits: dict[str, str], base: Base | None) -> Finding:
    """Give a committed rename's (or overwriting copy's) finding the branch's fix.

    Args:
        finding: the KI101 or KI110 finding of the misnamed file (:func:`_renamed`).
        commits: each commit (full id) whose KI401-KI403 it explains -> a path it moved
            or changed there.
        base: the gate's BASE (its rebase named), or None (``verify``: no range).

    Returns:
        ``finding`` whose fix names the commits and says to rebuild the branch without
        them (:func:`._fixes.rebase_fix`): a later commit putting the files back leaves them in
        the history (KI401-KI403); a rename's message says the commits, not the ``mv``.
    """
    message = finding.message
    if not finding.extra.get("copy"):  # the message's `mv` is the work tree's way: not this
        holds = Digest.from_str(finding.extra["holds"])
        over = Digest.from_str(finding.extra["over"]) if "over" in finding.extra else None
        file, said = finding.file or "", _renamed_clause(finding.file or "", holds, over)
        if message.endswith(said):  # what _renamed wrote last: the commits instead
            message = message[:-len(said)] + _renamed_clause(file, holds, over, list(commits))
    what = ("a copy of a stored object written over another object's file"
            if finding.extra.get("copy") else "a file renamed by hand")
    return dataclasses.replace(finding, message=message, fix=rebase_fix(
        f"{what},", list(commits), "putting it back", "the change", "KI401-KI403",
        " and ".join(sorted(set(commits.values()))), base.rebase_args if base else None,
        "nothing else is to be written or removed for it"))


def _renamed_clause(file: str, holds: Digest, over: Digest | None,
                    commits: list[str] | None = None) -> str:
    """Return what a renamed object file's KI101 or KI110 message says after its own words.

    Args:
        file: the misnamed file's repository path.
        holds: the digest its bytes hash to (its own object file missing).
        over: the stored manifest whose object file ``file`` is, or None.
        commits: the commits (full ids) that renamed it, or None: not committed.

    Returns:
        Not committed: :func:`kistore.core.restore.renamed_advice` (the ``mv`` back); else
        whose bytes they are and the commits, with no ``mv`` (a fixing commit leaves the
        rename in the history: :func:`_committed_fix`).
    """
    if commits is None:
        return renamed_advice(file, holds, over)
    return (f"its bytes are those of {holds}, whose own object file "
            f"{layout.object_path(holds)} is missing: renamed by hand in commit "
            f"{', '.join(c[:12] for c in commits)}") + (
        "" if over is None else f", over the object file of {over}, whose metadata is stored")


def unreadable_finding(error: ObjectUnreadable, path: str | None) -> Finding:
    """Return the KI117 finding of a git object that cannot be read (a damaged repository).

    Args:
        error: what reading it raised.
        path: the repository path it was read for.
    """
    what = "a git object" if error.oid == "?" else f"git object {error.oid}"
    return Finding(GIT_OBJECT_UNREADABLE, f"{what} cannot be read ({error.reason})",
                   file=path or error.path,
                   extra={} if error.oid == "?" else {"object": error.oid})


def stopped_finding(error: ObjectUnreadable) -> Finding:
    """Return the KI117 finding of a damaged or missing git object that stopped one check.

    A tree, commit or note that cannot be read leaves nothing below it to check: that
    check stops with this finding (the object, the path it was read for, ``git fsck``).

    A commit libgit2 cannot parse (:class:`kistore.git.blobs.CommitUnparsable`: no author
    line...) is KI225 instead (:func:`._commits.unparsable_finding`): nothing is damaged.

    Args:
        error: what reading it raised.
    """
    if isinstance(error, CommitUnparsable):
        return unparsable_finding(error)
    finding = unreadable_finding(error, error.path)
    return dataclasses.replace(finding, message=finding.message + (
        "; the check stopped there (nothing below it can be read): run `git fsck`"))


_worker_snapshot: Files | None = None

CHUNK = 500
"""Units a worker checks per task (one pickle each way per chunk)."""

class _Compact(NamedTuple):
    """One unit's result as it crosses processes: a tuple, its fields by name.

    It was a positional 10-tuple (review: fields by name). A tuple, not a dataclass:
    unpickling an Entry (a dataclass holding a Digest) cost the parent ~40 us a manifest,
    more than the checks.

    Attributes:
        findings: the unit's findings (None: none).
        kind: the manifest's kind, or None.
        name: its name, or None.
        references: its references in :data:`kistore.core.model.REFERENCE_FIELDS` order.
        names_path: the manifest's names path when the worker found it holding exactly this
            manifest's record (:func:`_names_confirmed`; else None).
        statistic: the primary statistic a run or protocol states (KI218; else None).
        observed: the ``observedAt`` of a run in seconds
            (:func:`kistore.core.observed.run_observed` of the object's bytes as read:
            KI227 reads no blob again; None for another kind or no readable time;
            :data:`_UNREAD` when the object was not read whole).
        claim: the source record a run claims (:func:`kistore.core.claims.stored_claim` of
            the same bytes: KI232 reads no object again; None for none; :data:`_UNREAD`
            likewise).
        board: the board a SOL-ExecBench run or a workload states (KI238,
            :func:`kistore.core.boards.board_of`; else None).
        loaded: when a :class:`FromParse` asked (``keep`` not None), the manifest as its
            judge takes it (:func:`_loaded`; None when it is not taken).
        latency: the statistics a passed run's ``timing.latencyNs`` states (KI252,
            :func:`kistore.core.statistics.latency_names`; else None).
    """

    findings: list[Finding] | None
    kind: str | None
    name: str | None
    references: tuple[str | None, ...]
    names_path: str | None
    statistic: str | None
    observed: int | str | None
    claim: Claim | str | None
    board: Board | None
    loaded: Loaded | None
    latency: tuple[str, ...] | None = None


def _check_units_compact(snap: Files, chunks: Iterator[list[Unit]], workers: int | None,
                         meanwhile: Callable[[], object] | None, entries: bool = False,
                         keep: frozenset[str] | None = None
                         ) -> Iterator[tuple[list[Unit], list[_Compact], bytes | None]]:
    """Yield (units, their :data:`_Compact` results, entries) chunk by chunk, in order.

    Here or in a pool. Entries: with ``entries``, the units' object entries and metadata
    blob ids as read (:func:`_read_pairs`, :data:`UNIT_ENTRY_SIZE` bytes each), else None.
    ``keep``: as :func:`_check_chunk` takes it.
    """
    global _worker_snapshot
    if workers is None:  # 2 CPUs, 20,000 manifests: 7.5 s alone, 5.7 s with a pool of 2
        cpus = os.cpu_count() or 1
        manifests = len(snap.modes) // 2  # an object and a metadata file each
        workers = min(cpus, 8) if manifests >= PARALLEL_MIN and cpus >= 2 else 1
    if workers <= 1:
        if meanwhile is not None:
            meanwhile()
        for units in chunks:
            read = bytearray() if entries else None
            compact = _check_chunk(snap, units, read, keep)
            yield units, compact, None if read is None else bytes(read)
        return
    # Lazy: the process machinery loads only when workers run (start-up).
    import multiprocessing

    for kind in KINDS:  # compile the validators once, before the fork, not in each worker
        fast_validator(kind)
    # fork: workers inherit the snapshot (paths, blob ids); each task carries its units, sent
    # as soon as they are paired, so workers check while this process still pairs. Pairing
    # ends before ``meanwhile`` starts: pygit2 holds the GIL through a status of every file.
    _worker_snapshot = snap
    try:
        with forking():  # an interrupt lands after the forks, not in their at-fork hooks
            pool = multiprocessing.get_context("fork").Pool(workers, _reopen_worker_snapshot,
                                                            (os.getpid(),))
        with pool:
            pending = [(units, pool.apply_async(  # plain tuples: a NamedTuple pickles at
                # ~2 us, 14 times a tuple's (Unit.__new__ per unit); the worker names them
                _check_chunk_in_worker, ([tuple(u) for u in units], entries, keep)))
                for units in chunks]
            if meanwhile is not None:
                meanwhile()
            for units, result in pending:
                yield units, *result.get()
    finally:
        _worker_snapshot = None


def _check_chunk(snap: Files, units: list[Unit], entries: bytearray | None = None,
                 keep: frozenset[str] | None = None) -> list[_Compact]:
    """Return each unit's :data:`_Compact`, by :func:`check_clean_pair` when it can.

    A unit whose object or metadata file holds a string or array past the limits
    (:func:`~kistore.core.limits.within_value_limits` of ``snap.value_limits``: only a file
    long enough to hold one is parsed for it) goes to :func:`check_unit`, which reports it
    (KI107).

    As :func:`check_unit` and :func:`_names_confirmed` judge each unit alone. ``entries``,
    when given, gets each unit's object entry as read (:func:`_read_pairs`), in order.
    ``keep``: when not None, each result ends with the unit's manifest as a
    :class:`FromParse` judge takes it (:func:`_loaded`), else None.

    The work goes in passes over the chunk, not unit by unit: read both files of every
    unit whose bytes are all to be checked (up to :data:`READ_AHEAD` bytes at a time),
    then check them, then read the names files. The answers are the same; what changes
    is that a parse no longer follows a system call: reading and parsing unit by unit
    cost ~20% more CPU a manifest than the same reads and parses batched (measured in
    docs/speed.md, sixth pass; most likely the processor's caches, cold again after
    each call into the kernel).
    """
    checked: list[_Compact] = []  # names_path None: read in the last pass
    start = 0
    limits = snap.value_limits
    while start < len(units):
        batch, pairs = _read_pairs(snap, units, start, entries)
        for unit, pair in zip(batch, pairs, strict=True):
            # a file long enough to hold a string or array past the limits (KI107; no real
            # manifest is: 16 KB at most in shared/data) is walked; check_unit reports one
            clean = None if pair is None or not (within_value_limits(pair[0], limits) and
                                                 within_value_limits(pair[1], limits)) \
                else check_clean_pair(unit.hex, *pair)
            if clean is not None:  # its claim and time read from the same parse (docs/speed.md)
                checked.append(_Compact(
                    None, clean.kind, clean.name, clean.references, None, clean.statistic,
                    observed_seconds(clean.spec) if clean.kind == "BenchmarkRun" else None,
                    clean.claim, clean.board,
                    None if keep is None or clean.name is None else
                    _loaded(clean.kind, clean.name, clean.spec, keep),
                    latency_names(clean.spec) if clean.kind == "BenchmarkRun" else None))
                continue
            findings, entry = check_unit(snap, unit)
            parsed = None if keep is None or pair is None else \
                parse_manifest(Digest(unit.hex), *pair, validate=True)
            checked.append(_Compact(
                findings or None, entry.kind, entry.name,
                tuple(entry.references.get(f) for f in REFERENCE_FIELDS), None,
                entry.statistic, _UNREAD if pair is None else None if entry.kind is None
                else run_observed(pair[0]),  # edited bytes (is_edit) state no time either
                _UNREAD if pair is None else stored_claim(pair[0], unit.hex), entry.board,
                None if parsed is None else _loaded(*parsed, None), entry.latency))
        start += len(batch)
    return [_with_names_path(result, _names_confirmed(snap, unit.hex, result.kind,
                                                      result.name))
            if unit.object_path is not None and unit.metadata_path is not None else result
            for unit, result in zip(units, checked, strict=True)]


_NAMES_PATH = _Compact._fields.index("names_path")


def _with_names_path(result: _Compact, path: str | None) -> _Compact:
    """Return ``result._replace(names_path=path)``, at a third of its cost (~0.5 us a unit)."""
    return _Compact._make(result[:_NAMES_PATH] + (path,) + result[_NAMES_PATH + 1:])


def _loaded(kind: str, name: str, spec: dict[str, Any], keep: frozenset[str] | None
            ) -> Loaded | None:
    """Return a manifest as a :class:`FromParse` judge takes it, or None for another kind.

    Args:
        kind: its kind.
        name: its name.
        spec: its parsed ``spec``.
        keep: the top-level keys of a run's spec to keep (the fast path passed it: it
            states no contradiction and no unproven claim, so a judge reads no other
            key), or None to keep the whole spec (the full checks judged it).
    """
    if kind not in _LOADED_KINDS:
        return None
    if keep is not None and kind == "BenchmarkRun":
        spec = {k: v for k, v in spec.items() if k in keep}
    return kind, name, spec


_UNREAD = "unread"
"""The observed time and claim of a unit whose object :func:`_check_chunk` did not read whole
(absent, past the limit, unreadable, no metadata file): not known (:data:`_Compact`)."""

READ_AHEAD = 4 << 20
"""Bytes :func:`_check_chunk` reads before checking them: a chunk of 500 manifests near
the size limit is not held in memory at once."""


def _read_pairs(snap: Files, units: list[Unit], start: int, entries: bytearray | None = None
                ) -> tuple[list[Unit], list[tuple[bytes, bytes] | None]]:
    """Read the files of ``units[start:]`` until :data:`READ_AHEAD` bytes (one unit at least).

    Args:
        snap: where to read the files.
        units: the chunk's units (:data:`Unit`).
        start: the first unit to read.
        entries: when given, each unit read appends its object's git tree entry as read
            (:data:`ENTRY_SIZE` bytes: :func:`_git_entry`), then its metadata file's blob id
            (20 bytes; :data:`_NO_BLOB` when not read): :data:`UNIT_ENTRY_SIZE` in all.

    Returns:
        The units read (a run from ``start``) and, for each, (object bytes, metadata bytes)
        when both are to be checked and both read, else None (:func:`check_unit` decides).
    """
    read = snap.read
    pairs: list[tuple[bytes, bytes] | None] = []
    size = 0
    end = start
    while end < len(units) and size < READ_AHEAD:
        unit = units[end]
        end += 1
        pair = None
        entry, metadata_blob = _NOT_READ, _NO_BLOB
        if unit.check_object and unit.check_metadata:  # both exist, both to be checked
            try:
                if entries is None:
                    object_data = read(unit.object_path)  # type: ignore[arg-type]
                else:  # the mode from the read's own fstat
                    object_data, mode = snap.read_mode(unit.object_path)  # type: ignore[arg-type]
                    entry = _git_entry(object_data, mode)
                metadata_data = read(unit.metadata_path)  # type: ignore[arg-type]
                if entries is not None and metadata_data is not None:
                    metadata_blob = blob_id(metadata_data)
            except (FileTooLarge, ObjectUnreadable):  # check_unit reports it
                object_data = metadata_data = None
                metadata_blob = _NO_BLOB
            if object_data is not None and metadata_data is not None:
                pair = object_data, metadata_data
                size += len(object_data) + len(metadata_data)
        if entries is not None:
            entries += entry
            entries += metadata_blob
        pairs.append(pair)
    return units[start:end], pairs


ENTRY_SIZE = 27
"""Bytes of an object's git tree entry as read: mode (``100644``), a space, the blob id."""

_NOT_READ = bytes(ENTRY_SIZE)
"""The entry of an object not read (absent, too large, not a regular file)."""

_NO_BLOB = bytes(20)
"""The blob id :func:`_read_pairs` gives a metadata file it did not read whole."""

UNIT_ENTRY_SIZE = ENTRY_SIZE + len(_NO_BLOB)
"""Bytes :func:`_read_pairs` appends a unit: its object's entry, its metadata's blob id."""


_MODE_FIELDS = {0o100644: b"100644 ", 0o100755: b"100755 "}


def _git_entry(data: bytes | None, mode: int) -> bytes:
    """Return ``b"100644 "`` or ``b"100755 "`` and the blob id of ``data``.

    :data:`_NOT_READ` when ``data`` is None or ``mode`` is not a regular file's.
    """
    field = _MODE_FIELDS.get(mode)
    if data is None or field is None:
        return _NOT_READ
    return field + blob_id(data)


def _names_confirmed(snap: Files, hex_: str, kind: str | None, name: str | None) -> str | None:
    """Return the names path of a manifest with both files when it holds exactly its record.

    :func:`kistore.check._names.owned_path` of the manifest (a known kind, a valid name),
    when the snapshot lists it as a regular file holding :func:`kistore.core.layout.
    name_record` of ``hex_``; else None. Neither names rule can find anything about such a
    path or such a manifest (:func:`kistore.check._names.check_names_files` skips both), so
    the worker that parsed the manifest reads its names file, not the parent after the
    workers (at 100,000 manifests that read was a serial second and more of ``verify``).
    A commit's names file is not read at all: its blob id is compared with the record's
    (:meth:`kistore.store.Files.holds`).
    """
    if kind not in KINDS or type(name) is not str:
        return None
    try:
        path = layout.name_path(kind, name)
    except ValueError:  # not a name (layout.is_name): no names path
        return None
    if snap.modes.get(path) not in FILE_MODES:
        return None
    # a commit's names file by its blob id against the record's, no blob read (Files.holds:
    # a damaged or missing blob is unconfirmed, read by the parent and reported as KI117)
    return path if snap.holds(path, b"sha256:%s\n" % hex_.encode("ascii")) else None


def _reopen_worker_snapshot(parent_pid: int) -> None:
    """Worker start: reopen the snapshot, after :func:`kistore.core.workers.start_worker`.

    A worker that inherited the CLI's SIGTERM handler (an interrupt) could not be ended by
    the pool's terminate, and the parent waited on it for ever.
    """
    start_worker(parent_pid)
    assert _worker_snapshot is not None
    _worker_snapshot.reopen()


def _check_chunk_in_worker(units: list[tuple[Any, ...]], entries: bool,
                           keep: frozenset[str] | None) -> tuple[list[_Compact], bytes | None]:
    """Check some units in a worker process (:func:`_check_chunk`), with their entries or None.

    ``units``: each :class:`Unit` as a plain tuple (sent so: cheaper to pickle).
    """
    assert _worker_snapshot is not None
    read = bytearray() if entries else None
    return (_check_chunk(_worker_snapshot, [Unit._make(u) for u in units], read, keep),
            None if read is None else bytes(read))


def _group_files_read(snap: Files) -> dict[str, bytes | None]:
    """Return each group file path of the layout -> what :func:`_names_reader` gives for it.

    ``verify`` of a work tree reads them while the workers check files: the parent read
    each of the ~95,000 group files of 100,000 manifests serially after the workers
    (~1-2 s of its CPU). Read by the workers beside their runs instead, they cost the
    workers more than the parent saved (docs/speed.md, ninth and tenth passes).
    """
    read = _names_reader(snap)
    return {p: read(p) for p in snap.modes if p.startswith(_GROUPS_PREFIX) and is_group_path(p)}


def _quick_parse(data: bytes) -> Any:
    """Parse a file whose bytes are not being checked (only its kind or name is needed).

    :func:`kistore.core.canonical_fast.loads_lenient` (a gate reads every unchanged manifest
    of the tree this way); None when it is not JSON.
    """
    try:
        return loads_lenient(data)
    except ValueError:
        return None


def check_clone_attributes(store: Store, at: str | None = None) -> list[Finding]:
    """KI116 when the clone's ``.git/info/attributes`` converts files under ``store/``.

    Only for the work tree (``at`` None, a repository with one): git applies the file on
    checkout and ``git add``, never to the blobs ``verify --at`` reads. The file is the
    one every worktree of the repository shares (``$GIT_COMMON_DIR/info/attributes``).

    Args:
        store: the repository checked.
        at: the revision verified; None: the work tree.

    Returns:
        :func:`kistore.git.attributes.check_clone_info_attributes` (one KI116 when the file
        is a FIFO, a device or too large to check; empty when absent, unreadable, or ``at``
        is a revision or the repository bare).
    """
    if at is not None or store.root is None:
        return []
    # Lazy: git.attributes loads git.commit (logging): only this path and writes need it.
    from ..git.attributes import check_clone_info_attributes

    return check_clone_info_attributes(store.repo)


def check_notes_and_attestations(store: Store, at: str | None = None) -> list[Finding]:
    """:func:`kistore.attest.evidence.check_attestations`, a damaged note blob as KI117.

    A flipped bit in a note blob under ``refs/notes/kistore`` stopped ``verify`` with one
    KI117 naming no note (review R72-5). Each such blob is now one KI117 naming the note
    (file ``refs/notes/kistore:<annotated blob>``; ``extra``: the note blob as ``object``,
    the notes ref, the annotated blob and the manifest whose object it is, when one is),
    and the other attestations are checked as ever (its lines are not read). A missing or
    damaged object of the trust file (or of an older version of it) is the KI117 of
    :func:`stopped_finding`, the one the trust-history check (:data:`CHECKERS`' later
    ``check_revocations``) stops with on it: :func:`verify` says it once, not as KI309 too.

    Args:
        store: the repository checked.
        at: the revision verified; None: the work tree.

    Returns:
        KI423 for each entry of a tree of ``refs/notes/kistore``'s tip git's fsck refuses
        (:func:`._trees.notes_tree_findings`: git and kistore read such a tree apart), the
        KI117 findings, then :func:`~kistore.attest.evidence.check_attestations`'.
    """
    damaged: list[tuple[ObjectUnreadable, Digest | None]] = []
    trust_damaged: list[ObjectUnreadable] = []
    malformed = notes_tree_findings(store.repo)  # KI423: a notes tree git's fsck refuses
    findings = check_attestations(store, at, damaged=damaged, trust_damaged=trust_damaged)
    return [*malformed, *map(stopped_finding, trust_damaged),
            *(_damaged_note(store, e, subject) for e, subject in damaged), *findings]


def _damaged_note(store: Store, error: ObjectUnreadable, subject: Digest | None) -> Finding:
    """Return the KI117 finding of an unreadable note blob (``error.path``: ``REF:<blob>``)."""
    ref, _, annotated = (error.path or "").rpartition(":")
    finding = unreadable_finding(error, error.path)
    on = f"the object of {subject}" if subject is not None else f"git object {annotated}"
    extra = {**finding.extra, "notesRef": ref, "annotated": annotated,
             **({} if subject is None else {"subject": str(subject)})}
    if isinstance(error, NoteTooLarge):  # whole, but past the bound: unread (fresh03 H3)
        # Lazy: said only of a note past the bound (the notes module is loaded by then).
        from ..attest.notes_big import history_way_out

        held = history_way_out(store, error.oid)  # removed at the tip: the history's (M4)
        return Finding(finding.rule, f"{note_too_large(error.size)} (git object {error.oid}): "
                       f"it is the note in {ref} on {on}, whose attestations were not read"
                       f"{'' if held is None else held[0]}",
                       file=finding.file, extra={**extra, "size": error.size,
                                                 "limit": NOTE_BYTES},
                       fix="no attestation `kistore attest` writes comes near this size: "
                       f"remove the note (`git notes --ref {ref.removeprefix('refs/notes/')} "
                       f"remove {annotated}`)" if held is None else held[1])
    return Finding(finding.rule, f"{finding.message}: it is the note in {ref} on {on}, whose "
                   "attestations were not read", file=finding.file, extra=extra)


CHECKERS: tuple[Checker, ...] = (check_settings, check_history, check_names, check_policy,
                                 check_notes_and_attestations, check_revocations,
                                 check_tree_names, check_ignored,
                                 check_shallow, check_replace_refs, check_clone_attributes,
                                 check_commit_dates, check_observed, check_products,
                                 check_claims, check_evidence_history,
                                 check_widened_history)
"""The checks :func:`verify` runs after the contents check: the verified revision's
``kistore.toml`` (its ``[limits]``, tables, ``[store] version`` and ``[cite]``, one parse:
:func:`._settings.check_settings`), history, policy, attestations, a shallow clone
(KI416), replace refs (:func:`._refs.check_replace_refs`, KI421), ignore rules over
``store/`` (:func:`._ignored.check_ignored`, KI119), the clone's
``.git/info/attributes`` (:func:`check_clone_attributes`, KI116), commit dates
(:func:`._dates.check_commit_dates`, KI428 as a warning), runs observed after the commit
that added them or before 2000 (:func:`._observed.check_observed`, KI227), GPU products
spelled two ways (:func:`._products.check_products`, KI229 as a warning), runs of one
comparison group claiming one source record (:func:`._claims.check_claims`, KI232), the
history's evidence files (:func:`._evidence_kept.check_evidence_history`, KI410 as a
warning) and trust widened into the past (:func:`._widened_past.check_widened_history`,
KI435 and KI442 as warnings).

The check layer's own; a caller adds those of the layers above by passing
``checkers=(*CHECKERS, ...)`` (``kistore verify`` adds
:func:`kistore.query.group_rules.check_units`, KI210)."""


def verify(store: Store, at: str | None = None, *, progress: Progress | None = None,
           checkers: Iterable[Checker | FromParse] | None = None, snap: Files | None = None,
           workers: int | None = None) -> list[Finding]:
    """Verify a whole store offline and return every finding (docs/design.md §4).

    Args:
        store: a :class:`kistore.store.Store`.
        at: revision to verify, read straight from git objects; None: the work tree (or
            ``HEAD`` in a bare repository).
        progress: called with the number of files checked, as the work goes.
        checkers: the checks besides the contents check (default :data:`CHECKERS`); they
            run in this process while worker processes check files; a :class:`FromParse`
            is judged after the contents check, from what it parsed. In a work tree
            :func:`~kistore.check._history.check_history`'s part about the index and work
            tree runs after them, from the blob ids of the objects they read
            (:func:`~kistore.check._history.worktree_changes`).
        snap: the snapshot of ``at`` when the caller already made one (to size a
            progress bar), else None.
        workers: processes checking files, as :func:`check_contents` takes it.

    Returns:
        Every finding, contents first (sorted by file), then each checker's; first of
        all, for the work tree, KI418 when git's index lock was held before, during or
        after the read (:meth:`Store.work_tree_busy`: an add was writing).
        :func:`kistore.core.findings.exit_code` of it is the command's exit code.

    Raises:
        InputError: when ``at`` names no commit.
    """
    # Is an add (or a git command) writing the work tree while it is read? Looked at before,
    # at each progress step until seen, and after (_held_lock: an lstat and a flock).
    watching = at is None and store.root is not None
    busy = _held_lock(store) if watching else None
    snap = snapshot(store, at) if snap is None else snap

    def step(done: int) -> None:
        nonlocal busy
        busy = busy or _held_lock(store)
        if progress is not None:
            progress(done)

    later: list[Finding] = []
    # The work tree's part of the history check (what the index and work tree change in
    # HEAD's objects) waits for the workers: the blob ids of the objects they read settle
    # it without git's status of every file (_history.worktree_changes).
    objects_read: dict[str, bytes] | None = None
    metadata_read: dict[str, bytes] | None = None  # and KI432 of the work tree, by blob id
    history: list[int] = []  # where check_history's findings start and end in ``later``
    # KI227: the history walk meanwhile, judged after with the times the workers read;
    # KI232: judged after with the claims the workers read
    observed: dict[str, int | None] = {}
    claims: dict[str, Claim | None] = {}
    # each judged after the contents check: where its findings go in ``later`` (where its
    # checker ran), whether before check_history's, and the judge
    deferred: list[tuple[int, bool, Callable[[], list[Finding]]]] = []

    def history_has_no_end() -> bool:
        """Return True when check_history began (its start noted) and stopped before its end."""
        return len(history) == 1

    def judge_observed_read(firsts: list[Added]) -> list[Finding]:
        """KI227 of the runs ``firsts`` added, with the times the contents check read."""
        return judge_observed(store.repo, firsts,
                              _observed_read(snap, observed, objects_read), snap.limit)

    def judge_claims_read() -> list[Finding]:
        """KI232 of the tree's groups, with the claims the contents check read."""
        return judge_claims(snap.view, (p for p in snap.modes if p.startswith(_GROUPS_PREFIX)),
                            claims, withdrawn_runs(store, at=at))

    checks = list(CHECKERS if checkers is None else checkers)
    # FromParse: what each judge reads of a run, asked before the workers start
    keeps = {id(c): _keep_of(c, store, at) for c in checks if isinstance(c, FromParse)}
    loaded: dict[str, Loaded] | None = None if all(k is None for k in keeps.values()) else {}

    def judge_parsed(checker: FromParse) -> list[Finding]:
        """Return a FromParse judge's findings, from what the contents check parsed."""
        assert loaded is not None
        try:
            return checker.judge(store, at, loaded)
        except ObjectUnreadable as e:  # a note blob it reads: said once, as run_checkers says
            stopped = stopped_finding(e)
            return [] if stopped in later else [stopped]

    def run_checkers() -> None:  # in this process while the workers check files
        for checker in checks:
            try:
                if isinstance(checker, FromParse):
                    if keeps[id(checker)] is not None:
                        deferred.append((len(later), not history,
                                         partial(judge_parsed, checker)))
                elif checker is check_history and objects_read is not None:
                    history.append(len(later))
                    later.extend(check_history(store, at, worktree=False))
                    history.append(len(later))
                elif checker is check_observed:
                    deferred.append((len(later), not history,
                                     partial(judge_observed_read, first_added(store, at))))
                elif checker is check_claims:
                    deferred.append((len(later), not history, judge_claims_read))
                else:
                    later.extend(checker(store, at))
            except ObjectUnreadable as e:  # a commit, tree or note it reads: the rest go on
                stopped = stopped_finding(e)
                if stopped not in later:  # the same object stops several checks: said once
                    later.append(stopped)
                if history_has_no_end():  # its findings end after the stop's
                    history.append(len(later))

    # a commit's files are confirmed by blob id: its packs by their checksums first (each
    # file hashed once; the workers forked below inherit what was found)
    packs = check_packs(store.repo) if snap.view.scope == "commit" else []
    # none damaged: each packed blob read by hand (one look-up, one inflate; the workers
    # forked below inherit the maps), not through libgit2's three look-ups (ver99)
    mapped = snap.view.scope == "commit" and not packs and map_packs(store.repo)
    # the FIFO guard walks the work tree once for `git ls-files` and git's status (doc01)
    once = walking_once()
    once.__enter__()
    try:
        if at is None and store.root is not None and snap.view.scope == "work" and not any(
                p.endswith("/" + GITATTRIBUTES) for p in snap.modes):  # git would read those
            objects_read, metadata_read = {}, {}
        contents = check_contents(snap, progress=step if watching else progress,
                                  workers=workers, meanwhile=run_checkers,
                                  objects_read=objects_read, metadata_read=metadata_read,
                                  observed=observed, claims=claims,
                                  keep=frozenset().union(*(k for k in keeps.values() if k)),
                                  loaded=loaded)
        # KI227, KI232 in their places among the checkers' findings (a damaged blob:
        # KI117's), the last placed first: an earlier one's place stays where it was
        for at_, before_history, judge in reversed(deferred):
            judged = judge()
            later[at_:at_] = judged
            if before_history:  # check_history's findings, if it ran later, move with it
                history[:] = [h + len(judged) for h in history]
        if history:  # check_history's findings, the work tree's among them, sorted so
            start, end = history
            try:
                changes = worktree_changes(store, objects_read)
                changes += worktree_provenance(store, metadata_read)  # KI432, uncommitted
                changes += worktree_attestations_kept(store)  # KI410: a file the tree lost
                changes += worktree_trust(store)  # KI410 of the trust file (fresh14 F15)
            except ObjectUnreadable as e:  # a tree of HEAD's objects git's status can't read
                stopped = stopped_finding(e)
                changes = [] if stopped in later else [stopped]  # said once
            later[start:end] = sorted(later[start:end] + changes, key=sort_key)
        elif check_history in checks and at is None and store.root is not None and \
                snap.view.scope == "work":  # git's status of the metadata files says which
            try:
                later += worktree_provenance(store, None)
                later += worktree_attestations_kept(store)  # KI410: a file the tree lost
                later += worktree_trust(store)  # KI410 of the trust file (fresh14 F15)
            except ObjectUnreadable as e:
                if (stopped := stopped_finding(e)) not in later:
                    later.append(stopped)
        if packs:
            contents += pack_findings(store, packs, contents + later)  # a note's KI117 too
        later = verify_edited_then_deleted(store, at, snap, later)
        contents = edit_fixes(contents, later)  # fresh95 F4: not HEAD
        contents = uncommitted_board_fixes(store, at, contents)  # fresh96 F8
        contents = name_edit_fixes(store, at, contents)  # last96 item 2: restore the name
        contents = metadata_fixes(store, at, contents)  # cat97 left: the one repair that works
        # KI402: in later
        contents, later = one_cause(contents, later), one_cause(later, contents)
        # a FIFO .gitattributes: its read and git's status each find it, said once (fresh14 F3)
        later = [f for f in later if f.file != GITATTRIBUTES or f not in contents]
        contents = names_one_cause(contents, later)  # a names file a commit deleted: KI208's
        if watching and (busy := busy or _held_lock(store)) is not None:
            return [written_meanwhile(store, busy), *contents, *later]
        return contents + later
    finally:  # a pack cut short later must not be read through a map (SIGBUS)
        once.__exit__(None, None, None)
        if mapped:
            unmap_packs(store.repo)


def _keep_of(checker: FromParse, store: Store, at: str | None) -> frozenset[str] | None:
    """Return :attr:`FromParse.keep` of ``checker``; None when a git object it reads is damaged.

    The damaged object is said by the checks that read it (KI117).
    """
    try:
        return checker.keep(store, at)
    except ObjectUnreadable:
        return None


def _observed_read(snap: Files, observed: dict[str, int | None],
                   objects_read: dict[str, bytes] | None
                   ) -> dict[str, tuple[str | None, int | None]]:
    """Return what KI227 knows of each object the contents check read: blob id, time.

    The blob id of the bytes read: a commit's from its tree (:meth:`View.blob_id`), the work
    tree's from the entry its check made (``objects_read``); None when not known (the
    work tree's files with a ``.gitattributes`` under ``store/``: then KI227 reads the
    blob of the commit that first added the object, as it did before).
    """
    if snap.view.scope != "work":
        blob_id = snap.view.blob_id
        return {path: (blob_id(path), seconds) for path, seconds in observed.items()}
    if objects_read is None:
        return {}
    return {path: ((entry[7:].hex() if (entry := objects_read.get(path)) else None), seconds)
            for path, seconds in observed.items()}


_OBJECTS_SHOWN = 5
"""Most object ids a damaged pack's KI117 message lists (``extra.objects`` holds all)."""


def pack_findings(store: Store, damaged: list[PackDamage], reported: list[Finding]
                  ) -> list[Finding]:
    """Return the KI117 findings of damaged pack files not already said by a file's KI117.

    A damaged object a file of the store was read or confirmed from is KI117 of that file,
    naming the object and its pack (:meth:`kistore.store.CommitView.holds`). This adds one
    KI117 for each damaged pack file whose damage no such finding says: a checksum, a
    header or an index (no object's bytes), or objects no file of the store was read from
    (a commit, tree, note or older file's blob), listed.

    Args:
        store: the store (its work tree, or git directory, shortens the files' paths).
        damaged: :func:`kistore.git.packs.check_packs`' findings.
        reported: the findings so far (their ``object`` extras are the objects said).

    Returns:
        The findings, each naming the damaged file (as ``file``) and what to do (``fix``).
    """
    # by id: a worker's finding crossed a pickle, its rule is a copy
    said = {f.extra.get("object") for f in reported if f.rule.id == GIT_OBJECT_UNREADABLE.id}
    base = str(store.root) if store.root is not None else store.repo.path
    findings = []
    for damage in damaged:
        left = [oid for oid in damage.objects if oid not in said]
        if damage.objects and not left:
            continue
        inside = os.path.commonpath([base, damage.file]) == os.path.normpath(base)
        file = os.path.relpath(damage.file, base) if inside else damage.file
        message = f"this file of git's object store is damaged: {damage.reason}"
        if left:  # all of them in ``extra``; the message names the first few
            shown = ", ".join(left[:_OBJECTS_SHOWN]) + (
                f" and {len(left) - _OBJECTS_SHOWN} more" if len(left) > _OBJECTS_SHOWN else "")
            message += f"; its damaged objects no file of the store was read from: {shown}"
        findings.append(Finding(GIT_OBJECT_UNREADABLE, message, file=file,
                                extra={"objects": left} if left else {}, fix=damage.advice))
    return findings


def _held_lock(store: Store) -> Path | None:
    """Return the lock a writer of the work tree holds now, or None.

    git's ``.git/index.lock`` (``add --commit``, a git command: one ``lstat``,
    :meth:`Store.work_tree_busy`), else kistore's write lock, which every ``kistore add``
    holds, a plain one too (:meth:`Store.write_lock_held`: review R72-8, whose verify
    during a plain add reported its half-written files as damage, with no word of it).
    """
    if store.work_tree_busy():
        return index_lock(store.git_dir)
    return store.write_lock_held()


def written_meanwhile(store: Store, lock: Path | None = None) -> Finding:
    """Return the KI418 finding: the work tree was being written while verify read it.

    Args:
        store: the store whose work tree was read (its git directory names the lock).
        lock: the lock seen held (:func:`_held_lock`); None: git's index lock.

    Returns:
        A warning naming the lock (``extra.lock``, an absolute path), first of the findings.
        For kistore's write lock, which every linked worktree of the repository shares, the
        holder's line in it (:meth:`Store.write_lock_holder`) says whose: an add in another
        worktree is named (``extra.worktree``: it writes there, not here); with no line
        the message says another worktree may be the one adding.
    """
    held = index_lock(store.git_dir) if lock is None else lock
    if held == index_lock(store.git_dir):  # this worktree's own index
        who = "an add or git command"
    else:
        holder = store.write_lock_holder()
        here = os.path.realpath(store.root or store.git_dir)
        if holder is not None and os.path.realpath(holder[1]) != here:
            return Finding(WORK_TREE_WRITTEN, (
                f"{held} was held while verify read the work tree: a `kistore add` or "
                f"`kistore migrate` in another worktree of this repository ({holder[1]}, "
                f"process {holder[0]}) holds it while it writes there (the worktrees share "
                "it), not here: errors below are not its half-written files"),
                extra={"lock": str(held), "worktree": holder[1]})
        who = ("a `kistore add` or `kistore migrate` (which hold it while they write)" if
               holder is not None else "a `kistore add` or `kistore migrate` (which hold it "
               "while they write; another worktree of this repository may be adding: they "
               "share it)")
    return Finding(WORK_TREE_WRITTEN,
                   f"{held} was held while verify read the work tree: {who} was writing it, "
                   "so errors below may be files caught half-written, not damage; run "
                   "`kistore verify` again when it ends",
                   extra={"lock": str(held)})


def count_files(snap: Files) -> int:
    """Return how many object and metadata files a snapshot holds (a progress bar's length)."""
    prefixes = (layout.OBJECTS_DIR + "/", layout.METADATA_DIR + "/")
    return sum(1 for p in snap.modes if p.startswith(prefixes))

