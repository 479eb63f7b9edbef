"""Git refs read from the files under ``.git``, without libgit2.

A warm query only needs to know whether anything changed since the index last looked:
``HEAD``'s commit and the tip of ``refs/notes/kistore``. Importing pygit2 to read two refs
costs ~0.1-0.2 s a process; reading them as git's "files" ref backend stores them costs
microseconds (gitrepository-layout(5)): ``HEAD`` holds ``ref: <name>`` or an object id; a
ref is a loose file ``<git dir>/<name>`` or a line ``<id> <name>`` of ``packed-refs`` (the
loose file wins, as git reads it).

Anything else -- a reftable repository, a linked worktree (``commondir``), a ref file that
is not one of those forms, a symbolic-ref loop -- raises :class:`RefsUnreadable`, and the
caller asks libgit2 instead. Nothing here writes.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

_OBJECT_ID = re.compile(r"[0-9a-f]{40}(?:[0-9a-f]{24})?")
"""A SHA-1 (40 hex) or SHA-256 (64 hex) object id, as git writes it."""

_MAX_SYMREF_DEPTH = 5
"""How many ``ref:`` hops are followed (git's own limit is 5)."""


class RefsUnreadable(Exception):
    """The refs of this repository cannot be read from plain files here: ask libgit2."""


def resolve(git_dir: Path, name: str) -> str | None:
    """Return the object id (hex) a ref names, following ``ref:`` links, or None when absent.

    Args:
        git_dir: the repository's git directory (``.git`` of an ordinary work tree).
        name: ``HEAD`` or a full ref name (``refs/notes/kistore``).

    Returns:
        The lowercase hex object id, or None when the ref does not exist (for ``HEAD``: an
        unborn branch).

    Raises:
        RefsUnreadable: the repository does not keep refs as plain files (reftable, a
            linked worktree), or a ref file is in no form git writes.
    """
    if not (os.path.isfile(git_dir / "HEAD") and not os.path.lexists(git_dir / "commondir")
            and not os.path.lexists(git_dir / "reftable")):
        raise RefsUnreadable(f"{git_dir} does not keep refs as plain files")
    packed: dict[str, str] | None = None
    for _ in range(_MAX_SYMREF_DEPTH):
        if name != "HEAD" and not _is_ref_name(name):
            raise RefsUnreadable(f"not a ref name git writes: {name!r}")
        value = _loose(git_dir / name)
        if value is None:
            if packed is None:
                packed = _packed(git_dir / "packed-refs")
            value = packed.get(name)
            if value is None:
                return None
        if value.startswith("ref:"):
            name = value[4:].strip()
            continue
        if _OBJECT_ID.fullmatch(value):
            return value
        raise RefsUnreadable(f"ref {name} holds {value[:80]!r}")
    raise RefsUnreadable(f"ref {name}: symbolic refs nest deeper than {_MAX_SYMREF_DEPTH}")


def _is_ref_name(name: str) -> bool:
    parts = name.split("/")
    return parts[0] == "refs" and len(parts) > 1 and all(
        p and p not in (".", "..") and not p.startswith(".") for p in parts)


def _loose(path: Path) -> str | None:
    """Return a loose ref file's text (stripped), or None when there is no such file."""
    try:
        return path.read_text("ascii").strip()
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        return None
    except (OSError, UnicodeDecodeError) as e:
        raise RefsUnreadable(f"cannot read {path}: {e}") from None


def _packed(path: Path) -> dict[str, str]:
    """Return ``{ref name: object id}`` of a ``packed-refs`` file (empty when absent)."""
    try:
        text = path.read_text("ascii")
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError) as e:
        raise RefsUnreadable(f"cannot read {path}: {e}") from None
    refs = {}
    for line in text.splitlines():
        if not line or line[0] in "#^":  # header, or the peeled id of the tag above
            continue
        object_id, _, name = line.partition(" ")
        if not _OBJECT_ID.fullmatch(object_id):
            raise RefsUnreadable(f"{path}: unexpected line {line[:80]!r}")
        refs[name] = object_id
    return refs
