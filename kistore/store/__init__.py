"""The store (docs/design.md §3): a git work tree of content-addressed manifests.

:class:`Store` opens one and adds to it; :mod:`._views` reads it at the work tree or a
commit; :mod:`._settled` answers from ``HEAD`` while an add is writing the work tree;
:mod:`.admission` decides what an add may write; :mod:`.inputs` reads the files a user
hands in; :mod:`.migrate` finds what a store of an earlier layout lacks.
"""

from typing import TYPE_CHECKING, Any

from ..core.layout import GITATTRIBUTES_LINE
from ..git.locks import index_lock
from ._settled import WORK_TREE_WAIT_S, Settled
from ._store import (
    AddInterrupted,
    AdmissionCheck,
    AdmissionWarning,
    GroupsCheck,
    Store,
    ValueWarning,
)
from ._views import (
    WORK_TREE_BYTES,
    CommitView,
    Files,
    FileTooLarge,
    NamesFileDisagrees,
    SparseWorkTreeView,
    StagedView,
    View,
    WorkTreeView,
)

if TYPE_CHECKING:  # pragma: no cover - typing only; at run time each loads on first use
    from ..core.settings import committed_help
    from ..git.commit import PACK_THRESHOLD
    from ..git.writer import atomic_write, refuse_links
    from ._settings import TOML_HELP, Settings, parse_settings, settings_place
    from .admission import AddResult
    from .migrate import ForwardWritten, GroupWritten, NameWritten, ObjectSkipped

_FIRST_USE = {"PACK_THRESHOLD": "kistore.git.commit", "AddResult": "kistore.store.admission",
               "atomic_write": "kistore.git.writer",  # trust and notes write with it
               "refuse_links": "kistore.git.writer",
               "ForwardWritten": "kistore.store.migrate",
               "GroupWritten": "kistore.store.migrate",
               "NameWritten": "kistore.store.migrate",
               "ObjectSkipped": "kistore.store.migrate",
               # kistore.toml's reader: an answer from the index reads no setting (issue 22)
               "Settings": "kistore.store._settings",
               "parse_settings": "kistore.store._settings",
               "settings_place": "kistore.store._settings",
               "TOML_HELP": "kistore.store._settings",
               "committed_help": "kistore.core.settings"}
"""Names imported on first use: the write path's, and kistore.toml's reader; a read
(``show``, ``rank``) loads none of them."""


def __getattr__(name: str) -> Any:
    """Return a name of :data:`_FIRST_USE`, importing its module on first access.

    Raises:
        AttributeError: ``name`` is no name of this package.
    """
    module = _FIRST_USE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    # Lazy: the write path (git.commit loads logging; admission, migrate) and settings.
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value

__all__ = [
    "GITATTRIBUTES_LINE",
    "PACK_THRESHOLD",
    "ForwardWritten",
    "GroupWritten",
    "NameWritten",
    "ObjectSkipped",
    "AddInterrupted",
    "AddResult",
    "AdmissionCheck",
    "GroupsCheck",
    "AdmissionWarning",
    "ValueWarning",
    "CommitView",
    "FileTooLarge",
    "WORK_TREE_BYTES",
    "Files",
    "NamesFileDisagrees",
    "Settings",
    "Settled",
    "index_lock",
    "settings_place",
    "TOML_HELP",
    "committed_help",
    "SparseWorkTreeView",
    "StagedView",
    "Store",
    "View",
    "WORK_TREE_WAIT_S",
    "WorkTreeView",
    "atomic_write",
    "parse_settings",
    "refuse_links",
]
