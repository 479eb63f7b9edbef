"""export's landingCommit and publishedAt: the date cite publishes (r81 F1, r82 F4)."""

from __future__ import annotations

import json

import pytest

from kistore.store import Store

from ..cite.test_citation import git
from ..cite.test_landing import old_fork_merged, orphan_root_merged
from .conftest import cli, duck, export_ok


@pytest.mark.parametrize("shape", [orphan_root_merged, old_fork_merged])
def test_publishedAt_is_the_merge_date_cite_gives_and_addedAt_keeps_its_meaning(
        runner, tmp_path, shape):
    path, added, merge = shape(tmp_path)
    store = Store(path)
    out = tmp_path / "out"
    export_ok(runner, store, out)
    cited = json.loads(cli(runner, store, "cite", "BenchmarkRun/sol-submission-20464",
                           "--json").stdout)
    assert (cited["commit"], cited["landed"], cited["published"]) == (
        added, merge, "2027-08-17T08:00:00Z")
    row = duck(out, """SELECT firstCommit, permalink, landingCommit,
        strftime(publishedAt, '%Y-%m-%dT%H:%M:%SZ'), strftime(addedAt, '%Y-%m-%d')
        FROM {runs}""")
    assert row == [(added, cited["permalink"], merge, "2027-08-17T08:00:00Z",
                    "2001-01-01" if shape is orphan_root_merged else "2026-07-15")]
    # the run's other manifests came in the same commit: the same landing in `manifests`
    assert set(duck(out, "SELECT landingCommit, firstCommit FROM {manifests}")) == {
        (merge, added)}


def test_an_export_made_before_publishedAt_is_refused_by_since_naming_the_column(
        runner, tmp_path):
    # An export an earlier kistore wrote lists no landingCommit or publishedAt: appending
    # rows with them to its files is refused, with what to do (a full export).
    path, _, merge = old_fork_merged(tmp_path)
    store = Store(path)
    out = tmp_path / "out"
    export_ok(runner, store, out, "--at", f"{merge}^1")
    manifest = json.loads((out / "_manifest.json").read_text())
    for table in ("runs", "manifests"):
        columns = manifest["tables"][table]["columns"]
        columns[:] = [c for c in columns if c["name"] not in ("landingCommit", "publishedAt")]
    (out / "_manifest.json").write_text(json.dumps(manifest))
    result = cli(runner, store, "export", str(out), "--since", f"{merge}^1")
    assert result.exit_code == 1
    base = git(path, "rev-parse", f"{merge}^1")
    assert result.output == (  # the store's remote has no notes: said first (r83 F11)
        "warning: refs/notes/kistore is not in this repository (no note was made here, and "
        "git clone and git fetch do not fetch notes): "
        "community attestations are left out (no key is trusted at HEAD, so none could "
        "withdraw or verify a run); `kistore notes fetch origin` "
        "fetches them\n"
        f"error: {out}: the columns changed since the export at {base[:12]} (it has no "
        "runs.landingCommit, runs.publishedAt, manifests.landingCommit, manifests.publishedAt, "
        "which this kistore writes): files already written cannot take the new columns; make "
        "a full export into a new directory\n")


def test_a_shallow_clone_whose_cut_holds_the_run_gives_no_landing_either(runner, tmp_path):
    # The first-adding commit's shallow rule (shallow_doubt): the cut (the merge) holds the
    # run, so neither where it was first added nor where it landed is known there.
    path, _, merge = old_fork_merged(tmp_path)
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{path}", str(clone))
    assert git(clone, "rev-parse", "HEAD") == merge
    out = tmp_path / "out"
    result = export_ok(runner, Store(clone), out)
    assert "this is a shallow clone" in result.output
    assert duck(out, "SELECT firstCommit, landingCommit, publishedAt FROM {runs}") == [
        (None, None, None)]
