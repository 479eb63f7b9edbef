"""The site tests' demo store: made from the tests' own manifests, no ../shared needed.

What it holds (three commits with fixed dates, so its commit ids are the same in every run):

1. ``a-catalog``: a measured protocol (``demo_measured``, mean) on two GPUs, two
   workloads, five implementations (one a reference), and runs of ``gemm-4096``
   on the H100: ranks 1, 2, 2 (a tie), 4, one without the ranked value (unranked), one
   ``incorrect`` (excluded), a reference run, and a run whose title is
   ``<script>alert(1)</script>``; two runs on the B200 (a second group of the workload);
   one run of ``softmax-1024``; a run that names no source; a run whose protocol is not
   in the store (no group).
2. ``b-published``: the published record (run, protocol, environment; its workload and
   implementation were never published), byte for byte from this repository's
   ``store/``, and a SOL-style run beside it in its group.
3. ``c-settings``: ``kistore.toml`` gets ``[cite] permalink`` (so cite blocks have
   permalinks and downloads).

:func:`add_run` adds one more run (a new commit), for incremental-build tests.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

from kistore.core.model import Manifest
from kistore.store import Store

ROOT = Path(__file__).resolve().parents[2]
API = "kernelindex.dev/v1alpha1"
PERMALINK = "https://github.com/example/kernelindex/blob/{commit}/{path}"
XSS_TITLE = "<script>alert(1)</script>"
XSS_AUTHOR = '<img src=x onerror="alert(2)">'
PUBLISHED = {
    "run": "sha256:384a96d0ed68745873c797f08184670795010f215daabb29f4d68b69757854f6",
    "protocol": "sha256:6383f62490dad270ad2146a94f67b48fba5cfcbc0b9b180f02665c69cc4433a0",
    "environment": "sha256:f304afb2fedab4bbeadf8ac36a990ff517ab6e824dfe5a3ee0fe46259ff5e39f",
}
DATES = ["2026-08-01T10:00:00Z", "2026-08-02T10:00:00Z", "2026-08-03T10:00:00Z",
         "2026-08-04T10:00:00Z", "2026-08-05T10:00:00Z"]


def doc(kind: str, name: str, spec: dict[str, Any], title: str | None = None,
        **metadata: Any) -> dict[str, Any]:
    """Return a manifest document."""
    meta: dict[str, Any] = {"name": name, "title": title or name, **metadata}
    return {"apiVersion": API, "kind": kind, "metadata": meta, "spec": spec}


def digest(document: dict[str, Any]) -> str:
    return str(Manifest.from_document(document).digest)


PROTOCOL = doc("BenchmarkProtocol", "demo-harness-1", {
    "harness": {"name": "demo harness", "version": "1.0"},
    "measurement": {"timer": "cuda_event", "primaryStatistic": "mean"},
    "correctness": {"reference": "definition reference implementation",
                    "comparator": "allclose"},
    "comparability": {"family": "demo_measured",
                      "notes": "Comparable within one workload, GPU and harness version."},
}, "Demo harness 1.0")
H100 = doc("ExecutionEnvironment", "h100-demo", {
    "hardware": {"vendor": "nvidia", "product": "NVIDIA H100 80GB HBM3",
                 "architecture": "sm_90"},
    "software": {"driver": "570.124.06", "cuda": "12.8",
                 "libraries": {"torch": "2.7.1", "triton": "3.3.1"}},
}, "H100 80GB, CUDA 12.8")
B200 = doc("ExecutionEnvironment", "b200-demo", {
    "hardware": {"vendor": "nvidia", "product": "NVIDIA B200", "architecture": "sm_100"},
    "software": {"driver": "570.124.06", "cuda": "12.8"},
}, "B200, CUDA 12.8")
GEMM = doc("Workload", "gemm-4096", {
    "suite": {"name": "DemoBench", "version": "1", "collection": "gemm"},
    "definition": "gemm_n_4096_k_4096",
    "description": "C = A @ B.T in bfloat16.",
    "opType": "gemm", "dtypes": ["bfloat16"],
    "cases": [{"axes": {"M": m}} for m in (1, 16, 256)],
    "correctness": {"atol": 0.01, "rtol": 0.01},
    "reference": {"language": "python", "source": "def run(A, B):\n    return A @ B.T\n"},
}, "GEMM N=4096 K=4096")
SOFTMAX = doc("Workload", "softmax-1024", {
    "suite": {"name": "DemoBench", "version": "1", "collection": "softmax"},
    "definition": "softmax_1024",
}, "Softmax over 1024 columns")
IMPLS = {
    "triton-a": doc("Implementation", "triton-a", {
        "project": "fast-gemm", "author": "Amber Fox", "revision": "v1.2.0",
        "language": "triton", "source": {"url": "https://example.org/fast-gemm",
                                         "path": "kernels/gemm.py"}}),
    "cuda-b": doc("Implementation", "cuda-b", {
        "project": "cutlass-tuned", "author": "Quiet Heron", "revision": "3f2a9c1",
        "artifacts": [{"name": "gemm.cubin", "digest": "sha256:" + "ab" * 32}]}),
    "cuda-c": doc("Implementation", "cuda-c", {"project": "handwritten", "author": "Proud Wren"}),
    "xss": doc("Implementation", "xss-impl", {"project": "</td></tr><b>bold</b>",
                                             "author": XSS_AUTHOR}),
    "ref": doc("Implementation", "torch-reference", {"project": "PyTorch", "role": "reference",
                                                     "author": "DemoBench"}),
}


def run(name: str, impl: str, latency: float | None, *, env: dict[str, Any] = H100,
        workload: dict[str, Any] = GEMM, status: str = "passed", title: str | None = None,
        protocol: str | None = None, source: str | None = "demo-source",
        extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """Return a run of the demo harness (latency in ns; None: no mean recorded)."""
    latency_ns = {"mean": latency, "min": latency * 0.9} if latency is not None \
        else {"median": 123.0}
    spec: dict[str, Any] = {
        "status": status,
        "timing": {"latencyNs": latency_ns, "primaryStatistic": "mean", "trials": 100},
        "correctness": {"passed": status == "passed", "maxAbsoluteError": 0.0004},
        "observedAt": "2026-07-20T12:00:00Z",
        "workloadDigest": digest(workload), "protocolDigest": protocol or digest(PROTOCOL),
        "environmentDigest": digest(env), "implementationDigest": digest(IMPLS[impl]),
    }
    if source is not None:
        spec["sourceNative"] = {"source": source, "externalId": name,
                                "metrics": {"speedup": 1.5, "num_trials": 100}}
    spec.update(extra or {})
    return doc("BenchmarkRun", name, spec, title or f"{name} on {env['metadata']['name']}",
               labels={"worker": "demo-1"})


def catalog() -> list[dict[str, Any]]:
    """The first commit's manifests (see the module docstring)."""
    return [PROTOCOL, H100, B200, GEMM, SOFTMAX, *IMPLS.values(),
            run("gemm-first", "triton-a", 100_000, title="Fast GEMM on H100"),
            run("gemm-tie-a", "cuda-b", 120_000),
            run("gemm-tie-b", "cuda-c", 120_000),
            run("gemm-fourth", "cuda-c", 150_000, source=None),
            run("gemm-novalue", "cuda-b", None),
            run("gemm-wrong", "triton-a", 90_000, status="incorrect"),
            run("gemm-torch", "ref", 200_000),
            run("gemm-xss", "xss", 180_000, title=XSS_TITLE),
            run("gemm-b200-a", "triton-a", 60_000, env=B200),
            run("gemm-b200-b", "cuda-b", 70_000, env=B200),
            run("softmax-a", "triton-a", 5_000, workload=SOFTMAX),
            run("gemm-orphan", "cuda-c", 130_000, protocol="sha256:" + "0" * 64)]


def published() -> list[Manifest]:
    """The published record, read byte for byte from this repository's ``store/``."""
    from kistore.core import layout
    from kistore.core.digest import Digest

    found = []
    for d in PUBLISHED.values():
        digest_ = Digest.from_str(d)
        found.append(Manifest.from_bytes((ROOT / layout.object_path(digest_)).read_bytes(),
                                         (ROOT / layout.metadata_path(digest_)).read_bytes()))
    return found


def sol_neighbour() -> dict[str, Any]:
    """A SOL-style run in the published record's comparison group (same key fields)."""
    record = next(m for m in published() if m.kind == "BenchmarkRun")
    spec = dict(record.spec)
    spec["sourceNative"] = {**spec["sourceNative"], "externalId": "99999",
                            "metrics": {**spec["sourceNative"]["metrics"], "sol_score": 0.6,
                                        "fast_1_count": 12}}
    spec["timing"] = {"latencyNs": {"mean": 12_000_000}, "primaryStatistic": "mean"}
    spec["implementationDigest"] = digest(IMPLS["cuda-b"])
    return doc("BenchmarkRun", "sol-submission-99999", spec, "Quiet Heron · same SOL board")


def commit(path: Path, message: str, when: str, *, amend: bool = False) -> str:
    """Commit the work tree with the git binary at a fixed date; return the commit id.

    ``amend`` rewrites the last commit instead (``kistore init``'s, made at the wall clock).
    """
    env = {**os.environ, "GIT_AUTHOR_DATE": when, "GIT_COMMITTER_DATE": when,
           "GIT_AUTHOR_NAME": "demo", "GIT_AUTHOR_EMAIL": "demo@kistore.invalid",
           "GIT_COMMITTER_NAME": "demo", "GIT_COMMITTER_EMAIL": "demo@kistore.invalid"}
    for args in (["add", "-A"], ["commit", "-q", "--no-verify", "-m", message,
                                 *(["--amend", "--reset-author"] if amend else [])]):
        subprocess.run(["git", *args], cwd=path, env=env, check=True, capture_output=True)
    return subprocess.run(["git", "rev-parse", "HEAD"], cwd=path, env=env, check=True,
                          capture_output=True, text=True).stdout.strip()


def build_demo_store(path: Path) -> Store:
    """Create the demo store at ``path`` (see the module docstring) and return it."""
    store = Store.init(path)
    commit(path, "kistore init: new store", DATES[0], amend=True)
    store.add([Manifest.from_document(d) for d in catalog()], allow_dangling=True)
    commit(path, "a-catalog", DATES[1])
    store.add([*published(), Manifest.from_document(sol_neighbour())], allow_dangling=True)
    commit(path, "b-published", DATES[2])
    settings = path / "kistore.toml"
    settings.write_text(settings.read_text().replace(
        "[cite]\n", f'[cite]\npermalink = "{PERMALINK}"\npublisher = "KernelIndex demo"\n', 1))
    commit(path, "c-settings", DATES[3])
    return Store(path)


def add_run(store: Store, name: str, latency: float, **options: Any) -> str:
    """Add one more demo run in a new commit; return its digest."""
    document = run(name, "cuda-c", latency, **options)
    store.add([Manifest.from_document(document)])
    commit(store.root, f"add {name}", DATES[4])
    return digest(document)


def push_to_server(store: Store, server: Path) -> str:
    """Push the store's branch to a bare repository ``server`` (made when absent) as
    ``origin``'s main line, and fetch it: its commits are then on a remote's main line, as
    a site meant to be cited from is built (``site build`` warns of permalinks to commits
    no remote's main line holds, as ``kistore cite`` does). Returns the branch's name."""
    if not server.exists():
        subprocess.run(["git", "init", "-q", "--bare", str(server)], check=True)
        _git(store, "remote", "add", "origin", str(server))
    branch = _git(store, "branch", "--show-current")
    _git(store, "push", "-q", "origin", f"HEAD:refs/heads/{branch}")
    _git(store, "fetch", "-q", "origin")
    _git(store, "remote", "set-head", "origin", branch)
    return branch


def as_fetched(store: Store) -> None:
    """Point ``refs/remotes/origin/main`` at HEAD, as a fetch after a push would leave it
    (no remote configured, so no other warning of a remote's notes): the permalinks of a
    build then name commits on a remote's main line, and it warns of none."""
    _git(store, "update-ref", "refs/remotes/origin/main", "HEAD")


def _git(store: Store, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=store.root, check=True, capture_output=True,
                          text=True).stdout.strip()
