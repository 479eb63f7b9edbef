"""A branch tip whose commit is gone or cut short, in the push gate and the site (robust75).

The push hooks peeled ref tips with libgit2 unguarded: a remote-tracking ref whose commit
was deleted was silently taken for no ref (the gate then measured the push against less
than the remote holds), one cut short hung the pre-push hook inside libgit2, and a
protected branch whose commit was gone was "internal error" in the pre-receive gate (a
new branch's merge base, the trust of a notes push). The site read the notes tip the same
way. Each is now one line naming the ref and the object, what to do, and a non-zero exit.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from ..conftest import BUNDLE, ROOT, git
from .test_missing_git_object import MISSING, delete
from .test_truncated_loose_object import LIMIT, cut

ZERO = "0" * 40
KISTORE = str(Path(sys.executable).with_name("kistore"))


def kistore(root: Path, *args: str, stdin: str = "") -> tuple[int | None, str]:
    """Run ``python -m kistore --store ROOT ARGS`` fed ``stdin``: (status, stdout + stderr).

    Status None: still running after :data:`LIMIT` seconds (then its session is killed).
    """
    child = subprocess.Popen([sys.executable, "-m", "kistore", "--store", str(root), *args],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        out, err = child.communicate(stdin, timeout=LIMIT)
    except subprocess.TimeoutExpired:
        os.killpg(child.pid, signal.SIGKILL)
        out, err = child.communicate()
        return None, out + err
    return child.returncode, out + err


@pytest.fixture
def stored(store_path: Path) -> Path:
    """The published record committed on top of ``kistore init``'s commit, all loose."""
    status, said = kistore(store_path, "add", "--commit", "--allow-dangling", str(BUNDLE))
    assert status == 0, said
    return store_path


def one_clear_line(status: int | None, said: str, ref: str, oid: str) -> str:
    """Assert the command stopped, failed, and said one error naming ``ref`` and ``oid``."""
    assert status is not None, f"still ran after {LIMIT} s: {said}"
    assert status != 0, said
    assert "internal error" not in said and "Traceback" not in said, said
    errors = [line for line in said.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1, said
    assert errors[0].startswith(f"error: {ref}: git object {oid} cannot be read ("), said
    assert "`git fsck`" in errors[0], said
    return errors[0]


def side_commit(root: Path, name: str) -> str:
    """Commit a file on a new branch ``name`` off ``HEAD`` (loose); return its id."""
    git(root, "checkout", "-q", "-b", name)
    (root / f"{name}.txt").write_text(f"{name}\n")
    git(root, "add", f"{name}.txt")
    git(root, "-c", "core.hooksPath=/dev/null", "commit", "-q", "-m", name)
    oid = git(root, "rev-parse", "HEAD").strip()
    git(root, "checkout", "-q", "main")
    return oid


DAMAGE = {"deleted": (delete, MISSING), "cut": (cut, "its loose object file is cut short")}


@pytest.mark.parametrize("damage", sorted(DAMAGE))
@pytest.mark.parametrize("how", ["--updates", "--unpushed"])
def test_a_remote_tracking_tip_gone_or_cut_stops_the_pre_push_gate(stored, damage, how):
    tip = side_commit(stored, "seen")
    git(stored, "update-ref", "refs/remotes/origin/seen", tip)
    git(stored, "branch", "-q", "-D", "seen")
    git(stored, "remote", "add", "origin", str(stored))
    hurt, reason = DAMAGE[damage]
    hurt(stored, tip)
    head = git(stored, "rev-parse", "HEAD").strip()
    args = ["--updates", "-", "--remote=origin"] if how == "--updates" else ["--unpushed",
                                                                              "origin"]
    status, said = kistore(stored, "check", *args, stdin=f"{ZERO} {head} refs/heads/main\n")
    line = one_clear_line(status, said, "refs/remotes/origin/seen", tip)
    assert reason in line
    if damage == "deleted":
        assert ("though refs/remotes/origin/seen points at it; it only says what the remote "
                "held: `git update-ref -d refs/remotes/origin/seen`, then `git fetch`, sets "
                "it again") in line


@pytest.mark.parametrize("pushed", ["a new branch", "the notes"])
def test_a_protected_branch_whose_commit_is_gone_stops_the_pre_receive_gate(
        stored, tmp_path, pushed):
    head = git(stored, "rev-parse", "HEAD").strip()
    git(stored, "checkout", "-q", "HEAD~1")  # the new branch starts off main's parent
    git(stored, "checkout", "-q", "-b", "main2")
    feature = side_commit(stored, "feature")  # (back on main)
    if pushed == "the notes":
        key = tmp_path / "key"
        for args in (["key", "generate", str(key)],
                     ["attest", "BenchmarkRun/sol-submission-20464", "--type", "reproduction",
                      "--key", str(key)]):
            assert kistore(stored, *args)[0] == 0
        line = f"{ZERO} {git(stored, 'rev-parse', 'refs/notes/kistore').strip()} " \
               "refs/notes/kistore\n"
    else:
        line = f"{ZERO} {feature} refs/heads/feature\n"
    delete(stored, head)  # main's commit: gone
    status, said = kistore(stored, "check", "--updates", "-", stdin=line)
    error = one_clear_line(status, said, "refs/heads/main", head)
    assert f"{MISSING}, though refs/heads/main points at it)" in error


def test_a_real_pre_push_hook_refuses_with_the_damaged_ref_named(stored, tmp_path):
    server = tmp_path / "server.git"
    git(tmp_path, "clone", "-q", "--bare", str(stored), str(server))
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "--no-local", str(server), str(clone))
    shutil.copy(ROOT / "hooks" / "pre-push", clone / ".git" / "hooks" / "pre-push")
    tip = side_commit(clone, "seen")
    git(clone, "update-ref", "refs/remotes/origin/seen", tip)
    git(clone, "branch", "-q", "-D", "seen")
    delete(clone, tip)
    (clone / "more.txt").write_text("more\n")
    git(clone, "add", "more.txt")
    git(clone, "-c", "core.hooksPath=/dev/null", "commit", "-q", "-m", "more")
    before = git(server, "rev-parse", "main").strip()
    pushed = subprocess.run(["git", "push", "origin", "main"], cwd=clone, text=True,
                            capture_output=True, timeout=LIMIT,
                            env={**os.environ, "KISTORE": KISTORE})
    assert pushed.returncode != 0, pushed.stderr
    ours = "".join(line for line in pushed.stderr.splitlines(keepends=True)
                   if not line.startswith("error: failed to push"))  # git's own line
    one_clear_line(1, ours, "refs/remotes/origin/seen", tip)
    assert git(server, "rev-parse", "main").strip() == before


@pytest.mark.parametrize("damage", sorted(DAMAGE))
def test_a_notes_tip_gone_or_cut_stops_the_site_build(stored, tmp_path, damage):
    # the site peeled refs/notes/kistore unguarded: "internal error (KeyError)", or a hang
    key = tmp_path / "key"
    for args in (["key", "generate", str(key)],
                 ["attest", "BenchmarkRun/sol-submission-20464", "--type", "reproduction",
                  "--key", str(key)]):
        assert kistore(stored, *args)[0] == 0
    tip = git(stored, "rev-parse", "refs/notes/kistore").strip()
    hurt, reason = DAMAGE[damage]
    hurt(stored, tip)
    status, said = kistore(stored, "site", "build", str(tmp_path / "out"))
    assert reason in one_clear_line(status, said, "refs/notes/kistore", tip)


def test_a_pushed_tip_cut_short_is_said_not_a_hang(stored):
    # check_updates asked libgit2 whether the pushed id exists: a loop on a cut loose commit
    tip = side_commit(stored, "feature")
    cut(stored, tip)
    status, said = kistore(stored, "check", "--updates", "-",
                           stdin=f"{ZERO} {tip} refs/heads/feature\n")
    line = one_clear_line(status, said, "refs/heads/feature", tip)
    assert "its loose object file is cut short" in line
