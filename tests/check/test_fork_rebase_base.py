"""A fix's ``git rebase -i`` starts after upstream's commits, not at a fork's stale main.

fresh00b MED U1: a contributor's clone of a fork whose main is behind upstream's; a branch
off upstream's main commits an edited object. Its push to the fork (pre-push, ``check
--unpushed origin``) is judged from the fork's main, and the fix printed ``git rebase -i``
of that commit: run as printed, the rebase rewrote upstream's commits since (its merge
flattened, every commit given another id), and the pull request's gate against upstream's
main then refused the branch (KI404). The rebase now starts from the newest commit of the
branch that a remote's main holds (:func:`kistore.check.reach.rebase_start`): run as
printed, dropping the edit's commit leaves upstream's history as it is.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pygit2
from click.testing import CliRunner

from kistore.check import gate
from kistore.cli import main as cli
from kistore.store import Store

from ..conftest import git

REBASE = re.compile(r"`git rebase -i ((?:--rebase-merges )?[0-9a-f]{40})`")
"""A fix's rebase: its start, after ``--rebase-merges`` where it makes a merge again."""


def _fork_clone(path: Path) -> tuple[str, str, str]:
    """Make ``path`` a fork's clone: origin/main stale, upstream/main a merge past it, and
    branch ``bad`` off upstream/main editing an object; return (stale, upstream, bad)."""
    stale = git(path, "rev-parse", "HEAD").strip()
    git(path, "checkout", "-q", "-b", "side")
    git(path, "commit", "-q", "--allow-empty", "-m", "upstream: side work")
    git(path, "checkout", "-q", "-b", "up", stale)
    git(path, "commit", "-q", "--allow-empty", "-m", "upstream: main work")
    git(path, "merge", "-q", "--no-ff", "--no-edit", "side")
    upstream = git(path, "rev-parse", "HEAD").strip()
    git(path, "remote", "add", "origin", str(path / "fork.git"))  # never fetched: refs by hand
    git(path, "remote", "add", "upstream", str(path / "server.git"))
    git(path, "update-ref", "refs/remotes/origin/main", stale)
    git(path, "update-ref", "refs/remotes/upstream/main", upstream)
    git(path, "checkout", "-q", "-b", "bad", upstream)
    return stale, upstream, edit_an_object(path)


def edit_an_object(path: Path) -> str:
    """Commit one digit of a stored object changed (KI401); return the commit."""
    bump(sorted((path / "store" / "objects").rglob("*.json"))[0])
    git(path, "commit", "-q", "--no-verify", "-am", "edit an object")
    return git(path, "rev-parse", "HEAD").strip()


def bump(obj: Path) -> None:
    """Edit stored object ``obj``: its first digit one up (mod 10); its digest no longer holds."""
    text = obj.read_text()
    digit = re.search(r"[0-9]", text)
    assert digit is not None
    i = digit.start()
    obj.write_text(text[:i] + str((int(text[i]) + 1) % 10) + text[i + 1:])


def rebase_as_printed(path: Path, fix: str, drop: list[str]) -> None:
    """Run the fix's ``git rebase -i`` as printed, marking the commits ``drop`` (full ids)
    `drop` and keeping every other."""
    [start] = REBASE.findall(fix)
    editor = path.parent / "drop.py"
    editor.write_text(
        "import sys\n"
        "todo = open(sys.argv[1]).read().splitlines()\n"
        f"out = ['drop ' + l[5:] if l.startswith('pick ') and any(d.startswith("
        f"l.split()[1]) for d in {drop!r}) else l for l in todo]\n"
        "open(sys.argv[1], 'w').write('\\n'.join(out) + '\\n')\n")
    subprocess.run(["git", "rebase", "-q", "-i", *start.split()], cwd=path, check=True,
                   capture_output=True, env={**os.environ, "GIT_SEQUENCE_EDITOR":
                                             f"{sys.executable} {editor}"})


def test_the_fork_push_s_rebase_keeps_upstream_s_commits(published):
    stale, upstream, bad = _fork_clone(published)
    store = Store(published)
    # pre-push's own judgement, by `check --unpushed`: the same rebase
    said = CliRunner().invoke(cli, ["--store", str(published), "check", "--unpushed", "origin"])
    assert said.exit_code == 1, said.output
    assert f"`git rebase -i {upstream}`" in said.output and stale not in said.output
    # the branch's own earlier push to the fork reaches the edit: no landed commit
    git(published, "update-ref", "refs/remotes/origin/bad", bad)
    found = gate.check_range(store, f"{stale}..{bad}")  # as pre-push to the fork judges
    fixes = [f.fix for f in found if f.rule.id == "KI101"]
    assert fixes and all(REBASE.findall(fix) == [upstream] for fix in fixes)
    rebase_as_printed(published, fixes[0], [bad])
    # upstream's merge and its commits kept, ids unchanged: the branch is upstream's main
    assert git(published, "rev-parse", "HEAD").strip() == upstream
    assert git(published, "rev-list", "--merges", f"{stale}..HEAD").split() == [upstream]
    assert gate.check_range(Store(published), f"{upstream}..HEAD") == []


def test_a_range_from_upstream_s_main_and_a_bare_server_name_base(published, tmp_path):
    from kistore.check.reach import rebase_start  # new with the fix (U1)

    stale, upstream, bad = _fork_clone(published)
    repo = pygit2.Repository(str(published))
    assert rebase_start(repo, upstream, bad) == upstream  # the PR's gate: BASE itself
    assert rebase_start(repo, stale, stale) == stale  # nothing of the range landed
    server = tmp_path / "server.git"
    git(tmp_path, "clone", "-q", "--mirror", str(published), str(server))
    # a server's pre-receive names its own main, whatever refs/remotes a mirror holds
    assert rebase_start(pygit2.Repository(str(server)), stale, bad) == stale
