"""``add --commit`` against other writers of the repository while it writes (breaker9).

Each test runs a git command at the moment the add waits for its work-tree files, after it
has written its blobs (a kept pack), trees and commit and before it moves the branch:
``git repack -a -d`` and ``git gc --prune=now``, which delete objects nothing references,
and ``git update-ref``, which moves or deletes the branch behind the add's back.
"""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest

from kistore.core import layout
from kistore.core.errors import StoreStateError
from kistore.git.writer import FileBatch

from ..conftest import git
from ..store.test_store import bulk_batch
from .conftest import commit_writes_failing, gc_loop, stop


def _during_the_write(monkeypatch, store_path, *command: str) -> list[int]:
    """Run ``git COMMAND`` once every work-tree file is written; return its exit codes."""
    real = FileBatch.wait
    codes = []

    def meanwhile(self, *args, **kwargs):
        result = real(self, *args, **kwargs)
        done = subprocess.run(["git", *command], cwd=store_path, capture_output=True)
        codes.append(done.returncode)
        return result

    monkeypatch.setattr(FileBatch, "wait", meanwhile)
    return codes


def _fsck(store_path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", "fsck", "--no-dangling"], cwd=store_path,
                          capture_output=True, text=True)


def test_git_repack_ad_during_add_commit_keeps_the_new_pack(store, store_path, monkeypatch):
    # The attack: `git repack -adq` in a loop beside `kistore add --commit`. Nothing
    # referenced the new pack until the branch moved, so repack deleted it: the add exited
    # 0 and the branch held ~4,000 missing blobs (git status, clone and verify failed).
    codes = _during_the_write(monkeypatch, store_path, "repack", "-a", "-d", "-q")
    batch = bulk_batch()
    store.add(batch, commit=True, message="beside a repack")
    assert codes == [0]
    assert _fsck(store_path).returncode == 0, _fsck(store_path).stdout
    assert git(store_path, "status", "--porcelain") == ""
    pack_dir = store_path / ".git" / "objects" / "pack"
    assert not list(pack_dir.glob("*.keep"))  # given up once the branch holds the objects
    assert len(git(store_path, "ls-tree", "-r", "--name-only", "HEAD",
                   "store/objects").split()) == len(batch)


def test_git_gc_prune_now_during_add_commit_is_refused_not_committed(
        store, store_path, monkeypatch):
    # The same with `git gc --prune=now`: the kept pack survives, the loose trees and the
    # commit do not. The move is refused instead of leaving the branch on missing objects.
    before = git(store_path, "rev-parse", "HEAD").strip()
    codes = _during_the_write(monkeypatch, store_path, "gc", "-q", "--prune=now")
    with pytest.raises(StoreStateError, match=r"git no longer has object [0-9a-f]{40} that "
                       r"this add wrote \(a `git gc --prune=now` or `git prune` ran "
                       r"meanwhile\?\); nothing was committed"):
        store.add(bulk_batch(), commit=True, message="beside a gc")
    assert codes == [0]
    assert git(store_path, "rev-parse", "HEAD").strip() == before
    assert _fsck(store_path).returncode == 0
    assert git(store_path, "status", "--porcelain") == ""  # the written files were undone
    assert not list((store_path / ".git" / "objects" / "pack").glob("*.keep"))
    monkeypatch.undo()
    store.add(bulk_batch(), commit=True, message="again")  # and a re-run goes through
    assert _fsck(store_path).returncode == 0


def test_a_commit_pruned_after_the_branch_moved_onto_it_moves_the_branch_back(
        store, store_path, monkeypatch):
    # break97 H3: a `git gc --prune=now` that walked the refs before the move pruned the
    # new commit after the add's check: the branch named a missing commit ("fatal: bad
    # object HEAD") and the add said "internal error ... KeyError". It is moved back now.
    from kistore.git.commit import BranchCommit

    before = git(store_path, "rev-parse", "HEAD").strip()
    real = BranchCommit._move

    def pruned_after(self, branch, parent, oid, message):
        moved = real(self, branch, parent, oid, message)
        loose = store_path / ".git" / "objects" / str(oid)[:2] / str(oid)[2:]
        loose.unlink()  # what the prune does between the check and the read
        return moved

    monkeypatch.setattr(BranchCommit, "_move", pruned_after)
    with pytest.raises(StoreStateError, match=r"git no longer has object [0-9a-f]{40} that "
                       r"this add wrote .*\(refs/heads/\w+ had moved onto it and was moved "
                       r"back; .*\); nothing was committed"):
        store.add(bulk_batch(), commit=True, message="pruned after the move")
    assert git(store_path, "rev-parse", "HEAD").strip() == before
    # the reflogs keep the two moves, naming the pruned commit (as after any prune that
    # cut a commit a reflog names); the refs and objects are whole
    reflogs = subprocess.run(["git", "fsck", "--no-dangling"], cwd=store_path,
                             capture_output=True, text=True).stderr.splitlines()
    assert reflogs and all("invalid reflog entry" in line for line in reflogs), reflogs
    assert subprocess.run(["git", "fsck", "--no-dangling", "--no-reflogs"],
                          cwd=store_path).returncode == 0
    assert git(store_path, "status", "--porcelain") == ""  # the written files were undone
    monkeypatch.undo()
    store.add(bulk_batch(), commit=True, message="again")  # and a re-run goes through
    assert git(store_path, "rev-parse", "HEAD~1").strip() == before


@pytest.mark.parametrize("move", ["moved", "deleted"])
def test_a_branch_moved_or_deleted_during_add_commit_is_refused(
        store, store_path, monkeypatch, bundle, move):
    # The attack: `git update-ref` to another commit (its manifests' names were never
    # checked: two manifests ended up sharing a name) or `update-ref -d` (kistore made an
    # orphan root commit without the store's history, kistore.toml and .gitattributes).
    git(store_path, "commit", "-q", "--allow-empty", "-m", "elsewhere")
    other = git(store_path, "rev-parse", "HEAD").strip()
    git(store_path, "reset", "-q", "--hard", "HEAD~1")
    before = git(store_path, "rev-parse", "HEAD").strip()
    command = (["update-ref", "refs/heads/main", other] if move == "moved"
               else ["update-ref", "-d", "refs/heads/main"])
    files_before = sorted((store_path / "store").rglob("*"))
    _during_the_write(monkeypatch, store_path, *command)
    said = (rf"refs/heads/main moved from {before[:12]} to {other[:12]} during the add"
            if move == "moved" else
            rf"refs/heads/main was deleted \(it was at {before[:12]}\) during the add")
    with pytest.raises(StoreStateError, match=said + r": a commit from another worktree of "
                       r"this branch, `git update-ref`, or a push into this repository\? "
                       r"Nothing was committed"):
        store.add(bulk_batch(), commit=True, message="never")
    now = subprocess.run(["git", "rev-parse", "-q", "--verify", "refs/heads/main"],
                         cwd=store_path, capture_output=True, text=True).stdout.strip()
    assert now == (other if move == "moved" else "")  # what the other writer left
    assert sorted((store_path / "store").rglob("*")) == files_before  # written files undone


def _workload(name: str, definition: str):
    from kistore.core.model import Manifest

    return Manifest.from_document({
        "apiVersion": "kernelindex.dev/v1alpha1", "kind": "Workload",
        "metadata": {"name": name}, "spec": {"suite": {"name": "S"}, "definition": definition}})


def test_an_add_from_a_worktree_behind_its_branch_is_refused_not_a_second_owner_of_a_name(
        store, store_path, tmp_path):
    # The attack: two worktrees of one branch (`git worktree add --force`); an add in the
    # first, then an add of the same names with other contents in the second, whose work
    # tree and index never saw the first's files: both exited 0, and HEAD held 1,984
    # names twice (KI205); the second's index was left 3,968 files behind HEAD.
    from kistore.core.errors import MultipleErrors
    from kistore.store import Store

    second = tmp_path / "second"
    git(store_path, "worktree", "add", "-q", "--force", str(second), "main")
    store.add([_workload("contested", "first")], commit=True)
    head = git(store_path, "rev-parse", "HEAD").strip()
    other = Store(second)
    # 2: the object and metadata files; the names file is the very path this add writes
    with pytest.raises(StoreStateError, match=r"git's index lacks 2 store file\(s\) that HEAD "
                       r"holds, or holds other bytes \(e\.g\. store/metadata/sha256/.*\): "
                       r"it is behind HEAD"):
        other.add([_workload("contested", "second")], commit=True)
    assert git(store_path, "rev-parse", "HEAD").strip() == head
    assert git(second, "status", "--porcelain", "--untracked-files=all", "store").splitlines() \
        == [f"D  {p}" for p in git(store_path, "ls-files", "store/objects",
                                   "store/metadata", "store/names").split()
            if p in git(store_path, "diff-tree", "-r", "--name-only",
                                            "HEAD~1", "HEAD")]
    # What the message says to do; then the name check sees the first add's manifest.
    git(second, "reset", "-q")
    git(second, "checkout", "--", "store")
    with pytest.raises(MultipleErrors, match="contested"):
        Store(second).add([_workload("contested", "second")], commit=True)
    Store(second).add([_workload("uncontested", "second")], commit=True)
    assert git(second, "status", "--porcelain") == ""


def test_an_add_after_the_index_file_was_deleted_is_refused(store, store_path):
    # The attack: `rm .git/index`, then `add --commit`: it went ahead and left an index of
    # two entries, so a plain `git commit` afterwards would have deleted the whole store.
    store.add([_workload("kept", "first")], commit=True)
    (store_path / ".git" / "index").unlink()
    with pytest.raises(StoreStateError, match=r"git's index lacks 3 store file\(s\) that HEAD "
                       r"holds, or holds other bytes .* a deleted \.git/index, or it holds a "
                       r"change staged against HEAD\. Nothing was written"):
        store.add([_workload("next", "second")], commit=True)
    git(store_path, "reset", "-q")
    store.add([_workload("next", "second")], commit=True)
    assert git(store_path, "status", "--porcelain") == ""


def test_an_add_from_a_worktree_whose_index_holds_an_old_name_is_refused(
        store, store_path, tmp_path):
    # breaker10: another worktree of the branch renamed a manifest (--update-metadata) to
    # "taken"; this worktree's index and work tree still held the old metadata file, so an
    # add of another manifest named "taken" passed its name check and committed the name
    # twice (KI205 at HEAD), and only files missing from the index were refused.
    from kistore.store import Store

    second = tmp_path / "second"
    git(store_path, "worktree", "add", "-q", "--force", str(second), "main")
    Store(second).add([_workload("old-name", "renamed")], commit=True)
    git(store_path, "reset", "-q", "--hard")  # this worktree in step with HEAD
    # (`add --update-metadata` now refuses a committed name's change, KI208: by hand)
    renamed = _workload("taken", "renamed")
    (second / layout.metadata_path(renamed.digest)).write_bytes(renamed.metadata_bytes)
    git(second, "commit", "-q", "--no-verify", "-am", "rename")
    head = git(store_path, "rev-parse", "HEAD").strip()
    with pytest.raises(StoreStateError, match=r"git's index lacks 1 store file\(s\) that HEAD "
                       r"holds, or holds other bytes \(e\.g\. store/metadata/sha256/"):
        store.add([_workload("taken", "another")], commit=True)
    assert git(store_path, "rev-parse", "HEAD").strip() == head


def test_add_commit_beside_a_prune_packed_loop_lands_every_time(store, store_path):
    # git's prune-packed (every `git gc` and `git repack -d` runs it) removes each empty
    # fan-out directory of .git/objects; libgit2 creates ours, then renames the object
    # into it, so a removal in between failed the write with ENOENT: 97 of 100 one-
    # manifest adds were refused beside a `git gc` loop (r70 F9). Each write is retried.
    loops = [gc_loop(store_path, "git prune-packed") for _ in range(2)]
    try:
        for i in range(20):
            store.add([_workload(f"beside-prune-{i}", f"d{i}")], commit=True,
                      message=f"add {i}")
    finally:
        for loop in loops:
            stop(loop)
    assert len(git(store_path, "rev-list", "HEAD").split()) >= 20
    assert _fsck(store_path).returncode == 0, _fsck(store_path).stdout
    assert git(store_path, "status", "--porcelain") == ""


@pytest.mark.parametrize("size", ["one manifest", "packed"])
def test_add_commit_whose_commit_write_failed_beside_prune_packed_lands(
        store, store_path, monkeypatch, size):
    # flake97: the loop test above failed 1 run in 30 under load ("git no longer has
    # object <the new commit> that this add wrote"): prune-packed removed the commit's
    # fan-out directory mid-write, and libgit2's create_commit, whose commit.c drops
    # git_odb_write's error, returned the commit's id as if written. Made deterministic here.
    failed = commit_writes_failing(monkeypatch, 1)
    batch = [_workload("after-a-vanished-directory", "d")] if size == "one manifest" \
        else bulk_batch()
    store.add(batch, commit=True, message="beside a prune-packed")
    head = git(store_path, "rev-parse", "HEAD").strip()
    assert failed == [(head, False)]  # the id libgit2 gave for an unwritten commit, landed
    assert git(store_path, "cat-file", "-t", head) == "commit\n"
    assert _fsck(store_path).returncode == 0, _fsck(store_path).stdout
    assert git(store_path, "status", "--porcelain") == ""


def test_the_longest_name_the_schema_allows_is_added_and_committed(store, store_path):
    name = "n" * 253  # the schema's longest: its names file has that name
    store.add([_workload(name, "d")], commit=True, message="long name")
    names = git(store_path, "ls-tree", "-r", "--name-only", "HEAD", "store/names").split()
    assert [p.rsplit("/", 1)[1] for p in names] == [name]
    assert git(store_path, "status", "--porcelain") == ""


def test_a_stopped_gc_loop_leaves_no_git_command_running(tmp_path):
    # flake97: the loop's kill() ended the shell alone; the git command it ran went on
    loop = gc_loop(tmp_path, "sleep 30")
    deadline = time.monotonic() + 10
    while not _children(loop.pid) and time.monotonic() < deadline:
        time.sleep(0.01)
    running = _children(loop.pid)
    assert running
    stop(loop)
    deadline = time.monotonic() + 10
    while any(_alive(pid) for pid in running) and time.monotonic() < deadline:
        time.sleep(0.01)  # SIGKILL is delivered within moments
    assert not any(_alive(pid) for pid in running)


def _alive(pid: int) -> bool:
    """Whether process ``pid`` runs (a zombie, killed and not yet reaped, does not)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def _children(pid: int) -> list[int]:
    """The ids of ``pid``'s child processes (Linux: /proc/PID/task/*/children)."""
    found = []
    for task in Path(f"/proc/{pid}/task").glob("*/children"):
        found += [int(child) for child in task.read_text().split()]
    return found
