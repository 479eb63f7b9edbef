"""KI204's fix for a metadata file deleted by a merge: a `merge` line is not `edit`ed (fresh06 L1).

KI204's fix (take the gap out of the commit that opens it) said "drop that commit (or, when
it holds other changes, mark it `edit`, ...)". For a merge, ``git rebase -i
--rebase-merges`` lists a ``merge`` line, which git refuses to mark ``edit``; the fix now
says to delete that line, or to add a ``break`` line after it. Both are run as printed, on
fresh06's ``d1`` (:func:`tests.check.test_landed_gaps.evil_merge`).
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

from kistore.check import gate
from kistore.store import Store

from ..conftest import PUBLISHED, git, store_file
from .test_landed_gaps import evil_merge

OBJ = store_file(PUBLISHED["run"])
META = store_file(PUBLISHED["run"], "metadata")


def _ki204(root: Path, spec: str):
    [error] = [f for f in gate.check_range(Store(root), spec) if f.severity == "error"]
    assert (error.rule.id, error.file) == ("KI204", OBJ)
    return error


def _rebase(root: Path, fix: str, script: str) -> subprocess.CompletedProcess[str]:
    """The fix's `git rebase -i ...` as printed, its todo list edited by sed ``script``."""
    [args] = re.findall(r"`git rebase -i ([^`]+)`", fix)[:1]
    env = {**os.environ, "GIT_SEQUENCE_EDITOR": f"sed -i -e '{script}'"}
    return subprocess.run(["git", "rebase", "-i", *args.split()], cwd=root, env=env,
                           capture_output=True, text=True)


def _fix(base: str, undo: str) -> str:
    return ("the deletion of an object's metadata file, brought by a commit of the branch: "
            "take it out of that commit, not in a later one, which leaves it in the history "
            "(a checkout of that commit meets it, and the gate judges every commit of a "
            f"range, so it refuses that too): `git rebase -i --rebase-merges {base}`, and "
            "delete that merge's `merge` line (or, when it holds other changes, add a "
            "`break` line after it (a `merge` line cannot be marked `edit`; git stops there, "
            f"the merge made), then {undo}, `git commit --amend`, `git rebase --continue`), "
            "and any later one that only removes or restores it: kept, it is left empty and "
            "git stops the rebase there (`git rebase --skip` it); an object's metadata file "
            "is there at every commit that holds the object")


def test_a_merge_deleting_a_metadata_file_is_told_to_break_after_its_merge_line(published):
    base, merge, restore = evil_merge(published)
    error = _ki204(published, f"{base}..{restore}")
    assert error.extra["commit"] == f"commit {merge[:12]}"
    # on BASE 440899c7: "drop that commit (or, when it holds other changes, mark it `edit`"
    parent = git(published, "rev-parse", f"{merge}^1").strip()  # it held the file
    assert error.fix == _fix(base, f"`git checkout {parent} -- {META}`")
    # marking the merge `edit`, as the old fix said, is what git refuses
    refused = _rebase(published, error.fix, f"s/^merge -C {merge[:7]}/edit {merge[:7]}/")
    assert refused.returncode != 0
    assert f"error: commit {merge} is a merge but no -m option was given." in \
        refused.stderr, refused.stderr
    subprocess.run(["git", "rebase", "--abort"], cwd=published, capture_output=True)
    assert git(published, "rev-parse", "HEAD").strip() == restore
    # as printed: a `break` after the merge line; git stops with the merge made, the
    # metadata file checked out of BASE, the merge amended; the restore, left empty, skipped
    stopped = _rebase(published, error.fix, f"/^merge -C {merge[:7]}/a break")
    assert stopped.returncode == 0, stopped.stderr
    git(published, "checkout", base, "--", META)
    git(published, "commit", "-q", "--amend", "--no-edit", "--no-verify")
    left = subprocess.run(["git", "rebase", "--continue"], cwd=published, capture_output=True,
                          text=True)
    if left.returncode != 0:  # the restore, left empty, as the fix says
        subprocess.run(["git", "rebase", "--skip"], cwd=published, check=True,
                       capture_output=True)
    rebuilt = git(published, "rev-parse", "HEAD").strip()
    assert len(git(published, "rev-list", "--merges", f"{base}..{rebuilt}").split()) == 1
    assert [f for f in gate.check_range(Store(published), f"{base}..{rebuilt}")
            if f.severity == "error"] == []


def test_deleting_the_merge_line_as_printed_leaves_a_clean_range(published):
    base, merge, restore = evil_merge(published)
    error = _ki204(published, f"{base}..{restore}")
    stopped = _rebase(published, error.fix, f"/^merge -C {merge[:7]}/d")
    if stopped.returncode != 0:  # the restore, left empty
        subprocess.run(["git", "rebase", "--skip"], cwd=published, check=True,
                       capture_output=True)
    assert [f for f in gate.check_range(Store(published), f"{base}..HEAD")
            if f.severity == "error"] == []
