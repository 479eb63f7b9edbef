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
  ``kistore verify`` of the same repository;
- the same gate against the same gate on a store of 1,000 manifests built the same way
  (issue 22: within 1.5x at 100,000 and 1,000,000): each a fresh process in a fresh
  ``git clone --bare --no-local`` of its repository (packed, as CI's clone is, and no
  derived index), median of ``repeat`` runs, alternated with the 1,000 store's; judged on
  CPU time (user + sys of the process): wall time on a shared 2-CPU machine measures the
  neighbours (the wall ratio is in the row's note).
"""

from __future__ import annotations

import statistics
from pathlib import Path
from typing import Any

from kistore.core import layout

from .generate import COMMIT_TIME
from .measure import GITATTRIBUTES, Row, _pairs, children_cpu, kistore_bin, prepare, run

GATE_BASE_N = 1_000
"""The store size the gate's cost at N is compared with (issue 22)."""


def deep_history(workdir: Path, n: int, prepared: dict[str, Any], repeat: int = 5
                 ) -> list[Row]:
    """Build the K-commit repository, then time verify and the gate on it (see the module)."""
    k = max(2, n // 100)
    deep = _deep_repository(workdir, prepared, n, k)
    flat = workdir / "fast-import.git"  # the same bytes in one commit (bulk add step)
    run(["git", "--git-dir", str(flat), "symbolic-ref", "HEAD", "refs/heads/main"])
    flat_s, flat_done = run([kistore_bin(), "--store", str(flat), "verify"], check=False)
    deep_s, deep_done = run([kistore_bin(), "--store", str(deep), "verify"], check=False)
    gate_s, gate_done = run([kistore_bin(), "--store", str(deep), "check", "HEAD~1..HEAD"],
                            check=False)
    commits = k + 1
    small_dir = workdir / f"gate-{GATE_BASE_N}"
    small_dir.mkdir(exist_ok=True)
    small = _deep_repository(small_dir, prepare(small_dir, GATE_BASE_N), GATE_BASE_N,
                             max(2, GATE_BASE_N // 100))
    gate = _fresh_gates([(workdir, deep), (small_dir, small)], repeat)
    (gate_n, cpu_n), (gate_1k, cpu_1k) = gate["times"]
    gate_rows = [Row(
        n, "gate of a 1-manifest pull request, fresh clone (CPU)", cpu_n * 1000, "ms",
        f"the same gate on {GATE_BASE_N:,} manifests", cpu_1k * 1000, cpu_n / cpu_1k,
        "<= 1.5x", cpu_n / cpu_1k <= 1.5,
        f"exit {gate['exit']}; `kistore check HEAD~1..HEAD` in a fresh `git clone --bare "
        f"--no-local`, median of {repeat} fresh processes alternated; wall {gate_n * 1000:.0f} "
        f"against {gate_1k * 1000:.0f} ms ({gate_n / gate_1k:.2f}x)",
        {"gate_s": gate_n, "gate_base_s": gate_1k, "cpu_s": cpu_n, "cpu_base_s": cpu_1k})]
    return gate_rows + [
        Row(n, f"verify, {commits:,} commits (bare)", n / deep_s, "manifests/s",
            "verify of the same bytes in one commit (bare)", n / flat_s, flat_s / deep_s, "",
            None, f"exit {deep_done.returncode} / {flat_done.returncode}; {deep_s:.1f} s "
            f"against {flat_s:.1f} s: history depth costs {(deep_s - flat_s) / k * 1000:.1f} "
            "ms a commit", {"commits": commits, "deep_s": deep_s, "flat_s": flat_s}),
        Row(n, "gate of a 1-manifest pull request", gate_s * 1000, "ms",
            f"verify of the same repository ({commits:,} commits)", deep_s * 1000,
            gate_s / deep_s, "", None,
            f"exit {gate_done.returncode}; `kistore check HEAD~1..HEAD` in the repository "
            "fast-import wrote", {"gate_s": gate_s}),
    ]


def _deep_repository(workdir: Path, prepared: dict[str, Any], n: int, k: int) -> Path:
    """Write ``workdir/deep.git``: N - K manifests in one commit, then K of one each."""
    stream = workdir / "deep.stream"
    _write_stream(prepared["contents"], stream, n - k)
    deep = workdir / "deep.git"
    run(["git", "init", "-q", "--bare", str(deep)])
    run(["git", "--git-dir", str(deep), "fast-import", "--quiet"], stdin=stream)
    run(["git", "--git-dir", str(deep), "symbolic-ref", "HEAD", "refs/heads/main"])
    return deep


def _fresh_gates(repositories: list[tuple[Path, Path]], repeat: int) -> dict[str, Any]:
    """Time the 1-manifest gate of each repository, each run in a fresh clone, alternated.

    Args:
        repositories: ``(work directory, repository)`` pairs.
        repeat: runs of each.

    Returns:
        ``{"times": [(median wall s, median CPU s) per repository], "exit": highest code,
        "walls": [[wall s of each run] per repository], "cpus": the same in CPU s}``.
    """
    walls: list[list[float]] = [[] for _ in repositories]
    cpus: list[list[float]] = [[] for _ in repositories]
    code = 0
    for i in range(repeat):
        for (workdir, repository), wall, cpu in zip(repositories, walls, cpus, strict=True):
            clone = workdir / f"gate-clone-{i}.git"
            run(["git", "clone", "-q", "--bare", "--no-local", str(repository), str(clone)])
            before = children_cpu()
            seconds, done = run([kistore_bin(), "--store", str(clone), "check",
                                 "HEAD~1..HEAD"], check=False)
            cpu.append(children_cpu() - before)
            wall.append(seconds)
            code = max(code, done.returncode)
    return {"times": [(statistics.median(w), statistics.median(c))
                      for w, c in zip(walls, cpus, strict=True)], "exit": code,
            "walls": walls, "cpus": cpus}


def _write_stream(contents: Path, stream: Path, first: int) -> None:
    """Write a fast-import stream: ``first`` manifests in one commit, then one per commit.

    ``contents`` holds (path, bytes) pairs, a manifest's object, metadata and names file
    (and a run's group file), in generation order (every reference precedes its run), as
    :func:`.measure.prepare` writes them: a manifest's files end where the next object
    begins.
    """
    committer = b"committer bench <bench@kistore.invalid> %d +0000\n" % COMMIT_TIME
    objects = layout.OBJECTS_DIR + "/"
    with stream.open("wb") as out:
        tree: list[bytes] = []
        mark = 0
        manifest = 0
        started = False

        def ended() -> None:  # the files of one more manifest are in ``tree``
            nonlocal manifest, started, tree
            manifest += 1
            if manifest < first:
                return
            message = b"bulk import" if not started else b"add manifest %d" % manifest
            out.write(b"commit refs/heads/main\n" + committer)
            out.write(b"data %d\n%s\n" % (len(message), message))
            if not started:
                out.write(GITATTRIBUTES)
            out.writelines(tree)
            out.write(b"\n")
            tree, started = [], True

        for batch in _pairs(contents):
            for path, data in batch:
                if path.startswith(objects) and mark:
                    ended()
                mark += 1
                out.write(b"blob\nmark :%d\ndata %d\n%s\n" % (mark, len(data), data))
                tree.append(b"M 100644 :%d %s\n" % (mark, path.encode()))
        if mark:
            ended()
