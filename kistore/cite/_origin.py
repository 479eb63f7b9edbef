"""What decides ``git remote get-url origin``: the key its kept answer is kept under.

A run page's citation asks ``git remote get-url origin`` for the permalink's base (a child
process: ~4-5 ms CPU with its fork, and ``subprocess`` loaded for it). git's answer comes
from its configuration files, rewritten by any ``url.<base>.insteadOf``: the system file
(where it lives depends on how git was built), the user's files, the repository's
``config`` and ``config.worktree``, the legacy ``remotes/origin`` and ``branches/origin``
files, and the ``GIT_CONFIG_*`` variables. The answer is kept (:mod:`kistore.index.kept`)
under the exact bytes of every one of those files (or that it is absent), the variables,
the user ids git checks ownership by, and the ``git`` program itself (path and ``stat``);
any byte of any of them differing asks git again. Kept only when none of the files
includes another (``include``/``includeIf``: what they read can change with nothing here
changing), and never when a variable points git at another repository.

The system file's path is asked of git itself (``git config --system --show-origin``),
once per ``git`` program and environment, and only when a URL is asked the second time
(unless ``GIT_CONFIG_SYSTEM`` or ``GIT_CONFIG_NOSYSTEM`` says it): a store cited once (a
script's ``kistore cite``) starts no child beyond the one it always started.
Nothing here parses configuration: git answers, and what it answered is kept.
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

from ..git.child import git_environment
from ..git.config_files import user_config_files
from ..index.kept import keep_value, kept_value

SYSTEM_ASKED_ONCE = "?"
"""The kept system-file state after the first ask of a URL (nothing learned yet)."""
SYSTEM_UNKNOWN = "!"
"""git did not say where its system file is (an empty one, say): URLs are never kept."""
NO_SYSTEM = "-"
"""``GIT_CONFIG_NOSYSTEM`` is on: git reads no system file."""

_ELSEWHERE = ("GIT_DIR", "GIT_COMMON_DIR")
"""Variables that make git read another repository's configuration than ``git_dir``'s."""

_ABSENT = re.compile(rb"fatal: unable to read config file '(.+)': No such file or directory\n?")
"""What ``git config --system`` says (``LC_ALL=C``) when its system file does not exist."""

_SYSTEM_KEY = b"origin: system config file\0"
_URL_KEY = b"origin: url\0"


def _part(data: bytes) -> bytes:
    """One length-prefixed part of a key."""
    return b"%d:" % len(data) + data


def _program() -> bytes | None:
    """Return what identifies the ``git`` a child would run (its path on PATH and stat)."""
    for directory in os.environ.get("PATH", os.defpath).split(os.pathsep):
        candidate = os.path.abspath(os.path.join(directory or ".", "git"))
        try:
            found = os.stat(candidate)
        except OSError:
            continue
        if stat.S_ISREG(found.st_mode) and os.access(candidate, os.X_OK):
            return os.fsencode(candidate) + b"\0%d\0%d\0%d\0%d\0%d" % (
                found.st_dev, found.st_ino, found.st_size, found.st_mtime_ns,
                found.st_ctime_ns)
    return None


def _environment() -> bytes:
    """Return every ``GIT_*`` variable, ``HOME`` and ``XDG_CONFIG_HOME``, sorted."""
    return b"".join(_part(os.fsencode(k)) + _part(os.fsencode(v))
                    for k, v in sorted(os.environ.items())
                    if k.startswith("GIT_") or k in ("HOME", "XDG_CONFIG_HOME"))


def _file(path: str) -> bytes | None:
    """Return a file's key part: its path and bytes, or that it is absent; None: unkeepable.

    None when it cannot be read as a regular file, or it includes another file.
    """
    try:
        with open(path, "rb") as f:
            data = f.read()
    except (FileNotFoundError, NotADirectoryError):
        return _part(os.fsencode(path)) + b"absent"
    except OSError:
        return None
    if b"include" in data.lower():
        return None
    return _part(os.fsencode(path)) + _part(data)


def _system_state(git_dir: Path, code: bytes, program: bytes, environment: bytes) -> str | None:
    """Return where the system file is (``path:P``), or a state: see the module constants."""
    nosystem = os.environ.get("GIT_CONFIG_NOSYSTEM", "").strip().lower()
    if nosystem in ("1", "true", "yes", "on"):
        return NO_SYSTEM
    if os.environ.get("GIT_CONFIG_SYSTEM"):
        return "path:" + os.environ["GIT_CONFIG_SYSTEM"]
    return kept_value(git_dir, code, _SYSTEM_KEY + _part(program) + environment)


def origin_key(root: Path, git_dir: Path, code: bytes) -> tuple[bytes | None, str | None]:
    """Return the key of ``git remote get-url origin``'s answer, and the system file's state.

    Args:
        root: the work tree (git is asked with ``-C root``).
        git_dir: its git directory (must be ``root/.git``, not a linked worktree's).
        code: what identifies the keeping code (:func:`kistore.cite.citation._code_id`).

    Returns:
        ``(key, state)``: key is None when the answer cannot be kept (an include, a file
        that cannot be read, a variable pointing git elsewhere, no ``git`` on PATH, the
        system file not known yet); state is the system file's (None: never asked).
    """
    if any(os.environ.get(name) for name in _ELSEWHERE):
        return None, None
    if git_dir != root / ".git" or not git_dir.is_dir() or (git_dir / "commondir").exists():
        return None, None
    program = _program()
    if program is None:
        return None, None
    environment = _environment()
    state = _system_state(git_dir, code, program, environment)
    if state is None or state in (SYSTEM_ASKED_ONCE, SYSTEM_UNKNOWN):
        return None, state
    files = [str(path) for path in (
        *(git_dir / name for name in ("config", "config.worktree", "remotes/origin",
                                      "branches/origin")), *user_config_files())]
    if state.startswith("path:"):
        files.append(state[len("path:"):])
    parts = [_part(program), environment]
    try:
        parts.append(b"%d\0%d\0%d" % (os.geteuid(), os.stat(root).st_uid,
                                      os.stat(git_dir).st_uid))
    except OSError:
        return None, state
    for path in files:
        part = _file(path)
        if part is None:
            return None, state
        parts.append(part)
    return b"".join(parts), state


def kept_url(git_dir: Path, code: bytes, key: bytes) -> tuple[str | None] | None:
    """Return ``(url,)`` kept for ``key`` (url None: git said there is no origin), or None."""
    value = kept_value(git_dir, code, _URL_KEY + key)
    if value is None:
        return None
    if value == "":
        return (None,)
    if value.startswith("url:"):
        return (value[len("url:"):],)
    return None


def keep_url(git_dir: Path, code: bytes, key: bytes, url: str | None) -> None:
    """Keep git's answer for ``key`` (None: no ``origin`` remote)."""
    if url is not None and ("\n" in url or "\r" in url):
        return
    keep_value(git_dir, code, _URL_KEY + key, "" if url is None else f"url:{url}")


def asked_once(git_dir: Path, code: bytes) -> None:
    """Mark that a URL was asked with no key to keep it under (the system file unknown).

    The next ask (:data:`SYSTEM_ASKED_ONCE`) asks git where its system file is first
    (:func:`learn_system_file`), so that its answer has a key.
    """
    where = _where(git_dir)
    if where is not None:
        keep_value(git_dir, code, where, SYSTEM_ASKED_ONCE)


def _where(git_dir: Path) -> bytes | None:
    """Return the kept system-file state's key (the ``git`` program and the variables)."""
    program = _program()
    if program is None or any(os.environ.get(name) for name in _ELSEWHERE):
        return None
    return _SYSTEM_KEY + _part(program) + _environment()


def learn_system_file(git_dir: Path, code: bytes) -> None:
    """Ask git where its system file is (one ``git config --system --show-origin`` child).

    Keeps ``path:P`` (P absent or not), or :data:`SYSTEM_UNKNOWN` when git does not say
    (an empty system file lists nothing): then no URL is kept, and git is not asked this
    again for the same ``git`` program and variables.
    """
    where = _where(git_dir)
    if where is None:
        return
    learned = SYSTEM_UNKNOWN
    # Lazy: subprocess (~2 ms of start-up) only when git is asked.
    import subprocess

    try:
        done = subprocess.run(["git", "config", "--system", "--show-origin", "-z", "--list"],
                              capture_output=True, check=False, timeout=60,
                              env=git_environment({"LC_ALL": "C", "LANGUAGE": "C"}))
    except (OSError, subprocess.SubprocessError):
        done = None
    if done is not None and done.returncode == 0 and done.stdout.startswith(b"file:"):
        path = done.stdout[len(b"file:"):].split(b"\0", 1)[0]
        learned = "path:" + os.fsdecode(path)
    elif done is not None and done.returncode != 0 and not done.stdout:
        absent = _ABSENT.fullmatch(done.stderr)
        if absent is not None:
            learned = "path:" + os.fsdecode(absent[1])
    if "\n" in learned or not (learned == SYSTEM_UNKNOWN or os.path.isabs(learned[5:])):
        learned = SYSTEM_UNKNOWN
    keep_value(git_dir, code, where, learned)
