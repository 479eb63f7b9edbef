"""A FIFO at a ref file git, libgit2 and kistore read is refused at once, named (fresh17 F11).

A FIFO ``.git/packed-refs`` hung every command (``ls``, ``rank``, ``verify --at HEAD``,
``notes fetch``) until killed, and a path remote's ``packed-refs`` or ``HEAD`` hung ``notes
fetch``. Each command runs as a child in its own session, killed (the whole session) after
20 s: a regression fails the test, it never hangs the suite.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import PUBLISHED, git
from tests.git.test_attr_guard import _env

RUN = PUBLISHED["run"]


def _kistore(root: Path, tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """Run ``kistore --store ROOT ARGS``; after 20 s the child and all below it are killed."""
    with subprocess.Popen([sys.executable, "-m", "kistore", "--store", str(root), *args],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          env=_env(tmp_path), cwd=root, start_new_session=True) as child:
        try:
            out, err = child.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(child.pid, signal.SIGKILL)
            child.communicate()
            pytest.fail(f"kistore {' '.join(args)} waited on the FIFO (killed after 20 s)")
    return subprocess.CompletedProcess(child.args, child.returncode, out, err)


def _fifo_at(path: Path) -> None:
    """Put a FIFO where the file ``path`` was."""
    if path.exists():
        path.unlink()
    os.mkfifo(path)


def _packed_refusal(shown: str, full: Path, whose: str, reader: str, undone: str) -> str:
    """The refusal of a FIFO ``packed-refs`` as the CLI prints it."""
    return (f"error: {shown}: {whose} packed-refs is a FIFO, not a regular file: {reader} "
            f"opens and reads it to find a branch, and would wait for ever; {undone}. Remove "
            f"it (`rm {full}`): git then reads each ref from its own file under refs/; a ref "
            "that was only packed there goes with it: put back a copy of the file if you kept "
            "one, or fetch or push its branches again, then run the command again\n")


def _head_fix(full: Path) -> str:
    """What the refusal of a FIFO ``HEAD`` says to do."""
    return (f"Write it again, a file naming the branch to check out: `rm {full} && echo "
            f"'ref: refs/heads/main' > {full}` (main, or the branch's name), then run the "
            "command again\n")


@pytest.mark.parametrize(("args", "reader", "undone"), [
    (("ls",), "kistore (as git and libgit2 do)", "nothing was read"),
    (("rank", RUN), "kistore (as git and libgit2 do)", "nothing was read"),
    (("show", RUN), "kistore (as git and libgit2 do)", "nothing was read"),
    (("verify", "--at", "HEAD"), "libgit2", "the repository was not opened"),
    (("notes", "fetch", "origin"), "libgit2", "the repository was not opened"),
])
def test_a_fifo_packed_refs_is_refused_at_once_naming_it(published, tmp_path, args, reader,
                                                        undone):
    git(tmp_path, "clone", "-q", "--bare", str(published), str(tmp_path / "srv.git"))
    git(published, "remote", "add", "origin", str(tmp_path / "srv.git"))
    git(published, "pack-refs", "--all")  # main is in packed-refs only, as after a clone
    _fifo_at(published / ".git" / "packed-refs")
    done = _kistore(published, tmp_path, *args)
    assert (done.returncode, done.stdout, done.stderr) == (1, "", _packed_refusal(
        ".git/packed-refs", published / ".git" / "packed-refs", "the repository's", reader,
        undone))


_KISTORE = ("kistore (as git and libgit2 do)", "nothing was read")
_LIBGIT2 = ("libgit2", "the repository was not opened")


@pytest.mark.parametrize(("ref", "args", "reader", "undone"), [
    ("refs/heads/main", ("ls",), *_KISTORE),  # kistore's ref reader gets there first
    ("refs/heads/main", ("verify", "--at", "HEAD"), *_LIBGIT2),
    ("refs/notes/kistore", ("ls",), *_LIBGIT2),  # read through libgit2: guarded before
    ("refs/notes/kistore", ("verify", "--at", "HEAD"), *_LIBGIT2),
])
def test_a_fifo_loose_branch_or_notes_ref_is_refused(published, tmp_path, ref, args, reader,
                                                     undone):
    full = published / ".git" / ref
    full.parent.mkdir(parents=True, exist_ok=True)
    _fifo_at(full)
    done = _kistore(published, tmp_path, *args)
    assert (done.returncode, done.stdout, done.stderr) == (1, "", (
        f"error: .git/{ref}: the repository's ref {ref} is a FIFO, not a regular file: "
        f"{reader} opens and reads it to find a branch, and would wait for ever; {undone}. "
        f"Remove it (`rm {full}`) and set the ref again (`git update-ref {ref} COMMIT`), "
        "then run the command again\n"))


def test_a_fifo_head_is_named_not_no_repository(published, tmp_path):
    # libgit2 takes the directory for no repository: said why, not "run `kistore init`"
    dotgit = Path(os.path.realpath(published)) / ".git"
    _fifo_at(dotgit / "HEAD")
    done = _kistore(published, tmp_path, "ls")
    assert (done.returncode, done.stdout, done.stderr) == (1, "", (
        f"error: {dotgit}'s HEAD is a FIFO, not a regular file: git opens and reads it to "
        "find a branch, and would wait for ever; libgit2 takes the directory for no "
        "repository, and kistore found none here. " + _head_fix(dotgit / "HEAD")))


def _remote_refusal(what: str, full: Path, served: Path) -> str:
    """The start of a remote's ref file's refusal, up to its fix."""
    return (f"error: {full}: remote origin's {what} is a FIFO, not a regular file: "
            f"git-upload-pack, which git runs in {served} for remote origin, opens and reads it "
            "to find a branch, and would wait for ever; nothing was fetched or pushed. ")


def test_a_path_remotes_fifo_packed_refs_is_refused(published, tmp_path):
    served = Path(os.path.realpath(tmp_path)) / "srv.git"
    git(tmp_path, "clone", "-q", "--bare", str(published), str(served))
    git(published, "remote", "add", "origin", str(served))
    _fifo_at(served / "packed-refs")
    before = git(published, "for-each-ref")
    done = _kistore(published, tmp_path, "notes", "fetch", "origin")
    assert (done.returncode, done.stdout, done.stderr) == (1, "", _remote_refusal(
        "packed-refs", served / "packed-refs", served) + (
        f"Remove it (`rm {served / 'packed-refs'}`): git then reads each ref from its own "
        "file under refs/; a ref that was only packed there goes with it: put back a copy of "
        "the file if you kept one, or fetch or push its branches again, then run the command "
        "again\n"))
    assert git(published, "for-each-ref") == before


def test_a_path_remotes_fifo_head_is_refused(published, tmp_path):
    served = Path(os.path.realpath(tmp_path)) / "srv"
    git(tmp_path, "clone", "-q", str(published), str(served))
    git(published, "remote", "add", "origin", str(served))
    _fifo_at(served / ".git" / "HEAD")
    done = _kistore(published, tmp_path, "notes", "fetch", "origin")
    head = served / ".git" / "HEAD"
    assert (done.returncode, done.stdout, done.stderr) == (
        1, "", _remote_refusal("HEAD", head, served / ".git") + _head_fix(head))
