"""Reading the manifests of a git tree for the index, each shard directory listed once.

An index build reads, re-hashes, strictly parses and validates every object and metadata
file of a tree (:func:`kistore.query.catalog.parse_document`). The files are located
through each shard directory's listing, loaded once (:class:`TreeFiles`), and read by blob
id. A manifest whose object file is there but does not read well is named with what is
wrong (:func:`kistore.query.catalog.problem`), for the index's ``skipped`` list.

A pool of worker processes for the parsing was tried (20,000 manifests, 2 CPUs shared with
other jobs): no faster than one process, so it was left out.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import TYPE_CHECKING

import orjson

from ..core import canonical, layout
from ..core.digest import Digest
from ..core.limits import DEFAULT, Limits, long_values, walk_bound
from ..core.model import Manifest
from ..git.blobs import blob_size, fetch_blobs, read_blob
from ..git.treediff import entry_at, shard_leaves, subtree
from .catalog import Loaded, parse_document, problem, too_large, too_long

if TYPE_CHECKING:  # pragma: no cover - typing only: pygit2 loads on first use
    import pygit2
from ._rows import stored_document

_CHUNK = 500

Job = tuple[Digest, "str | bytes | None", "str | bytes | None"]
"""``(digest, object file, metadata file)``: each the file's git blob id (hex), or its bytes
when the caller knows them (``known``), or None when the tree has no such file."""

Read = tuple[str, "Loaded | None", "bytes | None", "tuple[str, str] | None"]
"""``(digest string, parsed manifest or None, its stored document or None, why it was
skipped or None)``: see :func:`read_manifests`."""


class TreeFiles:
    """The files of one git tree by path, each directory's listing loaded once.

    libgit2 looks a whole path up from the root, loading every tree on the way, each time:
    reading 40,000 files of a 20,000-manifest tree that way took ~75% of an index build.

    A reader of a few files (a run page's group, :mod:`.groups`) passes ``few=True``: each
    file is then looked up in its directory's tree by libgit2 (a binary search; the tree
    of each directory loaded once), not listed into a dict. A shard directory holds
    ~3,900 files at 1,000,000 manifests, and listing the ~70 a page touches cost ~0.3-0.5
    s of Python, more than the rest of the page's own work.

    Args:
        repo: the pygit2 repository.
        tree: the pygit2 Tree.
        few: look single files up instead of listing their directories (:meth:`blob_id`;
            :meth:`listing` lists all the same).
    """

    def __init__(self, repo: pygit2.Repository, tree: pygit2.Tree, *, few: bool = False
                 ) -> None:
        self.repo = repo
        self.tree = tree
        self.few = few
        self._dirs: dict[str, dict[str, str]] = {}
        self._trees: dict[str, pygit2.Tree | None] = {}

    def blob_id(self, path: str) -> str | None:
        """Return the git blob id (hex) of the file at ``path``, or None when there is none."""
        parent, _, leaf = path.rpartition("/")
        listing = self._dirs.get(parent)
        if listing is None and self.few:
            return self._lookup(parent, leaf)
        return self.listing(parent).get(leaf)

    def listing(self, directory: str) -> dict[str, str]:
        """Return ``{file name: blob id (hex)}`` of a directory's files (loaded once).

        Empty when there is no such directory; subdirectories are left out.
        """
        listing = self._dirs.get(directory)
        if listing is None:
            listing = self._dirs[directory] = self._listing(directory)
        return listing

    def is_dir(self, path: str) -> bool:
        """Return True when ``path`` is a directory of the tree (one lookup, no blob read)."""
        entry = entry_at(self.repo, self.tree, path)  # guarded: the trees on the way
        return entry is not None and entry.type_str == "tree"

    def _lookup(self, directory: str, name: str) -> str | None:
        """Return the blob id of ``name`` in ``directory`` by libgit2's search of its tree."""
        if directory not in self._trees:
            self._trees[directory] = self._subtree(directory)
        tree = self._trees[directory]
        if tree is None:
            return None
        try:
            entry = tree[name]
        except KeyError:
            return None
        return str(entry.id) if entry.type_str == "blob" else None

    def _subtree(self, directory: str) -> pygit2.Tree | None:
        if not directory:
            return self.tree
        entry = entry_at(self.repo, self.tree, directory)  # guarded: the trees on the way
        if entry is None:
            return None
        return subtree(self.repo, entry.id) if entry.type_str == "tree" else None

    def _listing(self, directory: str) -> dict[str, str]:
        if not directory:  # the top of the tree (kistore.toml)
            return {str(e.name): str(e.id) for e in self.tree if e.type_str == "blob"}
        entry = entry_at(self.repo, self.tree, directory)  # guarded: the trees on the way
        if entry is None or entry.type_str != "tree":
            return {}
        return {str(e.name): str(e.id) for e in subtree(self.repo, entry.id)
                if e.type_str == "blob"}


def read_manifests(repo: pygit2.Repository, tree: pygit2.Tree, digests: list[Digest],
                   progress: Callable[[int], None] | None = None, *,
                   limits: Limits = DEFAULT,
                   known: Mapping[str, bytes] | None = None,
                   files: TreeFiles | None = None) -> Iterator[Read]:
    """Yield every manifest of ``digests`` as ``tree`` holds it, in ``digests`` order.

    Args:
        repo: the pygit2 repository.
        tree: the pygit2 Tree to read from.
        digests: the manifests to read.
        progress: called with the number of manifests read since the last call.
        limits: the store's ``[limits]``: a manifest with an object or metadata file past
            ``manifest-bytes`` is not read and is skipped (``kistore verify``: KI106); one
            holding a string, an array or an object past ``string-length``,
            ``array-length`` or ``object-members`` is skipped too (KI107; only a file too
            long for :func:`~kistore.core.limits.walk_bound` is walked: one length
            comparison a manifest).
        known: path -> the exact bytes ``tree`` holds at that path, when the caller knows
            them (``add --commit`` built the tree from them): those are not read from git,
            and nothing else changes (each is parsed and checked as a blob read).
        files: the :class:`TreeFiles` of ``tree`` when the caller has one (its directory
            listings are reused, not loaded again).

    In a partial clone (``git clone --filter=blob:none``) every blob of ``digests`` it
    lacks is fetched first, in one ``git fetch`` (:func:`kistore.git.blobs.fetch_blobs`),
    and then read once (git fetched each when it was read: a ``git cat-file``, a ``git
    fetch`` and a connection to the remote per blob, and the blob read twice).

    Raises:
        StoreStateError: a partial clone whose remote cannot give the blobs.

    Yields:
        ``(digest string, (kind, name, spec) or None, stored document or None, skipped)``:
        None where :func:`~.catalog.parse_document` (validating) refuses the files; the
        stored document is :func:`~.rows.stored_document`; ``skipped`` is ``(path,
        problem)`` (:func:`~.catalog.problem`) when the object file is in the tree but
        refused, else None (a manifest absent from the tree is not skipped, just gone).
    """
    files = files if files is not None else TreeFiles(repo, tree)
    given = known or {}

    def source(path: str) -> str | bytes | None:
        data = given.get(path)
        return data if data is not None else files.blob_id(path)

    jobs = [(d, source(layout.object_path(d)), source(layout.metadata_path(d))) for d in digests]
    # a partial clone: every blob it lacks, fetched in one `git fetch` (not one each)
    fetch_blobs(repo, (f for job in jobs for f in job[1:] if isinstance(f, str)))
    chunks = (jobs[i:i + _CHUNK] for i in range(0, len(jobs), _CHUNK))
    for chunk in chunks:
        yield from _read_chunk(repo, chunk, limits)
        if progress is not None:
            progress(len(chunk))


def oversized(repo: pygit2.Repository, tree: pygit2.Tree, limit: int) -> set[Digest]:
    """Return the manifests of a git tree with an object or metadata file past ``limit`` bytes.

    Reads each file's size from its blob's header (:func:`kistore.git.blobs.blob_size`),
    never its bytes: what an index whose ``[limits]`` were lowered reads again
    (:meth:`kistore.index.index.Index._relimit`): past a lowered ``manifest-bytes``, or
    long enough to hold a value past a lowered ``string-length``, ``array-length`` or
    ``object-members`` (:func:`~kistore.core.limits.walk_bound`). A blob a partial clone
    lacks counts as past the limit (reading it again fetches it, and finds out).

    Args:
        repo: the pygit2 repository.
        tree: the pygit2 Tree.
        limit: most bytes of a file not returned.

    Returns:
        The digests (each named by a file's path; bytes unchecked).
    """
    found: set[Digest] = set()
    for base in (layout.OBJECTS_DIR, layout.METADATA_DIR):
        for path, leaf in shard_leaves(repo, tree, base):
            if leaf.type_str != "blob":
                continue
            size = blob_size(repo, leaf.id, path)
            if size is None or size > limit:
                digest = layout.digest_from_path(path)
                if digest is not None:
                    found.add(digest)
    return found


def parse_known(files: Mapping[str, bytes], *, limits: Limits = DEFAULT
                ) -> dict[str, Read]:
    """Return :func:`read_manifests`' result for every manifest whose two files are in ``files``.

    Reads nothing: for ``add --commit``, which parses what it is about to commit while its
    work-tree files are being written (before its commit lands), so that only the rows are
    left to write once it has (:meth:`kistore.index.index.Index.advance`). The same
    parsing and checks as a manifest read from git; the result depends on the bytes alone.

    Args:
        files: path -> bytes (the add's files; paths outside the layout are ignored).
        limits: as :func:`read_manifests`.

    Returns:
        Digest string -> its ``Read``.
    """
    jobs: list[Job] = []
    for path in files:
        digest = layout.digest_from_path(path)
        if digest is not None and path.startswith(layout.OBJECTS_DIR):
            meta = files.get(layout.metadata_path(digest))
            if meta is not None:
                jobs.append((digest, files[path], meta))
    return {read[0]: read for read in _read_chunk(None, jobs, limits)}


def parse_validated(manifests: Iterable[Manifest], files: Mapping[str, bytes], *,
                    limits: Limits = DEFAULT) -> dict[str, Read]:
    """Return :func:`parse_known`'s ``Read`` of each manifest an add validated, unchecked again.

    A :class:`~kistore.core.model.Manifest` exists only validated: its two byte strings
    are the canonical (RFC 8785) bytes of a schema-valid document, and its digest their
    sha256 (:meth:`~kistore.core.model.Manifest.from_document`, ``from_bytes``, or
    ``from_parts`` of one validated in a worker process). So what :func:`parse_known`
    checks again (the hash, canonical form, the schema: ~60% of an index update of an
    add's files) holds for it, and its ``Read`` is the object document parsed and stored
    (:func:`~._rows.stored_document`): the same values, since orjson reads canonical
    bytes exactly as the strict parser does. Only a manifest whose files ``files`` holds
    with exactly its bytes, each too short to pass any of ``limits`` (a length comparison:
    within ``manifest-bytes`` and :func:`~kistore.core.limits.walk_bound`), is given; the
    others are left to :func:`parse_known` or to git (skipped there, with the reason, when
    past a limit).

    Args:
        manifests: what the add writes (each validated, as above).
        files: path -> bytes the add writes.
        limits: as :func:`read_manifests`.

    Returns:
        Digest string -> its ``Read``.
    """
    most = min(limits.manifest_bytes, walk_bound(limits))
    out: dict[str, Read] = {}
    for m in manifests:
        object_bytes, metadata_bytes = m.object_bytes, m.metadata_bytes
        if len(object_bytes) > most or len(metadata_bytes) > most:
            continue
        if files.get(layout.object_path(m.digest)) != object_bytes or \
                files.get(layout.metadata_path(m.digest)) != metadata_bytes:
            continue
        document = orjson.loads(object_bytes)  # canonical bytes: no strict parse (above)
        kind = document["kind"]
        digest = str(m.digest)
        out[digest] = (digest, (kind, m.name, document["spec"]),
                       stored_document(kind, document), None)
    return out


def _size(repo: pygit2.Repository | None, file: str | bytes, path: str
          ) -> tuple[int, str | bytes]:
    """Return the bytes of a :data:`Job` file: its length, or its blob's size from git.

    Blobs a partial clone (``--filter=blob:none``) lacks were fetched in one batch by
    :func:`read_manifests`; one still missing is fetched here (one ``git cat-file``,
    :func:`kistore.git.blobs.read_blob`) and its bytes given back, never read twice.

    Returns:
        ``(size in bytes, the file)``: ``file`` itself, or the bytes of a blob fetched here.

    Raises:
        StoreStateError: a partial clone whose remote cannot give the blob.
        ObjectUnreadable: the blob (read for repository path ``path``) is damaged.
    """
    if isinstance(file, bytes):
        return len(file), file
    assert repo is not None  # a blob id comes with its repository
    size = blob_size(repo, file, path)
    if size is not None:
        return size, file
    data = read_blob(repo, file, path)
    return len(data), data


def _bytes(repo: pygit2.Repository | None, file: str | bytes | None, path: str
           ) -> bytes | None:
    """Return a :data:`Job` file's bytes: as given, or its blob read from git.

    A blob a partial clone lacks was fetched before (:func:`read_manifests`, :func:`_size`).

    Raises:
        ObjectUnreadable: the blob (read for repository path ``path``) is damaged.
    """
    if file is None or isinstance(file, bytes):
        return file
    assert repo is not None  # a blob id comes with its repository
    return read_blob(repo, file, path)  # odb.read: ~40% less than repo[id].data per blob


def _read_chunk(repo: pygit2.Repository | None, jobs: list[Job],
                limits: Limits = DEFAULT) -> list[Read]:
    limit, bound = limits.manifest_bytes, walk_bound(limits)
    out: list[Read] = []
    for digest, object_file, metadata_file in jobs:
        sizes = []
        if object_file is not None:
            size, object_file = _size(repo, object_file, layout.object_path(digest))
            sizes.append((layout.object_path(digest), size))
        if metadata_file is not None:
            size, metadata_file = _size(repo, metadata_file, layout.metadata_path(digest))
            sizes.append((layout.metadata_path(digest), size))
        large = [(path, size) for path, size in sizes if size > limit]
        if large:  # a 200 MB manifest committed past the hooks: never read (ls took 5 s)
            path, size = large[0]
            out.append((str(digest), None, None, (path, too_large(size, limit))))
            continue
        data = _bytes(repo, object_file, layout.object_path(digest))
        meta = _bytes(repo, metadata_file, layout.metadata_path(digest))
        parsed = parse_document(digest, data, meta, validate=True)
        if parsed is not None:
            document, loaded = parsed
            # parsed: both files there. Rare: one long enough to hold a value past the limits
            if sizes[0][1] > bound or sizes[1][1] > bound:
                long = _long_value(sizes, (data, meta), limits)
                if long is not None:
                    out.append((str(digest), None, None, long))
                    continue
            out.append((str(digest), loaded, stored_document(loaded[0], document), None))
        elif data is not None:  # there, and refused: say why (rare, so checked again)
            path, why = problem(digest, data, meta)
            out.append((str(digest), None, None, (path, why) if path else
                        (layout.object_path(digest), "could not be read")))
        else:
            out.append((str(digest), None, None, None))
    return out


def _long_value(sizes: list[tuple[str, int]], files: tuple[bytes | None, bytes | None],
                limits: Limits) -> tuple[str, str] | None:
    """Return ``(path, problem)`` of the first value past the limits in a manifest's files.

    Only the files long enough to hold one are parsed and walked
    (:func:`~kistore.core.limits.long_values`); both were read and proven canonical.

    Args:
        sizes: ``(path, size)`` of the object file, then the metadata file.
        files: their bytes, in the same order.
        limits: the store's limits.

    Returns:
        The file and :func:`~.catalog.too_long` of its first such value (by JSON Pointer);
        None when every value is within the limits.
    """
    bound = walk_bound(limits)
    for (path, size), data in zip(sizes, files, strict=True):
        if size > bound and data is not None:
            found = long_values(canonical.loads(data, file=path), limits)
            if found:
                return path, too_long(found[0])
    return None
