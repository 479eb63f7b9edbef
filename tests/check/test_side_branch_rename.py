"""KI208 of a rename made on a side branch and merged names the side commit (hist00).

rename99 left it: ``verify`` and the gate compared the merge with its first parent and
said "commit M renames 'p' to 'q'", the side commit's own finding dropped as said; the
fallback fix (``git rebase --onto M~ M``) drops the whole side branch. The walk now asks
:func:`kistore.store.name_changes.renames`, the module that owns the answer, and says
the side commit, the merge beside it, and a fix that drops just that commit.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from kistore.check import gate
from kistore.check.lineage import check_names
from kistore.core import layout
from kistore.core.digest import Digest
from kistore.store import Store

from ..conftest import PUBLISHED, commit_all, git
from .test_tree_entries_gate import _server_and_clone

KISTORE = str(Path(sys.executable).with_name("kistore"))
RUN = Digest.from_str(PUBLISHED["run"])
META = layout.metadata_path(RUN)


def _renamed_on_a_side_branch(root: Path) -> tuple[str, str, str, str]:
    """BASE; a side branch off the pull request renaming the run; the merge: (base, side,
    merge, old name)."""
    base = git(root, "rev-parse", "HEAD").strip()
    git(root, "checkout", "-q", "-b", "pr")
    git(root, "commit", "-q", "--allow-empty", "-m", "pr work")
    git(root, "checkout", "-q", "-b", "side")
    doc = json.loads((root / META).read_bytes())
    (root / META).write_text(json.dumps({**doc, "name": "renamed"}, separators=(",", ":")))
    side = commit_all(root, "rename on a side branch")
    git(root, "checkout", "-q", "pr")
    git(root, "commit", "-q", "--allow-empty", "-m", "meanwhile on the pull request")
    git(root, "merge", "-q", "--no-ff", "--no-edit", "side")
    return base, side, git(root, "rev-parse", "HEAD").strip(), doc["name"]


def _moved(findings) -> list:
    return [f for f in findings if f.rule.id == "KI208" and f.pointer == "/name"]


def test_the_gate_and_verify_name_the_side_commit_and_its_fix_rebuilds_the_branch(published):
    base, side, merge, name = _renamed_on_a_side_branch(published)
    [moved] = _moved(gate.check_range(Store(published), f"{base}..HEAD"))
    assert (moved.file, moved.extra["commit"], moved.extra["merge"]) == (META, side, merge)
    assert moved.message == (f"commit {side[:12]} (on a side branch merged by {merge[:12]}) "
                             f"renames {name!r} to 'renamed': a name never moves")
    assert moved.fix == (
        f"commit {side[:12]} renamed it on a side branch that merge {merge[:12]} brought in "
        f"(dropping the merge, `git rebase --onto {merge[:12]}~ {merge[:12]}`, would drop the "
        "whole branch): in a branch not yet merged, rebuild it without that commit, "
        f"`git rebase -i --rebase-merges {base}`, and drop commit {side[:12]} (the merge is "
        "made again without it); on a branch already merged, set metadata.name back to "
        f"{name!r} in {META} with `git revert --no-edit {side}` (a new commit, undoing all "
        "else that commit changed too) or by hand, and commit: the history keeps the "
        "change, and this error says so for good")
    # verify, the whole history: the side commit too, once, not the merge
    [said] = _moved(check_names(Store(published)))
    assert (said.extra["commit"], said.extra["merge"]) == (side, merge)
    assert said.message == moved.message
    assert "--rebase-merges BASE` (BASE: the commit the branch starts from" in said.fix
    # the fix, as printed: rebuild the branch without the side commit
    subprocess.run(["git", "rebase", "-q", "-i", "--rebase-merges", base], cwd=published,
                   check=True, capture_output=True, env={
                       **os.environ,
                       "GIT_SEQUENCE_EDITOR": f"sed -i -e 's/^pick {side[:7]}/drop {side[:7]}/'"})
    assert json.loads((published / META).read_bytes())["name"] == name
    assert [f for f in gate.check_range(Store(published), f"{base}..HEAD")
            if f.severity == "error"] == []


def test_pre_receive_names_the_side_commit(published, tmp_path, monkeypatch):
    monkeypatch.setenv("KISTORE", KISTORE)
    server, clone = _server_and_clone(published, tmp_path)
    before = git(server, "rev-parse", "refs/heads/main")
    _, side, merge, name = _renamed_on_a_side_branch(clone)
    pushed = subprocess.run(["git", "push", "origin", "HEAD:refs/heads/main"], cwd=clone,
                            capture_output=True, text=True)
    assert pushed.returncode != 0
    assert (f"remote: {META}:/name: error KI208 name-changed: commit {side[:12]} (on a side "
            f"branch merged by {merge[:12]}) renames {name!r} to 'renamed'") in pushed.stderr
    assert f"commit {merge[:12]} renames" not in pushed.stderr
    assert git(server, "rev-parse", "refs/heads/main") == before
