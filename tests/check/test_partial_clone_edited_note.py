"""A note on an edited object's original bytes in a blob-less clone that lacks them (att01).

att00 made ``verify`` say a note on an edited object's stored bytes once, in KI308 ("judged
again once the bytes are restored"), not KI304 "note on git object B, which is no object
file" with a branch hunt: it hashes the noted blob and finds it is the object's. A partial
clone (``git clone --filter=blob:none``) holds every tree but only the blobs it read; when
it lacks the original blob and cannot fetch it (the remote unreachable), it cannot hash it,
and KI304 came back, accusing a blob it never saw. Now: a noted blob the clone lacks, which
the object's path held in its history, is fetched (one ``git fetch``); if git cannot, KI308
says the bytes are not in this clone and gives the fetch, and KI304 is not said. The server
is a real bare repository allowing filters, cloned by ``file://`` (no local shortcut).
"""

from __future__ import annotations

import json
import shlex
import subprocess
from pathlib import Path

import pytest

from kistore.attest import notes

from ..attest.test_attestation_evidence import RUN, STRANGER, bundle
from ..conftest import PUBLISHED, commit_all, git
from ..partial import missing
from ..prs import KISTORE
from .test_edited_object_attestations import ON_EDITED, PATH, _edit


@pytest.fixture
def blobless(record_store, store_path, tmp_path) -> tuple[Path, Path, str, str]:
    """A server whose main edited the noted run (committed), and a blob-less clone of it with
    the notes (their blobs) fetched but not the run's original bytes.

    Returns:
        (the clone, the server, the original blob, the commit holding it).
    """
    notes.attach(record_store, RUN, bundle(STRANGER, "note"))
    original = git(store_path, "rev-parse", f"HEAD:{PATH}").strip()
    holder = git(store_path, "rev-parse", "HEAD").strip()
    _edit(store_path)
    commit_all(store_path, "a slower run")
    git(store_path, "branch", "-M", "main")
    server = tmp_path / "server.git"
    git(tmp_path, "clone", "-q", "--bare", str(store_path), str(server))
    git(server, "config", "uploadpack.allowFilter", "true")
    git(store_path, "push", "-q", str(server), "refs/notes/kistore")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "--filter=blob:none", f"file://{server}", str(clone))
    git(clone, "fetch", "-q", "--no-filter", "origin", "refs/notes/kistore:refs/notes/kistore")
    lacking = git(clone, "rev-list", "--objects", "--all", "--missing=print")
    assert [line for line in lacking.splitlines() if line.startswith("?")] == [f"?{original}"]
    return clone, server, original, holder


def _verify(clone: Path) -> list[dict]:
    done = subprocess.run([KISTORE, "verify", "--format", "json"], cwd=clone,
                          capture_output=True, text=True)
    assert done.returncode == 1, done.stderr  # KI101, KI401: the edit
    return json.loads(done.stdout)["findings"]


def _ki308(findings: list[dict]) -> dict:
    (found,) = [f for f in findings if f["rule"] == "KI308"]
    return found


NOT_FETCHED = ("; notes not fetched: run `kistore notes fetch origin`: refs/notes/kistore "
               "holds only the attestations made here (if the remote holds none, the fetch "
               "records so and this goes)")
"""The notes came by `git fetch`, not `kistore notes fetch`: said as ever, after."""


def test_an_unreachable_remote_is_said_with_the_fetch_not_ki304(blobless, tmp_path):
    clone, server, original, holder = blobless
    server.rename(tmp_path / "away.git")  # offline: the clone cannot fetch the blob
    findings = _verify(clone)
    assert [(f["rule"], f.get("file")) for f in findings] == [
        ("KI101", PATH), ("KI401", PATH), ("KI308", None)]  # no KI304
    said = _ki308(findings)
    reason = said["message"].split("could not fetch from origin (", 1)[1].split(")", 1)[0]
    assert reason == f"fatal: '{server}' does not appear to be a git repository"
    command = f"git fetch --no-write-fetch-head origin {original}"
    assert said["message"] == (
        "0 attestation(s) from notes (refs/notes/kistore), 0 from files (store/attestations/); "
        f"1 more from notes on git object {original}, the bytes {PATH} held at commit "
        f"{holder[:12]}, which this partial clone lacks and could not fetch from origin "
        f"({reason}): whether they are the object's stored bytes cannot be told here, and "
        f"they are not judged; `{command}` fetches them (then `kistore verify` again)"
        + NOT_FETCHED)
    assert said["extra"]["notesNotInClone"] == [original]
    assert "notesOnEdited" not in said["extra"]
    # the command, run as printed once the remote is back, fetches it; then verify says
    # what a full clone says (att00's words)
    (tmp_path / "away.git").rename(server)
    subprocess.run(shlex.split(command), cwd=clone, check=True, capture_output=True)
    assert missing(clone) == 0
    again = _ki308(_verify(clone))
    assert again["message"] == ON_EDITED + NOT_FETCHED
    assert again["extra"]["notesOnEdited"] == [PUBLISHED["run"]]


def test_a_reachable_remote_gives_the_blob_and_the_full_clone_answer(blobless):
    clone, _server, original, _ = blobless
    findings = _verify(clone)
    assert [f["rule"] for f in findings] == ["KI101", "KI401", "KI308"]
    said = _ki308(findings)
    assert said["message"] == ON_EDITED + NOT_FETCHED
    assert "notesNotInClone" not in said["extra"]
    assert missing(clone) == 0


def test_a_note_on_a_blob_no_object_path_held_is_still_ki304(blobless, tmp_path):
    """A note on a blob the clone lacks that no object path of its history held (a fork's
    object, never here): KI304 as before; nothing is fetched for it."""
    clone, server, *_ = blobless
    fork = subprocess.run(["git", "hash-object", "-w", "--stdin"], cwd=clone, input=b"x\n",
                          capture_output=True, check=True).stdout.decode().strip()
    line = bundle(STRANGER, "note") + b"\n"  # its subject: the run; the blob: not its bytes
    subprocess.run(["git", "notes", "--ref=refs/notes/kistore", "add", "-F", "-", fork],
                   cwd=clone, input=line, check=True, capture_output=True)
    server.rename(tmp_path / "away.git")
    findings = _verify(clone)
    assert [(f["rule"], f.get("file")) for f in findings] == [
        ("KI101", PATH), ("KI401", PATH), ("KI304", f"refs/notes/kistore:{fork}"),
        ("KI308", None)]
