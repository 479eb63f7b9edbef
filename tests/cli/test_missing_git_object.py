"""A missing or odd git object is a clear error in every command (review r72-1/2/4/9/10/11).

A loose object a tree, commit or branch names that is deleted, replaced by a directory,
or missing from the alternate of a ``git clone --shared`` clone ended in "internal error
(KeyError)" in export, site build, reindex, verify --at, show/cat --at and (a note blob)
every command reading attestations; a cut loose HEAD commit hung ``attestations``; a
deleted HEAD commit said "no commit named 'HEAD'". Each command runs as a real process
with a timeout (:func:`.test_truncated_loose_object.kistore`).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from kistore.git.blobs import ObjectUnreadable, loose_object, missing, read_blob

from ..conftest import BUNDLE, git
from .test_truncated_loose_object import (
    CUT,
    HELLO,
    LIMIT,
    RUN,
    cut,
    kistore,
    metadata_path,
    put_loose,
)


@pytest.fixture
def stored(store_path: Path) -> Path:
    """The published record committed on top of ``kistore init``'s commit, all loose.

    Added by a ``kistore`` process: no store of this process holds the index open (a
    ``reindex`` would wait for it).
    """
    status, out, err = kistore(store_path, "add", "--commit", "--allow-dangling", str(BUNDLE))
    assert status == 0, out + err
    assert not list((store_path / ".git" / "objects" / "pack").glob("*.pack"))
    return store_path


MISSING = "missing: neither a loose file nor a pack of this repository holds it"


def loose_path(root: Path, oid: str) -> Path:
    """The loose object file of ``oid`` in the repository at ``root``."""
    return root / ".git" / "objects" / oid[:2] / oid[2:]


def delete(root: Path, oid: str) -> None:
    """Delete ``oid``'s loose object file (it must be loose)."""
    loose_path(root, oid).unlink()


def directory(root: Path, oid: str) -> None:
    """Put an empty directory where ``oid``'s loose object file was."""
    delete(root, oid)
    loose_path(root, oid).mkdir()


DAMAGE = {"deleted": (delete, MISSING),
          "directory": (directory, "a directory stands where its loose object file should be")}

COMMANDS = {
    "verify --at HEAD": ["verify", "--at", "HEAD"],
    "show --at HEAD": ["show", RUN, "--at", "HEAD"],
    "cat --at HEAD": ["cat", RUN, "--at", "HEAD", "--metadata"],
    "export --at HEAD": ["export", "{out}", "--at", "HEAD"],
    "site build --at HEAD": ["site", "build", "{out}", "--at", "HEAD"],
    "reindex": ["reindex"],
}


def said_clearly(root: Path, args: list[str], oid: str, out_dir: Path) -> str:
    """Run kistore; assert it stopped, failed, named ``oid`` and said no internal error."""
    status, out, err = kistore(root, *[a.replace("{out}", str(out_dir)) for a in args])
    said = out + err
    assert status is not None, f"{args} still ran after {LIMIT} s"
    assert status != 0, said
    assert f"git object {oid} cannot be read (" in said, said
    assert "internal error" not in said and "Traceback" not in said, said
    assert "no commit named" not in said, said
    return said


@pytest.mark.parametrize("damage", sorted(DAMAGE))
@pytest.mark.parametrize("kind", ["blob", "tree", "subtree", "parent"])
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_missing_object_stops_the_command_with_the_object_named(
        stored, tmp_path, kind, damage, command):
    if kind == "parent" and command in ("cat --at HEAD", "reindex"):
        pytest.skip("reads no history: HEAD's own objects are all there")
    oid = CUT[kind](stored)
    how, reason = DAMAGE[damage]
    how(stored, oid)
    said = said_clearly(stored, COMMANDS[command], oid, tmp_path / "out")
    assert reason in said, said
    if kind == "blob":
        assert metadata_path() in said, said  # the repository path it was read for


@pytest.mark.parametrize("damage", sorted(DAMAGE))
def test_verify_at_head_reports_a_missing_blob_as_ki117_and_checks_the_rest(stored, damage):
    oid = CUT["blob"](stored)
    how, reason = DAMAGE[damage]
    how(stored, oid)
    status, out, err = kistore(stored, "verify", "--at", "HEAD")
    # the rest was checked: the published run's dangling references (KI201)
    assert (status, "KI201" in out) == (1, True), out + err
    finding = f"{metadata_path()}: error KI117 git-object-unreadable: git object {oid}"
    assert f"{finding} cannot be read ({reason}" in out, out


@pytest.mark.parametrize("command", [["verify", "--at", "HEAD"], ["show", RUN, "--at", "HEAD"],
                                     ["export", "{out}", "--at", "HEAD"]])
def test_a_missing_head_commit_names_the_branch_not_a_wrong_name(stored, tmp_path,
                                                                  command):
    # review r72-11: "no commit named 'HEAD'", as if the user had mistyped it
    oid = CUT["commit"](stored)
    delete(stored, oid)
    said = said_clearly(stored, command, oid, tmp_path / "out")
    assert (f"{MISSING}, though refs/heads/main (which HEAD names) points at it") in said


@pytest.mark.parametrize("command", [["attestations", RUN], ["cite", RUN],
                                     ["verify", "--at", "HEAD"]])
def test_a_cut_loose_head_commit_stops_attestations_and_cite(stored, tmp_path,
                                                              command):
    # review r72-2: attestations read HEAD's commit by repo.head.peel(), unguarded: a loop
    git(stored, "remote", "add", "origin", "https://github.com/o/r.git")  # cite's link
    oid = CUT["commit"](stored)
    cut(stored, oid)
    said = said_clearly(stored, command, oid, tmp_path / "out")
    assert "its loose object file is cut short" in said


def attested(root: Path, tmp_path: Path) -> str:
    """Attest the run (a note under refs/notes/kistore); return the note blob's id."""
    key = tmp_path / "key"
    for args in (["key", "generate", str(key)],
                 ["attest", RUN, "--type", "reproduction", "--key", str(key)]):
        status, out, err = kistore(root, *args)
        assert status == 0, out + err
    return git(root, "ls-tree", "-r", "refs/notes/kistore").split()[2]


@pytest.mark.parametrize("damage", sorted(DAMAGE))
@pytest.mark.parametrize("command", [["attestations", RUN], ["show", RUN], ["rank", RUN],
                                     ["verify", "--at", "HEAD"]])
def test_a_missing_note_blob_stops_the_command_with_the_note_named(
        stored, tmp_path, damage, command):
    note = attested(stored, tmp_path)
    how, reason = DAMAGE[damage]
    how(stored, note)
    said = said_clearly(stored, command, note, tmp_path / "out")
    assert reason in said, said
    assert "refs/notes/kistore:" in said, said  # the note (of which object) it was read for


# -- a clone that borrows its objects (git clone --shared) -----------------------------

@pytest.fixture
def shared(stored, tmp_path) -> tuple[Path, Path]:
    """(the source store, a ``git clone --shared`` of it holding no object of its own)."""
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", "--shared", str(stored), str(clone)],
                   check=True, capture_output=True)
    assert (clone / ".git" / "objects" / "info" / "alternates").is_file()
    assert not list((clone / ".git" / "objects").glob("??/*"))
    return stored, clone


def test_an_object_missing_from_the_alternate_names_the_alternate(shared, tmp_path):
    source, clone = shared
    oid = CUT["blob"](source)
    delete(source, oid)
    said = said_clearly(clone, ["show", RUN, "--at", "HEAD"], oid, tmp_path / "out")
    assert (f"the alternate it borrows objects from ({source / '.git' / 'objects'}, its "
            "objects/info/alternates) lacks it too") in said, said


def test_an_alternate_that_is_gone_is_named(shared, tmp_path):
    source, clone = shared
    oid = CUT["commit"](source)
    shutil.rmtree(source)
    said = said_clearly(clone, ["export", "{out}", "--at", "HEAD"], oid, tmp_path / "out")
    assert (f"borrows objects from the alternate {source / '.git' / 'objects'} (its "
            "objects/info/alternates), which does not exist") in said, said


@pytest.mark.parametrize("kind", ["blob", "tree", "commit"])
def test_a_cut_loose_object_of_the_alternate_does_not_hang(shared, tmp_path, kind):
    source, clone = shared
    oid = CUT[kind](source)
    cut(source, oid)
    said = said_clearly(clone, ["verify", "--at", "HEAD"], oid, tmp_path / "out")
    assert "its loose object file is cut short" in said


# -- the readers themselves -------------------------------------------------------------

def test_a_directory_or_fifo_at_a_loose_object_path_is_damage(store):
    path = put_loose(store.root, HELLO, b"")
    path.unlink()
    path.mkdir()
    with pytest.raises(ObjectUnreadable, match="a directory stands where") as raised:
        loose_object(store.repo, HELLO, "a/path")
    assert (raised.value.oid, raised.value.path) == (HELLO, "a/path")
    path.rmdir()
    os.mkfifo(path)  # opened without waiting for a writer
    with pytest.raises(ObjectUnreadable, match="a FIFO, socket or device stands where"):
        loose_object(store.repo, HELLO)


def test_read_blob_of_a_missing_blob_is_object_unreadable_not_key_error(store):
    with pytest.raises(ObjectUnreadable) as raised:
        read_blob(store.repo, HELLO, "store/objects/x.json")
    assert (raised.value.oid, raised.value.path) == (HELLO, "store/objects/x.json")
    assert raised.value.reason == f"{MISSING}, though a tree or commit names it"


def test_alternates_are_followed_as_git_follows_them(tmp_path):
    # relative to the objects directory holding the file, recursively, comments skipped
    import pygit2

    repo = pygit2.init_repository(str(tmp_path / "r"))
    deep = tmp_path / "deep" / "objects"
    middle = tmp_path / "middle" / "objects"
    for objects, line in ((middle, "../../deep/objects"), (tmp_path / "r" / ".git" / "objects",
                                                           f"# a comment\n{middle}")):
        (objects / "info").mkdir(parents=True, exist_ok=True)
        (objects / "info" / "alternates").write_text(line + "\n")
    (deep / HELLO[:2]).mkdir(parents=True)
    (deep / HELLO[:2] / HELLO[2:]).write_bytes(b"x\x9c")  # cut short, two alternates down
    with pytest.raises(ObjectUnreadable, match="cut short"):
        loose_object(repo, HELLO)
    said = missing(repo, "0" * 40).reason
    assert f"({middle}, {deep}, its objects/info/alternates) lacks it too" in said


@pytest.mark.parametrize("what", ["parent", "note"])
def test_verify_says_a_missing_commit_or_note_once_and_checks_the_rest(stored, tmp_path, what):
    # a missing parent stopped every check of verify (one KI117, nothing else), then four
    # checks each said it; a missing note blob likewise
    oid = attested(stored, tmp_path) if what == "note" else CUT["parent"](stored)
    delete(stored, oid)
    status, out, err = kistore(stored, "verify", "--at", "HEAD")
    assert status == 1, out + err
    assert out.count(f"error KI117 git-object-unreadable: git object {oid} cannot be read "
                     f"({MISSING}") == 1, out
    assert "KI201" in out, out  # the other checks went on: the dangling references
    assert "internal error" not in out + err


def test_check_of_a_range_whose_base_is_missing_names_the_parent(stored, tmp_path):
    # said "no commit named 'HEAD~1'", as if mistyped
    oid = CUT["parent"](stored)
    delete(stored, oid)
    said = said_clearly(stored, ["check", "HEAD~1..HEAD"], oid, tmp_path / "out")
    head = CUT["commit"](stored)
    assert f"though 'HEAD~1' names it: a parent of commit {head}" in said, said


def test_verify_of_the_work_tree_reports_a_missing_tree_of_head(stored, tmp_path):
    # the tree-names check read HEAD's trees by odb.read: a KeyError (internal error)
    oid = CUT["subtree"](stored)
    delete(stored, oid)
    said = said_clearly(stored, ["verify"], oid, tmp_path / "out")
    assert f"store/metadata: error KI117 git-object-unreadable: git object {oid}" in said


def test_a_cut_commit_behind_an_annotated_tag_does_not_hang(stored, tmp_path):
    # the revision's pre-read stopped at the (loose, whole) tag object: libgit2 then peeled
    # it to the cut commit and looped
    git(stored, "tag", "-a", "v1", "-m", "a release")
    oid = CUT["commit"](stored)
    cut(stored, oid)
    said = said_clearly(stored, ["show", RUN, "--at", "v1"], oid, tmp_path / "out")
    assert "its loose object file is cut short" in said


@pytest.mark.parametrize("tree", ["store/objects", "store/objects/sha256", "a shard"])
def test_verify_of_the_work_tree_names_a_missing_objects_tree_not_a_split_index(
        stored, tmp_path, tree):
    # review73 F1: git's status of the work tree could not read HEAD's objects shard, and
    # verify blamed a split git index ("run git update-index --no-split-index") where
    # `verify --at HEAD` names the tree (KI117)
    if tree == "a shard":
        tree = "store/objects/sha256/" + git(
            stored, "ls-tree", "--name-only", "HEAD:store/objects/sha256").split()[0]
    oid = git(stored, "rev-parse", f"HEAD:{tree}").strip()
    delete(stored, oid)
    said = said_clearly(stored, ["verify"], oid, tmp_path / "out")
    assert "split" not in said, said
    assert f"{tree}: error KI117 git-object-unreadable: git object {oid} cannot be read " \
        f"({MISSING}" in said, said
