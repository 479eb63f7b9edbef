"""Reads of the work tree while an add writes it answer from HEAD (kistore.store._settled).

New-user review 2026-12-02 (F14): ``ls`` during an ``add --commit`` listed the add's
half-written files. The rule lives in the store (:meth:`kistore.store.Store.settled`), so
a library reader gets it too; the command line only prints its note
(tests/cli/test_query_during_add.py).
"""

from __future__ import annotations

import os
import shlex
from pathlib import Path

import pytest

from kistore.core import layout
from kistore.store import CommitView, Settled, WorkTreeView, _settled

from ..conftest import add_docs


class Clock:
    """time.monotonic and time.sleep of :mod:`kistore.store._settled`, with no real wait."""

    def __init__(self, monkeypatch, on_sleep=None) -> None:
        self.now = 100.0
        self.slept: list[float] = []
        self.on_sleep = on_sleep
        monkeypatch.setattr(_settled, "monotonic", lambda: self.now)
        monkeypatch.setattr(_settled, "sleep", self.sleep)

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds
        if self.on_sleep is not None:
            self.on_sleep(len(self.slept))


@pytest.fixture
def busy(group, kit):
    """The group's store with one more manifest in the work tree only; its index lock path."""
    [digest] = add_docs(group, [kit.implementation("proj-new", name="impl-new")], commit=False)
    return group, digest, Path(group.git_dir) / "index.lock"


def test_no_lock_reads_the_work_tree_after_one_look(busy, monkeypatch):
    store, digest, lock = busy
    looked = []
    real = os.path.lexists
    monkeypatch.setattr(os.path, "lexists", lambda p: looked.append(str(p)) or real(p))
    assert store.settled() == Settled(None, None)
    # and where kistore's write lock is (a plain add's, review r75 F6): no commondir here
    assert looked == [str(lock), str(lock.parent / "commondir")]
    assert store.settled("HEAD~0") == Settled("HEAD~0", None)  # a commit: as asked, no look
    assert len(looked) == 2
    view, note = store.settled_view()
    assert isinstance(view, WorkTreeView) and note is None
    assert view.read(layout.object_path(_digest(digest))) is not None


def test_a_held_index_lock_answers_from_head_with_its_note(busy, monkeypatch):
    # an add --commit holds the lock for the whole wait: the answer is HEAD's, and says so
    store, digest, lock = busy
    lock.write_bytes(b"")
    clock = Clock(monkeypatch)
    view, note = store.settled_view(wait_s=0.2)
    assert isinstance(view, CommitView)
    assert view.commit.id == store.repo.head.target
    assert view.read(layout.object_path(_digest(digest))) is None  # the add's file: not read
    assert note is not None and note.startswith(
        f"{lock} is held: a `kistore add --commit` (or a git command) is writing the work "
        "tree; answering from HEAD, not from its half-written files. Ask again when it is "
        "done")
    assert clock.slept and sum(clock.slept) >= 0.2  # it waited before giving up
    assert lock.exists()  # another command's lock is never removed by a read


def test_a_stale_lock_is_named_with_how_to_remove_it(busy, monkeypatch):
    # a crashed git command left the lock: after the wait, HEAD, and the note says which
    # file and how to remove it
    store, _, lock = busy
    lock.write_bytes(b"")
    Clock(monkeypatch)
    settled = store.settled()
    assert settled.at == "HEAD"
    assert settled.note is not None
    assert settled.note.endswith(
        "if nothing is running, a crashed command left the lock: remove it with "
        f"`rm {shlex.quote(str(lock))}`, then run `git reset -q` (a command killed after "
        "its branch moved leaves the index behind HEAD; this brings it in step and keeps "
        "the work tree)")
    assert Path(shlex.split(settled.note.split("`rm ")[1].split("`")[0])[0]) == lock


def test_a_lock_released_during_the_wait_reads_the_work_tree(busy, monkeypatch):
    # git commands hold the lock for milliseconds: the work tree is read once it is free
    store, _, lock = busy
    lock.write_bytes(b"")
    clock = Clock(monkeypatch, on_sleep=lambda n: n == 3 and lock.unlink())
    assert store.settled() == Settled(None, None)
    assert len(clock.slept) == 3


def test_a_bare_repository_answers_as_asked(busy, tmp_path):
    import subprocess

    from kistore.store import Store

    store, _, _ = busy
    bare = tmp_path / "bare.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(store.root), str(bare)], check=True)
    (bare / "index.lock").write_bytes(b"")
    assert Store(bare).settled() == Settled(None, None)  # its reads are HEAD's anyway


def _digest(text: str):
    from kistore.core.digest import Digest

    return Digest.from_str(text)
