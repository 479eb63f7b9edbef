"""Blob bytes, also in a partial clone (``git clone --filter=blob:none``).

A partial clone holds every commit and tree but only the blobs it has needed so far;
git fetches a missing one from the promisor remote when a command reads it. libgit2 does
not: a blob it lacks is a ``KeyError``. :func:`read_blob` asks git for such a blob (``git
cat-file``, which fetches it), so that commands that read a few blobs -- the pull-request
gate reads the range's files and a few looked-up paths -- work in a partial clone and
fetch only what they read. In a full clone a missing object that a tree, commit or branch
names is the repository's damage: :func:`missing` (:class:`ObjectUnreadable`, "missing",
naming the alternates the clone borrows objects from), never a ``KeyError``. A clone
whose filter leaves trees out (``--filter=tree:0``) has the trees of each commit read
fetched in one ``git fetch`` without blobs (:func:`fetch_trees`): it then reads as a
blob-less clone does.

A blob that is here but cannot be read (a flipped bit in a pack or a loose object file:
libgit2's ``GitError``, e.g. "invalid distance too far back") is
:class:`ObjectUnreadable`, raised by :func:`read_blob` and :func:`blob_size`, the one place
a blob read's ``GitError`` is translated: the repository is damaged, which is no bug of
kistore. ``verify`` reports it as KI117; other commands stop with its message.
"""

from __future__ import annotations

import os
import re
import stat
import zlib
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, cast

from ..core import hashes
from ..core.errors import StoreStateError, not_text
from ..core.limits import CEILING_KEY, FILE_BYTES, FileTooLarge
from . import _loose
from .child import git_environment, run
from .commit_header import Header, commit_fault, first_line, header, subject
from .lazy import pygit2  # imported on first use (~0.2 s)
from .names import config_entries, resolve_name
from .refs import common_git_dir

_GIT_BLOB = 3
"""libgit2's object type number of a blob (``GIT_OBJECT_BLOB``), as ``odb.read`` returns it."""


class ObjectUnreadable(StoreStateError):
    """A git object this repository holds but cannot read: its stored bytes are damaged.

    A flipped bit in a pack file or a loose object file (disk, copy, or a hand edit):
    libgit2 fails to inflate it or finds it is not what its id says. Nothing kistore can
    repair: the object's bytes are gone from this repository; a clone or the remote still
    holds them.

    Args:
        oid: the object's id (40 hex digits; ``?`` when libgit2 did not say it).
        reason: what libgit2 said (its ``GitError``, without the id it starts with).
        path: the repository path the object was read for, when known (the error's file).
    """

    def __init__(self, oid: str, reason: str, path: str | None = None) -> None:
        self.oid = oid
        self.reason = reason
        self.path = path
        what = "a git object" if oid == "?" else f"git object {oid}"
        super().__init__(
            f"{what} cannot be read ({reason}): the repository is damaged. Run "
            "`git fsck` to list every damaged object, then restore them from another clone "
            "or the remote (e.g. clone again and copy your unpushed work over, or copy the "
            "object's pack or loose file from a clone that has it)", file=path)

    def __reduce__(self) -> tuple[type[ObjectUnreadable], tuple[str, str, str | None]]:
        """Pickle by the fields (a worker process raises it to its parent)."""
        return type(self), (self.oid, self.reason, self.path)

    def at(self, path: str) -> ObjectUnreadable:
        """Return this error naming ``path`` (the file it was read for), if it names none."""
        return self if self.path is not None else ObjectUnreadable(self.oid, self.reason, path)


class CommitUnparsable(ObjectUnreadable):
    """A commit libgit2 cannot parse: its header lines are not as git writes them.

    Its bytes are whole (no damage): ``git hash-object -t commit --literally`` or another
    tool wrote a commit with no ``author`` line, ``committer`` before ``author`` (git fsck
    ``missingAuthor``), an ident with no ``<EMAIL>``... (:func:`.commit_header.commit_fault`).
    Every libgit2 lookup and walk through it fails, so nothing of a history holding it can
    be read (reviewer r82 F1: an internal error). The gate reports it as KI225, ``verify``
    too; other commands stop with this message.

    Args:
        oid: the commit's id (40 hex digits).
        reason: what is wrong (:attr:`.commit_header.Fault.what`), with git fsck's id.
        path: what it was read for, when known.
    """

    def __init__(self, oid: str, reason: str, path: str | None = None) -> None:
        self.oid = oid
        self.reason = reason
        self.path = path
        StoreStateError.__init__(
            self, f"commit {oid} cannot be read by libgit2, which kistore reads history "
            f"with: {reason}. Nothing of a history holding it can be read; git did not "
            "write it so (`git hash-object --literally` or another tool did). Make the "
            "commit again with git (`git commit`, `git commit-tree` write the author and "
            "committer lines) and the commits after it on top of it (`git rebase`), or move "
            "the branch back to before it", file=path)

    def at(self, path: str) -> ObjectUnreadable:
        """Return this error naming ``path`` (the file it was read for), if it names none."""
        return self if self.path is not None else CommitUnparsable(self.oid, self.reason, path)


def unparsable(oid: str, raw: bytes | Header) -> CommitUnparsable | None:
    """Return the :class:`CommitUnparsable` for a commit's bytes libgit2 cannot parse, or None.

    Args:
        oid: the commit's id.
        raw: its bytes (loose or packed, read without libgit2's parser), or their
            :func:`.commit_header.header`.

    Returns:
        The error to raise (its reason: what is wrong, git fsck's id and the commit's first
        message line), or None when libgit2 parses the commit (a fault git fsck alone
        refuses, ``unterminatedHeader``, is the gate's: :mod:`kistore.check._commits`).
    """
    split = raw if isinstance(raw, Header) else header(raw)
    fault = commit_fault(split)
    if fault is None or not fault.fatal:
        return None
    return CommitUnparsable(oid, f"{fault.what} (git fsck: {fault.fsck}; its message: "
                                 f"\"{first_line(split.message)}\")")


def unreadable(oid: str | pygit2.Oid | bytes, error: pygit2.GitError,
               path: str | None = None) -> ObjectUnreadable:
    """Return the :class:`ObjectUnreadable` for libgit2's ``error`` reading ``oid``.

    Args:
        oid: the object's id (``pygit2.Oid``, 40 hex digits, or 20 raw bytes).
        error: what the read raised.
        path: the repository path read, when known.
    """
    hex_ = oid.hex() if isinstance(oid, bytes) else str(oid)
    reason = str(error)
    if reason.startswith(hex_ + ": "):  # libgit2 starts with the id; the message names it
        reason = reason[len(hex_) + 2:]
    return ObjectUnreadable(hex_, reason, path)


_OID_PREFIX = re.compile(r"([0-9a-f]{40}): ")

_DAMAGE_WORDS = (
    r"inflate|data check|distance too far|invalid (stored )?block|invalid code|"
    r"unknown compression|header check|hash mismatch|corrupt|truncated|"
    r"failed to parse (loose object|tree|commit|object)|invalid header|"
    r"packfile|incorrect (header|length)|invalid (distance|literal|bit length|window)|"
    r"too many length or distance|unknown header flags|header crc")
"""What libgit2 says when an object's stored bytes are damaged (zlib's and its own words),
matched ignoring case.

Every message of zlib's ``inflate`` (zlib 1.3 ``inflate.c``: "invalid distance code",
"invalid literal/length code", ...: a flipped bit in a pack gives one of them, which one
depends on the bit), and libgit2's own. A pattern, compiled by ``re`` on the first error
it is asked of (its cache keeps it): compiled at import, ignoring case, it cost ~1 ms of
every command's start (issue 22)."""

_NOT_FOUND = re.compile(
    r"object not found - no match for id \(([0-9a-f]{40})\)|Unable to read tree ([0-9a-f]{40})")
"""What libgit2 and pygit2 say of an object a tree or commit names that is not here: a tree
walked by path (``tree["a/b"]``), a walk's parent commit, a commit's ``.tree``."""

_MISSING_BY = ("missing: neither a loose file nor a pack of this repository holds it, "
               "though {}")
""":attr:`ObjectUnreadable.reason` of an object that is not here, and what names it."""

MISSING = _MISSING_BY.format("a tree or commit names it")
""":attr:`ObjectUnreadable.reason` of an object a tree or commit names that is not here."""


def damage(error: BaseException, path: str | None = None) -> ObjectUnreadable | None:
    """Return the :class:`ObjectUnreadable` a libgit2 read error says, or None.

    For a read that names no single object id up front (a tree walked by path, a note's
    commit): libgit2's ``GitError`` of a damaged object ("failed to inflate loose object",
    "incorrect data check", "object hash mismatch", ...), with the id libgit2's message
    starts with when it names one (``?`` otherwise: ``git fsck`` finds it).

    Args:
        error: what a pygit2 call raised.
        path: the repository path it was read for, when known.

    Returns:
        The error to raise, or None when ``error`` is not libgit2's ``GitError`` of a
        damaged object (:data:`_DAMAGE_WORDS`: a lock or ref failure is no damage) nor
        its "not found" of an object a tree or commit names (:data:`_NOT_FOUND`: missing).
    """
    if isinstance(error, ObjectUnreadable):
        return error.at(path) if path is not None else error
    if type(error).__name__ not in ("GitError", "NotFoundError") or \
            type(error).__module__.split(".")[0] not in ("pygit2", "_pygit2"):
        return None
    reason = str(error)
    absent = _NOT_FOUND.search(reason)
    if absent is not None:  # a tree walked by path names a tree this repository lacks
        return ObjectUnreadable(absent.group(1) or absent.group(2), MISSING, path)
    if not re.search(_DAMAGE_WORDS, reason, re.IGNORECASE):  # another failure (a lock, a ref)
        return None
    found = _OID_PREFIX.match(reason)
    if found is not None:
        return ObjectUnreadable(found.group(1), reason[found.end():], path)
    return ObjectUnreadable("?", reason, path)


def is_partial_clone(repo: pygit2.Repository) -> bool:
    """Return True when ``repo`` is a partial clone: a promisor remote, as git sets one up.

    ``remote.<name>.promisor = true`` (what ``git clone --filter`` writes), or the older
    ``extensions.partialClone``.

    Args:
        repo: the repository.
    """
    cached = repo.__dict__.get("_kistore_partial")
    if cached is None:
        cached = any(  # one key not UTF-8 (a remote r<0xE9>) ended pygit2's iteration
            entry.name == "extensions.partialclone" or (
                entry.name.startswith("remote.") and entry.name.endswith(".promisor")
                and str(entry.value).lower() in ("true", "yes", "on", "1"))
            for entry in config_entries(repo))
        repo.__dict__["_kistore_partial"] = cached
    return bool(cached)


def missing_object_said(repo: pygit2.Repository, oid: str, named_by: str) -> str:
    """Say a git object this repository lacks: what named it and how to get it.

    msg95 4: "no git object BLOB" said neither. In a blob-less (partial) clone git fetches
    a missing object from its promisor remote when asked for it; in a full clone a remote
    may hold it (``git fetch``); held nowhere, the store is damaged and ``kistore verify``
    says what else is.

    Args:
        repo: the repository.
        oid: the object's id (40 hex digits).
        named_by: what named it (``the blob of store/objects/...``, a ref and path).

    Returns:
        ``no git object OID (NAMED_BY): ...``, with the ways to get it, one sentence.

    Raises:
        pygit2.GitError: the repository's configuration cannot be read
            (:func:`is_partial_clone`); nothing else.
    """
    get = (f"this is a blob-less (partial) clone: `git cat-file -p {oid} >/dev/null` fetches "
           "it from the promisor remote (`git fetch --refetch` fetches every object again)"
           if is_partial_clone(repo) else
           "`git fetch` brings it if a remote holds it")
    return (f"no git object {oid} ({named_by}); {get}; if none holds it, the repository is "
            "damaged: `kistore verify` names what else is missing")


def tree_filter(repo: pygit2.Repository) -> str | None:
    """Return a partial clone's filter when it leaves trees out (``tree:0``), else None.

    git writes the filter a clone was made with as ``remote.<name>.partialclonefilter``;
    ``blob:none`` and ``blob:limit=N`` keep every tree (None here), ``tree:N``,
    ``sparse:oid=...`` and a ``combine:`` of either leave trees out (:data:`_LEAVES_TREES`).

    Args:
        repo: the repository.
    """
    if "_kistore_tree_filter" not in repo.__dict__:
        found: str | None = None
        if is_partial_clone(repo):
            found = next((str(e.value) for e in config_entries(repo)
                          if e.name.startswith("remote.")
                          and e.name.endswith(".partialclonefilter")
                          and _LEAVES_TREES.search(str(e.value))), None)
        repo.__dict__["_kistore_tree_filter"] = found
    return cast("str | None", repo.__dict__["_kistore_tree_filter"])


_LEAVES_TREES = re.compile(r"(^|[:+])(tree|sparse)(:|%3a)", re.IGNORECASE)
"""A filter spec that leaves trees out: ``tree:N``, ``sparse:...``, or in a ``combine:``
(whose parts git writes URL-encoded: ``combine:tree%3A0+blob%3Anone``)."""


def read_blob(repo: pygit2.Repository, oid: str | pygit2.Oid, path: str | None = None, *,
              commit: str | None = None) -> bytes:
    """Return the bytes of the blob ``oid``, fetching it through git in a partial clone.

    A loose blob's bytes are those the guard inflated (:func:`loose_object`: its SHA-1
    is ``oid``), not inflated again by libgit2. Held to :data:`~kistore.core.limits.
    FILE_BYTES` (16 MiB, the ceiling of ``manifest-bytes``) by its header before it is
    inflated, as every read of a stored file is (:meth:`kistore.store.View.read`): the
    export and the index read a 1 GB blob whole (res02).

    Args:
        repo: the repository.
        oid: the blob's id (``pygit2.Oid`` or 40 hex digits).
        path: the repository path it is read for (named by :class:`ObjectUnreadable`).
        commit: the commit whose tree holds it at ``path``, when the caller knows it (an
            export of a commit): a blob past the bound is then said as that commit's
            (:func:`too_large_fix`).

    Raises:
        FileTooLarge: the blob holds more than :data:`~kistore.core.limits.FILE_BYTES`
            (named by ``path``, else by its id); not inflated. Its fix names ``kistore
            verify --at COMMIT``, or ``--at REV`` when no commit is given.
        ObjectUnreadable: the object is damaged (libgit2 cannot read it), or missing from a
            repository that is no partial clone (a tree names it, so it must be here:
            :func:`missing`).
        StoreStateError: a partial clone whose remote could not give the blob.
    """
    data = read_blob_within(repo, oid, FILE_BYTES, path)
    size = data if isinstance(data, int) else len(data)
    if size > FILE_BYTES:  # (a blob a partial clone fetched just now has no header)
        raise FileTooLarge(path or str(oid), FILE_BYTES, size, CEILING_KEY,
                           TOO_LARGE_FIX if commit is None else too_large_fix(commit))
    return cast("bytes", data)


TOO_LARGE_FIX = ("kistore writes nothing this large and the pull-request gate refuses it "
                 "(KI106; KI409 for a note): `kistore verify --at REV` lists every such file "
                 "of a commit REV")
"""What :func:`read_blob`'s :class:`~kistore.core.limits.FileTooLarge` says to do when the
commit holding the blob is not known (until review01 L6 it named ``kistore verify``, which
lists the work tree's files only, also for an export of a commit whose file it was not)."""


def too_large_fix(commit: str) -> str:
    """Return what to do about a file past the bound that ``commit`` holds.

    Args:
        commit: the commit's id (any length; 12 hex digits are said).

    Returns:
        That the commit holds it, that kistore and the gate never let it in (KI106), the
        ``kistore verify --at COMMIT`` that lists every such file, and to revert.
    """
    short = commit[:12]
    return (f"commit {short} holds it, which kistore never writes and the pull-request "
            f"gate refuses (KI106): `kistore verify --at {short}` lists every such file; "
            "revert the commit that brought it")


def read_blob_within(repo: pygit2.Repository, oid: str | pygit2.Oid, limit: int | None,
                     path: str | None = None) -> bytes | int:
    """Return the bytes of the blob ``oid`` (as :func:`read_blob`), or its size past ``limit``.

    One read, and a blob past ``limit`` is never inflated: a loose blob's size comes from
    its object header (the first bytes of its file inflated, :func:`_loose_within`; the
    rest inflated, once, only when it is within ``limit``), a packed one's from its pack
    header (~5 us). Until 2026-12-06 a loose blob was inflated whole first: a 1 GB blob of
    zeros (a ~1 MB push, git unpacks it loose) cost the pull-request gate 47 s and 2 GB of
    memory before its KI106 (fresh03 H3). A blob a partial clone fetches now has no
    header: its bytes are returned, whatever their length (the caller compares).

    A size taken from a header is not held to the object's id (the bytes are not read):
    a damaged loose file whose header says more than ``limit`` reads as that size, as
    ``git cat-file -s`` says it; within ``limit`` it is read whole and held to its id.

    Args:
        repo: the repository.
        oid: the blob's id (``pygit2.Oid`` or 40 hex digits).
        limit: the most bytes wanted (None: any).
        path: the repository path it is read for (named by :class:`ObjectUnreadable`).

    Returns:
        The blob's bytes; or, when it holds more than ``limit`` bytes, that size (an int).

    Raises:
        ObjectUnreadable, StoreStateError: as :func:`read_blob`.
    """
    # libgit2 loops on a cut loose file (review F3): read here; past the limit by its header
    loose = loose_object(repo, oid, path) if limit is None else _loose_within(
        repo, oid, limit, path)
    if isinstance(loose, int):  # its header says more than limit bytes: never inflated
        return loose
    if loose is not None:
        if limit is not None and len(loose[1]) > limit:  # a tree, a commit: no header size
            return len(loose[1])
        if loose[0] == _GIT_BLOB:
            return loose[1]
    elif limit is not None:
        size = _header_size(repo, oid, path)
        if size is not None and size > limit:
            return size
    try:
        kind, data = repo.odb.read(oid)
        return bytes(data) if kind == _GIT_BLOB else bytes(repo[oid].read_raw())
    except KeyError:  # pygit2's NotFoundError too (a KeyError and a GitError)
        if not is_partial_clone(repo):
            raise missing(repo, oid, path) from None
        return fetch_blob(repo, str(oid))
    except pygit2.GitError as e:
        raise unreadable(oid, e, path) from e


def read_object(repo: pygit2.Repository, oid: str | pygit2.Oid | bytes,
                path: str | None = None) -> tuple[int, bytes]:
    """Return (libgit2's type number, bytes) of an object a tree or commit names.

    The guarded read of a tree or commit by id: the loose file first
    (:func:`loose_object`: libgit2 loops on one cut short), then libgit2's object database.

    Args:
        repo: the repository.
        oid: the object's id (``pygit2.Oid``, 40 hex digits, or 20 raw bytes).
        path: the repository path it is read for (named by :class:`ObjectUnreadable`).

    Raises:
        ObjectUnreadable: the object is damaged, or missing (:func:`missing`).
        StoreStateError: a tree a ``tree:0`` clone lacks could not be fetched
            (:func:`fetch_trees`).
    """
    loose = loose_object(repo, oid, path)
    if loose is not None:
        return loose
    hex_ = oid.hex() if isinstance(oid, bytes) else str(oid)
    for _ in range(2):  # a tree a tree:0 clone lacks: fetched, then read again
        try:
            kind, data = repo.odb.read(hex_)
            return int(kind), bytes(data)
        except KeyError:  # pygit2's NotFoundError too (a KeyError and a GitError)
            if not fetch_trees(repo, [hex_]):
                break
        except pygit2.GitError as e:
            raise unreadable(hex_, e, path) from e
    raise missing(repo, hex_, path)


def lookup(repo: pygit2.Repository, oid: str | pygit2.Oid, path: str | None = None
           ) -> pygit2.Object:
    """Return ``repo[oid]`` (a pygit2 object: a commit, a tree, a tag) read through the guard.

    For an object a reference, a commit or a tree names: its loose file is read first
    (:func:`loose_checked`: once a process), and libgit2's ``KeyError`` (it is not here) is the
    repository's damage, not a bug.

    Args:
        repo: the repository.
        oid: the object's id.
        path: the repository path (or reference) it is read for.

    Raises:
        ObjectUnreadable: the object is damaged, or missing (:func:`missing`).
        StoreStateError: a tree a ``tree:0`` clone lacks could not be fetched
            (:func:`fetch_trees`).
    """
    loose_checked(repo, oid, path)
    for _ in range(2):  # a tree a tree:0 clone lacks: fetched, then read again
        try:
            return repo[oid]
        except KeyError:
            if not fetch_trees(repo, [str(oid)]):
                break
        except pygit2.GitError as e:
            raise unreadable(oid, e, path) from e
    raise missing(repo, oid, path)


def missing(repo: pygit2.Repository, oid: str | pygit2.Oid | bytes, path: str | None = None,
            named_by: str = "a tree or commit names it") -> ObjectUnreadable:
    """Return the :class:`ObjectUnreadable` of an object ``repo`` lacks but must hold.

    An object a commit or tree names is part of the repository; libgit2's ``KeyError``
    for it (its loose file deleted, its pack gone, the alternate it was borrowed from
    pruned) is damage. The reason names the alternates the repository borrows from
    (``objects/info/alternates``), the one that does not exist first.

    Args:
        repo: the repository.
        oid: the object's id.
        path: the repository path it was read for, when known.
        named_by: what names it (``"refs/heads/main points at it"``).
    """
    hex_ = oid.hex() if isinstance(oid, bytes) else str(oid)
    said = _MISSING_BY.format(named_by)
    borrowed = _object_dirs(repo)[1:]
    gone = [d for d in borrowed if not os.path.isdir(d)]
    if gone:
        reason = (f"{said}; this repository borrows objects from the alternate {gone[0]} "
                  "(its objects/info/alternates), which does not exist: restore that "
                  "repository, or point objects/info/alternates at one that holds its "
                  "objects")
    elif borrowed:
        reason = (f"{said}; the alternate it borrows objects from ({', '.join(borrowed)}, "
                  "its objects/info/alternates) lacks it too: restore the object there")
    else:
        reason = said
    return ObjectUnreadable(hex_, reason, path)


def missing_target(repo: pygit2.Repository, rev: str) -> ObjectUnreadable | None:
    """Return the error of a revision whose branch or tag points at a commit not here, or None.

    A deleted loose commit (or a pruned alternate) leaves ``HEAD`` pointing at nothing;
    libgit2 then says it finds no ``HEAD``, as if the name were mistyped (review r72-11).
    Called when a revision did not resolve, so it costs nothing when it does.

    Args:
        repo: the repository.
        rev: the revision as typed (``HEAD``, ``main~2``: its name is looked up).

    Returns:
        :func:`missing` of the commit the name's reference points at (naming the
        reference), or of a parent its steps (``~2``, ``^2``) walk to; also of ``HEAD``'s
        commit asked for by its id (the derived index reads ``HEAD`` from git's files and
        asks for that id: "no commit named '<id>'" to one who gave none, review73 F2).
        None when the name is no reference, or every commit on the way is here.
    """
    form = _REVISION.fullmatch(rev)
    if form is None:
        return None
    ref = resolve_name(repo, form.group(1))
    if ref is None:
        return None if form.group(2) else _missing_head(repo, form.group(1))
    target = str(ref.target)
    if target not in repo.odb:
        return _ref_target_missing(repo, target, ref.name, typed=form.group(1))
    oid = _peeled(repo, target)
    for step, count in _STEP.findall(form.group(2)):  # HEAD~2: a parent on the way
        n = int(count) if count else 1
        for _ in range(n if step == "~" else min(n, 1)):
            commit = repo.get(oid)
            index = 0 if step == "~" else n - 1
            if not isinstance(commit, pygit2.Commit) or index >= len(commit.parent_ids):
                return None
            oid = str(commit.parent_ids[index])
            if oid not in repo.odb:
                return missing(repo, oid, None, named_by=(
                    f"{rev!r} names it: a parent of commit {commit.id}"))
    return None


def _missing_head(repo: pygit2.Repository, oid: str) -> ObjectUnreadable | None:
    """Return :func:`missing` of ``oid`` when it is ``HEAD``'s commit and not here, else None.

    Args:
        repo: the repository.
        oid: a revision that named no reference: a full object id, or anything else.
    """
    if re.fullmatch(r"[0-9a-f]{40}(?:[0-9a-f]{24})?", oid) is None or oid in repo.odb:
        return None
    try:
        head = repo.lookup_reference("HEAD").resolve()
    except (KeyError, ValueError, pygit2.GitError, pygit2.InvalidSpecError):
        return None
    if str(head.target) != oid:
        return None
    return _ref_target_missing(repo, oid, head.name, typed="HEAD")


def _ref_target_missing(repo: pygit2.Repository, oid: str, ref_name: str, *,
                        typed: str | None = None, tag: str | None = None,
                        path: str | None = None, fix: str = "") -> ObjectUnreadable:
    """Return :func:`missing` of ``oid``, named as what reference ``ref_name`` points at.

    The one wording of a reference whose commit is not here:
    ``"<ref>[ (which <typed> names)| (through the tag <tag>)] points at it[<fix>]"``.

    Args:
        repo: the repository.
        oid: the missing commit's id (hex).
        ref_name: the full name of the reference (``refs/heads/main``) or ``HEAD``.
        typed: the name as given, when it differs from ``ref_name`` (``HEAD``, ``main``).
        tag: the annotated tag's id the reference names, when ``oid`` is reached through it.
        path: the repository path or reference the read was for (see :func:`missing`).
        fix: what to do, appended as is (``"; ..."``), or empty.

    Returns:
        The :class:`ObjectUnreadable` (not raised).
    """
    via = f" (which {typed} names)" if typed is not None and typed != ref_name else ""
    if tag is not None:
        via = f" (through the tag {tag})"
    return missing(repo, oid, path, named_by=f"{ref_name}{via} points at it{fix}")


def ref_commit(repo: pygit2.Repository, name: str) -> pygit2.Commit | None:
    """Return the commit reference ``name`` points at (through annotated tags), read guarded.

    ``repo.references[name].peel(pygit2.Commit)`` reads the tip with libgit2, which loops
    for ever on a loose commit cut short (review F3) and says a missing one as a bare
    ``KeyError`` ("internal error" in a push hook). Here the tip, and each tag on the way,
    is read first (:func:`loose_object`); one that is not here is :func:`missing`, named
    as the reference's.

    Args:
        repo: the repository.
        name: a full reference name (``refs/heads/main``, ``refs/remotes/origin/main``);
            a symbolic one is followed.

    Returns:
        The commit (pygit2 Commit); None when there is no such reference, or it names no
        commit (a tag of a tree or a blob).

    Raises:
        ObjectUnreadable: the object the reference (or a tag on the way) names is damaged
            or missing; its ``path`` is ``name``.
    """
    try:
        ref = repo.references[name].resolve()
    except (KeyError, ValueError, pygit2.GitError, pygit2.InvalidSpecError):
        return None
    target = str(ref.target)
    oid = _peeled(repo, target, name)
    if oid not in repo.odb:
        fix = (f"; it only says what the remote held: `git update-ref -d {ref.name}`, then "
               "`git fetch`, sets it again" if ref.name.startswith("refs/remotes/") else "")
        raise _ref_target_missing(repo, oid, ref.name, tag=None if oid == target else target,
                                  path=name, fix=fix)
    found = lookup(repo, oid, name)
    return found if isinstance(found, pygit2.Commit) else None


def blob_size(repo: pygit2.Repository, oid: str | pygit2.Oid, path: str | None = None
              ) -> int | None:
    """Return a blob's size in bytes from its header, or None when the blob is not here yet.

    Args:
        repo: the repository.
        oid: the blob's id.
        path: the repository path it is read for (named by :class:`ObjectUnreadable`).

    A loose blob within :data:`~kistore.core.limits.FILE_BYTES` is inflated whole (held to
    its id, :func:`loose_object`); past it, its size is its header's, the rest never
    inflated (the index's size check of each file at a commit inflated a 1 GB blob, res02).

    Raises:
        ObjectUnreadable: the object is here but its header cannot be read (a damaged
            loose object: its header is compressed with it).
    """
    loose = _loose_headed(repo, oid, path,  # libgit2 loops on a cut one (review F3)
                          lambda _kind, size: size if size > FILE_BYTES else None)
    if isinstance(loose, int):
        return loose
    if loose is not None:
        return len(cast("tuple[int, bytes]", loose)[1])
    return _header_size(repo, oid, path)


def header_size(repo: pygit2.Repository, oid: str | pygit2.Oid, path: str | None = None
                ) -> int | None:
    """Return a blob's size from its object header alone: its bytes are never inflated.

    :func:`blob_size` inflates a loose blob whole to count it; here only the loose file's
    first 4 KiB are inflated (its header, :func:`_loose_headed`), or a packed object's
    header read: a caller holding blobs to a bound (the notes gate: a 300 MB note, a
    ~300 KB push, cost 22 s and 1.8 GB read whole, fresh03 H3) asks this first.

    Args:
        repo: the repository.
        oid: the blob's id.
        path: the repository path it is read for (named by :class:`ObjectUnreadable`).

    Returns:
        The size in bytes; None when the blob is not here (a partial clone has not fetched
        it yet).

    Raises:
        ObjectUnreadable: a loose file whose first bytes give no header is read whole and
            is damaged (as :func:`loose_object` says); a pack libgit2 cannot read.
    """
    found = _loose_headed(repo, oid, path, lambda _kind, size: size)
    if isinstance(found, int):
        return found
    if found is not None:  # no header in its first bytes, yet whole: its length
        return len(cast("tuple[int, bytes]", found)[1])
    return _header_size(repo, oid, path)


def _header_size(repo: pygit2.Repository, oid: str | pygit2.Oid, path: str | None
                 ) -> int | None:
    """:func:`blob_size` of an object no loose file holds: libgit2's header (None: not here)."""
    try:
        return int(repo.odb.read_header(oid)[1])
    except KeyError:
        return None
    except pygit2.GitError as e:
        raise unreadable(oid, e, path) from e


def object_type(repo: pygit2.Repository, oid: str | pygit2.Oid | bytes,
                path: str | None = None) -> int | None:
    """Return the type of an object a tree names, read from its header only, or None.

    What a tree entry's mode must agree with (KI423: ``git fsck``'s "is a tree, not a
    blob"). A loose object file is opened and only its first bytes are inflated (libgit2
    loops on a loose file cut short: never asked about one); a packed object's type is
    libgit2's ``odb.read_header``, which does not inflate the object either.

    Args:
        repo: the repository.
        oid: the object's id (``pygit2.Oid``, 40 hex digits, or 20 raw bytes).
        path: the repository path it is read for (named by :class:`ObjectUnreadable`).

    Returns:
        libgit2's type number (1 commit, 2 tree, 3 blob, 4 tag); None when neither the
        repository nor an alternate holds the object (a partial clone's promised blob, or
        one the tree names and nobody wrote).

    Raises:
        ObjectUnreadable: the loose file is damaged (:func:`loose_object`'s words); a
            directory or a FIFO stands where the loose file would be; a pack is damaged.
    """
    hex_, files = _loose_files(repo, oid)
    for file in files:
        kind = _loose_type(file, hex_, path)
        if kind is not None:
            return kind
    try:
        return int(repo.odb.read_header(hex_)[0])
    except KeyError:  # pygit2's NotFoundError too (a KeyError and a GitError)
        return None
    except pygit2.GitError as e:
        raise unreadable(hex_, e, path) from e


_HEADER_BYTES = 64
"""Inflated bytes that hold any loose object's header (``blob 12345678901234567890\\0``)."""


def _loose_type(file: str, hex_: str, path: str | None) -> int | None:
    """:func:`object_type` of the loose object file ``file``; None when there is none.

    Its first 4 KiB, inflated up to the header; a file whose first bytes give no header is
    read whole (:func:`_read_loose`), which says what is wrong with it as every read does
    ("cut short", "does not inflate").
    """
    opened = _open_loose(file, hex_, path)
    if opened is None:
        return None
    fd, _ = opened
    try:
        data = os.read(fd, 4096)
    finally:
        os.close(fd)
    kind, _ = _header_type(zlib.decompressobj(), data)
    if kind is not None:
        return kind
    found = _read_loose(file, hex_, path)
    return None if found is None else found[0]


def _header_type(stream: Any, data: bytes) -> tuple[int | None, bytes]:
    """Return the type a loose object's header gives and the bytes inflated to find it.

    The type is None when the first :data:`_HEADER_BYTES` inflated hold no whole header (a
    file cut short, one that does not inflate: read whole, its fault is said). ``stream``:
    a fresh ``zlib.decompressobj()``, left holding the rest of ``data`` (``unconsumed_tail``).
    """
    try:
        head = stream.decompress(data, _HEADER_BYTES)
    except zlib.error:
        return None, b""
    kind, space, size = head.partition(b"\0")[0].partition(b" ")
    if b"\0" in head and kind in _TYPES and space and size.isdigit():
        return _TYPES[kind], head
    return None, head


def promisor_remote(repo: pygit2.Repository) -> str | None:
    """Return the name of the remote a partial clone fetches missing objects from, or None.

    The first ``remote.<name>.promisor = true``, else ``extensions.partialClone``'s value,
    as git looks it up.

    Args:
        repo: the repository.
    """
    entries = list(config_entries(repo))
    remotes = [entry.name[len("remote."):-len(".promisor")] for entry in entries
               if entry.name.startswith("remote.") and entry.name.endswith(".promisor")
               and str(entry.value).lower() in ("true", "yes", "on", "1")]
    if remotes:
        return remotes[0]
    value = next((str(e.value) for e in entries if e.name == "extensions.partialclone"),
                 None)
    return value or None


def fetch_blobs(repo: pygit2.Repository, oids: Iterable[str]) -> int:
    """Fetch every blob of ``oids`` this partial clone lacks, in one ``git fetch``.

    git fetches a missing blob one at a time when a command reads it (one ``git fetch``
    process, and a connection to the remote, per blob: ``git cat-file`` of each). A
    caller about to read many blobs (the query index of a commit reads every manifest)
    fetches them here first, all in one process, as git's own lazy fetch does for one:
    ``git -c fetch.negotiationAlgorithm=noop fetch REMOTE --no-tags --no-write-fetch-head
    --recurse-submodules=no --filter=blob:none --stdin``, the ids on stdin. Then each is
    read once, from the object store.

    Args:
        repo: the repository (nothing is done unless it is a partial clone).
        oids: blob ids (40 hex digits); those already here are not fetched.

    Returns:
        How many blobs were asked for (0: none was missing, or not a partial clone).

    Raises:
        StoreStateError: git could not fetch them (the remote is gone or lacks them).
    """
    wanted, remote, failed = fetch_lacking(repo, oids)
    if failed is not None:
        raise StoreStateError(
            f"{len(wanted)} blob(s) (e.g. {wanted[0]}) are not in this partial clone and git "
            f"could not fetch them from its promisor remote {remote!r} ({failed}): make the "
            "remote reachable, or clone without --filter", file=repo.path)
    return len(wanted)


def fetch_lacking(repo: pygit2.Repository, oids: Iterable[str]
                  ) -> tuple[list[str], str | None, str | None]:
    """Fetch the blobs of ``oids`` this partial clone lacks, in one ``git fetch``; raise nothing.

    What :func:`fetch_blobs` does, for a caller that says a blob git could not fetch in its
    own words (a note on an edited object's earlier bytes: the remote unreachable, the
    answer is "not here", not an error).

    Args:
        repo: the repository (nothing is done unless it is a partial clone).
        oids: blob ids (40 hex digits).

    Returns:
        ``(wanted, remote, failed)``: the ids it lacked and asked for, sorted (empty:
        none, not a partial clone, or no promisor remote to ask); its promisor remote
        (None: none); None when git fetched them (or nothing was wanted), else the last
        line git said as :func:`_fetch` gives it.
    """
    if not is_partial_clone(repo):
        return [], None, None
    odb = repo.odb
    wanted = sorted({oid for oid in oids if oid not in odb})
    remote = promisor_remote(repo)
    if not wanted or remote is None:
        return [], remote, None
    return wanted, remote, _fetch(repo, remote, wanted)


def _fetch(repo: pygit2.Repository, remote: str, oids: list[str]) -> str | None:
    """Fetch ``oids`` (and, of a tree, its subtrees: no blobs) from ``remote`` in one process.

    ``git -c fetch.negotiationAlgorithm=noop fetch REMOTE --no-tags --no-write-fetch-head
    --recurse-submodules=no --filter=blob:none --stdin``, the ids on stdin: what git's own
    lazy fetch of a partial clone runs for one object.

    Returns:
        None when git fetched them; else git's first ``fatal:`` line, or the last line it
        said (or its exit status). The last alone was "and the repository exists." of an
        unreachable remote, the end of git's advice (att01).

    Raises:
        kistore.git.config_guard.ConfigRefused: ``remote`` is a repository on this machine
            whose git config (or one git reads) is a FIFO: its ``git-upload-pack`` would
            wait for ever (:mod:`kistore.git.remote_config`).
    """
    # Lazy: remote_config imports remotes, which a warm `rank` never needs; only a fetch does.
    from .remote_config import refuse_blocking_remote_config

    refuse_blocking_remote_config(Path(repo.path), remote)
    done = run(
        ["git", "--git-dir", repo.path, "-c", "fetch.negotiationAlgorithm=noop", "fetch",
         remote, "--no-tags", "--no-write-fetch-head", "--recurse-submodules=no",
         "--filter=blob:none", "--stdin"],
        input="".join(f"{oid}\n" for oid in oids).encode(), env=git_environment())
    if done.returncode == 0:
        return None
    said = done.stderr.decode("utf-8", "replace").strip().splitlines()
    # git's first fatal line says why; its last may be advice ("and the repository exists.")
    fatal = [line for line in said if line.startswith("fatal: ")]
    return fatal[0] if fatal else said[-1] if said else f"git exited {done.returncode}"


_whole_trees: set[tuple[str, str]] = set()
"""(git directory, tree id) of each tree :func:`fetch_trees` found whole (every subtree here)."""


def fetch_trees(repo: pygit2.Repository, trees: Iterable[str]) -> int:
    """Fetch, in a clone whose filter leaves trees out, every tree ``trees`` lack, in one fetch.

    A ``--filter=tree:0`` clone lacks the trees of every commit it has not checked out;
    libgit2 reads them and does not fetch (git does, one process per tree). Each tree of
    ``trees`` and its subtrees are looked for here (a few ms for a store's ~1,000 trees;
    those found whole are not walked again this process); the roots of those not whole are
    fetched with their subtrees, no blobs (:func:`_fetch`, ``--filter=blob:none``), so the
    commit is then what a blob-less clone holds: blobs are fetched as they are read.
    Nothing is done in any other repository (:func:`tree_filter`).

    Args:
        repo: the repository.
        trees: root tree ids (40 hex digits) of the commits about to be read.

    Returns:
        How many trees were fetched (0: none lacked, or the clone keeps its trees).

    Raises:
        StoreStateError: git could not fetch them (the remote is gone or refuses).
    """
    if tree_filter(repo) is None:
        return 0
    wanted = sorted({t for t in trees if not _whole(repo, t)})
    remote = promisor_remote(repo)
    if not wanted or remote is None:
        return 0
    failed = _fetch(repo, remote, wanted)
    if failed is not None:
        raise StoreStateError(
            f"tree {wanted[0]} (of {len(wanted)}) is not in this partial clone, whose filter "
            f"({tree_filter(repo)}) leaves trees out, and git could not fetch it from its "
            f"promisor remote {remote!r} ({failed}): make the remote reachable, or clone "
            "again with `--filter=blob:none` (every commit and tree)", file=repo.path)
    return len(wanted)


def _whole(repo: pygit2.Repository, tree: str) -> bool:
    """Whether ``tree`` and every tree below it are here (each read through the guard)."""
    pending = [tree]
    walked: list[str] = []
    while pending:
        oid = pending.pop()
        if (repo.path, oid) in _whole_trees:
            continue
        if oid not in repo.odb:
            return False
        listing = cast("pygit2.Tree", lookup(repo, oid))  # guarded: a cut loose tree
        pending += [str(e.id) for e in listing if e.type_str == "tree"]
        walked.append(oid)
    _whole_trees.update((repo.path, oid) for oid in walked)
    return True


def fetch_blob(repo: pygit2.Repository, oid: str) -> bytes:
    """Return the bytes of a blob this partial clone lacks, as git fetches it (``cat-file``).

    Args:
        repo: a partial clone.
        oid: the blob's 40 hex digits.

    Raises:
        KeyError: ``repo`` is not a partial clone.
        StoreStateError: it is, and git could not fetch the blob (the remote is gone).
    """
    if not is_partial_clone(repo):
        raise KeyError(oid)
    # Lazy: subprocess only when a partial clone fetches (see fetch_blobs).
    import subprocess

    done = subprocess.run(["git", "--git-dir", repo.path, "cat-file", "blob", oid],
                          capture_output=True, check=False, env=git_environment())
    if done.returncode != 0:
        said = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise StoreStateError(
            f"blob {oid} is not in this partial clone and git could not fetch it from its "
            f"promisor remote ({said[-1] if said else f'git exited {done.returncode}'}): "
            "make the remote reachable, or clone without --filter", file=repo.path)
    return done.stdout


def write_blob(repo: pygit2.Repository, data: bytes) -> pygit2.Oid:
    """Write ``data`` as a blob of ``repo`` (a loose object), beside a running ``git gc``.

    ``repo.create_blob`` alone fails now and then while a ``git gc`` or ``git repack -d``
    runs: their ``prune-packed`` removes the object's empty fan-out directory
    (``.git/objects/d3/``) between libgit2's ``mkdir`` and its ``rename`` (ENOENT, "No
    such file or directory"; r70 F9). The write is made again then, as
    :mod:`kistore.git.commit` does for every object an add writes; writing a blob twice is
    harmless (its name is its content). Callers outside the git layer use this, never
    ``create_blob`` itself.

    Args:
        repo: the repository written to.
        data: the blob's bytes (git names the blob by the SHA-1 of ``blob <length>``, a
            NUL byte, then ``data``).

    Returns:
        The blob's id.

    Raises:
        pygit2.GitError, OSError: the write failed for another reason (a full disk,
            permissions), or the directory kept vanishing for :data:`_loose.ATTEMPTS`
            attempts.
    """
    return _loose.written(lambda: repo.create_blob(data))


_TYPES = {b"commit": 1, b"tree": 2, b"blob": 3, b"tag": 4}
"""libgit2's object type numbers, by the name a loose object's header gives."""

_objects_dirs: dict[str, tuple[str, ...]] = {}
"""Each repository's object directories (its own, then its alternates), by ``repo.path``."""

_ALTERNATE_DEPTH = 5
"""How deep git follows alternates of alternates (``sha1-file.c``: deeper ones are ignored)."""


def _object_dirs(repo: pygit2.Repository) -> tuple[str, ...]:
    """Return ``repo``'s object directory, then each alternate's, read once per repository.

    The alternates are those git reads: the lines of ``objects/info/alternates`` (blank
    and ``#`` lines skipped; a relative path is relative to the object directory holding
    the file), recursively to :data:`_ALTERNATE_DEPTH`, each once. One that does not exist
    is kept (:func:`missing` names it).
    """
    git_dir = repo.path
    found = _objects_dirs.get(git_dir)
    if found is None:
        # Lazy: commit imports this module's package; the object directory once a repository.
        from .commit import objects_dir

        found = _objects_dirs[git_dir] = with_alternates(str(objects_dir(repo)))
    return found


def with_alternates(objects: str) -> tuple[str, ...]:
    """Return ``objects`` and the alternates it names, recursively (:func:`_object_dirs`).

    Args:
        objects: an object directory (``.git/objects``; a linked worktree's common one).

    Returns:
        The object directories git reads objects from, ``objects`` first (normalised paths;
        an alternate that does not exist is kept).
    """
    dirs = [os.path.normpath(objects)]
    pending = [(dirs[0], 0)]
    while pending:
        here, depth = pending.pop(0)
        if depth >= _ALTERNATE_DEPTH:
            continue
        try:
            with open(os.path.join(here, "info", "alternates"), "rb") as f:
                lines = f.read().decode("utf-8", "replace").splitlines()
        except OSError:  # none (the common case), or none to read: git reads none either
            continue
        for line in lines:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            other = os.path.normpath(os.path.join(here, line))
            if other not in dirs:
                dirs.append(other)
                pending.append((other, depth + 1))
    return tuple(dirs)


def loose_object(repo: pygit2.Repository, oid: str | pygit2.Oid | bytes,
                 path: str | None = None) -> tuple[int, bytes] | None:
    """Read ``oid``'s loose object file with Python's zlib, before libgit2 may read it.

    libgit2 1.9 (pygit2 1.21) loops for ever at 100% CPU, deaf to SIGTERM, inflating a
    loose object file cut short (libgit2/libgit2#7342, review F3): every read of it, of
    its header too. Python's zlib says such a stream did not end. So each object kistore
    reads by id is checked here first: the read costs one ``open`` that fails when the
    object is packed (~3 us), and replaces libgit2's inflate when it is loose. The loose
    files of the repository's alternates (``objects/info/alternates``, as git follows
    them) are checked too, after its own: libgit2 reads those as well.

    Args:
        repo: the repository.
        oid: the object's id (``pygit2.Oid``, 40 hex digits, or 20 raw bytes).
        path: the repository path it is read for (named by :class:`ObjectUnreadable`).

    Returns:
        (libgit2's type number, the object's bytes) of a whole loose object; None when
        neither the repository nor an alternate holds a loose file of it (packed, or
        absent: libgit2 reads or refuses it itself).

    Raises:
        ObjectUnreadable: the loose file is cut short, does not inflate, has a header
            that does not say its length, or holds bytes of another id; or a directory
            (a FIFO, a device) stands where the loose file would be.
    """
    hex_, files = _loose_files(repo, oid)
    for file in files:
        found = _read_loose(file, hex_, path)
        if found is not None:
            return found
    return None


def _loose_files(repo: pygit2.Repository, oid: str | pygit2.Oid | bytes
                 ) -> tuple[str, list[str]]:
    """Return ``oid`` as 40 hex digits and where its loose file would be, in git's order.

    The repository's object directory first, then each alternate's (:func:`_object_dirs`).
    """
    hex_ = oid.hex() if isinstance(oid, bytes) else str(oid)
    # joined by hand: two os.path.join a read were ~10% of a history walk's tree reads (the
    # directories are normalised: no trailing separator)
    name = f"/{hex_[:2]}/{hex_[2:]}"
    return hex_, [objects + name for objects in _object_dirs(repo)]


def loose_checked(repo: pygit2.Repository, oid: str | pygit2.Oid | bytes,
                  path: str | None = None) -> bool:
    """Guard a libgit2 read of ``oid`` as :func:`loose_object` does, once per loose file.

    For a caller that reads the object through libgit2 next (a pygit2 tree, commit or
    tag) and has no use for its bytes: a loose file this process has already read whole
    (:func:`loose_object`, its SHA-1 the id) is not inflated again while it is the same
    file (same inode, size and modification time: git replaces an object file by a
    rename, so a cut or swapped copy is another file, read again). A check of one tree
    listed 82,552 times (``check``'s name-collision candidates) cost a Python inflate and
    SHA-1 each; a ``stat`` now.

    Args:
        repo: the repository.
        oid: the object's id (``pygit2.Oid``, 40 hex digits, or 20 raw bytes).
        path: the repository path it is read for (named by :class:`ObjectUnreadable`).

    Returns:
        True when a whole loose file holds the object (here or in an alternate); False
        when none does (packed, or absent: libgit2 reads or refuses it itself).

    Raises:
        ObjectUnreadable: as :func:`loose_object`.
    """
    hex_ = oid.hex() if isinstance(oid, bytes) else str(oid)
    name = f"/{hex_[:2]}/{hex_[2:]}"
    for objects in _object_dirs(repo):
        file = objects + name
        try:
            status = os.stat(file)
        except OSError:  # not here: packed, absent (or none to read: _read_loose's rule)
            continue
        if _whole_loose.get(file) == (status.st_ino, status.st_size, status.st_mtime_ns):
            return True
        if _read_loose(file, hex_, path) is not None:
            return True
    return False


_whole_loose: dict[str, tuple[int, int, int]] = {}
"""Each loose object file :func:`_read_loose` found whole: (inode, size, mtime in ns), by path."""

_WHOLE_LOOSE_MAX = 500_000
"""Most files :data:`_whole_loose` remembers (~60 MB at most); past it, it starts afresh."""


def _open_loose(file: str, hex_: str, path: str | None) -> tuple[int, os.stat_result] | None:
    """Open the loose object file ``file``: (descriptor, its status), None when none is there.

    Raises:
        ObjectUnreadable: a directory, a FIFO, a socket or a device stands there.
    """
    try:
        # O_NONBLOCK: a FIFO there opens at once (to be refused below), never waits
        fd = os.open(file, os.O_RDONLY | os.O_NONBLOCK)
    except OSError:  # not here (packed, absent), or none to read (permissions): libgit2 says
        return None
    status = os.fstat(fd)
    if not stat.S_ISREG(status.st_mode):
        os.close(fd)
        what = "a directory" if stat.S_ISDIR(status.st_mode) else "a FIFO, socket or device"
        raise ObjectUnreadable(
            hex_, f"{what} stands where its loose object file should be ({file}): remove it",
            path)
    return fd, status


def _read_loose(file: str, hex_: str, path: str | None) -> tuple[int, bytes] | None:
    """:func:`loose_object` of the loose object file ``file`` (of id ``hex_``)."""
    read = _loose_data(file, hex_, path)
    if read is None:
        return None
    return _inflated(file, hex_, path, read[1], zlib.decompressobj(), read[0])


def loose_tree(repo: pygit2.Repository, oid: str | pygit2.Oid | bytes,
               path: str | None = None) -> tuple[int, bytes | None] | None:
    """:func:`object_type` of a loose object and, for a tree, :func:`loose_object`: one read.

    For a walk that asks a directory entry's type (KI423) and then reads the tree: the
    loose file is opened once and its first 4 KiB read, its header inflated first; the
    rest of it read and inflated only when it is a tree (any other object is left as
    :func:`object_type` leaves it: a blob a directory entry names is never read whole
    here; until 2026-12-05 it was read whole for its header).

    Args:
        repo: the repository.
        oid: the object's id (``pygit2.Oid``, 40 hex digits, or 20 raw bytes).
        path: the repository path it is read for (named by :class:`ObjectUnreadable`).

    Returns:
        None when no loose file holds it (packed, or absent); ``(type, None)`` for another
        object than a tree; ``(2, bytes)`` of a whole loose tree, as :func:`loose_object`.

    Raises:
        ObjectUnreadable: as :func:`loose_object`.
    """
    found = _loose_headed(repo, oid, path,
                          lambda kind, _size: (kind, None) if kind != _TYPES[b"tree"] else None)
    return cast("tuple[int, bytes | None] | None", found)


def _loose_within(repo: pygit2.Repository, oid: str | pygit2.Oid, limit: int,
                  path: str | None) -> tuple[int, bytes] | int | None:
    """:func:`loose_object` of a loose object within ``limit`` bytes; past it, its size.

    The size is its header's (the file's first bytes inflated): the rest of a loose object
    larger than ``limit`` is neither read nor inflated (fresh03 H3).

    Returns:
        None when no loose file holds it; the size (an int) its header gives when more
        than ``limit``; else ``(type, bytes)``, read whole and held to its id.

    Raises:
        ObjectUnreadable: as :func:`loose_object`.
    """
    found = _loose_headed(repo, oid, path, lambda _kind, size: size if size > limit else None)
    return cast("tuple[int, bytes] | int | None", found)


def _loose_headed(repo: pygit2.Repository, oid: str | pygit2.Oid | bytes, path: str | None,
                  early: Callable[[int, int], object]) -> object:
    """Read ``oid``'s loose file header first; ``early`` of it may answer without the rest.

    The loose file is opened once and its first 4 KiB read, its header inflated
    (:func:`_header_type`); when ``early(type, size)`` gives something other than None that
    is the answer, the rest of the file unread. Otherwise the rest is read and inflated on
    the same stream and held to the id, as :func:`loose_object` does (a file whose first
    bytes give no header is read whole, which says what is wrong with it).

    Returns:
        None when no loose file holds it (packed, or absent); what ``early`` gave; or
        ``(type, bytes)`` of the whole loose object.

    Raises:
        ObjectUnreadable: as :func:`loose_object`.
    """
    hex_, files = _loose_files(repo, oid)
    for file in files:
        opened = _open_loose(file, hex_, path)
        if opened is None:
            continue
        fd, status = opened
        try:
            first = os.read(fd, 4096)  # the header's, as _loose_type reads it
            stream = zlib.decompressobj()
            kind, head = _header_type(stream, first)
            if kind is not None:
                said = early(kind, int(head.partition(b"\0")[0].partition(b" ")[2]))
                if said is not None:
                    return said
            rest = _rest(fd)
        finally:
            os.close(fd)
        if kind is None:  # no header: read whole, which says what is wrong with it
            return _inflated(file, hex_, path, status, zlib.decompressobj(), first + rest)
        return _inflated(file, hex_, path, status, stream, stream.unconsumed_tail + rest, head)
    return None


def tree_or_type(repo: pygit2.Repository, oid: str | pygit2.Oid | bytes,
                 path: str | None = None) -> tuple[int, bytes | None] | None:
    """:func:`loose_tree`, and of an object no loose file holds, libgit2's: one probe.

    For a walk that asks a directory entry's type and then reads the tree: a packed tree
    was probed for a loose file three times (its type, by :func:`object_type`; its bytes,
    by :func:`read_object`; ~4.6 us each failed ``open``: 8,601 for 2,866 trees of a
    10,000-manifest store, ver99). Here the loose file is probed once; where there is none,
    libgit2 reads the object's header from its pack and, for a tree, its bytes (libgit2
    reads a packed object before a loose one: no loose file cut short is read by it).

    Args:
        repo: the repository.
        oid: the object's id (``pygit2.Oid``, 40 hex digits, or 20 raw bytes).
        path: the repository path it is read for (named by :class:`ObjectUnreadable`).

    Returns:
        As :func:`loose_tree`: ``(type, None)`` for another object than a tree, ``(2,
        bytes)`` of a tree; None when the repository holds no such object.

    Raises:
        ObjectUnreadable: as :func:`loose_tree`; a pack libgit2 cannot read it from.
    """
    found = loose_tree(repo, oid, path)
    if found is not None:
        return found
    hex_ = oid.hex() if isinstance(oid, bytes) else str(oid)
    try:
        kind = int(repo.odb.read_header(hex_)[0])
        if kind != _TYPES[b"tree"]:
            return kind, None  # a blob a directory entry names: never read whole here
        return kind, bytes(repo.odb.read(hex_)[1])
    except KeyError:  # pygit2's NotFoundError too (a KeyError and a GitError)
        return None
    except pygit2.GitError as e:
        raise unreadable(hex_, e, path) from e


def _rest(fd: int) -> bytes:
    """Return what is left to read of an open file, to its end."""
    data = b""
    while chunk := os.read(fd, 1 << 20):
        data += chunk
    return data


def _loose_data(file: str, hex_: str, path: str | None) -> tuple[bytes, os.stat_result] | None:
    """Return the compressed bytes of the loose object file ``file`` and its status, or None."""
    opened = _open_loose(file, hex_, path)
    if opened is None:
        return None
    fd, status = opened
    try:
        data = os.read(fd, status.st_size + 1)  # a regular file: whole in one read
        data += _rest(fd)  # (nothing: unless it grew meanwhile)
    finally:
        os.close(fd)
    return data, status


def _inflated(file: str, hex_: str, path: str | None, status: os.stat_result, stream: Any,
              data: bytes, head: bytes = b"") -> tuple[int, bytes]:
    """Inflate the rest of a loose object file and hold it to its id (:func:`loose_object`).

    Args:
        file: the loose file (remembered whole, :data:`_whole_loose`).
        hex_: the object's id.
        path: the repository path it is read for.
        status: the file's status as opened.
        stream: the ``zlib.decompressobj()`` inflating it, maybe past its header already
            (:func:`_header_type`: then ``data`` is its ``unconsumed_tail``).
        data: the compressed bytes left to inflate.
        head: what ``stream`` inflated of the file before (its header).

    Raises:
        ObjectUnreadable: the file does not inflate, is cut short, has a header that does
            not say its type and length, or holds another object's bytes.
    """
    try:
        raw = stream.decompress(data)
    except zlib.error as e:
        raise ObjectUnreadable(hex_, f"its loose object file does not inflate ({e})",
                               path) from None
    if not stream.eof:
        raise ObjectUnreadable(
            hex_, "its loose object file is cut short: the compressed data ends early", path)
    raw = head + raw
    header, _, body = raw.partition(b"\0")
    kind, _, size = header.partition(b" ")
    if kind not in _TYPES or not size.isdigit() or int(size) != len(body):
        raise ObjectUnreadable(
            hex_, "its loose object file's header does not say its type and length", path)
    if hashes.sha1(raw).hexdigest() != hex_:  # no OpenSSL on a warm answer (core.hashes)
        raise ObjectUnreadable(hex_, "its loose object file holds another object's bytes",
                               path)
    if len(_whole_loose) >= _WHOLE_LOOSE_MAX:
        _whole_loose.clear()
    _whole_loose[file] = (status.st_ino, status.st_size, status.st_mtime_ns)
    return _TYPES[kind], body


_read_histories: set[tuple[str, str]] = set()
"""(git directory, tip) of each history :func:`read_loose_history` has read."""


def read_loose_history(repo: pygit2.Repository, tip: str | pygit2.Oid) -> None:
    """Read first every loose commit reachable from ``tip``, before a ``repo.walk`` does.

    libgit2's walk reads each commit on the way; one whose loose file is cut short loops
    for ever (review F3). A packed commit is read through libgit2 (that read does not
    loop) for its parents. Once per tip and process.

    In a ``tree:0`` clone, the root trees of the history's commits are fetched here too,
    in one ``git fetch`` (:func:`fetch_trees`). Each commit's root tree that is not loose
    is read through libgit2 too: a damaged packed one is then named here, by its id, not
    met in a walk's ``commit.tree`` (a ``GitError`` naming no object).

    Raises:
        ObjectUnreadable: a commit of the history, or its root tree, is damaged, or a
            commit it names (a parent) is missing (a shallow clone's edge, listed in
            ``shallow``, is not).
        CommitUnparsable: a commit of the history is one libgit2 cannot parse (no author
            line, a date past a 64-bit number...: :func:`.commit_header.commit_fault`),
            loose or packed, or one whose ``parent`` line names a tree or a blob (libgit2
            parses it, but its walk fails there: reviewer r84 F4).
        StoreStateError: a ``tree:0`` clone's trees could not be fetched.
    """
    key = (repo.path, str(tip))
    if key in _read_histories:
        return
    seen: set[str] = set()
    trees: list[str] = []  # each commit's root tree: fetched in one, in a tree:0 clone
    packed: list[str] = []  # those not loose: read through libgit2 once fetched
    shallow = _shallow(repo)
    pending: list[tuple[str, str | None]] = [(str(tip), None)]  # (commit, the child naming it)
    while pending:
        oid, child = pending.pop()
        if oid in seen:
            continue
        seen.add(oid)
        loose = loose_object(repo, oid)
        if loose is not None:
            if loose[0] != _TYPES[b"commit"]:
                if child is not None:  # libgit2's walk: "object is no commit object"
                    raise _parent_not_commit(repo, child, oid, loose[0])
                continue
            split = header(loose[1])
            refused = unparsable(oid, split)
            if refused is not None:  # every libgit2 walk through it fails (r82 F1)
                raise refused
            tree = split.tree
            if tree is not None:  # the walker's caller reads commit.tree: guarded here
                if loose_object(repo, tree) is None:
                    packed.append(tree)
                trees.append(tree)
            if oid not in shallow:
                pending += [(parent, oid) for parent in split.parents]
            continue
        try:
            found = object_by_id(repo, oid)
        except ValueError:
            continue  # libgit2's walk says
        if found is None:  # a commit named as a parent (or the tip) that is not here
            raise missing(repo, oid, named_by="a commit of the history names it as a parent")
        if child is not None and not isinstance(found, pygit2.Commit):
            raise _parent_not_commit(repo, child, oid, int(found.type))
        try:
            commit = found.peel(pygit2.Commit)
        except (KeyError, ValueError, AttributeError, pygit2.GitError):
            continue  # no commit (a tag of a tree): the walk says
        if loose_object(repo, str(commit.tree_id)) is None:  # a packed commit's tree
            packed.append(str(commit.tree_id))  # may be loose
        trees.append(str(commit.tree_id))
        if oid not in shallow:
            pending += [(str(p), oid) for p in commit.parent_ids]
    fetch_trees(repo, trees)
    for tree_id in packed:
        _packed_tree_read(repo, tree_id)
    _read_histories.add(key)


def object_by_id(repo: pygit2.Repository, oid: str) -> Any | None:
    """Look ``oid`` up through libgit2 (a packed commit, say), its damage named by its id.

    Call it for an object that is not loose, or whose loose file was read whole first
    (:func:`loose_object`): libgit2 loops on a loose file cut short.

    Returns:
        The pygit2 object; None when the repository lacks it.

    Raises:
        CommitUnparsable: a commit libgit2 cannot parse (:func:`unparsable` of its bytes).
        ObjectUnreadable: libgit2 cannot read it (a flipped bit in a pack).
        ValueError: pygit2's, for an id it refuses.
    """
    try:
        return repo[oid]
    except KeyError:
        return None
    except pygit2.GitError as e:  # a damaged packed commit: named, with its id
        raise _packed_unparsable(repo, oid) or unreadable(oid, e) from e


def tree_read(repo: pygit2.Repository, tree: str) -> None:
    """Read the tree ``tree`` by id before libgit2 reads it in a ``commit.tree``.

    A loose one through :func:`loose_object`, a packed one through libgit2, whose
    ``GitError`` then names it (in ``commit.tree`` it names no object). One the repository
    lacks is left to its reader, which says so with the path it read it for.

    Raises:
        ObjectUnreadable: the tree's loose file or packed bytes are damaged.
    """
    if loose_object(repo, tree) is None:
        _packed_tree_read(repo, tree)


def _packed_tree_read(repo: pygit2.Repository, tree: str) -> None:
    """Read a tree that is not loose through libgit2, naming it when it is damaged."""
    try:
        repo[tree]
    except KeyError:
        pass  # not here: its reader says so, with the path it read it for
    except pygit2.GitError as e:
        raise unreadable(tree, e) from e


def _parent_not_commit(repo: pygit2.Repository, child: str, parent: str, kind: int
                       ) -> CommitUnparsable:
    """Return the :class:`CommitUnparsable` of commit ``child`` naming a non-commit parent.

    libgit2 parses such a commit but every walk through it fails ("object is no commit
    object"), git's own parser refuses it too ("bad parent"); its bytes cannot show it
    (reviewer r84 F4).

    Args:
        repo: the repository (``child``'s bytes read again, for its first message line).
        child: the commit's id.
        parent: the id its ``parent`` line names.
        kind: the type number of the object ``parent`` names (a tree, a blob, a tag).
    """
    read = _object_guarded(repo, child)
    said = f"; its message: \"{subject(read[1])}\"" if read is not None else ""
    what = next((k.decode() for k, n in _TYPES.items() if n == kind), "another object")
    return CommitUnparsable(child, f"its parent line names {parent}, which is a {what}, not a "
                                   f"commit (git: \"bad parent\"{said})")


def _packed_unparsable(repo: pygit2.Repository, oid: str) -> CommitUnparsable | None:
    """Return the :class:`CommitUnparsable` of a packed commit libgit2 refused, or None.

    Read through the object database, which does not parse (None when that fails too, or
    the object is no commit, or its bytes are as git writes them: damage, then).
    """
    try:
        kind, data = repo.odb.read(oid)
    except (KeyError, ValueError, pygit2.GitError):
        return None
    return unparsable(oid, data) if int(kind) == _TYPES[b"commit"] else None


def _shallow(repo: pygit2.Repository) -> frozenset[str]:
    """Return the commits of a shallow clone's edge (``shallow``: their parents are not here).

    Empty for a full clone (no ``shallow`` file in the git directory).
    """
    try:
        text = (common_git_dir(Path(repo.path)) / "shallow").read_text("ascii", "replace")
    except OSError:
        return frozenset()
    return frozenset(text.split())


def read_revision_guarded(repo: pygit2.Repository, rev: str) -> None:
    """Read first each commit a revision walks through, and the last one's tree if loose.

    libgit2 loops for ever on a loose object file cut short (libgit2/libgit2#7342, review
    F3); :func:`loose_object` says it is damaged instead. A packed commit is read with
    libgit2 here (:func:`_object_guarded`): one damaged (a flipped bit in the pack) is
    named by its id, where libgit2's own walk says only "HEAD~1: incorrect data check"
    (tidy77). A name (a branch, a tag, a full commit id), or a name and parent steps
    (``HEAD~2``, ``main^``, ``HEAD^2~1``), as git-rev-parse(1) reads them: each commit on
    the way is read here first. Anything else (``main^{tree}``, ``@{1}``), and a commit
    not here, is left to libgit2.

    Args:
        repo: the repository.
        rev: the revision as typed.

    Raises:
        ObjectUnreadable: a commit's (loose or packed), or the last commit's root tree's
            loose file, is damaged.
        CommitUnparsable: a commit on the way is one libgit2 cannot parse, or one whose
            ``parent`` line, stepped through, names no commit.
    """
    form = _REVISION.fullmatch(rev)
    if form is None:
        return
    name, steps = form.groups()
    ref = resolve_name(repo, name)
    if ref is not None:
        oid = str(ref.target)
    elif re.fullmatch(r"[0-9a-f]{40}", name) is None:
        return
    else:
        oid = name
    oid = _peeled(repo, oid)
    child: str | None = None  # the commit whose parent line named oid
    for step, count in _STEP.findall(steps):
        n = int(count) if count else 1
        for _ in range(n if step == "~" else 1):
            read = _object_guarded(repo, oid)
            if read is None:
                return  # not here: libgit2 says
            if read[0] != _TYPES[b"commit"]:
                if child is not None:  # libgit2's "no commit named" (r84 F4)
                    raise _parent_not_commit(repo, child, oid, read[0])
                return
            split = header(read[1])
            refused = unparsable(oid, split)
            if refused is not None:  # libgit2's "no commit named", or its InvalidError
                raise refused
            parents = split.parents
            index = 0 if step == "~" else n - 1
            if index >= len(parents) or (step == "^" and n == 0):
                return
            child, oid = oid, parents[index]
    read = _object_guarded(repo, oid)
    if read is not None and read[0] != _TYPES[b"commit"] and child is not None:
        raise _parent_not_commit(repo, child, oid, read[0])
    if read is not None and read[0] == _TYPES[b"commit"]:
        split = header(read[1])
        refused = unparsable(oid, split)
        if refused is not None:
            raise refused
        tree = split.tree
        if tree is not None:
            loose_object(repo, tree)


def _object_guarded(repo: pygit2.Repository, oid: str) -> tuple[int, bytes] | None:
    """Return ``oid``'s ``(type number, bytes)``: loose (:func:`loose_object`) or packed.

    Returns:
        None when the repository does not hold it (or libgit2 fails on it for another
        reason than damage: libgit2 says it where it is read next).

    Raises:
        ObjectUnreadable: its loose file or its packed bytes are damaged (named by its id).
    """
    loose = loose_object(repo, oid)
    if loose is not None:
        return loose
    try:
        kind, data = repo.odb.read(oid)
    except KeyError:  # not here (pygit2's NotFoundError is a KeyError and a GitError)
        return None
    except (ValueError, pygit2.GitError) as e:
        found = damage(e)
        if found is None:
            return None
        raise found from e
    return int(kind), data


def _peeled(repo: pygit2.Repository, oid: str, path: str | None = None) -> str:
    """Return the object an annotated tag (or a tag of a tag) names, each read guarded.

    ``oid`` itself when it is no tag (or cannot be read here: libgit2 says why). ``path``:
    what it is read for (a reference's name), named by :class:`ObjectUnreadable`.

    Raises:
        ObjectUnreadable: a loose tag on the way is damaged.
    """
    for _ in range(_TAG_DEPTH):
        loose = loose_object(repo, oid, path)
        if loose is not None:
            target = _OBJECT.match(loose[1]) if loose[0] == _TYPES[b"tag"] else None
            if target is None:
                return oid
            oid = target.group(1).decode()
            continue
        try:
            found = repo[oid]
        except (KeyError, ValueError, pygit2.GitError):
            return oid
        if not isinstance(found, pygit2.Tag):
            return oid
        oid = str(found.target)
    return oid


_TAG_DEPTH = 16
"""Most tags of tags followed (git gives up on a longer chain too)."""

_OBJECT = re.compile(rb"object ([0-9a-f]{40})\n")
"""An annotated tag object's first line: the object it tags (git's tag format)."""

_REVISION = re.compile(r"([^~^@:{}]+)((?:[~^][0-9]*)*)")
"""A name, then ``~N`` / ``^N`` parent steps (git-rev-parse(1)); anything else: libgit2's."""

_STEP = re.compile(r"([~^])([0-9]*)")
"""One parent step of :data:`_REVISION`."""


def libgit2_revision(repo: pygit2.Repository, rev: str) -> str | None:
    """Return ``rev`` as libgit2's ``revparse_single`` can take it, or None when it cannot.

    A ref name that is not UTF-8 (``caf<0xE9>``, a surrogate escape) makes pygit2's
    ``revparse_single`` raise UnicodeEncodeError, for a branch that exists too (upd98:
    ``kistore check main..caf<0xE9>`` said "no commit named"): such a name, with its parent
    steps (``caf<0xE9>~1``), is resolved here (:func:`kistore.git.names.resolve_name`) and
    given as its commit's id.

    Args:
        repo: the repository.
        rev: the revision as typed.

    Returns:
        ``rev`` itself when it is UTF-8 text; the id of what the name points at, then the
        steps; None when a name not UTF-8 names no ref (or has other syntax than steps).
        Raises nothing.
    """
    if not not_text(rev):
        return rev
    form = _REVISION.fullmatch(rev)
    ref = resolve_name(repo, form.group(1)) if form is not None else None
    if form is None or ref is None:
        return None
    return f"{ref.target}{form.group(2)}"


def head_commit(repo: pygit2.Repository) -> pygit2.Commit | None:
    """Return the commit ``HEAD`` names, read through the loose-object guard.

    ``repo.head.peel(pygit2.Commit)`` reads HEAD's commit with libgit2, which loops for
    ever on a loose commit cut short (review r72-2); this reads it first
    (:func:`read_revision_guarded`), and says a missing one as :func:`missing_target` does.

    Args:
        repo: the repository.

    Returns:
        HEAD's commit (pygit2 Commit), or None when HEAD is unborn (no commit yet).

    Raises:
        ObjectUnreadable: HEAD's commit (or its root tree) is damaged or missing.
        StoreStateError: a ``tree:0`` clone could not fetch its trees (:func:`fetch_trees`).
    """
    try:
        if repo.head_is_unborn:
            return None
    except pygit2.GitError:  # HEAD itself unreadable: no commit to read
        return None
    read_revision_guarded(repo, "HEAD")
    try:
        commit = repo.head.peel(pygit2.Commit)
    except (KeyError, ValueError, pygit2.GitError) as e:
        gone = missing_target(repo, "HEAD") or damage(e)
        if gone is None:
            raise
        raise gone from e
    fetch_trees(repo, [str(commit.tree_id)])  # a tree:0 clone's: its trees, in one fetch
    return commit
