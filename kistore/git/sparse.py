"""Which store paths a sparse checkout leaves out of the work tree (git's skip-worktree bit).

In a sparse checkout (``git sparse-checkout``, ``core.sparseCheckout = true``) git's index
marks every path outside the checkout *skip-worktree*: git treats such a path as holding
its index entry's bytes, never as deleted, and does not write it to the work tree. A
sparse index (``--sparse-index``) keeps one entry for a whole directory outside the
checkout instead of one per file (a *sparse directory*, its path ending in ``/``).

libgit2 (pygit2 1.21) neither exposes the bit through ``IndexEntry`` nor reads a sparse
index (``unsupported mandatory extension: 'sdir'``), and its ``status()`` calls a skipped
path deleted. So the bits are asked of git once: ``git ls-files -t -z --sparse --
.gitattributes kistore.toml store`` (``S`` marks a skipped path; ``--sparse`` lists a sparse
directory as itself rather than expanding the index). That costs one read of the index and
a line per store file (about 1 s at 1,000,000 manifests without a sparse index,
milliseconds with one), so it is paid only when the repository is a sparse checkout:
otherwise :func:`skip_worktree` costs one ``stat`` of ``$GIT_DIR/info/sparse-checkout`` (git
writes it whenever sparse checkout is turned on, and leaves it when turned off; then
``core.sparseCheckout`` is asked of git).

A skipped path holds its *index entry's* bytes, which differ from ``HEAD``'s while a change
there is staged but not committed (``git cherry-pick -n``, ``git merge --no-commit``, ``git
reset --soft``, ``git add --sparse``). So the same pass asks ``git diff --cached -z --raw
--no-renames HEAD -- .gitattributes kistore.toml store`` which entries differ from ``HEAD``
(git compares a sparse directory entry's tree without expanding the index, and names each
file that differs below it; ``git diff-index`` would expand a sparse index):
:attr:`SkipWorktree.staged` keeps those that are skipped, with the index's mode and blob
id, or None where the index holds no file; :attr:`SkipWorktree.changed` keeps every path
that differs, skipped or not, so ``verify`` need not ask git again whether the index holds
``HEAD``'s objects. Nothing staged (the common case) costs that one ``git`` child, in a
sparse checkout only.

The answer is kept per process, index file (its size, mtime and inode) and ``HEAD`` (its
file, and the branch's ref files' stat data): a command that commits (and so rewrites the
index), or a ``git reset --soft`` that moves ``HEAD`` alone, asks again.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Iterable
from pathlib import Path

from ..core import hashes, layout
from ..core.errors import StoreStateError
from .child import git_environment

__all__ = ["Cone", "SkipWorktree", "StagedEntry", "checkout_cone", "git_only", "git_status",
           "skip_worktree"]

StagedEntry = tuple[int, str] | None
"""What git's index holds at a path whose entry differs from ``HEAD``'s: ``(git mode, blob
id as hex)``, or None when the index holds no file there (its removal is staged)."""

_cache: dict[tuple[str, tuple[int, int, int], tuple[object, ...]], SkipWorktree] = {}


class SkipWorktree:
    """The store paths git's index marks skip-worktree (outside a sparse checkout).

    Kept as git listed them (``git ls-files -t -z``: ``TAG SP PATH NUL`` items in the index's
    byte order), and read one directory at a time: a question about one file builds the set
    of its directory's skipped names (a binary search of the listing, then that directory's
    items), so ``rank`` or ``show`` costs a few shard directories, not a Python object per
    file of the index (~0.6 us each: 1.2 s at 1,000,000 manifests).

    Args:
        listing: the listing (``S`` marks a skipped path; a sparse directory entry's path
            ends in ``/``).
        sparse_index: the index is a sparse index (it may hold sparse directory entries,
            which libgit2 cannot read: kistore stages no commit into it).
        key: what the listing was read from (:func:`skip_worktree`: the index's stat data
            and ``HEAD``'s).
        staged: skipped paths whose index entry differs from ``HEAD``'s
            (:data:`StagedEntry` each); the keys must be skipped paths.

    ``path in skipped`` is True for a skipped file and for any path below a skipped
    directory.
    """

    def __init__(self, listing: bytes, *, sparse_index: bool = False, key: str = "",
                 staged: dict[str, StagedEntry] | None = None) -> None:
        self.key = key
        """What the answer was read from (the index file's and ``HEAD``'s stat data), for
        caches."""
        self.staged: dict[str, StagedEntry] = staged or {}
        """The skipped paths whose index entry is not ``HEAD``'s (a change staged outside the
        checkout, not committed): path -> :data:`StagedEntry`. Empty in the common case."""
        self.changed: frozenset[str] | None = None
        """Every listed path (:data:`_LISTED`), skipped or not, whose index entry is not
        ``HEAD``'s or is unmerged (git's ``U``), as :func:`skip_worktree` read them; None
        when not read (an answer made by hand). ``verify`` asks it whether the index holds
        ``HEAD``'s objects instead of starting git again."""
        self._data = listing
        self._names: dict[str, tuple[frozenset[str], frozenset[str]]] = {}
        dirs = _sparse_dir().findall(listing) if sparse_index or b"/\0" in listing else []
        self._dirs = frozenset(os.fsdecode(d) for d in dirs)
        self.sparse_index = sparse_index or bool(self._dirs)

    @classmethod
    def of(cls, paths: list[str], staged: dict[str, StagedEntry] | None = None
           ) -> SkipWorktree:
        """Return the answer for these skipped ``paths`` (a sparse directory's ends in ``/``).

        ``staged``: as the constructor's (paths among, or below, ``paths``).
        """
        return cls(b"".join(b"S " + os.fsencode(p) + b"\0" for p in sorted(
            paths, key=os.fsencode)), staged=staged)

    def staged_below(self, directory: str) -> dict[str, StagedEntry]:
        """Return the :attr:`staged` entries anywhere below ``directory`` (full paths)."""
        prefix = f"{directory}/" if directory else ""
        return {path: entry for path, entry in self.staged.items() if path.startswith(prefix)}

    def __contains__(self, path: object) -> bool:
        """Return True when ``path`` (a file's repository path) is outside the checkout."""
        if not isinstance(path, str):
            return False
        if self._dirs and self._below_sparse_dir(path):
            return True
        directory, _, name = path.rpartition("/")
        return name in self._in(directory)[0]

    def _below_sparse_dir(self, path: str) -> bool:
        cut = path.find("/")
        while cut >= 0:  # store/, store/objects/, store/objects/sha256/, ...
            if path[:cut + 1] in self._dirs:
                return True
            cut = path.find("/", cut + 1)
        return False

    def dir_skipped(self, directory: str) -> bool:
        """Return True when the whole ``directory`` (no trailing ``/``) is a skipped entry."""
        return bool(self._dirs) and self._below_sparse_dir(f"{directory}/")

    def names_in(self, directory: str) -> set[str]:
        """Return the names of the skipped entries directly in ``directory`` (no ``/`` at end).

        A skipped file gives its name, a skipped entry deeper down the name of the
        subdirectory holding it. When ``directory`` itself lies in a skipped directory the
        answer is empty: ask :meth:`dir_skipped` first.
        """
        files, subdirs = self._in(directory)
        return set(files | subdirs)

    def stamp(self, directory: str) -> str:
        """Return a short digest of which entries in and below ``directory`` are skipped.

        What a cache of ``directory``'s comparison with ``HEAD`` is keyed on: it changes
        when a path there enters or leaves the checkout (or the index gains one there), or
        a change to a skipped file there is staged.
        """
        staged = self.staged_below(directory)
        mark = "" if not staged else "+" + hashes.blake2b(
            repr(sorted(staged.items())).encode(), digest_size=8).hexdigest()
        if self.dir_skipped(directory):
            return "all" + mark
        part = self._range(directory)
        if not (part.startswith(b"S ") or b"\0S " in part):
            return "none"
        return hashes.blake2b(part, digest_size=8).hexdigest() + mark

    def _in(self, directory: str) -> tuple[frozenset[str], frozenset[str]]:
        """Return (skipped file names, names of subdirectories with skipped entries).

        ``directory`` "" is the top of the work tree (``.gitattributes``, ``kistore.toml``).
        """
        hit = self._names.get(directory)
        if hit is None:
            skip = len(directory) + 3 if directory else 2  # "S " and the directory's "/"
            files: set[str] = set()
            subdirs: set[str] = set()
            for item in self._range(directory).split(b"\0"):
                if item.startswith(b"S "):
                    name, slash, _ = item[skip:].partition(b"/")
                    (subdirs if slash else files).add(os.fsdecode(name))
            hit = self._names[directory] = (frozenset(files), frozenset(subdirs))
        return hit

    def _range(self, directory: str) -> bytes:
        """Return the listing's items below ``directory`` (``NUL``-terminated; "": all)."""
        if not directory:
            return self._data
        prefix = os.fsencode(directory) + b"/"
        return self._data[self._start(prefix):self._start(prefix[:-1] + b"0")]  # "/" + 1

    def _start(self, target: bytes) -> int:
        """Return the offset of the first item whose path is at least ``target`` (bytes)."""
        data, lo, hi = self._data, 0, len(self._data)
        while lo < hi:  # items before lo are < target, items from hi on are >= target
            mid = (lo + hi) // 2
            start = data.rfind(b"\0", lo, mid) + 1 or lo  # the item holding mid
            start = max(start, lo)
            end = data.find(b"\0", start)
            end = len(data) if end < 0 else end
            if data[start + 2:end] < target:
                lo = end + 1
            else:
                hi = start
        return lo


_LISTED = (".gitattributes", layout.SETTINGS_FILE, layout.STORE_DIR)
"""The repository paths whose skip-worktree bits are asked of git (in git's byte order): the
store and the two top-level files kistore reads (a non-cone checkout such as ``/store/``
leaves them out; cone mode always checks top-level files out)."""

@functools.cache
def _sparse_dir() -> re.Pattern[bytes]:
    """Return the pattern of a sparse directory entry of ``git ls-files -t -z --sparse``.

    Its group: the entry's path. Compiled on first use (not at every start-up).
    """
    return re.compile(rb"(?<![^\0])S ([^\0]*/)(?=\0)")


def skip_worktree(git_dir: Path, work_tree: Path) -> SkipWorktree | None:
    """Return the store paths outside the sparse checkout, or None when it is not sparse.

    Args:
        git_dir: the repository's git directory (a linked worktree's own, which holds its
            ``info/sparse-checkout`` and ``index``).
        work_tree: its work tree (git runs there).

    Returns:
        None when the repository is not a sparse checkout (``core.sparseCheckout`` is not
        true), or has no index yet; else the skipped paths of :data:`_LISTED` (under
        ``store/``, and ``.gitattributes`` and ``kistore.toml``), with the changes staged
        to them (:attr:`SkipWorktree.staged`).

    Raises:
        StoreStateError: git could not list its index or compare it with ``HEAD`` (git
            missing, an index git cannot read); the message says what git said.
    """
    if not (git_dir / "info" / "sparse-checkout").exists():
        return None
    index = git_dir / "index"
    try:
        st = os.stat(index)
    except FileNotFoundError:
        return None
    key = (os.fspath(index), (st.st_size, st.st_mtime_ns, st.st_ino), _head_key(git_dir))
    hit = _cache.get(key)
    if hit is not None:
        return hit
    config = _git(work_tree, ["config", "--type=bool", "--get-regexp",
                              r"^(core\.sparsecheckout|index\.sparse)$"],
                  "tell which files are outside the sparse checkout", index, check=False)
    settings = dict(line.split(b" ", 1) for line in config.splitlines() if b" " in line)
    if settings.get(b"core.sparsecheckout") != b"true":
        return None
    listed = _git(work_tree, ["ls-files", "-t", "-z", "--sparse", "--", *_LISTED],
                  "tell which files are outside the sparse checkout", index)
    found = SkipWorktree(listed, key=repr(key),
                         sparse_index=settings.get(b"index.sparse") == b"true")
    changed = _staged(work_tree, index)
    if changed is not None:  # None: an unborn branch, nothing to compare with
        found.changed = frozenset(changed)
        found.staged = {path: entry for path, entry in changed.items() if path in found}
    _cache.clear()  # one index a process: an older answer is stale
    _cache[key] = found
    return found


def _staged(work_tree: Path, index: Path) -> dict[str, StagedEntry] | None:
    """Return the paths of :data:`_LISTED` whose index entry differs from ``HEAD``'s.

    ``git diff --cached -z --raw --no-renames HEAD``: items ``:MODE MODE OID OID
    STATUS NUL PATH NUL``; the second mode and id are the index's (a zero mode: no file; an
    unmerged path, status ``U``, has one too). On an unborn branch None: no ``HEAD`` to
    compare with (the sparse view reads nothing outside the checkout there).

    Raises:
        StoreStateError: git could not compare the index with ``HEAD``.
    """
    why = "compare the index with HEAD outside the sparse checkout"
    # `git diff --cached`, not `diff-index --cached`: git 2.39's diff-index expands a sparse
    # index to every file (0.07 s CPU at 20,000 entries, seconds at millions); diff does not.
    # Options that config could otherwise change (colour, an external diff, renames,
    # relative paths) are set.
    args = ["diff", "--cached", "-z", "--raw", "--no-renames", "--abbrev=40", "--no-color",
            "--no-ext-diff", "--no-relative"]
    try:
        done = _git(work_tree, [*args, "HEAD", "--", *_LISTED], why, index)
    except StoreStateError:
        if _git(work_tree, ["rev-parse", "-q", "--verify", "HEAD^{commit}"], why, index,
                check=False):
            raise  # HEAD is a commit: git failed for another reason
        return None  # unborn: no HEAD, and no view of one to overlay (nothing is read there)
    found: dict[str, StagedEntry] = {}
    items = done.split(b"\0")
    for status, path in zip(items[0::2], items[1::2], strict=False):
        fields = status.split(b" ")
        if len(fields) < 5 or not path:
            continue
        mode = int(fields[1], 8)
        found[os.fsdecode(path)] = None if mode == 0 else (mode, fields[3].decode("ascii"))
    return found


def _head_key(git_dir: Path) -> tuple[object, ...]:
    """Return what ``HEAD`` is read from, cheaply: its file's bytes and its ref files' stat.

    ``HEAD`` (in a linked worktree its own), and for a branch its loose ref file and
    ``packed-refs`` (in the common directory): a commit or ``git reset --soft`` changes one.
    """
    parts: list[object] = []
    try:
        head = (git_dir / "HEAD").read_bytes()
    except OSError:
        return ()
    parts.append(head)
    if head.startswith(b"ref: "):
        common = git_dir
        try:
            common = (git_dir / (git_dir / "commondir").read_text().strip()).resolve()
        except OSError:
            pass
        ref = os.fsdecode(head[5:].strip())
        for path in (common / ref, git_dir / ref, common / "packed-refs"):
            try:
                st = os.stat(path)
            except OSError:
                parts.append(None)
                continue
            parts.append((st.st_size, st.st_mtime_ns, st.st_ino))
    return tuple(parts)


def git_status(work_tree: Path, pathspec: str) -> dict[str, str]:
    """Return ``{path: XY}`` of ``git status --porcelain`` for tracked paths under ``pathspec``.

    For an index libgit2 cannot read (a sparse index): git itself compares it with ``HEAD``
    and the work tree, and never reports a skipped path. ``X`` is the index's change from
    ``HEAD``, ``Y`` the work tree's from the index (``D`` deleted, ``M`` modified, ``T``
    type changed, ``A`` added); renames are not paired (``--no-renames``).

    Args:
        work_tree: the work tree (git runs there).
        pathspec: the repository path to report under (``store/objects``).

    Raises:
        StoreStateError: git could not be run or failed; the message says what git said.
    """
    done = _git(work_tree, ["status", "--porcelain=v1", "-z", "--untracked-files=no",
                            "--no-renames", "--", pathspec],
                "compare the sparse index with HEAD", work_tree)
    return {os.fsdecode(item[3:]): item[:2].decode("ascii", "replace")
            for item in done.split(b"\0") if len(item) > 3}


def _git(work_tree: Path, args: list[str], why: str, file: Path, *, check: bool = True
         ) -> bytes:
    """Run ``git -C WORK_TREE ARGS`` and return its stdout (bytes).

    Args:
        work_tree: where git runs.
        args: git's arguments.
        why: what the answer is for, said in an error (``tell which files ...``).
        file: the file an error names.
        check: a non-zero exit is an error (``git config --get-regexp`` exits 1 when
            nothing matches: not one).

    Raises:
        StoreStateError: git could not be run, or (with ``check``) exited non-zero; the
            message says what git said and what to run.
    """
    # Lazy: subprocess (~2-3 ms of start-up) only in a sparse checkout: `rank` runs none.
    import subprocess

    try:
        done = subprocess.run(["git", "-C", os.fspath(work_tree), *args],
                              capture_output=True, check=False, env=git_environment())
    except OSError as e:
        raise StoreStateError(f"git could not be run ({e}) to {why}: install git",
                              file=os.fspath(file)) from None
    if check and done.returncode != 0:
        said = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise StoreStateError(
            f"`git {args[0]}` could not {why} "
            f"({said[-1] if said else f'git exited {done.returncode}'}); run `git status` to "
            "see what git says", file=os.fspath(file))
    return done.stdout


class Cone:
    """The directories a cone-mode sparse checkout holds (``git sparse-checkout set DIR...``).

    Git's cone mode (``Documentation/git-sparse-checkout.txt``, "Internals -- cone mode
    handling") holds every top-level file, every file below a *recursive* directory (one
    named to ``set``), and the files directly in each *parent* of one (``store/`` for
    ``store/policy``); nothing else. Its patterns are gitignore patterns that mean exactly
    that, so git reads them so with ``core.sparseCheckoutCone`` on or off.

    Args:
        recursive: the directories held whole (``/``-separated, no ``/`` at either end).
        parents: the directories whose own files only are held.
    """

    def __init__(self, recursive: frozenset[str], parents: frozenset[str]) -> None:
        self.recursive = recursive
        self.parents = parents

    def holds(self, path: str) -> bool:
        """Return True when the file ``path`` (a repository path) is inside the checkout."""
        directory = path.rpartition("/")[0]
        if not directory or directory in self.parents:
            return True
        cut = len(directory)
        while cut > 0:  # store/objects/sha256/ab, store/objects/sha256, store/objects, store
            if directory[:cut] in self.recursive:
                return True
            cut = directory.rfind("/", 0, cut)
        return False


def checkout_cone(git_dir: Path) -> Cone | None:
    """Return the cone of a sparse checkout, read from ``$GIT_DIR/info/sparse-checkout``.

    Only the file is read (no git child). Call it where :func:`skip_worktree` said the
    repository is a sparse checkout: the file stays when sparse checkout is turned off.

    Args:
        git_dir: the repository's git directory (a linked worktree's own).

    Returns:
        The :class:`Cone` the file's patterns mean; None when there is no such file, or
        its patterns are not all of cone mode's forms (``/*``, ``!/*/``, ``/DIR/``,
        ``!/DIR/*/``: a ``--no-cone`` checkout), whose files a caller cannot place
        without git's pattern matching.
    """
    try:
        text = (git_dir / "info" / "sparse-checkout").read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    lines = [line for line in text.splitlines() if line.strip() and not line.startswith("#")]
    if lines[:2] != ["/*", "!/*/"]:
        return None
    named: set[str] = set()
    parents: set[str] = set()
    for line in lines[2:]:
        match = _CONE_LINE.fullmatch(line)
        if match is None:
            return None
        directory = re.sub(r"\\(.)", r"\1", match.group(2))  # git escapes glob characters
        (parents if match.group(1) else named).add(directory)
    return Cone(frozenset(named - parents), frozenset(parents))


_CONE_LINE = re.compile(r"(!)?/((?:[^\\/*?\[]|\\.)+(?:/(?:[^\\/*?\[]|\\.)+)*)/(?(1)\*/|)")
"""A cone-mode line after ``/*`` and ``!/*/``: ``/DIR/`` (held) or ``!/DIR/*/`` (its
subdirectories not: DIR is a parent). Group 1: the ``!``; group 2: DIR, as escaped."""


def git_only(git_dir: Path, work_tree: Path, paths: Iterable[str]) -> frozenset[str]:
    """Return which of the new ``paths`` a commit in a sparse checkout writes to git only.

    Those outside the checkout's cone (:func:`checkout_cone`) with no file in the work tree:
    committed and staged with the skip-worktree bit (:func:`kistore.git._gitindex.stage`),
    never written to the work tree, as ``git sparse-checkout`` itself leaves such a path.
    A file there already (a plain ``kistore add`` or a ``git add --sparse`` put it there)
    is written as in a full checkout. Call it where :func:`skip_worktree` found a sparse
    checkout.

    Args:
        git_dir: the repository's git directory (a linked worktree's own).
        work_tree: its work tree.
        paths: repository paths of files about to be committed.

    Returns:
        The paths to write to git only; empty for a ``--no-cone`` checkout (its patterns
        are git's to match: every file is written, as before) or where this pygit2 cannot
        set the skip-worktree bit.
    """
    # Lazy: the write path's index code (pygit2, the writer); a read never loads it here.
    from ._gitindex import skip_settable

    cone = checkout_cone(git_dir)
    if cone is None or not skip_settable():
        return frozenset()
    root = os.fspath(work_tree)
    held: dict[str, bool] = {}  # directory -> it exists in the work tree

    def absent(path: str) -> bool:
        directory = path.rpartition("/")[0]
        there = held.get(directory)
        if there is None:
            there = held[directory] = os.path.isdir(os.path.join(root, directory))
        return not there or not os.path.lexists(os.path.join(root, path))

    return frozenset(path for path in paths if not cone.holds(path) and absent(path))
