"""The query index of a commit in a blob-less clone fetches the blobs it lacks in one batch.

A rank ``--at HEAD`` in a ``git clone --filter=blob:none`` builds the query index of that
commit: it reads every manifest. Each blob it lacked was fetched when read, one ``git
cat-file`` (and one ``git fetch``, one connection to the remote) per blob, and read again
after being measured (review 2026-12-01). Now they are fetched in one ``git fetch`` first
(`git/blobs.py` `fetch_blobs`), and each is read once. The processes are counted from git's
own trace (``GIT_TRACE2_EVENT``), the blobs fetched from the clone (tests/partial.py).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from ..conftest import git
from ..partial import git_processes, missing, serve_runs

KISTORE = str(Path(sys.executable).with_name("kistore"))


def test_rank_at_head_in_a_blob_less_clone_fetches_the_index_blobs_in_one_fetch(tmp_path):
    # a store without group files: a rank there builds the index (with them it reads the
    # run's group only: tests/query/test_group_page.py)
    server, _, _, docs, digests = serve_runs(tmp_path, runs=4, groups=False)  # 22 blobs
    clone = tmp_path / "reader.git"
    git(tmp_path, "clone", "-q", "--bare", "--filter=blob:none", f"file://{server}",
        str(clone))
    before = missing(clone)
    trace = tmp_path / "trace.json"
    done = subprocess.run([KISTORE, "--store", str(clone), "rank", "BenchmarkRun/run-2",
                           "--at", "HEAD", "--json"], capture_output=True, check=False,
                          env={**os.environ, "GIT_TRACE2_EVENT": str(trace)})
    assert done.returncode == 0, done.stderr.decode()
    assert [(r["rank"], r["name"], r["digest"], r["latencyNs"])
            for r in json.loads(done.stdout)] == [
        (i + 1, f"run-{i}", digests[4 + 2 * i], 10_000 + i) for i in range(4)]
    # what was fetched, each once: the 22 manifest files, kistore.toml (the limits), the
    # ranking policy and run-2's names file
    assert before - missing(clone) == 25
    processes = git_processes(trace)
    # the index of HEAD fetches the 22 manifest files in one `git fetch`; the names file
    # one more (`View.named`), kistore.toml and the policy through git one by one
    # (`cat-file`, which fetches each). It was 25 cat-file processes and 25 fetches: one
    # per blob.
    assert (processes["cat-file"], processes["fetch"], processes["upload-pack"]) == (2, 4, 4)
