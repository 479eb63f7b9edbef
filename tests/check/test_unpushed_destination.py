"""``check --unpushed``: the remote branch a push updates, and a stale copy of the remote's main.

push99 left two things (hist00): ``--unpushed`` took every branch as pushed to the
remote's branch of its own name, so a branch pushed to its configured upstream of another
name (``push.default=upstream``) was judged as a new ref, from the remote's main; and the
base of a new or force-pushed ref came from ``refs/remotes/REMOTE/main`` as last fetched:
when the remote's main had moved since (a pull request merged meanwhile), the hook judged
from the old copy and said ok where the remote's ``pre-receive`` refuses (KI425, fresh99
H1). Now the upstream is read, and a base taken from a copy fetched before the branch's
newest commit is said (KI433), with ``git fetch REMOTE`` first.
"""

from __future__ import annotations

import datetime as dt
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pygit2
from click.testing import CliRunner

from kistore.check._rules import OBJECT_DIGEST_MISMATCH
from kistore.check.gate import check_updates
from kistore.check.reach import push_destination
from kistore.check.unpushed import RefVerdict, push_advice, unpushed_refs
from kistore.cli import main as cli
from kistore.core.findings import Finding
from kistore.store import Store

from ..conftest import git
from .test_pr_sequences import main as main  # noqa: F401 - the fixture
from .test_pr_sequences import merge_dated, pr
from .test_push_base import commit

KISTORE = str(Path(sys.executable).with_name("kistore"))
ROOT = Path(__file__).resolve().parents[2]


def _check(path: Path, *args: str):
    return CliRunner().invoke(cli, ["--store", str(path), "check", *args])


def test_a_branch_is_judged_as_pushed_to_its_configured_upstream(tmp_path):
    """`work` tracks server/feature under push.default=upstream: `git push` updates
    feature, so its push is feature's fast-forward, judged from feature's tip (it was
    judged as a new ref, from main); under git's default it goes to `work`, a new ref."""
    path = tmp_path / "clone"
    git(tmp_path, "init", "-q", "-b", "main", str(path))
    git(tmp_path, "init", "-q", "--bare", str(tmp_path / "server.git"))
    git(path, "remote", "add", "server", str(tmp_path / "server.git"))
    m0 = commit(path, "m0")
    git(path, "checkout", "-q", "-b", "feature")
    f1 = commit(path, "f1")
    git(path, "push", "-q", "--no-verify", "server", "main", "feature")
    git(path, "checkout", "-q", "-b", "work", "--track", "server/feature")
    w1 = commit(path, "w1")
    repo = pygit2.Repository(str(path))
    assert push_destination(repo, "work", "server") == "refs/heads/work"  # simple: own name
    [entry] = [e for e in unpushed_refs(Store(path), "server") if e.ref == "refs/heads/work"]
    assert (entry.base, entry.first) == (m0, w1)  # a new ref: from where it leaves main
    git(path, "config", "push.default", "upstream")
    assert push_destination(pygit2.Repository(str(path)), "work", "server") == \
        "refs/heads/feature"
    [entry] = [e for e in unpushed_refs(Store(path), "server") if e.ref == "refs/heads/work"]
    assert (entry.base, entry.tip, entry.first, entry.stale) == (f1, w1, w1, None)
    # git agrees: a bare `git push` updates feature, not work
    git(path, "push", "-q", "--no-verify", "server")
    assert git(tmp_path / "server.git", "rev-parse", "refs/heads/feature").strip() == w1
    assert "refs/heads/work" not in git(tmp_path / "server.git", "for-each-ref")
    # `git push server work` maps it to its upstream whichever remote that tracks (hist01:
    # git's map_refspec does not ask; test_push_destination compares each setting with git)
    git(path, "config", "branch.work.remote", "elsewhere")
    assert push_destination(pygit2.Repository(str(path)), "work", "server") == \
        "refs/heads/feature"


def stale_release(main, kit, tmp_path: Path) -> tuple[Path, Path, str, str]:
    """fresh99 H1 with a stale copy of main: prA's merge is the server's main (its
    pre-receive installed), this clone's refs/remotes/server/main says main before it (m0);
    the checked-out `release`, on prA's merge, merges prB (the same run, committed
    earlier), committed after that fetch. Return (the clone, the server, m0, release)."""
    path = main["path"]
    server = tmp_path / "server.git"
    git(tmp_path, "init", "-q", "--bare", str(server))
    git(path, "remote", "add", "server", str(server))
    run = kit.run(main["protocol"], main["env"], main["impl"], main["workload"],
                  latency=10_000, name="samerun")
    pr(path, "prB", [run], "2026-02-01T00:00:00Z")  # committed first
    pr(path, "prA", [run], "2026-03-01T00:00:00Z")
    git(path, "push", "-q", "--no-verify", "server", "main")
    m0 = git(path, "rev-parse", "main").strip()
    merged = merge_dated(path, "prA", "2026-04-01T00:00:00Z")
    git(path, "push", "-q", "--no-verify", "server", "main")  # the server's main: prA merged
    shutil.copy(ROOT / "hooks" / "pre-receive", server / "hooks" / "pre-receive")
    # this clone's copy of the server's main as an earlier fetch left it (prA's merge
    # reached the server from elsewhere), and its main as it was then
    (path / ".git" / "logs" / "refs" / "remotes" / "server" / "main").unlink()
    (path / ".git" / "FETCH_HEAD").unlink(missing_ok=True)
    subprocess.run(["git", "update-ref", "refs/remotes/server/main", m0], cwd=path, check=True,
                   env={**os.environ, "GIT_COMMITTER_DATE": "2026-04-01T12:00:00Z"})
    # a branch on prA's merge (got some other way) merging prB, committed after that fetch
    git(path, "checkout", "-q", "-b", "release", merged)
    git(path, "branch", "-f", "main", m0)
    new = merge_dated(path, "prB", dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"))
    return path, server, m0, new


def test_a_stale_remote_main_is_said_and_after_the_fetch_the_moved_citation_is_refused(
        main, kit, tmp_path, monkeypatch):
    """fresh99 H1 with a stale copy of main: prA's merge reached the server's main, this
    clone's refs/remotes/server/main still says main before it. A new branch merging prB
    (the same run, committed earlier) on top was judged from the old main, the first merge
    inside the range: ok, while pre-receive measures from the real main and refuses KI425.
    The check now says KI433 and `git fetch server`; after it, KI425, as the server says."""
    monkeypatch.setenv("KISTORE", KISTORE)
    path, server, m0, new = stale_release(main, kit, tmp_path)

    result = _check(path, "--unpushed", "server")
    assert result.exit_code == 0, result.output  # judged from the stale main: no KI425
    assert "KI425" not in result.output
    assert "warning KI433 remote-main-may-be-stale: refs/heads/release is judged from " \
        f"{m0[:12]}, where it leaves refs/remotes/server/main, this repository's copy of " \
        "server's main as last fetched, before refs/heads/release's newest commit: " \
        "server's main may have moved since (a pull request merged meanwhile), and its " \
        "pre-receive judges the push from where it is now; run `git fetch server` first, " \
        "then check again" in " ".join(result.output.split()), result.output
    # the push itself: the server's pre-receive measures from its real main
    pushed = git_push(path, "server", "release")
    assert pushed.returncode != 0 and "KI425" in pushed.stderr, pushed.stderr
    # the advice, as printed
    git(path, "fetch", "-q", "server")
    result = _check(path, "--unpushed", "server")
    assert result.exit_code == 1 and "KI425" in result.output, result.output
    assert "KI433" not in result.output
    found = [e for e in unpushed_refs(Store(path), "server") if e.ref == "refs/heads/release"]
    assert [(e.base, e.tip, e.stale) for e in found] == [
        (git(server, "rev-parse", "main").strip(), new, None)]


def git_push(path: Path, remote: str, ref: str) -> subprocess.CompletedProcess:
    """``git push REMOTE REF`` (hooks run), its output kept."""
    return subprocess.run(["git", "push", remote, f"{ref}:refs/heads/{ref}"], cwd=path,
                          capture_output=True, text=True)


def test_the_closing_note_agrees_with_one_or_more_clean_refs():
    """fresh00b LOW: three clean refs "carry no error but waits for it"; now "wait"."""
    bad = RefVerdict("refs/heads/bad", "0" * 40, [Finding(OBJECT_DIGEST_MISMATCH, "edited")])
    clean = [RefVerdict(f"refs/heads/c{i}", "1" * 40, []) for i in range(3)]
    many = push_advice([bad, *clean], "origin") or ""
    assert "; refs/heads/c0, refs/heads/c1, refs/heads/c2 carry no error but wait for it; " \
        "fix it as" in many
    one = push_advice([bad, clean[0]], "origin") or ""
    assert "; refs/heads/c0 carries no error but waits for it; fix it as" in one


def rel_off_main(tmp_path: Path, *start: str) -> tuple[Path, str, str]:
    """A store's clone of server.git whose main (m0, m1) is pushed and fetched, and branch
    `rel` (made from ``start``, then reset to main~1) holding one commit r1; return (the
    clone, m1, r1)."""
    path = tmp_path / "clone"
    made = CliRunner().invoke(cli, ["init", str(path)])
    assert made.exit_code == 0, made.output
    git(tmp_path, "init", "-q", "--bare", str(tmp_path / "server.git"))
    git(path, "remote", "add", "server", str(tmp_path / "server.git"))
    commit(path, "m0")
    old = commit(path, "m1")
    git(path, "push", "-q", "--no-verify", "server", "main")
    git(path, "fetch", "-q", "server")
    git(path, "checkout", "-q", "-b", "rel", *start)
    git(path, "reset", "-q", "--hard", "HEAD~1")
    return path, old, commit(path, "r1")


def test_a_non_fast_forward_of_the_remote_main_under_upstream_is_ki407_as_pre_push_says(
        tmp_path):
    """fresh00b LOW: `rel` tracks server/main under push.default=upstream, one commit on
    main~1: `git push -f server` sends it to main, which pre-push refuses as KI407;
    `check --unpushed server` said "refs/heads/rel: ok". It now says the same KI407."""
    path, old, new = rel_off_main(tmp_path, "--track", "server/main")
    git(path, "config", "push.default", "upstream")

    result = _check(path, "--unpushed", "server")

    assert result.exit_code == 1, result.output
    said = " ".join(result.output.split())
    assert f"error KI407 protected-ref-rewritten: non-fast-forward update {old[:12]}.." \
        f"{new[:12]} of refs/heads/main, where a push of refs/heads/rel goes, refused" \
        in said, result.output
    assert "refs/heads/rel: ok" not in said
    hook = check_updates(Store(path), [(old, new, "refs/heads/main")], remote="server")
    assert [f.rule.id for f in hook] == ["KI407"]  # what pre-push says of that push
    # under git's default the branch goes to its own name, a new ref: no KI407
    git(path, "config", "push.default", "simple")
    assert "KI407" not in _check(path, "--unpushed", "server").output
