"""`kistore export --notes-at N`: the attestations of a named notes commit (low00, page99).

An export records the notes tip it read (`_manifest.json` `notes`), but read the tip as it
is now: one attestation made since changed what `--at X` exported, and nothing named the
notes to export again. `--notes-at` takes the words and the check of `site build --notes-at`.
"""

from __future__ import annotations

import json

from kistore.core.digest import Digest
from kistore.core.layout import NOTES_REF, object_path

from ..conftest import git, note_taken_out_and_back
from .conftest import MAINTAINER_KEY, attach, cli, export_ok, files


def _notes(out) -> str | None:
    return json.loads((out / "_manifest.json").read_text())["generations"][0]["notes"]


def test_an_export_at_a_commit_and_its_notes_commit_is_byte_identical_again(
        runner, fixture, tmp_path):
    fmt = "jsonl"  # the bytes compared hold no writer version
    store, d = fixture.store, fixture.digests
    head = git(store.root, "rev-parse", "HEAD").strip()
    first = git(store.root, "rev-parse", NOTES_REF).strip()
    before = tmp_path / "before"
    export_ok(runner, store, before, "--format", fmt, "--at", head)
    assert _notes(before) == first

    # a withdrawal attested since: the notes move, the commit does not
    attach(store, d["h100-a"], MAINTAINER_KEY, "withdrawal", d["h100"])
    second = git(store.root, "rev-parse", NOTES_REF).strip()
    assert second != first
    now = tmp_path / "now"
    export_ok(runner, store, now, "--format", fmt, "--at", head)
    assert _notes(now) == second
    assert files(now) != files(before)  # the tip read: one more attestation row

    again = tmp_path / "again"
    export_ok(runner, store, again, "--format", fmt, "--at", head[:12], "--notes-at",
              first[:12])
    assert files(again) == files(before)  # byte for byte, _manifest.json included

    at_second = tmp_path / "second"
    export_ok(runner, store, at_second, "--format", fmt, "--at", head, "--notes-at", second)
    assert files(at_second) == files(now)

    none = tmp_path / "none"
    export_ok(runner, store, none, "--format", fmt, "--notes-at", "none")
    assert _notes(none) is None
    rows = json.loads((none / "_manifest.json").read_text())["generations"][0]["rows"]
    assert rows["attestations"] == 0
    assert json.loads((before / "_manifest.json").read_text())["generations"][0]["rows"][
        "attestations"] == 2  # the fixture's rerun and withdrawal


def test_notes_at_a_commit_of_the_store_is_refused(runner, fixture, tmp_path):
    out = tmp_path / "out"
    done = cli(runner, fixture.store, "export", str(out), "--notes-at", "HEAD")
    assert done.exit_code == 1, done.output
    head = git(fixture.store.root, "rev-parse", "HEAD").strip()
    assert done.stderr == (
        f"error: --notes-at HEAD: commit {head[:12]} is not a notes commit (its tree holds "
        "'.gitattributes'; a notes tree holds only object ids, in hex): give a commit of "
        f"{NOTES_REF} (`git log --oneline {NOTES_REF}` lists them), or `none`\n")
    assert not out.exists()


def test_the_export_line_names_the_notes_commit_that_notes_at_takes(runner, fixture,
                                                                      tmp_path):
    """fresh00b LOW: the line named the commit, not the notes commit `--notes-at` needs."""
    store = fixture.store
    notes = git(store.root, "rev-parse", NOTES_REF).strip()
    done = export_ok(runner, store, tmp_path / "out", "--format", "jsonl")
    assert done.stdout.rstrip("\n").endswith(
        f" file(s); attestations of notes commit {notes} (`--notes-at {notes}` exports them "
        "again)"), done.stdout
    assert _notes(tmp_path / "out") == notes
    said = json.loads(export_ok(runner, store, tmp_path / "j", "--format", "jsonl",
                                "--json").stdout)
    assert said["notes"] == notes
    none = export_ok(runner, store, tmp_path / "none", "--format", "jsonl", "--notes-at", "none")
    assert none.stdout.rstrip("\n").endswith(
        " file(s); no attestation notes (`--notes-at none` exports it so again)"), none.stdout


def test_notes_at_a_commit_lacking_a_line_its_history_held_warns(runner, fixture, tmp_path):
    """fresh01 F8: a note removed in one notes commit and added back in the next (pushed
    before the gate judged each notes commit a push brings): ``--notes-at`` of the middle
    one reads a state the rules refuse. It is read as asked (a page or an export names
    it, and must be made again byte for byte), with a warning naming the note."""
    store = fixture.store
    run = Digest.from_str(fixture.digests["b200-a"])  # its withdrawal, one line
    blob = git(store.root, "rev-parse", f"HEAD:{object_path(run)}").strip()
    middle, note = note_taken_out_and_back(store.root, blob)
    tip = git(store.root, "rev-parse", NOTES_REF).strip()

    done = export_ok(runner, store, tmp_path / "middle", "--format", "jsonl", "--notes-at",
                     middle[:12])
    lines = len(note.splitlines())
    assert lines == 1
    assert done.stderr.splitlines()[0] == (
        f"warning: --notes-at {middle[:12]}: notes commit {middle[:12]} lacks {lines} "
        "attestation line(s) an earlier notes commit of its history held: "
        f"BenchmarkRun/b200-a ({lines} line(s)). Notes only grow (KI408; a push that removed "
        "a line in one notes commit and added it back in the next passed the gate before "
        "2026-12-06): what is read at it (a withdrawal or a rerun gone) is a state the rules "
        "refuse. Read as asked, for a page or export that names it; for the attestations "
        f"as they count, leave out --notes-at (the tip of {NOTES_REF}) or give a later "
        "notes commit that holds the lines")
    assert json.loads((tmp_path / "middle" / "_manifest.json").read_text())[
        "generations"][0]["rows"]["attestations"] == 2 - lines  # read as asked
    for args in (("--notes-at", tip), ()):  # the tip holds every line: no word
        done = export_ok(runner, store, tmp_path / f"tip{len(args)}", "--format", "jsonl",
                         *args)
        assert "warning: --notes-at" not in done.stderr, done.stderr
