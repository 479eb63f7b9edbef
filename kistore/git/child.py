"""The environment of every ``git`` child process kistore runs.

kistore reads objects through libgit2, which ignores ``refs/replace/*``; the ``git``
binary honours them by default in every command (``log``, ``rev-list``, ``cat-file``,
``read-tree``, ``diff``...). A repository holding a replace ref would then have kistore's
two readers disagree: ``kistore cite`` (a ``git log --raw`` child) could name another
commit than ``site build`` (a libgit2 walk) as the one that first added an object (review
r75 F1). Every ``git`` child is run with :func:`git_environment`, so both read the bytes
the repository stores.

It is also where every ``git`` child is refused before it starts when a config file git
would read is a FIFO (:func:`kistore.git.config_guard.refuse_blocking_config`, fresh14 F2):
git would wait on it for ever.
"""

from __future__ import annotations

import contextlib
import os
from typing import TYPE_CHECKING, Any

from .config_guard import refuse_blocking_config

if TYPE_CHECKING:  # pragma: no cover - typing only
    import subprocess

NO_REPLACE_OBJECTS = {"GIT_NO_REPLACE_OBJECTS": "1"}
"""What :func:`git_environment` adds: git's switch that makes it ignore ``refs/replace/*``
(git(1), "GIT_NO_REPLACE_OBJECTS"; the same as ``git --no-replace-objects``)."""


def git_environment(extra: dict[str, str] | None = None) -> dict[str, str]:
    """Return the environment for a ``git`` child: this process's, replace refs off.

    Args:
        extra: further variables to set (they win over this process's), or None.

    Returns:
        A new dict: ``os.environ`` at the time of the call, then ``extra``, then
        ``GIT_NO_REPLACE_OBJECTS=1`` (never overridden: git must read the stored bytes).

    Raises:
        StoreStateError: a config file git would read is a FIFO (exit status 1;
            :func:`kistore.git.config_guard.refuse_blocking_config`): no child is started.
    """
    refuse_blocking_config()
    return {**os.environ, **(extra or {}), **NO_REPLACE_OBJECTS}


def run(command: list[str], *, input: bytes | str | None = None,  # noqa: A002 - run()'s name
        timeout: float | None = None, text: bool = False, errors: str | None = None,
        env: dict[str, str] | None = None, stdin: int | None = None
        ) -> subprocess.CompletedProcess[Any]:
    """Run a ``git`` child as :func:`subprocess.run` does, output captured, never left behind.

    :func:`subprocess.run` kills its child alone when the wait is interrupted (Ctrl-C, the
    SIGTERM of ``timeout`` or a CI runner sent to kistore's pid alone, which the command
    line turns into KeyboardInterrupt) or times out. A ``git fetch``, ``push`` or
    ``ls-remote`` of a remote on this machine runs ``/bin/sh -c git-upload-pack PATH``
    (``git-receive-pack``, its hooks): killed with git, those stayed behind, orphaned, waiting
    for ever on what blocked them (a FIFO the remote's config includes, fresh16 F6; a hook).
    Here the child and every process below it are stopped, then killed
    (:func:`kill_tree`), before the exception goes on. They stay in kistore's process
    group, so a signal sent to the group (Ctrl-C in a terminal, ``timeout``'s) reaches them
    too, and a prompt of ssh or of a credential helper still reads the terminal.

    Args:
        command: the command line (``["git", "--git-dir", ..., "fetch", ...]``).
        input: what to write on the child's standard input, or None.
        timeout: seconds to wait, or None (for ever).
        text: decode the output (and encode ``input``) as text.
        errors: the decoding's error handler when ``text`` (``backslashreplace``), or None.
        env: the child's environment (:func:`git_environment`), or None: this process's.
        stdin: the child's standard input (``subprocess.DEVNULL``) when ``input`` is None.

    Returns:
        The finished process: its return code, standard output and error.

    Raises:
        subprocess.TimeoutExpired: ``timeout`` passed (the tree killed).
        OSError: git cannot be started. Whatever interrupted the wait, after the kill.
    """
    # Lazy: subprocess (~2-3 ms of start-up) only where a command runs git.
    import subprocess

    with subprocess.Popen(command, stdin=subprocess.PIPE if input is not None else stdin,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=text,
                          errors=errors, env=env) as process:
        try:
            out, err = process.communicate(input, timeout=timeout)
        except BaseException:  # KeyboardInterrupt (Ctrl-C, SIGTERM), TimeoutExpired
            kill_tree(process.pid)
            process.wait()
            raise
    return subprocess.CompletedProcess(command, process.returncode, out, err)


def kill_tree(pid: int) -> None:
    """Kill process ``pid`` and every process below it (SIGKILL), none left orphaned.

    Each is stopped first (SIGSTOP: it can start no further child), the processes below
    found again until no new one appears (each process's parent read from
    ``/proc/PID/stat``), then all are killed. Where ``/proc`` does not exist (not Linux),
    ``pid`` alone is killed. Raises nothing: a process already gone is skipped.

    Args:
        pid: the child's process id (a child of this process, not yet waited for).
    """
    # Lazy: signal only when a git child is interrupted.
    import signal

    stopped = [pid]
    with contextlib.suppress(OSError):
        os.kill(pid, signal.SIGSTOP)
    while True:
        below = [p for p in _descendants(pid) if p not in stopped]
        if not below:
            break
        for p in below:
            with contextlib.suppress(OSError):
                os.kill(p, signal.SIGSTOP)
        stopped += below
    for p in stopped:
        with contextlib.suppress(OSError):
            os.kill(p, signal.SIGKILL)


def _descendants(pid: int) -> list[int]:
    """Return the ids of the processes below ``pid`` (children, theirs...), [] without /proc."""
    parents: dict[int, list[int]] = {}
    try:
        entries = os.listdir("/proc")
    except OSError:
        return []
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                line = f.read()
        except OSError:  # gone meanwhile
            continue
        fields = line[line.rfind(b")") + 2:].split()  # after "(comm)": state, ppid, ...
        if len(fields) > 1:
            parents.setdefault(int(fields[1]), []).append(int(entry))
    found: list[int] = []
    todo = [pid]
    while todo:
        below = parents.get(todo.pop(), [])
        found += below
        todo += below
    return found
