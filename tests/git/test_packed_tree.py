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
    trees: list[tuple[bytes, bytes, str]] = []
    made = _raw_tree(repo.odb, base.id.raw if base is not None else None,
                        _nest({p: pack.blob_id(d) for p, d in new.items()}), trees)
    assert made == expected.raw
    for oid, body, _ in trees:  # each tree made is the one git holds under its id
        assert repo.odb.read(oid.hex()) == (pygit2.enums.ObjectType.TREE, body)


def test_a_bulk_commit_packs_its_blobs_and_trees_and_git_checks_them(tmp_path):
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
    # the commit alone: the 100 blobs and the 103 trees (root, store, store/x, 100 shards)
    # are packed (bulk98: a loose file a tree was ~16,500 file writes at 100,000 manifests)
    assert new_loose == {Path(tmp_path, ".git", "objects", str(commit)[:2], str(commit)[2:])}
    packed = subprocess.run(["git", "-C", str(tmp_path), "cat-file", "--batch-all-objects",
                             "--batch-check=%(objecttype)"], check=True, capture_output=True,
                            text=True).stdout.split()
    assert (packed.count("blob"), packed.count("tree")) == (100 + 1, 103 + 1)  # + "first"'s
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
    trees: list[tuple[bytes, bytes, str]] = []
    made = _raw_tree(repo.odb, base.id.raw, {p: pack.blob_id(d) for p, d in new.items()},
                     trees, "store/objects/sha256/38/")
    assert made == expected.raw and len(trees) == 1
    assert len(repo[expected]) == 600 + 1 + 5  # 3 replaced, 5 new
    assert repo[expected][f"{600:062x}.json"].filemode == pygit2.GIT_FILEMODE_BLOB
    with pytest.raises(StoreStateError, match="symbolic link at store/objects/sha256/38/link"):
        _raw_tree(repo.odb, base.id.raw, {"link": pack.blob_id(b"x")}, [],
                  "store/objects/sha256/38/")


def test_packed_trees_of_one_name_are_in_other_packs_and_git_gc_deltifies_them(tmp_path):
    """bulk98: a bulk commit's trees go into its packs, each tree of a name (the object and
    metadata shards ``ab``) in another pack than the last of that name, so that ``git gc``,
    which tries no delta between two whole objects of one pack, deltifies each pair as it
    did when the trees were loose: one delta a shard."""
    repo = pygit2.init_repository(str(tmp_path))
    names = [f"{i:062x}.json" for i in range(70)]
    files = {f"store/{top}/sha256/{shard:02x}/{name}": b"%s %d %s\n" % (top.encode(), shard,
                                                                       name.encode())
             for top in ("objects", "metadata") for shard in range(16) for name in names}
    commit = BranchCommit(repo, None).run(files, "bulk")
    assert [p.parent.name + p.name for p in Path(tmp_path, ".git", "objects").glob("??/*")
            ] == [str(commit)]  # the commit alone is loose
    holder: dict[str, set[str]] = {}  # a shard's name -> the packs holding a tree of it
    for idx in Path(tmp_path, ".git", "objects", "pack").glob("*.idx"):
        listed = subprocess.run(["git", "-C", str(tmp_path), "show-index"], input=idx.read_bytes(),
                                check=True, capture_output=True).stdout.decode().split("\n")
        held = {line.split()[1] for line in listed if line}
        for shard in range(16):
            for top in ("objects", "metadata"):
                if str(repo.revparse_single(f"{commit}:store/{top}/sha256/{shard:02x}").id) in held:
                    holder.setdefault(f"{shard:02x}", set()).add(idx.name)
    assert len(holder) == 16 and all(len(packs) == 2 for packs in holder.values())
    subprocess.run(["git", "-C", str(tmp_path), "gc", "-q"], check=True)
    (idx,) = Path(tmp_path, ".git", "objects", "pack").glob("*.idx")
    verified = subprocess.run(["git", "-C", str(tmp_path), "verify-pack", "-v", str(idx)],
                              check=True, capture_output=True, text=True).stdout.splitlines()
    assert sum(1 for line in verified if " tree " in line and len(line.split()) == 7) >= 16
