"""Opening a repository, and git's refusal of one owned by another user, said plainly.

git and libgit2 refuse a repository whose directory another user owns unless
``safe.directory`` lists it (CVE-2022-24765: "dubious ownership"), the usual case of a
checkout mounted into a CI container. libgit2's ``GitError`` ("repository path '...' is
not owned by current user") reached the command line as "internal error: this is a bug"
(r75 finding 8). :func:`open_repository` opens a repository and says what the refusal is
and what to do; :func:`not_owned` recognises it in an error raised anywhere else.
"""

from __future__ import annotations

import re
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from ..core.errors import StoreStateError
from .config_guard import refuse_blocking_config
from .lazy import pygit2
from .refs import RefsUnreadable, git_dir_of

if TYPE_CHECKING:  # pragma: no cover - typing only
    from collections.abc import Iterator

    import pygit2 as _pygit2

_NOT_OWNED = re.compile(r"repository path '(?P<path>[^']*)' is not owned by current user"
                        r"|dubious ownership in repository at '(?P<git>[^']*)'")
"""libgit2's message for a repository another user owns, and git's own."""


class NotOwned(StoreStateError):
    """git refuses the repository: another user owns it and ``safe.directory`` does not list it.

    Args:
        path: the repository's directory, as git named it.
    """

    def __init__(self, path: str) -> None:
        self.path = path
        super().__init__(
            "git refuses to open this repository: it is owned by another user (git's "
            "\"dubious ownership\" check). If you trust it, run `git config --global --add "
            f"safe.directory {path}` and try again; or run kistore as the user who owns it",
            file=path)


def not_owned(error: BaseException) -> NotOwned | None:
    """Return the :class:`NotOwned` error a git or libgit2 error stands for, or None.

    Args:
        error: what a pygit2 call (or a git process's message, as an exception) raised.

    Returns:
        The error to raise instead, or None when ``error`` is not the ownership refusal.
    """
    if isinstance(error, NotOwned):
        return error
    found = _NOT_OWNED.search(str(error))
    if found is None:
        return None
    return NotOwned(found.group("path") or found.group("git") or "")


TREE_CACHE_LIMIT = 4 << 20
"""The largest tree libgit2 keeps in its object cache, in bytes (its default: 4,096).

A shard tree of a 1,000,000-manifest store (~3,900 entries, ~370 KB) was read again, inflated
and its deltas applied, for every path looked up in it: the gate of a 1-manifest pull request
at 1,000,000 read 35 trees 81 times, ~25% of its CPU (2026-12-05). The cache's total stays
libgit2's (256 MB by default); blobs are not affected."""


@contextmanager
def hashes_trusted() -> Iterator[None]:
    """Within the block, libgit2 does not hash again each object it reads (process-wide).

    libgit2 checks every object read against its id (SHA-1 with collision detection), which
    git itself does not do on a read: git hashes an object when it receives it
    (``index-pack``, ``unpack-objects``: that is how its id is made) or writes it. The gate
    (``kistore check``) reads objects that arrived so, in the server's pre-receive hook (the
    push's quarantine and what earlier pushes stored) and in CI's fresh clone, and a damaged
    read still fails zlib's own check; at 1,000,000 manifests the hashing was 13% of a
    1-manifest gate's instructions (docs/speed.md, "The gate at 1,000,000 on a repacked
    server"). ``kistore verify`` keeps the check: it is the command that vouches for the
    bytes on this disk. The option is restored (libgit2's default, on) when the block ends,
    so a process that runs the gate and then anything else is not left without it.

    Yields:
        None.
    """
    pygit2.settings.enable_strict_hash_verification(False)
    try:
        yield
    finally:
        pygit2.settings.enable_strict_hash_verification(True)


def open_repository(path: str) -> _pygit2.Repository:
    """Open the repository at ``path`` (a work tree or a git directory) with pygit2.

    Each call sets libgit2's tree cache limit (:data:`TREE_CACHE_LIMIT`; a process-wide
    option: setting it again is idempotent and costs one C call, no once-flag to keep).

    Args:
        path: the repository's path.

    Returns:
        The pygit2 repository.

    Raises:
        NotOwned: another user owns it and ``safe.directory`` does not list it (exit 1).
        StoreStateError: a config file libgit2 reads is a FIFO (exit 1; it would wait for
            ever: :func:`kistore.git.config_guard.refuse_blocking_config`).
        pygit2.GitError: git cannot open it for another reason.
    """
    here = Path(path)
    try:
        git_dir: Path | None = here if (here / "HEAD").exists() else git_dir_of(here)
    except RefsUnreadable:  # libgit2 says what is wrong there
        git_dir = None
    refuse_blocking_config(git_dir, git=False)
    pygit2.settings.cache_object_limit(pygit2.enums.ObjectType.TREE, TREE_CACHE_LIMIT)
    try:
        return pygit2.Repository(path)
    except pygit2.GitError as e:
        refused = not_owned(e)
        if refused is not None:
            raise refused from None
        raise
