"""Which store paths a sparse checkout leaves out of the work tree (git's skip-worktree bit).

In a sparse checkout (``git sparse-checkout``, ``core.sparseCheckout = true``) git's index
marks every path outside the checkout *skip-worktree*: git treats such a path as holding
its index entry's bytes, never as deleted, and does not write it to the work tree. A
sparse index (``--sparse-index``) keeps one entry for a whole directory outside the
checkout instead of one per file (a *sparse directory*, its path ending in ``/``).

libgit2 (pygit2 1.21) neither exposes the bit through ``IndexEntry`` nor reads a sparse
index (``unsupported mandatory extension: 'sdir'``), and its ``status()`` calls a skipped
path deleted. So the bits are asked of git once: ``git ls-files -t -z --sparse -- store``
(``S`` marks a skipped path; ``--sparse`` lists a sparse directory as itself rather than
expanding the index). That costs one read of the index and a line per store file
(about 1 s at 1,000,000 manifests without a sparse index, milliseconds with one), so it is
paid only when the repository is a sparse checkout: otherwise :func:`skip_worktree` costs
one ``stat`` of ``$GIT_DIR/info/sparse-checkout`` (git writes it whenever sparse checkout is
turned on, and leaves it when turned off; then ``core.sparseCheckout`` is asked of git).

The answer is kept per process and index file (its size, mtime and inode): a command that
commits (and so rewrites the index) asks again.
"""

from __future__ import annotations

import bisect
import hashlib
import os
import subprocess
from pathlib import Path

from ..core import layout
from ..core.errors import StoreStateError

__all__ = ["SkipWorktree", "git_status", "skip_worktree"]

_cache: dict[tuple[str, tuple[int, int, int]], SkipWorktree] = {}


class SkipWorktree:
    """The store paths git's index marks skip-worktree (outside a sparse checkout).

    Args:
        paths: repository paths (``/``-separated) of skipped files, and of sparse directory
            entries (skipped directories of a sparse index), each ending in ``/``.
        sparse_index: the index is a sparse index (it holds sparse directory entries, which
            libgit2 cannot read: kistore stages no commit into it).
        key: what the answer was read from (:func:`skip_worktree`: the index's stat data).

    ``path in skipped`` is True for a skipped file and for any path below a skipped
    directory.
    """

    def __init__(self, paths: list[str], *, sparse_index: bool = False, key: str = "") -> None:
        self.key = key
        """What the answer was read from (the index file's size, mtime and inode), for caches."""
        self._sorted = sorted(paths)
        self._files = frozenset(p for p in paths if not p.endswith("/"))
        self._dirs = frozenset(p for p in paths if p.endswith("/"))
        self.sparse_index = sparse_index or bool(self._dirs)

    def __len__(self) -> int:
        """Return the number of skipped entries (a sparse directory counts once)."""
        return len(self._sorted)

    def __contains__(self, path: object) -> bool:
        """Return True when ``path`` (a file's repository path) is outside the checkout."""
        if not isinstance(path, str):
            return False
        if path in self._files:
            return True
        if not self._dirs:
            return False
        cut = path.find("/")
        while cut >= 0:  # store/, store/objects/, store/objects/sha256/, ...
            if path[:cut + 1] in self._dirs:
                return True
            cut = path.find("/", cut + 1)
        return False

    def dir_skipped(self, directory: str) -> bool:
        """Return True when the whole ``directory`` (no trailing ``/``) is a skipped entry."""
        return f"{directory}/" in self  # checks each ancestor, and the directory itself

    def names_in(self, directory: str) -> set[str]:
        """Return the names of the skipped entries directly in ``directory`` (no ``/`` at end).

        A skipped file gives its name, a skipped entry deeper down the name of the
        subdirectory holding it. When ``directory`` itself lies in a skipped directory the
        answer is empty: ask :meth:`dir_skipped` first.
        """
        prefix = f"{directory}/"
        found = set()
        at = bisect.bisect_left(self._sorted, prefix)
        while at < len(self._sorted) and self._sorted[at].startswith(prefix):
            rest = self._sorted[at][len(prefix):]
            name, slash, _ = rest.partition("/")
            if name:
                found.add(name)
            if slash:  # skip the rest of this subdirectory: its name is found
                at = bisect.bisect_left(self._sorted, f"{prefix}{name}/\U0010ffff")
            else:
                at += 1
        return found

    def stamp(self, directory: str) -> str:
        """Return a short digest of which entries in and below ``directory`` are skipped.

        What a cache of ``directory``'s comparison with ``HEAD`` is keyed on: it changes
        when a path there enters or leaves the checkout.
        """
        prefix = f"{directory}/"
        if self.dir_skipped(directory):
            return "all"
        lo = bisect.bisect_left(self._sorted, prefix)
        hi = bisect.bisect_left(self._sorted, f"{prefix}\U0010ffff")
        if lo == hi:
            return "none"
        text = "\0".join(self._sorted[lo:hi])
        return hashlib.blake2b(text.encode(), digest_size=8).hexdigest()


def skip_worktree(git_dir: Path, work_tree: Path) -> SkipWorktree | None:
    """Return the store paths outside the sparse checkout, or None when it is not sparse.

    Args:
        git_dir: the repository's git directory (a linked worktree's own, which holds its
            ``info/sparse-checkout`` and ``index``).
        work_tree: its work tree (git runs there).

    Returns:
        None when the repository is not a sparse checkout (``core.sparseCheckout`` is not
        true), or has no index yet; else the skipped paths under ``store/``.

    Raises:
        StoreStateError: git could not list its index (git missing, an index git cannot
            read); the message says what git said.
    """
    if not (git_dir / "info" / "sparse-checkout").exists():
        return None
    index = git_dir / "index"
    try:
        st = os.stat(index)
    except FileNotFoundError:
        return None
    key = (os.fspath(index), (st.st_size, st.st_mtime_ns, st.st_ino))
    hit = _cache.get(key)
    if hit is not None:
        return hit
    git = ["git", "-C", os.fspath(work_tree)]
    try:
        config = subprocess.run([*git, "config", "--type=bool", "--get-regexp",
                                 r"^(core\.sparsecheckout|index\.sparse)$"],
                                capture_output=True, check=False)
        settings = dict(line.split(b" ", 1) for line in config.stdout.splitlines()
                        if b" " in line)
        if settings.get(b"core.sparsecheckout") != b"true":
            return None
        listed = subprocess.run([*git, "ls-files", "-t", "-z", "--sparse", "--",
                                 layout.STORE_DIR], capture_output=True, check=False)
    except OSError as e:
        raise StoreStateError(f"this is a sparse checkout and git could not be run ({e}) to "
                              "tell which files are outside it: install git",
                              file=os.fspath(index)) from None
    if listed.returncode != 0:
        said = listed.stderr.decode("utf-8", "replace").strip().splitlines()
        raise StoreStateError(
            "this is a sparse checkout and `git ls-files -t --sparse` could not list which "
            f"files are outside it ({said[-1] if said else f'git exited {listed.returncode}'})"
            "; run `git status` to see what git says", file=os.fspath(index))
    paths = [os.fsdecode(item[2:]) for item in listed.stdout.split(b"\0")
             if item.startswith(b"S ")]
    found = SkipWorktree(paths, key=repr(key),
                         sparse_index=settings.get(b"index.sparse") == b"true")
    _cache.clear()  # one index a process: an older answer is stale
    _cache[key] = found
    return found


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
    try:
        done = subprocess.run(["git", "-C", os.fspath(work_tree), "status", "--porcelain=v1",
                               "-z", "--untracked-files=no", "--no-renames", "--", pathspec],
                              capture_output=True, check=False)
    except OSError as e:
        raise StoreStateError(f"git could not be run ({e}) to compare the sparse index with "
                              "HEAD: install git", file=os.fspath(work_tree)) from None
    if done.returncode != 0:
        said = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise StoreStateError(
            "`git status` could not compare the index with HEAD "
            f"({said[-1] if said else f'git exited {done.returncode}'}); run `git status` to "
            "see what git says", file=os.fspath(work_tree))
    return {os.fsdecode(item[3:]): item[:2].decode("ascii", "replace")
            for item in done.stdout.split(b"\0") if len(item) > 3}
