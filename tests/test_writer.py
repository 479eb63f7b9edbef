"""The work-tree writer: atomic files, stats for the catalog, undo, and the child process."""

from __future__ import annotations

import os
import stat

import pytest

from kistore.writer import BULK_LISTING, FileBatch, atomic_write


def files(n: int) -> dict[str, bytes]:
    return {f"store/objects/sha256/{i % 7:02x}/{i:062x}.json": b'{"n":%d}' % i for i in range(n)}


def tree(root) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def test_atomic_write_is_0644_under_a_narrow_umask_and_leaves_no_temp(tmp_path):
    old = os.umask(0o077)
    try:
        st = atomic_write(tmp_path / "a" / "b.json", b"{}")
    finally:
        os.umask(old)
    path = tmp_path / "a" / "b.json"
    assert stat.S_IMODE(path.stat().st_mode) == 0o644
    assert (st.st_ino, st.st_size) == (path.stat().st_ino, 2)
    assert os.listdir(tmp_path / "a") == ["b.json"]


@pytest.mark.parametrize("children", [0, 1, 2])
def test_batch_writes_every_file_with_its_stat(tmp_path, children):
    batch = FileBatch(tmp_path, files(BULK_LISTING + 1))
    if children:
        batch.start(children)
        batch.wait()
    else:
        batch.run()
    assert tree(tmp_path) == files(BULK_LISTING + 1)
    assert batch.stats.keys() == files(BULK_LISTING + 1).keys()
    for rel, recorded in batch.stats.items():
        st = (tmp_path / rel).stat()  # ctime too: taken after the rename, as git's index needs
        assert recorded == (st.st_mtime_ns, st.st_size, st.st_ino, st.st_ctime_ns, st.st_dev,
                            st.st_uid, st.st_gid)


@pytest.mark.parametrize("count", [3, BULK_LISTING + 1])  # probed, and listed, old files
def test_undo_removes_created_files_and_restores_replaced_ones(tmp_path, count):
    new = files(count)
    first = next(iter(new))
    atomic_write(tmp_path / first, b"old bytes")
    batch = FileBatch(tmp_path, new)
    batch.run()
    assert (tmp_path / first).read_bytes() == new[first]
    batch.undo()
    assert tree(tmp_path) == {first: b"old bytes"}


@pytest.mark.parametrize("children", [1, 2])
def test_disk_full_in_a_child_undoes_the_whole_batch(tmp_path, disk_full_on_write, children):
    atomic_write(tmp_path / "store/keep.json", b"kept")
    disk_full_on_write(10)  # the children inherit the patched writer
    batch = FileBatch(tmp_path, files(BULK_LISTING + 1))
    batch.start(children)
    with pytest.raises(OSError, match="No space left on device"):
        batch.wait()
    assert tree(tmp_path) == {"store/keep.json": b"kept"}


def test_a_child_that_dies_without_a_word_is_a_failure_and_undone(tmp_path, monkeypatch):
    monkeypatch.setattr(FileBatch, "_write_all", lambda self, files: os._exit(3))
    batch = FileBatch(tmp_path, files(BULK_LISTING + 1))
    batch.start()
    with pytest.raises(OSError, match="died"):
        batch.wait()
    assert tree(tmp_path) == {}
