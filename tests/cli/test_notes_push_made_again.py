"""A refused ``kistore notes push`` says what that push sends: as is, or made again (doc02 L10).

``notes push`` sends the notes commits origin lacks as they are while each is dated within a
minute of the clock, else makes them again as one commit dated now (KI437). Made again, a
refused tip line was said to have "entered in notes commit X, which the push brings, so
deleting it at the tip ... leaves it in the history the push sends, refused again": X was the
commit made for the push, which no ref of the clone points to, and the edit at the tip was
enough. Within the minute, a line added and taken back is refused (KI408) and the rebuild
advised, true of that push; a push after the minute sends no take-back, now said too.

Each test pushes to a bare server running ``hooks/pre-receive`` (:class:`tests.prs.Remote`).
"""

from __future__ import annotations

import os
import re
import subprocess
import time

from kistore.attest.notes_dated import Redated
from kistore.cli._notes_made_again import made_again

from ..attest.test_attestation_evidence import STRANGER, bundle
from ..check.test_notes_gate_history import notes_git, run_blob
from ..conftest import git
from .test_notes_push_way_out import way_out
from .test_notes_rebase import kistore, note_text, remote, server_history  # noqa: F401 (a fixture)

GARBAGE = b"garbage"


def noted_back(clone, blob: str, text: bytes, seconds: int) -> None:
    """``git notes add -f`` of ``text`` on ``blob``, its notes commit dated ``seconds`` ago."""
    subprocess.run(["git", "notes", "--ref", "kistore", "add", "-f", "-F", "-", blob],
                   cwd=clone, input=text, check=True, capture_output=True,
                   env={**os.environ, "GIT_COMMITTER_DATE": f"@{int(time.time()) - seconds} +0000"})


def named_commits(text: str) -> set[str]:
    """Every notes commit id a refusal names (12 hex digits after "notes commit(s)")."""
    return set(re.findall(r"notes commit(?:\(s\))? ([0-9a-f]{12})", text))


def test_a_refused_tip_line_made_again_names_no_commit_and_the_edit_alone_mends(remote):  # noqa: F811 (remote: a fixture)
    blob = run_blob(remote.clone)
    held = note_text(remote, blob)
    noted_back(remote.clone, blob, held + GARBAGE + b"\n", 180)  # attested 3 min ago

    refused = kistore(remote, "notes", "push", "origin", check=False)
    assert refused.returncode == 1
    assert named_commits(refused.stderr) == set()  # before: the commit made for the push
    assert ("fix KI409 (1 finding): deleting the line at the tip (an edit of the note) leaves "
            "it out: the notes commits origin lacks are more than a minute old, so `kistore "
            "notes push origin` sends them made again as one notes commit dated now, which "
            "holds the tip's lines only (KI437), not the notes commit the line entered in; or "
            "`kistore notes rebase origin` rebuilds the notes on origin's, leaving out each "
            "line that does not verify\n") in refused.stderr, refused.stderr
    assert way_out(refused.stderr) == (
        "To leave a line out: `git notes --ref kistore edit OBJ` and delete it, or `git notes "
        "--ref kistore remove OBJ` when it is the note's only line (OBJ: "
        f"{blob}); then `kistore notes push origin` again: the notes commits origin lacks "
        "are more than a minute old, so it sends them made again as one notes commit dated "
        "now, which holds the tip's lines only (KI437), not the deleted line; nothing was "
        "pushed, your notes are unchanged")

    notes_git(remote.clone, "add", "-f", blob, data=held)  # the edit: the line deleted
    pushed = kistore(remote, "notes", "push", "origin")  # before: said to be refused again
    assert pushed.returncode == 0
    assert GARBAGE.decode() not in server_history(remote)
    assert note_text(remote, blob) == held


def test_a_line_taken_back_within_the_minute_is_refused_and_after_it_is_not_sent(remote):  # noqa: F811 (remote: a fixture)
    blob = run_blob(remote.clone)
    own = bundle(STRANGER, "note")  # the fixture's own line, never pushed
    held = note_text(remote, blob)
    assert own in held.split(b"\n")
    notes_git(remote.clone, "add", "-f", blob, data=held.replace(own + b"\n", b""))
    took = git(remote.clone, "rev-parse", "refs/notes/kistore").strip()

    refused = kistore(remote, "notes", "push", "origin", check=False)
    assert refused.returncode == 1
    assert (f"error KI408 notes-line-removed: notes commit {took[:12]}, in the history this "
            "push brings, removes 1 attestation line(s)") in refused.stderr, refused.stderr
    assert way_out(refused.stderr) == (
        "the refused line or path is in the history of refs/notes/kistore only (its tip no "
        "longer holds it), so no edit takes it out: `kistore notes rebase origin` rebuilds "
        "refs/notes/kistore on origin's notes tip and adds back each line this repository "
        "holds that origin's notes lack (signatures are over the bundles: they stay valid), "
        "then `kistore notes push origin` again (this holds while the notes commits origin "
        "lacks are dated within a minute of this machine's clock: a push sends their "
        "history, as it is or, from the first dated ahead of the clock, made again one by "
        "one dated at the push with the same lines; a `kistore notes push origin` more than "
        "a minute after the earliest of them is dated sends them made again as one notes "
        "commit dated then, holding the tip's lines only (KI437), so an edit at the tip is "
        "then enough and a line taken back is not sent); nothing was pushed, your notes are "
        "unchanged")

    # the same take-back, its notes commit dated past the minute: made again, accepted
    notes_git(remote.clone, "add", "-f", blob, data=held)
    noted_back(remote.clone, blob, held.replace(own + b"\n", b""), 180)
    pushed = kistore(remote, "notes", "push", "origin")
    assert pushed.returncode == 0
    assert own.decode() not in server_history(remote)


def test_made_again_reads_redated_kept_not_the_commit_message():
    """doc01 part 3: which push it is comes from ``Redated.kept``, not the message's words.

    On BASE b1992eea ``made_again(repo, theirs, pushed)`` read ``AS_ONE`` in the commit's
    message, which a commit made again one by one keeps (its message copied).
    """
    as_one = [Redated("a" * 40, "b" * 40, -180, False), Redated("c" * 40, "b" * 40, -120, False)]
    one_by_one = [Redated("d" * 40, "e" * 40, 30, True)]
    assert made_again(as_one, "b" * 40) is True
    assert made_again(one_by_one, "e" * 40) is False  # whatever its message says
    assert made_again([], "b" * 40) is False  # sent as it is
    assert made_again(as_one, "e" * 40) is False  # not the commit made again
