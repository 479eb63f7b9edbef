"""What an export tells its reader where it said nothing or the OS's words (fresh05 LOW).

LOW 8: a run in no comparison group had ``rank`` and ``unrankedReason`` both null, the one
unexplained case of ``WHERE rank IS NULL``; ``kistore rank`` has the words. And two exports
into one new directory at once: the one to finish second printed the raw "Directory not
empty" where a second export after the first is told what is there.
"""

from __future__ import annotations

import json

from kistore.export import outdir

from .conftest import cli, duck, export_ok


def test_a_run_in_no_group_says_why_it_is_unranked_as_rank_says_it(runner, fixture, tmp_path):
    out = tmp_path / "out"
    export_ok(runner, fixture.store, out)
    missing = duck(out, "SELECT protocolDigest FROM {runs} WHERE name = 'orphan'")[0][0]
    assert duck(out, "SELECT rank, comparison, unrankedReason FROM {runs} "
                     "WHERE name = 'orphan'") == [
        (None, None, f"in no comparison group: its protocol {missing} is not in the store; "
                     "add it")]
    said = cli(runner, fixture.store, "rank", "BenchmarkRun/orphan")
    assert f"is in no comparison group: its protocol {missing} is not in the store; add it" \
        in said.output
    # every other unranked run already said why; now none is unexplained
    assert duck(out, "SELECT count(*) FROM {runs} WHERE rank IS NULL "
                     "AND unrankedReason IS NULL") == [(0,)]


def _raced(runner, fixture, monkeypatch, out, meanwhile):
    """Export into ``out``, ``meanwhile()`` run just before the export is renamed there."""
    write = outdir.write_manifest

    def racing(root, manifest):
        write(root, manifest)
        meanwhile()

    monkeypatch.setattr(outdir, "write_manifest", racing)
    result = cli(runner, fixture.store, "export", str(out))
    assert result.exit_code != 0
    return result.stderr


def test_an_export_finished_meanwhile_into_the_new_directory_is_named(runner, fixture,
                                                                      tmp_path, monkeypatch):
    out, other = tmp_path / "out", tmp_path / "other"
    export_ok(runner, fixture.store, other)
    # the other export is renamed into OUT first
    assert _raced(runner, fixture, monkeypatch, out, lambda: other.rename(out)) == (
        f"error: {out}: another `kistore export` wrote an export here while this one was "
        "writing it (the directory was empty when this export began); nothing of this export "
        "was written; that export is whole: use it, add what changed to it with --since REV, "
        "or choose a new directory\n")
    assert json.loads((out / "_manifest.json").read_text())["format"] == outdir.FORMAT
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out", "store"]  # no temp left


def test_files_written_meanwhile_into_the_new_directory_are_named(runner, fixture, tmp_path,
                                                                 monkeypatch):
    out = tmp_path / "out"
    out.mkdir()
    assert _raced(runner, fixture, monkeypatch, out,
                  lambda: (out / "notes.txt").write_text("mine")) == (
        f"error: {out}: files were written here while this export was writing it (the "
        "directory was empty when this export began); nothing of this export was written; "
        "choose a new directory, or empty this one and export again\n")
    assert [p.name for p in out.iterdir()] == ["notes.txt"]
