"""``python -m kistore``: the same as the ``kistore`` command."""

from kistore.cli import main

main()
