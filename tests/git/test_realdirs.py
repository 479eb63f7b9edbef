"""first_not_dir: the one look for a symbolic link or a non-directory on a work-tree path.

Its callers: ``add``'s refusal to write through a link (``refuse_links``), the store's
reads (``WorkTreeView.linked_dir``) and the index's shard listings. The property: nothing
is on the way exactly when the path, resolved, is itself below the resolved top and a
directory (``os.path.realpath``, which follows every link).
"""

from __future__ import annotations

import os
import stat

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kistore.git.realdirs import ABSENT, first_not_dir

SHARD = "store/metadata/sha256/6b"


@pytest.fixture
def tree(tmp_path):
    top = tmp_path / "top"
    (top / SHARD).mkdir(parents=True)
    (tmp_path / "elsewhere" / "sha256" / "6b").mkdir(parents=True)
    return top


def test_a_path_of_directories_is_none(tree):
    assert first_not_dir(tree, SHARD) is None
    assert first_not_dir(str(tree), "store") is None
    assert first_not_dir(f"{tree}/", SHARD) is None  # a trailing slash on top is one


def test_an_absent_name_is_the_first_absent_one(tree):
    assert first_not_dir(tree, "store/metadata/sha256/6c") == ("store/metadata/sha256/6c",
                                                                ABSENT)
    assert first_not_dir(tree, "store/objects/sha256/6b") == ("store/objects", ABSENT)


def test_a_symbolic_link_on_the_way_is_named_though_its_target_is_a_directory(tree):
    os.rename(tree / "store" / "metadata", tree / "moved")
    (tree / "store" / "metadata").symlink_to(tree.parent / "elsewhere")
    assert os.path.isdir(tree / SHARD)  # followed, the path is a directory
    path, mode = first_not_dir(tree, SHARD)
    assert path == "store/metadata" and stat.S_ISLNK(mode)


def test_a_file_or_fifo_where_a_directory_belongs(tree):
    (tree / "store/objects").write_bytes(b"")
    path, mode = first_not_dir(tree, "store/objects/sha256/6b")
    assert path == "store/objects" and stat.S_ISREG(mode)
    os.rmdir(tree / SHARD)
    os.mkfifo(tree / SHARD)
    path, mode = first_not_dir(tree, SHARD)
    assert path == SHARD and stat.S_ISFIFO(mode)


def test_top_itself_may_be_reached_through_a_link(tree):
    link = tree.parent / "link-to-top"
    link.symlink_to(tree)
    assert first_not_dir(link, SHARD) is None


def test_modes_are_looked_at_once_and_absent_names_not_kept(tree, monkeypatch):
    looked = []
    real = os.lstat
    monkeypatch.setattr(os, "lstat", lambda p: (looked.append(str(p)), real(p))[1])
    modes: dict[str, int] = {}
    assert first_not_dir(tree, SHARD, modes) is None
    assert len(looked) == 4 and set(modes) == {"store", "store/metadata",
                                                "store/metadata/sha256", SHARD}
    assert first_not_dir(tree, "store/metadata/sha256/6c", modes) == (
        "store/metadata/sha256/6c", ABSENT)
    assert len(looked) == 5 and "store/metadata/sha256/6c" not in modes
    (tree / "store/metadata/sha256/6c").mkdir()  # made by a write: seen at the next look
    assert first_not_dir(tree, "store/metadata/sha256/6c", modes) is None
    assert len(looked) == 6


KINDS = st.sampled_from(["dir", "file", "link-in", "link-out", "absent"])


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(KINDS, min_size=1, max_size=4))
def test_none_exactly_when_the_resolved_path_is_the_same_directory(tmp_path_factory, kinds):
    base = tmp_path_factory.mktemp("t")
    top = base / "top"
    outside = base / "out"
    top.mkdir()
    (outside / "a" / "b" / "c" / "d").mkdir(parents=True)
    names = ["a", "b", "c", "d"][:len(kinds)]
    here = top
    for i, kind in enumerate(kinds):
        path = here / names[i]
        if kind == "absent":
            break
        if kind == "file":
            path.write_bytes(b"")
            break
        if kind == "link-in":  # to an empty directory inside top: still a link on the way
            (top / "target").mkdir()
            path.symlink_to(top / "target")
            break
        if kind == "link-out":  # to a directory outside that holds the rest of the path
            path.symlink_to(outside / "/".join(names[:i + 1]))
            break
        path.mkdir()
        here = path
    rel = "/".join(names)
    resolved = os.path.realpath(top / rel)
    plain = resolved == os.path.join(os.path.realpath(top), rel) and os.path.isdir(resolved)
    assert (first_not_dir(top, rel) is None) == plain
