"""kistore.git.treediff against git itself: ``git diff-tree -r --no-renames`` of the same trees."""

from __future__ import annotations

import itertools
import os
from pathlib import Path

import pygit2
import pytest

from kistore.core import layout
from kistore.git import treediff

from ..conftest import git

_OBJ = layout.OBJECTS_DIR
_META = layout.METADATA_DIR
_A = f"{_OBJ}/ab/{'c' * 62}.json"
_B = f"{_OBJ}/cd/{'e' * 62}.json"


def _commit(root: Path, files: dict[str, str | tuple[str, str]]) -> str:
    """Make the work tree exactly ``files`` (text, or ("link", target) / ("exec", text))."""
    git(root, "rm", "-rq", "--cached", "--ignore-unmatch", ".")
    for top in ("store", "other"):
        if (root / top).exists():
            git(root, "clean", "-qfdx", top)
    for path, content in files.items():
        full = root / path
        full.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, tuple) and content[0] == "link":
            os.symlink(content[1], full)
        else:
            text = content[1] if isinstance(content, tuple) else content
            full.write_text(text)
            full.chmod(0o755 if isinstance(content, tuple) else 0o644)
    git(root, "add", "-A")
    git(root, "commit", "-qm", "step", "--allow-empty")
    return git(root, "rev-parse", "HEAD").strip()


def _git_diff(root: Path, old: str, new: str, *paths: str) -> dict[str, tuple[str, str]]:
    out = git(root, "diff-tree", "-r", "--no-renames", old, new, "--", *paths)
    changes = {}
    for line in out.splitlines():
        meta, path = line.split("\t")
        old_mode, new_mode, old_id, new_id, _ = meta[1:].split()
        changes[path] = (old_mode, new_mode, old_id, new_id)
    return changes


def _ours(repo: pygit2.Repository, old: str, new: str) -> dict[str, tuple[str, str]]:
    def side(entry: treediff.Entry | None) -> tuple[str, str]:
        return ("000000", "0" * 40) if entry is None else (f"{entry[1]:06o}", str(entry[0]))

    found = treediff.changed_files(repo, repo[old].tree, repo[new].tree)
    return {p: (side(a)[0], side(b)[0], side(a)[1], side(b)[1]) for p, (a, b) in found.items()}


def forget_listings(monkeypatch: pytest.MonkeyPatch) -> None:
    """Start with no tree listing kept (:data:`kistore.git.treediff._LISTINGS`)."""
    monkeypatch.setattr(treediff, "_LISTINGS", {})
    monkeypatch.setattr(treediff, "_entries_kept", 0)
    monkeypatch.setattr(treediff, "_tiled", set())


def count_reads(monkeypatch: pytest.MonkeyPatch, module: object) -> list[str]:
    """Return the list each ``module.read_object`` call appends its object id to, from now."""
    reads: list[str] = []
    real = module.read_object  # type: ignore[attr-defined]

    def counted(repo_: pygit2.Repository, oid: object, path: str | None = None) -> object:
        reads.append(str(oid))
        return real(repo_, oid, path)

    monkeypatch.setattr(module, "read_object", counted)
    return reads


_STEPS = [
    {},
    {_A: "a", "other/x": "outside the store"},
    {_A: "a", _B: "b", f"{_META}/ab/{'c' * 62}.json": "m"},  # added files, a new shard
    {_A: "a2", _B: "b", f"{_META}/ab/{'c' * 62}.json": "m"},  # modified in place
    {_A: ("exec", "a2"), _B: "b"},  # executable bit; metadata deleted
    {_A: ("link", "elsewhere"), f"{_OBJ}/cd": "a file where a shard was"},  # type changes
    {f"{_OBJ}/ab/deep/er/{'c' * 62}.json": "nested", f"{_OBJ}/top.json": "a file in the base"},
    {},
]


def test_changed_files_is_git_diff_tree_of_the_store_bases(tmp_path):
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q")
    git(root, "config", "user.email", "t@example.com")
    git(root, "config", "user.name", "t")
    commits = [_commit(root, files) for files in _STEPS]
    repo = pygit2.Repository(str(root))
    for old in commits:
        for new in commits:
            expected = _git_diff(root, old, new, _OBJ, _META)
            assert _ours(repo, old, new) == expected, (old, new)
    assert any(_git_diff(root, a, b, _OBJ, _META) for a, b in itertools.pairwise(commits))


@pytest.mark.parametrize("old_none", [True, False])
def test_an_absent_side_is_the_empty_tree(tmp_path, old_none):
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q")
    git(root, "config", "user.email", "t@example.com")
    git(root, "config", "user.name", "t")
    head = _commit(root, {_A: "a", _B: "b"})
    repo = pygit2.Repository(str(root))
    tree = repo[head].tree
    found = treediff.changed_files(repo, None if old_none else tree, tree if old_none else None)
    assert sorted(found) == [_A, _B]
    blob_a = git(root, "rev-parse", f"HEAD:{_A}").strip()
    entry = (blob_a, 0o100644)
    assert found[_A] == ((None, entry) if old_none else (entry, None))


def test_files_below_is_git_ls_tree_of_every_step(tmp_path):
    """files_below lists what ``git ls-tree -r`` lists (modes, blob ids; a name with a
    newline or a tab included), and what changed_leaves of the empty tree lists."""
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q")
    git(root, "config", "user.email", "t@example.com")
    git(root, "config", "user.name", "t")
    odd = {f"{_OBJ}/ab/new\nline.json": "a newline in a name", f"{_META}/ab/tab\tname": "t"}
    commits = [_commit(root, {**files, **odd}) for files in _STEPS]
    repo = pygit2.Repository(str(root))
    for commit in commits:
        tree = repo[commit].tree
        if "store" not in tree:
            continue
        store = tree["store"].id
        modes, ids = treediff.files_below(repo, store, "store/")
        listed = git(root, "ls-tree", "-r", "-z", commit, "store").split("\0")
        expected = {}
        for line in filter(None, listed):
            meta, path = line.split("\t", 1)
            mode, _, oid = meta.split()
            expected[path] = (int(mode, 8), oid)
        assert {p: (m, ids[p].hex() if p in ids else None) for p, m in modes.items()} == {
            p: (m, o if m in (0o100644, 0o100755) else None) for p, (m, o) in expected.items()}
        leaves = treediff.changed_leaves(repo, None, store, "store/")
        assert modes == {p: now[1] for p, (_, now) in leaves.items()}  # type: ignore[index]


def test_a_history_walk_reads_each_changed_shard_tree_once(tmp_path, monkeypatch):
    """Issue 22: a walk diffing each commit with its parent reads the parent's trees again.

    100 shards changed by each of 3 commits: 64 kept listings held none of them by the
    next diff, and each shard tree of the middle commit was inflated twice.
    """
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q")
    git(root, "config", "user.email", "t@example.com")
    git(root, "config", "user.name", "t")
    shards = [f"{i:02x}" for i in range(100)]
    commits = [_commit(root, {f"{_OBJ}/{s}/{s}{str(step) * 60}.json": "x" for s in shards
                              for step in range(1, n + 1)}) for n in range(1, 4)]
    repo = pygit2.Repository(str(root))
    base = {c: treediff.subtree_id(repo, repo[c].tree, _OBJ) for c in commits}
    forget_listings(monkeypatch)
    reads = count_reads(monkeypatch, treediff)
    for old, new in [(commits[1], commits[2]), (commits[0], commits[1])]:  # newest first
        changed = treediff.changed_leaves(repo, base[old], base[new], _OBJ + "/")
        assert len(changed) == 100
    # the objects directory of 3 commits and its 100 shards in each: each tree read once
    # (before, the 101 trees of the middle commit were read twice: 404 reads)
    assert len(reads) == len(set(reads)) == 303


def test_changed_leaves_without_additions_is_the_rest_of_the_diff(tmp_path, monkeypatch):
    """``added=False`` (issue 22: the append-only checks of history) gives every change but
    the files ``new`` alone holds, and reads no directory ``new`` alone holds."""
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q")
    git(root, "config", "user.email", "t@example.com")
    git(root, "config", "user.name", "t")
    steps = [*_STEPS, {f"{_OBJ}/cd/new/{'d' * 62}.json": "a new directory"},
             {f"{_OBJ}/cd": "a file where a directory was"}]
    commits = [_commit(root, files) for files in steps]
    repo = pygit2.Repository(str(root))
    base = {c: treediff.subtree_id(repo, repo[c].tree, "store") for c in commits}
    reads = count_reads(monkeypatch, treediff)
    seen_deleted = seen_modified = 0
    for old in commits:
        for new in commits:
            every = treediff.changed_leaves(repo, base[old], base[new], "store/")
            forget_listings(monkeypatch)
            reads.clear()
            rest = treediff.changed_leaves(repo, base[old], base[new], "store/", added=False)
            assert rest == {p: c for p, c in every.items() if c[0] is not None}, (old, new)
            seen_deleted += sum(c[1] is None for c in rest.values())
            seen_modified += sum(c[1] is not None for c in rest.values())
            if old == commits[0] and new == commits[-2]:  # all added: only the two tops read
                assert rest == {} and reads == [str(base[new])] * (base[new] is not None)
    assert seen_deleted and seen_modified
