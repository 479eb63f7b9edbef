"""KI115, KI118, KI112 judge every path each commit of a range brings (r81 F13, r82 F6).

r82's repro 06: ``aux.txt`` added by one commit of a range and removed by the next got
``ok: main..pr: 0 errors`` (the one commit alone: KI118); r81's repro 24 the same with
``.GIT/hooks/post-checkout`` and ``.git::$INDEX_ALLOCATION/...``. Main's history then keeps a
commit Git for Windows (or macOS) cannot check out, or whose checkout writes a hook. The
three rules now run on the one walk KI423 makes over the trees new to the range.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from kistore.check import gate
from kistore.store import Store

from ..conftest import git
from .test_fsck_names_gate import _blob, _hooks_tree
from .test_tree_entries_gate import DIR, _git_sorted, _server_and_clone, crafted_commit

KISTORE = str(Path(sys.executable).with_name("kistore"))
REMOVED = ("; a later commit of the range removes it, but that commit stays in the history, "
           "where a checkout of it meets the path: rebuild the range without it, e.g. `git "
           "rebase -i {base}`)")  # BASE named by its commit (fresh95 F6)


def _added_then_removed(root: Path, entries: list[tuple[int, bytes, str]]) -> tuple[str, str]:
    """Two commits on HEAD: the first adds ``entries`` to the root tree, the next removes them."""
    first = crafted_commit(root, "", lambda es: _git_sorted([*es, *entries]))
    second = git(root, "commit-tree", git(root, "rev-parse", "HEAD^{tree}").strip(), "-p",
                 first, "-m", "drop it").strip()
    return first, second


def _rules(findings) -> list[tuple[str, str | None]]:
    return [(f.rule.id, f.file) for f in findings if f.severity == "error"]


@pytest.mark.parametrize(("kind", "name", "rule_id"), [
    ("blob", "aux.txt", "KI118"), ("blob", "notes:today", "KI118"),
    ("tree", ".GIT", "KI115"), ("tree", ".git::$INDEX_ALLOCATION", "KI115")])
def test_a_name_added_then_removed_inside_the_range_is_refused(published, kind, name,
                                                               rule_id):
    oid = _hooks_tree(published) if kind == "tree" else _blob(published, b"x\n")
    first, second = _added_then_removed(
        published, [(DIR if kind == "tree" else 0o100644, name.encode(), oid)])
    findings = gate.check_range(Store(published), f"{first}^..{second}")
    assert _rules(findings) == [(rule_id, name)]
    base = git(published, "rev-parse", f"{first}^").strip()
    assert findings[0].message.endswith(
        f"(commit {first[:12]} brings it{REMOVED.format(base=base)}")
    assert findings[0].extra["commit"] == f"commit {first[:12]}"


def test_a_case_collision_added_then_removed_is_refused(published):
    first, second = _added_then_removed(published, [
        (0o100644, b"NOTES.md", _blob(published, b"a\n")),
        (0o100644, b"notes.md", _blob(published, b"b\n"))])
    findings = gate.check_range(Store(published), f"{first}^..{second}")
    assert _rules(findings) == [("KI112", "notes.md")]
    assert findings[0].message == (
        "collides with NOTES.md under case folding or Unicode normalisation (one file on "
        f"macOS and Windows) (commit {first[:12]} brings it"
        f"{REMOVED.format(base=git(published, 'rev-parse', f'{first}^').strip())}")


def test_a_name_kept_to_head_is_said_once_and_as_before(published):
    """Added by the first commit, kept by the second (which changes another root file)."""
    first = crafted_commit(published, "", lambda es: _git_sorted(
        [*es, (0o100644, b"aux.txt", _blob(published, b"x\n"))]))
    git(published, "update-ref", "refs/heads/pr", first)
    second = subprocess.run(
        ["git", "commit-tree", crafted_tree(published, first), "-p", first, "-m", "more"],
        cwd=published, capture_output=True, text=True, check=True).stdout.strip()
    findings = gate.check_range(Store(published), f"{first}^..{second}")
    assert [(f.rule.id, f.file, f.message) for f in findings if f.severity == "error"] == [
        ("KI118", "aux.txt", "'aux.txt' holds a reserved device name: Git for Windows "
         "(core.protectNTFS, its default) refuses to check out the path")]


def crafted_tree(root: Path, commit: str) -> str:
    """``commit``'s tree with one more root file, ``MORE.md``."""
    listing = git(root, "ls-tree", commit)
    more = _blob(root, b"more\n")
    return subprocess.run(["git", "mktree"], cwd=root, input=f"{listing}100644 blob {more}\t"
                          "MORE.md\n", capture_output=True, text=True,
                          check=True).stdout.strip()


def test_a_clean_range_of_two_commits_passes(published):
    first, second = _added_then_removed(published, [
        (0o100644, b"NOTES.md", _blob(published, b"a\n"))])
    assert _rules(gate.check_range(Store(published), f"{first}^..{second}")) == []


def test_pre_receive_refuses_a_pushed_range_that_added_and_removed_aux(published, tmp_path,
                                                                        monkeypatch):
    monkeypatch.setenv("KISTORE", KISTORE)
    server, clone = _server_and_clone(published, tmp_path)
    before = git(server, "rev-parse", "refs/heads/main")
    first, second = _added_then_removed(clone, [
        (0o100644, b"aux.txt", _blob(clone, b"x\n"))])
    pushed = subprocess.run(["git", "push", "origin", f"{second}:refs/heads/main"], cwd=clone,
                            capture_output=True, text=True)
    assert pushed.returncode != 0
    assert "remote: aux.txt: error KI118 path-invalid-on-windows: 'aux.txt' holds a reserved " \
        "device name" in pushed.stderr
    assert f"(commit {first[:12]} brings it; a later commit" in pushed.stderr
    assert git(server, "rev-parse", "refs/heads/main") == before
