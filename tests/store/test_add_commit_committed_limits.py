"""``add --commit`` holds what it commits to the limits HEAD commits (review 2026-12-02 F15).

A limit raised in the work tree's kistore.toml and not committed let ``add --commit`` make a
commit that ``kistore check`` then refused (the gate holds a commit's files to the limits
the commit's own kistore.toml sets).
"""

from __future__ import annotations

import pytest

from kistore.check.gate import check_range
from kistore.core.errors import StoreStateError
from kistore.core.model import Manifest
from kistore.store import Store

from ..conftest import commit_all, git


def _settings(store_path, limit: int) -> None:
    path = store_path / "kistore.toml"
    path.write_text(path.read_text().replace("[limits]\n",
                                             f"[limits]\nmanifest-bytes = {limit}\n", 1))


@pytest.fixture
def lowered(store_path):
    _settings(store_path, 700)
    commit_all(store_path, "manifest-bytes = 700")
    return store_path


def _workload(kit, size: int) -> Manifest:
    doc = kit.workload("d" * size, name=f"w{size}")
    return Manifest.from_document(doc)


def test_a_raise_not_committed_is_refused_for_a_manifest_needing_it(lowered, kit):
    (lowered / "kistore.toml").write_text(
        (lowered / "kistore.toml").read_text().replace("manifest-bytes = 700",
                                                       "manifest-bytes = 5000"))
    big = _workload(kit, 800)
    assert len(big.object_bytes) > 700
    head = git(lowered, "rev-parse", "HEAD")
    with pytest.raises(StoreStateError) as refused:
        Store(lowered).add([big], commit=True)
    assert str(refused.value) == (
        f"Workload/w800: its object in canonical form is {len(big.object_bytes):,} bytes, more "
        "than the limit of 700 (manifest-bytes); raise [limits] manifest-bytes in kistore.toml "
        "if this size is meant. These fit the work tree's kistore.toml [limits], not the ones "
        "HEAD commits, which `kistore check` holds a commit's files to: commit the change to "
        "kistore.toml first, in its own reviewed change, then `add --commit`; or add without "
        "--commit; nothing was written")
    assert git(lowered, "rev-parse", "HEAD") == head
    assert git(lowered, "status", "--porcelain") == " M kistore.toml\n"
    small = _workload(kit, 10)  # within both: the raise is not relied on
    Store(lowered).add([small], commit=True)
    Store(lowered).add([big])  # the work tree's limits apply without --commit
    git(lowered, "reset", "-q", "--hard")
    git(lowered, "clean", "-qfd")
    (lowered / "kistore.toml").write_text(
        (lowered / "kistore.toml").read_text().replace("manifest-bytes = 700",
                                                       "manifest-bytes = 5000"))
    base = commit_all(lowered, "manifest-bytes = 5000").strip()  # its own change, first
    Store(lowered).add([big], commit=True)  # then the add goes through, and the gate agrees
    assert [f for f in check_range(Store(lowered), f"{base}..HEAD")
            if f.rule.severity == "error"] == []
