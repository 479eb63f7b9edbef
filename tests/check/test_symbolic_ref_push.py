"""A push through a symbolic ref is judged as an update of the ref it moves (reviewer r84 F1).

In the receiving repository ``refs/heads/master`` is a symbolic ref to ``refs/heads/main``
(``git symbolic-ref``): git's receive-pack moves ``main`` on a push to ``master`` (and
deletes ``main`` on a deletion of ``master``), while ``pre-receive`` is handed
``refs/heads/master``, no protected branch: a reshaped first-parent line (KI430) and a
force-push of main back to its root (KI407) each printed ``ok``. Each test pushes through a
real bare repository running ``hooks/pre-receive`` (:class:`tests.prs.Remote`).
"""

from __future__ import annotations

import os
import subprocess

import pytest

from kistore.check._refs import protected_refs, symbolic_target
from kistore.check.gate import check_updates
from kistore.store import Store

from ..conftest import git
from ..prs import KISTORE, Push, Remote
from .test_first_parent_line import docs_commit, run, update_branch

MAIN_AS_MASTER = "refs/heads/main (pushed as refs/heads/master, a symbolic ref to it)"


@pytest.fixture
def remote(published, tmp_path) -> Remote:
    """A server whose ``refs/heads/master`` is a symbolic ref to ``refs/heads/main``."""
    server = Remote(published, tmp_path)
    git(server.bare, "symbolic-ref", "refs/heads/master", "refs/heads/main")
    return server


def push(remote: Remote, *refspecs: str, force: bool = False) -> Push:
    """Push refspecs of the clone to the server through its pre-receive hook."""
    done = subprocess.run(["git", "push", *(["--force"] if force else []), "origin",
                           *refspecs], cwd=remote.clone, capture_output=True, text=True,
                          env={**os.environ, "KISTORE": KISTORE})
    return Push(done.returncode, done.stderr)


def test_main_merged_into_an_old_branch_pushed_to_a_symbolic_ref_of_main_is_refused(remote):
    fork = remote.main()
    docs_commit(remote, "landed")
    assert push(remote, "HEAD:main").accepted
    landed = remote.main()
    run(remote.clone, "checkout", "-q", "-b", "pr", fork)
    docs_commit(remote, "notes")
    update_branch(remote, "pr")  # main merged INTO the branch: main's commit a side line
    tip = run(remote.clone, "rev-parse", "HEAD").strip()

    pushed = push(remote, "HEAD:master")
    assert not pushed.accepted
    assert (f"error KI430 first-parent-line-broken: {MAIN_AS_MASTER}: {landed[:12]} is not "
            f"on the first-parent line of {tip[:12]}") in pushed.output
    assert remote.main() == landed
    # both names in one push: git hands the hook both lines; the update is judged once
    both = push(remote, "HEAD:master", "HEAD:main")
    assert not both.accepted
    assert both.output.count("error KI430 first-parent-line-broken") == 1
    assert remote.main() == landed


def test_a_force_push_of_main_to_its_root_through_a_symbolic_ref_is_refused(remote):
    before = remote.main()
    root = run(remote.clone, "rev-list", "--max-parents=0", "HEAD").split()[0]
    assert root != before
    pushed = push(remote, f"{root}:master", force=True)
    assert not pushed.accepted
    assert (f"error KI407 protected-ref-rewritten: non-fast-forward update {before[:12]}.."
            f"{root[:12]} of {MAIN_AS_MASTER} refused") in pushed.output
    assert remote.main() == before


def test_deleting_a_symbolic_ref_two_deep_to_main_is_refused(remote):
    # git deletes what the name resolves to: main itself, trunk -> master -> main
    git(remote.bare, "symbolic-ref", "refs/heads/trunk", "refs/heads/master")
    before = remote.main()
    pushed = push(remote, ":trunk")
    assert not pushed.accepted
    assert ("error KI407 protected-ref-rewritten: deletion of refs/heads/main (pushed as "
            "refs/heads/trunk, a symbolic ref to it) refused") in pushed.output
    assert remote.main() == before
    assert (remote.bare / "refs/heads/trunk").read_text() == "ref: refs/heads/master\n"


def test_a_push_through_a_symbolic_ref_to_an_unprotected_branch_passes(remote):
    run(remote.clone, "checkout", "-q", "-b", "feature")
    docs_commit(remote, "one")
    assert push(remote, "HEAD:feature").accepted
    git(remote.bare, "symbolic-ref", "refs/heads/alias", "refs/heads/feature")
    main = remote.main()
    moved = docs_commit(remote, "two")
    pushed = push(remote, "HEAD:alias")
    assert pushed.accepted, pushed.output
    assert "refs/heads/main" not in pushed.output
    assert git(remote.bare, "rev-parse", "refs/heads/feature").strip() == moved
    assert remote.main() == main


def test_a_branch_head_names_through_a_symbolic_ref_is_protected(remote):
    # HEAD -> refs/heads/stable -> refs/heads/release: release is the default branch
    run(remote.clone, "checkout", "-q", "-b", "release")
    docs_commit(remote, "release")
    assert push(remote, "HEAD:release").accepted
    git(remote.bare, "symbolic-ref", "refs/heads/stable", "refs/heads/release")
    git(remote.bare, "symbolic-ref", "HEAD", "refs/heads/stable")
    store = Store(remote.bare)
    assert symbolic_target(store.repo, "HEAD") == "refs/heads/release"
    assert {"refs/heads/stable", "refs/heads/release"} <= protected_refs(store)
    before = git(remote.bare, "rev-parse", "refs/heads/release").strip()
    pushed = push(remote, "HEAD~1:release", force=True)
    assert not pushed.accepted
    assert (f"error KI407 protected-ref-rewritten: non-fast-forward update {before[:12]}.."
            ) in pushed.output
    assert git(remote.bare, "rev-parse", "refs/heads/release").strip() == before


def test_an_old_value_main_does_not_hold_through_a_symbolic_ref_is_refused(remote):
    # git hands the old value the pusher saw for the name: through a symbolic ref to main it
    # must be main's own, or the update is judged from a tip main does not have
    main = remote.main()
    parent = run(remote.clone, "rev-parse", "HEAD~1").strip()
    found = check_updates(Store(remote.bare), [(parent, main, "refs/heads/master")])
    assert [f.rule.id for f in found] == ["KI407"]
    assert found[0].message == (
        f"refs/heads/master is a symbolic ref to refs/heads/main, so this push moves "
        f"refs/heads/main, but gives its old value as {parent[:12]} while refs/heads/main is "
        f"at {main[:12]}: push to refs/heads/main itself, from its current tip")
    assert found[0].extra == {"ref": "refs/heads/main", "pushed": "refs/heads/master",
                              "old": parent, "held": main}
    # the pre-push hook's names are the remote's: the clone's symbolic refs are not asked
    git(remote.clone, "symbolic-ref", "refs/heads/master", "refs/heads/main")
    before_push = check_updates(Store(remote.clone), [(parent, main, "refs/heads/master")],
                                held=[parent])
    assert [f.rule.id for f in before_push if f.rule.severity == "error"] == []
