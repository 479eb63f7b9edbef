"""The ``kistore`` console script: :func:`kistore.cli.main`, with Ctrl-C said, not a traceback.

A Ctrl-C in the first few hundred milliseconds, while click and the command's modules are
imported, used to print a KeyboardInterrupt traceback (or click's "Aborted!", exit 1).
Nothing has been read or written then. This module imports nothing heavy, so the interrupt
is caught from the first instruction on.
"""

from __future__ import annotations

import sys

INTERRUPTED = 130
"""The exit status of a command stopped by Ctrl-C or SIGTERM (128 + SIGINT)."""


def run() -> None:
    """Run the command line; exit 130 with one line on stderr if interrupted before it starts.

    Interrupts inside a command are the command's to report (an add says what it undid).
    """
    try:
        # Lazy: `kistore CMD --help` loads no store code (tests/cli/test_cli_startup.py).
        from .cli import main
    except KeyboardInterrupt:
        sys.stderr.write("interrupted while starting: nothing was read or written\n")
        raise SystemExit(INTERRUPTED) from None
    main()
