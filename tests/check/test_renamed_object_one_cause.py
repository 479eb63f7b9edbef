"""An object file renamed by hand gives one cause, one advice (reviewer r90b F4).

``mv`` of a committed run's object file into another shard gave six ``verify`` errors
(KI101 with the right ``mv``, and KI203, KI204, KI215, KI216, KI402 on the files the same
rename explains); following KI215's advice first (``kistore migrate``) wrote a group file
for the digest the file's *name* says, a run that does not exist: a KI216 left after the
``mv``. ``show BenchmarkRun/NAME`` of a renamed, uncommitted run advised ``kistore
reindex``, which changed nothing. Each case is driven through the command line.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time

from click.testing import CliRunner

from kistore.check._fixes import Base
from kistore.check._history import OBJECT_MODIFIED, ancestry, history_findings
from kistore.check._rules import OBJECT_DIGEST_MISMATCH
from kistore.cli import main
from kistore.core import layout
from kistore.core.digest import Digest
from kistore.core.restore import renamed_advice
from kistore.store import Store

from ..conftest import PUBLISHED, add_docs, git


def _verify(root, monkeypatch) -> tuple[int, list[dict]]:
    monkeypatch.chdir(root)
    result = CliRunner().invoke(main, ["verify", "--json"])
    return result.exit_code, [f for f in json.loads(result.stdout)["findings"]
                              if f["severity"] == "error"]


def test_r90b_f4_one_renamed_file_one_finding_and_migrate_writes_nothing_for_it(
        published, monkeypatch):
    digest = Digest.from_str(PUBLISHED["run"])
    own = layout.object_path(digest)
    wrong = f"{layout.OBJECTS_DIR}/aa/{digest.hex[2:]}.json"  # another shard
    (published / wrong).parent.mkdir(parents=True, exist_ok=True)
    shutil.move(published / own, published / wrong)
    mv = f"`mv {wrong} {own}`"
    code, errors = _verify(published, monkeypatch)
    # one error: KI101 on the misnamed file, its fix the mv (no KI203 on the metadata,
    # KI204/KI215 on the misnamed file, KI216 on the run's group file, KI402 on own)
    assert code == 1
    assert [(f["rule"], f["file"]) for f in errors] == [("KI101", wrong)], errors
    assert errors[0]["extra"]["holds"] == str(digest)
    assert mv in errors[0]["hint"] and renamed_advice(wrong, digest) in errors[0]["message"]
    # migrate (KI215's advice before) skips the misnamed object, naming it with the mv
    migrated = CliRunner().invoke(main, ["migrate"])
    assert migrated.exit_code == 0, migrated.output
    assert f"warning: {wrong}: skipped: its sha256 is {digest}, not the digest its name " \
        "says (KI101)" in migrated.stderr and mv in migrated.stderr
    assert "0 names file(s) written" in migrated.stderr
    assert git(published, "status", "--porcelain", "--untracked-files=all").split("\n") == [
        f" D {own}", f"?? {wrong}", ""]  # no group file for sha256:aa...
    # following the one advice once: verify is ok, the tree as committed
    subprocess.run(mv.strip("`").split(), cwd=published, check=True)
    assert _verify(published, monkeypatch) == (0, [])
    assert git(published, "status", "--porcelain", "--untracked-files=all") == ""


def test_r90b_f4_show_by_name_of_a_renamed_object_gives_the_mv(published, monkeypatch,
                                                               kit):
    # an uncommitted add's run, renamed in its shard: its names file is there
    protocol, env, workload = kit.protocol(), kit.environment(), kit.workload()
    impl = kit.implementation()
    run = kit.run(protocol, env, impl, workload, latency=5000, name="us-a")
    add_docs(Store(published),
             [protocol, env, workload, impl], commit=True)
    monkeypatch.chdir(published)
    (published / "run.json").write_text(json.dumps(run))
    added = CliRunner().invoke(main, ["add", "run.json"])
    assert added.exit_code == 0, added.output
    digest = Digest.from_str(kit.digest(run))
    own = layout.object_path(digest)
    wrong = own[:-66] + ("0" if own[-66] != "0" else "1") + own[-65:]
    shutil.move(published / own, published / wrong)
    shown = CliRunner().invoke(main, ["show", "BenchmarkRun/us-a"])
    assert shown.exit_code == 1
    assert f"`mv {wrong} {own}`" in shown.stderr and "reindex" not in shown.stderr, \
        shown.stderr
    shown = CliRunner().invoke(main, ["show", str(digest)])  # by digest: the same mv
    assert f"`mv {wrong} {own}`" in shown.stderr and "git checkout" not in shown.stderr
    code, errors = _verify(published, monkeypatch)
    assert [(f["rule"], f["file"]) for f in errors] == [("KI101", wrong)], errors
    subprocess.run(["mv", wrong, own], check=True)
    assert _verify(published, monkeypatch) == (0, [])


def test_r90b_f4_the_add_completing_a_key_writes_no_group_file_for_a_misnamed_run(
        store, kit, monkeypatch):
    # a run stored with its protocol dangling; its object file then edited by hand
    protocol, env, workload = kit.protocol(), kit.environment(), kit.workload()
    impl = kit.implementation()
    run = kit.run(protocol, env, impl, workload, latency=5000, name="r1")
    add_docs(store, [env, workload, impl, run], allow_dangling=True)
    digest = Digest.from_str(kit.digest(run))
    path = store.root / layout.object_path(digest)
    path.write_bytes(path.read_bytes().replace(b"5000", b"5001"))
    tampered = Digest.of(path.read_bytes())
    monkeypatch.chdir(store.root)
    (store.root / "protocol.json").write_text(json.dumps(protocol))
    added = CliRunner().invoke(main, ["add", "protocol.json"])
    assert added.exit_code == 0, added.output
    assert f"{layout.object_path(digest)}: skipped: its sha256 is {tampered}, not the " \
        "digest its name says (KI101), so no group file is written for it; restore it " \
        f"with `git checkout HEAD -- {layout.object_path(digest)}`" in added.output
    assert not (store.root / "store/groups").exists() or not any(
        p.name == digest.hex for p in (store.root / "store/groups").rglob("*"))


def _stored(published, kit=None, *, shard: bool = False) -> tuple[Digest, str, Digest, str]:
    """The published run and, with ``kit``, another run committed beside it (in the same
    shard with ``shard``): digests, paths (the published run's twice without ``kit``)."""
    run = Digest.from_str(PUBLISHED["run"])
    if kit is None:
        return run, layout.object_path(run), run, layout.object_path(run)
    protocol, env, workload, impl = (kit.protocol(), kit.environment(), kit.workload(),
                                     kit.implementation())
    latency = 5000
    while shard and kit.digest(kit.run(protocol, env, impl, workload, latency=latency,
                                       name="other"))[7:9] != run.hex[:2]:
        latency += 1  # ~256 tries
    other = kit.run(protocol, env, impl, workload, latency=latency, name="other")
    add_docs(Store(published), [protocol, env, workload, impl, other], commit=True)
    digest = Digest.from_str(kit.digest(other))
    return run, layout.object_path(run), digest, layout.object_path(digest)


def test_r91_f5_a_copy_is_said_a_copy_and_removed(published, monkeypatch):
    """(a) `cp` of an object to another name: KI101 advised `git checkout HEAD -- PATH` (a
    file git never held: "pathspec did not match") beside KI204 and KI215."""
    run, own, _, _ = _stored(published)
    copy = own[:-66] + ("0" if own[-66] != "0" else "1") + own[-65:]
    shutil.copy(published / own, published / copy)
    code, errors = _verify(published, monkeypatch)
    assert code == 1 and [(f["rule"], f["file"]) for f in errors] == [("KI101", copy)], errors
    assert errors[0]["extra"] == {"holds": str(run), "copy": True}
    assert errors[0]["hint"].startswith(f"a copy of a stored object: remove it with `rm {copy}`")
    subprocess.run(["rm", copy], cwd=published, check=True)
    assert _verify(published, monkeypatch) == (0, [])


def test_r91_f5_a_rename_to_bak_is_one_cause(published, monkeypatch):
    """(b) `mv X.json X.json.bak`: four errors (KI110 on the .bak, KI402, KI203 advising to
    remove the metadata file, KI216); now KI110 says whose bytes it holds, with the mv."""
    run, own, _, _ = _stored(published)
    bak = own + ".bak"
    shutil.move(published / own, published / bak)
    code, errors = _verify(published, monkeypatch)
    assert code == 1 and [(f["rule"], f["file"]) for f in errors] == [("KI110", bak)], errors
    assert errors[0]["message"] == f"not a path of the store layout; {renamed_advice(bak, run)}"
    assert errors[0]["hint"].startswith(f"a file renamed by hand: rename it back with `mv {bak} "
                                        f"{own}`")
    shown = CliRunner().invoke(main, ["show", str(run)])  # was "no object with digest prefix"
    assert shown.exit_code == 1 and f"`mv {bak} {own}`" in shown.stderr, shown.output
    subprocess.run(["mv", bak, own], cwd=published, check=True)
    assert _verify(published, monkeypatch) == (0, [])


def test_r91_f5_a_rename_over_another_object_says_the_object_it_replaced(published, kit,
                                                                          monkeypatch):
    """(c) `mv` over another stored object's file: "nothing else is to be written or
    removed" was said while that object was gone, and KI209/KI401 named it otherwise. In
    its own shard, which `show` hashes whole (another shard's objects with metadata are
    not hashed for a message: docs/rules.md, KI101)."""
    run, own, impl, over = _stored(published, kit, shard=True)
    shutil.move(published / own, published / over)
    code, errors = _verify(published, monkeypatch)
    assert code == 1 and [(f["rule"], f["file"]) for f in errors] == [("KI101", over)], errors
    assert errors[0]["extra"] == {"holds": str(run), "over": str(impl)}
    assert errors[0]["message"].endswith(
        f"; {renamed_advice(over, run, impl)}") and f"renamed over the object file of {impl}" \
        in errors[0]["message"]
    hint = errors[0]["hint"]
    assert hint.startswith(f"a file renamed by hand over another object's file: rename it back "
                           f"with `mv {over} {own}` (from the top of the clone) first, then put "
                           f"back the object it replaced: restore it with `git checkout HEAD -- "
                           f"{over}`")
    shown = CliRunner().invoke(main, ["show", str(run)])
    assert f"`mv {over} {own}`" in shown.stderr and f"renamed over the object file of {impl}" \
        in shown.stderr, shown.output
    subprocess.run(["mv", over, own], cwd=published, check=True)  # the advice, in its order
    subprocess.run(["git", "checkout", "HEAD", "--", over], cwd=published, check=True)
    assert _verify(published, monkeypatch) == (0, [])


def test_r91_f5_a_copy_over_another_object_is_not_removed(published, kit, monkeypatch):
    """`cp` over another stored object's file: removing the copy would lose that object's
    file for good; the fix restores it (the copied object is intact at its own path)."""
    run, own, impl, over = _stored(published, kit)
    shutil.copy(published / own, published / over)
    code, errors = _verify(published, monkeypatch)
    assert code == 1 and [(f["rule"], f["file"]) for f in errors] == [("KI101", over)], errors
    assert errors[0]["extra"] == {"holds": str(run), "copy": True, "over": str(impl)}
    assert "rm " not in errors[0]["hint"] and f"`git checkout HEAD -- {over}`" in \
        errors[0]["hint"]
    subprocess.run(["git", "checkout", "HEAD", "--", over], cwd=published, check=True)
    assert _verify(published, monkeypatch) == (0, [])


def test_the_gate_gives_the_committed_rename_one_cause_as_verify_does(published, monkeypatch):
    # fix91's leftover: `check BASE..HEAD` (and pre-receive) still reported KI203, KI204 and
    # KI215 beside KI101 and KI403, each advising to write or remove a file
    digest = Digest.from_str(PUBLISHED["run"])
    own = layout.object_path(digest)
    wrong = f"{layout.OBJECTS_DIR}/aa/{digest.hex[2:]}.json"
    base = git(published, "rev-parse", "HEAD").strip()
    (published / wrong).parent.mkdir(parents=True, exist_ok=True)
    git(published, "mv", own, wrong)
    git(published, "commit", "-qm", "renamed by hand")
    monkeypatch.chdir(published)
    result = CliRunner().invoke(main, ["check", f"{base}..HEAD", "--json"])
    assert result.exit_code == 1, result.output
    errors = [(f["rule"], f["file"]) for f in json.loads(result.stdout)["findings"]
              if f["severity"] == "error"]
    # the KI403 of the commit is the same cause: said once, in KI101's fix (r92 F12)
    assert sorted(errors) == [("KI101", wrong)], errors
    _, verified = _verify(published, monkeypatch)
    assert sorted((f["rule"], f["file"]) for f in verified) == sorted(errors)


def _check(root, monkeypatch, base: str) -> tuple[int, list[dict]]:
    monkeypatch.chdir(root)
    result = CliRunner().invoke(main, ["check", f"{base}..HEAD", "--json"])
    return result.exit_code, [f for f in json.loads(result.stdout)["findings"]
                              if f["severity"] == "error"]


def _drop(root, subject: str, base: str) -> None:
    """Follow "`git rebase -i BASE`, and drop that commit": drop each commit whose subject
    starts with ``subject``."""
    subprocess.run(["git", "rebase", "-q", "-i", base], cwd=root, check=True, env={
        **os.environ,
        "GIT_SEQUENCE_EDITOR": f"sed -i -e '/^pick [0-9a-f]* {subject}/s/^pick/drop/'"})


def test_r92_f12_a_committed_copy_removed_by_a_later_commit_is_no_ki402_but_ki101(
        published, monkeypatch):
    """The gate's `rm` for a committed copy, followed as a fixing commit, gave KI402
    "objects are never deleted": the copy never was an object (its bytes are another
    digest's), so taking it away deletes none, in the range and in the work tree. But the
    copying commit stays in the history: the gate judges every commit (hist00), so it says
    KI101 of that commit, as its fix said, and the rebase it prints passes."""
    run, own, _, _ = _stored(published)
    copy = own[:-66] + ("0" if own[-66] != "0" else "1") + own[-65:]
    base = git(published, "rev-parse", "HEAD").strip()
    shutil.copy(published / own, published / copy)
    git(published, "add", "store")
    git(published, "commit", "-qm", "copy")
    code, errors = _check(published, monkeypatch, base)
    assert code == 1 and [(f["rule"], f["file"]) for f in errors] == [("KI101", copy)], errors
    # the branch's fix (case99): out of the commit bringing it; a later `rm` still passes
    # for a copy no name of its shard collides with (below), but leaves it in the history
    assert errors[0]["hint"].startswith(
        "a copy of a stored object, brought by a commit of the branch: take it out of that "
        "commit, not in a later one, which leaves it in the history (")
    assert f"`git rebase -i {base}`, and drop that commit (or, when it holds other " \
        f"changes, mark it `edit`, then `git rm -r {copy}`" in errors[0]["hint"]
    subprocess.run(["rm", copy], cwd=published, check=True)  # verify's advice, in the work tree
    assert _verify(published, monkeypatch) == (0, [])  # no KI402 "deleted in the work tree"
    git(published, "commit", "-qam", "fix: remove the copy")  # and as a fixing commit
    copying = git(published, "rev-parse", "HEAD^").strip()
    code, errors = _check(published, monkeypatch, base)  # no KI402; the copy's commit: KI101
    assert code == 1 and [(f["rule"], f["file"]) for f in errors] == [("KI101", copy)], errors
    assert errors[0]["message"] == (
        f"sha256 of the file is not its name (commit {copying[:12]} brings it; a later commit "
        "of the range removes it, but that commit stays in the history, where a checkout of "
        f"it meets the path: rebuild the range without it, e.g. `git rebase -i {base}`)")
    assert (errors[0]["expected"], errors[0]["found"]) == (
        layout.digest_from_path(copy).hex, run.hex)
    assert errors[0]["hint"].startswith(
        "a file whose bytes are not the object its path names, brought by a commit of the "
        "branch: take it out of that commit, not in a later one")
    _drop(published, r"\(fix: remove the \)\?copy", base)  # as printed (the `rm`'s: empty)
    assert git(published, "rev-parse", "HEAD").strip() == base
    assert _verify(published, monkeypatch) == (0, [])


def test_r92_f12_a_committed_rename_says_the_branch_way_which_passes(published, kit,
                                                                     monkeypatch):
    """A committed rename's `mv` back, followed as a fixing commit, left the rename in the
    history (KI403 for good, and a second KI403 calling the misnamed path a renamed
    object). The gate and verify now say to drop the commit, and doing so passes."""
    run, own, _, _ = _stored(published)
    wrong = f"{layout.OBJECTS_DIR}/aa/{run.hex[2:]}.json"
    base = git(published, "rev-parse", "HEAD").strip()
    add_docs(Store(published), [kit.implementation()], commit=True)  # a commit to keep
    (published / wrong).parent.mkdir(parents=True, exist_ok=True)
    git(published, "mv", own, wrong)
    git(published, "commit", "-qm", "renamed by hand")
    renamed = git(published, "rev-parse", "HEAD").strip()
    code, errors = _check(published, monkeypatch, base)
    assert code == 1 and [(f["rule"], f["file"]) for f in errors] == [("KI101", wrong)], errors
    hint = errors[0]["hint"]
    assert hint.startswith(f"a file renamed by hand, in commit {renamed[:12]} of the branch: ")
    # BASE's own id (r93b G1: the gate said a literal "BASE" where it knows the commit)
    assert f"`git rebase -i {base}`, and drop that commit" in hint and "mv " not in hint, hint
    assert "mv " not in errors[0]["message"] and f"renamed by hand in commit {renamed[:12]}" \
        in errors[0]["message"]
    # verify, which knows no BASE, says it alike and how to find BASE
    assert _verify(published, monkeypatch)[1] == [{**errors[0], "hint": hint.replace(
        f"`git rebase -i {base}`", "`git rebase -i BASE` (BASE: the commit the branch starts "
        "from, `git merge-base origin/main HEAD`)")}]
    # the mv back as a fixing commit: one KI403, on the real object, saying the same
    git(published, "mv", wrong, own)
    later = {**os.environ, "GIT_COMMITTER_DATE": f"@{int(time.time()) + 60} +0000"}
    subprocess.run(["git", "commit", "-qm", "renamed back"], cwd=published, check=True,
                   env=later)  # after the first add: within its second, KI425 (a tie)
    code, errors = _check(published, monkeypatch, base)
    assert code == 1 and [(f["rule"], f["file"]) for f in errors] == [("KI403", own)], errors
    assert f"`git rebase -i {base}`" in errors[0]["hint"], errors[0]["hint"]  # fresh95 F6
    _drop(published, "rename", base)  # the advice: both commits
    assert git(published, "log", "--format=%s", f"{base}..HEAD").split("\n")[0] != ""
    assert _check(published, monkeypatch, base) == (0, [])
    assert _verify(published, monkeypatch) == (0, [])


def _named_workload(store, kit) -> tuple[Digest, str]:
    """A committed workload two committed runs name: its digest and object path."""
    protocol, env, workload, impl = (kit.protocol(), kit.environment(), kit.workload(),
                                     kit.implementation())
    runs = [kit.run(protocol, env, impl, workload, latency=5000 + i) for i in range(2)]
    add_docs(store, [protocol, env, workload, impl, *runs], commit=True)
    digest = Digest.from_str(kit.digest(workload))
    return digest, layout.object_path(digest)


def _all(root, monkeypatch, *args: str) -> tuple[int, list[tuple[str, str]]]:
    monkeypatch.chdir(root)
    result = CliRunner().invoke(main, [*args, "--json"])
    return result.exit_code, [(f["rule"], f["file"]) for f in
                              json.loads(result.stdout)["findings"] if f["severity"] != "info"]


def test_r92_f2_a_renamed_workload_leaves_its_referrers_alone_and_migrate_writes_nothing(
        store, kit, monkeypatch):
    """Renaming a Workload two runs name gave, beside the KI110/KI101 with the `mv`, KI201
    (warning) and KI213 per run, whose advice (`kistore migrate`) wrote forward records for
    an object that is there, stale once it is put back (verify silent on them)."""
    workload, own = _named_workload(store, kit)
    root = store.root
    for wrong, rule_ in ((own + ".bak", "KI110"),
                         (f"{layout.OBJECTS_DIR}/aa/{workload.hex[2:]}.json", "KI101")):
        (root / wrong).parent.mkdir(parents=True, exist_ok=True)
        shutil.move(root / own, root / wrong)
        assert _all(root, monkeypatch, "verify") == (1, [(rule_, wrong)])
        migrated = CliRunner().invoke(main, ["migrate"])
        assert migrated.exit_code == 0, migrated.output
        assert f"warning: {wrong}: skipped: " in migrated.stderr and \
            f"`mv {wrong} {own}`" in migrated.stderr, migrated.stderr
        assert "forward record" not in migrated.output, migrated.output
        assert git(root, "status", "--porcelain", "--untracked-files=all").split("\n") == [
            f" D {own}", f"?? {wrong}", ""]  # no store/forward/ record
        shutil.move(root / wrong, root / own)
        assert _all(root, monkeypatch, "verify") == (0, [])


def test_r92_f2_a_committed_bak_rename_is_one_ki110_at_the_gate(store, kit, monkeypatch):
    """The gate said KI203 "remove the metadata file", KI403 and KI110's own "move or remove
    it" for a committed `mv X.json X.json.bak`: now KI110 naming whose bytes it holds, and
    the branch's way (the commit, `git rebase -i BASE`), as verify says it."""
    _, own = _named_workload(store, kit)
    root = store.root
    base = git(root, "rev-parse", "HEAD").strip()
    git(root, "mv", own, own + ".bak")
    git(root, "commit", "-qm", "ren")
    ren = git(root, "rev-parse", "HEAD").strip()
    code, errors = _check(root, monkeypatch, base)
    assert code == 1 and [(f["rule"], f["file"]) for f in errors] == [
        ("KI110", own + ".bak")], errors
    assert errors[0]["hint"].startswith(f"a file renamed by hand, in commit {ren[:12]} of the "
                                        "branch") and f"`git rebase -i {base}`" in errors[0]["hint"]
    assert _all(root, monkeypatch, "verify") == (1, [("KI110", own + ".bak")])
    _drop(root, "ren", base)
    assert _check(root, monkeypatch, base) == (0, [])


def test_r93b_g1_a_committed_edit_gets_the_branch_fix_at_the_gate(published, monkeypatch):
    """KI101's `git checkout HEAD -- PATH` restores nothing in a branch (HEAD holds the
    edited bytes) and `kistore drop` refuses a committed object: the gate names BASE's way."""
    _, own, _, _ = _stored(published)
    base = git(published, "rev-parse", "HEAD").strip()
    original = (published / own).read_bytes()
    (published / own).write_bytes(original.replace(b"06:41:58", b"06:41:59", 1))
    git(published, "commit", "-qam", "tamper")
    code, errors = _check(published, monkeypatch, base)
    assert code == 1 and sorted(f["rule"] for f in errors) == ["KI101", "KI401"], errors
    hint = next(f["hint"] for f in errors if f["rule"] == "KI101")
    assert f"`git rebase -i {base}`, and drop that commit" in hint, hint
    assert "checkout HEAD" not in hint and "kistore drop" not in hint
    # a fixing commit restoring the bytes leaves the edit commit's KI401: not the advice
    (published / own).write_bytes(original)
    git(published, "commit", "-qam", "restore")
    assert [f["rule"] for f in _check(published, monkeypatch, base)[1]] == ["KI401"]
    git(published, "reset", "-q", "--hard", "HEAD~1")
    _drop(published, "tamper", base)  # the advice: the branch rebuilt without the edit
    assert _check(published, monkeypatch, base) == (0, [])


def _committed_edit(published, subject: str) -> tuple[Digest, str, str, bytes, str]:
    """Edit a stored run's object by one byte and commit it as ``subject``.

    Returns:
        (the run, its object's path, the commit before the edit, the object's original
        bytes, the edit's commit).
    """
    run, own, _, _ = _stored(published)
    before = git(published, "rev-parse", "HEAD").strip()
    original = (published / own).read_bytes()
    (published / own).write_bytes(original.replace(b"06:41:58", b"06:41:59", 1))
    git(published, "commit", "-qam", subject)
    return run, own, before, original, git(published, "rev-parse", "HEAD").strip()


def test_fresh95_f4_a_committed_edit_is_restored_from_the_commit_before_it(published,
                                                                          monkeypatch):
    """verify's KI101 and KI401 of an edit HEAD holds said `git checkout HEAD -- PATH` (a
    no-op: HEAD holds the edited bytes); the gate's KI401 said so beside KI101's rebase.
    Now verify names the commit before the edit, and following it restores the bytes."""
    run, own, before, original, edit = _committed_edit(published, "edit only")
    # show, the file edited (HEAD's bytes) and then deleted: both name the commit before
    for step in ("edited", "deleted"):
        if step == "deleted":
            (published / own).unlink()
        shown = CliRunner().invoke(main, ["--store", str(published), "show", str(run)])
        assert shown.exit_code != 0
        assert f"`git checkout {before[:12]} -- {own}`" in shown.output, shown.output
        assert "checkout HEAD --" not in shown.output, shown.output
    git(published, "checkout", "HEAD", "--", own)
    code, errors = _verify(published, monkeypatch)
    assert code == 1 and sorted(f["rule"] for f in errors) == ["KI101", "KI401"], errors
    for f in errors:
        assert f["hint"].startswith("HEAD holds the edited bytes, so `git checkout HEAD` "
                                    f"restores nothing: restore the object's original bytes "
                                    f"from {before[:12]}, the commit before the edit"), f
        assert f"`git checkout {before[:12]} -- {own}`, and commit it" in f["hint"]
        assert f"({edit[:12]}: `git rebase -i BASE`" in f["hint"]
        assert "checkout HEAD --" not in f["hint"]
    # the gate: KI401 says the branch's way, as KI101 does, naming BASE
    code, errors = _check(published, monkeypatch, before)
    [ki401] = [f for f in errors if f["rule"] == "KI401"]
    assert f"`git rebase -i {before}`, and drop that commit" in ki401["hint"], ki401
    assert "checkout HEAD" not in ki401["hint"]
    # the verify fix followed: the bytes come back (the history's KI401 stays, as it says)
    git(published, "checkout", before[:12], "--", own)
    assert (published / own).read_bytes() == original
    # ... and committed: KI401 stays, and its fix is the branch's way, not `git checkout
    # HEAD` (a no-op: HEAD holds the bytes again; reviewer break95 M1)
    git(published, "commit", "-qam", "restore")
    code, errors = _verify(published, monkeypatch)
    assert code == 1 and [f["rule"] for f in errors] == ["KI401"], errors
    assert errors[0]["hint"] == (
        f"HEAD holds the object's original bytes again, but the edit's commit ({edit[:12]}) "
        "stays in the history, which is read commit by commit: in a branch not yet merged, "
        "drop it and the commit restoring the bytes (`git rebase -i BASE` (BASE: the commit "
        "the branch starts from, `git merge-base origin/main HEAD`)), which loses all else "
        "it changed too (move any other change to a new commit first); on a branch already "
        "merged the history cannot change, and this error says so for good")


def test_r93b_g7_a_committed_copy_with_made_up_metadata_is_removed_with_git_rm(
        published, monkeypatch):
    """A copy at a made-up digest with a metadata file written for it: no commit held that
    object, so neither `git checkout HEAD` nor `kistore drop` helps; taking both files out
    of the commit bringing them does (`git rm` of both in a later commit leaves that commit
    in the history, which the gate judges commit by commit: hist00)."""
    run, own, _, _ = _stored(published)
    made_up = Digest.from_str("sha256:" + run.hex[:2] + "e" * 62)
    copy, meta = layout.object_path(made_up), layout.metadata_path(made_up)
    base = git(published, "rev-parse", "HEAD").strip()
    (published / copy).write_bytes((published / own).read_bytes())
    (published / meta).parent.mkdir(parents=True, exist_ok=True)
    (published / meta).write_bytes((published / layout.metadata_path(run)).read_bytes())
    git(published, "add", "store")
    git(published, "commit", "-qm", "forged copy")
    code, errors = _check(published, monkeypatch, base)
    assert code == 1 and [(f["rule"], f["file"]) for f in errors] == [("KI101", copy)], errors
    assert errors[0]["hint"].startswith(
        "a copy of a stored object, with a metadata file made for it, brought by a commit of "
        "the branch: take it out of that commit, not in a later one"), errors[0]["hint"]
    assert f"`git rebase -i {base}`, and drop that commit (or, when it holds other changes, " \
        f"mark it `edit`, then `git rm -r {copy} {meta}`, `git commit --amend`" \
        in errors[0]["hint"]
    forged = git(published, "rev-parse", "HEAD").strip()
    git(published, "rm", "-q", copy, meta)  # the old advice, as a fixing commit: refused
    git(published, "commit", "-qm", "fix: remove the copy")
    code, errors = _check(published, monkeypatch, base)
    assert code == 1 and [(f["rule"], f["file"]) for f in errors] == [("KI101", copy)], errors
    assert f"(commit {forged[:12]} brings it; a later commit of the range removes it" \
        in errors[0]["message"]
    _drop(published, r"\(fix: remove the copy\|forged copy\)", base)  # the advice
    assert _check(published, monkeypatch, base) == (0, [])


def test_depth96_the_history_walk_gives_an_edit_its_fix_as_it_makes_the_ki401(published,
                                                                             monkeypatch):
    """The fix of an edit is the walk's, not a later pass over the findings' texts: at the
    gate the branch's way naming BASE's id, in verify the commit before the edit. A work
    tree edited again after a restoring commit is the work tree's: `git checkout HEAD`."""
    _, own, _, _ = _stored(published)
    before = git(published, "rev-parse", "HEAD").strip()
    original = (published / own).read_bytes()
    edited = original.replace(b"06:41:58", b"06:41:59", 1)
    (published / own).write_bytes(edited)
    git(published, "commit", "-qam", "edit only")
    edit = git(published, "rev-parse", "HEAD").strip()
    store = Store(published)
    commits = list(ancestry(store.repo, store.commit("HEAD"), hide=store.commit(before)))
    [gate] = history_findings(store.repo, commits, base=Base(before))
    assert gate.fix == (
        f"an object's bytes edited in commit {edit[:12]} of the branch: restoring them in a "
        "later commit leaves the edit in the history, which is read commit by commit "
        f"(KI401), so rebuild the branch without it: `git rebase -i {before}`, and drop that "
        f"commit (or edit it to leave {own} as it was); objects are never edited: add a new "
        "manifest instead")
    [said] = history_findings(store.repo, commits)
    assert said.fix == (
        "HEAD holds the edited bytes, so `git checkout HEAD` restores nothing: restore the "
        f"object's original bytes from {before[:12]}, the commit before the edit (the last "
        f"holding them): `git checkout {before[:12]} -- {own}`, and commit it. In a branch "
        f"not yet merged, drop the edit's commit instead ({edit[:12]}: `git rebase -i BASE`, "
        "BASE being `git merge-base origin/main HEAD`): a restoring commit leaves the edit "
        "in the history, read commit by commit (KI401). Objects are never edited: add a new "
        "manifest instead")
    # restored by a commit, then edited again in the work tree: HEAD holds the object's
    # bytes, so the KI101 and the work tree's KI401 keep their rules' `git checkout HEAD`
    (published / own).write_bytes(original)
    git(published, "commit", "-qam", "restore")
    (published / own).write_bytes(edited)
    code, errors = _verify(published, monkeypatch)
    assert code == 1 and sorted(f["rule"] for f in errors) == ["KI101", "KI401", "KI401"]
    committed, worktree = sorted((f for f in errors if f["rule"] == "KI401"),
                                 key=lambda f: "work tree" in f["message"])
    assert committed["hint"].startswith("HEAD holds the object's original bytes again, but "
                                        f"the edit's commit ({edit[:12]}) stays"), committed
    assert worktree["hint"] == OBJECT_MODIFIED.hint, worktree
    [contents] = [f for f in errors if f["rule"] == "KI101"]
    assert contents["hint"] == OBJECT_DIGEST_MISMATCH.hint, contents  # `git checkout HEAD`


def test_fresh96_f4_an_edit_deleted_then_restored_names_every_commit_to_drop(published,
                                                                             monkeypatch):
    """Edit, delete, restore: verify's fix named only the edit ("drop it and the commit
    restoring the bytes"), and the rebase that dropped those two stopped on the deletion (a
    modify/delete conflict); the gate said "drop the commit that changed it", and the rebase
    stopped on the emptied restore. Both now name the edit and the deletion, and dropping
    what they name and the restore runs through and leaves verify and the gate clean."""
    _, own, base, _, edit = _committed_edit(published, "edit object")
    git(published, "rm", "-q", own)
    git(published, "commit", "-qm", "delete object")
    deleted = git(published, "rev-parse", "HEAD").strip()
    git(published, "checkout", base, "--", own)
    git(published, "commit", "-qm", "restore object")
    named = f"the commits that changed it ({edit[:12]}, {deleted[:12]}) stay in the history"
    code, errors = _verify(published, monkeypatch)
    assert code == 1 and [f["rule"] for f in errors] == ["KI401"], errors
    assert errors[0]["hint"].startswith(
        f"HEAD holds the object's original bytes again, but {named}, which is read commit by "
        "commit: in a branch not yet merged, drop them and the commit restoring the bytes "
        "(`git rebase -i BASE` (BASE: "), errors[0]["hint"]  # the rest as one edit's fix
    code, errors = _check(published, monkeypatch, base)
    [ki401] = [f for f in errors if f["rule"] == "KI401"]
    assert named in ki401["hint"] and f"(`git rebase -i {base}`)" in ki401["hint"], ki401
    _drop(published, r"\(edit\|delete\|restore\) object", base)  # as the fix says
    assert git(published, "rev-parse", "HEAD").strip() == base
    assert _verify(published, monkeypatch)[0] == 0
