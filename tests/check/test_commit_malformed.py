"""KI225: a commit libgit2 cannot parse, or whose headers git's fsck refuses (reviewer r82 F1).

``git hash-object -t commit --literally`` writes a commit with no ``author`` line, or with
``committer`` before ``author`` (git fsck ``missingAuthor``); libgit2, which kistore reads
history with, fails every lookup and walk through it. ``check main..pr`` said "no commit
named 'pr' in this repository", pre-receive "internal error (InvalidError: ... failed to
parse signature)", and once such a commit was in a history, ``verify``, ``export`` and the
site stopped with an internal error on every run. Now the gate and ``verify`` report KI225
naming the commit and what is wrong (exit 1); ``export`` and ``site build`` stop with that
said (exit 1). A commit whose last header line has no line end (``unterminatedHeader``),
which libgit2 parses, is KI225 at the gate too.

Reviewer r84 F4: an author or committer date of 20 digits (git fsck ``badDateOverflow``:
libgit2's "invalid Unix timestamp") did the same, and a ``parent`` line naming a tree
(libgit2 parses the commit, its walk fails: "object is no commit object") stopped
``check`` and ``verify --at`` with an internal error. Both are KI225 now.
"""

from __future__ import annotations

import subprocess
import time

import pytest

from kistore.check.gate import check_updates
from kistore.cli import main as cli
from kistore.store import Store

from ..conftest import git
from .test_tree_entries_gate import KISTORE, _server_and_clone

NO_AUTHOR = ("it has no author line after its tree and parent lines (`committer t <t@x> "
             "1700000000 +0000` there), where git writes `author NAME <EMAIL> SECONDS +ZONE` "
             "(git fsck: missingAuthor; its message: \"{subject}\")")


def literally(repo, *headers: str, message: bytes = b"\nbuild: tidy\n") -> str:
    """Write a commit of ``headers`` on HEAD (its tree and parent first) as git would not."""
    tree, parent = (git(repo, "rev-parse", rev).strip() for rev in ("HEAD^{tree}", "HEAD"))
    data = "".join(f"{line}\n" for line in (f"tree {tree}", f"parent {parent}", *headers))
    done = subprocess.run(["git", "hash-object", "-t", "commit", "-w", "--literally",
                           "--stdin"], cwd=repo, input=data.encode() + message,
                          capture_output=True, check=True)
    return done.stdout.decode().strip()


COMMITTER = "committer t <t@x> 1700000000 +0000"
AUTHOR = "author t <t@x> 1700000000 +0000"
OVERFLOW = "99999999999999999999 +0000"  # reviewer r84 F4's date
OVERFLOWS = ("its {who} line (line {line}) has a date libgit2 cannot read (`" + OVERFLOW
             + "`): past 9223372036854775807 s since the epoch, the most a signed 64-bit "
             "number holds (git fsck: badDateOverflow; its message: \"build: tidy\")")


@pytest.mark.parametrize("headers, subject", [
    ((COMMITTER,), "build: tidy"),  # no author line
    ((COMMITTER, AUTHOR), "build: tidy"),  # committer before author
], ids=["no-author", "committer-first"])
@pytest.mark.parametrize("packed", [False, True], ids=["loose", "packed"])
def test_check_and_pre_receive_name_the_commit(published, runner, monkeypatch, headers,
                                                subject, packed):
    base = git(published, "rev-parse", "HEAD").strip()
    bad = literally(published, *headers)
    git(published, "branch", "pr", bad)
    if packed:  # read through the pack, where libgit2's lookup failed first
        git(published, "repack", "-adq")
    monkeypatch.chdir(published)
    done = runner.invoke(cli, ["check", "HEAD..pr"])
    assert done.exit_code == 1, done.output
    said = (f"(store): error KI225 commit-malformed: commit {bad} cannot be read by libgit2: "
            + NO_AUTHOR.format(subject=subject) + "; the history holding it cannot be "
            "walked, so nothing of it was checked")
    assert said in done.output
    assert "no commit named" not in done.output and "internal error" not in done.output
    assert "FAILED: HEAD..pr: 1 error, 0 warnings, 0 info" in done.output
    # pre-receive: the hook's `check --updates -`, and a commit on top of the bad one
    top = subprocess.run(["git", "commit-tree", "-p", bad, "-m", "on top",
                          git(published, "rev-parse", "HEAD^{tree}").strip()], cwd=published,
                         capture_output=True, text=True, check=True).stdout.strip()
    for new in (bad, top):
        done = runner.invoke(cli, ["check", "--updates", "-"],
                             input=f"{base} {new} refs/heads/main\n")
        assert done.exit_code == 1, done.output
        assert said in done.output
        assert "internal error" not in done.output
    [finding] = check_updates(Store(published), [(base, top, "refs/heads/main")])
    assert (finding.rule.id, finding.extra) == ("KI225", {"commit": bad})


def test_a_header_with_no_line_end_is_refused_too(published, runner, monkeypatch):
    """libgit2 parses it (its message is empty); git fsck refuses it: unterminatedHeader."""
    bad = literally(published, AUTHOR, COMMITTER, message=b"msg")
    git(published, "branch", "pr", bad)
    monkeypatch.chdir(published)
    done = runner.invoke(cli, ["check", "HEAD..pr"])
    assert done.exit_code == 1, done.output
    assert (f"(store): error KI225 commit-malformed: commit {bad} (\"no message\"): its last "
            "header line has no line end (and there is no blank line before a message) "
            "(git fsck: unterminatedHeader)") in done.output
    # a commit of headers only, ending in a line end, is as git fsck accepts it (dated now:
    # KI428 holds a committer date to its parent's)
    now = int(time.time())
    clean = literally(published, f"author t <t@x> {now} +0000", f"committer t <t@x> {now} +0000",
                      message=b"")
    git(published, "branch", "-f", "pr", clean)
    done = runner.invoke(cli, ["check", "HEAD..pr"])
    assert done.exit_code == 0, done.output


@pytest.mark.parametrize("headers, what", [
    ((COMMITTER,), NO_AUTHOR.format(subject="build: tidy")),
    ((AUTHOR, f"committer t <t@x> {OVERFLOW}"), OVERFLOWS.format(who="committer", line=4)),
], ids=["no-author", "committer-date-overflow"])
def test_a_history_holding_one_verify_says_so_export_and_site_stop_saying_it(
        published, runner, monkeypatch, tmp_path, headers, what):
    bad = literally(published, *headers)
    git(published, "update-ref", "HEAD", bad)  # landed without the gate
    git(published, "commit", "-q", "--allow-empty", "--no-verify", "-m", "later")
    monkeypatch.chdir(published)
    done = runner.invoke(cli, ["verify"])
    assert done.exit_code == 1, done.output
    assert (f"error KI225 commit-malformed: commit {bad} cannot be read by libgit2: "
            + what) in done.output
    assert "internal error" not in done.output
    run = "BenchmarkRun/sol-submission-20464"
    for args in (["export", str(tmp_path / "out")], ["site", "build", str(tmp_path / "site")],
                 ["attestations", run], ["cite", "--at", "HEAD", run],
                 ["show", "--at", "HEAD", run]):
        done = runner.invoke(cli, args)
        assert done.exit_code == 1, (args, done.output)
        assert (f"error: commit {bad} cannot be read by libgit2, which kistore reads history "
                "with: " + what) in done.output, args
        assert "internal error" not in done.output
    # cite and show of the work tree read history through `git log`, which reads it
    git(published, "remote", "add", "origin", "https://github.com/o/r")  # cite's permalink
    for args in (["cite", run], ["show", run]):
        done = runner.invoke(cli, args)
        assert done.exit_code == 0, (args, done.output)


@pytest.mark.parametrize("who, line", [("committer", 4), ("author", 3)])
def test_an_overflowing_date_is_refused_by_check_and_the_pre_receive_hook(
        published, runner, monkeypatch, tmp_path, who, line):
    """Reviewer r84 F4: "no commit named 'pr'" from check, an internal error at pre-receive."""
    headers = (AUTHOR, f"committer t <t@x> {OVERFLOW}") if who == "committer" else (
        f"author t <t@x> {OVERFLOW}", COMMITTER)
    base = git(published, "rev-parse", "HEAD").strip()
    bad = literally(published, *headers)
    git(published, "branch", "pr", bad)
    said = (f"error KI225 commit-malformed: commit {bad} cannot be read by libgit2: "
            + OVERFLOWS.format(who=who, line=line) + "; the history holding it cannot be "
            "walked, so nothing of it was checked")
    monkeypatch.chdir(published)
    for args, stdin in ((["check", "HEAD..pr"], None),
                        (["check", "--updates", "-"], f"{base} {bad} refs/heads/main\n")):
        done = runner.invoke(cli, args, input=stdin)
        assert done.exit_code == 1, done.output
        assert f"(store): {said}" in done.output
        assert "no commit named" not in done.output and "internal error" not in done.output
    # the hook of a bare server, through a real push (git's client sends the commit as is)
    monkeypatch.setenv("KISTORE", KISTORE)
    server, clone = _server_and_clone(published, tmp_path)
    bad = literally(clone, *headers)
    pushed = subprocess.run(["git", "push", "origin", f"{bad}:refs/heads/main"], cwd=clone,
                            capture_output=True, text=True)
    assert pushed.returncode != 0
    assert f"remote: (store): {said}" in pushed.stderr
    assert "pre-receive hook declined" in pushed.stderr
    assert git(server, "rev-parse", "refs/heads/main").strip() == base


def _tree_parent(repo, tree: str) -> str:
    """A commit of HEAD's tree whose parent line names ``tree`` (git cannot push it)."""
    head = git(repo, "rev-parse", "HEAD^{tree}").strip()
    data = f"tree {head}\nparent {tree}\n{AUTHOR}\n{COMMITTER}\n\nbuild: tidy\n"
    return subprocess.run(["git", "hash-object", "-t", "commit", "-w", "--literally", "--stdin"],
                          cwd=repo, input=data.encode(), capture_output=True, check=True
                          ).stdout.decode().strip()


@pytest.mark.parametrize("loose", [False, True], ids=["packed-tree", "loose-tree"])
def test_a_parent_line_naming_a_tree_is_ki225(published, runner, monkeypatch, tmp_path, loose):
    """Reviewer r84 F4: an internal error ("object is no commit object") in check, verify --at."""
    base = git(published, "rev-parse", "HEAD").strip()
    tree = git(published, "rev-parse", "HEAD^{tree}").strip()
    git(published, "repack", "-adq")  # HEAD's tree: packed
    if loose:  # a tree of its own, written now: a loose object
        tree = subprocess.run(["git", "mktree"], cwd=published, input=f"040000 tree {tree}\tx\n",
                              capture_output=True, text=True, check=True).stdout.strip()
    assert (published / ".git/objects" / tree[:2] / tree[2:]).exists() is loose
    bad = _tree_parent(published, tree)
    what = (f"commit {bad} cannot be read by libgit2: its parent line names {tree}, which is "
            "a tree, not a commit (git: \"bad parent\"; its message: \"build: tidy\")")
    monkeypatch.chdir(published)
    for args, stdin in ((["check", f"HEAD..{bad}"], None), (["verify", "--at", bad], None),
                        (["verify", "--at", f"{bad}~1"], None),
                        (["check", "--updates", "-"], f"{base} {bad} refs/heads/main\n")):
        done = runner.invoke(cli, args, input=stdin)
        assert done.exit_code == 1, (args, done.output)
        assert f"(store): error KI225 commit-malformed: {what}; the history" in done.output
        assert "internal error" not in done.output
    for args in (["export", "--at", bad, str(tmp_path / "out")],
                 ["site", "build", "--at", bad, str(tmp_path / "site")]):
        done = runner.invoke(cli, args)
        assert done.exit_code == 1, (args, done.output)
        assert f"error: {what.replace(': its', ', which kistore reads history with: its')}" \
            in done.output, args
    [finding] = check_updates(Store(published), [(base, bad, "refs/heads/main")])
    assert (finding.rule.id, finding.extra) == ("KI225", {"commit": bad})


def test_a_parent_line_in_the_message_is_no_parent(published, runner, monkeypatch):
    """The history walk read ``parent <id>`` lines anywhere in a commit, its message too:
    one naming an object this repository lacks made ``check`` call the history damaged."""
    now = int(time.time())
    ok = literally(published, f"author t <t@x> {now} +0000", f"committer t <t@x> {now} +0000",
                   message=b"\nbuild: tidy\n\nparent " + b"1" * 40 + b"\n")
    git(published, "branch", "pr", ok)
    monkeypatch.chdir(published)
    done = runner.invoke(cli, ["check", "HEAD..pr"])
    assert done.exit_code == 0, done.output


def test_the_gate_splits_each_commit_of_the_range_once(published, monkeypatch):
    """KI225 and KI428 take one :func:`header` per commit (each read it before r84)."""
    from kistore.check import _dates, gate

    now = int(time.time())
    first = literally(published, f"author t <t@x> {now} +0000", f"committer t <t@x> {now} +0000")
    git(published, "update-ref", "refs/heads/pr", first)
    git(published, "checkout", "-q", "pr")
    git(published, "commit", "-q", "--allow-empty", "--no-verify", "-m", "second")
    split, real = [], gate.header
    monkeypatch.setattr(gate, "header", lambda raw: split.append(raw) or real(raw))
    monkeypatch.setattr(_dates, "header", lambda raw: pytest.fail("KI428 split a commit again"))
    base = git(published, "rev-parse", "main").strip()
    assert gate.check_range(Store(published), f"{base}..pr") == []
    assert len(split) == 2
