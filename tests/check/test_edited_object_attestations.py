"""An edited object that carries attestations: the edit is the one cause (fresh99b MED).

A one-byte edit (``13634148`` -> ``13734148``) of the published run's object, which carries
an attestation note: ``verify`` said KI101 and KI401 (right), and beside them KI304 "note on
git object ..., which is no object file of this work tree", whose fix sent the user hunting
branches with ``git log --all --find-object``, and KI308 "no notes here: `kistore notes
fetch` ...", false: the note is there, on the run's stored bytes, which the file no longer
holds. Now KI308 says the note is on an edited object's bytes and counts again once they
are restored; no KI304. The gate (``check BASE..HEAD``, pre-receive) says KI101 and KI401
alone. An attestation file about the run is not judged against the edited bytes either
(a trusted rerun against an edited latency gave KI311).
"""

from __future__ import annotations

import json
import subprocess

from click.testing import CliRunner

from kistore.attest import notes, signing
from kistore.cli import main
from kistore.store import Store

from ..attest.test_attestation_evidence import RERUN_KEY, RUN, STRANGER, bundle, trusted  # noqa: F401 (a fixture)
from ..conftest import PUBLISHED, commit_all, git, store_file
from ..prs import Remote

PATH = store_file(PUBLISHED["run"])


def _edit(root, old: bytes = b"13634148", new: bytes = b"13734148") -> None:
    path = root / PATH
    data = path.read_bytes()
    assert data.count(old) == 1
    path.chmod(0o644)
    path.write_bytes(data.replace(old, new))


def _verify(root, monkeypatch, *args: str) -> list[dict]:
    monkeypatch.chdir(root)
    result = CliRunner().invoke(main, [*args, "--format", "json"])
    return json.loads(result.stdout)["findings"]


def _ki308(findings: list[dict]) -> str:
    (said,) = [f["message"] for f in findings if f["rule"] == "KI308"]
    return said


ON_EDITED = (f"0 attestation(s) from notes (refs/notes/kistore), 0 from files "
             f"(store/attestations/); 1 more from notes on the stored bytes of {PATH}, which "
             "the file no longer holds (its bytes are edited: KI101): they are judged again "
             "once the bytes are restored")


def test_verify_of_an_edited_object_with_a_note_says_the_edit_alone(record_store, store_path,
                                                                    monkeypatch):
    notes.attach(record_store, RUN, bundle(STRANGER, "note"))
    _edit(store_path)
    findings = _verify(store_path, monkeypatch, "verify")
    assert [(f["rule"], f.get("file")) for f in findings] == [
        ("KI101", PATH), ("KI401", PATH), ("KI308", None)]  # no KI304
    assert _ki308(findings) == ON_EDITED  # not "no notes here"
    (ki308,) = [f for f in findings if f["rule"] == "KI308"]
    assert ki308["extra"]["notesOnEdited"] == [PUBLISHED["run"]]
    base = git(store_path, "rev-parse", "HEAD").strip()
    head = commit_all(store_path, "a slower run")  # committed: the same
    findings = _verify(store_path, monkeypatch, "verify")
    assert [f["rule"] for f in findings] == ["KI101", "KI401", "KI308"]
    assert _ki308(findings) == ON_EDITED
    gate = _verify(store_path, monkeypatch, "check", f"{base}..{head}")
    assert [(f["rule"], f.get("file")) for f in gate] == [("KI101", PATH), ("KI401", PATH)]
    # the one fix, followed: the note counts again, nothing else is said
    git(store_path, "checkout", base, "--", PATH)
    findings = _verify(store_path, monkeypatch, "verify")
    assert [f["rule"] for f in findings if f["rule"] not in ("KI201", "KI401")] == [
        "KI306", "KI308"]
    assert _ki308(findings).startswith("1 attestation(s) from notes (refs/notes/kistore), 0 "
                                       "from files (store/attestations/)")


def test_pre_receive_of_an_edited_object_with_a_note_says_the_edit_alone(record_store,
                                                                         store_path, tmp_path):
    (tmp_path / "server").mkdir()
    server = Remote(store_path, tmp_path / "server")
    notes.attach(Store(server.clone), RUN, bundle(STRANGER, "note"))
    assert server.push("refs/notes/kistore").accepted
    push = server.pr("a slower run", _edit)
    assert not push.accepted
    said = [line.split()[3] for line in push.output.splitlines()
            if line.startswith("remote: store/") or line.startswith("remote: refs/")]
    assert said == ["KI101", "KI401"], push.output
    git(server.clone, "checkout", "-q", "HEAD@{1}")  # the edit, as committed
    done = server.kistore("verify", check=False)
    assert "KI304" not in done.stdout and "no notes here" not in done.stdout, done.stdout


def test_a_trusted_rerun_file_is_not_judged_against_edited_latency(trusted, monkeypatch):  # noqa: F811 (a fixture)
    """The run's latency edited tenfold: the rerun was "outside the tolerance" (KI311) of a
    latency no stored manifest states."""
    notes.attach(trusted, RUN, bundle(RERUN_KEY, "rerun"), as_file=True)
    commit_all(trusted.root, "rerun")
    _edit(trusted.root, b'"mean":13634148', b'"mean":136341480')
    findings = _verify(trusted.root, monkeypatch, "verify")
    assert "KI311" not in [f["rule"] for f in findings]
    # KI227: the fixture's history is dated before the run was observed, edit or none
    assert [f["rule"] for f in findings if f["severity"] != "info" and f["rule"] != "KI227"
            ] == ["KI101", "KI401"]
    keyid = signing.keyid(RERUN_KEY.public_key())
    (ki307,) = [f for f in findings if f["rule"] == "KI307"]  # about the stored manifest
    assert ki307["message"].startswith(f"rerun by {keyid} (file): trusted rerun key")


def test_notes_only_on_objects_of_no_file_here_are_not_no_notes(record_store, store_path,
                                                                monkeypatch):
    """A note on a blob no object file holds (a fork's object): KI304, and KI308 does not say
    "no notes here", which was said whenever no note was on an object of the view."""
    fork = subprocess.run(["git", "hash-object", "-w", "--stdin"], cwd=store_path, input=b"x\n",
                          capture_output=True, check=True).stdout.decode().strip()
    line = bundle(STRANGER, "note") + b"\n"
    subprocess.run(["git", "notes", "--ref=refs/notes/kistore", "add", "-F", "-", fork],
                   cwd=store_path, input=line, check=True, capture_output=True)
    findings = _verify(store_path, monkeypatch, "verify")
    assert [f["rule"] for f in findings if f["rule"] != "KI201"] == ["KI304", "KI308"]
    assert "no notes here" not in _ki308(findings)
