"""Where git looks for a user's configuration (kistore.git.config_files)."""

from pathlib import Path

from kistore.git.config_files import user_config_files, xdg_config_home


def test_xdg_unset_or_empty_is_dot_config(monkeypatch, tmp_path):
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    assert xdg_config_home() == tmp_path / ".config"
    monkeypatch.setenv("XDG_CONFIG_HOME", "")  # git treats an empty value as unset
    assert xdg_config_home() == tmp_path / ".config"


def test_global_files_in_git_order_without_repeats(monkeypatch, tmp_path):
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.delenv("GIT_CONFIG_GLOBAL", raising=False)
    assert user_config_files() == [tmp_path / ".gitconfig", tmp_path / ".config/git/config"]
    monkeypatch.setenv("XDG_CONFIG_HOME", "/x")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", "/g/config")
    assert user_config_files() == [Path("/g/config"), tmp_path / ".gitconfig",
                                   Path("/x/git/config"), tmp_path / ".config/git/config"]


def test_remotes_and_their_fetch_refspecs_are_read_from_the_repository_config(tmp_path):
    import pytest

    from kistore.git.config_files import remotes
    from kistore.git.refs import RefsUnreadable

    git_dir = tmp_path / ".git"
    git_dir.mkdir()
    assert remotes(git_dir) == {}  # no config file
    (git_dir / "config").write_text(
        '[core]\n\tbare = false\n[remote "upstream"]\n\turl = /u\n'
        '  [Remote "we\\"ird\\\\"] fetch = +refs/*:refs/*\n[remote "origin"]\n\turl = /o\n'
        '\tfetch = +refs/heads/*:refs/remotes/origin/*\n[remote "origin"]\n'
        '\tFetch = "+refs/notes/kistore:refs/notes/kistore" # and notes\n'
        '[branch "remote \\"x\\""]\n\tfetch = no\n')
    assert remotes(git_dir) == {  # names as `git remote` lists them for this file
        "origin": ["+refs/heads/*:refs/remotes/origin/*", "+refs/notes/kistore:refs/notes/kistore"],
        "upstream": [], 'we"ird\\': ["+refs/*:refs/*"]}
    (git_dir / "config").write_text("[remote.origin]\n\turl = /o\n")  # git's old spelling
    with pytest.raises(RefsUnreadable, match=r"\[remote.NAME\]"):
        remotes(git_dir)
