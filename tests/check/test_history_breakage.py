"""Issue #17, item 5: nothing the store accepts can break it later.

Objects are never changed or deleted, so whatever ``verify`` would report must be refused
when it arrives. Each test pushes its pull requests in turn to a bare remote running
``hooks/pre-receive``.
"""

from __future__ import annotations

import json

import pytest

from kistore.core import canonical, layout
from kistore.core.digest import Digest
from kistore.core.model import Manifest

from ..conftest import ManifestKit
from ..prs import Remote


@pytest.fixture
def remote(published, tmp_path) -> Remote:
    return Remote(published, tmp_path)


def write_manifests(remote: Remote, docs: list[dict]) -> None:
    """Write manifests' files by hand (canonical bytes, past `kistore add`'s checks)."""
    for doc in docs:
        obj = canonical.dumps({k: doc[k] for k in ("apiVersion", "kind", "spec")})
        digest = Digest.of(obj)
        for path, data in ((layout.object_path(digest), obj),
                           (layout.metadata_path(digest), canonical.dumps(doc["metadata"]))):
            (remote.clone / path).parent.mkdir(parents=True, exist_ok=True)
            (remote.clone / path).write_bytes(data)


def add_file(remote: Remote, docs: list[dict], *args: str, check: bool = True):
    path = remote.clone.parent / "docs.jsonl"
    path.write_text("".join(json.dumps(d) + "\n" for d in docs))
    return remote.kistore("add", *args, str(path), check=check)


def test_run_whose_workload_digest_names_an_implementation_is_refused_by_add_and_check(
        remote, kit: ManifestKit):
    protocol, env, workload = kit.protocol(), kit.environment(), kit.workload()
    impl = kit.implementation(name="impl")
    assert remote.pr("parts", lambda c: add_file(remote, [protocol, env, workload, impl])
                     ).accepted
    run = kit.run(protocol, env, impl, workload, latency=10, name="run")
    run["spec"]["workloadDigest"] = kit.digest(impl)  # an Implementation's digest
    refused = add_file(remote, [run], check=False)
    assert refused.returncode == 1
    assert (f"workloadDigest {kit.digest(impl)} is an Implementation, not a Workload"
            in refused.stderr)
    # written by hand past `kistore add`, the gate refuses it too
    pushed = remote.pr("a run", lambda c: write_manifests(remote, [run]))
    assert not pushed.accepted
    assert f"error KI202 reference-wrong-kind: {kit.digest(impl)} is an Implementation" \
        in pushed.output


def test_dangling_reference_answered_later_by_a_manifest_of_another_kind_is_refused(
        remote, kit: ManifestKit):
    # PR 1 records a run whose workloadDigest dangles (a warning); PR 2 adds the manifest
    # with that digest, an Implementation: each range alone is clean for its own files.
    protocol, env, impl = kit.protocol(), kit.environment(), kit.implementation(name="impl")
    trap = kit.implementation("another", name="trap")
    run = kit.run(protocol, env, impl, kit.workload(), latency=10, name="run")
    run["spec"]["workloadDigest"] = kit.digest(trap)
    first = remote.pr("a run, dangling", lambda c: add_file(
        remote, [protocol, env, impl, run], "--allow-dangling"))
    assert first.accepted, first.output
    assert "warning KI201 reference-unresolved" in first.output
    alone = add_file(remote, [trap], check=False)
    pushed = remote.pr("the implementation", lambda c: write_manifests(remote, [trap]))
    assert not pushed.accepted
    run_path = layout.object_path(Manifest.from_document(run).digest)
    # said on the trap's object, the file the pull request brings, naming the earlier run
    trap_path = layout.object_path(Manifest.from_document(trap).digest)
    assert (f"{trap_path}:/kind: error KI202 reference-wrong-kind: Implementation/trap "
            f"({kit.digest(trap)}) answers the dangling reference of the earlier "
            f"BenchmarkRun/run ({kit.digest(run)}): {run_path}:/spec/workloadDigest names "
            "this digest and must name a Workload, not an Implementation") in pushed.output
    # `add` refuses it too (review r75 F4), naming the earlier run and its field
    assert alone.returncode == 1
    assert (f"{run_path}:/spec/workloadDigest names this digest and must name a Workload, "
            "not an Implementation") in alone.stderr


def unit_policy(remote: Remote) -> None:
    policy = remote.read_json("store/policy/ranking.json")
    policy["families"]["synthetic"] = {
        "comparison": "source-native", "metric": "/sourceNative/metrics/score",
        "order": "descending", "unitPointer": "/sourceNative/unit"}
    remote.write_json("store/policy/ranking.json", policy)


def scored_run(kit: ManifestKit, parts: list[dict], name: str, score: float, unit: str):
    protocol, env, workload = parts[:3]
    impl = kit.implementation(f"proj-{name}", name=f"impl-{name}")
    run = kit.run(protocol, env, impl, workload, latency=10, name=name,
                  native={"metrics": {"score": score}})
    run["spec"]["sourceNative"]["unit"] = unit
    return [impl, run]


def test_run_whose_unit_disagrees_with_its_group_is_refused_before_it_breaks_rank(
        remote, kit: ManifestKit):
    # The attack: one run stating another unit (policy unitPointer) made `rank`, `show`
    # and `compare` fail for every run of its group, for good; each PR passed.
    parts = [kit.protocol(), kit.environment(), kit.workload()]
    first = parts + scored_run(kit, parts, "a", 2.0, "TFLOP/s")
    assert remote.pr("policy and a run", lambda c: (unit_policy(remote),
                                                    add_file(remote, first))).accepted
    odd = scored_run(kit, parts, "b", 2000.0, "GFLOP/s")
    refused = add_file(remote, odd, check=False)  # add refuses it too (review 2026-12-02)
    assert refused.returncode == 1 and "(KI210: `check` and `verify` refuse it)" in \
        refused.stderr
    pushed = remote.pr("a run in GFLOP/s, past add",
                       lambda c: write_manifests(remote, odd))
    assert not pushed.accepted
    assert ("error KI210 unit-disagrees-with-group: states 'GFLOP/s' at /sourceNative/unit; "
            "the other runs of comparison group sha256:") in pushed.output
    assert "state 'TFLOP/s': `rank` would fail for the whole group" in pushed.output
    assert remote.kistore("rank", "BenchmarkRun/a").returncode == 0
    good = scored_run(kit, parts, "c", 3.0, "TFLOP/s")
    assert remote.pr("a run in TFLOP/s", lambda c: add_file(remote, good)).accepted


def test_a_protocol_completing_the_group_of_runs_in_two_units_is_refused(
        remote, kit: ManifestKit):
    # review 2026-12-01 F1: two runs in ms and ns whose protocol was not yet stored
    # (dangling: no comparison key, no group) each passed; the protocol arriving put them in
    # one group, which then failed rank, show and compare for good. The protocol's pull
    # request is refused: the runs its forward directory lists are checked as added.
    protocol, env, workload = kit.protocol(), kit.environment(), kit.workload()
    other = kit.protocol(version="0")  # the family's first protocol: a policy entry for a
    # family no protocol has is refused (KI250, fresh96 F5)
    assert remote.pr("policy", lambda c: (unit_policy(remote),
                                          add_file(remote, [other, env, workload]))).accepted
    parts = [protocol, env, workload]
    assert remote.pr("a run in TFLOP/s, its protocol not yet stored", lambda c: add_file(
        remote, scored_run(kit, parts, "a", 2.0, "TFLOP/s"), "--allow-dangling")).accepted
    assert remote.pr("a run in GFLOP/s, the same", lambda c: add_file(
        remote, scored_run(kit, parts, "b", 2000.0, "GFLOP/s"), "--allow-dangling")).accepted
    pushed = remote.pr("the protocol", lambda c: write_manifests(remote, [protocol]))
    assert not pushed.accepted
    assert "error KI210 unit-disagrees-with-group" in pushed.output


def test_a_ranked_value_that_is_no_number_is_warned_of_and_rank_says_why(
        remote, kit: ManifestKit):
    # reviewer r83: "0.5" at the policy's metric passed every check and `rank` left the run
    # unranked as "no value at ...", as if it stated nothing
    policy = remote.read_json("store/policy/ranking.json")
    policy["families"]["synthetic"] = {
        "comparison": "source-native", "metric": "/sourceNative/metrics/score",
        "order": "descending", "unit": "score"}
    remote.write_json("store/policy/ranking.json", policy)
    parts = [kit.protocol(), kit.environment(), kit.workload()]
    good = scored_run(kit, parts, "a", 2.0, "score")
    odd = scored_run(kit, parts, "b", 1.0, "score")
    odd[1]["spec"]["sourceNative"]["metrics"]["score"] = "0.5"
    pushed = remote.pr("policy and two runs", lambda c: add_file(remote, parts + good + odd))
    assert pushed.accepted, pushed.output  # a warning: the schemas admit it
    odd_path = layout.object_path(Manifest.from_document(odd[1]).digest)
    assert (f"{odd_path}:/spec/sourceNative/metrics/score: warning KI221 "
            "ranked-value-not-a-number: states \"0.5\" at /sourceNative/metrics/score, the "
            "value its family 'synthetic' is ranked by, which is no number") in pushed.output
    assert pushed.output.count("warning KI221") == 1  # the run stating 2.0 is not named
    ranked = remote.kistore("rank", "BenchmarkRun/b")
    assert ranked.returncode == 0, ranked.stderr
    assert "\"0.5\" at /sourceNative/metrics/score is not a number" in ranked.stdout
