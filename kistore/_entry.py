"""The ``kistore`` console script: :func:`kistore.cli.main`, with Ctrl-C said, not a traceback.

A Ctrl-C in the first few hundred milliseconds, while click and the command's modules are
imported, used to print a KeyboardInterrupt traceback (or click's "Aborted!", exit 1).
Nothing has been read or written then. :func:`run` first takes SIGINT itself, so from its
first instruction to the command's own handlers a Ctrl-C exits 130 with one line; this
module and ``kistore/__init__.py`` import nothing but ``signal`` and ``sys``, so the window
before it is the interpreter's own start-up (before Python takes SIGINT a Ctrl-C ends the
process by the signal, as a shell reports 130; a Ctrl-C while Python imports its ``site``
module is Python's "Fatal Python error", which no package's code can reach).

A Ctrl-C is never lost while starting (low01): where Python ignores what a handler raises
(a weakref callback, importlib's module-lock ``cb`` among them, or a finaliser: it printed
"Exception ignored in ..." and the command went on) or a bare ``except:`` swallows it, the
handler has already armed a 10 ms SIGALRM that brings it back, ``run`` asks once the
command line is imported, and ``sys.unraisablehook`` keeps Python's traceback of it unsaid.
"""

from __future__ import annotations

import signal
import sys

INTERRUPTED = 130
"""The exit status of a command stopped by Ctrl-C or SIGTERM (128 + SIGINT)."""

STARTING = "interrupted while starting: nothing was read or written\n"
"""What a Ctrl-C before the command runs prints on stderr."""


class _Interrupted(SystemExit):
    """A Ctrl-C while starting: a SystemExit, so that what lets an exit through lets it through."""


console = False
"""True once :func:`run` has started: this process is the console script, and its signal
handlers stay the command line's to its exit. A program that calls :func:`kistore.cli.main`
itself (a test's ``CliRunner``) gets its own back when the command ends."""

_seen: list[int] = []
"""The signals :func:`_interrupted_while_starting` took (non-empty: a Ctrl-C came)."""


def swallows(code: object) -> bool:
    """Return whether Python ignores an exception raised in ``code`` (a frame's code object).

    A finaliser (``__del__``) and importlib's weakref callback that drops a module lock
    (``cb`` in ``<frozen importlib._bootstrap>``): Python prints "Exception ignored in" and
    goes on, so an exception a signal handler raises there is lost (and raised part-way
    through ``cb`` it would leave importlib's lock table half-updated).
    """
    name = str(getattr(code, "co_name", ""))
    file = str(getattr(code, "co_filename", ""))
    return name == "__del__" or (name == "cb" and file == "<frozen importlib._bootstrap>")


def _interrupted_while_starting(signum: int, frame: object) -> None:
    """SIGINT (and its SIGALRM echo) while the command line is imported: end the start.

    Notes the Ctrl-C and arms a 10 ms SIGALRM to this handler first, so that it comes back
    if what it raises is swallowed (a bare ``except:``, a weakref callback); in a frame
    :func:`swallows` names it raises nothing and waits for that echo. :func:`run` says the
    one line and exits 130.

    Raises:
        _Interrupted: the start is over (exit 130, said by :func:`run`).
    """
    _seen.append(signum)
    signal.signal(signal.SIGALRM, _interrupted_while_starting)
    signal.setitimer(signal.ITIMER_REAL, 0.01)
    caller = frame
    while caller is not None:
        if swallows(getattr(caller, "f_code", None)):
            return
        caller = getattr(caller, "f_back", None)
    raise _Interrupted(INTERRUPTED)


def _unraisable(previous: object) -> object:
    """``sys.unraisablehook`` that says nothing of a start-up Ctrl-C (its echo comes back)."""

    def hook(unraisable: object) -> None:
        if isinstance(getattr(unraisable, "exc_value", None), _Interrupted):
            return
        previous(unraisable)  # type: ignore[operator]

    return hook


def _stop_starting() -> None:
    """Say the start-up Ctrl-C (one line) and exit 130; no echo of it is left armed.

    Raises:
        SystemExit: :data:`INTERRUPTED`.
    """
    for number in (signal.SIGINT, signal.SIGALRM):  # a second Ctrl-C: the same exit
        signal.signal(number, signal.SIG_IGN)
    signal.setitimer(signal.ITIMER_REAL, 0)
    sys.stderr.write(STARTING)
    raise SystemExit(INTERRUPTED) from None


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
    global console
    console = True
    ours = signal.getsignal(signal.SIGINT) is signal.default_int_handler
    if ours:
        signal.signal(signal.SIGINT, _interrupted_while_starting)
        sys.unraisablehook = _unraisable(sys.unraisablehook)  # type: ignore[assignment]
    try:
        # Lazy: a builtin module, imported once SIGINT is ours (the module imports only signal).
        import gc

        gc.disable()
        try:
            # Lazy: `kistore CMD --help` loads no store code (tests/cli/test_cli_startup.py).
            from .cli import main
        finally:
            # What is loaded so far (the interpreter's start, click, the command line) lives
            # as long as the process: frozen, no collection walks it again while the command
            # loads and runs (~5 ms of a fresh `show`: issue 22, docs/speed.md)
            gc.freeze()
            gc.enable()
        # Lazy: as the command line, once SIGINT is ours (neither module imports pygit2).
        from .git import ca_bundle, watchdog

        if _seen:  # a Ctrl-C whose exit something swallowed, not yet come back
            raise _Interrupted(INTERRUPTED)
    except (KeyboardInterrupt, _Interrupted):  # KeyboardInterrupt: raised by hand, not ours
        _stop_starting()
    watchdog.arm()  # a command stuck in libgit2 still stops on Ctrl-C and SIGTERM
    ca_bundle.arm()  # pygit2's import loads no CA bundle: kistore's HTTPS is git's (~106 M)
    try:
        main()  # its root takes SIGINT (and a pending echo's SIGALRM) from here
    except _Interrupted:  # while click parsed the line or imported the subcommand
        _stop_starting()
    finally:
        # The process ends here. Frozen, the objects of the ~150 modules a command loaded are
        # skipped by the collector's passes while the interpreter shuts down (~10 ms of a
        # ~90 ms `kistore rank`: issue 22, docs/speed.md). atexit handlers still run, stdout
        # and stderr are still flushed, and objects are still freed by their reference
        # counts; only one held by a reference cycle is left to the process's exit (Python
        # does not promise its __del__ at exit either).
        gc.freeze()
