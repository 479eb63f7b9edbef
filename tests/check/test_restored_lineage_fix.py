"""KI432 and KI208 on a file a later commit restored: the fix that works (break96 M4).

An annotation edited then put back, a names file deleted then put back: HEAD holds the file
as BASE does, and the fix said `git checkout BASE -- PATH`, which leaves nothing to commit,
or "keep its metadata.name", which it is. The commits stay in the history, read commit by
commit: dropping them is the fix, as KI401's and KI402's say after a restore.
"""

from __future__ import annotations

import json
import os
import subprocess

from click.testing import CliRunner

from kistore.cli import main
from kistore.core import layout
from kistore.core.digest import Digest

from ..conftest import add_docs, git


def _committed_run(store, kit) -> Digest:
    protocol, env, workload = kit.protocol(), kit.environment(), kit.workload()
    impl = kit.implementation("proj", name="impl")
    run = kit.run(protocol, env, impl, workload, latency=10, name="fast")
    run["metadata"]["annotations"] = {"kernelindex.dev/source": "lab-a"}
    add_docs(store, [protocol, env, workload, impl, run])
    return Digest.from_str(kit.digest(run))


def _errors(root, base: str) -> list[dict]:
    done = CliRunner().invoke(main, ["--store", str(root), "check", f"{base}..HEAD", "--json"])
    return [f for f in json.loads(done.stdout)["findings"] if f["severity"] == "error"]


def _drop_all(root, base: str) -> None:
    """Follow the fix: `git rebase -i BASE`, every commit of the branch dropped."""
    subprocess.run(["git", "rebase", "-q", "-i", base], cwd=root, check=True, env={
        **os.environ, "GIT_SEQUENCE_EDITOR": "sed -i -e 's/^pick/drop/'"})


def _edited_then_restored(store, kit, was: bytes, now: bytes) -> tuple[str, str, str, str]:
    """BASE, the run's metadata file, a commit writing ``now`` for ``was`` in it, and one
    restoring it (checked out of BASE)."""
    digest = _committed_run(store, kit)
    base = git(store.root, "rev-parse", "HEAD").strip()
    path = layout.metadata_path(digest)
    held = (store.root / path).read_bytes()
    (store.root / path).write_bytes(held.replace(was, now))
    git(store.root, "commit", "-qam", "edit")
    edit = git(store.root, "rev-parse", "HEAD").strip()
    git(store.root, "checkout", base, "--", path)
    git(store.root, "commit", "-qm", "restore")
    return base, path, edit, git(store.root, "rev-parse", "HEAD").strip()


def test_an_annotation_edited_then_restored_is_fixed_by_dropping_the_commits(store, kit):
    base, _, edit, back = _edited_then_restored(store, kit, b"lab-a", b"mylab")
    errors = _errors(store.root, base)
    # the edit's finding only: the restore is its fix, not a second change (fresh04 L2)
    assert [(f["rule"], f["extra"]["commit"]) for f in errors] == [("KI432", edit)], errors
    for f in errors:
        # the restoring commit is one of those listed: named once (last96 item 6)
        assert f["hint"].startswith(
            f"HEAD holds this metadata file as BASE does again, but the commits that changed "
            f"it ({edit[:12]}, {back[:12]}, the last restoring it) stay in the history, which "
            f"is read commit by commit: in a branch not yet merged, drop them "
            f"(`git rebase -i {base}`)"), f["hint"]
    _drop_all(store.root, base)
    assert _errors(store.root, base) == []


def test_a_names_file_deleted_then_restored_is_fixed_by_dropping_the_commits(store, kit):
    digest = _committed_run(store, kit)
    base = git(store.root, "rev-parse", "HEAD").strip()
    names = layout.name_path("BenchmarkRun", "fast")
    assert (store.root / names).read_bytes() == layout.name_record(digest)
    git(store.root, "rm", "-q", names)
    git(store.root, "commit", "-qm", "delete name")
    gone = git(store.root, "rev-parse", "HEAD").strip()
    git(store.root, "checkout", base, "--", names)
    git(store.root, "commit", "-qm", "restore name")
    errors = _errors(store.root, base)
    assert [f["rule"] for f in errors] == ["KI208"], errors
    restored = git(store.root, "rev-parse", "HEAD").strip()
    # the gate names every commit of the range that changed the file (break97 H2)
    assert errors[0]["hint"].startswith(
        f"HEAD holds this names file as BASE does again, but the commits that changed it "
        f"({gone[:12]}, {restored[:12]}, the last restoring it) stay in the history, which "
        f"is read commit by commit: in a branch not yet merged, drop them "
        f"(`git rebase -i {base}`)"), errors[0]
    _drop_all(store.root, base)
    assert _errors(store.root, base) == []


def _verify(root) -> list[dict]:
    done = CliRunner().invoke(main, ["--store", str(root), "verify", "--json"])
    return json.loads(done.stdout)["findings"]


def test_a_licence_restored_beside_a_title_fix_is_fixed_by_squashing(store, kit):
    """last96 item 4: the checkout of BASE's file the fix gave threw the title fix away
    (and the gate still refused): the commits are squashed instead, the title kept."""
    digest = _committed_run(store, kit)
    base = git(store.root, "rev-parse", "HEAD").strip()
    path = layout.metadata_path(digest)
    held = json.loads((store.root / path).read_bytes())
    edited = {**held, "annotations": {"kernelindex.dev/source": "mylab"}}
    (store.root / path).write_text(json.dumps(edited, separators=(",", ":"), sort_keys=True))
    git(store.root, "commit", "-qam", "edit source")
    edit = git(store.root, "rev-parse", "HEAD").strip()
    (store.root / path).write_text(json.dumps({**held, "title": "A fixed title"},
                                              separators=(",", ":"), sort_keys=True))
    git(store.root, "commit", "-qam", "restore source, fix the title")
    back = git(store.root, "rev-parse", "HEAD").strip()
    errors = _errors(store.root, base)
    assert [(f["rule"], f["extra"]["commit"]) for f in errors] == [("KI432", edit)], errors
    for f in errors:
        assert f["hint"] == (
            "HEAD holds the annotation 'kernelindex.dev/source' as it was again, but the "
            f"commits that changed it ({edit[:12]}, {back[:12]}) stay in the history, which "
            "is read commit by commit, and the file holds another change too (a `git "
            "checkout` of it, or dropping the commits, would lose that): in a branch not yet "
            f"merged, squash them into one, which keeps only the other change: `git rebase -i "
            f"{base}`, then mark {back[:12]} `fixup` and move it right below {edit[:12]}; on a "
            "branch already merged the history cannot change, and this error says so for "
            "good"), f["hint"]
    # the printed fix, run: the second commit marked fixup (it is right below the first)
    subprocess.run(["git", "rebase", "-q", "-i", base], cwd=store.root, check=True, env={
        **os.environ, "GIT_SEQUENCE_EDITOR": f"sed -i -e 's/^pick {back[:7]}/fixup {back[:7]}/'"})
    assert _errors(store.root, base) == []
    assert json.loads((store.root / path).read_bytes())["title"] == "A fixed title"


def test_verify_and_the_gate_give_a_deleted_names_file_one_fix(store, kit):
    """last96 item 3: verify said "keep its metadata.name" of a names file a commit
    deleted, and KI211's `kistore migrate`, which the gate then refused; both say the
    same as the gate now, from one builder, and the fix works when run."""
    _committed_run(store, kit)
    base = git(store.root, "rev-parse", "HEAD").strip()
    names = layout.name_path("BenchmarkRun", "fast")
    git(store.root, "rm", "-q", names)
    git(store.root, "commit", "-qm", "delete name")
    gone = git(store.root, "rev-parse", "HEAD").strip()
    said = (f"HEAD lacks this names file, which commit {gone[:12]} deleted: a name never "
            "moves nor is freed, and `kistore migrate` writing it again leaves the deletion "
            "in the history, which is read commit by commit; in a branch not yet merged, "
            "drop that commit ({rebase}); on a branch already merged, restore it (`git "
            f"checkout {gone[:12]}~ -- {names}`) and commit, and this error says so for good")
    found = {f["rule"]: f for f in _verify(store.root) if f["rule"] in ("KI208", "KI211")}
    verify_rebase = ("`git rebase -i BASE` (BASE: the commit the branch starts from, "
                     "`git merge-base origin/main HEAD`)")
    assert found["KI208"]["hint"] == said.format(rebase=verify_rebase), found
    assert found["KI211"]["hint"] == found["KI208"]["hint"], found
    errors = _errors(store.root, base)
    assert sorted(f["rule"] for f in errors) == ["KI208", "KI211"], errors
    assert {f["hint"] for f in errors} == {said.format(rebase=f"`git rebase -i {base}`")}
    # the merged branch's way, run: restored, and verify says what stays
    git(store.root, "checkout", f"{gone[:12]}~", "--", names)
    git(store.root, "commit", "-qm", "restore name")
    found = [f for f in _verify(store.root) if f["severity"] == "error"]
    assert [f["rule"] for f in found] == ["KI208"], found
    assert found[0]["hint"].startswith(
        f"HEAD holds this names file as BASE does again, but the commit that deleted it "
        f"({gone[:12]}) stays in the history"), found[0]["hint"]
    _drop_all(store.root, base)
    assert _errors(store.root, base) == []


def test_a_name_changed_then_restored_is_said_once(store, kit):
    """fresh04 L2: the restoring commit was a second KI208, "renames 'renamed' to 'fast': a
    name never moves"; the rename's finding alone is said, its fix dropping both commits."""
    base, path, renamed, back = _edited_then_restored(store, kit, b'"name":"fast"',
                                                      b'"name":"renamed"')
    said = CliRunner().invoke(main, ["--store", str(store.root), "check", f"{base}..HEAD"])
    assert said.exit_code == 1
    assert said.output.splitlines() == [
        f"{path}:/name: error KI208 name-changed: commit {renamed[:12]} renames 'fast' to "
        "'renamed': a name never moves (expected fast, found renamed)",
        "fix KI208 (1 finding): HEAD holds this metadata file as BASE does again, but the "
        f"commits that changed it ({renamed[:12]}, {back[:12]}, the last restoring it) stay "
        "in the history, which is read commit by commit: in a branch not yet merged, drop "
        f"them (`git rebase -i {base}`), which loses all else they changed too (move any "
        "other change to a new commit first); on a branch already merged the history cannot "
        "change, and this error says so for good",
        f"FAILED: {base}..HEAD: 1 error, 0 warnings, 0 info"]
    _drop_all(store.root, base)
    assert git(store.root, "rev-parse", "HEAD").strip() == base
    assert _errors(store.root, base) == []


def test_verify_says_a_name_changed_then_restored_once(store, kit):
    """fresh04 L2 in ``verify``: the restoring commit was a second KI208 of the landed
    history; the rename's finding alone is said, its fix naming both commits (hist04)."""
    _, path, renamed, back = _edited_then_restored(store, kit, b'"name":"fast"',
                                                   b'"name":"renamed"')
    said = CliRunner().invoke(main, ["--store", str(store.root), "verify"])
    assert said.exit_code == 1
    assert [line for line in said.output.splitlines() if "KI208" in line] == [
        f"{path}:/name: error KI208 name-changed: commit {renamed[:12]} renames 'fast' to "
        "'renamed': a name never moves (expected fast, found renamed)",
        "fix KI208 (1 finding): HEAD holds this metadata file as BASE does again, but the "
        f"commits that changed it ({renamed[:12]}, {back[:12]}, the last restoring it) stay "
        "in the history, which is read commit by commit: in a branch not yet merged, drop "
        "them (`git rebase -i BASE` (BASE: the commit the branch starts from, `git "
        "merge-base origin/main HEAD`)), which loses all else they changed too (move any "
        "other change to a new commit first); on a branch already merged the history cannot "
        "change, and this error says so for good"], said.output


def test_verify_says_an_annotation_edited_then_restored_once(store, kit):
    """The same of KI432 (a warning in ``verify``): the edit's, naming both commits."""
    _, path, edit, back = _edited_then_restored(store, kit, b"lab-a", b"mylab")
    found = [f for f in _verify(store.root) if f["rule"] == "KI432"]
    assert [(f["severity"], f["extra"]["commit"]) for f in found] == [("warning", edit)], found
    assert found[0]["hint"].startswith(
        f"HEAD holds this metadata file as BASE does again, but the commits that changed it "
        f"({edit[:12]}, {back[:12]}, the last restoring it) stay in the history"), found
