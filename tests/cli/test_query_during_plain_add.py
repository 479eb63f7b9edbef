"""Queries during a plain ``kistore add`` warn that the answer may include it (review r75 F6).

A plain add (no ``--commit``) takes no git lock, so ``ls``, ``rank`` and ``show`` answered
from its half-written files with no word (a partial group ranked; runs an interrupt then
undid). Every add holds kistore's write lock while it writes; the queries now look at it, as
``verify`` does (KI418), and say on stderr that the answer may include an add in progress.
The add is paused after its first file by a patched writer in a real process (no race).
"""

from __future__ import annotations

import os
from pathlib import Path

from kistore.cli import main
from kistore.store import Store

from ..conftest import git
from .test_verify_during_plain_add import paused_plain_add


def warning(lock: Path) -> str:
    return (f"warning: {lock} is held: a `kistore add` (or `kistore migrate`) is writing the "
            "work tree, so this answer may include an add in progress (files it has half "
            "written, or will remove if it is interrupted); ask again when it is done, or ask "
            "HEAD with `--at HEAD`")


def test_ls_rank_and_show_during_a_plain_add_say_so_on_stderr(runner, group, kit, tmp_path):
    root = Path(group.root)
    lock = root / ".git" / "kistore-write.lock"
    queries = (["ls"], ["rank", "BenchmarkRun/fast"], ["show", "BenchmarkRun/fast"])
    with paused_plain_add(root, kit, tmp_path):
        for args in queries:
            during = runner.invoke(main, ["--store", str(root), *args])
            assert during.exit_code == 0, (args, during.output)
            assert during.stderr.splitlines()[0] == warning(lock), args
            at_head = runner.invoke(main, ["--store", str(root), *args, "--at", "HEAD"])
            assert str(lock) not in at_head.stderr  # a commit is no work tree being written
    for args in queries:
        after = runner.invoke(main, ["--store", str(root), *args])
        assert after.exit_code == 0 and "is held" not in after.stderr, args


def test_an_add_in_another_linked_worktree_is_no_warning_here(runner, group, tmp_path):
    root = Path(group.root)
    linked = tmp_path / "linked"
    git(root, "worktree", "add", "-q", "-b", "side", str(linked))
    other = Store(linked)
    with other._write_lock():  # held, with the other worktree's line in it
        assert other.write_lock_holder() == (os.getpid(), str(other.root))
        here = runner.invoke(main, ["--store", str(root), "ls"])
        there = runner.invoke(main, ["--store", str(linked), "ls"])
    assert "is held" not in here.stderr
    assert "is held: a `kistore add`" in there.stderr.splitlines()[0]


def test_no_writer_costs_no_more_than_a_look_at_the_lock(store, monkeypatch):
    calls = []
    real = os.open

    def counted(path, *args, **kwargs):
        calls.append(str(path))
        return real(path, *args, **kwargs)

    monkeypatch.setattr(os, "open", counted)
    assert store.settled(None).note is None
    assert [c for c in calls if c.endswith("kistore-write.lock")] == \
        [str(Path(store.git_dir) / "kistore-write.lock")]
