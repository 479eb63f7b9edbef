"""A loose object is inflated once: the guard remembers whole files, a blob is read once.

``check`` listed one loose tree 82,552 times on the bench store (each a Python inflate and
SHA-1 before libgit2's read), and a view's read of a loose blob under a limit inflated it
twice (its size, then its bytes). A file that changes after its first read (cut, swapped
for another object's file) is read again and refused as before.
"""

from __future__ import annotations

import os
import subprocess
import zlib

import pygit2
import pytest

from kistore.git import blobs
from kistore.git.blobs import ObjectUnreadable, loose_checked, read_blob, read_blob_within
from kistore.store._views import CommitView, FileTooLarge

HELLO = "ce013625030ba8dba906f756967f9e9ca394464a"
"""``git hash-object`` of ``hello\\n``: sha1(b"blob 6\\x00hello\\n")."""

WORLD = "cc628ccd10742baea8241c5924df992b5c019f71"
"""``git hash-object`` of ``world\\n``: sha1(b"blob 6\\x00world\\n")."""


@pytest.fixture
def repo(tmp_path) -> pygit2.Repository:
    return pygit2.init_repository(str(tmp_path / "r"))


@pytest.fixture
def reads(monkeypatch) -> list[str]:
    """The ids of the loose files read whole (inflated and hashed) from now on."""
    seen: list[str] = []
    real = blobs._inflated

    def counted(file: str, hex_: str, *args):
        found = real(file, hex_, *args)
        seen.append(hex_)
        return found

    monkeypatch.setattr(blobs, "_inflated", counted)
    return seen


def loose_file(repo: pygit2.Repository, oid: str) -> str:
    return os.path.join(repo.path, "objects", oid[:2], oid[2:])


def replace(repo: pygit2.Repository, oid: str, data: bytes) -> None:
    """Put ``data`` at ``oid``'s loose file as git would: a new file renamed over it."""
    target = loose_file(repo, oid)
    with open(target + ".new", "wb") as f:
        f.write(data)
    os.replace(target + ".new", target)


def one_file_tree(repo: pygit2.Repository) -> str:
    blob = repo.create_blob(b"hello\n")
    assert str(blob) == HELLO
    builder = repo.TreeBuilder()
    builder.insert("f", blob, pygit2.GIT_FILEMODE_BLOB)
    return str(builder.write())


def test_a_whole_loose_tree_is_inflated_once_then_known_by_its_file(repo, reads):
    tree = one_file_tree(repo)
    for _ in range(3):
        assert [e.name for e in blobs.lookup(repo, tree)] == ["f"]
        assert loose_checked(repo, tree) is True
    assert reads == [tree]
    assert loose_checked(repo, "0" * 40) is False  # no loose file: libgit2's to read
    assert reads == [tree]


@pytest.mark.parametrize(("data", "reason"), [
    (zlib.compress(b"blob 6\x00hello\n")[:-1], "cut short"),
    (zlib.compress(b"blob 6\x00world\n"), "another object's bytes"),  # WORLD's file
])
def test_a_file_replaced_after_its_first_read_is_read_again_and_refused(
        repo, reads, data, reason):
    assert str(repo.create_blob(b"hello\n")) == HELLO
    assert loose_checked(repo, HELLO, "a/path") is True
    replace(repo, HELLO, data)
    with pytest.raises(ObjectUnreadable, match=reason) as raised:
        loose_checked(repo, HELLO, "a/path")
    assert (raised.value.oid, raised.value.path) == (HELLO, "a/path")
    assert reads == [HELLO]  # the whole file once; the replaced one raised


def test_a_file_cut_in_place_is_read_again(repo, reads):
    # the same inode, written over (not git's way, but a disk or a hand edit): its size
    # differs, so it is read again
    tree = one_file_tree(repo)
    assert loose_checked(repo, tree) is True
    os.chmod(loose_file(repo, tree), 0o644)
    with open(loose_file(repo, tree), "r+b") as f:
        f.truncate(os.path.getsize(loose_file(repo, tree)) - 1)
    with pytest.raises(ObjectUnreadable, match="cut short"):
        blobs.lookup(repo, tree, "store")


def test_a_loose_blob_is_inflated_once_for_its_size_and_bytes(repo, reads):
    assert str(repo.create_blob(b"hello\n")) == HELLO
    assert read_blob_within(repo, HELLO, 5) == 6  # past the limit: its header's size
    assert reads == []  # not inflated past its header (fresh03 H3)
    assert read_blob_within(repo, HELLO, 6) == b"hello\n"
    assert read_blob_within(repo, HELLO, None) == b"hello\n"
    assert read_blob(repo, HELLO) == b"hello\n"
    assert reads == [HELLO] * 3  # one read each (blob_size, then read_blob, read it twice)


def test_a_packed_blob_past_the_limit_is_its_header_size(repo, reads):
    assert str(repo.create_blob(b"hello\n")) == HELLO
    pack = os.path.join(repo.path, "objects", "pack", "pack")
    subprocess.run(["git", "--git-dir", repo.path, "pack-objects", "-q", pack],
                   input=f"{HELLO}\n".encode(), capture_output=True, check=True)
    subprocess.run(["git", "--git-dir", repo.path, "prune-packed"], check=True)
    assert not os.path.exists(loose_file(repo, HELLO))
    fresh = pygit2.Repository(repo.path)
    assert read_blob_within(fresh, HELLO, 5) == 6
    assert read_blob_within(fresh, HELLO, 6) == b"hello\n"
    assert reads == []


def _view_of_one_blob(repo: pygit2.Repository, data: bytes) -> CommitView:
    blob = repo.create_blob(data)
    inner = repo.TreeBuilder()
    inner.insert("f.json", blob, pygit2.GIT_FILEMODE_BLOB)
    outer = repo.TreeBuilder()
    outer.insert("store", inner.write(), pygit2.GIT_FILEMODE_TREE)
    sig = pygit2.Signature("t", "t@example.org", 0, 0)
    commit = repo.create_commit(None, sig, sig, "m", outer.write(), [])
    return CommitView(repo, repo[commit].peel(pygit2.Commit))


def test_a_view_reads_a_loose_blob_once_and_refuses_one_past_the_limit(repo, reads):
    view = _view_of_one_blob(repo, b"hello\n")
    assert view.read("store/f.json", 6) == b"hello\n"
    with pytest.raises(FileTooLarge) as raised:
        view.read("store/f.json", 5)
    assert (raised.value.size, raised.value.limit) == (6, 5)
    assert reads.count(HELLO) == 1  # one read; past the limit, its header alone


def test_a_view_refuses_a_swapped_loose_blob_under_a_limit(repo, reads):
    view = _view_of_one_blob(repo, b"hello\n")
    replace(repo, HELLO, zlib.compress(b"blob 6\x00world\n"))  # WORLD's bytes, HELLO's name
    with pytest.raises(ObjectUnreadable, match="another object's bytes") as raised:
        view.read("store/f.json", 1000)
    assert (raised.value.oid, raised.value.path) == (HELLO, "store/f.json")
    with pytest.raises(FileTooLarge) as raised:  # past the limit: its header's size, its
        view.read("store/f.json", 5)  # bytes never read (fresh03 H3), as a packed one's
    assert (raised.value.size, raised.value.limit) == (6, 5)
    view.files()  # lists the blob ids: holds compares ids, then asks the guard
    assert not view.holds("store/f.json", b"hello\n")  # the id matches; the file does not


def test_a_view_lists_a_directory_once_and_gives_a_copy(repo, monkeypatch):
    view = _view_of_one_blob(repo, b"hello\n")
    looked: list[str] = []
    real = blobs.lookup

    def counted(repo_, oid, path=None):
        looked.append(path)
        return real(repo_, oid, path)

    monkeypatch.setattr("kistore.store._views.lookup", counted)
    names = view.list_dir("store")
    assert names == ["f.json"]
    names.append("changed by the caller")
    assert view.list_dir("store") == ["f.json"]
    assert looked == ["store"]  # one read of the tree, whatever the calls
    assert view.list_dir("store/f.json") == [] and view.list_dir("nothing") == []


def test_a_view_says_a_missing_directory_tree_is_missing(repo):
    view = _view_of_one_blob(repo, b"hello\n")
    inner = str(view.tree["store"].id)
    os.remove(loose_file(repo, inner))
    with pytest.raises(ObjectUnreadable, match="missing") as raised:
        view.list_dir("store")
    assert (raised.value.oid, raised.value.path) == (inner, "store")
