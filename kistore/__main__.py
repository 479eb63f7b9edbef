"""``python -m kistore``: the same as the ``kistore`` command."""

from kistore._entry import run

run()
