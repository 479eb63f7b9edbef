"""The gate's guard reads what the range needs, not HEAD's whole history (gate96).

The guard before libgit2's walks (review F3: a loose commit cut short loops libgit2)
read every commit of HEAD's history: 0.40 of the gate's 0.77 s at 10,001 commits on the
2026-12-05 ``--million`` bench. :mod:`kistore.git.range_guard` holds the loose files to
their headers and reads the range's commits and their parents; the whole read runs only
when a loose file is at fault or a walk fails, to name the damage as before.
"""

from __future__ import annotations

import time
from pathlib import Path

import pygit2
import pytest

from kistore.check import gate
from kistore.cli import main as cli
from kistore.git import blobs, range_guard
from kistore.store import Store

from ..cli.test_truncated_loose_object import cut
from ..conftest import git


def deepen(root: Path, commits: int) -> list[str]:
    """Put ``commits`` commits of HEAD's tree on HEAD, a second apart, ending now; their ids."""
    repo = pygit2.Repository(str(root))
    parent = repo.head.peel(pygit2.Commit)
    start = int(time.time()) - commits
    made = []
    for i in range(commits):
        who = pygit2.Signature("t", "t@x", start + i, 0)
        oid = repo.create_commit("HEAD", who, who, f"step {i}\n", parent.tree_id, [parent.id])
        parent = repo[oid]
        made.append(str(oid))
    return made


def gate_reads(root: Path, monkeypatch) -> list[str]:
    """Run the gate of ``HEAD~1..HEAD``; return each id read by id (never the whole history)."""
    read: list[str] = []

    def counted(real):
        def reader(repo, oid, *args, **kwargs):
            read.append(str(oid))
            return real(repo, oid, *args, **kwargs)
        return reader

    for module, name in ((blobs, "loose_object"), (range_guard, "loose_object"),
                         (range_guard, "object_by_id"), (range_guard, "object_type")):
        monkeypatch.setattr(module, name, counted(getattr(module, name)))

    def whole(repo, tip):
        pytest.fail(f"the gate read the whole history of {tip}")

    monkeypatch.setattr(range_guard, "read_loose_history", whole)
    monkeypatch.setattr(gate, "read_loose_history", whole)
    assert gate.check_range(Store(root), "HEAD~1..HEAD") == []
    return read


def pull_request(root: Path, depth: int, monkeypatch) -> tuple[list[str], list[str]]:
    """Deepen HEAD by ``depth`` packed commits, put one loose commit on top, run its gate.

    Returns:
        (the ids of HEAD's history, each id the gate read by id, in order).
    """
    deepen(root, depth)
    git(root, "repack", "-adq")  # a clone's history: packed, as CI fetches it
    git(root, "prune-packed")
    deepen(root, 1)  # the pull request's commit: loose, as a fetch leaves it
    history = git(root, "rev-list", "HEAD").split()
    with monkeypatch.context() as patched:
        return history, gate_reads(root, patched)


def test_the_gate_of_one_commit_reads_the_range_not_the_history(published, monkeypatch):
    counts = []
    for depth in (20, 200):
        history, read = pull_request(published, depth, monkeypatch)
        commits = [r for r in read if r in set(history)]
        # HEAD (loose: read whole) and BASE (its tree is read next), of 22 then 223
        assert set(commits) == set(history[:2]), depth
        counts.append(len(commits))
    assert counts[0] == counts[1]  # ten times the history, the same commit reads


def test_a_cut_loose_commit_below_base_is_named_as_before(published, runner, monkeypatch):
    history = deepen(published, 12)  # all loose
    cut(published, history[3])  # eight commits below BASE: no walk of the range needs it...
    monkeypatch.chdir(published)
    done = runner.invoke(cli, ["check", "HEAD~1..HEAD"])
    # ...but a loose file at fault has the whole history read, which names it (F3)
    assert done.exit_code == 1, done.output
    assert (f"git object {history[3]} cannot be read (its loose object file is cut short"
            in done.output)


def test_past_the_cap_of_loose_files_the_history_is_read_not_each_file(published,
                                                                        monkeypatch):
    # A store kistore wrote and nothing packed holds a loose file an object: holding each
    # to its header (~19 us) would cost more than the history's read. Past LOOSE_MAX the
    # guard reads the tips' histories, as before gate96, and a cut commit is still named.
    history = deepen(published, 12)  # all loose
    monkeypatch.setattr(range_guard, "LOOSE_MAX", 5)
    held: list[str] = []
    monkeypatch.setattr(range_guard, "_hold", lambda repo, file, oid: held.append(oid))
    read: list[str] = []
    real = range_guard.read_loose_history
    monkeypatch.setattr(range_guard, "read_loose_history",
                        lambda repo, tip: (read.append(str(tip)), real(repo, tip))[1])
    assert gate.check_range(Store(published), "HEAD~1..HEAD") == []
    assert held == [] and set(read) == {history[-1], history[-2]}  # cached per tip
    cut(published, history[3])
    blobs._read_histories.clear()  # a new process: the histories are read again
    with pytest.raises(blobs.ObjectUnreadable, match="its loose object file is cut short"):
        gate.check_range(Store(published), "HEAD~1..HEAD")


def test_a_cut_loose_commit_outside_the_history_is_left_alone(published, monkeypatch):
    deepen(published, 3)
    side = deepen(published, 1)[0]  # then HEAD moved back: a commit no walk reaches
    git(published, "update-ref", "HEAD", f"{side}~1")
    cut(published, side)
    assert gate.check_range(Store(published), "HEAD~1..HEAD") == []


def test_a_commit_naming_a_loose_blob_as_parent_is_a_fault(published, monkeypatch):
    repo = pygit2.Repository(str(published))
    blob = repo.create_blob(b"not a commit\n")
    head = repo.head.peel(pygit2.Commit)
    who = pygit2.Signature("t", "t@x", int(time.time()), 0)
    oid = repo.create_commit(None, who, who, "odd\n", head.tree_id, [head.id])
    raw = repo[oid].read_raw().replace(f"parent {head.id}".encode(), f"parent {blob}".encode())
    bad = repo.odb.write(pygit2.enums.ObjectType.COMMIT, raw)
    on_top = repo.create_commit(None, who, who, "top\n", head.tree_id, [bad])
    git(published, "update-ref", "HEAD", str(on_top))
    with pytest.raises(blobs.CommitUnparsable, match="which is a blob, not a commit"):
        gate.check_range(Store(published), "HEAD~1..HEAD")


def libgit2_range(repo: pygit2.Repository, tip: str, hide: str) -> list[str]:
    """libgit2's topological walk of ``hide..tip`` (what the gate walked before gate96)."""
    walker = repo.walk(tip, pygit2.enums.SortMode.TOPOLOGICAL)
    walker.hide(hide)
    return [str(c.id) for c in walker]


def test_a_line_of_commits_is_the_range_libgit2_walks(published):
    repo = pygit2.Repository(str(published))
    base = str(repo.head.target)
    line = deepen(published, 3)
    topo = pygit2.enums.SortMode.TOPOLOGICAL
    assert [str(c.id) for c in range_guard.line_to(repo, line[-1], base)] == line[::-1]
    assert [str(c.id) for c in range_guard.walk_range(repo, line[-1], base, topo)] \
        == libgit2_range(repo, line[-1], base) == line[::-1]
    assert range_guard.line_to(repo, base, base) == []
    assert range_guard.line_to(repo, base, line[-1]) is None  # BASE is no ancestor: libgit2
    # a merge in the range: libgit2's walk, as before
    who = pygit2.Signature("t", "t@x", int(time.time()), 0)
    side = repo.create_commit(None, who, who, "side\n", repo[base].tree_id, [base])
    merge = str(repo.create_commit(None, who, who, "merge\n", repo[base].tree_id,
                                   [line[-1], side]))
    assert range_guard.line_to(repo, merge, base) is None
    assert [str(c.id) for c in range_guard.walk_range(repo, merge, base, topo)] \
        == libgit2_range(repo, merge, base)
    assert range_guard.line_to(repo, merge, line[0]) is None


def scans(monkeypatch) -> list[str]:
    """Count the guard's scans of the loose object files from now on (one entry a scan)."""
    counted: list[str] = []
    real = range_guard.loose_files

    def listing(repo):
        counted.append(repo.path)
        return real(repo)

    monkeypatch.setattr(range_guard, "loose_files", listing)
    return counted


def test_the_loose_files_are_scanned_once_a_range(published, monkeypatch):
    # HEAD~1..HEAD adds the published run: the range check, its ancestry walk and KI227's
    # walk for the commit first adding the run each guarded a walk; each scanned every
    # loose file until upd97 (three scans, the later ones a stat of each file)
    counted = scans(monkeypatch)
    found = gate.check_range(Store(published), "HEAD~1..HEAD")
    assert {f.rule.id for f in found} == {"KI201"}  # the record's dangling references
    assert len(counted) == 1
    deepen(published, 2)  # a longer range, loose too: still one
    counted.clear()
    assert {f.rule.id for f in gate.check_range(Store(published), "HEAD~3..HEAD")} == {"KI201"}
    assert len(counted) == 1


def test_the_loose_files_are_scanned_once_a_push(published, monkeypatch):
    old, base = git(published, "rev-parse", "HEAD~1", "HEAD").split()
    feature = deepen(published, 1)[0]
    git(published, "update-ref", "HEAD", base)
    counted = scans(monkeypatch)
    # main's move (a range, and its first-parent walk: KI430) and a new branch (a range)
    found = gate.check_updates(Store(published), [(old, base, "refs/heads/main"),
                                                  ("0" * 40, feature, "refs/heads/feature")])
    assert {f.rule.id for f in found} == {"KI201"}  # the record's dangling references
    assert len(counted) == 1


def test_a_fault_found_once_still_names_the_damage_for_each_walk(published, monkeypatch):
    history = deepen(published, 12)  # all loose
    cut(published, history[3])
    counted = scans(monkeypatch)
    with pytest.raises(blobs.ObjectUnreadable, match="its loose object file is cut short"):
        gate.check_range(Store(published), "HEAD~1..HEAD")
    assert len(counted) == 1
