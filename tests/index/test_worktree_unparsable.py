"""A sealed index row that does not parse is a stale or damaged row, not a traceback.

The seal is an unkeyed BLAKE2b (it finds damage and edits that leave it as it was); a row
resealed by hand, or written by a kistore that stored another form, still has to be read
as one that fails its seal: a ``worktree`` row as a miss (the work tree is compared again
and the row written anew), a ``keys`` row as the index's damage.
"""

from __future__ import annotations

import sqlite3

import pytest
from click.testing import CliRunner

from kistore.cli import main
from kistore.index import _database as database
from kistore.index import _worktree

from ..conftest import add_docs
from .test_query_warm import new_run, ranks
from .test_worktree_summary import summary, world  # noqa: F401 - the fixture


@pytest.mark.parametrize("changed", ["not json", '["sha256:zz"]', '{"a": 1}', "[1]", "null"])
@pytest.mark.parametrize("which", ["summary", "shard"])
def test_a_resealed_row_that_does_not_parse_is_compared_again(store, kit, world,  # noqa: F811
                                                             changed, which):
    add_docs(store, [*world.values(), *new_run(kit, world, "a", 30),
                     *new_run(kit, world, "b", 10)])
    add_docs(store, new_run(kit, world, "c", 20), commit=False)
    assert ranks(store.root) == [("b", 1), ("c", 2), ("a", 3)]
    database.disconnect()
    conn = sqlite3.connect(database.index_path(store.git_dir))
    with conn:
        if which == "shard":  # without the summary, the shard rows answer
            conn.execute("DELETE FROM worktree WHERE dir = ?", (_worktree.SUMMARY,))
        rows = conn.execute("SELECT dir, mtime_ns, tree FROM worktree").fetchall()
        for dir_, mtime, tree in rows:
            if (dir_ == _worktree.SUMMARY) == (which == "summary"):
                conn.execute("UPDATE worktree SET changed = ?, seal = ? WHERE dir = ?",
                             (changed, database.seal((dir_, mtime, tree, changed)), dir_))
    conn.close()
    assert ranks(store.root) == [("b", 1), ("c", 2), ("a", 3)]
    assert len(summary(store)[1]) == 2  # written again by the pass


@pytest.mark.parametrize("resealed", [True, False])
def test_a_key_row_that_does_not_parse_is_damage_as_one_that_fails_its_seal(
        store, kit, world, tmp_path, resealed):  # noqa: F811
    # kistore.index._rows parses a comparison key's object with json.loads: a resealed row
    # that does not parse is the index's DAMAGE (a ValueError) as a row whose seal fails is:
    # ls, show and compare do not read it; export says to reindex; no traceback
    add_docs(store, [*world.values(), *new_run(kit, world, "a", 30),
                     *new_run(kit, world, "b", 10)])
    assert ranks(store.root) == [("b", 1), ("a", 2)]
    database.disconnect()
    conn = sqlite3.connect(database.index_path(store.git_dir))
    with conn:
        rows = conn.execute("SELECT id, key, family, statistic, seal FROM keys").fetchall()
        assert rows
        for n, key, family, statistic, old in rows:
            conn.execute("UPDATE keys SET object = 'not json', seal = ? WHERE id = ?",
                         (database.seal((n, key, "not json", family, statistic))
                          if resealed else old, n))
    conn.close()
    for args in (["ls"], ["show", "BenchmarkRun/a"], ["compare", "BenchmarkRun/a"]):
        result = CliRunner().invoke(main, ["--store", str(store.root), *args])
        assert result.exit_code == 0, (args, result.output)
    result = CliRunner().invoke(main, ["--store", str(store.root), "export",
                                       str(tmp_path / "out")])
    assert (result.exit_code, type(result.exception)) == (1, SystemExit)
    said = "Expecting value: line 1 column 1 (char 0)" if resealed else \
        "a row that does not match its seal"
    assert f"index.sqlite: the derived index is damaged ({said}" in result.output
    assert result.output.endswith("run `kistore reindex` (deleting it loses nothing)\n")
