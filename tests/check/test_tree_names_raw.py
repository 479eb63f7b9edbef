"""``check_tree_names`` reads raw trees (KI115, KI112): the same findings as pygit2's trees.

The walk parses each tree object's bytes itself (ASCII names, git's modes) and skips
directories of digest-named files only (object and metadata shards, comparison groups); a
tree it cannot parse so is read as a pygit2 Tree. The findings, in order, are held to the
walk as it was: every tree a pygit2 Tree, shards skipped.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import cast

import pygit2
import pytest

from kistore.check import _paths
from kistore.check._paths import _entry_findings, check_tree_names
from kistore.git import blobs, treediff

from ..conftest import git
from ..git.test_treediff import count_reads, forget_listings

HEX = "0123456789abcdef"


def _reference(repo: pygit2.Repository, tree: pygit2.Tree):
    """The walk before raw trees: pygit2 objects, only <62 hex>.json shards skipped."""
    shard = re.compile(rb"(?:100644 [0-9a-f]{62}\.json\0.{20})*", re.DOTALL)
    findings = []
    pending = [("", tree)]
    while pending:
        prefix, current = pending.pop()
        if prefix.startswith("store/") and shard.fullmatch(current.read_raw()):
            continue
        findings += _entry_findings(prefix, [(str(e.name), e.type_str == "tree")
                                             for e in current], None)
        pending += [(f"{prefix}{e.name}/", cast(pygit2.Tree, repo[e.id])) for e in current
                    if e.type_str == "tree"]
    return findings


class _Store:
    def __init__(self, repo: pygit2.Repository) -> None:
        self.repo = repo

    def commit(self, at: str) -> pygit2.Commit:
        return self.repo.revparse_single(at).peel(pygit2.Commit)


def _tree(repo: pygit2.Repository, spec: dict) -> pygit2.Oid:
    """Write a raw tree (libgit2's builder refuses .git names): name -> bytes (a file), a
    dict (a directory), or "link", "module", "exec"."""
    blob = repo.create_blob(b"x")
    entries = []
    for name, value in spec.items():
        if isinstance(value, dict):
            mode, oid = b"40000", _tree(repo, value)
        elif value in ("link", "module", "exec"):
            mode = {"link": b"120000", "module": b"160000", "exec": b"100755"}[value]
            oid = blob
        else:
            mode, oid = b"100644", repo.create_blob(value)
        raw = name.encode("utf-8")
        entries.append((raw + b"/" if mode == b"40000" else raw, mode, raw, oid))
    data = b"".join(m + b" " + n + b"\0" + o.raw for _, m, n, o in sorted(entries))
    return repo.odb.write(pygit2.GIT_OBJECT_TREE, data)


def _hexes(n: int, width: int, seed: int) -> list[str]:
    return [("".join(HEX[(seed * 7 + i * 3 + j) % 16] for j in range(width))) for i in range(n)]


SPECS = {
    "clean": {"store": {
        "objects": {"sha256": {"ab": {f"{h}.json": b"{}" for h in _hexes(3, 62, 1)}}},
        "groups": {"sha256": {"cd": {h: {r: b"{}" for r in _hexes(2, 64, 2)}
                                     for h in _hexes(2, 62, 3)}}}},
        "README.md": b"x"},
    "dotgit": {".GIT": {"hooks": b"x"}, "a": {"git~1": b"x", ".git. ": b"x"},
               "store": {"groups": {"sha256": {"cd": {"ab" * 31: {
                   "cd" * 32: b"{}", ".g\u200cit": b"x"}}}}}},
    "collisions": {"Foo": {"x": b"1"}, "foo": b"2", "store": {
        "names": {"Run": {"ab": {"a": b"1"}}, "run": b"2"},
        "objects": {"sha256": {"ab": {"AB.json": b"1", "ab.json": b"2"}}}}},
    "unicode": {"caf\u00e9": b"1", "cafe\u0301": {"x": b"2"}, "\u00c9t\u00e9": {
        ".git": b"x"}},
    "modes": {"tool": "exec", "link": "link", "module": "module", "Module": {"a": b"1"},
              "store": {"objects": {"sha256": {"ab": {
                  f"{'ab' * 31}.json": "exec", f"{'cd' * 31}.json": b"{}"}}}}},
}


def _committed(tmp_path, name: str) -> tuple[pygit2.Repository, pygit2.Oid]:
    """A bare repository whose HEAD commit has the tree of ``SPECS[name]``."""
    repo = pygit2.init_repository(str(tmp_path / "r"), bare=True)
    tree = _tree(repo, SPECS[name])
    sig = pygit2.Signature("t", "t@example.org", 0, 0)
    repo.create_commit("refs/heads/main", sig, sig, "m", tree, [])
    repo.set_head("refs/heads/main")
    return repo, tree


@pytest.mark.parametrize("name", list(SPECS))
def test_raw_trees_give_the_pygit2_walks_findings(tmp_path, name):
    repo, tree = _committed(tmp_path, name)
    findings = check_tree_names(_Store(repo), "HEAD")  # type: ignore[arg-type]
    assert [f for f in findings if f.rule.id != "KI423"] == _reference(repo, repo[tree])
    # a gitlink is KI423 since 2026-12-03 (a store repository holds no submodule)
    assert [(f.file, f.extra["fsck"]) for f in findings if f.rule.id == "KI423"] == (
        [("module", "submodule")] if name == "modes" else [])
    rules = sorted({f.rule.id for f in findings})
    assert rules == {"clean": [], "dotgit": ["KI115"], "collisions": ["KI112"],
                     "unicode": ["KI112", "KI115"], "modes": ["KI112", "KI423"]}[name]
    if name == "dotgit":  # the group directory holding a non-hex name is read, not skipped
        assert any(f.file.endswith("/.g\u200cit") for f in findings)


def _all_trees(repo: pygit2.Repository, tree: pygit2.Tree) -> list[pygit2.Oid]:
    found = [tree.id]
    for e in tree:
        if e.type_str == "tree":
            found += _all_trees(repo, cast(pygit2.Tree, repo[e.id]))
    return found


@pytest.mark.parametrize("name", list(SPECS))
def test_trees_the_history_check_kept_give_the_same_findings_unread(tmp_path, name,
                                                                    monkeypatch):
    """Issue 22: trees :mod:`kistore.git.treediff` kept (the history check read them just
    before) are not read again; the findings are the raw walk's, and a tree not kept is
    read as before."""
    repo, tree = _committed(tmp_path, name)
    expected = check_tree_names(_Store(repo), "HEAD")  # type: ignore[arg-type]
    forget_listings(monkeypatch)
    trees = _all_trees(repo, repo[tree])
    unkept = trees[-1]  # the last directory listed is read again, the rest are kept
    for oid in trees[:-1]:
        treediff._listing(repo, oid)
    reads = count_reads(monkeypatch, _paths)
    real = _paths.tree_or_type

    def counted(repo_: pygit2.Repository, oid: bytes) -> object:
        reads.append(oid.hex())  # a directory read whole with its type (once, not twice)
        return real(repo_, oid)

    monkeypatch.setattr(_paths, "tree_or_type", counted)
    assert check_tree_names(_Store(repo), "HEAD") == expected  # type: ignore[arg-type]
    assert reads == [str(unkept)]


def test_a_kept_listing_that_is_not_the_whole_tree_is_not_given(tmp_path, monkeypatch):
    """Two entries of one name (a malformed tree) are one in a listing: not the tree."""
    repo = pygit2.init_repository(str(tmp_path / "r"), bare=True)
    blob = repo.create_blob(b"x")
    twice = b"100644 a\0" + blob.raw
    tree = repo.odb.write(pygit2.GIT_OBJECT_TREE, twice * 2)
    once = repo.odb.write(pygit2.GIT_OBJECT_TREE, twice)
    forget_listings(monkeypatch)
    treediff._listing(repo, tree)
    treediff._listing(repo, once)
    assert treediff.kept_entries(str(tree)) is None
    assert treediff.kept_entries(str(once)) == [(b"100644", b"a", blob.raw)]
    assert treediff.kept_entries("0" * 40) is None


def test_each_loose_tree_under_the_store_is_opened_once(tmp_path, monkeypatch):
    """Issue 22: a directory under store/ is read whole when its type is asked (KI423), not
    opened for its header and then again for its bytes (16,559 loose trees at 100,000
    manifests); the findings are the same."""
    repo, tree = _committed(tmp_path, "clean")
    expected = check_tree_names(_Store(repo), "HEAD")  # type: ignore[arg-type]
    forget_listings(monkeypatch)
    opened: list[str] = []
    real = blobs._open_loose
    monkeypatch.setattr(blobs, "_open_loose", lambda *a: opened.append(a[1]) or real(*a))
    assert check_tree_names(_Store(repo), "HEAD") == expected  # type: ignore[arg-type]
    store = cast(pygit2.Tree, repo[tree])["store"].id
    under = sorted(str(t) for t in _all_trees(repo, cast(pygit2.Tree, repo[store]))[1:])
    assert len(under) == 8  # objects, sha256, its shard; groups, sha256, cd, two groups
    assert sorted(h for h in opened if h in under) == under


@pytest.mark.parametrize("name", list(SPECS))
def test_each_packed_tree_under_the_store_is_probed_for_a_loose_file_once(tmp_path, name,
                                                                          monkeypatch):
    """A packed directory under store/ was probed for a loose file three times: for its
    type (KI423), for its bytes, by the walk (8,601 failed opens for 2,866 trees at
    10,000 manifests, ver99). Once now; the findings are the same as loose."""
    repo, tree = _committed(tmp_path, name)
    expected = check_tree_names(_Store(repo), "HEAD")  # type: ignore[arg-type]
    git(Path(repo.path), "repack", "-a", "-d", "-q")
    git(Path(repo.path), "prune-packed")
    repo = pygit2.Repository(repo.path)
    root = cast(pygit2.Tree, repo[tree])
    under = [str(t) for t in _all_trees(repo, cast(pygit2.Tree, repo[root["store"].id]))[1:]
             ] if "store" in root else []
    assert not any(blobs.loose_object(repo, t) for t in under)  # packed
    forget_listings(monkeypatch)
    probed: list[str] = []
    real = blobs._open_loose
    monkeypatch.setattr(blobs, "_open_loose", lambda *a: probed.append(a[1]) or real(*a))
    assert check_tree_names(_Store(repo), "HEAD") == expected  # type: ignore[arg-type]
    assert sorted(h for h in probed if h in under) == sorted(under)  # each once (as listed)


@pytest.mark.parametrize("name", list(SPECS))
def test_trees_read_again_past_the_read_ahead_give_the_same_findings(tmp_path, name,
                                                                      monkeypatch):
    repo, _ = _committed(tmp_path, name)
    expected = check_tree_names(_Store(repo), "HEAD")  # type: ignore[arg-type]
    forget_listings(monkeypatch)
    monkeypatch.setattr(_paths, "READ_AHEAD_BYTES", 0)
    assert check_tree_names(_Store(repo), "HEAD") == expected  # type: ignore[arg-type]


def test_a_directory_of_the_store_naming_a_blob_is_ki423(tmp_path, monkeypatch):
    """The read ahead inflates only a blob's header: KI423 as before, the walk goes on."""
    repo = pygit2.init_repository(str(tmp_path / "r"), bare=True)
    big = repo.create_blob(bytes(range(256)) * 400)
    leaf = _tree(repo, {f"{h}.json": b"{}" for h in _hexes(2, 62, 1)})
    objects = repo.odb.write(pygit2.GIT_OBJECT_TREE,
                             b"40000 ab\0" + big.raw + b"40000 cd\0" + leaf.raw)
    store = repo.odb.write(pygit2.GIT_OBJECT_TREE, b"40000 objects\0" + objects.raw)
    root = repo.odb.write(pygit2.GIT_OBJECT_TREE, b"40000 store\0" + store.raw)
    sig = pygit2.Signature("t", "t@example.org", 0, 0)
    repo.create_commit("refs/heads/main", sig, sig, "m", root, [])
    repo.set_head("refs/heads/main")
    inflated: list[str] = []
    real = blobs._inflated
    monkeypatch.setattr(blobs, "_inflated", lambda *a: inflated.append(a[1]) or real(*a))
    findings = check_tree_names(_Store(repo), "HEAD")  # type: ignore[arg-type]
    assert [(f.file, f.extra["fsck"], f.found) for f in findings] == [
        ("store/objects/ab", "wrongObjectType", "blob")]
    assert str(leaf) in inflated and str(big) not in inflated
