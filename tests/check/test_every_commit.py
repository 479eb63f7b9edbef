"""Every commit a range brings holds only what the store's layout allows (hist00).

case99 left it: a stray file that collides with nothing (``X.json.bak``, an object's name in
upper case alone, an executable file), added by one commit of a range and removed (or
mended) by a later one, passed ``kistore check BASE..HEAD`` and pre-receive, the contents
check reading HEAD's files only, while the commit bringing it stays in main's history. So
did a copy of an object under another digest's name, ``rm``-ed in a fixing commit, though
the gate's fix said to take it out of its commit: words and behaviour now agree.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from kistore.check import gate
from kistore.cli import main as cli
from kistore.core import layout
from kistore.store import Store

from ..conftest import PUBLISHED, add_docs, commit_all, git, store_file
from .test_tree_entries_gate import _server_and_clone

KISTORE = str(Path(sys.executable).with_name("kistore"))
OWN = store_file(PUBLISHED["run"])


def _later(base: str, first: str) -> str:
    """The message's words after the rule's own: the commit bringing it, the rebase."""
    return (f" (commit {first[:12]} brings it; a later commit of the range removes it, but "
            "that commit stays in the history, where a checkout of it meets the path: "
            f"rebuild the range without it, e.g. `git rebase -i {base}`)")


def _fix(what: str, path: str, base: str) -> str:
    return (f"{what}, brought by a commit of the branch: take it out of that commit, not in a "
            "later one, which leaves it in the history (a checkout of that commit meets it, "
            "and the gate judges every commit of a range, so it refuses that too): "
            f"`git rebase -i {base}`, and drop that commit (or, when it holds other changes, "
            f"mark it `edit`, then `git rm -r {path}`, `git commit --amend`, `git rebase "
            "--continue`), and any later one that only removes or restores it: kept, it is "
            "left empty and git stops the rebase there (`git rebase --skip` it); nothing else "
            "is to be written or removed for it")


def _add_then_remove(root: Path, stray: str, data: bytes | None = None
                     ) -> tuple[str, str, str]:
    """BASE, a commit writing ``data`` (a copy of the stored run) at ``stray``, one removing
    it (KI110's `rm`)."""
    base = git(root, "rev-parse", "HEAD").strip()
    (root / stray).parent.mkdir(parents=True, exist_ok=True)
    (root / stray).write_bytes((root / OWN).read_bytes() if data is None else data)
    first = commit_all(root, "stray")
    (root / stray).unlink()
    return base, first, commit_all(root, "rm stray")


def _errors(root: Path, spec: str) -> list:
    return [f for f in gate.check_range(Store(root), spec) if f.severity == "error"]


def _upper_alone() -> str:
    """An object's path in upper case whose lower-case spelling no file has (no KI112)."""
    other = PUBLISHED["run"].removeprefix("sha256:")[::-1]
    return f"{layout.OBJECTS_DIR}/{other[:2]}/{other[2:].upper()}.json"


def test_a_bak_added_then_removed_is_refused_naming_its_commit(published):
    stray = OWN + ".bak"
    base, first, second = _add_then_remove(published, stray)
    [kept] = _errors(published, f"{base}..{first}")  # HEAD holds it: the contents check's
    assert (kept.rule.id, kept.file) == ("KI110", stray) and "brings it" not in kept.message
    [error] = _errors(published, f"{base}..{second}")
    assert (error.rule.id, error.file, error.extra["commit"]) == (
        "KI110", stray, f"commit {first[:12]}")
    assert error.message == "not a path of the store layout: move or remove it (a " \
        ".NAME.PID.N.tmp file is a temporary file of a killed `kistore add`: delete it, or the " \
        "next add into its directory removes it)" + _later(base, first)
    assert error.fix == _fix("a file where the store layout has none", stray, base)


def test_an_upper_case_object_name_alone_added_then_removed_is_refused(published):
    stray = _upper_alone()
    base, first, second = _add_then_remove(published, stray)
    assert [(f.rule.id, f.file) for f in _errors(published, f"{base}..{second}")] == [
        ("KI110", stray)]
    # a stray file main already holds, removed by a range, mends main: nothing brought
    assert _errors(published, f"{first}..{second}") == []


def test_an_executable_file_made_regular_by_a_later_commit_is_refused(published):
    """KI114 of the commit bringing mode 100755; HEAD's 100644 is no excuse ("replaces")."""
    base = git(published, "rev-parse", "HEAD").strip()
    stray = OWN.rpartition("/")[0] + "/" + "0" * 62 + ".json"
    shutil.copyfile(published / OWN, published / stray)
    os.chmod(published / stray, 0o755)
    first = commit_all(published, "x")
    os.chmod(published / stray, 0o644)
    second = commit_all(published, "chmod -x")
    errors = _errors(published, f"{base}..{second}")
    # HEAD's copy: KI101 from the contents check; the commit's mode: KI114 from the walk
    assert sorted((f.rule.id, f.file) for f in errors) == [("KI101", stray), ("KI114", stray)]
    [mode] = [f for f in errors if f.rule.id == "KI114"]
    assert mode.message == ("an executable file (mode 100755) under store/"
                            + _later(base, first).replace("removes it", "replaces it"))


def test_pre_receive_refuses_the_exact_sequence_and_takes_the_printed_fix(
        published, tmp_path, monkeypatch):
    """The push of `cp X.json X.json.bak`, commit, `rm`, commit: refused by the server's
    hook, naming the commit; the printed rebase (drop that commit) is then taken."""
    monkeypatch.setenv("KISTORE", KISTORE)
    server, clone = _server_and_clone(published, tmp_path)
    before = git(server, "rev-parse", "refs/heads/main")
    stray = OWN + ".bak"
    base, first, _ = _add_then_remove(clone, stray)
    git(clone, "commit", "-q", "--allow-empty", "-m", "keep: a commit of the branch")
    pushed = subprocess.run(["git", "push", "origin", "HEAD:refs/heads/main"], cwd=clone,
                            capture_output=True, text=True)
    assert pushed.returncode != 0
    assert f"remote: {stray}: error KI110 path-outside-layout: not a path of the store " \
        "layout" in pushed.stderr
    assert f"(commit {first[:12]} brings it; a later commit" in pushed.stderr
    assert git(server, "rev-parse", "refs/heads/main") == before
    # the fix, as printed: `git rebase -i BASE`, and drop that commit (and the `rm`'s, empty
    # without it)
    subprocess.run(["git", "rebase", "-q", "-i", base], cwd=clone, check=True, env={
        **os.environ,
        "GIT_SEQUENCE_EDITOR": r"sed -i -e '/^pick [0-9a-f]* \(rm \)\?stray/s/^pick/drop/'"})
    assert stray not in git(clone, "log", "--format=", "--name-only", f"{base}..HEAD")
    pushed = subprocess.run(["git", "push", "origin", "HEAD:refs/heads/main"], cwd=clone,
                            capture_output=True, text=True)
    assert pushed.returncode == 0, pushed.stderr


def test_the_printed_fix_run_as_written_stops_where_it_says_and_skip_finishes(published):
    """fresh00b LOW: dropping only the bringing commit leaves the `rm` commit empty, and git
    stops the rebase there; the fix says so and names `git rebase --skip`, which finishes."""
    stray = OWN + ".bak"
    base, first, second = _add_then_remove(published, stray)
    [error] = _errors(published, f"{base}..{second}")
    assert "and any later one that only removes or restores it: kept, it is left empty and " \
        "git stops the rebase there (`git rebase --skip` it)" in error.fix
    env = {**os.environ, "GIT_SEQUENCE_EDITOR": r"sed -i -e '/^pick [0-9a-f]* stray/s/^pick/drop/'"}
    stopped = subprocess.run(["git", "rebase", "-i", base], cwd=published, env=env,
                             capture_output=True, text=True)
    assert stopped.returncode != 0  # the empty `rm stray` commit, as the fix says
    subprocess.run(["git", "rebase", "--skip"], cwd=published, check=True, env=env,
                   capture_output=True)
    assert git(published, "rev-parse", "HEAD").strip() == base
    assert _errors(published, f"{base}..HEAD") == []


def _run_printed(root: Path, fix: str, first: str) -> None:
    """The fix's rebase as printed: drop the commit bringing the file; git stops at the
    later one, left empty, and `git rebase --skip` (as the fix says) finishes."""
    [args] = re.findall(r"`git rebase -i ([^`]+)`", fix)[:1]
    env = {**os.environ,
           "GIT_SEQUENCE_EDITOR": f"sed -i -e '/^pick {first[:7]}/s/^pick/drop/'"}
    stopped = subprocess.run(["git", "rebase", "-i", *args.split()], cwd=root, env=env,
                             capture_output=True, text=True)
    assert stopped.returncode != 0, stopped.stdout  # the empty later commit, as said
    subprocess.run(["git", "rebase", "--skip"], cwd=root, check=True, env=env,
                   capture_output=True)


def _made_up() -> str:
    """A metadata file's path for a digest no object has (the stored run's, reversed)."""
    other = PUBLISHED["run"].removeprefix("sha256:")[::-1]
    return f"{layout.METADATA_DIR}/{other[:2]}/{other[2:]}.json"


def test_metadata_for_a_made_up_digest_added_then_removed_is_refused_and_the_fix_runs(
        published):
    """hist01: KI203 held at HEAD only; the commit bringing the file stays in history, and
    `kistore verify --at` it (or a checkout of it) meets a metadata file without object."""
    stray = _made_up()
    base, first, second = _add_then_remove(published, stray, (
        published / store_file(PUBLISHED["run"], "metadata")).read_bytes())
    [error] = _errors(published, f"{base}..{second}")
    assert (error.rule.id, error.file, error.extra["commit"]) == (
        "KI203", stray, f"commit {first[:12]}")
    digest = stray.removeprefix(layout.METADATA_DIR + "/").replace("/", "").removesuffix(".json")
    assert error.message == (f"no object file {layout.OBJECTS_DIR}/{digest[:2]}/{digest[2:]}"
                             ".json" + _later(base, first))
    assert error.fix == _fix("a metadata file whose object that commit lacks", stray, base)
    said = CliRunner().invoke(cli, ["--store", str(published), "check", f"{base}..{second}"])
    assert said.exit_code == 1 and "KI203" in said.output, said.output
    _run_printed(published, error.fix, first)
    assert git(published, "rev-parse", "HEAD").strip() == base
    said = CliRunner().invoke(cli, ["--store", str(published), "check", f"{base}..HEAD"])
    assert said.exit_code == 0, said.output


def test_a_wrong_names_record_added_then_removed_is_ki212_of_its_commit_not_ki208(published):
    """A names file at a valid path claiming a name for the stored run, which has another:
    a checkout of (or a permalink to) that commit resolves the name to the wrong run. It
    was KI208 of the removing commit only, whose fix (drop the removal) left the record at
    HEAD; now KI212 of the commit bringing it, whose fix drops both, and the gate passes."""
    stray = layout.name_path("BenchmarkRun", "no-such-run")
    run = PUBLISHED["run"]
    base, first, second = _add_then_remove(published, stray, f"{run}\n".encode())
    [error] = _errors(published, f"{base}..{second}")
    assert (error.rule.id, error.file, error.extra["commit"]) == (
        "KI212", stray, f"commit {first[:12]}")
    assert error.message == (f"claims BenchmarkRun/no-such-run for {run}, which is "
                             "BenchmarkRun/sol-submission-20464" + _later(base, first))
    assert error.fix == _fix("a names file that commit's manifests disagree with", stray, base)
    # the commit bringing it alone: HEAD holds it, the contents check says KI212 (no commit)
    [kept] = _errors(published, f"{base}..{first}")
    assert (kept.rule.id, kept.file, "commit" in kept.extra) == ("KI212", stray, False)
    _run_printed(published, error.fix, first)
    assert _errors(published, f"{base}..HEAD") == []


def test_a_new_manifest_s_wrong_record_mended_later_is_ki212_of_its_commit(record_store, kit):
    """The commit adding a protocol writes another manifest's digest in its names file; a
    later commit writes the right one. HEAD agrees, but a permalink to the first commit (the
    one citations name for that protocol) resolved its name to the wrong manifest: KI212
    of that commit ("replaces"), not the later commit's KI208 (its fix, dropping the mend,
    leaves the wrong record)."""
    root = record_store.root
    base = git(root, "rev-parse", "HEAD").strip()
    protocol = kit.protocol(name="p-hist01")
    [digest] = add_docs(record_store, [protocol])
    path = layout.name_path("BenchmarkProtocol", "p-hist01")
    assert (root / path).read_bytes() == f"{digest}\n".encode()
    (root / path).write_bytes(f"{PUBLISHED['run']}\n".encode())
    git(root, "add", "-A")
    git(root, "commit", "-q", "--no-verify", "--amend", "--no-edit")
    first = git(root, "rev-parse", "HEAD").strip()
    (root / path).write_bytes(f"{digest}\n".encode())
    second = commit_all(root, "names mended")
    [error] = _errors(root, f"{base}..{second}")
    assert (error.rule.id, error.file, error.extra["commit"]) == (
        "KI212", path, f"commit {first[:12]}")
    assert error.message.startswith(f"claims BenchmarkProtocol/p-hist01 for {PUBLISHED['run']}"
                                    ", which is BenchmarkRun/sol-submission-20464 (commit "
                                    f"{first[:12]} brings it; a later commit of the range "
                                    "replaces it")
    # once the first commit has landed, the mend is a change to a landed names file: KI208
    assert [f.rule.id for f in _errors(root, f"{first}..{second}")] == ["KI208"]


def test_a_names_record_of_base_rewritten_and_restored_stays_ki208s(published):
    """A names file BASE holds, rewritten then restored: KI208 of each commit (a change to
    BASE's file) says it, with the fix dropping both; no per-commit KI212 beside it."""
    stray = layout.name_path("BenchmarkRun", "sol-submission-20464")
    base = git(published, "rev-parse", "HEAD").strip()
    made_up = "sha256:" + "0" * 64
    (published / stray).write_bytes(f"{made_up}\n".encode())
    commit_all(published, "names rewritten")
    (published / stray).write_bytes(f"{PUBLISHED['run']}\n".encode())
    second = commit_all(published, "names restored")
    assert sorted({f.rule.id for f in _errors(published, f"{base}..{second}")}) == ["KI208"]
