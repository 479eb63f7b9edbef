"""A fix's rebase keeps the merges of the branch it rebuilds (rb00's leftover, hist01).

A branch commits an edited object, then merges upstream's main (which moved meanwhile),
then commits again. The fix dropped the edit's commit with a plain ``git rebase -i START``,
which flattens the merge: upstream's commits are replayed (or left out) and the branch's
shape is lost. Where the commits the rebase rewrites hold a merge, the fix now says ``git
rebase -i --rebase-merges START``; run as printed, the merge is made again with upstream's
commits as they were, and the gate passes.
"""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from kistore.check import gate
from kistore.cli import main as cli
from kistore.store import Store

from ..conftest import git
from .test_fork_rebase_base import REBASE, edit_an_object, rebase_as_printed


def _merged_upstream_after(path: Path) -> tuple[str, str, str]:
    """BASE (upstream's main the branch left), the edit's commit, upstream's main now; the
    checked-out branch ``work``: edit, merge of upstream's main, one more commit."""
    base = git(path, "rev-parse", "HEAD").strip()
    git(path, "remote", "add", "upstream", str(path / "server.git"))  # refs set by hand
    git(path, "checkout", "-q", "-b", "work")
    bad = edit_an_object(path)
    git(path, "commit", "-q", "--allow-empty", "-m", "work: more")
    git(path, "checkout", "-q", "-b", "up", base)
    git(path, "commit", "-q", "--allow-empty", "-m", "upstream: later work")
    upstream = git(path, "rev-parse", "HEAD").strip()
    git(path, "update-ref", "refs/remotes/upstream/main", upstream)
    git(path, "checkout", "-q", "work")
    git(path, "merge", "-q", "--no-ff", "--no-edit", "up")
    git(path, "commit", "-q", "--allow-empty", "-m", "work: after the merge")
    return base, bad, upstream


def test_the_printed_rebase_keeps_the_merge_and_the_gate_passes_after(published):
    base, bad, upstream = _merged_upstream_after(published)
    found = gate.check_range(Store(published), f"{base}..HEAD")
    fixes = [f.fix for f in found if f.rule.id == "KI101"]
    assert fixes, [f.format() for f in found]
    assert all(REBASE.findall(fix) == [f"--rebase-merges {upstream}"] for fix in fixes)
    rebase_as_printed(published, fixes[0], [bad])
    # the merge made again, its second parent upstream's main as it was; the edit gone
    [merge] = git(published, "rev-list", "--merges", f"{base}..HEAD").split()
    assert git(published, "rev-parse", f"{merge}^2").strip() == upstream
    subjects = git(published, "log", "--format=%s", f"{base}..HEAD").splitlines()
    assert "edit an object" not in subjects
    assert {"work: more", "work: after the merge", "upstream: later work"} <= set(subjects)
    assert gate.check_range(Store(published), f"{base}..HEAD") == []
    ran = CliRunner().invoke(cli, ["--store", str(published), "check", f"{base}..HEAD"])
    assert ran.exit_code == 0, ran.output


def test_a_line_of_commits_keeps_the_plain_rebase(published):
    """No merge among the commits the rebase rewrites (upstream's own merges excluded):
    the fix stays `git rebase -i START`."""
    base = git(published, "rev-parse", "HEAD").strip()
    git(published, "checkout", "-q", "-b", "side")
    git(published, "commit", "-q", "--allow-empty", "-m", "upstream: side")
    git(published, "checkout", "-q", "-b", "up", base)
    git(published, "merge", "-q", "--no-ff", "--no-edit", "side")
    upstream = git(published, "rev-parse", "HEAD").strip()
    git(published, "remote", "add", "upstream", str(published / "server.git"))
    git(published, "update-ref", "refs/remotes/upstream/main", upstream)
    edit_an_object(published)
    found = gate.check_range(Store(published), f"{base}..HEAD")  # upstream's merge inside
    fixes = [f.fix for f in found if f.rule.id == "KI101"]
    assert fixes and all(REBASE.findall(fix) == [upstream] for fix in fixes)
