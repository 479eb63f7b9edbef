"""What the index asks of the store layer above it, as typing Protocols.

The index sits below :mod:`kistore.store` (docs/design.md, the layers): it may not import
:class:`kistore.store.Store` or :class:`kistore.store.View`, not even for typing (the
layer contract counts every import). These Protocols name the few members it uses; the
store's classes satisfy them structurally, and mypy checks that they do at each call.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from ..core.digest import Digest
from ..core.errors import KistoreError
from ..core.limits import Limits

if TYPE_CHECKING:  # pragma: no cover - typing only: pygit2 loads on first use
    import pygit2


class StoreView(Protocol):
    """The store's files at the work tree or one commit (a :class:`kistore.store.View`)."""

    @property
    def scope(self) -> str:
        """``work`` (the work tree) or ``commit``."""
        ...

    def read(self, path: str) -> bytes | None:
        """Return the bytes at a repository path (``store/objects/...``); None when absent."""
        ...

    def digests(self) -> Iterator[Digest]:
        """Yield the digest named by every object file, sorted (bytes unchecked)."""
        ...

    def prefetch(self, paths: Iterable[str]) -> int:
        """Make the files at ``paths`` cheap to read next; return how many blobs were fetched.

        In a partial clone the blobs it lacks come in one ``git fetch``; else nothing.
        """
        ...


class IndexedStore(Protocol):
    """A store the index is derived from (a :class:`kistore.store.Store`)."""

    @property
    def root(self) -> Path | None:
        """The work tree (None in a bare repository)."""
        ...

    @property
    def git_dir(self) -> Path:
        """The repository's git directory: the index lives in its ``kistore/``."""
        ...

    @property
    def repo(self) -> pygit2.Repository:
        """The pygit2 repository (opened on first use)."""
        ...

    def commit(self, rev: str) -> pygit2.Commit:
        """Return the commit a revision names.

        Raises:
            InputError: ``rev`` names no commit.
        """
        ...

    def view(self, at: str | None = None) -> StoreView:
        """Return the store's files at revision ``at`` (None: the work tree)."""
        ...

    def limits(self, at: str | None = None) -> Limits:
        """Return the size limits of the store's ``kistore.toml`` (``[limits]``).

        Raises:
            InputError, MultipleErrors: kistore.toml sets invalid limits.
        """
        ...

    def limits_per_key(self, at: str | None = None) -> tuple[Limits, list[KistoreError]]:
        """Return the size limits, each bad key of ``[limits]`` at its default, and the problems."""
        ...

    def version_problems(self, at: str | None = None) -> Sequence[KistoreError]:
        """Return what a query says of a ``[store] version`` this kistore does not write.

        ``at``: a revision whose ``kistore.toml`` is read (None: the work tree's).
        """
        ...

    def settings_file(self, at: str | None = None) -> tuple[bytes | None, str]:
        """Return the bytes of the ``kistore.toml`` :meth:`limits` parses, and its name.

        Raises:
            InputError: it is there but not a regular file.
        """
        ...
