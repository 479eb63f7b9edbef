"""Notes a plain ``git fetch`` brought through a user's refspec, and never merged (msg95).

With ``+refs/notes/kistore:refs/notes/remotes/origin/kistore`` among a clone's fetch
refspecs, every ``git fetch`` moves the tracking ref ``kistore notes fetch`` writes, and
merges nothing into ``refs/notes/kistore``, which queries read. The tracking ref counted as
"fetched": a maintainer's withdrawal fetched that way was not applied, and no warning said
so. A tracking ref counts now only when ``refs/notes/kistore`` holds its tip (the one
``kistore notes fetch`` merged, ours, or an ancestor of ours).

Two real clones of the ``group`` store (the index): one with the refspec, one that
pushes a note with ``kistore notes push``; the index's maintainer withdraws ``fast``.
"""

from __future__ import annotations

from kistore.attest import attestation, notes
from kistore.core import layout
from kistore.store import Store

from ..conftest import git
from ..sparse import trust_maintainer, withdraw
from .test_notes_freshness import (
    NOT_FETCHED,
    STRANGER,
    attest_locally,
    clone_of,
    fast_rank,
    kistore,
    out,
    run_of,
)

REFSPEC = "+refs/notes/kistore:refs/notes/remotes/origin/kistore"
UNMERGED = ("refs/notes/remotes/origin/kistore holds notes of origin that refs/notes/kistore "
            "does not: a plain `git fetch` brought them there (a fetch refspec of this repository "
            "maps the notes to it) and merged nothing, and queries read refs/notes/kistore "
            "alone")


def test_notes_a_plain_git_fetch_moved_unmerged_are_warned_of(group, tmp_path):
    trust_maintainer(group)
    clone = clone_of(group, tmp_path / "clone")
    git(clone, "config", "--add", "remote.origin.fetch", REFSPEC)
    other = clone_of(group, tmp_path / "other")
    attest_locally(other)
    assert kistore(other, "notes", "push", "origin").exit_code == 0  # the index holds notes
    assert kistore(clone, "notes", "fetch", "origin").exit_code == 0
    assert fast_rank(clone) == (1, "")  # nothing withdrawn yet, the notes merged: no warning

    withdraw(group, run_of(group, "fast"), as_file=False)  # the maintainer's note
    git(clone, "fetch", "-q")  # the refspec moves the tracking ref; nothing is merged
    assert out(clone, "rev-parse", "refs/notes/remotes/origin/kistore") == \
        out(group.root, "rev-parse", "refs/notes/kistore") != \
        out(clone, "rev-parse", "refs/notes/kistore")
    rank, stderr = fast_rank(clone)
    assert rank == 1  # the withdrawal is not in refs/notes/kistore: before, said nowhere
    assert stderr == (f"warning: {UNMERGED}: the remote's attestations (withdrawals, reruns) "
                      "are not applied to this answer; `kistore notes fetch origin` fetches "
                      "them\n")
    assert NOT_FETCHED.format("origin") + f": {UNMERGED}" in \
        kistore(clone, "show", "BenchmarkRun/fast").stdout
    built = kistore(clone, "site", "build", str(tmp_path / "site"))
    assert built.exit_code == 1 and UNMERGED in built.stderr
    assert not (tmp_path / "site").exists()

    fetched = kistore(clone, "notes", "fetch", "origin")  # the command the warning names
    assert fetched.exit_code == 0, fetched.output
    assert fast_rank(clone) == (None, "")  # withdrawn, and no warning

    # our own notes, pushed by plain git through the refspec: git sets the tracking ref to
    # our tip, which counts (no fetch needed: it is what refs/notes/kistore holds)
    store = Store(clone)
    subject = run_of(store, "slow")
    statement = attestation.make_statement(subject, layout.object_path(subject), "note", {
        "text": "ran it too", "createdAt": "2026-07-11T00:00:00Z"})
    notes.attach(store, subject, attestation.sign_statement(statement, STRANGER).to_bytes())
    git(clone, "push", "-q", "origin", "refs/notes/kistore")
    assert out(clone, "rev-parse", "refs/notes/remotes/origin/kistore") == \
        out(clone, "rev-parse", "refs/notes/kistore")
    assert fast_rank(clone) == (None, "")
    withdraw(group, run_of(group, "ref"), as_file=False)
    git(clone, "fetch", "-q")
    assert fast_rank(clone)[1].startswith(f"warning: {UNMERGED}")
    # merged by hand with git: our notes descend from the tracking ref's tip, which counts
    git(clone, "notes", "--ref=kistore", "merge", "-q", "-s", "cat_sort_uniq",
        "refs/notes/remotes/origin/kistore")
    rank, stderr = fast_rank(clone)
    assert rank is None and stderr.startswith("warning: reference run ref is withdrawn by ")
    assert "notes" not in stderr  # the withdrawal applied, no word of unfetched notes
