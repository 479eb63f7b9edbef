"""What the pull-request gate looks up, one path at a time, instead of reading every file.

A range's files are checked against the rest of ``HEAD`` (names, references, paths that
collide), and the rest is what makes a gate cost O(store). Each cross-file question has
an answer at a few known paths of ``HEAD``'s tree, so :func:`kistore.check.audit.
check_contents` asks only those (through :meth:`kistore.store.View.files_of`) when it is
handed the range's files alone:

* a reference resolves when its object path exists; its kind is that one object's (and
  its statistic and board: a run's four references read four object shards, and their
  metadata files only when a message names one, :func:`entry_at`);
* a name is taken when its names file exists (``store/names/KIND/XX/NAME``): the manifests
  that may claim a name are the one its names file holds (before and after the range) and
  those the range touches, in a store whose every earlier pull request passed (each
  manifest has its names file, KI211, and each names file one digest);
* the earlier runs whose dangling reference a manifest of the range answers are those its
  forward directory lists (``store/forward/sha256/XX/<62 hex>/``, one file per run): also
  the runs whose comparison key an arriving protocol or environment completes, which must
  come with their group files (``store/groups/sha256/XX/<62 hex of K>/<run>``, each looked
  up at its path by :func:`kistore.check.audit.check_contents`);
* a path collides on a case-insensitive file system only with entries whose every
  component folds to the same key: each level's directory is listed, and only matching
  subdirectories are entered.

A git tree is sorted, so a lookup reads one tree object per path level (libgit2 searches
each); a test holds the answers equal to those of the whole-tree check
(tests/check/test_fast_gate.py).
"""

from __future__ import annotations

from collections.abc import Iterable, MutableMapping
from dataclasses import replace
from functools import partial
from typing import Any

from ..core import layout
from ..core.canonical_fast import loads_lenient
from ..core.digest import Digest, one_slip_away
from ..core.git_names import name_key, name_keys
from ..store import FileTooLarge, View
from ._rules import MEANT_LOOKED, Entry, entry_from


def range_paths(view: View, before: View | None, changed: Iterable[str],
                limit: int) -> set[str]:
    """Return the paths of ``view`` the contents check of a range reads (besides lookups).

    The changed paths; for each manifest they touch, its object, metadata and names file;
    for each of those names files and each changed one, the manifest it holds in ``view``
    and in ``before`` (the range's base), with that manifest's files. Forward references
    (:func:`kistore.core.layout.forward_path`): for each run touched, the record path of
    each reference whose object is missing in ``view``; for each changed record, its run's
    files; for each manifest touched whose object is in ``view``, the files of every run
    its forward directory lists (one directory listing). Group files
    (:func:`kistore.core.layout.group_path`): for each changed one, its run's files (a run's
    own group path is looked up by the contents check, once its key is known). What a names
    file or a manifest holds is read here once more (a few small files).

    Args:
        view: the range's head.
        before: its base (None: the range starts at an empty tree).
        changed: the paths the range adds, changes or deletes.
        limit: the most bytes read of a file.
    """
    paths = set(changed)
    digests = {d for d in map(layout.digest_from_path, changed) if d is not None}
    names = {p for p in changed if layout.name_from_path(p) is not None}
    for parsed in map(layout.forward_from_path, changed):  # a record's run (KI213, KI214)
        if parsed is not None:
            digests.add(parsed[1])
    for parsed in map(layout.group_from_path, changed):  # a group file's run (KI216)
        if parsed is not None:
            digests.add(parsed[1])
    for digest in sorted(digests, key=lambda d: d.hex):
        entry = entry_at(view, digest, limit)
        if entry.kind is not None and layout.is_name(entry.name):
            names.add(layout.name_path(entry.kind, entry.name))  # type: ignore[arg-type]
        paths.update(_forward_paths(view, entry))
    for path in sorted(names):
        paths.add(path)
        for side in (view, before):
            owner = _record(side, path, limit) if side is not None else None
            if owner is not None:
                digests.add(owner)
    for digest in list(digests):  # earlier runs a manifest of the range may answer (KI202)
        if layout.object_path(digest) in view.modes_of([layout.object_path(digest)]):
            digests.update(Digest(leaf) for leaf in view.list_dir(layout.forward_dir(digest))
                           if _is_hex64(leaf))
    for digest in digests:
        paths.update((layout.object_path(digest), layout.metadata_path(digest)))
    return paths


def _forward_paths(view: View, entry: Entry) -> list[str]:
    """Return the record paths a run's references need: one per digest with no object."""
    if not entry.has_object:
        return []
    found = []
    for ref in sorted(set(entry.references.values())):
        target = Digest.from_str(ref)
        if not view.modes_of([layout.object_path(target)]):
            found.append(layout.forward_path(target, entry.digest))
    return found


def _is_hex64(name: str) -> bool:
    """Whether a directory entry's name is a run's 64 lowercase hex digits."""
    return len(name) == 64 and all(c in "0123456789abcdef" for c in name)


def _record(view: View, path: str, limit: int) -> Digest | None:
    """Return the digest the names file at ``path`` holds in ``view`` (None: none, or bad)."""
    try:
        data = view.read(path, limit)
    except FileTooLarge:
        return None
    return None if data is None else layout.digest_from_record(data)


def collision_candidates(view: View, paths: Iterable[str]) -> set[str]:
    """Return every path of ``view`` that folds to the same key as one of ``paths``.

    Args:
        view: the tree (a commit) the paths are in.
        paths: repository paths (the range's changed paths).

    Returns:
        Paths of files or submodules under ``store/`` whose :func:`name_key` equals that of
        a path in ``paths`` (each path itself included when it exists).
    """
    found: set[str] = set()
    for path in paths:
        if not path.startswith(layout.STORE_DIR + "/"):
            continue
        parts = path.split("/")
        level = [parts[0]]  # "store": the layout's own top, never case-varied in a tree
        for i, part in enumerate(parts[1:], start=1):
            key = name_key(part)
            level = [f"{d}/{n}" for d in level for n in _folding_to(view.list_dir(d), key)]
            if not level:
                break
            if i == len(parts) - 1:
                found.update(view.modes_of(level))
    return found


def _folding_to(names: list[str], key: str) -> list[str]:
    """Return those of ``names`` whose :func:`name_key` is ``key`` (one call for all)."""
    return [n for n, k in zip(names, name_keys(names), strict=True) if k == key]


def look_up_entries(view: View, entries: MutableMapping[Digest, Entry],
                    focus: Iterable[Digest], limit: int) -> None:
    """Add to ``entries`` every manifest a focused one refers to, read at its own paths.

    What :func:`kistore.check._rules.check_entries` needs to judge the references (KI201,
    KI202) of the manifests in ``focus``, without the entries of the whole tree; and for
    each dangling one (at most :data:`~kistore.check._rules.MEANT_LOOKED`), the manifests
    one slip away (:func:`kistore.core.digest.one_slip_away`, up to 1,023 paths each, looked
    up in one batch), whose one of the field's kind KI201 names (reviewer r92 F4).

    Args:
        view: the tree the range's head holds.
        entries: the entries built from the range's files (changed in place).
        focus: the digests the range changes.
        limit: the most bytes a file may hold (a larger one counts as present, unparsed).
    """
    wanted: set[Digest] = set()
    for digest in focus:
        entry = entries.get(digest)
        if entry is not None:
            wanted.update(Digest.from_str(ref) for ref in entry.references.values())
    for digest in sorted(wanted - set(entries), key=lambda d: d.hex):
        entries[digest] = entry_at(view, digest, limit, metadata=False)
    # KI201's did-you-mean: the manifests a slip away from each dangling reference, looked
    # up at their own paths in one batch, as verify finds them among all its entries
    dangling = sorted((d for d in wanted if not entries[d].has_object), key=lambda d: d.hex)
    near = {Digest(h) for d in dangling[:MEANT_LOOKED] for h in one_slip_away(d.hex)}
    paths = {layout.object_path(d): d for d in near - set(entries)}
    for path in sorted(view.modes_of(paths)):
        entries[paths[path]] = entry_at(view, paths[path], limit, metadata=False)


def entry_at(view: View, digest: Digest, limit: int, *, metadata: bool = True) -> Entry:
    """Return the :class:`Entry` of one digest read from its object and metadata paths.

    A path holding anything (a symlink, a file past ``limit``) counts as present, as it
    does when the whole tree is listed; what does not parse leaves kind or name unknown.

    Args:
        view: the tree read.
        digest: the manifest's digest.
        limit: the most bytes read of a file.
        metadata: False for a manifest a run references: its metadata file is read only
            when the object is a run's (whose board its metadata states, KI238) or a
            message names it (:attr:`Entry.name_of`, :func:`kistore.check._rules.shown_name`).
            A metadata shard is a tree of ~3,900 entries (~370 KB) at 1,000,000 manifests,
            and a run's four references are in four of them; kind, statistic and board of
            the kinds a reference names come from the object alone (docs/speed.md, gate99).
    """
    has_object, obj = _parsed(view, layout.object_path(digest), limit)
    if not metadata and (obj.get("kind") if isinstance(obj, dict) else None) != "BenchmarkRun":
        return replace(entry_from(digest, obj, None, has_object=has_object, has_metadata=False),
                       name_of=partial(_name_at, view, digest, limit))
    has_metadata, meta = _parsed(view, layout.metadata_path(digest), limit)
    return entry_from(digest, obj, meta, has_object=has_object, has_metadata=has_metadata)


def _name_at(view: View, digest: Digest, limit: int) -> str | None:
    """Return ``metadata.name`` of ``digest``'s metadata file (None: no file, or no string)."""
    meta = _parsed(view, layout.metadata_path(digest), limit)[1]
    name = meta.get("name") if isinstance(meta, dict) else None
    return name if isinstance(name, str) else None


def _parsed(view: View, path: str, limit: int) -> tuple[bool, Any]:
    """Return whether anything is at ``path`` and its JSON (None: absent, past ``limit``, bad)."""
    if not view.modes_of([path]):
        return False, None
    try:
        data = view.read(path, limit)
    except FileTooLarge:
        data = None
    try:
        return True, None if data is None else loads_lenient(data)
    except ValueError:
        return True, None
