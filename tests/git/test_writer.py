"""The work-tree writer: atomic files, stats for the catalog, undo, and the child process."""

from __future__ import annotations

import os
import stat

import pytest

from kistore.git.writer import BULK_LISTING, FileBatch, atomic_write


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
    monkeypatch.setattr(FileBatch, "_write_all", lambda self, files, stop=None: os._exit(3))
    batch = FileBatch(tmp_path, files(BULK_LISTING + 1))
    batch.start()
    with pytest.raises(OSError, match="died"):
        batch.wait()
    assert tree(tmp_path) == {}


# -- the forked writers must never outlive, or hang, the process that started them --------

_KILLED_PARENT = """
import os, signal, sys
from kistore.git.writer import FileBatch
files = {f"store/objects/{i % 256:02x}/{i:062x}.json": b'{"n":%d}' % i for i in range(6000)}
batch = FileBatch(sys.argv[1], files)
batch.start(2)
print(" ".join(str(child.pid) for child, _ in batch._children), flush=True)
os.kill(os.getpid(), signal.SIGKILL)  # the parent dies before reading any reply
"""

_FAILED_PARENT = """
import sys
from kistore.git.writer import FileBatch
files = {f"store/objects/{i % 256:02x}/{i:062x}.json": b'{"n":%d}' % i for i in range(6000)}
batch = FileBatch(sys.argv[1], files)
batch.start(2)
batch.undo()  # as after a failure while packing: the replies (> a pipe's 64 KiB) unread
print("undone", flush=True)
"""


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(") ")[1][0] != "Z"  # a zombie has exited
    except FileNotFoundError:
        return False


def test_children_of_a_killed_parent_exit_instead_of_blocking_on_their_reply(tmp_path):
    import subprocess
    import sys
    import time

    run = subprocess.run([sys.executable, "-c", _KILLED_PARENT, str(tmp_path)],
                         capture_output=True, text=True, timeout=60)
    pids = [int(p) for p in run.stdout.split()]
    assert len(pids) == 2
    deadline = time.monotonic() + 60
    while any(_alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(_alive(p) for p in pids), "a writer child is still blocked"


def test_undo_before_wait_reads_the_replies_and_does_not_hang(tmp_path):
    import subprocess
    import sys

    run = subprocess.run([sys.executable, "-c", _FAILED_PARENT, str(tmp_path)],
                         capture_output=True, text=True, timeout=60)
    assert run.stdout == "undone\n", run.stderr
    assert tree(tmp_path) == {}


def test_undo_stops_a_running_child_between_two_files(tmp_path, monkeypatch):
    # A new-user report: Ctrl-C during a bulk add took 4-7 s to take effect, because the
    # undo waited for the child to write every one of its files before removing them all.
    from kistore.git import writer

    log = tmp_path / "written.log"
    real = writer._write

    def slow(path, data, **kwargs):  # runs in the child: 2,000 files take 10 s
        import time

        time.sleep(0.005)
        with open(log, "a") as f:
            f.write(path + "\n")
        return real(path, data, **kwargs)

    monkeypatch.setattr(writer, "_write", slow)
    monkeypatch.setattr(writer, "STOP_CHECK", 1)
    root = tmp_path / "root"
    root.mkdir()
    batch = FileBatch(root, files(2000))
    batch.start()
    batch.undo()
    written = log.read_text().splitlines() if log.exists() else []
    assert len(written) < 100  # it stopped at its next check, not after all 2,000
    assert tree(root) == {}


def test_a_child_leaves_ctrl_c_and_sigterm_to_the_parent(tmp_path, monkeypatch):
    # A new-user report: Ctrl-C or SIGTERM sent to the add's whole process group (a
    # terminal, a CI timeout, docker stop) stopped the writer child between creating a
    # temp file and noting it; the temp file stayed and `kistore verify` failed (KI110).
    import signal
    import time

    from kistore.git import writer

    real = writer._write

    def slow(path, data, **kwargs):  # runs in the child
        time.sleep(0.002)
        return real(path, data, **kwargs)

    monkeypatch.setattr(writer, "_write", slow)
    batch = FileBatch(tmp_path, files(300))
    batch.start()
    [(child, _)] = batch._children
    time.sleep(0.2)
    os.kill(child.pid, signal.SIGINT)
    os.kill(child.pid, signal.SIGTERM)
    batch.wait()  # the child went on: the parent decides (it undoes on its own interrupt)
    assert tree(tmp_path) == files(300)


@pytest.mark.parametrize("length", [200, 201, 255])
def test_a_file_name_of_up_to_255_bytes_is_written(tmp_path, length):
    # The temporary name adds ".", ".PID.N.tmp" to the file's name: a 253-character
    # names file (the schema's longest name) failed with ENAMETOOLONG (r70 F12).
    name = "a" * (length - 5) + ".json"
    atomic_write(tmp_path / "d" / name, b"{}")
    assert os.listdir(tmp_path / "d") == [name]
    batch = FileBatch(tmp_path / "b", {f"d/{name}": b"{}"})
    batch.start()
    batch.wait()
    assert os.listdir(tmp_path / "b" / "d") == [name]


def test_the_stat_table_gives_each_stat_back_unsigned_fields_past_2_63_too():
    from array import array

    from kistore.git.writer import StatTable, _append_stat

    class Stat:  # what file_stat reads of an os.stat_result
        def __init__(self, *values: int) -> None:
            (self.st_mtime_ns, self.st_size, self.st_ino, self.st_ctime_ns, self.st_dev,
             self.st_uid, self.st_gid) = values

    wanted = {"a": (-5, 0, 2**64 - 1, 2**62, 2**63, 0, 2**32 - 1),  # before 1970; odd ids
              "b": (1_764_720_000_123_456_789, 9, 77, 1_764_720_001_000_000_042, 2049, 1000,
                    1001)}
    table = StatTable()
    values = array("q")
    for stats in wanted.values():
        _append_stat(values, Stat(*stats))  # type: ignore[arg-type]
    table.extend(wanted, values)
    assert dict(table) == wanted
    assert table.get("a") == wanted["a"] and table.get("c") is None
    assert len(table) == 2 and list(table) == ["a", "b"] and "c" not in table
    with pytest.raises(ValueError, match="7 stat values for 2 paths"):
        StatTable().extend(["x", "y"], array("q", range(7)))


def test_a_child_batch_s_stats_cost_the_parent_under_150_bytes_a_file(tmp_path):
    # A dict of tuples unmarshalled from the child held ~550 bytes a file (a tuple, seven
    # ints, a second copy of the path): ~2.2 KB a manifest of a bulk add's parent.
    import tracemalloc

    written = files(5_000)
    batch = FileBatch(tmp_path, written)
    batch.start(2)
    tracemalloc.start()
    try:
        batch.wait()
        held, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(batch.stats) == 5_000
    assert held / 5_000 < 150, held / 5_000
