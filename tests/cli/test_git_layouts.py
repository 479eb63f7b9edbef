"""A store's work tree found as git finds it, in every layout git makes (fresh01 F6).

A ``git clone --separate-git-dir`` clone (a ``.git`` file naming a git directory elsewhere)
and a ``.git`` symbolic link were told "the work tree is not checked out" and advised a
``git checkout HEAD -- .`` that changed nothing: kistore opened the git directory by itself,
and libgit2 then takes its parent for the work tree. With ``GIT_DIR`` and ``GIT_WORK_TREE``
set (which git honours, and the git processes kistore starts inherit) kistore read the
current directory's ``.git`` and said "not inside a git repository".
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kistore.cli import main
from kistore.store import Store

from ..conftest import ManifestKit, add_docs, git


@pytest.fixture
def server(tmp_path) -> Path:
    """A bare server holding a store of one comparison group of two runs (branch main)."""
    work = tmp_path / "work"
    Store.init(work)
    add_docs(Store(work), ManifestKit().group_docs([None, None]))
    git(work, "branch", "-M", "main")
    git(tmp_path, "clone", "-q", "--bare", str(work), str(tmp_path / "server.git"))
    return tmp_path / "server.git"


def _new_run_file(tmp_path: Path) -> Path:
    """Write a JSON file holding one run new to the store (``BenchmarkRun/layout-run``)."""
    kit = ManifestKit()
    impl = kit.implementation("proj-0", name="impl-0")
    run = kit.run(kit.protocol(), kit.environment(), impl, kit.workload(), latency=99,
                  name="layout-run")
    path = tmp_path / "new-run.json"
    path.write_text(json.dumps(run))
    return path


def _layout(tmp_path: Path, server: Path, kind: str) -> Path:
    """Make a clone of ``server`` in the layout ``kind``; return its work tree."""
    tree = tmp_path / kind
    if kind == "separate-git-dir":
        git(tmp_path, "clone", "-q", f"--separate-git-dir={tmp_path / 'sep.git'}",
            str(server), str(tree))
        assert (tree / ".git").read_text() == f"gitdir: {tmp_path / 'sep.git'}\n"
    elif kind == "dotgit-symlink":
        git(tmp_path, "clone", "-q", str(server), str(tree))
        (tree / ".git").rename(tmp_path / "moved.git")
        (tree / ".git").symlink_to(tmp_path / "moved.git")
    elif kind == "core-worktree":  # the git directory's directory is not the work tree
        git(tmp_path, "clone", "-q", "--no-checkout", str(server), str(tmp_path / "holder"))
        tree.mkdir()
        git(tmp_path / "holder", "config", "core.worktree", str(tree))
        git(tmp_path / "holder", "checkout", "-q", "main")
    assert (tree / "store").is_dir()
    return tree


def _kistore(runner, *args: str):
    """Run kistore with no --store: the store is found around the current directory."""
    return runner.invoke(main, list(args))


@pytest.mark.parametrize("kind", ["separate-git-dir", "dotgit-symlink", "core-worktree"])
def test_ls_verify_add_in_each_layout(tmp_path, server, runner, monkeypatch, kind):
    tree = _layout(tmp_path, server, kind)
    at = tmp_path / "holder" if kind == "core-worktree" else tree  # where git finds it
    runs = git(at, "ls-files", "store/names/BenchmarkRun")
    start = at if kind == "core-worktree" else tree / "store"
    monkeypatch.chdir(start)
    assert Store().root == tree
    listed = _kistore(runner, "ls", "--kind", "BenchmarkRun")
    assert listed.exit_code == 0, listed.output
    assert sorted(line.split()[2] for line in listed.stdout.splitlines()) == ["run-0", "run-1"]
    checked = _kistore(runner, "verify")
    assert checked.exit_code == 0, checked.output
    assert checked.stdout.splitlines()[-1].startswith("ok: store at work tree: 0 errors")
    added = _kistore(runner, "add", "--commit", str(_new_run_file(tmp_path)))
    assert added.exit_code == 0, added.output
    assert git(at, "status", "--porcelain") == ""  # landed in this work tree, committed
    now = git(at, "ls-files", "store/names/BenchmarkRun")
    new, = set(now.split()) - set(runs.split())
    assert new.endswith("/layout-run") and (tree / new).is_file()
    if kind != "core-worktree":  # (there git itself finds no repository from the tree)
        # init finds the store there (an internal error at a separate git directory)
        again = _kistore(runner, "init", str(tree))
        assert (again.exit_code, again.output) == (
            0, f"{tree} is a kistore store already: nothing was written\n")
        assert git(at, "status", "--porcelain") == ""


def test_git_dir_and_work_tree_variables(tmp_path, server, runner, monkeypatch):
    tree = _layout(tmp_path, server, "separate-git-dir")
    monkeypatch.chdir(tmp_path)  # no repository here: git and kistore read the variables
    monkeypatch.setenv("GIT_DIR", str(tmp_path / "sep.git"))
    monkeypatch.setenv("GIT_WORK_TREE", str(tree))
    assert git(tmp_path, "rev-parse", "--show-toplevel").strip() == str(tree)
    assert Store().root == tree
    listed = _kistore(runner, "ls", "--kind", "BenchmarkRun")
    assert listed.exit_code == 0, listed.output
    assert sorted(line.split()[2] for line in listed.stdout.splitlines()) == ["run-0", "run-1"]
    added = _kistore(runner, "add", "--commit", str(_new_run_file(tmp_path)))
    assert added.exit_code == 0, added.output
    assert "/layout-run\n" in git(tree, "ls-files", "store/names/BenchmarkRun")
    assert git(tree, "status", "--porcelain") == ""
    # GIT_DIR alone: git takes the current directory for the top of the work tree
    monkeypatch.delenv("GIT_WORK_TREE")
    monkeypatch.chdir(tree)
    assert Store().root == tree


def test_git_variables_naming_nothing_are_said(tmp_path, server, runner, monkeypatch):
    tree = _layout(tmp_path, server, "separate-git-dir")
    monkeypatch.chdir(tree)
    monkeypatch.setenv("GIT_DIR", str(tmp_path / "nowhere"))
    done = _kistore(runner, "ls")
    assert (done.exit_code, done.stderr) == (1, (
        f"error: {tmp_path / 'nowhere'}: GIT_DIR={tmp_path / 'nowhere'} names no git "
        f"directory ({tmp_path / 'nowhere'}); unset GIT_DIR (kistore then finds the "
        "repository around the current directory, as git does) or set it to one\n"))
    monkeypatch.setenv("GIT_DIR", str(tmp_path / "sep.git"))
    monkeypatch.setenv("GIT_WORK_TREE", str(tmp_path / "gone"))
    done = _kistore(runner, "ls")
    assert (done.exit_code, done.stderr) == (1, (
        f"error: {tmp_path / 'gone'}: GIT_WORK_TREE={tmp_path / 'gone'} is not a directory; "
        f"set it to the work tree of {tmp_path / 'sep.git'}, or unset it\n"))
