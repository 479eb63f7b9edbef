"""The store: a git work tree of content-addressed manifests (DESIGN §3).

It owns the repository: ``init``, the atomic ``add`` path (work tree, and ``--commit``
straight into git objects), reading back with re-hashing, and resolving references (full
digest, unique hex prefix, ``KIND/NAME``).

Reads see the work tree by default (what was just added is visible before it is committed)
or a commit when asked ``at=REV``; both are a :class:`kistore.views.View`. The work-tree
files of a write are written by :mod:`kistore.writer`.

Write guarantees:

* object and metadata files are written to a temporary name and renamed into place; a
  failure part-way removes what this call created and restores what it replaced;
* ``commit=True`` builds blobs, trees and a commit first and moves the branch only then,
  with a compare-and-swap on its old value, retried on a concurrent update, so two writers
  never lose each other's manifests; the git index is updated for the written paths, so
  ``git status`` stays clean.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import random
import sqlite3
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import canonical, gitindex, layout, pack
from .catalog import Catalog, open_catalog
from .digest import Digest, match_prefix, parse_prefix
from .errors import (
    ConflictError,
    InputError,
    KistoreError,
    MultipleErrors,
    ResolutionError,
    StoreStateError,
    VerificationError,
)
from .model import Manifest
from .schema import KINDS
from .views import CommitView, View, WorkTreeView, stat_key
from .writer import FileBatch, FileStat, remove_stale_temps
from .writer import atomic_write as atomic_write  # re-exported: trust and notes use it

SETTINGS_TEMPLATE = """\
# kistore store settings (https://kernelindex.dev). Reviewed like code.
[store]
version = 1

[cite]
# Permalink template for `kistore cite`; {commit} and {path} are filled in.
# When unset, it is derived from the `origin` remote (GitHub, GitLab, Gitea forms).
# permalink = "https://github.com/OWNER/REPO/blob/{commit}/{path}"
"""

GITATTRIBUTES_LINE = "store/** -text -eol -filter -ident -working-tree-encoding"
"""Stored bytes are hashed bytes: no end-of-line or filter conversion, ever."""

if TYPE_CHECKING:  # pragma: no cover - typing only
    import pygit2
else:  # the same stand-in as the views': pygit2 imported on first use (~0.2 s)
    from .views import pygit2

_CAS_ATTEMPTS = 50

PACK_THRESHOLD = 64
"""From this many new blobs on, ``--commit`` writes one packfile instead of loose objects."""

WRITERS = 1
"""Child processes writing the work tree of a bulk ``--commit`` while this process packs
and commits (0: written here, before the commit). Each child closes the pipe ends it
inherited and is drained before it is reaped, so a parent killed or failing mid-write
never leaves one blocked holding the write lock (docs/speed.md). Measured at 20,000
manifests on a quiet 2-CPU disk, side by side: one child 7.5-8.4 s, none 9.1-9.5 s; two
children gave no clear gain over one in an earlier pass (10.8 s vs 10.5 s at 10,000)."""


@dataclass(frozen=True, slots=True)
class AddResult:
    """What ``add`` did with one manifest.

    Attributes:
        digest: the manifest's digest.
        kind: its kind.
        name: its ``metadata.name``.
        status: ``added`` (new object), ``unchanged`` (already stored, same metadata) or
            ``metadata-updated`` (already stored; metadata replaced on request).
    """

    digest: Digest
    kind: str
    name: str
    status: str


class Store:
    """A kistore store: a git repository holding ``kistore.toml`` and ``store/``.

    Args:
        path: any directory inside the repository (default: the current directory), or a
            bare repository (then only ``at=REV`` reads work; the default is ``HEAD``).

    Raises:
        StoreStateError: when ``path`` is not inside a git repository.
    """

    def __init__(self, path: str | os.PathLike[str] | None = None) -> None:
        start = os.fspath(path) if path is not None else os.getcwd()
        self._repo: pygit2.Repository | None = None
        self._catalog: Catalog | None = None
        self._catalog_opened = False
        plain = _plain_work_tree(start)
        if plain is not None:  # the common case, found without importing pygit2
            self.root: Path | None = plain
            self.git_dir = plain / ".git"
            return
        found = pygit2.discover_repository(start)
        if found is None:
            raise StoreStateError(
                "not inside a git repository; run `kistore init PATH` or pass --store PATH",
                file=start,
            )
        self._repo = pygit2.Repository(found)
        workdir = self._repo.workdir
        self.root = Path(workdir) if workdir else None
        self.git_dir = Path(self._repo.path)

    @property
    def repo(self) -> pygit2.Repository:
        """The pygit2 repository, opened on first use (a work-tree ``add`` never opens it)."""
        if self._repo is None:
            self._repo = pygit2.Repository(str(self.root))
        return self._repo

    def catalog(self) -> Catalog | None:
        """Return the derived name catalog (``GIT_DIR/kistore/catalog.sqlite``), opened once.

        None when it cannot be opened (e.g. a read-only clone); reads then scan the store.
        """
        if not self._catalog_opened:
            self._catalog_opened = True
            self._catalog = open_catalog(self.git_dir)
        return self._catalog

    # -- creating --------------------------------------------------------------------

    @classmethod
    def init(cls, path: str | os.PathLike[str]) -> Store:
        """Create (or complete) a store at ``path``: git repo, settings, attributes, layout.

        A new repository gets branch ``main`` and a first commit holding ``kistore.toml``
        and ``.gitattributes`` and the default ranking policy ``store/policy/ranking.json``.
        In an existing repository missing files are written but
        not committed. Running it twice changes nothing.

        Returns:
            The store.
        """
        root = Path(path)
        root.mkdir(parents=True, exist_ok=True)
        is_new = pygit2.discover_repository(str(root)) is None
        if is_new:
            pygit2.init_repository(str(root), initial_head="main")
        store = cls(root)
        assert store.root is not None
        written = []
        settings = store.root / layout.SETTINGS_FILE
        if not settings.exists():
            settings.write_text(SETTINGS_TEMPLATE, "utf-8")
            written.append(layout.SETTINGS_FILE)
        attributes = store.root / ".gitattributes"
        lines = attributes.read_text("utf-8").splitlines() if attributes.exists() else []
        if GITATTRIBUTES_LINE not in lines:
            attributes.write_text("\n".join([*lines, GITATTRIBUTES_LINE]) + "\n", "utf-8")
            written.append(".gitattributes")
        for directory in (layout.OBJECTS_DIR, layout.METADATA_DIR):
            (store.root / directory).mkdir(parents=True, exist_ok=True)
        policy = store.root / layout.POLICY_DIR / "ranking.json"
        if not policy.exists():  # the reviewed default ranking policy (kistore.query.policy)
            policy.parent.mkdir(parents=True, exist_ok=True)
            policy.write_bytes(_default_policy())
            written.append(f"{layout.POLICY_DIR}/ranking.json")
        if is_new and written:
            files = {p: (store.root / p).read_bytes() for p in written}
            store._commit(files, "kistore init: new store")
        return store

    # -- reading ---------------------------------------------------------------------

    def view(self, at: str | None = None) -> View:
        """Return the work tree (``at=None``) or the commit ``at`` names as a :class:`View`.

        Raises:
            InputError: when ``at`` names no commit.
        """
        if at is None and self.root is not None:
            return WorkTreeView(self.root, self.catalog())
        return CommitView(self.repo, self.commit(at or "HEAD"), self.catalog())

    def commit(self, rev: str) -> pygit2.Commit:
        """Return the commit a revision names (``HEAD``, a branch, a tag, an id).

        Raises:
            InputError: when ``rev`` names no commit.
        """
        try:
            return self.repo.revparse_single(rev).peel(pygit2.Commit)
        except (KeyError, ValueError, pygit2.GitError, pygit2.InvalidSpecError) as e:
            raise InputError(f"no commit named {rev!r} in this repository ({e})") from None

    def resolve(self, ref: str, *, at: str | None = None) -> Digest:
        """Resolve what a person typed to one stored digest.

        Args:
            ref: a full digest, a unique prefix of at least 8 hex digits (``sha256:``
                optional), or ``KIND/NAME`` (e.g. ``BenchmarkRun/sol-submission-20464``).
            at: revision to read, or None for the work tree.

        Raises:
            ResolutionError: nothing matches, or a prefix matches several objects (the
                message lists the candidates).
            InputError: ``ref`` has none of the three forms.
        """
        view = self.view(at)
        kind, slash, name = ref.partition("/")
        if slash and kind in KINDS:
            digest = view.name_owners([(kind, name)]).get((kind, name))
            if digest is not None and view.catalog is not None and view.scope == "work" and \
                    not _has_name(view, digest, name):  # its metadata was rewritten in place
                view.catalog.forget(view.scope, digest)
                digest = view.name_owners([(kind, name)]).get((kind, name))
            if digest is None:
                raise ResolutionError(f"no {kind} named {name!r} in the store")
            return digest
        prefix = parse_prefix(ref)
        if prefix is None:
            raise InputError(
                f"{ref!r} is not a reference: give a digest (sha256:<64 hex>), a prefix of at "
                f"least 8 hex digits, or KIND/NAME with KIND one of {', '.join(KINDS)}"
            )
        shard = f"{layout.OBJECTS_DIR}/{prefix[:2]}"
        candidates = [
            d for leaf in view.list_dir(shard)
            if (d := layout.digest_from_path(f"{shard}/{leaf}")) is not None
        ]
        return match_prefix(prefix, candidates)

    def read(self, ref: str | Digest, *, at: str | None = None) -> Manifest:
        """Return the stored manifest ``ref`` names, re-hashed on read.

        Raises:
            ResolutionError, InputError: as :meth:`resolve`.
            VerificationError: the stored bytes do not hash to their name.
        """
        digest = ref if isinstance(ref, Digest) else self.resolve(ref, at=at)
        return self.view(at).manifest(digest)

    # -- writing ---------------------------------------------------------------------

    def add(
        self,
        manifests: Sequence[Manifest],
        *,
        allow_dangling: bool = False,
        update_metadata: bool = False,
        commit: bool = False,
        message: str | None = None,
        origins: Mapping[Digest, Any] | None = None,
    ) -> list[AddResult]:
        """Add manifests to the store, all or nothing.

        Args:
            manifests: validated manifests (see :func:`kistore.inputs.read_inputs`).
            allow_dangling: record runs whose referenced digests are neither stored nor in
                this batch (``verify`` then reports them as unresolved).
            update_metadata: replace the metadata of an already stored object when it differs.
            commit: also write blobs, trees and a commit on the current branch (moved with
                a compare-and-swap) and stage the written paths, leaving ``git status`` clean.
            message: commit message (default: a summary of what was added).
            origins: where each manifest came from, named in error messages: a file name,
                or a :class:`kistore.inputs.Located` (file, line, pointer of the manifest
                inside the file, e.g. ``/run`` in a bundle).

        Returns:
            One :class:`AddResult` per distinct manifest, in input order. Adding what is
            already stored is a no-op reported as ``unchanged``.

        Writers on one clone take turns (a lock under the git directory), so the name and
        metadata checks and the write are one step: two concurrent adds can never both
        claim one name, nor silently replace each other's metadata.

        Raises:
            MultipleErrors: every refusal found, before anything is written: a digest whose
                stored metadata differs (with the difference shown) unless
                ``update_metadata``; a ``metadata.name`` already used by another manifest of
                the same kind; dangling references (each missing digest listed) unless
                ``allow_dangling``.
            StoreStateError: no work tree, or the branch kept moving under a concurrent
                writer; the store is left as it was.
        """
        with self._write_lock():
            return self._add(manifests, allow_dangling=allow_dangling,
                             update_metadata=update_metadata, commit=commit, message=message,
                             origins=origins)

    @contextlib.contextmanager
    def _write_lock(self) -> Iterator[None]:
        """Hold the store's write lock (``flock`` on ``<git dir>/kistore-write.lock``)."""
        with open(Path(self.git_dir) / "kistore-write.lock", "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)

    def _add(
        self,
        manifests: Sequence[Manifest],
        *,
        allow_dangling: bool,
        update_metadata: bool,
        commit: bool,
        message: str | None,
        origins: Mapping[Digest, Any] | None,
    ) -> list[AddResult]:
        """:meth:`add` under the write lock."""
        if self.root is None:
            raise StoreStateError("this repository has no work tree; `add` needs one")
        if commit:
            self._refuse_unfinished_operation()
        view = WorkTreeView(self.root, self.catalog())
        unique: dict[Digest, Manifest] = {}
        errors: list[KistoreError] = []
        for m in manifests:
            first = unique.setdefault(m.digest, m)
            if first.metadata_bytes != m.metadata_bytes:
                differs = metadata_difference(first.metadata_bytes, m.metadata_bytes,
                                              "first", "then")
                errors.append(ConflictError(
                    f"{m.digest} appears twice in this input with different metadata "
                    f"({differs})",
                    pointer="/metadata",
                ))
                _locate(errors[-1], (origins or {}).get(m.digest))
        names = view.name_owners(list({(m.kind, m.name) for m in unique.values()}))
        head_holds = self._head_holds()
        batch_names: dict[tuple[str, str], Digest] = {}
        results: list[AddResult] = []
        files: dict[str, bytes] = {}
        for digest, m in unique.items():
            problems: list[KistoreError] = []
            key = (m.kind, m.name)
            owner = names.get(key) or batch_names.setdefault(key, digest)
            if owner != digest:
                where = "" if key in names else _place((origins or {}).get(owner))
                problems.append(ConflictError(
                    f"{m.kind} name {m.name!r} is already used by {owner}{where}; names are "
                    "unique per kind: choose another metadata.name", pointer="/metadata/name"
                ))
            status = "added"
            if view.has_object(digest):
                stored = view.read(layout.metadata_path(digest))
                if view.read(layout.object_path(digest)) != m.object_bytes:
                    path = layout.object_path(digest)
                    problems.append(VerificationError(
                        f"the stored object file {path} is corrupt (its bytes are not this "
                        f"manifest's canonical bytes); restore it with `git checkout -- {path}`"
                        " or delete it and add again", pointer="",
                    ))
                elif stored == m.metadata_bytes:
                    status = "unchanged"
                elif stored is not None and not update_metadata:
                    problems.append(ConflictError(
                        f"{digest} is already stored with other metadata ("
                        f"{metadata_difference(stored, m.metadata_bytes)}); pass --update-metadata "
                        "to replace it", pointer="/metadata",
                    ))
                else:
                    status = "metadata-updated"
            missing = [
                (field, ref) for field, ref in m.references().items()
                if status == "added" and ref not in unique and not view.has_object(ref)
            ]
            if missing and not allow_dangling:
                listed = ", ".join(f"{field}={ref}" for field, ref in missing)
                problems.append(ResolutionError(
                    f"{m.kind} {m.name} ({digest}) references digests that are not in the "
                    f"store nor in this input: {listed}; add them first, or pass "
                    "--allow-dangling to record the run anyway", pointer="/spec",
                ))
            if status == "added" or (commit and not head_holds(layout.object_path(digest),
                                                               m.object_bytes)):
                files[layout.object_path(digest)] = m.object_bytes
            if status != "unchanged" or layout.object_path(digest) in files or (
                    commit and not head_holds(layout.metadata_path(digest), m.metadata_bytes)):
                files[layout.metadata_path(digest)] = m.metadata_bytes
            results.append(AddResult(digest, m.kind, m.name, status))
            for problem in problems:
                _locate(problem, (origins or {}).get(digest))
            errors.extend(problems)
        if errors:
            raise MultipleErrors(errors)
        if not files:
            return results
        remove_stale_temps(self.root, {rel.rpartition("/")[0] for rel in files})  # killed adds
        batch = FileBatch(self.root, files)
        moved: list[bool] = []  # once the branch has moved, its commit's files must stay
        try:
            if commit and len(files) >= PACK_THRESHOLD and WRITERS:
                # Child processes write the work-tree files while this one builds the
                # git objects: they overlap on a second core. The branch moves only once
                # every file is in place.
                batch.start(processes=WRITERS)
                self._commit(files, self._message(message, results), before_move=batch.wait,
                             stats=batch.stats, moved=lambda: moved.append(True))
            else:
                batch.run()
                if commit:
                    self._commit(files, self._message(message, results), stats=batch.stats,
                                 moved=lambda: moved.append(True))
        except BaseException:
            if not moved:
                batch.undo()
            raise
        self._record_names(view, [unique[r.digest] for r in results if r.status != "unchanged"],
                           batch.stats)
        return results

    def _refuse_unfinished_operation(self) -> None:
        """Refuse ``--commit`` in the middle of a merge, cherry-pick, revert or rebase.

        ``git commit`` would finish the operation; a kistore commit would drop its state.

        Raises:
            StoreStateError: naming the operation and how to finish or abort it.
        """
        for marker, operation in (("MERGE_HEAD", "merge"), ("CHERRY_PICK_HEAD", "cherry-pick"),
                                  ("REVERT_HEAD", "revert"), ("rebase-merge", "rebase"),
                                  ("rebase-apply", "rebase or am")):
            if (Path(self.git_dir) / marker).exists():
                raise StoreStateError(
                    f"a git {operation} is in progress; finish it (`git commit`, or `git "
                    f"{operation.split()[0]} --continue`) or abort it (`git "
                    f"{operation.split()[0]} --abort`), then run the add again",
                    file=str(Path(self.git_dir) / marker))

    @staticmethod
    def _message(message: str | None, results: list[AddResult]) -> str:
        """Return the commit message: the one given, or a summary of what was added."""
        if message:
            return message
        summary = ", ".join(f"{r.kind}/{r.name}" for r in results[:3])
        more = f" and {len(results) - 3} more" if len(results) > 3 else ""
        return f"kistore add: {summary}{more}"

    def _head_holds(self) -> Callable[[str, bytes], bool]:
        """Return ``holds(path, data)``: True when HEAD's tree has exactly ``data`` at ``path``.

        ``add --commit`` of a manifest whose files are in the work tree but not committed
        (an earlier plain ``add``, or an add killed after writing) commits them; a killed
        add may have left the object file without its metadata, or the other way round.
        """
        head: View | None = None

        def holds(path: str, data: bytes) -> bool:
            nonlocal head
            if head is None:
                try:
                    head = self.view("HEAD")
                except InputError:  # no commit yet
                    return False
            return head.read(path) == data

        return holds

    def _record_names(self, view: WorkTreeView, written: list[Manifest],
                      stats: Mapping[str, FileStat]) -> None:
        """Tell the catalog what ``add`` just wrote, so the next add need not re-read it.

        The shard keys recorded are those after this write; a shard that another writer
        changed between this add's catalog sync and now is left for the next sync to re-read.
        """
        catalog = view.catalog
        if catalog is None or not written:
            return
        rows = []
        shards = {m.digest.hex[:2] for m in written}
        for m in written:
            try:
                keys = [stat_key(stats.get(p) or os.stat(os.path.join(view.root, p)))
                        for p in (layout.object_path(m.digest), layout.metadata_path(m.digest))]
            except OSError:
                return
            rows.append((m.digest, keys[0], keys[1], m.kind, m.name))
        current = view.shard_keys()
        try:
            catalog.record("work", rows, {d: k for d, k in current.items()
                                          if d.rpartition("/")[2] in shards})
        except sqlite3.Error:  # a derived cache (disk full?): the next sync re-reads
            return              # these shards, whose keys it does not have

    def _commit(self, files: dict[str, bytes], message: str,
                before_move: Callable[[], None] | None = None,
                stats: Mapping[str, FileStat] | None = None,
                moved: Callable[[], None] | None = None) -> pygit2.Oid:
        """Commit ``files`` on top of the current branch, moving it with compare-and-swap.

        Blobs, trees and the commit are written and the paths staged in the git index (so
        ``git status`` is clean) before the branch moves. When another writer moved the
        branch in between, the tree is rebuilt on its new tip and the swap retried. If the
        branch does not move (a failure, an interrupt), the staged entries are taken back.
        ``moved`` (when given) is called as soon as the branch has moved.

        ``before_move`` (when given) is called once, after the first commit object is
        written and before the branch moves; an exception from it stops the commit with
        the branch untouched (the objects written are unreachable, and ``git gc`` drops them).
        ``stats`` (filled by then) holds the stat data of the work-tree files written with
        these bytes, staged without reading the files again (:mod:`kistore.gitindex`).
        """
        repo = self.repo
        if len(files) >= PACK_THRESHOLD:  # one pack: two files instead of one per blob
            ids = pack.write_blobs(_objects_dir(repo) / "pack", files.values())
            blobs = {path: pygit2.Oid(raw=oid) for path, oid in zip(files, ids, strict=True)}
        else:
            blobs = {path: repo.create_blob(data) for path, data in files.items()}
        signature = commit_signature(repo)
        previous: dict[str, Any] | None = None  # the index entries staging replaced
        try:
            for attempt in range(_CAS_ATTEMPTS):
                branch, parent = self._branch_tip()
                base = parent.tree if parent is not None else None
                tree = _build_tree(repo, base, _nest(blobs))
                parents = [parent.id] if parent is not None else []
                oid = repo.create_commit(None, signature, signature, message, tree, parents)
                if before_move is not None:
                    before_move()
                    before_move = None
                # Staging and the move with their bookkeeping are one step for interrupts
                # (Ctrl-C, SIGTERM arrive after it): the caller must know which side of the
                # move it stopped on, to keep or undo the work tree and the index.
                with _interrupts_deferred():
                    if previous is None:  # staged before the branch moves: a failure here
                        previous = self._stage(blobs, stats or {})  # commits nothing
                    if parent is not None and parent.tree.id == tree:
                        landed = True  # HEAD holds all of it (a re-run): no empty commit
                        oid = parent.id
                    else:
                        landed = self._move(branch, parent, oid, message)
                    if landed:
                        previous = None
                        if moved is not None:
                            moved()
                        return oid
                time.sleep(random.uniform(0.001, 0.02) * (attempt + 1))
        finally:
            if previous is not None:  # staged, but the branch did not move: take it back
                self._unstage(previous)
        raise StoreStateError(
            f"the branch kept moving under concurrent writers ({_CAS_ATTEMPTS} attempts); "
            "nothing was committed: run the command again"
        )

    def _move(self, branch: str, parent: pygit2.Commit | None, oid: pygit2.Oid,
              message: str) -> bool:
        """Move ``branch`` from ``parent`` to ``oid`` (compare-and-swap); False: it moved."""
        try:
            if parent is None:
                self.repo.references.create(branch, oid)
                return True
            ref = self.repo.references[branch]
            if ref.target != parent.id:
                return False
            ref.set_target(oid, f"commit: {message.splitlines()[0]}")
            return True
        except (pygit2.GitError, pygit2.AlreadyExistsError, ValueError, OSError):
            return False  # another writer moved the branch or holds its lock: retry on its tip

    def _branch_tip(self) -> tuple[str, pygit2.Commit | None]:
        head = self.repo.references.get("HEAD")
        if head is None or head.type != pygit2.enums.ReferenceType.SYMBOLIC:
            raise StoreStateError("HEAD is detached; check out a branch before --commit")
        branch = str(head.target)
        ref = self.repo.references.get(branch)
        return branch, (self.repo[ref.target].peel(pygit2.Commit) if ref is not None else None)

    def _stage(self, blobs: dict[str, pygit2.Oid],
               stats: Mapping[str, FileStat] | None = None) -> dict[str, Any]:
        """Stage the committed blobs in the git index under git's lock (read-modify-write).

        Each entry carries its file's stat data, so a later ``git status`` need not hash
        the file: from ``stats`` where this add wrote the file, else read from the file
        (:func:`kistore.gitindex.stage` says what happens to a file edited meanwhile).

        Returns:
            The entries it replaced (path -> entry, or None for a path not staged before),
            for :meth:`_unstage`.

        Raises:
            StoreStateError: the index could not be read or written (another git command
                held its lock for 5 s, or it uses an extension libgit2 cannot write); the
                index is unchanged.
        """
        if self.root is None:
            return {}
        index_file = Path(self.repo.path) / "index"
        try:
            with gitindex.updating(index_file) as index:
                return gitindex.stage(index, blobs, stats or {}, self.root)
        except (OSError, pygit2.GitError) as e:
            raise StoreStateError(
                f"the git index could not be updated ({e or type(e).__name__}); nothing was "
                "committed and the work tree is as it was. Is another git command running "
                "(.git/index.lock)? A split or sparse index is not supported: `git "
                "update-index --no-split-index`, `git sparse-checkout disable`",
                file=str(index_file)) from e

    def _unstage(self, previous: Mapping[str, Any]) -> None:
        """Put back the index entries :meth:`_stage` replaced.

        Best effort: a failure to write leaves the entries for ``git reset -q`` to fix,
        and is not raised over the error that made the add stop.
        """
        with contextlib.suppress(OSError, pygit2.GitError), gitindex.updating(
                Path(self.repo.path) / "index") as index:
            gitindex.unstage(index, previous)


@contextlib.contextmanager
def _interrupts_deferred() -> Iterator[None]:
    """Hold SIGINT and SIGTERM until the block is done; they are delivered on leaving it.

    An exception raised by a delivered signal then starts after the block's bookkeeping,
    never inside it (a ``finally`` that unblocks inside the function would let it replace
    the ``return``).
    """
    import signal

    blocked = {signal.SIGINT, signal.SIGTERM}
    old = signal.pthread_sigmask(signal.SIG_BLOCK, blocked)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def _default_policy() -> bytes:
    """Return the shipped default ranking policy (read as data: no query import)."""
    from importlib import resources

    return resources.files("kistore.query").joinpath("default_policy.json").read_bytes()


def read_settings(root: Path) -> dict[str, Any]:
    """Return ``kistore.toml`` of the store at ``root`` as a dict (empty when absent).

    Raises:
        InputError: when the file is not valid TOML.
    """
    import tomllib

    path = root / layout.SETTINGS_FILE
    try:
        return tomllib.loads(path.read_text("utf-8"))
    except FileNotFoundError:
        return {}
    except tomllib.TOMLDecodeError as e:
        raise InputError(f"not valid TOML: {e}", file=str(path)) from None


def _plain_work_tree(start: str) -> Path | None:
    """Return the work tree around ``start`` when it is an ordinary one, else None.

    Ordinary: the nearest ``.git`` above ``start`` is a directory holding ``HEAD``, its
    config sets no ``core.worktree``, and no ``GIT_*`` variable redirects git. Everything
    else (bare repositories, linked worktrees, submodules, GIT_DIR ...) is left to
    libgit2's discovery, so both always agree.
    """
    if any(k in os.environ for k in ("GIT_DIR", "GIT_WORK_TREE", "GIT_CEILING_DIRECTORIES",
                                     "GIT_DISCOVERY_ACROSS_FILESYSTEM", "GIT_COMMON_DIR")):
        return None
    here = Path(os.path.abspath(start))
    for directory in (here, *here.parents):
        dotgit = directory / ".git"
        if os.path.lexists(dotgit):
            if not (dotgit.is_dir() and not dotgit.is_symlink() and (dotgit / "HEAD").is_file()):
                return None
            try:
                config = (dotgit / "config").read_text("utf-8", errors="replace").lower()
            except OSError:
                return None
            return None if "worktree" in config else directory
        if directory.name == ".git" or (directory / "HEAD").is_file():
            return None  # inside a git directory or a bare repository
    return None


def _objects_dir(repo: pygit2.Repository) -> Path:
    """Return the repository's object directory (linked worktrees share it: ``commondir``)."""
    git_dir = Path(repo.path)
    common = git_dir / "commondir"
    if common.is_file():
        git_dir = (git_dir / common.read_text("utf-8").strip()).resolve()
    return git_dir / "objects"


def _has_name(view: View, digest: Digest, name: str) -> bool:
    """Return True when the work tree's metadata file of ``digest`` still says ``name``.

    The name catalog trusts directory and file stat data; one read checks its answer.
    """
    try:
        return canonical.loads(view.read(layout.metadata_path(digest)) or b"")["name"] == name
    except (KistoreError, KeyError, TypeError):
        return False


def _place(origin: Any) -> str:
    """Say where a manifest earlier in this input came from: `` (first at FILE:LINE)``."""
    if origin is None:
        return " (earlier in this input)"
    if isinstance(origin, str):
        return f" (first in {origin})"
    where = origin.file + (f":{origin.line}" if origin.line is not None else "")
    return f" (first at {where}{':' + origin.pointer if origin.pointer else ''})"


def _locate(problem: KistoreError, origin: Any) -> None:
    """Place a problem about one manifest where that manifest came from.

    ``origin`` is a file name, or an object with ``file``, ``line`` and ``pointer`` (the
    manifest's place in its file), or None.
    """
    if isinstance(origin, str):
        problem.file = origin
    elif origin is not None:
        problem.file, problem.line = origin.file, origin.line
        problem.pointer = (origin.pointer or "") + (problem.pointer or "")
    problem.args = (problem.format(),)


def metadata_difference(old: bytes, new: bytes, was: str = "stored", now: str = "given") -> str:
    """Say in one line how two metadata documents differ, by JSON Pointer.

    Args:
        old: the metadata bytes there first.
        new: the other metadata bytes.
        was: what to call ``old`` (stored, first).
        now: what to call ``new`` (given, then).
    """
    changes: list[str] = []

    def walk(a: Any, b: Any, pointer: str) -> None:
        if isinstance(a, dict) and isinstance(b, dict):
            for key in sorted(a.keys() | b.keys()):
                child = f"{pointer}/{canonical.escape_pointer(key)}"
                walk(a.get(key, _ABSENT), b.get(key, _ABSENT), child)
        elif a != b:
            shown = ["(absent)" if v is _ABSENT else json.dumps(v, ensure_ascii=False)
                     for v in (a, b)]
            changes.append(f"{pointer or '/'}: {was} {shown[0]}, {now} {shown[1]}")

    try:
        stored = json.loads(old)
    except ValueError:
        return "the stored metadata file is not valid JSON: `kistore verify` reports it"
    walk(stored, json.loads(new), "")
    return "; ".join(changes)


_ABSENT = object()


def _nest(blobs: dict[str, pygit2.Oid]) -> dict[str, Any]:
    """Turn ``{"a/b/c": oid}`` into ``{"a": {"b": {"c": oid}}}``."""
    root: dict[str, Any] = {}
    for path, oid in blobs.items():
        *dirs, leaf = path.split("/")
        node = root
        for d in dirs:
            node = node.setdefault(d, {})
        node[leaf] = oid
    return root


def _build_tree(repo: pygit2.Repository, base: pygit2.Tree | None, entries: dict[str, Any]
                ) -> pygit2.Oid:
    """Write the tree ``base`` with ``entries`` inserted (nested dicts are subtrees)."""
    builder = repo.TreeBuilder(base) if base is not None else repo.TreeBuilder()
    for name, value in entries.items():
        if isinstance(value, dict):
            sub = None
            if base is not None and name in base:
                obj = repo[base[name].id]
                if isinstance(obj, pygit2.Tree):
                    sub = obj
            builder.insert(name, _build_tree(repo, sub, value), pygit2.GIT_FILEMODE_TREE)
        else:
            builder.insert(name, value, pygit2.GIT_FILEMODE_BLOB)
    return builder.write()


def commit_signature(repo: pygit2.Repository) -> pygit2.Signature:
    """Return the author/committer for commits kistore writes.

    Args:
        repo: the repository.

    Returns:
        git's configured ``user.name``/``user.email``, else ``kistore <kistore@localhost>``.
    """
    try:
        return repo.default_signature
    except (KeyError, pygit2.GitError):
        return pygit2.Signature("kistore", "kistore@localhost")

