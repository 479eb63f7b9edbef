"""Where git looks for a user's configuration: one statement for every reader of it.

git reads the global configuration from ``$GIT_CONFIG_GLOBAL`` when set, else from
``~/.gitconfig`` and ``$XDG_CONFIG_HOME/git/config`` (``~/.config/git/config`` when
``XDG_CONFIG_HOME`` is unset or empty), and the default ignore and attributes files from
``$XDG_CONFIG_HOME/git/ignore`` and ``.../attributes`` (git-config(1), gitignore(5),
gitattributes(5)). kistore reads these files only to judge whether git could say something
(a rule that may ignore a store path, a remote URL a cached answer depends on), so the lists
here over-approximate: a file git would not read only costs a read.

It also owns the list of config files git (or libgit2) reads for a repository and an
environment (:func:`config_files`): the system file (``$GIT_CONFIG_SYSTEM``, else
``/etc/gitconfig``; none under ``GIT_CONFIG_NOSYSTEM``), the global ones
(``$GIT_CONFIG_GLOBAL``, else ``$XDG_CONFIG_HOME/git/config`` and ``~/.gitconfig``), the
repository's ``config`` and ``config.worktree`` (when ``extensions.worktreeConfig`` may be
set), and each file an ``include.path`` or ``includeIf.*.path`` of these (or of ``git -c``,
``GIT_CONFIG_COUNT``) names, in git's order of reading (git-config(1)). libgit2 reads the
same files when it opens a repository, except that it knows no ``GIT_CONFIG_*`` variable
and its system file is ``gitconfig`` in its own search path. The list is found once per
process per (reader, repository, environment, working directory) and kept with each file's
``stat`` (mode, mtime_ns, size, inode, device; an absent file's None): a later call stats
the files again (a few microseconds each) and finds the list anew when one differs, so a
file changed, made, removed or swapped for a FIFO between two calls is seen, and a new
include line changes its includer's stamp. Its users: the FIFO refusal
(:mod:`kistore.git.config_guard`, before every ``git`` child and libgit2 open) and the
answers kept while the files are unchanged (:func:`kept`: the remotes git names,
:mod:`kistore.git.remotes`; ``core.attributesFile`` and ``core.excludesFile``,
:mod:`kistore.git.attr_guard`).
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from .lazy import pygit2  # imported on first use: only for libgit2's system search path
from .refs import RefsUnreadable, common_git_dir

_T = TypeVar("_T")

_SECTION = re.compile(r'[ \t]*\[[ \t]*([^\]"\s]*)[ \t]*(?:"((?:[^"\\\n]|\\.)*)")?[ \t]*\](.*)')
"""A section header, ``[remote "NAME"]`` (git escapes ``"`` and ``\\`` in NAME with ``\\``),
and what follows it on its line (a ``key = value`` may)."""

_FETCH = re.compile(r'[ \t]*fetch[ \t]*=[ \t]*"?([^"\s#;]*)', re.IGNORECASE)
"""A ``fetch = REFSPEC`` line (a refspec holds no space, quote, ``#`` or ``;``)."""

_URL = re.compile(r'[ \t]*url[ \t]*=[ \t]*"?([^"\s#;]*)', re.IGNORECASE)
"""A ``url = URL`` line (read as a refspec is: a URL holding a space or quote is not read)."""


def xdg_config_home() -> Path:
    """Return ``$XDG_CONFIG_HOME``, or ``~/.config`` when it is unset or empty (git's rule)."""
    return Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config")


def user_config_files() -> list[Path]:
    """Return every global configuration file git may read for this user.

    Returns:
        ``$GIT_CONFIG_GLOBAL`` (when set), ``~/.gitconfig``, ``$XDG_CONFIG_HOME/git/config``
        and ``~/.config/git/config`` (the last two once when they are the same), in that
        order; files that do not exist are listed too (the caller reads what is there).
    """
    files = [Path(os.environ["GIT_CONFIG_GLOBAL"])] if os.environ.get("GIT_CONFIG_GLOBAL") else []
    home = Path.home()
    files += [home / ".gitconfig", xdg_config_home() / "git" / "config"]
    if home / ".config" / "git" / "config" not in files:
        files.append(home / ".config" / "git" / "config")
    return files


def remotes(git_dir: Path) -> dict[str, list[str]]:
    """Return the remotes the repository's own configuration file defines, with their refspecs.

    :func:`_remote_values` of ``fetch = REFSPEC`` lines.
    """
    return _remote_values(git_dir, _FETCH)


def remote_urls(git_dir: Path) -> dict[str, list[str]]:
    """Return the remotes the repository's own configuration file defines, with their URLs.

    :func:`_remote_values` of ``url = URL`` lines (``insteadOf`` rewrites not applied).

    Raises:
        RefsUnreadable: as :func:`remotes`.
    """
    return _remote_values(git_dir, _URL)


def _remote_values(git_dir: Path, key: re.Pattern[str]) -> dict[str, list[str]]:
    """Return the remotes the repository's own configuration file defines, with one key's values.

    Read from ``<common git dir>/config`` (a linked worktree's config is its common git
    directory's) without libgit2: a warm query loads none (docs/speed.md). Remotes a
    global file or an ``include.path`` defines are not seen.

    Args:
        git_dir: the repository's git directory (:func:`kistore.git.refs.git_dir_of`).
        key: a line's pattern, its group 1 the value (:data:`_FETCH`, :data:`_URL`).

    Returns:
        ``{NAME: [the values of its lines matching ``key``, in order]}`` for each
        ``[remote "NAME"]`` section (sections of one name joined), sorted by name; empty
        without a config file.

    Raises:
        RefsUnreadable: the file cannot be read, or holds a section in git's old
            ``[remote.NAME]`` spelling (the caller asks libgit2 instead).
    """
    config = common_git_dir(git_dir) / "config"
    try:
        text = config.read_text(errors="replace")
    except FileNotFoundError:
        return {}
    except OSError as e:
        raise RefsUnreadable(f"cannot read {config}: {e}") from None
    found: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in text.splitlines():
        header = _SECTION.match(line)
        if header is not None:
            section, name, line = header[1].lower(), header[2], header[3]
            if section.startswith("remote."):
                raise RefsUnreadable(f"{config} names a remote as [remote.NAME]")
            current = None if section != "remote" or name is None else found.setdefault(
                re.sub(r"\\(.)", r"\1", name), [])
        value = key.match(line)
        if current is not None and value is not None:
            current.append(value[1])
    return dict(sorted(found.items()))


_DEPTH = 10
"""How deep includes are followed: git's own limit (``MAX_INCLUDE_DEPTH``)."""

_PATH = re.compile(r'[ \t]*path[ \t]*=[ \t]*(?:"((?:[^"\\\n]|\\.)*)"|([^#;\n]*))',
                   re.IGNORECASE)
"""A ``path = VALUE`` line, quoted or not (a comment after an unquoted value cut off)."""

REPOSITORY_CONFIG = "the repository's git config"
"""What names the repository's ``config`` (:attr:`ConfigFile.what`)."""

Stamp = tuple[int, int, int, int, int]
"""A file's ``(st_mode, st_mtime_ns, st_size, st_ino, st_dev)``."""


@dataclass(frozen=True)
class ConfigFile:
    """One config file git (or libgit2) reads, or would read were it there.

    Attributes:
        path: the file's absolute path (not resolved: a symbolic link is judged by what it
            names, as git reads it).
        what: what names it, in words (``the global git config ($GIT_CONFIG_GLOBAL)``).
        fix: what follows "remove it" in a refusal's fix (`` or unset GIT_CONFIG_GLOBAL``),
            or "".
        stamp: its ``stat`` when found (:data:`Stamp`), None when absent or not stat'able.
        read: True when git reads it; False when only an ``includeIf`` whose condition git
            finds false names it (here or above); None when kistore cannot tell (a
            condition other than ``gitdir:``/``gitdir/i:``/``onbranch:``). Every file is
            looked at all the same; a FIFO is refused unless False
            (:meth:`ConfigFiles.first_fifo`).
        text: its text as read when found (undecodable bytes replaced), None when not read
            (not a regular file, unreadable, or below the include depth limit).
    """

    path: Path
    what: str
    fix: str
    stamp: Stamp | None
    read: bool | None = True
    text: str | None = field(default=None, repr=False)

    @property
    def fifo(self) -> bool:
        """True when the file is a FIFO."""
        return self.stamp is not None and stat.S_ISFIFO(self.stamp[0])

    @property
    def regular(self) -> bool:
        """True when the file is a regular file (git reads it as text)."""
        return self.stamp is not None and stat.S_ISREG(self.stamp[0])


@dataclass(frozen=True)
class ConfigFiles:
    """The config files git (or libgit2) reads for a repository and an environment.

    Attributes:
        files: every file looked at, in git's order of reading (an include right after
            the file naming it), each once; absent ones too (one made later is seen).
        watched: the other files an answer depends on, with their stamps: the repository's
            ``HEAD`` when an ``onbranch:`` condition was judged (a checkout changes it).
    """

    files: tuple[ConfigFile, ...]
    watched: tuple[tuple[Path, Stamp | None], ...] = ()

    def stamp(self) -> tuple[tuple[str, Stamp | None], ...]:
        """Return each file's path and stamp: what a cache keyed on the files keys on."""
        return tuple((os.fspath(path), stamp) for path, stamp in (
            *((f.path, f.stamp) for f in self.files), *self.watched))

    def first_fifo(self) -> ConfigFile | None:
        """Return the first FIFO git may read (it would wait on it for ever), or None.

        A FIFO only an ``includeIf`` whose condition git finds false names
        (:attr:`ConfigFile.read` False) is passed over: neither git nor libgit2 opens it
        (fresh16 F7). One whose condition kistore cannot judge (``hasconfig:``) counts.
        """
        return next((f for f in self.files if f.fifo and f.read is not False), None)


_FOUND: dict[tuple[Hashable, ...], ConfigFiles] = {}
""":func:`config_files`' answers for this process, by reader, repository and environment."""

_KEPT: dict[tuple[Hashable, ...], object] = {}
""":func:`kept`'s answers for this process, by what was asked and the files' state."""

_LIMIT = 64
"""At most this many answers are kept in each of :data:`_FOUND` and :data:`_KEPT`."""


def _stat(path: Path) -> Stamp | None:
    """Return ``path``'s :data:`Stamp` (``os.stat``: a link judged by its target), or None."""
    try:
        s = os.stat(path)
    except (OSError, ValueError):  # absent, a broken link, unreadable, a NUL in the name
        return None
    return s.st_mode, s.st_mtime_ns, s.st_size, s.st_ino, s.st_dev


def _environment() -> tuple[str | None, ...]:
    """Return the variables the list of files depends on (``GIT_CONFIG_*``, HOME, XDG)."""
    get = os.environ.get
    values = [get("GIT_CONFIG_SYSTEM"), get("GIT_CONFIG_NOSYSTEM"), get("GIT_CONFIG_GLOBAL"),
              get("HOME"), get("XDG_CONFIG_HOME"), get("GIT_CONFIG_PARAMETERS"),
              get("GIT_CONFIG_COUNT")]
    if values[-1]:
        values += [get(f"GIT_CONFIG_{kind}_{i}") for i in range(_count())
                   for kind in ("KEY", "VALUE")]
    return tuple(values)


def _count() -> int:
    """Return ``$GIT_CONFIG_COUNT`` (0 when unset or not a number: git refuses it itself)."""
    try:
        return min(int(os.environ.get("GIT_CONFIG_COUNT", "0") or 0), 1000)
    except ValueError:
        return 0


def config_files(git_dir: Path | None, *, git: bool = True, remote: str | None = None
                 ) -> ConfigFiles:
    """Return the config files git (``git`` True) or libgit2 reads, found once per key.

    Keyed on the reader, ``git_dir``, the variables naming files (``GIT_CONFIG_*``, HOME,
    ``XDG_CONFIG_HOME``), the working directory (a relative name is of it) and, for
    libgit2, its system search path. A kept list is returned when every file's
    :data:`Stamp` is still the one found (one ``stat`` each); else it is found anew: each
    file stat'ed, each regular one below the include depth limit read as text for its
    include lines (never a FIFO: it was stat'ed first).

    Args:
        git_dir: the repository's git directory (a linked worktree's own), or None (only
            the files outside a repository).
        git: True for a ``git`` child (the ``GIT_CONFIG_*`` variables count); False for
            libgit2 (its own system file, ``~/.gitconfig`` and the XDG file).
        remote: None for the repository a command runs in; for a repository on this
            machine that ``git fetch``/``push`` serves from (its ``git-upload-pack`` or
            ``git-receive-pack`` reads these files), the remote's name or URL as given:
            its files are then said by their absolute paths, its ``config`` as
            ``the git config of remote NAME`` (:mod:`kistore.git.remote_config`).

    Returns:
        The files (:class:`ConfigFiles`). Raises nothing: a file that cannot be stat'ed or
        read is taken as absent or as naming no include.
    """
    try:
        cwd = os.getcwd()
    except OSError:  # removed under this process: relative names are git's to refuse
        cwd = ""
    search = None if git else pygit2.option(pygit2.enums.Option.GET_SEARCH_PATH,
                                            pygit2.enums.ConfigLevel.SYSTEM)
    key = (git, None if git_dir is None else os.fspath(git_dir), _environment(), cwd, search,
           remote)
    found = _FOUND.get(key)
    if found is not None and all(_stat(f.path) == f.stamp for f in found.files) and all(
            _stat(path) == stamp for path, stamp in found.watched):
        return found
    watched: dict[Path, Stamp | None] = {}
    files = _find(git_dir, git, search, remote, watched)
    found = ConfigFiles(tuple(files), tuple(watched.items()))
    if len(_FOUND) >= _LIMIT:
        _FOUND.clear()
    _FOUND[key] = found
    return found


def kept(git_dir: Path, asked: Hashable, ask: Callable[[], tuple[_T, bool]]) -> _T:
    """Return ``ask()``'s answer, kept for the process while git's config is unchanged.

    For answers git gives from its configuration (the remotes it names, a setting): keyed
    on ``asked``, ``git_dir``, this process's whole environment and working directory and
    :meth:`ConfigFiles.stamp` of :func:`config_files` for ``git_dir`` (a file changed,
    made, removed or included anew is a new key).

    Args:
        git_dir: the repository's git directory.
        asked: what is asked, hashable (``("remotes",)``).
        ask: asks it (a ``git config`` child): returns the answer and whether to keep it
            (False: a stand-in answered, git could not be run); an exception it raises
            passes through and nothing is kept.

    Returns:
        The answer (the kept one, or ``ask()``'s). Raises what ``ask`` raises.
    """
    try:
        cwd = os.getcwd()
    except OSError:
        cwd = ""
    key = (asked, os.fspath(git_dir), tuple(sorted(os.environ.items())), cwd,
           config_files(git_dir).stamp())
    if key in _KEPT:
        return _KEPT[key]  # type: ignore[return-value]  # kept by this function for ask
    answer, keep = ask()
    if keep:
        if len(_KEPT) >= _LIMIT:
            _KEPT.clear()
        _KEPT[key] = answer
    return answer


def _roots(git: bool, git_dir: Path | None, search: str | None, remote: str | None
           ) -> list[tuple[Path, str, str]]:
    """Return the config files git or libgit2 reads first (not included), with what names them.

    In git's order of reading: system, ``$XDG_CONFIG_HOME/git/config``, ``~/.gitconfig``
    (or ``$GIT_CONFIG_GLOBAL`` alone), the repository's ``config``.
    """
    files: list[tuple[Path, str, str]] = []
    nosystem = os.environ.get("GIT_CONFIG_NOSYSTEM", "").lower() in ("1", "true", "yes", "on")
    if git and not nosystem:
        system = os.environ.get("GIT_CONFIG_SYSTEM")
        files.append((Path(system), "the system git config ($GIT_CONFIG_SYSTEM)",
                      " or unset GIT_CONFIG_SYSTEM") if system else
                     (Path("/etc/gitconfig"), "the system git config", ""))
    if not git:  # libgit2's system files, in its search path
        files += [(Path(d) / "gitconfig", "libgit2's system git config", "")
                  for d in (search or "").split(os.pathsep) if d]
    if git and os.environ.get("GIT_CONFIG_GLOBAL"):
        files.append((Path(os.environ["GIT_CONFIG_GLOBAL"]),
                      "the global git config ($GIT_CONFIG_GLOBAL)",
                      " or unset GIT_CONFIG_GLOBAL"))
    else:
        files += [(xdg_config_home() / "git" / "config", "the global git config", ""),
                  (Path.home() / ".gitconfig", "the global git config", "")]
    if git_dir is not None:
        try:
            common = common_git_dir(git_dir)
        except RefsUnreadable:  # said by whoever reads the repository
            common = git_dir
        if remote is None:
            files.append((common / "config", REPOSITORY_CONFIG,
                          " and run `git init` in the work tree, which writes a default one "
                          "(set its remotes and settings again)"))
        else:
            # Lazy: shlex only for a remote on this machine.
            import shlex

            init = (f"`git -C {shlex.quote(os.fspath(common.parent))} init`"
                    if common.name == ".git" else
                    f"`git init --bare {shlex.quote(os.fspath(common))}`")
            files.append((common / "config", f"the git config of remote {remote}",
                          f" and run {init}, which writes a default one (set its settings "
                          "again)"))
    return files


def _find(git_dir: Path | None, git: bool, search: str | None, remote: str | None,
          watched: dict[Path, Stamp | None]) -> list[ConfigFile]:
    """Return every config file git (or libgit2) reads: :func:`config_files` found anew.

    ``watched`` gains the other files the answer depends on (:attr:`ConfigFiles.watched`).
    """
    roots = _roots(git, git_dir, search, remote)
    repository = roots[-1][0] if git_dir is not None else None
    pending: list[tuple[Path, str, str, int, bool | None]] = [
        (path, what, fix, 0, True) for path, what, fix in roots]
    if git:
        pending += [(path, "a git config included by `git -c` or GIT_CONFIG_COUNT",
                     " or stop including it there", 1, True)
                    for path in _command_line_includes()]
    seen: set[Path] = set()
    files: list[ConfigFile] = []
    while pending:
        path, what, fix, depth, read = pending.pop(0)
        if path in seen:
            continue
        seen.add(path)
        stamp = _stat(path)
        if stamp is None or not stat.S_ISREG(stamp[0]) or depth >= _DEPTH:
            files.append(ConfigFile(path, what, fix, stamp, read))
            continue
        try:
            text = path.read_text(errors="replace")
        except OSError:
            files.append(ConfigFile(path, what, fix, stamp, read))
            continue
        files.append(ConfigFile(path, what, fix, stamp, read, text))
        shown = said(path, None if remote is not None else git_dir)
        if path == repository and git_dir is not None and depth == 0 and (
                "worktreeconfig" in text.lower()):
            pending[:0] = [(directory / "config.worktree", "the worktree's git config", "",
                            depth, read)
                           for directory in dict.fromkeys((path.parent, git_dir))]
        pending[:0] = [
            (included, f"a git config included by {shown} ({section}.path)",
             f" or delete its {section} line from {shown}", depth + 1,
             _and(read, True if condition is None else _condition(condition, path, git_dir,
                                                                   watched)))
            for included, section, condition in _included(text, path.parent)]
    return files


def _and(a: bool | None, b: bool | None) -> bool | None:
    """Three-valued "and": False when either is, else None when either is unknown."""
    if a is False or b is False:
        return False
    return None if a is None or b is None else True


def said(path: Path, git_dir: Path | None) -> str:
    """Return a config file's path as said: ``.git/NAME`` for a file of the repository.

    Args:
        path: the file's absolute path.
        git_dir: the repository's git directory, or None.

    Returns:
        ``.git/config`` when ``path`` is directly in a git directory named ``.git``, else
        ``path`` absolute. Raises nothing.
    """
    if git_dir is not None and git_dir.name == ".git" and path.parent == git_dir:
        return f".git/{path.name}"
    return os.fspath(path)



def _included(text: str, base: Path) -> list[tuple[Path, str, str | None]]:
    """Return each file an include of ``text`` names: (path, section, its condition or None).

    ``section``: ``include`` or ``includeIf``; the condition is ``includeIf``'s (``gitdir:/x/``).
    """
    found: list[tuple[Path, str, str | None]] = []
    section, condition = "", None
    for line in text.splitlines():
        header = _SECTION.match(line)
        if header is not None:
            section = {"include": "include", "includeif": "includeIf"}.get(
                header[1].lower(), "")
            condition = (re.sub(r"\\(.)", r"\1", header[2]) if header[2] is not None
                         else "") if section == "includeIf" else None
            line = header[3]
        if not section:
            continue
        value = _PATH.match(line)
        if value is None:
            continue
        raw = (re.sub(r"\\(.)", r"\1", value[1]) if value[1] is not None
               else value[2].strip())
        if raw:
            found.append((_resolved(raw, base), section, condition))
    return found


def _resolved(raw: str, base: Path) -> Path:
    """Return an include's path: ``~/`` is the home, a relative one is of ``base``."""
    if raw.startswith("~"):
        return Path(os.path.abspath(os.path.expanduser(raw)))
    return Path(os.path.abspath(base / raw))


def _command_line_includes() -> list[Path]:
    """Return the include paths ``git -c`` or ``GIT_CONFIG_COUNT`` set (relative: of the cwd)."""
    pairs = [(os.environ.get(f"GIT_CONFIG_KEY_{i}", ""),
              os.environ.get(f"GIT_CONFIG_VALUE_{i}", "")) for i in range(_count())]
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


def _condition(condition: str, includer: Path, git_dir: Path | None,
               watched: dict[Path, Stamp | None]) -> bool | None:
    """Return whether git finds an ``includeIf`` condition true, None when kistore cannot tell.

    ``gitdir:PATTERN`` and ``gitdir/i:PATTERN`` as git judges them (git-config(1),
    "Conditional includes"): ``~/`` is the home, ``./`` the includer's directory (its real
    path), a pattern not absolute is preceded by ``**/``, one ending in ``/`` followed by
    ``**``; matched with wildmatch's pathname rules against the git directory's absolute
    path, then its real path, each also followed by ``/`` (``git --git-dir DIR/`` matches
    ``gitdir:DIR/``, ``git`` run in the work tree does not: either may be asked).
    ``onbranch:PATTERN``: the branch ``HEAD`` names (``HEAD``
    read only when a regular file, and added to ``watched``), a pattern ending in ``/``
    followed by ``**``, matched with the same rules; false on a detached ``HEAD``. Any other
    condition (``hasconfig:``): None. libgit2 judges these three the same way.
    """
    kind, colon, pattern = condition.partition(":")
    if not colon or kind not in ("gitdir", "gitdir/i", "onbranch"):
        return None
    if git_dir is None:
        return False  # outside a repository git finds no gitdir condition true
    if kind == "onbranch":
        return _on_branch(pattern, git_dir, watched)
    if pattern.startswith("~"):
        if not pattern.startswith("~/") or "HOME" not in os.environ:
            return None
        pattern = os.environ["HOME"] + pattern[1:]
    if pattern.startswith("./"):
        pattern = os.path.dirname(os.path.realpath(includer)) + pattern[1:]
    elif not pattern.startswith("/"):
        pattern = "**/" + pattern
    if pattern.endswith("/"):
        pattern += "**"
    expression = _wildmatch(pattern)
    if expression is None:
        return None
    flags = re.IGNORECASE if kind == "gitdir/i" else 0
    texts = (os.path.abspath(git_dir), os.path.realpath(git_dir))
    # each also with a final "/": git's own spelling of `--git-dir DIR/` (pygit2's repo.path,
    # kistore's children) keeps it, and `gitdir:DIR/.git/` then holds
    return any(re.fullmatch(expression, text, flags) is not None
               for text in (*texts, *(text + "/" for text in texts)))


def _wildmatch(pattern: str) -> str | None:
    """Return a regular expression for a wildmatch pattern (pathname rules), None for ``[``.

    ``*`` and ``?`` match within one directory, ``**/`` any number of directories (none
    too), a final ``/**`` anything below; a ``\\`` quotes the next character.
    """
    out: list[str] = []
    i = 0
    while i < len(pattern):
        c = pattern[i]
        bounded = i == 0 or pattern[i - 1] == "/"
        if pattern.startswith("**/", i) and bounded:
            out.append("(?:.*/)?")
            i += 3
            continue
        if pattern.startswith("**", i) and bounded and i + 2 == len(pattern):
            out.append(".*")
            break
        if c == "*":
            out.append("[^/]*")
            i += 2 if pattern.startswith("**", i) else 1
            continue
        if c == "[":
            return None
        if c == "?":
            out.append("[^/]")
            i += 1
            continue
        if c == "\\":
            i += 1
            if i == len(pattern):
                return None
            c = pattern[i]
        out.append(re.escape(c))
        i += 1
    return "".join(out)


_HEAD_BYTES = 4096
"""At most this much of ``HEAD`` is read (``ref: refs/heads/NAME`` is far shorter)."""


def _on_branch(pattern: str, git_dir: Path, watched: dict[Path, Stamp | None]) -> bool | None:
    """Return whether ``onbranch:PATTERN`` holds for ``git_dir``, None when it cannot tell.

    The branch is what ``git_dir/HEAD`` names (``ref: refs/heads/NAME``): none when it is
    absent or detached (git finds the condition false). Not a regular file (a FIFO would
    never be opened), unreadable, or a reftable repository's stub (``refs/heads/.invalid``):
    None. ``HEAD`` and its stamp go to ``watched``.
    """
    head = git_dir / "HEAD"
    stamp = watched[head] = _stat(head)
    if stamp is None:
        return False
    if not stat.S_ISREG(stamp[0]):
        return None
    try:
        with open(head, "rb") as f:
            text = f.read(_HEAD_BYTES).decode("utf-8", "surrogateescape").strip()
    except OSError:
        return None
    if not text.startswith("ref: refs/heads/"):
        return False
    branch = text[len("ref: refs/heads/"):]
    if branch == ".invalid":
        return None
    if pattern.endswith("/"):
        pattern += "**"
    expression = _wildmatch(pattern)
    return None if expression is None else re.fullmatch(expression, branch) is not None
