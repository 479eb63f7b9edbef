"""The commit that renamed a name, when a merge brought the rename in (rename99).

`kistore show KIND/OLD` (KI212's advice) and `kistore migrate` (its refusal of a hand
rename) followed first parents only: a rename made on a side branch and merged was blamed
on the merge, and migrate printed `git rebase --onto M~ M`, which drops the merge and the
whole side branch. One module (:mod:`kistore.store.name_changes`) now answers both: the side
commit is named, and its fix is a revert. Each printed fix is run as printed here.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess

import pytest
from click.testing import CliRunner

from kistore.cli import main
from kistore.core import layout
from kistore.core.digest import Digest
from kistore.core.model import Manifest
from kistore.git.blobs import ObjectUnreadable
from kistore.git.pathlog import first_parent_changes
from kistore.store import Store
from kistore.store.name_changes import Rename, renames

from ..check.test_names_paths import old_layout_store
from ..cli.test_missing_git_object import delete
from ..conftest import PUBLISHED, add_docs, commit_all, git, write_raw

NAME = "sol-submission-20464"
RUN = Digest.from_str(PUBLISHED["run"])


def _rename(root, digest, name: str) -> None:
    """Set ``metadata.name`` of ``digest`` to ``name`` by hand (as a user's editor does)."""
    path = root / layout.metadata_path(digest)
    doc = json.loads(path.read_bytes())
    path.write_text(json.dumps({**doc, "name": name}, separators=(",", ":")))


def _cli(root, *args: str):
    return CliRunner().invoke(main, ["--store", str(root), *args])


def _run(root, output: str, starts: str) -> None:
    """Run the first command in backquotes of ``output`` starting with ``starts``, as printed."""
    command = next(c for c in output.split("`")[1::2] if c.startswith(starts))
    subprocess.run(shlex.split(command), cwd=root, check=True, capture_output=True)


def _renamed_on_a_side_branch(root, digest, name: str) -> tuple[str, str]:
    """Rename ``digest`` to ``name`` on a side branch, merge it (a merge commit); (side, merge)."""
    git(root, "checkout", "-q", "-b", "side")
    _rename(root, digest, name)
    side = commit_all(root, "rename on a side branch")
    git(root, "checkout", "-q", "-")
    git(root, "commit", "-q", "--allow-empty", "-m", "meanwhile on the first-parent line")
    git(root, "merge", "-q", "--no-ff", "--no-edit", "side")
    return side, git(root, "rev-parse", "HEAD").strip()


def test_migrate_names_the_side_commit_and_its_revert_works(tmp_path, kit):
    store, manifests = old_layout_store(tmp_path, kit)
    digest = manifests[0].digest
    side, merge = _renamed_on_a_side_branch(store.root, digest, "renamed")
    done = _cli(store.root, "migrate", "--commit")
    assert done.exit_code == 1, done.output
    assert f"--onto {merge}~ {merge}" not in done.output  # dropped the whole side branch
    assert (f"BenchmarkProtocol/renamed: {digest} was committed as BenchmarkProtocol/p and "
            f"commit {side[:12]} (on a side branch merged by {merge[:12]}) changed its "
            "metadata.name; a name never moves (KI208), so no names file is written for the "
            f"new name: the change came in by merge {merge[:12]} from a side branch, where "
            "dropping it rewrites the merge and all after it (`git rebase --onto` of the "
            f"merge drops the whole branch): revert it in a new commit (`git revert --no-edit "
            f"{side}`, which undoes all else it changed too; where the revert does not apply, "
            "set metadata.name back to 'p' by hand and commit), then migrate; the history "
            "keeps the change (`kistore verify` says KI208)") in done.output, done.output
    _run(store.root, done.output, "git revert")
    assert git(store.root, "rev-parse", "HEAD~").strip() == merge  # the branch is kept
    done = _cli(store.root, "migrate", "--commit")
    assert done.exit_code == 0, done.output
    assert f"{layout.name_path('BenchmarkProtocol', 'p')} {digest}" in done.stdout
    assert not (store.root / layout.name_path("BenchmarkProtocol", "renamed")).exists()
    verified = _cli(store.root, "verify", "--json")  # "the history keeps the change"
    revert = git(store.root, "rev-parse", "HEAD~").strip()
    errors = [(f["rule"], f["extra"].get("commit")) for f in json.loads(verified.stdout)[
        "findings"] if f["severity"] == "error"]
    # the rename and its revert are said once (hist04: verify as the gate, L2), its fix
    # naming both commits, the revert as the last restoring it
    assert [rule for rule, _ in errors] == ["KI208"], verified.stdout
    (finding,) = [f for f in json.loads(verified.stdout)["findings"] if f["rule"] == "KI208"]
    assert f"{side[:12]}, {revert[:12]}, the last restoring it" in finding["hint"], finding


def test_a_merge_that_renamed_in_its_own_resolution_is_said_so(tmp_path, kit):
    store, manifests = old_layout_store(tmp_path, kit)
    digest = manifests[0].digest
    git(store.root, "checkout", "-q", "-b", "side")
    git(store.root, "commit", "-q", "--allow-empty", "-m", "side work")
    git(store.root, "checkout", "-q", "-")
    git(store.root, "merge", "-q", "--no-ff", "--no-commit", "side")
    _rename(store.root, digest, "renamed")  # in the merge's resolution
    merge = commit_all(store.root, "merge side, renaming by hand")
    meta = layout.metadata_path(digest)
    done = _cli(store.root, "migrate", "--commit")
    assert done.exit_code == 1, done.output
    assert "git rebase" not in done.output and "git revert" not in done.output
    assert (f"was committed as BenchmarkProtocol/p and merge {merge[:12]} (in its own "
            "resolution) changed its metadata.name; a name never moves (KI208), so no names "
            f"file is written for the new name: set metadata.name back to 'p' in {meta} and "
            "commit, then migrate (a merge's resolution made the change: dropping merge "
            f"{merge[:12]} would drop the branch it merged too)") in done.output, done.output
    versions = first_parent_changes(store.repo, "HEAD", layout.METADATA_DIR)[meta]
    first = git(store.root, "rev-parse", "HEAD~").strip()
    assert renames(store.repo, meta, versions) == [
        Rename(merge, first, "p", "renamed", None, resolved=True)]
    _rename(store.root, digest, "p")  # as it says
    commit_all(store.root, "name set back")
    assert _cli(store.root, "migrate", "--commit").exit_code == 0


def test_show_names_the_side_commit_and_its_revert_works(published):
    original = (published / layout.metadata_path(RUN)).read_bytes()
    side, merge = _renamed_on_a_side_branch(published, RUN, "renamed-run")
    shown = _cli(published, "show", f"BenchmarkRun/{NAME}")
    assert shown.exit_code == 1
    assert merge[:12] not in shown.stderr.split("(on a side branch")[0], shown.stderr
    assert (f"commit {side[:12]} (on a side branch merged by {merge[:12]}) renamed it in its "
            f"metadata file (a committed name never moves, KI208); '{NAME}' is the name it was "
            f"added under: put it back with `git revert --no-edit {side}` (a new commit undoing "
            f"all that commit changed) or set \"name\" back to '{NAME}' in it and commit"
            ) in shown.stderr, shown.stderr
    _run(published, shown.stderr, "git revert")
    assert (published / layout.metadata_path(RUN)).read_bytes() == original
    assert _cli(published, "show", f"BenchmarkRun/{NAME}").exit_code == 0


def test_show_names_the_rename_on_the_side_branch_that_added_the_run(store, kit):
    """No first-parent version of the file says the old name: the branch added and renamed
    it; the general `git checkout HEAD -- FILE` restored nothing."""
    protocol, env, workload = kit.protocol(), kit.environment(), kit.workload()
    impl = kit.implementation("proj", name="impl")
    add_docs(store, [protocol, env, workload, impl])
    git(store.root, "checkout", "-q", "-b", "side")
    run = kit.run(protocol, env, impl, workload, latency=1000, name="fast")
    add_docs(store, [run])
    digest = Digest.from_str(kit.digest(run))
    _rename(store.root, digest, "renamed")
    side = commit_all(store.root, "rename on the branch that added it")
    git(store.root, "checkout", "-q", "-")
    git(store.root, "merge", "-q", "--no-ff", "--no-edit", "side")
    merge = git(store.root, "rev-parse", "HEAD").strip()
    shown = _cli(store.root, "show", "BenchmarkRun/fast")
    assert shown.exit_code == 1
    assert (f"commit {side[:12]} (on a side branch merged by {merge[:12]}) renamed it in its "
            "metadata file") in shown.stderr, shown.stderr
    _run(store.root, shown.stderr, "git revert")
    assert _cli(store.root, "show", "BenchmarkRun/fast").exit_code == 0


def test_show_at_a_commit_names_the_rename_not_the_general_advice(published):
    """catname98: `show --at REV` had no name_back and said `git checkout HEAD -- FILE`."""
    agreed = git(published, "rev-parse", "HEAD").strip()
    meta = layout.metadata_path(RUN)
    _rename(published, RUN, "renamed-run")
    renamed = commit_all(published, "rename by hand")
    shown = _cli(published, "show", "--at", "HEAD", f"BenchmarkRun/{NAME}")
    assert shown.exit_code == 1
    assert "git checkout HEAD --" not in shown.stderr, shown.stderr
    assert (f"commit {renamed[:12]} renamed it in its metadata file (a committed name never "
            f"moves, KI208); '{NAME}' is the name it was added under: put it back with "
            f"`git checkout {agreed} -- {meta}`") in shown.stderr, shown.stderr
    command = re.search(r"`(git checkout [^`]+)`", shown.stderr).group(1)
    subprocess.run(shlex.split(command), cwd=published, check=True)
    commit_all(published, "put the name back")
    assert _cli(published, "show", "--at", "HEAD", f"BenchmarkRun/{NAME}").exit_code == 0


def test_a_damaged_commit_in_the_walk_is_named_not_git_s_words(tmp_path, kit):
    store, manifests = old_layout_store(tmp_path, kit)
    _rename(store.root, manifests[0].digest, "renamed")
    commit_all(store.root, "rename")
    git(store.root, "commit", "-q", "--allow-empty", "-m", "later")
    damaged = git(store.root, "rev-parse", "HEAD~").strip()
    delete(store.root, damaged)
    with pytest.raises(ObjectUnreadable, match=damaged):
        first_parent_changes(store.repo, "HEAD", layout.METADATA_DIR)


def test_a_damaged_metadata_tree_in_the_walk_is_named_with_its_path(tmp_path, kit):
    store, manifests = old_layout_store(tmp_path, kit)
    meta = layout.metadata_path(manifests[0].digest)
    shard = meta.rsplit("/", 1)[0]
    # a tree no other test holds: the process keeps tree listings by id (treediff)
    _rename(store.root, manifests[0].digest, "named-for-the-damaged-tree")
    commit_all(store.root, "rename")
    damaged = git(store.root, "rev-parse", f"HEAD:{shard}").strip()
    _rename(store.root, manifests[0].digest, "renamed")
    commit_all(store.root, "rename")
    delete(store.root, damaged)
    with pytest.raises(ObjectUnreadable, match=damaged) as raised:
        first_parent_changes(store.repo, "HEAD", layout.METADATA_DIR)
    assert "git log" not in str(raised.value)
    done = _cli(store.root, "migrate")
    assert done.exit_code == 1, done.output
    assert damaged in done.output and "unable to read tree" not in done.output, done.output


def test_a_symlink_at_the_path_is_no_version(tmp_path, kit):
    """A symlink's blob holds its target's path: the log took it for a version of the file
    (`blob_at` holds regular files only), and a target that parses named a first name the
    file never had: migrate refused, "was committed as BenchmarkProtocol/q"."""
    store = Store.init(tmp_path / "old")
    manifest = Manifest.from_document(kit.protocol(name="p"))
    meta = layout.metadata_path(manifest.digest)
    write_raw(store.root, layout.object_path(manifest.digest), manifest.object_bytes)
    (store.root / meta).parent.mkdir(parents=True, exist_ok=True)
    os.symlink('{"name":"q"}', store.root / meta)  # a target that parses as metadata
    link = commit_all(store.root, "a symlink where the metadata goes")
    (store.root / meta).unlink()
    write_raw(store.root, meta, manifest.metadata_bytes)
    regular = commit_all(store.root, "the metadata file")
    store = Store(store.root)
    assert first_parent_changes(store.repo, "HEAD", layout.METADATA_DIR)[meta] == [
        (link, None), (regular, git(store.root, "rev-parse", f"HEAD:{meta}").strip())]
    done = _cli(store.root, "migrate", "--commit")
    assert done.exit_code == 0, done.output
    assert f"{layout.name_path('BenchmarkProtocol', 'p')} {manifest.digest}" in done.stdout


def test_a_missing_tip_of_the_walk_is_named(tmp_path, kit):
    store, _ = old_layout_store(tmp_path, kit)
    tip = git(store.root, "rev-parse", "HEAD").strip()
    delete(store.root, tip)
    with pytest.raises(ObjectUnreadable, match=tip):
        first_parent_changes(store.repo, "HEAD", layout.METADATA_DIR)
