"""A run edited in place is caught beside a dangling run (review 2026-12-01 F6).

Runs that reference a manifest missing from the work tree are described again from the
index's spec; they were then taken as fresh and never stat-checked, so ``rank`` ranked an
edited run by its committed value, with no warning, while ``show`` called it corrupt.
"""

from __future__ import annotations

from kistore.cli import main
from kistore.core import layout
from kistore.core.digest import Digest
from kistore.store import Store

from ..conftest import add_docs


def test_rank_leaves_out_a_run_edited_beside_dangling_ones(store_path, kit, runner):
    p, e, i, w = kit.protocol(), kit.environment(), kit.implementation(), kit.workload()
    runs = [kit.run(p, e, i, w, latency=100 * (n + 1), name=f"run-{n}") for n in range(3)]
    add_docs(Store(store_path), [p, e, i, *runs], allow_dangling=True)  # the workload dangles
    edited = store_path / layout.object_path(Digest.from_str(kit.digest(runs[2])))
    edited.write_bytes(edited.read_bytes().replace(b'"mean":300', b'"mean":1'))
    result = runner.invoke(main, ["--store", str(store_path), "rank", "BenchmarkRun/run-0"])
    assert result.exit_code == 0, result.output
    assert "run-2" not in result.stdout and "2 ranked" in result.stdout, result.stdout
    assert (f"warning: {layout.object_path(Digest.from_str(kit.digest(runs[2])))}: the object "
            "file is corrupt") in result.stderr
