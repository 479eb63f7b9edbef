"""git/ignored.ignored_paths asks git itself, so configuration from the environment counts.

Reviewer r84 F3: the ignore check of ``kistore add`` (KI119) asked libgit2, which reads no
configuration given through the environment (``GIT_CONFIG_COUNT``/``KEY_n``/``VALUE_n``,
``GIT_CONFIG_PARAMETERS``, ``GIT_CONFIG_GLOBAL``): a ``core.excludesFile`` set that way
ignored a store file for ``git add store`` while ``kistore add`` wrote it without a word.
"""

from __future__ import annotations

import json
import subprocess

import pytest

from kistore.cli import main
from kistore.core.model import Manifest
from kistore.git import ignored
from kistore.git.ignored import IgnoreMatch, ignored_paths

PATHS = ["store/objects/sha256/ab/" + "ab" * 32 + ".json", "store/names/Workload/ab/w"]


@pytest.fixture
def clean_env(tmp_path, no_git_config):
    """No rule source but an excludes file (returned) no configuration names yet."""
    excludes = tmp_path / "excludes"
    excludes.write_text("# mine\n*.json\n")
    return excludes


@pytest.fixture
def repo(tmp_path, clean_env):
    root = tmp_path / "r"
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


def by_count(monkeypatch, excludes):
    monkeypatch.setenv("GIT_CONFIG_COUNT", "1")
    monkeypatch.setenv("GIT_CONFIG_KEY_0", "core.excludesFile")
    monkeypatch.setenv("GIT_CONFIG_VALUE_0", str(excludes))


def test_an_excludes_file_from_git_config_count_is_honoured(repo, clean_env, monkeypatch):
    assert ignored_paths(repo, PATHS) == []
    by_count(monkeypatch, clean_env)
    assert ignored_paths(repo, PATHS) == [IgnoreMatch(PATHS[0], str(clean_env), 2, "*.json")]
    assert ignored_paths(repo, PATHS)[0].rule() == f"{clean_env}:2: *.json"


def test_an_excludes_file_from_git_config_parameters_or_global_is_honoured(
        repo, clean_env, tmp_path, monkeypatch):
    monkeypatch.setenv("GIT_CONFIG_PARAMETERS", f"'core.excludesFile'='{clean_env}'")
    assert [m.path for m in ignored_paths(repo, PATHS)] == PATHS[:1]
    monkeypatch.delenv("GIT_CONFIG_PARAMETERS")
    config = tmp_path / "global-config"
    config.write_text(f"[core]\n\texcludesFile = {clean_env}\n")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(config))
    assert [m.path for m in ignored_paths(repo, PATHS)] == PATHS[:1]


def test_a_negated_last_match_is_not_ignored(repo):
    (repo / ".gitignore").write_text("*.json\n!" + PATHS[0].rpartition("/")[2] + "\nw\n")
    # git -v names the negation too; it ignores only the names file
    assert ignored_paths(repo, PATHS) == [IgnoreMatch(PATHS[1], ".gitignore", 3, "w")]


def test_a_file_under_an_ignored_directory_names_the_directory_rule(repo):
    (repo / ".gitignore").write_text("/store/objects/\n")
    assert ignored_paths(repo, PATHS) == [
        IgnoreMatch(PATHS[0], ".gitignore", 1, "/store/objects/")]


def test_add_refuses_a_store_file_git_config_count_ignores(store, bundle, runner, tmp_path,
                                                          clean_env, monkeypatch):
    source = tmp_path / "protocol.json"
    source.write_text(json.dumps(bundle["protocol"]))
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=store.root, capture_output=True,
                          text=True, check=True).stdout
    by_count(monkeypatch, clean_env)
    for flags in ([], ["--commit"]):
        result = runner.invoke(main, ["--store", str(store.root), "add", *flags,
                                      str(tmp_path / "protocol.json")])
        assert result.exit_code == 1, result.output
        text = " ".join(result.output.split())
        digest = Manifest.from_document(bundle["protocol"]).digest.hex
        assert (f"error: git ignores store/objects/sha256/{digest[:2]}/{digest[2:]}.json "
                f"(by {clean_env}:2: *.json), store/metadata/sha256/{digest[:2]}/"
                f"{digest[2:]}.json (by {clean_env}:2: *.json), which this add would "
                "write") in text
        assert "(KI119)" in text and "nothing was written" in text
        assert not (store.root / "store" / "objects" / "sha256" / digest[:2]).exists()
        assert subprocess.run(["git", "rev-parse", "HEAD"], cwd=store.root,
                              capture_output=True, text=True).stdout == head


def test_a_plain_add_with_no_rule_source_starts_no_git(store, bundle, clean_env, monkeypatch):
    def no_git(*args, **kwargs):
        raise AssertionError(f"git was started: {args}")

    monkeypatch.setattr(ignored.subprocess, "run", no_git)
    [result] = store.add([Manifest.from_document(bundle["protocol"])])
    assert result.status == "added"


def test_git_missing_is_said_not_taken_for_nothing_ignored(repo, monkeypatch):
    from kistore.core.errors import StoreStateError

    monkeypatch.setenv("PATH", str(repo))  # no git there
    with pytest.raises(StoreStateError, match=r"^git could not be run \(No such file or "
                       r"directory\) to ask which files it ignores \(KI119\); install git, "
                       "then add again; nothing was written$"):
        ignored_paths(repo, PATHS)
