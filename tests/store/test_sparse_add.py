"""``add --commit`` in a sparse checkout writes what lies outside it to git only (issue 22).

A contributor at 10,000,000 manifests works in a sparse checkout (docs/speed.md, "Ten
million manifests"). A new file outside the checkout is committed and staged with git's
skip-worktree bit, never written to the work tree: the checkout stays sparse, ``git
status`` clean, and the commit's tree is the one a full checkout's add of the same input
makes. ``git sparse-checkout disable`` then writes the files with the committed bytes.
"""

from __future__ import annotations

import pytest

from kistore.core import layout
from kistore.core.digest import Digest
from kistore.core.errors import KistoreError
from kistore.core.model import Manifest
from kistore.git.commit import BranchCommit
from kistore.store import AddInterrupted, Store

from ..conftest import git, snapshot
from ..git.test_commit_killed import _KILLED_BEFORE_INDEX_RENAME, _bundle, _killed_add
from ..sparse import answers, skipped, sparse_clone_set

QUERIES = [("ls",), ("ls", "--kind", "BenchmarkRun"), ("show", "Implementation/impl-sp-0"),
           ("show", "BenchmarkRun/sp-0"), ("rank", "BenchmarkRun/sp-0"), ("verify",)]
"""What a full and a sparse checkout must answer alike after the same add."""


def _clones(group, tmp_path) -> tuple[Store, Store]:
    """A full clone of ``group``'s store and a cone-mode one holding ``store/trust`` only."""
    full = tmp_path / "full"
    git(tmp_path, "clone", "-q", str(group.root), str(full))
    sparse = sparse_clone_set(group.root, tmp_path / "sparse", "--cone",
                              "--no-sparse-index", "store/trust")
    return Store(full), Store(sparse)


def _new_runs(group, kit, count: int) -> list[Manifest]:
    """``count`` implementations ``impl-sp-I``, each with a run ``sp-I`` in the group."""
    view = Store(group.root).view("HEAD")
    slow = view.manifest(view.find_name("BenchmarkRun", "slow")).document["spec"]
    protocol, env, workload = (view.manifest(Digest.from_str(slow[key])).document for key in
                               ("protocolDigest", "environmentDigest", "workloadDigest"))
    docs = []
    for i in range(count):
        impl = kit.implementation(f"proj-sp-{i}", name=f"impl-sp-{i}")
        docs += [impl, kit.run(protocol, env, impl, workload, latency=20 + i, name=f"sp-{i}")]
    return [Manifest.from_document(d) for d in docs]


def _state(store: Store) -> tuple[str, str, str, dict[str, bytes], list[str]]:
    """HEAD, the index (``ls-files --stage``, with ``-t`` tags), status, every work-tree
    file, and git's lock and kistore's scratch files left in the git directory."""
    root = store.root
    leftovers = sorted(p.name for p in (root / ".git").glob("*")
                       if p.name.endswith(".lock") and p.name != "kistore-write.lock"
                       or p.name.startswith("kistore-index"))
    return (git(root, "rev-parse", "HEAD"), git(root, "ls-files", "-t", "--stage"),
            git(root, "status", "--porcelain", "--untracked-files=all"), snapshot(root),
            leftovers)


@pytest.mark.parametrize("count", [1, 12], ids=["few-files", "bulk-packed"])
def test_add_commit_writes_files_outside_the_checkout_to_git_only(group, tmp_path, kit,
                                                                  count):
    full, sparse = _clones(group, tmp_path)
    before = snapshot(sparse.root)
    manifests = _new_runs(group, kit, count)
    full.add(manifests, commit=True, message="same input")
    sparse.add(manifests, commit=True, message="same input")
    assert snapshot(sparse.root) == before  # no file written outside the checkout
    tree = git(sparse.root, "rev-parse", "HEAD^{tree}")
    assert tree == git(full.root, "rev-parse", "HEAD^{tree}")
    new = set(git(sparse.root, "diff", "--name-only", "HEAD~", "HEAD").split())
    assert len(new) == 7 * count  # object, metadata, name of two manifests; a group file
    assert new <= skipped(sparse.root)  # staged skip-worktree
    assert git(sparse.root, "status", "--porcelain", "--untracked-files=all") == ""
    assert answers(sparse.root, QUERIES) == answers(full.root, QUERIES)
    assert answers(sparse.root, QUERIES)[-1][0] == 0  # verify passes
    git(sparse.root, "sparse-checkout", "disable")
    assert snapshot(sparse.root) == snapshot(full.root)  # byte-exact, every file
    assert git(sparse.root, "status", "--porcelain", "--untracked-files=all") == ""


def test_a_plain_add_in_a_sparse_checkout_still_writes_its_files(group, tmp_path, kit):
    _, sparse = _clones(group, tmp_path)
    [impl, run] = _new_runs(group, kit, 1)
    sparse.add([impl, run])  # for `git add --sparse store`: the files are the change
    name = layout.name_path("Implementation", "impl-sp-0")
    assert (sparse.root / name).read_bytes() == layout.name_record(impl.digest)
    assert (sparse.root / layout.object_path(run.digest)).read_bytes() == run.object_bytes
    sparse.add([impl, run], commit=True)  # the files there are committed as they are
    assert git(sparse.root, "status", "--porcelain", "--untracked-files=all") == ""
    assert name not in skipped(sparse.root) and (sparse.root / name).exists()


def test_an_add_refused_in_a_sparse_checkout_writes_nothing(group, tmp_path, kit):
    _, sparse = _clones(group, tmp_path)
    before = _state(sparse)
    taken = Manifest.from_document(kit.implementation("another-project", name="impl-fast"))
    with pytest.raises(KistoreError, match="'impl-fast' is already used by"):
        sparse.add([*_new_runs(group, kit, 12), taken], commit=True)
    assert _state(sparse) == before


def test_ctrl_c_before_the_branch_moves_leaves_the_sparse_checkout_as_it_was(
        group, tmp_path, kit, monkeypatch):
    _, sparse = _clones(group, tmp_path)
    before = _state(sparse)

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(BranchCommit, "_move", interrupted)  # after staging, before the swap
    with pytest.raises(KeyboardInterrupt):
        sparse.add(_new_runs(group, kit, 12), commit=True, message="never")
    assert _state(sparse) == before


def test_ctrl_c_after_the_branch_moved_keeps_the_skipped_entries(group, tmp_path, kit,
                                                                 monkeypatch):
    _, sparse = _clones(group, tmp_path)
    before = snapshot(sparse.root)

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(Store, "_record_names", interrupted)  # the step after the move
    with pytest.raises(AddInterrupted) as landed:
        sparse.add(_new_runs(group, kit, 12), commit=True, message="landed")
    assert str(landed.value.commit) == git(sparse.root, "rev-parse", "HEAD").strip()
    assert git(sparse.root, "status", "--porcelain", "--untracked-files=all") == ""
    assert snapshot(sparse.root) == before
    new = set(git(sparse.root, "diff", "--name-only", "HEAD~", "HEAD").split())
    assert len(new) == 84 and new <= skipped(sparse.root)


def test_a_commit_killed_before_its_index_landed_is_restaged_skip_worktree(store_path, kit,
                                                                           tmp_path):
    git(store_path, "sparse-checkout", "set", "--cone", "--no-sparse-index", "store/trust")
    source, _, files = _bundle(kit, tmp_path / "bundle.json")
    _killed_add(_KILLED_BEFORE_INDEX_RENAME, store_path, source)
    (store_path / ".git" / "index.lock").unlink()  # what the user is told to do
    before = snapshot(store_path)
    other = Manifest.from_document(kit.workload("gemm", name="another-workload"))
    Store(store_path).add([other], commit=True)
    assert git(store_path, "status", "--porcelain", "--untracked-files=all") == ""
    assert snapshot(store_path) == before
    assert set(files) <= skipped(store_path)
