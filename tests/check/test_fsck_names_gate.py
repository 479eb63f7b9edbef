"""The gate and ``verify --at`` refuse the trees of r79 F1 and F10 (names git treats apart).

r79 F1: a root entry ``.git::$INDEX_ALLOCATION/hooks/post-checkout`` (and the other NTFS
spellings of ``.git``), a symbolic link ``.gitmodules`` (and its spellings), a submodule
whose ``.gitmodules`` names it ``../../.git/hooks`` with an ``--upload-pack=`` url: each got
``ok: ... 0 errors`` from ``check`` and the pre-receive hook. r79 F10: root paths Git for
Windows cannot check out. Each commit is checked against git too: ``git read-tree`` (which
applies git's ``verify_path``, as a checkout does) or ``git fsck``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from kistore.check import gate
from kistore.check._paths import check_tree_names
from kistore.store import Store

from ..conftest import git
from .test_tree_entries_gate import DIR, _git_sorted, _server_and_clone, crafted_commit

KISTORE = str(Path(sys.executable).with_name("kistore"))
LINK = 0o120000


def _blob(root: Path, data: bytes) -> str:
    return subprocess.run(["git", "hash-object", "-w", "--stdin"], cwd=root, input=data,
                          capture_output=True, check=True).stdout.decode().strip()


def _hooks_tree(root: Path) -> str:
    """A tree ``hooks/post-checkout`` (an executable script), as r79's repro 01 writes."""
    hook = _blob(root, b"#!/bin/sh\necho pwned\n")
    hooks = subprocess.run(["git", "mktree"], cwd=root,
                           input=f"100755 blob {hook}\tpost-checkout\n",
                           capture_output=True, text=True, check=True).stdout.strip()
    return subprocess.run(["git", "mktree"], cwd=root, input=f"040000 tree {hooks}\thooks\n",
                          capture_output=True, text=True, check=True).stdout.strip()


def _root_entry(root: Path, mode: int, name: str, oid: str) -> str:
    """A commit on HEAD whose root tree gains one entry."""
    return crafted_commit(root, "", lambda es: _git_sorted([*es, (mode, name.encode(), oid)]))


def _git_checkout_refuses(root: Path, commit: str, tmp_path: Path) -> str:
    """git's own verdict: ``git read-tree`` of the commit into a scratch index (verify_path)."""
    env = {**os.environ, "GIT_INDEX_FILE": str(tmp_path / "scratch-index")}
    done = subprocess.run(["git", "read-tree", commit], cwd=root, env=env, capture_output=True,
                          text=True)
    return done.stderr if done.returncode else ""


def _found(findings, rule_id: str) -> list[tuple[str | None, str]]:
    return [(f.file, f.message) for f in findings if f.rule.id == rule_id]


@pytest.mark.parametrize(("kind", "name"), [
    ("tree", ".git::$INDEX_ALLOCATION"), ("tree", "GIT~1::$INDEX_ALLOCATION"),
    ("tree", ".git:x"), ("blob", ".git\\hooks\\post-checkout"), ("tree", "hooks\\.git")])
def test_ntfs_spellings_of_dotgit_are_ki115(published, tmp_path, kind, name):
    hooks = _hooks_tree(published)
    oid, mode = (hooks, DIR) if kind == "tree" else (_blob(published, b"#!/bin/sh\n"), 0o100755)
    commit = _root_entry(published, mode, name, oid)
    assert "invalid path" in _git_checkout_refuses(published, commit, tmp_path)  # git's word
    findings = gate.check_range(Store(published), f"{commit}^..{commit}")
    assert _found(findings, "KI115") == [(name, f"{name!r} is .git on some file system")]
    assert ("KI115", name) in [(f.rule.id, f.file) for f in check_tree_names(
        Store(published), commit)]  # verify --at


@pytest.mark.parametrize(("name", "fsck"), [
    (".gitmodules", "gitmodulesSymlink"), (".GITMODULES", "gitmodulesSymlink"),
    ("gitmod~1", "gitmodulesSymlink"), ("GI7EBA~1", "gitmodulesSymlink"),
    ("gi7eba~2", "gitmodulesSymlink"), (".gitmodules::$DATA", "gitmodulesSymlink"),
    (".gitmodules ", "gitmodulesSymlink"), (".gitmodules.", "gitmodulesSymlink"),
    (".gitignore", "gitignoreSymlink"), (".mailmap", "mailmapSymlink"),
    ("gitatt~1", "gitattributesSymlink")])
def test_symlinked_files_git_reads_are_ki423(published, tmp_path, name, fsck):
    commit = _root_entry(published, LINK, name, _blob(published, b"https://evil.example/x"))
    if fsck == "gitmodulesSymlink":  # git refuses to write it (the others it writes)
        assert "invalid path" in _git_checkout_refuses(published, commit, tmp_path)
    findings = gate.check_range(Store(published), f"{commit}^..{commit}")
    assert [(f.file, f.extra["fsck"]) for f in findings] == [(name, fsck)]  # KI423 alone
    tree = git(published, "rev-parse", f"{commit}^{{tree}}").strip()
    assert findings[0].message.startswith(
        f"commit {commit[:12]}: tree the root tree ({tree[:12]}) has an entry {name!r} (git "
        f"fsck: {fsck}): a symbolic link git reads as ")
    assert [(f.file, f.extra["fsck"]) for f in check_tree_names(Store(published), commit)
            if f.rule.id == "KI423"] == [(name, fsck)]


def test_a_submodule_with_a_hostile_gitmodules_is_refused(published, tmp_path):
    """r79 repro 01c: the shapes of CVE-2018-11235 (name) and CVE-2018-17456 (url)."""
    modules = _blob(published, b'[submodule "../../.git/hooks"]\n\tpath = sub\n'
                               b"\turl = --upload-pack=touch${IFS}/tmp/pwned\n")
    head = git(published, "rev-parse", "HEAD").strip()
    commit = crafted_commit(published, "", lambda es: _git_sorted(
        [*es, (0o100644, b".gitmodules", modules), (0o160000, b"sub", head)]))
    fsck = subprocess.run(["git", "fsck", "--no-dangling"], cwd=published, capture_output=True,
                          text=True)
    assert "gitmodulesName" in fsck.stderr and "gitmodulesUrl" in fsck.stderr  # git's errors
    findings = gate.check_range(Store(published), f"{commit}^..{commit}")
    assert [(f.file, f.extra["fsck"]) for f in findings] == [
        (".gitmodules", "gitmodules"), ("sub", "submodule")]
    assert "(kistore, not git fsck: gitmodules): a .gitmodules file" in findings[0].message


def test_an_honest_commit_still_passes(published):
    blob = _blob(published, b"notes\n")
    commit = _root_entry(published, 0o100644, "NOTES.md", blob)
    findings = gate.check_range(Store(published), f"{commit}^..{commit}")
    assert [f for f in findings if f.severity == "error"] == []


WINDOWS = {"aux.txt": "a reserved device name", "CON": "a reserved device name",
           "notes:today": "the character ':'", "docs.": "a trailing dot or space",
           "readme ": "a trailing dot or space", "a<b": "the character '<'",
           "what?": "the character '?'", "NUL.json": "a reserved device name"}
"""r79 F10's eight names (repro 10)."""


@pytest.mark.parametrize("directory", ["", "misc"])
def test_paths_git_for_windows_refuses_are_ki118(published, directory):
    blob = _blob(published, b"x\n")
    prefix = f"{directory}/" if directory else ""
    for name, problem in WINDOWS.items():
        if directory:
            sub = subprocess.run(["git", "mktree", "--missing"], cwd=published,
                                 input=f"100644 blob {blob}\t{name}\n", capture_output=True,
                                 text=True, check=True).stdout.strip()
            commit = _root_entry(published, DIR, directory, sub)
        else:
            commit = _root_entry(published, 0o100644, name, blob)
        findings = gate.check_range(Store(published), f"{commit}^..{commit}")
        assert _found(findings, "KI118") == [(
            prefix + name, f"{name!r} holds {problem}: Git for Windows (core.protectNTFS, its "
            "default) refuses to check out the path")], name
        assert [f.severity for f in findings if f.rule.id == "KI118"] == ["error"]
        assert [f.file for f in check_tree_names(Store(published), commit)
                if f.rule.id == "KI118"] == [prefix + name]


def test_pre_receive_refuses_the_r79_push(published, tmp_path, monkeypatch):
    monkeypatch.setenv("KISTORE", KISTORE)
    server, clone = _server_and_clone(published, tmp_path)
    before = git(server, "rev-parse", "refs/heads/main")
    commit = _root_entry(clone, DIR, ".git::$INDEX_ALLOCATION", _hooks_tree(clone))
    pushed = subprocess.run(["git", "push", "origin", f"{commit}:refs/heads/main"], cwd=clone,
                            capture_output=True, text=True)
    assert pushed.returncode != 0
    assert "remote: .git::$INDEX_ALLOCATION: error KI115 dotgit-path-component" in pushed.stderr
    assert git(server, "rev-parse", "refs/heads/main") == before


def test_a_zero_padded_directory_mode_is_ki423_not_a_tree_left_unread(published, tmp_path):
    # Reviewer r81 F10: a root entry `040000 docs` (git reads it as a tree; fsck only warns,
    # zeroPaddedFilemode) holding `.git/hooks/post-checkout` passed check and pre-receive
    # with 0 findings: the walks compared modes with git's spelling `40000` and never
    # looked inside. Every fresh clone then failed its checkout.
    import pygit2

    dotgit = subprocess.run(["git", "mktree"], cwd=published,
                            input=f"040000 tree {_hooks_tree(published)}\t.git\n",
                            capture_output=True, text=True, check=True).stdout.strip()
    repo = pygit2.Repository(str(published))
    root = repo.revparse_single("HEAD").peel(pygit2.Tree)
    entries = [(b"%o" % int(e.filemode), e.name.encode(), e.id.raw) for e in root]
    entries.append((b"040000", b"docs", bytes.fromhex(dotgit)))
    entries.sort(key=lambda e: e[1] + b"/" if e[0] in (b"40000", b"040000") else e[1])
    tree = subprocess.run(["git", "hash-object", "-t", "tree", "-w", "--literally", "--stdin"],
                          cwd=published, input=b"".join(b"%s %s\0%s" % e for e in entries),
                          capture_output=True, check=True).stdout.decode().strip()
    commit = git(published, "commit-tree", tree, "-p", "HEAD", "-m", "docs: tidy").strip()
    assert "invalid path 'docs/.git/hooks/post-checkout'" in _git_checkout_refuses(
        published, commit, tmp_path)  # git reads the tree
    findings = gate.check_range(Store(published), f"{commit}^..{commit}")
    assert [(f.rule.id, f.file, f.found) for f in findings if f.severity == "error"] == [
        ("KI423", "docs", "zeroPaddedFilemode")]
