"""export's landingCommit and publishedAt: the date cite publishes (r81 F1, r82 F4)."""

from __future__ import annotations

import json

import pytest

from kistore.store import Store

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
