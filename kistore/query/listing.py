"""``kistore ls``: what the store holds, listed from the index's listing rows.

A listing of every run reads the covering SQL index of the index's records (digest, kind,
name and the derived columns, each row checked by its listing seal), never a stored
document (:meth:`kistore.index.catalog.Catalog.listing`). In the work tree it is checked
per shard directory, not per file: an ``ls`` of 100,000 runs stated 200,000 files and
decoded as many documents (5 to 10 s, where ``git ls-tree -r --name-only`` lists the same
names in ~0.1 s). Answers about one manifest (``rank``, ``show``) check its files.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..core.digest import is_digest
from ..core.errors import InputError
from ..core.schema import KINDS
from ..index.catalog import Catalog
from ..index.records import Listed

if TYPE_CHECKING:  # pragma: no cover - typing only
    from ..store import Store


def check_kind(kind: str | None) -> None:
    """Refuse a kind no schema defines.

    Raises:
        InputError: ``kind`` is not None and not one of :data:`kistore.core.schema.KINDS`.
    """
    if kind is not None and kind not in KINDS:
        raise InputError(f"unknown kind {kind!r}; expected one of {', '.join(KINDS)}")


def list_entries(store: Store, catalog: Catalog, *, kind: str | None = None,
                 workload: str | None = None, hardware: str | None = None,
                 at: str | None = None, details: bool = True) -> list[Listed]:
    """List stored manifests as ``kistore ls`` shows them, in (kind, name, digest) order.

    Args:
        store: a :class:`kistore.store.Store`.
        catalog: the catalog of the view listed (:func:`kistore.index.index.open_catalog`).
        kind: only this kind.
        workload: a workload reference (digest, prefix, ``Workload/NAME``): the workload
            and its runs. A full digest also finds runs of a workload not in the store.
        hardware: a GPU product as the driver names it (``NVIDIA B200``): environments
            with it and runs on them.
        at: the revision ``catalog`` answers for, or None for the work tree (to resolve
            ``workload``).
        details: also give each entry's workload and comparison key (JSON output);
            False may leave them None.

    Returns:
        One :class:`~kistore.index.records.Listed` per manifest.

    Raises:
        InputError: an unknown kind; a workload reference that does not resolve.
    """
    check_kind(kind)
    workload_digest = None
    if is_digest(workload):  # a full digest may name a workload the store lacks (dangling)
        workload_digest = workload
    elif workload is not None:
        # Lazy: answers loads the evidence code (~80 ms), which only a reference needs.
        from .answers import find

        workload_digest = find(store, catalog, workload, at=at).digest
    return catalog.listing(kind=kind, workload=workload_digest, hardware=hardware,
                           details=details)
