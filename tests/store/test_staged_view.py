"""StagedView: HEAD's tree with changes staged outside a sparse checkout, read as git would.

The view must answer exactly as the commit of those changes would (:class:`CommitView`):
every file, mode, byte, blob id and directory listing. Checked against a real commit made
by git from the same index, for random changes (added, modified, made executable, removed).
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pygit2
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kistore.git.sparse import SkipWorktree, skip_worktree
from kistore.store import CommitView, StagedView

from ..conftest import git

SHARDS = ("store/objects/sha256/ab", "store/objects/sha256/cd", "store/attestations/sha256/ab/x")
NAMES = ("1.json", "2.json", "3.json")
PATHS = [f"{d}/{n}" for d in SHARDS for n in NAMES]
KEEP = "keep.json"  # removed only with the rest of its directory (EMPTIED)


@pytest.fixture(scope="module")
def repo(tmp_path_factory) -> Path:
    """A repository whose HEAD holds ``NAMES[:2]`` and ``KEEP`` in each of ``SHARDS``."""
    root = tmp_path_factory.mktemp("staged") / "repo"
    git(root.parent, "init", "-q", "-b", "main", str(root))
    for directory in SHARDS:
        (root / directory).mkdir(parents=True)
        for name in (*NAMES[:2], KEEP):
            (root / directory / name).write_text(f"{directory}/{name}\n")
    (root / "kistore.toml").write_text("[limits]\n")
    git(root, "add", "-A")
    git(root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "head")
    return root


CHANGES = st.dictionaries(st.sampled_from([*PATHS, "kistore.toml"]),
                          st.one_of(st.none(), st.tuples(st.sampled_from([0o100644, 0o100755]),
                                                         st.binary(max_size=20))),
                          max_size=6)
EMPTIED = st.sets(st.sampled_from(SHARDS))
"""Directories whose every file's removal is staged (unless CHANGES puts one back): the
commit has no such directory, nor a parent left empty, and the view must not list it."""


def _blob(root: Path, data: bytes) -> str:
    return subprocess.run(["git", "hash-object", "-w", "--stdin"], cwd=root, input=data,
                          capture_output=True, check=True).stdout.decode().strip()


@settings(max_examples=60, deadline=None, suppress_health_check=[
    HealthCheck.function_scoped_fixture])
@given(CHANGES, EMPTIED)
def test_a_staged_view_answers_as_the_commit_of_its_changes(repo, changes, emptied):
    head = pygit2.Repository(str(repo))
    for directory in emptied:
        for name in (*NAMES[:2], KEEP):
            changes.setdefault(f"{directory}/{name}", None)
    staged = {}
    for path, change in changes.items():
        staged[path] = None if change is None else (change[0], _blob(repo, change[1]))
    # the commit git makes of HEAD with those index entries
    git(repo, "read-tree", "HEAD")
    for path, entry in staged.items():
        if entry is None:
            git(repo, "update-index", "--force-remove", "--", path)
        else:
            git(repo, "update-index", "--add", "--cacheinfo", f"{entry[0]:o},{entry[1]},{path}")
    tree = git(repo, "write-tree").strip()
    git(repo, "read-tree", "HEAD")
    who = pygit2.Signature("t", "t@t")
    commit = head[head.create_commit(None, who, who, "staged", pygit2.Oid(hex=tree), [])]
    want = CommitView(head, commit.peel(pygit2.Commit))
    view = StagedView(head, head.head.peel(pygit2.Commit), staged)
    assert view.files().modes == want.files().modes
    for path in [*PATHS, *(f"{d}/{KEEP}" for d in SHARDS), "kistore.toml", "store/none"]:
        assert view.read(path) == want.read(path), path
        assert view.modes_of([path]) == want.modes_of([path]), path
        assert view.blob_id(path) == (None if want.blob_id(path) is None
                                      else str(want.blob_id(path))), path
        assert view.blob_ids([path]) == want.blob_ids([path]), path
        data = want.read(path)
        if data is not None:
            assert view.holds(path, data) and not view.holds(path, data + b"x"), path
    for directory in ("", "store", "store/objects", "store/objects/sha256", *SHARDS,
                      "store/attestations", "store/attestations/sha256",
                      "store/attestations/sha256/ab"):
        assert sorted(view.list_dir(directory)) == sorted(want.list_dir(directory)), directory
    for shard in ("objects/ab", "objects/cd"):
        assert view.file_keys(shard) == want.file_keys(shard), shard


def test_skip_worktree_keeps_the_staged_changes_outside_the_checkout(tmp_path, repo):
    """git's own answer: diff-index of a sparse clone with a commit staged by cherry-pick -n."""
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "--no-checkout", str(repo), str(clone))
    git(clone, "sparse-checkout", "set", "--cone", "--sparse-index", SHARDS[0])
    git(clone, "checkout", "-q", "main")
    assert skip_worktree(clone / ".git", clone).staged == {}
    git(repo, "checkout", "-q", "-b", "change")
    (repo / SHARDS[1] / NAMES[2]).write_text("new\n")
    (repo / SHARDS[1] / NAMES[0]).unlink()
    (repo / SHARDS[0] / NAMES[1]).write_text("inside\n")  # in the checkout: not kept
    git(repo, "add", "-A")
    git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "change")
    git(repo, "checkout", "-q", "main")
    git(clone, "fetch", "-q", "origin", "change")
    git(clone, "cherry-pick", "-n", "FETCH_HEAD")
    found = skip_worktree(clone / ".git", clone)
    assert found is not None
    new = git(clone, "rev-parse", f":{SHARDS[1]}/{NAMES[2]}").strip()
    assert found.staged == {f"{SHARDS[1]}/{NAMES[2]}": (0o100644, new),
                            f"{SHARDS[1]}/{NAMES[0]}": None}
    assert found.changed == {*found.staged, f"{SHARDS[0]}/{NAMES[1]}"}  # inside too: verify's
    assert found.stamp(SHARDS[1]) != SkipWorktree.of([f"{SHARDS[1]}/"]).stamp(SHARDS[1])
    git(clone, "reset", "-q")  # unstaged: the index is HEAD's again
    again = skip_worktree(clone / ".git", clone)
    assert again is not None and again.staged == {} and again.changed == frozenset()


def test_asking_for_staged_changes_keeps_a_sparse_index_sparse(tmp_path, repo, monkeypatch):
    """No git child expands a sparse index to every file (at millions of files: seconds).

    ``git diff-index --cached`` (git 2.39) did (``ensure_full_index`` in its trace); ``git
    diff --cached`` and ``git ls-files --sparse`` do not.
    """
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "--no-checkout", str(repo), str(clone))
    git(clone, "sparse-checkout", "set", "--cone", "--sparse-index", SHARDS[0])
    git(clone, "checkout", "-q", "main")
    trace = tmp_path / "trace"
    monkeypatch.setenv("GIT_TRACE2_PERF", str(trace))
    found = skip_worktree(clone / ".git", clone)
    assert found is not None and found.sparse_index and found.staged == {}
    assert "diff" in trace.read_text()  # the trace covers the comparison
    assert "ensure_full_index" not in trace.read_text()


def test_a_folder_whose_files_are_all_removed_is_not_listed(repo):
    """Every file of ``store/attestations`` removed in the index: no folder on the way to them
    is listed (each listing read nothing), while ``store/objects`` keeps its shards."""
    head = pygit2.Repository(str(repo))
    staged = {f"{SHARDS[2]}/{name}": None for name in (*NAMES[:2], KEEP)}
    staged[f"{SHARDS[0]}/{KEEP}"] = None  # one of three: the shard stays
    view = StagedView(head, head.head.peel(pygit2.Commit), staged)
    assert sorted(view.list_dir("store")) == ["objects"]
    assert view.list_dir("store/attestations") == []
    assert view.list_dir("store/attestations/sha256/ab") == []
    assert sorted(view.list_dir("store/objects/sha256")) == ["ab", "cd"]
    assert sorted(view.list_dir(SHARDS[0])) == sorted(NAMES[:2])
    back = dict(staged, **{f"{SHARDS[2]}/{NAMES[0]}": (0o100644, _blob(repo, b"back\n"))})
    view = StagedView(head, head.head.peel(pygit2.Commit), back)  # one file staged again
    assert sorted(view.list_dir("store")) == ["attestations", "objects"]
    assert view.list_dir(SHARDS[2]) == [NAMES[0]]
