"""The store in a sparse checkout (issue 22): files outside it are HEAD's, never deleted.

A contributor at 10,000,000 manifests works in a sparse clone (docs/speed.md, "Ten million
manifests"). git marks each path outside the checkout skip-worktree and treats it as
committed; the work-tree view does the same (reads it from HEAD, re-hashed), and an add keeps
the other entries' bits and leaves ``git status`` clean.
"""

from __future__ import annotations

import pytest

from kistore.core import layout
from kistore.core.digest import Digest
from kistore.core.errors import KistoreError, StoreStateError, VerificationError
from kistore.core.model import Manifest
from kistore.store import SparseWorkTreeView, Store, WorkTreeView, admission

from ..conftest import DATA, add_docs, commit_all, git, requires_data, store_file, write_raw
from ..sparse import MODES, shard_dirs, skipped, sparse_clone


def _clone(group, tmp_path, mode: str) -> tuple[Store, str]:
    run = str(Store(group.root).view("HEAD").find_name("BenchmarkRun", "slow"))
    return Store(sparse_clone(group.root, tmp_path / "clone", mode, run)), run


def _status(root) -> str:
    return git(root, "status", "--porcelain", "--untracked-files=all")


@pytest.mark.parametrize("mode", MODES)
def test_the_work_tree_view_of_a_sparse_clone_is_the_full_clone_s(group, tmp_path, mode):
    store, run = _clone(group, tmp_path, mode)
    view = store.view()
    assert isinstance(view, SparseWorkTreeView)
    full = Store(group.root).view()
    assert type(full) is WorkTreeView  # a full checkout pays nothing
    assert view.files().modes == full.files().modes
    assert sorted(view.digests()) == sorted(full.digests())
    outside = [d for d in full.digests()
               if not (store.root / layout.object_path(d)).exists()]
    assert len(outside) >= 5  # most of the 11 manifests: only one shard pair is checked out
    for digest in [*outside, Digest.from_str(run)]:
        assert view.has_object(digest)
        assert view.object_bytes(digest) == full.object_bytes(digest)  # re-hashed
        assert view.manifest(digest).document == full.manifest(digest).document
    assert view.names() == full.names()
    assert view.shard_keys().keys() == full.shard_keys().keys()
    assert _status(store.root) == ""


def test_a_file_outside_the_checkout_is_hashed_when_read(group, tmp_path):
    run = Store(group.root).view("HEAD").find_name("BenchmarkRun", "slow")
    digest = next(d for d in Store(group.root).view().digests()
                  if d.hex[:2] != run.hex[:2])
    path = store_file(str(digest))
    write_raw(group.root, path, b'{"tampered": true}')
    commit_all(group.root, "an object committed with other bytes (past the hooks)")
    store, _ = _clone(group, tmp_path, "cone")
    assert not (store.root / path).exists()
    with pytest.raises(VerificationError, match="the object file is corrupt"):
        store.view().object_bytes(digest)


@pytest.mark.parametrize("mode", ["no-cone", "cone"])
def test_add_commit_keeps_skip_worktree_bits_and_git_status_clean(group, tmp_path, kit,
                                                                  mode):
    store, kept = _clone(group, tmp_path, mode)
    before = skipped(store.root)
    workload = kit.workload("softmax", name="sparse-new-workload")
    [digest] = add_docs(store, [workload])
    assert _status(store.root) == ""
    assert before <= skipped(store.root)  # every other entry is still outside the checkout
    committed = git(store.root, "ls-tree", "-r", "--name-only", "HEAD").split()
    assert store_file(digest) in committed and store_file(digest, "metadata") in committed
    assert git(store.root, "rev-parse", "HEAD~").strip() == git(group.root, "rev-parse",
                                                                "HEAD").strip()
    # the clone's HEAD is the source's plus the workload: nothing outside was dropped
    source = git(group.root, "ls-tree", "-r", "--name-only", "HEAD").split()
    assert set(committed) - set(source) == {
        store_file(digest), store_file(digest, "metadata"),
        layout.name_path("Workload", "sparse-new-workload")}
    # the new files outside the checkout leave the work tree on reapply, and read as HEAD's
    git(store.root, "sparse-checkout", "reapply")
    outside = store_file(digest).rpartition("/")[0] not in shard_dirs(kept)
    assert (store.root / store_file(digest)).exists() != outside
    assert _status(store.root) == ""
    assert Store(store.root).view().manifest(Digest.from_str(digest)).document == workload


@pytest.mark.parametrize("bulk", [False, True])
def test_adding_manifests_stored_outside_the_checkout_writes_nothing(group, tmp_path,
                                                                     monkeypatch, bulk):
    if bulk:  # the listing path a bulk add of 64 or more manifests takes
        monkeypatch.setattr(admission, "BULK_LOOKUP", 1)
    store, _ = _clone(group, tmp_path, "no-cone")
    head = git(store.root, "rev-parse", "HEAD")
    full = Store(group.root).view()
    manifests = [full.manifest(d, schema=False) for d in full.digests()]
    results = store.add(manifests, commit=True)
    assert len(manifests) == 11
    assert [r.status for r in results] == ["unchanged"] * 11
    assert git(store.root, "rev-parse", "HEAD") == head  # nothing new to commit
    assert _status(store.root) == ""  # and no file written outside the checkout


@pytest.mark.parametrize("bulk", [False, True])
def test_a_name_held_outside_the_checkout_is_taken(group, tmp_path, kit, monkeypatch, bulk):
    if bulk:
        monkeypatch.setattr(admission, "BULK_LOOKUP", 1)
    store, _ = _clone(group, tmp_path, "cone")
    name = layout.name_path("Implementation", "impl-fast")
    assert not (store.root / name).exists()  # outside the checkout
    again = kit.implementation("another-project", name="impl-fast")
    with pytest.raises(KistoreError, match="impl-fast") as refused:
        store.add([Manifest.from_document(again)], commit=True)
    owner = Store(group.root).view().find_name("Implementation", "impl-fast")
    assert f"'impl-fast' is already used by {owner}" in str(refused.value)
    assert _status(store.root) == ""


def test_add_commit_into_a_sparse_index_is_refused_saying_what_works(group, tmp_path, kit):
    store, _ = _clone(group, tmp_path, "cone-sparse-index")
    head = git(store.root, "rev-parse", "HEAD")
    workload = kit.workload("softmax", name="sparse-new-workload")
    with pytest.raises(StoreStateError) as refused:
        add_docs(store, [workload])
    said = " ".join(str(refused.value).split())
    assert "sparse index" in said and "nothing was written" in said
    assert "`git add --sparse store && git commit`" in said
    assert "`git sparse-checkout reapply --no-sparse-index`" in said
    assert git(store.root, "rev-parse", "HEAD") == head and _status(store.root) == ""
    # what it says works: a plain add, then git commits it
    [digest] = add_docs(Store(store.root), [workload], commit=False)
    git(store.root, "add", "--sparse", "store")
    git(store.root, "commit", "-q", "-m", "a workload")
    assert _status(store.root) == ""
    assert store_file(digest) in git(store.root, "ls-tree", "-r", "--name-only", "HEAD")
    # and the other way: a full index of the same checkout takes add --commit
    git(store.root, "sparse-checkout", "reapply", "--no-sparse-index")
    [other] = add_docs(Store(store.root), [kit.workload("gelu", name="second-workload")])
    assert _status(store.root) == ""
    assert store_file(other) in git(store.root, "ls-tree", "-r", "--name-only", "HEAD")


@requires_data
def test_import_commit_in_a_sparse_clone_adds_only_what_is_new(tmp_path):
    from kistore.importers import import_files

    source = tmp_path / "source"
    import_files(Store.init(source), "flashinfer-trace", [str(DATA / "flashinfer-trace")],
                 commit=True)
    some = next(Store(source).view().digests())
    clone = Store(sparse_clone(source, tmp_path / "clone", "no-cone", str(some)))
    before, head = skipped(clone.root), git(clone.root, "rev-parse", "HEAD")
    again = import_files(clone, "flashinfer-trace", [str(DATA / "flashinfer-trace")],
                         commit=True)
    # every manifest is stored, most of them outside the checkout
    assert {r.status for r in again.results} == {"unchanged"}
    assert git(clone.root, "rev-parse", "HEAD") == head and _status(clone.root) == ""
    more = import_files(clone, "kernelbench", [str(DATA / "kernelbench" / "H100_Modal")],
                        commit=True)
    assert "added" in {r.status for r in more.results}
    assert _status(clone.root) == "" and before <= skipped(clone.root)


def test_a_sparse_clone_is_an_ordinary_work_tree_unless_config_worktree_moves_it(
        group, tmp_path):
    from kistore.store._store import _plain_work_tree

    store, _ = _clone(group, tmp_path, "cone-sparse-index")
    assert "worktreeconfig" in (store.root / ".git" / "config").read_text().lower()
    assert _plain_work_tree(str(store.root / "store")) == store.root  # found without libgit2
    git(store.root, "config", "--worktree", "core.worktree", str(store.root))
    assert _plain_work_tree(str(store.root)) is None  # libgit2 discovers it
