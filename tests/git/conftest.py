"""Fixtures of the git layer's tests."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def no_git_config(tmp_path, monkeypatch) -> Path:
    """No git configuration or ignore rule but what a test writes: an empty home (returned),
    no ``GIT_CONFIG_*`` variable, no system file."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    for name in ("GIT_CONFIG_COUNT", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_GLOBAL",
                 "GIT_CONFIG_SYSTEM"):
        monkeypatch.delenv(name, raising=False)
    return home
