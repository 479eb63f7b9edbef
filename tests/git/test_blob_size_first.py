"""``read_blob_within``: a loose blob past the limit is known by its header, never inflated.

fresh03 H3: a 1 GB blob of zeros at an object path (a ~1 MB push: git unpacks it loose)
cost the pull-request gate 47 s and 2 GB of memory before its KI106, its loose file
inflated whole for a size its object header holds. A packed blob's size already came from
its pack header; a loose one's now comes from the first bytes of its file.
"""

from __future__ import annotations

import os
import subprocess

import pygit2
import pytest

from kistore.git.blobs import ObjectUnreadable, read_blob_within

LIMIT = 1000


def _repo(tmp_path) -> pygit2.Repository:
    return pygit2.init_repository(str(tmp_path / "r"), bare=True)


def _loose_file(repo: pygit2.Repository, oid: pygit2.Oid) -> str:
    hex_ = str(oid)
    return os.path.join(repo.path, "objects", hex_[:2], hex_[2:])


def test_a_loose_blob_one_byte_past_the_limit_is_its_size_unread(tmp_path, whole_reads):
    repo = _repo(tmp_path)
    blob = repo.create_blob(b"\0" * (LIMIT + 1))
    assert read_blob_within(repo, blob, LIMIT, "store/objects/x") == LIMIT + 1
    assert whole_reads == []


def test_a_loose_blob_at_the_limit_is_read_whole_once(tmp_path, whole_reads):
    repo = _repo(tmp_path)
    data = os.urandom(LIMIT)
    blob = repo.create_blob(data)
    assert read_blob_within(repo, blob, LIMIT) == data
    assert whole_reads == [str(blob)]


def test_a_blob_past_the_limit_cut_short_after_its_header_reads_as_its_size(tmp_path):
    """Its tail, which every whole read refuses, is never reached (as ``git cat-file -s``)."""
    repo = _repo(tmp_path)
    blob = repo.create_blob(os.urandom(200_000))  # incompressible: the tail is far away
    path = _loose_file(repo, blob)
    with open(path, "rb") as f:
        data = f.read()
    os.chmod(path, 0o644)
    with open(path, "wb") as f:
        f.write(data[: len(data) // 2])
    assert read_blob_within(repo, blob, LIMIT) == 200_000
    with pytest.raises(ObjectUnreadable, match="cut short"):
        read_blob_within(repo, blob, 200_000)  # within the limit: read whole, refused


def test_a_file_whose_first_bytes_do_not_inflate_is_refused_past_the_limit_too(tmp_path):
    repo = _repo(tmp_path)
    blob = repo.create_blob(b"\0" * (LIMIT + 1))
    path = _loose_file(repo, blob)
    os.chmod(path, 0o644)
    with open(path, "wb") as f:
        f.write(b"not zlib at all")
    with pytest.raises(ObjectUnreadable, match="does not inflate"):
        read_blob_within(repo, blob, LIMIT)


def test_a_packed_blob_past_the_limit_is_its_size_unread(tmp_path, whole_reads):
    repo = _repo(tmp_path)
    blob = repo.create_blob(b"\0" * (LIMIT + 1))
    subprocess.run(["git", "-C", repo.path, "pack-objects", "-q", "objects/pack/pack"],
                   input=f"{blob}\n".encode(), check=True, capture_output=True)
    subprocess.run(["git", "-C", repo.path, "prune-packed"], check=True)
    assert not os.path.exists(_loose_file(repo, blob))
    assert read_blob_within(repo, blob, LIMIT) == LIMIT + 1
    assert whole_reads == []
