"""Real data: ranking SOL-ExecBench leaderboard rows reproduces each board's own rank.

Until the importer lands, this test turns each snapshot's rows into manifests itself (one
run per row, reference rows as ``reference`` implementations) with the published record's
protocol and environment, so the shipped policy (sol_score, descending) decides the order.
"""

from __future__ import annotations

import json

import pytest

from kistore.query.answers import rank
from kistore.query.page import run_page

from .conftest import SHARED, add_docs

BOARDS = sorted((SHARED / "data" / "sol-execbench" / "leaderboard").glob("kernel-*/*.json"))


def board_docs(kit, bundle, data):
    protocol, env = bundle["protocol"], bundle["environment"]
    workload = kit.workload(data["kernel_name"], name=f"sol-kernel-{data['kernel_id']}")
    docs, names = [protocol, env, workload], {}
    for i, row in enumerate(data["rankings"]):
        reference = bool(row.get("is_reference"))
        ident = row.get("submission_id", f"ref-{i}")
        impl = kit.implementation(row["username"], role="reference" if reference else None,
                                  name=f"impl-{data['kernel_id']}-{ident}")
        metrics = {k: row[k] for k in ("sol_score", "latency_ms", "avg_speedup")}
        run = kit.run(protocol, env, impl, workload, latency=round(row["latency_ms"] * 1e6),
                      native={"externalId": str(ident), "metrics": metrics},
                      name=f"sol-{data['kernel_id']}-{ident}")
        names[run["metadata"]["name"]] = row
        docs += [impl, run]
    return docs, names


@pytest.mark.skipif(not BOARDS, reason="shared SOL-ExecBench data not present")
@pytest.mark.parametrize("path", BOARDS, ids=[p.parent.name for p in BOARDS])
def test_rank_reproduces_the_board(store, kit, bundle, path):
    data = json.loads(path.read_text())["response"]["data"]
    docs, rows = board_docs(kit, bundle, data)
    add_docs(store, docs)
    first = next(n for n, r in rows.items() if r.get("rank") == 1)
    _, ranking = rank(store, f"BenchmarkRun/{first}")
    assert ranking.comparison.name == "source-native"
    got = {row.record.name: row.rank for row in ranking.rows()}
    assert got == {name: row.get("rank") for name, row in rows.items()}
    assert ranking.group_size == sum(1 for r in rows.values() if r.get("rank") is not None)
    assert [r.record.project for r in ranking.references] == [
        r["username"] for r in sorted((r for r in rows.values() if r.get("is_reference")),
                                      key=lambda r: -r["sol_score"])]


def test_x_reference_ratio_on_kernel_121(store, kit, bundle):
    path = next(p for p in BOARDS if p.parent.name == "kernel-121")
    data = json.loads(path.read_text())["response"]["data"]
    add_docs(store, board_docs(kit, bundle, data)[0])
    page = run_page(store, "BenchmarkRun/sol-121-19707")
    ratios = {r["project"]: r["speedup"] for r in page.reference_ratios()}
    # Reference Implementation 1.85435 ms / rank 1's 0.298483 ms, both as integer ns
    assert ratios["Reference Implementation"] == pytest.approx(1854350 / 298483)
    assert page.row.rank == 1 and page.row.value == 0.573023
