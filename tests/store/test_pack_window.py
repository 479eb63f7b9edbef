"""``kistore init`` sets git's ``pack.window`` (issue 22: <= 800 bytes a manifest packed)."""

from __future__ import annotations

import shutil

from bench.generate import manifests
from kistore.core.model import Manifest
from kistore.git.pack import PACK_WINDOW
from kistore.store import Store

from ..conftest import git


def _packed_kib_after_gc(git_dir) -> int:
    git(git_dir, "--git-dir", str(git_dir), "gc", "--quiet")
    facts = dict(line.split(": ") for line in git(git_dir, "--git-dir", str(git_dir),
                                                   "count-objects", "-v").splitlines())
    assert facts["count"] == "0"  # every object packed: size-pack is the whole repository
    return int(facts["size-pack"])


def test_init_sets_pack_window_and_git_gc_packs_the_store_smaller_with_it(tmp_path):
    store = Store.init(tmp_path / "s")
    assert PACK_WINDOW == 50
    assert git(tmp_path / "s", "config", "--local", "--get", "pack.window") == "50\n"
    store.add([Manifest.from_document(d) for d in manifests(300)], commit=True,
              message="bulk")
    # The same objects, with git's default window set in place of kistore's.
    default = tmp_path / "default.git"
    shutil.copytree(tmp_path / "s" / ".git", default)
    git(tmp_path, "config", "--file", str(default / "config"), "pack.window", "10")
    with_window = _packed_kib_after_gc(tmp_path / "s" / ".git")
    without = _packed_kib_after_gc(default)
    # Measured: 250 KiB against 282 (the 300 manifests' ~900 blobs meet more of their
    # kind's similar files in 50 neighbours than in 10).
    assert with_window < without * 0.95, (with_window, without)
    assert git(tmp_path / "s", "status", "--porcelain") == ""


def test_init_of_an_existing_repository_leaves_its_git_config_alone(tmp_path):
    git(tmp_path, "init", "-q", "-b", "main", "repo")
    before = (tmp_path / "repo" / ".git" / "config").read_bytes()
    Store.init(tmp_path / "repo")
    assert (tmp_path / "repo" / ".git" / "config").read_bytes() == before
    assert "pack.window" not in git(tmp_path / "repo", "config", "--local", "--list")
