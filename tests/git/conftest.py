"""Fixtures of the git layer's tests."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pygit2
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


def commit_writes_failing(monkeypatch, times: int, blocker: str = "vanished"
                          ) -> list[tuple[str, bool]]:
    """Make the next ``times`` ``Repository.create_commit`` calls fail to write their commit.

    The race, made deterministic: git's ``prune-packed`` removing the commit's fan-out
    directory between libgit2's ``mkdir`` and its rename. For the call, that directory is a
    symlink to nothing (``blocker="vanished"``: libgit2's ``mkdir`` finds it, its ``stat``
    says "No such file or directory", the race's error) or an empty regular file
    (``"file"``: "directory exists", another failure); objects already in the directory
    are set aside meanwhile and put back after. libgit2 itself is called, and returns.

    Returns:
        For each failed call: the id libgit2 returned, and whether that object was on disk
        right after the call (it never was: libgit2 returns the id of an unwritten commit).
    """
    real = pygit2.Repository.create_commit
    failed: list[tuple[str, bool]] = []

    def create_commit(self, update_ref, author, committer, message, tree, parents):
        if len(failed) >= times:
            return real(self, update_ref, author, committer, message, tree, parents)
        body = self.create_commit_string(author, committer, message, tree, parents).encode()
        oid = hashlib.sha1(b"commit %d\0" % len(body) + body).hexdigest()
        fan_out = Path(self.path) / "objects" / oid[:2]
        aside = fan_out.with_name(f"{oid[:2]}.aside")
        if fan_out.exists():
            fan_out.rename(aside)
        if blocker == "vanished":
            fan_out.symlink_to(f"{oid[:2]}.gone")
        else:
            fan_out.write_bytes(b"")
        try:
            got = real(self, update_ref, author, committer, message, tree, parents)
        finally:
            fan_out.unlink()
            if aside.exists():
                aside.rename(fan_out)
        failed.append((str(got), (fan_out / oid[2:]).exists()))
        return got

    monkeypatch.setattr(pygit2.Repository, "create_commit", create_commit)
    return failed
