"""A query of the work tree during a running ``add --commit`` never answers from its files.

New-user review 2026-12-02 (F14): ``kistore ls`` while an ``add --commit`` of 4,000
manifests ran listed 1,862 manifests, a state never committed (the add was then
interrupted and they were gone), and ``rank`` warned that 40 manifests "do not verify":
files of the add caught between two writes. The add holds ``.git/index.lock`` from before
its first file write until its branch has moved; a query now waits briefly for it and then
answers from HEAD, saying so (:meth:`kistore.store.Store.settled`; the command line prints
its note: :meth:`kistore.cli.StoreContext.settled_at`).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from bench.generate import write_jsonl
from kistore.cli import StoreContext, main


def kistore(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "kistore", "--store", str(root), *args],
                          capture_output=True, text=True, check=True)


def test_queries_during_an_add_answer_from_head_never_from_its_files(runner, store, tmp_path):
    root = store.root
    source = tmp_path / "all.jsonl"
    write_jsonl(source, 2500)
    lines = source.read_text().splitlines(keepends=True)
    first, rest = tmp_path / "first.jsonl", tmp_path / "rest.jsonl"
    first.write_text("".join(lines[:500]))
    rest.write_text("".join(lines[500:]))
    kistore(root, "add", "--commit", str(first))
    before = len(json.loads(kistore(root, "ls", "--json").stdout))

    lock = root / ".git" / "index.lock"
    add = subprocess.Popen([sys.executable, "-m", "kistore", "--store", str(root), "add",
                            "--commit", str(rest)], stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True)
    try:
        while add.poll() is None and not lock.exists():  # its first file write is near
            time.sleep(0.01)
        answers = []  # (lock held as the query began, count, stderr)
        while add.poll() is None:
            held = lock.exists()
            result = runner.invoke(main, ["--store", str(root), "ls", "--json"])
            assert result.exit_code == 0, result.output
            answers.append((held, len(json.loads(result.stdout)), result.stderr))
    finally:
        add.wait()
    assert add.returncode == 0, add.stderr
    after = len(json.loads(kistore(root, "ls", "--json").stdout))
    assert after == 2500 > before

    assert any(held for held, _, _ in answers), "no query ran while the add held the lock"
    for held, count, said in answers:
        assert count in (before, after), (count, before, after)
        assert "do not verify" not in said
        if held and count == before:
            assert "is held: a `kistore add --commit` (or a git command) is writing the " \
                   "work tree; answering from HEAD" in said or "work tree changed" in said


def test_no_lock_costs_one_look_and_answers_from_the_work_tree(store, monkeypatch):
    context = StoreContext(str(store.root))
    context.store()  # opened as the command opens it
    looked = []
    real = os.path.lexists
    monkeypatch.setattr(os.path, "lexists", lambda p: looked.append(str(p)) or real(p))
    assert context.settled_at(None) is None
    # git's index lock, then where kistore's write lock is (a plain add's, review r75 F6:
    # the main worktree has no commondir file); its open: tests/cli/test_query_during_plain_add
    assert looked == [str(Path(store.git_dir) / "index.lock"),
                      str(Path(store.git_dir) / "commondir")]
    assert context.settled_at("v1") == "v1"  # an --at given is answered as given
    assert len(looked) == 2


def test_a_lock_that_stays_held_answers_from_head_with_a_warning(runner, group, kit):
    from ..conftest import add_docs

    add_docs(group, [kit.implementation("proj-new", name="impl-new")],
             commit=False)  # in the work tree only
    root = group.root
    work_tree = runner.invoke(main, ["--store", str(root), "ls", "--json"])
    (root / ".git" / "index.lock").write_bytes(b"")  # a running (or crashed) git command
    held = runner.invoke(main, ["--store", str(root), "ls", "--json"])
    head = runner.invoke(main, ["--store", str(root), "ls", "--json", "--at", "HEAD"])
    assert held.exit_code == 0, held.output
    assert json.loads(held.stdout) == json.loads(head.stdout) != json.loads(work_tree.stdout)
    assert held.stderr.startswith("warning: ") and "index.lock is held: a `kistore add " \
        "--commit` (or a git command) is writing the work tree; answering from HEAD" in \
        held.stderr
    rank = runner.invoke(main, ["--store", str(root), "rank", "BenchmarkRun/fast"])
    assert rank.exit_code == 0 and "answering from HEAD" in rank.stderr
    # cat, cite and attestations read the work tree too: the same rule (Store.settled)
    for command in (["cat", "BenchmarkRun/fast"], ["attestations", "BenchmarkRun/fast"],
                    ["cite", "BenchmarkRun/fast"]):
        result = runner.invoke(main, ["--store", str(root), *command])
        # (cite then says this store has no permalink: exit 1, after the warning)
        assert result.exit_code == (1 if command[0] == "cite" else 0), (command, result.output)
        assert result.stderr.startswith(f"warning: {root / '.git' / 'index.lock'} is held"), \
            (command, result.stderr)
    new = runner.invoke(main, ["--store", str(root), "cat", "Implementation/impl-new"])
    assert new.exit_code == 1  # in the work tree only: HEAD has no such manifest
    assert "answering from HEAD" in new.stderr and "at HEAD" in new.stderr
    # F14 (review 2026-12-02): no "leave out --at" to one who gave none
    head = git_head(root)[:12]
    for command in ("cat", "show", "rank"):
        result = runner.invoke(main, ["--store", str(root), command, "Implementation/impl-new"
                                      if command != "rank" else "BenchmarkRun/new"])
        assert result.exit_code == 1, (command, result.output)
        assert "leave out --at" not in result.stderr, command
        assert result.stderr.splitlines()[-1].endswith(
            f"at HEAD (commit {head}), read in place of the work tree while an add was "
            "writing it: it may be in the work tree, not committed yet; ask again when the "
            "add is done"), (command, result.stderr)
    given = runner.invoke(main, ["--store", str(root), "show", "Implementation/impl-new",
                                 "--at", "HEAD"])  # --at given: the advice stands
    assert "leave out --at to ask the work tree" in given.stderr


def git_head(root: Path) -> str:
    return subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True,
                          text=True, check=True).stdout.strip()


def test_verify_during_an_add_judges_the_files_and_says_the_lock_was_held(runner, group):
    # F15 (review 2026-12-02): verify while an add wrote reported hundreds of errors with no
    # word about the lock. It still judges the work tree (no gate), and says so: KI418
    # first, in --json, and again after the summary
    root = group.root
    clean = runner.invoke(main, ["--store", str(root), "verify", "--json"])
    assert clean.exit_code == 0 and "KI418" not in clean.stdout
    lock = root / ".git" / "index.lock"
    lock.write_bytes(b"")
    # a file the add has written, its metadata not yet: KI204 object-without-metadata
    half = root / "store" / "objects" / "sha256" / "ab" / ("ab" + "0" * 62 + ".json")
    half.parent.mkdir(parents=True, exist_ok=True)
    half.write_bytes(b'{"kind":"Protocol"}\n')
    text = runner.invoke(main, ["--store", str(root), "verify"])
    assert text.exit_code == 1  # the files read are judged as asked
    lines = text.stdout.splitlines()
    assert lines[0] == (
        f"(store): warning KI418 work-tree-written-meanwhile: {lock} was held while verify "
        "read the work tree: an add or git command was writing it, so errors below may be "
        "files caught half-written, not damage; run `kistore verify` again when it ends")
    assert lines[-2].startswith("FAILED: store at work tree: ")
    assert lines[-1] == (
        "warning: an add or git command was writing while verify read: run `kistore verify` "
        "again when it ends (its half-written files are reported above as if damaged; an add "
        "in another worktree, named above, wrote there, not here); if nothing is running, a "
        "crashed git command left .git/index.lock: remove it, then run `git reset -q`")
    data = json.loads(runner.invoke(main, ["--store", str(root), "verify", "--json"]).stdout)
    first = data["findings"][0]
    assert (first["rule"], first["severity"], first["extra"]) == (
        "KI418", "warning", {"lock": str(lock)})
    assert data["counts"]["warning"] >= 1 and not data["ok"]
    # a commit is read from git objects: no lock is looked at
    at_head = runner.invoke(main, ["--store", str(root), "verify", "--at", "HEAD", "--json"])
    assert "KI418" not in at_head.stdout


def test_verify_notices_a_lock_taken_while_it_reads(group, monkeypatch):
    # an add that began after verify's first look is seen at a progress step or at the end
    from kistore.check.audit import verify
    from kistore.store import Store

    looks = iter([False])  # free at the first look, held from then on
    monkeypatch.setattr(Store, "work_tree_busy", lambda self: next(looks, True))
    findings = verify(Store(group.root))
    assert findings[0].rule.id == "KI418"
    assert sum(f.rule.id == "KI418" for f in findings) == 1
