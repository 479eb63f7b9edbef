"""An add reverted on the same branch: drop both commits, one finding per rule (hist03).

fresh04 M3: ``kistore add --commit`` then ``git revert HEAD`` gave 16 errors (KI402 x7,
KI208 x7, KI410 x2) whose fixes all said to drop the deleting commit, which keeps the
unwanted add. BASE holds none of the files: the fix drops both commits (or ``git reset
--hard BASE``, the range changing nothing), and says dropping the revert alone keeps them.
"""

from __future__ import annotations

import os
import re
import subprocess

from click.testing import CliRunner

from kistore.check import gate
from kistore.cli import main as cli
from kistore.core import layout
from kistore.core.digest import Digest
from kistore.store import Store

from ..conftest import add_docs, commit_all, git


def _added_and_reverted(root, kit) -> tuple[str, str, str, list[str]]:
    """BASE (a group of one run), a commit adding one more run, its `git revert`; the files."""
    p, e, i, w = kit.protocol(), kit.environment(), kit.implementation(), kit.workload()
    store = Store(root)
    add_docs(store, [p, e, i, w, kit.run(p, e, i, w, latency=10, name="run-0")])
    base = git(root, "rev-parse", "HEAD").strip()
    before = set(git(root, "ls-files").split())
    [digest] = add_docs(store, [kit.run(p, e, i, w, latency=11, name="run-1")])
    added = git(root, "rev-parse", "HEAD").strip()
    files = sorted(set(git(root, "ls-files").split()) - before)
    git(root, "revert", "--no-edit", "HEAD")
    reverted = git(root, "rev-parse", "HEAD").strip()
    assert layout.object_path(Digest.from_str(digest)) in files
    return base, added, reverted, files


def _fix(base: str, added: str, reverted: str, files: int, *, reset: bool = True) -> str:
    these, them = ("these files", "them") if files > 1 else ("this file", "it")
    said = (f" (the range changes nothing at all, HEAD's tree being BASE's: `git reset "
            f"--hard {base}` does the same, and drops uncommitted changes too)" if reset else "")
    return (f"BASE holds none of {these}: the range brought {them} and removed {them} again "
            f"(commits {added[:12]}, {reverted[:12]}), and both stay in the history, which is "
            f"read commit by commit. Not wanted: drop the commits that brought and removed "
            f"{them}, {added[:12]}, {reverted[:12]} (`git rebase -i {base}`){said}. Wanted: "
            f"drop {reverted[:12]} alone, which removed {them}")


def _errors(root, spec: str) -> list:
    return [f for f in gate.check_range(Store(root), spec) if f.severity == "error"]


def test_an_add_reverted_is_one_finding_a_rule_whose_fix_drops_both(store, kit):
    root = store.root
    base, added, reverted, files = _added_and_reverted(root, kit)
    objects = [f for f in files if f.startswith(layout.OBJECTS_DIR + "/")]
    names = [f for f in files if f.startswith(layout.NAMES_DIR + "/")]
    groups = [f for f in files if f.startswith(layout.GROUPS_DIR + "/")]
    assert (len(objects), len(names), len(groups)) == (1, 1, 1), files
    said = CliRunner().invoke(cli, ["--store", str(root), "check", f"{base}..HEAD"])
    assert said.exit_code == 1
    fix = _fix(base, added, reverted, 1)
    first = git(root, "log", "-1", "--format=%s", reverted).strip()[:60]
    assert said.output.splitlines() == [
        f"{groups[0]}: error KI410 append-only-file-removed: commit {reverted[:12]} deletes "
        "this group file: a group file is never modified, renamed or deleted (a run's "
        "comparison group is read from it) (expected blob "
        f"{git(root, 'rev-parse', f'{added}:{groups[0]}').strip()}, found no file)",
        f"{names[0]}: error KI208 name-changed: commit {reverted[:12]} deletes this names "
        "file: a names file is never modified, renamed or deleted (a name never moves, nor "
        "goes to another manifest) (expected blob "
        f"{git(root, 'rev-parse', f'{added}:{names[0]}').strip()}, found no file)",
        f"{objects[0]}: error KI402 object-deleted: deleted in commit {reverted[:12]} "
        f"({first})",
        f"fix KI410 (1 finding): {fix}",
        f"fix KI208 (1 finding): {fix}",
        f"fix KI402 (1 finding): {fix}",
        f"FAILED: {base}..HEAD: 3 errors, 0 warnings, 0 info"]
    # the fix as printed, not wanted: both commits dropped; BASE is all that is left
    command = re.search(r"`(git rebase -i [0-9a-f]{40})`", fix).group(1)
    edits = " ".join(f"-e 's/^pick {c[:7]}/drop {c[:7]}/'" for c in (added, reverted))
    subprocess.run(command.split(), cwd=root, check=True, capture_output=True,
                   env={**os.environ, "GIT_SEQUENCE_EDITOR": f"sed -i {edits}"})
    assert git(root, "rev-parse", "HEAD").strip() == base
    assert _errors(root, f"{base}..HEAD") == []


def test_several_runs_added_and_reverted_say_each_rule_once_and_reset_works(store, kit):
    """Two runs in one add: one KI402 naming both objects (``extra.files``); the printed
    `git reset --hard BASE` leaves a range the gate passes."""
    root = store.root
    p, e, i, w = kit.protocol(), kit.environment(), kit.implementation(), kit.workload()
    add_docs(store, [p, e, i, w, kit.run(p, e, i, w, latency=10, name="run-0")])
    base = git(root, "rev-parse", "HEAD").strip()
    add_docs(store, [kit.run(p, e, i, w, latency=11 + n, name=f"run-{n + 1}")
                     for n in range(2)])
    added = git(root, "rev-parse", "HEAD").strip()
    git(root, "revert", "--no-edit", "HEAD")
    reverted = git(root, "rev-parse", "HEAD").strip()
    errors = _errors(root, f"{base}..HEAD")
    assert sorted(f.rule.id for f in errors) == ["KI208", "KI402", "KI410"]
    [deleted] = [f for f in errors if f.rule.id == "KI402"]
    objects = sorted(p for p in git(root, "diff", "--name-only", base, added).split()
                     if p.startswith(layout.OBJECTS_DIR + "/"))
    assert len(objects) == 2 and deleted.extra["files"] == objects
    assert deleted.file == objects[0]
    assert deleted.message.endswith(f"; and 1 more file the same commit removes: {objects[1]}")
    assert all(f.fix == _fix(base, added, reverted, 2) for f in errors)
    [reset] = re.findall(r"`(git reset --hard [0-9a-f]{40})`", deleted.fix)
    git(root, *reset.split()[1:])
    assert _errors(root, f"{base}..HEAD") == []


def test_an_add_reverted_beside_other_work_offers_no_reset(store, kit):
    """The range changes a file too: no `git reset --hard` (it would lose that), the
    rebase dropping both commits keeps the other change."""
    root = store.root
    base, added, reverted, _ = _added_and_reverted(root, kit)
    (root / "NOTES.md").write_text("notes\n")
    commit_all(root, "notes")
    errors = _errors(root, f"{base}..HEAD")
    assert errors and all(f.fix == _fix(base, added, reverted, 1, reset=False)
                          for f in errors), [f.fix for f in errors]
    edits = " ".join(f"-e 's/^pick {c[:7]}/drop {c[:7]}/'" for c in (added, reverted))
    subprocess.run(["git", "rebase", "-i", base], cwd=root, check=True, capture_output=True,
                   env={**os.environ, "GIT_SEQUENCE_EDITOR": f"sed -i {edits}"})
    assert git(root, "show", "--name-only", "--format=", "HEAD").split() == ["NOTES.md"]
    assert _errors(root, f"{base}..HEAD") == []


def _drop(root, base: str, drop: tuple[str, ...]) -> subprocess.CompletedProcess:
    edits = " ".join(f"-e 's/^pick {c[:7]}/drop {c[:7]}/'" for c in drop)
    return subprocess.run(["git", "rebase", "-i", base], cwd=root, capture_output=True,
                          text=True, env={**os.environ, "GIT_SEQUENCE_EDITOR": f"sed -i {edits}"})


def test_a_metadata_file_deleted_between_the_add_and_its_revert_is_dropped_too(store, kit):
    """hist03's M3 edge: the metadata file deleted in a commit between the add and the
    revert. The fix dropped the add and the revert alone, so the rebase stopped on the
    deletion of a file no longer there; it names the deletion too, and both routes run."""
    root = store.root
    p, e, i, w = kit.protocol(), kit.environment(), kit.implementation(), kit.workload()
    add_docs(store, [p, e, i, w, kit.run(p, e, i, w, latency=10, name="run-0")])
    base = git(root, "rev-parse", "HEAD").strip()
    [digest] = add_docs(store, [kit.run(p, e, i, w, latency=11, name="run-1")])
    added = git(root, "rev-parse", "HEAD").strip()
    git(root, "rm", "-q", layout.metadata_path(Digest.from_str(digest)))
    deleting = commit_all(root, "delmeta")
    git(root, "revert", "--no-edit", added)
    reverted = git(root, "rev-parse", "HEAD").strip()
    errors = _errors(root, f"{base}..HEAD")
    fix = (f"BASE holds none of this file: the range brought it and removed it again (commits "
           f"{added[:12]}, {deleting[:12]}, {reverted[:12]}), and both stay in the history, "
           f"which is read commit by commit. Not wanted: drop the commits that brought and "
           f"removed it, {added[:12]}, {deleting[:12]}, {reverted[:12]} (`git rebase -i "
           f"{base}`) (the range changes nothing at all, HEAD's tree being BASE's: `git reset "
           f"--hard {base}` does the same, and drops uncommitted changes too). Wanted: drop "
           f"{deleting[:12]}, {reverted[:12]}, which removed it")
    assert sorted(f.rule.id for f in errors) == ["KI208", "KI402", "KI410"]
    assert [f.fix for f in errors] == [fix] * 3, [f.fix for f in errors]
    # not wanted, as printed: the three commits dropped, BASE is all that is left
    assert _drop(root, base, (added, deleting, reverted)).returncode == 0
    assert git(root, "rev-parse", "HEAD").strip() == base
    # wanted, as printed: the deletion and the revert dropped, the run kept whole
    git(root, "reset", "-q", "--hard", reverted)
    assert _drop(root, base, (deleting, reverted)).returncode == 0
    assert git(root, "rev-parse", "HEAD").strip() == added
    assert _errors(root, f"{base}..HEAD") == []
