"""An object deleted (or edited, then deleted) gives one cause, one advice (r93b G2).

The gate said KI203 on the run's metadata ("add the object ..., or remove the metadata
file"), beside KI401 naming only the edit (the deletion of bytes that are no object's is
no KI402), or beside KI402 of a plain deletion: removing the metadata loses the run for
good, where restoring the object (dropping the commits) puts everything right.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import NamedTuple

import pytest
from click.testing import CliRunner

from kistore.check.gate import check_range
from kistore.cli import main
from kistore.core import layout
from kistore.core.digest import Digest
from kistore.store import Store

from ..conftest import add_docs, commit_all, git


def _stored_run(root, kit) -> Digest:
    Store.init(root)
    protocol, env, workload, impl = (kit.protocol(), kit.environment(), kit.workload(),
                                     kit.implementation())
    run = kit.run(protocol, env, impl, workload, latency=5000, name="kept")
    add_docs(Store(root), [protocol, env, workload, impl, run])
    return Digest.from_str(kit.digest(run))


class Edited(NamedTuple):
    """A stored run whose object bytes a commit edited ("a faster run": 5000 -> 50 ns)."""

    root: Path
    digest: Digest
    base: str  # the commit before the edit (40 hex)
    path: Path  # the object file
    edit: str  # the editing commit (40 hex)


@pytest.fixture
def edited(tmp_path, kit) -> Edited:
    root = tmp_path / "store"
    digest = _stored_run(root, kit)
    base = git(root, "rev-parse", "HEAD").strip()
    path = root / layout.object_path(digest)
    path.write_bytes(path.read_bytes().replace(b"5000", b"50"))
    return Edited(root, digest, base, path, commit_all(root, "a faster run"))


def _seen(findings):
    return [(f.rule.id, f.file) for f in findings if f.severity == "error"]


def test_g2_an_edited_then_deleted_object_is_one_ki401_whose_fix_restores_it(edited):
    root, digest, base, path, edit = edited
    path.unlink()
    gone = commit_all(root, "remove the edited file")
    found = check_range(Store(root), f"{base}..{gone}")
    assert _seen(found) == [("KI401", layout.object_path(digest))]  # no KI203
    (ki401,) = found
    assert ki401.message == (f"modified in commit {edit[:12]} (a faster run), then deleted in "
                             f"commit {gone[:12]} (remove the edited file): the object is "
                             "gone, its metadata left without it")
    assert ki401.extra["deleted"] == [gone]
    assert f"`git rebase -i {base}`" in ki401.fix and "keep its metadata file" in ki401.fix
    assert ki401.fix == (  # word for word, as r93b G2 wrote it (rev95: one walk says it)
        f"restore the object: its bytes were edited in commit {edit[:12]} and its file "
        f"deleted in commit {gone[:12]} of the branch, and a later commit restoring it leaves "
        "both in the history, which is read commit by commit (KI401), so rebuild the branch "
        f"without them: `git rebase -i {base}`, and drop those commits (or edit them to leave "
        f"{layout.object_path(digest)} as it was); keep its metadata file: nothing else is to "
        "be written or removed for it; objects are never edited: add a new manifest instead")
    assert "remove the metadata" not in ki401.fix
    # the one advice followed: the branch without both commits passes
    git(root, "reset", "-q", "--hard", base)
    assert check_range(Store(root), f"{base}..HEAD") == []


def test_g2_a_deleted_object_is_its_ki402_alone(tmp_path, kit):
    root = tmp_path / "store"
    digest = _stored_run(root, kit)
    base = git(root, "rev-parse", "HEAD").strip()
    (root / layout.object_path(digest)).unlink()
    head = commit_all(root, "delete a run")
    assert _seen(check_range(Store(root), f"{base}..{head}")) == [
        ("KI402", layout.object_path(digest))]


def test_g2_verify_of_a_committed_object_deleted_in_the_work_tree_says_ki402_alone(
        tmp_path, kit, monkeypatch):
    root = tmp_path / "store"
    digest = _stored_run(root, kit)
    (root / layout.object_path(digest)).unlink()
    monkeypatch.chdir(root)
    result = CliRunner().invoke(main, ["verify", "--json"])
    errors = [(f["rule"], f["file"]) for f in json.loads(result.stdout)["findings"]
              if f["severity"] == "error"]
    assert result.exit_code == 1
    assert errors == [("KI402", layout.object_path(digest))]  # KI203 said "remove it"


def test_g2_a_deleted_environment_leaves_its_runs_reference_unsaid(tmp_path, kit, monkeypatch):
    """The run naming a deleted object: its KI201 ("add the referenced manifest") is the
    deletion's, as it is a rename's (r92 F2): the one advice restores the object."""
    root = tmp_path / "store"
    _stored_run(root, kit)
    env = Digest.from_str(kit.digest(kit.environment()))
    (root / layout.object_path(env)).unlink()
    monkeypatch.chdir(root)
    result = CliRunner().invoke(main, ["verify", "--json"])
    said = [(f["rule"], f.get("file")) for f in json.loads(result.stdout)["findings"]
            if f["rule"].startswith(("KI2", "KI4"))]
    assert result.exit_code == 1
    assert said == [("KI402", layout.object_path(env))]


def _verify_errors(root, monkeypatch, *args):
    monkeypatch.chdir(root)
    result = CliRunner().invoke(main, ["verify", "--json", *args])
    assert result.exit_code == 1, result.output
    return [f for f in json.loads(result.stdout)["findings"] if f["severity"] == "error"]


def test_b94_verify_of_an_edited_then_deleted_environment_says_it_is_missing(
        tmp_path, kit, monkeypatch):
    """break94 #2: verify said only "modified in commit X" and advised `git checkout HEAD
    -- PATH`, which fails (HEAD has no such file). It says the object is missing at HEAD,
    names both commits, and restores the bytes from the edit's parent: followed, the
    object and the run naming it are whole again (only the edit's KI401 stays, history)."""
    root = tmp_path / "store"
    _stored_run(root, kit)
    env = Digest.from_str(kit.digest(kit.environment()))
    before = git(root, "rev-parse", "HEAD").strip()
    path = root / layout.object_path(env)
    original = path.read_bytes()
    path.write_bytes(original.replace(b'"apiVersion"', b'"apiVersion" '))
    edit = commit_all(root, "tamper")
    path.unlink()
    gone = commit_all(root, "delete")
    (ki401,) = _verify_errors(root, monkeypatch)  # the run's KI201 is this one's: one cause
    assert (ki401["rule"], ki401["file"]) == ("KI401", layout.object_path(env))
    assert ki401["message"].startswith(f"modified in commit {edit[:12]} (tamper)")
    assert ki401["message"].endswith(
        f", then deleted in commit {gone[:12]} (delete): the object is missing at HEAD, its "
        "metadata (and any run naming it) left without it")
    assert ki401["extra"]["deleted"] == [gone]
    restore = f"`git checkout {before[:12]} -- {layout.object_path(env)}`"
    assert restore in ki401["hint"] and "git checkout HEAD" not in ki401["hint"]
    assert f"({edit[:12]}, {gone[:12]}: `git rebase -i BASE`" in ki401["hint"]
    assert ki401["hint"] == (  # word for word, as break94 #2 wrote it
        f"restore the object's original bytes from {before[:12]}, the commit before the edit "
        f"(the last holding them): {restore}, and commit it; keep its metadata file: nothing "
        "else is to be written or removed for it. In a branch not yet merged, drop the "
        f"commits instead ({edit[:12]}, {gone[:12]}: `git rebase -i BASE`, BASE being `git "
        "merge-base origin/main HEAD`): a restoring commit leaves the edit in the history, "
        "read commit by commit (KI401). Objects are never edited: add a new manifest instead")
    # the fix works: the original bytes come back, and only the history's KI401 is left
    git(root, "checkout", before[:12], "--", layout.object_path(env))
    assert path.read_bytes() == original
    commit_all(root, "restore")
    assert [(f["rule"], f["extra"].get("deleted")) for f in _verify_errors(root, monkeypatch)
            ] == [("KI401", None)]


def test_b94_verify_of_an_edited_object_removed_from_the_work_tree_says_it_is_missing(
        edited, monkeypatch):
    root, digest, before, path, edit = edited
    path.unlink()
    (ki401,) = _verify_errors(root, monkeypatch)
    assert ki401["message"] == (
        f"modified in commit {edit[:12]} (a faster run), then deleted in the work tree: the "
        "object is missing there, its metadata (and any run naming it) left without it")
    assert ki401["extra"]["deleted"] == []
    assert f"`git checkout {before[:12]} -- {layout.object_path(digest)}`" in ki401["hint"]
    # verify --at HEAD reads HEAD, which holds the edited bytes: the plain KI401
    at_head = _verify_errors(root, monkeypatch, "--at", "HEAD")
    assert [f["message"] for f in at_head if f["rule"] == "KI401"] == [
        f"modified in commit {edit[:12]} (a faster run)"]
