"""``TreeFiles`` finds a file by its directory's listing, or by one lookup (``few=True``).

A run page in a blob-less clone reads a few dozen files (kistore/index/groups.py); listing
each of their shard directories (~3,900 files at 1,000,000 manifests) into a dict cost
more than the page's own work, so it looks each file up in its directory's tree instead.
Both ways must give the same blob id, or None, for any path: a file at the top, deep, in a
directory that does not exist, a directory itself, a path through a file.
"""

from __future__ import annotations

from pathlib import Path

import pygit2
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kistore.index._build import TreeFiles

_NAME = st.sampled_from(["a", "b", "c.json", "ab", "b-c"])
_PATH = st.lists(_NAME, min_size=1, max_size=4).map("/".join)


def _tree(repo: pygit2.Repository, files: dict[str, bytes]) -> pygit2.Tree:
    index = pygit2.Index()
    for path, data in files.items():
        index.add(pygit2.IndexEntry(path, repo.create_blob(data), pygit2.GIT_FILEMODE_BLOB))
    tree = repo[index.write_tree(repo)]
    assert isinstance(tree, pygit2.Tree)
    return tree


def _playable(paths: list[str]) -> dict[str, bytes]:
    """Keep paths no other path runs through (a tree cannot hold ``a`` and ``a/b``)."""
    out: dict[str, bytes] = {}
    for path in paths:
        if any(p.startswith(path + "/") or path.startswith(p + "/") for p in out):
            continue
        out[path] = path.encode()
    return out


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> pygit2.Repository:
    path: Path = tmp_path_factory.mktemp("treefiles") / "repo.git"
    return pygit2.init_repository(str(path), bare=True)


def test_a_lookup_gives_the_listings_blob_ids_by_hand(repo):
    files = {"kistore.toml": b"t", "store/objects/sha256/ab/cd.json": b"o",
             "store/objects/sha256/ab/ef.json": b"p", "store/names/Run/x": b"n"}
    tree = _tree(repo, files)
    for few in (False, True):
        found = TreeFiles(repo, tree, few=few)
        assert found.blob_id("kistore.toml") == str(pygit2.hash(b"t"))
        assert found.blob_id("store/objects/sha256/ab/ef.json") == str(pygit2.hash(b"p"))
        assert found.blob_id("store/objects/sha256/ab") is None  # a directory
        assert found.blob_id("store/objects/sha256/zz/cd.json") is None  # no directory
        assert found.blob_id("kistore.toml/x") is None  # through a file
        assert found.blob_id("store/names/Run/y") is None
        assert found.listing("store/objects/sha256/ab") == {
            "cd.json": str(pygit2.hash(b"o")), "ef.json": str(pygit2.hash(b"p"))}


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(paths=st.lists(_PATH, min_size=1, max_size=12), asked=st.lists(_PATH, max_size=12))
def test_a_lookup_agrees_with_the_listing_on_any_path(repo, paths, asked):
    files = _playable(paths)
    tree = _tree(repo, files)
    listed, few = TreeFiles(repo, tree), TreeFiles(repo, tree, few=True)
    for path in [*files, *asked, *(p.rpartition("/")[0] for p in files)]:
        expected = str(pygit2.hash(files[path])) if path in files else None
        assert listed.blob_id(path) == expected
        assert few.blob_id(path) == expected
