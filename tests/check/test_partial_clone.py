"""The gate in a partial clone (``git clone --filter=blob:none``) fetches only what it reads.

A store of 10,000,000 manifests is a clone of tens of GB; the pull-request gate reads the
range's files and a few looked-up paths (kistore/check/_focus.py), so CI can clone without
blobs and let git fetch the few the gate asks for (kistore/git/blobs.py). These tests
count the blobs the clone holds before and after.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from kistore.core import layout
from kistore.core.model import Manifest
from kistore.store import Store

from ..conftest import ManifestKit, add_docs, git
from ..partial import git_processes, serve_runs
from ..partial import missing as _missing

KISTORE = str(Path(sys.executable).with_name("kistore"))


def _server(tmp_path: Path, runs: int = 30) -> tuple[Path, ManifestKit, list[dict]]:
    """A store of ``runs`` runs behind a server allowing filters; its protocol, environment
    and workload (what a new run references)."""
    server, _, kit, docs, _ = serve_runs(tmp_path, runs)
    return server, kit, docs[:3]


def _push_run(tmp_path: Path, server: Path, kit: ManifestKit, base: list[dict],
              name: str, latency: int = 5000) -> None:
    """Add one run named ``name`` in a full clone and push it to the server's main."""
    work = tmp_path / f"contributor-{name}"
    git(tmp_path, "clone", "-q", str(server), str(work))
    impl = kit.implementation(f"proj-{name}", name=f"impl-{name}")
    store = Store(work)
    add_docs(store, [impl], commit=True)
    # the run alone in the last commit: a one-manifest pull request
    add_docs(store, [kit.run(base[0], base[1], impl, base[2], latency=latency, name=name)])
    git(work, "push", "-q", "origin", "HEAD:main")


def test_the_gate_of_a_one_run_pull_request_fetches_a_few_blobs(tmp_path):
    server, kit, base = _server(tmp_path)
    _push_run(tmp_path, server, kit, base, "new-run")
    clone = tmp_path / "ci.git"
    git(tmp_path, "clone", "-q", "--bare", "--filter=blob:none", f"file://{server}",
        str(clone))
    before = _missing(clone)
    assert before > 150  # 33 manifests: objects, metadata and names files, none fetched
    trace = tmp_path / "trace.json"
    done = subprocess.run([KISTORE, "--store", str(clone), "check", "main~1..main"],
                          capture_output=True, text=True,
                          env={**os.environ, "GIT_TRACE2_EVENT": str(trace)})
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.strip() == "ok: main~1..main: 0 errors, 0 warnings, 0 info"
    fetched = before - _missing(clone)
    # kistore.toml; the ranking policy (KI210 asks whether the run's family ranks by a
    # unit); the run's object, metadata, names file and group file; its four references'
    # objects and metadata files (looked up): 14; KI234 (is it 100x ahead of the median
    # run of the group it leaves?): the 30 other runs' objects of its group, in one fetch
    # (reviewer r90b F2: the first run it did not beat by 100x, and that run's
    # implementation, 2 blobs, was a judgment against HEAD's best); no implementation
    # (nothing is 100x behind it): nothing else of the store
    assert 0 < fetched <= 14 + 30, fetched
    assert git_processes(trace)["fetch"] <= 14 + 1


def _gate(tmp_path: Path, server: Path) -> tuple[str, int, int]:
    """Run the gate of the last commit (``check main~1..main``) in a blob-less clone.

    Returns:
        Its output, the blobs it fetched and the ``git fetch`` processes it started.
    """
    clone = tmp_path / "ci.git"
    git(tmp_path, "clone", "-q", "--bare", "--filter=blob:none", f"file://{server}",
        str(clone))
    before = _missing(clone)
    trace = tmp_path / "trace.json"
    done = subprocess.run([KISTORE, "--store", str(clone), "check", "main~1..main"],
                          capture_output=True, text=True,
                          env={**os.environ, "GIT_TRACE2_EVENT": str(trace)})
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout, before - _missing(clone), git_processes(trace)["fetch"]


def test_a_new_first_by_100x_reads_its_group_in_one_more_fetch(tmp_path):
    """KI234: a run at 100 ns beside 30 runs at 10,000-10,029 ns beats each by 100x or
    more, so the gate reads every run of its group (past the first, in one fetch) and the
    best one's implementation and metadata: the cost of an outlier, not of every run."""
    server, kit, base = _server(tmp_path)
    _push_run(tmp_path, server, kit, base, "new-run", latency=100)
    out, fetched, fetches = _gate(tmp_path, server)
    assert "warning KI234 rank-outlier: would rank #1 of its comparison group (by measured " \
           "latency, /timing/latencyNs/mean ascending) with 100 ns, 100x better than #16 " \
           "BenchmarkRun/run-" in out
    assert out.strip().endswith("0 errors, 1 warning, 0 info")
    # the one-run pull request's 14 at most, the 30 other runs' objects, their 30
    # implementations (whose role says whether a run ranks: it is 100x ahead of some
    # run, so the median run depends on them) and the median run's metadata file
    assert 0 < fetched <= 14 + 30 + 30 + 1
    # a one-run pull request's gate starts one fetch per blob it reads (14 here); the 30
    # runs of the group come in one more, their implementations in one more, not one each
    assert fetches <= 14 + 3


def test_an_ordinary_run_into_a_group_holding_a_slip_reads_its_roles_in_one_fetch(tmp_path):
    """r91 F1: a change can remove or make a stored run's mark (its runs move the median
    run), so a group whose runs already span 100x (a landed slip at 50 ns beside 30 runs at
    10,000 ns) reads its runs' implementations and attestations for an ordinary run too:
    one more fetch, no mark moved, nothing said."""
    server, kit, base = _server(tmp_path)
    _push_run(tmp_path, server, kit, base, "slip", latency=50)
    _push_run(tmp_path, server, kit, base, "new-run")
    out, fetched, fetches = _gate(tmp_path, server)
    assert out.strip() == "ok: main~1..main: 0 errors, 0 warnings, 0 info"
    # the one-run pull request's 14, the 31 other runs' objects, their 31 implementations
    # (76: 45 before r91 F1, when only an arrival 100x ahead of some run read them)
    assert 0 < fetched <= 14 + 31 + 31, fetched
    assert fetches <= 14 + 2


def test_a_taken_name_is_refused_in_a_partial_clone(tmp_path):
    server, kit, base = _server(tmp_path, runs=5)
    work = tmp_path / "contributor"
    git(tmp_path, "clone", "-q", str(server), str(work))
    clash = kit.run(base[0], base[1], kit.implementation("proj-0"), base[2], latency=1,
                    name="run-0")  # run-0 is taken: write the files by hand, past `add`
    m = Manifest.from_document(clash)
    for path, data in ((layout.object_path(m.digest), m.object_bytes),
                       (layout.metadata_path(m.digest), m.metadata_bytes)):
        (work / path).parent.mkdir(parents=True, exist_ok=True)
        (work / path).write_bytes(data)
    git(work, "add", "-A")
    git(work, "commit", "-q", "--no-verify", "-m", "a second run-0")
    git(work, "push", "-q", "origin", "HEAD:main")
    clone = tmp_path / "ci.git"
    git(tmp_path, "clone", "-q", "--bare", "--filter=blob:none", f"file://{server}",
        str(clone))
    done = subprocess.run([KISTORE, "--store", str(clone), "check", "main~1..main"],
                          capture_output=True, text=True)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "error KI205 name-not-unique" in done.stdout
    assert "error KI211 name-path-missing" in done.stdout
    assert _missing(clone) > 20  # still a partial clone: the rest was never fetched


def test_a_blob_the_remote_can_no_longer_give_is_an_error_not_a_traceback(tmp_path):
    # review 2026-12-01 F4: "internal error ... KeyError" when the server had moved away.
    server, kit, base = _server(tmp_path, runs=2)
    _push_run(tmp_path, server, kit, base, "new-run")
    clone = tmp_path / "ci.git"
    git(tmp_path, "clone", "-q", "--bare", "--filter=blob:none", f"file://{server}",
        str(clone))
    server.rename(tmp_path / "gone.git")
    done = subprocess.run([KISTORE, "--store", str(clone), "check", "main~1..main"],
                          capture_output=True, text=True)
    assert done.returncode != 0
    assert "internal error" not in done.stderr and "Traceback" not in done.stderr
    assert "is not in this partial clone and git could not fetch it from its promisor " \
           "remote" in done.stderr


def test_verify_at_head_in_a_blob_less_clone_fetches_the_store_in_one_fetch(tmp_path):
    # `verify --at HEAD` reads every file of the commit: each blob the clone lacked was
    # fetched as it was read, one `git cat-file` and one `git fetch` (a connection to the
    # remote) per file: 132 of each for 20 runs. The listing now fetches them in one.
    server, _, _, _, _ = serve_runs(tmp_path, runs=20)  # 43 manifests
    clone = tmp_path / "reader.git"
    git(tmp_path, "clone", "-q", "--bare", "--filter=blob:none", f"file://{server}",
        str(clone))
    before = _missing(clone)
    blobs = len({line.split()[2] for line in git(clone, "ls-tree", "-r", "HEAD").splitlines()})
    trace = tmp_path / "trace.json"
    done = subprocess.run([KISTORE, "--store", str(clone), "verify", "--at", "HEAD"],
                          capture_output=True, text=True,
                          env={**os.environ, "GIT_TRACE2_EVENT": str(trace)})
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.endswith("ok: store at HEAD: 0 errors, 0 warnings, 1 info\n")
    assert before == blobs >= 132 and _missing(clone) == 0  # every file read: every blob
    processes = git_processes(trace)
    # the files under store/ (each manifest's three, the policy, the group files where the
    # writers commit them), kistore.toml (the limits) and .gitattributes (KI113) come in one
    # fetch: the last two were read one by one before and beside the listing (3 fetches)
    assert (processes["fetch"], processes["cat-file"]) == (1, 0)
