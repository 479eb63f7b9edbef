"""Which files differ between two git trees, reading only the subtrees that changed.

What ``git diff-tree -r OLD NEW`` reports, without rename detection: directories whose
tree ids are equal are skipped unread, so the cost follows what changed. libgit2's
``diff_to_tree`` reads every subtree of both sides instead: 262 ms to find one manifest
a commit added at 100,000 manifests, 6-10 s at 1,000,000.

This module knows git trees (pygit2 objects) and the store's layout, nothing of manifests.
"""

from __future__ import annotations

import operator
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, cast

from ..core import layout
from ..core import tree_entries as te
from ..core.tree_entries import parse_tree
from .blobs import ObjectUnreadable, damage, lookup, loose_checked, read_object, unreadable
from .ids import TREE, object_id
from .lazy import pygit2 as _pygit2  # imported on first use

if TYPE_CHECKING:  # pragma: no cover - typing only
    import pygit2

Entry = tuple[str, int]
"""A tree entry as compared: (object id as 40 hex digits, git file mode)."""

Change = tuple["Entry | None", "Entry | None"]
"""A file's entry before and after (None: absent on that side)."""

RawEntry = te.TreeEntry
"""A tree entry as a raw tree object holds it: (octal mode, name, 20-byte id)."""

_NAME = operator.itemgetter(1)

_TREE_MODE = te.DIRECTORY_MODE


def subtree(repo: pygit2.Repository, oid: pygit2.Oid | str) -> pygit2.Tree:
    """Return the git tree object ``oid`` names (a shard or ``store/objects``, say).

    pygit2 types ``repo[oid]`` as any object; callers pass the id of a tree entry, so the
    result is a tree (iterating anything else raises TypeError, as before).

    Raises:
        ObjectUnreadable: the tree is damaged (``git fsck``), or missing (a tree names it).
    """
    return cast("pygit2.Tree", lookup(repo, oid))  # guarded: libgit2 loops on a cut one


def shard_leaves(repo: pygit2.Repository, tree: pygit2.Tree, base: str
                 ) -> Iterator[tuple[str, pygit2.Object]]:
    """Yield ``(path, entry)`` for each entry of each shard folder under ``base`` of a tree.

    Args:
        repo: the pygit2 Repository holding the tree.
        tree: a commit's root tree (pygit2 Tree).
        base: a sharded folder, e.g. ``store/objects/sha256`` (:data:`layout.OBJECTS_DIR`).

    Yields:
        The entry's repository path (``BASE/XX/NAME``) and the entry (a blob, or whatever
        else was committed there: callers check ``type_str``); nothing when ``base`` is
        absent or not a folder (a symlink or file committed there: ``kistore verify``
        reports it, KI110/KI111). Entries of ``base`` that are not folders are skipped.
    """
    shards_id = subtree_id(repo, tree, base)
    if shards_id is None:
        return
    for shard in subtree(repo, shards_id):
        if shard.type_str != "tree":
            continue
        for leaf in subtree(repo, shard.id):
            yield f"{base}/{shard.name}/{leaf.name}", leaf


def changed_leaves(repo: pygit2.Repository, old: Any | None, new: Any | None, prefix: str = "",
                   *, added: bool = True) -> dict[str, Change]:
    """Return every non-directory entry that differs between two trees, at any depth.

    As ``git diff-tree -r`` (no rename or copy detection): an entry whose object id or
    mode differs, or that exists on one side only. A directory on one side and a file on
    the other is the file on its side and each file under the directory on the other.

    Args:
        repo: the pygit2 Repository holding both trees.
        old: the id (pygit2 Oid) of the tree before, or None (the empty tree).
        new: the id of the tree after, or None (the empty tree).
        prefix: prepended to every path returned (e.g. ``"store/objects/sha256/"``).
        added: False: leave out the entries only ``new`` has (files added), and read no
            directory only ``new`` has: what a check of append-only files asks
            (:func:`kistore.check.lineage.names_kept`: a names, group or metadata file
            may be added, never changed or deleted). The rest is as with True.

    Returns:
        ``{path: (entry before or None, entry after or None)}``, paths ``/``-separated
        (names decoded as UTF-8, an undecodable byte replaced).
    """
    changed: dict[str, Change] = {}
    pending = [(prefix, old, new)]
    while pending:
        where, old_id, new_id = pending.pop()
        before, after = _listing(repo, old_id), _listing(repo, new_id)
        if not added and before.items() <= after.items():
            continue  # each entry kept as it was (a shard that only grew): a lookup each
        # names whose (id, mode) differ; an equal directory's contents are equal: skipped.
        # Without ``added``: only names ``before`` holds.
        for name in {name for name, _ in before.items() ^ after.items()} if added else \
                [name for name, _ in before.items() - after.items()]:
            was, now = before.get(name), after.get(name)
            path = where + name.decode("utf-8", "replace")
            was_dir = was is not None and was[0] == _TREE_MODE
            now_dir = now is not None and now[0] == _TREE_MODE
            if was_dir or (now_dir and added):  # a directory only ``new`` has: all added
                pending.append((path + "/", was[2] if was_dir else None,  # type: ignore[index]
                                now[2] if now_dir else None))  # type: ignore[index]
            if (was is not None and not was_dir) or (added and now is not None and not now_dir):
                changed[path] = (None if was is None or was_dir else _entry(was),
                                 None if now is None or now_dir else _entry(now))
    return changed


_MODES = {b"100644": 0o100644, b"100755": 0o100755, b"120000": 0o120000, b"160000": 0o160000}
"""Modes as a tree object spells them, parsed (the rest go through ``int(mode, 8)``)."""

_BLOB_MODES = frozenset({b"100644", b"100755"})


def files_below(repo: pygit2.Repository, top: pygit2.Oid, prefix: str = ""
                ) -> tuple[dict[str, int], dict[str, bytes]]:
    """List every non-directory entry below a tree, at any depth, from raw tree objects.

    What :func:`changed_leaves` of ``(None, top)`` lists, in two flat dicts built a tree
    at a time (one join, decode and split for a tree's names; one mode for a tree of one
    mode) instead of entry by entry: ``verify --at``'s listing of 300,000 files (100,000
    manifests) took 1.9-2.0 s of CPU that way, 1.3-1.4 s so (loaded machine).

    Args:
        repo: the pygit2 Repository holding the tree.
        top: the tree's id.
        prefix: prepended to every path (e.g. ``"store/"``).

    Returns:
        ``(modes, ids)``: path -> git file mode (an int, ``0o100644``) for every entry that
        is not a directory, and path -> 20-byte blob id for each regular file (mode
        100644 or 100755). Paths ``/``-separated, names decoded as UTF-8 (an undecodable
        byte replaced), in no set order.

    Raises:
        ObjectUnreadable: a tree is damaged or missing (named with its path).
    """
    modes: dict[str, int] = {}
    ids: dict[str, bytes] = {}
    pending: list[tuple[str, pygit2.Oid | bytes]] = [(prefix, top)]
    while pending:
        where, oid = pending.pop()
        # read here first when loose: libgit2 loops on one cut short (review F3)
        _, data = read_object(repo, oid, where.rstrip("/") or None)  # damaged, missing
        found = te.entries(data)
        if not found:
            continue
        kinds = set(next(zip(*found, strict=True)))
        if _TREE_MODE in kinds:
            pending += [(f"{where}{name.decode('utf-8', 'replace')}/", child)
                        for mode, name, child in found if mode == _TREE_MODE]
            found = [entry for entry in found if entry[0] != _TREE_MODE]
            kinds.discard(_TREE_MODE)
            if not found:
                continue
        entry_modes, names, oids = zip(*found, strict=True)
        joined = b"\n".join(names)
        if joined.count(b"\n") == len(names) - 1:  # no name holds a newline: all at once
            paths = (where + ("\n" + where).join(
                joined.decode("utf-8", "replace").split("\n"))).split("\n")
        else:
            paths = [where + name.decode("utf-8", "replace") for name in names]
        if len(kinds) == 1 and (mode := _MODES.get(next(iter(kinds)))) is not None:
            modes.update(dict.fromkeys(paths, mode))  # a shard: all 100644
        else:
            modes.update(zip(paths, [_MODES.get(m) or int(m, 8) for m in entry_modes],
                             strict=True))
        if kinds <= _BLOB_MODES:
            ids.update(zip(paths, oids, strict=True))
        else:
            ids.update((path, oid) for path, mode, oid in zip(paths, entry_modes, oids,
                                                              strict=True)
                       if mode in _BLOB_MODES)
    return modes, ids


def tree_id(entries: dict[bytes, tuple[bytes, bytes]]) -> bytes:
    """Return the id (20 raw bytes) of the git tree holding ``entries``, without writing it.

    Args:
        entries: name -> (octal mode as a tree spells it, e.g. ``b"100644"`` or
            ``b"40000"``, and the entry's 20-byte id).

    The tree object's bytes are git's: entries sorted by name, a directory's name as if
    it ended in ``/``. Equal ids are equal trees, so a tree made so from files' blob ids
    equals a commit's tree exactly when every name, mode and blob id agrees.
    """
    body = b"".join(b"%s %s\0%s" % (mode, name, oid) for name, (mode, oid) in sorted(
        entries.items(), key=lambda item: item[0] + b"/" if item[1][0] == _TREE_MODE
        else item[0]))
    return object_id(TREE, body)


def changed_files(repo: pygit2.Repository, old: Any | None, new: Any | None) -> dict[str, Change]:
    """Return the store files that differ between two root trees.

    :func:`changed_leaves` of the :data:`kistore.core.layout.OBJECTS_DIR`,
    :data:`kistore.core.layout.METADATA_DIR`, :data:`kistore.core.layout.NAMES_DIR`,
    :data:`kistore.core.layout.FORWARD_DIR` and :data:`kistore.core.layout.GROUPS_DIR`
    subtrees (what an add writes), paths relative to the work tree.

    Args:
        repo: the pygit2 Repository holding both trees.
        old: the root pygit2 Tree before (None: the empty tree, as for a root commit).
        new: the root pygit2 Tree after (None: the empty tree).

    Returns:
        ``{path: (entry before or None, entry after or None)}``.
    """
    changed: dict[str, Change] = {}
    for base in (layout.OBJECTS_DIR, layout.METADATA_DIR, layout.NAMES_DIR, layout.FORWARD_DIR,
                 layout.GROUPS_DIR):
        changed.update(changed_leaves(repo, subtree_id(repo, old, base),
                                      subtree_id(repo, new, base), base + "/"))
    return changed


def subtree_id(repo: pygit2.Repository, tree: pygit2.Tree | None, path: str) -> Any | None:
    """Return the id (pygit2 Oid) of the directory ``path`` of ``tree``, or None.

    None when ``tree`` (a pygit2 Tree of ``repo``) is None, has no such path, or the path
    is not a directory. Each loose directory on the way is read by kistore first
    (:func:`~.blobs.loose_checked`: libgit2 loops on one cut short, review F3).

    Raises:
        ObjectUnreadable: a directory on the way is damaged (:func:`damaged_on_path`).
    """
    entry = entry_at(repo, tree, path)
    return entry.id if entry is not None and entry.type_str == "tree" else None


def entry_at(repo: pygit2.Repository, tree: pygit2.Tree | None, path: str) -> Any | None:
    """Return ``tree[path]`` (a pygit2 Object: a blob, a tree, ...), read through the guard.

    Each loose directory on the way is read by kistore first (libgit2 loops on one cut
    short, review F3): what a history walk's ``commit.tree[path]`` must do for an older
    commit, whose trees may be loose.

    Args:
        repo: the repository holding ``tree``.
        tree: a pygit2 Tree (None: nothing there).
        path: a ``/``-separated path below it.

    Returns:
        The entry, or None when ``tree`` is None or has no such path.

    Raises:
        ObjectUnreadable: a directory on the way is damaged or missing
            (:func:`damaged_on_path`).
    """
    if tree is None:
        return None
    try:
        _read_loose_on_the_way(repo, tree, path)
        return tree[path]
    except KeyError as e:  # pygit2's NotFoundError too: a directory on the way is missing
        if damage(e) is None:
            return None  # no such path
        raise damaged_on_path(tree, path, e) from e
    except _pygit2.GitError as e:
        raise damaged_on_path(tree, path, e) from e


def damaged_on_path(tree: pygit2.Tree, path: str, error: BaseException) -> ObjectUnreadable:
    """Return the :class:`~.blobs.ObjectUnreadable` of a tree walk by path that failed.

    ``tree[path]`` reads every directory on the way; libgit2's error of a damaged (or missing) one
    names no object. Walking one name at a time finds the directory that cannot be read.

    Args:
        tree: the pygit2 Tree the walk started at.
        path: the ``/``-separated path looked up.
        error: what the lookup raised (libgit2's ``GitError``).

    Returns:
        The error naming the damaged tree's id and its repository path (relative to
        ``tree``); libgit2's words and no id when the walk does not fail again.
    """
    here: Any = tree
    walked: list[str] = []
    for name in path.split("/"):
        try:
            here = here[name]
        except KeyError as e:  # NotFoundError too: ``here`` is a tree this repository lacks
            found = damage(e, "/".join(walked) or None)
            if found is None:
                break
            return found
        except _pygit2.GitError as e:
            return unreadable(here.id, e, "/".join(walked) or None)
        walked.append(name)
    found = damage(error, path)
    assert found is not None  # a GitError
    return found


def _read_loose_on_the_way(repo: pygit2.Repository, tree: pygit2.Tree, path: str) -> None:
    """Read first each directory ``tree[path]`` reads, if loose (libgit2 loops on a cut one).

    ``tree[path]`` makes libgit2 read every tree on the way (review F3).

    Raises:
        KeyError: a directory on the way is absent.
        ObjectUnreadable: one is a damaged loose object.
    """
    parts = path.split("/")
    current: Any = tree
    for depth, name in enumerate(parts[:-1], 1):
        current = current[name]
        if current.type_str != "tree":
            return
        loose_checked(repo, current.id, "/".join(parts[:depth]))


def _listing(repo: pygit2.Repository, tree_id: Any | None) -> dict[bytes, RawEntry]:
    """Return ``{name: (octal mode, name, 20-byte id)}`` of one tree's own entries, raw.

    ``tree_id`` is a pygit2 Oid or a raw 20-byte id (a parent listing's), or None.
    """
    if tree_id is None:
        return {}
    key = tree_id.hex() if isinstance(tree_id, bytes) else str(tree_id)
    listing = _LISTINGS.get(key)
    if listing is None:
        listing = _read_listing(repo, key, None)[2]
    return listing


def _read_listing(repo: pygit2.Repository, key: str, path: str | None
                  ) -> tuple[list[RawEntry], bool, dict[bytes, RawEntry]]:
    """Read a tree (40 hex digits), keep its listing, and return (entries, whole, listing).

    Raises:
        ObjectUnreadable: the tree is damaged or missing (named with ``path``).
    """
    # read here first when loose: libgit2 loops on one cut short (review F3)
    _, data = read_object(repo, key, path)  # damaged or missing: ObjectUnreadable
    found, whole = parse_tree(data)
    listing = dict(zip(map(_NAME, found), found, strict=True))  # no Python loop: ~4,000 a shard
    _keep(key, listing)
    if whole and len(listing) == len(found):
        _tiled.add(key)  # every byte of the tree is in its entries (kept_entries)
    return found, whole, listing


def tree_entries(repo: pygit2.Repository, tree_id: str, path: str | None = None
                 ) -> tuple[list[RawEntry], bool]:
    """Return a tree's entries as its object holds them, in its order, read raw and kept.

    What :func:`changed_leaves` reads of a tree, and from the same kept listings (a tree
    read here is not read again by a diff, and the other way round), but every entry: two
    of one name are both returned (a listing by name keeps one).

    Args:
        repo: the pygit2 Repository holding the tree.
        tree_id: the tree's id (40 hex digits).
        path: the repository path it is read for (named by ``ObjectUnreadable``).

    Returns:
        ``(entries, whole)``: :func:`kistore.core.tree_entries.parse_tree` of the tree.

    Raises:
        ObjectUnreadable: the tree is damaged or missing.
    """
    kept = kept_entries(tree_id)
    if kept is not None:
        return kept, True
    found, whole, _ = _read_listing(repo, tree_id, path)
    return found, whole


def kept_entries(tree_id: str) -> list[RawEntry] | None:
    """Return the entries of a tree this module read lately, in the tree's order, or None.

    What ``verify``'s whole-tree name check (:func:`kistore.check._paths.check_tree_names`)
    would read again: the history walk before it (:func:`kistore.check.lineage.names_kept`)
    has just read most trees of ``HEAD`` (at 20,000 manifests in 4 commits, 3,685 of its
    4,487). Given only when the entries are the whole tree: no two share a name and their
    bytes add up to the tree's (a malformed tree is read again, whole, by the caller).

    Args:
        tree_id: the tree's id (40 hex digits).

    Returns:
        ``[(octal mode, name, 20-byte id), ...]`` as the tree object holds them; None when
        the tree is not kept (never read, or dropped past :data:`_ENTRIES_KEPT`) or its
        listing is not the whole tree.
    """
    listing = _LISTINGS.get(tree_id)
    return None if listing is None or tree_id not in _tiled else list(listing.values())


def _keep(key: str, listing: dict[bytes, RawEntry]) -> None:
    """Add a listing to :data:`_LISTINGS`, the oldest out past either bound.

    Past :data:`_LISTINGS_KEPT` listings *and* :data:`_ENTRIES_KEPT` entries in all, the
    oldest go first: many small shard trees stay (``verify``'s history walk reads each
    commit's changed shards again as its parent's), a few large ones do not fill memory.
    """
    global _entries_kept
    while _LISTINGS and len(_LISTINGS) >= _LISTINGS_KEPT and \
            _entries_kept + len(listing) > _ENTRIES_KEPT:
        oldest = next(iter(_LISTINGS))
        _entries_kept -= len(_LISTINGS.pop(oldest))
        _tiled.discard(oldest)
    _LISTINGS[key] = listing
    _entries_kept += len(listing)


_LISTINGS: dict[str, dict[bytes, RawEntry]] = {}
"""Listings read lately, by tree id. A tree id names its bytes, in any repository, so a
listing never goes stale: the gate diffs BASE..HEAD several times (paths changed, files
deleted, names on the way, each commit), and at 1,000,000 manifests each changed shard
tree is ~370 KB to inflate and parse. ``verify``'s history check (:func:`kistore.check.
lineage.names_kept`) reads each commit's changed names, groups, forward and metadata
shards, then the same trees again as the next commit's parent: at 20,000 manifests in 4
commits, 18,453 tree reads where 64 listings kept none of them (docs/speed.md, issue 22)."""

_LISTINGS_KEPT = 64
"""Listings always kept, however many entries they hold (a shard tree's is ~1 MB of Python
objects at 1,000,000 manifests)."""

_ENTRIES_KEPT = 200_000
"""Entries (of all listings) kept beyond the first :data:`_LISTINGS_KEPT` listings: ~50 MB
of Python objects at most (~250 bytes an entry)."""

_entries_kept = 0
"""Entries of the listings in :data:`_LISTINGS`."""

_tiled: set[str] = set()
"""The keys of :data:`_LISTINGS` whose listing is the whole tree (:func:`kept_entries`)."""


def _entry(raw: RawEntry) -> Entry:
    return raw[2].hex(), int(raw[0], 8)
