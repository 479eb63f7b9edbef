"""The export's ``runs`` table carries ``rank``'s marks: KI234's ratio, KI230's words (r90b F3).

Until 2026-12-04 a 3.52 "ns" run 1,000x ahead of its #2 was exported as rank 1 with no
column saying either (docs/rules.md: "the export has no such column yet").
"""

from __future__ import annotations

from kistore.core.model import Manifest

from ..conftest import latency_group
from .conftest import duck, export_ok


def test_the_runs_table_has_the_outlier_ratio_and_the_implausible_latency(store, kit, runner,
                                                                          tmp_path):
    docs = latency_group(kit, {"a": 3_700_000, "us-a": 3_520, "ms-as-ns": 3.52})
    store.add([Manifest.from_document(d) for d in docs], commit=True)
    out = tmp_path / "out"
    export_ok(runner, store, out)
    assert duck(out, "SELECT name, rank, outlierRatio, implausibleLatency FROM {runs} "
                     "ORDER BY rank") == [
        ("ms-as-ns", 1, 1000.0, "latencyNs mean 3.52 < 100 ns"),
        ("us-a", 2, None, None), ("a", 3, None, None)]
    csv = (out / "runs/part-00000.csv")
    if not csv.exists():  # CSV too: the same words
        export_ok(runner, store, tmp_path / "csv", "--format", "csv")
        csv = tmp_path / "csv/runs/part-00000.csv"
    text = csv.read_text()
    assert ",1000," in text.replace(",1000.0,", ",1000,") and "latencyNs mean 3.52 < 100 ns" \
        in text
