"""Reviewer r86 F17, "revoked key + unpushed note": real pushes to a bare server running
hooks/pre-receive.

A maintainer signs a withdrawal (a note) while the key is trusted, then revokes the key in
a commit, the note still unpushed. ``kistore notes push`` sent it without a word: to a
server still without the revocation, where it entered before it and counted for good; or,
the revocation pushed first, it was refused there (KI411) and blocked every later notes
push. It now judges the notes as the server's hook does, against this clone's main, and
refuses before sending anything, naming the note and how to leave it out.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from kistore.attest import notes, signing
from kistore.store import Store

from ..check.test_hooks import KISTORE, clone, kistore_env, server  # noqa: F401 (its fixtures)
from ..conftest import git, next_second
from .test_attestation_evidence import MAINTAINER_KEY, RUN, bundle
from .test_notes_unsent import server_notes

KEYID = signing.keyid(MAINTAINER_KEY.public_key())


def kistore(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([KISTORE, *args], cwd=cwd, capture_output=True, text=True)


def _trusted_withdrawal(clone: Path) -> str:  # noqa: F811 (fixtures of test_hooks)
    """Trust the maintainer key (pushed), sign a withdrawal of RUN as a note; its object id."""
    key = clone.parent / "maintainer.pub"
    key.write_text(signing.public_key_line(MAINTAINER_KEY.public_key()) + "\n")
    assert kistore(clone, "trust", "add", str(key), "--role", "maintainer").returncode == 0
    git(clone, "add", "-A")
    git(clone, "commit", "-q", "-m", "trust the maintainer")
    pushed = subprocess.run(["git", "push", "-q", "origin", "main"], cwd=clone,
                            capture_output=True, text=True)
    assert pushed.returncode == 0, pushed.stderr
    next_second()  # a key counts from the second after the commit that trusts it
    location = notes.attach(Store(clone), RUN, bundle(MAINTAINER_KEY, "withdrawal"))
    return location.rsplit(":", 1)[1]


def _revoke(clone: Path) -> None:  # noqa: F811 (fixtures of test_hooks)
    next_second()  # entry times have whole seconds: a revocation in the note's own
    # second is not "after it entered" (it failed so when both fell in one second)
    assert kistore(clone, "trust", "revoke", KEYID).returncode == 0
    git(clone, "add", "-A")
    git(clone, "commit", "-q", "-m", "revoke the maintainer key")


def _refused(clone: Path, obj: str) -> None:  # noqa: F811 (fixtures of test_hooks)
    ours = git(clone, "rev-parse", "refs/notes/kistore").strip()
    refused = kistore(clone, "notes", "push", "origin")
    assert refused.returncode == 1, refused.stdout
    said = refused.stderr
    assert said.startswith(
        "error: not pushed to origin: the gate refuses the notes this push would send (as "
        "origin's pre-receive hook does, judged against this repository's main):\n"
        f"refs/notes/kistore:{obj}: error KI411 new-attestation-key-not-trusted: a new "
        f"withdrawal attestation by {KEYID} cannot enter now: key {KEYID} was revoked at "), said
    # the edit, then the rebuild: the deletion is a removal in the history (fresh01 F8)
    assert (f"(OBJ: {obj}); then, as the line stays in the notes commit it entered in, which "
            "the push brings, and its deletion is a removal (notes only grow in every notes "
            "commit, KI408): `kistore notes rebase origin` rebuilds") in " ".join(said.split())
    assert " ".join(said.split()).endswith(
        "then `kistore notes push origin` again; nothing was pushed, your notes are unchanged")
    assert git(clone, "rev-parse", "refs/notes/kistore").strip() == ours


def test_a_note_by_a_key_revoked_before_the_push_is_refused_before_it_is_sent(
        server, clone):  # noqa: F811 (fixtures of test_hooks)
    obj = _trusted_withdrawal(clone)
    _revoke(clone)  # committed, not pushed: the server still trusts the key
    _refused(clone, obj)
    # here it entered before the revocation, and counts: said so, not "trusted" alone
    listed = kistore(clone, "attestations", str(RUN), "--json")
    reason = json.loads(listed.stdout)["attestations"][0]["reason"]
    assert reason.startswith("trusted maintainer key when this entered (")
    assert "); revoked since, at " in reason
    assert reason.endswith(": it counts, trust is not retroactive; a note not yet pushed "
                           "enters a remote when pushed, and `kistore notes push` refuses "
                           "it (KI411)")
    assert server_notes(server) == ""  # it would have entered, and counted for good
    # the revocation lands; the note is refused still (the server's hook would too)
    assert subprocess.run(["git", "push", "-q", "origin", "main"], cwd=clone,
                          capture_output=True).returncode == 0
    _refused(clone, obj)
    assert server_notes(server) == ""
    # deleted at the tip, it stays in the notes commit it entered in, and its deletion is a
    # removal in the history the push brings (KI408 per notes commit, fresh01 F8): refused,
    # the rebuild named (here origin holds no notes and nothing else is left: nothing to push)
    git(clone, "notes", "--ref", "kistore", "remove", obj)
    done = kistore(clone, "notes", "push", "origin")
    assert done.returncode == 1, done.stderr
    assert "error KI408 notes-line-removed: notes commit " in done.stderr, done.stderr
    assert "`kistore notes rebase origin`" in done.stderr.splitlines()[-1]
    assert server_notes(server) == ""
    # the rebuild, run as printed, leaves nothing to push (notes01: it refused, "no line
    # would stay"), and the next push says so
    rebased = kistore(clone, "notes", "rebase", "origin")
    assert rebased.returncode == 0, rebased.stderr
    assert ("deleted refs/notes/kistore, as origin holds none; this repository's notes are "
            "origin's, nothing is left to push; ") in rebased.stdout
    pushed = kistore(clone, "notes", "push", "origin")
    assert pushed.returncode == 0, pushed.stderr
    assert pushed.stdout.startswith("nothing to push: ")
    assert server_notes(server) == ""


def test_a_note_by_a_key_still_trusted_is_pushed(server, clone):  # noqa: F811 (fixtures of test_hooks)
    _trusted_withdrawal(clone)
    done = kistore(clone, "notes", "push", "origin")
    assert done.returncode == 0, done.stderr
    assert server_notes(server) == git(clone, "rev-parse", "refs/notes/kistore").strip()
    _revoke(clone)  # after it entered: it counts (a revocation is not retroactive)
    assert kistore(clone, "notes", "push", "origin").returncode == 0
