"""Partial clones (``git clone --filter=blob:none``) for tests: a server of runs, and counting.

A test builds a store of runs behind a bare server that allows filters, clones it without
blobs, runs kistore, and counts the blobs the clone fetched (:func:`missing` before and
after). Used by tests/check/test_partial_clone.py (the gate) and
tests/store/test_partial_clone_names.py (``KIND/NAME`` answers).
"""

from __future__ import annotations

from pathlib import Path

from kistore.store import Store

from .conftest import ManifestKit, add_docs, git


def missing(repo: Path) -> int:
    """How many objects reachable from every ref the clone lacks (blobs not fetched yet)."""
    listing = git(repo, "rev-list", "--objects", "--all", "--missing=print")
    return sum(1 for line in listing.splitlines() if line.startswith("?"))


def serve_runs(tmp_path: Path, runs: int = 30
               ) -> tuple[Path, Path, ManifestKit, list[dict], list[str]]:
    """A committed store of ``runs`` runs (and what they reference) behind a bare server.

    One protocol, environment and workload; an implementation and a run per ``i`` (named
    ``impl-i`` and ``run-i``, latency ``10 + i`` ns).

    Returns:
        (the server, the work tree it was pushed from, the kit that made the manifests,
        every document added in order, their digests in the same order).
    """
    kit = ManifestKit()
    protocol, env, workload = kit.protocol(), kit.environment(), kit.workload()
    docs = [protocol, env, workload]
    for i in range(runs):
        impl = kit.implementation(f"proj-{i}", name=f"impl-{i}")
        docs += [impl, kit.run(protocol, env, impl, workload, latency=10 + i, name=f"run-{i}")]
    work = tmp_path / "work"
    Store.init(work)
    digests = add_docs(Store(work), docs)
    git(work, "branch", "-M", "main")
    server = tmp_path / "server.git"
    git(tmp_path, "clone", "-q", "--bare", str(work), str(server))
    git(server, "config", "uploadpack.allowFilter", "true")
    return server, work, kit, docs, digests
