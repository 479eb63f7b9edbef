"""Ref and remote names that are not UTF-8, given by a person or a hook (upd98; upd97 left).

git takes a branch ``caf<0xE9>`` and a remote ``r<0xE9>``; pygit2 raises for such names
where they name nothing (``references.get``, ``lookup_reference``), for any of them in
``revparse_single``, and at such a key while iterating the configuration
(:mod:`kistore.git.names`). Each case here was an internal error or a wrong answer:

* a clone with a remote ``r<0xE9>``: every command asking whether it is a partial clone
  (``verify``, ``ls``, ``check``, the ``pre-push`` hook) stopped with "internal error
  (UnicodeDecodeError)"; ``notes fetch r<0xE9>`` too (its tracking ref, not there yet);
* ``check main..caf<0xE9>`` and ``verify --at caf<0xE9>`` said "no commit named
  'caf\\udce9'" of a branch that exists;
* ``add --commit`` on an unborn branch ``n<0xE9>`` was an internal error.

Real refs, pushed to a bare server with ``hooks/pre-receive`` from a clone with
``hooks/pre-push``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from ..conftest import EXAMPLES, git
from .test_updates_lines import commit, push
from .test_updates_lines import server as hooked_server

server = hooked_server  # the fixture: a bare server with pre-receive, a clone with pre-push

KISTORE = str(Path(sys.executable).with_name("kistore"))
BRANCH = b"caf\xe9"
REMOTE = b"r\xe9"


def kistore(where: Path, *args: bytes | str) -> tuple[int, str]:
    """Run the kistore console script in ``where``; return (exit status, all it printed)."""
    done = subprocess.run([KISTORE, *args], cwd=where, capture_output=True)
    return done.returncode, (done.stdout + done.stderr).decode("utf-8", "replace")


def test_a_remote_not_utf8_pushes_through_both_hooks_and_every_command_reads(server):
    bare, clone = server
    subprocess.run([b"git", b"remote", b"add", REMOTE, os.fsencode(bare)], cwd=clone,
                   check=True)
    commit(clone, "a.txt")
    done = push(clone, REMOTE, b"HEAD:refs/heads/" + BRANCH)  # pre-push: --remote r<0xE9>
    said = (done.stdout + done.stderr).decode("utf-8", "replace")
    assert done.returncode == 0, said
    assert "internal error" not in said, said
    # the pre-push hook's answer (the published store's KI201 warnings: never pushed to
    # r<0xE9>, checked whole), then the server's
    assert done.stdout.decode().splitlines()[-1].startswith(
        "ok: 1 ref update(s): 0 errors, "), said
    assert "remote: ok: 1 ref update(s): 0 errors, 0 warnings, 0 info" in said, said
    for command in (["verify"], ["ls"], ["check", "HEAD~1..HEAD"]):
        status, said = kistore(clone, *command)
        assert status == 0, (command, said)
    status, said = kistore(clone, "notes", "fetch", REMOTE)
    assert (status, said) == (0, "0 attestation(s) gained from r\\xe9\n"), said


def test_a_branch_not_utf8_is_a_revision_as_typed(server):
    _bare, clone = server
    base = git(clone, "rev-parse", "HEAD").strip()
    tip = commit(clone, "a.txt")
    subprocess.run([b"git", b"branch", BRANCH], cwd=clone, check=True)
    status, said = kistore(clone, "check", b"main~1.." + BRANCH)
    assert (status, said.splitlines()[-1]) == (
        0, "ok: main~1..caf\\xe9: 0 errors, 0 warnings, 0 info"), said
    status, said = kistore(clone, "verify", "--at", BRANCH + b"~1")
    assert status == 0, said
    assert said.splitlines()[-1].startswith("ok: store at caf\\xe9~1: 0 errors"), said
    assert base != tip
    status, said = kistore(clone, "verify", "--at", b"x\xff")
    assert (status, said) == (1, "error: no commit named 'x\\xff' in this repository: give a "
                                 "branch, a tag or a commit id (`git log --oneline` lists "
                                 "commits)\n")


def test_add_commit_on_an_unborn_branch_not_utf8(published, tmp_path):
    store = tmp_path / "s"
    git(tmp_path, "clone", "-q", str(published), str(store))
    subprocess.run([b"git", b"symbolic-ref", b"HEAD", b"refs/heads/n\xe9"], cwd=store,
                   check=True)
    manifest = EXAMPLES / "kernelbench-level1-1-h100-pcie.bundle.json"
    status, said = kistore(store, "add", "--commit", str(manifest))
    assert status == 0, said
    made = subprocess.run([b"git", b"rev-parse", b"refs/heads/n\xe9", b"HEAD"], cwd=store,
                          capture_output=True, check=True).stdout.split()
    assert made[0] == made[1], made
    status, said = kistore(store, "verify")
    assert status == 0, said
