"""KI234 in ``verify`` from its workers' parse: the same findings as the whole catalog's.

``verify`` judged KI234 (:func:`kistore.query.outlier_rules.check_outliers`) by reading
and parsing every manifest a second time, after its workers had read and parsed each one
(~2 s of CPU at 20,000 manifests, docs/speed.md). It now takes the runs, protocols,
environments and implementations from its contents check (``audit.FromParse``), a clean
run's spec cut to the keys its ranking reads. These tests hold the new answer equal to the
old one on stores with marked groups and with none, with a tampered run, a run that
contradicts itself (committed past the add's refusal) and a reference run, in one process
and in a pool of workers, at the work tree and at ``HEAD``.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kistore.check import audit
from kistore.check.audit import FromParse
from kistore.core import layout
from kistore.core.digest import Digest
from kistore.query import outlier_rules
from kistore.query.outlier_rules import check_outliers, outliers_parsed, ranked_keys

from ..conftest import add_docs, add_past_a_refusal, git

FROM_PARSE = FromParse(ranked_keys, outliers_parsed)


def _from_parse(store, at, workers):
    """KI234 as ``kistore verify`` finds it now, and every finding verify makes."""
    findings = audit.verify(store, at, checkers=(FROM_PARSE,), workers=workers)
    return [f for f in findings if f.rule.id == "KI234"], findings


def _group(kit, workload: str, runs, beside: list[dict] | None = None) -> list[dict]:
    """A comparison group: protocol, environment (``beside``'s when given: another group
    of theirs), workload, and a run per (name, latency, role)."""
    protocol, env = beside[:2] if beside else (kit.protocol(), kit.environment())
    load = kit.workload(workload)
    docs = [protocol, env, load] if beside is None else [load]
    for name, latency, role in runs:
        impl = kit.implementation(f"proj-{name}", role=role, name=f"impl-{name}")
        docs += [impl, kit.run(protocol, env, impl, load, latency=latency, name=name)]
    return docs


@pytest.fixture
def marked(store, kit, monkeypatch):
    """Three groups: one whose #1 is a 25,000 ns slip among runs of 20-21 ms (800x ahead
    of the median), one whose #1 a reference run and a self-contradicting 5 ns run do
    not make an outlier, and an ordinary one; one run's object is then tampered with."""
    first = _group(kit, "rmsnorm", [("a", 20_000_000, None), ("b", 21_000_000, None),
                                    ("slip", 25_000, None)])
    add_docs(store, first)
    second = _group(kit, "gemm", [("c", 40_000, None), ("d", 41_000, None),
                                  ("ref", 30, "reference")], first)
    add_docs(store, second)
    protocol, env, load = *first[:2], second[0]
    impl = kit.implementation("proj-liar", name="impl-liar")
    liar = kit.run(protocol, env, impl, load, latency=5, name="liar")
    liar["spec"]["correctness"] = {"passed": False}  # KI222: never ranked
    add_past_a_refusal(store, monkeypatch, [], [impl, liar],
                       rule="kistore.store.run_facts.run_contradictions",
                       finds_nothing=lambda spec: [])
    add_docs(store, _group(kit, "softmax", [("e", 1_000, None), ("f", 1_100, None)], first))
    return store


@pytest.mark.parametrize("at", [None, "HEAD"])
@pytest.mark.parametrize("workers", [1, 2])
def test_a_store_with_a_marked_group_is_judged_as_the_catalog_judges_it(marked, at, workers):
    found, _ = _from_parse(marked, at, workers)
    assert [(f.extra["ratio"], f.extra["over"]["name"], f.extra["over"]["value"])
            for f in found] == [(800.0, "a", 20_000_000)]
    assert found == check_outliers(marked, at)


@pytest.mark.parametrize("workers", [1, 2])
def test_a_tampered_run_is_left_out_as_the_catalog_leaves_it_out(marked, workers):
    """The slip's object edited in place: KI101 fails it, and neither path ranks it."""
    slip = next(f for f in check_outliers(marked) if f.rule.id == "KI234")
    path = marked.root / slip.file
    path.write_bytes(path.read_bytes().replace(b"25000", b"25001"))
    found, findings = _from_parse(marked, None, workers)
    assert ("KI101", slip.file) in [(f.rule.id, f.file) for f in findings]
    assert found == check_outliers(marked) == []  # a group of a and b: nothing to mark


def test_a_non_canonical_protocol_takes_its_groups_out_as_the_catalog_does(marked):
    """A protocol rewritten with a space (KI103) is no protocol to a catalog: its runs have
    no comparison key, so no group of them is judged, by either path."""
    slip = next(f for f in check_outliers(marked) if f.rule.id == "KI234")
    spec = (marked.root / slip.file).read_bytes()
    protocol = spec.split(b'"protocolDigest":"sha256:')[1][:64].decode()
    path = marked.root / layout.object_path(Digest(protocol))
    path.write_bytes(path.read_bytes().replace(b'":', b'": ', 1))
    found, findings = _from_parse(marked, None, 1)
    assert "KI101" in [f.rule.id for f in findings]  # its bytes are not its name any more
    assert found == check_outliers(marked) == []


@pytest.mark.parametrize("at", [None, "HEAD"])
def test_a_store_with_no_marked_group_has_no_finding_either_way(store, kit, at):
    add_docs(store, _group(kit, "rmsnorm", [("a", 20_000, None), ("b", 21_000, None),
                                            ("c", 900, None)]))  # 22x ahead: under 100x
    found, findings = _from_parse(store, at, 2)
    assert found == check_outliers(store, at) == []
    assert [f for f in findings if f.severity == "error"] == []


def test_verify_reads_no_manifest_for_ki234(marked, monkeypatch):
    """The judge makes its catalog from the workers' parse: no catalog of the store is
    opened, no object parsed again (each was read and parsed once, by the contents check)."""
    def no_scan(*args, **kwargs):
        raise AssertionError("the store was scanned a second time")

    monkeypatch.setattr("kistore.index.catalog.MemoryCatalog.from_view", no_scan)
    monkeypatch.setattr("kistore.index.index.open_catalog", no_scan)
    found, _ = _from_parse(marked, None, 1)
    assert [f.extra["ratio"] for f in found] == [800.0]


def test_the_judge_reads_the_policy_s_own_metric_keys(store):
    """A source-native family's metric is read from its own top-level key of the spec."""
    assert ranked_keys(store) == {"status", "timing", "workloadDigest", "protocolDigest",
                                  "environmentDigest", "implementationDigest",
                                  "sourceNative"}
    policy = store.root / "store/policy/ranking.json"
    policy.write_text("not json")
    assert ranked_keys(store) is None  # KI206's to say: nothing judged
    git(store.root, "status", "--short")  # the work tree only: HEAD keeps its policy
    assert ranked_keys(store, "HEAD") is not None
    assert outlier_rules.outliers_parsed(store, None, {}) == []


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.floats(min_value=1e-3, max_value=1e12),
                          st.integers(min_value=0, max_value=10**12)), min_size=1, max_size=9),
       st.sampled_from(["ascending", "descending"]))
def test_a_group_left_unranked_by_the_spread_check_has_no_marked_run(values, order):
    """_may_mark(False) skips ranking a group: only where ranking it marks nothing (both
    orders, ties, values of 0, exactly 100x apart)."""
    from kistore.index.records import Record
    from kistore.query.outliers import ranking_outliers
    from kistore.query.policy import Comparison
    from kistore.query.ranking import rank_group

    comparison = Comparison("measured", "f", "/timing/latencyNs/mean", order, "ns")
    records = [Record(f"sha256:{i:064x}", "BenchmarkRun", f"r{i}",
                      {"status": "passed", "timing": {"latencyNs": {"mean": v}}})
               for i, v in enumerate(values)]
    if not outlier_rules._may_mark([r.spec for r in records], comparison):
        assert ranking_outliers(rank_group("sha256:" + "0" * 64, records, comparison, {})) == {}


def test_a_group_exactly_100x_apart_is_ranked_and_marked(store, kit):
    add_docs(store, _group(kit, "rmsnorm", [("a", 10_000, None), ("b", 100, None)]))
    found, _ = _from_parse(store, None, 1)
    assert [(f.extra["ratio"], f.extra["over"]["name"]) for f in found] == [(100.0, "a")]
    assert found == check_outliers(store)
