"""Which files of a work tree git ignores: what ``git add store`` would leave out, silently.

A committed ``.gitignore`` is judged line by line (KI119,
:mod:`kistore.core.gitignore`); a clone also has its own rules, never committed
(``.git/info/exclude``, ``core.excludesFile``), and a ``.gitignore`` not committed yet.
Here git itself (the ``git`` binary: it reads every rule and every configuration git
does, libgit2 does not) says which paths it ignores: ``kistore add`` asks before it
writes, ``verify`` of a work tree lists the files under ``store/`` git ignores and no
commit holds (reviewer r82 F8: such an object file was left out of the contributor's
commit without a word).
"""

from __future__ import annotations

import os
import posixpath
import stat
import subprocess
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from ..core.errors import StoreStateError
from ..core.gitignore import check_gitignore
from ..core.layout import STORE_DIR
from .child import git_environment
from .config_files import config_files, xdg_config_home
from .refs import common_git_dir, git_dir_of

if TYPE_CHECKING:  # pragma: no cover - typing only
    import pygit2


def may_ignore(root: Path, git_dir: Path, common_dir: Path, paths: Iterable[str]) -> bool:
    """Tell whether any rule git reads could make it ignore one of ``paths``.

    A prefilter for :func:`ignored_paths` that starts no ``git`` process and opens no
    libgit2 repository (a plain work-tree ``add`` never opens one: ~0.2 s of start-up)
    and costs one ``lstat`` per directory
    on the paths: False only when no rule git reads may match a store path: each
    ``.gitignore`` in the work tree's root or a directory on ``paths``, ``info/exclude``
    and the global ignore file (``$XDG_CONFIG_HOME/git/ignore``, both anchored at the
    root) hold no line :func:`kistore.core.gitignore.check_gitignore` finds may match one
    (the KI119 judge, held to ``git check-ignore``), and no configuration file git reads
    (:func:`kistore.git.config_files.config_files`, whose text it keeps) names
    ``core.excludesFile`` or includes another (a mention is enough to ask git). Any doubt
    answers True.

    Args:
        root: the work tree's root.
        git_dir: its git directory (a linked worktree's own).
        common_dir: the repository's common git directory (``info/exclude`` lives there).
        paths: repository paths of files (POSIX, relative to ``root``).

    Returns:
        True when git must be asked; False when it cannot ignore any of ``paths``.
    """
    if os.environ.get("GIT_CONFIG_COUNT") or os.environ.get("GIT_CONFIG_PARAMETERS"):
        return True
    top = os.fspath(root)
    sources = [(posixpath.join(d, ".gitignore"), os.path.join(top, d, ".gitignore"))
               for d in path_dirs(paths)]
    sources += [(".gitignore", os.fspath(common_dir / "info" / "exclude")),
                (".gitignore", os.fspath(xdg_config_home() / "git" / "ignore"))]  # as the root's
    for path, file in sources:
        try:
            if not stat.S_ISREG(os.stat(file).st_mode):  # never opened: a FIFO would hang
                return True  # git is asked, after kistore.git.attr_guard refuses it
            with open(file, "rb") as opened:
                data = opened.read()
        except (FileNotFoundError, NotADirectoryError):
            continue
        except OSError:
            return True
        if check_gitignore(path, data):
            return True
    for config in config_files(git_dir).files:  # each stat'ed, read only when regular
        if config.stamp is None:  # absent
            continue
        if config.text is None:  # not a regular file (a FIFO: git is asked, after
            return True  # kistore.git.config_guard refuses it), or unreadable
        text = config.text.lower()
        if "excludesfile" in text or "include" in text:
            return True
    return False


def path_dirs(paths: Iterable[str]) -> set[str]:
    """Return every directory on ``paths`` (repository paths, POSIX), ``""`` (the root) too.

    The directories whose ``.gitignore`` git reads to judge ``paths``.

    Args:
        paths: repository paths of files (POSIX, ``store/objects/sha256/ab/...``).

    Returns:
        The directories (POSIX, no trailing ``/``): ``{"", "store", "store/objects", ...}``;
        ``{""}`` for no path. Raises nothing.
    """
    dirs = {""}
    heads: set[str] = set()  # each path's head (``rpartition``): its dirname's one input
    for path in paths:
        head = path.rpartition("/")[0]
        if head in heads:  # a bulk add's ~79,000 paths at 20,000 hold ~4,500 (issue 22)
            continue
        heads.add(head)
        parent = posixpath.dirname(path)
        while parent not in dirs:
            dirs.add(parent)
            parent = posixpath.dirname(parent)
    return dirs


class IgnoreMatch(NamedTuple):
    """A path git ignores and the rule that ignores it, as ``git check-ignore -v`` names it.

    Attributes:
        path: the repository path (POSIX, relative to the work tree's root).
        source: the file holding the rule, as git names it (``.gitignore``,
            ``store/.gitignore``, ``.git/info/exclude``, or the ``core.excludesFile``
            path as configured).
        line: the rule's line number in ``source`` (1-based).
        pattern: the rule as written there.
    """

    path: str
    source: str
    line: int
    pattern: str

    def rule(self) -> str:
        """Return ``SOURCE:LINE: PATTERN``, where the rule is (as ``git check-ignore -v``)."""
        return f"{self.source}:{self.line}: {self.pattern}"


def ignored_paths(root: Path, paths: Iterable[str]) -> list[IgnoreMatch]:
    """Return those of ``paths`` git ignores in the work tree ``root``, in git's order.

    One ``git check-ignore --no-index --stdin -z -v`` for all of them: a file git ignores,
    or one under a directory it ignores, whether committed or not, by every rule git
    itself reads, the configuration the environment gives included (``GIT_CONFIG_GLOBAL``,
    ``GIT_CONFIG_SYSTEM``, ``GIT_CONFIG_COUNT``/``KEY_n``/``VALUE_n``,
    ``GIT_CONFIG_PARAMETERS``: libgit2, asked here before, reads none of these, so a
    ``core.excludesFile`` set through them was not honoured: reviewer r84 F3). A path
    whose last matching rule is a negation (``!keep.json``) is not ignored; git's
    verbose output names it all the same, and it is left out.

    Args:
        root: the work tree's root.
        paths: repository paths of files (POSIX, relative to ``root``).

    Returns:
        One :class:`IgnoreMatch` per ignored path.

    Raises:
        StoreStateError: git could not be run or failed (its last line of stderr said).
    """
    given = list(paths)
    if not given:
        return []
    try:
        done = subprocess.run(
            ["git", "-C", os.fspath(root), "check-ignore", "--no-index", "--stdin", "-z",
             "-v"], input=b"".join(p.encode("utf-8", "surrogateescape") + b"\0"
                                   for p in given),
            capture_output=True, env=git_environment(), check=False)
    except OSError as e:
        raise StoreStateError(
            f"git could not be run ({e.strerror}) to ask which files it ignores (KI119); "
            "install git, then add again; nothing was written") from e
    if done.returncode not in (0, 1):  # 1: none ignored
        said = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise StoreStateError(
            "`git check-ignore` failed asking which files git ignores (KI119: "
            f"{said[-1] if said else f'exit {done.returncode}'}); nothing was written")
    fields = [f.decode("utf-8", "surrogateescape") for f in done.stdout.split(b"\0")]
    found = []
    for i in range(0, len(fields) - 3, 4):  # SOURCE NUL LINE NUL PATTERN NUL PATH NUL
        source, line, pattern, path = fields[i:i + 4]
        if source and not pattern.startswith("!"):
            found.append(IgnoreMatch(path, source, int(line), pattern))
    return found


def ignored_untracked(repo: pygit2.Repository) -> list[str] | str:
    """Return the files and directories under ``store/`` git ignores and does not track.

    One ``git ls-files --others --ignored --exclude-standard --directory`` (git's own walk:
    a directory it ignores whole is one entry, ending in ``/``): what ``git add store``
    skips and ``git status`` does not show.

    Args:
        repo: the repository (bare: none).

    Returns:
        The paths (sorted, as git lists them); or, when git could not be asked (not
        installed, a failure), why, as a sentence.
    """
    if repo.is_bare or repo.workdir is None:
        return []
    try:
        done = subprocess.run(
            ["git", "-C", os.fspath(repo.workdir), "-c", "core.quotePath=false", "ls-files",
             "-z", "--others", "--ignored", "--exclude-standard", "--directory", "--",
             STORE_DIR], capture_output=True, env=git_environment(), check=False)
    except OSError as e:
        return f"git could not be run ({e.strerror})"
    if done.returncode:
        said = done.stderr.decode("utf-8", "replace").strip().splitlines()
        return f"git ls-files failed ({said[-1] if said else f'exit {done.returncode}'})"
    return sorted(p.decode("utf-8", "surrogateescape") for p in done.stdout.split(b"\0") if p)


def output_ignored(root: Path, directory: str, writes: Iterable[str]) -> bool:
    """Tell whether git ignores every file a command would write under ``directory``.

    An export or a site written into the work tree and not ignored is thousands of
    untracked files that one ``git add -A`` commits beside the store (reviewer r85 F8).

    Args:
        root: the work tree's root.
        directory: the output directory, relative to ``root`` (POSIX; ``""`` for the root).
        writes: files the command writes, relative to ``directory`` (its top files and one
            deeper page or table file).

    Returns:
        True when git ignores each of them (a rule such as ``/public/``); False otherwise.

    Raises:
        StoreStateError: an ignore file ``git check-ignore`` reads is a FIFO or another
            file that is not a regular one (git would wait on it for ever:
            :func:`kistore.git.attr_guard.refuse_blocking_ignores`); git could not be run or
            failed (:func:`ignored_paths`).
        RefsUnreadable: ``root``'s ``.git`` is unreadable.
    """
    # Lazy: the guard is for an output inside a work tree only.
    from .attr_guard import refuse_blocking_ignores

    paths = {posixpath.join(directory, name) for name in writes}
    refuse_blocking_ignores(root, common_git_dir(git_dir_of(root)), path_dirs(paths),
                            "`git check-ignore` of the files this command writes")
    return {match.path for match in ignored_paths(root, paths)} >= paths
