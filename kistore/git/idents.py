"""Who a commit kistore writes is by: git's rules for the author and the committer (fresh08 L6).

``git commit`` takes each identity's name and email, in order, from the environment
(``GIT_AUTHOR_NAME``, ``GIT_AUTHOR_EMAIL``; ``GIT_COMMITTER_NAME``, ``GIT_COMMITTER_EMAIL``),
then from the configuration (``author.name``/``author.email``, ``committer.name``/
``committer.email``, then ``user.name``/``user.email``), and an email last from ``EMAIL``
(git-commit-tree(1), "Commit Information"; git-config(1), ``author.name``). Until
2026-12-07 kistore took ``user.name``/``user.email`` alone (libgit2's
``git_signature_default``), so a CI bot's ``GIT_AUTHOR_NAME=bot kistore add --commit``
committed as whoever the machine's configuration named. Where git would guess (the
passwd entry, the host name), kistore says ``kistore <kistore@localhost>`` instead, as it
always did.

The dates are not git's: ``GIT_AUTHOR_DATE`` and ``GIT_COMMITTER_DATE`` are ignored, every
commit is dated by this machine's clock. A commit's committer date is when its files
entered the repository, the time attestations and trust entries are judged at; the gate
refuses a commit dated more than minutes ahead of the server's clock (KI438), and a date
set back gains nothing (a commit is judged at the latest date of its ancestors). A date
given by hand could only make the push refused or be overridden, so it is not taken.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from ..core.errors import InputError
from .lazy import pygit2

if TYPE_CHECKING:  # pragma: no cover - typing only
    import pygit2 as _pygit2

__all__ = ["FALLBACK", "signatures"]

FALLBACK = ("kistore", "kistore@localhost")
"""The name and email a commit gets where neither the environment nor git's configuration
gives one (git would guess them from the passwd entry and the host name)."""

_ROLES = {"author": ("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL"),
          "committer": ("GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL")}
"""Each identity's environment variables, as git reads them."""


def signatures(repo: _pygit2.Repository) -> tuple[_pygit2.Signature, _pygit2.Signature]:
    """Return the author and committer of a commit written now, as ``git commit`` names them.

    Args:
        repo: the repository (its configuration: the repository's, the user's, the system's).

    Returns:
        ``(author, committer)``, each dated now at this machine's UTC offset (the ``*_DATE``
        variables are ignored: the module's docstring says why). A name or email neither
        the environment nor the configuration gives is :data:`FALLBACK`'s.

    Raises:
        InputError: a name or email libgit2 cannot write (empty, or holding ``<``, ``>``
            or a line break; git refuses an empty name, and drops the brackets), naming the
            variable or configuration key it came from.
    """
    config = repo.config
    made = []
    for role, (name_var, email_var) in _ROLES.items():
        name = _first(config, name_var, (f"{role}.name", "user.name"))
        email = _first(config, email_var, (f"{role}.email", "user.email"), "EMAIL")
        made.append(_signature(name or ("default", FALLBACK[0]),
                               email or ("default", FALLBACK[1])))
    return made[0], made[1]


def _first(config: _pygit2.Config, variable: str, keys: tuple[str, ...],
           last: str | None = None) -> tuple[str, str] | None:
    """Return ``(where, value)``: ``variable`` if set (even empty, as git), else the first key set.

    ``last``: an environment variable read after the keys (``EMAIL``, when set and not
    empty). None when none gives a value.
    """
    value = os.environ.get(variable)
    if value is not None:
        return variable, value
    for key in keys:
        found = config[key] if key in config else None
        if found is not None:
            return key, found
    fallback = os.environ.get(last or "")
    if last is not None and fallback:
        return last, fallback
    return None


def _signature(name: tuple[str, str], email: tuple[str, str]) -> _pygit2.Signature:
    """Return a signature dated now of ``name`` and ``email`` (each ``(where, value)``)."""
    for (where, value), what in ((name, "name"), (email, "email")):
        if not value.strip() or any(c in value for c in "<>\n\r\0"):
            said = f"${where}" if where.isupper() else f"git config {where}"
            raise InputError(
                f"{said} is {value!r}: a commit kistore writes (by libgit2) takes no empty {what} "
                f"and none holding <, > or a line break; set it to a {what}, or unset it to take "
                "the next of git's sources (GIT_AUTHOR_*/GIT_COMMITTER_*, then author.*/"
                "committer.*, then user.name and user.email), then run the command again")
    return pygit2.Signature(name[1].strip(), email[1].strip())
