"""A full disk under the export's scratch database is named, not "a bug in kistore".

fresh05 MED 1: on a full file system ``kistore export`` died creating its scratch SQLite
database with "internal error: this is a bug in kistore ... (OperationalError: database or
disk is full)". It names OUT (the scratch file beside it is temporary, never a name the
user is told), says what to do, exits 1 and leaves nothing.
"""

from __future__ import annotations

import sqlite3

from ..conftest import add_docs
from ..small_disk import fill, small_disk
from .conftest import cli

SAID = ("No space left on device writing the export's scratch database (a temporary file "
        "in a directory beside it, removed again); free space on its file system and run "
        "the command again; nothing was left half-written")


def test_a_full_disk_under_the_scratch_database_names_out(runner, fixture, tmp_path,
                                                          monkeypatch):
    from kistore.export import scratch

    def full(self):
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(scratch.Scratch, "index_lookups", full)
    out = tmp_path / "out"
    result = cli(runner, fixture.store, "export", str(out))
    assert result.exit_code == 1
    assert result.output == f"error: {out}: {SAID}\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["store"]  # no temp, no OUT


def test_a_lock_on_the_scratch_database_is_still_not_said_as_a_full_disk(
        runner, fixture, tmp_path, monkeypatch):
    from kistore.export import scratch

    def locked(self):
        raise sqlite3.OperationalError("database is locked")

    monkeypatch.setattr(scratch.Scratch, "index_lookups", locked)
    result = cli(runner, fixture.store, "export", str(tmp_path / "out"))
    assert result.exit_code == 1
    assert "internal error" in result.output and "database is locked" in result.output


def test_a_real_full_disk_names_out(runner, kit, tmp_path):
    from kistore.store import Store

    with small_disk(tmp_path / "small") as small:
        Store.init(small / "s")
        store = Store(small / "s")
        add_docs(store, kit.group_docs([None]), allow_dangling=True)
        assert cli(runner, store, "ls").exit_code == 0  # the derived index, built
        fill(small)
        out = small / "out"
        result = cli(runner, store, "export", str(out))
        assert result.exit_code == 1
        assert result.output == f"error: {out}: {SAID}\n"
        assert sorted(p.name for p in small.iterdir()) == ["fill", "s"]
