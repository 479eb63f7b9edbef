"""``ls``, ``rank`` and ``show`` in a sparse clone answer as in a full clone (issue 22).

Files outside the checkout are skip-worktree: the query overlay reads them as ``HEAD``'s,
never as deleted (it warned "N manifest(s) in the work tree do not verify ... object file is
missing" for every one).
"""

from __future__ import annotations

import os

import pytest
from click.testing import CliRunner

from kistore.cli import main
from kistore.store import Store

from ..conftest import git, store_file
from ..sparse import MODES, shard_dirs, sparse_clone

QUERIES = [("ls",), ("ls", "--kind", "BenchmarkRun", "--json"), ("rank", "BenchmarkRun/slow"),
           ("rank", "BenchmarkRun/fast", "--json"), ("show", "BenchmarkRun/slow"),
           ("show", "Workload/workload-3", "--json"), ("show", "Implementation/impl-ref")]


def _run(root, *args: str):
    return CliRunner().invoke(main, ["--store", str(root), *args])


def _answers(root) -> list[tuple[int, str, str]]:
    return [(r.exit_code, r.stdout, r.stderr) for r in (_run(root, *q) for q in QUERIES)]


@pytest.mark.parametrize("mode", MODES)
def test_queries_of_a_sparse_clone_answer_as_the_full_clone(group, tmp_path, mode):
    run = str(Store(group.root).view("HEAD").find_name("BenchmarkRun", "slow"))
    git(tmp_path, "clone", "-q", str(group.root), "full")  # a clone too (no notes, origin)
    full = _answers(tmp_path / "full")
    assert all(code == 0 and not err for code, _, err in full), full
    assert full[4][1].startswith("slow: slow\n") and run in full[4][1]
    clone = sparse_clone(group.root, tmp_path / "clone", mode, run)
    assert _answers(clone) == full
    assert _answers(clone) == full  # again: from the cached comparison of the shards
    # more of the store checked out: the same answers
    other = str(Store(group.root).view("HEAD").find_name("BenchmarkRun", "fast"))
    git(clone, "sparse-checkout", "add", *([f"/{d}/" for d in shard_dirs(other)]
                                           if mode == "no-cone" else shard_dirs(other)))
    assert (clone / store_file(other)).exists()
    assert _answers(clone) == full
    assert git(clone, "status", "--porcelain") == ""


@pytest.mark.parametrize("mode", ["no-cone", "cone-sparse-index"])
def test_an_object_deleted_inside_the_checkout_is_still_reported(group, tmp_path, mode):
    run = str(Store(group.root).view("HEAD").find_name("BenchmarkRun", "slow"))
    clone = sparse_clone(group.root, tmp_path / "clone", mode, run)
    assert _run(clone, "ls").stderr == ""
    os.unlink(clone / store_file(run))
    listed = _run(clone, "ls")
    assert run not in listed.stdout
    assert listed.stderr.splitlines()[0] == (
        f"warning: 1 manifest(s) in the work tree do not verify and are left out: {run}; "
        "run `kistore verify`")
    assert f"{store_file(run)}: the object file is missing" in listed.stderr

