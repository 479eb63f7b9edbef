"""What the pull-request gate looks up, one path at a time, instead of reading every file.

A range's files are checked against the rest of ``HEAD`` (names, references, paths that
collide), and the rest is what makes a gate cost O(store). Each cross-file question has
an answer at a few known paths of ``HEAD``'s tree, so :func:`kistore.check.audit.
check_contents` asks only those (through :meth:`kistore.store.View.files_of`) when it is
handed the range's files alone:

* a reference resolves when its object path exists; its kind is that one object's;
* a name is taken when its names file exists (``store/names/KIND/XX/NAME``); the manifest
  it names is read like a reference;
* a path collides on a case-insensitive file system only with entries whose every
  component folds to the same key: each level's directory is listed, and only matching
  subdirectories are entered.

A git tree is sorted, so a lookup reads one tree object per path level (libgit2 searches
each); a test holds the answers equal to those of the whole-tree check
(tests/check/test_fast_gate.py).
"""

from __future__ import annotations

from collections.abc import Iterable, MutableMapping

from ..core import layout
from ..core.canonical_fast import loads_lenient
from ..core.digest import Digest
from ..store import FileTooLarge, View
from ._rules import Entry, entry_from, name_key


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
            level = [f"{d}/{n}" for d in level for n in view.list_dir(d)
                     if name_key(n) == key]
            if not level:
                break
            if i == len(parts) - 1:
                found.update(view.modes_of(level))
    return found


def look_up_entries(view: View, entries: MutableMapping[Digest, Entry],
                    focus: Iterable[Digest], limit: int) -> None:
    """Add to ``entries`` every manifest a focused one refers to, read at its own paths.

    What :func:`kistore.check._rules.check_entries` needs to judge the references (KI201,
    KI202) of the manifests in ``focus``, without the entries of the whole tree.

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
        entries[digest] = entry_at(view, digest, limit)


def entry_at(view: View, digest: Digest, limit: int) -> Entry:
    """Return the :class:`Entry` of one digest read from its object and metadata paths.

    A path holding anything (a symlink, a file past ``limit``) counts as present, as it
    does when the whole tree is listed; what does not parse leaves kind or name unknown.
    """
    paths = (layout.object_path(digest), layout.metadata_path(digest))
    present = view.modes_of(paths)
    values = []
    for path in paths:
        try:
            data = view.read(path, limit) if path in present else None
        except FileTooLarge:
            data = None
        try:
            values.append(None if data is None else loads_lenient(data))
        except ValueError:
            values.append(None)
    return entry_from(digest, values[0], values[1], has_object=paths[0] in present,
                      has_metadata=paths[1] in present)
