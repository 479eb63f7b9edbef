"""A linked worktree whose ``commondir`` leads nowhere is named, with what to do (robust76).

``.git/worktrees/NAME/commondir`` names the git directory every worktree shares; empty
(a torn write, a bad copy), a directory, or naming a directory that is gone, git and
libgit2 open no repository in the worktree, and kistore said "not inside a git
repository; run `kistore init PATH`" (``init`` then refused too). Now each reading
command, and ``init``, names the worktree's ``.git``, the ``commondir`` file and the fix.
Each command runs as a real process (:func:`.test_truncated_loose_object.kistore`).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ..conftest import git
from .test_truncated_loose_object import kistore


@pytest.fixture
def linked(store_path: Path, tmp_path: Path) -> Path:
    """A linked worktree (branch ``linked``) of the ``kistore init`` store, sound."""
    git(store_path, "worktree", "add", "-q", str(tmp_path / "linked"))
    status, out, err = kistore(tmp_path / "linked", "ls")
    assert (status, err) == (0, ""), out + err  # sound before the damage
    return tmp_path / "linked"


def commondir(store_path: Path) -> Path:
    """The ``commondir`` file of the ``linked`` worktree."""
    return store_path / ".git" / "worktrees" / "linked" / "commondir"


DAMAGE = {
    "empty": (lambda file: file.write_text(""), "{file} is empty"),
    "directory": (lambda file: (file.unlink(), file.mkdir()), "{file} is not a regular file"),
    "gone": (lambda file: file.write_text("../../nowhere\n"),
             "its commondir file names {common}/nowhere, which does not exist"),
}


@pytest.mark.parametrize("case", sorted(DAMAGE))
@pytest.mark.parametrize("args", [["ls"], ["verify"], ["init", "."]])
def test_a_broken_commondir_is_named_with_the_fix(store_path: Path, linked: Path, case: str,
                                                  args: list[str]) -> None:
    file = commondir(store_path)
    assert file.read_text() == "../..\n"  # what git wrote: the fix below restores it
    damage, said = DAMAGE[case]
    damage(file)
    # no --store: found from the working directory, as a user in the worktree runs it
    status, out, err = _in(linked, args)
    assert status == 1, out + err
    dotgit = ".git" if args[0] == "init" else f"{linked}/.git"
    lead = "error: cannot make a store here: " if args[0] == "init" else "error: "
    assert err.startswith(
        f"{lead}{dotgit} names the linked worktree's git directory {file.parent}, but "
        + said.format(file=file, common=(store_path / ".git").resolve())), err
    assert err.rstrip().endswith(
        f"write the line `git worktree add` writes there, `echo ../.. > {file}` (the git "
        f"directory two levels up), or delete {file.parent} to drop the worktree"), err
    assert "not inside a git repository" not in err and "internal error" not in err, err
    assert out == ""


def test_the_fix_it_names_works(store_path: Path, linked: Path) -> None:
    file = commondir(store_path)
    file.write_text("")
    assert _in(linked, ["ls"])[0] == 1
    file.write_text("../..\n")  # what `echo ../.. > FILE` writes
    status, out, err = _in(linked, ["ls"])
    assert (status, err) == (0, ""), out + err


def _in(directory: Path, args: list[str]) -> tuple[int | None, str, str]:
    """Run ``kistore ARGS`` in ``directory`` with no ``--store``: (status, stdout, stderr)."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "kistore", *args], cwd=directory,
                          capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PYTHONPATH": os.pathsep.join(
                              [str(Path(__file__).parents[2]),
                               os.environ.get("PYTHONPATH", "")])})
    return done.returncode, done.stdout, done.stderr
