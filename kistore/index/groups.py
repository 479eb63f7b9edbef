"""A catalog of a few comparison groups, read from their committed listings (issue 22).

A run page ranks its run within its comparison group. The full query index of a commit
(:mod:`.index`) knows every group, and its first build reads every manifest: in a
blob-less clone (``git clone --filter=blob:none``) that is one ``git fetch`` of the whole
store's blobs, a full clone's bytes, for one page. A commit that keeps each run's group
as a path (``store/groups/sha256/XX/<62 hex of K>/<64 hex of run>``,
:func:`kistore.core.layout.group_path`) lists a group's members in one tree read, so
:func:`open_group_catalog` reads only what the page needs:

1. the runs asked about (and any extra paths the caller will read, e.g. the policy);
2. the manifests they reference, which give their comparison keys (:mod:`.records`);
3. the members each key's directory lists;
4. the manifests those members reference.

Each step's missing blobs are fetched in one ``git fetch``
(:func:`kistore.git.blobs.fetch_blobs`): the references of a run are inside its bytes, so
four steps at most, whatever the group's size (a step with nothing missing starts no
process; the references of a run already here, as a page's is, come with step 1: three).
Every manifest is read, re-hashed, parsed and validated exactly as an index build reads
it (:func:`._build.read_manifests`) and described by the same
:func:`.catalog.describe_all`, so the rows are the index's rows of those manifests and the
ranking and page code answer from them unchanged (``show`` prints the page a full clone
prints, byte for byte: tests/query/test_group_page.py).

The catalog lives in memory and is never written: it holds a few groups, not the store,
and must never pass for the commit's index. What it cannot know: manifests outside its
groups (a listing by kind asks the full index), and damage elsewhere in the commit (its
:meth:`~.catalog.Catalog.skipped` names only what it read).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import orjson

from ..core import layout
from ..core.digest import Digest, is_digest
from ..core.layout import REFERENCE_FIELD_NAMES
from ..core.limits import Limits
from ..git.blobs import ObjectUnreadable, fetch_blobs, is_partial_clone, read_blob
from . import _database as database
from ._build import TreeFiles, read_manifests
from ._database import Damaged, get_meta, log
from .catalog import Loaded, MemoryCatalog, describe_all
from .index import store_limits
from .records import Record

if TYPE_CHECKING:  # pragma: no cover - typing only
    import pygit2

    from .interfaces import IndexedStore

MIGRATE_HINT = ("note: {rev} has no store/groups/ (a store from before comparison groups were "
                "committed as paths): the run page reads every manifest of it, in this "
                "blob-less clone one fetch of every blob; `kistore migrate --commit` in a "
                "full clone adds them")
"""The one line said when a blob-less clone's commit has no group listings (an old store)."""

MISSING_HINT = ("note: {path} is not in {rev}, though the run's comparison key is known: the "
                "group listing cannot be trusted, so the run page reads every manifest of "
                "it; `kistore verify --at {rev}` names what is missing")
"""The line said when the asked run's own group file is absent from a commit that has groups."""


class GroupCatalog(MemoryCatalog):
    """The records of some comparison groups and of the manifests their runs reference.

    Made by :func:`group_catalog`; answers :meth:`record` and :meth:`group` as the
    commit's index would for those groups. Nothing outside them is known: never a
    listing of the store.

    Args:
        records: digest string -> record, for every manifest read.
        skipped: digest string -> ``(path, problem)`` of each manifest read whose files
            did not read well (as the index's ``skipped`` lists them).
        keys: the comparison keys whose members were read.
        fetches: how many ``git fetch`` processes reading them started (0 in a full clone).
    """

    def __init__(self, records: dict[str, Record], skipped: dict[str, tuple[str, str]],
                 keys: Sequence[str] = (), fetches: int = 0) -> None:
        super().__init__(records, skipped)
        self.keys = tuple(keys)
        self.fetches = fetches


class NoListing(Exception):
    """A run's group cannot be read from the listings (``hint``: the line to say why)."""

    def __init__(self, hint: str) -> None:
        super().__init__(hint)
        self.hint = hint


def group_catalog(repo: pygit2.Repository, tree: pygit2.Tree, runs: Iterable[Digest], *,
                  limits: Limits | Callable[[], Limits], prefetch: Iterable[str] = (),
                  also: Callable[[], Iterable[str]] | None = None,
                  alongside: Callable[[Digest], Iterable[str]] | None = None,
                  rev: str = "the commit") -> GroupCatalog:
    """Read the comparison groups of ``runs`` from ``tree``'s listings (module docstring).

    Args:
        repo: the pygit2 repository (a partial clone fetches what it lacks).
        tree: the commit's pygit2 Tree.
        runs: the runs whose groups are wanted (any digest: one of another kind, or of
            no manifest, is read and left as it is, for the caller's error).
        limits: the store's ``[limits]``, as the index reads under them
            (:func:`._build.read_manifests`); or a function returning them, called after
            the first fetch (which holds ``kistore.toml`` when ``prefetch`` names it).
        prefetch: repository paths the caller reads next (the ranking policy,
            ``kistore.toml``): fetched with the runs, not one ``git cat-file`` each.
        also: returns more blob ids (40 hex) the caller reads next, whatever the group
            (note blobs, the trust file's versions): fetched with the runs too, and
            asked for only in a partial clone that fetches that step.
        alongside: returns the repository paths the caller reads next about one member
            (its attestation files): fetched with the members' manifests.
        rev: how to name the commit in a hint.

    Returns:
        The :class:`GroupCatalog` of the groups and everything their runs reference.

    Raises:
        NoListing: ``tree`` has no ``store/groups/``, or a run with a known comparison
            key is not listed in its group's directory.
        StoreStateError: a partial clone whose remote cannot give the blobs.
    """
    files = TreeFiles(repo, tree, few=True)
    asked = list(dict.fromkeys(runs))
    if not files.is_dir(layout.GROUPS_DIR):
        raise NoListing(MIGRATE_HINT.format(rev=rev))
    loaded: dict[str, Loaded | None] = {}
    skipped: dict[str, tuple[str, str]] = {}
    fetches = 0
    most: list[Limits] = []

    def read(digests: Iterable[Digest], extra: Iterable[str] = (),
             more: Iterable[str] = ()) -> None:
        nonlocal fetches
        todo = [d for d in dict.fromkeys(digests) if str(d) not in loaded]
        paths = [p for d in todo for p in (layout.object_path(d), layout.metadata_path(d))]
        ids = [i for p in (*paths, *extra) if (i := files.blob_id(p)) is not None]
        fetches += fetch_blobs(repo, [*ids, *more]) > 0  # one `git fetch` for the step, if any
        if not most:
            most.append(limits() if callable(limits) else limits)
        for digest, manifest, _, why in read_manifests(repo, tree, todo, limits=most[0],
                                                       files=files):
            loaded[digest] = manifest
            if why is not None:
                skipped[digest] = why

    # runs already here (a page's run, just read) say what they reference: fetched with
    # the first step, so a page's references need no fetch of their own
    here = _references_here(repo, files, asked)
    read(asked, [*prefetch, *(p for d in here for p in (layout.object_path(d),
                                                         layout.metadata_path(d)))],
         also() if also is not None and is_partial_clone(repo) else ())
    read(_references(loaded, asked))
    keys = _keys(loaded, asked)
    members: list[Digest] = []
    for run, key in keys:
        listed = files.listing(layout.group_dir(key))
        if run.hex not in listed:
            raise NoListing(MISSING_HINT.format(path=layout.group_path(key, run), rev=rev))
        members += [Digest(name) for name in sorted(listed) if _is_hex64(name)]
    read(members, [p for d in members for p in alongside(d)] if alongside is not None else ())
    read(_references(loaded, members))
    present = {d: m for d, m in loaded.items() if m is not None}
    records = describe_all(present, lambda digest: None)
    return GroupCatalog(records, skipped, [str(k) for _, k in keys], fetches)


def open_group_catalog(store: IndexedStore, at: str | None,
                       runs: Callable[[], Sequence[Digest]], *,
                       prefetch: Iterable[str] = (),
                       also: Callable[[], Iterable[str]] | None = None,
                       alongside: Callable[[Digest], Iterable[str]] | None = None
                       ) -> GroupCatalog | None:
    """Return the catalog of the runs' groups where reading the whole commit would fetch it.

    Only for a commit (``at``, or ``HEAD`` in a bare repository) of a partial clone
    (:func:`kistore.git.blobs.is_partial_clone`) whose query index is not already built
    for that commit's tree: there the full index would fetch every blob of the store. A
    full clone, the work tree, or an index already in step keep to :func:`.index.
    open_catalog` (None is returned). A commit without group listings (an old store) or
    with one missing for an asked run also gets None, after one line on stderr saying why
    and what to do (:data:`MIGRATE_HINT`, :data:`MISSING_HINT`).

    Args:
        store: a :class:`kistore.store.Store`.
        at: the revision asked, or None for the work tree.
        runs: returns the runs whose groups are wanted; called only once the listings
            are to be read (resolving a name reads its names file).
        prefetch: as :func:`group_catalog`.
        also: as :func:`group_catalog`.
        alongside: as :func:`group_catalog`.

    Raises:
        InputError: ``at`` names no commit.
        ResolutionError, InputError: as ``runs()`` raises them.
        StoreStateError: a partial clone whose remote cannot give the blobs.
    """
    tree = listings_tree(store, at)
    if tree is None:
        return None
    repo, rev = store.repo, at or "HEAD"
    if not TreeFiles(repo, tree).is_dir(layout.GROUPS_DIR):  # before resolving anything
        log.warning("%s", MIGRATE_HINT.format(rev=rev))
        return None
    try:
        return group_catalog(repo, tree, runs(), limits=lambda: store_limits(store, at),
                             prefetch=prefetch, also=also, alongside=alongside, rev=rev)
    except NoListing as e:
        log.warning("%s", e.hint)
        return None


def listings_tree(store: IndexedStore, at: str | None) -> pygit2.Tree | None:
    """Return the tree of ``at`` when it is read from its listings, not its query index.

    A commit (``at``, or ``HEAD`` in a bare repository) of a partial clone
    (:func:`kistore.git.blobs.is_partial_clone`) whose query index is not built for that
    commit's tree: building it would fetch every blob of the store, so an answer reads
    the committed listings (``store/groups/``, ``store/names/``) and fetches what they
    name. None otherwise: a full clone (found without pygit2), the work tree, or an
    index already in step.

    Args:
        store: a :class:`kistore.store.Store`.
        at: the revision asked, or None for the work tree.

    Raises:
        InputError: ``at`` names no commit.
    """
    if at is None and store.root is not None:
        return None  # the work tree: HEAD's index overlaid with its files
    if not _may_be_partial(store.git_dir):
        return None  # no pygit2 loaded: the common, full clone
    if not is_partial_clone(store.repo):
        return None
    tree = store.commit(at or "HEAD").tree
    return None if indexed(store.git_dir, str(tree.id)) else tree


def indexed(git_dir: Path, tree: str) -> bool:
    """Return True when the query index under ``git_dir`` describes exactly ``tree``.

    Never creates the index file: a clone never indexed has none, and stays without.

    Args:
        git_dir: the repository's git directory.
        tree: a tree id (hex).
    """
    path = database.index_path(git_dir)
    if not path.exists():
        return False
    try:
        return get_meta(database.connection(path), "tree") == tree
    except (OSError, sqlite3.Error, Damaged):
        return False


def _may_be_partial(git_dir: Path) -> bool:
    """Return False when ``git_dir``'s config cannot make a partial clone (no pygit2 loaded).

    git marks a partial clone with ``remote.<name>.promisor`` or ``extensions.partialClone``
    in the repository's own config; a config that names neither is a full clone. An
    unreadable config (a linked worktree keeps it elsewhere) is asked of libgit2.
    """
    try:
        text = (git_dir / "config").read_bytes().lower()
    except OSError:
        return True
    return b"promisor" in text or b"partialclone" in text


def _references(loaded: dict[str, Loaded | None], runs: Iterable[Digest]) -> list[Digest]:
    """Return the digests the loaded runs among ``runs`` reference, in field order."""
    out: list[Digest] = []
    for run in runs:
        manifest = loaded.get(str(run))
        if manifest is None or manifest[0] != "BenchmarkRun":
            continue
        spec = manifest[2]
        out += [Digest.from_str(value) for field in REFERENCE_FIELD_NAMES
                if isinstance(value := spec.get(field), str) and is_digest(value)]
    return out


def _references_here(repo: pygit2.Repository, files: TreeFiles, runs: Sequence[Digest]
                     ) -> list[Digest]:
    """Return what the runs whose object blob this clone holds reference (a hint only).

    Read without the checks of :func:`._build.read_manifests` (they come with the read
    itself): only to fetch the references with the first step. A blob not here, or bytes
    that are no run, give nothing.
    """
    out: list[Digest] = []
    for run in runs:
        oid = files.blob_id(layout.object_path(run))
        if oid is None or oid not in repo.odb:
            continue
        try:
            document = orjson.loads(read_blob(repo, oid))
        except (orjson.JSONDecodeError, ObjectUnreadable):  # the read proper says it
            continue
        if isinstance(document, dict) and document.get("kind") == "BenchmarkRun":
            out += _references({str(run): ("BenchmarkRun", "", document.get("spec") or {})},
                               [run])
    return out


def _keys(loaded: dict[str, Loaded | None], runs: Sequence[Digest]
          ) -> list[tuple[Digest, Digest]]:
    """Return ``(run, comparison key)`` of each loaded run of ``runs`` whose key is known."""
    present = {d: m for d, m in loaded.items() if m is not None}
    wanted = {str(r): r for r in runs if str(r) in present
              and present[str(r)][0] == "BenchmarkRun"}
    described = describe_all({d: present[d] for d in wanted},
                             lambda d: (present[d][0], present[d][2]) if d in present else None)
    return [(wanted[d], Digest.from_str(r.comparison_key)) for d, r in described.items()
            if r.comparison_key is not None]


def _is_hex64(name: str) -> bool:
    """Return True for a group file's name: a run's 64 lowercase hex digits."""
    return len(name) == 64 and all(c in "0123456789abcdef" for c in name)

