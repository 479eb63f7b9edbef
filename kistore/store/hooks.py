"""Installing kistore's git hooks into a store's repository (``kistore init --hooks``).

The hook scripts are the repository's ``hooks/`` folder, shipped in the wheel as the
``kistore.hooks`` package: ``pre-commit`` checks what a commit would add (the gate on the
staged tree), ``pre-push`` runs the gate on every pushed ref exactly as git hands them over
(``pre-receive`` is for a server's bare repository and is not installed here). Each is
written to the repository's hooks directory (``.git/hooks``, shared by its linked worktrees)
with the kistore that installed it as the default ``KISTORE``, so the hooks run that kistore
even where it is not on ``PATH`` (a virtual environment not activated when committing).
"""

from __future__ import annotations

import os
import shlex
import shutil
import sys
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


@cache
def _hooks_dir() -> Traversable:
    """Return the installed ``kistore.hooks`` package, or ``hooks/`` beside the source."""
    try:
        return resources.files("kistore.hooks")
    except ModuleNotFoundError:  # running from the source tree: kistore/ next to hooks/
        return resources.files("kistore").joinpath("..", "hooks")


def hook_script(name: str, kistore: str | None) -> bytes:
    """Return hook ``name`` as it is installed: its script, defaulting ``KISTORE``.

    Args:
        name: one of :data:`HOOKS`.
        kistore: the kistore executable the hook runs unless ``KISTORE`` is set; None:
            ``kistore`` found on ``PATH`` when the hook runs.

    Returns:
        The script's bytes: the shipped script with, after its first line, a line that
        sets ``KISTORE`` to ``kistore`` when the environment does not.
    """
    text = _hooks_dir().joinpath(name).read_text("utf-8")
    if kistore is None:
        return text.encode("utf-8")
    first, _, rest = text.partition("\n")
    line = f'KISTORE="${{KISTORE:-{shlex.quote(kistore)}}}"  # kistore init --hooks\n'
    return f"{first}\n{line}{rest}".encode()


def install_hooks(store: Store, kistore: str | None) -> list[tuple[Path, str]]:
    """Write kistore's hooks into the store's repository; an identical hook is left alone.

    Args:
        store: a :class:`kistore.store.Store` with a work tree.
        kistore: the executable the hooks run by default (:func:`hook_script`).

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
    planned = [(directory / name, hook_script(name, kistore)) for name in HOOKS]
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


def running_kistore() -> str | None:
    """Return the path of the kistore executable beside this Python, else on ``PATH``."""
    beside = Path(sys.executable).with_name("kistore")
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside)
    return shutil.which("kistore")
