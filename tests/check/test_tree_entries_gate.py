"""KI423: a pushed tree git itself would refuse (review r78 F1).

A tree written byte by byte (``git hash-object -t tree --literally``) can hold an entry
*named* ``objects/sha256/XX/REST.json`` in ``store/``: git checkout and ``git archive``
write it over the stored object, while kistore reads the ``objects`` subtree. Until
2026-12-03 the pre-receive gate, ``check C^..C`` and ``verify --at C`` said ok. So too for
the other names git refuses, duplicated entries and unsorted trees.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pygit2
import pytest

from kistore.check import gate
from kistore.check._paths import check_tree_names
from kistore.cli import main
from kistore.store import Store

from ..conftest import PUBLISHED, ROOT, git, store_file
from .test_hooks import add_env

PROTOCOL = store_file(PUBLISHED["protocol"])
KISTORE = str(Path(sys.executable).with_name("kistore"))
DIR = 0o040000


def _raw_tree(root: Path, entries: list[tuple[int, bytes, str]]) -> str:
    """Write a tree of exactly these entries, in this order (git would refuse some)."""
    data = b"".join(b"%o %s\0%s" % (mode, name, bytes.fromhex(oid))
                    for mode, name, oid in entries)
    return subprocess.run(["git", "hash-object", "-t", "tree", "-w", "--literally", "--stdin"],
                          cwd=root, input=data, capture_output=True,
                          check=True).stdout.decode().strip()


def _entries(repo: pygit2.Repository, tree_id: str) -> list[tuple[int, bytes, str]]:
    return [(int(e.filemode), e.name.encode(), str(e.id))
            for e in repo[tree_id].peel(pygit2.Tree)]


def _git_sorted(entries):
    return sorted(entries, key=lambda e: e[1] + b"/" if e[0] == DIR else e[1])


def crafted_commit(root: Path, directory: str, change) -> str:
    """Commit on HEAD (not checked out) whose tree at ``directory`` is ``change(entries)``.

    ``change`` gets the directory's entries (mode, name, id) in git's order and returns the
    entries to write, in the order to write them. The directories above are rebuilt sorted.
    """
    repo = pygit2.Repository(str(root))
    parts = directory.split("/") if directory else []
    trees = [str(repo.revparse_single("HEAD").peel(pygit2.Tree).id)]
    for name in parts:
        trees.append(str(repo[trees[-1]].peel(pygit2.Tree)[name].id))
    new = _raw_tree(root, change(_entries(repo, trees[-1])))
    for name, parent in zip(reversed(parts), reversed(trees[:-1]), strict=True):
        entries = [e for e in _entries(repo, parent) if e[1] != name.encode()]
        new = _raw_tree(root, _git_sorted([*entries, (DIR, name.encode(), new)]))
    return git(root, "commit-tree", new, "-p", "HEAD", "-m", "tidy").strip()


def shadow_entry(root: Path) -> tuple[str, str]:
    """r78's commit: ``store/`` += an entry named the protocol's object path, tampered bytes.

    Returns the commit and the entry's path as a checkout writes it.
    """
    tampered = (root / PROTOCOL).read_bytes().replace(b"v1.1", b"v1.2")
    blob = subprocess.run(["git", "hash-object", "-w", "--stdin"], cwd=root, input=tampered,
                          capture_output=True, check=True).stdout.decode().strip()
    name = PROTOCOL.removeprefix("store/").encode()
    return crafted_commit(root, "store", lambda es: _git_sorted([*es, (0o100644, name, blob)])
                          ), PROTOCOL


def _ki423(findings) -> list[tuple[str | None, str]]:
    return [(f.file, f.extra["fsck"]) for f in findings if f.rule.id == "KI423"]


def test_check_refuses_a_tree_entry_named_with_slashes(published):
    commit, path = shadow_entry(published)
    findings = gate.check_range(Store(published), f"{commit}^..{commit}")
    [finding] = [f for f in findings if f.rule.id == "KI423"]
    store_tree = git(published, "rev-parse", f"{commit}:store").strip()
    assert finding.severity == "error" and finding.file == path
    assert finding.message == (
        f"commit {commit[:12]}: tree store ({store_tree[:12]}) has an entry "
        f"'{path.removeprefix('store/')}' (git fsck: fullPathname): a name holding '/': git "
        f"checkout and git archive write it as the file {path}, in place of what the tree's "
        "own directories hold there, while kistore and `git show REV:PATH` read the "
        "directories")
    assert finding.extra == {"tree": store_tree, "entry": path.removeprefix("store/"),
                             "fsck": "fullPathname"}
    assert "receive.fsckObjects = true" in finding.hint


def test_verify_at_the_commit_reports_it(published, runner):
    commit, path = shadow_entry(published)
    result = runner.invoke(main, ["--store", str(published), "verify", "--at", commit])
    assert result.exit_code == 1, result.output
    assert f"{path}: error KI423 tree-entry-invalid: commit {commit[:12]}: tree store (" \
        in result.output


@pytest.mark.parametrize(("name", "fsck"), [
    (b"a/b", "fullPathname"), (b"", "emptyName"), (b".", "hasDot"), (b"..", "hasDotdot")])
@pytest.mark.parametrize("directory", ["", "store"])
def test_check_refuses_each_name_git_refuses(published, directory, name, fsck):
    blob = git(published, "rev-parse", f"HEAD:{PROTOCOL}").strip()
    commit = crafted_commit(published, directory,
                            lambda es: _git_sorted([*es, (0o100644, name, blob)]))
    findings = gate.check_range(Store(published), f"{commit}^..{commit}")
    prefix = f"{directory}/" if directory else ""
    assert (prefix + name.decode() or directory or "the root tree", fsck) in _ki423(findings)
    assert all(f.severity != "internal" for f in findings)


@pytest.mark.parametrize("name", [b".git", b".GIT", b"git~1", b".git. "])
def test_check_refuses_a_dotgit_entry_with_ki115(published, name):
    hooks = git(published, "rev-parse", "HEAD:store/objects").strip()  # any directory
    commit = crafted_commit(published, "", lambda es: _git_sorted([*es, (DIR, name, hooks)]))
    findings = gate.check_range(Store(published), f"{commit}^..{commit}")
    assert ("KI115", name.decode()) in [(f.rule.id, f.file) for f in findings]
    assert _ki423(findings) == []  # one rule for it: KI115 (git fsck: hasDotgit)


def _shard(path: str) -> str:
    return path.rsplit("/", 1)[0]


def test_check_refuses_a_duplicated_entry(published):
    commit = _duplicated_in_shard(published)
    findings = gate.check_range(Store(published), f"{commit}^..{commit}")
    assert (PROTOCOL, "duplicateEntries") in _ki423(findings)


def _duplicated_in_shard(published: Path) -> str:
    """A commit whose protocol shard lists the protocol's file twice (tampered bytes second)."""
    tampered = (published / PROTOCOL).read_bytes().replace(b"v1.1", b"v1.2")
    blob = subprocess.run(["git", "hash-object", "-w", "--stdin"], cwd=published,
                          input=tampered, capture_output=True, check=True).stdout.decode().strip()
    name = PROTOCOL.rsplit("/", 1)[1].encode()
    return crafted_commit(published, _shard(PROTOCOL), lambda es: [
        e for entry in es for e in ([entry, (0o100644, name, blob)] if entry[1] == name
                                    else [entry])])


def test_verify_reads_a_digest_shard_whole_when_it_is_not_sorted_or_unique(published):
    # verify skips shards of digest-named files unless sorted and unique (the fast path)
    commit = _duplicated_in_shard(published)
    assert _ki423(check_tree_names(Store(published), commit)) == [
        (PROTOCOL, "duplicateEntries")]
    # a digest-named file that sorts first, written last
    first = (0o100644, b"0" * 62 + b".json", git(published, "rev-parse", f"HEAD:{PROTOCOL}"
                                                   ).strip())
    unsorted = crafted_commit(published, _shard(PROTOCOL), lambda es: [*es, first])
    assert _ki423(check_tree_names(Store(published), unsorted)) == [
        (f"{_shard(PROTOCOL)}/{'0' * 62}.json", "treeNotSorted")]


def test_check_refuses_an_unsorted_tree(published):
    git(published, "rev-parse", "HEAD:store")
    commit = crafted_commit(published, "store", lambda es: list(reversed(es)))
    findings = gate.check_range(Store(published), f"{commit}^..{commit}")
    assert [fsck for _, fsck in _ki423(findings)] == ["treeNotSorted"] * (
        len(_entries(pygit2.Repository(str(published)),
                     git(published, "rev-parse", "HEAD:store").strip())) - 1)


def test_a_tree_git_writes_passes(published):
    commit = crafted_commit(published, "store", lambda es: es)  # the same tree, rewritten
    git(published, "commit-tree", "-p", "HEAD", "-m", "x", f"{commit}^{{tree}}")
    assert _ki423(gate.check_range(Store(published), f"{commit}^..{commit}")) == []


def test_an_older_commit_of_the_range_is_checked_too(published):
    bad, _ = shadow_entry(published)
    # the next commit takes the shadow entry out again: HEAD's tree is clean
    clean = git(published, "commit-tree", "-p", bad, "-m", "undo", "HEAD^{tree}").strip()
    findings = gate.check_range(Store(published), f"HEAD..{clean}")
    assert [(f.file, f.message.split(":")[0]) for f in findings if f.rule.id == "KI423"] == [
        (PROTOCOL, f"commit {bad[:12]}")]


def _server_and_clone(published: Path, tmp_path: Path) -> tuple[Path, Path]:
    """A bare server with hooks/pre-receive (as the README sets one up), and a clone of it."""
    server = tmp_path / "server.git"
    git(tmp_path, "clone", "-q", "--bare", str(published), str(server))
    shutil.copy(ROOT / "hooks" / "pre-receive", server / "hooks" / "pre-receive")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(server), str(clone))
    return server, clone


def test_pre_receive_refuses_the_r78_push(published, tmp_path, monkeypatch):
    monkeypatch.setenv("KISTORE", KISTORE)
    server, clone = _server_and_clone(published, tmp_path)
    before = git(server, "rev-parse", "refs/heads/main")
    commit, path = shadow_entry(clone)
    pushed = subprocess.run(["git", "push", "origin", f"{commit}:refs/heads/main"], cwd=clone,
                            capture_output=True, text=True)
    assert pushed.returncode != 0
    assert f"remote: {path}: error KI423 tree-entry-invalid: commit {commit[:12]}" \
        in pushed.stderr
    assert "pre-receive hook declined" in pushed.stderr
    assert git(server, "rev-parse", "refs/heads/main") == before


def test_receive_fsck_objects_as_advised_takes_kistore_pushes_and_refuses_the_r78_one(
        published, tmp_path, monkeypatch):
    monkeypatch.setenv("KISTORE", KISTORE)
    server, clone = _server_and_clone(published, tmp_path)
    git(server, "config", "receive.fsckObjects", "true")
    add_env(clone, "NVIDIA H100")
    pushed = subprocess.run(["git", "push", "origin", "main"], cwd=clone, capture_output=True,
                            text=True)
    assert pushed.returncode == 0, pushed.stderr
    assert "ok: 1 ref update(s): 0 errors" in pushed.stderr
    commit, _ = shadow_entry(clone)
    pushed = subprocess.run(["git", "push", "origin", f"{commit}:refs/heads/main"], cwd=clone,
                            capture_output=True, text=True)
    assert pushed.returncode != 0
    assert "fullPathname: contains full pathnames" in pushed.stderr  # git's own refusal
    assert git(server, "rev-parse", "refs/heads/main") == git(clone, "rev-parse", "main")
