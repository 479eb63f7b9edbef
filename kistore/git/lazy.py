"""pygit2, imported on first use: a work-tree ``add`` and ``kistore --help`` never need it.

Importing pygit2 costs about 0.2 s. Modules that need it at call time write
``from kistore.git.lazy import pygit2`` and get a stand-in that imports the real module
on its first attribute lookup, then caches each attribute it handed out.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__all__ = ["pygit2"]

if TYPE_CHECKING:  # pragma: no cover - typing only
    import pygit2
else:
    class _Pygit2:
        """The stand-in: imports pygit2 on the first attribute lookup."""

        def __getattr__(self, name: str) -> Any:
            module = importlib.import_module("pygit2")
            globals()["pygit2"] = module
            value = getattr(module, name)
            setattr(self, name, value)  # modules that imported the stand-in: a plain lookup
            return value

    pygit2 = _Pygit2()
