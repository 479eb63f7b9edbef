"""Names in the whole tree that a checkout on some machine would turn against it.

Git stores any name, but file systems do not keep them apart: on a case-insensitive or
normalising file system (macOS, Windows) ``Foo`` and ``foo``, or ``é`` as one code point
(NFC) and as ``e`` plus a combining accent (NFD), are one file, and a ``.git`` directory
in a tree (``.GIT``, ``.git.``, ``git~1``, ``.g\\u200cit``: one on some system) is the
repository's own directory there: a checkout writes its hooks and config (the attack of
CVE-2014-9390). So, anywhere in the tree, not only under ``store/``:

* KI115 ``dotgit-path-component``: a path component that is ``.git`` on some file system
  (git's own test, :func:`kistore.core.git_names.is_dotgit`: NTFS's ``.git::$INDEX_ALLOCATION``,
  ``.git:x``, ``.git\\hooks``, ``GIT~1``; HFS+'s ``.g\u200cit``);
* KI118 ``path-invalid-on-windows``: a path component Git for Windows cannot check out
  (:func:`kistore.core.git_names.windows_problem`: ``aux.txt``, ``notes:today``, ``docs.``):
  every Windows clone's checkout fails, as KI112 says of a collision;
* KI112 ``path-case-collision``: two entries of one directory whose names are equal under
  case folding and Unicode normalisation (files of one ``store/`` directory are left to
  :func:`kistore.check._rules.check_case_collisions`, which ``verify`` and ``check`` run on
  every file under ``store/``).

:func:`check_tree_names` reads every directory (``verify``); :func:`walk_judge` each tree
a commit of a range brings, on the walk KI423 makes (the gate: the cost follows the change;
a name added by one commit and removed by the next is judged too).
"""

from __future__ import annotations

import operator
import re
from dataclasses import replace
from typing import TYPE_CHECKING, cast

from ..core import git_names, layout
from ..core.findings import ERROR, Finding, rule
from ..core.git_names import name_key, name_keys
from ..core.tree_entries import DIRECTORY_MODE, TreeEntry, named_type, parse_tree
from ..git import treediff
from ..git.blobs import ObjectUnreadable, is_partial_clone, read_object, tree_or_type
from ._rules import PATH_CASE_COLLISION, check_layout_path
from ._trees import tree_findings, type_findings

if TYPE_CHECKING:  # pragma: no cover - typing only
    import pygit2

    from ..store import Store

DOTGIT = rule(
    "KI115", "dotgit-path-component", ERROR,
    "rename the file or directory: a checkout on some file system would write it into the "
    "repository's own .git directory")

WINDOWS_INVALID = rule(
    "KI118", "path-invalid-on-windows", ERROR,
    "rename the file or directory: Git for Windows refuses to check out such a path, so "
    "every Windows clone's checkout would fail")


def is_dotgit(name: str) -> bool:
    """Whether a path component is ``.git`` on some file system.

    git's own test (:func:`kistore.core.git_names.is_dotgit`: ASCII case, HFS+'s ignored
    code points, trailing dots and spaces, NTFS's ``:`` and ``\\``, its short name
    ``git~1``), or ``.git`` under full Unicode case folding with trailing dots and spaces
    dropped.

    Args:
        name: one path component.

    Returns:
        True when a checkout on some file system would write it as the ``.git`` directory.
    """
    return git_names.is_dotgit(name) or name_key(name).rstrip(". ") in _DOTGIT_KEYS


_DOTGIT_KEYS = (".git", "git~1")


def check_tree_names(store: Store, at: str | None = None) -> list[Finding]:
    """KI115, KI112 and KI423 over every directory of the tree of ``at`` (or ``HEAD``) (``verify``).

    KI423 (:func:`._trees.tree_findings`): an entry git's fsck refuses (a name with ``/``,
    empty, ``.``, ``..``; two of one name; out of order), in any tree read; and
    (:func:`._trees.type_findings`) an entry whose object is not of the type its mode
    names: every entry outside ``store/``, the directories under it (its files ``verify``
    reads whole: a tree there fails their content rules).

    Returns:
        Findings; none in a repository without commits.

    Raises:
        ObjectUnreadable: a tree is damaged or missing, or a blob outside ``store/`` is
            missing (not in a partial clone): ``verify`` reports it as KI117.
    """
    repo = store.repo
    if at is None and repo.head_is_unborn:
        return []
    tree_commit = store.commit(at or "HEAD")
    tree = tree_commit.tree
    findings: list[Finding] = []
    # Each tree is read raw from the object database once (no pygit2 Tree and TreeEntry
    # objects: ~15,000 group directories at 100,000 runs), or not at all when the history
    # check kept its entries (treediff.kept_entries); a tree with a name that is not ASCII
    # is read as a pygit2 Tree, whose names are decoded as they always were.
    pending: list[tuple[str, str]] = [("", str(tree.id))]
    store_prefix = layout.STORE_DIR + "/"
    where = f"commit {str(tree_commit.id)[:12]}"
    partial = is_partial_clone(repo)
    ahead = _ReadAhead()  # a directory under store/ read whole when its type is asked
    while pending:
        prefix, oid = pending.pop()
        # the history check (lineage.check_names, just before) read most trees already
        entries = treediff.kept_entries(oid)
        if entries is not None:
            whole = True
            if prefix.startswith(store_prefix) and _hex_files(entries) and \
                    _ascending([n for _, n, _ in entries]):
                continue  # as _HEX_FILES below
        else:
            # guarded: libgit2 loops on a cut loose tree (review F3); a missing one is damage
            raw = ahead.take(oid)
            if raw is None:
                raw = read_object(repo, oid, prefix.rstrip("/") or None)[1]
            if prefix.startswith(store_prefix) and _leaf(raw):
                continue  # a shard or a group of digest-named files: no .git, no file collides
            entries, whole = parse_tree(raw)
        findings += tree_findings(where, prefix, oid, entries, whole)  # KI423
        # KI423 on the objects' types: every entry outside store/ (one header read each);
        # under it the directories (verify reads every file there: a tree is no content),
        # each read whole here (the walk reads it next), a leaf done with at once
        skipped: set[bytes] = set()
        if prefix.startswith(store_prefix):
            asked = [e for e in entries if e[0] == DIRECTORY_MODE]
            if not partial:
                asked = ahead.read(repo, asked, skipped)
        else:
            asked = entries
        typed, refused = type_findings(repo, where, prefix, oid, asked, partial)
        findings += typed
        if whole and b"".join(n for _, n, _ in entries).isascii() and \
                all(m in _MODES for m, _, _ in entries):
            children = [(n.decode("ascii"), m == b"40000", i.hex()) for m, n, i in entries]
        else:  # a name beyond ASCII, an odd mode: pygit2 reads the tree, as it always did
            children = [(str(e.name), e.type_str == "tree", str(e.id))
                        for e in cast("pygit2.Tree", repo[oid])]
        findings += _entry_findings(prefix, [c[:2] for c in children], None)
        pending += [(f"{prefix}{name}/", i) for name, is_tree, i in children
                    if is_tree and (b := bytes.fromhex(i)) not in refused and b not in skipped]
    return findings


def walk_judge(where: str, prefix: str, entries: list[TreeEntry],
               brought: list[TreeEntry] | None, *,
               objects: list[tuple[str, str, str]] | None = None) -> list[Finding]:
    """KI115, KI118, KI112, and KI110, KI111, KI114 in one tree a commit of a range brings.

    The judge :func:`kistore.check._trees.new_tree_findings` applies to each tree it reads
    for KI423 (the one walk of the range's new trees: a path a commit adds and a later one
    removes stays in the history, a checkout of that commit on some machine writes or
    refuses it: reviewer r81 F13, r82 F6), each tree read once. The gate.

    Args:
        where: the commit, as messages name it (``"commit 0123456789ab"``).
        prefix: the tree's path (``""``: the root tree; else ending in ``/``).
        entries: its entries (:func:`kistore.core.tree_entries.parse_tree`).
        brought: the entries it brings (no parent's tree there has one of that mode, name
            and id); None: all.
        objects: when given, gets ``(where, path, blob id)`` of each regular file brought
            at a path of ``store/objects/``, ``store/metadata/`` or ``store/names/`` the
            layout allows (the caller's to judge as that commit holds it:
            :mod:`kistore.check._every_commit`, KI101, KI203, KI212 of every commit).

    Returns:
        Findings about the names brought, and collisions of one with another entry of the
        tree, files of one directory under ``store/`` too (a copy ``2E07...json`` beside
        ``2e07...json`` in a shard, removed by a later commit, passed: case99; the gate
        leaves to :func:`kistore.check._rules.check_case_collisions` a pair HEAD still
        holds), each on the name brought; under ``store/``, each file brought where the
        layout has none (KI110), not a regular file (KI111) or executable (KI114)
        (:func:`kistore.check._rules.check_layout_path`, with ``extra["mode"]``: hist00, a
        ``.json.bak`` added and removed in one range passed). Each with ``extra["commit"]``
        (the 40-hex-free ``where``). Names are decoded as pygit2 decodes them (UTF-8,
        ``surrogateescape``).
    """
    names = None if brought is None else set(map(_NAME, brought))
    wanted = None if names is None else {n.decode("utf-8", "surrogateescape") for n in names}
    in_store = prefix.startswith(layout.STORE_DIR + "/")
    laid = _layout_findings(where, prefix, entries if brought is None else brought,
                            objects) if in_store else []
    if wanted is not None and prefix.startswith(layout.STORE_DIR + "/") and \
            not any(named_type(m) == "tree" for m in set(map(_MODE, entries))):
        # Files only (a shard): the gate reads the new names for KI115/KI118, not the
        # ~4,000 entries of a shard at 1,000,000, and all names for KI112 only when two
        # of them may share a key (_may_collide: a few passes in C)
        found = [f for name in sorted(wanted) for f in _name_findings(prefix, name)]
        if _may_collide(list(map(_NAME, entries))):
            listing = [(n.decode("utf-8", "surrogateescape"), False) for _, n, _ in entries]
            found += [f for f in _entry_findings(prefix, listing, wanted, files=True)
                      if f.rule is PATH_CASE_COLLISION]
    else:
        found = _entry_findings(prefix, [(n.decode("utf-8", "surrogateescape"),
                                          named_type(m) == "tree") for m, n, _ in entries],
                                wanted, files=True)
    return [replace(f, extra={**f.extra, "commit": where}) for f in found + laid]


def _layout_findings(where: str, prefix: str, brought: list[TreeEntry],
                     objects: list[tuple[str, str, str]] | None) -> list[Finding]:
    """KI110, KI111, KI114 of each file ``brought`` into directory ``prefix`` under ``store/``.

    One :func:`kistore.check._rules.check_layout_path` a file brought (a path test: no
    read), so the cost follows the change. A regular file where the layout puts an object,
    a metadata file or a names file goes to ``objects`` (``(where, path, blob id)``), when
    given. A mode that is no octal
    number is KI423's (the walk's tree check), not judged here.
    """
    found: list[Finding] = []
    for mode, raw, oid in brought:
        if mode == DIRECTORY_MODE:
            continue  # its files are judged where the walk reads it
        path = prefix + raw.decode("utf-8", "surrogateescape")
        try:
            said = check_layout_path(path, int(mode, 8))
        except ValueError:
            continue
        found += [replace(f, extra={**f.extra, "mode": mode.decode("ascii", "replace")})
                  for f in said]
        if not said and objects is not None and path.startswith(_JUDGED):
            objects.append((where, path, oid.hex()))
    return found


_JUDGED = tuple(d + "/" for d in (layout.OBJECTS_DIR, layout.METADATA_DIR, layout.NAMES_DIR))
"""Where a file a commit brings is judged as that commit holds it (:mod:`._every_commit`):
an object's bytes (KI101), a metadata file's object (KI203), a names file (KI212)."""


def _entry_findings(prefix: str, children: list[tuple[str, bool]], names: set[str] | None,
                    *, files: bool = False) -> list[Finding]:
    """Return findings about the entries of one directory: (name, is a tree) in tree order.

    Args:
        prefix: the directory's path (``""``: the root; else ending in ``/``).
        children: its entries, (name, is a tree), in tree order.
        names: the names to judge (a collision judged when one of its two is among them);
            None: all.
        files: report a collision of two files of a directory under ``store/`` too (the
            gate's walk, :func:`walk_judge`: a pair a later commit removes is in no
            tree :func:`kistore.check._rules.check_case_collisions` reads, case99); False
            (``verify``): those are ``check_case_collisions``' alone.

    Returns:
        KI115, KI118 per name, KI112 per collision: on the name of the two that
        ``names`` holds (the one a commit brings), else the later in code point order.
    """
    in_store = prefix.startswith(layout.STORE_DIR + "/")
    findings = []
    entry_names = [name for name, _ in children]
    keys = name_keys(entry_names)
    for name, key in zip(entry_names, keys, strict=True):
        if names is not None and name not in names:
            continue
        if "git" in key and is_dotgit(name):  # every .git spelling holds "git" in its key
            findings.append(_dotgit(prefix, name))  # (KI115 says it: no KI118 for .git.)
        elif _MAYBE_WINDOWS_INVALID.search(name):
            findings += _windows(prefix, name)
    if len(set(keys)) == len(keys):
        return findings  # no two entries share a key: no collision here
    by_key: dict[str, list[tuple[str, bool]]] = {}
    for entry, key in zip(children, keys, strict=True):
        by_key.setdefault(key, []).append(entry)
    for entries in by_key.values():
        if len(entries) < 2:
            continue
        if in_store and not files and not any(is_tree for _, is_tree in entries):
            continue  # files of one store directory: rules.check_case_collisions
        (first, _), *rest = sorted(entries, key=lambda e: e[0])
        for other, _ in rest:
            if names is not None and not ({first, other} & names):
                continue
            if names is not None and other not in names:  # on the name brought (case99)
                first, other = other, first
            findings.append(Finding(
                PATH_CASE_COLLISION, f"collides with {prefix + first} under case folding "
                "or Unicode normalisation (one file on macOS and Windows)",
                file=prefix + other, extra={"collides_with": prefix + first}))
    return findings


_HEX_FILES = re.compile(rb"(?:100644 [0-9a-f]{62}(?:\.json|[0-9a-f]{2})\0.{20})*", re.DOTALL)
"""A raw tree of regular files named ``<62 hex>.json`` or ``<64 hex>`` only (an objects or
metadata shard, a comparison group's directory): no such name is ``.git`` anywhere, and
collisions of files under ``store/`` are :func:`kistore.check._rules.check_case_collisions`'s,
so :func:`check_tree_names` skips it (two thirds of a store's entries, ~0.4 s at 100,000
manifests, read as pygit2 entries; ~15,000 group directories in the bench's store)."""

_HEX_NAMES = re.compile(rb"(?:[0-9a-f]{62}(?:\.json|[0-9a-f]{2})\0)*")
"""The names of a tree :data:`_HEX_FILES` matches, each followed by a NUL."""


_HEX_FILE_NAME = re.compile(rb"100644 ([0-9a-f]{62}(?:\.json|[0-9a-f]{2}))\0.{20}", re.DOTALL)
"""The name of each entry of a raw tree :data:`_HEX_FILES` matches (findall, from the start)."""


def _ascending(names: list[bytes]) -> bool:
    """Whether names are in git's order for files, none twice (KI423 has nothing to say)."""
    return sorted(set(names)) == names


def _leaf(raw: bytes) -> bool:
    """Whether a raw tree under ``store/`` is one :func:`check_tree_names` skips (no .git)."""
    return _HEX_FILES.fullmatch(raw) is not None and _ascending(_HEX_FILE_NAME.findall(raw))


READ_AHEAD_BYTES = 16 << 20
"""Most bytes of trees :class:`_ReadAhead` holds for the walk at once (beyond: read again)."""


class _ReadAhead:
    """Directories under ``store/`` that :func:`check_tree_names` read whole for their type.

    Their type (KI423: a directory entry naming a blob) was read from each loose tree's
    header, then the walk opened and read the same file whole: two opens of each of the
    16,559 loose trees at 100,000 manifests. Each is now read once, whole: a tree is its
    type confirmed (:func:`kistore.git.blobs.tree_or_type`: only the header of any other
    object is read; a packed tree is read by libgit2 after one probe for a loose file,
    where the type check and the walk probed again each, mend00); a leaf (:func:`_leaf`)
    is done with (the walk would skip it); any other is held for the walk (up to
    :data:`READ_AHEAD_BYTES`; beyond, read again). An entry naming no tree, one that
    cannot be read (:class:`~kistore.git.blobs.ObjectUnreadable`), or a tree the history
    check kept (:func:`kistore.git.treediff.kept_entries`: the walk reads nothing of it) is
    left to the type check and the walk, as before, which say the same things in the same
    order.
    """

    def __init__(self) -> None:
        self._held: dict[str, bytes] = {}
        self._bytes = 0

    def take(self, oid: str) -> bytes | None:
        """Return the held bytes of tree ``oid`` (letting them go), or None."""
        raw = self._held.pop(oid, None)
        if raw is not None:
            self._bytes -= len(raw)
        return raw

    def read(self, repo: pygit2.Repository, entries: list[TreeEntry], skipped: set[bytes]
             ) -> list[TreeEntry]:
        """Read the directories ``entries`` names; return those whose type is still to ask.

        Args:
            repo: the repository.
            entries: the directory entries of a tree under ``store/``.
            skipped: gets the id of each leaf, which the walk need not read.
        """
        unconfirmed = []
        for entry in entries:
            oid = entry[2]
            hex_ = oid.hex()
            if treediff.kept_entries(hex_) is not None or hex_ in self._held:
                unconfirmed.append(entry)
                continue
            try:  # one probe for a loose file: a packed tree is read from its pack at once
                found = tree_or_type(repo, oid)
            except ObjectUnreadable:  # said where the type check or the walk reads it
                found = None
            if found is None or found[1] is None:  # absent, damaged; no tree
                unconfirmed.append(entry)
                continue
            raw = found[1]
            if _leaf(raw):
                skipped.add(oid)
            elif self._bytes + len(raw) <= READ_AHEAD_BYTES:
                self._held[hex_] = raw
                self._bytes += len(raw)
        return unconfirmed


def _hex_files(entries: list[tuple[bytes, bytes, bytes]]) -> bool:
    """Whether a tree's entries (mode, name, id) are what :data:`_HEX_FILES` matches.

    Regular files (``100644``) named ``<62 hex>.json`` or ``<64 hex>`` only, or none.
    """
    return all(m == b"100644" for m, _, _ in entries) and \
        _HEX_NAMES.fullmatch(b"".join(n + b"\0" for _, n, _ in entries)) is not None


_MODES = frozenset((b"100644", b"100755", b"120000", b"160000", b"40000"))
"""The modes git writes in a tree (a directory is ``40000``: pygit2's ``type_str`` "tree")."""

def _dotgit(prefix: str, name: str) -> Finding:
    return Finding(DOTGIT, f"{name!r} is .git on some file system", file=prefix + name)


def _windows(prefix: str, name: str) -> list[Finding]:
    """KI118 when Git for Windows cannot check out the component ``name`` of ``prefix``."""
    problem = git_names.windows_problem(name)
    if problem is None:
        return []
    return [Finding(WINDOWS_INVALID, f"{name!r} holds {problem}: Git for Windows "
                    "(core.protectNTFS, its default) refuses to check out the path",
                    file=prefix + name, expected="a name Windows can hold", found=problem)]


def _may_collide(names: list[bytes]) -> bool:
    """Whether two of a tree's names may share a :func:`~kistore.core.git_names.name_key`.

    Passes in C over all names (a shard's ~4,000 at 1,000,000, issue 22): ASCII names
    share a key only when equal in lower case, so a tree of lower-case ASCII names (the
    usual shard) shares none (two equal names are KI423's ``duplicateEntries``); a name
    beyond ASCII is keyed in full. Per shard of 3,900 names (callgrind): the join 0.45 M
    instructions, ``isascii`` 0.24 M, a ``memchr`` per upper-case letter 0.72 M (``lower``
    and a compare: 1.63 M; splitting and hashing every lowered name: ~7 M, so done only
    when a name holds an upper-case letter).
    """
    joined = b"\0".join(names)
    if not joined.isascii():
        return True
    return any(map(joined.__contains__, _UPPER)) and \
        len(set(joined.lower().split(b"\0"))) != len(names)


_UPPER = range(ord("A"), ord("Z") + 1)
"""The upper-case ASCII letters' bytes (``bytes.__contains__`` of one: a ``memchr``)."""


def _name_findings(prefix: str, name: str) -> list[Finding]:
    """KI115 (or else KI118) about the one component ``name`` of directory ``prefix``."""
    return [_dotgit(prefix, name)] if is_dotgit(name) else _windows(prefix, name)


_MAYBE_WINDOWS_INVALID = re.compile(r'[<>:"|?*\\\x00-\x1f]|[. ]$|^(?i:con|prn|aux|nul|com|lpt)')
"""What every name :func:`kistore.core.git_names.windows_problem` refuses holds (a cheap
test before it)."""


_MODE = operator.itemgetter(0)
"""An entry's mode (:data:`kistore.core.tree_entries.TreeEntry`)."""

_NAME = operator.itemgetter(1)
"""An entry's name (:data:`kistore.core.tree_entries.TreeEntry`)."""
