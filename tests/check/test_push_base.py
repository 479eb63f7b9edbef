"""``push_base``: the base a pre-push hook judges a push from is the one pre-receive takes.

fresh99 H1: the hook started every range at the parent of the oldest commit the remote
lacks; after a second merge of main that commit's parent is main before *both* merges,
so the first merge (already on the remote) sat inside the range and a citation it moved
(KI425, judged against BASE) was not seen. The receiver (``gate._merge_base``) takes the
old tip when the push fast-forwards it, else the merge base with it or with main.
"""

from __future__ import annotations

from pathlib import Path

import pygit2

from kistore.check.reach import landing_tips, push_base, remote_tips

from ..conftest import git


def commit(path: Path, name: str) -> str:
    """Commit one new file ``name`` on the checked-out branch; return the commit id."""
    (path / name).write_text(f"{name}\n")
    git(path, "add", name)
    git(path, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--no-verify",
        "-m", name)
    return git(path, "rev-parse", "HEAD").strip()


def merge(path: Path, branch: str) -> str:
    """``git merge --no-ff BRANCH``; return the merge commit."""
    git(path, "-c", "user.name=t", "-c", "user.email=t@t", "merge", "-q", "--no-ff",
        "--no-edit", branch)
    return git(path, "rev-parse", "HEAD").strip()


def graph(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """root -- m0 (main, pushed to ``server``); pr-a and pr-b off m0; main merges pr-b
    (pushed), then pr-a (not pushed)."""
    path = tmp_path / "clone"
    git(tmp_path, "init", "-q", "-b", "main", str(path))
    git(tmp_path, "init", "-q", "--bare", str(tmp_path / "server.git"))
    git(path, "remote", "add", "server", str(tmp_path / "server.git"))
    ids = {"root": commit(path, "root"), "m0": commit(path, "m0")}
    for pr in ("pr-a", "pr-b"):
        git(path, "checkout", "-q", "-b", pr, ids["m0"])
        ids[pr] = commit(path, pr)
    git(path, "checkout", "-q", "main")
    ids["merge-b"] = merge(path, "pr-b")
    git(path, "push", "-q", "--no-verify", "server", "main")
    ids["merge-a"] = merge(path, "pr-a")
    return path, ids


def base_of(path: Path, new: str, old: str | None) -> tuple[str | None, str] | None:
    repo = pygit2.Repository(str(path))
    return push_base(repo, new, old, remote_tips(repo, "server"), landing_tips(repo, "server"))


def test_a_fast_forward_is_judged_from_the_remote_tip_not_the_oldest_unsent_commit(tmp_path):
    path, ids = graph(tmp_path)
    # the oldest commit the remote lacks is pr-a's (parent m0): the range once began at m0
    assert base_of(path, ids["merge-a"], ids["merge-b"]) == (ids["merge-b"], ids["pr-a"])


def test_a_new_ref_is_judged_from_where_it_leaves_the_remote_main(tmp_path):
    path, ids = graph(tmp_path)
    assert base_of(path, ids["merge-a"], None) == (ids["merge-b"], ids["pr-a"])
    assert base_of(path, ids["pr-a"], None) == (ids["m0"], ids["pr-a"])


def test_a_force_push_is_judged_from_the_merge_base_with_the_old_tip(tmp_path):
    path, ids = graph(tmp_path)
    git(path, "push", "-q", "--no-verify", "server", "pr-b")  # server/pr-b at pr-b
    assert base_of(path, ids["pr-a"], ids["pr-b"]) == (ids["m0"], ids["pr-a"])


def test_nothing_unsent_is_not_judged_and_an_empty_remote_takes_the_whole_history(tmp_path):
    path, ids = graph(tmp_path)
    assert base_of(path, ids["merge-b"], ids["merge-b"]) is None
    assert base_of(path, ids["pr-b"], None) is None  # merged into server/main already
    repo = pygit2.Repository(str(path))
    assert push_base(repo, ids["merge-a"], None, [], []) == (None, ids["root"])


def test_without_the_remote_main_the_oldest_unsent_commit_parent_is_the_base(tmp_path):
    # a remote whose main this clone never fetched, but another of its branches
    path, ids = graph(tmp_path)
    repo = pygit2.Repository(str(path))
    base, first = push_base(repo, ids["merge-a"], None, [ids["pr-b"]], [])
    assert base == ids["m0"] and first in (ids["pr-a"], ids["merge-b"])  # each parent held
