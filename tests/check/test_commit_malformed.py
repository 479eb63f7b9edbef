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
"""

from __future__ import annotations

import subprocess
import time

import pytest

from kistore.check.gate import check_updates
from kistore.cli import main as cli
from kistore.store import Store

from ..conftest import git

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


def test_a_history_holding_one_verify_says_so_export_and_site_stop_saying_it(
        published, runner, monkeypatch, tmp_path):
    bad = literally(published, COMMITTER)
    git(published, "update-ref", "HEAD", bad)  # landed without the gate
    git(published, "commit", "-q", "--allow-empty", "--no-verify", "-m", "later")
    monkeypatch.chdir(published)
    done = runner.invoke(cli, ["verify"])
    assert done.exit_code == 1, done.output
    assert (f"error KI225 commit-malformed: commit {bad} cannot be read by libgit2: "
            + NO_AUTHOR.format(subject="build: tidy")) in done.output
    assert "internal error" not in done.output
    for args in (["export", str(tmp_path / "out")], ["site", "build", str(tmp_path / "site")]):
        done = runner.invoke(cli, args)
        assert done.exit_code == 1, (args, done.output)
        assert (f"error: commit {bad} cannot be read by libgit2, which kistore reads history "
                "with: " + NO_AUTHOR.format(subject="build: tidy")) in done.output, args
        assert "internal error" not in done.output
