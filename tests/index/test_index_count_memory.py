"""The row count is skipped while the index file is unchanged, and never when it changed.

A query compares the count of the query rows with the one sealed with the tree (review
2026-12-02 F10); the walk is skipped while the file and its ``-wal`` have the state they
had when the count last agreed (:mod:`kistore.index._counted_state`). Each test first
shows the skip is taken (no ``count(*)`` statement runs), then edits the file as someone
outside kistore would, and asserts the next answer is right: had the state not changed,
the count would have been skipped and the edited rows trusted.

kistore's own connection stays open across an edit (a command's process exits without
closing it, so SQLite neither checkpoints nor deletes the ``-wal``); files settle after
50 ms here, not :data:`~kistore.index._counted_state.SETTLED_NS`.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import time

import pytest

from kistore.index import _counted_state as counted_state
from kistore.index import _database as database
from kistore.query.answers import list_manifests

from .test_index_integrity import RANKED, ranked


@pytest.fixture(autouse=True)
def settled(monkeypatch):
    monkeypatch.setattr(counted_state, "SETTLED_NS", 50_000_000)


def settle():
    time.sleep(0.06)


def names(store):
    return sorted(r.name for r in list_manifests(store, kind="BenchmarkRun"))


def counted(store):
    """Answer a query; return whether it counted the rows (ran the ``count(*)`` walk)."""
    conn = database.connection(database.index_path(store.git_dir))
    statements = []
    conn.set_trace_callback(statements.append)
    try:
        assert ranked(store) == RANKED
    finally:
        conn.set_trace_callback(None)
    return any("count(*)" in s for s in statements)


def remembered(store):
    """Bring the index to a state whose count is remembered; return the index path."""
    ranked(store)
    settle()
    assert counted(store)  # counted, and the settled state remembered
    path = database.index_path(store.git_dir)
    assert counted_state.remembered(path) == counted_state.file_state(path) is not None
    assert not counted(store)  # the skip: no walk while the file is unchanged
    return path


def test_an_unchanged_index_is_not_counted_again_and_a_write_by_kistore_recounts(group):
    path = remembered(group)
    state = counted_state.file_state(path)
    assert not counted(group) and counted_state.file_state(path) == state
    conn = database.connection(path)
    with conn:  # a write kistore makes (a cache row): the state moves, counted again
        conn.execute("INSERT OR REPLACE INTO meta VALUES ('x', 'y', X'00')")
    settle()
    assert counted(group)
    assert not counted(group)  # remembered again


def test_a_file_changed_within_the_settling_time_is_counted_every_time(group, monkeypatch):
    monkeypatch.setattr(counted_state, "SETTLED_NS", 3_600_000_000_000)
    ranked(group)
    path = database.index_path(group.git_dir)
    assert counted_state.file_state(path) is None
    assert counted(group) and counted(group)
    assert counted_state.remembered(path) is None


def _outside(path, *statements):
    """Run SQL through a connection of Python's sqlite3 (kistore's own stays open)."""
    conn = sqlite3.connect(path)
    with conn:
        for statement in statements:
            conn.execute(statement)
    conn.close()  # not the last connection: no checkpoint, the -wal is kept


@pytest.mark.parametrize("checkpoint", [False, True])
def test_a_row_deleted_with_python_sqlite3_is_caught_with_or_without_a_checkpoint(
        group, checkpoint):
    before = names(group)
    path = remembered(group)
    wal = os.stat(f"{path}-wal").st_size
    _outside(path, "DELETE FROM records WHERE name = 'slow'")
    if checkpoint:  # the rows moved into the file, the -wal emptied
        conn = sqlite3.connect(path)
        assert conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0] == 0
        conn.close()
        assert os.stat(f"{path}-wal").st_size == 0
    else:
        assert os.stat(f"{path}-wal").st_size > wal
    settle()  # the state compared, not the settling time, must tell
    assert counted(group)  # and rebuilt: the answer is the store's
    assert names(group) == before


def test_a_row_copied_with_the_sqlite3_shell_is_caught(group):
    if shutil.which("sqlite3") is None:
        pytest.skip("no sqlite3 shell")
    before = names(group)
    path = remembered(group)
    conn = sqlite3.connect(path)
    columns = [row[1] for row in conn.execute("PRAGMA table_info(records)")][1:]
    conn.close()
    listed = ", ".join(columns)
    subprocess.run(["sqlite3", str(path), f"INSERT INTO records (id, {listed}) SELECT "
                    f"(SELECT max(id) + 1000 FROM records), {listed} FROM records "
                    "WHERE name = 'fast'"], check=True)
    settle()
    assert counted(group)
    assert names(group) == before


def test_an_older_copy_put_back_with_its_times_is_caught(group):
    # the file's bytes replaced in place (same inode, same size) by a copy that lacks a row,
    # its mtime set back to the one remembered: only its ctime tells
    before = names(group)
    ranked(group)
    database.disconnect()  # checkpointed: the file alone holds every row
    path = database.index_path(group.git_dir)
    copy = path.parent / "copy.sqlite"
    shutil.copyfile(path, copy)
    _outside(copy, "DELETE FROM records WHERE name = 'slow'")  # the copy's last close
    damaged = copy.read_bytes()
    assert len(damaged) == path.stat().st_size
    path = remembered(group)
    held = sqlite3.connect(path)  # keeps the -wal when kistore's connection closes
    held.execute("SELECT count(*) FROM meta").fetchone()
    try:
        database.disconnect()
        state = counted_state.file_state(path)
        mtime = path.stat().st_mtime_ns
        with open(path, "r+b") as f:
            f.write(damaged)
        os.utime(path, ns=(mtime, mtime))
        settle()
        now = counted_state.file_state(path)
        assert now is not None and now != state
        file_now, wal_now = now.split()
        file_was, wal_was = state.split()
        assert wal_now == wal_was and file_now.split(":")[:4] == file_was.split(":")[:4]
        assert counted(group)
        assert names(group) == before
    finally:
        held.close()


def test_the_remembered_state_is_not_read_through_a_link(group, tmp_path):
    path = remembered(group)
    counted_path = f"{path}{counted_state.SUFFIX}"
    target = tmp_path / "elsewhere"
    target.write_text(open(counted_path).read())
    os.unlink(counted_path)
    os.symlink(target, counted_path)
    assert counted_state.remembered(path) is None
    assert counted(group)  # counted, and the link replaced by a file of its own
    assert not os.path.islink(counted_path)
    assert not counted(group)
