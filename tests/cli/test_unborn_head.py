"""A bare remote whose ``HEAD`` names a branch with no commit (review 2026-12-02, F27).

``git init --bare`` without ``-b main`` points ``HEAD`` at ``master`` (git's default with no
``init.defaultBranch``); the README's own commands then pushed ``main`` and ``kistore verify``
there said "no commit named 'HEAD'". It now says HEAD's branch is unborn and names the
branches there are.
"""

from __future__ import annotations

from pathlib import Path

from kistore.cli import main

from ..conftest import git


def test_verify_in_a_bare_remote_with_an_unborn_head_names_the_branches(runner, published,
                                                                        tmp_path: Path):
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "master", str(remote))
    git(published, "push", "-q", str(remote), "HEAD:refs/heads/main")
    result = runner.invoke(main, ["--store", str(remote), "verify"])
    assert result.exit_code != 0
    assert result.stderr == (
        "error: HEAD names the branch 'master', which has no commit yet (an unborn branch: "
        "a `git init --bare` without `-b main` makes one); the branches here are main: give "
        "one (`--at main`), or point HEAD at it (`git symbolic-ref HEAD refs/heads/main`)\n")
    # the advice works
    assert runner.invoke(main, ["--store", str(remote), "verify", "--at", "main"]
                         ).exit_code == 0
    git(remote, "symbolic-ref", "HEAD", "refs/heads/main")
    assert runner.invoke(main, ["--store", str(remote), "verify"]).exit_code == 0


def test_another_revision_that_names_no_commit_keeps_its_message(runner, published):
    result = runner.invoke(main, ["--store", str(published), "verify", "--at", "nope"])
    assert result.exit_code != 0
    assert "no commit named 'nope' in this repository" in result.stderr
