"""``loose_tree``: a directory's type and bytes from one read of its loose file (issue 22).

``verify``'s tree-names walk asked each directory's type from its loose file's header, then
opened the same file again to read the tree. :func:`kistore.git.blobs.loose_tree` reads it
once: a tree whole (what :func:`~kistore.git.blobs.loose_object` gives), any other object
by its header only, and a damaged file said in :func:`~kistore.git.blobs.loose_object`'s
words.
"""

from __future__ import annotations

import os
import zlib

import pygit2
import pytest

from kistore.git import blobs
from kistore.git.blobs import ObjectUnreadable, loose_object, loose_tree


def _repo(tmp_path) -> pygit2.Repository:
    return pygit2.init_repository(str(tmp_path / "r"), bare=True)


def _loose_file(repo: pygit2.Repository, oid: pygit2.Oid) -> str:
    hex_ = str(oid)
    return os.path.join(repo.path, "objects", hex_[:2], hex_[2:])


def _rewrite(path: str, data: bytes) -> None:
    os.chmod(path, 0o644)
    with open(path, "wb") as f:
        f.write(data)


def test_a_tree_is_read_whole_once(tmp_path, monkeypatch):
    repo = _repo(tmp_path)
    blob = repo.create_blob(b"x")
    raw = b"100644 a.json\0" + blob.raw + b"100644 b.json\0" + blob.raw
    tree = repo.odb.write(pygit2.GIT_OBJECT_TREE, raw)
    opened = []
    real = blobs._open_loose
    monkeypatch.setattr(blobs, "_open_loose", lambda *a: opened.append(a[1]) or real(*a))
    assert loose_tree(repo, tree.raw) == (2, raw)
    assert opened == [str(tree)]
    assert loose_object(repo, tree) == (2, raw)


def test_another_object_is_known_by_its_header_alone(tmp_path):
    """A blob a directory entry names (KI423) is not inflated whole: its tail cut short,
    which every whole read refuses, is never reached."""
    repo = _repo(tmp_path)
    blob = repo.create_blob(os.urandom(200_000))  # incompressible: the tail is far away
    path = _loose_file(repo, blob)
    with open(path, "rb") as f:
        data = f.read()
    _rewrite(path, data[: len(data) // 2])
    assert loose_tree(repo, blob.raw) == (3, None)
    with pytest.raises(ObjectUnreadable, match="cut short"):
        loose_object(repo, blob)


@pytest.mark.parametrize("damage", ["cut", "garbage", "other header", "other bytes"])
def test_a_damaged_tree_is_said_as_loose_object_says_it(tmp_path, damage):
    repo = _repo(tmp_path)
    blob = repo.create_blob(b"x")
    raw = b"100644 a.json\0" + blob.raw
    tree = repo.odb.write(pygit2.GIT_OBJECT_TREE, raw)
    path = _loose_file(repo, tree)
    with open(path, "rb") as f:
        data = f.read()
    _rewrite(path, {
        "cut": data[:-6],
        "garbage": b"not zlib at all",
        "other header": zlib.compress(b"tree 99\0" + raw),
        "other bytes": zlib.compress(b"tree %d\0" % (len(raw) + 1) + raw + b"!"),
    }[damage])
    with pytest.raises(ObjectUnreadable) as whole:
        loose_object(repo, tree, "store/x")
    with pytest.raises(ObjectUnreadable) as once:
        loose_tree(repo, tree.raw, "store/x")
    assert str(once.value) == str(whole.value)
    assert (once.value.oid, once.value.path) == (str(tree), "store/x")


def test_an_object_with_no_loose_file_is_none(tmp_path):
    assert loose_tree(_repo(tmp_path), bytes(20)) is None
