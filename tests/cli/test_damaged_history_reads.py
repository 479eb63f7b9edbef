"""A damaged or missing object of the history, read by site build, cite and the push checks.

robust76: each command that walks history -- ``site build`` (when each page last changed),
``cite`` (the commit that first added a run), ``check BASE..HEAD``, ``check --unpushed``
and the pre-push hook's ``check --updates - --remote REMOTE`` -- stops with the object's
id and ``git fsck``'s advice, never "internal error" nor a hang:

* a packed root tree whose deflated bytes are damaged made libgit2 say "invalid distance
  code", words kistore did not know as damage: "internal error (GitError)" in all five;
* a cut loose commit of the pushed history, with a remote this clone has no
  remote-tracking refs of (a first push), made the push checks' walk loop for ever;
* a missing commit, root tree or ``store/`` tree of the parent, and a branch or tag whose
  commit or tag object is gone, already said so: kept here as proof.

Each command runs as a real process with a timeout
(:func:`.test_truncated_loose_object.kistore`).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kistore.git.blobs import damage

from ..conftest import git
from . import test_missing_git_object
from .test_damaged_repository import flip_packed
from .test_missing_git_object import MISSING, delete
from .test_truncated_loose_object import LIMIT, RUN, cut, kistore

stored = test_missing_git_object.stored
"""The published record committed on top of ``kistore init``'s commit, all loose."""

ZERO = "0" * 40


def said_clearly(root: Path, args: list[str], oid: str, stdin: str | None = None) -> str:
    """Run kistore (``stdin`` fed to it); assert it failed (1) naming ``oid``, no bug, no hang."""
    status, out, err = kistore(root, *args) if stdin is None else _fed(root, args, stdin)
    said = out + err
    assert status is not None, f"{args} still ran after {LIMIT} s"
    assert status == 1, said
    assert f"git object {oid} cannot be read (" in said, said
    assert "the repository is damaged" in said or "run `git fsck`" in said, said
    assert "internal error" not in said and "Traceback" not in said, said
    return said


def _fed(root: Path, args: list[str], stdin: str) -> tuple[int | None, str, str]:
    """:func:`kistore` with ``stdin`` as its standard input (status None: still running)."""
    import subprocess
    import sys

    try:
        done = subprocess.run([sys.executable, "-m", "kistore", "--store", str(root), *args],
                              input=stdin, capture_output=True, text=True, timeout=LIMIT)
    except subprocess.TimeoutExpired as e:  # the child is killed
        return None, str(e.stdout or ""), str(e.stderr or "")
    return done.returncode, done.stdout, done.stderr


def with_origin(root: Path, held: str | None) -> str:
    """Add the ``origin`` remote (its remote-tracking ``main`` at ``held``); return HEAD."""
    git(root, "remote", "add", "origin", "https://github.com/o/r.git")  # cite's link too
    if held is not None:
        git(root, "update-ref", "refs/remotes/origin/main", git(root, "rev-parse", held).strip())
    return git(root, "rev-parse", "HEAD").strip()


def commands(root: Path, out: Path, head: str) -> dict[str, tuple[list[str], str | None]]:
    """The history-walking commands: name -> (arguments, standard input)."""
    return {"site build": (["site", "build", str(out)], None),
            "cite": (["cite", RUN], None),
            "check BASE..HEAD": (["check", "HEAD~1..HEAD"], None),
            "check --unpushed": (["check", "--unpushed", "origin"], None),
            "pre-push": (["check", "--updates", "-", "--remote", "origin"],
                         f"{ZERO} {head} refs/heads/main\n")}


NAMES = ["site build", "cite", "check BASE..HEAD", "check --unpushed", "pre-push"]


@pytest.mark.parametrize("command", NAMES)
def test_a_damaged_packed_root_tree_is_named_not_an_internal_error(
        stored: Path, tmp_path: Path, command: str) -> None:
    head = with_origin(stored, "HEAD~1")
    oid = flip_packed(stored, git(stored, "rev-parse", "HEAD~1^{tree}").strip())
    args, stdin = commands(stored, tmp_path / "site", head)[command]
    said = said_clearly(stored, args, oid, stdin)
    # zlib's word for this flipped byte (it depends on the bit): once "internal error"
    assert f"git object {oid} cannot be read (invalid distance code)" in said, said


def test_check_reports_a_damaged_packed_tree_as_ki117(stored: Path) -> None:
    oid = flip_packed(stored, git(stored, "rev-parse", "HEAD~1^{tree}").strip())
    status, out, err = kistore(stored, "check", "HEAD~1..HEAD", "--json")
    assert status == 1, out + err
    (finding,) = json.loads(out)["findings"]
    assert (finding["rule"], finding["extra"]) == ("KI117", {"object": oid})
    assert finding["message"] == (
        f"git object {oid} cannot be read (invalid distance code); the check stopped there "
        "(nothing below it can be read): run `git fsck`")


@pytest.mark.parametrize("command", ["check --unpushed", "pre-push"])
def test_a_cut_commit_of_a_first_push_does_not_hang(stored: Path, tmp_path: Path,
                                                   command: str) -> None:
    head = with_origin(stored, None)  # no remote-tracking refs: every commit is new to it
    oid = git(stored, "rev-parse", "HEAD~1").strip()
    cut(stored, oid)
    args, stdin = commands(stored, tmp_path / "site", head)[command]
    said = said_clearly(stored, args, oid, stdin)
    assert "its loose object file is cut short" in said, said


PARENT = {"commit": "HEAD~1", "root tree": "HEAD~1^{tree}", "store tree": "HEAD~1:store"}


@pytest.mark.parametrize("kind", sorted(PARENT))
@pytest.mark.parametrize("command", NAMES)
def test_a_missing_object_of_the_parent_is_named(stored: Path, tmp_path: Path, kind: str,
                                                 command: str) -> None:
    head = with_origin(stored, "HEAD~1" if kind != "commit" else None)
    oid = git(stored, "rev-parse", PARENT[kind]).strip()
    delete(stored, oid)
    args, stdin = commands(stored, tmp_path / "site", head)[command]
    said = said_clearly(stored, args, oid, stdin)
    assert MISSING.split(",")[0] in said, said
    if kind == "store tree":  # its path too (site build said none)
        assert (f"store: git object {oid}" in said
                or f"store: error KI117 git-object-unreadable: git object {oid}" in said), said


@pytest.mark.parametrize("ref", ["refs/heads/side", "refs/tags/v1"])
def test_a_branch_or_tag_whose_object_is_gone_is_named_with_the_ref(
        stored: Path, ref: str) -> None:
    with_origin(stored, "HEAD")
    side = git(stored, "commit-tree", "-p", "HEAD", "-m", "side", "HEAD^{tree}").strip()
    git(stored, "update-ref", "refs/heads/side", side)
    oid = side
    if ref == "refs/tags/v1":
        git(stored, "tag", "-a", "-m", "v1", "v1", side)
        git(stored, "update-ref", "-d", "refs/heads/side")
        oid = git(stored, "rev-parse", "refs/tags/v1").strip()  # the tag object
    delete(stored, oid)
    said = said_clearly(stored, ["check", "--unpushed", "origin"], oid)
    assert (f"{ref}: git object {oid} cannot be read ({MISSING.split(',')[0]}, though {ref} "
            "points at it)") in said, said


@pytest.mark.parametrize("words", [
    "invalid distance code", "invalid literal/length code", "invalid distances set",
    "invalid literal/lengths set", "invalid bit length repeat", "invalid window size",
    "too many length or distance symbols", "unknown header flags set", "header crc mismatch",
    "invalid distance too far back", "invalid block type", "invalid stored block lengths",
    "invalid code lengths set", "incorrect data check", "incorrect length check",
    "incorrect header check", "unknown compression method"])
def test_every_word_of_zlib_inflate_is_damage(words: str) -> None:
    # zlib 1.3 inflate.c's messages: a flipped bit in a pack gives one, which depends on it
    import pygit2

    said = damage(pygit2.GitError(f"{'cd' * 20}: {words}"), "store")
    assert said is not None, words
    assert (said.oid, said.reason, said.path) == ("cd" * 20, words, "store")
