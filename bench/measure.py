"""The measurements: each kistore path timed beside its baseline, in the same run.

Every timing is wall-clock of a fresh process (``subprocess``), the way a person or CI pays
it, except where noted. Rates are per manifest; latencies are in milliseconds (ms).
Nothing here asserts a speed: it measures and reports (issue 8).
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import click

from kistore.core import comparison, layout
from kistore.core.digest import Digest
from kistore.core.model import REFERENCE_FIELDS, Manifest
from kistore.git.pack import PACK_WINDOW
from kistore.store import GITATTRIBUTES_LINE

from .generate import COMMIT_TIME, extra_run, manifests
from .memory import run_sampled

GIT_ENV = {
    "GIT_AUTHOR_NAME": "kistore bench", "GIT_AUTHOR_EMAIL": "bench@kistore.invalid",
    "GIT_COMMITTER_NAME": "kistore bench", "GIT_COMMITTER_EMAIL": "bench@kistore.invalid",
    "GIT_CONFIG_NOSYSTEM": "1",
}

GITATTRIBUTES = b"M 100644 inline .gitattributes\ndata %d\n%s\n" % (
    len(GITATTRIBUTES_LINE) + 1, GITATTRIBUTES_LINE.encode() + b"\n")
"""A fast-import file command writing the store's ``.gitattributes`` (what ``kistore init``
writes), so a fast-import repository of the manifests is a store ``verify`` passes."""

_IN_PROCESS = r"""
import json, sys, time
from kistore.query.answers import rank
from kistore.store import Store
store_path, ref, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
rank(Store(store_path), ref)  # warm-up: brings the index and its caches up to date
times = []
for _ in range(n):
    store = Store(store_path)  # a fresh store each call: nothing cached in it
    start = time.perf_counter()
    rank(store, ref)
    times.append(time.perf_counter() - start)
print(json.dumps(times))
"""
"""The in-process rank row: ``kistore.query.answers.rank`` timed in one child process."""


@dataclass
class Row:
    """One line of the results table.

    Attributes:
        n: store size the row was measured at (manifests).
        what: what was measured.
        value: the measured number (None: not measured, see ``note``).
        unit: its unit (``manifests/s``, ``ms``, ``bytes/manifest`` ...).
        baseline: what it is compared with, and that number, in the same unit.
        ratio: kistore / baseline for times (lower is better) or rates (higher is better).
        target: the issue's target for the ratio or value, as text.
        met: whether the target is met (None when there is no target or no value).
        note: anything a reader needs to interpret the row.
    """

    n: int
    what: str
    value: float | None
    unit: str
    baseline: str = ""
    baseline_value: float | None = None
    ratio: float | None = None
    target: str = ""
    met: bool | None = None
    note: str = ""
    extra: dict[str, Any] = field(default_factory=dict)


def env() -> dict[str, str]:
    """The environment for every child process: fixed git identity, no user git config.

    ``PYTHONDONTWRITEBYTECODE`` is left out: with it every fresh ``kistore`` process
    compiled its ~100 modules again (~0.2 s), which a user's installed kistore never does.
    """
    found = {**os.environ, **GIT_ENV}
    found.pop("PYTHONDONTWRITEBYTECODE", None)
    return found


def run(args: list[str], *, cwd: Path | None = None, stdin: Path | None = None,
        check: bool = True) -> tuple[float, subprocess.CompletedProcess[bytes]]:
    """Run a command; return (seconds, completed process). Raises on failure if ``check``."""
    inp = stdin.open("rb") if stdin else subprocess.DEVNULL
    try:
        start = time.perf_counter()
        done = subprocess.run(args, cwd=cwd, stdin=inp, capture_output=True, env=env())
        seconds = time.perf_counter() - start
    finally:
        if stdin:
            inp.close()  # type: ignore[union-attr]
    if check and done.returncode != 0:
        raise RuntimeError(f"{' '.join(map(str, args))} exited {done.returncode}: "
                           f"{done.stderr.decode(errors='replace')[-2000:]}")
    return seconds, done


def children_cpu() -> float:
    """User + system CPU seconds of every child process waited for so far (and theirs).

    The difference around a :func:`run` is that command's CPU time: on a machine shared
    with other work, the figure that does not measure the neighbours.
    """
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def kistore_bin() -> str:
    """The ``kistore`` console script beside this Python (what a user runs)."""
    script = Path(sys.executable).parent / "kistore"
    return str(script) if script.exists() else shutil.which("kistore") or "kistore"


def has_command(name: str) -> bool:
    """True when ``kistore NAME --help`` works (the command has landed)."""
    _, done = run([kistore_bin(), name, "--help"], check=False)
    return done.returncode == 0


def prepare(workdir: Path, n: int) -> dict[str, Any]:
    """Write the N manifests as JSON Lines and the same canonical bytes as a fast-import stream.

    Nothing per manifest is kept in memory (at N = 1,000,000 the pairs alone held 8.5 GB
    of the bench process beside the add it measures): the work-tree floor reads the
    ``(path, canonical bytes)`` pairs back from ``contents.bin``.

    Returns:
        ``{"jsonl": Path, "stream": Path, "contents": Path, "paths": int, "bytes": int,
        "late_references": int}``; the last is how many references of a run name no
        manifest on an earlier line (0: the lines can be added in chunks, in order, with
        no chunk referencing what a later chunk adds).
    """
    jsonl = workdir / "manifests.jsonl"
    stream = workdir / "fast-import.stream"
    contents = workdir / "contents.bin"
    files = 0
    canonical_bytes = 0
    mark = 0
    keyed: dict[str, bytes] = {}  # protocols' and environments' objects, by digest hex
    earlier: set[str] = set()  # digest hex of every referenceable manifest seen so far
    late = 0
    with jsonl.open("w", encoding="utf-8") as lines, stream.open("wb") as out, \
            contents.open("wb") as pairs:
        tree: list[bytes] = []
        for document in manifests(n):
            lines.write(json.dumps(document, separators=(",", ":"), ensure_ascii=False) + "\n")
            m = Manifest.from_document(document)
            if m.kind == "BenchmarkRun":
                late += sum(bool(h) and h not in earlier for h in m.reference_hex)
            else:  # only a run references; its targets are the few non-run manifests
                earlier.add(m.digest.hex)
            written = [(layout.object_path(m.digest), m.object_bytes),
                       (layout.metadata_path(m.digest), m.metadata_bytes),
                       (layout.name_path(m.kind, m.name), layout.name_record(m.digest)),
                       *_group_file(m, keyed)]
            for path, data in written:
                mark += 1
                out.write(b"blob\nmark :%d\ndata %d\n%s\n" % (mark, len(data), data))
                tree.append(b"M 100644 :%d %s\n" % (mark, path.encode()))
                pairs.write(b"%s\n%d\n%s" % (path.encode(), len(data), data))
                files += 1
                canonical_bytes += len(data)
        message = b"bulk import"
        out.write(b"commit refs/heads/main\ncommitter bench <bench@kistore.invalid> %d +0000\n"
                  % COMMIT_TIME)
        out.write(b"data %d\n%s\n" % (len(message), message))
        out.write(GITATTRIBUTES)  # as in a kistore store: `kistore verify` of it is clean
        out.writelines(tree)
        out.write(b"\n")
    return {"jsonl": jsonl, "stream": stream, "contents": contents, "paths": files,
            "bytes": canonical_bytes, "late_references": late}


def kept(workdir: Path) -> dict[str, Any]:
    """The files :func:`prepare` wrote for a store a ``--keep`` run left in ``workdir``.

    Returns:
        :func:`prepare`'s dict without the counts, which only the bulk add reads.

    Raises:
        click.UsageError: ``workdir`` holds no such store (names the missing path).
    """
    prepared = {"jsonl": workdir / "manifests.jsonl", "stream": workdir / "fast-import.stream",
                "contents": workdir / "contents.bin"}
    for path in (workdir / "store" / ".git", *prepared.values()):
        if not path.exists():
            raise click.UsageError(f"--reuse: {path} is missing: no store a `--keep` run "
                                   "left here; run the bench without --reuse first")
    return prepared


def _group_file(m: Manifest, keyed: dict[str, bytes]) -> list[tuple[str, bytes]]:
    """The group file ``kistore add`` writes with ``m`` (a run whose key is known), if any.

    The generator yields every protocol and environment before the runs naming them; their
    objects are kept in ``keyed`` (a few hundred at most).
    """
    if m.kind in ("BenchmarkProtocol", "ExecutionEnvironment"):
        keyed[m.digest.hex] = m.object_bytes
    if m.kind != "BenchmarkRun":
        return []
    refs = {f: f"sha256:{h}" for f, h in zip(REFERENCE_FIELDS, m.reference_hex, strict=True)}
    obj = comparison.run_key_object(refs, *(
        comparison.stored_spec(keyed.get(refs[f][7:]), refs[f][7:], kind)
        for f, kind in (("protocolDigest", "BenchmarkProtocol"),
                        ("environmentDigest", "ExecutionEnvironment"))))
    if obj is None:
        return []
    return [(layout.group_path(comparison.comparison_key(obj), m.digest),
             layout.group_record(obj))]


def _pairs(contents: Path, chunk: int = 10_000) -> Iterator[list[tuple[str, bytes]]]:
    """Read ``contents.bin`` back as lists of at most ``chunk`` (path, bytes) pairs."""
    with contents.open("rb") as f:
        batch: list[tuple[str, bytes]] = []
        while path := f.readline():
            size = int(f.readline())
            batch.append((path[:-1].decode(), f.read(size)))
            if len(batch) == chunk:
                yield batch
                batch = []
        if batch:
            yield batch


def work_tree_floor(workdir: Path, contents: Path) -> float:
    """Seconds to write the same files into a fresh directory (temp name + rename each).

    The least any writer of this layout pays on this disk, in-process, before parsing,
    validating or touching git: the bound of a work-tree add. Only the writing is timed,
    not reading the pairs back.
    """
    return write_floor(workdir / "floor", _pairs(contents))[0]


def write_floor(base: Path, batches: Iterable[list[tuple[str, bytes]]]
                ) -> tuple[float, int, int]:
    """Write each ``(relative path, bytes)`` under ``base`` (temp name + rename), then remove it.

    Only the writes are timed, not producing the batches.

    Returns:
        ``(seconds, files, bytes)`` written.
    """
    made: set[str] = set()
    seconds, count, size = 0.0, 0, 0
    for batch in batches:
        start = time.perf_counter()
        for rel, data in batch:
            path = os.path.join(base, rel)
            parent = os.path.dirname(path)
            if parent not in made:
                os.makedirs(parent, exist_ok=True)
                made.add(parent)
            tmp = path + ".tmp"
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
            os.write(fd, data)
            os.close(fd)
            os.replace(tmp, path)
        seconds += time.perf_counter() - start
        count += len(batch)
        size += sum(len(d) for _, d in batch)
    shutil.rmtree(base)
    return seconds, count, size


CHUNK_PAST = 500_000
"""Past this many manifests the bench adds in chunks by default: one ``add --commit`` of
1,000,000 holds every manifest until it commits and was OOM-killed on a 24 GB machine
(docs/speed.md, 2026-12-03)."""

CHUNK = 100_000
"""Manifests per ``add --commit`` when the bench adds in chunks by default."""


def default_chunk(n: int) -> int:
    """Manifests per bulk ``add --commit`` at store size ``n``: :data:`CHUNK` past
    :data:`CHUNK_PAST`, else 0 (one add of all ``n``)."""
    return CHUNK if n > CHUNK_PAST else 0


def split_lines(jsonl: Path, chunk: int, into: Path) -> Iterator[Path]:
    """Yield files of ``chunk`` consecutive lines of ``jsonl`` (the last may hold fewer).

    Each file is written when asked for and removed when the next is (or at the end), so
    at most one chunk's copy is on disk.
    """
    into.mkdir(parents=True, exist_ok=True)
    with jsonl.open("rb") as lines:
        part = 0
        while True:
            path = into / f"part-{part:04d}.jsonl"
            with path.open("wb") as out:
                count = 0
                for line in lines:
                    out.write(line)
                    count += 1
                    if count == chunk:
                        break
            if count == 0:
                path.unlink()
                return
            yield path
            path.unlink()
            part += 1


def _add_commit(store: Path, jsonl: Path, message: str) -> tuple[float, float, dict[str, Any]]:
    """One ``kistore add --commit`` of ``jsonl`` as a fresh process, its memory sampled.

    Returns:
        ``(wall seconds, CPU seconds, peaks)`` (:func:`bench.memory.run_sampled`).

    Raises:
        RuntimeError: the add exited non-zero.
    """
    add = [kistore_bin(), "--store", str(store), "add", "--commit", "-m", message, str(jsonl)]
    cpu = children_cpu()
    seconds, added, peaks = run_sampled(add, env=env())
    if added.returncode != 0:
        raise RuntimeError(f"{' '.join(add)} exited {added.returncode}: "
                           f"{added.stderr.decode(errors='replace')[-2000:]}")
    return seconds, children_cpu() - cpu, peaks


def bulk_add(workdir: Path, n: int, prepared: dict[str, Any], chunk: int = 0) -> list[Row]:
    """Bulk ``kistore add --commit`` of N manifests vs ``git fast-import`` of the same bytes.

    The add's peak memory is sampled with its forked children (:mod:`bench.memory`): the
    largest RSS of its own process, and the largest sum of Pss over the process tree.

    Args:
        chunk: when > 0 and < ``n``, the JSON Lines are added ``chunk`` lines at a time, each
            chunk its own ``add --commit`` process, in order (the generator puts referenced
            kinds first; ``prepare`` counted no late reference, so no chunk dangles). The
            row's time is the sum, its peak memory the largest chunk's. ``git fast-import``
            stays one run.

    Raises:
        RuntimeError: an add failed, or chunking was asked of lines that reference a
            manifest no earlier line holds.
    """
    git_repo = workdir / "fast-import.git"
    run(["git", "init", "-q", "--bare", str(git_repo)])
    cpu = children_cpu()
    git_s, _ = run(["git", "--git-dir", str(git_repo), "fast-import", "--quiet"],
                   stdin=prepared["stream"])
    git_cpu = children_cpu() - cpu
    store = workdir / "store"
    run([kistore_bin(), "init", str(store)])
    chunked = 0 < chunk < n
    if chunked and prepared["late_references"]:
        raise RuntimeError(f"{prepared['late_references']} reference(s) of "
                           f"{prepared['jsonl']} name no manifest on an earlier line: added "
                           f"{chunk:,} lines at a time, a chunk would dangle; use --chunk 0")
    parts = split_lines(prepared["jsonl"], chunk, workdir / "chunks") if chunked \
        else iter([prepared["jsonl"]])
    times: list[float] = []
    ki_cpu = 0.0
    peaks = {"parent_rss": 0, "tree_pss": 0, "child_rss": 0}
    for i, part in enumerate(parts):
        seconds, cpu_s, chunk_peaks = _add_commit(store, part, f"bench {i + 1}" if chunked
                                                  else "bench")
        times.append(seconds)
        ki_cpu += cpu_s
        peaks = {k: max(v, chunk_peaks[k]) for k, v in peaks.items()}
    ki_s = sum(times)
    _, status = run(["git", "-C", str(store), "status", "--porcelain"])
    dirty = len(status.stdout.splitlines())
    first = first_query(store, n)  # before anything else reads the store
    floor_s = work_tree_floor(workdir, prepared["contents"])
    sparse = [] if chunked else [sparse_bulk_add(workdir, n, prepared, store, git_s, git_cpu)]
    ki_rate, git_rate = n / ki_s, n / git_s
    ratio = ki_rate / git_rate
    per = chunk if chunked else n  # manifests the largest add held
    chunks = (f" in {len(times)} add --commit of {chunk:,} lines (first {times[0]:.1f} s, "
              f"last {times[-1]:.1f} s)" if chunked else "")
    return [first, Row(n, "bulk add --commit", ki_rate, "manifests/s",
                "git fast-import, same bytes and paths", git_rate, ratio, ">= 0.33x",
                ratio >= 1 / 3,
                f"kistore {ki_s:.1f} s{chunks}, fast-import {git_s:.1f} s "
                f"({prepared['paths'] / git_s:,.0f} blobs/s); CPU {ki_cpu:.1f} s against "
                f"{git_cpu:.1f} s ({git_cpu / ki_cpu:.2f}x by CPU); peak memory"
                f"{' of the largest chunk' if chunked else ''}: "
                f"{peaks['parent_rss'] / 2**20:,.0f} MB RSS, {peaks['tree_pss'] / 2**20:,.0f} "
                f"MB Pss with its children ({peaks['tree_pss'] / per / 1024:,.1f} "
                "KB a manifest added); git status after: "
                f"{'clean' if dirty == 0 else f'{dirty} paths dirty'}",
                {"kistore_s": ki_s, "fast_import_s": git_s, "git_status_dirty": dirty,
                 "kistore_cpu_s": ki_cpu, "fast_import_cpu_s": git_cpu,
                 "peak_rss_bytes": peaks["parent_rss"], "peak_tree_pss_bytes": peaks["tree_pss"],
                 "peak_child_rss_bytes": peaks["child_rss"], "chunk": chunk if chunked else n,
                 "chunk_s": times}),
            Row(n, "bulk add vs work-tree floor", ki_rate, "manifests/s",
                "writing the same 3N files only (temp + rename)", n / floor_s,
                ki_rate / (n / floor_s), "", None,
                f"floor {floor_s:.1f} s: no parsing, validation or git; what bounds a "
                "work-tree add on this disk", {"floor_s": floor_s}), *sparse]


SPARSE_CONE = ("store/policy", "store/trust")
"""The directories the sparse row's checkout holds (``git sparse-checkout set``): what a
contributor at ten million manifests checks out (docs/speed.md, "Ten million manifests")."""


def sparse_bulk_add(workdir: Path, n: int, prepared: dict[str, Any], full: Path,
                    git_s: float, git_cpu: float) -> Row:
    """The same bulk ``add --commit`` into a cone-mode sparse checkout, against fast-import.

    The add writes every file outside the checkout to git only (a skip-worktree index
    entry, no work-tree file), so this is what an add costs when the disk is not written.
    The store is removed afterwards (the other steps measure the full one).

    Args:
        full: the full checkout's store after the same add (its tree must be the same).
        git_s: fast-import's wall seconds of the same stream; git_cpu: its CPU seconds.

    Raises:
        RuntimeError: the add or a git command failed.
    """
    store = workdir / "store-sparse"
    run([kistore_bin(), "init", str(store)])
    run(["git", "-C", str(store), "sparse-checkout", "set", "--cone", "--no-sparse-index",
         *SPARSE_CONE])
    seconds, cpu_s, _ = _add_commit(store, prepared["jsonl"], "bench")
    _, status = run(["git", "-C", str(store), "status", "--porcelain"])
    dirty = len(status.stdout.splitlines())
    files = sum(len(names) for _, _, names in os.walk(store / "store"))
    trees = [run(["git", "-C", str(s), "rev-parse", "HEAD^{tree}"])[1].stdout.strip()
             for s in (store, full)]
    shutil.rmtree(store)
    rate = n / seconds
    return Row(n, "bulk add --commit, sparse checkout", rate, "manifests/s",
               "git fast-import, same bytes and paths", n / git_s, rate / (n / git_s),
               ">= 0.33x", rate / (n / git_s) >= 1 / 3,
               f"kistore {seconds:.1f} s, fast-import {git_s:.1f} s; CPU {cpu_s:.1f} s against "
               f"{git_cpu:.1f} s ({git_cpu / cpu_s:.2f}x by CPU); checkout "
               f"{' '.join(SPARSE_CONE)}: {files} work-tree file(s) under store/ after; tree "
               f"{'the same as' if trees[0] == trees[1] else 'NOT the same as'} the full "
               f"checkout's; git status after: {'clean' if dirty == 0 else f'{dirty} paths dirty'}",
               {"kistore_s": seconds, "fast_import_s": git_s, "kistore_cpu_s": cpu_s,
                "fast_import_cpu_s": git_cpu, "git_status_dirty": dirty,
                "work_tree_files": files, "same_tree": trees[0] == trees[1]})


RANK_TARGET = "BenchmarkRun/sol-submission-20000"
"""The run every rank row ranks (the generator's first run: there at every N)."""

SHOW_OTHER = "Workload/gemm-000000"
"""A manifest of another kind for the ``show`` row (the generator's first workload)."""


def first_query(store: Path, n: int, warm_repeat: int = 5) -> Row:
    """``kistore rank`` right after the bulk add, against the same rank with the index warm.

    The first query after ``add --commit`` of N manifests once paid a whole index build
    (100,000: ~31 s); the add now keeps the index in step (issue 22). Warm: the median of
    ``warm_repeat`` fresh processes right after it, in the same run.
    """
    first_s, done = run([kistore_bin(), "--store", str(store), "rank", RANK_TARGET],
                        check=False)
    warm = [run([kistore_bin(), "--store", str(store), "rank", RANK_TARGET], check=False)[0]
            for _ in range(warm_repeat)]
    w50 = _median_ms(warm)
    return Row(n, "first rank after bulk add", first_s * 1000, "ms",
               "rank with the index warm, fresh process", w50, first_s * 1000 / w50,
               "no whole-index build", None,
               f"the first `kistore rank` after `add --commit` of {n:,} (exit "
               f"{done.returncode}); warm: median of {warm_repeat} right after; what remains "
               "over warm is O(files) stat work (the names' and work tree's freshness), not "
               "reading manifests", {"warm_ms": w50})


def listing(workdir: Path, n: int, repeat: int) -> list[Row]:
    """``kistore ls --kind BenchmarkRun`` (work tree, and ``--at HEAD``) vs ``git ls-tree``.

    Fresh processes, alternated in each round with ``git ls-tree -r --name-only HEAD
    store/metadata`` on the same repository (git listing every metadata file's name: what a
    listing of the store costs git itself). Index warm (one of each first, not timed).
    """
    store = workdir / "store"
    ls = [kistore_bin(), "--store", str(store), "ls", "--kind", "BenchmarkRun"]
    tree = ["git", "-C", str(store), "ls-tree", "-r", "--name-only", "HEAD",
            layout.METADATA_DIR]
    for command in (ls, [*ls, "--at", "HEAD"]):
        run(command, check=False)
    work, head, git = [], [], []
    count = 0
    for _ in range(repeat):
        git.append(run(tree)[0])
        seconds, done = run(ls, check=False)
        work.append(seconds)
        count = len(done.stdout.splitlines())
        head.append(run([*ls, "--at", "HEAD"], check=False)[0])
    g50 = _median_ms(git)
    rows = []
    for what, times in (("ls --kind BenchmarkRun (work tree)", work),
                        ("ls --kind BenchmarkRun --at HEAD", head)):
        t50 = _median_ms(times)
        rows.append(Row(n, what, t50, "ms", "git ls-tree -r --name-only HEAD store/metadata",
                        g50, t50 / g50, "<= 10x", t50 / g50 <= 10,
                        f"median of {repeat} fresh processes, alternated with git's; "
                        f"{count:,} runs listed", {"runs": count}))
    return rows


def _median_ms(times: list[float]) -> float:
    return statistics.median(times) * 1000


def single_add(workdir: Path, n: int, prepared: dict[str, Any], repeat: int) -> list[Row]:
    """One-manifest ``kistore add`` as a fresh process vs hash-object and the import floor.

    ``add --commit`` is also set beside git's own way to commit three files into this
    repository: ``git add`` + ``git commit`` of the three files the work-tree add just wrote
    (object, metadata, names; which leaves those files committed, as a user would).
    """
    store = workdir / "store"
    last = prepared["jsonl"].read_bytes().rstrip(b"\n").rsplit(b"\n", 1)[-1]
    add, add_commit, hash_object, floor, help_, click_floor = [], [], [], [], [], []
    git_commit: list[float] = []
    py = sys.executable
    for i in range(repeat):
        one = workdir / f"single-{i}.json"
        one.write_text(json.dumps(extra_run(last, i)))
        added, done = run([kistore_bin(), "--store", str(store), "add", str(one)])
        add.append(added)
        digest = Digest.from_str(done.stdout.split()[0].decode())
        kind, name = done.stdout.split()[1:3]
        paths = [layout.object_path(digest), layout.metadata_path(digest),
                 layout.name_path(kind.decode(), name.decode())]
        git_commit.append(
            run(["git", "-C", str(store), "add", *paths])[0]
            + run(["git", "-C", str(store), "commit", "-q", "--no-verify", "-uno",
                   "-m", f"git baseline {i}"])[0])
        two = workdir / f"single-commit-{i}.json"
        two.write_text(json.dumps(extra_run(last, 1000 + i)))
        add_commit.append(run([kistore_bin(), "--store", str(store), "add", "--commit",
                               str(two)])[0])
        hash_object.append(run(["git", "-C", str(store), "hash-object", "-w", str(one)])[0])
        floor.append(run([py, "-c", "import click, jsonschema"])[0])
        help_.append(run([kistore_bin(), "--help"])[0])
        click_floor.append(run([py, "-c", "import click"])[0])
    a, ac, h, f, g = map(_median_ms, (add, add_commit, hash_object, floor, git_commit))
    kh, cf = _median_ms(help_), _median_ms(click_floor)
    note = f"median of {repeat} fresh processes into the {n:,}-manifest store"
    return [
        Row(n, "one add (work tree)", a, "ms", "python -c 'import click, jsonschema'", f,
            a / f, "<= 1.5x", a / f <= 1.5, f"{note}; git hash-object -w: {h:.0f} ms",
            {"hash_object_ms": h}),
        Row(n, "one add --commit", ac, "ms", "python -c 'import click, jsonschema'", f,
            ac / f, "", None, note),
        Row(n, "one add --commit vs git", ac, "ms",
            "git add + git commit -uno of the same three files", g, ac / g, "", None,
            f"{note}; what git itself pays to commit three files into this repository"),
        Row(n, "kistore --help", kh, "ms", "python -c 'import click'", cf, kh / cf,
            "<= 1.5x", kh / cf <= 1.5, f"median of {repeat}"),
    ]


def verify(workdir: Path, n: int) -> list[Row]:
    """``kistore verify`` of the whole store beside two baselines timed in the same run.

    Baselines (one process at a time, as ``xargs`` runs them):

    - ``sha256sum`` over the object files: the digest check any user can do with coreutils;
      issue 22's target (>= 20,000 objects/s and >= 1/3 of its rate) is against it.
    - ``sha256sum`` + parse, issue 8's baseline: that, plus a strict parse of every file
      ``verify`` parses (objects and metadata) by a standard compiled JSON parser, ``jq
      empty`` (``jq`` 1.6 here); its time is the sum of the two commands. Issue 8's target
      (>= 10,000 objects/s and >= 1/2 of its rate) is against it. Left out (None) when
      ``jq`` is not installed.

    The rate is per object file (a manifest), for kistore and both baselines.
    """
    store = workdir / "store"
    objects = sorted(str(p) for p in (store / layout.OBJECTS_DIR).rglob("*.json"))
    listing = workdir / "objects.list"
    listing.write_text("\0".join(objects))
    sha_s, _ = run(["xargs", "-0", "-a", str(listing), "sha256sum"])
    sha_rate = len(objects) / sha_s
    parse_s = None
    if shutil.which("jq"):
        files = workdir / "files.list"  # objects and metadata: what verify parses
        files.write_text("\0".join(objects + sorted(
            str(p) for p in (store / layout.METADATA_DIR).rglob("*.json"))))
        parse_s, _ = run(["xargs", "-0", "-a", str(files), "jq", "empty"])
    target = ">= 20,000/s and >= 0.33x"  # issue 22's
    if not has_command("verify"):
        return [Row(n, "verify (whole store)", None, "objects/s", "sha256sum, same files",
                    sha_rate, None, target, None,
                    "not measured yet: `kistore verify` has not landed on main")]
    ki_s, done = run([kistore_bin(), "--store", str(store), "verify"], check=False)
    rate = len(objects) / ki_s
    rows = [Row(n, "verify (whole store)", rate, "objects/s", "sha256sum, same files",
                sha_rate, rate / sha_rate, target,
                rate >= 20_000 and rate / sha_rate >= 1 / 3,
                f"exit {done.returncode}; kistore {ki_s:.1f} s, sha256sum {sha_s:.1f} s "
                "(objects only, one process); issue 22's target")]
    if parse_s is not None:
        both_rate = len(objects) / (sha_s + parse_s)
        rows.append(Row(
            n, "verify vs sha256sum + parse", rate, "objects/s", "sha256sum + jq parse",
            both_rate, rate / both_rate, ">= 10,000/s and >= 0.5x",
            rate >= 10_000 and rate / both_rate >= 0.5,
            f"issue 8's baseline and target: sha256sum of the objects ({sha_s:.1f} s) plus "
            f"`jq empty` of every object and metadata file ({parse_s:.1f} s), one process "
            "at a time; kistore checks more (canonical bytes, schemas, cross-file, history)",
            {"sha256sum_s": sha_s, "jq_parse_s": parse_s, "kistore_s": ki_s}))
    return rows


def _p95(times: list[float]) -> float:
    ordered = sorted(times)
    return ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))] * 1000


def cpu_run(args: list[str]) -> tuple[float, float]:
    """Run a command (output discarded); return (wall seconds, CPU seconds).

    CPU is user + system of the process and of the children it waited for (``wait4``):
    what the command itself cost, less moved than wall time by other jobs on the machine.

    Raises:
        RuntimeError: the command exited non-zero.
    """
    start = time.perf_counter()
    process = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, env=env())
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"{' '.join(args)} exited {os.waitstatus_to_exitcode(status)}")
    return wall, usage.ru_utime + usage.ru_stime


def fresh_answers(store: Path, n: int, repeat: int) -> list[Row]:
    """``rank``, ``show`` of a run and ``show`` of a Workload as fresh processes, index warm.

    Each round runs the three and ``python -c "import click"`` once, in an order that
    rotates each round, so the load of a shared machine falls on all alike. Rows: p95 of
    CPU time (user + system, with the ``git`` children) of each command, and its ratio to
    the p95 of ``import click``'s CPU time in the same run (issue 22: within 2x); the
    notes give the wall-time p50s.
    """
    ki = [kistore_bin(), "--store", str(store)]
    jobs = {"rank": [*ki, "rank", RANK_TARGET], "show of a run": [*ki, "show", RANK_TARGET],
            "show of a Workload": [*ki, "show", SHOW_OTHER],
            "import click": [sys.executable, "-c", "import click"]}
    for args in jobs.values():  # the first query compares the work tree once; file cache
        cpu_run(args)
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in jobs}
    names = list(jobs)
    for i in range(repeat):
        for name in names[i % len(names):] + names[:i % len(names)]:
            times[name].append(cpu_run(jobs[name]))
    floor95 = _p95([c for _, c in times["import click"]])
    floor50 = _median_ms([w for w, _ in times["import click"]])
    rows = []
    for name in names[:-1]:
        cpu95 = _p95([c for _, c in times[name]])
        wall50 = _median_ms([w for w, _ in times[name]])
        rows.append(Row(n, f"{name} p95, fresh process (index warm)", cpu95, "ms CPU",
                        "python -c 'import click', CPU p95", floor95, cpu95 / floor95,
                        "<= 2x", cpu95 / floor95 <= 2,
                        f"CPU time (user + system) p95 over {repeat} fresh processes "
                        f"alternated with the floor; wall p50 {wall50:.0f} ms against "
                        f"import click's {floor50:.0f} ms",
                        {"p50_ms": wall50, "floor_wall_p50_ms": floor50,
                         "cpu_p50_ms": _median_ms([c for _, c in times[name]])}))
    return rows


def rank(workdir: Path, n: int, repeat: int, prepared: dict[str, Any]) -> list[Row]:
    """Index build, ``kistore rank`` with the index warm, and the incremental update.

    Rows: the build (``kistore reindex`` from scratch, fresh process); ``rank``, ``show`` of
    a run and ``show`` of a Workload as fresh processes, CPU p95 against ``python -c "import
    click"``'s timed alternately in the same run (:func:`fresh_answers`);
    ``kistore.query.answers.rank`` in one process after a warm-up, p50/p95 over ``repeat``
    calls (the query itself, which the 50 ms target is about); and ``rank`` right after a
    one-manifest work-tree add, against the warm p50.
    """
    if not has_command("rank"):
        return [Row(n, "index build / rank p95", None, "ms", "", None, None, "rank p95 <= 50 ms",
                    None, "not measured yet: the query layer (`kistore rank`) has not landed "
                          "on main")]
    store = workdir / "store"
    ki = [kistore_bin(), "--store", str(store)]
    rows = []
    build_s, done = run([*ki, "reindex"], check=False)
    rows.append(Row(n, "index build (reindex)", build_s * 1000, "ms",
                    note=f"fresh process, from scratch ({n / build_s:,.0f} manifests/s); "
                         f"exit {done.returncode}", extra={"manifests_per_s": n / build_s}))
    target = RANK_TARGET
    rows.extend(fresh_answers(store, n, repeat))
    p50 = rows[-3].extra["p50_ms"]  # rank's wall p50, for the increment row below
    _, done = run([sys.executable, "-c", _IN_PROCESS, str(store), target, str(repeat)])
    calls = json.loads(done.stdout)
    q50, q95 = _median_ms(calls), _p95(calls)
    rows.append(Row(n, "rank p95 in-process (index warm)", q95, "ms", "", None, None,
                    "p95 <= 50 ms", q95 <= 50,
                    f"p50 {q50:.1f} ms over {repeat} calls of kistore.query.answers.rank in "
                    "one process after a warm-up, a fresh Store each", {"p50_ms": q50}))
    rows.extend(listing(workdir, n, max(3, repeat // 3)))
    last = prepared["jsonl"].read_bytes().rstrip(b"\n").rsplit(b"\n", 1)[-1]
    one = workdir / "incremental.json"
    one.write_text(json.dumps(extra_run(last, 9999)))
    run([*ki, "add", str(one)])
    after_s, _ = run([*ki, "rank", target], check=False)
    extra = after_s * 1000 - p50
    rows.append(Row(n, "rank after adding 1 manifest", after_s * 1000, "ms",
                    "rank p50 with the index warm", p50, None, "increment <= 200 ms",
                    extra <= 200, f"incremental reindex ~{extra:.0f} ms (this minus warm p50)"
                    if extra >= 0 else "incremental reindex within the noise of fresh "
                    f"processes (this is {-extra:.0f} ms under the warm p50)"))
    return rows


def repo_size(workdir: Path, n: int) -> list[Row]:
    """Repository bytes per manifest after ``git gc``, then after ``git repack -a -d -f``.

    Two rows, kistore's store against the fast-import repository of the same files, each
    held to issue 22's target (<= 800). The first is what a plain ``git gc`` keeps, the
    second what a full repack keeps. ``git pack-objects`` never retries a delta between two
    whole objects of one pack (``try_delta`` in git's builtin/pack-objects.c), so a bulk
    ``add --commit`` deals its whole blobs over up to eight packs
    (``kistore.git.pack.write_kept_objects``): in one pack, ``git gc`` kept them all whole
    and only ``-f`` (``--no-reuse-delta``) deltified them.

    Both repositories pack with git's ``pack.window`` at
    :data:`kistore.git.pack.PACK_WINDOW`: the store's own ``kistore init`` set it (the
    window each row used is read back from the store's config, ``extra["pack_window"]``),
    and the fast-import repository is given the same, so the ratio compares the files and
    their history, not two settings.
    """
    dirs = {"kistore": workdir / "store" / ".git", "fast-import": workdir / "fast-import.git"}
    run(["git", "--git-dir", str(dirs["fast-import"]), "config", "pack.window", str(PACK_WINDOW)])
    _, read = run(["git", "--git-dir", str(dirs["kistore"]), "config", "--get", "pack.window"],
                  check=False)
    window = int(read.stdout or 10)  # unset (a store kept from before kistore set it): git's 10
    rows = []
    for what, command, target, limit in (
            ("repository after git gc", ["gc", "--quiet"], "<= 800 bytes", 800),
            ("repository after git repack -a -d -f", ["repack", "-a", "-d", "-f", "-q"],
             "<= 800 bytes", 800)):
        sizes, cpu = {}, 0.0
        for name, git_dir in dirs.items():
            before = children_cpu()  # each repository's own: in any order of dirs
            run(["git", "--git-dir", str(git_dir), *command])
            if name == "kistore":
                cpu = children_cpu() - before
            _, done = run(["git", "--git-dir", str(git_dir), "count-objects", "-v"])
            facts = dict(line.split(": ") for line in done.stdout.decode().splitlines())
            sizes[name] = (int(facts["size-pack"]) + int(facts["size"])) * 1024
        per, base = sizes["kistore"] / n, sizes["fast-import"] / n
        rows.append(Row(n, what, per, "bytes/manifest", f"fast-import {what}", base,
                        per / base, target, per <= limit,
                        f"{sizes['kistore']:,} bytes in .git (packs + loose); pack.window "
                        f"{window}; the store's {command[0]} took {cpu:.1f} s of CPU",
                        {"pack_window": window, "cpu_s": cpu}))
    return rows
