"""``python -m kistore``: the same as the ``kistore`` command."""

from ._entry import run

run()
