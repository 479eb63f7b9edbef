"""``kistore notes restore``, then ``kistore notes push``: the push takes what restore wrote.

notes01's leftover: KI408 holds every notes commit a push brings to every line of each of
its parents (reviewer fresh01 F8). Restore wrote its one notes commit on top of the notes
history, so a history whose notes commit, not yet on the remote, had removed the lines
restore put back was refused at the next push, the removal being in the commits it
brings. Restore now rebuilds on the canonical remote's notes (as last fetched) then; a
removal the remote already holds (pushed before the gate judged every notes commit)
brings nothing refused, and restore keeps the history as before.

Each test pushes to a bare server running ``hooks/pre-receive`` (:class:`tests.prs.Remote`).
"""

from __future__ import annotations

import json

from kistore.attest import notes
from kistore.store import Store

from ..attest.test_attestation_evidence import RUN, STRANGER, bundle
from ..check.test_notes_gate_history import notes_git, run_blob, without_hook
from ..conftest import git
from ..prs import Remote
from .test_notes_rebase import kistore, note_text, remote  # noqa: F401 (its fixture)


def test_restore_of_a_line_this_clone_removed_writes_what_the_push_takes(remote):  # noqa: F811
    # the clone's own line (not pushed) taken out with `git notes edit`, then restored
    blob = run_blob(remote.clone)
    served = git(remote.bare, "rev-parse", "refs/notes/kistore").strip()
    theirs = git(remote.bare, "notes", "--ref", "kistore", "show", blob).encode()
    ours = note_text(remote, blob)
    own = bundle(STRANGER, "note")
    assert own in ours and own not in theirs
    notes_git(remote.clone, "add", "-f", blob, data=theirs)  # a removal origin lacks
    old = removing = git(remote.clone, "rev-parse", "refs/notes/kistore").strip()

    restored = kistore(remote, "notes", "restore")
    assert (restored.stdout, restored.stderr) == (
        f"1 attestation line(s) restored on 1 note(s): refs/notes/kistore:{blob} (on {RUN}); "
        f"written on origin's notes as last fetched ({served[:12]}), with this repository's "
        "lines, not on this repository's notes history: its notes commit "
        f"{removing[:12]}, which origin lacks, removed lines, and a notes push refuses every "
        "notes commit it brings that removes a line (notes only grow, KI408); the old tip "
        f"{old[:12]} stays in git: `git update-ref refs/notes/kistore {old}` puts it back; "
        "`kistore notes push origin` gives them to origin\n", "")
    tip = git(remote.clone, "rev-parse", "refs/notes/kistore").strip()
    assert git(remote.clone, "rev-list", "--parents", "-n1", tip).split() == [tip, served]
    assert note_text(remote, blob) == ours  # every line back, as the edit found them

    pushed = kistore(remote, "notes", "push", "origin")
    assert pushed.returncode == 0, pushed.stderr
    assert git(remote.bare, "rev-parse", "refs/notes/kistore").strip() == tip
    assert git(remote.bare, "notes", "--ref", "kistore", "show", blob).encode() == ours
    again = json.loads(kistore(remote, "notes", "restore", "--json").stdout)
    assert again == {"restored": 0, "notes": [], "leftOut": 0}


def _added_and_removed(published, tmp_path, kind: str) -> tuple[Remote, str, bytes]:
    """A server holding no notes; its clone's one line (a ``kind`` attestation on RUN) added
    and removed in two notes commits. The server, the note's object, the line's note."""
    here = Remote(published, tmp_path)
    blob = run_blob(here.clone)
    notes.attach(Store(here.clone), RUN, bundle(STRANGER, kind))
    text = note_text(here, blob)
    notes_git(here.clone, "remove", blob)
    return here, blob, text


def test_restore_of_a_line_the_remote_removed_keeps_the_history(published, tmp_path):
    # r90 F11's recovery: the removal is in origin's notes history already (pushed before
    # the gate judged every notes commit): the commit on top brings nothing refused
    here, blob, text = _added_and_removed(published, tmp_path, "reproduction")
    without_hook(here, "refs/notes/kistore")  # landed past the gate
    served = git(here.bare, "rev-parse", "refs/notes/kistore").strip()
    kistore(here, "notes", "fetch", "origin")

    restored = kistore(here, "notes", "restore")
    assert (restored.stdout, restored.stderr) == (
        f"1 attestation line(s) restored on 1 note(s): refs/notes/kistore:{blob} (on {RUN}); "
        "`kistore notes push REMOTE` gives them to a remote that lacks them\n", "")
    tip = git(here.clone, "rev-parse", "refs/notes/kistore").strip()
    assert git(here.clone, "rev-parse", f"{tip}^").strip() == served  # on top
    pushed = kistore(here, "notes", "push", "origin")
    assert pushed.returncode == 0, pushed.stderr
    assert git(here.bare, "rev-parse", "refs/notes/kistore").strip() == tip
    assert note_text(here, blob) == text


def test_restore_for_a_remote_holding_no_notes_starts_from_an_empty_root(published, tmp_path):
    here, blob, text = _added_and_removed(published, tmp_path, "note")
    old = removing = git(here.clone, "rev-parse", "refs/notes/kistore").strip()
    refused = kistore(here, "notes", "push", "origin", check=False)  # as restore found it
    assert refused.returncode == 1 and "error KI408 notes-line-removed" in refused.stderr

    restored = kistore(here, "notes", "restore", "--json")
    assert json.loads(restored.stdout) == {"restored": 1, "notes": [blob], "leftOut": 0,
                                           "rebuiltOn": "origin", "base": None, "old": old}
    git(here.clone, "update-ref", "refs/notes/kistore", old)  # as it said: back, then
    restored = kistore(here, "notes", "restore")
    assert restored.stdout == (
        f"1 attestation line(s) restored on 1 note(s): refs/notes/kistore:{blob} (on {RUN}); "
        "written from an empty root (origin's notes were never fetched here, or it holds "
        "none), with this repository's lines, not on this repository's notes history: its "
        f"notes commit {removing[:12]}, which origin lacks, removed lines, and a notes push "
        "refuses every notes commit it brings that removes a line (notes only grow, KI408); "
        f"the old tip {old[:12]} stays in git: `git update-ref refs/notes/kistore {old}` puts "
        "it back; `kistore notes push origin` gives them to origin\n")
    tip = git(here.clone, "rev-parse", "refs/notes/kistore").strip()
    assert git(here.clone, "rev-list", "--count", tip).strip() == "1"  # no parent
    assert note_text(here, blob) == text
    pushed = kistore(here, "notes", "push", "origin")
    assert pushed.returncode == 0, pushed.stderr
    assert git(here.bare, "rev-parse", "refs/notes/kistore").strip() == tip
