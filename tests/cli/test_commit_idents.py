"""``add --commit`` and notes commits are by the author and committer git names (fresh10 MED 1).

First (fresh08 L6): ``GIT_AUTHOR_NAME=Contributor kistore add --commit`` committed as
``user.name`` (libgit2's default signature). Then kistore read libgit2's configuration
itself: ``~/.gitconfig`` where git reads ``GIT_CONFIG_GLOBAL``'s file, none of
``GIT_CONFIG_SYSTEM``/``GIT_CONFIG_NOSYSTEM``, ``GIT_CONFIG_COUNT``, ``git -c``
(``GIT_CONFIG_PARAMETERS``), ``user.useConfigOnly``, and where it found no name committed as
``kistore <kistore@localhost>``: a commit authored by the wrong person. Now git is asked
(``git var GIT_AUTHOR_IDENT``/``GIT_COMMITTER_IDENT``), and where it refuses, so does
kistore, before anything is written. The dates stay this machine's clock (KI438).
"""

from __future__ import annotations

import os
import subprocess
import time

import pygit2
import pytest

from kistore.attest import signing
from kistore.cli import main

from ..conftest import BUNDLE, fixed_key, git, snapshot
from .test_attestation_cli import RUN_REF

IDENTITY = ("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL",
            "EMAIL", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_CONFIG_COUNT",
            "GIT_CONFIG_PARAMETERS", "XDG_CONFIG_HOME")
"""The variables git reads an identity or a configuration from (the tests' conftest sets
the first four)."""

REFUSED = ("; set one as for `git commit`: `git config user.name \"Your Name\"` and "
           "`git config user.email you@example.com` (--global: for every repository), or "
           "GIT_AUTHOR_NAME and GIT_AUTHOR_EMAIL, then run the command again; no commit was "
           "written\n")
"""The end of the refusal where git names no author."""


@pytest.fixture
def home(store_path, monkeypatch, tmp_path):
    """A store whose configurations name nobody: a fresh HOME, no identity variable set.

    HOME's ``.gitconfig`` is where libgit2 looks too (its search path is set at start-up
    from HOME: set here as a new process would). The system's is off (conftest).
    """
    for name in IDENTITY:
        monkeypatch.delenv(name, raising=False)
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    levels = (pygit2.enums.ConfigLevel.GLOBAL, pygit2.enums.ConfigLevel.XDG)
    was = {level: pygit2.settings.search_path[level] for level in levels}
    pygit2.settings.search_path[levels[0]] = str(home)
    pygit2.settings.search_path[levels[1]] = str(home / ".config" / "git")
    yield store_path
    for level, path in was.items():
        pygit2.settings.search_path[level] = path


@pytest.fixture
def configured(home):
    """:func:`home`'s store, its own configuration naming ``t <t@example.org>``."""
    git(home, "config", "user.name", "t")
    git(home, "config", "user.email", "t@example.org")
    return home


def user(path, name: str, more: str = "") -> str:
    """Write a git configuration file naming ``name <name@example.org>`` (then ``more``)."""
    path.write_text(f"[user]\n\tname = {name}\n\temail = {name.lower()}@example.org\n{more}")
    return str(path)


def added(runner, store_path, **env: str | None) -> str:
    """``add --commit`` the published record under ``env``; return HEAD's author, committer."""
    result = runner.invoke(main, ["--store", str(store_path), "add", "--allow-dangling",
                                  "--commit", str(BUNDLE)], env=env)
    assert result.exit_code == 0, result.output
    return git(store_path, "log", "-1", "--format=%an <%ae>|%cn <%ce>").strip()


def state(path) -> tuple:
    """The work tree's files, every ref and every file of the object database."""
    objects = path / ".git" / "objects"
    return (snapshot(path), git(path, "for-each-ref"), git(path, "rev-parse", "HEAD"),
            sorted(str(p.relative_to(objects)) for p in objects.rglob("*") if p.is_file()))


def test_the_environment_names_the_author_and_committer_as_git_s_does(runner, configured):
    assert added(runner, configured, GIT_AUTHOR_NAME="Contributor",
                 GIT_AUTHOR_EMAIL="c@example.org", GIT_COMMITTER_NAME="Cm") == (
        "Contributor <c@example.org>|Cm <t@example.org>")  # before: t <t@example.org>, twice


def test_author_and_committer_keys_come_before_user_s(runner, configured):
    git(configured, "config", "author.name", "Au")
    git(configured, "config", "committer.email", "cm@example.org")
    assert added(runner, configured) == "Au <t@example.org>|t <cm@example.org>"


def test_email_is_read_last(runner, configured):
    git(configured, "config", "--unset", "user.email")
    assert added(runner, configured, EMAIL="e@example.org") == (
        "t <e@example.org>|t <e@example.org>")


def test_the_dates_are_this_machine_s_clock_not_git_s_variables(runner, configured):
    before = int(time.time())
    added(runner, configured, GIT_AUTHOR_DATE="2020-01-01T00:00:00Z",
          GIT_COMMITTER_DATE="2020-01-01T00:00:00Z")
    dates = [int(d) for d in git(configured, "log", "-1", "--format=%at %ct").split()]
    assert all(before <= d <= time.time() for d in dates), dates


def test_a_malformed_date_variable_is_ignored_not_refused(runner, configured):
    # `git var` refuses "invalid date format: soon": kistore does not give it the dates
    assert added(runner, configured, GIT_AUTHOR_DATE="soon", GIT_COMMITTER_DATE="soon") == (
        "t <t@example.org>|t <t@example.org>")


def test_git_config_global_names_them_not_home_s_gitconfig(runner, home, tmp_path):
    user(home.parent / "home" / ".gitconfig", "Y")
    assert added(runner, home, GIT_CONFIG_GLOBAL=user(tmp_path / "x.config", "X")) == (
        "X <x@example.org>|X <x@example.org>")  # before: Y <y@example.org>, twice


def test_home_s_gitconfig_counts_where_git_reads_it(runner, home):
    user(home.parent / "home" / ".gitconfig", "Y")
    assert added(runner, home) == "Y <y@example.org>|Y <y@example.org>"


def test_git_config_count_names_them_before_the_repository_s(runner, configured):
    assert added(runner, configured, GIT_CONFIG_COUNT="1", GIT_CONFIG_KEY_0="user.name",
                 GIT_CONFIG_VALUE_0="Z") == (
        "Z <t@example.org>|Z <t@example.org>")  # before: t <t@example.org>, twice


def test_git_dash_c_names_them(runner, configured):
    # `git -c user.name=P kistore-alias ...`: what git gives its children
    assert added(runner, configured, GIT_CONFIG_PARAMETERS="'user.name'='P'") == (
        "P <t@example.org>|P <t@example.org>")


def test_the_system_s_configuration_counts_unless_git_config_nosystem(runner, home, tmp_path):
    system = user(tmp_path / "system.config", "S")
    assert added(runner, home, GIT_CONFIG_SYSTEM=system, GIT_CONFIG_NOSYSTEM=None) == (
        "S <s@example.org>|S <s@example.org>")  # before: kistore <kistore@localhost>
    git(home, "rm", "-rq", "store")
    git(home, "-c", "user.name=r", "-c", "user.email=r@example.org", "commit", "-qm", "again")
    assert added(runner, home, GIT_CONFIG_SYSTEM=system, GIT_CONFIG_NOSYSTEM="1",
                 GIT_CONFIG_GLOBAL=user(tmp_path / "g.config", "G")) == (
        "G <g@example.org>|G <g@example.org>")


def test_an_included_file_names_them(runner, home, tmp_path):
    included = user(tmp_path / "included.config", "I")
    top = tmp_path / "top.config"
    top.write_text(f"[include]\n\tpath = {included}\n")
    assert added(runner, home, GIT_CONFIG_GLOBAL=str(top)) == (
        "I <i@example.org>|I <i@example.org>")


def refused(runner, store_path, **env: str) -> tuple[int, str, str]:
    """``add --commit`` under ``env``, checked to leave files, refs and objects as they were.

    Returns:
        Its exit code, stdout and stderr.
    """
    before = state(store_path)
    result = runner.invoke(main, ["--store", str(store_path), "add", "--allow-dangling",
                                  "--commit", str(BUNDLE)], env=env)
    assert state(store_path) == before
    assert git(store_path, "status", "--porcelain") == ""
    return result.exit_code, result.stdout, result.stderr


def test_use_config_only_with_no_identity_is_refused_before_anything_is_written(
        runner, home):
    git(home, "config", "user.useConfigOnly", "true")
    # before: exit 0, committed by kistore <kistore@localhost>
    assert refused(runner, home) == (1, "", (
        "error: git names no author for a commit here (`git var GIT_AUTHOR_IDENT`: Author "
        "identity unknown: no email was given and auto-detection is disabled)" + REFUSED))


def test_an_empty_name_is_refused_before_any_file_is_written(runner, configured):
    assert refused(runner, configured, GIT_AUTHOR_NAME="") == (1, "", (
        "error: git names no author for a commit here (`git var GIT_AUTHOR_IDENT`: empty "
        "ident name (for <t@example.org>) not allowed)" + REFUSED))


def test_an_empty_email_libgit2_cannot_write_is_refused(runner, configured):
    assert refused(runner, configured, GIT_COMMITTER_EMAIL="") == (1, "", (
        "error: git names the committer 't' with an empty email (`git var "
        "GIT_COMMITTER_IDENT`), which a commit kistore writes (by libgit2) cannot hold; set "
        "GIT_COMMITTER_EMAIL or `git config user.email you@example.com`, then run the command "
        "again; no commit was written\n"))


@pytest.fixture
def key_file(tmp_path):
    """A private signing key's file."""
    path = tmp_path / "k"
    path.write_bytes(signing.private_key_bytes(fixed_key(1)))
    return path


def attested(runner, store_path, key_file, **env: str | None):
    """``attest`` a reproduction of the published run as a note under ``env``."""
    return runner.invoke(main, ["--store", str(store_path), "attest", RUN_REF, "--type",
                                "reproduction", "--key", str(key_file)], env=env)


def test_attest_s_notes_commit_is_by_whom_git_names(runner, record_store, home, key_file,
                                                   tmp_path):
    user(home.parent / "home" / ".gitconfig", "Y")
    result = attested(runner, home, key_file, GIT_CONFIG_GLOBAL=user(tmp_path / "x.config", "X"))
    assert result.exit_code == 0, result.output
    assert git(home, "log", "-1", "--format=%an <%ae>|%cn <%ce>", "refs/notes/kistore"
               ).strip() == "X <x@example.org>|X <x@example.org>"  # before: Y, twice


def test_attest_is_refused_before_anything_is_written_where_git_names_nobody(
        runner, record_store, home, key_file):
    git(home, "config", "user.useConfigOnly", "true")
    before = state(home)
    result = attested(runner, home, key_file)
    # before: exit 0, the notes commit by kistore <kistore@localhost>
    assert (result.exit_code, result.stdout, result.stderr) == (1, "", (
        "error: git names no author for a commit here (`git var GIT_AUTHOR_IDENT`: Author "
        "identity unknown: no email was given and auto-detection is disabled)" + REFUSED))
    assert state(home) == before


def test_init_refuses_where_git_names_nobody_and_leaves_nothing(runner, home, tmp_path):
    where = tmp_path / "new"
    config = tmp_path / "global.config"
    config.write_text("[user]\n\tuseConfigOnly = true\n")
    result = runner.invoke(main, ["init", str(where)], env={"GIT_CONFIG_GLOBAL": str(config)})
    # before: exit 0, its first commit by kistore <kistore@localhost>
    assert (result.exit_code, result.stdout, result.stderr) == (1, "", (
        "error: git names no author for a commit here (`git var GIT_AUTHOR_IDENT`: Author "
        "identity unknown: no email was given and auto-detection is disabled)" + REFUSED))
    assert not where.exists()  # fresh12 F3: the directory init made was left, empty


@pytest.mark.parametrize("made", ["a/b/new", "existing", "existing/new"])
def test_init_refused_removes_only_the_directories_it_made(runner, home, tmp_path, made):
    # fresh12 F3: `kistore init DIR` left DIR (and the parents it made) behind
    (tmp_path / "existing").mkdir()
    (tmp_path / "existing" / "kept").write_text("mine\n")
    config = tmp_path / "global.config"
    config.write_text("[user]\n\tuseConfigOnly = true\n")
    before = sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*"))
    result = runner.invoke(main, ["init", str(tmp_path / made)],
                           env={"GIT_CONFIG_GLOBAL": str(config)})
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr.startswith("error: git names no author for a commit here")
    assert sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*")) == before


def test_git_not_installed_is_said(home, monkeypatch, tmp_path):
    from kistore.core.errors import StoreStateError
    from kistore.git.idents import identities

    monkeypatch.setenv("PATH", str(tmp_path))  # no git there
    with pytest.raises(StoreStateError) as raised:
        identities(pygit2.Repository(str(home)))
    assert str(raised.value) == (
        "git could not be run (No such file or directory) to name the author and committer "
        "of the commit (kistore takes them from `git var GIT_AUTHOR_IDENT` and `git var "
        "GIT_COMMITTER_IDENT`); install git, then run the command again; no commit was written")


def test_a_file_attestation_needs_no_identity_and_notes_sync_refuses_before_a_write(
        runner, record_store, home, key_file):
    git(home, "config", "user.useConfigOnly", "true")
    result = runner.invoke(main, ["--store", str(home), "attest", RUN_REF, "--type",
                                  "reproduction", "--key", str(key_file), "--file"])
    assert result.exit_code == 0, result.output  # a file: no commit, no identity asked
    before = state(home)
    result = runner.invoke(main, ["--store", str(home), "notes", "sync"])
    # before: exit 0, the note's commit by kistore <kistore@localhost>
    assert (result.exit_code, result.stdout, result.stderr) == (1, "", (
        "error: git names no author for a commit here (`git var GIT_AUTHOR_IDENT`: Author "
        "identity unknown: no email was given and auto-detection is disabled)" + REFUSED))
    assert state(home) == before


SPLIT = {"GIT_AUTHOR_NAME": "Alice", "GIT_AUTHOR_EMAIL": "alice@example.org",
         "GIT_COMMITTER_NAME": "Bob", "GIT_COMMITTER_EMAIL": "bob@example.org"}
"""An author and a committer who differ, as the environment names them."""

BOTH = "Alice <alice@example.org>|Bob <bob@example.org>"
"""What ``git notes add`` writes under :data:`SPLIT` (author, then committer)."""


def notes_by(path, rev: str = "refs/notes/kistore") -> str:
    """The author and committer of the notes commit ``rev``."""
    return git(path, "log", "-1", "--format=%an <%ae>|%cn <%ce>", rev).strip()


def test_attest_s_notes_commit_is_by_the_author_git_names_as_git_notes_add_s(
        runner, record_store, configured, key_file):
    # fresh12 F2: author = committer (Bob twice), yet an unusable author alone was refused
    result = attested(runner, configured, key_file, **SPLIT)
    assert result.exit_code == 0, result.output
    assert notes_by(configured) == BOTH
    subprocess.run(["git", "notes", "--ref", "t", "add", "-m", "x", "HEAD"], cwd=configured,
                   check=True, env={**os.environ, **SPLIT})
    assert notes_by(configured, "refs/notes/t") == BOTH  # git's own, the same


def test_notes_sync_s_notes_commit_is_by_the_author_git_names(runner, record_store,
                                                              configured, key_file):
    result = runner.invoke(main, ["--store", str(configured), "attest", RUN_REF, "--type",
                                  "reproduction", "--key", str(key_file), "--file"])
    assert result.exit_code == 0, result.output
    result = runner.invoke(main, ["--store", str(configured), "notes", "sync"], env=SPLIT)
    assert result.exit_code == 0, result.output
    assert notes_by(configured) == BOTH  # before: Bob twice


def test_the_notes_commits_a_fetch_restore_or_push_writes_are_by_the_author_git_names(
        runner, record_store, configured, key_file, monkeypatch):
    from kistore.attest import notes
    from kistore.attest.notes_dated import dated_at_push

    assert attested(runner, configured, key_file).exit_code == 0
    for name, value in SPLIT.items():
        monkeypatch.setenv(name, value)
    repo = pygit2.Repository(str(configured))
    tip = repo.references["refs/notes/kistore"].target
    note = next(iter(repo.notes("refs/notes/kistore")))
    scratch = "refs/kistore/notes-test"
    repo.references.create(scratch, tip)
    lines = set(note.message.encode().splitlines()) | {b"another"}
    notes._write_back(repo, scratch, {str(note.annotated_id): lines}, "test")  # fetch, restore
    assert notes_by(configured, scratch) == BOTH  # before: Bob twice

    old = subprocess.run(  # a notes commit dated 3 minutes ago: a push makes it again
        ["git", "commit-tree", "-m", "old", f"{tip}^{{tree}}"], cwd=configured, check=True,
        capture_output=True, text=True,
        env={**os.environ, "GIT_COMMITTER_DATE": f"@{int(time.time()) - 180} +0000"}
    ).stdout.strip()
    again = dated_at_push(repo, old, None, "origin")
    assert str(again) != old
    assert notes_by(configured, str(again)) == BOTH  # before: Bob twice
