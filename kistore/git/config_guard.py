"""Every config file git or libgit2 will read, looked at before either is asked (fresh14 F2).

git reads its configuration before it does anything else, in every command: the system
file (``$GIT_CONFIG_SYSTEM``, else ``/etc/gitconfig``; none under ``GIT_CONFIG_NOSYSTEM``),
the global one (``$GIT_CONFIG_GLOBAL``, else ``~/.gitconfig`` and
``$XDG_CONFIG_HOME/git/config``), the repository's ``config`` and ``config.worktree``,
and each file an ``include.path`` or ``includeIf.*.path`` of these (or of ``git -c``,
``GIT_CONFIG_COUNT``) names (git-config(1)). libgit2 reads the same files when it opens a
repository, except that it knows no ``GIT_CONFIG_*`` variable (it reads ``~/.gitconfig``
even when ``GIT_CONFIG_GLOBAL`` is set) and its system file is ``gitconfig`` in its own
search path. A FIFO at any of them makes the read wait for ever, inside git's C code,
before a hook or a message: ``add``, ``add --commit``, ``verify`` and ``notes push`` waited
until killed (fresh14 F2; ``git status`` typed by hand waits all the same).

:func:`refuse_blocking_config` asks :func:`kistore.git.config_files.config_files`, the
one owner of the list of files (each stat'ed; a symbolic link judged by what it names), and
refuses at once, naming the first FIFO, what names it and how to remove it. Only a FIFO is
refused: a directory or a socket makes git fail at once with its own message, and a device
is read as it reads (``/dev/null``, the usual way to give git no global config, reads as
empty). The files an include names are found in the regular files' text, ``path =`` lines
under ``[include]`` and ``[includeIf "..."]``, at most 10 levels deep as git; a FIFO only an
``includeIf`` whose condition git finds false names (``gitdir:``, ``gitdir/i:``,
``onbranch:``, judged as git does) is not refused: neither git nor libgit2 opens it
(fresh16 F7); any other condition counts as true. A remote on this machine's files, which
its ``git-upload-pack`` reads: :mod:`kistore.git.remote_config`. The list is found once
per process and key and kept with each file's ``stat``: a call stats the five to seven
files again (a FIFO swapped in is seen) and reads none unless one changed (docs/speed.md,
"Config files found once a process"). Asked before every ``git`` child
(:func:`kistore.git.child.git_environment`) and before libgit2 opens a repository
(:func:`kistore.git.opening.open_repository`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from ..core.errors import StoreStateError
from .config_files import config_files, said
from .refs import blocking_ref_file, ref_file_refused

__all__ = ["BlockingConfig", "ConfigRefused", "blocking_config", "refuse_blocking_config",
           "use_repository"]

_REPOSITORY: list[Path] = []
"""The git directory of the store this process opened last (:func:`use_repository`)."""


class ConfigRefused(StoreStateError):
    """:func:`refuse_blocking_config`'s refusal: a config file git would read is a FIFO.

    The user's environment, never the store's data: a reader that takes a failure to read
    a file for the file's fault (an invalid trust file, a revision left out) lets this
    through, so the command fails with it, exit 1 (fresh16 F3: ``rank`` trusted no key and
    ranked a withdrawn run, blaming ``store/trust/keys.json``).
    """


@dataclass(frozen=True)
class BlockingConfig:
    """A config file git or libgit2 would read that is a FIFO.

    Attributes:
        path: the file as said to the user (``.git/config`` for the repository's, else
            absolute).
        full: the file's absolute path (for ``rm``).
        what: what names it, in words (``the global git config ($GIT_CONFIG_GLOBAL)``).
        fix: what follows "remove it" in the fix (`` or unset GIT_CONFIG_GLOBAL``), or "".
    """

    path: str
    full: Path
    what: str
    fix: str = ""


def use_repository(git_dir: Path) -> None:
    """Name the repository whose config files :func:`refuse_blocking_config` looks at.

    Called when a store is found (:class:`kistore.store.Store`): the ``git`` children of a
    command run in its repository. Raises nothing.

    Args:
        git_dir: the repository's git directory (a linked worktree's own).
    """
    _REPOSITORY[:] = [git_dir]


def blocking_config(git_dir: Path | None = None, *, git: bool = True,
                    remote: str | None = None) -> BlockingConfig | None:
    """Return the first config file git (or libgit2) would read that is a FIFO.

    Args:
        git_dir: the repository's git directory, or None: the store this process found
            (:func:`use_repository`), else none (only the files outside a repository).
        git: True for a ``git`` child (the ``GIT_CONFIG_*`` variables count), False for
            libgit2 (its own system file, ``~/.gitconfig`` and ``$XDG_CONFIG_HOME/git/config``).
        remote: None; or, with ``git_dir`` a repository on this machine a remote names,
            that remote as given (its files said by absolute path; :func:`config_files`).

    Returns:
        The file, or None when none is a FIFO: the first FIFO of
        :func:`kistore.git.config_files.config_files` (each file stat'ed; read as text, for
        its includes, only when the list is found anew). Raises nothing.
    """
    if git_dir is None and _REPOSITORY:
        git_dir = _REPOSITORY[0]
    found = config_files(git_dir, git=git, remote=remote).first_fifo()
    if found is None:
        return None
    return BlockingConfig(said(found.path, None if remote is not None else git_dir),
                          found.path, found.what, found.fix)


def refuse_blocking_config(git_dir: Path | None = None, *, git: bool = True,
                           remote: str | None = None, server: str = "git-upload-pack"
                           ) -> None:
    """Refuse, before git or libgit2 is asked, when a config file it reads is a FIFO.

    Args:
        git_dir: as :func:`blocking_config`.
        git: as :func:`blocking_config`.
        remote: as :func:`blocking_config`: the files are those ``server`` reads in the
            remote's repository ``git_dir`` (:mod:`kistore.git.remote_config`).
        server: with ``remote``, the program git runs there: ``git-upload-pack`` (fetch,
            ls-remote) or ``git-receive-pack`` (push).

    Raises:
        ConfigRefused: :func:`blocking_config` found one (exit status 1); the message
            names it, what names it, and the fix (``rm PATH``, or unset the variable or
            delete the include line naming it).
    """
    found = blocking_config(git_dir, git=git, remote=remote)
    reader, undone = (("git", "no git command was run") if git else
                      ("libgit2", "the repository was not opened"))
    if remote is not None:
        reader = f"{server}, which git runs in {git_dir} for remote {remote},"
        undone = "nothing was fetched or pushed"
    if found is None:
        _refuse_blocking_ref_file(git_dir, remote, reader, undone)
        return
    # Lazy: shlex only when a refusal is said.
    import shlex

    fix = f"Remove it (`rm {shlex.quote(os.fspath(found.full))}`)"
    fix += found.fix
    raise ConfigRefused(
        f"{found.what} is a FIFO, not a regular file: {reader} opens and reads it before "
        f"anything else, and would wait for ever; {undone}. {fix}, then run the command "
        "again", file=found.path)


def _refuse_blocking_ref_file(git_dir: Path | None, remote: str | None, reader: str,
                              undone: str) -> None:
    """Refuse when a ref file the repository's git opens first is a FIFO, socket or device.

    ``HEAD``, ``packed-refs``, the branch ``HEAD`` names and ``refs/notes/kistore``
    (:func:`kistore.git.refs.blocking_ref_file`).

    git and libgit2 open them before they find a branch, right after the config files
    (fresh17 F11: a FIFO ``.git/packed-refs`` hung every command, ``ls`` included, and a
    path remote's ``packed-refs`` or ``HEAD`` hung ``notes fetch``, with no word).

    Args:
        git_dir: the repository's git directory (a remote's, with ``remote``), or None: the
            store this process found (:func:`use_repository`), else nothing is looked at.
        remote: the remote as given, or None for this repository.
        reader: who would open it (:func:`refuse_blocking_config`'s words).
        undone: what was not done.

    Raises:
        kistore.git.refs.RefFileRefused: one is (exit status 1), named with the fix.
    """
    if git_dir is None and _REPOSITORY:
        git_dir = _REPOSITORY[0]
    if git_dir is None:
        return
    found = blocking_ref_file(git_dir)
    if found is None:
        return
    path, kind, name = found
    shown = said(path, None if remote is not None else git_dir)
    if remote is None and git_dir.name == ".git" and name:  # .git/refs/heads/main
        shown = f".git/{name}"
    raise ref_file_refused(
        path, kind, shown=shown, whose="the repository's" if remote is None else
        f"remote {remote}'s", reader=reader, undone=undone, ref_name=name)
