"""A symlinked directory in the work tree's store is no part of the store for any command (F16).

The store's reads never go through a symbolic link where the layout keeps a directory
(:meth:`kistore.store.WorkTreeView.linked_dir`, r70 F2); the index's freshness walk
(:func:`kistore.index.freshness.shard_dirs`, the work-tree comparison) listed through one,
so with ``store/metadata`` linked to a copy of itself ``ls`` and ``rank`` answered from the
index as if nothing had changed while ``show`` found no metadata and ``reindex --check``
found the index stale. Each command must answer as for a store without that directory.
"""

from __future__ import annotations

import json
import os
import shutil

import pytest

from kistore.cli import main
from kistore.core import layout
from kistore.store import Store

LEFT_OUT = ("warning: {}: is a symbolic link where the store keeps a directory; nothing "
            "under it was read (left out as absent); `kistore verify` reports it (KI111)\n")


def run(runner, root, *args):
    return runner.invoke(main, ["--store", str(root), *args])


def _runs(result):
    assert result.exit_code == 0, result.output
    return sorted(row["name"] for row in json.loads(result.stdout) if row["kind"] == "BenchmarkRun")


def _link_elsewhere(root, path, elsewhere):
    """Move work-tree directory ``path`` to ``elsewhere`` (times kept) and link it back."""
    shutil.copytree(root / path, elsewhere)  # copy2: the shards keep their mtimes
    shutil.rmtree(root / path)
    os.symlink(elsewhere, root / path)


@pytest.mark.parametrize("linked", ["store/metadata", "shard"])
def test_ls_rank_show_and_reindex_check_agree_a_linked_directory_is_absent(
        runner, group, tmp_path, linked):
    fast = Store(group.root).resolve("BenchmarkRun/fast")
    shard = layout.metadata_path(fast).rpartition("/")[0]
    path = shard if linked == "shard" else linked
    assert _runs(run(runner, group.root, "ls", "--json")) == ["broken", "fast", "ref", "slow"]
    assert "2 ranked" in run(runner, group.root, "rank", "BenchmarkRun/slow").stdout  # warm
    _link_elsewhere(group.root, path, tmp_path / "outside")

    listed = run(runner, group.root, "ls", "--json")
    ranked = run(runner, group.root, "rank", "BenchmarkRun/slow")
    shown = run(runner, group.root, "show", str(fast))
    checked = run(runner, group.root, "reindex", "--check")
    verified = run(runner, group.root, "verify")
    # on main: ls listed all four runs and rank ranked fast, read through the link
    assert shown.exit_code == 1, shown.output
    assert shown.stderr.startswith(f"error: {layout.metadata_path(fast)}: object {fast} has "
                                   "no metadata file\n")
    if linked == "shard":  # fast's metadata alone is behind the link
        assert _runs(listed) == ["broken", "ref", "slow"]
        assert ranked.exit_code == 0, ranked.output
        assert "1 ranked" in ranked.stdout and "fast" not in ranked.stdout
    else:  # no metadata at all: no manifest is in the work tree
        assert _runs(listed) == []
        assert ranked.exit_code == 1, ranked.output
        assert "BenchmarkRun/slow: the metadata file is missing" in ranked.stderr
    left_out = f"1 manifest(s) in the work tree do not verify and are left out: {fast};" \
        if linked == "shard" else "11 manifest(s) in the work tree do not verify"
    assert left_out in listed.stderr  # left out, said so
    for result in (listed, ranked, shown):
        assert LEFT_OUT.format(path) in result.stderr, result.stderr
    assert checked.exit_code == 0, checked.output  # the index is what a fresh build gives
    assert "agrees with the store" in checked.stdout
    assert verified.exit_code == 1
    assert f"{path}: error KI111 not-a-regular-file: a symlink under store/" in verified.stdout


def test_a_link_replaced_by_the_directory_again_is_read_again(runner, group, tmp_path):
    # the link's own mtime keys the cached comparison, never its target's: putting the
    # real directory back (same names, same times as the target) is seen
    fast = Store(group.root).resolve("BenchmarkRun/fast")
    shard = layout.metadata_path(fast).rpartition("/")[0]
    _link_elsewhere(group.root, shard, tmp_path / "outside")
    assert _runs(run(runner, group.root, "ls", "--json")) == ["broken", "ref", "slow"]
    os.unlink(group.root / shard)
    shutil.copytree(tmp_path / "outside", group.root / shard)
    listed = run(runner, group.root, "ls", "--json")
    assert _runs(listed) == ["broken", "fast", "ref", "slow"]
    assert listed.stderr == ""


def test_a_linked_store_directory_holds_nothing_for_ls_rank_and_reindex_check(
        runner, group, tmp_path):
    assert _runs(run(runner, group.root, "ls", "--json")) == ["broken", "fast", "ref", "slow"]
    _link_elsewhere(group.root, layout.STORE_DIR, tmp_path / "outside")
    listed = run(runner, group.root, "ls", "--json")
    assert _runs(listed) == []  # on main: all four, listed through the link
    assert LEFT_OUT.format(layout.STORE_DIR) in listed.stderr
    ranked = run(runner, group.root, "rank", "BenchmarkRun/slow")
    assert ranked.exit_code == 1, ranked.output
    assert "BenchmarkRun/slow: the object file is missing" in ranked.stderr
    checked = run(runner, group.root, "reindex", "--check")
    assert checked.exit_code == 0, checked.output
