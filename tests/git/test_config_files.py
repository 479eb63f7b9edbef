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
