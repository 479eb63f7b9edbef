"""Notes freshness at publishing and after a pull of one's own commits (reviewer fresh95).

F7: a clone whose commit trusts no key published stale notes without a word after its
remote's notes moved (README: "they warn that community attestations are left out, and
build"): now the remote is asked, as where a key is trusted, and a move is warned of.

F8: ``git push origin main`` of the clone's own commits, then ``git pull origin main``,
was warned of as "a fetch of ../srv brought origin's commits into this clone's branches
since ..., by its URL" (the commits were its own, the pull was by name, and the URL is
``../srv.git``): own commits do not count.

Real ``git clone``s of the ``group`` store (origin), trusting no key (F7) or its maintainer
(F8).
"""

from __future__ import annotations

import json
import re

from kistore.store import Store

from ..conftest import git
from .test_notes_freshness import clone_of, kistore
from .test_notes_pull_by_url import index, noted, slow_rank

__all__ = ["index"]  # the fixture, used by name

MOVED = re.compile(
    r"warning: origin's refs/notes/kistore moved since its notes were last fetched here "
    r"\(\S+Z\): community attestations made there since are left out \(no key is trusted at "
    r"\S+, so none could withdraw or verify a run\); `kistore notes fetch origin` fetches "
    r"them\n")


def test_f7_no_key_trusted_the_remote_s_moved_notes_are_warned_of(group, tmp_path):
    noted(group, "first")  # origin holds one community note
    clone = clone_of(group, tmp_path / "clone")
    assert kistore(clone, "notes", "fetch", "origin").exit_code == 0
    built = kistore(clone, "site", "build", str(tmp_path / "site"))
    assert (built.exit_code, built.stderr) == (0, "")

    noted(group, "from c2")  # another clone's note, pushed: origin's notes moved
    built = kistore(clone, "site", "build", str(tmp_path / "site2"))
    assert built.exit_code == 0, built.output  # built: community notes change no rank
    assert MOVED.fullmatch(built.stderr), built.stderr  # before: no word
    exported = kistore(clone, "export", str(tmp_path / "exp"), "--format", "csv")
    assert exported.exit_code == 0 and MOVED.match(exported.stderr), exported.output
    without = kistore(clone, "site", "build", str(tmp_path / "site3"),
                      "--without-attestations")
    assert (without.exit_code, without.stderr) == (0, "")  # asks nothing, as documented

    assert kistore(clone, "notes", "fetch", "origin").exit_code == 0  # the way out
    built = kistore(clone, "site", "build", str(tmp_path / "site4"))
    assert (built.exit_code, built.stderr) == (0, "")

    git(clone, "remote", "set-url", "origin", str(tmp_path / "gone.git"))
    built = kistore(clone, "site", "build", str(tmp_path / "site5"))
    assert (built.exit_code, built.stderr) == (0, "")  # offline: nothing could count


def test_f8_a_push_and_pull_of_one_s_own_commits_is_no_stale_notes(index, tmp_path,
                                                                    monkeypatch):
    server = tmp_path / "srv.git"
    git(tmp_path, "clone", "-q", "--bare", str(index.root), str(server))
    git(server, "fetch", "-q", str(index.root), "refs/notes/kistore:refs/notes/kistore")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "srv.git", clone.name)  # as the user's: a relative URL
    monkeypatch.chdir(clone)  # where git resolves it
    assert kistore(clone, "notes", "fetch", "origin").exit_code == 0
    run = json.loads(kistore(clone, "cat", "--manifest", "BenchmarkRun/slow").stdout)
    run["metadata"]["name"] = "slower"
    run["spec"]["timing"]["latencyNs"]["mean"] = 31
    (tmp_path / "slower.json").write_text(json.dumps(run))
    assert kistore(clone, "add", "--commit", str(tmp_path / "slower.json")).exit_code == 0
    git(clone, "push", "-q", "origin", "main")
    git(clone, "pull", "-q", "origin", "main")
    assert slow_rank(clone)[1] == ""  # before: "a fetch of ../srv brought origin's commits"
    git(clone, "fetch", "-q", "origin")
    assert slow_rank(clone)[1] == ""
    assert Store(clone).head_or_none() is not None


def test_f8_a_pull_by_url_names_the_remote_s_dot_git_path(index, tmp_path, monkeypatch):
    # the user's layout: the index's work tree ../my-index beside its server ../my-index.git
    work = tmp_path / "srv"
    git(tmp_path, "clone", "-q", str(index.root), work.name)
    server = tmp_path / "srv.git"
    git(tmp_path, "clone", "-q", "--bare", str(index.root), str(server))
    git(server, "fetch", "-q", str(index.root), "refs/notes/kistore:refs/notes/kistore")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(server), clone.name)
    git(clone, "remote", "set-url", "origin", "../srv.git")
    monkeypatch.chdir(clone)  # where git resolves it
    assert kistore(clone, "notes", "fetch", "origin").exit_code == 0
    git(clone, "config", "core.logAllRefUpdates", "false")
    (clone / ".git/logs/refs/heads/main").unlink()  # no reflog: FETCH_HEAD tells
    other = tmp_path / "other"  # origin gains a commit from another clone
    git(tmp_path, "clone", "-q", str(server), other.name)
    git(other, "commit", "-q", "--allow-empty", "-m", "later")
    git(other, "push", "-q", "origin", "main")
    git(clone, "fetch", "-q", "../srv.git", "main")
    git(clone, "merge", "-q", "--ff-only", "FETCH_HEAD")
    stderr = slow_rank(clone)[1]
    assert "a fetch of ../srv.git brought origin's commits" in stderr, stderr  # before: ../srv
