"""An add whose blob is pruned before its tree is built says so for people (last97 3).

Beside a `git gc --prune=now` loop, one refused add printed libgit2's raw "failed to insert
entry: invalid object specified - 31d9537c....json". A seam deletes the loose file of each
blob the add writes right after it is written (as a prune would), before the tree.
"""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from kistore.cli import main
from kistore.git import _loose

from ..conftest import git


def test_a_blob_pruned_before_its_tree_is_said_for_people(store, kit, tmp_path, monkeypatch):
    tip = git(store.root, "rev-parse", "HEAD").strip()
    real = _loose.written

    def pruned(write, *args):
        oid = real(write, *args)
        loose = Path(store.root, ".git", "objects", str(oid)[:2], str(oid)[2:])
        loose.unlink(missing_ok=True)  # a prune between the write and the tree
        return oid

    monkeypatch.setattr(_loose, "written", pruned)
    manifest = tmp_path / "w.json"
    manifest.write_text(json.dumps(kit.workload("a", name="wa")))
    done = CliRunner().invoke(main, ["--store", str(store.root), "add", "--commit",
                                     str(manifest)])
    assert done.exit_code == 1, done.output
    said = " ".join(done.output.split())
    assert "failed to insert entry" not in said, said
    assert said.startswith(
        "error: the add's git objects could not be written: git no longer had the blob this "
        "add had just written for the file '"), said
    assert said.endswith(
        "when it built the directory tree holding it (libgit2: invalid object specified): a "
        "`git gc --prune=now` or `git prune` deleted it meanwhile? Nothing was committed: "
        "run the add again when no such command runs (one `git gc` in a loop or cron job may "
        "prune again)"), said
    assert git(store.root, "rev-parse", "HEAD").strip() == tip  # nothing committed
    monkeypatch.setattr(_loose, "written", real)
    done = CliRunner().invoke(main, ["--store", str(store.root), "add", "--commit",
                                     str(manifest)])
    assert done.exit_code == 0, done.output  # run again, it lands
