"""``add --commit`` names its author and committer as ``git commit`` does (fresh08 L6).

``GIT_AUTHOR_NAME=Contributor GIT_AUTHOR_EMAIL=c@example.org GIT_COMMITTER_NAME=Cm kistore
add --commit ...`` committed as ``user.name``/``user.email`` (libgit2's default signature):
a CI bot naming the contributor saw its own name. git takes each name and email from the
environment, then ``author.*``/``committer.*``, then ``user.*`` (and an email from
``EMAIL``). The dates stay this machine's clock: ``GIT_*_DATE`` are ignored (KI438).
"""

from __future__ import annotations

import time

import pygit2
import pytest

from kistore.cli import main

from ..conftest import BUNDLE, git, snapshot

IDENTITY = ("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL",
            "EMAIL")
"""The variables git reads an identity from (the tests' conftest sets the first four)."""


@pytest.fixture
def configured(store_path, monkeypatch, tmp_path):
    """A store whose git configuration names ``t <t@example.org>``, no identity variable set.

    The user's own configuration (``~/.gitconfig``, which may name an email) is not read.
    """
    for name in IDENTITY:
        monkeypatch.delenv(name, raising=False)
    levels = (pygit2.enums.ConfigLevel.GLOBAL, pygit2.enums.ConfigLevel.XDG)
    was = {level: pygit2.settings.search_path[level] for level in levels}
    for level in levels:
        pygit2.settings.search_path[level] = str(tmp_path)
    git(store_path, "config", "user.name", "t")
    git(store_path, "config", "user.email", "t@example.org")
    yield store_path
    for level, path in was.items():
        pygit2.settings.search_path[level] = path


def added(runner, store_path, **env: str | None) -> str:
    """``add --commit`` the published record under ``env``; return HEAD's author, committer."""
    result = runner.invoke(main, ["--store", str(store_path), "add", "--allow-dangling",
                                  "--commit", str(BUNDLE)], env=env)
    assert result.exit_code == 0, result.output
    return git(store_path, "log", "-1", "--format=%an <%ae>|%cn <%ce>").strip()


def test_the_environment_names_the_author_and_committer_as_git_s_does(runner, configured):
    assert added(runner, configured, GIT_AUTHOR_NAME="Contributor",
                 GIT_AUTHOR_EMAIL="c@example.org", GIT_COMMITTER_NAME="Cm") == (
        "Contributor <c@example.org>|Cm <t@example.org>")  # before: t <t@example.org>, twice


def test_author_and_committer_keys_come_before_user_s(runner, configured):
    git(configured, "config", "author.name", "Au")
    git(configured, "config", "committer.email", "cm@example.org")
    assert added(runner, configured) == "Au <t@example.org>|t <cm@example.org>"


def test_no_identity_anywhere_is_kistore_s_own_and_email_is_read_last(runner, configured):
    git(configured, "config", "--unset", "user.email")
    assert added(runner, configured, EMAIL="e@example.org") == (
        "t <e@example.org>|t <e@example.org>")
    git(configured, "rm", "-rq", "store")
    git(configured, "commit", "-qm", "again")
    git(configured, "config", "--unset", "user.name")
    assert added(runner, configured) == (
        "kistore <kistore@localhost>|kistore <kistore@localhost>")


def test_the_dates_are_this_machine_s_clock_not_git_s_variables(runner, configured):
    before = int(time.time())
    added(runner, configured, GIT_AUTHOR_DATE="2020-01-01T00:00:00Z",
          GIT_COMMITTER_DATE="2020-01-01T00:00:00Z")
    dates = [int(d) for d in git(configured, "log", "-1", "--format=%at %ct").split()]
    assert all(before <= d <= time.time() for d in dates), dates


def test_an_empty_name_is_refused_before_any_file_is_written(runner, configured):
    before = snapshot(configured)
    result = runner.invoke(main, ["--store", str(configured), "add", "--allow-dangling",
                                  "--commit", str(BUNDLE)], env={"GIT_AUTHOR_NAME": ""})
    assert (result.exit_code, result.stderr) == (1, (
        "error: $GIT_AUTHOR_NAME is '': a commit kistore writes (by libgit2) takes no empty "
        "name and none holding <, > or a line break; set it to a name, or unset it to take "
        "the next of git's sources (GIT_AUTHOR_*/GIT_COMMITTER_*, then author.*/committer.*, "
        "then user.name and user.email), then run the command again\n"))
    assert snapshot(configured) == before
    assert git(configured, "status", "--porcelain") == ""
