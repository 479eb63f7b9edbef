"""The ``kistore`` console script: :func:`kistore.cli.main`, with Ctrl-C said, not a traceback.

A Ctrl-C in the first few hundred milliseconds, while click and the command's modules are
imported, used to print a KeyboardInterrupt traceback (or click's "Aborted!", exit 1).
Nothing has been read or written then. :func:`run` first takes SIGINT itself, so from its
first instruction to the command's own handlers a Ctrl-C exits 130 with one line; this
module and ``kistore/__init__.py`` import nothing but ``signal`` and ``sys``, so the window
before it is the interpreter's own start-up (before Python takes SIGINT a Ctrl-C ends the
process by the signal, as a shell reports 130; a Ctrl-C while Python imports its ``site``
module is Python's "Fatal Python error", which no package's code can reach).
"""

from __future__ import annotations

import signal
import sys

INTERRUPTED = 130
"""The exit status of a command stopped by Ctrl-C or SIGTERM (128 + SIGINT)."""

STARTING = "interrupted while starting: nothing was read or written\n"
"""What a Ctrl-C before the command runs prints on stderr."""


def _interrupted_while_starting(signum: int, frame: object) -> None:
    """SIGINT handler while the command line is imported: one line, exit 130."""
    sys.stderr.write(STARTING)
    raise SystemExit(INTERRUPTED)


def run() -> None:
    """Run the command line; exit 130 with one line on stderr if interrupted before it starts.

    SIGINT is this function's from its first instruction (unless it was ignored, as under
    ``nohup``: it stays so) until :func:`kistore.cli.main` starts the command, which gives
    it back to Python (a KeyboardInterrupt), so that interrupts inside a command are the
    command's to report (an add says what it undid). The cycle collector is off while
    click and the command line load (imports make no cyclic garbage; the collector only
    re-walks the new modules: a few ms of every start); what they loaded is then frozen
    (``gc.freeze``: no later collection walks it, ~5 ms of a fresh ``show``), and so is
    every object once the command has run, so that the interpreter's shutdown does not
    walk them again (~10 ms of a fresh ``rank``).

    Raises:
        SystemExit: 130 after a Ctrl-C while starting; else as :func:`kistore.cli.main`.
    """
    ours = signal.getsignal(signal.SIGINT) is signal.default_int_handler
    if ours:
        signal.signal(signal.SIGINT, _interrupted_while_starting)
    # Lazy: a builtin module, imported once SIGINT is ours (the module imports only signal).
    import gc

    gc.disable()
    try:
        # Lazy: `kistore CMD --help` loads no store code (tests/cli/test_cli_startup.py).
        from .cli import main
    except KeyboardInterrupt:  # a SIGINT raised by hand, or not ours to take
        sys.stderr.write(STARTING)
        raise SystemExit(INTERRUPTED) from None
    finally:
        # What is loaded so far (the interpreter's start, click, the command line) lives as
        # long as the process: frozen, no collection walks it again while the command loads
        # and runs (~5 ms of a fresh `show`: issue 22, docs/speed.md)
        gc.freeze()
        gc.enable()
    # Lazy: as the command line, once SIGINT is ours (neither module imports pygit2).
    from .git import ca_bundle, watchdog

    watchdog.arm()  # a command stuck in libgit2 still stops on Ctrl-C and SIGTERM
    ca_bundle.arm()  # pygit2's import loads no CA bundle: kistore's HTTPS is git's (~106 M)
    try:
        main()
    finally:
        # The process ends here. Frozen, the objects of the ~150 modules a command loaded are
        # skipped by the collector's passes while the interpreter shuts down (~10 ms of a
        # ~90 ms `kistore rank`: issue 22, docs/speed.md). atexit handlers still run, stdout
        # and stderr are still flushed, and objects are still freed by their reference
        # counts; only one held by a reference cycle is left to the process's exit (Python
        # does not promise its __del__ at exit either).
        gc.freeze()
