"""Partial clones (``git clone --filter=blob:none``) for tests: a server of runs, and counting.

A test builds a store of runs behind a bare server that allows filters, clones it without
blobs, runs kistore, and counts the blobs the clone fetched (:func:`missing` before and
after). Used by tests/check/test_partial_clone.py (the gate) and
tests/store/test_partial_clone_names.py (``KIND/NAME`` answers).
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from kistore.core import layout
from kistore.core.digest import Digest
from kistore.index.catalog import MemoryCatalog
from kistore.store import Store

from .conftest import ManifestKit, add_docs, git


def missing(repo: Path) -> int:
    """How many objects reachable from every ref the clone lacks (blobs not fetched yet)."""
    listing = git(repo, "rev-list", "--objects", "--all", "--missing=print")
    return sum(1 for line in listing.splitlines() if line.startswith("?"))


def git_processes(trace: Path) -> Counter[str]:
    """Count the git processes a ``GIT_TRACE2_EVENT=trace`` run started, by subcommand.

    Every git process (and each it starts: ``fetch`` starts ``index-pack``; a ``file://``
    remote's ``upload-pack`` runs here too) writes a ``start`` event with its argv.

    Returns:
        e.g. ``{"fetch": 1, "cat-file": 3, "upload-pack": 4, ...}``.
    """
    counted: Counter[str] = Counter()
    for line in trace.read_text().splitlines():
        event = json.loads(line)
        if event.get("event") != "start":
            continue
        argv, i = event["argv"], 1
        if argv[0].endswith("git-upload-pack"):
            counted["upload-pack"] += 1
            continue
        while i < len(argv) and argv[i].startswith("-"):  # -c X=Y, --git-dir DIR
            i += 2 if argv[i] in ("-c", "--git-dir", "-C") else 1
        counted[argv[i] if i < len(argv) else ""] += 1
    return counted


def commit_groups(work: Path) -> int:
    """Commit the group file of every run of ``work``'s HEAD that lacks one (``store/groups/``).

    What the writers of the store do for each run with a known comparison key
    (:func:`kistore.core.layout.group_path` holding :func:`~kistore.core.layout.group_record`
    of its key object); a store whose writers already did is left as it is.

    Returns:
        How many group files were written (and committed, when any).
    """
    records = MemoryCatalog.from_view(Store(work).view("HEAD")).records(kind="BenchmarkRun")
    written = 0
    for r in records:
        if r.comparison_key is None or r.key_object is None:
            continue
        path = work / layout.group_path(Digest.from_str(r.comparison_key),
                                        Digest.from_str(r.digest))
        data = layout.group_record(r.key_object)
        if path.exists():
            assert path.read_bytes() == data
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        written += 1
    if written:
        git(work, "add", "store/groups")
        git(work, "commit", "-q", "--no-verify", "-m", "group files")
    return written


def serve_runs(tmp_path: Path, runs: int = 30, *, groups: bool | None = None
               ) -> tuple[Path, Path, ManifestKit, list[dict], list[str]]:
    """A committed store of ``runs`` runs (and what they reference) behind a bare server.

    One protocol, environment and workload; an implementation and a run per ``i`` (named
    ``impl-i`` and ``run-i``, latency ``10_000 + i`` ns: above KI230's floor). ``groups``:
    True, every run's group file is committed too (:func:`commit_groups`); False, none is
    (a store from before group files: a last commit removes what the writers wrote); None,
    what the writers wrote.

    Returns:
        (the server, the work tree it was pushed from, the kit that made the manifests,
        every document added in order, their digests in the same order).
    """
    kit = ManifestKit()
    protocol, env, workload = kit.protocol(), kit.environment(), kit.workload()
    docs = [protocol, env, workload]
    for i in range(runs):
        impl = kit.implementation(f"proj-{i}", name=f"impl-{i}")
        docs += [impl, kit.run(protocol, env, impl, workload, latency=10_000 + i,
                                   name=f"run-{i}")]
    work = tmp_path / "work"
    Store.init(work)
    digests = add_docs(Store(work), docs)
    git(work, "branch", "-M", "main")
    if groups:
        commit_groups(work)
    elif groups is False and (work / "store" / "groups").exists():
        git(work, "rm", "-r", "-q", "store/groups")
        git(work, "commit", "-q", "--no-verify", "-m", "a store from before group files")
    server = tmp_path / "server.git"
    git(tmp_path, "clone", "-q", "--bare", str(work), str(server))
    git(server, "config", "uploadpack.allowFilter", "true")
    return server, work, kit, docs, digests
