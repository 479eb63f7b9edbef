"""The rebase start is found only when a fix names the rebase, once; a bad remote ref is left out.

mend02 item 1: the gate found :func:`kistore.check.reach.rebase_start` (which reads every
remote's main) for every range, though only a fix naming ``git rebase`` uses it: a clean
range now never looks, a range with many such fixes looks once.

mend02 item 2: a damaged ``refs/remotes/R/main`` (a commit that is missing, or whose
loose file is garbage) stopped ``kistore check A..B`` with "cannot be read" through that
look-up, a range that does not involve that remote too. The remote is now left out of the
rebase start, and each fix naming the rebase says so and how to set the ref again.
"""

from __future__ import annotations

import zlib
from pathlib import Path

import pytest
from click.testing import CliRunner

from kistore.check import gate
from kistore.cli import main as cli
from kistore.store import Store

from ..conftest import git
from .test_fork_rebase_base import REBASE, _fork_clone, bump

MISSING = "0123456789abcdef0123456789abcdef01234567"


@pytest.fixture
def counted(monkeypatch):
    """Count the gate's calls of ``rebase_start``; the list holds one entry a call."""
    calls: list[tuple[str, str]] = []
    real = gate.rebase_start

    def counting(repo, base, head, *rest):
        calls.append((base, head))
        return real(repo, base, head, *rest)

    monkeypatch.setattr(gate, "rebase_start", counting)
    return calls


def _edit_two(path: Path) -> str:
    """Commit, on the branch checked out, an edit of two stored objects; return its id."""
    for obj in sorted((path / "store" / "objects").rglob("*.json"))[:2]:
        bump(obj)
    git(path, "commit", "-q", "--no-verify", "-am", "edit two objects")
    return git(path, "rev-parse", "HEAD").strip()


def test_a_clean_range_never_looks_and_two_rebase_fixes_look_once(published, counted):
    stale, upstream, _ = _fork_clone(published)
    git(published, "checkout", "-q", "-b", "clean", upstream)
    git(published, "commit", "-q", "--allow-empty", "-m", "nothing stored")
    assert gate.check_range(Store(published), f"{stale}..clean") == []
    assert counted == []  # BASE: one look, for nothing
    two = _edit_two(published)
    found = gate.check_range(Store(published), f"{stale}..{two}")
    rebases = [f for f in found if f.fix and REBASE.search(f.fix)]
    assert len(rebases) >= 2  # the KI101 of each object (and KI401 of each)
    assert {REBASE.search(f.fix or "").group(1) for f in rebases} == {upstream}
    assert counted == [(stale, two)]


def _damage(path: Path, how: str) -> None:
    """Make ``refs/remotes/origin/main`` name a commit that is missing or unreadable."""
    ref = path / ".git" / "refs" / "remotes" / "origin" / "main"
    ref.write_text(MISSING + "\n")
    if how == "unreadable":  # a loose file for that id holding no object
        loose = path / ".git" / "objects" / MISSING[:2] / MISSING[2:]
        loose.parent.mkdir(exist_ok=True)
        loose.write_bytes(zlib.compress(b"commit 999\0cut short"))


@pytest.mark.parametrize("how", ["missing", "unreadable"])
def test_a_bad_remote_main_is_left_out_of_the_rebase_start(published, how):
    stale, upstream, bad = _fork_clone(published)
    git(published, "checkout", "-q", "-b", "clean", upstream)
    git(published, "commit", "-q", "--allow-empty", "-m", "nothing stored")
    _damage(published, how)
    # a range not involving origin: judged (BASE: stopped, "cannot be read")
    said = CliRunner().invoke(cli, ["--store", str(published), "check", f"{upstream}..clean"])
    assert said.exit_code == 0, said.output
    assert said.output == f"ok: {upstream}..clean: 0 errors, 0 warnings, 0 info\n"
    # a range whose fixes name the rebase: upstream's main still counts, origin's is said
    found = gate.check_range(Store(published), f"{stale}..{bad}")
    fixes = [f.fix for f in found if f.fix and REBASE.search(f.fix)]
    assert fixes and all(REBASE.findall(fix) == [upstream] for fix in fixes)
    note = (f" (the rebase starts at {upstream[:12]} without refs/remotes/origin/main, which "
            "cannot be read: commits that remote's main holds are not known here, and may be "
            "among those the rebase rewrites; `git update-ref -d refs/remotes/origin/main`, "
            "then `git fetch origin` sets it again, then check again)")
    assert all(fix.endswith(note) for fix in fixes)
    assert [f.rule.id for f in found if note in (f.fix or "")] == [
        f.rule.id for f in found if f"git rebase -i {upstream}`" in (f.fix or "")]
