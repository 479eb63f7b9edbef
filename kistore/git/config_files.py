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
from pathlib import Path


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
