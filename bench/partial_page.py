"""A run page in a blob-less clone (``git clone --filter=blob:none``) against a full clone's.

Issue 22: a reader of one run page should not fetch the store. The page reads the run's
comparison group from its listing (``store/groups/``, kistore/index/groups.py): the rows
here say how many blobs it fetched of the commit's, how many ``git fetch`` processes, and
its CPU and wall time against the same page in a full clone with the index warm.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import time
from pathlib import Path

from kistore.core import layout
from kistore.core.digest import Digest
from kistore.index.index import open_catalog
from kistore.store import Store

from .generate import COMMIT_TIME
from .history import _fresh_gates
from .measure import GIT_ENV, RANK_TARGET, Row, children_cpu, env, kistore_bin, run


def _traced(args: list[str], trace: Path) -> tuple[float, float, bytes]:
    """Run a command with git's trace to ``trace``; return (wall s, CPU s, stdout).

    CPU: user + system of the process and of the children it waited for (the ``git``
    fetches and the ``upload-pack`` of a ``file://`` remote, which run here).
    """
    start = time.perf_counter()
    process = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL,
                               env={**env(), "GIT_TRACE2_EVENT": str(trace)})
    out = process.stdout.read() if process.stdout else b""
    _, status, usage = os.wait4(process.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"{' '.join(args)} exited {os.waitstatus_to_exitcode(status)}")
    return time.perf_counter() - start, usage.ru_utime + usage.ru_stime, out


def _missing(repo: Path) -> int:
    _, done = run(["git", "--git-dir", str(repo), "rev-list", "--objects", "--all",
                   "--missing=print"])
    return sum(1 for line in done.stdout.splitlines() if line.startswith(b"?"))


def _du(path: Path) -> int:
    """Bytes of the files under ``path`` (what ``du -sb`` counts, apparent sizes)."""
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def _fetches(trace: Path) -> int:
    return sum(1 for line in trace.read_text().splitlines()
               if (e := json.loads(line)).get("event") == "start" and "fetch" in e["argv"])


def group_files(store: Path, server: Path) -> int:
    """Commit onto ``server``'s main every run's group file its HEAD lacks; return how many.

    A store written before group files were (or by a kistore without them) has none; the
    files are those kistore's writers commit (:func:`kistore.core.layout.group_path`
    holding :func:`~kistore.core.layout.group_record` of the key object), one git
    fast-import commit, keys taken from ``store``'s query index of the same commit.
    """
    head = run(["git", "--git-dir", str(server), "rev-parse", "HEAD"])[1].stdout.strip()
    listed = run(["git", "--git-dir", str(server), "ls-tree", "-r", "--name-only", "HEAD",
                  layout.GROUPS_DIR])[1].stdout.decode().splitlines()
    have = set(listed)
    blobs: list[bytes] = []
    files: list[bytes] = []
    catalog = open_catalog(Store(store), "HEAD")
    for key, records in catalog.run_groups():
        if key is None:
            continue
        paths = [layout.group_path(Digest.from_str(key), Digest.from_str(r.digest))
                 for r in records]
        paths = [p for p in paths if p not in have]
        if not paths or records[0].key_object is None:
            continue
        data = layout.group_record(records[0].key_object)
        mark = len(blobs) + 1
        blobs.append(b"blob\nmark :%d\ndata %d\n%s\n" % (mark, len(data), data))
        files += [b"M 100644 :%d %s\n" % (mark, p.encode()) for p in paths]
    if not files:
        return 0
    message = b"group files"
    stream = b"".join(blobs) + (
        b"commit refs/heads/main\ncommitter %s <%s> %d +0000\ndata %d\n%s\nfrom %s\n"
        % (GIT_ENV["GIT_COMMITTER_NAME"].encode(), GIT_ENV["GIT_COMMITTER_EMAIL"].encode(),
           COMMIT_TIME, len(message), message, head)) + b"".join(files) + b"\n"
    subprocess.run(["git", "--git-dir", str(server), "fast-import", "--quiet"], input=stream,
                   check=True, env=env())
    return len(files)


def reverse_indexes(repository: Path) -> int:
    """Write the reverse index (``.rev``) of each pack of ``repository`` that lacks one.

    ``git upload-pack`` sends a fetched object from its pack, and finds its end through
    the pack's reverse index: without a ``.rev`` file (git before 2.41 writes none by
    default) it sorts every offset of the pack again for each fetch, ~0.3 s of CPU at
    1,000,000 manifests for a fetch of one blob; a server of git 2.41 or later has them.
    Returns how many were written.
    """
    written = 0
    for pack in sorted((repository / "objects" / "pack").glob("pack-*.pack")):
        if not pack.with_suffix(".rev").exists():
            run(["git", "-c", "pack.writeReverseIndex=true", "index-pack", "--rev-index",
                 str(pack)], cwd=pack.parent)
            written += 1
    return written


def blobless_page(workdir: Path, n: int, repeat: int) -> list[Row]:
    """``show`` of a run in a fresh blob-less clone against a full clone's warm page.

    A bare server of the store (``uploadpack.allowFilter``; group files committed where
    the store lacks them: :func:`group_files`; each pack's reverse index written, as git
    2.41 and later do: :func:`reverse_indexes`); a full bare clone with the index of HEAD
    built (untimed) gives the baseline, ``show RUN --at HEAD`` warm, median CPU; each
    round clones the server again without blobs (untimed) and times the first page.
    Rows: the page's CPU time (ratio to the baseline) and the blobs it fetched (ratio to
    the commit's blobs), with the ``git fetch`` processes and wall times in the notes.
    """
    store, server = workdir / "store", workdir / "partial-server.git"
    full = workdir / "partial-full.git"
    for path in (server, full):
        if path.exists():
            run(["rm", "-rf", str(path)])
    run(["git", "-c", "pack.writeReverseIndex=true", "clone", "-q", "--bare", "--no-local",
         str(store), str(server)])
    run(["git", "--git-dir", str(server), "config", "uploadpack.allowFilter", "true"])
    written = group_files(store, server)
    reverse_indexes(server)
    run(["git", "clone", "-q", "--bare", f"file://{server}", str(full)])
    page = [kistore_bin(), "--store", "{}", "show", RANK_TARGET, "--at", "HEAD"]
    built = store / ".git" / "kistore" / "index.sqlite"
    if built.exists():
        # The store's index of the commit under the group files: the first (untimed) page
        # moves it on by that one commit, where `reindex` reads every manifest (12 min at
        # 1,000,000). The ids it holds are git's, the same in any clone.
        (full / "kistore").mkdir()
        shutil.copyfile(built, full / "kistore" / "index.sqlite")
    else:
        run([*(a.replace("{}", str(full)) for a in page[:3]), "reindex"], check=False)
    trace = workdir / "partial-trace.json"
    base = [_traced([a.replace("{}", str(full)) for a in page], trace) for _ in range(repeat + 1)]
    walls, cpus, fetched, fetches = [], [], [], []
    clone_walls, clone_cpus, sizes = [], [], []
    total = 0
    expected = base[0][2]
    for i in range(repeat):
        clone = workdir / f"partial-clone-{i}.git"
        before = children_cpu()
        clone_walls.append(run(["git", "clone", "-q", "--bare", "--filter=blob:none",
                                f"file://{server}", str(clone)])[0])
        clone_cpus.append(children_cpu() - before)
        sizes.append(_du(clone))
        total = total or _missing(clone)  # the same commit in every round
        trace.unlink(missing_ok=True)
        wall, cpu, out = _traced([a.replace("{}", str(clone)) for a in page], trace)
        if out != expected:
            raise RuntimeError("the blob-less clone's run page differs from the full clone's")
        walls.append(wall)
        cpus.append(cpu)
        fetched.append(total - _missing(clone))
        fetches.append(_fetches(trace))
        run(["rm", "-rf", str(clone)])
    cpu50 = statistics.median(cpus) * 1000
    base50 = statistics.median(c for _, c, _ in base[1:]) * 1000
    wall50 = statistics.median(walls) * 1000
    base_wall = statistics.median(w for w, _, _ in base[1:]) * 1000
    blobs = statistics.median(fetched)
    made = f"; {written:,} group files committed first" if written else ""
    size, full_size = statistics.median(sizes), _du(full) - _du(full / "kistore")
    clone_wall, clone_cpu = statistics.median(clone_walls), statistics.median(clone_cpus)
    return [
        Row(n, "run page in a blob-less clone (first page, CPU)", cpu50, "ms CPU",
            "the same page in a full clone, index warm (CPU)", base50, cpu50 / base50, "",
            None, f"median of {repeat} fresh `--filter=blob:none` clones (CPU of kistore and "
                  f"its git children, the file:// upload-pack included); wall {wall50:.0f} ms "
                  f"against {base_wall:.0f} ms; {statistics.median(fetches):.0f} git fetch "
                  f"processes; page identical to the full clone's{made}",
            {"wall_ms": wall50, "base_wall_ms": base_wall, "fetches": fetches,
             "group_files_written": written, "cpu_ms": [c * 1000 for c in cpus],
             "base_cpu_ms": [c * 1000 for _, c, _ in base[1:]],
             "walls_ms": [w * 1000 for w in walls]}),
        Row(n, "blob-less clone (`git clone --bare --filter=blob:none`), size", size / 1e6,
            "MB", "the full bare clone (its pack, no index)", full_size / 1e6,
            size / full_size, "", None,
            f"the clone itself: {clone_wall:.1f} s wall, {clone_cpu:.1f} s CPU (git and "
            "the file:// upload-pack), median of the same clones",
            {"bytes": sizes, "full_bytes": full_size, "clone_wall_s": clone_walls,
             "clone_cpu_s": clone_cpus}),
        Row(n, "blobs a run page fetches in a blob-less clone", blobs, "blobs",
            "blobs of the commit", total, blobs / total if total else None, "", None,
            "the group's members and what they reference, the names file, the policy and "
            "kistore.toml (a full index build fetches every blob)", {"fetched": fetched}),
    ]


def pull_request_on_groups(repository: Path) -> tuple[str, str]:
    """Make ``repository``'s HEAD a one-run pull request on a store with group files.

    ``repository`` (bare) has on ``main`` the commit :func:`group_files` made (G), whose
    parent added one run (C, on B). A pull request adds a run's group file with its run,
    so the group files cannot simply sit on top: this writes on ``refs/heads/gate`` B with
    G's ``store/groups`` less C's run's group file, then a commit adding C's files and
    that group file, and points HEAD there (``kistore check HEAD~1..HEAD`` is then the
    gate of a one-run pull request, group files included: KI215/KI216).

    Returns:
        ``(base commit, pull request commit)`` ids.

    Raises:
        RuntimeError: C is not a commit that only adds files, or G holds no group file
            for C's run.
    """
    git = ["git", "--git-dir", str(repository)]

    def out(*args: str) -> str:
        return run([*git, *args])[1].stdout.decode().strip()

    g = out("rev-parse", "refs/heads/main")
    c, b = out("rev-parse", f"{g}~1"), out("rev-parse", f"{g}~2")
    added = [line.split("\t") for line in out("diff-tree", "-r", "--no-commit-id", c
                                              ).splitlines()]
    if any(meta.split()[4] != "A" for meta, _ in added):
        raise RuntimeError(f"{c} does not only add files")
    runs = {d.hex for _, path in added if (d := layout.digest_from_path(path)) is not None}
    groups = out("rev-parse", f"{g}:store/groups")
    listed = [line.split("\t") for line in out("diff-tree", "-r", "--no-commit-id", c, g
                                                ).splitlines()]
    mine = [(meta.split()[3], path) for meta, path in listed
            if (p := layout.group_from_path(path)) is not None and p[1].hex in runs]
    if not mine:
        raise RuntimeError(f"{g} has no group file for the run {c} adds")
    who = b"committer %s <%s> %d +0000\n" % (GIT_ENV["GIT_COMMITTER_NAME"].encode(),
                                               GIT_ENV["GIT_COMMITTER_EMAIL"].encode(),
                                               COMMIT_TIME)
    stream = (b"commit refs/heads/gate\n" + who + b"data 11\ngroup files\nfrom %s\n" % b.encode()
              + b"M 040000 %s store/groups\n" % groups.encode()
              + b"".join(b"D %s\n" % path.encode() for _, path in mine) + b"\n"
              + b"commit refs/heads/gate\n" + who + b"data 11\nadd one run\n"
              + b"".join(b"M 100644 %s %s\n" % (meta.split()[3].encode(), path.encode())
                         for meta, path in added)
              + b"".join(b"M 100644 %s %s\n" % (blob.encode(), path.encode())
                         for blob, path in mine) + b"\n")
    subprocess.run([*git, "fast-import", "--quiet"], input=stream, check=True, env=env())
    run([*git, "symbolic-ref", "HEAD", "refs/heads/gate"])
    return out("rev-parse", "gate~1"), out("rev-parse", "gate")


def groups_gate(n: int, workdir: Path, repository: Path, base_dir: Path, base: Path,
                repeat: int) -> Row:
    """The one-run gate on ``repository`` against the same on ``base`` (both with groups).

    Both made by :func:`pull_request_on_groups`; each gate a fresh ``kistore check
    HEAD~1..HEAD`` in a fresh ``git clone --bare --no-local`` (:func:`.history.
    _fresh_gates`, alternated, clones under ``workdir`` and ``base_dir``).
    """
    gate = _fresh_gates([(workdir, repository), (base_dir, base)], repeat)
    (wall_n, cpu_n), (wall_1k, cpu_1k) = gate["times"]
    return Row(n, "gate of a 1-run pull request with its group file, fresh clone (CPU)",
               cpu_n * 1000, "ms", "the same gate on the base store", cpu_1k * 1000,
               cpu_n / cpu_1k, "<= 1.5x", cpu_n / cpu_1k <= 1.5,
               f"exit {gate['exit']}; median of {repeat} alternated; wall {wall_n * 1000:.0f} "
               f"against {wall_1k * 1000:.0f} ms ({wall_n / wall_1k:.2f}x)",
               gate)
