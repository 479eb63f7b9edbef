"""A small store with every case the export tables show, and helpers to read an export."""

from __future__ import annotations

import json
import subprocess
from datetime import UTC, datetime
from pathlib import Path

import pytest

from kistore.attest import attestation, notes, signing
from kistore.attest.trust import add_key
from kistore.cli import main
from kistore.core import layout
from kistore.core.digest import Digest

from ..conftest import add_docs, fixed_key, git

RERUN_KEY, MAINTAINER_KEY = fixed_key(1), fixed_key(2)


def attach(store, digest: str, key, type_name: str, env: str) -> None:
    """Attach a signed rerun (reproduced) or withdrawal note to a run."""
    subject = Digest.from_str(digest)
    if type_name == "withdrawal":
        predicate = {"reason": "harness bug", "createdAt": "2026-07-10T00:00:00Z"}
    else:
        predicate = {"outcome": "reproduced", "observedAt": "2026-07-10T06:41:58Z",
                     "environmentDigest": env,
                     "timing": {"latencyNs": {"mean": 31}, "primaryStatistic": "mean"}}
    statement = attestation.make_statement(subject, layout.object_path(subject), type_name,
                                           predicate)
    notes.attach(store, subject, attestation.sign_statement(statement, key).to_bytes())


class Fixture:
    """The fixture store and what the tests need to know of it."""

    def __init__(self, store, digests: dict[str, str], runs: int) -> None:
        self.store = store
        self.digests = digests
        self.runs = runs


def build(store, kit) -> Fixture:
    """Three groups on two GPUs (one ranked source-native), a reference, a failed run, a tie,
    a run in no group, a verified and a withdrawn run; committed, with trust committed."""
    measured = kit.protocol("synthetic", name="proto-measured")
    sol = kit.protocol("sol_execbench_leaderboard", name="proto-sol")
    h100 = kit.environment("NVIDIA H100", name="env-h100")
    h100["spec"]["hardware"]["architecture"] = "sm_90"
    b200 = kit.environment("NVIDIA B200", name="env-b200")
    rms, gemm = kit.workload("rmsnorm", name="rmsnorm"), kit.workload("gemm", name="gemm")
    impls = {n: kit.implementation(f"proj-{n}", name=f"impl-{n}") for n in "abcd"}
    ref = kit.implementation("baseline", role="reference", name="impl-ref")
    docs = [measured, sol, h100, b200, rms, gemm, ref, *impls.values()]
    digests: dict[str, str] = {}

    def run(name, protocol, env, impl, workload, latency, **kw):
        doc = kit.run(protocol, env, impl, workload, latency=latency, name=name, **kw)
        docs.append(doc)
        digests[name] = kit.digest(doc)

    # rmsnorm on H100, measured: a 10, b 30, c 30 (tie), ref 100, d incorrect
    run("h100-a", measured, h100, impls["a"], rms, {"mean": 10, "median": 9, "p95": 12})
    run("h100-b", measured, h100, impls["b"], rms, 30)
    run("h100-c", measured, h100, impls["c"], rms, 30)
    run("h100-ref", measured, h100, ref, rms, 100)
    run("h100-d", measured, h100, impls["d"], rms, 1, status="incorrect")
    # rmsnorm on B200: a ranks 2 there, b 1
    run("b200-a", measured, b200, impls["a"], rms, 20.5)
    run("b200-b", measured, b200, impls["b"], rms, 15)
    # gemm on B200 under the SOL protocol: source-native sol_score, higher first
    for name, impl, latency, score in [("sol-a", "a", 50, 0.25), ("sol-b", "b", 40, 0.5),
                                       ("sol-c", "c", 60, 0.75)]:
        run(name, sol, b200, impls[impl], gemm, latency,
            native={"externalId": f"id-{name}", "metrics": {
                "sol_score": score, "speedup_factor": 2, "device": "cuda:0", "ok": True}})
    add_docs(store, docs)
    # a run whose protocol is not in the store: in no group
    lonely = kit.protocol("synthetic", version="2", name="proto-missing")
    orphan = kit.run(lonely, h100, impls["a"], rms, latency=5, name="orphan")
    add_docs(store, [orphan], allow_dangling=True)
    digests["orphan"] = kit.digest(orphan)
    # Trusted from a date before the attestations (a key without validFrom counts only from
    # the commit that adds it, and a notes commit may carry the same second).
    since = datetime(2020, 1, 1, tzinfo=UTC)
    add_key(store.root, signing.public_key_line(RERUN_KEY.public_key()), ["rerun"],
            valid_from=since)
    add_key(store.root, signing.public_key_line(MAINTAINER_KEY.public_key()), ["maintainer"],
            valid_from=since)
    git(store.root, "add", "store/trust")
    git(store.root, "commit", "-q", "-m", "trust")
    attach(store, digests["h100-c"], RERUN_KEY, "rerun", kit.digest(h100))
    attach(store, digests["b200-a"], MAINTAINER_KEY, "withdrawal", kit.digest(b200))
    digests.update({name: kit.digest(doc) for name, doc in [
        ("measured", measured), ("sol", sol), ("h100", h100), ("b200", b200), ("rms", rms),
        ("gemm", gemm), ("ref", ref)]})
    return Fixture(store, digests, runs=11)


@pytest.fixture
def fixture(store, kit) -> Fixture:
    return build(store, kit)


def cli(runner, store, *args):
    """Run `kistore --store STORE ARGS...`."""
    return runner.invoke(main, ["--store", str(store.root), *args])


def export_ok(runner, store, out: Path, *args: str):
    result = cli(runner, store, "export", str(out), *args)
    assert result.exit_code == 0, result.output
    return result


def duck(out: Path, sql: str) -> list[tuple]:
    """Run SQL on an export with DuckDB; ``{runs}`` etc. name each table's files."""
    import duckdb

    tables = {name: f"read_parquet('{out}/{name}/**/*.parquet', hive_partitioning = true)"
              for name in ("runs", "groups", "attestations", "manifests")}
    return duckdb.connect().execute(sql.format(**tables)).fetchall()


def files(path: Path) -> dict[str, bytes]:
    """Every file under a directory, by relative path."""
    return {p.relative_to(path).as_posix(): p.read_bytes()
            for p in sorted(path.rglob("*")) if p.is_file()}


def clone(source: Path, target: Path) -> Path:
    """A fresh clone of a repository (so a test never writes the source's .git)."""
    subprocess.run(["git", "clone", "-q", str(source), str(target)], check=True)
    return target


def rank_json(runner, store, ref: str, *args: str) -> list[dict]:
    result = cli(runner, store, "rank", ref, "--json", "--all", *args)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)
