"""A note blob past ``NOTE_BYTES`` (16 MiB) is refused by its header size, never read whole.

fresh03 H3: a 300 MB note of one line (a ~300 KB push) cost the notes gate (``check
--updates -``, ``hooks/pre-receive``) 22 s and 1.8 GB of memory: the blob was read whole,
then split into lines, before KI409 said its one line was past ``manifest-bytes``. Now
every note blob a push brings is held to :data:`kistore.git.note_blobs.NOTE_BYTES` by its
object header first (KI409, the note named, the limit); ``verify`` and the queries read
each note within it too (:func:`kistore.git.note_blobs.read_note`).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from kistore.attest import notes
from kistore.cli import main
from kistore.core import layout
from kistore.git.note_blobs import NOTE_BYTES, NoteTooLarge, read_note
from kistore.git.opening import open_repository
from kistore.store import Store

from ..attest.test_attestation_evidence import RUN, STRANGER, bundle
from ..conftest import git

# every finding made here keeps one meaning per extra key (`entered`: a commit id)
pytestmark = pytest.mark.usefixtures("extra_keys_kept")

ZERO = "0" * 40
REF = "refs/notes/kistore"


def run_blob(root: Path) -> str:
    """The git blob of the run's object file: what its notes annotate."""
    return git(root, "rev-parse", f"HEAD:{layout.object_path(RUN)}").strip()


def noted(root: Path, data: bytes, *, packed: bool = False) -> tuple[str, str]:
    """Put ``data`` as the note on the run's blob; return (the annotated blob, the note blob)."""
    blob = run_blob(root)
    subprocess.run(["git", "notes", "--ref", "kistore", "add", "-f", "-F", "-", blob],
                   cwd=root, input=data, check=True, capture_output=True)
    if packed:
        git(root, "gc", "-q")
    return blob, git(root, "notes", "--ref", "kistore", "list", blob).strip()


def gate(runner, root: Path, old: str = ZERO) -> tuple[int, list[dict]]:
    """``check --updates -`` of the notes ref from ``old`` to its tip (a pre-receive's line)."""
    new = git(root, "rev-parse", REF).strip()
    result = runner.invoke(main, ["--store", str(root), "check", "--updates", "-", "--json"],
                           input=f"{old} {new} {REF}\n")
    return result.exit_code, json.loads(result.output)["findings"]


def said(size: int) -> str:
    return (f"the note holds {size:,} bytes, more than the limit of 16,777,216 bytes a note "
            "may hold (its lines are attestation bundles: one `kistore attest` writes is ~1 "
            "KB); not read")


@pytest.mark.parametrize("packed", [False, True])
def test_a_note_one_byte_past_the_bound_is_refused_unread(runner, published, whole_reads,
                                                          packed):
    assert NOTE_BYTES == 16 << 20  # the ceiling of manifest-bytes
    annotated, note = noted(published, b"a" * NOTE_BYTES + b"\n", packed=packed)
    entered = git(published, "rev-parse", REF).strip()
    status, findings = gate(runner, published)
    assert status == 1
    assert [(f["rule"], f["file"], f["message"], f["extra"]) for f in findings] == [(
        "KI409", f"{REF}:{annotated}", said(NOTE_BYTES + 1),
        {"size": NOTE_BYTES + 1, "limit": NOTE_BYTES, "entered": entered})]
    assert note not in whole_reads  # before: read whole (300 MB: 22 s, 1.8 GB)
    if not packed:  # what to do, in the text a pusher reads
        result = runner.invoke(main, ["--store", str(published), "check", "--updates", "-"],
                               input=f"{ZERO} {entered} {REF}\n")
        assert (f"fix KI409 (1 finding): the note entered in notes commit {entered[:12]}, "
                "which the push brings, so removing it at the tip leaves it in the history "
                "the push sends, refused again: push a notes history without that commit "
                "(`kistore notes rebase REMOTE`") in result.output, result.output


def test_a_note_at_the_bound_is_read(runner, published, whole_reads):
    """The record above is no blind one: a note of exactly NOTE_BYTES bytes is read."""
    annotated, note = noted(published, b"a" * (NOTE_BYTES - 1) + b"\n")
    status, findings = gate(runner, published)
    assert status == 1
    assert note in whole_reads
    assert [(f["rule"], f["file"]) for f in findings] == [("KI409", f"{REF}:{annotated}")]
    assert "a note line of 16,777,215 bytes, more than the limit of 1,048,576 bytes " \
        "(manifest-bytes)" in findings[0]["message"]
    assert "the note holds" not in findings[0]["message"]


def test_a_note_past_the_bound_in_the_pushed_history_alone_is_refused_unread(
        runner, published, whole_reads):
    annotated, note = noted(published, b"a" * NOTE_BYTES + b"\n")
    held = git(published, "rev-parse", REF).strip()
    git(published, "notes", "--ref", "kistore", "remove", annotated)
    notes.attach(Store(published), RUN, bundle(STRANGER, "reproduction"))
    status, findings = gate(runner, published)
    assert status == 1
    assert [(f["rule"], f["file"], f["message"], f["extra"]) for f in findings] == [(
        "KI409", f"{REF}:{annotated}",
        f"notes commit {held[:12]}, in the history this push brings, holds a note on "
        f"{annotated} that the pushed tip no longer holds: {said(NOTE_BYTES + 1)}; every "
        "clone fetching these notes would fetch it",
        {"commit": held, "size": NOTE_BYTES + 1, "limit": NOTE_BYTES})]
    assert note not in whole_reads


def test_a_reader_refuses_a_note_past_the_bound_unread(runner, published, whole_reads):
    annotated, note = noted(published, b"a" * NOTE_BYTES + b"\n")
    repo = open_repository(str(published))
    with pytest.raises(NoteTooLarge) as raised:
        read_note(repo, note, f"{REF}:{annotated}")
    assert raised.value.file == f"{REF}:{annotated}"
    assert raised.value.message == (
        f"{said(NOTE_BYTES + 1)}: it is no attestation `kistore attest` wrote; remove the "
        f"note (`git notes --ref kistore remove {annotated}`)")
    with pytest.raises(NoteTooLarge):
        notes.note_data(repo, annotated)  # not libgit2's git_note_read: it reads it whole
    result = runner.invoke(main, ["--store", str(published), "verify"])
    assert result.exit_code == 1
    assert (f"{REF}:{annotated}: error KI117 git-object-unreadable: {said(NOTE_BYTES + 1)} "
            f"(git object {note}): it is the note in {REF} on the object of {RUN}, whose "
            "attestations were not read\n") in result.output, result.output
    assert ("fix KI117 (1 finding): no attestation `kistore attest` writes comes near this "
            f"size: remove the note (`git notes --ref kistore remove {annotated}`)\n"
            ) in result.output
    assert note not in whole_reads


def test_a_doubled_note_past_the_bound_is_no_stop_of_verify(runner, published):
    """review01 M1: a note past the bound at a second path of its object (a fanout path
    beside the flat one, KI424) was read by ``read_blob``, whose ``FileTooLarge`` no reader
    of notes catches: ``verify`` stopped, advising to run ``verify``. Read as a note, it is
    KI117 of that note, and ``verify`` goes on."""
    annotated, big = noted(published, b"a" * NOTE_BYTES + b"\n")
    small = subprocess.run(["git", "hash-object", "-w", "--stdin"], cwd=published,
                           input=b"x\n", check=True, capture_output=True).stdout.decode().strip()
    tip = git(published, "rev-parse", REF).strip()
    flat = git(published, "ls-tree", f"{tip}^{{tree}}")
    sub = subprocess.run(["git", "mktree"], cwd=published, check=True, capture_output=True,
                         input=f"100644 blob {small}\t{annotated[2:]}\n".encode()
                         ).stdout.decode().strip()
    tree = subprocess.run(["git", "mktree"], cwd=published, check=True, capture_output=True,
                          input=(flat + f"040000 tree {sub}\t{annotated[:2]}\n").encode()
                          ).stdout.decode().strip()
    doubled = git(published, "commit-tree", tree, "-p", tip, "-m", "doubled").strip()
    git(published, "update-ref", REF, doubled)
    result = runner.invoke(main, ["--store", str(published), "verify"])
    assert "the file holds" not in result.output
    assert f"{REF}:{annotated}: error KI117 git-object-unreadable: {said(NOTE_BYTES + 1)}" \
        in result.output, result.output
    assert big in result.output
