"""A committed manifest's metadata renamed, or its name edited, by hand (last96 items 2, 5).

Each finding's fix is run as printed, and must put things right: KI211's `kistore migrate`
wrote a second names file for a run whose name was edited, and KI212's "remove a names
file" would delete a committed one.
"""

from __future__ import annotations

import json
import shlex
import subprocess

import pytest
from click.testing import CliRunner

from kistore.cli import main
from kistore.core import layout
from kistore.core.digest import Digest

from ..conftest import add_docs, git


def _committed_run(store, kit) -> Digest:
    protocol, env, workload = kit.protocol(), kit.environment(), kit.workload()
    impl = kit.implementation("proj", name="impl")
    run = kit.run(protocol, env, impl, workload, latency=1000, name="fast")
    add_docs(store, [protocol, env, workload, impl, run])
    return Digest.from_str(kit.digest(run))


def _errors(root) -> list[dict]:
    done = CliRunner().invoke(main, ["--store", str(root), "verify", "--json"])
    return [f for f in json.loads(done.stdout)["findings"] if f["severity"] == "error"]


def _run_backquoted(root, hint: str, starts: str) -> None:
    """Run the first command in backquotes of ``hint`` that starts with ``starts``."""
    command = next(c for c in hint.split("`")[1::2] if c.startswith(starts))
    subprocess.run(shlex.split(command), cwd=root, check=True)


def test_a_name_edited_by_hand_is_restored_not_claimed_twice(store, kit):
    digest = _committed_run(store, kit)
    path = store.root / layout.metadata_path(digest)
    doc = json.loads(path.read_bytes())
    path.write_text(json.dumps({**doc, "name": "renamed"}, separators=(",", ":")))
    errors = {f["rule"]: f for f in _errors(store.root)}
    assert sorted(errors) == ["KI211", "KI212"], errors
    fix = (f"{digest} is committed as 'fast' and the work tree's metadata names it 'renamed': "
           "a name never moves (KI208), so restore it (`git checkout HEAD -- "
           f"{layout.metadata_path(digest)}`, or set metadata.name back to 'fast'); `kistore "
           "migrate` writes no names file for the new name, and the committed names file "
           "stays")
    assert errors["KI211"]["hint"] == fix and errors["KI212"]["hint"] == fix, errors
    # migrate refuses to write a second claim, and writes nothing
    done = CliRunner().invoke(main, ["--store", str(store.root), "migrate"])
    assert done.exit_code == 1, done.output
    assert (f"is named by {layout.name_path('BenchmarkRun', 'fast')} already; a name never "
            "moves (KI208)") in done.output
    assert not (store.root / layout.name_path("BenchmarkRun", "renamed")).exists()
    _run_backquoted(store.root, fix, "git checkout")
    assert _errors(store.root) == []
    assert git(store.root, "status", "--porcelain") == ""


def test_a_metadata_file_renamed_by_hand_is_moved_back(store, kit):
    digest = _committed_run(store, kit)
    path = layout.metadata_path(digest)
    (store.root / path).rename(store.root / (path + ".bak"))
    errors = _errors(store.root)
    assert [f["rule"] for f in errors] == ["KI110"], errors  # no KI204, no KI212 "remove"
    assert errors[0]["hint"] == (
        f"a metadata file renamed by hand: rename it back with `mv {path}.bak {path}` (from "
        "the top of the clone; committed: `git mv` and commit); nothing else is to be "
        "written or removed for it")
    _run_backquoted(store.root, errors[0]["hint"], "mv ")
    assert _errors(store.root) == []
    assert git(store.root, "status", "--porcelain") == ""


def test_migrate_writes_no_second_names_file_for_a_rename_committed(store, kit):
    """break97 M1: migrate refused a second names file only while the rename was not
    committed; committed, it wrote and committed `store/names/.../renamed` beside the
    object's names file of `fast`, a second claim neither check nor verify then named."""
    digest = _committed_run(store, kit)
    path = store.root / layout.metadata_path(digest)
    doc = json.loads(path.read_bytes())
    path.write_text(json.dumps({**doc, "name": "renamed"}, separators=(",", ":")))
    git(store.root, "commit", "-qam", "rename by hand", "--no-verify")
    done = CliRunner().invoke(main, ["--store", str(store.root), "migrate", "--commit"])
    assert done.exit_code == 1, done.output
    assert (f"BenchmarkRun/renamed: {digest} is named by "
            f"{layout.name_path('BenchmarkRun', 'fast')} already; a name never moves (KI208)"
            ) in done.output
    # the commit is named, and how to drop it (setting the name back leaves it in history)
    rename = git(store.root, "rev-parse", "HEAD").strip()
    assert f"(`git rebase --onto {rename}~ {rename}`; it drops all else it changed too)" \
        in done.output
    assert "setting metadata.name back to 'fast' in a new commit lets the migration go on" \
        in done.output
    assert not (store.root / layout.name_path("BenchmarkRun", "renamed")).exists()
    assert git(store.root, "status", "--porcelain") == ""


def test_ki211_of_a_committed_rename_onto_a_taken_name_says_the_rename(store, kit):
    """last97 MED 2c: KI211's fix said "run `kistore migrate`", which refuses the rename;
    both now say it: set the name back, or drop the commit (run here as printed)."""
    digest = _committed_run(store, kit)
    protocol, env, workload = kit.protocol(), kit.environment(), kit.workload()
    impl = kit.implementation("proj", name="impl")
    add_docs(store, [kit.run(protocol, env, impl, workload, latency=2000, name="slow")])
    base = git(store.root, "rev-parse", "HEAD").strip()
    path = store.root / layout.metadata_path(digest)
    doc = json.loads(path.read_bytes())
    path.write_text(json.dumps({**doc, "name": "slow"}, separators=(",", ":")))
    git(store.root, "commit", "-qam", "rename onto a name taken", "--no-verify")
    rename = git(store.root, "rev-parse", "HEAD").strip()
    done = CliRunner().invoke(main, ["--store", str(store.root), "check", f"{base}..HEAD",
                                     "--json"])
    found = json.loads(done.stdout)["findings"]
    assert sorted(f["rule"] for f in found if f["severity"] == "error") == [
        "KI205", "KI208", "KI211"], found
    ki211 = [f for f in found if f["rule"] == "KI211"]
    assert ki211[0]["message"].startswith("BenchmarkRun/slow is taken"), ki211
    fix = ("'slow' is the name commit " + rename[:12] + " gave this manifest in place of "
           "'fast' (KI208 on this file): a name never moves, so no names file is written for "
           "it (`kistore migrate` refuses too): set metadata.name back to 'fast' and commit, "
           f"or, in a branch not yet merged, drop that commit (`git rebase --onto {rename}~ "
           f"{rename}`, which drops all else it changed too)")
    assert ki211[0]["hint"] == fix
    _run_backquoted(store.root, fix, "git rebase")
    assert git(store.root, "rev-parse", "HEAD").strip() == base
    assert _errors(store.root) == []


@pytest.mark.parametrize("command", [["check", "BASE..HEAD"], ["verify"]])
def test_ki205_of_a_committed_rename_onto_a_taken_name_says_the_rename(store, kit, command):
    """lineage98: KI205 still said "restore a hand-edited metadata file with `git checkout
    HEAD -- FILE`", which restores nothing once the rename is committed; it now gives the
    rename's fix, as KI211 does (run here as printed)."""
    digest = _committed_run(store, kit)
    protocol, env, workload = kit.protocol(), kit.environment(), kit.workload()
    impl = kit.implementation("proj", name="impl")
    add_docs(store, [kit.run(protocol, env, impl, workload, latency=2000, name="slow")])
    base = git(store.root, "rev-parse", "HEAD").strip()
    meta = layout.metadata_path(digest)
    path = store.root / meta
    doc = json.loads(path.read_bytes())
    path.write_text(json.dumps({**doc, "name": "slow"}, separators=(",", ":")))
    git(store.root, "commit", "-qam", "rename onto a name taken", "--no-verify")
    rename = git(store.root, "rev-parse", "HEAD").strip()
    args = [a.replace("BASE", base) for a in command]
    done = CliRunner().invoke(main, ["--store", str(store.root), *args, "--json"])
    ki205 = [f for f in json.loads(done.stdout)["findings"] if f["rule"] == "KI205"]
    assert len(ki205) == 1, done.stdout
    mine = ki205[0]["file"] == meta  # told on the later digest's file: either
    assert ki205[0]["hint"] == (
        f"'slow' is the name commit {rename[:12]} gave "
        f"{'this manifest' if mine else 'the manifest of ' + meta} in place of 'fast' (KI208 "
        f"on {'this file' if mine else 'that file'}): a name never moves, so no names file is "
        "written for it (`kistore migrate` refuses too): set metadata.name back to 'fast' and "
        f"commit, or, in a branch not yet merged, drop that commit (`git rebase --onto "
        f"{rename}~ {rename}`, which drops all else it changed too)"), ki205
    _run_backquoted(store.root, ki205[0]["hint"], "git rebase")
    assert git(store.root, "rev-parse", "HEAD").strip() == base
    assert _errors(store.root) == []
