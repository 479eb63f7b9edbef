"""``kistore drop`` on the command line: the correction story of reviewer r85 F3.

A contributor adds a run without --commit, notices a wrong value, drops it, adds the
corrected run under the same name, verifies and commits; ``ls``, ``show`` and ``rank``
right after the drop no longer show the dropped run (the derived index follows the
removal). And the hints that told them to ``git checkout`` a file git never had.
"""

from __future__ import annotations

import json
import subprocess

from kistore.cli import main
from kistore.core import layout
from kistore.core.model import Manifest


def kistore(runner, root, *args):
    return runner.invoke(main, ["--store", str(root), *args])


def git(root, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, check=True, capture_output=True,
                          text=True).stdout


def test_add_notice_drop_add_corrected_verify_commit(runner, group, kit, tmp_path):
    fast = group.read("BenchmarkRun/fast").spec  # a run of the group's 4 references
    protocol, environment, implementation, workload = (
        group.read(fast[f]).document for f in ["protocolDigest", "environmentDigest",
                                               "implementationDigest", "workloadDigest"])
    wrong = kit.run(protocol, environment, implementation, workload, latency=5, name="mine")
    right = json.loads(json.dumps(wrong))
    right["spec"]["timing"]["latencyNs"]["mean"] = 50
    (tmp_path / "wrong.json").write_text(json.dumps(wrong))
    (tmp_path / "right.json").write_text(json.dumps(right))
    wrong_digest = str(Manifest.from_document(wrong).digest)
    right_digest = str(Manifest.from_document(right).digest)

    assert kistore(runner, group.root, "add", str(tmp_path / "wrong.json")).exit_code == 0
    short = wrong_digest[:19]  # as rank prints a digest
    assert f"{short} mine" in kistore(runner, group.root, "rank", "BenchmarkRun/fast").stdout
    refused = kistore(runner, group.root, "add", str(tmp_path / "right.json"))
    assert refused.exit_code == 1
    assert f"`kistore drop {wrong_digest}` removes its files" in " ".join(refused.output.split())

    listed = kistore(runner, group.root, "drop", "--dry-run", "BenchmarkRun/mine")
    assert listed.exit_code == 0, listed.output
    assert len(listed.stdout.splitlines()) == 4
    assert "1 manifest(s), 4 file(s) would be removed (dry run: nothing was)" in listed.stderr
    assert (group.root / layout.object_path(Manifest.from_document(wrong).digest)).exists()

    dropped = kistore(runner, group.root, "drop", "BenchmarkRun/mine")
    assert dropped.exit_code == 0, dropped.output
    assert dropped.stdout == listed.stdout  # what the dry run listed, removed
    assert "1 manifest(s), 4 file(s) removed" in dropped.stderr
    assert git(group.root, "status", "--porcelain", "--untracked-files=all") == ""

    # the derived index follows at once
    assert wrong_digest not in kistore(runner, group.root, "ls").stdout
    shown = kistore(runner, group.root, "show", "BenchmarkRun/mine")
    assert shown.exit_code == 1
    assert "no BenchmarkRun named 'mine' in the work tree" in shown.output
    assert kistore(runner, group.root, "show", wrong_digest).exit_code == 1
    ranked = kistore(runner, group.root, "rank", "BenchmarkRun/fast")
    assert ranked.exit_code == 0 and short not in ranked.stdout
    assert "2 ranked" in ranked.stdout.splitlines()[0]

    added = kistore(runner, group.root, "add", str(tmp_path / "right.json"))
    assert added.exit_code == 0, added.output
    assert kistore(runner, group.root, "show", "BenchmarkRun/mine").stdout.count(
        right_digest) >= 1
    verified = kistore(runner, group.root, "verify")
    assert verified.exit_code == 0, verified.output
    committed = kistore(runner, group.root, "add", "--commit", str(tmp_path / "right.json"))
    assert committed.exit_code == 0, committed.output
    assert git(group.root, "status", "--porcelain", "--untracked-files=all") == ""

    again = kistore(runner, group.root, "drop", "BenchmarkRun/mine")
    assert again.exit_code == 1
    assert "is committed (HEAD holds its object)" in again.output and "KI402" in again.output


def test_show_of_an_edited_uncommitted_object_says_drop_not_git_checkout(runner, group, kit,
                                                                        tmp_path):
    doc = kit.workload("edited", name="edited")
    (tmp_path / "w.json").write_text(json.dumps(doc))
    assert kistore(runner, group.root, "add", str(tmp_path / "w.json")).exit_code == 0
    digest = Manifest.from_document(doc).digest
    path = layout.object_path(digest)
    (group.root / path).write_bytes((group.root / path).read_bytes().replace(b"edited", b"e"))

    shown = kistore(runner, group.root, "show", "Workload/edited")

    assert shown.exit_code == 1
    text = " ".join(shown.output.split())
    assert (f"; `kistore drop {digest}` removes the files of its add (never committed: git "
            "has no copy), then add the corrected manifest again, and run `kistore verify`"
            ) in text
    assert "git checkout" not in text
    assert kistore(runner, group.root, "drop", str(digest)).exit_code == 0
    assert git(group.root, "status", "--porcelain", "--untracked-files=all") == ""


def test_a_committed_damaged_object_still_says_git_checkout(runner, group):
    digest = group.resolve("BenchmarkRun/fast")
    path = layout.object_path(digest)
    (group.root / path).write_bytes((group.root / path).read_bytes() + b" ")

    shown = kistore(runner, group.root, "show", str(digest))

    assert f"restore it with `git checkout HEAD -- {path}`, and run" in shown.output
    assert "kistore drop" not in shown.output


def test_json_lists_each_manifest_and_its_files(runner, group, kit, tmp_path):
    doc = kit.workload("listed", name="listed")
    (tmp_path / "w.json").write_text(json.dumps(doc))
    assert kistore(runner, group.root, "add", str(tmp_path / "w.json")).exit_code == 0
    digest = Manifest.from_document(doc).digest

    result = kistore(runner, group.root, "drop", "--json", "--dry-run", "Workload/listed")

    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == [{
        "digest": str(digest), "kind": "Workload", "name": "listed", "removed": False,
        "paths": [layout.name_path("Workload", "listed"), layout.metadata_path(digest),
                  layout.object_path(digest)]}]
