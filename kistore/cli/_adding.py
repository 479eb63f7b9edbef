"""What ``add``, ``import`` and ``migrate`` say when interrupted, once landed, or refused.

Ctrl-C and SIGTERM before an add lands: :func:`interrupt_says` (exit 130) with
:func:`undone_add`'s words; after it lands: :class:`Landing` (noted, said, exit 0); a
metadata conflict: :func:`metadata_option_hint` names the command's option.
"""

from __future__ import annotations

import atexit
import contextlib
import signal
import sys
import time
from collections.abc import Iterator
from typing import Any

import click

from ..core import signals
from ..core.errors import KistoreError, MetadataConflictError
from ..git import watchdog

INTERRUPTED = 130
"""Exit code of a command stopped by Ctrl-C or SIGTERM before it finished (128 + SIGINT)."""


@contextlib.contextmanager
def interrupt_says(what: str) -> Iterator[None]:
    """Say what a Ctrl-C or SIGTERM left, instead of click's bare "Aborted!"; exit 130.

    For adds: :meth:`kistore.store.Store.add` undoes an add that has not landed before
    the interrupt goes on, so a ``KeyboardInterrupt`` out of it means nothing was added;
    once it has landed, the :class:`Landing` passed as its ``on_landed`` takes the signals
    and nothing is raised. (Without one, an interrupt after the landing is
    :class:`kistore.store.AddInterrupted`: passed on untouched.)

    Args:
        what: what was left, after ``interrupted``: e.g. ``before the add landed: nothing
            was added; ...``.

    Raises:
        click.exceptions.Exit: with :data:`INTERRUPTED` (130), after the message on stderr.
    """
    try:
        yield
    except KeyboardInterrupt as e:
        store = sys.modules.get("kistore.store")  # not imported yet: nothing was written
        if store is not None and isinstance(e, store.AddInterrupted):  # landed
            raise
        click.echo(f"interrupted {what}", err=True)
        raise click.exceptions.Exit(INTERRUPTED) from None


@contextlib.contextmanager
def metadata_option_hint(hint: str) -> Iterator[None]:
    """Add this command's option to each metadata conflict the store refuses with.

    The store says what conflicts (:class:`~kistore.core.errors.MetadataConflictError`)
    and knows no command line; the command that ran says which of its options replaces
    the metadata (``add --update-metadata``, ``import --update-metadata``).

    Args:
        hint: appended to each such problem's message after ``"; "``, e.g. ``pass
            --update-metadata to replace it``.

    Raises:
        KistoreError: the error raised inside, each metadata conflict's message extended.
    """
    try:
        yield
    except KistoreError as e:
        for problem in e.problems:
            if isinstance(problem, MetadataConflictError):
                problem.message += f"; {hint}"
                problem.args = (problem.format(),)
        raise


class Landing:
    """Ctrl-C and SIGTERM once an add has landed: noted, said, never a stop (exit 0).

    Pass :meth:`landed` as the store's ``on_landed``
    (:meth:`kistore.store.Store.add`): the store calls it the moment nothing is left to
    undo, while the signals are still held over the branch move, so from then on each
    is only noted (a stop there said "nothing was added" of a committed add, or ended
    the command with no word). :meth:`say` reports them after the add returns.

    Attributes:
        commit: the commit the add landed as (hex), None before it lands or without one.
        late: the signal numbers noted since, in order.
    """

    def __init__(self) -> None:
        self.commit: str | None = None
        self.late: list[int] = []

    def landed(self, commit: str | None) -> None:
        """Note Ctrl-C and SIGTERM from here to the exit (the store's ``on_landed``).

        SIGALRM too: one that landed in a finaliser comes back as it (:func:`_terminated`).
        One the process was started ignoring stays ignored (:mod:`kistore.core.signals`).
        """
        self.commit = commit
        signals.take((signal.SIGINT, signal.SIGTERM, signal.SIGALRM), self._note)
        atexit.unregister(_hold_signals_to_the_end)  # once, however many landings
        atexit.register(_hold_signals_to_the_end)

    def _note(self, number: int, frame: Any) -> None:
        """Signal handler past the landing: remember, raise nothing."""
        watchdog.answered()
        self.late.append(number)

    def say(self, noun: str, count: int) -> None:
        """Say on stderr, if a signal came after the add (or import) landed, that it is whole.

        Args:
            noun: ``add``, ``import`` or ``migration``.
            count: how many manifests (files, for a migration) the command reports.
        """
        if not self.late:
            return
        where = f"committed as {self.commit}" if self.commit else "in the work tree"
        what = "files are written" if noun == "migration" else "manifests are stored"
        click.echo(f"interrupted after the {noun} had landed: all {count} {what} "
                   f"and {where}; nothing was undone", err=True)


def _hold_signals_to_the_end() -> None:
    """Block Ctrl-C and SIGTERM for the rest of the exit of a command whose write landed.

    Python's teardown puts every handler back to the default after the last Python code has
    run, so a SIGTERM in the last milliseconds of an exit ended a landed add with exit 143
    and no word (reviewer r80 F8). Blocked, such a late signal stays pending and dies with
    the process: the exit status stays 0 and what was said stays true. Runs as an
    :mod:`atexit` function, when no child process is started any more (a blocked mask is
    inherited across ``exec``).
    """
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})


def undone_add(noun: str, *, commit: bool, update_metadata: bool = False) -> str:
    """Return what :func:`interrupt_says` says of an add (or import) that did not land.

    The store undoes such an add: files it created are removed, files it replaced (the
    metadata ``--update-metadata`` rewrites) get their old bytes back.
    """
    branch = ", and the branch did not move" if commit else ""
    undone = ("any files it had written were removed and any metadata it replaced restored"
              if update_metadata else "any files it had written were removed")
    return f"before the {noun} landed: nothing was added; {undone}{branch}"


class ReadingLine:
    """A counter on stderr while ``add`` reads a large input: files and megabytes read.

    Nothing is printed in the first second (a usual add says nothing more), nor when
    stderr is not a terminal (a log, a pipe, a test); then the line is rewritten at most
    five times a second (``\r``) and ended by :meth:`done` (review r88 F6: ``add /tmp``
    read 5.6 GB for ten minutes without a word).

    Args:
        after: seconds before the first line.
        stream: where to write (default: stderr).
    """

    def __init__(self, after: float = 1.0, stream: Any = None) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.start = time.monotonic()
        self.after = after
        self.shown = 0.0  # when the line was last written; 0: never
        self.live = bool(getattr(self.stream, "isatty", lambda: False)())

    def __call__(self, files: int, size: int) -> None:
        """Note that ``files`` files of ``size`` bytes in all were read (a reading callback)."""
        if not self.live:
            return
        now = time.monotonic()
        if now - self.start < self.after or now - self.shown < 0.2:
            return
        self.shown = now
        self.stream.write(f"\rreading the input: {files:,} files, {size / 1e6:,.1f} MB")
        self.stream.flush()

    def done(self) -> None:
        """End the line when one was written."""
        if self.shown:
            self.stream.write("\n")
            self.stream.flush()
