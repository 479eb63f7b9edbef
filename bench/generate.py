"""Synthetic but realistic manifests for the benchmark.

Shaped like what the importers make of ``shared/data`` and ``shared/examples``: a few
protocols (one per evaluation stack), execution environments (GPU x software stack),
workloads (suite problems with cases), implementations (project x author x revision), and
benchmark runs that reference one of each by digest. Runs are the bulk (about 93%), as in
the real index. Deterministic for a given seed, so two runs of the bench add the same bytes.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from kistore.core import canonical
from kistore.core.digest import Digest
from kistore.core.model import object_document

API = "kernelindex.dev/v1alpha1"

PROTOCOLS = [
    ("sol_execbench_leaderboard", "SOL-ExecBench evaluation stack", "v1.1", "mean"),
    ("sol_execbench_leaderboard", "SOL-ExecBench evaluation stack", "v1.0", "mean"),
    ("kernelbench", "KernelBench harness", "0.3", "mean"),
    ("flashinfer_trace", "flashinfer-bench", "0.1.2", "median"),
]
GPUS = [
    ("nvidia", "NVIDIA B200", "sm_100"),
    ("nvidia", "NVIDIA H100 80GB HBM3", "sm_90"),
    ("nvidia", "NVIDIA H100 PCIe", "sm_90"),
    ("nvidia", "NVIDIA A100-SXM4-80GB", "sm_80"),
    ("nvidia", "NVIDIA L40S", "sm_89"),
    ("amd", "AMD Instinct MI300X", "gfx942"),
]
STACKS = [
    {"driver": "570.124.06", "cuda": "12.8",
     "libraries": {"torch": "2.7.1+cu128", "triton": "3.3.1"}},
    {"driver": "550.54.15", "cuda": "12.4",
     "libraries": {"torch": "2.5.1+cu124", "triton": "3.1.0"}},
]
OPS = ["gemm", "rmsnorm", "moe_grouped_gemm", "attention_prefill", "attention_decode", "softmax",
       "layernorm", "conv2d", "rope", "topk_sampling"]
LANGS = [("triton", "triton"), ("cuda", "cutlass"), ("python", "torch"), ("cuda", "cuda")]
AUTHORS = ["proud-wren", "gpt-o3", "claude-opus", "deepseek-r1", "nvidia-dev", "kb-baseline",
           "quiet-heron", "amber-fox"]
STATUSES = ["passed"] * 8 + ["incorrect", "runtime-error"]



COMMIT_TIME = 1790812800
"""Seconds since the epoch of the bench's fast-import commits: 2026-10-01T00:00:00Z, after
every generated ``observedAt`` (2026-01 to 2026-09; KI227 refuses a run entering before it
was observed) and before any run of the bench (KI428 refuses a commit dated past the
clock). It was 0 (1970), which KI227 made an error in the gate."""

def _manifest(kind: str, name: str, title: str, spec: dict[str, Any],
              labels: dict[str, str] | None = None) -> dict[str, Any]:
    metadata: dict[str, Any] = {"name": name, "title": title}
    if labels:
        metadata["labels"] = labels
    return {"apiVersion": API, "kind": kind, "metadata": metadata, "spec": spec}


def _digest(manifest: dict[str, Any]) -> str:
    return str(Digest.of(canonical.dumps(object_document(manifest))))


def _counts(n: int) -> tuple[int, int, int, int]:
    """Split ``n`` manifests into (protocols, environments, workloads, implementations)."""
    protocols = min(len(PROTOCOLS), max(1, n // 50))
    environments = min(len(GPUS) * len(STACKS), max(1, n // 50))
    workloads = max(1, n // 40)
    implementations = max(1, n // 40)
    return protocols, environments, workloads, implementations


def manifests(n: int, *, seed: int = 8) -> Iterator[dict[str, Any]]:
    """Yield ``n`` schema-valid manifests: referenced kinds first, then runs.

    Args:
        n: how many manifests in total (at least 5: one of each kind).
        seed: random seed; the same ``(n, seed)`` yields the same manifests.

    Yields:
        Manifest documents (``{apiVersion, kind, metadata, spec}``), every name unique per
        kind, every run's four digests resolvable within the same sequence.
    """
    if n < 5:
        raise ValueError("n must be at least 5 (one manifest of each kind)")
    rng = random.Random(seed)
    n_prot, n_env, n_work, n_impl = _counts(n)
    protocols, environments, workloads, implementations = [], [], [], []
    statistics = []  # each protocol's primary statistic: its runs state it (KI218)
    boards = []  # each workload's definition: its runs state it as their benchmark (KI238)
    for i in range(n_prot):
        family, harness, version, stat = PROTOCOLS[i]
        statistics.append(stat)
        m = _manifest("BenchmarkProtocol", f"{family.replace('_', '-')}-{version}".lower(),
                      f"{harness} {version}", {
            "harness": {"name": harness, "version": version},
            "measurement": {"timer": "cuda_event", "primaryStatistic": stat},
            "correctness": {"reference": "definition reference implementation",
                            "comparator": "allclose"},
            "comparability": {"family": family,
                              "notes": "Comparable only within one definition, GPU type and "
                                       "evaluation stack version."},
        })
        protocols.append(_digest(m))
        yield m
    for i in range(n_env):
        vendor, product, arch = GPUS[i % len(GPUS)]
        stack = STACKS[i // len(GPUS)]
        slug = f"{arch.replace('_', '-')}-{i}-{product.lower().replace(' ', '-')}"
        m = _manifest("ExecutionEnvironment", slug,
                      f"{product}, CUDA {stack['cuda']}", {
            "hardware": {"vendor": vendor, "product": product, "architecture": arch},
            "software": stack,
        })
        environments.append(_digest(m))
        yield m
    for i in range(n_work):
        op = OPS[i % len(OPS)]
        k = rng.choice([1024, 2048, 4096, 8192, 14336, 28672])
        cases = [{"axes": {"M": m, "N": k, "K": 4096}, "inputs": {"A": {"type": "random"}}}
                 for m in sorted(rng.sample([1, 8, 16, 32, 64, 128, 248, 256, 512], 3))]
        boards.append(f"{i:03d}_{op}_n_{k}")
        m = _manifest("Workload", f"{op.replace('_', '-')}-{i:06d}", f"{op} n={k} #{i}", {
            "suite": {"name": rng.choice(["SOL-ExecBench", "KernelBench", "flashinfer-trace"]),
                      "version": "1"},
            "definition": boards[-1],
            "opType": op,
            "dtypes": [rng.choice(["bfloat16", "float16", "float32", "float8_e4m3fn"])],
            "cases": cases,
            "correctness": {"atol": 0.01, "rtol": 0.01},
        })
        workloads.append(_digest(m))
        yield m
    for i in range(n_impl):
        language, framework = LANGS[i % len(LANGS)]
        author = AUTHORS[i % len(AUTHORS)]
        m = _manifest("Implementation", f"{author}-{framework}-{i:06d}",
                      f"{author} {framework} kernel #{i}", {
            "project": f"{framework}-kernels",
            "author": author,
            "revision": f"{rng.getrandbits(160):040x}",
            "role": "reference" if i % 37 == 0 else "candidate",
            "language": language,
            "framework": framework,
        })
        implementations.append(_digest(m))
        yield m
    for i in range(n - n_prot - n_env - n_work - n_impl):
        w = rng.randrange(len(workloads))
        mean = rng.lognormvariate(11, 1.5)
        status = rng.choice(STATUSES)
        spec = {
            "status": status,
            "timing": {"latencyNs": {"mean": round(mean, 1), "median": round(mean * 0.98, 1),
                                     "min": round(mean * 0.9, 1), "max": round(mean * 1.3, 1)},
                       "primaryStatistic": statistics[w % len(protocols)], "trials": 100,
                       "warmupTrials": 10},
            "correctness": {"passed": status == "passed",
                            "maxAbsoluteError": round(rng.random() * 1e-3, 6)},
            "observedAt": f"2026-{rng.randint(1, 9):02d}-{rng.randint(10, 28)}T"
                          f"{rng.randint(10, 23)}:{rng.randint(10, 59)}:{rng.randint(10, 59)}Z",
            "workloadDigest": workloads[w],
            "protocolDigest": protocols[w % len(protocols)],
            "environmentDigest": rng.choice(environments),
            "implementationDigest": rng.choice(implementations),
            "sourceNative": {"source": "sol-execbench", "externalId": str(20000 + i),
                             "benchmark": boards[w],
                             "metrics": {"latency_ms": round(mean / 1e6, 6),
                                         "speedup": round(rng.uniform(0.2, 3.0), 4)}},
        }
        # named as the SOL-ExecBench importer names a submission (KI209: name and
        # externalId agree)
        yield _manifest("BenchmarkRun", f"sol-submission-{20000 + i}",
                        f"run {i} on workload {w}", spec, {"worker": f"bench-worker-{i % 7}"})


def write_jsonl(path: Path, n: int, *, seed: int = 8) -> int:
    """Write ``manifests(n, seed=seed)`` to ``path`` as JSON Lines; return bytes written."""
    with path.open("w", encoding="utf-8") as f:
        for m in manifests(n, seed=seed):
            f.write(json.dumps(m, separators=(",", ":"), ensure_ascii=False) + "\n")
    return path.stat().st_size


def extra_run(template_line: bytes, index: int) -> dict[str, Any]:
    """A fresh run (new digest, new name) made from the last run of a bench JSONL file."""
    m = json.loads(template_line)
    m["metadata"]["name"] = f"sol-submission-single-{index}"  # agrees with externalId (KI209)
    m["spec"]["sourceNative"]["externalId"] = f"single-{index}"
    return m
