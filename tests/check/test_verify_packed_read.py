"""``verify --at`` reads packed blobs by hand once the packs are checked (ver99).

``CommitView.read`` cost ~19 us a blob (a ``stat`` of the loose path, the pack header's
size, libgit2's read); after :func:`kistore.git.packs.check_packs` a packed blob is one
look-up and one inflate (:func:`kistore.git.packs.packed_blob`). The findings are the
same; a flipped byte is still KI117 (tests/check/test_verify_damaged_pack.py).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kistore.check import audit
from kistore.cli import main
from kistore.git import packs
from kistore.store import _views

from ..conftest import git


def _verify(runner, root: Path, jobs: str) -> dict:
    result = runner.invoke(main, ["--store", str(root), "verify", "--at", "HEAD", "--json",
                                  "--jobs", jobs])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_packed_store_is_read_without_libgit2_and_found_the_same(
        runner, record_store, monkeypatch, blob_reads, jobs):
    root = Path(record_store.root)
    git(root, "repack", "-a", "-d", "-q", "--window=0")  # every object packed, no deltas
    by_libgit2 = blob_reads(_views)
    found = _verify(runner, root, jobs)
    # every blob read by hand (with --jobs 2, the workers' too) but the ranking policy,
    # read (for KI234's keys) before the packs are checked
    assert set(by_libgit2) == {"store/policy/ranking.json"}
    monkeypatch.setattr(audit, "map_packs", lambda repo: False)  # as before: all by libgit2
    assert _verify(runner, root, "1") == found
    assert len(set(by_libgit2)) > 5
    assert packs._mapped == {}  # verify forgets its maps when it ends
