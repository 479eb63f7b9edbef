"""``kistore export``: the store at one commit, as tables, verified while read (docs/export.md).

Phases, each keeping what it learns on disk (:mod:`.scratch`), so memory stays one
comparison group, one shard directory or one row group whatever the store's size:

1. **groups** -- the derived index of the commit's tree (:func:`kistore.index.index.
   open_catalog`, built or updated as every query does) gives the comparison groups; each
   is ranked by every comparison it has (:mod:`.derive`), with the evidence of its
   attested runs (:func:`kistore.attest.evidence.judged_many`);
2. **history** -- one walk finds the commit that first added every object
   (:func:`kistore.cite.citation.object_first_commits`);
3. **objects** -- every object and metadata file of the commit is read from git and each
   object re-hashed (:mod:`.reading`): one whose SHA-256 is not its name, or that the
   index left out (not canonical, or refused by its schema), is not exported but listed
   as skipped; the others become ``manifests`` and ``runs`` rows (:mod:`.rows`);
4. **write** -- each table's rows, sorted, as Parquet, CSV or JSON Lines (:mod:`.writers`),
   then ``_manifest.json`` (:mod:`.outdir`).

A full export is written into a temporary directory beside ``OUT`` and renamed into
place, so ``OUT`` is either absent or whole. ``--since REV`` continues an export made at
``REV``: it computes every row again and appends, as new files of the next generation,
the rows whose key is new or whose content changed (:mod:`.outdir`'s state); it never
changes a file already written.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sqlite3
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from .. import __version__
from ..attest.evidence import judged_many, summarise
from ..attest.notes_at import lost_warning, notes_commit, notes_read_at
from ..cite.citation import (
    object_first_commits,
    origin_url,
    parse_remote,
    permalink,
    read_cite_settings,
    shallow_cut,
    shallow_doubt,
)
from ..core import layout
from ..core.digest import Digest
from ..core.errors import InputError, KistoreError, StoreStateError
from ..core.times import out_of_range
from ..git.blobs import ObjectUnreadable
from ..git.landing import object_landing_commits
from ..git.notes import NO_NOTES
from ..index.disk_errors import sqlite_os_error
from ..index.index import count_objects, open_catalog
from ..query.answers import no_group_reason
from ..query.policy import load_policy
from . import outdir
from .columns import (
    ATTESTATIONS,
    MANIFESTS,
    METRICS,
    NAMED_STATISTICS,
    RUNS,
    TABLES,
    Table,
    metric_names,
    statistic_order,
)
from .derive import Context, derive_all
from .reading import attested_subjects, object_digest, stored_shards
from .rows import (
    attestation_row,
    commit_time,
    manifest_row,
    partition,
    partition_names,
    run_row,
)
from .scratch import Scratch
from .writers import FORMATS, PartitionWriteError, Shape, Written, write_table

if TYPE_CHECKING:  # pragma: no cover - typing only
    import pygit2

    from ..store import Store

Progress = Callable[[str, "int | None"], Callable[[int], None]]
"""``progress(phase, total)`` is called as each phase starts (``total`` items, or None when
unknown) and returns the function to call with each increment done."""


NOT_INDEXED = ("is not in the index of this commit; run `kistore reindex --check` to see "
               "what the index lacks, `kistore reindex --at REV` to rebuild it")
"""The problem of a manifest the store holds and the index lacks (a row deleted from it)."""

SCRATCH_SAID = ("the export's scratch database (a temporary file in a directory beside it, "
                "removed again)")
"""What a full disk stopped, said after OUT's name (:func:`kistore.index.disk_errors.
sqlite_os_error`): the scratch file itself is never the name a user is told (it is gone)."""

WRITES = (outdir.MANIFEST, outdir.state_path("runs"),
          "runs/source=s/hardware=h/part-00000.parquet", "manifests/kind=k/part-00000.parquet",
          "groups/part-00000.parquet", *(f"{table}/part-00000.{ext}" for ext in ("csv", "jsonl")
                                         for table in ("runs", "manifests", "groups")))
"""A file of each shape an export writes, in every format (Parquet's tables partitioned by
Hive-style directories, CSV's and JSON Lines' not): git must ignore them all for ``out``
to be written inside the store's work tree (:meth:`kistore.store.Store.refuse_output_inside`).
Every format's, whatever the format asked: a ``.gitignore`` of ``*.parquet`` and ``*.csv``
let ``export --format jsonl`` write untracked files there (review of this session)."""


@dataclass(slots=True)
class ExportResult:
    """What an export wrote.

    Attributes:
        out: the export directory.
        commit: the exported commit (40 hex).
        generation: 0 for a full export, then 1, 2, ... for each ``--since``.
        format: ``parquet``, ``csv`` or ``jsonl``.
        rows: per table, the rows written now (for ``--since``: those new or changed).
        current: per table, the rows the commit has (what a full export would write).
        files: the files written now.
        skipped: ``(digest, path, problem)`` of each manifest not exported because its
            files do not verify; an export with any is incomplete (the CLI exits 1).
        warnings: other things the person should know (permalinks left empty, groups
            that could not be ranked).
        appended: False for a ``--since`` export of the very commit it was made at that
            found nothing changed (no attestation either): nothing was written, and
            ``generation`` is the export's last.
        notes: the notes commit whose attestations were read (40 hex; None: no notes),
            what ``--notes-at`` takes to read them again (``_manifest.json``'s
            ``generations[N].notes``; fresh00b LOW: the command's line did not name it).
    """

    out: Path
    commit: str
    generation: int
    format: str
    rows: dict[str, int] = field(default_factory=dict)
    current: dict[str, int] = field(default_factory=dict)
    files: list[Written] = field(default_factory=list)
    skipped: list[tuple[str, str, str]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    appended: bool = True
    notes: str | None = None

    def to_json(self) -> dict[str, Any]:
        """Return the result as data (``kistore export --json``)."""
        return {"out": str(self.out), "commit": self.commit, "generation": self.generation,
                "format": self.format, "rows": self.rows, "current": self.current,
                "files": [f.to_json(self.generation) for f in self.files],
                "skipped": [{"digest": d, "path": p, "problem": why}
                            for d, p, why in self.skipped],
                "warnings": self.warnings, "appended": self.appended, "notes": self.notes}


def export(store: Store, out: str | os.PathLike[str], *, fmt: str | None = None,
           at: str = "HEAD", since: str | None = None, progress: Progress | None = None,
           inside_work_tree: bool = False, notes_at: str | None = None) -> ExportResult:
    """Export the store at commit ``at`` into directory ``out``.

    Args:
        store: a :class:`kistore.store.Store`.
        out: the export directory: absent or empty for a full export; for ``since``, the
            directory of the export being continued.
        fmt: ``parquet`` (default for a new export), ``csv`` or ``jsonl``; for ``since``,
            None means the format of the export continued (another is refused).
        at: the revision to export (default ``HEAD``).
        since: the commit the export in ``out`` was made at (its last generation's): write
            only what changed since, as new files.
        progress: see :data:`Progress`.
        inside_work_tree: export into the store's work tree even where git does not ignore
            ``out`` (else refused: reviewer r85 F8).
        notes_at: the notes commit whose attestations are exported (a revision, or
            ``none``; :func:`kistore.attest.notes_at.notes_commit`); None: the tip of
            ``refs/notes/kistore``, read once. ``_manifest.json`` names the one read, so
            ``at`` and that commit export the same bytes again (low00).

    Returns:
        The :class:`ExportResult`.

    Raises:
        InputError: ``out`` is inside ``store/`` or the git directory, or inside the work
            tree and not ignored by git (unless ``inside_work_tree``:
            :meth:`~kistore.store.Store.refuse_output_inside`), is not empty (full) or
            holds no matching export (``since``),
            ``since`` is not the commit it was made at, the format differs, an unknown
            format, a revision naming no commit, ``notes_at`` naming no notes commit;
            for ``since``, rows vanished or the
            columns changed (a column a newer kistore adds, named; make a full export
            instead). Nothing is written then.
        StoreStateError: the repository has no commit.
        ModuleNotFoundError: Parquet without pyarrow (``pip install 'kistore[export]'``).
        ParseError, MultipleErrors: the commit's ranking policy is not valid.
        PartitionWriteError: a table's file could not be written (disk full,
            permissions): named by its partition and a row of it
            (:class:`kistore.export.writers.PartitionWriteError`).
        OSError: another file could not be written; a full disk (or an I/O error, or a
            read-only file system) stopping the scratch database is said naming ``out``
            (:class:`kistore.index.disk_errors.DiskError`). Nothing is left half-written either
            way: a full export is removed, a ``--since`` one's new files are removed.
    """
    out = Path(out)
    store.refuse_output_inside(out, writes=WRITES, inside_work_tree=inside_work_tree)
    commit = _commit(store, at)
    read = notes_commit(store, notes_at)
    notes = notes_read_at(read)  # read once: the export's notes
    previous = _previous(out, store, since) if since is not None else None
    fmt = fmt or (previous["fileFormat"] if previous else "parquet")
    if fmt not in FORMATS:
        raise InputError(f"unknown format {fmt!r}; expected one of {', '.join(FORMATS)}")
    if previous is not None and previous["fileFormat"] != fmt:
        raise InputError(f"the export in {out} is {previous['fileFormat']}, not {fmt}; "
                         "--since appends in the format it was made in", file=str(out))
    if fmt == "parquet":
        _need_pyarrow()
    if previous is None:
        outdir.check_new(out)
        outdir.require_parent(out)
    temp = _scratch_dir(out, previous is not None)
    generation = previous["generations"][-1]["generation"] + 1 if previous else 0
    result = ExportResult(out, str(commit.id), generation, fmt,
                          notes=None if notes == NO_NOTES else notes)
    lost = lost_warning(store, notes_at, read, str(commit.id))  # KI408 in its history (F8)
    if lost is not None:
        result.warnings.append(lost)
    moved: list[Path] = []
    try:
        try:
            scratch = Scratch(temp / "scratch.sqlite")
            try:
                shape = _stage(store, commit, scratch, result, previous, progress, notes)
                manifest = _write(temp, scratch, result, shape, previous, store, progress,
                                  notes)
            finally:
                scratch.close()
        except sqlite3.OperationalError as e:  # full disk: named, not a bug (fresh05 MED 1)
            said = sqlite_os_error(e, out, SCRATCH_SAID)
            if said is None:
                raise
            raise said from e
        os.unlink(temp / "scratch.sqlite")
        if previous is not None and not result.files and previous["commit"] == result.commit:
            result.generation, result.appended = generation - 1, False  # nothing to add
        elif previous is None:
            outdir.write_manifest(temp, manifest)
            outdir.install_new(temp, out)
        else:
            _append(temp, out, result, manifest, moved)
    except BaseException:
        for path in reversed(moved):
            with contextlib.suppress(OSError):
                os.unlink(path)
        shutil.rmtree(temp, ignore_errors=True)
        raise
    shutil.rmtree(temp, ignore_errors=True)
    return result


# -- phases ------------------------------------------------------------------------------


def _stage(store: Store, commit: Any, scratch: Scratch, result: ExportResult,
           previous: dict[str, Any] | None, progress: Progress | None, notes: str) -> Shape:
    """Phases 1-3: stage every row of every table; return the data-dependent columns.

    ``previous``: the ``_manifest.json`` of the export a ``--since`` export continues (its
    partition directories keep their names), else None. ``notes``: the notes commit read
    (:func:`kistore.attest.notes_at.notes_read_at`).
    """
    hex_ = str(commit.id)
    repo, tree, view = store.repo, commit.tree, store.view(hex_)
    total = count_objects(repo, tree)
    # kistore.toml's [cite] first: a blob that cannot be read stops the export here, before
    # the catalog, which reads the same file's [limits] and would warn of it first
    # ("queries use the default limits"), then the error of the same cause (review01)
    link_warned = len(result.warnings)
    link = _linker(store, hex_, result)
    link_warnings = result.warnings[link_warned:]
    del result.warnings[link_warned:]  # said in the order they were: after the caveats
    catalog = open_catalog(store, hex_, progress=_phase(progress, "indexing", None))
    policy = load_policy(view)
    if policy.source == layout.POLICY_FILE:  # as rank says them (r91 F3: export did not)
        # Lazy: the policy's caveats (KI231, KI236, KI239), read once per export.
        from ..check import caveat_said, ranking_caveats

        result.warnings += [caveat_said(f) for f in ranking_caveats(
            {"families": policy.families})]
    judged = judged_many(store, sorted(attested_subjects(store, repo, tree, view, notes)),
                         at=hex_, notes_at=notes)
    evidence = {str(d): summarise([j for _, j in pairs]) for d, pairs in judged.items()
                if pairs}
    for subject, pairs in judged.items():
        for seen, judgement in pairs:
            row = attestation_row(str(subject), seen, judgement)
            sort = " ".join(str(row[ATTESTATIONS.index(c)]) for c in ATTESTATIONS.sort)
            scratch.stage(ATTESTATIONS.name, "", sort, sort, row)
    environments = catalog.records(kind="ExecutionEnvironment")
    context = Context(
        policy, evidence, catalog.names("Workload"), catalog.names("Implementation"),
        {r.digest: _text(r.spec.get("hardware", {}).get("architecture"))
         for r in environments}, lambda r: no_group_reason(catalog, r))
    derive_all(catalog.run_groups(), context, scratch, _phase(progress, "ranking", None))
    if context.group_errors:
        result.warnings.append(f"{context.group_errors} comparison group(s) could not be "
                               "ranked (their runs disagree in unit); see the groups table's "
                               "error column")
    _history(store, commit, scratch, result)
    scratch.index_lookups()
    result.warnings += link_warnings
    known = {d for k in ("Workload", "BenchmarkProtocol", "Implementation")
             for d in catalog.names(k)} | {r.digest for r in environments}
    shape = _read_objects(repo, commit, scratch, result, known, catalog.skipped(), link,
                          _phase(progress, "reading", total), previous)
    scratch.index_rows()
    result.current = {name: scratch.count(name) for name in TABLES}
    return shape


def _read_objects(repo: pygit2.Repository, commit: pygit2.Commit, scratch: Scratch,
                  result: ExportResult,
                  known: set[str], skipped: dict[str, tuple[str, str]],
                  link: Callable[[str, str, Any], str | None],
                  advance: Callable[[int], None], previous: dict[str, Any] | None) -> Shape:
    """Phase 3: read, verify and stage every manifest, one shard directory at a time.

    Args:
        repo: the pygit2 repository.
        commit: the commit exported (its tree is read; a file past the bound is said as
            its own: review01 L6).
        scratch: where rows go; it already holds ``derived`` and ``firsts``.
        result: gets each manifest not exported in ``skipped``.
        known: digests of the non-run manifests the index holds.
        skipped: what the index left out, and why (:meth:`Catalog.skipped`).
        link: the permalink maker.
        advance: progress, per manifest.
        previous: the ``_manifest.json`` of the export continued (``--since``), or None.

    Returns:
        The data-dependent shape (latency statistics, in JSON Lines the metric keys
        written under another name, in Parquet the partition values written under a
        case-distinct name).
    """
    statistics: set[str] = set(NAMED_STATISTICS)
    metrics: set[str] = set()
    values: dict[str, dict[str, set[str]]] = {
        t.name: {c: set() for c in t.partition} for t in (RUNS, MANIFESTS)}
    at_latency, at_native = RUNS.index("latencyNs"), RUNS.index("sourceNative")
    for shard in stored_shards(repo, commit.tree, str(commit.id)):
        advance(len(shard))
        readable = []
        for stored in shard:
            digest, path = str(stored.digest), layout.object_path(stored.digest)
            if not stored.verified:
                result.skipped.append((digest, path, "does not hash to its name: its sha256 "
                                       f"is {Digest.of(stored.data)}"))
            elif digest in skipped or stored.meta is None:
                result.skipped.append((digest, *skipped.get(digest, (
                    layout.metadata_path(stored.digest), "is missing"))))
            else:
                readable.append((stored, digest, path))
        blobs = {digest: stored.blob for stored, digest, _ in readable}
        firsts, landings = scratch.firsts(blobs), scratch.firsts(blobs, "landings")
        derived = scratch.derived_many([digest for _, digest, _ in readable])
        for stored, digest, path in readable:
            document, metadata = orjson.loads(stored.data), orjson.loads(stored.meta or b"")
            found = firsts.get(digest)
            landed = landings.get(digest, found)
            where = (found[0], commit_time(found[1]), link(found[0], path, stored),
                     landed[0] if landed else None, commit_time(landed[1]) if landed else None
                     ) if found else (None, None, None, None, None)
            if document["kind"] == "BenchmarkRun" and digest in derived:
                row = run_row(digest, document, metadata, derived[digest], where)
                statistics.update(row[at_latency])
                metrics.update(row[at_native])
                _keep_values(values, RUNS, row)
                scratch.stage(RUNS.name, partition(RUNS, row), digest, digest, row)
            elif document["kind"] == "BenchmarkRun" or digest not in known:
                result.skipped.append((digest, path, NOT_INDEXED))
                continue
            row = manifest_row(digest, document, stored.data, stored.meta or b"", metadata,
                               where)
            _keep_values(values, MANIFESTS, row)
            scratch.stage(MANIFESTS.name, partition(MANIFESTS, row), digest, digest, row)
    parquet = result.format == "parquet"
    return Shape(tuple(sorted(statistics, key=statistic_order)),
                 metric_names(metrics) if result.format == "jsonl" else {},
                 _partition_names(values, previous) if parquet else {})


def _keep_values(values: dict[str, dict[str, set[str]]], table: Table, row: list[Any]
                 ) -> None:
    """Add a staged row's partition values (not null) to ``values[table][column]``."""
    for column in table.partition:
        value = row[table.index(column)]
        if value is not None:
            values[table.name][column].add(str(value))


def _partition_names(values: dict[str, dict[str, set[str]]],
                     previous: dict[str, Any] | None) -> dict[str, dict[str, dict[str, str]]]:
    """Return, per table and partition column, the values written under a case-distinct name.

    :func:`kistore.export.rows.partition_names` of each column's values; a ``--since``
    export keeps the directories the export continued wrote (from its ``files``), so a
    value's rows of every generation share one directory. Only columns with such values.
    """
    written: dict[tuple[str, str], set[str]] = {}
    for entry in previous["files"] if previous else ():
        table, *parts = entry["path"].split("/")[:-1]
        for part in parts:
            column, _, name = part.partition("=")
            written.setdefault((table, column), set()).add(name)
    names: dict[str, dict[str, dict[str, str]]] = {}
    for table, columns in values.items():
        for column, seen in columns.items():
            if moved := partition_names(seen, written.get((table, column), set())):
                names.setdefault(table, {})[column] = moved
    return names


def _history(store: Store, commit: Any, scratch: Scratch, result: ExportResult) -> None:
    """Phase 2: keep the commits that first added and that landed each object blob.

    The first (:func:`object_first_commits`: ``firstCommit``, ``addedAt``) and the one that
    brought it onto the first-parent line (:func:`kistore.git.landing.
    object_landing_commits`: ``landingCommit``, ``publishedAt``).

    In a shallow clone, an object file a commit on the cut holds is left without either
    (:func:`kistore.cite.citation.shallow_doubt`, the rule ``cite`` and the site follow).
    """
    numbers: dict[str, int] = {}
    warned: set[tuple[str, str]] = set()
    cut = shallow_cut(store.repo, commit)
    for table, walk, column, did in (
            ("firsts", object_first_commits, "addedAt", "first added"),
            ("landings", object_landing_commits, "publishedAt", "landed")):
        batch: list[tuple[str, str, int]] = []
        for path, blob, found in walk(store.repo, commit):
            hex_ = str(found.id)
            if cut and (hex_ in cut or shallow_doubt(store.repo, cut, path, blob) is not None):
                continue  # a commit on the cut holds it: an older one may have added it first
            if hex_ not in numbers:
                numbers[hex_] = len(numbers)
                scratch.put_commit(numbers[hex_], hex_, found.commit_time)
            unreadable = out_of_range(found.commit_time)
            if unreadable is not None and (hex_, column) not in warned:
                warned.add((hex_, column))  # KI428: git took any date; the row says it clamped
                result.warnings.append(f"commit {hex_}, which {did} objects, has a committer "
                                       f"date of {unreadable} in {column} (KI428)")
            batch.append((object_digest(path), blob, numbers[hex_]))
            if len(batch) >= 5000:
                scratch.put_firsts(batch, table)
                batch = []
        scratch.put_firsts(batch, table)
    if cut:
        result.warnings.append("this is a shallow clone: objects its history does not reach "
                               "back to have no firstCommit (`git fetch --unshallow`)")


def _linker(store: Store, at: str, result: ExportResult
            ) -> Callable[[str, str, Any], str | None]:
    """Return ``link(commit, path, stored)``: the permalink, or None when none can be made.

    Raises:
        ObjectUnreadable: ``kistore.toml``'s blob at ``at`` is damaged or missing: the
            repository's damage stops the export, as it stops ``site build`` (it exited 0
            with every permalink null, review73 F12). Other problems of the permalinks
            (no forge, a bad ``[cite]``) are warnings, and the links left empty.
    """
    try:
        template = read_cite_settings(store, at).get("permalink")
        remote = parse_remote(origin_url(store) or "")
        permalink(template, remote, commit="0" * 40, path=layout.OBJECTS_DIR)
    except ObjectUnreadable:
        raise
    except KistoreError as e:
        result.warnings.append(f"permalinks left empty: {e.message}")
        return lambda commit, path, stored: None

    def link(commit: str, path: str, stored: Any) -> str | None:
        return permalink(template, remote, commit=commit, path=path,
                         blob=stored.blob, digest=stored.digest)

    return link


def _write(temp: Path, scratch: Scratch, result: ExportResult, shape: Shape,
           previous: dict[str, Any] | None, store: Store,
           progress: Progress | None, notes: str) -> dict[str, Any]:
    """Phase 4: write the tables and the state into ``temp``; return ``_manifest.json``."""
    if previous is not None:
        _check_continues(scratch, previous, shape, result, bool(store.repo.is_shallow))
    columns = _columns(shape, result.format)
    for name, table in TABLES.items():
        advance = _phase(progress, f"writing {name}", None)
        rows = scratch.rows(name, changed_only=previous is not None)
        try:
            written = write_table(temp, table, _counted(rows, advance), result.format,
                                  result.generation, shape)
        except PartitionWriteError as e:  # said of OUT, which the files were written for
            e.file = str(result.out)
            e.args = (e.format(),)
            raise
        result.files.extend(written)
        result.rows[name] = sum(w.rows for w in written)
    state = [{"path": outdir.state_path(name), "sha256":
              outdir.write_state(temp, name, scratch.keys(name))} for name in TABLES]
    generation = {"generation": result.generation, "commit": result.commit,
                  "since": previous["commit"] if previous else None,
                  "notes": None if notes == NO_NOTES else notes, "rows": result.rows,
                  "current": result.current,
                  "skipped": [{"digest": d, "path": p, "problem": why}
                              for d, p, why in result.skipped]}
    files = [*(previous["files"] if previous else []),
             *(w.to_json(result.generation) for w in result.files)]
    return {"format": outdir.FORMAT, "kistoreVersion": __version__, "fileFormat": result.format,
            "writer": _writer_version(result.format), "commit": result.commit,
            "tables": columns, "generations": [*(previous["generations"] if previous else []),
                                               generation],
            "files": sorted(files, key=lambda f: f["path"]), "state": state}


def _append(temp: Path, out: Path, result: ExportResult, manifest: dict[str, Any],
            moved: list[Path]) -> None:
    """Move a ``--since`` export's new files into ``out``, then its state and manifest."""
    for written in result.files:
        target = out / written.path
        if target.exists():  # e.g. two --since exports in one generation: never overwrite
            raise StoreStateError(f"{written.path} already exists in {out}; nothing was "
                                  "changed", file=str(target))
        target.parent.mkdir(parents=True, exist_ok=True)
        os.rename(temp / written.path, target)
        moved.append(target)
    kept = temp / "previous-state"
    kept.mkdir()
    replaced: list[str] = []
    try:
        for name in TABLES:
            os.replace(out / outdir.state_path(name), kept / name)
            replaced.append(name)
            os.replace(temp / outdir.state_path(name), out / outdir.state_path(name))
        outdir.write_manifest(out, manifest)
    except BaseException:  # put the state back: the export stays the one its manifest says
        for name in replaced:
            os.replace(kept / name, out / outdir.state_path(name))
        raise


def _check_continues(scratch: Scratch, previous: dict[str, Any], shape: Shape,
                     result: ExportResult, shallow: bool) -> None:
    """Refuse a ``--since`` export whose rows vanished or whose columns changed.

    In a shallow clone (``shallow``), also one that would write a row again without its
    ``firstCommit`` (:func:`_refuse_uncited`). Raises InputError, naming what and why.
    """
    root = result.out
    for name in TABLES:
        scratch.put_previous(name, outdir.read_state(root, name))
        count, first = scratch.vanished(name)
        if count:
            raise InputError(
                f"{count} {name} row(s) of the export at {previous['commit'][:12]} are gone "
                f"at {result.commit[:12]} (e.g. {', '.join(first)}); append-only files cannot "
                "say so: make a full export into a new directory", file=str(root))
        if shallow:
            _refuse_uncited(scratch, name, previous, root)
    now = _columns(shape, result.format)
    if _without_partition_names(previous["tables"]) != _without_partition_names(now):
        raise InputError(
            f"the columns changed since the export at {previous['commit'][:12]} "
            f"({_column_change(previous, now)}): files already written cannot take the new "
            "columns; make a full export into a new directory", file=str(root))


def _refuse_uncited(scratch: Scratch, name: str, previous: dict[str, Any], root: Path
                    ) -> None:
    """Refuse a shallow ``--since`` that would rewrite a row with ``firstCommit`` null.

    Args: the scratch database (previous state put), the table name, the ``_manifest.json``
    continued, the export directory (named in the error). Review r81 F9.

    The clone's history stops before the commits that first added those objects
    (:func:`kistore.cite.citation.shallow_doubt`), so it cannot say them; the earlier row may
    have, and the row of the highest generation is the current one: appending would take
    the citation away. A new row without one is written (the shallow-clone warning).

    Raises:
        InputError: how many rows of table ``name``, the first few keys, what to fetch.
    """
    table = TABLES[name]
    if "firstCommit" not in table.names:
        return
    at, count, first = table.index("firstCommit"), 0, list[str]()
    for key, row in scratch.rewritten(name):
        if row[at] is None:
            count += 1
            if len(first) < 3:
                first.append(key)
    if count:
        raise InputError(
            f"this is a shallow clone: {count} {name} row(s) of the export at "
            f"{previous['commit'][:12]} would be written again with no firstCommit or "
            f"permalink (e.g. {', '.join(first)}), which would replace their citation (the "
            "row of the highest generation is current); its history does not reach the "
            "commits that first added them. Nothing was written: `git fetch --unshallow` "
            "(CI: a full checkout, e.g. actions/checkout with fetch-depth: 0) and export "
            "again", file=str(root))


def _column_change(previous: dict[str, Any], now: dict[str, Any]) -> str:
    """Say which columns differ between an export's ``_manifest.json`` and this export.

    Args:
        previous: the earlier ``_manifest.json`` (its ``tables``).
        now: this export's tables (:func:`_columns`).

    Returns:
        A clause: the columns this kistore writes that the earlier export lacks (an export
        made before ``attestations.text`` existed), or has that this kistore no longer
        writes, named ``table.column``; else a CSV export made before ``sourceNative``
        was one JSON column (2026-12-04, review r85 F18); else the metric keys written
        under another name that changed (JSON Lines:
        :func:`kistore.export.columns.metric_names`); else the data-dependent fields (a
        new latency statistic).
    """
    names = {t: [c["name"] for c in v["columns"]] for t, v in previous["tables"].items()}
    added = [f"{t}.{c['name']}" for t, v in now.items() for c in v["columns"]
             if c["name"] not in names.get(t, ())]
    gone = [f"{t}.{n}" for t, ns in names.items() for n in ns
            if n not in {c["name"] for c in now.get(t, {}).get("columns", ())}]
    if added or gone:
        said = [f"it has no {', '.join(added)}, which this kistore writes"] if added else []
        said += [f"it has {', '.join(gone)}, which this kistore no longer writes"] if gone else []
        return "; ".join(said)
    if "fields" in _native(previous["tables"].get("runs", {})):
        return ("it writes runs.sourceNative as one column per metric key, which this "
                "kistore writes as one column of JSON text (docs/export.md)")
    before, after = _renamed(previous["tables"].get("runs", {})), _renamed(now["runs"])
    if before != after:
        changed = [f"{k!r} as {after[k]!r}" if k in after else f"{k!r} whole"
                   for k in sorted({*before, *after}) if before.get(k) != after.get(k)]
        return ("a source-native metric key now differs only in case from another, which "
                f"changes the names metrics are written under ({', '.join(changed)}; "
                "docs/export.md, \"Metric keys that differ only in case\")")
    return "a new latency statistic"


def _native(table: dict[str, Any]) -> dict[str, Any]:
    """Return the ``sourceNative`` column a ``_manifest.json`` table records (``{}``)."""
    for column in table.get("columns", ()):
        if column.get("name") == "sourceNative":
            return dict(column)
    return {}


def _renamed(table: dict[str, Any]) -> dict[str, str]:
    """Return the ``renamed`` metric keys a ``_manifest.json`` table records (``{}``)."""
    return dict(_native(table).get("renamed", {}))


def _columns(shape: Shape, fmt: str) -> dict[str, Any]:
    """Return each table's columns as ``_manifest.json`` records them.

    The data-dependent columns are recorded where they shape the files: the ``latencyNs``
    fields in Parquet (a struct) and CSV (flattened); no metric key shapes a file
    (``sourceNative`` is a map in Parquet, an object in JSON Lines, and in CSV one column of
    RFC 8785 JSON text, recorded as ``"encoding": "json"``); in JSON Lines, ``renamed``: the
    metric keys written under another name (only when some are:
    :func:`kistore.export.columns.metric_names`), so that ``--since`` refuses to append
    once a new key differs only in case from another; in Parquet,
    :data:`PARTITION_NAMES` (only when some value is written so).
    """
    tables = {}
    for name, table in TABLES.items():
        columns = []
        for c in table.columns:
            entry: dict[str, Any] = {"name": c.name, "type": c.type}
            if c.name == "latencyNs" and fmt in ("parquet", "csv"):
                entry["fields"] = list(shape.statistics)
            elif c.type == METRICS and fmt == "csv":  # one column of JSON text (r85 F18)
                entry["encoding"] = "json"
            if c.name == "sourceNative" and shape.renamed:  # JSON Lines (review r78 F8)
                entry["renamed"] = dict(shape.renamed)
            columns.append(entry)
        tables[name] = {"columns": columns, "partition": list(table.partition),
                        "sort": list(table.sort)}
        if shape.partitions.get(name):  # Parquet (review r80 F6)
            tables[name][PARTITION_NAMES] = shape.partitions[name]
    return tables


PARTITION_NAMES = "partitionNames"
"""A table's ``_manifest.json`` key: per partition column, the values written under a
case-distinct directory name, and that name (:func:`kistore.export.rows.partition_names`).
A ``--since`` export may add to them (a new value that differs only in case from another):
that changes no column, so it is left out where ``--since`` compares the columns."""


def _without_partition_names(tables: dict[str, Any]) -> dict[str, Any]:
    """Return ``_manifest.json`` tables without :data:`PARTITION_NAMES` (``--since`` compares)."""
    return {name: {k: v for k, v in table.items() if k != PARTITION_NAMES}
            for name, table in tables.items()}


# -- helpers -----------------------------------------------------------------------------


def _scratch_dir(out: Path, since: bool) -> Path:
    """Make the directory an export is written in before it is moved into place.

    A full export's sits beside ``out`` (``.NAME.partial-XXXX``); a ``--since`` one's inside
    it. A directory that cannot be made there (``/proc``, a read-only file system, no
    permission) is said of the path the user gave, with what to do, not of the temporary
    name (review r88 F6: "/proc/.foo.partial-_vev6no_: No such file or directory").

    Raises:
        InputError: the directory could not be made; nothing was written.
    """
    where = out if since else out.absolute().parent
    try:
        if since:
            return Path(tempfile.mkdtemp(prefix=".kistore-since-", dir=where))
        return Path(tempfile.mkdtemp(prefix=f".{out.name}.partial-", dir=where))
    except OSError as e:
        raise InputError(f"cannot write in {where} ({e.strerror or e}), so nothing was "
                         "written: give an output directory on a file system you can write "
                         "to", file=str(out)) from None


def _commit(store: Store, at: str) -> Any:
    """Return the commit ``at`` names (InputError when none; StoreStateError: no commits)."""
    if store.repo.head_is_unborn and at == "HEAD":
        raise StoreStateError("the repository has no commit yet: commit the store first "
                              "(`git commit` or `kistore add --commit`); an export is of a "
                              "commit")
    return store.commit(at)


def _previous(out: Path, store: Store, since: str) -> dict[str, Any]:
    manifest = outdir.read_manifest(out)
    wanted = str(_commit(store, since).id)
    if manifest["commit"] != wanted:
        raise InputError(f"the export in {out} was made at {manifest['commit']}, not at "
                         f"{since} ({wanted[:12]}); give --since {manifest['commit'][:12]}",
                         file=str(out))
    return manifest


def _need_pyarrow() -> None:
    try:
        # Lazy: pyarrow is optional (the `export` extra); CSV and JSON Lines need none.
        import pyarrow  # noqa: F401
        import pyarrow.parquet  # noqa: F401
    except ModuleNotFoundError:
        raise InputError("Parquet needs pyarrow: pip install 'kistore[export]' (or choose "
                         "--format csv or jsonl)") from None


def _writer_version(fmt: str) -> str | None:
    if fmt != "parquet":
        return None
    # Lazy: pyarrow is optional (the `export` extra); CSV and JSON Lines need none.
    import pyarrow

    return f"pyarrow {pyarrow.__version__}"


def _phase(progress: Progress | None, label: str, total: int | None) -> Callable[[int], None]:
    if progress is None:
        return lambda n: None
    return progress(label, total)


def _counted(rows: Iterator[Any], advance: Callable[[int], None]) -> Iterator[Any]:
    for row in rows:
        advance(1)
        yield row


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None
