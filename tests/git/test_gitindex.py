"""Changing git's index under its own lock (kistore.gitindex)."""

from __future__ import annotations

import pytest

from kistore.git import _gitindex as gitindex

from ..conftest import git


def _blob(store_path, text: str):
    import pygit2

    return pygit2.Repository(str(store_path)).create_blob(text.encode())


def test_a_failed_update_leaves_the_index_bytes_and_no_lock_or_scratch(store, store_path):
    # The scratch file is a hard link to the index: a change must never write through it.
    index_file = store_path / ".git" / "index"
    before = index_file.read_bytes()
    oid = _blob(store_path, "never staged")
    with pytest.raises(RuntimeError), gitindex.IndexUpdate(index_file) as update:
        gitindex.stage(update.index, {"store/x.json": oid}, {}, store_path)
        update.write()  # written to the lock file: the scratch was a new file, not the link
        assert (store_path / ".git" / "index.lock").stat().st_size > 0
        raise RuntimeError("stop before the rename")
    assert index_file.read_bytes() == before
    assert sorted(p.name for p in index_file.parent.glob("*index*")) == ["index"]


def test_an_update_lands_the_new_entry_and_keeps_the_old_ones(store, store_path):
    index_file = store_path / ".git" / "index"
    before = git(store_path, "ls-files", "--stage")
    oid = _blob(store_path, "staged")
    with gitindex.IndexUpdate(index_file) as update:
        gitindex.stage(update.index, {"store/x.json": oid}, {}, store_path)
    after = git(store_path, "ls-files", "--stage")
    assert after.replace(f"100644 {oid} 0\tstore/x.json\n", "") == before
    assert sorted(p.name for p in index_file.parent.glob("*index*")) == ["index"]


def test_a_held_index_lock_is_waited_for_then_refused(store, store_path):
    index_file = store_path / ".git" / "index"
    (store_path / ".git" / "index.lock").write_bytes(b"")
    with pytest.raises(FileExistsError), gitindex.IndexUpdate(index_file, wait_s=0.05):
        pass
    assert (store_path / ".git" / "index.lock").exists()  # another command's lock is kept
