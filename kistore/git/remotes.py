"""Whether a remote a command is given is one git can reach: a remote's name, a URL or a path.

git takes ``git fetch NAME`` as the configured remote ``NAME``, and anything else as a
URL or a path; a misspelt name is then a path that is not there, and git says "fatal:
'nosuch' does not appear to be a git repository ... Please make sure you have the correct
access rights", which names neither the mistake nor the remotes (break96 L4, of ``kistore
notes rebase nosuch``). :func:`unknown_remote` says it before git is run.

Which remotes a repository has is git's answer (fresh12 F1): :func:`configured` asks ``git
config --get-regexp`` once, so a remote that ``include.path``, ``GIT_CONFIG_GLOBAL``,
``GIT_CONFIG_COUNT``/``GIT_CONFIG_KEY_n``/``GIT_CONFIG_VALUE_n`` or ``git -c`` defines
counts as git counts it (``git remote`` lists it). libgit2's configuration reads none of
those; it is asked only where git cannot be run.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from .child import git_environment
from .config_files import kept

if TYPE_CHECKING:  # pragma: no cover - typing only
    import pygit2


def configured(git_dir: Path | str) -> dict[str, tuple[list[str], list[str]]]:
    """Return the remotes git names for a repository, with their URLs and fetch refspecs.

    One ``git --git-dir GIT_DIR config -z --get-regexp ^remote\\.`` child, with the
    caller's environment (:func:`kistore.git.child.git_environment`); its answer is kept for
    the process while the environment and every config file git reads, includes too, are
    unchanged (:func:`kistore.git.config_files.kept`), so a command asks git once.

    Args:
        git_dir: the repository's git directory.

    Returns:
        ``{NAME: ([its url values, in order], [its fetch refspecs, in order])}`` for every
        remote any ``remote.NAME.*`` key defines (a URL or not), sorted by name: the names
        ``git remote`` lists.
        Where git cannot be run or refuses (a configuration file it cannot parse), libgit2's
        reading of the repository's configuration. Raises nothing.
    """
    git_dir = Path(git_dir)
    return kept(git_dir, ("remotes",), lambda: _asked(git_dir))


def _asked(git_dir: Path) -> tuple[dict[str, tuple[list[str], list[str]]], bool]:
    """Return :func:`configured`'s answer asked of git, and True (keep it).

    libgit2's answer and False (not kept) when git cannot be run or refuses.
    """
    # Lazy: subprocess (~2-3 ms of start-up) only where a command needs the remotes.
    import subprocess

    try:
        done = subprocess.run(["git", "--git-dir", os.fspath(git_dir), "config", "-z",
                               "--get-regexp", r"^remote\."], capture_output=True,
                              stdin=subprocess.DEVNULL, check=False, timeout=60,
                              env=git_environment())
    except (OSError, subprocess.SubprocessError):
        return _by_libgit2(git_dir), False
    if done.returncode not in (0, 1):  # 1: no such key
        return _by_libgit2(git_dir), False
    found: dict[str, tuple[list[str], list[str]]] = {}
    for entry in done.stdout.decode("utf-8", "surrogateescape").split("\0"):
        name_var, _, value = entry.partition("\n")
        name, _, var = name_var[len("remote."):].rpartition(".")
        if name_var.startswith("remote.") and name:  # any key: `git remote` lists it
            urls, fetch = found.setdefault(name, ([], []))
            if var in ("url", "fetch"):
                (urls if var == "url" else fetch).append(value)
    return dict(sorted(found.items())), True


def _by_libgit2(git_dir: Path) -> dict[str, tuple[list[str], list[str]]]:
    """:func:`configured` as libgit2 reads it (git not runnable); empty when it cannot."""
    # Lazy: pygit2 only on this rare path.
    import pygit2

    try:
        repo = pygit2.Repository(os.fspath(git_dir))
        return {str(r.name): ([str(r.url)] if r.url else [], list(r.fetch_refspecs))
                for r in sorted(repo.remotes, key=lambda r: r.name or "") if r.name}
    except (pygit2.GitError, ValueError, KeyError):
        return {}


def remote_names(repo: pygit2.Repository) -> list[str]:
    """Return the names of ``repo``'s configured remotes, sorted: :func:`configured`'s.

    Args:
        repo: the repository.

    Returns:
        The names (``git remote`` lists the same). Raises nothing.
    """
    return list(configured(repo.path))


def unknown_remote(repo: pygit2.Repository, remote: str) -> str | None:
    """Say that ``remote`` is no remote of ``repo``, nor a URL or path; None when git reaches it.

    A URL (``https://...``, ``git@host:path``) holds ``:`` or ``/``, a path ``/`` or is an
    existing directory or file (``git fetch ../index.git``, a bundle): those are taken as
    given, git says what it finds there.

    Args:
        repo: the repository whose remotes are read (``git remote``).
        remote: the name, URL or path given.

    Returns:
        ``no remote 'NAME' in this repository (its remotes: origin, upstream)`` (``it
        has no remote``), or None. Raises nothing.
    """
    names = remote_names(repo)
    if remote in names or "/" in remote or ":" in remote or os.path.exists(remote):
        return None
    listed = f"its remotes: {', '.join(names)}" if names else "it has no remote"
    return f"no remote {remote!r} in this repository ({listed})"
