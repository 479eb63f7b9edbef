"""``verify`` warns of a metadata gap that landed: deleted, then restored (hist04).

fresh04 H2: an object's metadata file deleted in one commit and restored in a later one;
the gate now refuses such a range (KI204 of the deleting commit: hist03), but a history
that landed so before was said nothing of: ``verify`` said "ok", while ``verify --at``,
``show --at`` and ``rank --at`` at the middle commit find the object without its metadata.
History is never rewritten, so ``verify`` warns (KI204 as a warning), judged as the gate
judges each commit (:mod:`kistore.check._gap_openings`), a merge per parent.
"""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from kistore.check import gate
from kistore.cli import main as cli
from kistore.core import layout
from kistore.store import Store

from ..conftest import commit_all, git
from .test_metadata_gaps import META, OBJ, _deleted_then_restored, object_alone

FIX = ("nothing is to be done but know it: history that landed is never rewritten, so at "
       "commit {c} `verify --at` fails (KI204) and `show --at` and `rank --at` do not find "
       "the run, while the later commits hold its metadata again; in a branch not yet "
       "merged, the gate refuses such a commit (KI204 of that commit): take the gap out of "
       "it, `git rebase -i BASE` (BASE: the commit the branch starts from, `git merge-base "
       "origin/main HEAD`)")


def _said(meta: str, first: str, back: str, done: str = "deletes it") -> str:
    return (f"no metadata file {meta} at commit {first[:12]}, which {done}: commit "
            f"{back[:12]} brings it back, but commit {first[:12]} stays in the history, "
            "where `verify --at`, `show --at`, `rank --at` and a checkout of it find the "
            "object without its metadata (the run is not there): that history has landed")


def _gaps(root: Path, *args: str) -> list[dict]:
    done = CliRunner().invoke(cli, ["--store", str(root), "verify", "--json", *args])
    return [f for f in json.loads(done.stdout)["findings"] if f["rule"] == "KI204"]


def _gate(root: Path, spec: str) -> list[tuple[str, str, str]]:
    return [(f.rule.id, f.file or "", f.extra.get("commit", "")) for f in
            gate.check_range(Store(root), spec) if f.rule.id == "KI204"]


def test_verify_warns_of_a_metadata_file_deleted_then_restored(published):
    _, first, second = _deleted_then_restored(published)
    said = CliRunner().invoke(cli, ["--store", str(published), "verify"])
    assert said.exit_code == 0, said.output
    assert [line for line in said.output.splitlines() if "KI204" in line] == [
        f"{OBJ}: warning KI204 object-without-metadata: {_said(META, first, second)}",
        f"fix KI204 (1 finding): {FIX.format(c=first[:12])}"], said.output
    [warning] = _gaps(published)
    assert (warning["severity"], warning["extra"]) == (
        "warning", {"commit": f"commit {first[:12]}", "metadata": META})
    # at the middle commit the gap is the contents check's error, said once
    assert [(f["severity"], f["message"]) for f in _gaps(published, "--at", first)] == [
        ("error", f"no metadata file {META}")]


def test_verify_warns_of_an_object_added_without_its_metadata_file(published, kit):
    _, digest, first, second = object_alone(published, kit)
    obj, meta = layout.object_path(digest), layout.metadata_path(digest)
    assert [(f["file"], f["severity"], f["message"]) for f in _gaps(published)] == [
        (obj, "warning", _said(meta, first, second, "adds the object without it"))]


def test_a_gap_a_merge_takes_from_one_side_is_that_side_s_commit(published):
    """Judged per parent: the merge lacks the metadata file against main, but its other
    parent (the side's deleting commit) lacks it already: the side's commit is said, once,
    by ``verify`` and by the gate."""
    base = git(published, "rev-parse", "HEAD").strip()
    git(published, "checkout", "-q", "-b", "side")
    git(published, "rm", "-q", META)
    deleting = commit_all(published, "delmeta")
    git(published, "checkout", "-q", "-")
    (published / "NOTES.md").write_text("notes\n")
    commit_all(published, "notes")
    git(published, "merge", "-q", "--no-ff", "--no-edit", "side")
    merge = git(published, "rev-parse", "HEAD").strip()
    assert git(published, "ls-tree", "HEAD", META) == ""  # the merge lacks it too
    git(published, "checkout", base, "--", META)
    back = commit_all(published, "restore")
    assert [(f["severity"], f["message"]) for f in _gaps(published)] == [
        ("warning", _said(META, deleting, back))]
    assert _gate(published, f"{base}..{back}") == [("KI204", OBJ, f"commit {deleting[:12]}")]
    assert merge not in str(_gaps(published))


def evil_merge(root: Path) -> tuple[str, str, str]:
    """BASE, a merge of a side branch that also deletes the run's metadata file (`git merge
    --no-commit side; git rm META; git commit`), and a commit restoring it."""
    base = git(root, "rev-parse", "HEAD").strip()
    git(root, "checkout", "-q", "-b", "side")
    (root / "SIDE.md").write_text("side\n")
    commit_all(root, "side")
    git(root, "checkout", "-q", "-")
    (root / "NOTES.md").write_text("notes\n")
    commit_all(root, "notes")
    git(root, "merge", "-q", "--no-ff", "--no-commit", "side")
    git(root, "rm", "-q", META)
    git(root, "commit", "-q", "--no-verify", "-m", "evil merge")
    merge = git(root, "rev-parse", "HEAD").strip()
    git(root, "checkout", base, "--", META)
    return base, merge, commit_all(root, "restore")


def test_a_merge_deleting_the_metadata_file_itself_opens_the_gap(published):
    """An evil merge: neither parent lacks the metadata file, the merge deletes it: the
    merge is said, the restoring commit named."""
    base, merge, back = evil_merge(published)
    assert [(f["severity"], f["message"]) for f in _gaps(published)] == [
        ("warning", _said(META, merge, back))]
    assert _gate(published, f"{base}..{back}") == [("KI204", OBJ, f"commit {merge[:12]}")]
