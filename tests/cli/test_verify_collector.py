"""``kistore verify`` runs with the cycle collector off (issue 22, docs/speed.md, branch ver93).

The listing, every unit's result and the parsed runs live until the process exits and
hold no cycles: the collector only walked them again (14 full collections, ~2.3 s of the
parent's ~11 s of CPU at 100,000 manifests), and in the forked workers each walk copies
the pages it touches. ``add`` does the same for its batch.
"""

from __future__ import annotations

import gc
import json

from kistore.check import audit
from kistore.cli import main


def test_verify_checks_the_store_with_the_collector_off(store_path, runner, monkeypatch):
    seen: list[bool] = []
    real = audit.verify

    def spied(*args, **kwargs):
        seen.append(gc.isenabled())
        return real(*args, **kwargs)

    monkeypatch.setattr(audit, "verify", spied)
    gc.enable()
    try:
        result = runner.invoke(main, ["--store", str(store_path), "verify", "--json"])
        after = gc.isenabled()  # turned back on: a process running commands in turn keeps it
    finally:
        gc.enable()  # the test process's own, as it was
    assert after is True
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["ok"] is True
    assert seen == [False]
