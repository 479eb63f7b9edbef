"""The warning of the symlinked store directories a command's reads left out (r70 F2)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from ..core.errors import printable

if TYPE_CHECKING:  # pragma: no cover - typing only
    from ..store import Store


def warn_linked(store: Store | None) -> None:
    """Say which symlinked directories of the work tree the command's reads left out.

    Reads never go through one (:meth:`kistore.store.WorkTreeView.linked_dir`); what lies
    under it was read as absent. The store the command opened records them
    (:meth:`kistore.store.Store.linked_dirs`); the root group calls this once the command
    has ended, whatever its exit.

    Args:
        store: the store the command opened (:meth:`kistore.cli.StoreContext.opened`);
            None when it opened none: nothing to say.
    """
    for path in store.linked_dirs() if store is not None else ():
        click.echo(printable(f"warning: {path}: is a symbolic link where the store keeps a "
                             "directory; nothing under it was read (left out as absent); "
                             "`kistore verify` reports it (KI111)"),
                   err=True)
