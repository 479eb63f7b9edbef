"""A refused ``kistore notes push``: the first fix printed is one that works (fresh98 MED 2).

A note line origin already held, tampered with in this clone (its payload edited), was
refused (KI409 + KI408) with "To leave a line out: `git notes --ref kistore edit OBJ` and
delete it ... then `kistore notes push origin` again". Done so, the push was refused again:
the bad line stays in the notes commit it entered in, which the push still sends, and the
removed line is still missing; only that second refusal named ``kistore notes rebase
origin``. Now the refusal decides from what the notes history holds: a refused line that
entered in a notes commit origin lacks, or a line the push removes, is mended by the
rebuild, said first; a line no rebuild leaves out (a valid line by a key not trusted for its
role, KI411) by the edit, then the rebuild (since fresh01 F8 the deletion is a removal in the
history the push brings). Each test runs the printed commands as printed, then pushes again.

Each test pushes to a bare server running ``hooks/pre-receive`` (:class:`tests.prs.Remote`).
"""

from __future__ import annotations

import base64
import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

from kistore.attest import notes, signing
from kistore.store import Store

from ..attest.test_attestation_evidence import MAINTAINER_KEY, RERUN_KEY, RUN, STRANGER, bundle
from ..check.test_notes_gate_history import notes_git, run_blob
from ..prs import KISTORE, Remote, _env
from .test_notes_rebase import kistore, note_text, remote, server_history  # noqa: F401 (a fixture)

ORIGINAL = bundle(STRANGER, "reproduction")
"""The line origin holds (the ``remote`` fixture's): the clone tampers with its copy."""


def tampered(line: bytes) -> bytes:
    """``line`` with its payload's outcome edited after signing (canonical bytes still)."""
    doc = json.loads(line)
    payload = json.loads(base64.b64decode(doc["dsseEnvelope"]["payload"]))
    payload["predicate"]["outcome"] = "not-reproduced"
    doc["dsseEnvelope"]["payload"] = base64.b64encode(
        json.dumps(payload, separators=(",", ":"), sort_keys=True).encode()).decode()
    return json.dumps(doc, separators=(",", ":"), sort_keys=True).encode()


def way_out(stderr: str) -> str:
    """The refusal's last line: how to leave out what the push would send."""
    last = stderr.rstrip("\n").splitlines()[-1]
    assert last.endswith("; nothing was pushed, your notes are unchanged"), stderr
    return last


def commands(text: str) -> list[str]:
    """The commands ``text`` gives, in order: what it puts between backticks."""
    return re.findall(r"`([^`]+)`", text)


def run_as_printed(server: Remote, command: str, **env: str) -> None:
    """Run ``command`` in the clone, split as a shell splits it, ``kistore`` on PATH."""
    path = f"{os.path.dirname(KISTORE)}{os.pathsep}{os.environ['PATH']}"
    subprocess.run(shlex.split(command), cwd=server.clone, check=True, capture_output=True,
                   env={**_env(), "PATH": path, "KISTORE": KISTORE, **env})


def test_a_tampered_line_origin_held_is_advised_the_rebuild_first_and_it_works(remote):  # noqa: F811 (remote: a fixture)
    blob = run_blob(remote.clone)
    held = note_text(remote, blob)
    assert ORIGINAL in held.split(b"\n")
    bad = tampered(ORIGINAL)
    notes_git(remote.clone, "add", "-f", blob, data=b"".join(
        line + b"\n" for line in sorted(set(held.split(b"\n")[:-1]) - {ORIGINAL} | {bad})))
    entered = subprocess.run(["git", "rev-parse", "refs/notes/kistore"], cwd=remote.clone,
                             check=True, capture_output=True, text=True).stdout.strip()

    refused = kistore(remote, "notes", "push", "origin", check=False)
    assert refused.returncode == 1
    number = sorted(set(held.split(b"\n")[:-1]) - {ORIGINAL} | {bad}).index(bad) + 1
    assert (f"error KI409 notes-line-invalid: line {number} of the note: signature does not "
            "verify") in refused.stderr
    assert "error KI408 notes-line-removed: the push removes 1 attestation line(s)" \
        in refused.stderr
    assert "git notes --ref kistore edit" not in refused.stderr  # refused again, done so
    assert (f"fix KI409 (1 finding): the line entered in notes commit {entered[:12]}, which "
            "the push brings, so deleting it at the tip (an edit of the note) leaves it in "
            "the history the push sends, refused again: push a notes history without that "
            "commit (`kistore notes rebase origin` ") in refused.stderr, refused.stderr
    assert ("fix KI408 (1 finding): notes only grow: `kistore notes rebase origin` rebuilds "
            "a repository's notes on origin's, which hold the removed line(s)") in refused.stderr
    said = way_out(refused.stderr)
    assert said.startswith(f"the refused line(s) entered in notes commit(s) {entered[:12]}, "
                           "which origin lacks and this push brings"), said
    first, then = commands(said)[:2]
    assert (first, then) == ("kistore notes rebase origin", "kistore notes push origin")

    run_as_printed(remote, first)
    run_as_printed(remote, then)
    served = subprocess.run(["git", "notes", "--ref", "kistore", "show", blob],
                            cwd=remote.bare, check=True, capture_output=True).stdout
    assert ORIGINAL in served.split(b"\n") and bad not in served  # the original back
    assert bundle(STRANGER, "note") in served  # this clone's own line sent with it
    assert bad.decode() not in server_history(remote)


def test_the_edit_said_first_was_refused_again(remote):  # noqa: F811 (remote: a fixture)
    """The old first fix, done (as fresh98 did): the push is refused again, in history."""
    blob = run_blob(remote.clone)
    bad = tampered(ORIGINAL)
    notes_git(remote.clone, "append", blob, data=bad)
    refused = kistore(remote, "notes", "push", "origin", check=False)
    assert refused.returncode == 1 and "git notes --ref kistore edit" not in refused.stderr
    assert commands(way_out(refused.stderr))[0] == "kistore notes rebase origin"
    notes_git(remote.clone, "add", "-f", blob, data=note_text(remote, blob).replace(
        b"\n" + bad, b""))  # the line deleted at the tip
    again = kistore(remote, "notes", "push", "origin", check=False)
    assert again.returncode == 1
    assert "in the history this push brings, holds as line" in again.stderr, again.stderr


def editor_deleting(line: bytes, where: Path) -> str:
    """A GIT_EDITOR that deletes ``line`` from the file it is given: "and delete it"."""
    (where / "line").write_bytes(line)
    script = where / "delete-line.py"
    script.write_text(
        "import sys\nfrom pathlib import Path\n"
        f"line = Path({str(where / 'line')!r}).read_bytes()\n"
        "note = Path(sys.argv[1])\n"
        "note.write_bytes(b''.join(l + b'\\n' for l in note.read_bytes().splitlines() "
        "if l != line))\n")
    return f"{shlex.quote(sys.executable)} {shlex.quote(str(script))}"


def trusted(server: Remote) -> None:
    """Trust RERUN_KEY for rerun and MAINTAINER_KEY for maintainer on origin's main."""
    def trust(clone):
        for key, role in ((RERUN_KEY, "rerun"), (MAINTAINER_KEY, "maintainer")):
            path = clone.parent / f"{role}.pub"
            path.write_text(signing.public_key_line(key.public_key()) + "\n")
            server.kistore("trust", "add", str(path), "--role", role, "--valid-from",
                           "2026-01-01")

    assert server.pr("trust", trust).accepted


def test_the_edit_then_the_rebuild_where_no_rebuild_alone_mends(
        remote, tmp_path):  # noqa: F811 (remote: a fixture)
    # a withdrawal by a key trusted for rerun alone (written by hand or by an older
    # kistore; `kistore attest` refuses it now): valid, so the rebuild adds it back; it is
    # deleted at the tip first, then the rebuild leaves the deletion out of the history
    # (until fresh01 F8 the edit alone was said: a removal in the history the push brings)
    trusted(remote)
    blob = run_blob(remote.clone)
    withdrawal = bundle(RERUN_KEY, "withdrawal")
    notes.attach(Store(remote.clone), RUN, withdrawal)
    refused = kistore(remote, "notes", "push", "origin", check=False)
    assert refused.returncode == 1
    assert "error KI411 new-attestation-key-not-trusted" in refused.stderr, refused.stderr
    said = way_out(refused.stderr)
    assert said.startswith(f"To leave a line out: `git notes --ref kistore edit OBJ` and "
                           f"delete it, or `git notes --ref kistore remove OBJ` when it is "
                           f"the note's only line (OBJ: {blob}); then, as the line stays in "
                           "the notes commit it entered in, which the push brings, and its "
                           "deletion is a removal (notes only grow in every notes commit, "
                           "KI408): `kistore notes rebase origin` rebuilds"), said
    edit, _remove, rebuild, again = commands(said)[:4]
    assert (rebuild, again) == ("kistore notes rebase origin", "kistore notes push origin")
    run_as_printed(remote, edit.replace("OBJ", blob),  # "and delete it", in the editor
                   GIT_EDITOR=editor_deleting(withdrawal, tmp_path))
    run_as_printed(remote, rebuild)
    run_as_printed(remote, again)
    served = subprocess.run(["git", "notes", "--ref", "kistore", "show", blob],
                            cwd=remote.bare, check=True, capture_output=True).stdout
    assert withdrawal not in served and bundle(STRANGER, "note") in served

    # and a tampered line beside it: the edit first, then the rebuild (which leaves the
    # tampered line out and the deleted one); each run as printed
    notes.attach(Store(remote.clone), RUN, withdrawal)
    notes_git(remote.clone, "append", blob, data=tampered(ORIGINAL))
    refused = kistore(remote, "notes", "push", "origin", check=False)
    assert refused.returncode == 1
    assert "error KI411 new-attestation-key-not-trusted" in refused.stderr, refused.stderr
    said = way_out(refused.stderr)
    assert said.startswith(f"First, to leave a line out: `git notes --ref kistore edit OBJ` "
                           f"and delete it, or `git notes --ref kistore remove OBJ` when it "
                           f"is the note's only line (OBJ: {blob}); then: the refused "
                           "line(s) entered in notes commit(s) "), said
    edit, _remove, rebuild, again = commands(said)[:4]
    assert (rebuild, again) == ("kistore notes rebase origin", "kistore notes push origin")
    run_as_printed(remote, edit.replace("OBJ", blob),
                   GIT_EDITOR=editor_deleting(withdrawal, tmp_path))
    assert withdrawal not in note_text(remote, blob)
    run_as_printed(remote, rebuild)
    run_as_printed(remote, again)
    served = subprocess.run(["git", "notes", "--ref", "kistore", "show", blob],
                            cwd=remote.bare, check=True, capture_output=True).stdout
    assert withdrawal not in served and ORIGINAL in served
    assert b"not-reproduced" not in served
