"""The store (docs/design.md §3): a git work tree of content-addressed manifests.

:class:`Store` opens one and adds to it; :mod:`._views` reads it at the work tree or a
commit; :mod:`.admission` decides what an add may write; :mod:`.inputs` reads the files a
user hands in; :mod:`.migrate` finds what a store of an earlier layout lacks.
"""

from ..core.gitattributes import GITATTRIBUTES_LINE
from ._store import (
    PACK_THRESHOLD,
    AddInterrupted,
    AddResult,
    Store,
    atomic_write,
    read_settings,
)
from ._views import CommitView, Files, FileTooLarge, NamesFileDisagrees, View, WorkTreeView
from .migrate import ForwardWritten, NameWritten

__all__ = [
    "GITATTRIBUTES_LINE",
    "PACK_THRESHOLD",
    "ForwardWritten",
    "NameWritten",
    "AddInterrupted",
    "AddResult",
    "CommitView",
    "FileTooLarge",
    "Files",
    "NamesFileDisagrees",
    "Store",
    "View",
    "WorkTreeView",
    "atomic_write",
    "read_settings",
]
