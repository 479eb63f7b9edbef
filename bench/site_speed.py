"""The static site: ``kistore site build`` per page against writing the same files.

Rows (issue 19):

- ``site build``: the whole site of the bench store's ``HEAD`` (a fresh process, an empty
  directory), in ms per page, against writing the same number of files with the same
  sizes into the same directory layout (temporary name, then rename, as the build
  writes), in the same run: what any static-site writer of these pages pays on this disk;
- ``site rebuild after 1 manifest``: ``add --commit`` of one run, then the build again
  into the same directory, against the full build: it renders only the pages whose
  sources changed (the run's group, workload, source, name, and the index);
- ``site build, this repository's store``: the same for the real data committed in
  ``store/`` (about 1,000 runs: the demo store), measured once per bench at N >= 1,000.

Nothing here asserts a speed.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

from .generate import extra_run
from .measure import Row, has_command, kistore_bin, run, write_floor

ROOT = Path(__file__).resolve().parent.parent


def site(workdir: Path, n: int, prepared: dict, repo_store: bool = False) -> list[Row]:
    """Time the site of the bench store (and, when asked, of this repository's store)."""
    if not has_command("site"):
        return [Row(n, "site build", None, "ms/page", note="not measured yet: `kistore site` "
                    "has not landed on main")]
    rows = _build_rows(n, workdir / "store", workdir / "site", "site build")
    last = prepared["jsonl"].read_bytes().rstrip(b"\n").rsplit(b"\n", 1)[-1]
    one = workdir / "site-increment.json"
    one.write_text(json.dumps(extra_run(last, 7777)))
    run([kistore_bin(), "--store", str(workdir / "store"), "add", "--commit", str(one)])
    again_s, done = run([kistore_bin(), "--store", str(workdir / "store"), "site", "build",
                         str(workdir / "site"), "--json"])
    report = json.loads(done.stdout)
    full_ms = rows[0].extra["build_s"] * 1000
    rows.append(Row(n, "site rebuild after 1 manifest", again_s * 1000, "ms",
                    "the full build", full_ms, again_s * 1000 / full_ms, "", None,
                    f"{report['rendered']:,} of {report['pages']:,} pages rendered, "
                    f"{len(report['written']):,} files written (fresh process)",
                    {"rendered": report["rendered"], "written": len(report["written"])}))
    shutil.rmtree(workdir / "site")
    if repo_store and (ROOT / "store" / "objects").is_dir():
        out = workdir / "repo-site"
        rows += _build_rows(n, ROOT, out, "site build, this repository's store")
        shutil.rmtree(out)
    return rows


def _build_rows(n: int, store: Path, out: Path, what: str) -> list[Row]:
    build_s, done = run([kistore_bin(), "--store", str(store), "site", "build", str(out),
                         "--json"])
    report = json.loads(done.stdout)
    pages = report["pages"]
    floor_s, count, size = same_files_floor(out, out.with_name(out.name + "-floor"))
    per_page, floor_per_page = build_s * 1000 / pages, floor_s * 1000 / pages
    return [Row(n, what, per_page, "ms/page",
                "writing the same files (same sizes, temp + rename)", floor_per_page,
                per_page / floor_per_page, "", None,
                f"{pages:,} pages, {count:,} files, {size / 1e6:,.1f} MB; build "
                f"{build_s:.1f} s (fresh process: read the store, rank every group, "
                f"render, write), floor {floor_s:.1f} s",
                {"build_s": build_s, "floor_s": floor_s, "pages": pages, "files": count,
                 "bytes": size})]


def _files(root: Path, chunk: int = 5_000) -> Iterator[list[tuple[str, bytes]]]:
    batch: list[tuple[str, bytes]] = []
    for path in sorted(root.rglob("*")):
        if path.is_file():
            batch.append((path.relative_to(root).as_posix(), path.read_bytes()))
            if len(batch) == chunk:
                yield batch
                batch = []
    if batch:
        yield batch


def same_files_floor(site_dir: Path, base: Path) -> tuple[float, int, int]:
    """Seconds to write the site's files again under ``base`` (only the writes are timed).

    Returns:
        ``(seconds, files, bytes)``.
    """
    return write_floor(base, _files(site_dir))
