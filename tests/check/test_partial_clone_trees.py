"""A ``--filter=tree:0`` partial clone: its missing trees are fetched, not said "missing".

Such a clone lacks the trees of every commit it has not checked out; libgit2 reads them
and fetches nothing, so every query and ``verify --at`` said "git object ... cannot be
read (missing ...): the repository is damaged" of a healthy clone. kistore now fetches
the trees of each commit it reads (and of a history it walks) in one ``git fetch``
without blobs, and blobs as before: the clone then works as a blob-less one does. When
the remote cannot give them, one line says so and what clone to make instead.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pygit2
import pytest

from kistore.git.blobs import tree_filter

from ..conftest import git
from ..partial import git_processes, serve_runs

KISTORE = str(Path(sys.executable).with_name("kistore"))


def kistore(root: Path, *args: str, env: dict[str, str] | None = None
            ) -> subprocess.CompletedProcess[str]:
    return subprocess.run([KISTORE, "--store", str(root), *args], capture_output=True,
                          text=True, timeout=120, env={**os.environ, **(env or {})})


@pytest.fixture
def served(tmp_path) -> tuple[Path, Path]:
    """(a bare server of 8 runs allowing filters, the work tree it was pushed from)."""
    server, work, *_ = serve_runs(tmp_path, 8)
    return server, work


def tree_clone(tmp_path: Path, server: Path, *more: str, what: str = "tree:0") -> Path:
    clone = tmp_path / f"clone-{what}"
    git(tmp_path, "clone", "-q", f"--filter={what}", *more, f"file://{server}", str(clone))
    assert git(clone, "config", "remote.origin.partialclonefilter").strip() == what
    return clone


def fetches(clone: Path, tmp_path: Path, *args: str) -> tuple[str, int]:
    """(stdout of kistore ARGS in ``clone``, how many ``git fetch`` processes it started)."""
    trace = tmp_path / f"{clone.name}.trace"
    done = kistore(clone, *args, env={"GIT_TRACE2_EVENT": str(trace)})
    assert done.returncode == 0, done.stderr
    return done.stdout, git_processes(trace)["fetch"]


def trees_missing(clone: Path, rev: str) -> int:
    """How many trees of commit ``rev`` (its own, not its parents') the clone lacks."""
    listing = subprocess.run(["git", "rev-list", "--objects", "--no-walk", "--missing=print",
                              "--filter=blob:none", rev],
                             cwd=clone, capture_output=True, text=True, check=True,
                             env={**os.environ, "GIT_NO_LAZY_FETCH": "1"}).stdout
    return sum(1 for line in listing.splitlines() if line.startswith("?"))


def test_queries_and_verify_at_a_commit_of_a_tree_less_clone_answer(served, tmp_path):
    server, work = served
    clone = tree_clone(tmp_path, server, "--no-checkout")
    assert trees_missing(clone, "origin/main") > 0
    listed, fetched = fetches(clone, tmp_path, "ls", "--at", "origin/main")
    assert listed == kistore(work, "ls", "--at", "HEAD").stdout
    assert "run-3" in listed
    assert trees_missing(clone, "origin/main") == 0
    # every tree of the commit in one fetch; blobs as a blob-less clone fetches them
    blobless = tree_clone(tmp_path, server, "--no-checkout", what="blob:none")
    assert fetches(blobless, tmp_path, "ls", "--at", "origin/main") == (listed, fetched - 1)
    for args in (["verify", "--at", "origin/main"], ["show", "BenchmarkRun/run-3", "--at",
                                                     "origin/main"]):
        done = kistore(clone, *args)
        assert done.returncode == 0, (args, done.stdout + done.stderr)
        assert "cannot be read" not in done.stdout + done.stderr


def test_a_checked_out_tree_less_clone_answers_at_head(served, tmp_path):
    server, work = served
    clone = tree_clone(tmp_path, server)
    listed = kistore(clone, "ls")
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout == kistore(work, "ls").stdout


def test_a_remote_that_cannot_give_the_trees_is_one_line_saying_what_to_clone(
        served, tmp_path):
    server, _ = served
    clone = tree_clone(tmp_path, server, "--no-checkout")
    shutil.rmtree(server)
    done = kistore(clone, "ls", "--at", "origin/main")
    assert done.returncode != 0
    said = done.stdout + done.stderr
    assert "internal error" not in said and "Traceback" not in said, said
    errors = [line for line in said.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1, said
    assert "is not in this partial clone, whose filter (tree:0) leaves trees out, and git " \
           "could not fetch it from its promisor remote 'origin' (" in errors[0], said
    assert "clone again with `--filter=blob:none`" in errors[0], said
    assert "the repository is damaged" not in said


@pytest.mark.parametrize(("spec", "leaves_trees"), [
    ("tree:0", True), ("tree:1", True), ("sparse:oid=main:sparse", True),
    ("combine:tree%3A0+blob%3Anone", True), ("combine:blob%3Anone+tree%3A2", True),
    ("blob:none", False), ("blob:limit=1k", False), ("combine:blob%3Anone+blob%3Alimit=1", False),
])
def test_which_filters_leave_trees_out(tmp_path, spec, leaves_trees):
    git(tmp_path, "init", "-q", "repo")
    repo = tmp_path / "repo"
    git(repo, "config", "remote.origin.promisor", "true")
    git(repo, "config", "remote.origin.partialclonefilter", spec)
    assert tree_filter(pygit2.Repository(str(repo))) == (spec if leaves_trees else None)
    git(repo, "config", "remote.origin.promisor", "false")  # no partial clone: no filter
    assert tree_filter(pygit2.Repository(str(repo))) is None
