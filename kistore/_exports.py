"""Lazy re-exports for the packages' ``__init__`` modules (PEP 562 module ``__getattr__``).

Each layer package states its public names in ``__all__`` and lets callers write
``from kistore.attest import Bundle``. Importing every submodule up front would load
pygit2, cryptography and jsonschema for ``kistore --help``; here a name's submodule is
imported on first access instead. Type checkers read the package's ``TYPE_CHECKING``
imports, which name the same things.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_exports(package: str, where: Mapping[str, list[str]]
                 ) -> tuple[list[str], Callable[[str], Any], Callable[[], list[str]]]:
    """Return ``(__all__, __getattr__, __dir__)`` for a package that re-exports lazily.

    Args:
        package: the package's ``__name__``.
        where: submodule name (relative, e.g. ``"attestation"``) -> the public names it
            defines that the package re-exports.

    Returns:
        ``__all__`` (sorted), a module ``__getattr__`` that imports the submodule of a name
        on first access (and caches the value in the package), and a ``__dir__``.

    Raises:
        AttributeError: from ``__getattr__``, for a name the package does not export.
    """
    owner = {name: module for module, names in where.items() for name in names}
    public = sorted(owner)

    def __getattr__(name: str) -> Any:
        module = owner.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{module}"), name)
        setattr(importlib.import_module(package), name, value)
        return value

    def __dir__() -> list[str]:
        return public

    return public, __getattr__, __dir__
