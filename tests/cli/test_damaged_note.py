"""A flipped bit in an attestation note blob (review R72-5, F28).

A note blob under ``refs/notes/kistore`` that cannot be read stopped ``kistore verify``
with one KI117 naming no note ("(store): ... the check stopped there"). Now verify reports
it as KI117 on ``refs/notes/kistore:<annotated blob>``, naming the note blob, the notes ref
and the manifest whose object it annotates, and checks the rest (the other attestations
too). The queries stop, as before, but with one line naming the note as well as the
object, never "internal error". Each command runs as a real process (notes are cached per
process by their tip).
"""

from __future__ import annotations

import json
import re
import zlib
from pathlib import Path

import pytest

from ..conftest import PUBLISHED, git
from .test_damaged_repository import flip_packed
from .test_truncated_loose_object import RUN, kistore

PROTOCOL = "BenchmarkProtocol/sol-execbench-leaderboard-v1-1"


def flip_loose(root: Path, oid: str) -> str:
    """Flip one bit in the body of ``oid``'s loose object file (it stays a zlib stream).

    Returns the pattern of the reason the error gives (the guard's own words).
    """
    file = root / ".git" / "objects" / oid[:2] / oid[2:]
    raw = bytearray(zlib.decompress(file.read_bytes()))
    raw[len(raw) // 2] ^= 1
    file.chmod(0o644)
    file.write_bytes(zlib.compress(bytes(raw)))
    return re.escape("its loose object file holds another object's bytes")


def flip_in_pack(root: Path, oid: str) -> str:
    """Flip a byte of ``oid``'s deflated bytes in a pack of every object, none a delta.

    (A delta of the other note on it would be damaged too, as ``git fsck`` says.) Returns
    the pattern of the reason: zlib's words through libgit2, which depend on where the
    flipped byte falls in the stream (the note holds a fresh signature each run).
    """
    git(root, "config", "pack.window", "0")
    flip_packed(root, oid)
    # zlib's or libgit2's words vary: "incorrect data check", "error inflating zlib stream"
    return r"[^()]+"


@pytest.fixture
def noted(record_store, tmp_path: Path) -> tuple[Path, str, str]:
    """The published record with an attestation note on the run and one on the protocol.

    Returns:
        (store root, the run object's blob id (the note's name), the run's note blob id).
    """
    root = Path(record_store.root)
    key = tmp_path / "key"
    for args in (["key", "generate", str(key)],
                 ["attest", RUN, "--type", "reproduction", "--key", str(key)],
                 ["attest", PROTOCOL, "--type", "reproduction", "--key", str(key)]):
        status, out, err = kistore(root, *args)
        assert status == 0, out + err
    annotated = git(root, "rev-parse", f"HEAD:{_object_path(PUBLISHED['run'])}").strip()
    note = git(root, "rev-parse", f"refs/notes/kistore:{annotated}").strip()
    return root, annotated, note


def _object_path(digest: str) -> str:
    from kistore.core import layout
    from kistore.core.digest import Digest

    return layout.object_path(Digest.from_str(digest))


@pytest.mark.parametrize("damage", [flip_loose, flip_in_pack])
@pytest.mark.parametrize("at", [[], ["--at", "HEAD"]])
def test_verify_reports_a_damaged_note_blob_naming_the_note_and_checks_the_rest(
        noted, damage, at):
    root, annotated, note = noted
    reason = damage(root, note)
    status, out, err = kistore(root, "verify", *at, "--json")
    assert status == 1, out + err
    findings = json.loads(out)["findings"]
    errors = [f for f in findings if f["severity"] == "error"]
    assert [(f["rule"], f["file"], f["extra"]) for f in errors] == [
        ("KI117", f"refs/notes/kistore:{annotated}",
         {"object": note, "notesRef": "refs/notes/kistore", "annotated": annotated,
          "subject": PUBLISHED["run"]})]
    assert re.fullmatch(
        re.escape(f"git object {note} cannot be read (") + f"(?:{reason})" + re.escape(
            f"): it is the note in refs/notes/kistore on the object of {PUBLISHED['run']}, "
            "whose attestations were not read"), errors[0]["message"])
    # the rest was checked: the protocol's attestation (its note is whole), the summary
    community = [f for f in findings if f["rule"] == "KI306"]
    protocol = git(root, "rev-parse", f"HEAD:{_object_path(PUBLISHED['protocol'])}").strip()
    assert [f["file"] for f in community] == [f"refs/notes/kistore:{protocol}"]
    (summary,) = [f for f in findings if f["rule"] == "KI308"]
    assert summary["extra"]["notes"] == 1
    assert "no notes here" not in summary["message"]
    assert {f["rule"] for f in findings} >= {"KI201", "KI306", "KI308"}

    status, out, err = kistore(root, "verify", *at)
    assert status == 1
    assert re.search(
        re.escape(f"refs/notes/kistore:{annotated}: error KI117 git-object-unreadable: git "
                  f"object {note} cannot be read (") + f"(?:{reason})"
        + re.escape("): it is the note in refs/notes/kistore"), out)
    assert "the check stopped there" not in out


QUERIES = {
    "show": ["show", RUN],
    "rank": ["rank", RUN],
    "attestations": ["attestations", RUN],
    "export": ["export", "{out}"],
    "site build": ["site", "build", "{out}"],
}


@pytest.mark.parametrize("command", sorted(QUERIES))
def test_a_damaged_note_blob_stops_a_query_with_one_line_naming_the_note(
        noted, tmp_path, command):
    root, annotated, note = noted
    reason = flip_in_pack(root, note)
    args = [a.replace("{out}", str(tmp_path / "out")) for a in QUERIES[command]]
    status, out, err = kistore(root, *args)
    assert status == 1, out + err
    assert "internal error" not in out + err
    assert re.fullmatch(
        re.escape(f"error: refs/notes/kistore:{annotated}: git object {note} cannot be read (")
        + f"(?:{reason})" + re.escape(
            "): the repository is damaged. Run `git fsck` to list every damaged "
            "object, then restore them from another clone or the remote (e.g. clone again and "
            "copy your unpushed work over, or copy the object's pack or loose file from a "
            "clone that has it)"), err.splitlines()[0]), err
