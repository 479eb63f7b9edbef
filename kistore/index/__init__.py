"""The derived index: names and query rows in SQLite under ``.git/kistore/``, never committed.

One file (``index.sqlite``), one format (:data:`FORMAT`), one lock and one freshness rule
(:mod:`.freshness`), documented in docs/design.md ("The derived index"). Deleting it loses
nothing: it is rebuilt from the store. Every row is sealed (:func:`.database.seal`); a row
edited from outside kistore, or a damaged or foreign file, is never trusted but rebuilt.

Modules: :mod:`._database` (the file, its tables, lock, connection and seals), :mod:`.names`
(``KIND/NAME -> digest``), :mod:`._rows` and :mod:`.index` (the query rows of a tree),
:mod:`.catalog` (what queries read), :mod:`._worktree`, :mod:`._fresh` and :mod:`.warm` (the
work tree overlaid on ``HEAD``'s rows), :mod:`.freshness` (stat keys, the racy window),
:mod:`.interfaces` (what the index asks of the store layer above it), :mod:`.checked`
(documents already checked against their schema, by their bytes), :mod:`.agree` (the kept
file compared with a fresh build: ``kistore reindex --check``).
"""

from typing import TYPE_CHECKING

from .._exports import lazy_exports

if TYPE_CHECKING:  # pragma: no cover - typing only; at run time each name loads on first use
    from ._database import FORMAT as FORMAT
    from ._database import index_path as index_path
    from ._fresh import record_written as record_written
    from ._worktree import AddedDirs as AddedDirs
    from ._worktree import dirs_before_add as dirs_before_add
    from ._worktree import record_added as record_added
    from ._worktree import rows_of_dirs as rows_of_dirs
    from ._worktree import shard_keys as shard_keys
    from .catalog import Catalog as Catalog
    from .catalog import MemoryCatalog as MemoryCatalog
    from .catalog import damage as damage
    from .checked import is_checked as is_checked
    from .checked import record_checked as record_checked
    from .freshness import RACY_NS as RACY_NS
    from .freshness import is_racy as is_racy
    from .freshness import stat_key as stat_key
    from .index import Index as Index
    from .index import IndexCatalog as IndexCatalog
    from .index import count_objects as count_objects
    from .index import open_catalog as open_catalog
    from .interfaces import IndexedStore as IndexedStore
    from .interfaces import StoreView as StoreView
    from .names import NameIndex as NameIndex
    from .names import open_name_index as open_name_index
    from .records import Record as Record
    from .warm import OutsideCheckout as OutsideCheckout
    from .warm import maybe_attested as maybe_attested

__all__, __getattr__, __dir__ = lazy_exports(__name__, {
    "catalog": ["Catalog", "MemoryCatalog", "damage"],
    "checked": ["is_checked", "record_checked"],
    "_database": ["FORMAT", "index_path"],
    "_fresh": ["record_written"],
    "_worktree": ["AddedDirs", "dirs_before_add", "record_added", "rows_of_dirs", "shard_keys"],
    "freshness": ["RACY_NS", "is_racy", "stat_key"],
    "index": ["Index", "IndexCatalog", "count_objects", "open_catalog"],
    "kept": ["keep_value", "kept_value"],
    "interfaces": ["IndexedStore", "StoreView"],
    "names": ["NameIndex", "open_name_index"],
    "records": ["Record"],
    "warm": ["OutsideCheckout", "maybe_attested"],
})
