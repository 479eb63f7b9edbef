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


def test_staged_entries_carry_the_stat_data_as_git_truncates_it(store, store_path):
    # Each field lands where git reads it (`git ls-files --debug`), seconds as git's int32
    # (a time past 2038 wraps), 64-bit device and inode numbers cut to 32 bits.
    index_file = store_path / ".git" / "index"
    oid = _blob(store_path, "stat data")
    later = ((1 << 31) + 5) * 1_000_000_000 + 7  # 2038-01-19 03:14:13 UTC
    stats = {"store/a.json": (1_764_720_000_123_456_789, 9, (1 << 32) + 77,
                              1_764_720_001_000_000_042, (5 << 32) + 2049, 1000, 1001),
             "store/é.json": (later, 9, 12, later, 3, 0, 0)}
    with gitindex.IndexUpdate(index_file) as update:
        gitindex.stage(update.index, dict.fromkeys(stats, oid), stats, store_path)
    listing = git(store_path, "-c", "core.quotepath=false", "ls-files", "--debug", "store/a.json",
                  "store/é.json")
    assert ("store/a.json\n  ctime: 1764720001:42\n  mtime: 1764720000:123456789\n"
            "  dev: 2049\tino: 77\n  uid: 1000\tgid: 1001\n  size: 9\tflags: 0\n") in listing
    assert "store/é.json\n  ctime: 2147483653:7\n  mtime: 2147483653:7\n" in listing
