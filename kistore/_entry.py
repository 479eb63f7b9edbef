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
(a weakref callback, importlib's module-lock ``cb`` among them, a ``gc.callbacks`` entry or
a finaliser: it printed "Exception ignored in ..." and the command went on) or a bare
``except:`` swallows it, the handler has noted it, and the start asks at each of its ends:
:func:`run` once the command line is imported, the command line's root before a command
runs (:func:`started`), and :func:`run` when click ended without running one (``--help``,
``--version``, a usage error); ``sys.unraisablehook`` keeps Python's traceback of it
unsaid. No start-up step blocks, so each asks within the start's own few hundred
milliseconds. The handler raises wherever it runs (it no longer names the frames that
swallow: a list missed some); once the command runs, the command line's hook brings a
swallowed interrupt back (kistore.core.signals.catch_swallowed).

No timer is armed for it (sig02): low01's 10 ms SIGALRM echo, which brought a swallowed
Ctrl-C back, fired again while a loaded machine stopped the start, raised a second exit
past the line, and, left armed, killed the process by SIGALRM once Python's teardown had
reset the handlers (flake130: exit -14). Once :func:`run` ends the process
(:data:`ending`) kistore's handlers do nothing, and it leaves no SIGALRM timer or handler
behind (the command line's own echo, ``kistore.cli._terminated``, included).
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

ending = False
"""True once :func:`run` ends the process (the start stopped, or the command over and its
status chosen): kistore's signal handlers do nothing from then. A Ctrl-C can no longer
change how it ends, and what a handler raised there escaped :func:`run` past its line."""

_seen: list[int] = []
"""The signals :func:`_interrupted_while_starting` took (non-empty: a Ctrl-C came)."""


def _interrupted_while_starting(signum: int, frame: object) -> None:
    """SIGINT while the command line is imported: end the start.

    Notes the Ctrl-C, then raises. One whose exception something swallowed (a finaliser,
    a weakref callback, a bare ``except:``) is answered where the start next asks
    (:func:`run`, :func:`started`); :func:`run` says the one line and exits 130. Does
    nothing once :data:`ending`.

    Raises:
        _Interrupted: the start is over (exit 130, said by :func:`run`).
    """
    if ending:
        return
    _seen.append(signum)
    raise _Interrupted(INTERRUPTED)


def started() -> None:
    """End the start if a Ctrl-C came while it ran; the command line's root calls it.

    Call once the command's own SIGINT handler is installed: from then on a Ctrl-C is the
    command's, and one that came before and was swallowed (noted by
    :func:`_interrupted_while_starting`) ends the start here, before anything is read.
    Nothing is raised outside the console script (:data:`console`).

    Raises:
        _Interrupted: a start-up Ctrl-C came (exit 130, said by :func:`run`).
    """
    if console and _seen:
        raise _Interrupted(INTERRUPTED)


def _unraisable(previous: object) -> object:
    """``sys.unraisablehook`` that says nothing of a start-up Ctrl-C (noted: the start asks).

    Nor of an interrupt swallowed once the process ends (:data:`ending`: its status is
    chosen, nothing brings it back; while the command runs the command line's own hook,
    chained before this one, does: kistore.core.signals.catch_swallowed).
    """

    def hook(unraisable: object) -> None:
        swallowed = getattr(unraisable, "exc_value", None)
        if isinstance(swallowed, _Interrupted) or (
                ending and isinstance(swallowed, KeyboardInterrupt)):
            return
        previous(unraisable)  # type: ignore[operator]

    return hook


def _stop_starting() -> None:
    """Say the start-up Ctrl-C (one line) and exit 130 (the caller sets :data:`ending`).

    Raises:
        SystemExit: :data:`INTERRUPTED`.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C: the same exit
    sys.stderr.write(STARTING)
    raise SystemExit(INTERRUPTED) from None


def run() -> None:
    """Run the command line; exit 130 with one line on stderr if interrupted before it starts.

    SIGINT is this function's from its first instruction (unless the parent left it
    ignored, as a script's ``cmd &`` does: it stays so to the end, kistore.core.signals)
    until :func:`kistore.cli.main` starts the command, which gives it back to Python (a
    KeyboardInterrupt), so that interrupts inside a command are the command's to report
    (an add says what it undid). The cycle collector is off while click and the command
    line load (imports make no cyclic garbage; the collector only re-walks the new
    modules: a few ms of every start); what they loaded is then frozen
    (``gc.freeze``: no later collection walks it, ~5 ms of a fresh ``show``), and so is
    every object once the command has run, so that the interpreter's shutdown does not
    walk them again (~10 ms of a fresh ``rank``). It returns with no SIGALRM timer armed
    and SIGALRM ignored, and kistore's handlers inert (:data:`ending`).

    Raises:
        SystemExit: 130 after a Ctrl-C while starting; else as :func:`kistore.cli.main`.
    """
    global console, ending
    console = True
    # `ending = True` comes first wherever the process's end begins: an assignment, so no
    # handler runs before it (Python runs them at calls), and none raises after it.
    try:
        if signal.getsignal(signal.SIGINT) is signal.default_int_handler:  # not ignored
            sys.unraisablehook = _unraisable(sys.unraisablehook)  # type: ignore[assignment]
            # inside the `try`: a Ctrl-C handled as the call returns ends the start too
            signal.signal(signal.SIGINT, _interrupted_while_starting)
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

        watchdog.arm()  # a command stuck in libgit2 still stops on Ctrl-C and SIGTERM
        ca_bundle.arm()  # pygit2's import loads no CA bundle: kistore's HTTPS is git's (~106 M)
        if _seen:  # a Ctrl-C whose exit something swallowed
            raise _Interrupted(INTERRUPTED)
    except (KeyboardInterrupt, _Interrupted):  # KeyboardInterrupt: Python's, or by hand
        ending = True
        _stop_starting()
    try:
        main()  # its root takes SIGINT from here (and asks: kistore._entry.started)
    except SystemExit as e:  # click's end, whatever the command's status
        ending = True
        if isinstance(e, _Interrupted) or (
                _seen and signal.getsignal(signal.SIGINT) is _interrupted_while_starting):
            _stop_starting()  # while starting; or click ended before its root asked
        raise
    finally:
        ending = True
        # An echo the command line armed (a Ctrl-C in a finaliser, kistore.cli._terminated)
        # is disarmed, and SIGALRM runs no Python code: Python's teardown resets such a
        # handler to the default, and a timer firing then killed the process (flake130).
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, signal.SIG_IGN)
        # The process ends here. Frozen, the objects of the ~150 modules a command loaded are
        # skipped by the collector's passes while the interpreter shuts down (~10 ms of a
        # ~90 ms `kistore rank`: issue 22, docs/speed.md). atexit handlers still run, stdout
        # and stderr are still flushed, and objects are still freed by their reference
        # counts; only one held by a reference cycle is left to the process's exit (Python
        # does not promise its __del__ at exit either).
        gc.freeze()
