"""git/ignored.may_ignore: git is asked only when a rule git reads could exist."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from kistore.git.ignored import ignored_paths, may_ignore

PATHS = ["store/objects/sha256/ab/" + "ab" * 32 + ".json"]


@pytest.fixture
def repo(tmp_path, no_git_config):
    root = tmp_path / "r"
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / ".git" / "info").mkdir(exist_ok=True)
    (root / ".git" / "info" / "exclude").write_text("# comments only\n\n")
    return root


def asks(root: Path) -> bool:
    return may_ignore(root, root / ".git", root / ".git", PATHS)


def test_no_source_of_rules_asks_nothing(repo):
    if Path("/etc/gitconfig").exists() and b"exclude" in Path("/etc/gitconfig").read_bytes():
        pytest.skip("this machine's /etc/gitconfig names an excludes file")
    assert asks(repo) is False


@pytest.mark.parametrize("where", [".gitignore", "store/.gitignore",
                                   "store/objects/sha256/ab/.gitignore"])
def test_a_gitignore_on_the_way_asks_git(repo, where):
    (repo / where).parent.mkdir(parents=True, exist_ok=True)
    (repo / where).write_text("*.json\n")
    assert asks(repo) is True
    assert [m.path for m in ignored_paths(repo, PATHS)] == PATHS


def test_rules_that_reach_no_store_path_ask_nothing(repo):
    # this repository's own kind of .gitignore: anchored lines outside store/, negations
    (repo / ".gitignore").write_text("/.venv/\n/build/\n!store/\n# *.json\n")
    (repo / ".git" / "info" / "exclude").write_text("/dist/\n")
    if Path("/etc/gitconfig").exists() and b"exclude" in Path("/etc/gitconfig").read_bytes():
        pytest.skip("this machine's /etc/gitconfig names an excludes file")
    assert asks(repo) is False
    (repo / ".gitignore").write_text("/.venv/\nsha256/\n")  # reaches store/objects/sha256/
    assert asks(repo) is True


def test_a_gitignore_elsewhere_does_not(repo):
    (repo / "docs").mkdir()
    (repo / "docs" / ".gitignore").write_text("*.json\n")
    if Path("/etc/gitconfig").exists() and b"exclude" in Path("/etc/gitconfig").read_bytes():
        pytest.skip("this machine's /etc/gitconfig names an excludes file")
    assert asks(repo) is False


def test_exclude_global_ignore_and_config_ask_git(repo, monkeypatch):
    (repo / ".git" / "info" / "exclude").write_text("# c\nstore/\n")
    assert asks(repo) is True
    (repo / ".git" / "info" / "exclude").write_text("")
    ignore = Path.home() / ".config" / "git" / "ignore"
    ignore.parent.mkdir(parents=True)
    ignore.write_text("*.json\n")
    assert asks(repo) is True
    ignore.unlink()
    subprocess.run(["git", "-C", str(repo), "config", "core.excludesFile", "/x"], check=True)
    assert asks(repo) is True
    subprocess.run(["git", "-C", str(repo), "config", "--unset", "core.excludesFile"],
                   check=True)
    monkeypatch.setenv("GIT_CONFIG_COUNT", "1")
    assert asks(repo) is True
