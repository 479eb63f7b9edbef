"""Who a commit kistore writes is by: the author and committer git itself names (fresh10 MED 1).

Each is asked of git: ``git var GIT_AUTHOR_IDENT`` and ``git var GIT_COMMITTER_IDENT``, run
on the store's repository with the caller's environment, so every source ``git commit``
reads counts as git counts it: ``GIT_AUTHOR_NAME``/``GIT_AUTHOR_EMAIL`` and
``GIT_COMMITTER_NAME``/``GIT_COMMITTER_EMAIL``; ``author.*``/``committer.*`` then
``user.name``/``user.email`` of every configuration git reads (the repository's,
``GIT_CONFIG_GLOBAL`` or ``~/.gitconfig`` and ``$XDG_CONFIG_HOME/git/config``,
``GIT_CONFIG_SYSTEM`` unless ``GIT_CONFIG_NOSYSTEM``, ``git -c`` (``GIT_CONFIG_PARAMETERS``),
``GIT_CONFIG_COUNT``/``GIT_CONFIG_KEY_n``/``GIT_CONFIG_VALUE_n``, ``include``/``includeIf``);
``EMAIL``; and, where none names one, git's guess from the passwd entry and host name unless
``user.useConfigOnly``. Until 2026-12-07 kistore read libgit2's configuration itself, which
reads ``~/.gitconfig`` where git would not and none of the variables above, and committed
as ``kistore <kistore@localhost>`` where it found no name: a commit authored by the wrong
person. Where git refuses (no identity it may use), kistore refuses with git's reason.

The dates are not git's: ``GIT_AUTHOR_DATE`` and ``GIT_COMMITTER_DATE`` are ignored (and not
given to ``git var``, which refuses a malformed one), every commit is dated by this
machine's clock. A commit's committer date is when its files entered the repository, the
time attestations and trust entries are judged at; the gate refuses a commit dated more
than minutes ahead of the server's clock (KI438), and a date set back gains nothing (a
commit is judged at the latest date of its ancestors). A date given by hand could only make
the push refused or be overridden, so it is not taken.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from ..core.errors import InputError, StoreStateError
from .child import git_environment
from .lazy import pygit2

if TYPE_CHECKING:  # pragma: no cover - typing only
    import pygit2 as _pygit2

__all__ = ["Ident", "Identities", "identities", "signatures"]

_ROLES = (("author", "GIT_AUTHOR_IDENT", "GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL"),
          ("committer", "GIT_COMMITTER_IDENT", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL"))
"""Each identity: its role, the ``git var`` variable naming it, its environment variables."""

_UNDATED = ("GIT_AUTHOR_DATE", "GIT_COMMITTER_DATE")
"""Not given to ``git var``: kistore dates commits itself (KI438), and git refuses a bad one."""

_IDENT = re.compile(r"(?P<name>.*) <(?P<email>[^<>]*)> -?[0-9]+ [+-][0-9]{4}")
"""``git var``'s answer: ``Name <email> SECONDS +HHMM`` (the date is dropped)."""


class Ident(NamedTuple):
    """A name and an email, as ``git var`` names an author or a committer (undated).

    Attributes:
        name: the name (git drops ``<``, ``>`` and line breaks; never empty).
        email: the email (may be empty where set so: libgit2 then refuses it).
    """

    name: str
    email: str


class Identities(NamedTuple):
    """The author and committer of a commit, as git names them (:func:`identities`).

    Attributes:
        author: ``git var GIT_AUTHOR_IDENT``'s name and email.
        committer: ``git var GIT_COMMITTER_IDENT``'s.
    """

    author: Ident
    committer: Ident


def identities(repo: _pygit2.Repository) -> Identities:
    """Return the author and committer git names for a commit in ``repo`` now.

    Two ``git var`` children, run side by side on ``repo``'s git directory with this
    process's environment (less ``GIT_AUTHOR_DATE`` and ``GIT_COMMITTER_DATE``). Callers
    ask before they write anything, so a refusal leaves no object, ref or file.

    Args:
        repo: the repository (its git directory: a linked worktree's works).

    Returns:
        :class:`Identities`.

    Raises:
        InputError: git names no author or no committer (no identity, or
            ``user.useConfigOnly`` with none set, or an empty name): git's reason, tidied,
            and what to set; or git names an empty email (libgit2 cannot write it).
        StoreStateError: git could not be run.
    """
    # Lazy: subprocess (~2-3 ms of start-up) only where a commit is written.
    import subprocess

    env = {k: v for k, v in git_environment().items() if k not in _UNDATED}
    command = ["git", "--git-dir", os.fspath(Path(repo.path)), "var"]
    try:
        children = [subprocess.Popen([*command, var], stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, env=env)
                    for _role, var, _name, _email in _ROLES]
    except OSError as e:
        raise StoreStateError(
            f"git could not be run ({e.strerror}) to name the author and committer of the "
            "commit (kistore takes them from `git var GIT_AUTHOR_IDENT` and "
            "`git var GIT_COMMITTER_IDENT`); install git, then run the command again; no "
            "commit was written") from None
    answers = [child.communicate() for child in children]
    named = [_ident(role, var, name_var, email_var, child.returncode, out, err)
             for (role, var, name_var, email_var), child, (out, err)
             in zip(_ROLES, children, answers, strict=True)]
    return Identities(named[0], named[1])


def _ident(role: str, var: str, name_var: str, email_var: str, code: int | None, out: bytes,
           err: bytes) -> Ident:
    """Return one ``git var`` child's :class:`Ident`, or raise :func:`identities`' errors."""
    said = err.decode("utf-8", "replace")
    found = _IDENT.fullmatch(out.decode("utf-8", "replace").rstrip("\n")) if code == 0 else None
    if found is None:
        raise InputError(
            f"git names no {role} for a commit here (`git var {var}`: {_tidied(said, code)}); "
            "set one as for `git commit`: `git config user.name \"Your Name\"` and "
            "`git config user.email you@example.com` (--global: for every repository), or "
            f"{name_var} and {email_var}, then run the command again; no commit was written")
    if not found["email"].strip():
        raise InputError(
            f"git names the {role} {found['name']!r} with an empty email (`git var {var}`), "
            f"which a commit kistore writes (by libgit2) cannot hold; set {email_var} or "
            "`git config user.email you@example.com`, then run the command again; no commit "
            "was written")
    return Ident(found["name"], found["email"].strip())


def _tidied(said: str, code: int | None) -> str:
    """Return git's refusal on one line: its first line and its last (``fatal:`` dropped)."""
    lines = [line.strip() for line in said.splitlines() if line.strip()]
    if not lines:
        return f"git exited {code}"
    last = lines[-1].removeprefix("fatal: ")
    return last if len(lines) == 1 else f"{lines[0].rstrip('.')}: {last}"


def signatures(repo: _pygit2.Repository, known: Identities | None = None
               ) -> tuple[_pygit2.Signature, _pygit2.Signature]:
    """Return the author and committer of a commit written now, as git names them.

    Args:
        repo: the repository.
        known: what :func:`identities` returned for ``repo`` (asked before anything was
            written); None: asked now.

    Returns:
        ``(author, committer)``, each dated now at this machine's UTC offset (the
        ``*_DATE`` variables are ignored: the module's docstring says why).

    Raises:
        InputError, StoreStateError: as :func:`identities` (only when ``known`` is None).
    """
    author, committer = known if known is not None else identities(repo)
    return (pygit2.Signature(author.name, author.email),
            pygit2.Signature(committer.name, committer.email))
