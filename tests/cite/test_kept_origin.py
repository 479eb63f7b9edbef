"""The origin remote's URL kept for everything git reads to answer it (cite/_origin.py).

`git remote get-url origin` answers from the configuration files (system, user, the
repository's), rewritten by `url.<base>.insteadOf`. Its answer is kept under the exact
bytes of each file, the `GIT_*` variables and the `git` program; the first citation asks
as before (one `remote` child), the second also asks where git's system file is, the third
asks nothing. Any byte of any of those files changing, an include, or another `git` asks
again, and the permalink is git's new answer.
"""

from __future__ import annotations

import os

import pytest

from kistore.cite import citation
from kistore.cite.citation import cite
from kistore.store import Store

from ..conftest import BUNDLE
from .test_citation import GITHUB, RUN, RUN_PATH, add, commit_all, git, new_store

BASE = "https://github.com/kernelindex/kernelindex"


def children(monkeypatch) -> list[str]:
    """Record the git subcommand of every child the citation starts."""
    started: list[str] = []
    real = citation.subprocess.run

    def run(args, *rest, **kwargs):
        if "cwd" not in kwargs:  # not the tests' own git (test_citation.git)
            started.extend(a for a in args if a in ("log", "remote", "config"))
        return real(args, *rest, **kwargs)

    monkeypatch.setattr(citation.subprocess, "run", run)
    return started


@pytest.fixture
def cited(tmp_path, monkeypatch):
    """A committed store with an `origin` on GitHub; git's system and user files are
    files of this test (empty), so the test may change them."""
    system, user = tmp_path / "system.gitconfig", tmp_path / "user.gitconfig"
    system.write_text("")
    user.write_text("")
    monkeypatch.setenv("GIT_CONFIG_SYSTEM", str(system))
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(user))
    monkeypatch.delenv("GIT_CONFIG_NOSYSTEM", raising=False)
    path = new_store(tmp_path / "store")
    add(path, BUNDLE)
    c1 = commit_all(path, "add the record", day=1)
    assert (path / ".git" / "kistore").is_dir()
    return path, c1, system, user


def link(path, commit: str, base: str = BASE) -> str:
    return f"{base}/blob/{commit}/{RUN_PATH}"


def test_the_url_is_asked_as_before_then_kept(cited, monkeypatch):
    path, c1, _, _ = cited
    started = children(monkeypatch)
    assert cite(Store(path), RUN).permalink == link(path, c1)
    assert started == ["log", "remote"]  # the first citation: as before
    for _ in range(2):  # the system file is GIT_CONFIG_SYSTEM's: kept at once
        assert cite(Store(path), RUN).permalink == link(path, c1)
    assert started == ["log", "remote"]  # kept: no child at all


def test_the_system_file_is_asked_of_git_on_the_second_ask(cited, monkeypatch):
    path, c1, _, _ = cited
    monkeypatch.delenv("GIT_CONFIG_SYSTEM")  # git's own system file, wherever it was built
    started = children(monkeypatch)
    for _ in range(4):
        assert cite(Store(path), RUN).permalink == link(path, c1)
    # the first: as before; the second asks where the system file is, then the URL; kept
    assert started == ["log", "remote", "config", "remote"]


def test_a_changed_remote_url_is_asked_again(cited, monkeypatch):
    path, c1, _, _ = cited
    started = children(monkeypatch)
    for _ in range(2):
        cite(Store(path), RUN)
    git(path, "remote", "set-url", "origin", "git@gitlab.com:kernelindex/moved.git")
    moved = f"https://gitlab.com/kernelindex/moved/-/blob/{c1}/{RUN_PATH}"
    assert cite(Store(path), RUN).permalink == moved
    assert cite(Store(path), RUN).permalink == moved
    assert started == ["log", "remote", "remote"]
    git(path, "remote", "remove", "origin")
    for _ in range(2):
        assert "no `origin` remote" in citation.short_citation(Store(path), RUN)
    assert started == ["log", "remote", "remote", "remote"]


@pytest.mark.parametrize("which", ["system", "user"])
def test_an_instead_of_added_to_a_file_git_reads_is_asked_again(cited, monkeypatch, which):
    path, c1, system, user = cited
    started = children(monkeypatch)
    for _ in range(3):
        assert cite(Store(path), RUN).permalink == link(path, c1)
    assert started == ["log", "remote"]
    (system if which == "system" else user).write_text(
        '[url "https://code.example.org/mirror/"]\n'
        "\tinsteadOf = git@github.com:kernelindex/\n")
    rewritten = "https://code.example.org/mirror/kernelindex"
    assert git(path, "remote", "get-url", "origin") == GITHUB  # the tests' git reads neither
    with pytest.raises(citation.StoreStateError, match="not a known forge"):
        cite(Store(path), RUN)  # git's answer: the mirror, on no known forge
    assert started == ["log", "remote", "remote"]
    with pytest.raises(citation.StoreStateError, match="not a known forge"):
        cite(Store(path), RUN)
    assert started == ["log", "remote", "remote"]  # kept under the new bytes
    assert citation._origin_url_by_git(Store(path)) == rewritten + ".git"


def test_a_file_that_includes_another_is_never_kept(cited, monkeypatch, tmp_path):
    path, c1, _, user = cited
    included = tmp_path / "included.gitconfig"
    included.write_text("")
    user.write_text(f"[include]\n\tpath = {included}\n")
    started = children(monkeypatch)
    for _ in range(4):
        assert cite(Store(path), RUN).permalink == link(path, c1)
    assert started == ["log", "remote", "remote", "remote", "remote"]
    included.write_text('[url "https://elsewhere.example/"]\n'
                        "\tinsteadOf = git@github.com:\n")
    with pytest.raises(citation.StoreStateError, match="not a known forge"):
        cite(Store(path), RUN)


def test_another_git_program_is_asked_again(cited, monkeypatch, tmp_path):
    path, c1, _, _ = cited
    started = children(monkeypatch)
    for _ in range(3):
        cite(Store(path), RUN)
    assert started == ["log", "remote"]
    real = next(os.path.join(d, "git") for d in os.environ["PATH"].split(os.pathsep)
                if os.access(os.path.join(d, "git"), os.X_OK))
    other = tmp_path / "bin"
    other.mkdir()
    (other / "git").symlink_to(real)
    monkeypatch.setenv("PATH", f"{other}{os.pathsep}{os.environ['PATH']}")
    assert cite(Store(path), RUN).permalink == link(path, c1)
    assert started == ["log", "remote", "remote"]


def test_a_variable_pointing_git_at_another_repository_is_never_kept(cited, monkeypatch):
    path, _, _, _ = cited
    started = children(monkeypatch)
    for _ in range(3):
        cite(Store(path), RUN)
    monkeypatch.setenv("GIT_DIR", str(path / ".git"))
    for _ in range(2):
        cite(Store(path), RUN)
    assert started == ["log", "remote", "log", "remote", "log", "remote"]
