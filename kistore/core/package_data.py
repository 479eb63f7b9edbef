"""Files shipped inside kistore's packages (package data), read the one way.

The KernelBench catalogue beside :mod:`kistore.core.provenance` and the default ranking
policy beside :mod:`kistore.query.policy` (``pyproject.toml``'s
``[tool.setuptools.package-data]``). No git, no store: bytes of kistore's own files.
"""

from __future__ import annotations

import importlib
import os
import sys


def read_package_data(package: str, name: str) -> bytes:
    """Return the bytes of the data file ``name`` shipped in ``package``.

    Read beside the package's modules (one ``open``: kistore installed as files, or a
    checkout); only where the package is not plain files (a zip import) through its
    loader, :mod:`importlib.resources`, which loads tempfile, zipfile... (~15 ms of
    start-up, docs/speed.md).

    Args:
        package: the package's dotted name (``kistore.core``); imported when it is not yet.
        name: the file's name in the package's folder (``kernelbench_runs.txt``).

    Raises:
        OSError: the file is missing from the installation (a broken install).
    """
    module = sys.modules.get(package) or importlib.import_module(package)
    folder = os.path.dirname(module.__file__ or "")
    try:
        with open(os.path.join(folder, name), "rb") as f:
            return f.read()
    except OSError:
        # Lazy: only a package that is not plain files needs its loader.
        from importlib import resources

        return resources.files(package).joinpath(name).read_bytes()
