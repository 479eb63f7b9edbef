"""``ls`` leaves out and names a work-tree object replaced by damaged bytes, as ``rank`` does.

Review r75 F12: ``sed -i`` on a stored object file (a rename under its own name) made ``rank``
warn "1 manifest(s) in the work tree do not verify and are left out", while ``ls`` listed the
manifest silently from ``HEAD``'s index. ``ls`` checks the work tree per shard directory
(its mtime), not per file; a rename changes the directory's mtime, and the files kept under
``HEAD``'s names in such a directory are now checked by their stat data, so ``ls`` finds the
damage without a ``stat`` per file of the store when nothing changed.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from kistore.cli import main
from kistore.core import layout
from kistore.core.digest import Digest
from kistore.index import _fresh

from ..conftest import git


def _fast_run(group, runner) -> tuple[str, str]:
    """The run ``fast``: its digest and object path."""
    out = runner.invoke(main, ["--store", str(group.root), "ls", "--kind", "BenchmarkRun",
                               "--format", "jsonl"])
    digest = next(d["digest"] for d in map(json.loads, out.stdout.splitlines())
                  if d["name"] == "fast")
    return digest, layout.object_path(Digest.from_str(digest))


def test_ls_leaves_out_and_names_an_object_replaced_by_a_rename_as_rank_does(runner, group):
    root = Path(group.root)
    digest, path = _fast_run(group, runner)
    data = (root / path).read_bytes()
    tampered = data.replace(b'"mean":10', b'"mean":11')
    assert tampered != data
    (root / (path + ".tmp")).write_bytes(tampered)
    os.replace(root / (path + ".tmp"), root / path)  # as `sed -i` writes
    rank = runner.invoke(main, ["--store", str(root), "rank", "BenchmarkRun/slow"])
    said = rank.stderr.splitlines()[0]
    assert said == (f"warning: 1 manifest(s) in the work tree do not verify and are left out: "
                    f"{digest}; run `kistore verify`")
    for args in (["ls"], ["ls", "--kind", "BenchmarkRun"], ["ls", "--format", "jsonl"], ["ls"]):
        listed = runner.invoke(main, ["--store", str(root), *args])
        assert listed.exit_code == 0, listed.output
        assert digest not in listed.stdout, args
        assert listed.stderr.splitlines()[0] == said, args  # the same words
        assert listed.stderr.splitlines()[1].startswith(
            f"warning: {path}: the object file is corrupt: its sha256 is ")
    git(root, "checkout", "--", path)
    listed = runner.invoke(main, ["--store", str(root), "ls"])
    assert digest in listed.stdout and listed.stderr == ""


def test_ls_of_an_unchanged_work_tree_checks_no_file(runner, group, monkeypatch):
    root = Path(group.root)
    past = os.stat(root).st_mtime_ns - 3600 * 10**9  # no directory written this clock tick
    for shard in [*root.glob("store/objects/sha256/*"), *root.glob("store/metadata/sha256/*")]:
        os.utime(shard, ns=(past, past))
    runner.invoke(main, ["--store", str(root), "ls"])  # warm: directories listed once
    asked: list[str] = []
    real = _fresh.FileCheck.stale

    def counted(self, digests):
        digests = list(digests)
        asked.extend(digests)
        return real(self, digests)

    monkeypatch.setattr(_fresh.FileCheck, "stale", counted)
    listed = runner.invoke(main, ["--store", str(root), "ls"])
    assert listed.exit_code == 0 and len(listed.stdout.splitlines()) == 11
    assert asked == []  # no stat per manifest: the directories' mtimes answered
