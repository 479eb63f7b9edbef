"""The notes history replayed without lines (:mod:`kistore.attest.notes_replay`, fresh10 HIGH 1).

A commit left holding what its parent holds is left out only when no later commit's
trusted time changes for it (the readers' own :class:`kistore.attest.notes.Clock`).
"""

from __future__ import annotations

import os
import subprocess
import time
from datetime import UTC, datetime

import pygit2

from kistore.attest.notes_replay import plan, write
from kistore.core.layout import NOTES_REF

from ..conftest import git


def _note(root, args: list[str], when: int) -> str:
    """Run ``git notes --ref kistore ARGS`` dated ``when`` (seconds); return the new tip."""
    stamp = f"{when} +0000"
    subprocess.run(["git", "notes", "--ref", "kistore", *args], cwd=root, check=True,
                   capture_output=True, env={**os.environ, "GIT_COMMITTER_DATE": stamp,
                                             "GIT_AUTHOR_DATE": stamp})
    return git(root, "rev-parse", NOTES_REF).strip()


def _history(tmp_path, mistake_at: int, now: int) -> tuple[pygit2.Repository, list[str], str]:
    """A kept line on A, a mistaken line on B dated ``mistake_at``, its removal and a later
    line on A, both dated ``now``; returns the repository, the tips, and B's blob."""
    root = tmp_path / "repo"
    git(tmp_path, "init", "-q", str(root))
    a = subprocess.run(["git", "hash-object", "-w", "--stdin"], cwd=root, input="a\n",
                       capture_output=True, text=True, check=True).stdout.strip()
    b = subprocess.run(["git", "hash-object", "-w", "--stdin"], cwd=root, input="b\n",
                       capture_output=True, text=True, check=True).stdout.strip()
    tips = [_note(root, ["add", "-m", "kept", a], now - 60),
            _note(root, ["add", "-m", "mistake", b], mistake_at),
            _note(root, ["remove", b], now),
            _note(root, ["append", "-m", "later", a], now)]
    return pygit2.Repository(str(root)), tips, b


def test_the_mistake_and_its_removal_are_left_out_when_no_time_changes(tmp_path):
    now = int(time.time())
    repo, tips, b = _history(tmp_path, now - 30, now)
    planned = plan(repo, repo[tips[-1]].peel(pygit2.Commit), {b: [b"mistake"]},
                   datetime.fromtimestamp(now, UTC))
    assert (planned.replayed, planned.left_out, planned.moved, planned.base) == (
        [tips[3]], [tips[1], tips[2]], [], tips[0])
    new = write(repo, planned)
    commit = repo[new].peel(pygit2.Commit)
    old = repo[tips[3]].peel(pygit2.Commit)
    assert [str(p) for p in commit.parent_ids] == [tips[0]]
    assert (commit.tree_id, commit.message, commit.author, commit.committer) == (
        old.tree_id, old.message, old.author, old.committer)


def test_every_commit_is_replayed_when_leaving_one_out_would_move_a_time(tmp_path):
    # the mistake dated 2 hours ahead (believed: within a day): the removal and the later
    # line are dated at it, their parent's; left out, the later line would enter at now
    now = int(time.time())
    repo, tips, b = _history(tmp_path, now + 7200, now)
    planned = plan(repo, repo[tips[-1]].peel(pygit2.Commit), {b: [b"mistake"]},
                   datetime.fromtimestamp(now, UTC))
    assert (planned.replayed, planned.left_out, planned.moved, planned.base) == (
        tips[1:], [], [], tips[0])
    new = write(repo, planned)
    walked = [repo[new].peel(pygit2.Commit)]
    while len(walked) < 4:
        walked.append(walked[-1].parents[0])
    assert str(walked[-1].id) == tips[0]
    assert [c.commit_time for c in walked] == [
        repo[t].peel(pygit2.Commit).commit_time for t in reversed(tips)]
    assert walked[2].tree_id == walked[3].tree_id  # the mistake's commit, now empty
