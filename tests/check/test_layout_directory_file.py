"""KI110 of a file where the layout has a directory says what the directory holds (fresh06 L3).

A metadata shard directory (``store/metadata/sha256/61``) replaced by a file was told "a
.NAME.PID.N.tmp file is a temporary file of a killed `kistore add`", which has nothing to
do with it; KI204 beside it named the metadata file gone.
"""

from __future__ import annotations

import pytest

from kistore.check import gate
from kistore.check._rules import SPECIAL, check_layout_path
from kistore.store import Store

from ..conftest import PUBLISHED, commit_all, git, store_file

META = store_file(PUBLISHED["run"], "metadata")
SHARD = META.rsplit("/", 1)[0]  # store/metadata/sha256/38


def test_a_shard_directory_turned_file_and_back_is_told_what_it_held(published):
    base = git(published, "rev-parse", "HEAD").strip()
    git(published, "rm", "-rq", SHARD)
    (published / SHARD).write_text("junk\n")
    first = commit_all(published, "shard to file")
    git(published, "rm", "-q", SHARD)
    git(published, "checkout", base, "--", SHARD)
    commit_all(published, "restore")
    found = {f.rule.id: f for f in gate.check_range(Store(published), f"{base}..HEAD")
             if f.severity == "error"}
    assert sorted(found) == ["KI110", "KI204"]
    said = found["KI110"]
    assert (said.file, said.extra["commit"]) == (SHARD, f"commit {first[:12]}")
    # on BASE 440899c7: "not a path of the store layout: move or remove it (a
    # .NAME.PID.N.tmp file is a temporary file of a killed `kistore add`: ..."
    assert said.message.startswith(
        f"a file where the store layout has a directory: {SHARD}/ holds the metadata files "
        f"of the digests starting {SHARD[-2:]}, and a file in its place leaves each of them "
        f"missing: remove the file (`git rm {SHARD}`) and put the directory back (`git "
        f"checkout COMMIT -- {SHARD}`, COMMIT a commit that holds it) (commit {first[:12]} "
        "brings it; "), said.message
    assert "kistore add" not in said.message


@pytest.mark.parametrize("path, held", [
    ("store/objects/sha256/ab", "the object files of the digests starting ab"),
    ("store/objects/sha256", "every one of the store's object files"),
    ("store/metadata", "every one of the store's metadata files"),
    ("store/attestations/sha256/ab/" + "c" * 62,
     "the attestation files about the object sha256:ab" + "c" * 62),
])
def test_each_layout_directory_as_a_file_says_what_it_holds(path, held):
    [finding] = check_layout_path(path)
    assert finding.rule.id == "KI110"
    assert finding.message.startswith(f"a file where the store layout has a directory: {path}/ "
                                      f"holds {held}, and a file in its place "), finding.message


@pytest.mark.parametrize("path", ["store/objects/sha256/ab/.x.json.123.tmp",
                                  "store/objects/sha256/AB", "store/objects/sha256/abc",
                                  "store/names/BenchmarkRun"])
def test_other_paths_keep_the_general_words(path):
    [finding] = check_layout_path(path)
    assert finding.message.startswith("not a path of the store layout: move or remove it (a "
                                      ".NAME.PID.N.tmp file is a temporary file"), path


@pytest.mark.parametrize("path, held", [
    ("store/groups/sha256/4f", "the group files of the digests starting 4f"),
    ("store/groups/sha256/4f/" + "c" * 62, "the group files of the comparison group sha256:4f"
     + "c" * 62),
])
def test_a_fifo_at_a_group_directory_is_named_as_one(path, held):
    # fresh17 F10 (LOW): a FIFO at store/groups/sha256/4f was "not a path of the store
    # layout ... (a .NAME.PID.N.tmp file is a temporary file ...)", the FIFO not named
    findings = {f.rule.id: f for f in check_layout_path(path, SPECIAL)}
    assert sorted(findings) == ["KI110", "KI111"]
    assert findings["KI110"].message == (
        f"a FIFO, socket or device where the store layout has a directory: {path}/ holds "
        f"{held}, and a FIFO, socket or device in its place leaves each of them missing: "
        f"remove it (`rm {path}`, or `git rm {path}` if it is committed) and put the directory "
        f"back (`git checkout COMMIT -- {path}`, COMMIT a commit that holds it)")


def test_a_symlink_at_store_names_is_named_as_one():
    [kind, link] = sorted(check_layout_path("store/names", 0o120000), key=lambda f: f.rule.id)
    assert (kind.rule.id, link.rule.id) == ("KI110", "KI111")
    assert kind.message == (
        "a symlink where the store layout has a directory: store/names/ holds every one of the "
        "store's names files, and a symlink in its place leaves each of them missing: remove it "
        "(`rm store/names`, or `git rm store/names` if it is committed) and put the directory "
        "back (`git checkout COMMIT -- store/names`, COMMIT a commit that holds it)")
