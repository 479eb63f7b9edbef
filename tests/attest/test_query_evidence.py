"""Evidence in rankings: a maintainer withdrawal unranks a run, a trusted rerun verifies one."""

from __future__ import annotations

import json

import pytest

from kistore.attest import attestation, evidence, notes, signing
from kistore.attest.trust import add_key
from kistore.cli import main
from kistore.core import layout
from kistore.core.digest import Digest

from ..conftest import add_docs, commit_all, fixed_key, redate_history

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
    commit_all(store.root, "trust")  # keys count from the commit that adds them
    redate_history(store.root, "2026-01-01T00:00:00Z")  # ... in an earlier second
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
    assert "evidence: source-native (as submitted, no source named; withdrawn)" in text.output


COMMUNITY_KEY = fixed_key(3)


def attestation_bytes(digest: str, key, type_name: str, env: str,
                      outcome: str = "reproduced") -> bytes:
    subject = Digest.from_str(digest)
    predicate = {"outcome": outcome, "observedAt": "2026-07-10T06:41:58Z",
                 "environmentDigest": env,
                 "timing": {"latencyNs": {"mean": 31}, "primaryStatistic": "mean"}}
    statement = attestation.make_statement(subject, layout.object_path(subject), type_name,
                                           predicate)
    return attestation.sign_statement(statement, key).to_bytes()


def test_batch_evidence_equals_per_run_evidence(attested, kit, monkeypatch):
    """evidence_for_many answers exactly what evidence_for answers, run by run.

    The store holds notes and files, trusted and community attestations, a committed file
    and a work-tree one, a renamed (defective) file, a run with none, and a digest that is
    no object of the store.
    """
    from kistore.attest.evidence import evidence_for, evidence_for_many

    from ..conftest import commit_all, write_raw

    env = kit.digest(kit.environment())
    runs = sorted(str(d) for d in attested.view().digests())  # every object, runs among them
    # besides the fixture's notes: a community note; committed community and trusted files;
    # an uncommitted trusted rerun that disagrees; a renamed file (invalid)
    notes.attach(attested, Digest.from_str(runs[0]), attestation_bytes(
        runs[0], COMMUNITY_KEY, "reproduction", env))
    notes.attach(attested, Digest.from_str(runs[1]), attestation_bytes(
        runs[1], COMMUNITY_KEY, "reproduction", env), as_file=True)
    notes.attach(attested, Digest.from_str(runs[1]), attestation_bytes(
        runs[1], RERUN_KEY, "rerun", env), as_file=True)
    commit_all(attested.root, "committed attestation files")
    notes.attach(attested, Digest.from_str(runs[2]), attestation_bytes(
        runs[2], RERUN_KEY, "rerun", env, outcome="not-reproduced"), as_file=True)
    renamed = attestation_bytes(runs[3], COMMUNITY_KEY, "reproduction", env)
    hex_ = runs[3].removeprefix("sha256:")
    write_raw(attested.root, f"{notes.ATTESTATIONS_SHA256}/{hex_[:2]}/{hex_[2:]}/{'0' * 64}"
              ".json", renamed)
    absent = Digest.of(b"no such object")
    fixed = notes.datetime.now(notes.UTC)  # an uncommitted file's entry time is "now"
    monkeypatch.setattr(notes, "datetime", type("Frozen", (notes.datetime,), {
        "now": staticmethod(lambda tz=None: fixed)}))
    asked = [*(Digest.from_str(d) for d in runs), absent]
    for at in (None, "HEAD"):
        batch = evidence_for_many(attested, asked, at=at)
        assert list(batch) == asked
        # the reference reads the whole store (every note, every file), then picks the run
        everything = notes.collect(attested, at=at)
        trust = evidence.trust_or_empty(attested, at)[0]
        for digest in asked:
            mine = [s for s in everything if s.subject == digest]
            assert batch[digest] == evidence.summarise(
                evidence.judge_all(mine, trust, attested.view(at)))
            assert batch[digest] == evidence_for(attested, digest, at=at), (at, digest)
    effects = {e["effect"] for ev in evidence_for_many(attested, asked).values()
               for e in ev.attestations}
    assert {"community", "verifies", "withdraws", "disagrees", "invalid"} <= effects
