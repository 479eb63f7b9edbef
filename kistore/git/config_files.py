"""Where git looks for a user's configuration: one statement for every reader of it.

git reads the global configuration from ``$GIT_CONFIG_GLOBAL`` when set, else from
``~/.gitconfig`` and ``$XDG_CONFIG_HOME/git/config`` (``~/.config/git/config`` when
``XDG_CONFIG_HOME`` is unset or empty), and the default ignore and attributes files from
``$XDG_CONFIG_HOME/git/ignore`` and ``.../attributes`` (git-config(1), gitignore(5),
gitattributes(5)). kistore reads these files only to judge whether git could say something
(a rule that may ignore a store path, a remote URL a cached answer depends on), so the lists
here over-approximate: a file git would not read only costs a read.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from .refs import RefsUnreadable, common_git_dir

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
