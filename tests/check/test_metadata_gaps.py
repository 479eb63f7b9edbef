"""KI204 at every commit of a range: an object's metadata file gone, then back (hist03).

fresh04 H2: a committed object's metadata file deleted in one commit and restored in the
next passed ``kistore check``, ``check --landed`` and pre-receive with 0 findings (as one
commit it is KI204); at the middle commit ``show --at`` and ``rank --at`` said the run
"may have come later".
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from kistore.check import gate
from kistore.cli import main as cli
from kistore.core import layout
from kistore.core.digest import Digest
from kistore.store import Store

from ..conftest import PUBLISHED, add_docs, commit_all, git, store_file
from .test_metadata_versions import _drop_and_skip
from .test_tree_entries_gate import _server_and_clone

KISTORE = str(Path(sys.executable).with_name("kistore"))
OBJ = store_file(PUBLISHED["run"])
META = store_file(PUBLISHED["run"], "metadata")


def _deleted_then_restored(root: Path) -> tuple[str, str, str]:
    """BASE, a commit deleting the run's metadata file, one restoring it (fresh04's m2)."""
    base = git(root, "rev-parse", "HEAD").strip()
    git(root, "rm", "-q", META)
    first = commit_all(root, "delmeta")
    git(root, "checkout", base, "--", META)
    return base, first, commit_all(root, "restore")


def _message(base: str, first: str, second: str, done: str = "deletes it") -> str:
    return (f"no metadata file {META} at commit {first[:12]}, which {done}: commit "
            f"{second[:12]} brings it back, but commit {first[:12]} stays in the history, "
            "where `verify --at`, `show --at`, `rank --at` and a checkout of it find the "
            "object without its metadata (the run is not there): rebuild the range without "
            f"it, e.g. `git rebase -i {base}`")


def _fix(what: str, base: str, undo: str, *, drop: bool = True) -> str:
    lead = (f"{what}, brought by a commit of the branch: take it out of that commit, not in a "
            "later one, which leaves it in the history (a checkout of that commit meets it, "
            "and the gate judges every commit of a range, so it refuses that too): "
            f"`git rebase -i {base}`, and ")
    then = "an object's metadata file is there at every commit that holds the object"
    if not drop:
        return (f"{lead}mark that commit `edit`, then {undo}, `git commit --amend`, `git "
                "rebase --continue`; the later commit that brought that version may be left "
                f"empty: git stops the rebase there (`git rebase --skip` it); {then}")
    return (f"{lead}drop that commit (or, when it holds other changes, mark it `edit`, then "
            f"{undo}, `git commit --amend`, `git rebase --continue`), and any later one that "
            "only removes or restores it: kept, it is left empty and git stops the rebase "
            f"there (`git rebase --skip` it); {then}")


def _errors(root: Path, spec: str, **kw) -> list:
    return [f for f in gate.check_range(Store(root), spec, **kw) if f.severity == "error"]


def test_metadata_deleted_then_restored_is_ki204_of_the_deleting_commit(published):
    base, first, second = _deleted_then_restored(published)
    said = CliRunner().invoke(cli, ["--store", str(published), "check", f"{base}..{second}"])
    assert said.exit_code == 1, said.output
    fix = _fix("the deletion of an object's metadata file", base,
               f"`git checkout {base} -- {META}`")
    assert said.output.splitlines() == [
        f"{OBJ}: error KI204 object-without-metadata: {_message(base, first, second)}",
        f"fix KI204 (1 finding): {fix}",
        f"FAILED: {base}..{second}: 1 error, 0 warnings, 0 info"]
    [landed] = _errors(published, f"{base}..{second}", landed=True)
    assert (landed.rule.id, landed.extra["commit"]) == ("KI204", f"commit {first[:12]}")
    _drop_and_skip(published, fix, first)  # as printed: the restore, left empty, skipped
    assert git(published, "rev-parse", "HEAD").strip() == base
    assert _errors(published, f"{base}..HEAD") == []


def test_head_s_ki204_of_a_deletion_names_the_deleting_commit(published):
    """The gap HEAD holds is the contents check's KI204, once; its fix drops the deletion
    (a restoring commit would leave it in the history)."""
    base = git(published, "rev-parse", "HEAD").strip()
    git(published, "rm", "-q", META)
    first = commit_all(published, "delmeta")
    (published / "NOTES.md").write_text("notes\n")
    second = commit_all(published, "notes")
    [error] = _errors(published, f"{base}..{second}")
    assert (error.rule.id, error.file, error.message) == ("KI204", OBJ,
                                                          f"no metadata file {META}")
    assert error.fix == _fix(f"the deletion of an object's metadata file (commit "
                             f"{first[:12]})", base, f"`git checkout {base} -- {META}`")
    env = {**os.environ, "GIT_SEQUENCE_EDITOR": f"sed -i -e '/^pick {first[:7]}/s/^pick/drop/'"}
    subprocess.run(["git", "rebase", "-i", base], cwd=published, env=env, check=True,
                   capture_output=True)
    assert _errors(published, f"{base}..HEAD") == []


def test_an_object_added_without_its_metadata_file_is_ki204_of_that_commit(
        published, kit):
    """An object committed alone, its metadata file in the next commit: `edit` the first."""
    base, digest, first, second = object_alone(published, kit)
    obj, meta = layout.object_path(digest), layout.metadata_path(digest)
    [error] = _errors(published, f"{base}..{second}")
    assert (error.rule.id, error.file, error.extra["commit"]) == (
        "KI204", obj, f"commit {first[:12]}")
    assert error.message.startswith(f"no metadata file {meta} at commit {first[:12]}, which "
                                    f"adds the object without it: commit {second[:12]} "
                                    "brings it back")
    undo = f"`git checkout {second} -- {meta}`"
    assert error.fix == _fix("an object added without its metadata file", base, undo,
                             drop=False).replace(META, meta)
    # as printed: edit the first, check the metadata file out of the second, amend, go on
    env = {**os.environ, "GIT_SEQUENCE_EDITOR": f"sed -i -e '/^pick {first[:7]}/s/^pick/edit/'"}
    subprocess.run(["git", "rebase", "-i", base], cwd=published, env=env, check=True,
                   capture_output=True)
    git(published, "checkout", second, "--", meta)
    git(published, "commit", "-q", "--amend", "--no-edit", "--no-verify")
    subprocess.run(["git", "rebase", "--continue"], cwd=published, env=env,
                   capture_output=True)
    assert _errors(published, f"{base}..HEAD") == []


def object_alone(root: Path, kit) -> tuple[str, Digest, str, str]:
    """BASE, a new protocol's digest, a commit of its object alone, one of the rest."""
    base = git(root, "rev-parse", "HEAD").strip()
    [digest] = _add(root, kit)
    git(root, "reset", "-q", "--soft", base)
    git(root, "reset", "-q")
    git(root, "add", layout.object_path(digest))
    git(root, "commit", "-q", "--no-verify", "-m", "object")
    first = git(root, "rev-parse", "HEAD").strip()
    return base, digest, first, commit_all(root, "the rest")


def _add(root: Path, kit) -> list:
    """Commit one new protocol with `kistore add`'s writer; return its digest."""
    return [Digest.from_str(d) for d in add_docs(Store(root), [kit.protocol()])]


def test_object_and_names_file_deleted_then_restored_stay_their_rules_alone(published):
    """fresh04's "what held": an object deleted and restored is KI402 (no KI204 or KI203: the
    object went with its metadata file); a names file deleted and restored is KI208."""
    base = git(published, "rev-parse", "HEAD").strip()
    git(published, "rm", "-q", OBJ, META)
    commit_all(published, "delboth")
    git(published, "checkout", base, "--", OBJ, META)
    second = commit_all(published, "restore")
    said = {(f.rule.id, f.file) for f in _errors(published, f"{base}..{second}")}
    # (KI425 too when the restore's date differs from BASE's by a second: citations move)
    assert said - {("KI425", OBJ)} == {("KI402", OBJ)}
    names = [p for p in git(published, "ls-files", "store/names").split()]
    git(published, "rm", "-q", names[0])
    commit_all(published, "delname")
    git(published, "checkout", base, "--", names[0])
    third = commit_all(published, "restore name")
    assert sorted((f.rule.id, f.file) for f in _errors(published, f"{second}..{third}")) == [
        ("KI208", names[0])]


def test_pre_receive_refuses_the_gap_pushed_to_main(published, tmp_path, monkeypatch):
    monkeypatch.setenv("KISTORE", KISTORE)
    server, clone = _server_and_clone(published, tmp_path)
    before = git(server, "rev-parse", "refs/heads/main")
    base, first, second = _deleted_then_restored(clone)
    pushed = subprocess.run(["git", "push", "origin", "HEAD:refs/heads/main"], cwd=clone,
                            capture_output=True, text=True)
    assert pushed.returncode != 0
    assert f"remote: {OBJ}: error KI204 object-without-metadata: " \
        f"{_message(base, first, second)}" in pushed.stderr, pushed.stderr
    assert git(server, "rev-parse", "refs/heads/main") == before


def test_a_metadata_file_moved_to_another_case_and_back_is_its_ki110_alone(published):
    """fresh04's m1: `4a96...json` renamed `4A96...json`, then back. The commit's KI110 of the
    moved name says the cause (and takes it out of that commit); no KI204 beside it."""
    base = git(published, "rev-parse", "HEAD").strip()
    upper = META.replace("/38/4a96", "/38/4A96")
    git(published, "mv", META, upper)
    first = commit_all(published, "up")
    git(published, "mv", upper, META)
    second = commit_all(published, "down")
    errors = _errors(published, f"{base}..{second}")
    assert [(f.rule.id, f.file, f.extra["commit"]) for f in errors] == [
        ("KI110", upper, f"commit {first[:12]}")], [f.format() for f in errors]
