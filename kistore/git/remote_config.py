"""A remote on this machine whose git config is a FIFO: refused before git is asked (fresh16 F6).

``git fetch``, ``git push`` and ``git ls-remote`` of a remote that is a path or a
``file://`` URL run ``git-upload-pack PATH`` (``git-receive-pack`` for a push) in that
repository, and it reads the repository's configuration before anything else: the system
and global files, its ``config`` (a bare repository's ``config``, a work tree's
``.git/config``) and each file an ``include.path`` or a true ``includeIf`` names, judged
for that repository (its git directory, its branch). A FIFO there made ``kistore notes
push``/``fetch`` wait for ever, with no word (fresh16 F6; plain ``git push`` waits the
same). :func:`refuse_blocking_remote_config` finds the repository as git does and refuses
at once, naming the file (:func:`kistore.git.config_guard.refuse_blocking_config`, whose
list of files is :func:`kistore.git.config_files.config_files`'). A remote reached over
the network (``ssh``, ``https``, ``git://``) reads its configuration on another machine:
not looked at.

The URL is git's: ``git ls-remote --get-url REMOTE`` (``remote.NAME.url``, ``insteadOf``
applied; a URL or path given as is), for a push of a configured remote ``git remote
get-url --push --all REMOTE`` (its ``pushurl`` values, else its URLs). Kept for the
process while git's configuration is unchanged (:func:`kistore.git.config_files.kept`).
Not followed: a ``pushInsteadOf`` of a URL given on the command line, and a
``remote.NAME.uploadpack``/``receivepack`` program of the user's own.
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

from .child import git_environment
from .child import run as run_git
from .config_files import kept
from .config_guard import refuse_blocking_config
from .refs import RefsUnreadable, common_git_dir
from .remotes import configured

__all__ = ["local_git_dir", "refuse_blocking_remote_config", "remote_urls"]

_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://")
"""The start of a URL as git tells one from a path (``is_url``: ``scheme://``)."""

_SUFFIXES = ("/.git", "", ".git/.git", ".git")
"""What ``git-upload-pack PATH`` tries after PATH, in order (git's ``enter_repo``)."""

_GITFILE_BYTES = 65536
"""At most this much of a ``.git`` file is read (``gitdir: PATH``)."""


def refuse_blocking_remote_config(git_dir: Path, remote: str, *, push: bool = False) -> None:
    """Refuse when git, fetching from or pushing to ``remote``, would wait on a FIFO config.

    Call before a ``git fetch``, ``git push`` or ``git ls-remote`` of ``remote``. Each URL
    git would reach (:func:`remote_urls`) that is a repository on this machine
    (:func:`local_git_dir`) has its config files looked at as the ``git-upload-pack`` or
    ``git-receive-pack`` there reads them.

    Args:
        git_dir: the git directory of the repository the command runs in.
        remote: the remote's name, URL or path, as the command was given it.
        push: True for a ``git push`` (its push URLs; ``git-receive-pack``).

    Raises:
        kistore.git.config_guard.ConfigRefused: a config file the remote's git reads is a
            FIFO (exit status 1): named, with what names it and how to remove it. Also
            when one this repository's git reads is (the URL is asked of git).
    """
    for url in remote_urls(git_dir, remote, push=push):
        found = local_git_dir(url)
        if found is not None:
            refuse_blocking_config(found, remote=remote,
                                   server="git-receive-pack" if push else "git-upload-pack")


def remote_urls(git_dir: Path, remote: str, *, push: bool = False) -> list[str]:
    """Return the URLs git reaches for ``remote``, as git resolves them.

    Args:
        git_dir: the repository's git directory.
        remote: a remote's name, a URL or a path.
        push: True for the URLs a ``git push`` reaches (all of them), False for the one a
            fetch reaches.

    Returns:
        The URLs (``insteadOf`` applied), each once; ``[remote]`` when git cannot say (not
        kept: asked again next time), ``[]`` for a ``remote`` starting with ``-`` (git
        would read an option).

    Raises:
        kistore.git.config_guard.ConfigRefused: a config file git reads is a FIFO.
    """
    if remote.startswith("-"):
        return []

    def ask() -> tuple[list[str], bool]:
        named = push and remote in configured(git_dir)
        command = (["remote", "get-url", "--push", "--all", remote] if named else
                   ["ls-remote", "--get-url", remote])
        try:
            done = run_git(["git", "--git-dir", os.fspath(git_dir), *command],
                           env=git_environment(), timeout=60)
        except (OSError, ValueError):  # git not runnable; a NUL in the name
            return [remote], False
        if done.returncode != 0:
            return [remote], False
        urls = os.fsdecode(done.stdout).splitlines()
        return list(dict.fromkeys(url for url in urls if url)) or [remote], True

    return kept(git_dir, ("remote urls", remote, push), ask)


def local_git_dir(url: str, cwd: str | None = None) -> Path | None:
    """Return the git directory ``git-upload-pack`` serves ``url`` from, when it is local.

    A path (no ``scheme://``, and no ``:`` before its first ``/``: ``host:path`` is ssh)
    or a ``file://`` URL (``%XX`` decoded; its host ignored, as git does) is looked for as
    ``git-upload-pack`` looks (``enter_repo``): PATH (trailing ``/`` dropped, ``~``
    expanded) followed by ``/.git``, nothing, ``.git/.git``, ``.git``; the first that is a
    git directory (``HEAD``, and ``objects`` and ``refs`` in its common directory), or a
    ``.git`` file (``gitdir: DIR``, taken whole), is it.

    Args:
        url: a URL git reaches (:func:`remote_urls`).
        cwd: the directory a relative path is of (git's working directory), or None: this
            process's.

    Returns:
        The git directory's real path (git serves it from there: ``includeIf "gitdir:"``
        sees that), or None: a network URL, a bundle file, nothing there that is a
        repository. Raises nothing.
    """
    if _URL.match(url):
        scheme, _, rest = url.partition("://")
        if scheme.lower() != "file":
            return None
        # Lazy: urllib only for a file:// URL.
        from urllib.parse import unquote_to_bytes

        rest = os.fsdecode(unquote_to_bytes(rest))
        slash = rest.find("/")
        if slash < 0:
            return None  # git: "no path specified"
        path = rest[slash:]
    else:
        colon, slash = url.find(":"), url.find("/")
        if colon >= 0 and not 0 <= slash < colon:
            return None  # host:path, ssh
        path = url
    if len(path) > 1:
        path = path.rstrip("/") or "/"
    if path.startswith("~"):
        path = os.path.expanduser(path)
    path = os.path.join(cwd if cwd is not None else os.getcwd(), path)
    for suffix in _SUFFIXES:
        candidate = path + suffix
        try:
            mode = os.stat(candidate).st_mode
        except (OSError, ValueError):
            continue
        if stat.S_ISREG(mode):
            target = _gitfile(Path(candidate))
            return None if target is None or not _is_git_directory(target) else Path(
                os.path.realpath(target))
        if stat.S_ISDIR(mode) and _is_git_directory(Path(candidate)):
            return Path(os.path.realpath(candidate))
    return None


def _gitfile(path: Path) -> Path | None:
    """Return the directory a ``.git`` file names (``gitdir: DIR``, relative: of its own)."""
    try:
        with open(path, "rb") as f:
            text = f.read(_GITFILE_BYTES).decode("utf-8", "surrogateescape")
    except OSError:
        return None
    if not text.startswith("gitdir: "):
        return None  # a bundle, or anything else: git-upload-pack serves nothing
    return path.parent / text[len("gitdir: "):].strip()


def _is_git_directory(path: Path) -> bool:
    """Whether git takes ``path`` for a git directory: a ``HEAD``; ``objects``, ``refs``.

    ``HEAD`` is only looked at (a FIFO is never opened); ``objects`` and ``refs`` are of
    its common directory (its ``commondir`` file, a linked worktree's).
    """
    if not os.path.lexists(path / "HEAD"):
        return False
    try:
        common = common_git_dir(path)
    except RefsUnreadable:
        common = path
    return os.path.isdir(common / "objects") and os.path.isdir(common / "refs")
