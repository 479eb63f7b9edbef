"""``add --commit`` killed (SIGKILL: nothing runs after it) inside kistore.commit's last step.

:class:`kistore.commit.BranchCommit` writes the new index to git's ``.git/index.lock``,
moves the branch, then renames the lock file onto ``.git/index``. A SIGKILL cannot be
held, so a store can be left between any two of those steps. Each test kills a real
``add --commit`` in a subprocess at one such point and asserts what the user then sees:
the branch, ``git status``, ``kistore verify``, a re-run, and the way back to a clean
status.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from kistore.cli import main
from kistore.core import layout
from kistore.git._pending_index import MARKER as PENDING
from kistore.store.inputs import read_inputs

from ..conftest import git

# Killed when the new index (complete, in index.lock) is about to be renamed onto the
# index: the branch has already moved.
_KILLED_BEFORE_INDEX_RENAME = r"""
import os, signal, sys
from kistore.store.inputs import read_inputs
from kistore.store import Store

real = os.replace

def replace_or_die(src, dst):
    if (os.path.basename(src), os.path.basename(dst)) == ("index.lock", "index"):
        os.kill(os.getpid(), signal.SIGKILL)
    real(src, dst)

os.replace = replace_or_die
Store(sys.argv[1]).add([x.manifest for x in read_inputs([sys.argv[2]])], commit=True,
                       message="killed add")
"""

# Killed when the branch is about to move: the new index is written to index.lock.
_KILLED_BEFORE_BRANCH_MOVE = r"""
import os, signal, sys
from kistore.git import commit
from kistore.store.inputs import read_inputs
from kistore.store import Store

def die(*args, **kwargs):
    os.kill(os.getpid(), signal.SIGKILL)

commit.BranchCommit._move = die
Store(sys.argv[1]).add([x.manifest for x in read_inputs([sys.argv[2]])], commit=True,
                       message="killed add")
"""


def _killed_add(script: str, root: Path, source: Path) -> None:
    killed = subprocess.run([sys.executable, "-c", script, str(root), str(source)],
                            capture_output=True, text=True)
    assert killed.returncode == -9, killed.stderr  # else the step it kills at has moved


def _bundle(kit, path: Path) -> tuple[Path, list[str], list[str]]:
    """Write three manifests with no dangling reference; return the file, object paths
    and all nine store paths (object, metadata and names file of each)."""
    docs = {"protocol": kit.protocol(), "env": kit.environment(), "workload": kit.workload()}
    path.write_text(json.dumps(docs))
    manifests = [x.manifest for x in read_inputs([str(path)])]
    objects = sorted(layout.object_path(m.digest) for m in manifests)
    files = sorted(objects + [layout.metadata_path(m.digest) for m in manifests]
                   + [layout.name_path(m.kind, m.name) for m in manifests])
    return path, objects, files


def _status(root: Path) -> list[str]:
    return git(root, "status", "--porcelain", "--untracked-files=all").splitlines()


def _git_may_fail(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True)


@pytest.mark.parametrize("recovery", ["remove-lock-then-reset", "finish-the-rename"])
def test_sigkill_between_the_branch_move_and_the_index_rename(
        store_path, runner, kit, tmp_path, recovery):
    source, objects, files = _bundle(kit, tmp_path / "bundle.json")
    before = git(store_path, "rev-parse", "HEAD").strip()
    _killed_add(_KILLED_BEFORE_INDEX_RENAME, store_path, source)

    # The branch holds the whole commit, the index is the one from before it, and the new
    # index (complete) is left in git's lock file.
    assert git(store_path, "log", "-1", "--format=%s%n%P").split() == ["killed", "add", before]
    committed = git(store_path, "ls-tree", "-r", "--name-only", "HEAD").splitlines()
    assert set(files) <= set(committed)
    lock = store_path / ".git" / "index.lock"
    assert lock.exists()
    assert git(store_path, "ls-files", "store/objects", "store/metadata",
               "store/names") == ""

    # git status: every new file staged as deleted (index against HEAD) and untracked
    # (work tree against the index), as after a `git commit` killed at that point.
    assert sorted(_status(store_path)) == sorted(
        [f"D  {f}" for f in files] + [f"?? {f}" for f in files])

    # kistore verify: the files are in the work tree and in HEAD, byte for byte; what is
    # behind is git's index, and the stale index.lock stops `git reset`: both are said
    # (it used to say "deleted in the work tree or index", with KI402's "restore the file").
    result = runner.invoke(main, ["--store", str(store_path), "verify"])
    assert result.exit_code == 1, result.output
    for obj in objects:
        assert f"{obj}: error KI402 object-deleted: in HEAD and in the work tree, but missing " \
            "from git's index: the index is behind HEAD; the lock file " \
            f"{lock} is left (a `git commit` or `kistore add --commit` killed after the " \
            "branch moved?): if no git command is running, delete it, then run `git reset " \
            "-q` to bring the index in step with HEAD (the work tree is kept)" \
            in " ".join(result.output.split())
    # and the stale lock is KI418 (verify read while it was held: review 2026-12-02 F15)
    assert "FAILED: store at work tree: 3 errors, 1 warning" in result.output
    assert "warning KI418 work-tree-written-meanwhile" in result.output
    at_head = runner.invoke(main, ["--store", str(store_path), "verify", "--at", "HEAD"])
    assert at_head.exit_code == 0, at_head.output  # the commit itself is whole

    # `git reset -q` alone is refused while the lock file stays.
    refused = _git_may_fail(store_path, "reset", "-q")
    assert refused.returncode == 128
    assert "index.lock': File exists." in refused.stderr
    assert lock.exists() and sorted(_status(store_path)) == sorted(
        [f"D  {f}" for f in files] + [f"?? {f}" for f in files])

    if recovery == "remove-lock-then-reset":  # what git's message says, then reset
        lock.unlink()
        git(store_path, "reset", "-q")
    else:  # the lock file is the complete new index: finish the rename that was cut off
        lock.replace(store_path / ".git" / "index")
    assert _status(store_path) == []
    assert git(store_path, "ls-files", "store/objects", "store/metadata",
               "store/names").split() == files
    result = runner.invoke(main, ["--store", str(store_path), "verify"])
    assert result.exit_code == 0, result.output


def test_a_rerun_after_sigkill_between_the_branch_move_and_the_index_rename_names_the_lock(
        store_path, runner, kit, tmp_path, monkeypatch):
    source, _, _ = _bundle(kit, tmp_path / "bundle.json")
    _killed_add(_KILLED_BEFORE_INDEX_RENAME, store_path, source)
    head = git(store_path, "rev-parse", "HEAD").strip()
    monkeypatch.setattr("kistore.git.commit.INDEX_WAIT_S", 0.1)
    again = runner.invoke(main, ["--store", str(store_path), "add", "--commit", str(source)])
    assert again.exit_code == 1
    assert f"{store_path / '.git' / 'index.lock'}: this lock file exists: another git " \
        "command is changing the index, or one crashed and left it" in again.output
    assert "delete the file and run `git reset -q`" in " ".join(again.output.split())
    assert git(store_path, "rev-parse", "HEAD").strip() == head
    # What the message (and the README) say: delete the lock, then `git reset -q`. The
    # recorded commit is then in step already: the re-run stages nothing again, says
    # nothing of it, and forgets the record.
    (store_path / ".git" / "index.lock").unlink()
    git(store_path, "reset", "-q")
    monkeypatch.undo()
    rerun = _cli(store_path, "add", "--commit", str(source))
    assert rerun.returncode == 0, rerun.stderr
    assert "staged again" not in rerun.stderr
    assert git(store_path, "rev-parse", "HEAD").strip() == head
    assert _status(store_path) == []
    assert not (store_path / ".git" / PENDING).exists()
    assert runner.invoke(main, ["--store", str(store_path), "verify"]).exit_code == 0


def _cli(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """Run kistore in a fresh process (its log warnings reach stderr as a user sees them)."""
    return subprocess.run([sys.executable, "-m", "kistore", "--store", str(root), *args],
                          capture_output=True, text=True)


@pytest.mark.parametrize("rerun_adds", ["the same manifests", "another manifest"])
def test_lock_deleted_without_git_reset_the_next_add_commit_restages_the_killed_commit(
        store_path, kit, tmp_path, rerun_adds):
    # breaker8: deleting the lock alone and running the add again was a no-op that left
    # the index behind HEAD, and a plain `git commit` then deleted every object.
    source, objects, files = _bundle(kit, tmp_path / "bundle.json")
    _killed_add(_KILLED_BEFORE_INDEX_RENAME, store_path, source)
    killed = git(store_path, "rev-parse", "HEAD").strip()
    assert (store_path / ".git" / PENDING).read_text() == f"{killed}\n"
    (store_path / ".git" / "index.lock").unlink()

    if rerun_adds == "the same manifests":
        rerun, also = _cli(store_path, "add", "--commit", str(source)), []
        expect_head = killed  # nothing new to commit: the index alone is repaired
    else:
        other = tmp_path / "other.json"
        other.write_text(json.dumps(kit.workload("gemm", name="another-workload")))
        rerun = _cli(store_path, "add", "--commit", str(other))
        added = read_inputs([str(other)])[0].manifest
        also = [layout.object_path(added.digest), layout.metadata_path(added.digest),
                layout.name_path(added.kind, added.name)]
        expect_head = None
    assert rerun.returncode == 0, rerun.stderr
    assert f"note: git's index lacked 9 store file(s) of commit(s) {killed[:12]} (an " \
        "earlier `add --commit` was stopped after its commit, before it updated the " \
        "index); they are staged again" in rerun.stderr
    head = git(store_path, "rev-parse", "HEAD").strip()
    if expect_head is not None:
        assert head == expect_head
    else:
        assert git(store_path, "rev-parse", "HEAD^").strip() == killed
    assert _status(store_path) == []
    staged = git(store_path, "ls-files", "store/objects", "store/metadata",
                 "store/names").split()
    assert staged == sorted(files + also)
    assert not (store_path / ".git" / PENDING).exists()
    # A plain `git commit -a` now commits nothing away.
    assert _git_may_fail(store_path, "commit", "-qam", "nothing").returncode == 1
    assert git(store_path, "ls-tree", "-r", "--name-only", "HEAD", "store/objects",
               "store/metadata", "store/names").split() == sorted(files + also)
    verified = _cli(store_path, "verify")
    assert verified.returncode == 0, verified.stdout + verified.stderr


def test_a_commit_killed_before_its_branch_moved_is_not_restaged(
        store_path, kit, tmp_path):
    source, _, files = _bundle(kit, tmp_path / "bundle.json")
    before = git(store_path, "rev-parse", "HEAD").strip()
    _killed_add(_KILLED_BEFORE_BRANCH_MOVE, store_path, source)
    # The record, written just before the move, names a commit the branch never held:
    # it is skipped, as is a commit git does not have.
    pending = store_path / ".git" / PENDING
    recorded = pending.read_text().split()
    assert len(recorded) == 1 and recorded[0] != before
    assert _git_may_fail(store_path, "merge-base", "--is-ancestor", recorded[0],
                         "HEAD").returncode == 1
    pending.write_text(f"{recorded[0]}\n{'0' * 40}\n")
    (store_path / ".git" / "index.lock").unlink()
    rerun = _cli(store_path, "add", "--commit", str(source))
    assert rerun.returncode == 0, rerun.stderr
    assert "staged again" not in rerun.stderr
    assert git(store_path, "rev-parse", "HEAD^").strip() == before
    assert _status(store_path) == []
    assert not (store_path / ".git" / PENDING).exists()


def test_a_whole_add_commit_leaves_no_pending_record(store_path, runner, kit, tmp_path):
    source, _, _ = _bundle(kit, tmp_path / "bundle.json")
    result = runner.invoke(main, ["--store", str(store_path), "add", "--commit", str(source)])
    assert result.exit_code == 0, result.output
    assert not (store_path / ".git" / PENDING).exists()


def test_sigkill_before_the_branch_move_leaves_the_files_uncommitted_and_unstaged(
        store_path, runner, kit, tmp_path, monkeypatch):
    source, _, files = _bundle(kit, tmp_path / "bundle.json")
    before = git(store_path, "rev-parse", "HEAD").strip()
    _killed_add(_KILLED_BEFORE_BRANCH_MOVE, store_path, source)

    # The branch has not moved; the new index sits in the lock file, not in effect, so the
    # written files are untracked (not staged), and verify sees a whole store.
    assert git(store_path, "rev-parse", "HEAD").strip() == before
    lock = store_path / ".git" / "index.lock"
    assert lock.exists()
    assert sorted(_status(store_path)) == [f"?? {f}" for f in files]
    result = runner.invoke(main, ["--store", str(store_path), "verify"])
    assert result.exit_code == 0, result.output

    # A re-run is refused until the lock file goes, naming it; then it commits everything.
    monkeypatch.setattr("kistore.git.commit.INDEX_WAIT_S", 0.1)
    args = ["--store", str(store_path), "add", "--commit", str(source)]
    again = runner.invoke(main, args)
    assert again.exit_code == 1 and f"{lock}: this lock file exists" in again.output
    lock.unlink()
    again = runner.invoke(main, args)
    assert again.exit_code == 0, again.output
    assert git(store_path, "rev-parse", "HEAD^").strip() == before
    assert _status(store_path) == []


def test_the_keep_files_of_a_bulk_add_killed_after_its_branch_moved_go_with_the_next_add(
        store_path, kit, tmp_path):
    # r70 F15: a SIGKILL after the move skipped the add's deletion of its packs' .keep
    # files, and nothing deleted them later: `git gc` never repacked those packs.
    from bench.generate import manifests as generated

    source = tmp_path / "bulk.jsonl"
    source.write_text("".join(json.dumps(d) + "\n" for d in generated(40)))
    _killed_add(_KILLED_BEFORE_INDEX_RENAME, store_path, source)
    killed = git(store_path, "rev-parse", "HEAD").strip()
    pack_dir = store_path / ".git" / "objects" / "pack"
    keeps = sorted(p.name for p in pack_dir.glob("*.keep"))
    assert keeps  # the bulk add packed its blobs, each pack kept until the branch held it
    recorded = (store_path / ".git" / PENDING).read_text().split()
    assert (recorded[0], sorted(recorded[1:])) == (killed, keeps)
    (store_path / ".git" / "index.lock").unlink()
    git(store_path, "reset", "-q")  # the README's recovery
    other = tmp_path / "other.json"
    other.write_text(json.dumps(kit.workload("gemm", name="after-the-kill")))
    rerun = _cli(store_path, "add", "--commit", str(other))
    assert rerun.returncode == 0, rerun.stderr
    assert list(pack_dir.glob("*.keep")) == []
    assert not (store_path / ".git" / PENDING).exists()
    assert _git_may_fail(store_path, "fsck", "--no-dangling").returncode == 0
