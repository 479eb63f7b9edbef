"""Per-invocation state (:class:`StoreContext`) and the decorators of commands that read.

The store is opened once, on first use; a query of the work tree answers from ``HEAD``
while an add is writing it (the store's rule, :meth:`kistore.store.Store.settled`; here
only its note is said); :func:`one_look` lets a read-only command judge one listing of
the shard directories.
"""

from __future__ import annotations

import functools
import gc
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar

import click

if TYPE_CHECKING:  # pragma: no cover - typing only
    from ..store import Store

P = ParamSpec("P")
R = TypeVar("R")


class StoreContext:
    """Per-invocation state: where the store is, opened on first use.

    Args:
        path: the ``--store`` option (None: the git work tree around the current directory).
    """

    def __init__(self, path: str | None) -> None:
        self.path = path
        self._store: Store | None = None

    def store(self) -> Store:
        """Return the :class:`kistore.store.Store` (opened once).

        Raises:
            StoreStateError: when there is no git repository at ``--store`` or above cwd.
        """
        if self._store is None:
            # Lazy: `kistore CMD --help` loads no store code (tests/cli/test_cli_startup.py).
            from ..store import Store

            self._store = Store(self.path)
        return self._store

    def read_store(self, at: str | None) -> Store:
        """Return the store for a command that reads it at ``at``: never a repository that is none.

        Args:
            at: the revision the command reads (None: the work tree).

        Raises:
            StoreStateError: no git repository here, or one that holds neither kistore.toml
                nor store/ (:meth:`kistore.store.Store.require_store`).
        """
        store = self.store()
        store.require_store(at)
        return store

    def opened(self) -> Store | None:
        """Return the store if :meth:`store` has opened it, else None (nothing is opened)."""
        return self._store

    def settled_at(self, at: str | None) -> str | None:
        """Return the revision a query answers: ``at``, or ``HEAD`` while the work tree is written.

        The store's rule (:meth:`kistore.store.Store.settled`): a work-tree query (``at``
        None) with git's ``.git/index.lock`` held waits up to a second for it, then answers
        from ``HEAD``; its note is said on stderr here. No lock: one ``lstat``.

        Args:
            at: the ``--at`` given (None: the work tree).

        Returns:
            ``at``, or ``"HEAD"`` in place of the work tree while the lock stays held.
        """
        if at is not None:
            return at
        # Lazy: `kistore CMD --help` loads no store code (tests/cli/test_cli_startup.py).
        from ..core.errors import StoreStateError

        try:
            store = self.store()
        except StoreStateError:  # not a store: the command says so itself
            return None
        settled = store.settled(None)
        if settled.note is not None:
            click.echo(f"warning: {settled.note}", err=True)
        return settled.at

    def limits(self) -> Any:
        """Return the size limits of the store, or the defaults outside any store.

        Raises:
            InputError: the store's kistore.toml sets invalid limits.
        """
        # Lazy: `kistore CMD --help` loads no store code (tests/cli/test_cli_startup.py).
        from ..core.errors import StoreStateError
        from ..core.limits import DEFAULT

        try:
            return self.store().limits()
        except StoreStateError:  # `kistore digest` outside a store
            return DEFAULT


def settled_work_tree(command: Callable[P, R]) -> Callable[P, R]:
    """Run a query of the work tree once no add is writing it (:meth:`StoreContext.settled_at`).

    For a command given the :class:`StoreContext` first and an ``at`` keyword argument
    (``--at``); put it below ``pass_ctx``.
    """
    @functools.wraps(command)
    def settled(*args: P.args, **kwargs: P.kwargs) -> R:
        if args and isinstance(args[0], StoreContext) and kwargs.get("at") is None:
            kwargs["at"] = args[0].settled_at(None)
        return command(*args, **kwargs)

    return settled


def collector_off(command: Callable[P, R]) -> Callable[P, R]:
    """Run a command with Python's cycle collector off, and turn it back on as it was after.

    For commands whose data is acyclic and lives until they end (``add``'s batch,
    ``verify``'s listing and results, a query's one group): the collector would only
    re-walk it (docs/speed.md: ~15% of parsing 10,000 manifests, ~2.3 s of ``verify``'s
    parent at 100,000), and forked workers copy the pages each walk touches. Restoring it
    keeps a process that runs commands in turn (a test's ``CliRunner``) as it was; the price
    is one pass of the youngest generation, which then holds what the command made, where
    ``verify`` at 100,000 saved fourteen full ones.

    Args:
        command: the click command function.

    Returns:
        The wrapped function, same signature and result; what ``command`` raises passes
        through (the collector restored first).
    """
    @functools.wraps(command)
    def off(*args: P.args, **kwargs: P.kwargs) -> R:
        collecting = gc.isenabled()
        gc.disable()
        try:
            return command(*args, **kwargs)
        finally:
            if collecting:
                gc.enable()

    return off


def one_look(command: Callable[P, R]) -> Callable[P, R]:
    """Run a command that writes nothing under ``store/`` with one look at its shards.

    Within it, the names' keys and the work-tree comparison judge one listing of the
    512 shard directories (:func:`kistore.index.freshness.one_scan`), not two. The cycle
    collector is off while it runs (:func:`collector_off`): such a command reads one group,
    and what it makes is freed by reference counts; the collector only re-walked the
    modules it imports (~5-10 ms of a run page, docs/speed.md "Start-up, fourth pass").
    """
    @functools.wraps(command)
    def looked_once(*args: P.args, **kwargs: P.kwargs) -> R:
        # Lazy: `kistore CMD --help` loads no store code (tests/cli/test_cli_startup.py).
        from ..index.freshness import one_scan

        with one_scan():
            return command(*args, **kwargs)

    return collector_off(looked_once)
