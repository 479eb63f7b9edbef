"""A blob-less sparse clone with many changes staged outside the checkout fetches in batches.

``git clone --filter=blob:none --sparse``, ``git sparse-checkout set store/policy``, then
``git reset --soft HEAD~3`` stages every manifest of the last three commits outside the
checkout: kistore reads them from git's index (:class:`kistore.store.StagedView`), and their
blobs are not in the clone. ``show`` of one run read each through ``git cat-file`` (a lazy
fetch each: 2,882 fetches, 369 s, in a new user's review): the names of the index re-read
every staged object and metadata file one at a time, and so did the work tree's overlay
and ``verify``. Now each reader fetches what it reads in one ``git fetch``
(:func:`kistore.git.blobs.fetch_blobs`): at most two fetches a command (the run's own files,
then the staged ones), each answer byte for byte a full clone's of the same index.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from kistore.store import Store

from ..conftest import ManifestKit, add_docs, git
from ..partial import git_processes, missing

KISTORE = str(Path(sys.executable).with_name("kistore"))

PER_COMMIT = 8
"""Runs each of the three staged commits adds (and an implementation each: 48 manifests)."""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    """A bare server: 5 runs committed, then three commits of :data:`PER_COMMIT` runs.

    Returns:
        (the server, run name -> digest).
    """
    tmp = tmp_path_factory.mktemp("staged")
    kit = ManifestKit()
    protocol, env, workload = kit.protocol(), kit.environment(), kit.workload()
    work = tmp / "work"
    Store.init(work)
    names: dict[str, str] = {}

    def runs(numbers: range) -> list[dict]:
        docs = []
        for i in numbers:
            impl = kit.implementation(f"proj-{i}", name=f"impl-{i}")
            docs += [impl, kit.run(protocol, env, impl, workload, latency=10 + i,
                                   name=f"run-{i}")]
        return docs

    first = [protocol, env, workload, *runs(range(5))]
    batches = [first] + [runs(range(5 + c * PER_COMMIT, 5 + (c + 1) * PER_COMMIT))
                         for c in range(3)]
    for docs in batches:
        for doc, digest in zip(docs, add_docs(Store(work), docs), strict=True):
            names[doc["metadata"]["name"]] = digest
    git(work, "branch", "-M", "main")
    bare = tmp / "server.git"
    git(tmp, "clone", "-q", "--bare", str(work), str(bare))
    git(bare, "config", "uploadpack.allowFilter", "true")
    return bare, names


def _clones(tmp_path: Path, bare: Path) -> tuple[Path, Path]:
    """A blob-less sparse clone and a full clone, each after ``git reset --soft HEAD~3``."""
    sparse, full = tmp_path / "sparse", tmp_path / "full"
    git(tmp_path, "clone", "-q", "--filter=blob:none", "--sparse", f"file://{bare}",
        str(sparse))
    git(sparse, "sparse-checkout", "set", "store/policy")
    git(tmp_path, "clone", "-q", f"file://{bare}", str(full))
    for clone in (sparse, full):
        git(clone, "reset", "-q", "--soft", "HEAD~3")
    return sparse, full


def _kistore(store: Path, args: tuple[str, ...], trace: Path | None = None
             ) -> subprocess.CompletedProcess[bytes]:
    env = dict(os.environ)
    env.pop("GIT_TRACE2_EVENT", None)
    if trace is not None:
        env["GIT_TRACE2_EVENT"] = str(trace)
    return subprocess.run([KISTORE, "--store", str(store), *args], capture_output=True,
                          check=False, env=env)


COMMANDS = {
    "show-name": ("show", "BenchmarkRun/run-12"),
    "show-digest-json": ("show", "run-20", "--json"),
    "rank": ("rank", "BenchmarkRun/run-12", "--json", "--all"),
    "verify": ("verify",),
}


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_staged_reads_fetch_at_most_twice_and_answer_as_a_full_clone(
        tmp_path: Path, server: tuple[Path, dict[str, str]], command: str) -> None:
    bare, names = server
    sparse, full = _clones(tmp_path, bare)
    staged = git(sparse, "diff", "--cached", "--name-only").split()
    assert len([p for p in staged if p.startswith("store/objects/")]) == 6 * PER_COMMIT
    # the query index of HEAD (5 runs) built first, as a clone used before has it: what
    # is counted below is the staged manifests' reads
    assert _kistore(sparse, ("ls", "--at", "HEAD")).returncode == 0
    args = tuple(names[a] if a in names else a for a in COMMANDS[command])
    before = missing(sparse)
    trace = tmp_path / "trace.json"
    got = _kistore(sparse, args, trace)
    want = _kistore(full, args)
    assert want.returncode == 0, want.stderr.decode()
    assert got.returncode == 0, got.stderr.decode()
    assert got.stdout == want.stdout
    assert got.stderr == want.stderr
    processes = git_processes(trace)
    # one `git fetch` per batch (a lazy fetch of `git cat-file` is a `fetch` child too)
    assert processes["fetch"] <= 2, processes
    assert processes["fetch"] >= 1  # the staged blobs were not here: they were fetched
    assert processes["cat-file"] <= 1, processes
    assert missing(sparse) < before
