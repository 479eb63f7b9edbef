"""Installing kistore's git hooks into a store's repository (``kistore init --hooks``).

The hook scripts are the repository's ``hooks/`` folder, shipped in the wheel as the
``kistore.hooks`` package: ``pre-commit`` checks what a commit would add (the gate on the
staged tree), ``pre-push`` runs the gate on every pushed ref exactly as git hands them over
(``pre-receive`` is for a server's bare repository and is not installed here). Each is
written to the repository's hooks directory (``.git/hooks``, shared by its linked worktrees)
with the kistore that installed it as the default ``KISTORE``, so the hooks run that kistore
even where it is not on ``PATH`` (a virtual environment not activated when committing), and
run the same code: its Python and its directory, when the ``kistore`` script beside that
Python would import another tree's (:func:`running_kistore`).
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from dataclasses import dataclass
from functools import cache
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import TYPE_CHECKING

from ..core.errors import ConflictError, StoreStateError
from ..git.refs import common_git_dir

if TYPE_CHECKING:  # pragma: no cover - typing only
    from ._store import Store

HOOKS = ("pre-commit", "pre-push")
"""The hooks ``kistore init --hooks`` installs."""


@dataclass(frozen=True)
class HookRunner:
    """The kistore a hook runs when ``KISTORE`` is not set: the one that installed it.

    Attributes:
        executable: the ``kistore`` console script beside the installing Python, when it
            imports the very code that ran ``init --hooks``; else None.
        python: the installing interpreter (``sys.executable``), run as ``PYTHON -P -m
            kistore`` when ``executable`` is None.
        code: the directory ``import kistore`` found the installing code in, put first on
            ``PYTHONPATH`` when ``executable`` is None (a source tree reached through
            ``PYTHONPATH``, a ``pip install --target`` directory).
    """

    executable: str | None
    python: str
    code: str

    def describe(self) -> str:
        """Return the command the hooks run, as a person would type it."""
        if self.executable is not None:
            return self.executable
        return (f"PYTHONPATH={shlex.quote(self.code)} {shlex.quote(self.python)} "
                "-P -m kistore")


def _default_kistore(python: str) -> Path | None:
    """Return the directory ``python`` imports kistore from with no ``PYTHONPATH``, or None.

    What the console script beside ``python`` runs when git starts a hook from an
    environment without the installer's ``PYTHONPATH``: asked of the interpreter itself
    (``-E -P``: no ``PYTHON*`` variables, no current directory), since an editable
    install's finder, a ``.pth`` file or user site-packages all decide it.
    """
    asked = subprocess.run(
        [python, "-E", "-P", "-c", "import importlib.util as u; s = u.find_spec('kistore'); "
         "print(s.origin if s and s.origin else '')"],
        capture_output=True, text=True, stdin=subprocess.DEVNULL, check=False)
    origin = asked.stdout.strip() if asked.returncode == 0 else ""
    return Path(origin).resolve().parents[1] if origin else None


def running_kistore() -> HookRunner:
    """Return the kistore the hooks should run: the code and Python running this command.

    The console script beside ``sys.executable`` when that script imports this very code
    (an ordinary install); else this Python with this code's directory first on
    ``PYTHONPATH``: ``python -m kistore`` run with ``PYTHONPATH`` at another tree used to
    write the venv's script, whose hook then ran other code, silently (break95 L1).
    """
    code = Path(__file__).resolve().parents[2]  # .../kistore/store/hooks.py -> ...
    beside = Path(sys.executable).with_name("kistore")
    if beside.is_file() and os.access(beside, os.X_OK) and \
            _default_kistore(sys.executable) == code:
        return HookRunner(str(beside), sys.executable, str(code))
    return HookRunner(None, sys.executable, str(code))


@cache
def _hooks_dir() -> Traversable:
    """Return the hook scripts of the running code: ``hooks/`` in the package, or beside it.

    A wheel ships them as ``kistore/hooks``; a source tree (and an editable install of it)
    keeps them in ``hooks/`` beside ``kistore/``. Read from the running package's own
    directory first: ``importlib.resources`` would find an editable install's ``hooks/``
    (another tree's) for code imported from a tree on ``PYTHONPATH``.
    """
    package = Path(__file__).resolve().parents[1]
    for directory in (package / "hooks", package.parent / "hooks"):
        if (directory / HOOKS[0]).is_file():
            return directory
    return resources.files("kistore.hooks")  # a zip import: the package's resources


def hook_script(name: str, runner: HookRunner) -> bytes:
    """Return hook ``name`` as it is installed: its script, defaulting ``KISTORE``.

    Args:
        name: one of :data:`HOOKS`.
        runner: the kistore the hook runs unless ``KISTORE`` is set (:func:`running_kistore`).

    Returns:
        The script's bytes: the shipped script with, after its first line, a line that
        sets ``KISTORE`` to ``runner``'s executable when the environment does not; or, with
        no executable running that code, a comment and a shell function
        ``kistore_installed`` (``PYTHONPATH=CODE PYTHON -P -m kistore``) that ``KISTORE``
        names.
    """
    text = _hooks_dir().joinpath(name).read_text("utf-8")
    first, _, rest = text.partition("\n")
    if runner.executable is not None:
        line = f'KISTORE="${{KISTORE:-{shlex.quote(runner.executable)}}}"  # kistore init --hooks\n'
        return f"{first}\n{line}{rest}".encode()
    lines = ("# kistore init --hooks: unless KISTORE is set, run the kistore that installed "
             "this hook: its Python, its code first on PYTHONPATH\n"
             f"kistore_installed() {{ PYTHONPATH={shlex.quote(runner.code)}"
             '"${PYTHONPATH:+:$PYTHONPATH}" '
             f'exec {shlex.quote(runner.python)} -P -m kistore "$@"; }}\n'
             'KISTORE="${KISTORE:-kistore_installed}"\n')
    return f"{first}\n{lines}{rest}".encode()


def install_hooks(store: Store, runner: HookRunner) -> list[tuple[Path, str]]:
    """Write kistore's hooks into the store's repository; an identical hook is left alone.

    Args:
        store: a :class:`kistore.store.Store` with a work tree.
        runner: the kistore the hooks run by default (:func:`hook_script`).

    Returns:
        ``(path, status)`` per hook: status ``installed`` or ``unchanged``.

    Raises:
        StoreStateError: the repository has no work tree, or sets ``core.hooksPath`` (git
            would never run hooks written to ``.git/hooks``).
        ConflictError: a different hook of that name is there already: nothing is
            written, so a hook of the user's is never replaced.
    """
    if store.root is None:
        raise StoreStateError("hooks are for a repository with a work tree (a bare "
                              "repository takes hooks/pre-receive: copy it by hand)")
    hooks_path = store.repo.config["core.hooksPath"] if "core.hooksPath" in \
        store.repo.config else None
    if hooks_path:
        raise StoreStateError(f"git config core.hooksPath is {hooks_path!r}: git runs hooks "
                              "from there, not .git/hooks; copy kistore's hooks there, or "
                              "`git config --unset core.hooksPath` and run this again")
    directory = common_git_dir(Path(store.repo.path)) / "hooks"
    planned = [(directory / name, hook_script(name, runner)) for name in HOOKS]
    for path, data in planned:
        if path.exists() and path.read_bytes() != data:
            raise ConflictError(f"a different {path.name} hook is there already: nothing was "
                                "installed; move it away (or merge the two by hand) and run "
                                "`kistore init --hooks` again", file=str(path))
    done = []
    directory.mkdir(parents=True, exist_ok=True)
    for path, data in planned:
        if path.exists():
            done.append((path, "unchanged"))
            continue
        temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        temporary.write_bytes(data)
        temporary.chmod(0o755)
        os.replace(temporary, path)
        done.append((path, "installed"))
    return done

