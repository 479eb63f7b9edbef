"""The FIFO guard walks the work tree once a ``verify``, not once per git command (doc01).

``verify`` asks :func:`kistore.git.attr_guard.refuse_blocking_attributes` of the ignore
files before ``git ls-files`` (KI119) and of every attributes and ignore file before git's
status: on BASE b1992eea each asking walked ``store/`` anew (each directory listed twice)
and ran ``git config`` twice. Within :func:`kistore.git.attr_guard.walking_once` the second
replays the first's walk; its answers are those of a walk of its own.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from kistore.check.audit import verify
from kistore.git import attr_guard
from kistore.git.attr_guard import blocking_attributes, walking_once
from kistore.store import Store
from tests.conftest import git
from tests.git.test_attr_guard import _status_asked


def _counted(monkeypatch: pytest.MonkeyPatch) -> tuple[list[str], list[list[str]]]:
    """Count the guard's directory listings and child processes: (paths, commands)."""
    listed: list[str] = []
    children: list[list[str]] = []
    scandir, run = os.scandir, subprocess.run

    def counted_scandir(path):  # type: ignore[no-untyped-def]
        if sys._getframe(1).f_globals.get("__name__") == attr_guard.__name__:
            listed.append(os.fspath(path))
        return scandir(path)

    def counted_run(args, *rest, **kwargs):  # type: ignore[no-untyped-def]
        if sys._getframe(1).f_globals.get("__name__") == attr_guard.__name__:
            children.append(list(args))
        return run(args, *rest, **kwargs)

    monkeypatch.setattr(os, "scandir", counted_scandir)
    monkeypatch.setattr(subprocess, "run", counted_run)
    return listed, children


def test_verify_walks_the_work_tree_once_for_ls_files_and_status(published, monkeypatch):
    _status_asked(published)  # git's status is asked: both guards run
    listed, children = _counted(monkeypatch)
    found = verify(Store(published), workers=1)
    store = str(published / "store")
    # on BASE b1992eea: store/ and each directory under it listed twice, git config run twice
    assert listed.count(store) == 1
    assert len(listed) == len(set(listed)) > 1
    assert [c[3:5] for c in children] == [["config", "--show-origin"]]
    # the guard let both through: the one error is the extra .gitattributes itself (KI110)
    assert [(f.file, f.rule.id) for f in found if f.severity == "error"] == [
        ("store/policy/.gitattributes", "KI110")]


def _fifos(root: Path) -> tuple[Path, Path]:
    """A FIFO ``docs/.gitattributes`` (a directory HEAD holds) and ``store/.gitignore``."""
    (root / "docs").mkdir()
    (root / "docs" / "a.txt").write_text("a\n")
    git(root, "add", "docs")
    git(root, "commit", "-q", "--no-verify", "-m", "docs")
    attributes, ignore = root / "docs" / ".gitattributes", root / "store" / ".gitignore"
    ignore.unlink(missing_ok=True)
    os.mkfifo(attributes)
    os.mkfifo(ignore)
    return attributes, ignore


@pytest.mark.parametrize("attributes_first", [True, False])
def test_within_one_walk_each_asking_answers_as_a_walk_of_its_own(published,
                                                                   attributes_first):
    _fifos(published)
    repo = Store(published).repo
    alone = {a: blocking_attributes(repo, a) for a in (True, False)}
    assert {a: (b.path, b.kind) for a, b in alone.items() if b is not None} == {
        True: ("docs/.gitattributes", "a FIFO"), False: ("store/.gitignore", "a FIFO")}
    order = (True, False) if attributes_first else (False, True)
    with walking_once():
        # the first stops at its file: the second goes on past it where it must
        once = {a: blocking_attributes(repo, a) for a in order}
    assert once == alone


def test_a_file_made_after_the_block_is_seen_by_the_next(published):
    repo = Store(published).repo
    with walking_once():
        assert blocking_attributes(repo, False) is None
        assert blocking_attributes(repo, True) is None
    ignore = published / "store" / ".gitignore"  # HEAD unchanged: the same key
    ignore.unlink(missing_ok=True)
    os.mkfifo(ignore)
    with walking_once():
        assert blocking_attributes(repo, False).full == ignore
        assert blocking_attributes(repo, True).full == ignore
