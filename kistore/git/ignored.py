"""Which files of a work tree git ignores: what ``git add store`` would leave out, silently.

A committed ``.gitignore`` is judged line by line (KI119,
:mod:`kistore.core.gitignore`); a clone also has its own rules, never committed
(``.git/info/exclude``, ``core.excludesFile``), and a ``.gitignore`` not committed yet.
Here git itself (libgit2's ignore rules, the same files git reads) says which paths it
ignores: ``kistore add`` asks before it writes, ``verify`` of a work tree lists the files
under ``store/`` git ignores and no commit holds (reviewer r82 F8: such an object file was
left out of the contributor's commit without a word).
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterable
from typing import TYPE_CHECKING

from ..core.layout import STORE_DIR
from .child import git_environment

if TYPE_CHECKING:  # pragma: no cover - typing only
    import pygit2


def ignored_paths(repo: pygit2.Repository, paths: Iterable[str]) -> list[str]:
    """Return those of ``paths`` git ignores in this work tree, in their order.

    As ``git check-ignore --no-index`` answers (libgit2's ``git_ignore_path_is_ignored``):
    a file git ignores, or one under a directory it ignores, whether committed or not.

    Args:
        repo: the repository (a bare one ignores nothing: none returned).
        paths: repository paths of files (POSIX, relative to the work tree's root).

    Returns:
        The ignored ones.
    """
    if repo.is_bare or repo.workdir is None:
        return []
    return [path for path in paths if repo.path_is_ignored(path)]


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
