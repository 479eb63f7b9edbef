"""KI119: an ignore rule over ``store/`` (reviewer r82 F8).

r82's repro 08: a pull request adding ``.gitignore`` ``store/objects/sha256/d*/`` got ``ok: 0
errors``; afterwards a contributor's plain ``kistore add``, then ``git add store`` and ``git
commit``, left the new object file out without a word, ``verify`` said ok and ``git status``
was clean. Now the gate and ``verify`` refuse such a line (KI119), ``verify`` of a work tree
names a store file git ignores, and ``add`` refuses to write one.
"""

from __future__ import annotations

import json
import subprocess

from kistore.check import gate
from kistore.check._ignored import check_ignored
from kistore.cli import main
from kistore.store import Store

from ..conftest import BUNDLE, git, other_environment
from .test_hooks import KISTORE, run_git, server_main
from .test_tree_entries_gate import DIR, _git_sorted, _server_and_clone, crafted_commit

LINE = b"store/objects/sha256/d*/\n"
MESSAGE = ("line 1 ('store/objects/sha256/d*/') may match paths under store/: git add would "
           "skip them")


def _blob(root, data: bytes) -> str:
    return subprocess.run(["git", "hash-object", "-w", "--stdin"], cwd=root, input=data,
                          capture_output=True, check=True).stdout.decode().strip()


def _with_file(root, directory: str, name: bytes, data: bytes) -> str:
    return crafted_commit(root, directory, lambda es: _git_sorted(
        [e for e in es if e[1] != name] + [(0o100644, name, _blob(root, data))]))


def _ki119(findings) -> list[tuple[str | None, int | None, str]]:
    return [(f.file, f.line, f.message) for f in findings if f.rule.id == "KI119"]


def test_the_r82_gitignore_is_refused_at_the_gate(published):
    commit = _with_file(published, "", b".gitignore", LINE)
    findings = gate.check_range(Store(published), f"{commit}^..{commit}")
    assert _ki119(findings) == [(".gitignore", 1, MESSAGE)]
    assert findings[0].severity == "error"
    assert "`/*.log` rather than `*.log`" in findings[0].hint


def test_a_changed_gitignore_is_judged_whole_and_an_unchanged_one_not_again(published):
    first = _with_file(published, "", b".gitignore", b"/build/\n")
    git(published, "update-ref", "refs/heads/main", first)
    second = _with_file(published, "", b".gitignore", b"/build/\n*.json\n")
    assert _ki119(gate.check_range(Store(published), f"{first}^..{first}")) == []
    assert [(f, n) for f, n, _ in _ki119(gate.check_range(
        Store(published), f"{first}..{second}"))] == [(".gitignore", 2)]


def test_a_spelling_macos_reads_as_gitignore_and_a_nested_one_under_store_are_judged(
        published):
    upper = _with_file(published, "", b".GITIGNORE", b"STORE/\n")
    assert [(f, n) for f, n, m in _ki119(gate.check_range(
        Store(published), f"{upper}^..{upper}")) if "ignorecase=true" in m] == [
        (".GITIGNORE", 1)]
    nested = _with_file(published, "store", b".gitignore", b"tmp\n")
    assert [(f, n) for f, n, _ in _ki119(gate.check_range(
        Store(published), f"{nested}^..{nested}"))] == [("store/.gitignore", 1)]


def test_an_ordinary_gitignore_passes(published):
    commit = _with_file(published, "", b".gitignore",
                        b".venv\n__pycache__/\n*.egg-info/\n/build/\n/*.log\n!store/\n")
    findings = gate.check_range(Store(published), f"{commit}^..{commit}")
    assert _ki119(findings) == [] and [f for f in findings if f.severity == "error"] == []


def test_a_gitignore_outside_store_reaches_nothing_there(published):
    docs = git(published, "rev-parse", "HEAD:store").strip()  # any directory
    with_docs = crafted_commit(published, "", lambda es: _git_sorted([*es, (DIR, b"docs", docs)]))
    git(published, "update-ref", "refs/heads/main", with_docs)
    commit = _with_file(published, "docs", b".gitignore", b"*\n")
    assert _ki119(gate.check_range(Store(published), f"{commit}^..{commit}")) == []


def test_pre_receive_refuses_the_r82_push(published, tmp_path, monkeypatch):
    monkeypatch.setenv("KISTORE", KISTORE)
    server, clone = _server_and_clone(published, tmp_path)
    before = server_main(server)
    commit = _with_file(clone, "", b".gitignore", LINE)
    pushed = run_git(clone, "push", "origin", f"{commit}:refs/heads/main")
    assert pushed.returncode != 0
    assert f"remote: .gitignore:1:1: error KI119 gitignore-store: {MESSAGE}" in pushed.stderr
    assert server_main(server) == before


def test_verify_at_a_commit_with_such_a_gitignore_reports_it(published, runner):
    commit = _with_file(published, "", b".gitignore", LINE)
    result = runner.invoke(main, ["--store", str(published), "verify", "--at", commit])
    assert result.exit_code == 1, result.output
    assert f".gitignore:1:1: error KI119 gitignore-store: {MESSAGE}" in result.output


def _new_run(tmp_path):
    path = tmp_path / "env.json"
    path.write_text(json.dumps(other_environment(json.loads(BUNDLE.read_text()), "NVIDIA H100")))
    return path


def test_add_refuses_to_write_a_file_git_ignores_and_writes_nothing(published, tmp_path,
                                                                    runner):
    (published / ".git" / "info").mkdir(exist_ok=True)
    (published / ".git" / "info" / "exclude").write_text("store/names/\n")  # the clone's own
    for flags in ([], ["--commit"]):
        head = git(published, "rev-parse", "HEAD")
        result = runner.invoke(main, ["--store", str(published), "add", *flags,
                                      str(_new_run(tmp_path))])
        assert result.exit_code != 0, result.output
        assert "error: git ignores store/names/ExecutionEnvironment/" in result.output
        assert "(KI119)" in result.output and "nothing was written" in result.output
        assert git(published, "rev-parse", "HEAD") == head
        assert git(published, "status", "--porcelain", "--ignored", "store") == ""


def test_verify_of_a_work_tree_names_a_store_file_git_ignores(published, tmp_path, runner):
    result = runner.invoke(main, ["--store", str(published), "add", str(_new_run(tmp_path))])
    assert result.exit_code == 0, result.output
    (published / ".git" / "info" / "exclude").write_text("*.json\n")  # after the add
    found = _ki119(check_ignored(Store(published)))
    untracked = git(published, "ls-files", "--others", "store").split()
    reported = [f for f, _, _ in found]  # a directory ignored whole is one (git's --directory)
    json_files = [p for p in untracked if p.endswith(".json")]
    assert json_files and all(any(p == f or p.startswith(f"{f}/") for f in reported)
                              for p in json_files)
    assert not any(p.startswith(f"{f}/") or p == f for f in reported for p in untracked
                   if not p.endswith(".json"))  # the names file is not ignored
    assert found and all(m.startswith("git ignores this and no commit holds it: `git add "
                                      "store` leaves it out") for _, _, m in found)
    result = runner.invoke(main, ["--store", str(published), "verify"])
    assert result.exit_code == 1
    assert "error KI119 gitignore-store: git ignores this" in result.output
    (published / ".git" / "info" / "exclude").write_text("")
    assert _ki119(check_ignored(Store(published))) == []


BIG = b"/build/\n" * (131072 + 1)  # 1,048,584 bytes: past the 1 MiB kistore reads
TOO_BIG = ("the file holds 1,048,584 bytes, more than the 1,048,576 kistore reads of a "
           ".gitignore: whether a line of it ignores store paths is not known")


def test_a_gitignore_past_1_mib_is_not_read_whole_and_says_so(published, runner):
    # review leftover of int83: the gate read a pull request's .gitignore with no cap
    commit = _with_file(published, "", b".gitignore", BIG)
    assert _ki119(gate.check_range(Store(published), f"{commit}^..{commit}")) == [
        (".gitignore", None, TOO_BIG)]
    at = runner.invoke(main, ["--store", str(published), "verify", "--at", commit])
    assert f".gitignore: error KI119 gitignore-store: {TOO_BIG}" in at.output
    (published / ".gitignore").write_bytes(BIG)
    assert _ki119(check_ignored(Store(published))) == [(".gitignore", None, TOO_BIG)]
    (published / ".gitignore").write_bytes(BIG[:1048576])  # exactly the limit: read
    assert _ki119(check_ignored(Store(published))) == []
