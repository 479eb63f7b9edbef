"""A symlink or file committed where the store keeps a directory (r70 F1, F2).

``add`` refuses such a store (:func:`kistore.git.writer.refuse_links`) and ``verify``
reports it (KI110/KI111); the stores here are made with the real git binary, past the
hooks, as a hostile or careless pusher would. The reading side must leave the path out
(with a warning where it reads the work tree), never crash and never read through it.
"""

from __future__ import annotations

import os
import shutil

import pytest

from kistore.cli import main

from ..conftest import commit_all


def run(runner, store_path, *args):
    return runner.invoke(main, ["--store", str(store_path), *args])


def _replace(root, path, how, elsewhere):
    """Commit a symlink (to a copy of the directory, outside the store) or a file at ``path``."""
    target = root / path
    if target.is_dir():
        shutil.copytree(target, elsewhere)
        shutil.rmtree(target)
    else:
        elsewhere.mkdir(parents=True)
    target.parent.mkdir(parents=True, exist_ok=True)
    if how == "symlink":
        os.symlink(elsewhere, target)
    else:
        target.write_bytes(b"not a directory\n")
    commit_all(root, f"{how} at {path}")


@pytest.mark.parametrize("how", ["symlink", "file"])
@pytest.mark.parametrize("path", ["store/objects/sha256", "store/attestations/sha256"])
def test_a_committed_non_directory_at_a_layout_directory_is_left_out_not_a_crash(
        runner, group, tmp_path, how, path):
    # `ls`, `rank`, `site build`, `export` and `attestations` of such a commit ended in
    # "internal error: this is a bug in kistore" (TypeError: '_pygit2.Blob' object is not
    # iterable; InvalidSpecError for store/attestations/sha256)
    _replace(group.root, path, how, tmp_path / "elsewhere")
    objects_gone = path == "store/objects/sha256"
    result = run(runner, group.root, "ls", "--at", "HEAD")
    assert result.exit_code == 0, result.output
    assert ("BenchmarkRun" in result.stdout) is not objects_gone
    result = run(runner, group.root, "rank", "BenchmarkRun/fast", "--at", "HEAD")
    assert result.exit_code == (1 if objects_gone else 0), result.output
    assert "internal error" not in result.output
    if objects_gone:
        assert result.stderr.startswith("error: no BenchmarkRun named 'fast' at HEAD")
    else:
        result = run(runner, group.root, "attestations", "BenchmarkRun/fast")
        assert result.exit_code == 0, result.output
        assert "community: 0" in result.stdout
    result = run(runner, group.root, "site", "build", str(tmp_path / "site"))
    assert result.exit_code == 0, result.output
    assert (tmp_path / "site" / "index.html").is_file()
    result = run(runner, group.root, "export", str(tmp_path / "export"), "--format", "csv")
    assert result.exit_code == 0, result.output
    assert ("runs 0," in result.stdout) is objects_gone
