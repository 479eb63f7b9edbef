"""A bulk commit's trees, made from raw bytes, equal libgit2's tree builder's."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pygit2
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kistore.core.errors import StoreStateError
from kistore.git import pack
from kistore.git.commit import BranchCommit, _build_tree, _nest, _raw_tree

_NAMES = st.sampled_from(["a", "a.b", "a-b", "a0", "ab", "b", "store", "names", "z", "é",
                          "objects", "Z", ".gitattributes", "38", "3"])
_PATHS = st.lists(_NAMES, min_size=1, max_size=4).map("/".join)


def _consistent(paths: list[str]) -> dict[str, bytes]:
    """Paths none of which is a directory of another (a file and a folder of one name)."""
    kept: dict[str, bytes] = {}
    for path in paths:
        parts = path.split("/")
        prefixes = {"/".join(parts[:i]) for i in range(1, len(parts))}
        if path in kept or prefixes & kept.keys() or any(
                k.startswith(path + "/") for k in kept):
            continue
        kept[path] = path.encode() + b"\n"
    return kept


@settings(max_examples=40, deadline=None)
@given(st.lists(_PATHS, max_size=12), st.lists(_PATHS, min_size=1, max_size=12))
def test_raw_trees_equal_the_tree_builders_on_any_base(tmp_path_factory, before, added):
    repo = pygit2.init_repository(str(tmp_path_factory.mktemp("repo")))
    old = _consistent(before)
    base = None
    if old:
        base = repo[_build_tree(repo, None, _nest({p: repo.create_blob(d)
                                                  for p, d in old.items()}), [])]
    new = {p: d + b"new" for p, d in _consistent(added).items()}
    # a new path may put a folder where the base has a file, or a file over a folder: both
    # builders refuse that, with the same message (a commit never replaces a committed path)
    try:
        expected = _build_tree(repo, base, _nest({p: repo.create_blob(d)
                                                  for p, d in new.items()}), [])
    except StoreStateError as e:
        with pytest.raises(StoreStateError) as raw_refused:
            _raw_tree(repo.odb, base.id.raw if base is not None else None,
                      _nest({p: pack.blob_id(d) for p, d in new.items()}), [])
        assert str(raw_refused.value) == str(e)
        clash = str(e).split(" at ", 1)[1].split(",", 1)[0]
        assert clash in old or any(p.startswith(clash + "/") for p in old)
        return
    assert not any(p in old and any(n.startswith(p + "/") for n in new) for p in old)
    trees: list[tuple[bytes, bytes]] = []
    made = _raw_tree(repo.odb, base.id.raw if base is not None else None,
                        _nest({p: pack.blob_id(d) for p, d in new.items()}), trees)
    assert made == expected.raw
    for oid, body in trees:  # each tree made is the one git holds under its id
        assert repo.odb.read(oid.hex()) == (pygit2.enums.ObjectType.TREE, body)


def test_a_bulk_commit_packs_its_blobs_writes_its_trees_loose_and_git_checks_them(tmp_path):
    repo = pygit2.init_repository(str(tmp_path))
    (tmp_path / "keep.sh").write_text("#!/bin/sh\n")
    (tmp_path / "keep.sh").chmod(0o755)
    subprocess.run(["git", "-C", str(tmp_path), "add", "keep.sh"], check=True)
    subprocess.run(["git", "-C", str(tmp_path), "-c", "user.name=t", "-c", "user.email=t@t",
                    "commit", "-qm", "first"], check=True)
    files = {f"store/x/{i:02x}/{i}.json": b"%d\n" % i for i in range(100)}
    for path, data in files.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_bytes(data)
    loose = set(Path(tmp_path, ".git", "objects").glob("??/*"))
    commit = BranchCommit(repo, tmp_path).run(files, "bulk")
    new_loose = set(Path(tmp_path, ".git", "objects").glob("??/*")) - loose
    # the trees (root, store, store/x, 100 shards) and the commit; the 100 blobs are packed
    # (loose trees: `git gc` deltifies loose objects, not packed ones that are no delta)
    assert len(new_loose) == 1 + 1 + 1 + 100 + 1
    subprocess.run(["git", "-C", str(tmp_path), "fsck", "--strict", "--no-dangling"], check=True,
                   capture_output=True)
    listed = subprocess.run(["git", "-C", str(tmp_path), "ls-tree", "-r", str(commit)],
                            check=True, capture_output=True, text=True).stdout.splitlines()
    assert listed[0].startswith("100755 blob ") and listed[0].endswith("\tkeep.sh")
    assert len(listed) == 101
    assert subprocess.run(["git", "-C", str(tmp_path), "status", "--porcelain"], check=True,
                          capture_output=True, text=True).stdout == ""
    assert not list(Path(tmp_path, ".git", "objects", "pack").glob("*.keep"))


def test_a_shards_tree_is_merged_as_the_tree_builder_writes_it(tmp_path):
    """issue 22 (perf88): a tree of files only takes the new entries by a merge of its bytes;
    the result is libgit2's, byte for byte, for 600 names, some new, some over old ones
    (one of them executable), and a symbolic link is still never written over."""
    repo = pygit2.init_repository(str(tmp_path / "repo"))
    builder = repo.TreeBuilder()
    for i in range(0, 1200, 2):
        builder.insert(f"{i:062x}.json", repo.create_blob(b"%d" % i),
                       pygit2.GIT_FILEMODE_BLOB_EXECUTABLE if i == 600 else
                       pygit2.GIT_FILEMODE_BLOB)
    builder.insert("link", repo.create_blob(b"elsewhere"), pygit2.GIT_FILEMODE_LINK)
    base = repo[builder.write()]
    new = {f"{i:062x}.json": b"new %d" % i for i in (0, 1, 599, 600, 601, 1198, 1199, 5000)}
    expected = _build_tree(repo, base, {p: repo.create_blob(d) for p, d in new.items()}, [])
    trees: list[tuple[bytes, bytes]] = []
    made = _raw_tree(repo.odb, base.id.raw, {p: pack.blob_id(d) for p, d in new.items()},
                     trees, "store/objects/sha256/38/")
    assert made == expected.raw and len(trees) == 1
    assert len(repo[expected]) == 600 + 1 + 5  # 3 replaced, 5 new
    assert repo[expected][f"{600:062x}.json"].filemode == pygit2.GIT_FILEMODE_BLOB
    with pytest.raises(StoreStateError, match="symbolic link at store/objects/sha256/38/link"):
        _raw_tree(repo.odb, base.id.raw, {"link": pack.blob_id(b"x")}, [],
                  "store/objects/sha256/38/")
