"""A ``refs/notes/kistore`` naming a blob, a tree or an annotated tag (reviewer r92 F13).

A fork's (or a pusher's) notes ref set by hand to something that is not a notes commit
ended ``kistore notes fetch FORK`` and the server's pre-receive hook in "internal error:
this is a bug in kistore" (libgit2's "can not be peeled into a commit" / "object is no
commit object"). Now ``notes fetch`` refuses that remote's notes with one line naming the
remote and what its ref names, exit 1, this clone's notes and tracking ref unchanged; the
gate refuses the push with KI420, as it does a branch naming a blob.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from kistore.core.layout import NOTES_REF

from ..conftest import git
from ..prs import Remote
from .test_notes_forks import server  # noqa: F401 (a fixture)
from .test_notes_freshness import kistore, out
from .test_notes_only_grow import index  # noqa: F401 (a fixture)


def make(repo: Path, kind: str) -> tuple[str, str]:
    """Write an object of ``kind`` in ``repo``: (its id, what KI420 calls it)."""
    if kind == "blob":
        made = subprocess.run(["git", "hash-object", "-w", "--stdin"], cwd=repo, input="hi\n",
                              capture_output=True, text=True, check=True).stdout.strip()
        return made, "a blob"
    if kind == "tree":
        made = subprocess.run(["git", "mktree"], cwd=repo, input="", capture_output=True,
                              text=True, check=True).stdout.strip()
        return made, "a tree"
    git(repo, "tag", "-a", "-m", "notes", "notes-tag", NOTES_REF)  # a tag of the notes commit
    return out(repo, "rev-parse", "refs/tags/notes-tag"), "an annotated tag of a commit"


def ref_of(repo: Path, ref: str) -> str | None:
    done = subprocess.run(["git", "rev-parse", "-q", "--verify", ref], cwd=repo,
                          capture_output=True, text=True)
    return done.stdout.strip() or None


@pytest.mark.parametrize("kind", ["blob", "tree", "tag"])
def test_r92_f13_notes_fetch_of_a_notes_ref_naming_no_commit_is_refused_for_people(
        server, tmp_path, kind):  # noqa: F811 (server: a fixture)
    fork = tmp_path / "fork2.git"
    git(tmp_path, "clone", "-q", "--bare", str(server), str(fork))
    git(fork, "fetch", "-q", str(server), f"{NOTES_REF}:{NOTES_REF}")
    value, what = make(fork, kind)
    git(fork, "update-ref", NOTES_REF, value)
    clone = tmp_path / "c5"
    git(tmp_path, "clone", "-q", str(server), "c5")
    assert kistore(clone, "notes", "fetch", "origin").exit_code == 0
    ours = ref_of(clone, NOTES_REF)
    git(clone, "remote", "add", "fork2", str(fork))

    fetched = kistore(clone, "notes", "fetch", "fork2")

    assert fetched.exit_code == 1, fetched.output
    assert fetched.stderr == (
        f"error: fork2's {NOTES_REF} names {what} ({value[:12]}), not a notes commit, not "
        f"merged (KI420: git's notes are a history of commits). Ask its maintainer to set "
        f"{NOTES_REF} there back to a notes commit; your notes are unchanged\n")
    assert "internal error" not in fetched.output
    assert ref_of(clone, NOTES_REF) == ours  # nothing written
    assert ref_of(clone, "refs/notes/remotes/fork2/kistore") is None
    assert kistore(clone, "site", "build", str(tmp_path / "site")).exit_code == 0


@pytest.mark.parametrize("kind", ["blob", "tree", "tag"])
def test_r92_f13_the_gate_refuses_a_notes_ref_naming_no_commit_with_ki420(
        index, tmp_path, kind):  # noqa: F811 (index: a fixture)
    remote = Remote(index.root, tmp_path)
    git(remote.bare, "fetch", "-q", str(index.root), f"{NOTES_REF}:{NOTES_REF}")
    git(remote.clone, "fetch", "-q", "origin", f"{NOTES_REF}:{NOTES_REF}")
    held = ref_of(remote.bare, NOTES_REF)
    value, what = make(remote.clone, kind)

    pushed = remote.push(f"+{value}:{NOTES_REF}")

    assert not pushed.accepted
    assert "internal error" not in pushed.output, pushed.output
    assert (f"remote: (store): error KI420 ref-not-a-commit: {NOTES_REF} names {what} "
            f"({value[:12]}), not a notes commit: git's notes are a history of commits; push "
            f"the notes ref as `kistore notes push` writes it (expected a notes commit, found "
            f"{what})") in pushed.output, pushed.output
    # r92b F5: the fix line is the notes ref's, not the branch/tag one ("git tag -d NAME")
    assert (f"remote: fix KI420 (1 finding): push {NOTES_REF} only as `kistore notes push "
            "REMOTE` sends it, a notes commit on top of the remote's (`kistore notes fetch "
            "REMOTE` first when the push is refused); never a blob, a tree or a tag (`git "
            f"push REMOTE +OBJECT:{NOTES_REF}`): this ref is unchanged") in pushed.output, \
        pushed.output
    assert "git tag -d" not in pushed.output
    assert ref_of(remote.bare, NOTES_REF) == held


@pytest.mark.parametrize("kind", ["blob", "tag"])
def test_r92b_f6_notes_push_to_a_notes_ref_naming_no_commit_says_nothing_was_pushed(
        server, tmp_path, kind):  # noqa: F811 (server: a fixture)
    clone = tmp_path / "c6"
    git(tmp_path, "clone", "-q", str(server), "c6")
    assert kistore(clone, "notes", "fetch", "origin").exit_code == 0
    last = ref_of(clone, "refs/notes/remotes/origin/kistore")
    ours = ref_of(clone, NOTES_REF)
    value, what = make(server, kind)
    git(server, "update-ref", NOTES_REF, value)

    pushed = kistore(clone, "notes", "push", "origin")

    assert pushed.exit_code == 1, pushed.output
    assert pushed.stderr == (  # before: the fetch's words ("not merged", "ask its maintainer")
        f"error: origin's {NOTES_REF} names {what} ({value[:12]}), not a notes commit: "
        "nothing pushed (KI420: git's notes are a history of commits), your notes are "
        "unchanged. Its maintainer (you, if it is a repository of yours) sets it back in "
        f"that repository: `git update-ref {NOTES_REF} {last}` (its notes as this repository "
        "last fetched them), then `kistore notes push origin` again\n")
    assert ref_of(server, NOTES_REF) == value and ref_of(clone, NOTES_REF) == ours
    git(server, "update-ref", NOTES_REF, last)  # the advice, followed
    assert kistore(clone, "notes", "push", "origin").exit_code == 0
    assert ref_of(server, NOTES_REF) == ref_of(clone, NOTES_REF)
