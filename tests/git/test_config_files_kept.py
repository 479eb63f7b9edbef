"""The config files git reads, found once a process and kept while unchanged (conf03).

:func:`kistore.git.config_files.config_files` is the one list of the files git reads for a
repository and an environment: the FIFO refusal before every git child
(:mod:`kistore.git.config_guard`), the remotes git names (:mod:`kistore.git.remotes`) and
``core.attributesFile``/``core.excludesFile`` (:mod:`kistore.git.attr_guard`) all come from
it. Found once per process and key, kept with each file's ``stat``: a file changed, made
or swapped for a FIFO between two calls is seen by the second, and N git children cost N
``stat`` of each file, not N readings. The files it finds are the ones ``git config --list
--show-origin`` lists, for each way of naming them.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from kistore.core.errors import StoreStateError
from kistore.git import attr_guard, config_files, remotes
from kistore.git.child import git_environment
from kistore.git.config_files import config_files as found_files
from kistore.git.config_guard import refuse_blocking_config, use_repository
from tests.conftest import git

_VARIABLES = ("GIT_CONFIG_SYSTEM", "GIT_CONFIG_NOSYSTEM", "GIT_CONFIG_GLOBAL",
              "XDG_CONFIG_HOME", "GIT_CONFIG_COUNT", "GIT_CONFIG_PARAMETERS", "GIT_DIR")


@pytest.fixture
def repository(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh repository's work tree, HOME beside it, no system file, nothing kept yet."""
    for name in _VARIABLES:
        monkeypatch.delenv(name, raising=False)
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setattr(config_files, "_FOUND", {})
    monkeypatch.setattr(config_files, "_KEPT", {})
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q")
    use_repository(root / ".git")
    return root


def _paths(root: Path) -> list[str]:
    """The files :func:`found_files` lists for ``root``'s repository."""
    return [os.fspath(f.path) for f in found_files(root / ".git").files]


def test_a_file_changed_between_two_calls_is_seen(repository, tmp_path):
    config = tmp_path / "home" / ".gitconfig"
    config.write_text("[user]\n\tname = A\n")
    first = found_files(repository / ".git")
    assert found_files(repository / ".git") is first  # kept: nothing changed
    config.write_text("[user]\n\tname = AB\n")  # its size changed
    second = found_files(repository / ".git")
    assert second is not first
    assert found_files(repository / ".git") is second
    stamp = os.stat(config)
    os.utime(config, ns=(stamp.st_atime_ns, stamp.st_mtime_ns + 1_000_000))  # mtime only
    third = found_files(repository / ".git")
    assert third is not second
    assert [f.stamp for f in third.files if f.path == config] == [
        (stamp.st_mode, stamp.st_mtime_ns + 1_000_000, stamp.st_size, stamp.st_ino,
         stamp.st_dev)]


def test_a_new_include_target_is_seen(repository, tmp_path):
    home = tmp_path / "home"
    config = home / ".gitconfig"
    config.write_text("[user]\n\tname = A\n")
    assert _paths(repository) == [
        f"{home}/.config/git/config", f"{home}/.gitconfig", f"{repository}/.git/config"]
    config.write_text("[user]\n\tname = A\n[include]\n\tpath = more\n")
    assert _paths(repository) == [
        f"{home}/.config/git/config", f"{home}/.gitconfig", f"{home}/more",
        f"{repository}/.git/config"]
    (home / "more").write_text(f"[include]\n\tpath = {tmp_path}/deeper\n")  # made: seen
    assert _paths(repository)[3] == f"{tmp_path}/deeper"


def test_a_fifo_swapped_in_is_refused_at_the_next_call(repository, tmp_path):
    config = tmp_path / "home" / ".gitconfig"
    config.write_text("[user]\n\tname = A\n")
    assert git_environment()["GIT_NO_REPLACE_OBJECTS"] == "1"
    config.unlink()
    os.mkfifo(config)
    with pytest.raises(StoreStateError) as refused:
        git_environment()
    assert (refused.value.file, refused.value.message) == (str(config), (
        "the global git config is a FIFO, not a regular file: git opens and reads it before "
        "anything else, and would wait for ever; no git command was run. Remove it "
        f"(`rm {config}`), then run the command again"))
    config.unlink()
    config.write_text("")
    refuse_blocking_config()  # a regular file again: let through


def _counting(monkeypatch: pytest.MonkeyPatch, watched: Callable[[], set[str]]
              ) -> tuple[list[str], list[str]]:
    """Count ``os.stat`` and ``Path.read_text`` calls on the files ``watched()`` names."""
    stats: list[str] = []
    reads: list[str] = []
    real_stat, real_read = os.stat, Path.read_text

    def counted_stat(path, *args, **kwargs):  # type: ignore[no-untyped-def]
        if os.fspath(path) in watched():
            stats.append(os.fspath(path))
        return real_stat(path, *args, **kwargs)

    def counted_read(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        if os.fspath(self) in watched():
            reads.append(os.fspath(self))
        return real_read(self, *args, **kwargs)

    monkeypatch.setattr(os, "stat", counted_stat)
    monkeypatch.setattr(Path, "read_text", counted_read)
    return stats, reads


def test_n_git_children_stat_each_config_file_once_each_and_read_it_once(
        repository, tmp_path, monkeypatch):
    home = tmp_path / "home"
    (home / ".gitconfig").write_text("[include]\n\tpath = more\n")
    (home / "more").write_text("[user]\n\tname = A\n")
    files = {f"{home}/.config/git/config", f"{home}/.gitconfig", f"{home}/more",
             f"{repository}/.git/config"}
    stats, reads = _counting(monkeypatch, lambda: files)
    children = 20
    for _ in range(children):
        subprocess.run(["git", "rev-parse", "--git-dir"], cwd=repository, check=True,
                       capture_output=True, env=git_environment())
    assert set(_paths(repository)) == files
    # found once (a stat each, the three regular files read once), then a stat each a call:
    # on the base each of the 20 calls stat'ed the four and read the three
    assert len(stats) == (children + 1) * len(files)  # the last: the _paths call
    assert sorted(reads) == sorted(files - {f"{home}/.config/git/config"})


def test_the_remotes_kept_see_a_change_of_an_included_file(repository, tmp_path):
    included = tmp_path / "remotes"
    included.write_text('[remote "one"]\n\turl = /srv/one.git\n')
    git(repository, "config", "include.path", str(included))
    git_dir = repository / ".git"
    assert remotes.configured(git_dir) == {"one": (["/srv/one.git"], [])}
    # on the base the included file was not in the cache's key: "two" went unseen
    included.write_text('[remote "one"]\n\turl = /srv/one.git\n[remote "two"]\n\turl = /t\n')
    assert remotes.configured(git_dir) == {"one": (["/srv/one.git"], []),
                                           "two": (["/t"], [])}


def test_core_attributes_file_is_asked_of_git_once_while_the_files_are_unchanged(
        repository, tmp_path, monkeypatch):
    import pygit2

    asked: list[list[str]] = []
    real_run = subprocess.run

    def counted_run(args, *rest, **kwargs):  # type: ignore[no-untyped-def]
        if "--show-origin" in args:
            asked.append(list(args))
        return real_run(args, *rest, **kwargs)

    monkeypatch.setattr(subprocess, "run", counted_run)
    repo = pygit2.Repository(str(repository))
    attributes = tmp_path / "attributes"
    assert attr_guard.blocking_attributes(repo) is None
    assert attr_guard.blocking_attributes(repo) is None
    assert len(asked) == 1  # on the base: one child each asking
    os.mkfifo(attributes)
    git(repository, "config", "core.attributesFile", str(attributes))  # .git/config changed
    found = attr_guard.blocking_attributes(repo)
    assert found is not None
    assert (found.path, found.kind, found.origin, found.setting) == (
        str(attributes), "a FIFO", "file:.git/config", "core.attributesFile")
    assert len(asked) == 2


def _listed(root: Path) -> list[str]:
    """The files ``git config --list --show-origin`` names, absolute, each once, in order."""
    done = subprocess.run(["git", "config", "--list", "--show-origin", "-z"], cwd=root,
                          check=True, capture_output=True, text=True)
    origins = done.stdout.split("\0")[0::2]
    return list(dict.fromkeys(os.path.abspath(os.path.join(root, origin[len("file:"):]))
                              for origin in origins if origin.startswith("file:")))


_ENVIRONMENTS: dict[str, Callable[[Path, Path], dict[str, str]]] = {
    "GIT_CONFIG_GLOBAL": lambda top, root: {
        "GIT_CONFIG_GLOBAL": _made(top / "g", "[a]\n\tb = 1\n")},
    "HOME only": lambda top, root: _home(top, "[a]\n\tb = 1\n"),
    "HOME and ~/.config/git/config": lambda top, root: {
        **_home(top, "[a]\n\tb = 1\n"),
        "unused": _made(top / "home" / ".config" / "git" / "config", "[a]\n\tc = 1\n")},
    "XDG_CONFIG_HOME": lambda top, root: {
        **_home(top, "[a]\n\tb = 1\n"), "XDG_CONFIG_HOME": str(top / "xdg"),
        "unused": _made(top / "xdg" / "git" / "config", "[a]\n\tc = 1\n")},
    "GIT_CONFIG_SYSTEM, GIT_CONFIG_NOSYSTEM unset": lambda top, root: {
        "GIT_CONFIG_NOSYSTEM": "", "GIT_CONFIG_SYSTEM": _made(top / "system", "[s]\n\tt = 1\n"),
        **_home(top, "[a]\n\tb = 1\n")},
    "GIT_CONFIG_NOSYSTEM with GIT_CONFIG_SYSTEM": lambda top, root: {
        "GIT_CONFIG_SYSTEM": _made(top / "system", "[s]\n\tt = 1\n"),
        **_home(top, "[a]\n\tb = 1\n")},
    "includes, relative and ~/, two deep": lambda top, root: {
        **_home(top, "[include]\n\tpath = one\n[a]\n\tb = 1\n"),
        "unused": _made(top / "home" / "one", '[include]\n\tpath = "~/two" ; note\n'),
        "unused2": _made(top / "home" / "two", "[x]\n\ty = 1\n")},
    "the repository's include": lambda top, root: {
        **_home(top, "[a]\n\tb = 1\n"),
        "unused": _made(root / ".git" / "config",
                        (root / ".git" / "config").read_text() + "[include]\n\tpath = inc\n"),
        "unused2": _made(root / ".git" / "inc", "[x]\n\ty = 1\n")},
    "includeIf gitdir, true and false": lambda top, root: {
        **_home(top, f'[includeIf "gitdir:{root}/"]\n\tpath = yes\n'
                     '[includeIf "gitdir:/nowhere/"]\n\tpath = no\n'
                     '[includeIf "gitdir:repo/.git"]\n\tpath = relative\n'
                     f'[includeIf "gitdir/i:{str(root).upper()}/.GIT"]\n\tpath = icase\n'
                     f'[includeIf "gitdir:{str(root).upper()}/.GIT"]\n\tpath = case\n'
                     '[includeIf "gitdir:**/re?o/.gi*"]\n\tpath = star\n'),
        **{name: _made(top / "home" / name, f"[x]\n\t{name} = 1\n")
           for name in ("yes", "no", "relative", "icase", "case", "star")}},
    "includeIf gitdir ./, of the includer's directory": lambda top, root: {
        "GIT_CONFIG_GLOBAL": _made(top / "g", '[includeIf "gitdir:./repo/"]\n\tpath = here\n'
                                              '[includeIf "gitdir:./home/"]\n\tpath = not\n'),
        "unused": _made(top / "here", "[x]\n\ty = 1\n"),
        "unused2": _made(top / "not", "[x]\n\ty = 1\n")},
    "includeIf onbranch, true and false": lambda top, root: {
        **_home(top, f'[includeIf "onbranch:{_branch(root)}"]\n\tpath = yes\n'
                     '[includeIf "onbranch:nope"]\n\tpath = no\n'
                     f'[includeIf "onbranch:{_branch(root)[:2]}*"]\n\tpath = star\n'
                     f'[includeIf "onbranch:{_branch(root)}/"]\n\tpath = dir\n'
                     '[includeIf "onbranch:**"]\n\tpath = all\n'),
        **{name: _made(top / "home" / name, f"[x]\n\t{name} = 1\n")
           for name in ("yes", "no", "star", "dir", "all")}},
    "includeIf onbranch of a branch in a folder": lambda top, root: {
        "unused": git(root, "checkout", "-q", "-b", "topic/x"),
        **_home(top, '[includeIf "onbranch:topic/"]\n\tpath = dir\n'
                     '[includeIf "onbranch:topic*"]\n\tpath = star\n'
                     '[includeIf "onbranch:*/x"]\n\tpath = leaf\n'
                     '[includeIf "onbranch:topic/x/"]\n\tpath = below\n'),
        **{name: _made(top / "home" / name, f"[x]\n\t{name} = 1\n")
           for name in ("dir", "star", "leaf", "below")}},
}


def _branch(root: Path) -> str:
    """The branch ``root``'s HEAD names (unborn in a fresh repository)."""
    return git(root, "symbolic-ref", "--short", "HEAD").strip()


def _made(path: Path, text: str) -> str:
    """Write ``text`` to ``path`` (its directories made) and return the path."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return str(path)


def _home(top: Path, text: str) -> dict[str, str]:
    """``~/.gitconfig`` holding ``text``, HOME naming its directory."""
    _made(top / "home" / ".gitconfig", text)
    return {"HOME": str(top / "home")}


@pytest.mark.parametrize("name", list(_ENVIRONMENTS))
def test_the_files_found_are_those_git_lists(repository, tmp_path, monkeypatch, name):
    monkeypatch.chdir(repository)
    for variable, value in _ENVIRONMENTS[name](tmp_path, repository).items():
        if variable.startswith("unused"):
            continue
        if value:
            monkeypatch.setenv(variable, value)
        else:
            monkeypatch.delenv(variable)
    found = found_files(repository / ".git").files
    assert [f for f in found if f.regular and f.read is None] == []  # each one judged
    assert [os.fspath(f.path) for f in found if f.regular and f.read] == _listed(repository)


def test_an_onbranch_include_is_judged_again_after_a_checkout(repository, tmp_path,
                                                            monkeypatch):
    # HEAD is no config file: its stamp is kept with the list (a checkout changes it)
    monkeypatch.chdir(repository)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    (repository / ".git" / "config").write_text(
        f'[includeIf "onbranch:other"]\n\tpath = {fifo}\n')
    assert found_files(repository / ".git").first_fifo() is None
    git(repository, "checkout", "-q", "-b", "other")
    assert found_files(repository / ".git").first_fifo().path == fifo
    with pytest.raises(StoreStateError, match="is a FIFO"):
        refuse_blocking_config(repository / ".git")
