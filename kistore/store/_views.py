"""Views: read-only access to the store's files in the work tree or at one commit.

A :class:`View` is the one reader of a store at a revision: it reads repository paths
(never past a size limit, 16 MiB when none is given: :meth:`View.read`), lists every
file under ``store/`` with its git mode (:meth:`View.files`, what ``verify`` and the
pull-request gate check), re-hashes
objects on read and answers name lookups through the names of the derived index
(:mod:`kistore.index.names`). :class:`WorkTreeView` reads files; :class:`CommitView` reads
git objects (it works in a bare repository). :class:`kistore.store.Store` hands them out;
nothing here writes.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import os
import sqlite3
import stat
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from pathlib import Path
from typing import TypeVar

from ..core import canonical, hashes, layout
from ..core.digest import Digest
from ..core.errors import KistoreError, MultipleErrors, ResolutionError, VerificationError
from ..core.limits import CEILING_KEY, DEFAULT, FILE_BYTES, Limits
from ..core.limits import FileTooLarge as FileTooLarge  # re-exported: kistore.store's
from ..core.model import Manifest, metadata_name
from ..core.schema import KINDS, in_metadata_file
from ..git import treediff
from ..git.blobs import (
    ObjectUnreadable,
    fetch_blobs,
    is_partial_clone,
    lookup,
    loose_checked,
    read_blob_within,
    too_large_fix,
)
from ..git.ids import blob_id
from ..git.lazy import pygit2  # imported on first use (~0.2 s)
from ..git.opening import open_repository
from ..git.realdirs import ABSENT, first_not_dir
from ..git.sparse import SkipWorktree, StagedEntry
from ..index import freshness
from ..index.names import NameIndex

_T = TypeVar("_T")

REGULAR_MODES = frozenset({0o100644, 0o100755})
"""The git modes of a regular file; every other mode (a symlink, a submodule) reads as none."""

SPECIAL_FILE = 0o010000
"""The mode :meth:`WorkTreeView.files` gives a FIFO, socket or device (git's ``S_IFIFO``
bits; git itself never commits one): ``verify`` reports it as not a regular file (KI111)."""


WORK_TREE_BYTES = FILE_BYTES
"""The most bytes a :class:`View` reads of one file when asked no limit:
:data:`kistore.core.limits.FILE_BYTES` (16 MiB, the ceiling of ``manifest-bytes``), for
the work tree (refused by the file's ``fstat``) and a commit (by its blob's header) alike:
:meth:`View.read` is the one place that sets it. A stray 1 GB file under ``store/`` was
read whole six times by a ``rank`` of an unrelated group (fresh03 H3), a 1 GB blob at a
commit by ``show --at``, ``export`` and ``site build`` (res02)."""


_RECORD_LIMIT = 80
"""Most bytes read of a names file (one holds 72: ``sha256:<64 hex>\\n``)."""


class NamesFileDisagrees(VerificationError):
    """A names file that does not name the manifest its path says (``verify``: KI212).

    A ``KIND/NAME`` reference is answered from its names file only after the owner's
    metadata and object agree; this is raised instead of answering with another manifest.

    Args:
        path: the names file's repository path.
        problem: what it holds or names, e.g. ``names sha256:..., which is
            BenchmarkRun/z, not BenchmarkRun/b``.
        back: the fix that works, when known (:meth:`View.name_back`: a metadata file
            renamed in a commit is put back from the commit before, not from HEAD); None:
            the general ``git checkout HEAD -- FILE``.
    """

    def __init__(self, path: str, problem: str, back: str | None = None) -> None:
        super().__init__(
            f"KI212 name-path-disagrees: the names file {problem}; it is not trusted. "
            "Run `kistore verify` to see every disagreement; " + (
                back or "restore a names or metadata file changed by hand with "
                "`git checkout HEAD -- FILE`")
            + ", or give the digest (or an 8+ hex prefix) of the manifest you mean",
            file=path)


class Files:
    """Every file of one view under ``store/``, with its git mode: what ``verify`` checks.

    Reads go through the view (:meth:`View.read`) with :attr:`limit`; a path whose mode is
    not a regular file's (a symlink, a submodule, a FIFO) reads as None.

    Args:
        view: the :class:`View` the files were listed from.
        modes: repository path -> git file mode, for every file under ``store/`` (``store``
            itself when it is not a directory), or for the paths asked about.
        limit: most bytes :meth:`read` returns (``[limits] manifest-bytes``).
        complete: ``modes`` lists every file (:meth:`View.files`); False: only the paths
            asked about (:meth:`View.files_of`), and whatever else a check needs is
            looked up through :attr:`view`, one path at a time.

    Attributes:
        value_limits: the limits a check holds each file's strings, arrays and objects to
            (``[limits] string-length``, ``array-length``, ``object-members``; KI107):
            :data:`DEFAULT` unless the checker sets the checking repository's own
            (``kistore.check.audit.snapshot``).
    """

    def __init__(self, view: View, modes: dict[str, int],
                 limit: int = DEFAULT.manifest_bytes, *, complete: bool = True) -> None:
        self.view = view
        self.modes = modes
        self.limit = limit
        self.complete = complete
        self.value_limits: Limits = DEFAULT

    def read(self, path: str, limit: int | None = None) -> bytes | None:
        """Return a file's bytes, or None when there is no such regular file.

        Args:
            path: the repository path.
            limit: most bytes read; None: :attr:`limit` (``manifest-bytes``, which is for
                manifests: ``.gitattributes`` is read with its own).

        Raises:
            FileTooLarge: the file holds more than the limit (never read past it).
        """
        if self.modes.get(path, 0o100644) not in REGULAR_MODES:
            return None
        return self.view.read(path, self.limit if limit is None else limit)

    def read_mode(self, path: str) -> tuple[bytes | None, int]:
        """Return :meth:`read` of ``path`` and the git mode of what was read.

        :meth:`View.read_mode` with :attr:`limit`; ``(None, 0)`` for a path listed with
        a mode that is not a regular file's.

        Raises:
            FileTooLarge: as :meth:`read`.
        """
        if self.modes.get(path, 0o100644) not in REGULAR_MODES:
            return None, 0
        return self.view.read_mode(path, self.limit)

    def holds(self, path: str, data: bytes) -> bool:
        """Return True when the regular file at ``path`` holds exactly ``data``.

        :meth:`View.holds` with :attr:`limit`: a file past the limit holds nothing it could
        be compared with (False, as :meth:`read` would raise :class:`FileTooLarge`).
        """
        if self.modes.get(path, 0o100644) not in REGULAR_MODES or len(data) > self.limit:
            return False
        try:
            return self.view.holds(path, data, self.limit)
        except FileTooLarge:
            return False

    def reopen(self) -> None:
        """Reopen what cannot cross a fork (a worker process calls this first)."""
        self.view.reopen()


class View:
    """Read-only access to the store's files as of the work tree or one commit.

    Name lookups go through the names of the derived index (:mod:`kistore.index.names`)
    when the view has them, and fall back to reading every file when it has none.
    """

    head_has: Callable[[str], bool | None] | None = None
    """Whether HEAD holds a path (:meth:`kistore.store.Store.head_has`): set on the work
    tree's view by the store, for what a message advises (:meth:`restore_advice`)."""

    unmerged: Callable[[str], bool] | None = None
    """Whether git's index holds a path unmerged (:meth:`kistore.store.Store.unmerged`):
    set on the work tree's view by the store, for what a message advises."""

    last_holding: Callable[[str, Digest], str | None] | None = None
    """The last commit holding an object's bytes where HEAD holds others
    (:meth:`kistore.store.Store.last_holding`): set on the work tree's view by the store,
    for what a message advises (reviewer fresh95 F4)."""

    head_read: Callable[[str], bytes | None] | None = None
    """HEAD's bytes at a path (:meth:`kistore.store.Store.head_read`): set on the work
    tree's view by the store, for what a message about a metadata file advises
    (:meth:`metadata_restorable`)."""

    name_back: Callable[[str, str, Digest], str | None] | None = None
    """How to put back ``KIND/NAME`` in the metadata of the digest its names file holds,
    renamed by hand (:meth:`kistore.store.Store.name_back`): set on the work tree's view
    by the store, for what KI212's message advises (break97 M3)."""

    def restore_advice(self, path: str, digest: Digest) -> str:
        """Return how to restore ``path`` of ``digest``.

        :func:`kistore.core.restore.restore_advice`: at a commit, and for a work-tree file
        HEAD holds, ``git checkout``; for one only a plain add wrote, ``kistore drop``; both
        when HEAD cannot be asked; for one a merge left unmerged, the ways that work on it;
        for an object file whose bytes are another digest's, missing at its own path, ``mv``
        back (:func:`kistore.core.restore.renamed_advice`, reviewer r90 F7).
        """
        # Lazy: advice is only for a damaged or missing file (a fresh `rank` gives none)
        from ..core.restore import renamed_advice, restore_advice

        if self.scope != "work":
            return restore_advice(path, digest, True)
        holds = self._renamed_from(path, digest)
        if holds is not None:
            return renamed_advice(path, holds)
        moved = self.find_renamed(digest) if path == layout.object_path(digest) else None
        if moved is not None:  # its own file missing, its bytes under another name
            over = layout.digest_from_path(moved)  # a stored object's file, written over?
            return renamed_advice(moved, digest, over if over is not None and self.read(
                layout.metadata_path(over)) is not None else None)
        in_head = self.head_has(path) if self.head_has else None
        holder = self.last_holding(path, digest) if in_head and self.last_holding and \
            path == layout.object_path(digest) else None
        sound = self.metadata_restorable(digest) if in_head and \
            path == layout.metadata_path(digest) else None
        return restore_advice(path, digest, in_head, holder=holder,
                              unmerged=bool(self.unmerged and self.unmerged(path)),
                              head_sound=sound)

    def metadata_restorable(self, digest: Digest) -> bool | None:
        """Return whether ``git checkout HEAD`` would repair ``digest``'s metadata file here.

        Asked by messages about a metadata file that does not parse (reviewer break96 H3
        and L1: ``cat`` offered ``kistore add --update-metadata`` beside the checkout for a
        committed object's file broken in the work tree, and ``add`` judges that against
        HEAD's file, refusing the template ``cat --manifest`` prints of a broken file).
        Two reads (the work tree's file, HEAD's), on error paths only.

        Returns:
            True when HEAD holds other bytes there that parse as a metadata object holding
            a name (the checkout restores them); False when HEAD holds the same bytes, or
            others that do not parse (the checkout restores nothing sound: the metadata
            is written again); None when HEAD holds no such file or cannot be asked (not
            this view's to say: the work tree only).
        """
        committed = self.head_read(layout.metadata_path(digest)) if self.head_read else None
        if committed is None:
            return None
        try:
            here = self.read(layout.metadata_path(digest))
        except FileTooLarge:  # past the bound, unread: not HEAD's bytes
            here = None
        return committed != here and _names_itself(committed)

    def find_renamed(self, digest: Digest) -> str | None:
        """Return the object file holding ``digest``'s bytes under another name, if any.

        Asked when ``digest``'s own object file is missing and a message must say what to
        do (``show``, a names file pointing at it): a file renamed by hand (``mv`` into any
        shard, reviewer r90b F4; to ``NAME.json.bak``, any leaf name, r91 F5) is put back
        with ``mv``, not restored from git nor re-indexed. An object file with no metadata
        file beside it can be one; those are read and hashed, once a view (the first ask
        lists every shard: O(store) listings, on an error path only). A rename over another
        stored object's file (r91 F5) leaves a file with metadata beside it: those are
        hashed in ``digest``'s own shard only (once a shard a view, 1/256 of the store), so
        such a rename into another shard is not found (hashing every object: O(store)
        reads, which an error message does not pay).

        Args:
            digest: the manifest whose object file is missing at its own path.

        Returns:
            The repository path of the file whose bytes hash to ``digest``; None when the
            object file is at its path, none is found, or a file cannot be read.
        """
        try:
            if self.read(layout.object_path(digest)) is not None:
                return None
            if self._unpaired is None:  # once a view: a query may ask of many digests
                self._unpaired = {}
                for shard in sorted(self.list_dir(layout.OBJECTS_DIR)):
                    paired = set(self.list_dir(f"{layout.METADATA_DIR}/{shard}"))
                    for leaf in sorted(self.list_dir(f"{layout.OBJECTS_DIR}/{shard}")):
                        path = f"{layout.OBJECTS_DIR}/{shard}/{leaf}"
                        found = None if leaf in paired else self._sha256_within(path)
                        if found is not None:
                            self._unpaired.setdefault(found, path)
            if digest not in self._unpaired and digest.hex[:2] not in self._shards_hashed:
                self._shards_hashed |= {digest.hex[:2]}
                shard = f"{layout.OBJECTS_DIR}/{digest.hex[:2]}"
                for leaf in sorted(self.list_dir(shard)):  # renamed over another object
                    path = f"{shard}/{leaf}"
                    found = self._sha256_within(path) if layout.digest_from_path(path) \
                        else None
                    if found is not None and layout.object_path(found) != path:
                        self._unpaired.setdefault(found, path)
            return self._unpaired.get(digest)
        except (KistoreError, OSError):
            return None

    _unpaired: dict[Digest, str] | None = None
    """:meth:`find_renamed`'s object files with no metadata file, by the digest of their
    bytes (read once a view, on the first ask), and those of a hashed shard held under
    another digest's name."""

    _shards_hashed: frozenset[str] = frozenset()
    """The shards (2 hex digits) whose every object file :meth:`find_renamed` hashed."""

    def sha256_of(self, path: str, data: bytes | None = None) -> Digest | None:
        """Return the SHA-256 of the file at ``path``, hashed once a view.

        ``kistore migrate`` hashes every object file (:func:`kistore.store.migrate.plan_runs`)
        and then asks :meth:`find_renamed` of each dangling reference, which hashes the
        files of its shard: those answers are this cache's, not a second read and hash
        of the store.

        Args:
            path: a repository path.
            data: its bytes, when the caller has read them (not read again).

        Returns:
            The digest of its bytes; None when no regular file is there.

        Raises:
            FileTooLarge, ObjectUnreadable: as :meth:`read` raises.
        """
        hashes = self._hashes
        if hashes is None:
            hashes = self._hashes = {}
        found = hashes.get(path)
        if found is None:
            if data is None:
                data = self.read(path)
            if data is None:
                return None
            found = hashes[path] = Digest.of(data)
        return found

    def _sha256_within(self, path: str) -> Digest | None:
        """:meth:`sha256_of`, None for a file past the limit (one stray file ends no search)."""
        try:
            return self.sha256_of(path)
        except FileTooLarge:
            return None

    _hashes: dict[str, Digest] | None = None
    """:meth:`sha256_of`'s answers (repository path -> the digest of its bytes)."""

    def _renamed_from(self, path: str, digest: Digest) -> Digest | None:
        """Return the digest an object file's bytes hash to when it is another's, missing.

        Args:
            path: a stored file's path (anything but ``digest``'s object path: None).
            digest: the manifest it belongs to.

        Returns:
            The digest of the file's bytes when it is not ``digest``, no object file is at
            that digest's own path and its metadata file is there: the file was renamed by
            hand. None otherwise (a tampered file: its bytes are no stored manifest's), or
            when a file cannot be read.
        """
        if path != layout.object_path(digest):
            return None
        try:
            holds = self.sha256_of(path)
            if holds is None or holds == digest or self.read(layout.object_path(holds)) \
                    is not None or self.read(layout.metadata_path(holds)) is None:
                return None  # a tampered file's bytes are no manifest the store holds
        except (KistoreError, OSError):
            return None
        return holds

    scope = ""
    name_index: NameIndex | None = None

    def read(self, path: str, limit: int | None = None) -> bytes | None:
        """Return the bytes of the regular file at a repository path, never past a bound.

        The one read of a stored file: every read is held to ``limit``, or with none to
        :data:`~kistore.core.limits.FILE_BYTES` (16 MiB, the ceiling of ``manifest-bytes``),
        before a byte of the file is read (a work tree's ``fstat``, a blob's header); the
        views implement :meth:`_read`, which is always given the bound.

        Args:
            path: a repository path (POSIX, from the top of the work tree).
            limit: most bytes to return; None: :data:`~kistore.core.limits.FILE_BYTES`.

        Returns:
            The file's bytes; None when there is no regular file there (absent, a
            directory, a symlink -- never followed -- a submodule, a FIFO or device).

        Raises:
            FileTooLarge: the file holds more than the bound; nothing past ``bound + 1``
                bytes was read (a blob past it was not inflated). With no ``limit`` asked,
                its message says what to do (:meth:`too_large_fix`); with one, the bare
                problem, which the caller reports (``verify``'s KI106).
        """
        return self._within(path, limit, self._read)

    def _within(self, path: str, limit: int | None,
                read: Callable[[str, int, str], _T]) -> _T:
        """Return ``read(path, bound, key)``: the bound of :meth:`read` set, its error advised."""
        bound, key = (FILE_BYTES, CEILING_KEY) if limit is None else (limit, "manifest-bytes")
        try:
            return read(path, bound, key)
        except FileTooLarge as e:
            if limit is not None:
                raise
            raise e.advised(self.too_large_fix(path)) from None

    def _read(self, path: str, limit: int, key: str) -> bytes | None:
        """:meth:`read` of ``path`` held to ``limit`` bytes (``key``: what the limit is).

        Raises:
            FileTooLarge: the file holds more than ``limit`` bytes, its bare problem.
        """
        raise NotImplementedError

    def too_large_fix(self, path: str) -> str:
        """Return what to do about a file at ``path`` past :data:`~kistore.core.limits.FILE_BYTES`.

        Said without reading anything more (a caller may catch the error and go on).
        """
        raise NotImplementedError

    def read_within(self, path: str) -> bytes | None:
        """Return :meth:`read` of ``path``; None for a file past the limit too (unread).

        For a reader walking every object (the notes' annotated blobs, each subject's
        object) to which a file too large to be stored is none of its business: ``verify``
        says it (KI106). A stray 1 GB file at an object path was read whole and hashed by
        ``verify``'s attestation check (69 s, 2 GB: fresh03 H3).
        """
        try:
            return self.read(path)
        except FileTooLarge:
            return None

    def read_mode(self, path: str, limit: int | None = None) -> tuple[bytes | None, int]:
        """Return :meth:`read` of ``path`` and the git mode of the file read (0: none read).

        Here the mode :meth:`modes_of` gives; :class:`WorkTreeView` takes it from the
        same ``fstat`` as the read (``0o100755`` when the owner may execute the file).

        Raises:
            FileTooLarge: as :meth:`read`.
        """
        data = self.read(path, limit)
        return data, 0 if data is None else self.modes_of([path]).get(path, 0)

    def holds(self, path: str, data: bytes, limit: int | None = None) -> bool:
        """Return True when the regular file at ``path`` holds exactly ``data``.

        :meth:`read` and compare; :class:`CommitView` compares blob ids instead, when it
        knows the path's (git's blob id names the bytes, so equal ids are equal bytes).

        Raises:
            FileTooLarge: as :meth:`read`.
        """
        return self.read(path, limit) == data

    def files(self, limit: int = DEFAULT.manifest_bytes, *, also: Iterable[str] = ()) -> Files:
        """List every file under ``store/`` with its git mode (:class:`Files`).

        Args:
            limit: the most bytes :meth:`Files.read` returns (``[limits] manifest-bytes``).
            also: more blob ids (40 hex) the caller reads next (``kistore.toml``, note
                blobs): a commit of a partial clone fetches them with its listing's, in
                one ``git fetch``; a work tree's files are on disk and it fetches nothing.
        """
        raise NotImplementedError

    def files_of(self, paths: Iterable[str], limit: int = DEFAULT.manifest_bytes) -> Files:
        """Return the files at ``paths`` that exist, with their git modes (not every file).

        What the pull-request gate reads: the paths a range changes and the few more each
        rule looks up, never a listing of the whole store. Costs one lookup per path (in a
        commit, one tree object per directory level, each loaded once per view).

        Args:
            paths: repository paths; those with no file (or a directory) are left out.
            limit: the most bytes :meth:`Files.read` returns.
        """
        return Files(self, self.modes_of(paths), limit, complete=False)

    def modes_of(self, paths: Iterable[str]) -> dict[str, int]:
        """Map each of ``paths`` that holds a file (any mode but a directory) to its git mode.

        Modes as :meth:`files` gives them (a work tree's files are ``0o100644``, a FIFO
        :data:`SPECIAL_FILE`).
        """
        raise NotImplementedError

    def reopen(self) -> None:
        """Reopen what cannot cross a fork (a worker process calls this first)."""

    def prefetch(self, paths: Iterable[str]) -> int:
        """Make the files at ``paths`` cheap to read next: nothing to do but in a partial clone.

        A commit of a partial clone (``git clone --filter=blob:none``) fetches the blobs
        it lacks among them in one ``git fetch`` (:meth:`CommitView.prefetch`), instead
        of one per file as each is read.

        Returns:
            How many blobs were fetched.
        """
        return 0

    def blob_ids(self, paths: Iterable[str]) -> list[str]:
        """Return the git blob ids of the regular files at ``paths`` that a read takes from git.

        What :meth:`prefetch` fetches, for a caller gathering a partial clone's fetches
        into one git fetch with blobs of no path (note blobs). Empty for a work tree (its
        files are on disk); a commit's paths with no regular file are skipped.
        """
        return []

    def list_dir(self, path: str) -> list[str]:
        """Return the entry names in a directory (empty when it does not exist)."""
        raise NotImplementedError

    def blob_id(self, path: str) -> str | None:
        """Return the git blob id of the regular file at ``path`` when known without a read.

        A commit's files listed by :meth:`files` (or looked up by :meth:`modes_of`) know
        theirs: files of equal bytes share one, so a caller reading many (``verify``'s group
        files, one blob per comparison group) reads each blob once. None: not known (a work
        tree, a path not listed).
        """
        return None

    def shard_keys(self) -> dict[str, str]:
        """Map each shard directory (``objects/XX``, ``metadata/XX``) to its change key.

        What :class:`kistore.index.names.Source` asks of a view: the index's names re-read
        a shard whose key changed.
        """
        raise NotImplementedError

    def file_keys(self, shard_dir: str) -> dict[str, str]:
        """Map each file name in a shard directory (``objects/XX``) to its change key."""
        raise NotImplementedError

    def listing_key(self, shard_dir: str) -> str | None:
        """Return the listing key of a racy shard directory; a commit's keys are never racy.

        What :class:`kistore.index.names.Source` asks of a work-tree view
        (:meth:`WorkTreeView.listing_key`); here None: nothing is trusted by a listing.
        """
        return None

    def read_file(self, shard_dir: str, leaf: str) -> bytes | None:
        """Return the bytes of ``store/<objects|metadata>/sha256/<XX>/<leaf>`` (None: absent)."""
        top, _, shard = shard_dir.partition("/")
        return self.read(f"{layout.STORE_DIR}/{top}/sha256/{shard}/{leaf}")

    def has_object(self, digest: Digest) -> bool:
        """Return True when the object file for ``digest`` exists (its bytes unchecked).

        One past the limit of a read is there (refused unread: :class:`FileTooLarge`).
        """
        try:
            return self.read(layout.object_path(digest)) is not None
        except FileTooLarge:
            return True

    def digests(self) -> Iterator[Digest]:
        """Yield the digest named by every object file, in sorted order (bytes unchecked)."""
        for shard in sorted(self.list_dir(layout.OBJECTS_DIR)):
            for leaf in sorted(self.list_dir(f"{layout.OBJECTS_DIR}/{shard}")):
                digest = layout.digest_from_path(f"{layout.OBJECTS_DIR}/{shard}/{leaf}")
                if digest is not None:
                    yield digest

    def object_bytes(self, digest: Digest) -> bytes:
        """Return an object's stored bytes after checking their SHA-256 equals ``digest``.

        Raises:
            ResolutionError: when no object file exists for ``digest``.
            VerificationError: when the file's SHA-256 is not ``digest`` (corruption), or
                it is there but no regular file (:meth:`_no_file`).
        """
        path = layout.object_path(digest)
        data = self.read(path)
        if data is None:
            raise self._no_file(path, digest, f"no object {digest} in the store")
        found = Digest.of(data)
        if found != digest:
            raise VerificationError(
                f"the object file is corrupt: its sha256 is {str(found)[:19]}..., not the "
                f"digest in its name; {self.restore_advice(path, digest)}, and run "
                "`kistore verify` to find any other damaged file",
                file=path,
            )
        return data

    def _no_file(self, path: str, digest: Digest, absent: str) -> KistoreError:
        """Return the error for a file of ``digest``'s that read as no regular file.

        A FIFO, symbolic link or directory there is said as such, with its KI111 (KI110) and
        the fix, as ``compare`` and ``rank`` say it (fresh17 F10: ``show`` of a run whose
        metadata file is a FIFO said it "has no metadata file").

        Args:
            path: the object or metadata file's repository path.
            digest: the manifest's digest.
            absent: what to say when nothing is there.

        Returns:
            A :class:`ResolutionError` saying ``absent`` when nothing is there; else a
            :class:`VerificationError`, e.g. ``the metadata file is a FIFO, socket or
            device, not a regular file (`kistore verify`: KI111); HEAD holds it as kistore
            wrote it: restore it with `git checkout HEAD -- PATH`, and run `kistore verify`
            to find any other damaged file``. Both located at ``path``.
        """
        # Lazy: the index's words of a file kind, on this error path only.
        from ..index.catalog import not_regular

        kind = not_regular(self, path)
        if kind is None:
            return ResolutionError(absent, file=path)
        role = "object" if path == layout.object_path(digest) else "metadata"
        return VerificationError(f"the {role} file {kind}; {self.damage_fix(path, digest)}",
                                 file=path)

    def damage_fix(self, path: str, digest: Digest) -> str:
        """Return what to do about ``digest``'s file at ``path``, damaged in this view.

        Returns:
            In the work tree, :meth:`restore_advice` and ``run `kistore verify` to find any
            other damaged file``; at a commit, that the commit holds it so.
        """
        if self.scope == "work":
            return (f"{self.restore_advice(path, digest)}, and run `kistore verify` to find "
                    "any other damaged file")
        return "this commit holds it so: run `kistore verify --at REV` on it, or ask another"

    def manifest(self, digest: Digest, *, schema: bool = True) -> Manifest:
        """Return the stored manifest (object re-hashed, metadata attached).

        Args:
            digest: the manifest's digest.
            schema: check it against its kind's schema; False where the derived index
                holds a record of ``digest`` (its build checked the same object bytes):
                see :meth:`kistore.core.model.Manifest.from_bytes`.

        Raises:
            ResolutionError: no such object, or no metadata file for it.
            VerificationError: the object's bytes do not hash to ``digest``; or its object
                or metadata file is there but no regular file (:meth:`_no_file`).
            ParseError, MultipleErrors: stored bytes that no longer parse or validate.
        """
        path = layout.metadata_path(digest)
        # the object and metadata files: one fetch in a partial clone, not one each
        self.prefetch((layout.object_path(digest), path))
        data = self.object_bytes(digest)
        metadata = self.read(path)
        if metadata is None:
            raise self._no_file(path, digest, f"object {digest} has no metadata file")
        try:
            return Manifest.from_bytes(data, metadata, file=layout.object_path(digest),
                                       schema=schema)
        except KistoreError as error:
            # errors are located in the object file: name the metadata file if it is bad
            restore = self.restore_advice(path, digest) if self.scope == "work" \
                else "restore it"
            try:
                canonical.loads(metadata, file=path)
            except KistoreError as e:
                raise VerificationError(f"the metadata file does not parse ({e.message}); "
                                        f"{restore}", file=path, line=e.line,
                                        column=e.column, pointer=e.pointer) from None
            problems = error.problems
            inside = [in_metadata_file(p.pointer) for p in problems]
            if any(i is None for i in inside):
                raise
            # every problem is a value of the metadata file (F14: the object was blamed)
            said: list[KistoreError] = [VerificationError(
                f"the metadata file does not match its schema ({p.message}); it changed after "
                f"kistore wrote it, the object is not at fault: {restore}", file=path,
                pointer=i) for p, i in zip(problems, inside, strict=True)]
            raise (said[0] if len(said) == 1 else MultipleErrors(said)) from None

    def names(self, kinds: Sequence[str] = KINDS) -> dict[tuple[str, str], Digest]:
        """Map ``(kind, metadata.name)`` to digest for every stored manifest of ``kinds``.

        With the index's names: brings them up to date (re-reading only changed shards) and
        answers from them. Without: reads every object and metadata file, O(store).
        Unreadable files are skipped (``kistore verify`` reports them). When two manifests
        share a name, the larger digest is given.
        """
        def ask(index: NameIndex) -> dict[tuple[str, str], Digest]:
            return index.trusted(self, lambda: index.names(self.scope, kinds))

        return self._from_index(ask, lambda: self._scan_names(kinds))

    def name_owners(self, keys: Sequence[tuple[str, str]]) -> dict[tuple[str, str], Digest]:
        """Return the stored digest for each ``(kind, name)`` in ``keys`` that is taken.

        Costs O(changed shards + len(keys)) with the index's names, O(store) without.
        """
        def ask(index: NameIndex) -> dict[tuple[str, str], Digest]:
            return index.trusted(self, lambda: index.owners(self.scope, keys))

        def scan() -> dict[tuple[str, str], Digest]:
            names = self._scan_names(sorted({k for k, _ in keys}))
            return {key: names[key] for key in keys if key in names}

        return self._from_index(ask, scan)

    def stored_owners(self, owners: dict[tuple[str, str], Digest],
                      ignore: Collection[str] = ()) -> dict[tuple[str, str], Digest]:
        """Return ``owners`` (of :meth:`name_owners`) with each owner's object file confirmed.

        A name the index's names give to a digest no object file holds (the index and the
        work tree disagree: fresh15 F6, names of an add a ``git stash -u`` took away) is
        not taken on the index's word: that digest's row and its shards' rows are dropped
        (:meth:`kistore.index.names.NameIndex.forget`), and the name is looked up again
        from a sync that lists those shards. One ``stat`` an owner asked about.

        Args:
            owners: ``(kind, name) -> digest`` as :meth:`name_owners` answered.
            ignore: digests (64 hex) not to confirm (the caller's own manifests: an
                unchanged one owns its name).

        Returns:
            ``owners``, with each name whose owner has no object file looked up again
            (absent when free now).

        Raises:
            Nothing of the index's: a names table that cannot be written is scanned around
            (:meth:`_from_index`).
        """
        gone = {key: owner for key, owner in owners.items()
                if owner.hex not in ignore and not self.has_object(owner)}
        index = self.name_index
        if not gone or index is None:
            return owners
        try:
            for owner in set(gone.values()):
                index.forget(self.scope, owner)
        except sqlite3.Error as e:
            index.damaged(e)
        again = self.name_owners(list(gone))
        return {**{k: v for k, v in owners.items() if k not in gone}, **again}

    def find_name(self, kind: str, name: str) -> Digest | None:
        """Return the digest named ``KIND/NAME``, or None; a miss costs what a hit costs.

        As :meth:`name_owners` for one name: O(changed shards), the names re-reading the
        shard directories that changed (an add, a removal, a rename, an editor that saves
        by renaming). A metadata file rewritten in place in a directory that did not change
        is seen once ``kistore reindex`` has read every file
        (:meth:`kistore.index.names.NameIndex.rebuild`); the CLI says so on a miss. A miss
        used to compare every file's stat key instead: O(store) stats, ~1 s at 20,000
        manifests (docs/speed.md).
        """
        return self.name_owners([(kind, name)]).get((kind, name))

    def names_files_of(self, kind: str, digest: Digest) -> list[str]:
        """Return the names files of ``kind`` that hold ``digest``, every one read, sorted.

        For a manifest whose name its metadata cannot say (an add killed before it wrote
        the file, a file cut short: ``drop``, ``cat --manifest``): O(names of the kind),
        on those rare paths only.

        Args:
            kind: a kind (``BenchmarkRun``).
            digest: the manifest.

        Returns:
            Their repository paths (``store/names/KIND/XX/NAME``: the name is the last
            part); empty when none holds it, or the view keeps no names files.
        """
        return self.names_records(kind).get(digest, [])

    def names_records(self, kind: str) -> dict[Digest, list[str]]:
        """Return every names file of ``kind`` by the digest it holds, each list sorted.

        O(names of the kind), every one read: for whole-store commands (``migrate``) and
        the rare paths of :meth:`names_files_of`.

        Args:
            kind: a kind (``BenchmarkRun``).

        Returns:
            digest -> the repository paths of the names files holding it; a file holding
            no digest, or too large to be one, is left out (KI212's). Empty when the view
            keeps no names files.
        """
        top = f"{layout.NAMES_DIR}/{kind}"
        found: dict[Digest, list[str]] = {}
        for shard in self.list_dir(top):
            for leaf in self.list_dir(f"{top}/{shard}"):
                path = f"{top}/{shard}/{leaf}"
                try:
                    data = self.read(path, _RECORD_LIMIT)
                except FileTooLarge:  # no names file: KI212's, not this answer's
                    continue
                held = layout.digest_from_record(data or b"")
                if held is not None:
                    found.setdefault(held, []).append(path)
        return {d: sorted(paths) for d, paths in found.items()}

    def has_names_files(self) -> bool:
        """Return True when the view keeps names as paths: ``store/names/`` holds a kind.

        A store migrated (``kistore migrate``) or made since names were paths does; one
        whose manifests predate them has no ``store/names/``, and a ``KIND/NAME`` is then
        looked up through the index's names (:meth:`find_name`). One directory listing.
        """
        return bool(self.list_dir(layout.NAMES_DIR))

    def named(self, kind: str, name: str, *, nameless: bool = False) -> Digest | None:
        """Return the digest the names file of ``KIND/NAME`` holds, checked against its owner.

        Reads one names file (``store/names/KIND/XX/NAME``), then the owner's metadata and
        object: never a listing, never the index. Use where :meth:`has_names_files` is True.
        The owner's name is read from its metadata leniently (:func:`kistore.core.model.
        metadata_name`, as the index's names read it); a metadata file that does not parse
        strictly (a duplicate ``name`` key, whose last value the lenient read gives) is no
        word against the names file: its owner is answered, and reading the manifest then
        says what is broken, as it does for its digest (``cat --manifest KIND/NAME``
        failed here, fixk95; break97 M6: a second ``name`` was taken for the owner's name
        and the names file called untrusted).

        Args:
            kind: a kind (``BenchmarkRun``).
            name: the ``metadata.name`` asked for.
            nameless: also answer an owner of ``kind`` whose metadata file is missing or
                holds no name (cut short, empty): the names file is then the only word on
                its name, and a command that reads the intact object (``cat``, whose
                ``--manifest`` names it so) takes it (reviewer fixk95: ``cat --manifest
                KIND/NAME`` of such a run failed here). A metadata file naming another
                name still disagrees.

        Returns:
            The owner's digest; None when there is no such names file (or ``name`` cannot
            be one: no manifest can hold it).

        Raises:
            ResolutionError: the owner's metadata or object file is missing or does not
                parse (damaged files: the query layer names which, from the index).
            NamesFileDisagrees: the names file is not ``sha256:<64 hex>\\n``, or names a
                manifest of another kind or another name (``verify``: KI212). It is never
                trusted silently.
        """
        try:
            path = layout.name_path(kind, name)
        except ValueError:
            return None
        self.prefetch((path,))  # a partial clone: a `git fetch`, without a `git cat-file` too
        try:
            data = self.read(path, _RECORD_LIMIT)
        except FileTooLarge as e:
            raise NamesFileDisagrees(path, f"holds {e.size or 'more than 80'} bytes") from None
        if data is None:
            return None
        owner = layout.digest_from_record(data)
        if owner is None:
            raise NamesFileDisagrees(path, f"holds {data[:80]!r}, not exactly "
                                     "sha256:<64 lowercase hex> and a newline")
        # the owner's two files: one fetch in a partial clone, not one each
        self.prefetch((layout.metadata_path(owner), layout.object_path(owner)))
        stored_name = self._metadata_name(owner, lenient=True)
        try:
            stored_kind = canonical.loads(self.read(layout.object_path(owner)) or b"")["kind"]
        except (KistoreError, KeyError, TypeError):
            stored_kind = None
        if nameless and stored_name is None and stored_kind == kind:
            return owner  # its metadata says no name: the names file's word is the one
        if stored_name is None or stored_kind is None:
            # the owner's files are damaged or missing: not the names file's fault; a git
            # object that cannot be read is said as it is (its id, `git fsck`: r72) ...
            for file in (layout.metadata_path(owner), layout.object_path(owner)):
                with contextlib.suppress(FileTooLarge):  # (no file inflated past 0 bytes)
                    self.read(file, 0)
            # ... else the caller's fallback (the index) names the damaged file and the fix
            raise ResolutionError(
                f"{kind}/{name}: its names file names {owner}, whose "
                f"{'metadata' if stored_name is None else 'object'} file is missing or "
                "unreadable; run `kistore verify`" + (
                    f"; `kistore cat {owner}` prints its object, `kistore cat --manifest "
                    f"{owner}` its manifest with the last committed metadata that parses "
                    "(fresh95 F9)"
                    + (f", `kistore cat --metadata {owner}` the metadata file as stored"
                       if stored_name is None else "")
                    if stored_kind is not None else ""), file=path)
        if stored_kind == kind and stored_name != name and self._metadata_name(owner) is None:
            # a metadata file that does not parse (a duplicate `name`: the lenient read took
            # the last) says no name the store can trust; the names file's word stands, and
            # reading the manifest calls the file broken, as by digest (break97 M6)
            return owner
        if (stored_kind, stored_name) != (kind, name):
            back = self.name_back(kind, name, owner) if self.name_back is not None and \
                stored_kind == kind else None  # its metadata renamed: the way back
            raise NamesFileDisagrees(path, f"names {owner}, which is "
                                     f"{stored_kind}/{stored_name}, not {kind}/{name}", back)
        return owner

    def shared_names(self, keys: Sequence[tuple[str, str]] | None = None, *,
                     sync: bool = True) -> dict[tuple[str, str], list[Digest]]:
        """Return the ``(kind, name)`` keys that two or more stored manifests hold, with each.

        A ``metadata.name`` is unique per kind (``kistore verify``: KI205); a metadata file
        edited in place, or manifests placed by hand, can break that, and ``KIND/NAME`` then
        names two manifests. Costs what :meth:`find_name` costs per key (O(changed shards)
        with the index's names, O(store) without); ``keys=None`` asks about every name, one
        pass over the names' SQL index. In the work tree each holder's metadata file is
        read to confirm it (the names trust stat data): a holder whose file no longer says
        the name is dropped, and the names read it again at their next sync.

        Args:
            keys: the ``(kind, name)`` pairs asked about; None: every name.
            sync: bring the names up to date first (~5-10 ms: a stat of every shard
                directory); False when the caller has just done so.

        Returns:
            ``(kind, name) -> digests`` (sorted, two or more) for each shared key; empty
            when every name asked about is unique.
        """
        def ask(index: NameIndex) -> dict[tuple[str, str], list[Digest]]:
            found = index.trusted(self, lambda: index.shared(self.scope, keys), sync=sync)
            if self.scope != "work":  # a commit's names are keyed by blob ids: exact
                return found
            confirmed = {}
            for (kind, name), digests in found.items():
                holding = [d for d in digests if self._metadata_name(d) == name]
                for gone in set(digests) - set(holding):
                    index.forget(self.scope, gone)
                if len(holding) > 1:
                    confirmed[(kind, name)] = holding
            return confirmed

        def scan() -> dict[tuple[str, str], list[Digest]]:
            if keys is not None and not keys:  # nothing asked: read no file
                return {}
            kinds = KINDS if keys is None else sorted({kind for kind, _ in keys})
            holders: dict[tuple[str, str], list[Digest]] = {}
            for key, digest in self._scan_holders(kinds):
                holders.setdefault(key, []).append(digest)
            asked = None if keys is None else set(keys)
            return {key: sorted(d) for key, d in holders.items()
                    if len(d) > 1 and (asked is None or key in asked)}

        return self._from_index(ask, scan)

    def _from_index(self, ask: Callable[[NameIndex], _T], scan: Callable[[], _T]) -> _T:
        """Answer with ``ask(names of the index)``, or ``scan()`` when they cannot be used.

        They cannot when the index file cannot be opened (a read-only clone) or any SQLite
        error arises; a file SQLite finds damaged is also started again
        (:meth:`kistore.index.names.NameIndex.damaged`): never trusted.
        """
        index = self.name_index
        if index is None or not index.usable():
            self.name_index = None
            return scan()
        try:
            return ask(index)
        except sqlite3.Error as e:
            index.damaged(e)
            return scan()

    def _metadata_name(self, digest: Digest, *, lenient: bool = False) -> str | None:
        """Return the name the metadata file of ``digest`` holds now (None: unreadable).

        ``lenient``: parsed as :func:`kistore.core.model.metadata_name` parses (a duplicate
        key, a non-canonical spelling pass); else canonical JSON only.
        """
        try:
            data = self.read(layout.metadata_path(digest))
            if lenient:
                return metadata_name(data)
            name = canonical.loads(data or b"")["name"]
        except (KistoreError, KeyError, TypeError):
            return None
        return name if isinstance(name, str) else None

    def _scan_names(self, kinds: Sequence[str]) -> dict[tuple[str, str], Digest]:
        return dict(self._scan_holders(kinds))

    def _scan_holders(self, kinds: Sequence[str]) -> Iterator[tuple[tuple[str, str], Digest]]:
        """Yield ``((kind, name), digest)`` of every readable manifest of ``kinds``, O(store)."""
        wanted = set(kinds)
        for digest in self.digests():
            try:
                kind = canonical.loads(self.read(layout.object_path(digest)) or b"")["kind"]
                if kind not in wanted:
                    continue
                meta = canonical.loads(self.read(layout.metadata_path(digest)) or b"")
                name = meta["name"]
            except (KistoreError, KeyError, TypeError):
                continue
            if isinstance(kind, str) and isinstance(name, str):
                yield (kind, name), digest


_READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC

class WorkTreeView(View):
    """The store as files in the work tree.

    Args:
        root: the work tree.
        name_index: the names of the index (None: names are found by reading every file).
        linked: where the view records each symlinked directory its reads left out
            (:attr:`linked`); None: a set of its own. The views of one
            :class:`kistore.store.Store` share the store's (:meth:`Store.linked_dirs`).

    Attributes:
        linked: the repository paths of the directories of the work tree that are symbolic
            links and that this view's reads met and left out (:meth:`linked_dir`), for the
            caller to warn of; never read through.
    """

    scope = "work"

    def __init__(self, root: Path, name_index: NameIndex | None = None, *,
                 linked: set[str] | None = None,
                 listings: dict[str, list[str]] | None = None) -> None:
        self.root = root
        self.name_index = name_index
        self.linked: set[str] = set() if linked is None else linked
        # list_dir's answers, shared by every view of one add's checks (Store._add): a
        # group directory the add makes was listed by its plan, KI232 and KI234 (issue 22)
        self.listings = listings
        # joined as str: building a Path per file cost more than reading it
        self._prefix = os.path.join(os.fspath(root), "")
        self._directories: dict[str, str | None] = {}  # linked_dir's answers
        self._modes: dict[str, int] = {}  # and the lstat modes of the names it looked at

    def files(self, limit: int = DEFAULT.manifest_bytes, *, also: Iterable[str] = ()) -> Files:
        """List the work tree's files under ``store/`` (see :meth:`View.files`).

        Symlinks get git's mode ``0o120000`` and are never followed; a directory holding
        ``.git`` is a submodule (``0o160000``) and is not descended into; a FIFO, socket or
        device is :data:`SPECIAL_FILE`; every other file is ``0o100644`` (the executable bit
        is not read: a stat per file cost four times the rest of the walk).
        """
        modes: dict[str, int] = {}
        top = self.root / layout.STORE_DIR
        if top.is_symlink():
            modes[layout.STORE_DIR] = 0o120000
        elif top.is_dir():
            _walk(os.fspath(top), layout.STORE_DIR, modes)
        elif top.exists():
            modes[layout.STORE_DIR] = 0o100644
        return Files(self, modes, limit)

    def modes_of(self, paths: Iterable[str]) -> dict[str, int]:  # noqa: D102 - on View
        modes = {}
        for path in paths:
            try:
                mode = os.lstat(self._prefix + path).st_mode
            except (FileNotFoundError, NotADirectoryError):
                continue
            if stat.S_ISLNK(mode):
                modes[path] = 0o120000
            elif stat.S_ISDIR(mode):
                if os.path.exists(os.path.join(self._prefix + path, ".git")):
                    modes[path] = 0o160000
            else:
                modes[path] = 0o100644 if stat.S_ISREG(mode) else SPECIAL_FILE
        return modes

    def has_object(self, digest: Digest) -> bool:  # noqa: D102 - a stat, not a read
        return os.path.isfile(os.path.join(self.root, layout.object_path(digest)))

    def shard_keys(self) -> dict[str, str]:
        """Map each shard directory to its ``st_mtime_ns`` (see :mod:`kistore.index.names`).

        A directory changed within :data:`kistore.index.freshness.RACY_NS` of the look gets
        a key marked :data:`kistore.index.freshness.RECENT`, never trusted by itself: its
        mtime may not yet reflect a write made in the same clock tick (git's "racy clean"
        problem), so the names trust it only by its listing (:meth:`listing_key`). The look
        is :func:`kistore.index.freshness.shard_dirs` (inside ``one_scan``, the one the
        work-tree comparison judges too).
        """
        now, entries = freshness.shard_dirs(os.fspath(self.root))
        keys = {}
        for rel, is_dir, mtime in entries:
            # a name outside the layout (not UTF-8, "tmp"): no manifest; KI110
            if is_dir:
                top = "objects" if rel.startswith(layout.OBJECTS_DIR) else "metadata"
                keys[f"{top}/{rel[-2:]}"] = (
                    f"{mtime}{freshness.RECENT}" if freshness.is_racy(mtime, now) else str(mtime))
        return keys

    def listing_key(self, shard_dir: str) -> str | None:
        """Return the :func:`kistore.index.freshness.listing_key` of a shard directory.

        Its names, inode numbers, and each entry's ctime and size: what a
        racy directory of the names is trusted by (:mod:`kistore.index.names`). None when
        it cannot be listed or has a symbolic link on its way (:meth:`linked_dir`).
        """
        top, _, shard = shard_dir.partition("/")
        rel = f"{layout.STORE_DIR}/{top}/sha256/{shard}"
        if self.linked_dir(rel) is not None:
            return None
        entries = freshness.listing(os.fspath(self.root), rel)
        return None if entries is None else freshness.listing_key(os.fspath(self.root), rel,
                                                                  entries)

    def file_keys(self, shard_dir: str) -> dict[str, str]:
        """Map each file in a shard to its :func:`kistore.index.freshness.stat_key`.

        A shard with a symbolic link on its way (:meth:`linked_dir`) has no files.
        """
        top, _, shard = shard_dir.partition("/")
        if self.linked_dir(f"{layout.STORE_DIR}/{top}/sha256/{shard}") is not None:
            return {}
        base = self.root / layout.STORE_DIR / top / "sha256" / shard
        keys = {}
        with contextlib.suppress(FileNotFoundError, NotADirectoryError):
            for entry in os.scandir(base):
                if entry.is_file(follow_symlinks=False) and layout.is_leaf_name(entry.name):
                    keys[entry.name] = freshness.stat_key(entry.stat())
        return keys

    def _read(self, path: str, limit: int, key: str) -> bytes | None:  # noqa: D102
        return self._read_mode(path, limit, key)[0]

    def too_large_fix(self, path: str) -> str:
        """Return what to do about a work-tree file past the bound: restore HEAD's, or remove it."""
        return (f"kistore writes no file this large (`kistore verify` reports KI106): restore "
                f"the file HEAD holds with `git checkout HEAD -- {path}`, or remove it if "
                "HEAD holds none")

    def read_mode(self, path: str, limit: int | None = None) -> tuple[bytes | None, int]:
        """Return :meth:`read` of ``path`` and the git mode of the file read, from one fstat.

        The mode is what ``git add`` would stage: ``0o100755`` when the owner may execute
        the file, else ``0o100644``; 0 when no regular file was read. Bounded as
        :meth:`read` (with no ``limit``, :data:`WORK_TREE_BYTES`), by the same ``fstat``.

        Raises:
            FileTooLarge: as :meth:`read`.
        """
        return self._within(path, limit, self._read_mode)

    def _read_mode(self, path: str, limit: int, key: str) -> tuple[bytes | None, int]:
        """:meth:`read_mode` held to ``limit`` bytes by the file's ``fstat`` (bare error)."""
        # Only a regular file is a stored file: a symlink (to /dev/zero: a query ran out of
        # memory) or a FIFO (a query hung) put in its place reads as no file (breaker8);
        # `verify` reports them (KI111). os.open/os.read: a third of the cost of open().
        # O_NOFOLLOW covers the last name only: a symlinked directory on the way (a
        # committed `store/metadata/sha256/6b -> /elsewhere`) is refused here (r70 F2).
        directory = path.rpartition("/")[0]
        if directory and self.linked_dir(directory) is not None:
            return None, 0
        try:
            fd = os.open(self._prefix + path, _READ_FLAGS)
        except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
            return None, 0
        except OSError as e:
            if e.errno == errno.ELOOP:  # a symlink (O_NOFOLLOW)
                return None, 0
            raise
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):  # a directory, a FIFO, a device
                return None, 0
            mode = 0o100755 if info.st_mode & stat.S_IXUSR else 0o100644
            if info.st_size > limit:
                raise FileTooLarge(path, limit, info.st_size, key)
            # one read of the whole file; more only if it grew since the stat
            most = min(info.st_size + 1, limit + 1)
            parts = [os.read(fd, most)]
            total = len(parts[0])
            while total == most and total <= limit:
                part = os.read(fd, min(_BIG_READ_SIZE, limit + 1 - total))
                if not part:
                    break
                parts.append(part)
                total += len(part)
                most = total
            if total > limit:
                raise FileTooLarge(path, limit, key=key)
            return parts[0] if len(parts) == 1 else b"".join(parts), mode
        finally:
            os.close(fd)

    def list_dir(self, path: str) -> list[str]:  # noqa: D102
        kept = self.listings
        if kept is not None and path in kept:  # listed already in this add's checks
            return list(kept[path])
        if self.linked_dir(path) is not None:  # never list what a symlink points to
            names = []
        else:
            try:
                names = os.listdir(self._prefix + path)
            except (FileNotFoundError, NotADirectoryError):
                names = []
        if kept is not None:
            kept[path] = names
            return list(names)
        return names

    def linked_dir(self, directory: str) -> str | None:
        """Return the first directory on the way to ``directory`` that is not a directory.

        One ``lstat`` per directory for the view's life (cached;
        :func:`kistore.git.realdirs.first_not_dir`): a symbolic link there (or a file, a
        FIFO) is never read through or listed, as ``add`` never writes through one
        (:func:`kistore.git.writer.refuse_links`); ``kistore verify`` reports it
        (KI110/KI111). Each symbolic link found is recorded in :attr:`linked`, for the
        caller's warning.

        Args:
            directory: a directory's repository path (``store/metadata/sha256/6b``).

        Returns:
            The repository path of that directory or the first of its parents that is a
            symbolic link or not a directory; None when each one is a directory or absent.
        """
        try:
            return self._directories[directory]
        except KeyError:
            pass
        found = first_not_dir(self._prefix, directory, self._modes)
        if found is None:
            answer = None
        elif found[1] == ABSENT:
            return None  # nothing to read there (not kept: an add makes it)
        else:  # a link, or a file (KI110): no read gets past it
            answer = found[0]
            if stat.S_ISLNK(found[1]):
                self.linked.add(answer)
        self._directories[directory] = answer
        return answer


class SparseWorkTreeView(WorkTreeView):
    """The work tree of a sparse checkout: a file outside the checkout reads as the index's.

    git marks each path a sparse checkout leaves out *skip-worktree* and treats it as
    holding its index entry's bytes (:mod:`kistore.git.sparse`): ``HEAD``'s, unless a change
    there is staged. So does this view: a skipped path absent from the work tree reads,
    lists and is keyed as ``head`` holds it (a :class:`StagedView` when a change is staged
    outside the checkout; an object is still re-hashed when read); a file that is in the
    work tree, skipped or not, is read from there; a path inside the checkout that is absent
    is absent (deleted: ``verify``'s KI402).

    Args:
        root: the work tree.
        skipped: the skipped paths (:func:`kistore.git.sparse.skip_worktree`).
        head: returns the :class:`CommitView` of ``HEAD``, or the :class:`StagedView` of it
            and the changes staged outside the checkout (called once, on the first read
            outside the checkout; None when the branch has no commit yet).
        name_index, linked: as :class:`WorkTreeView`.
    """

    def __init__(self, root: Path, skipped: SkipWorktree, head: Callable[[], View | None],
                 name_index: NameIndex | None = None, *, linked: set[str] | None = None
                 ) -> None:
        super().__init__(root, name_index, linked=linked)
        self.skipped = skipped
        self._load_head = head
        self._head: list[View | None] = []

    def head(self) -> View | None:
        """Return ``HEAD``'s view (None: no commit), loaded once."""
        if not self._head:
            self._head.append(self._load_head())
        return self._head[0]

    def _outside(self, path: str) -> bool:
        """Return True when ``path`` is skipped and absent from the work tree (no symlink)."""
        return path in self.skipped and not os.path.lexists(self._prefix + path)

    def files(self, limit: int = DEFAULT.manifest_bytes, *, also: Iterable[str] = ()) -> Files:
        """List the work tree's files, and ``HEAD``'s skipped files absent from it."""
        modes = super().files(limit, also=also).modes
        head = self.head()
        if head is not None:
            for path, mode in head.files(limit).modes.items():
                if path not in modes and path in self.skipped:
                    modes[path] = mode
        return Files(self, modes, limit)

    def modes_of(self, paths: Iterable[str]) -> dict[str, int]:  # noqa: D102 - on View
        paths = list(paths)
        modes = super().modes_of(paths)
        outside = [p for p in paths if p not in modes and self._outside(p)]
        head = self.head() if outside else None
        if head is not None:
            modes.update(head.modes_of(outside))
        return modes

    def has_object(self, digest: Digest) -> bool:  # noqa: D102 - on View
        if super().has_object(digest):
            return True
        head = self.head() if self._outside(layout.object_path(digest)) else None
        return head is not None and head.has_object(digest)

    def _read(self, path: str, limit: int, key: str) -> bytes | None:  # noqa: D102
        data = super()._read(path, limit, key)
        if data is None and self._outside(path):
            head = self.head()
            return None if head is None else head._read(path, limit, key)
        return data

    def prefetch(self, paths: Iterable[str]) -> int:
        """Fetch, in one ``git fetch``, the blobs a partial clone lacks outside the checkout.

        The paths among ``paths`` that are skipped and absent from the work tree read as
        ``HEAD`` (or the index, where a change is staged) holds them: their blobs are
        fetched together (:meth:`CommitView.prefetch`; a staged path gives the index's blob
        id), so a caller about to read many of them (the names of the index, after a ``git
        reset --soft`` in a blob-less sparse clone) starts one fetch, not one per file.

        Returns:
            How many blobs were fetched (0: none missing, nothing outside, or no partial
            clone).

        Raises:
            StoreStateError: a partial clone whose remote cannot give the blobs.
        """
        head = self.head()
        if not isinstance(head, CommitView) or not is_partial_clone(head.repo):
            return 0  # every blob is here: no path need be looked at
        return head.prefetch(self._outside_paths(paths))

    def blob_ids(self, paths: Iterable[str]) -> list[str]:
        """Return the blob ids of the paths outside the checkout (what :meth:`prefetch` fetches).

        The files inside the checkout are on disk: none of theirs.
        """
        outside = self._outside_paths(paths)
        head = self.head() if outside else None
        return [] if head is None else head.blob_ids(outside)

    def _outside_paths(self, paths: Iterable[str]) -> list[str]:
        """Return the paths among ``paths`` that read from ``HEAD`` (:meth:`_outside`)."""
        return [p for p in paths if self._outside(p)]

    def reopen(self) -> None:
        """Reopen ``HEAD``'s view in a worker process (its handles do not cross a fork)."""
        if self._head:
            if self._head[0] is not None:
                self._head[0].reopen()
            return
        load = self._load_head

        def fresh() -> View | None:  # loaded later, from the parent's handle: reopen it then
            head = load()
            if head is not None:
                head.reopen()
            return head

        self._load_head = fresh

    def list_dir(self, path: str) -> list[str]:  # noqa: D102
        names = super().list_dir(path)
        if self.skipped.dir_skipped(path):
            wanted = None  # every entry HEAD has here is outside the checkout
        else:
            wanted = self.skipped.names_in(path)
            if not wanted:
                return names
        head = self.head()
        if head is None:
            return names
        have = set(names)
        return names + [n for n in head.list_dir(path)
                        if n not in have and (wanted is None or n in wanted)]

    def shard_keys(self) -> dict[str, str]:
        """Work-tree keys; a shard with skipped files is keyed by ``HEAD``'s tree id too."""
        keys = super().shard_keys()
        head = self.head()
        if head is None:
            return keys
        for shard, tree_id in head.shard_keys().items():
            top, _, name = shard.partition("/")
            directory = f"{layout.STORE_DIR}/{top}/sha256/{name}"
            if self.skipped.dir_skipped(directory) or self.skipped.names_in(directory):
                keys[shard] = f"{keys.get(shard, '-')}|{tree_id}|{self.skipped.stamp(directory)}"
        return keys

    def file_keys(self, shard_dir: str) -> dict[str, str]:
        """Work-tree files' stat keys; a skipped file absent from the work tree: its blob id."""
        keys = super().file_keys(shard_dir)
        head = self.head()
        if head is None:
            return keys
        top, _, name = shard_dir.partition("/")
        directory = f"{layout.STORE_DIR}/{top}/sha256/{name}"
        for leaf, blob in head.file_keys(shard_dir).items():
            if leaf not in keys and f"{directory}/{leaf}" in self.skipped:
                keys[leaf] = f"blob:{blob}"
        return keys


_BIG_READ_SIZE = 1 << 20


def _walk(directory: str, prefix: str, modes: dict[str, int]) -> None:
    """Add every file below ``directory`` (repository path ``prefix``) to ``modes``."""
    with os.scandir(directory) as it:
        for entry in it:
            path = f"{prefix}/{entry.name}"
            if entry.is_symlink():
                modes[path] = 0o120000
            elif entry.is_dir():
                if os.path.exists(os.path.join(entry.path, ".git")):
                    modes[path] = 0o160000
                else:
                    _walk(entry.path, path, modes)
            elif entry.is_file():  # the directory entry's type: no stat
                modes[path] = 0o100644
            else:
                modes[path] = SPECIAL_FILE


_WHOLE_KEPT = 500_000
"""Blob ids :meth:`CommitView.holds` remembers as here and whole (or not) before it starts
again (~100 bytes each)."""


@functools.cache
def _packed_blob() -> Callable[[pygit2.Repository, bytes, int | None], bytes | int | None]:
    """Return :func:`kistore.git.packs.packed_blob`, imported on the first commit's read.

    Not at this module's import: a fresh `rank` of the work tree reads no blob (issue 22);
    not in :meth:`CommitView.read` either, where an import statement ran for every blob.
    """
    # Lazy: a commit's blobs only
    from ..git.packs import packed_blob

    return packed_blob


class CommitView(View):
    """The store as of one commit (no work tree needed: works in a bare repository)."""

    scope = "commit"

    def __init__(self, repo: pygit2.Repository, commit: pygit2.Commit,
                 name_index: NameIndex | None = None) -> None:
        self.repo = repo
        self.commit = commit
        loose_checked(repo, commit.tree_id)  # libgit2 loops on a cut loose tree (review F3)
        self.tree = commit.tree
        self.name_index = name_index
        self._trees: dict[str, pygit2.Tree | None] = {}
        self._listings: dict[str, list[str]] = {}  # directory -> its names, by list_dir()
        self._ids: dict[str, bytes | pygit2.Oid] = {}  # regular file -> blob id, by files()
        self._whole: dict[bytes, bool] = {}  # blob id -> here and whole, by holds()

    def files(self, limit: int = DEFAULT.manifest_bytes, *, also: Iterable[str] = ()) -> Files:
        """List the commit's files under ``store/`` (see :meth:`View.files`), from git objects.

        Every file: the difference from the empty tree, read from raw tree objects (a
        pygit2 entry object per file cost 3x more). Their blob ids are kept, so that
        :meth:`read` needs no lookup of the path.

        Whoever lists every file reads every file (``verify``, the gate over a whole tree):
        in a partial clone (``git clone --filter=blob:none``) the blobs it lacks are
        fetched here, in one ``git fetch`` (:func:`kistore.git.blobs.fetch_blobs`), not one
        ``git cat-file`` and fetch per file as each is read (172 manifests: 516 fetches).

        Raises:
            StoreStateError: a partial clone whose remote cannot give the blobs.
        """
        modes = self._listed()
        fetch_blobs(self.repo, [*(oid.hex() if isinstance(oid, bytes) else str(oid)  # raw ids
                                  for oid in self._ids.values()), *also])  # partial clone
        return Files(self, modes, limit)

    def _listed(self) -> dict[str, int]:
        """Return every file's mode under ``store/`` (:meth:`files`), keeping blob ids.

        Fetches nothing: :meth:`files` fetches the blobs of the ids kept, once.
        """
        modes: dict[str, int] = {}
        try:
            store = self.tree[layout.STORE_DIR]
        except KeyError:
            store = None
        if store is not None and store.type_str == "tree":
            modes, ids = treediff.files_below(self.repo, store.id, layout.STORE_DIR + "/")
            self._ids.update(ids)
        elif store is not None:  # store itself is a file, symlink or submodule
            modes[layout.STORE_DIR] = store.filemode
        return modes

    def modes_of(self, paths: Iterable[str]) -> dict[str, int]:  # noqa: D102 - on View
        modes: dict[str, int] = {}
        for path in paths:
            entry = self._entry(path)
            if entry is None or entry.type == pygit2.GIT_OBJECT_TREE:
                continue
            modes[path] = int(entry.filemode)
            if entry.filemode in REGULAR_MODES:
                self._ids[path] = entry.id
        return modes

    def prefetch(self, paths: Iterable[str]) -> int:
        """Fetch the blobs a partial clone lacks among the regular files at ``paths``, in one.

        One ``git fetch`` (:func:`kistore.git.blobs.fetch_blobs`); nothing in a full clone
        or when every blob is here. Paths with no regular file are skipped.

        Raises:
            StoreStateError: a partial clone whose remote cannot give the blobs.
        """
        if not is_partial_clone(self.repo):
            return 0  # every blob is here: no path need be looked up
        return fetch_blobs(self.repo, self.blob_ids(paths))

    def blob_ids(self, paths: Iterable[str]) -> list[str]:  # noqa: D102 - on View
        ids = []
        for path in paths:
            oid = self._ids.get(path)
            if oid is None:
                entry = self._entry(path)
                if entry is None or entry.type != pygit2.GIT_OBJECT_BLOB or \
                        entry.filemode not in REGULAR_MODES:
                    continue
                oid = self._ids[path] = entry.id
            ids.append(oid.hex() if isinstance(oid, bytes) else str(oid))
        return ids

    def reopen(self) -> None:
        """Open the repository again (libgit2's handles do not cross a fork)."""
        # Lazy: only a forked worker reopens (no answer of a fresh process does)
        from ..git.quarantine import admit_quarantine

        self.repo = open_repository(self.repo.path)
        admit_quarantine(self.repo)
        self.commit = self.repo[self.commit.id].peel(pygit2.Commit)
        self.tree = self.commit.tree
        self._trees = {}
        self.name_index = None  # a SQLite connection must not cross a fork either

    def shard_keys(self) -> dict[str, str]:
        """Map each shard directory to its git tree id."""
        keys = {}
        for top in ("objects", "metadata"):
            entry = self._entry(f"{layout.STORE_DIR}/{top}/sha256")
            if entry is not None and entry.type == pygit2.GIT_OBJECT_TREE:
                loose_checked(self.repo, entry.id)  # libgit2 loops on a cut one (review F3)
                for e in self.repo[entry.id].peel(pygit2.Tree):
                    if e.type == pygit2.GIT_OBJECT_TREE:
                        keys[f"{top}/{e.name}"] = str(e.id)
        return keys

    def file_keys(self, shard_dir: str) -> dict[str, str]:
        """Map each file in a shard directory to its git blob id."""
        top, _, shard = shard_dir.partition("/")
        entry = self._entry(f"{layout.STORE_DIR}/{top}/sha256/{shard}")
        if entry is None or entry.type != pygit2.GIT_OBJECT_TREE:
            return {}
        loose_checked(self.repo, entry.id)  # libgit2 loops on a cut loose tree (review F3)
        return {str(e.name): str(e.id) for e in self.repo[entry.id].peel(pygit2.Tree)
                if e.type == pygit2.GIT_OBJECT_BLOB}

    def _entry(self, path: str) -> pygit2.Object | None:
        parent, _, leaf = path.rpartition("/")
        tree = self._subtree(parent) if parent else self.tree
        if tree is None:
            return None
        try:
            return tree[leaf]
        except KeyError:
            return None

    def _subtree(self, path: str) -> pygit2.Tree | None:
        """Return the tree at ``path`` (None: absent or not a tree), loaded once per view.

        libgit2 looks a whole path up from the root, loading every tree on the way, each
        time; reading 20,000 objects that way spent ~0.2 ms a file on the lookup alone.
        """
        if path not in self._trees:
            entry = self._entry(path)  # a submodule's commit is no object of this repository
            is_tree = entry is not None and entry.type == pygit2.GIT_OBJECT_TREE
            # guarded: libgit2 loops on a cut loose tree (review F3); a missing one is damage
            tree = lookup(self.repo, entry.id, path) if is_tree and entry is not None else None
            self._trees[path] = tree if isinstance(tree, pygit2.Tree) else None
        return self._trees[path]

    def holds(self, path: str, data: bytes, limit: int | None = None) -> bool:
        """Return True when the regular file at ``path`` holds exactly ``data`` (no blob read).

        For a path :meth:`files` listed (a regular file, its blob id kept), the blob id of
        ``data`` is compared with the tree entry's: git's object id is the SHA-1 of the
        bytes, so equal ids are equal bytes, and a file holding any other bytes (a tampered
        names file) has another id. ``verify --at`` confirms 100,000 names files so without
        inflating one (a read was ~20-40 us each). Equal ids also need the object to be
        here and whole: a loose one is read (:func:`~kistore.git.blobs.loose_checked`: once
        a process; a ``stat`` failing at once when it is packed; a flipped bit in it,
        review F6), else the
        pack index is asked (no inflate: a deleted blob, review73 F14), and a packed one is
        whole when its pack's checksums hold (:func:`~kistore.git.packs.check_packs`, which
        ``verify --at`` runs first: a flipped byte in a pack, pack75); each failure is
        False, so the caller reads the file and reports the read's error (KI117). A partial clone
        lacks blobs by design: there the ids alone decide. Whether a blob is here and
        whole is looked at once a view (a group's files share one blob: at 100,000
        manifests 95,000 group files hold 15,000 blobs); a view is one reading of one
        commit, as :func:`~kistore.git.blobs.loose_checked` is one a process. Other paths
        are read (:meth:`View.holds`).

        Raises:
            FileTooLarge: as :meth:`read`, for a path read.
        """
        oid = self._ids.get(path)
        if oid is None:
            return super().holds(path, data, limit)
        if limit is not None and len(data) > limit:
            return False
        raw = oid if isinstance(oid, bytes) else oid.raw
        if blob_id(data) != raw:
            return False
        whole = self._whole.get(raw)
        if whole is None:  # once a blob: a group's files share one (95,000 files, 15,000 blobs)
            if len(self._whole) >= _WHOLE_KEPT:
                self._whole.clear()
            whole = self._whole[raw] = self._here_and_whole(raw, path)
        return whole

    def _here_and_whole(self, raw: bytes, path: str) -> bool:
        """Return True when blob ``raw`` (read for ``path``) is here and whole (:meth:`holds`)."""
        # Lazy: a commit's blobs only (a fresh `rank` of the work tree reads none: issue 22)
        from ..git.packs import in_mapped_pack

        if in_mapped_pack(self.repo, raw):  # in a pack whose checksums held, no loose file
            return True
        try:
            if loose_checked(self.repo, raw, path):
                return True
        except ObjectUnreadable:  # damaged: the caller's read says so
            return False
        # Lazy: a commit's blobs only (a fresh `rank` of the work tree reads none: issue 22)
        from ..git.packs import damaged_copy

        if damaged_copy(self.repo, raw) is not None:  # a pack check found it damaged
            return False
        return raw.hex() in self.repo.odb or is_partial_clone(self.repo)

    def too_large_fix(self, path: str) -> str:
        """Return what to do about a commit's file past the bound: committed past kistore."""
        return too_large_fix(str(self.commit.id))

    def _read(self, path: str, limit: int, key: str) -> bytes | None:  # noqa: D102
        listed = self._ids.get(path)
        oid = listed.hex() if isinstance(listed, bytes) else listed  # files(): raw ids
        if oid is None:
            entry = self._entry(path)
            if (entry is None or entry.type != pygit2.GIT_OBJECT_BLOB
                    or entry.filemode not in REGULAR_MODES):  # a symlink reads as no file
                return None
            oid = entry.id
        # verify --at, its packs checked: a packed blob read by hand (ver99), else libgit2
        data = _packed_blob()(self.repo, listed if isinstance(listed, bytes) else
                              oid.raw if isinstance(oid, pygit2.Oid) else bytes.fromhex(oid),
                              limit)
        if isinstance(data, int):
            raise FileTooLarge(path, limit, data, key)
        return data if data is not None else self._read_blob(path, oid, limit, key)

    def _read_blob(self, path: str, oid: str | pygit2.Oid, limit: int, key: str) -> bytes:
        """Return blob ``oid``'s bytes (read for ``path``), never inflating one past ``limit``.

        Raises:
            FileTooLarge: the blob holds more than ``limit`` bytes.
            ObjectUnreadable: the blob is damaged (``verify``: KI117), also when its packed
                bytes failed the pack check (:func:`~kistore.git.packs.damaged_copy`).
        """
        # Lazy: a commit's blobs only (a fresh `rank` of the work tree reads none: issue 22)
        from ..git.packs import damaged_copy, damaged_reason

        damage = damaged_copy(self.repo, oid)
        if damage is not None:
            raise ObjectUnreadable(str(oid), damaged_reason(damage), path)
        # one read: a loose blob inflated once (its length from its bytes), a packed one's
        # size from its header (~5 us: a 200 MB blob is never inflated); no Blob object; a
        # partial clone fetches it
        data = read_blob_within(self.repo, oid, limit, path)
        size = data if isinstance(data, int) else len(data)
        if size > limit:  # also a blob fetched just now: no header
            raise FileTooLarge(path, limit, size, key)
        assert isinstance(data, bytes)  # within the limit: the bytes
        return data

    def blob_id(self, path: str) -> str | None:  # noqa: D102 - on View
        oid = self._ids.get(path)  # files() keeps raw ids (bytes): str() of them is no id
        return None if oid is None else oid.hex() if isinstance(oid, bytes) else str(oid)

    def list_dir(self, path: str) -> list[str]:
        """List the names in the commit's directory ``path`` (see :meth:`View.list_dir`).

        The last :data:`_LISTINGS_KEPT` listings are kept: ``check``'s name-collision
        candidates list each directory above every changed path (82,552 listings for a
        commit of 5,000 manifests), and libgit2 caches no tree over 4 KiB, so each was a
        read, an inflate and a parse of the tree again.

        Raises:
            ObjectUnreadable: the tree is damaged or missing.
        """
        kept = self._listings.get(path)
        if kept is None:
            entry = self._entry(path)
            kept = []
            if entry is not None and entry.type == pygit2.GIT_OBJECT_TREE:
                tree = lookup(self.repo, entry.id, path)  # guarded: a cut loose tree (F3)
                assert isinstance(tree, pygit2.Tree)
                kept = [str(e.name) for e in tree]
            if len(self._listings) >= _LISTINGS_KEPT:
                del self._listings[next(iter(self._listings))]  # the oldest
            self._listings[path] = kept
        return list(kept)  # the caller's to change


_LISTINGS_KEPT = 1024
"""Most directory listings a :class:`CommitView` keeps (a store's shards: 512 and more)."""


class StagedView(CommitView):
    """``HEAD``'s tree with the changes staged to paths outside a sparse checkout.

    What git holds at a skip-worktree path is its index entry, not ``HEAD``'s; they differ
    while a change there is staged and not committed (``git cherry-pick -n``, ``git merge
    --no-commit``, ``git reset --soft``, ``git add --sparse``). This view answers as the
    :class:`CommitView` of ``HEAD`` except at the paths of
    :attr:`kistore.git.sparse.SkipWorktree.staged`, where it answers with the index's blob
    (or no file, where the index holds none). :class:`SparseWorkTreeView` reads the paths
    outside the checkout through it; with nothing staged it is not made (a plain
    :class:`CommitView` costs nothing more).

    Args:
        repo: the repository.
        commit: ``HEAD``.
        staged: repository path -> :data:`kistore.git.sparse.StagedEntry` (``(mode, blob
            id hex)``; None: no file there in the index).
        name_index: as :class:`CommitView`.
    """

    def __init__(self, repo: pygit2.Repository, commit: pygit2.Commit,
                 staged: dict[str, StagedEntry], name_index: NameIndex | None = None) -> None:
        super().__init__(repo, commit, name_index)
        self.staged = staged
        self._dirs: dict[str, set[str]] = {}  # directory -> names of staged files below it
        self._removals: set[str] = set()  # the directories with a staged removal below
        for path, entry in staged.items():
            parts = path.split("/")
            for depth in range(len(parts)):
                if entry is None:
                    self._removals.add("/".join(parts[:depth]))
                else:
                    self._dirs.setdefault("/".join(parts[:depth]), set()).add(parts[depth])

    def _listed(self) -> dict[str, int]:
        """List ``HEAD``'s files under ``store/`` with the staged changes applied.

        The staged blob ids replace ``HEAD``'s before :meth:`files` fetches them: in a
        partial clone the staged blobs come in the same one fetch as ``HEAD``'s (they were
        read one lazy fetch each), and ``HEAD``'s blobs of staged paths are not fetched.
        """
        modes = super()._listed()
        for path, entry in self.staged.items():
            if not path.startswith(f"{layout.STORE_DIR}/"):
                continue
            self._ids.pop(path, None)
            if entry is None:
                modes.pop(path, None)
            else:
                modes[path] = entry[0]
                if entry[0] in REGULAR_MODES:
                    self._ids[path] = bytes.fromhex(entry[1])
        return modes

    def modes_of(self, paths: Iterable[str]) -> dict[str, int]:  # noqa: D102 - on View
        paths = list(paths)
        modes = super().modes_of([p for p in paths if p not in self.staged])
        for path in paths:
            entry = self.staged.get(path, ())
            if entry is None:
                continue
            if entry:
                modes[path] = entry[0]
                if entry[0] in REGULAR_MODES:
                    self._ids[path] = bytes.fromhex(entry[1])
        return modes

    def blob_ids(self, paths: Iterable[str]) -> list[str]:
        """As :meth:`CommitView.blob_ids`; a staged path gives the index's blob id.

        What :meth:`CommitView.prefetch` fetches: a staged blob may be missing from a
        partial clone too (``git reset --soft`` back in a blob-less clone).
        """
        paths = list(paths)
        ids = super().blob_ids([p for p in paths if p not in self.staged])
        for path in paths:
            entry = self.staged.get(path)
            if entry is not None and entry[0] in REGULAR_MODES:
                ids.append(entry[1])
        return ids

    def holds(self, path: str, data: bytes, limit: int | None = None) -> bool:
        """As :meth:`CommitView.holds`, comparing with the staged blob at a staged path."""
        if path not in self.staged:
            return super().holds(path, data, limit)
        entry = self.staged[path]
        if entry is None or entry[0] not in REGULAR_MODES:
            return False
        if limit is not None and len(data) > limit:
            return False
        return blob_id(data).hex() == entry[1]

    def _read(self, path: str, limit: int, key: str) -> bytes | None:
        """As :meth:`CommitView._read`; a staged path reads the index's blob.

        Raises:
            FileTooLarge: as :meth:`View.read`.
        """
        if path not in self.staged:
            return super()._read(path, limit, key)
        entry = self.staged[path]
        if entry is None or entry[0] not in REGULAR_MODES:
            return None
        return self._read_blob(path, entry[1], limit, key)

    def blob_id(self, path: str) -> str | None:  # noqa: D102 - on View
        if path in self.staged:
            entry = self.staged[path]
            return None if entry is None or entry[0] not in REGULAR_MODES else entry[1]
        return super().blob_id(path)

    def list_dir(self, path: str) -> list[str]:
        """``HEAD``'s entries in ``path``, less the staged removals, with the staged additions.

        A directory of ``HEAD``'s whose every file's removal is staged, with nothing added
        below it, is not listed: the commit of the index has no such directory (git keeps
        no empty tree).
        """
        names = [n for n in super().list_dir(path)
                 if self.staged.get(f"{path}/{n}", ()) is not None
                 and not self._emptied(f"{path}/{n}")]
        added = self._dirs.get(path) if path else None  # the top: as CommitView, none
        if added:
            have = set(names)
            names += sorted(n for n in added if n not in have)
        return names

    def _emptied(self, directory: str) -> bool:
        """Return True when ``directory`` is a tree of ``HEAD``'s that the index empties.

        Every file below it (at any depth) has its removal staged and nothing is staged
        there. Only a directory with a staged removal below it is walked, and the walk
        stops at the first file kept.
        """
        if directory not in self._removals or directory in self._dirs:
            return False
        todo = [directory]
        while todo:
            here = todo.pop()
            tree = self._subtree(here)
            if tree is None:
                return False  # not a directory of HEAD's
            for entry in tree:
                below = f"{here}/{entry.name}"
                if entry.type == pygit2.GIT_OBJECT_TREE:
                    todo.append(below)
                elif self.staged.get(below, ()) is not None:
                    return False  # a file (or a submodule) the index keeps
        return True

    def shard_keys(self) -> dict[str, str]:
        """``HEAD``'s shard tree ids; a shard with a staged change is keyed by it too."""
        keys = super().shard_keys()
        for shard in {s for p in self.staged if (s := self._shard_of(p)) is not None}:
            top, _, name = shard.partition("/")
            directory = f"{layout.STORE_DIR}/{top}/sha256/{name}"
            below = sorted((p, e) for p, e in self.staged.items()
                           if p.startswith(f"{directory}/"))
            keys[shard] = f"{keys.get(shard, '-')}+staged:" + hashes.blake2b(
                repr(below).encode(), digest_size=8).hexdigest()
        return keys

    @staticmethod
    def _shard_of(path: str) -> str | None:
        """Return ``objects/XX`` or ``metadata/XX`` for a file in a shard, else None."""
        parts = path.split("/")
        if len(parts) == 5 and parts[0] == layout.STORE_DIR and parts[2] == "sha256" and \
                parts[1] in ("objects", "metadata"):
            return f"{parts[1]}/{parts[3]}"
        return None

    def file_keys(self, shard_dir: str) -> dict[str, str]:
        """``HEAD``'s blob ids of a shard's files, the staged ones' where a change is staged."""
        keys = super().file_keys(shard_dir)
        top, _, name = shard_dir.partition("/")
        for leaf, entry in self.staged_in(f"{layout.STORE_DIR}/{top}/sha256/{name}").items():
            if entry is None:
                keys.pop(leaf, None)
            else:
                keys[leaf] = entry[1]
        return keys

    def staged_in(self, directory: str) -> dict[str, StagedEntry]:
        """Return ``{name: entry}`` of the staged paths directly in ``directory``."""
        prefix = f"{directory}/"
        return {p[len(prefix):]: e for p, e in self.staged.items()
                if p.startswith(prefix) and "/" not in p[len(prefix):]}


def _names_itself(metadata: bytes) -> bool:
    """Return True when metadata bytes parse (strict JSON) as an object holding a name.

    What a metadata file ``git checkout`` would put back must be to repair one that does
    not parse (:meth:`View.metadata_restorable`). Raises nothing.
    """
    try:
        doc = canonical.loads(metadata)
    except KistoreError:
        return False
    return isinstance(doc, dict) and isinstance(doc.get("name"), str)
