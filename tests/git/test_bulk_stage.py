"""A bulk ``add --commit`` stages by reading the new tree into git's index (issue 22).

libgit2 inserts each new index entry at its sorted place, moving every entry after it: a
chunk of N paths into an index of M entries cost O(N x M) (the per-chunk growth of a store
built by chunked ``add --commit``s). From ``BULK_STAGE`` paths on, an index in step with
the parent commit takes the new commit's tree in one pass instead; it must end exactly as
inserting would have left it: the same entries, every one with its file's stat data.
"""

from __future__ import annotations

import pytest

from bench.generate import manifests
from kistore.core.model import Manifest
from kistore.git import _gitindex as gitindex
from kistore.store import Store

from ..conftest import git

GENERATED_TREE = "eb7e9024a799db9be43b68175935f2cb7d1f73b0"
"""The tree of the commit of :func:`_add_generated`, as main (5381f070) wrote it, but for
`kistore init`'s kistore.toml template line for `object-members` (keys86), and each run's
``sourceNative.benchmark``, its workload's definition since 2026-12-04 (KI238; fix91)."""


def _add_generated(store: Store, n: int = 300, first: int = 120) -> None:
    """Add the bench's first ``n`` manifests in two ``add --commit``s: ``first``, then the rest."""
    batch = _batch(n)
    store.add(batch[:first], commit=True, message="first")
    store.add(batch[first:], commit=True, message="second")


def always_read(monkeypatch, threshold: int = 1) -> None:
    """Read the tree from ``threshold`` paths into an index of as many entries on."""
    monkeypatch.setattr(gitindex, "BULK_STAGE", threshold)
    monkeypatch.setattr(gitindex, "BULK_INDEX", threshold)


def _batch(n: int) -> list[Manifest]:
    return [Manifest.from_document(d) for d in manifests(n)]


@pytest.fixture
def read_tree_calls(monkeypatch) -> list[bool]:
    """One entry a call of ``_read_new_tree``: True when the index then held the new tree."""
    calls: list[bool] = []
    real = gitindex._read_new_tree

    def spy(index, parent, tree):
        real(index, parent, tree)
        calls.append(len(tree.diff_to_index(index)) == 0)  # read: exactly the tree's entries

    monkeypatch.setattr(gitindex, "_read_new_tree", spy)
    return calls


def _stage_lines(store_path) -> list[str]:
    """``MODE OID PATH`` of each index entry."""
    return [f"{line.split()[0]} {line.split()[1]} {line.split(chr(9))[1]}"
            for line in git(store_path, "ls-files", "--stage").splitlines()]


def _tree_lines(store_path) -> list[str]:
    """``MODE OID PATH`` of each file of HEAD's tree."""
    return [f"{line.split()[0]} {line.split()[2]} {line.split(chr(9))[1]}"
            for line in git(store_path, "ls-tree", "-r", "HEAD").splitlines()]


def test_a_bulk_stage_reads_the_tree_and_keeps_every_entry_and_its_stat(
        store, store_path, monkeypatch, read_tree_calls):
    always_read(monkeypatch)
    batch = _batch(300)
    store.add(batch[:120], commit=True, message="first")
    before = git(store_path, "ls-files", "--debug")
    store.add(batch[120:], commit=True, message="second")
    assert read_tree_calls == [True, True]  # both adds: the index was in step with HEAD
    assert git(store_path, "rev-parse", "HEAD^{tree}").strip() == GENERATED_TREE
    assert _stage_lines(store_path) == _tree_lines(store_path)
    # no refresh: an entry whose stat data does not match its file is listed
    assert git(store_path, "diff-files", "--name-only") == ""
    after = git(store_path, "ls-files", "--debug")
    old = before.split("\n")
    assert all(line in after for line in old)  # the first add's entries: the same stat data
    assert git(store_path, "status", "--porcelain") == ""


def test_inserting_and_reading_the_tree_leave_the_same_index(tmp_path, monkeypatch):
    listings = []
    for bulk in (10**9, 1):
        always_read(monkeypatch, bulk)
        Store.init(tmp_path / str(bulk))
        _add_generated(Store(tmp_path / str(bulk)))
        assert git(tmp_path / str(bulk), "rev-parse", "HEAD^{tree}").strip() == GENERATED_TREE
        assert git(tmp_path / str(bulk), "diff-files", "--name-only") == ""
        listings.append(git(tmp_path / str(bulk), "ls-files", "--stage", "-t"))
    assert listings[0] == listings[1]


def test_a_change_staged_by_hand_is_kept_the_tree_is_not_read(
        store, store_path, monkeypatch, read_tree_calls):
    always_read(monkeypatch)
    batch = _batch(60)
    store.add(batch[:20], commit=True, message="first")
    (store_path / "NOTES.md").write_text("staged, not committed\n")
    git(store_path, "add", "NOTES.md")
    store.add(batch[20:], commit=True, message="second")
    assert read_tree_calls == [True, False]
    assert git(store_path, "diff", "--cached", "--name-status") == "A\tNOTES.md\n"
    assert "NOTES.md" not in git(store_path, "ls-tree", "-r", "--name-only", "HEAD")
    assert git(store_path, "diff-files", "--name-only") == ""


def test_an_index_with_extended_flags_is_never_read_over(store, store_path, monkeypatch,
                                                         read_tree_calls):
    # An intent-to-add entry makes git write index version 3: a tree read would drop it.
    always_read(monkeypatch)
    batch = _batch(60)
    store.add(batch[:20], commit=True, message="first")
    (store_path / "LATER.md").write_text("intent to add\n")
    git(store_path, "add", "-N", "LATER.md")
    assert (store_path / ".git" / "index").read_bytes()[4:8] == b"\0\0\0\3"
    store.add(batch[20:], commit=True, message="second")
    assert read_tree_calls == [True]  # the first add's; the second inserted its entries
    assert git(store_path, "status", "--porcelain") == " A LATER.md\n"  # still intent-to-add
    assert git(store_path, "diff-files", "--name-only") == "LATER.md\n"


def test_below_the_index_size_entries_are_inserted(store, monkeypatch, read_tree_calls):
    # A kistore store's trees are loose objects: reading them costs more than inserting
    # into an index of fewer than BULK_INDEX entries (120,000 paths into 240,000: ~6 s more).
    monkeypatch.setattr(gitindex, "BULK_STAGE", 1)
    assert gitindex.BULK_INDEX == 1_000_000
    _add_generated(store, 60, 20)
    assert read_tree_calls == []
