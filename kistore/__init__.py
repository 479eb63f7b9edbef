"""kistore: content-addressed, git-backed store for GPU kernel benchmark manifests.

The public entry points are :class:`kistore.store.Store` (also importable as
``kistore.Store``), :class:`kistore.core.model.Manifest`, :func:`kistore.store.inputs.read_inputs`,
:mod:`kistore.core.canonical` (RFC 8785 bytes) and :class:`kistore.core.digest.Digest`. ``Store`` is
loaded on first use so that ``import kistore`` does not import pygit2.
"""

from __future__ import annotations

TYPE_CHECKING = False  # as typing's, without importing typing: the console script starts here
if TYPE_CHECKING:
    from typing import Any

__version__ = "0.1.0"


def __getattr__(name: str) -> Any:
    if name == "Store":
        # Lazy: Store loads on first use (PEP 562), so `import kistore` stays light.
        from .store._store import Store

        return Store
    raise AttributeError(f"module 'kistore' has no attribute {name!r}")
