"""What a push's refusal tells the pusher (break96 M5, L5, L4).

* M5: ``pre-receive`` refusing because the server's own copy of a commit is damaged said
  "the repository is damaged ... restore them from another clone or the remote (e.g. clone
  again ...)": the pusher's clone is whole, and the remote is the damaged one. It now says
  it is the server's copy and that its operator repairs it
  (:func:`kistore.git.quarantine.received_damage`); a damaged object the push brought is
  said otherwise.
* L5: with two pushed refs failing, the findings did not say which ref carries each.
* L4: ``kistore notes rebase nosuch`` printed git's "does not appear to be a git
  repository ... access rights" alone.
"""

from __future__ import annotations

import os
import subprocess
import sys
import zlib
from pathlib import Path

import pytest
from click.testing import CliRunner

from kistore.cli import main
from kistore.git import quarantine
from kistore.git.blobs import ObjectUnreadable

from ..conftest import git
from .test_tree_entries_gate import _server_and_clone

KISTORE = str(Path(sys.executable).with_name("kistore"))


@pytest.fixture
def server(published: Path, tmp_path: Path) -> tuple[Path, Path]:
    """A bare server with hooks/pre-receive, and a clone of it (no local hook)."""
    return _server_and_clone(published, tmp_path)


def commit(clone: Path, name: str, date: str | None = None) -> str:
    """Commit a file ``name`` (outside store/), dated ``date`` if given; return its id."""
    (clone / name).write_text(f"{name}\n")
    git(clone, "add", name)
    dated = {"GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date} if date else {}
    subprocess.run(["git", "commit", "-q", "--no-verify", "-m", name], cwd=clone, check=True,
                   env={**os.environ, **dated})
    return git(clone, "rev-parse", "HEAD").strip()


def push(clone: Path, *refspecs: str) -> subprocess.CompletedProcess[str]:
    """``git push origin REFSPECS`` from ``clone``, the server's hook running this kistore."""
    return subprocess.run(["git", "push", "origin", *refspecs], cwd=clone, text=True,
                          capture_output=True, env={**os.environ, "KISTORE": KISTORE})


def test_the_server_s_damaged_copy_is_said_as_the_server_s_to_repair(server):
    bare, clone = server
    git(clone, "checkout", "-q", "-b", "deep")
    below = commit(clone, "one.txt")
    commit(clone, "two.txt")
    assert push(clone, "deep").returncode == 0
    loose = bare / "objects" / below[:2] / below[2:]  # unpacked by the push: loose
    data = loose.read_bytes()
    assert zlib.decompress(data)
    loose.chmod(0o644)
    loose.write_bytes(data[:20])  # the server's copy cut short
    git(clone, "checkout", "-q", "-b", "deep2")
    commit(clone, "three.txt")
    pushed = push(clone, "deep2")
    assert pushed.returncode != 0, pushed.stderr
    # git's own connectivity check says its words too; the hook's line (git pads it)
    errors = [line.rstrip() for line in pushed.stderr.splitlines()
              if line.startswith("remote: error: git object")]
    assert errors == [
        f"remote: error: git object {below} cannot be read in the receiving repository, the "
        "server's own copy (checking the push to refs/heads/deep2) (its loose object file is "
        "cut short: the compressed data ends early): the server's repository is damaged, "
        "not what this push brings, and nothing in the pushing clone can repair it. The "
        "server's operator runs `git fsck` in the server's repository to list every damaged "
        "object and restores each from a clone that has it (the object's loose file or pack "
        "copied into the server's objects directory, in place of the damaged file); then "
        "push again"], pushed.stderr
    assert "clone again" not in pushed.stderr


def test_a_damaged_object_the_push_brings_is_said_as_the_pusher_s(tmp_path, monkeypatch):
    oid = "ab" * 20
    error = ObjectUnreadable(oid, "its loose object file is cut short")
    assert quarantine.received_damage(error, ["refs/heads/a"]) is error  # not in a hook
    incoming = tmp_path / "incoming"
    (incoming / "ab").mkdir(parents=True)
    monkeypatch.setenv("GIT_QUARANTINE_PATH", str(incoming))
    said = quarantine.received_damage(error, ["refs/heads/a"])
    assert isinstance(said, ObjectUnreadable) and not said.pushed
    assert "the server's own copy (checking the push to refs/heads/a)" in said.message
    (incoming / "ab" / oid[2:]).write_bytes(b"x")  # the push brought it
    said = quarantine.received_damage(error, ["refs/heads/a", "refs/heads/b"])
    assert said.message == (
        f"git object {oid}, which this push brings, cannot be read (checking the push to "
        "refs/heads/a, refs/heads/b) (its loose object file is cut short): the pushing "
        "clone's copy is damaged. Run `git fsck` there to list every damaged object, "
        "restore them from another clone, and push again")


def test_two_refs_failing_each_finding_names_its_ref(server):
    bare, clone = server
    git(clone, "checkout", "-q", "-b", "pa")
    ahead = commit(clone, "a.txt", date="2099-01-01T00:00:00Z")  # KI428
    git(clone, "checkout", "-q", "main")
    git(clone, "checkout", "-q", "-b", "pb")
    behind = commit(clone, "b.txt", date="1999-01-01T00:00:00Z")  # KI428 (c)
    pushed = push(clone, "pa", "pb")
    assert pushed.returncode != 0
    said = [line for line in pushed.stderr.splitlines() if "error KI428" in line]
    assert len(said) == 3, pushed.stderr  # pa: author and committer; pb: committer
    assert sum(f": refs/heads/pa: commit {ahead[:12]}: its " in line for line in said) == 2
    assert sum(f": refs/heads/pb: commit {behind[:12]}: its " in line for line in said) == 1
    # one fix (both branch from main): said for both refs
    fixes = [line for line in pushed.stderr.splitlines() if "fix KI428" in line]
    assert [fix.split(": make")[0] for fix in fixes] == [
        "remote: fix KI428 (3 findings): for refs/heads/pa, refs/heads/pb"], pushed.stderr


def test_two_refs_fixes_each_say_whose(server):
    """break97 L3: ``fix KI432 (2 findings): (1) ...; (2) ...`` for a push of two refs
    did not say which ref each numbered fix (each naming its own base) is for."""
    _bare, clone = server
    git(clone, "checkout", "-q", "-b", "pa")
    landed = commit(clone, "a0.txt")
    assert push(clone, "pa").returncode == 0  # pa's range now starts at landed
    commit(clone, "a.txt", date="2099-01-01T00:00:00Z")
    git(clone, "checkout", "-q", "main")
    base = git(clone, "rev-parse", "HEAD").strip()
    git(clone, "checkout", "-q", "-b", "pb")
    commit(clone, "b.txt", date="2099-01-01T00:00:00Z")
    pushed = push(clone, "pa", "pb")
    assert pushed.returncode != 0
    fixes = [line.rstrip() for line in pushed.stderr.splitlines() if "fix KI428" in line]
    assert len(fixes) == 1, pushed.stderr
    first, second = fixes[0].split("; (2) ")
    assert first.startswith("remote: fix KI428 (4 findings): (1) for refs/heads/pa: make "
                            "the commit again"), fixes
    assert f"--ignore-date {landed}`" in first, fixes
    assert second.startswith("for refs/heads/pb: make the commit again"), fixes
    assert f"--ignore-date {base}`" in second, fixes


def test_one_ref_failing_is_said_as_before(server):
    _bare, clone = server
    git(clone, "checkout", "-q", "-b", "pa")
    ahead = commit(clone, "a.txt", date="2099-01-01T00:00:00Z")
    said = push(clone, "pa").stderr
    assert f"commit-date-implausible: commit {ahead[:12]}: its author date" in said, said


def test_notes_commands_name_the_remotes_for_an_unknown_one(published):
    git(published, "remote", "add", "origin", str(published))
    for command in ("fetch", "push", "rebase"):
        done = CliRunner().invoke(main, ["--store", str(published), "notes", command, "nosuch"])
        assert done.exit_code == 1, done.output
        assert done.output == (
            "error: no remote 'nosuch' in this repository (its remotes: origin): name a "
            "remote it has or a URL (`git remote -v` lists its remotes with their URLs), or "
            "add this one first (`git remote add nosuch URL`)\n"), command
    git(published, "remote", "remove", "origin")
    done = CliRunner().invoke(main, ["--store", str(published), "notes", "rebase", "nosuch"])
    assert "(it has no remote): name a remote it has or a URL" in done.output
