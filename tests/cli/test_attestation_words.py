"""What the attestation commands say is true (fresh99b LOWs, notes99's noticed items).

* ``kistore attestations`` lists a validly signed line that does not count as ``valid
  not-counted`` (it was ``INVALID not-counted``, ``"valid": false``); ``--json`` says
  ``"valid"`` and ``"counted"`` apart.
* its closing error says the listed ones "are invalid", not "do not verify": a renamed
  attestation file verifies.
* KI308 in a store that was never cloned does not say "not in this clone".
* the tip's KI409 names the refused line's number in the note.
* a printed command embeds a remote's name shell-quoted (``kistore notes push``'s way out,
  ``kistore notes fetch`` in KI308).
"""

from __future__ import annotations

import json
import shlex
import subprocess

from click.testing import CliRunner

from kistore.attest import notes, signing
from kistore.attest.trust import add_key, parse_time
from kistore.cli import main

from ..attest.test_attestation_evidence import MAINTAINER_KEY, RUN, STRANGER, bundle
from ..check.test_notes_gate_history import notes_git, run_blob
from ..conftest import commit_all, git
from ..prs import KISTORE, Remote
from .test_notes_push_way_out import tampered

RUN_REF = "BenchmarkRun/sol-submission-20464"


def _cli(root, *args: str):
    return CliRunner().invoke(main, ["--store", str(root), *args])


def test_a_valid_line_that_does_not_count_is_listed_valid_and_not_counted(record_store,
                                                                         store_path):
    # a rerun by a key trusted for maintainer alone: the signature verifies, the role fails
    add_key(store_path, signing.public_key_line(MAINTAINER_KEY.public_key()), ["maintainer"],
            valid_from=parse_time("2026-01-01T00:00:00Z"))
    commit_all(store_path, "trust")
    notes.attach(record_store, RUN, bundle(MAINTAINER_KEY, "rerun"))
    keyid = signing.keyid(MAINTAINER_KEY.public_key())
    listed = _cli(store_path, "attestations", RUN_REF)
    assert listed.exit_code == 0, listed.output  # nothing invalid: not an error
    assert (f"rerun {keyid} valid not-counted, from note: key {keyid} is trusted for "
            "maintainer, not rerun") in listed.stdout, listed.stdout
    (judged,) = json.loads(_cli(store_path, "attestations", RUN_REF, "--json").stdout)[
        "attestations"]
    assert (judged["valid"], judged["counted"], judged["effect"]) == (
        True, False, "not-counted")
    notes.attach(record_store, RUN, bundle(STRANGER, "note"))  # community: counted
    data = json.loads(_cli(store_path, "attestations", RUN_REF, "--json").stdout)
    assert sorted((a["effect"], a["valid"], a["counted"]) for a in data["attestations"]) == [
        ("community", True, True), ("not-counted", True, False)]


def test_a_renamed_file_that_verifies_is_said_invalid_not_unverified(record_store, store_path,
                                                                    tmp_path):
    key = tmp_path / "k"
    key.write_bytes(signing.private_key_bytes(STRANGER))
    assert _cli(store_path, "attest", RUN_REF, "--type", "dispute", "-m", "timer", "--key",
                str(key), "--file").exit_code == 0
    (own,) = (store_path / "store/attestations").rglob("*.json")
    own.rename(own.with_name("0" * 64 + ".json"))
    listed = _cli(store_path, "attestations", RUN_REF)
    assert listed.exit_code == 1
    assert listed.stderr == (f"error: 1 of 1 attestation(s) about {RUN} are invalid (INVALID "
                             "above, with the reason); they count for nothing\n")
    assert "a bundle that verifies, named as another's (renamed)" in listed.stdout


def test_ki308_of_a_store_never_cloned_says_no_clone(tmp_path):
    """README's steps: `kistore init`, then a new bare origin of its own; nothing cloned."""
    root = tmp_path / "mine"
    assert CliRunner().invoke(main, ["init", str(root)]).exit_code == 0
    git(tmp_path, "init", "-q", "--bare", str(tmp_path / "origin.git"))
    git(root, "remote", "add", "origin", str(tmp_path / "origin.git"))
    verified = _cli(root, "verify", "--json")
    (said,) = [f["message"] for f in json.loads(verified.stdout)["findings"]
               if f["rule"] == "KI308"]
    assert said == (
        "0 attestation(s) from notes (refs/notes/kistore), 0 from files (store/attestations/); "
        "notes not fetched: run `kistore notes fetch origin`: refs/notes/kistore is not in "
        "this repository (no note was made here, and git clone and git fetch do not fetch "
        "notes)")


def test_ki308_quotes_a_remote_name_a_shell_would_expand(tmp_path):
    root = tmp_path / "mine"
    assert CliRunner().invoke(main, ["init", str(root)]).exit_code == 0
    git(tmp_path, "init", "-q", "--bare", str(tmp_path / "up.git"))
    git(root, "remote", "add", "up$HOME", str(tmp_path / "up.git"))  # a valid remote name
    verified = _cli(root, "verify", "--json")
    (said,) = [f["message"] for f in json.loads(verified.stdout)["findings"]
               if f["rule"] == "KI308"]
    command = said.split("run `")[1].split("`")[0]
    assert command == "kistore notes fetch 'up$HOME'"
    assert shlex.split(command)[-1] == "up$HOME"  # as a shell reads it


def test_the_tip_ki409_names_the_line_and_the_way_out_quotes_the_remote(published, tmp_path):
    server = Remote(published, tmp_path)
    git(server.clone, "remote", "rename", "origin", "up$HOME")
    blob = run_blob(server.clone)
    bad = tampered(bundle(STRANGER, "reproduction"))  # canonical bytes, a bad signature
    lines = sorted([bundle(STRANGER, "note"), bad])
    notes_git(server.clone, "add", blob, data=b"".join(line + b"\n" for line in lines))
    number = lines.index(bad) + 1
    refused = subprocess.run([KISTORE, "notes", "push", "up$HOME"], cwd=server.clone,
                             capture_output=True, text=True)
    assert refused.returncode == 1, refused.stdout + refused.stderr
    assert (f"refs/notes/kistore:{blob}: error KI409 notes-line-invalid: line {number} of the "
            "note: ") in refused.stderr, refused.stderr
    way_out = refused.stderr.rstrip("\n").splitlines()[-1]
    assert "`kistore notes rebase 'up$HOME'`" in way_out, way_out
    assert "`kistore notes push 'up$HOME'`" in way_out, way_out
    assert "kistore notes push up$HOME`" not in way_out


def test_a_note_refused_as_unsorted_names_its_refused_line_too(published, tmp_path):
    server = Remote(published, tmp_path)
    blob = run_blob(server.clone)
    lines = [bundle(STRANGER, "note"), b"garbage"]  # garbage: not canonical, not a bundle
    notes_git(server.clone, "add", blob, data=b"".join(line + b"\n" for line in lines))
    refused = subprocess.run([KISTORE, "notes", "push", "origin"], cwd=server.clone,
                             capture_output=True, text=True)
    assert refused.returncode == 1, refused.stdout + refused.stderr
    assert ("error KI409 notes-line-invalid: the note is not sorted, unique lines of canonical "
            "bundle bytes (what `kistore attest` and `git notes merge -s cat_sort_uniq` "
            "write); line 2 of it is refused too: ") in refused.stderr, refused.stderr
