"""Real data through the real importer: `kistore rank` reproduces each SOL board's rank.

Skipped (saying why) where the importer or the shared data is missing.
"""

from __future__ import annotations

import json

import pytest

from kistore.cli import main
from kistore.query.answers import list_manifests, rank

from ..conftest import SHARED

DATA = SHARED / "data" / "sol-execbench"
BOARDS = sorted((DATA / "leaderboard").glob("kernel-*/*.json"))

pytestmark = [
    pytest.mark.skipif("import" not in main.list_commands(None),  # type: ignore[arg-type]
                       reason="kistore import not merged yet"),
    pytest.mark.skipif(not BOARDS, reason="shared SOL-ExecBench data not present"),
]


@pytest.fixture(scope="module")
def imported(tmp_path_factory):
    from click.testing import CliRunner

    from kistore.store import Store

    path = tmp_path_factory.mktemp("sol") / "store"
    Store.init(path)
    result = CliRunner().invoke(main, ["--store", str(path), "import", "--commit",
                                       "sol-execbench", str(DATA)])
    assert result.exit_code == 0, result.output
    return Store(path)


@pytest.mark.parametrize("board", BOARDS, ids=[p.parent.name for p in BOARDS])
def test_rank_reproduces_board_rank_exactly(imported, board):
    data = json.loads(board.read_text())["response"]["data"]
    # board rows by (submission id, sol_score); local evaluator runs of the same problem
    # (another protocol, no sol_score) are in another group and match no row
    runs = {(native.get("externalId"), native.get("metrics", {}).get("sol_score")): r
            for r in list_manifests(imported, kind="BenchmarkRun")
            if (native := r.spec.get("sourceNative", {})).get("benchmark")
            == data["kernel_name"]}
    first = next(r for r in data["rankings"] if r.get("rank") == 1)
    _, ranking = rank(imported, runs[(str(first["submission_id"]), first["sol_score"])].digest)
    assert ranking.comparison.name == "source-native"
    got = {row.record.digest: row.rank for row in ranking.rows()}
    expected = {runs[(str(r["submission_id"]) if "submission_id" in r else None,
                      r["sol_score"])].digest: r.get("rank") for r in data["rankings"]}
    assert got == expected
    assert ranking.group_size == sum(1 for r in data["rankings"] if r.get("rank") is not None)
    assert len(ranking.references) == sum(1 for r in data["rankings"] if r.get("is_reference"))


def test_x_reference_ratio_on_kernel_121(imported):
    from kistore.query.page import run_page

    page = run_page(imported, "BenchmarkRun/sol-kernel-121-submission-19707")
    ratios = {r["project"]: r["speedup"] for r in page.reference_ratios()}
    # Reference Implementation 1.85435 ms / rank 1's 0.298483 ms, both as integer ns
    assert ratios["SOL-ExecBench Reference Implementation"] == pytest.approx(1854350 / 298483)
    assert (page.row.rank, page.row.value, page.ranking.group_size) == (1, 0.573023, 12)
