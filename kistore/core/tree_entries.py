"""Git tree objects as bytes: their entries, and which of them git's own fsck refuses.

A tree object is ``<octal mode> <name>\\0<20-byte id>`` repeated (git's format, SHA-1
repositories). Any program can write any bytes as a tree (``git hash-object -t tree
--literally``, libgit2), and git serves such a tree unless the server runs ``fsck`` on
receive (``receive.fsckObjects``, off by default). A checkout or ``git archive`` flattens
the tree to paths, so an entry *named* ``objects/sha256/9c/x.json`` becomes the file
``objects/sha256/9c/x.json``, beside or over what the subtrees hold (review r78 F1).

:func:`parse_tree` reads the entries; :func:`entry_problems` says which break git's rules
for a tree (``fsck.c``'s ``fsck_tree`` and ``verify_ordered``): a name holding ``/`` (fsck
``fullPathname``), an empty name (``emptyName``), ``.`` (``hasDot``), ``..``
(``hasDotdot``), two entries of one name (``duplicateEntries``), entries out of git's order
(``treeNotSorted``), a mode git does not write (``zeroPaddedFilemode``, a warning of fsck,
``badFilemode``, an info: refused here, git never writes them); a symbolic link git reads as
``.gitmodules`` on some file system (fsck ``gitmodulesSymlink``, an error;
:func:`kistore.core.git_names.special_file`), or as ``.gitattributes``, ``.gitignore`` or
``.mailmap`` (``gitattributesSymlink``, ``gitignoreSymlink``, ``mailmapSymlink``: fsck
warnings; git checkout refuses all four links). And two things fsck lets pass that a store
repository never holds: a submodule (a gitlink, mode ``160000``: :data:`SUBMODULE`) and a
``.gitmodules`` of any other kind (:data:`GITMODULES`; fsck checks the submodule names, urls
and paths such a file gives, ``gitmodulesName``, ``gitmodulesUrl``, ``gitmodulesPath``:
refusing the file refuses all of them and every one git may add). A name that is ``.git`` on
some file system (fsck ``hasDotgit``) is :func:`kistore.check._paths.is_dotgit`'s (KI115). A
NUL cannot be in a name: it ends one.

This module knows bytes only: no git, no I/O.
"""

from __future__ import annotations

import operator
import re

from .git_names import special_file

TreeEntry = tuple[bytes, bytes, bytes]
"""One entry as the tree object holds it: (octal mode, name, 20-byte object id)."""

DIRECTORY_MODE = b"40000"
"""git's mode of a directory entry as a tree spells it (no leading zero)."""

FULL_PATHNAME = "fullPathname"
EMPTY_NAME = "emptyName"
HAS_DOT = "hasDot"
HAS_DOTDOT = "hasDotdot"
DUPLICATE_ENTRIES = "duplicateEntries"
TREE_NOT_SORTED = "treeNotSorted"
BAD_TREE = "badTree"
ZERO_PADDED_FILEMODE = "zeroPaddedFilemode"
BAD_FILEMODE = "badFilemode"
GITMODULES_SYMLINK = "gitmodulesSymlink"
GITATTRIBUTES_SYMLINK = "gitattributesSymlink"
GITIGNORE_SYMLINK = "gitignoreSymlink"
MAILMAP_SYMLINK = "mailmapSymlink"
"""git fsck's message ids (``git help fsck``, "FSCK MESSAGES"), as :func:`entry_problems`
and :func:`parse_tree`'s callers name what is wrong."""

WRONG_OBJECT_TYPE = "wrongObjectType"
"""What git's fsck refuses, with no message id, of an entry naming an object of another
type than its mode names ("object 3ffd76ca... is a tree, not a blob", an error; the type
the mode names: :func:`named_type`). Named here after what it says."""

SUBMODULE = "submodule"
GITMODULES = "gitmodules"
"""What kistore refuses that git's fsck lets pass (no fsck message id): a gitlink entry,
a ``.gitmodules`` that is no symbolic link (:data:`KISTORE_ONLY`)."""

KISTORE_ONLY = frozenset((SUBMODULE, GITMODULES))
"""The ids of :func:`entry_problems` that are kistore's, not git fsck's."""

SYMLINK_MODE = b"120000"
GITLINK_MODE = b"160000"
CANONICAL_MODES = frozenset((DIRECTORY_MODE, b"100644", b"100755", SYMLINK_MODE, GITLINK_MODE))
"""The modes git writes. git reads others too: ``040000`` as a tree (fsck's
``zeroPaddedFilemode``, a warning), ``100600`` as a file (``badFilemode``): a walk that
compares modes as git writes them would not look into such a tree (reviewer r81 F10)."""

_SYMLINK_PROBLEM = {".gitmodules": GITMODULES_SYMLINK,
                    ".gitattributes": GITATTRIBUTES_SYMLINK,
                    ".gitignore": GITIGNORE_SYMLINK, ".mailmap": MAILMAP_SYMLINK}

_ENTRY = re.compile(rb"([0-7]+) ([^\0]*)\0(.{20})", re.DOTALL)
_MODE = operator.itemgetter(0)
_NAME = operator.itemgetter(1)


def named_type(mode: bytes) -> str | None:
    """Return the type of object git reads a tree entry of this mode as naming.

    As git's fsck walks a tree (``fsck_walk_tree``): a directory names a tree, a regular
    file or a symbolic link a blob, a gitlink a commit of another repository (not looked
    for); any other mode is :data:`BAD_FILEMODE` already.

    Args:
        mode: the entry's octal mode as the tree spells it (``b"100644"``, ``b"40000"``).

    Returns:
        ``"tree"`` (``40000``, ``040000``), ``"blob"`` (``100644``, ``100755``, ``120000``,
        any ``100xxx``), else None (a gitlink, or a mode naming no type).
    """
    return _NAMED_TYPES.get(int(mode, 8) & 0o170000) if mode.isdigit() else None


_NAMED_TYPES = {0o040000: "tree", 0o100000: "blob", 0o120000: "blob"}
"""The object type each file-type bits of a mode name (``S_IFMT``; a gitlink left out)."""


def entries(raw: bytes) -> list[TreeEntry]:
    """Return the entries of a raw git tree object, in its order, without judging the rest.

    The fast read every walk of trees uses (a pygit2 entry object per name cost 2.3x more:
    its file mode is an enum); :func:`parse_tree` also says whether the entries tile the
    object.

    Args:
        raw: the tree object's content (no ``tree <size>\\0`` header).

    Returns:
        Each entry ``(mode, name, id)`` as bytes; entries with equal names are all kept.
    """
    return _ENTRY.findall(raw)


def parse_tree(raw: bytes) -> tuple[list[TreeEntry], bool]:
    """Return the entries of a raw git tree object, in the order it holds them.

    Args:
        raw: the tree object's content (no ``tree <size>\\0`` header).

    Returns:
        ``(entries, whole)``: each entry ``(mode, name, id)`` as bytes; ``whole`` is False
        when bytes are left over that are no entry (a mode that is not octal digits, a
        name with no NUL after it, an id cut short: git fsck's ``badTree``). Entries with
        equal names are all kept (a dict of them would hide one).
    """
    found = entries(raw)
    # a space, a NUL and the id besides mode and name; summed without a Python loop
    covered = 22 * len(found) + sum(map(len, map(_MODE, found))) + sum(
        map(len, map(_NAME, found)))
    return found, covered == len(raw)


def entry_problems(entries: list[TreeEntry]) -> list[tuple[int, str]]:
    """Return what git's fsck refuses in one tree's entries, as ``(index, message id)``.

    Args:
        entries: a tree's entries in its order (:func:`parse_tree`).

    Returns:
        One pair per problem, in entry order: the index into ``entries`` and the fsck
        message id (:data:`FULL_PATHNAME`, :data:`EMPTY_NAME`, :data:`HAS_DOT`,
        :data:`HAS_DOTDOT`; :data:`ZERO_PADDED_FILEMODE` or :data:`BAD_FILEMODE` on a mode
        git does not write (:data:`CANONICAL_MODES`); :data:`DUPLICATE_ENTRIES` on the
        second of two equal names,
        :data:`TREE_NOT_SORTED` on an entry that should come before the one ahead of it;
        :data:`GITMODULES_SYMLINK` and its siblings on a symbolic link git reads as one of
        its files) or kistore's (:data:`SUBMODULE` on a gitlink, :data:`GITMODULES` on any
        other ``.gitmodules``).
        git orders entries by name bytes, a directory's name as if it ended in ``/``
        (``base_name_compare``); a file and a directory of one name are duplicates too.
        Empty when git would write the tree so.
    """
    problems: list[tuple[int, str]] = []
    names = list(map(_NAME, entries))
    modes = set(map(_MODE, entries))
    keys = [name + b"/" if mode == DIRECTORY_MODE else name for mode, name, _ in entries] \
        if DIRECTORY_MODE in modes else names
    if _usual(names, keys, modes):
        return problems  # the usual tree: no per-entry findings
    seen: set[bytes] = set()
    for index, name in enumerate(names):
        if b"/" in name:
            problems.append((index, FULL_PATHNAME))
        elif not name:
            problems.append((index, EMPTY_NAME))
        elif name == b".":
            problems.append((index, HAS_DOT))
        elif name == b"..":
            problems.append((index, HAS_DOTDOT))
        mode = entries[index][0]
        if mode not in CANONICAL_MODES:
            problems.append((index, ZERO_PADDED_FILEMODE if mode.startswith(b"0")
                             else BAD_FILEMODE))
        special = special_file(name.decode("utf-8", "surrogateescape")) \
            if _MAYBE_SPECIAL.search(name) else None
        if special is not None and mode == SYMLINK_MODE:
            problems.append((index, _SYMLINK_PROBLEM[special]))
        elif special == ".gitmodules":
            problems.append((index, GITMODULES))
        if mode == GITLINK_MODE:
            problems.append((index, SUBMODULE))
        if name in seen:
            problems.append((index, DUPLICATE_ENTRIES))
        elif index and keys[index] < keys[index - 1]:
            problems.append((index, TREE_NOT_SORTED))
        seen.add(name)
    return problems


def _usual(names: list[bytes], keys: list[bytes], modes: set[bytes]) -> bool:
    """Whether a tree's entries hold none of :func:`entry_problems`' problems.

    Each test a pass in C over all names at once (a shard of ~3,900 entries at 1,000,000
    manifests, which the gate reads for each one a pull request changes: issue 22): the
    names joined by NUL, which no name holds.
    """
    if not names:
        return True  # the empty tree
    joined = b"\0" + b"\0".join(names) + b"\0"
    return (modes <= _USUAL_MODES and all(map(operator.lt, keys, keys[1:]))
            and (keys is names or len(set(names)) == len(names))  # a file and a directory "a"
            and not any(map(joined.__contains__, _NOT_USUAL)))


_USUAL_MODES = CANONICAL_MODES - {GITLINK_MODE}
"""The modes of a tree with no problem (a gitlink is :data:`SUBMODULE`)."""

_MAYBE_SPECIAL = re.compile(rb"^[.\xe2\xef]|[~\\]")
"""Bytes every name :func:`kistore.core.git_names.special_file` knows holds: a leading
``.`` (or a code point HFS+ ignores before it: U+200C-U+206F and U+FEFF begin with these
bytes in UTF-8), an 8.3 short name's ``~``, a ``\\`` (each part after one is read too)."""

_NOT_USUAL = (b"/", b"\0\0", b"\0.", b"\0\xe2", b"\0\xef", b"~", b"\\")
"""What names joined by NUL, one before each, hold when one of them is not usual
(:func:`_usual`): a ``/``, an empty name, and what :data:`_MAYBE_SPECIAL` matches (a name
``.`` or ``..`` begins with ``.`` too). A substring search each, not a regex: the regex
alternation cost ~18 ms over the shards of one gate at 1,000,000."""
