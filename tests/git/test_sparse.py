"""Which store paths a sparse checkout leaves out: kistore.git.sparse against git's own answer."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kistore.git.sparse import SkipWorktree, checkout_cone, skip_worktree
from kistore.store import Store

from ..conftest import git
from ..sparse import MODES, shard_dirs, skipped, sparse_clone, sparse_clone_set


def test_a_skipped_file_and_everything_below_a_skipped_directory_are_contained():
    found = SkipWorktree.of(["store/objects/sha256/ab/cd.json", "store/metadata/sha256/12/",
                          "store/names/"])
    assert "store/objects/sha256/ab/cd.json" in found
    assert "store/objects/sha256/ab/ce.json" not in found
    assert "store/metadata/sha256/12/34.json" in found
    assert "store/metadata/sha256/123/4.json" not in found  # a prefix, not a directory
    assert "store/names/Workload/4c/x" in found
    assert found.sparse_index  # sparse directory entries: a sparse index
    assert found.dir_skipped("store/metadata/sha256/12")
    assert found.dir_skipped("store/names/Workload")
    assert not found.dir_skipped("store/objects/sha256/ab")
    assert found.names_in("store/objects/sha256/ab") == {"cd.json"}
    assert found.names_in("store/objects/sha256") == {"ab"}
    assert found.names_in("store/metadata/sha256") == {"12"}
    assert found.names_in("store") == {"objects", "metadata", "names"}
    assert found.stamp("store/names/x") == "all"
    assert found.stamp("store/forward") == "none"
    assert found.stamp("store/objects") == SkipWorktree.of(
        ["store/objects/sha256/ab/cd.json"]).stamp("store/objects")
    assert found.stamp("store/objects") != SkipWorktree.of(
        ["store/objects/sha256/ab/ce.json"]).stamp("store/objects")


def test_top_level_files_are_contained_beside_the_store():
    found = SkipWorktree(b"S .gitattributes\0H kistore.toml\0S store/policy/ranking.json\0")
    assert ".gitattributes" in found
    assert "kistore.toml" not in found  # H: in the checkout
    assert "store/policy/ranking.json" in found
    assert "store/policy/other.json" not in found
    assert found.names_in("") == {".gitattributes", "store"}
    assert found.names_in("store/policy") == {"ranking.json"}


def test_a_full_checkout_costs_no_git_command(group, monkeypatch):
    store = Store(group.root)

    def refuse(*args, **kwargs):
        raise AssertionError("git was run in a repository that is not a sparse checkout")

    monkeypatch.setattr("subprocess.run", refuse)  # kistore.git.sparse imports it lazily
    assert skip_worktree(store.git_dir, store.root) is None


def test_sparse_checkout_turned_off_again_is_not_sparse(group, tmp_path):
    run = Store(group.root).view("HEAD").find_name("BenchmarkRun", "slow")
    clone = sparse_clone(group.root, tmp_path / "clone", "no-cone", str(run))
    git(clone, "sparse-checkout", "disable")  # info/sparse-checkout stays
    assert (clone / ".git" / "info" / "sparse-checkout").exists()
    assert skip_worktree(clone / ".git", clone) is None


@pytest.mark.parametrize("mode", MODES)
def test_the_skipped_paths_are_the_ones_git_marks(group, tmp_path, mode):
    run = str(Store(group.root).view("HEAD").find_name("BenchmarkRun", "slow"))
    clone = sparse_clone(group.root, tmp_path / "clone", mode, run)
    found = skip_worktree(clone / ".git", clone)
    assert found is not None
    assert found.sparse_index == (mode == "cone-sparse-index")
    committed = git(clone, "ls-tree", "-r", "--name-only", "HEAD", "store").split()
    marked = skipped(clone)
    sharded = ("store/objects/", "store/metadata/")
    for path in committed:
        inside = any(path.startswith(d + "/") for d in shard_dirs(run)) or (
            mode == "no-cone" and not path.startswith(sharded))  # "/*" keeps the rest
        assert (path in found) == (not inside), path
        # git's own answer: the file, or a sparse directory above it, is marked
        assert (path in marked or any(path.startswith(m) for m in marked if m.endswith("/"))
                ) == (not inside)
    assert ("store/policy/ranking.json" in found) == (mode != "no-cone")
    assert ".gitattributes" not in found  # cone mode and "/*" check top-level files out
    assert ".gitattributes" not in marked


def test_top_level_files_outside_a_non_cone_checkout_are_skipped(group, tmp_path):
    clone = sparse_clone_set(group.root, tmp_path / "clone", "--no-cone", "/store/")
    found = skip_worktree(clone / ".git", clone)
    assert found is not None
    assert {".gitattributes", "kistore.toml"} <= skipped(clone)
    assert ".gitattributes" in found and "kistore.toml" in found
    assert "store/policy/ranking.json" not in found


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["S", "H"]),
                          st.sampled_from(["store/objects/sha256/ab", "store/objects/sha256/ac",
                                           "store/objects/sha256/a", "store/names/W/ab",
                                           "store/objects/sha256/ab/x", ""]),
                          st.text("abc./-0", min_size=1, max_size=4)),
                max_size=40))
def test_lookups_in_the_listing_match_a_set_of_its_skipped_files(items):
    # what git lists: unique paths in byte order, S (skipped) or H (in the checkout)
    # "" is the top of the work tree: .gitattributes and kistore.toml are listed there
    entries = {f"{d}/{n}".lstrip("/"): tag for tag, d, n in items if "//" not in f"{d}/{n}"
               and not n.endswith("/") and not (d == "" and n.startswith("/"))}
    listing = b"".join(f"{entries[p]} {p}\0".encode()
                       for p in sorted(entries, key=str.encode))
    found = SkipWorktree(listing)
    skipped_files = {p for p, tag in entries.items() if tag == "S"}
    for path in [*entries, "store/objects/sha256/ab/zz", "store/a", "store/objects/sha256/ab",
                 ".gitattributes", "a"]:
        assert (path in found) == (path in skipped_files), path
    for directory in ("store/objects/sha256", "store/objects/sha256/ab", "store/names/W", ""):
        below = {p[len(directory) + 1 if directory else 0:].partition("/")[0]
                 for p in skipped_files if p.startswith(directory + "/" if directory else "")}
        assert found.names_in(directory) == below


def test_the_cone_of_a_sparse_checkout_is_read_from_its_patterns(tmp_path):
    git(tmp_path, "init", "-q", "repo")
    repo = tmp_path / "repo"
    git(repo, "sparse-checkout", "set", "--cone", "--no-sparse-index", "store/policy",
        "store/trust", "x/y z")
    cone = checkout_cone(repo / ".git")
    assert cone is not None
    assert (cone.recursive, cone.parents) == (
        frozenset({"store/policy", "store/trust", "x/y z"}), frozenset({"store", "x"}))
    held = ["kistore.toml", "store/README", "store/policy/ranking.json", "store/trust/a/b",
            "x/y z/f", "x/f"]
    left = ["store/names/Workload/ab/n", "store/objects/sha256/ab/cd", "x/y/f",
            "store/policyx/f", "other/f"]
    assert [cone.holds(p) for p in held + left] == [True] * len(held) + [False] * len(left)
    git(repo, "sparse-checkout", "set", "--no-cone", "/*", "!/store/objects/")
    assert checkout_cone(repo / ".git") is None  # git's patterns: nothing placed here
    assert checkout_cone(tmp_path) is None  # no sparse-checkout file
