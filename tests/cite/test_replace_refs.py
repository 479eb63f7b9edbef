"""Review r75 F1: a clone holding ``refs/replace/*`` cites the commit the repository stores.

git honours replace refs in every command; libgit2 (``site build``, ``verify``) does not.
``kistore cite`` asks a ``git log --raw`` child which commit first added an object: with
a replace ref standing the first-adding commit in for one with its parent's tree, git's
answer moves to the next commit, and cite and the site disagreed. Every ``git`` child
kistore runs has ``GIT_NO_REPLACE_OBJECTS=1`` (:mod:`kistore.git.child`).
"""

from __future__ import annotations

import ast
import datetime as dt
from pathlib import Path

import kistore
from kistore.cite.citation import cite
from kistore.store import Store

from .test_citation import RUN_PATH, commit_all, git, published_store

PACKAGE = Path(kistore.__file__).parent


def replaced_first_commit(tmp_path: Path) -> tuple[Path, str, str]:
    """A store whose first-adding commit C1 is replaced by one holding its parent's tree.

    Returns:
        (the store's path, C1, C2: the next commit, which git then says added the run).
    """
    path, c1 = published_store(tmp_path)
    (path / "README.md").write_text("later work\n")
    c2 = commit_all(path, "later work", day=2)
    parent = git(path, "rev-parse", f"{c1}^")
    stand_in = git(path, "commit-tree", git(path, "rev-parse", f"{parent}^{{tree}}"),
                   "-p", parent, "-m", "add the published record", day=1)
    git(path, "replace", c1, stand_in)
    return path, c1, c2


def test_a_replace_ref_does_not_move_the_commit_cite_names(tmp_path):
    path, c1, c2 = replaced_first_commit(tmp_path)
    # what the git binary says now (the oracle of the attack): the run came with C2
    assert git(path, "log", "--diff-filter=A", "--format=%H", "--", RUN_PATH) == c2

    citation = cite(Store(path), "384a96d0", accessed=dt.date(2026, 12, 3))

    assert citation.commit == c1  # what the repository stores, as site build says
    assert citation.permalink == (
        f"https://github.com/kernelindex/kernelindex/blob/{c1}/{RUN_PATH}")


def test_every_git_child_is_run_with_replace_refs_off():
    # Each `subprocess.run(["git", ...])` (or `[*git, ...]`) in kistore passes
    # env=git_environment(...): one missed is a reader that sees other bytes.
    calls = list(_git_calls())
    missed = [where for where, call in calls if not _replace_refs_off(call)]
    assert missed == []
    assert len(calls) >= 10  # the scan sees them (not a test that cannot fail)


def _git_calls():
    """(file:line, call) of each `*.run(["git", ...])` or `*.run([*git, ...])` in kistore."""
    for source in sorted(PACKAGE.rglob("*.py")):
        for call in ast.walk(ast.parse(source.read_text(), str(source))):
            if (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
                    and call.func.attr == "run" and call.args
                    and ast.unparse(call.args[0]).startswith(("['git'", "[*git"))):
                yield f"{source.relative_to(PACKAGE)}:{call.lineno}", call


def _replace_refs_off(call: ast.Call) -> bool:
    env = next((k.value for k in call.keywords if k.arg == "env"), None)
    return isinstance(env, ast.Call) and ast.unparse(env.func) == "git_environment"
