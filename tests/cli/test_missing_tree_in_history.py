"""A missing tree of the history is KI117 naming it, not git's words (robust76).

Work-tree ``kistore verify`` with the loose tree of ``store/`` at HEAD deleted said
"error: git rev-list <HEAD> -- store/trust/keys.json failed: fatal: unable to read tree
<id>" (the trust history's path-limited list, :mod:`kistore.git.pathlog`), with no path,
no rule and no advice. Each command runs as a real process with a timeout
(:func:`.test_truncated_loose_object.kistore`).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ..conftest import commit_all, git
from . import test_missing_git_object
from .test_missing_git_object import MISSING, delete
from .test_truncated_loose_object import kistore

stored = test_missing_git_object.stored
"""The published record committed on top of ``kistore init``'s commit, all loose."""

FSCK = ("the repository is damaged: run `git fsck` to list every damaged object, then "
        "restore them from another clone or the remote")


@pytest.mark.parametrize("rev", ["HEAD", "HEAD~1"])
@pytest.mark.parametrize("args", [["verify"], ["verify", "--at", "HEAD"],
                                  ["check", "HEAD~1..HEAD"]])
def test_a_missing_store_tree_is_ki117_with_its_path_and_id(
        stored: Path, rev: str, args: list[str]) -> None:
    oid = git(stored, "rev-parse", f"{rev}:store").strip()
    delete(stored, oid)
    status, out, err = kistore(stored, *args, "--json")
    assert status == 1, out + err
    assert "rev-list" not in out + err and "internal error" not in out + err
    errors = [f for f in json.loads(out)["findings"] if f["severity"] == "error"]
    assert [(f["rule"], f["file"], f["extra"]) for f in errors] == [
        ("KI117", "store", {"object": oid})], errors
    assert errors[0]["message"] == (
        f"git object {oid} cannot be read ({MISSING}, though a tree or commit names it); "
        "the check stopped there (nothing below it can be read): run `git fsck`")
    assert errors[0]["hint"].startswith(FSCK)


def test_the_human_report_names_the_tree(stored: Path) -> None:
    oid = git(stored, "rev-parse", "HEAD:store").strip()
    delete(stored, oid)
    status, out, err = kistore(stored, "verify")
    assert status == 1, out + err
    assert (f"store: error KI117 git-object-unreadable: git object {oid} cannot be read "
            f"({MISSING}") in out, out
    assert "FAILED: store at work tree: 1 error" in out
    assert err == ""


def trusted(root: Path, tmp_path: Path) -> None:
    """Commit a trust file (``store/trust/keys.json``) listing one new key."""
    key = tmp_path / "key"
    for args in (["key", "generate", str(key)], ["trust", "add", f"{key}.pub", "--role",
                                                 "rerun"]):
        status, out, err = kistore(root, *args)
        assert status == 0, out + err
    commit_all(root, "trust")


@pytest.mark.parametrize("at", [[], ["--at", "HEAD"]])
@pytest.mark.parametrize("what", ["store/trust", "store/trust/keys.json"])
def test_a_missing_trust_tree_or_file_of_head_is_ki117(stored: Path, tmp_path: Path,
                                                       what: str, at: list[str]) -> None:
    # the keys file's blob: "internal error (KeyError)" from the trust history's read
    trusted(stored, tmp_path)
    oid = git(stored, "rev-parse", f"HEAD:{what}").strip()
    delete(stored, oid)
    status, out, err = kistore(stored, "verify", *at, "--json")
    assert status == 1, out + err
    assert "internal error" not in out + err and "rev-list" not in out + err
    errors = [f for f in json.loads(out)["findings"] if f["severity"] == "error"]
    # said once (tidy77): the trust reader's KI309 of the same object is gone ("Fix
    # store/trust/keys.json" of a file that is fine in the work tree), KI117 says it
    assert [(f["rule"], f["file"], f.get("extra")) for f in errors] == [
        ("KI117", what, {"object": oid})], errors
    assert errors[0]["message"].startswith(f"git object {oid} cannot be read ({MISSING}")
