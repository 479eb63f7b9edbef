"""Evidence in rankings: a maintainer withdrawal unranks a run, a trusted rerun verifies one."""

from __future__ import annotations

import json

import pytest

from kistore import attestation, layout, notes, signing
from kistore.cli import main
from kistore.digest import Digest
from kistore.trust import add_key

from .conftest import add_docs, fixed_key

RERUN_KEY, MAINTAINER_KEY = fixed_key(1), fixed_key(2)


def attach(store, digest: str, key, type_name: str, env: str) -> None:
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


@pytest.fixture
def attested(store, kit):
    protocol, env, workload = kit.protocol(), kit.environment(), kit.workload()
    docs, digests = [protocol, env, workload], {}
    for name, latency in [("a", 10), ("b", 20), ("c", 30)]:
        impl = kit.implementation(f"proj-{name}", name=f"impl-{name}")
        run = kit.run(protocol, env, impl, workload, latency=latency, name=name)
        docs += [impl, run]
        digests[name] = kit.digest(run)
    add_docs(store, docs)
    add_key(store.root, signing.public_key_line(RERUN_KEY.public_key()), ["rerun"])
    add_key(store.root, signing.public_key_line(MAINTAINER_KEY.public_key()), ["maintainer"])
    env_digest = kit.digest(env)
    attach(store, digests["a"], MAINTAINER_KEY, "withdrawal", env_digest)
    attach(store, digests["c"], RERUN_KEY, "rerun", env_digest)
    return store


def run(runner, store, *args):
    return runner.invoke(main, ["--store", str(store.root), *args])


def test_withdrawn_run_is_not_ranked_and_verified_filter_keeps_verified(runner, attested):
    result = run(runner, attested, "rank", "BenchmarkRun/b", "--json", "--all")
    assert result.exit_code == 0, result.output
    rows = {r["name"]: (r["rank"], r["evidenceLevel"], r["reason"])
            for r in json.loads(result.output)}
    assert rows == {"b": (1, "source-native", None), "c": (2, "verified", None),
                    "a": (None, "source-native", "withdrawn")}
    verified = run(runner, attested, "rank", "BenchmarkRun/b", "--json", "--evidence",
                   "verified")
    assert [(r["name"], r["rank"]) for r in json.loads(verified.output)] == [("c", 1)]


def test_show_names_evidence_and_attestations(runner, attested):
    result = run(runner, attested, "show", "BenchmarkRun/c", "--json")
    assert result.exit_code == 0, result.output
    page = json.loads(result.output)
    assert (page["evidenceLevel"], page["rank"], page["groupSize"]) == ("verified", 2, 2)
    assert [a["effect"] for a in page["attestations"]] == ["verifies"]
    text = run(runner, attested, "show", "BenchmarkRun/a")
    assert "not ranked (withdrawn)" in text.output
    assert "evidence level: source-native (withdrawn)" in text.output
