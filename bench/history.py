"""History depth: ``verify`` and the pull-request gate on a store built commit by commit.

The other steps measure a store made by one bulk commit. A public index grows by pull
requests of a few manifests each, so its history has thousands of commits, and every
check that walks history pays per commit. This step builds, with ``git fast-import``, a
bare repository holding the same N manifests as the bulk store: the first N - K in one
commit, then K commits of one manifest each (K = N / 100, at least 2). It times:

- ``kistore verify`` of it (every commit's history checked) against ``kistore verify`` of
  the one-commit fast-import repository of the same bytes, in the same run: the ratio is
  what history depth costs;
- ``kistore check HEAD~1..HEAD``, the gate of a one-manifest pull request, against
  ``kistore verify`` of the same repository: the gate checks the range's files, but the
  names and references of every unchanged manifest too, so it reads the whole tree.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .measure import GITATTRIBUTES, Row, _pairs, kistore_bin, run


def deep_history(workdir: Path, n: int, prepared: dict[str, Any]) -> list[Row]:
    """Build the K-commit repository, then time verify and the gate on it (see the module)."""
    k = max(2, n // 100)
    stream = workdir / "deep.stream"
    _write_stream(prepared["contents"], stream, n - k)
    deep = workdir / "deep.git"
    run(["git", "init", "-q", "--bare", str(deep)])
    run(["git", "--git-dir", str(deep), "fast-import", "--quiet"], stdin=stream)
    run(["git", "--git-dir", str(deep), "symbolic-ref", "HEAD", "refs/heads/main"])
    flat = workdir / "fast-import.git"  # the same bytes in one commit (bulk add step)
    run(["git", "--git-dir", str(flat), "symbolic-ref", "HEAD", "refs/heads/main"])
    flat_s, flat_done = run([kistore_bin(), "--store", str(flat), "verify"], check=False)
    deep_s, deep_done = run([kistore_bin(), "--store", str(deep), "verify"], check=False)
    gate_s, gate_done = run([kistore_bin(), "--store", str(deep), "check", "HEAD~1..HEAD"],
                            check=False)
    commits = k + 1
    return [
        Row(n, f"verify, {commits:,} commits (bare)", n / deep_s, "manifests/s",
            "verify of the same bytes in one commit (bare)", n / flat_s, flat_s / deep_s, "",
            None, f"exit {deep_done.returncode} / {flat_done.returncode}; {deep_s:.1f} s "
            f"against {flat_s:.1f} s: history depth costs {(deep_s - flat_s) / k * 1000:.1f} "
            "ms a commit", {"commits": commits, "deep_s": deep_s, "flat_s": flat_s}),
        Row(n, "gate of a 1-manifest pull request", gate_s * 1000, "ms",
            f"verify of the same repository ({commits:,} commits)", deep_s * 1000,
            gate_s / deep_s, "", None,
            f"exit {gate_done.returncode}; `kistore check HEAD~1..HEAD`: the names and "
            "references of every unchanged manifest are read too (O(store))",
            {"gate_s": gate_s}),
    ]


def _write_stream(contents: Path, stream: Path, first: int) -> None:
    """Write a fast-import stream: ``first`` manifests in one commit, then one per commit.

    ``contents`` holds (path, bytes) pairs, a manifest's object, metadata and names file, in
    generation order (every reference precedes its run), as :func:`.measure.prepare`
    writes them.
    """
    committer = b"committer bench <bench@kistore.invalid> 0 +0000\n"
    with stream.open("wb") as out:
        tree: list[bytes] = []
        mark = 0
        manifest = 0
        started = False
        for batch in _pairs(contents):
            for path, data in batch:
                mark += 1
                out.write(b"blob\nmark :%d\ndata %d\n%s\n" % (mark, len(data), data))
                tree.append(b"M 100644 :%d %s\n" % (mark, path.encode()))
                if mark % 3:
                    continue  # the metadata and names files follow their object
                manifest += 1
                if manifest < first:
                    continue
                message = b"bulk import" if not started else b"add manifest %d" % manifest
                out.write(b"commit refs/heads/main\n" + committer)
                out.write(b"data %d\n%s\n" % (len(message), message))
                if not started:
                    out.write(GITATTRIBUTES)
                out.writelines(tree)
                out.write(b"\n")
                tree, started = [], True
