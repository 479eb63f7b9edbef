"""A reference whose commit is not here is named one way, whichever reader meets it.

``missing_target`` (a revision that did not resolve: ``main``, ``HEAD``, ``HEAD``'s id) and
``ref_commit`` (a ref tip read guarded, directly or through an annotated tag) all say
"<ref>[ (which <name> names)| (through the tag <id>)] points at it[; fix]".
"""

from __future__ import annotations

from pathlib import Path

import pygit2
import pytest

from kistore.git.blobs import MISSING, ObjectUnreadable, missing_target, ref_commit

from ..conftest import git

ID = ["-c", "user.name=t", "-c", "user.email=t@t"]
GONE = MISSING.removesuffix("a tree or commit names it")


@pytest.fixture
def repo(tmp_path):
    """A repository of two loose commits on main, tagged v1 (annotated); main's tip gone."""
    root = tmp_path / "r"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    for text in ("0", "1"):
        (root / "f").write_text(text)
        git(root, "add", "f")
        git(root, *ID, "commit", "-qm", text)
    git(root, *ID, "tag", "-a", "-m", "v1", "v1")
    tip = git(root, "rev-parse", "HEAD").strip()
    tag = git(root, "rev-parse", "refs/tags/v1").strip()
    (root / ".git" / "objects" / tip[:2] / tip[2:]).unlink()
    return pygit2.Repository(str(root)), tip, tag


@pytest.mark.parametrize(("rev", "named_by"), [
    ("main", "refs/heads/main (which main names) points at it"),
    ("HEAD", "refs/heads/main (which HEAD names) points at it"),
    ("refs/heads/main", "refs/heads/main points at it"),
])
def test_a_revision_whose_branch_points_at_nothing(repo, rev, named_by):
    found, tip, _ = repo
    error = missing_target(found, rev)
    assert isinstance(error, ObjectUnreadable)
    assert (error.oid, error.reason, error.path) == (tip, GONE + named_by, None)


def test_heads_commit_asked_for_by_its_id(repo):
    found, tip, _ = repo
    error = missing_target(found, tip)
    assert error is not None
    assert error.reason == GONE + "refs/heads/main (which HEAD names) points at it"


def test_a_detached_head_is_named_as_head(repo):
    found, tip, _ = repo
    (Path(found.path) / "HEAD").write_text(tip + "\n")
    error = missing_target(found, tip)
    assert error is not None and error.reason == GONE + "HEAD points at it"


def test_a_ref_tip_read_guarded_directly_and_through_a_tag(repo):
    found, tip, tag = repo
    with pytest.raises(ObjectUnreadable) as caught:
        ref_commit(found, "refs/heads/main")
    assert (caught.value.oid, caught.value.reason, caught.value.path) == (
        tip, GONE + "refs/heads/main points at it", "refs/heads/main")
    with pytest.raises(ObjectUnreadable) as caught:
        ref_commit(found, "refs/tags/v1")
    assert caught.value.reason == GONE + f"refs/tags/v1 (through the tag {tag}) points at it"


def test_a_remote_tracking_tip_says_how_to_set_it_again(repo):
    found, tip, _ = repo
    remote = Path(found.path) / "refs" / "remotes" / "origin"
    remote.mkdir(parents=True)
    (remote / "main").write_text(tip + "\n")  # libgit2 will not create a ref to nothing
    with pytest.raises(ObjectUnreadable) as caught:
        ref_commit(found, "refs/remotes/origin/main")
    assert caught.value.reason == GONE + (
        "refs/remotes/origin/main points at it; it only says what the remote held: "
        "`git update-ref -d refs/remotes/origin/main`, then `git fetch`, sets it again")
