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

:func:`refuse_blocking_config` stats each file (``os.stat``: a symbolic link is judged by
what it names) and refuses at once, naming the first FIFO, what names it and how to remove
it. Only a FIFO is refused: a directory or a socket makes git fail at once with its own
message, and a device is read as it reads (``/dev/null``, the usual way to give git no
global config, reads as empty). To find the files an include names, each config file
already found a regular file is read as text (never a FIFO: it was stat'ed first) and its
``path =`` lines under ``[include]`` and ``[includeIf "..."]`` followed, every condition
taken as true (a file named under a condition git finds false is refused too: one line of
the config file to delete or fix), at most 10 levels deep as git. The cost: a ``stat`` of
each file (five to seven) and a read of the few that exist, about 0.2 ms a call, under 0.5%
of ``add``, ``add --commit`` and ``verify`` (docs/speed.md, "Config files in the guard"),
asked before every ``git`` child (:func:`kistore.git.child.git_environment`) and before
libgit2 opens a repository (:func:`kistore.git.opening.open_repository`).
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path

from ..core.errors import StoreStateError
from .config_files import xdg_config_home
from .lazy import pygit2  # imported on first use: only before a libgit2 open
from .refs import RefsUnreadable, common_git_dir

__all__ = ["BlockingConfig", "blocking_config", "refuse_blocking_config", "use_repository"]

_DEPTH = 10
"""How deep includes are followed: git's own limit (``MAX_INCLUDE_DEPTH``)."""

_HEADER = re.compile(r'[ \t]*\[[ \t]*([^\]"\s]*)[ \t]*(?:"((?:[^"\\\n]|\\.)*)")?[ \t]*\](.*)')
"""A section header and what follows it on its line."""

_PATH = re.compile(r'[ \t]*path[ \t]*=[ \t]*(?:"((?:[^"\\\n]|\\.)*)"|([^#;\n]*))',
                   re.IGNORECASE)
"""A ``path = VALUE`` line, quoted or not (a comment after an unquoted value cut off)."""

_REPOSITORY_CONFIG = "the repository's git config"
"""What names the repository's ``config``: once read, its ``config.worktree`` is looked at
when it sets ``extensions.worktreeConfig`` (git and libgit2 read it only then)."""

_REPOSITORY: list[Path] = []
"""The git directory of the store this process opened last (:func:`use_repository`)."""


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


def _fifo(path: Path) -> bool | None:
    """Return True for a FIFO, False for a regular file, None for anything else or absent."""
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):  # absent, a broken link, unreadable, a NUL in the name
        return None
    if stat.S_ISFIFO(mode):
        return True
    return False if stat.S_ISREG(mode) else None


def _included(text: str, base: Path) -> list[tuple[Path, str]]:
    """Return each file an include of ``text`` names, with its section (``include``)."""
    found: list[tuple[Path, str]] = []
    section = ""
    for line in text.splitlines():
        header = _HEADER.match(line)
        if header is not None:
            section = {"include": "include", "includeif": "includeIf"}.get(
                header[1].lower(), "")
            line = header[3]
        if not section:
            continue
        value = _PATH.match(line)
        if value is None:
            continue
        raw = (re.sub(r"\\(.)", r"\1", value[1]) if value[1] is not None
               else value[2].strip())
        if raw:
            found.append((_resolved(raw, base), section))
    return found


def _resolved(raw: str, base: Path) -> Path:
    """Return an include's path: ``~/`` is the home, a relative one is of ``base``."""
    if raw.startswith("~"):
        return Path(os.path.abspath(os.path.expanduser(raw)))
    return Path(os.path.abspath(base / raw))


def _command_line_includes() -> list[Path]:
    """Return the include paths ``git -c`` or ``GIT_CONFIG_COUNT`` set (relative: of the cwd)."""
    pairs: list[tuple[str, str]] = []
    try:
        count = int(os.environ.get("GIT_CONFIG_COUNT", "0") or 0)
    except ValueError:  # git refuses it itself
        count = 0
    for i in range(min(count, 1000)):
        pairs.append((os.environ.get(f"GIT_CONFIG_KEY_{i}", ""),
                      os.environ.get(f"GIT_CONFIG_VALUE_{i}", "")))
    parameters = os.environ.get("GIT_CONFIG_PARAMETERS")
    if parameters:
        # Lazy: shlex only under `git -c`.
        import shlex

        try:
            words = shlex.split(parameters)
        except ValueError:
            words = []
        pairs += [(word.partition("=")[0], word.partition("=")[2]) for word in words]
    return [Path(os.path.expanduser(value)) for key, value in pairs
            if value and re.fullmatch(r"include(if\..*)?\.path", key, re.IGNORECASE)]


def _said(path: Path, git_dir: Path | None) -> str:
    """Return ``path`` as said: ``.git/...`` for a file of the repository, else absolute."""
    if git_dir is not None and git_dir.name == ".git" and path.parent == git_dir:
        return f".git/{path.name}"
    return os.fspath(path)


def _roots(git: bool, git_dir: Path | None) -> list[tuple[Path, str, str]]:
    """Return the config files git (``git`` True) or libgit2 reads, with what names them."""
    files: list[tuple[Path, str, str]] = []
    nosystem = os.environ.get("GIT_CONFIG_NOSYSTEM", "").lower() in ("1", "true", "yes", "on")
    if git and not nosystem:
        system = os.environ.get("GIT_CONFIG_SYSTEM")
        files.append((Path(system), "the system git config ($GIT_CONFIG_SYSTEM)",
                      " or unset GIT_CONFIG_SYSTEM") if system else
                     (Path("/etc/gitconfig"), "the system git config", ""))
    if not git:  # pygit2 is loaded already: libgit2 is about to open a repository
        search = pygit2.option(pygit2.enums.Option.GET_SEARCH_PATH,
                               pygit2.enums.ConfigLevel.SYSTEM)
        files += [(Path(d) / "gitconfig", "libgit2's system git config", "")
                  for d in (search or "").split(os.pathsep) if d]
    if git and os.environ.get("GIT_CONFIG_GLOBAL"):
        files.append((Path(os.environ["GIT_CONFIG_GLOBAL"]),
                      "the global git config ($GIT_CONFIG_GLOBAL)",
                      " or unset GIT_CONFIG_GLOBAL"))
    else:
        files += [(Path.home() / ".gitconfig", "the global git config", ""),
                  (xdg_config_home() / "git" / "config", "the global git config", "")]
    if git_dir is not None:
        try:
            common = common_git_dir(git_dir)
        except RefsUnreadable:  # said by whoever reads the repository
            common = git_dir
        files.append((common / "config", _REPOSITORY_CONFIG,
                      " and run `git init` in the work tree, which writes a default one "
                      "(set its remotes and settings again)"))
    return files


def blocking_config(git_dir: Path | None = None, *, git: bool = True) -> BlockingConfig | None:
    """Return the first config file git (or libgit2) would read that is a FIFO.

    Args:
        git_dir: the repository's git directory, or None: the store this process found
            (:func:`use_repository`), else none (only the files outside a repository).
        git: True for a ``git`` child (the ``GIT_CONFIG_*`` variables count), False for
            libgit2 (its own system file, ``~/.gitconfig`` and ``$XDG_CONFIG_HOME/git/config``).

    Returns:
        The file, or None when none is a FIFO. Each file is stat'ed, and read as text
        only when it is a regular file (for its includes).
    """
    if git_dir is None and _REPOSITORY:
        git_dir = _REPOSITORY[0]
    pending: list[tuple[Path, str, str, int]] = [
        (path, what, fix, 0) for path, what, fix in _roots(git, git_dir)]
    if git:
        pending += [(path, "a git config included by `git -c` or GIT_CONFIG_COUNT",
                     " or stop including it there", 1) for path in _command_line_includes()]
    seen: set[Path] = set()
    while pending:
        path, what, fix, depth = pending.pop(0)
        if path in seen:
            continue
        seen.add(path)
        kind = _fifo(path)
        if kind is True:
            return BlockingConfig(_said(path, git_dir), path, what, fix)
        if kind is None or depth >= _DEPTH:
            continue
        try:
            text = path.read_text(errors="replace")
        except OSError:
            continue
        shown = _said(path, git_dir)
        if what == _REPOSITORY_CONFIG and git_dir is not None and (
                "worktreeconfig" in text.lower()):
            pending[:0] = [(directory / "config.worktree", "the worktree's git config", "",
                            depth) for directory in dict.fromkeys((path.parent, git_dir))]
        pending[:0] = [(included, f"a git config included by {shown} ({section}.path)",
                        f" or delete its {section} line from {shown}", depth + 1)
                       for included, section in _included(text, path.parent)]
    return None


def refuse_blocking_config(git_dir: Path | None = None, *, git: bool = True) -> None:
    """Refuse, before git or libgit2 is asked, when a config file it reads is a FIFO.

    Args:
        git_dir: as :func:`blocking_config`.
        git: as :func:`blocking_config`.

    Raises:
        StoreStateError: :func:`blocking_config` found one (exit status 1); the message
            names it, what names it, and the fix (``rm PATH``, or unset the variable or
            delete the include line naming it).
    """
    found = blocking_config(git_dir, git=git)
    if found is None:
        return
    # Lazy: shlex only when a refusal is said.
    import shlex

    reader, undone = (("git", "no git command was run") if git else
                      ("libgit2", "the repository was not opened"))
    fix = f"Remove it (`rm {shlex.quote(os.fspath(found.full))}`)"
    fix += found.fix
    raise StoreStateError(
        f"{found.what} is a FIFO, not a regular file: {reader} opens and reads it before "
        f"anything else, and would wait for ever; {undone}. {fix}, then run the command "
        "again", file=found.path)
