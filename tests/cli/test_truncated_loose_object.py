"""A truncated loose git object is a clear error, never an endless loop (new-user review F3).

``head -c 20`` of a committed manifest's blob, a tree or a commit (a torn write, a bad
copy) made every query, ``verify --at``, ``check``, ``export`` and ``site build`` loop for
ever inside libgit2 (libgit2/libgit2#7342). Each command here runs as a real process in
its own session with a timeout; one still running then is killed whole and fails.
"""

from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

from kistore.core import layout
from kistore.git.blobs import ObjectUnreadable, loose_object

from ..conftest import PUBLISHED, git

LIMIT = 60
"""Seconds a command may take here (each takes ~1 s; the loop took for ever)."""


def kistore(root: Path, *args: str) -> tuple[int | None, str, str]:
    """Run ``python -m kistore --store ROOT ARGS``: (status, stdout, stderr).

    Status None: still running after :data:`LIMIT` seconds (then its session is killed).
    """
    child = subprocess.Popen([sys.executable, "-m", "kistore", "--store", str(root), *args],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             start_new_session=True)
    try:
        out, err = child.communicate(timeout=LIMIT)
    except subprocess.TimeoutExpired:
        os.killpg(child.pid, signal.SIGKILL)
        out, err = child.communicate()
        return None, out, err
    return child.returncode, out, err


def cut(root: Path, oid: str) -> None:
    """Cut ``oid``'s loose object file to its first 20 bytes (it must be loose)."""
    path = root / ".git" / "objects" / oid[:2] / oid[2:]
    data = path.read_bytes()
    assert zlib.decompress(data)  # whole before the cut
    path.chmod(0o644)
    path.write_bytes(data[:20])


def metadata_path() -> str:
    """The published run's metadata file (a committed blob every read of the run reads)."""
    from kistore.core.digest import Digest

    return layout.metadata_path(Digest.from_str(PUBLISHED["run"]))


@pytest.fixture
def two_commits(record_store, store_path: Path) -> Path:
    """The published record committed on top of ``kistore init``'s commit, all loose."""
    assert not list((store_path / ".git" / "objects" / "pack").glob("*.pack"))
    return store_path


CUT = {
    "blob": lambda root: git(root, "rev-parse", f"HEAD:{metadata_path()}").strip(),
    "tree": lambda root: git(root, "rev-parse", "HEAD^{tree}").strip(),
    "subtree": lambda root: git(root, "rev-parse", "HEAD:store/metadata").strip(),
    "commit": lambda root: git(root, "rev-parse", "HEAD").strip(),
    "parent": lambda root: git(root, "rev-parse", "HEAD~1").strip(),  # read by history walks
}

RUN = "BenchmarkRun/sol-submission-20464"

COMMANDS = {
    "verify --at HEAD": ["verify", "--at", "HEAD"],
    "check HEAD~1..HEAD": ["check", "HEAD~1..HEAD"],
    "show --at HEAD": ["show", RUN, "--at", "HEAD"],
    "rank --at HEAD": ["rank", RUN, "--at", "HEAD"],
    "export --at HEAD": ["export", "{out}", "--at", "HEAD"],
    "site build --at HEAD": ["site", "build", "{out}", "--at", "HEAD"],
}


@pytest.mark.parametrize("kind", sorted(CUT))
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_cut_loose_object_stops_the_command_with_the_object_named(
        two_commits, tmp_path, kind, command):
    oid = CUT[kind](two_commits)
    cut(two_commits, oid)
    args = [a.replace("{out}", str(tmp_path / "out")) for a in COMMANDS[command]]
    status, out, err = kistore(two_commits, *args)
    assert status is not None, f"{command} still ran after {LIMIT} s"
    assert status != 0
    said = out + err
    assert f"git object {oid} cannot be read" in said, said
    assert "its loose object file is cut short" in said
    assert "internal error" not in said


def test_verify_at_head_reports_a_cut_blob_as_ki117_and_checks_the_rest(two_commits):
    oid = CUT["blob"](two_commits)
    cut(two_commits, oid)
    status, out, err = kistore(two_commits, "verify", "--at", "HEAD")
    assert status == 1, err
    assert (f"{metadata_path()}: error KI117 git-object-unreadable: git object {oid} cannot "
            "be read (its loose object file is cut short") in out


# -- the check itself, on hand-made loose files -----------------------------------------

HELLO = "ce013625030ba8dba906f756967f9e9ca394464a"
"""``git hash-object`` of ``hello\\n``: sha1(b"blob 6\\x00hello\\n")."""


def put_loose(root: Path, oid: str, data: bytes) -> Path:
    """Write ``data`` as ``oid``'s loose object file (replacing one there)."""
    path = root / ".git" / "objects" / oid[:2] / oid[2:]
    path.parent.mkdir(exist_ok=True)
    if path.exists():
        path.chmod(0o644)
    path.write_bytes(data)
    return path


def test_a_whole_loose_object_reads_as_its_type_and_bytes(store):
    assert hashlib.sha1(b"blob 6\x00hello\n").hexdigest() == HELLO
    put_loose(store.root, HELLO, zlib.compress(b"blob 6\x00hello\n"))
    assert loose_object(store.repo, HELLO) == (3, b"hello\n")
    assert store.repo.odb.read(HELLO) == (3, b"hello\n")  # as libgit2 reads it


def test_no_loose_file_is_none_for_libgit2_to_read(store):
    assert loose_object(store.repo, "0" * 40) is None
    head = git(store.root, "rev-parse", "HEAD").strip()
    git(store.root, "repack", "-a", "-d", "-q")
    assert loose_object(store.repo, head) is None  # packed


@pytest.mark.parametrize(("data", "reason"), [
    (zlib.compress(b"blob 6\x00hello\n")[:-1], "cut short"),  # one byte short of the end
    (zlib.compress(b"blob 6\x00hello\n")[:6], "cut short"),
    (b"x\x9c" + b"\xff" * 12, "does not inflate"),
    (zlib.compress(b"blob 7\x00hello\n"), "header does not say"),  # length 7, holds 6
    (zlib.compress(b"blob 6\x00hellO\n"), "another object's bytes"),
])
def test_a_damaged_loose_file_is_object_unreadable(store, data, reason):
    put_loose(store.root, HELLO, data)
    with pytest.raises(ObjectUnreadable, match=reason) as raised:
        loose_object(store.repo, HELLO, "a/path")
    assert (raised.value.oid, raised.value.path) == (HELLO, "a/path")


def test_a_cut_tree_of_one_repository_is_not_read_for_another(tmp_path):
    # The same tree (same id) in two repositories, cut in one: a path lookup in the other
    # reads its own whole file. (The first merge of this guard checked every repository the
    # process had read, and a test's damaged store failed the next test's reindex.)
    import pygit2

    from kistore.git import treediff

    ids = []
    for name in ("damaged", "whole"):
        repo = pygit2.init_repository(str(tmp_path / name))
        inner = repo.TreeBuilder()
        inner.insert("f", repo.create_blob(b"x"), pygit2.GIT_FILEMODE_BLOB)
        outer = repo.TreeBuilder()
        outer.insert("a", inner.write(), pygit2.GIT_FILEMODE_TREE)
        ids.append((repo, outer.write(), repo[outer.write()]["a"].id))
    (damaged, root, inner_id), (whole, whole_root, _) = ids
    assert root == whole_root
    cut(tmp_path / "damaged", str(inner_id))
    with pytest.raises(ObjectUnreadable) as raised:
        treediff.subtree_id(damaged, damaged[root], "a/f")
    assert raised.value.oid == str(inner_id) and raised.value.path == "a"
    assert treediff.subtree_id(whole, whole[root], "a/f") is None  # a file, not a directory
    assert treediff.subtree_id(whole, whole[root], "a") == inner_id


@pytest.mark.parametrize("command", [["show", RUN], ["rank", RUN], ["attestations", RUN],
                                     ["verify"]])
def test_a_cut_loose_note_blob_stops_the_command_with_the_object_named(
        two_commits, tmp_path, command):
    # review r72-3: a cut attestation note blob (refs/notes/kistore) made every command loop
    # in libgit2: the note's lines were read by repo[id].read_raw(), not git.blobs.read_blob
    key = tmp_path / "key"
    for args in (["key", "generate", str(key)],
                 ["attest", RUN, "--type", "reproduction", "--key", str(key)]):
        status, out, err = kistore(two_commits, *args)
        assert status == 0, out + err
    note = git(two_commits, "ls-tree", "-r", "refs/notes/kistore").split()[2]
    cut(two_commits, note)
    status, out, err = kistore(two_commits, *command)
    assert status is not None, f"{command} still ran after {LIMIT} s"
    assert status != 0
    said = out + err
    assert f"git object {note} cannot be read (its loose object file is cut short" in said
    assert "internal error" not in said
