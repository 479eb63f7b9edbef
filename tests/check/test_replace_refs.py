"""Review r75 F1: refs that make git serve other bytes than the store holds.

A ``refs/replace/<blob>`` pushed to the server made ``git show`` and ``git archive`` there
(and in every mirror) print a tampered manifest while ``kistore verify`` said "ok"; a
tag of a blob passed with nothing checked. The gate refuses both (KI419, KI420), and
``verify`` / ``verify --at`` warn when a repository holds replace refs (KI421).
"""

from __future__ import annotations

import json
import subprocess

import pytest

from kistore.check import gate
from kistore.check._refs import check_replace_refs
from kistore.store import Store
from kistore.store.inputs import read_inputs

from ..conftest import BUNDLE, PUBLISHED, git, other_environment, store_file
from ..prs import Remote

PROTOCOL = store_file(PUBLISHED["protocol"])


@pytest.fixture
def remote(published, tmp_path) -> Remote:
    return Remote(published, tmp_path)


def add_environment(clone):
    path = clone.parent / "h100.json"
    path.write_text(json.dumps(other_environment(json.loads(BUNDLE.read_text()))))
    Store(clone).add([x.manifest for x in read_inputs([str(path)])])


def tampered_blob(clone) -> tuple[str, str]:
    """Write a blob holding the protocol with other bytes; return (stored blob, tampered)."""
    stored = git(clone, "rev-parse", f"HEAD:{PROTOCOL}").strip()
    data = (clone / PROTOCOL).read_bytes().replace(b"v1.1", b"v6.6")
    tampered = git_input(clone, data, "hash-object", "-w", "--stdin")
    return stored, tampered


def git_input(cwd, data: bytes, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, input=data, capture_output=True,
                          check=True).stdout.decode().strip()


def replace_refs(repository) -> str:
    return git(repository, "for-each-ref", "--format=%(refname)", "refs/replace/").strip()


def test_a_replace_ref_pushed_after_a_good_push_is_refused(remote):
    assert remote.pr("a new environment", add_environment).accepted  # a push that passes
    stored, tampered = tampered_blob(remote.clone)
    git(remote.clone, "replace", stored, tampered)
    # the attack, seen in the clone: git now serves the tampered bytes at HEAD
    assert b"v6.6" in git_input(remote.clone, b"", "show", f"HEAD:{PROTOCOL}").encode()

    pushed = remote.push(f"refs/replace/{stored}")

    assert not pushed.accepted
    assert (f"remote: (store): error KI419 replace-ref-pushed: refs/replace/{stored}: a replace "
            f"ref makes git (show, archive, checkout, log, every mirror) serve blob "
            f"{tampered[:12]} in place of {stored[:12]}, while kistore reads the stored "
            "bytes") in pushed.output
    assert "pre-receive hook declined" in pushed.output
    assert replace_refs(remote.bare) == ""  # the server's git still serves the stored bytes
    assert b"v1.1" in git_input(remote.bare, b"", "show", f"main:{PROTOCOL}").encode()


def test_a_commit_valued_replace_ref_that_deletes_nothing_is_refused_too(remote):
    # it moved the commit git's log says added an object (cite), while the site named
    # the true one; relative to its own parent it changes nothing, so the range passed
    first = remote.main()
    stand_in = git(remote.clone, "commit-tree", f"{first}^{{tree}}", "-m", "same tree").strip()
    git(remote.clone, "replace", first, stand_in)
    pushed = remote.push(f"refs/replace/{first}")
    assert not pushed.accepted
    assert f"error KI419 replace-ref-pushed: refs/replace/{first}: a replace ref makes git " \
           f"(show, archive, checkout, log, every mirror) serve commit {stand_in[:12]}" \
           in pushed.output


def test_deleting_a_replace_ref_that_landed_past_the_hook_is_accepted(remote):
    stored, tampered = tampered_blob(remote.clone)
    data = git_input(remote.clone, b"", "cat-file", "blob", tampered).encode()
    assert git_input(remote.bare, data, "hash-object", "-w", "--stdin") == tampered
    git(remote.bare, "update-ref", f"refs/replace/{stored}", tampered)  # past the hook
    git(remote.clone, "replace", stored, tampered)
    pushed = remote.push(f":refs/replace/{stored}")
    assert pushed.accepted, pushed.output
    assert replace_refs(remote.bare) == ""


def test_a_tag_of_a_blob_is_refused(remote):
    _, tampered = tampered_blob(remote.clone)
    git(remote.clone, "tag", "blob-tag", tampered)
    git(remote.clone, "tag", "-a", "-m", "annotated", "tree-tag", "HEAD^{tree}")
    tree = git(remote.clone, "rev-parse", "HEAD^{tree}").strip()
    pushed = remote.push("refs/tags/blob-tag", "refs/tags/tree-tag")
    assert not pushed.accepted
    assert (f"(store): error KI420 ref-not-a-commit: refs/tags/blob-tag names a blob "
            f"({tampered[:12]}), not a commit or an annotated tag of one: the gate has no "
            "history to check (expected a commit or an annotated tag of one, found a blob)"
            ) in pushed.output
    assert f"refs/tags/tree-tag names a tree ({tree[:12]})" in pushed.output
    assert git(remote.bare, "tag").strip() == ""


def test_a_tag_of_a_commit_is_still_checked_as_a_branch(remote):
    git(remote.clone, "tag", "-a", "-m", "release", "v1", "HEAD")
    pushed = remote.push("refs/tags/v1")
    assert pushed.accepted, pushed.output
    assert "ok: 1 ref update(s): 0 errors" in pushed.output


def test_verify_warns_when_the_repository_holds_replace_refs(remote):
    stored, tampered = tampered_blob(remote.clone)
    assert check_replace_refs(Store(remote.clone)) == []
    git(remote.clone, "replace", stored, tampered)
    expected = (f"(store): warning KI421 replace-refs-present: this repository holds 1 "
                f"replace ref(s) (refs/replace/{stored}): git serves the replacement's "
                "bytes for each replaced object (git show, archive, checkout, log), kistore "
                "the stored ones")
    for args in (("verify",), ("verify", "--at", "HEAD")):
        done = remote.kistore(*args, check=False)
        assert done.returncode == 0, done.stdout  # a warning: the stored bytes are sound
        assert expected in done.stdout, args
    checked = remote.kistore("check", "HEAD~1..HEAD", check=False)
    assert expected in checked.stdout


def test_the_gate_says_replace_refs_of_the_receiving_repository_once(published, tmp_path):
    store = Store(published)
    head = git(published, "rev-parse", "HEAD").strip()
    git(published, "replace", head, git(published, "commit-tree", f"{head}^{{tree}}", "-m",
                                        "x").strip())
    found = gate.check_updates(store, [(gate.ZERO, head, "refs/heads/a"),
                                       (gate.ZERO, head, "refs/heads/b")])
    assert [f.rule.id for f in found].count("KI421") == 1
