"""The derived index under concurrent writers: two ``kistore reindex`` and a first query."""

from __future__ import annotations

import subprocess
import sys

from bench.generate import write_jsonl
from kistore.store import Store


def test_two_reindexes_and_a_first_rank_at_once_all_succeed(tmp_path):
    # breaker9: `kistore reindex & kistore reindex` (or a reindex during a first `rank`)
    # ended with sqlite3 tracebacks ("attempt to write a readonly database", "disk I/O
    # error"): a rebuild deleted the file another process was writing. The old code failed
    # 9 of 18 processes in six rounds of this test's loop.
    root = tmp_path / "s"
    Store.init(root)
    source = tmp_path / "m.jsonl"
    write_jsonl(source, 1500)
    kistore = [sys.executable, "-m", "kistore", "--store", str(root)]
    added = subprocess.run([*kistore, "add", "--commit", str(source)], capture_output=True,
                           text=True, check=True)
    run = next(line.split()[0] for line in added.stdout.splitlines() if "BenchmarkRun" in line)
    index = root / ".git" / "kistore" / "index.sqlite"
    for _ in range(3):
        index.unlink(missing_ok=True)
        procs = [subprocess.Popen([*kistore, *args], stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True)
                 for args in (["reindex"], ["rank", run], ["reindex"])]
        results = [(p.wait(timeout=300), *p.communicate()) for p in procs]
        for code, _, err in results:
            assert code == 0 and "Traceback" not in err, err
        assert results[1][1].startswith("comparison group sha256:")
        assert run[:19] in results[1][1]  # the run itself, ranked
