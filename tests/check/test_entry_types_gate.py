"""KI423: a tree entry whose object is not of the type its mode names (reviewer r82 F2).

r82's repro 02: a root entry ``100644 docs`` naming a *tree* (one holding
``.git/hooks/post-checkout``) got ``ok: 0 errors`` from ``check`` and the pre-receive hook,
and ``verify`` of the server said ok; every fresh clone then failed its checkout ("unable
to read sha1 file of docs"). git's fsck: "is a tree, not a blob". The same with ``120000``
naming a tree and ``100644`` naming a commit or a tag. Now KI423 in ``check``, pre-receive
(branches and notes) and ``verify``, each object's type read from its header only. An entry
naming a blob the repository does not hold passed too: now KI117 ("missing", on the entry's
path), as a missing tree is, not an internal error.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from kistore.check import _trees, audit, gate
from kistore.check._paths import check_tree_names
from kistore.check.gate import check_updates
from kistore.cli import main
from kistore.core.layout import NOTES_REF
from kistore.git import blobs
from kistore.store import Store

from ..conftest import git
from .test_fsck_names_gate import _blob, _hooks_tree, _root_entry
from .test_notes_tree_entries import _honest_notes, _notes_commit, _raw_tree
from .test_tree_entries_gate import DIR, _git_sorted, _server_and_clone, crafted_commit

KISTORE = str(Path(sys.executable).with_name("kistore"))
MISSING = "1" * 40


def _dotgit_hooks(root: Path) -> str:
    """r82's tree: ``.git/hooks/post-checkout`` (an executable script)."""
    hooks = _hooks_tree(root)
    return subprocess.run(["git", "mktree"], cwd=root, input=f"040000 tree {hooks}\t.git\n",
                          capture_output=True, text=True, check=True).stdout.strip()


def _ki423(findings) -> list[tuple[str | None, str, str]]:
    return [(f.file, f.extra["fsck"], f.found) for f in findings if f.rule.id == "KI423"]


def _object(root: Path, kind: str) -> str:
    if kind == "tree":
        return _dotgit_hooks(root)
    if kind == "blob":
        return _blob(root, b"#!/bin/sh\n")
    if kind == "commit":
        return git(root, "rev-parse", "HEAD").strip()
    if kind == "tag":
        git(root, "tag", "-a", "-m", "t", "annotated", "HEAD")
        return git(root, "rev-parse", "annotated").strip()
    return MISSING


@pytest.mark.parametrize(("mode", "kind", "wanted"), [
    (0o100644, "tree", "blob"), (0o100755, "tree", "blob"), (0o120000, "tree", "blob"),
    (0o100644, "commit", "blob"), (0o100644, "tag", "blob"), (DIR, "blob", "tree")])
def test_an_entry_naming_another_type_is_ki423(published, tmp_path, mode, kind, wanted):
    oid = _object(published, kind)
    commit = _root_entry(published, mode, "docs", oid)
    fsck = subprocess.run(["git", "fsck", "--no-dangling"], cwd=published, capture_output=True,
                          text=True)
    assert fsck.returncode != 0  # git's own verdict (on the tag: "is a tag, not a blob")
    findings = gate.check_range(Store(published), f"{commit}^..{commit}")
    assert _ki423(findings) == [("docs", "wrongObjectType", kind)]
    tree = git(published, "rev-parse", f"{commit}^{{tree}}").strip()
    assert findings[0].message == (
        f"commit {commit[:12]}: tree the root tree ({tree[:12]}) has an entry 'docs' of mode "
        f"{mode:o} that names {oid}, which is a {kind}, not a {wanted} (git fsck: \"is a "
        f"{kind}, not a {wanted}\"): git checkout cannot write docs (\"unable to read sha1 "
        "file\"), so every clone's checkout fails")
    assert findings[0].expected == f"a {wanted}" and findings[0].severity == "error"
    assert _ki423(check_tree_names(Store(published), commit)) == [  # verify --at
        ("docs", "wrongObjectType", kind)]


def test_the_r82_clone_fails_its_checkout(published, tmp_path):
    """What KI423 says is so: git itself cannot check the commit out."""
    commit = _root_entry(published, 0o100644, "docs", _dotgit_hooks(published))
    git(published, "branch", "pr", commit)
    done = subprocess.run(["git", "clone", "-q", "-b", "pr", str(published),
                           str(tmp_path / "fresh")], capture_output=True, text=True)
    assert "unable to read sha1 file of docs" in done.stderr


@pytest.mark.parametrize("mode", [0o100644, DIR])
@pytest.mark.parametrize("command", [["check", "{c}^..{c}"], ["verify", "--at", "{c}"]])
def test_an_entry_naming_a_missing_object_is_ki117_not_an_internal_error(published, runner,
                                                                          mode, command):
    """A blob no loose file nor pack holds: named as a tree the walk cannot find is."""
    commit = _root_entry(published, mode, "docs", MISSING)
    result = runner.invoke(main, ["--store", str(published),
                                  *[a.format(c=commit) for a in command]])
    assert result.exit_code == 1, result.output
    assert f"docs: error KI117 git-object-unreadable: git object {MISSING} cannot be read " \
        "(missing: " in result.output
    assert "internal error" not in result.output


def test_a_missing_blob_of_a_partial_clone_is_promised_not_refused(published):
    commit = _root_entry(published, 0o100644, "docs", MISSING)
    repo = Store(published).repo
    tree = git(published, "rev-parse", f"{commit}^{{tree}}").strip()
    entries = [(b"100644", b"docs", bytes.fromhex(MISSING))]
    assert _trees.type_findings(repo, "commit x", "", tree, entries, partial=True) == ([], set())
    with pytest.raises(blobs.ObjectUnreadable, match="missing"):
        _trees.type_findings(repo, "commit x", "", tree, entries, partial=False)


def test_a_file_of_the_store_naming_a_tree_is_ki423(published):
    tree = git(published, "rev-parse", "HEAD:store/objects").strip()
    commit = crafted_commit(published, "store/policy", lambda es: _git_sorted(
        [*es, (0o100644, b"extra.json", tree)]))
    findings = gate.check_range(Store(published), f"{commit}^..{commit}")
    assert _ki423(findings) == [("store/policy/extra.json", "wrongObjectType", "tree")]


def test_only_the_entries_a_commit_brings_are_looked_up(published, monkeypatch):
    """O(change): the entries a parent's tree holds (same mode and id) are not read again."""
    asked: list[str] = []
    real = blobs.object_type

    def counting(repo, oid, path=None):
        asked.append(path)
        return real(repo, oid, path)

    monkeypatch.setattr(_trees, "object_type", counting)
    commit = _root_entry(published, 0o100644, "NOTES.md", _blob(published, b"notes\n"))
    assert gate.check_range(Store(published), f"{commit}^..{commit}") == []
    assert asked == ["NOTES.md"]


def test_pre_receive_refuses_the_r82_push(published, tmp_path, monkeypatch):
    monkeypatch.setenv("KISTORE", KISTORE)
    server, clone = _server_and_clone(published, tmp_path)
    before = git(server, "rev-parse", "refs/heads/main")
    commit = _root_entry(clone, 0o100644, "docs", _dotgit_hooks(clone))
    pushed = subprocess.run(["git", "push", "origin", f"{commit}:refs/heads/main"], cwd=clone,
                            capture_output=True, text=True)
    assert pushed.returncode != 0
    assert f"remote: docs: error KI423 tree-entry-invalid: commit {commit[:12]}: tree the " \
        "root tree" in pushed.stderr
    assert "which is a tree, not a blob" in pushed.stderr
    assert git(server, "rev-parse", "refs/heads/main") == before


def test_a_notes_tree_entry_naming_a_tree_is_refused_and_reported(record_store, store_path):
    tip, annotated, honest, _ = _honest_notes(record_store, store_path)
    hooks = _dotgit_hooks(store_path)
    tree = _raw_tree(store_path, [(b"100644", annotated.encode(), hooks)])
    pushed = _notes_commit(store_path, tree, tip)
    findings = check_updates(record_store, [(tip, pushed, NOTES_REF)])
    assert _ki423(findings) == [(f"{NOTES_REF}:{annotated}", "wrongObjectType", "tree")]
    git(store_path, "update-ref", NOTES_REF, pushed)
    assert _ki423(audit.check_notes_and_attestations(record_store)) == [
        (f"{NOTES_REF}:{annotated}", "wrongObjectType", "tree")]  # verify


def test_a_header_is_read_not_the_object(published, monkeypatch):
    """A loose blob's type without inflating it whole: a 4 MiB blob, 4 KiB read."""
    blob = _blob(published, b"x" * (4 << 20))
    repo = Store(published).repo
    reads: list[int] = []
    real = blobs.os.read
    monkeypatch.setattr(blobs.os, "read", lambda fd, n: reads.append(n) or real(fd, n))
    assert blobs.object_type(repo, blob) == 3
    assert reads == [4096]
    assert blobs.object_type(repo, MISSING) is None
