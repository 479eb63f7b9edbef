"""KI112 of a case pair inside a shard, added by one commit of a range, removed by a later one.

case99 (fresh99 H2): ``cp store/objects/sha256/61/2e07...json store/objects/sha256/61/2E07...json``,
a commit, then KI110's printed fix (``rm`` the copy) in a second commit: ``kistore check
origin/main..HEAD`` and pre-receive said ok, while the first commit stays in main's history,
one file for two on macOS and Windows. The root (``readme.md`` beside ``README.md``) was
refused so (test_range_paths_history.py); a shard's files were left to the contents check,
which reads HEAD's files only. The same in a metadata shard and a names directory.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kistore.check import gate
from kistore.check._paths import _entry_findings, walk_judge
from kistore.core import layout
from kistore.store import Store

from ..conftest import PUBLISHED, commit_all, git, store_file
from .test_tree_entries_gate import DIR, _git_sorted, _server_and_clone, crafted_commit

KISTORE = str(Path(sys.executable).with_name("kistore"))
RUN = PUBLISHED["run"]


def _copy_path(root: Path, where: str) -> tuple[str, str]:
    """The stored file of the published run in ``where`` and its copy's path, one case off."""
    if where == "names":
        names = sorted((root / layout.NAMES_DIR / "BenchmarkRun").glob("*/*"))
        own = str(names[0].relative_to(root))
        head, _, leaf = own.rpartition("/")
        return own, f"{head}/{leaf[0].upper()}{leaf[1:]}"
    own = store_file(RUN, where)
    head, _, leaf = own.rpartition("/")
    return own, f"{head}/{leaf.removesuffix('.json').upper()}.json"


def _add_then_remove(root: Path, where: str) -> tuple[str, str, str]:
    """Commit a copy one case off beside the file, then a commit removing it (KI110's `rm`)."""
    own, copy = _copy_path(root, where)
    shutil.copyfile(root / own, root / copy)
    first = commit_all(root, "case")
    (root / copy).unlink()
    second = commit_all(root, "rm copy")
    return first, second, copy


@pytest.mark.parametrize("where", ["objects", "metadata", "names"])
def test_a_shard_case_pair_added_then_removed_is_refused(published, where):
    first, second, copy = _add_then_remove(published, where)
    base = git(published, "rev-parse", f"{first}^").strip()
    own, _ = _copy_path(published, where)
    findings = gate.check_range(Store(published), f"{base}..{second}")
    assert [(f.rule.id, f.file) for f in findings if f.severity == "error"] == [("KI112", copy)]
    assert findings[0].extra["collides_with"] == own
    assert findings[0].message == (
        f"collides with {own} under case folding or Unicode normalisation (one file on macOS "
        f"and Windows) (commit {first[:12]} brings it; a later commit of the range removes "
        "it, but that commit stays in the history, where a checkout of it meets the path: "
        f"rebuild the range without it, e.g. `git rebase -i {base}`)")


def _take_out(copy: str, base: str) -> str:
    """The gate's fix of a copy or a case pair a commit of the branch brings (case99)."""
    return ("brought by a commit of the branch: take it out of that commit, not in a later "
            "one, which leaves it in the history (a checkout of that commit meets it, and "
            "the gate judges every commit of a range, so it refuses that too): "
            f"`git rebase -i {base}`, and drop that commit (or, when "
            f"it holds other changes, mark it `edit`, then `git rm -r {copy}`, `git commit "
            "--amend`, `git rebase --continue`), and any later one that only removes or "
            "restores it: kept, it is left empty and git stops the rebase there (`git rebase "
            "--skip` it); ")


@pytest.mark.parametrize(("where", "what"), [("objects", "a copy of a stored object"),
                                             ("names", "a copy of a names file")])
def test_a_shard_case_pair_kept_to_head_is_said_once_with_the_branch_fix(published, where,
                                                                        what):
    """HEAD holds the pair: the contents check's KI112 and KI110, not the walk's too; both
    fixes take the copy out of its commit (KI110's `rm` in a later commit is refused)."""
    own, copy = _copy_path(published, where)
    shutil.copyfile(published / own, published / copy)
    first = commit_all(published, "case")
    base = git(published, "rev-parse", f"{first}^").strip()
    findings = gate.check_range(Store(published), f"{base}..{first}")
    errors = {f.rule.id: f for f in findings if f.severity == "error"}
    assert sorted(errors) == ["KI110", "KI112"]
    assert (errors["KI112"].file, errors["KI112"].extra["collides_with"]) == (own, copy)
    assert "on a case-insensitive or normalising file system" in errors["KI112"].message
    # on the stored file, but the fix takes out the copy BASE lacks
    assert errors["KI112"].fix == f"{copy}, colliding with {own}, " + _take_out(copy, base) + (
        "nothing else is to be written or removed for it: an object's or metadata file's name "
        f"is its digest, and {own} holds that name already" if where == "objects" else
        # low01: not "give it a name no other path of its directory has": its name is taken
        "nothing else is to be written or removed for it: a names file's name is the "
        f"metadata.name it records, in lower case, and {own} holds that name already")
    assert errors["KI110"].file == copy
    assert errors["KI110"].fix == f"{what}, " + _take_out(copy, base) + (
        "nothing else is to be written or removed for it")


def test_pre_receive_refuses_the_shard_case_pair_removed_again(published, tmp_path,
                                                               monkeypatch):
    monkeypatch.setenv("KISTORE", KISTORE)
    server, clone = _server_and_clone(published, tmp_path)
    before = git(server, "rev-parse", "refs/heads/main")
    first, second, copy = _add_then_remove(clone, "objects")
    pushed = subprocess.run(["git", "push", "origin", f"{second}:refs/heads/main"], cwd=clone,
                            capture_output=True, text=True)
    assert pushed.returncode != 0
    assert f"remote: {copy}: error KI112 path-case-collision: collides with " in pushed.stderr
    assert f"(commit {first[:12]} brings it; a later commit" in pushed.stderr
    assert git(server, "rev-parse", "refs/heads/main") == before


_HEX = st.text("0123456789abcdefABCDEF", min_size=3, max_size=3)
_SHARD_NAME = st.one_of(_HEX.map(lambda h: h + ".json"),
                        st.sampled_from(["caf\u00e9", "cafe\u0301", "CAF\u00c9", "K\u212a",
                                         "kk", "Kk", "stra\u00dfe", "STRASSE"]))


@settings(max_examples=300, deadline=None)
@given(st.lists(_SHARD_NAME, unique=True, max_size=8), st.data())
def test_the_shard_fast_path_finds_what_the_per_entry_test_finds(names, data):
    """walk_judge's files-only path (KI112 read only when two names may share a key) against
    every pair judged entry by entry, with case pairs, upper-case hex, NFC/NFD, K/KELVIN SIGN."""
    names = sorted(names, key=str.encode)
    brought = set(data.draw(st.lists(st.sampled_from(names), unique=True) if names
                            else st.just([])))
    entries = [(b"100644", n.encode(), b"\0" * 20) for n in names]
    fast = [f for f in walk_judge("commit 0", "store/objects/sha256/61/", entries,
                                  [e for e in entries if e[1].decode() in brought])
            if f.rule.id != "KI110"]  # the layout's judge (hist00): not this test's
    reference = _entry_findings("store/objects/sha256/61/", [(n, False) for n in names],
                                brought, files=True)
    assert [(f.rule.id, f.file, f.extra.get("collides_with")) for f in fast] == \
        [(f.rule.id, f.file, f.extra.get("collides_with")) for f in reference]
    for f in fast:
        assert f.file is not None and f.file.rpartition("/")[2] in brought


def test_store_objects_beside_objects_removed_again_says_so(published):
    """fresh99 H2: the store/Objects finding was on store/objects (HEAD's), worded as if the
    pair were still there: now on the name the commit brings, saying a later one removes it."""
    objects = git(published, "rev-parse", "HEAD:store/objects").strip()
    first = crafted_commit(published, "store", lambda es: _git_sorted(
        [*es, (DIR, b"Objects", objects)]))
    second = git(published, "commit-tree", git(published, "rev-parse", "HEAD^{tree}").strip(),
                 "-p", first, "-m", "drop it").strip()
    base = git(published, "rev-parse", "HEAD").strip()
    findings = gate.check_range(Store(published), f"{base}..{second}")
    assert [(f.rule.id, f.file) for f in findings if f.severity == "error"] == [
        ("KI112", "store/Objects")]
    assert findings[0].message == (
        "collides with store/objects under case folding or Unicode normalisation (one file on "
        f"macOS and Windows) (commit {first[:12]} brings it; a later commit of the range "
        "removes it, but that commit stays in the history, where a checkout of it meets the "
        f"path: rebuild the range without it, e.g. `git rebase -i {base}`)")


def test_the_branch_fix_followed_as_printed_passes(published):
    """KI110's and KI112's fix at the gate, run as written (the rebase marking the commit
    bringing the copy `edit`, the `git rm -r`, the amend, the continue): the range is ok,
    no commit of it holds the copy, and the commit's other change is kept."""
    base = git(published, "rev-parse", "HEAD").strip()
    own, copy = _copy_path(published, "objects")
    shutil.copyfile(published / own, published / copy)
    (published / "NOTES.md").write_text("kept\n")
    commit_all(published, "case")  # the copy and another change: `edit`, not drop
    fix = next(f.fix for f in gate.check_range(Store(published), f"{base}..HEAD")
               if f.rule.id == "KI110")
    assert f"mark it `edit`, then `git rm -r {copy}`, `git commit --amend`" in fix
    subprocess.run(["git", "rebase", "-q", "-i", base], cwd=published, check=True, env={
        **os.environ, "GIT_SEQUENCE_EDITOR": "sed -i -e 's/^pick \\([0-9a-f]* case\\)/edit \\1/'"})
    git(published, "rm", "-q", "-r", copy)
    git(published, "commit", "-q", "--amend", "--no-edit")
    git(published, "rebase", "--continue")
    assert [f for f in gate.check_range(Store(published), f"{base}..HEAD")
            if f.severity == "error"] == []
    assert git(published, "rev-list", f"{base}..HEAD", "--", copy).strip() == ""
    assert (published / "NOTES.md").read_text() == "kept\n"


@pytest.mark.parametrize("where", ["objects", "names"])
def test_a_case_copy_in_the_work_tree_is_told_to_go_never_to_be_renamed(published, where):
    """low01: verify's (and pre-commit's) KI112 of a store file and its case copy said the
    rule's "rename or remove one of the paths": renaming either is no fix (every name under
    store/ is the layout's), and removing the stored one loses it. The copy goes."""
    from kistore.check import audit

    own, copy = _copy_path(published, where)
    shutil.copyfile(published / own, published / copy)
    [found] = [f for f in audit.verify(Store(published)) if f.rule.id == "KI112"]
    why = ("a names file's name is the metadata.name it records" if where == "names" else
           "every name under store/ is the layout's")
    assert (found.file, found.extra["collides_with"]) == (own, copy)
    assert found.fix == (f"remove {copy}, the path the layout does not have (KI110), and "
                         f"keep {own}: {why}, in lower case, so renaming either is no fix; "
                         "nothing else is to be written or removed for it")
