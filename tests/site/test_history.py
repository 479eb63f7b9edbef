"""When each source of a page last changed (first-parent chain), object blobs, notes."""

from __future__ import annotations

import pytest

from kistore.site.history import (
    POLICY,
    SETTINGS,
    TRUST,
    Touches,
    last_changed,
    notes_of,
    object_blobs,
    source_key,
)

from ..conftest import git
from .demo import add_run, commit

HEX = "384a96d0ed68745873c797f08184670795010f215daabb29f4d68b69757854f6"


@pytest.mark.parametrize(("path", "key"), [
    (f"store/objects/sha256/38/{HEX[2:]}.json", f"m:sha256:{HEX}"),
    (f"store/metadata/sha256/38/{HEX[2:]}.json", f"m:sha256:{HEX}"),
    (f"store/attestations/sha256/38/{HEX[2:]}/{'a' * 64}.json", f"m:sha256:{HEX}"),
    ("store/policy/ranking.json", POLICY),
    ("store/trust/keys.json", TRUST),
    ("kistore.toml", SETTINGS),
    ("README.md", None),
    ("store/objects/sha256/38/not-hex.json", None),
    ("store/attestations/sha256/38/short/x.json", None),
])
def test_source_key(path, key):
    assert source_key(path) == key


def _log(store) -> dict[str, str]:
    return {s: c for c, s in (line.split(" ", 1) for line in
                              git(store.root, "log", "--format=%H %s").splitlines())}


def test_last_changed_names_the_newest_commit_per_source(fresh_demo):
    repo, ids = fresh_demo.repo, _log(fresh_demo)
    touches = last_changed(repo, repo.revparse_single("HEAD"))
    assert touches.head == ids["c-settings"]
    assert touches.keys[SETTINGS][1] == ids["c-settings"]
    assert touches.keys[POLICY][1] == ids["kistore init: new store"]
    record = f"m:sha256:{HEX}"
    assert touches.keys[record][1] == ids["b-published"]
    positions = {ids[s]: p for s, p in [("kistore init: new store", 0), ("a-catalog", 1),
                                        ("b-published", 2), ("c-settings", 3)]}
    assert touches.positions == positions
    assert touches.newest([POLICY, record]) == ids["b-published"]
    assert touches.newest(["m:sha256:" + "0" * 64]) is None


def test_incremental_walk_equals_a_full_walk(fresh_demo):
    repo = fresh_demo.repo
    before = last_changed(repo, repo.revparse_single("HEAD"))
    cached = Touches.from_json(before.to_json())  # as the build cache keeps it
    add_run(fresh_demo, "gemm-new", 110_000)
    (fresh_demo.root / "README.md").write_text("no store change\n")
    commit(fresh_demo.root, "readme", "2026-08-06T10:00:00Z")
    head = repo.revparse_single("HEAD")
    full, incremental = last_changed(repo, head), last_changed(repo, head, cached)
    assert incremental.keys == full.keys and incremental.positions == full.positions
    assert full.positions[str(head.id)] == 5
    # a cache of a commit not on the chain is ignored (the walk goes to the root)
    stranger = Touches("f" * 40, {}, {"f" * 40: 99})
    assert last_changed(repo, head, stranger).keys == full.keys


def test_object_blobs_are_the_git_blob_ids(fresh_demo):
    blobs = object_blobs(fresh_demo.repo, fresh_demo.repo.revparse_single("HEAD").tree)
    listed = git(fresh_demo.root, "ls-tree", "-r", "HEAD", "store/objects").splitlines()
    assert len(blobs) == len(listed) == 26
    for line in listed:
        meta, path = line.split("\t")
        digest = "sha256:" + path.split("/")[3] + path.split("/")[4].removesuffix(".json")
        assert blobs[digest] == meta.split()[2]


def test_notes_of_a_store_without_notes(fresh_demo):
    assert notes_of(fresh_demo.repo, "refs/notes/kistore") == (None, {})
